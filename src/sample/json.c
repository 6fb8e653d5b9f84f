/* JSON escaping (the json converter, with HAProxy's UTF-8 decoder and its error classes)
 * and json_query's streaming path evaluator: one pass over the document with an explicit
 * state machine (no recursion, nesting bounded by JSON_MAX_DEPTH), stopping at the first
 * value the path designates. Accepts what HAProxy 2.6's embedded mjson accepts, numbers
 * included, but never reads past the given length.
 */
#include <stdio.h>
#include <string.h>

#include <sample/json.h>

/* ---- json() ---- */

int json_enc_parse(const char *name)
{
	static const char *const names[] = { "ascii", "utf8", "utf8s", "utf8p", "utf8ps" };
	int i;

	for (i = 0; i < 5; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

#define UTF8_BADSEQ 0x1	  /* lone continuation, bad lead byte, missing continuation */
#define UTF8_INVRANGE 0x2 /* surrogate, U+FFFE or U+FFFF */
#define UTF8_OVERLONG 0x4 /* more bytes than the value needs */

/* Decodes one character from p[0..len) (len >= 1) as HAProxy's decoder does, 5- and 6-byte
 * forms included. Returns the bytes consumed: on a bad sequence, the lead byte and the
 * continuation bytes before the faulty one, so that decoding resumes on the faulty one.
 */
static size_t utf8_decode(const unsigned char *p, size_t len, uint32_t *c, unsigned int *err)
{
	size_t n, i;
	uint32_t v;

	*err = 0;
	*c = p[0];
	if (p[0] < 0x80)
		return 1;
	if (p[0] < 0xc0 || p[0] >= 0xfe) {
		*err = UTF8_BADSEQ;
		return 1;
	}
	n = p[0] >= 0xfc ? 6 : p[0] >= 0xf8 ? 5 : p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : 2;
	v = p[0] & (0x7f >> n);
	for (i = 1; i < n; i++) {
		if (i >= len || (p[i] & 0xc0) != 0x80) {
			*err = UTF8_BADSEQ;
			return i;
		}
		v = v << 6 | (p[i] & 0x3f);
	}
	if ((v <= 0x7f && n > 1) || (v <= 0x7ff && n > 2) || (v <= 0xffff && n > 3) ||
	    (v <= 0x1fffff && n > 4))
		*err |= UTF8_OVERLONG;
	if ((v >= 0xd800 && v <= 0xdfff) || v == 0xfffe || v == 0xffff)
		*err |= UTF8_INVRANGE;
	*c = v;
	return n;
}

/* Writes character <c> (at most 0xffff) escaped at out[*o]; -1 if it does not fit. */
static int json_put(uint32_t c, char *out, size_t outsz, size_t *o)
{
	static const char hex[] = "0123456789abcdef";
	const char *esc = NULL;
	char u[6];
	size_t n;

	switch (c) {
	case '"':
		esc = "\\\"";
		break;
	case '\\':
		esc = "\\\\";
		break;
	case '/':
		esc = "\\/";
		break;
	case '\b':
		esc = "\\b";
		break;
	case '\f':
		esc = "\\f";
		break;
	case '\r':
		esc = "\\r";
		break;
	case '\n':
		esc = "\\n";
		break;
	case '\t':
		esc = "\\t";
		break;
	}
	if (esc) {
		n = 2;
	} else if (c < 0x20 || c > 0x7e) {
		u[0] = '\\';
		u[1] = 'u';
		u[2] = hex[(c >> 12) & 15];
		u[3] = hex[(c >> 8) & 15];
		u[4] = hex[(c >> 4) & 15];
		u[5] = hex[c & 15];
		esc = u;
		n = 6;
	} else {
		u[0] = (char)c;
		esc = u;
		n = 1;
	}
	if (outsz - *o < n)
		return -1;
	memcpy(out + *o, esc, n);
	*o += n;
	return 0;
}

int json_escape(const char *in, size_t len, enum json_enc enc, char *out, size_t outsz)
{
	const unsigned char *p = (const unsigned char *)in;
	bool drop = enc == JSON_ENC_UTF8S || enc == JSON_ENC_UTF8PS;
	bool fix_overlong = enc == JSON_ENC_UTF8P || enc == JSON_ENC_UTF8PS;
	size_t i = 0, o = 0;

	if (outsz > 0x7fffffff)
		outsz = 0x7fffffff;
	while (i < len) {
		unsigned int err = 0;
		uint32_t c = p[i];
		size_t n = 1;

		if (enc != JSON_ENC_ASCII)
			n = utf8_decode(p + i, len - i, &c, &err);
		i += n;
		if (fix_overlong)
			err &= ~UTF8_OVERLONG;
		if (err || c > 0xffff) {
			if (!drop)
				return -1;
			continue;
		}
		if (json_put(c, out, outsz, &o) < 0)
			return -1;
	}
	return (int)o;
}

/* ---- json_query() ---- */

enum jq_step {
	JQ_END = 0, /* the path is consumed: the next target value is the result */
	JQ_KEY,	    /* .key or ['key']: key bytes at path[k_off..k_end), escaped */
	JQ_IDX,	    /* [N] */
};

enum jq_ret {
	JQ_MORE = 0, /* keep reading */
	JQ_FOUND,
	JQ_MISS,
};

struct jq {
	const char *path;
	size_t plen, pos;  /* pos: the step after the current one */
	enum jq_step step; /* the current step */
	size_t k_off, k_end;
	size_t want;	/* JQ_IDX: the index wanted */
	int depth;	/* containers open */
	int mdepth;	/* depth at which the current target value appears */
	bool pending;	/* the target value has not started yet */
	bool entered;	/* in the target container, looking for the current step */
	size_t elem;	/* index of the element being read in the target array */
	bool capturing; /* the target is a container and the path is consumed */
	size_t cap_start;
	uint32_t objects; /* bit d set: the container at depth d+1 is an object */
};

/* Parses the step at path[pos] into jq->step and moves pos past it. -1 if malformed. */
static int jq_next_step(struct jq *q)
{
	const char *p = q->path;
	size_t i = q->pos, n = q->plen;

	if (i == n) {
		q->step = JQ_END;
		return 0;
	}
	if (p[i] == '.') {
		q->k_off = ++i;
		while (i < n && p[i] != '.' && p[i] != '[') {
			if (p[i] == '\\' && ++i == n)
				return -1;
			i++;
		}
		q->step = JQ_KEY;
		q->k_end = i;
	} else if (p[i] == '[' && i + 1 < n && (p[i + 1] == '\'' || p[i + 1] == '"')) {
		char quote = p[i + 1];

		q->k_off = i += 2;
		while (i < n && p[i] != quote) {
			if (p[i] == '\\' && ++i == n)
				return -1;
			i++;
		}
		if (i + 1 >= n || p[i + 1] != ']')
			return -1;
		q->step = JQ_KEY;
		q->k_end = i;
		i += 2;
	} else if (p[i] == '[') {
		size_t v = 0, start = ++i;

		for (; i < n && p[i] >= '0' && p[i] <= '9'; i++)
			v = v > (size_t)-1 / 20 ? (size_t)-1 / 2 : v * 10 + (size_t)(p[i] - '0');
		if (i == start || i == n || p[i] != ']')
			return -1;
		q->step = JQ_IDX;
		q->want = v;
		i++;
	} else {
		return -1;
	}
	q->pos = i;
	return 0;
}

/* Compares the raw key bytes k[0..klen) with the current (escaped) path key. */
static bool jq_key_match(const struct jq *q, const char *k, size_t klen)
{
	size_t i = q->k_off, j = 0;

	for (; i < q->k_end; i++, j++) {
		if (q->path[i] == '\\')
			i++;
		if (j == klen || k[j] != q->path[i])
			return false;
	}
	return j == klen;
}

/* The current step matched: the value it designates appears next, at <depth>. */
static void jq_advance(struct jq *q, int depth)
{
	jq_next_step(q); /* the whole path was validated beforehand */
	q->mdepth = depth;
	q->pending = true;
	q->entered = false;
}

/* A value starts at the current depth: <c> is '{', '[' or 0 for a scalar. */
static enum jq_ret jq_on_value(struct jq *q, char c, size_t off)
{
	if (q->depth != q->mdepth || !q->pending)
		return JQ_MORE;
	q->pending = false;
	if (q->step == JQ_END) {
		if (!c)
			return JQ_FOUND;
		q->capturing = true;
		q->cap_start = off;
		return JQ_MORE;
	}
	if ((q->step == JQ_KEY && c == '{') || (q->step == JQ_IDX && c == '[')) {
		q->entered = true;
		q->elem = 0;
		if (q->step == JQ_IDX && q->want == 0)
			jq_advance(q, q->depth + 1);
		return JQ_MORE;
	}
	return JQ_MISS;
}

static void jq_on_key(struct jq *q, const char *k, size_t klen)
{
	if (q->entered && q->step == JQ_KEY && q->depth == q->mdepth + 1 &&
	    jq_key_match(q, k, klen))
		jq_advance(q, q->depth);
}

static void jq_on_comma(struct jq *q)
{
	if (q->entered && q->step == JQ_IDX && q->depth == q->mdepth + 1 && ++q->elem == q->want)
		jq_advance(q, q->depth);
}

/* A container closed; depth is already the depth it was opened at. */
static enum jq_ret jq_on_close(struct jq *q)
{
	if (q->depth == q->mdepth) {
		if (q->capturing)
			return JQ_FOUND;
		if (q->entered)
			return JQ_MISS;
	}
	return q->depth < q->mdepth ? JQ_MISS : JQ_MORE;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Scans a number at s[0..n) as mjson does and returns its token length, which is 0 when
 * it ends on a '.' or is a lone '-' (mjson then reports a value but fails right after).
 * *d gets the value computed digit by digit as mjson does, so that "%g" prints the same.
 */
static size_t jq_number(const char *s, size_t n, double *d)
{
	size_t i = 0, tok = 0;
	double sign = 1.0, v = 0.0;

	if (i < n && s[i] == '-') {
		sign = -1.0;
		i++;
	}
	if (i < n && is_digit(s[i])) {
		for (; i < n && is_digit(s[i]); i++)
			v = v * 10.0 + (s[i] - '0');
		tok = i;
	} else if (i >= n || s[i] != '.') {
		*d = 0.0;
		return 0;
	}
	v *= sign;
	if (i < n && s[i] == '.') {
		double f = 0.0, base = 0.1;

		for (i++; i < n && is_digit(s[i]); i++) {
			f += base * (s[i] - '0');
			base /= 10.0;
		}
		v += f * sign;
		tok = i;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		long e = 0;
		bool neg = false;

		i++;
		if (i < n && s[i] == '-') {
			neg = true;
			i++;
		}
		if (i < n && s[i] == '+')
			i++;
		for (; i < n && is_digit(s[i]); i++)
			e = e < 100000 ? e * 10 + (s[i] - '0') : e;
		for (; !neg && e > 0 && v != 0.0 && v - v == 0.0; e--)
			v *= 10;
		for (; neg && e > 0 && v != 0.0; e--)
			v /= 10;
		tok = i;
	} else if (i > 0 && !is_digit(s[i - 1])) {
		tok = 0;
	}
	*d = v;
	return tok;
}

/* Length of the string whose opening quote is at s[-1], up to its closing quote excluded,
 * or -1 if it does not end or holds a NUL byte.
 */
static long jq_string(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\\' && i + 1 < n && (s[i + 1] == '"' || s[i + 1] == '\\'))
			i++;
		else if (!s[i])
			return -1;
		else if (s[i] == '"')
			return (long)i;
	}
	return -1;
}

/* mjson's nibble decoding, which does not check its input. */
static unsigned char jq_nibble(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned char)(c - '0');
	if (c >= 'A' && c <= 'F')
		return (unsigned char)(c - '7');
	return (unsigned char)(c - 'W');
}

/* Unescapes the string body s[0..n) into out, as mjson does. */
static int jq_unescape(const char *s, size_t n, char *out, size_t outsz, size_t *olen)
{
	static const char from[] = "bfnrt\\\"", to[] = "\b\f\n\r\t\\\"";
	size_t i, o = 0;

	for (i = 0; i < n; i++, o++) {
		char c = s[i];

		if (c == '\\' && i + 5 < n && s[i + 1] == 'u') {
			if (s[i + 2] != '0' || s[i + 3] != '0')
				return -1;
			c = (char)(unsigned char)(jq_nibble(s[i + 4]) << 4 | jq_nibble(s[i + 5]));
			i += 5;
		} else if (c == '\\' && i + 1 < n) {
			const char *e = s[i + 1] ? strchr(from, s[i + 1]) : NULL;

			if (!e)
				return -1;
			c = to[e - from];
			i++;
		}
		if (o == outsz)
			return -1;
		out[o] = c;
	}
	*olen = o;
	return 0;
}

/* Value of <c> as a digit in bases up to 16, or 99. */
static unsigned int jq_digit(char c)
{
	if (is_digit(c))
		return (unsigned int)(c - '0');
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (unsigned int)((c | 0x20) - 'a' + 10);
	return 99;
}

/* strtoll(s, NULL, 0) over s[0..n) for values within +/-(2^53-1); -1 outside that range. */
static int jq_int(const char *s, size_t n, int64_t *res)
{
	const uint64_t max = (1ULL << 53) - 1;
	unsigned int base = 10, d;
	uint64_t v = 0;
	bool neg = false;
	size_t i = 0;

	if (i < n && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	if (i < n && s[i] == '0') {
		base = 8;
		if (i + 2 < n && (s[i + 1] | 0x20) == 'x' && jq_digit(s[i + 2]) < 16) {
			base = 16;
			i += 2;
		}
	}
	for (; i < n && (d = jq_digit(s[i])) < base; i++) {
		v = v * base + d;
		if (v > max)
			return -1;
	}
	*res = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/* Builds the result for the scalar token doc[off..off+n) of kind <kind>. */
static int jq_scalar(const char *doc, size_t len, size_t off, size_t n, enum json_kind kind,
		     unsigned int flags, char *out, size_t outsz, struct json_result *res)
{
	res->kind = kind;
	res->i = kind == JSON_K_TRUE;
	res->len = 0;
	if (kind == JSON_K_STRING)
		return jq_unescape(doc + off + 1, n - 2, out, outsz, &res->len);
	if (kind == JSON_K_NUMBER) {
		double d;
		int r;

		if (flags & JSON_Q_INT)
			return jq_int(doc + off, len - off, &res->i);
		jq_number(doc + off, len - off, &d);
		r = snprintf(out, outsz, "%g", d);
		if (r < 0 || (size_t)r >= outsz)
			return -1;
		res->len = (size_t)r;
	}
	return 0;
}

enum jq_expect {
	JQ_X_VALUE = 0,
	JQ_X_KEY,
	JQ_X_COLON,
	JQ_X_COMMA,
};

/* Scans the scalar starting at doc[i]: sets its kind and token length. -1 if invalid. */
static int jq_scan_scalar(const char *doc, size_t len, size_t i, enum json_kind *kind, size_t *n)
{
	const char *s = doc + i;
	size_t left = len - i;
	double d;
	long sl;

	if (s[0] == 't' && left >= 4 && !memcmp(s, "true", 4)) {
		*kind = JSON_K_TRUE;
		*n = 4;
	} else if (s[0] == 'f' && left >= 5 && !memcmp(s, "false", 5)) {
		*kind = JSON_K_FALSE;
		*n = 5;
	} else if (s[0] == 'n' && left >= 4 && !memcmp(s, "null", 4)) {
		*kind = JSON_K_NULL;
		*n = 4;
	} else if (s[0] == '-' || is_digit(s[0])) {
		*kind = JSON_K_NUMBER;
		*n = jq_number(s, left, &d);
	} else if (s[0] == '"' && (sl = jq_string(s + 1, left - 1)) >= 0) {
		*kind = JSON_K_STRING;
		*n = (size_t)sl + 2;
	} else {
		return -1;
	}
	return 0;
}

int json_query(const char *doc, size_t len, const char *path, size_t pathlen, unsigned int flags,
	       char *out, size_t outsz, struct json_result *res)
{
	struct jq q = { .path = path, .plen = pathlen, .pos = 1, .pending = true };
	enum jq_expect x = JQ_X_VALUE;
	enum jq_ret r = JQ_MORE;
	size_t i;

	res->kind = JSON_K_NONE;
	res->i = 0;
	res->len = 0;
	if (!pathlen || path[0] != '$')
		return -1;
	do { /* validate the whole path, then restart on its first step */
		if (jq_next_step(&q) < 0)
			return -1;
	} while (q.step != JQ_END);
	q.pos = 1;
	jq_next_step(&q);

	for (i = 0; i < len && r == JQ_MORE; i++) {
		char c = doc[i];
		enum json_kind kind;
		size_t n;

		if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
			continue;
		switch (x) {
		case JQ_X_VALUE:
			if (c == '{' || c == '[') {
				if (q.depth >= JSON_MAX_DEPTH)
					return -1;
				r = jq_on_value(&q, c, i);
				if (c == '{')
					q.objects |= 1U << q.depth;
				else
					q.objects &= ~(1U << q.depth);
				q.depth++;
				x = c == '{' ? JQ_X_KEY : JQ_X_VALUE;
				continue;
			}
			if (c == ']' && q.depth > 0)
				goto close;
			if (jq_scan_scalar(doc, len, i, &kind, &n) < 0)
				return -1;
			r = jq_on_value(&q, 0, i);
			if (r == JQ_FOUND)
				return jq_scalar(doc, len, i, n, kind, flags, out, outsz, res);
			if (!q.depth)
				return -1;
			i = i + n - 1; /* n == 0 rereads this byte, as a (failing) separator */
			x = JQ_X_COMMA;
			continue;
		case JQ_X_KEY:
			if (c == '}')
				goto close;
			if (c != '"' || jq_scan_scalar(doc, len, i, &kind, &n) < 0)
				return -1;
			jq_on_key(&q, doc + i + 1, n - 2);
			i += n - 1;
			x = JQ_X_COLON;
			continue;
		case JQ_X_COLON:
			if (c != ':')
				return -1;
			x = JQ_X_VALUE;
			continue;
		case JQ_X_COMMA:
			if (c == ',') {
				jq_on_comma(&q);
				x = (q.objects >> (q.depth - 1)) & 1 ? JQ_X_KEY : JQ_X_VALUE;
				continue;
			}
			if (c == ']' || c == '}')
				goto close;
			return -1;
		}
	close:
		if (!q.depth || (c == '}') != ((q.objects >> (q.depth - 1)) & 1))
			return -1;
		q.depth--;
		r = jq_on_close(&q);
		if (r == JQ_FOUND) {
			size_t n2 = i + 1 - q.cap_start;

			if (n2 > outsz)
				return -1;
			memcpy(out, doc + q.cap_start, n2);
			res->kind = doc[q.cap_start] == '{' ? JSON_K_OBJECT : JSON_K_ARRAY;
			res->len = n2;
			return 0;
		}
		if (!q.depth)
			return -1;
		x = JQ_X_COMMA;
	}
	return -1;
}
