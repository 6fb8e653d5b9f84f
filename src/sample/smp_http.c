/* Pure parsers behind the HTTP fetches: URL and body parameters, cookies, comma-separated
 * header values, HAProxy's lenient integer and IPv4 readers, the base32/url32 hash, the
 * varint of req.hdrs_bin and chunked-body decoding. No allocation, no global state; the
 * quirks kept here are HAProxy 2.6's observable behaviour, each said where it is kept.
 */
#include <stdint.h>
#include <string.h>

#include <sample/smp_http.h>

static inline bool is_sp(char c)
{
	return c == ' ' || c == '\t';
}

static inline struct ist trim_sp(const char *s, const char *e)
{
	while (s < e && is_sp(*s))
		s++;
	while (e > s && is_sp(e[-1]))
		e--;
	return ist2(s, (size_t)(e - s));
}

/* ---- URL and body parameters ---- */

struct ist smp_param_list(struct ist uri, char delim)
{
	const char *d = uri.len ? memchr(uri.ptr, delim, uri.len) : NULL;

	if (!d)
		return ist2(NULL, 0);
	d++;
	return ist2(d, (size_t)(uri.ptr + uri.len - d));
}

static bool param_sep(char c, char delim)
{
	return c == '&' || c == ';' || c == delim;
}

bool smp_param_next(struct ist *rest, struct ist name, char delim, struct ist *val)
{
	const char *p = rest->ptr, *e = p + rest->len;

	while (p < e) {
		const char *s = p, *v = NULL, *se;

		while (p < e && !param_sep(*p, delim))
			p++;
		se = p;
		if (p < e)
			p++; /* the separator */
		if (!name.len) {
			v = memchr(s, '=', (size_t)(se - s));
			if (v)
				v++;
		} else if ((size_t)(se - s) > name.len && s[name.len] == '=' &&
			   !memcmp(s, name.ptr, name.len)) {
			v = s + name.len + 1;
		}
		if (v) {
			*val = ist2(v, (size_t)(se - v));
			*rest = ist2(p, (size_t)(e - p));
			return true;
		}
	}
	*rest = ist2(e, 0);
	return false;
}

/* ---- cookies ---- */

/* The end of a cookie value starting at <s>: the first ';' or ',' outside double quotes
 * (a backslash escapes the next byte inside them), or <e>. */
static const char *cookie_value_end(const char *s, const char *e)
{
	bool quoted = false, esc = false;

	for (; s < e; s++) {
		if (esc)
			esc = false;
		else if (quoted && *s == '\\')
			esc = true;
		else if (*s == '"')
			quoted = !quoted;
		else if (!quoted && (*s == ';' || *s == ','))
			break;
	}
	return s;
}

bool smp_cookie_next(struct ist *rest, struct ist name, bool any, bool list, struct ist *val)
{
	const char *seg = rest->ptr, *e = seg + rest->len;
	size_t nl = any ? 0 : name.len;

	/* HAProxy only looks at a pair whose segment can hold the name, '=' and one byte */
	while ((size_t)(e - seg) > nl + 1) {
		const char *p = seg, *ns, *ne, *next;
		bool eq, dollar;

		while (p < e && is_sp(*p))
			p++;
		ns = ne = p;
		dollar = ns < e && *ns == '$';
		while (p < e && *p != '=' && *p != ';' && !(list && *p == ',')) {
			if (!is_sp(*p))
				ne = p + 1;
			p++;
		}
		eq = p < e && *p == '=';
		next = eq ? cookie_value_end(p + 1, e) : p;
		if (eq && !dollar &&
		    (any || ((size_t)(ne - ns) == name.len && !memcmp(ns, name.ptr, name.len)))) {
			*val = trim_sp(p + 1, next);
			next = next < e ? next + 1 : e;
			*rest = ist2(next, (size_t)(e - next));
			return true;
		}
		/* Set-Cookie: only the first real pair names the cookie */
		if (eq && !dollar && !list)
			break;
		if (next >= e)
			break;
		seg = next + 1;
	}
	*rest = ist2(e, 0);
	return false;
}

static bool ck_is_sep(char c)
{
	return c == ';' || c == ',';
}

bool smp_cookie_pair(struct ist v, struct ist name, struct ist *pair, struct ist *val)
{
	const char *p = v.ptr, *e = v.ptr + v.len;

	while (p < e) {
		const char *s, *eq, *ne, *end;

		while (p < e && (is_sp(*p) || ck_is_sep(*p)))
			p++;
		s = p;
		while (p < e && !ck_is_sep(*p))
			p++;
		end = p;
		while (end > s && is_sp(end[-1]))
			end--;
		eq = memchr(s, '=', (size_t)(end - s));
		if (!eq)
			continue;
		ne = eq;
		while (ne > s && is_sp(ne[-1]))
			ne--;
		if ((size_t)(ne - s) != name.len || memcmp(s, name.ptr, name.len) != 0)
			continue;
		eq++;
		while (eq < end && is_sp(*eq))
			eq++;
		*pair = ist2(s, (size_t)(end - s));
		*val = ist2(eq, (size_t)(end - eq));
		return true;
	}
	return false;
}

/* ---- header values ---- */

bool smp_hdr_next_value(struct ist *rest, bool *done, struct ist *val)
{
	const char *s = rest->ptr, *e = s + rest->len, *p;
	bool quoted = false, esc = false;

	if (*done)
		return false;
	/* most values hold no quote: then the first comma ends the value */
	p = smp_find_comma_or_quote(s, e);
	if (p == e || *p == ',')
		goto found;
	for (p = s; p < e; p++) {
		if (esc)
			esc = false;
		else if (quoted && *p == '\\')
			esc = true;
		else if (*p == '"')
			quoted = !quoted;
		else if (!quoted && *p == ',')
			break;
	}
found:
	*val = trim_sp(s, p);
	if (p < e) {
		*rest = ist2(p + 1, (size_t)(e - p - 1));
	} else {
		*rest = ist2(e, 0);
		*done = true;
	}
	return true;
}

/* ---- numbers and addresses ---- */

int smp_strl2ic(struct ist s)
{
	uint32_t v = 0;
	bool neg;

	if (!s.len)
		return 0;
	neg = s.ptr[0] == '-';
	for (size_t i = neg; i < s.len; i++) {
		int d = (signed char)s.ptr[i] - '0';

		if (d > 9)
			break;
		v = v * 10u + (neg ? (uint32_t)0 - (uint32_t)d : (uint32_t)d);
	}
	return (int)(int32_t)v;
}

size_t smp_ipv4_prefix(struct ist s, struct in_addr *out)
{
	uint8_t oct[4] = { 0 };
	unsigned cur = 0;
	int n = 0;
	bool digit = false;
	size_t i;

	for (i = 0; i < s.len; i++) {
		char c = s.ptr[i];

		if (c >= '0' && c <= '9') {
			cur = cur * 10 + (unsigned)(c - '0');
			if (cur > 255)
				return 0;
			if (!digit && ++n > 4)
				return 0;
			digit = true;
			oct[n - 1] = (uint8_t)cur;
		} else if (c == '.' && digit) {
			if (n == 4)
				return 0;
			digit = false;
			cur = 0;
		} else if (c == '.') {
			return 0;
		} else {
			break;
		}
	}
	if (n < 4 || !digit)
		return 0;
	memcpy(&out->s_addr, oct, 4);
	return i;
}

bool smp_url_ipv4(struct ist url, struct in_addr *ip, int *port)
{
	const char *p = url.ptr, *e = p + url.len;
	const char *sep = NULL;
	size_t n, slen;

	for (const char *q = p; q + 3 <= e; q++) {
		if (q[0] == ':' && q[1] == '/' && q[2] == '/') {
			sep = q;
			break;
		}
	}
	if (!sep)
		return false;
	slen = (size_t)(sep - p);
	if (slen == 4 && !strncasecmp(p, "http", 4))
		*port = 80;
	else if (slen == 5 && !strncasecmp(p, "https", 5))
		*port = 443;
	else
		return false;
	p = sep + 3;
	n = smp_ipv4_prefix(ist2(p, (size_t)(e - p)), ip);
	if (!n)
		return false;
	p += n;
	if (p < e && *p == ':') {
		unsigned v = 0;

		for (p++; p < e && *p >= '0' && *p <= '9'; p++)
			v = (v * 10 + (unsigned)(*p - '0')) & 0xffff;
		*port = (int)v;
	}
	return true;
}

/* ---- hashes and encodings ---- */

uint32_t smp_hash_sdbm(uint32_t h, struct ist s)
{
	for (size_t i = 0; i < s.len; i++)
		h = (uint8_t)s.ptr[i] + (h << 6) + (h << 16) - h;
	return h;
}

/* Robert Jenkins' 32-bit integer hash, then HAProxy's multiplication by the prime
 * 3221225473, as it applies them to base32 and url32. */
uint32_t smp_hash_final(uint32_t a)
{
	a = (a + 0x7ed55d16) + (a << 12);
	a = (a ^ 0xc761c23c) ^ (a >> 19);
	a = (a + 0x165667b1) + (a << 5);
	a = (a + 0xd3a2646c) ^ (a << 9);
	a = (a + 0xfd7046c5) + (a << 3);
	a = (a ^ 0xb55a4f09) ^ (a >> 16);
	return a * 3221225473U;
}

/* Values below 240 take one byte; larger ones put their low 4 bits over 240 in the first
 * byte, then 7 bits per byte (high bit set while more follow), each step removing the
 * part the previous byte could already express. */
int smp_varint_put(char *out, size_t room, size_t *pos, uint64_t v)
{
	size_t p = *pos;

	if (p >= room)
		return -1;
	if (v < 240) {
		out[p++] = (char)v;
		*pos = p;
		return 0;
	}
	out[p++] = (char)((uint8_t)v | 240);
	v = (v - 240) >> 4;
	while (v >= 128) {
		if (p >= room)
			return -1;
		out[p++] = (char)((uint8_t)v | 128);
		v = (v - 128) >> 7;
	}
	if (p >= room)
		return -1;
	out[p++] = (char)v;
	*pos = p;
	return 0;
}

/* ---- chunked bodies ---- */

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

size_t smp_dechunk(struct ist in, char *out, size_t room, bool *end)
{
	const char *p = in.ptr, *e = p + in.len;
	size_t o = 0;

	*end = false;
	while (p < e && o < room) {
		uint64_t sz = 0;
		const char *lf;
		size_t take;
		int d, nd = 0;

		while (p < e && (d = hexval(*p)) >= 0) {
			if (sz >> 56)
				return o;
			sz = sz * 16 + (unsigned)d;
			p++;
			nd++;
		}
		lf = memchr(p, '\n', (size_t)(e - p));
		if (!nd || !lf)
			return o; /* invalid or incomplete size line */
		p = lf + 1;
		if (!sz) {
			*end = true;
			return o;
		}
		take = (size_t)(e - p) < sz ? (size_t)(e - p) : (size_t)sz;
		if (take > room - o)
			take = room - o;
		memcpy(out + o, p, take);
		o += take;
		p += take;
		if (take < sz)
			return o;
		/* CRLF after the data */
		if (p < e && *p == '\r')
			p++;
		if (p < e && *p == '\n')
			p++;
	}
	return o;
}
