/* The HTTP rules of the cache (include/cache/cache_http.h): request flags and keys, the
 * secondary key of Vary responses, the storability and lifetime of responses, HTTP dates
 * and conditional requests, with HAProxy's readings of the headers (a Cache-Control
 * directive matched by its prefix on requests, whole on responses; the first Pragma,
 * Expires, Age, ETag, Last-Modified and Date headers). Pure: no I/O, no globals, no
 * allocation.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cache/cache_http.h>
#include <sample/hash.h>

/* ---- helpers over the header table ---- */

static bool hdr_is(const struct h1_hdr *h, struct ist name)
{
	return !h->skip && ist_ieq(h->n, name);
}

/* The first header <name> of <m>, ptr NULL without one; *idx gets its index. */
static struct ist hdr_first(const struct h1_msg *m, struct ist name, int *idx)
{
	for (uint16_t i = 0; i < m->nhdr; i++) {
		if (hdr_is(&m->hdr[i], name)) {
			if (idx)
				*idx = i;
			return m->hdr[i].v;
		}
	}
	if (idx)
		*idx = -1;
	return ist2(NULL, 0);
}

static bool is_sp(char c)
{
	return c == ' ' || c == '\t';
}

static struct ist trim(struct ist v)
{
	while (v.len && is_sp(v.ptr[0])) {
		v.ptr++;
		v.len--;
	}
	while (v.len && is_sp(v.ptr[v.len - 1]))
		v.len--;
	return v;
}

void cache_each_elem(struct ist v, bool (*fn)(struct ist e, void *arg), void *arg)
{
	size_t i = 0, start = 0;
	bool quoted = false;

	for (; i <= v.len; i++) {
		if (i < v.len) {
			char c = v.ptr[i];

			if (c == '"')
				quoted = !quoted;
			else if (c == '\\' && quoted && i + 1 < v.len)
				i++;
			if (quoted || c != ',')
				continue;
		}
		struct ist e = trim(ist2(v.ptr + start, i - start));

		if (e.len && !fn(e, arg))
			return;
		start = i + 1;
	}
}

/* Case-insensitive prefix. */
static bool pfx(struct ist v, struct ist p)
{
	return v.len >= p.len && ist_ieq(ist2(v.ptr, p.len), p);
}

/* ---- requests ---- */

static bool req_cc(struct ist e, void *arg)
{
	uint32_t *f = arg;

	if (pfx(e, IST("max-age")) || pfx(e, IST("no-cache")) || pfx(e, IST("max-stale")) ||
	    pfx(e, IST("min-fresh")))
		*f |= CACHE_RQ_IGNORE;
	else if (pfx(e, IST("no-store")))
		*f |= CACHE_RQ_NOSTORE;
	return true;
}

uint32_t cache_req_flags(const struct h1_msg *m)
{
	bool cc = false, pragma = false, seen_pragma = false;
	uint32_t f = 0;

	if (!(m->flags & H1_MF_VER_11))
		return CACHE_RQ_IGNORE | CACHE_RQ_NOSTORE | CACHE_RQ_SKIP;
	if (!(m->flags & (H1_MF_METH_GET | H1_MF_METH_HEAD)))
		f |= CACHE_RQ_IGNORE;
	for (uint16_t i = 0; i < m->nhdr; i++) {
		const struct h1_hdr *h = &m->hdr[i];

		if (h->skip)
			continue;
		if (!seen_pragma && ist_ieq(h->n, IST("pragma"))) {
			seen_pragma = true;
			pragma = ist_ieq(h->v, IST("no-cache"));
		} else if (ist_ieq(h->n, IST("authorization"))) {
			f |= CACHE_RQ_IGNORE | CACHE_RQ_NOSTORE;
		} else if (ist_ieq(h->n, IST("cache-control"))) {
			cc = true;
			cache_each_elem(h->v, req_cc, &f);
		}
	}
	if (!cc && pragma)
		f |= CACHE_RQ_IGNORE;
	return f;
}

long cache_req_key(const struct h1_msg *m, char *out, size_t room)
{
	struct ist uri = m->uri, host = { 0 };
	const char *sep = uri.len ? memchr(uri.ptr, ':', uri.len) : NULL;
	size_t len;

	/* absolute-form: "scheme://authority..." (a ':' before any '/') */
	if (uri.len && uri.ptr[0] != '/' && sep && sep + 2 < uri.ptr + uri.len && sep[1] == '/' &&
	    sep[2] == '/') {
		if (uri.len > room)
			return -1;
		memcpy(out, uri.ptr, uri.len);
		return (long)uri.len;
	}
	for (uint16_t i = 0; i < m->nhdr && !host.ptr; i++)
		if (!m->hdr[i].skip && m->hdr[i].id == H1_HDR_HOST)
			host = m->hdr[i].v;
	if (!host.ptr)
		return 0;
	len = 8 + host.len + uri.len;
	if (len > room)
		return -1;
	memcpy(out, "https://", 8);
	memcpy(out + 8, host.ptr, host.len);
	memcpy(out + 8 + host.len, uri.ptr, uri.len);
	return (long)len;
}

uint32_t cache_sec_hash(struct ist v)
{
	uint32_t h = hash_xxh32(v.ptr, v.len, 0x5ca1ab1e);

	return h ? h : 1;
}

static const struct {
	const char *name;
	uint32_t bit;
} cache_encs[] = {
	{ "gzip", CACHE_ENC_GZIP },
	{ "x-gzip", CACHE_ENC_GZIP },
	{ "deflate", CACHE_ENC_DEFLATE },
	{ "br", CACHE_ENC_BR },
	{ "compress", CACHE_ENC_COMPRESS },
	{ "x-compress", CACHE_ENC_COMPRESS },
	{ "aes128gcm", CACHE_ENC_AES },
	{ "exi", CACHE_ENC_EXI },
	{ "pack200-gzip", CACHE_ENC_PACK200 },
	{ "zstd", CACHE_ENC_ZSTD },
	{ "identity", CACHE_ENC_IDENTITY },
	{ "*", CACHE_ENC_STAR },
};

uint32_t cache_enc_bit(struct ist name)
{
	for (size_t i = 0; i < sizeof(cache_encs) / sizeof(cache_encs[0]); i++)
		if (ist_ieq(name, ist_str(cache_encs[i].name)))
			return cache_encs[i].bit;
	return CACHE_ENC_OTHER;
}

/* True when the weight "q=..." in parameters <p> is zero ("0", "0.", "0.000"). */
static bool q_zero(struct ist p)
{
	for (;;) {
		const char *semi;
		struct ist a;

		if (!p.len)
			return false;
		semi = memchr(p.ptr, ';', p.len);
		a = trim(ist2(p.ptr, semi ? (size_t)(semi - p.ptr) : p.len));
		if (a.len >= 2 && (a.ptr[0] == 'q' || a.ptr[0] == 'Q') && a.ptr[1] == '=') {
			size_t i = 2;

			if (i >= a.len || a.ptr[i] != '0')
				return false;
			for (i++; i < a.len; i++)
				if (a.ptr[i] != '.' && a.ptr[i] != '0')
					return false;
			return true;
		}
		if (!semi)
			return false;
		p = ist2(semi + 1, (size_t)(p.ptr + p.len - semi - 1));
	}
}

static bool ae_elem(struct ist e, void *arg)
{
	struct cache_sec *sec = arg;
	const char *semi = memchr(e.ptr, ';', e.len);
	struct ist name = trim(ist2(e.ptr, semi ? (size_t)(semi - e.ptr) : e.len));
	uint32_t bit = cache_enc_bit(name);

	if (semi && q_zero(ist2(semi + 1, (size_t)(e.ptr + e.len - semi - 1))))
		sec->ae_rej |= bit;
	else
		sec->ae |= bit;
	return true;
}

void cache_ae_parse(struct ist v, struct cache_sec *sec)
{
	cache_each_elem(v, ae_elem, sec);
}

void cache_req_sec(const struct h1_msg *m, struct cache_sec *sec)
{
	memset(sec, 0, sizeof(*sec));
	sec->ae_any = 1;
	for (uint16_t i = 0; i < m->nhdr; i++) {
		const struct h1_hdr *h = &m->hdr[i];

		if (h->skip)
			continue;
		if (ist_ieq(h->n, IST("accept-encoding"))) {
			sec->ae_any = 0;
			cache_ae_parse(h->v, sec);
		} else if (!sec->referer && ist_ieq(h->n, IST("referer"))) {
			sec->referer = cache_sec_hash(h->v);
		} else if (!sec->origin && ist_ieq(h->n, IST("origin"))) {
			sec->origin = cache_sec_hash(h->v);
		}
	}
}

/* One coding <b> is acceptable: listed with q > 0, or covered by "*" without q=0. */
static bool enc_ok(uint32_t b, const struct cache_sec *sec)
{
	if (sec->ae & b)
		return true;
	return (sec->ae & CACHE_ENC_STAR) && !(sec->ae_rej & b);
}

bool cache_enc_acceptable(uint32_t enc, const struct cache_sec *sec)
{
	if (sec->ae_any)
		return true;
	if (enc == CACHE_ENC_IDENTITY) /* acceptable unless refused, by name or by "*;q=0" */
		return !(sec->ae_rej & CACHE_ENC_IDENTITY) &&
		       (!(sec->ae_rej & CACHE_ENC_STAR) || (sec->ae & CACHE_ENC_IDENTITY));
	for (uint32_t b = 1; b < CACHE_ENC_IDENTITY; b <<= 1)
		if ((enc & b) && !enc_ok(b, sec))
			return false;
	return !(enc & CACHE_ENC_OTHER);
}

/* ---- responses ---- */

bool cache_status_ok(int status)
{
	switch (status) {
	case 200:
	case 203:
	case 204:
	case 300:
	case 301:
	case 308:
	case 404:
	case 405:
	case 410:
	case 414:
	case 501:
		return true;
	default:
		return false;
	}
}

/* State of cache_rsp_check() while it walks the headers. */
struct rsp_walk {
	bool cacheable, cook, fresh;
	long smaxage, maxage; /* -1: absent, -2: invalid */
	uint8_t vary;
	bool vary_bad;
	uint32_t enc;
};

/* "NAME=VALUE" (VALUE possibly quoted): the seconds, -1 when <e> is not NAME=..., -2 when
 * the value is no number or a negative one. */
static long directive_secs(struct ist e, struct ist name)
{
	char tmp[24];
	size_t n, off;
	char *end;
	long v;

	if (e.len <= name.len + 1 || !pfx(e, name) || e.ptr[name.len] != '=')
		return -1;
	off = name.len + 1;
	if (e.ptr[off] == '"')
		off++;
	n = e.len - off < sizeof(tmp) - 1 ? e.len - off : sizeof(tmp) - 1;
	memcpy(tmp, e.ptr + off, n);
	tmp[n] = 0;
	v = strtol(tmp, &end, 10);
	if (end == tmp || v < 0)
		return -2;
	return v;
}

static bool rsp_cc(struct ist e, void *arg)
{
	struct rsp_walk *w = arg;
	long v;

	if (ist_ieq(e, IST("public"))) {
		w->cacheable = w->cook = true;
	} else if (ist_ieq(e, IST("private")) || ist_ieq(e, IST("no-cache")) ||
		   ist_ieq(e, IST("no-store")) || ist_ieq(e, IST("max-age=0")) ||
		   ist_ieq(e, IST("s-maxage=0"))) {
		w->cacheable = w->cook = false;
	} else if (pfx(e, IST("no-cache=\"set-cookie"))) {
		w->cook = false;
	} else if (pfx(e, IST("s-maxage")) || pfx(e, IST("max-age"))) {
		w->fresh = true;
	}
	if ((v = directive_secs(e, IST("s-maxage"))) != -1)
		w->smaxage = v;
	if ((v = directive_secs(e, IST("max-age"))) != -1)
		w->maxage = v;
	return true;
}

static bool rsp_vary(struct ist e, void *arg)
{
	struct rsp_walk *w = arg;

	if (ist_ieq(e, IST("accept-encoding")))
		w->vary |= CACHE_VARY_AE;
	else if (ist_ieq(e, IST("referer")))
		w->vary |= CACHE_VARY_REFERER;
	else if (ist_ieq(e, IST("origin")))
		w->vary |= CACHE_VARY_ORIGIN;
	else
		w->vary_bad = true;
	return true;
}

static bool rsp_enc(struct ist e, void *arg)
{
	struct rsp_walk *w = arg;
	uint32_t b = cache_enc_bit(e);

	w->enc |= b == CACHE_ENC_STAR ? CACHE_ENC_OTHER : b;
	return true;
}

/* An Age value: digits only, as a positive number (clamped); -1 otherwise. */
static long long age_value(struct ist v)
{
	long long a = 0;

	if (!v.len)
		return -1;
	for (size_t i = 0; i < v.len; i++) {
		if (v.ptr[i] < '0' || v.ptr[i] > '9')
			return -1;
		if (a < INT_MAX)
			a = a * 10 + (v.ptr[i] - '0');
	}
	return a > INT_MAX ? INT_MAX : a;
}

/* The entry's lifetime (HAProxy's order: s-maxage, max-age, Expires, the cache's
 * max-age), each bounded by <max_age>; *announced gets the response's own (0 without).
 * -1 when a directive's value is invalid. */
static long rsp_ttl(const struct rsp_walk *w, struct ist expires, uint32_t max_age, int64_t now,
		    long *announced)
{
	long exp = -1;
	int64_t d;

	*announced = 0;
	if (w->smaxage == -2 || w->maxage == -2)
		return -1;
	if (w->smaxage == -1 && w->maxage == -1 && expires.ptr) {
		/* an invalid date counts as one in the past (RFC 7234 5.3) */
		if (cache_http_date(expires, &d) == 0 && d > now)
			exp = d - now > LONG_MAX / 2 ? LONG_MAX / 2 : (long)(d - now);
		else
			exp = 0;
	}
	if (w->smaxage > 0)
		*announced = w->smaxage;
	else if (w->maxage > 0)
		*announced = w->maxage;
	else if (exp >= 0)
		*announced = exp;
	else
		return (long)max_age;
	return *announced < (long)max_age ? *announced : (long)max_age;
}

int cache_rsp_check(const struct h1_msg *m, uint32_t rq, uint32_t max_age, bool vary_on,
		    int64_t now, struct cache_rsp *out)
{
	struct rsp_walk w = {
		.cacheable = !(rq & CACHE_RQ_NOSTORE), .cook = true, .smaxage = -1, .maxage = -1
	};
	struct ist expires, lastmod, date, etag, age;
	bool has_vary = false, seen_pragma = false;
	long ttl, announced;
	long long a;

	if (rq & CACHE_RQ_SKIP)
		return -1;
	memset(out, 0, sizeof(*out));
	for (uint16_t i = 0; i < m->nhdr; i++) {
		const struct h1_hdr *h = &m->hdr[i];

		if (h->skip)
			continue;
		if (ist_ieq(h->n, IST("cache-control"))) {
			cache_each_elem(h->v, rsp_cc, &w);
		} else if (ist_ieq(h->n, IST("vary"))) {
			has_vary = true;
			if (!trim(h->v).len)
				w.vary_bad = true;
			cache_each_elem(h->v, rsp_vary, &w);
		} else if (ist_ieq(h->n, IST("content-encoding"))) {
			cache_each_elem(h->v, rsp_enc, &w);
		} else if (!seen_pragma && ist_ieq(h->n, IST("pragma"))) {
			seen_pragma = true;
			if (ist_ieq(h->v, IST("no-cache")))
				return -1; /* whatever Cache-Control says */
		}
	}
	if (has_vary && (!vary_on || w.vary_bad))
		return -1;
	expires = hdr_first(m, IST("expires"), NULL);
	etag = hdr_first(m, IST("etag"), NULL);
	lastmod = hdr_first(m, IST("last-modified"), NULL);
	date = hdr_first(m, IST("date"), NULL);
	age = hdr_first(m, IST("age"), &out->age_idx);
	/* neither an expiration time nor a validator: not stored (RFC 7234 3) */
	if (!w.fresh && !expires.ptr && !etag.ptr && !lastmod.ptr)
		w.cacheable = false;
	if (!w.cacheable || !w.cook)
		return -1;
	ttl = rsp_ttl(&w, expires, max_age, now, &announced);
	if (ttl <= 0)
		return -1; /* invalid, or dead at once */
	out->ttl = ttl > INT_MAX ? INT_MAX : (int)ttl;
	if (age.ptr) {
		/* an Age the response cannot have (or older than it may be): not stored */
		a = age_value(age);
		if (a <= 0 || a > announced)
			return -1;
		out->age = (uint32_t)a;
	}
	out->vary = w.vary;
	out->enc = w.enc ? w.enc : CACHE_ENC_IDENTITY;
	if ((w.vary & CACHE_VARY_AE) && (out->enc & CACHE_ENC_OTHER))
		return -1; /* a coding requests cannot be matched against */
	if (lastmod.ptr && cache_http_date(lastmod, &out->last_mod) < 0)
		out->last_mod = 0;
	if (!out->last_mod && date.ptr && cache_http_date(date, &out->last_mod) < 0)
		out->last_mod = 0;
	out->etag = etag.ptr ? etag : ist2(NULL, 0);
	return 0;
}

/* ---- dates ---- */

static const char *const months[12] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun",
					"Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
static const char *const wdays[7] = { "Monday", "Tuesday",  "Wednesday", "Thursday",
				      "Friday", "Saturday", "Sunday" };

/* Days since 1970-01-01 of a civil date (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int mon, int d)
{
	int64_t era, yoe, doy, doe;

	y -= mon <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (mon + (mon > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* Reads <n> digits at *p (advanced); -1 when they are not there. */
static int digits(const char **p, const char *e, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++, (*p)++) {
		if (*p >= e || **p < '0' || **p > '9')
			return -1;
		v = v * 10 + (**p - '0');
	}
	return v;
}

static bool lit(const char **p, const char *e, const char *s)
{
	size_t n = strlen(s);

	if ((size_t)(e - *p) < n || memcmp(*p, s, n))
		return false;
	*p += n;
	return true;
}

static int month(const char **p, const char *e)
{
	for (int i = 0; i < 12; i++)
		if (lit(p, e, months[i]))
			return i + 1;
	return -1;
}

/* "HH:MM:SS" */
static int64_t hms(const char **p, const char *e)
{
	int h = digits(p, e, 2), m, s;

	if (h < 0 || !lit(p, e, ":") || (m = digits(p, e, 2)) < 0 || !lit(p, e, ":") ||
	    (s = digits(p, e, 2)) < 0 || h > 23 || m > 59 || s > 60)
		return -1;
	return h * 3600 + m * 60 + s;
}

/* The week day at *p: its 3 letters (<full> false) or its whole name, then <after>. */
static bool wday(const char **p, const char *e, bool full, const char *after)
{
	for (int i = 0; i < 7; i++) {
		const char *q = *p;
		char abbr[4];

		memcpy(abbr, wdays[i], 3);
		abbr[3] = 0;
		if (lit(&q, e, full ? wdays[i] : abbr) && lit(&q, e, after)) {
			*p = q;
			return true;
		}
	}
	return false;
}

int cache_http_date(struct ist v, int64_t *t)
{
	const char *p = v.ptr, *e = v.ptr + v.len;
	int d, mon, y;
	int64_t sec;

	if (!v.ptr)
		return -1;
	if (wday(&p, e, false, ", ")) { /* IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT" */
		if ((d = digits(&p, e, 2)) < 0 || !lit(&p, e, " ") || (mon = month(&p, e)) < 0 ||
		    !lit(&p, e, " ") || (y = digits(&p, e, 4)) < 0 || !lit(&p, e, " ") ||
		    (sec = hms(&p, e)) < 0 || !lit(&p, e, " GMT"))
			return -1;
	} else if (wday(&p, e, true, ", ")) { /* RFC 850: "Sunday, 06-Nov-94 08:49:37 GMT" */
		if ((d = digits(&p, e, 2)) < 0 || !lit(&p, e, "-") || (mon = month(&p, e)) < 0 ||
		    !lit(&p, e, "-") || (y = digits(&p, e, 2)) < 0 || !lit(&p, e, " ") ||
		    (sec = hms(&p, e)) < 0 || !lit(&p, e, " GMT"))
			return -1;
		y += y < 70 ? 2000 : 1900;
	} else if (wday(&p, e, false, " ")) { /* asctime: "Sun Nov  6 08:49:37 1994" */
		if ((mon = month(&p, e)) < 0 || !lit(&p, e, " "))
			return -1;
		if (p < e && *p == ' ') {
			p++;
			d = digits(&p, e, 1);
		} else {
			d = digits(&p, e, 2);
		}
		if (d < 0 || !lit(&p, e, " ") || (sec = hms(&p, e)) < 0 || !lit(&p, e, " ") ||
		    (y = digits(&p, e, 4)) < 0)
			return -1;
	} else {
		return -1;
	}
	if (p != e || d < 1 || d > 31)
		return -1;
	*t = days_from_civil(y, mon, d) * 86400 + sec;
	return 0;
}

/* ---- conditional requests ---- */

static struct ist opaque_tag(struct ist t)
{
	if (t.len >= 2 && t.ptr[0] == 'W' && t.ptr[1] == '/') {
		t.ptr += 2;
		t.len -= 2;
	}
	return t;
}

struct etag_walk {
	struct ist etag;
	bool match;
};

static bool etag_elem(struct ist e, void *arg)
{
	struct etag_walk *w = arg;

	if (ist_eq(e, IST("*")) || (w->etag.len && ist_eq(opaque_tag(e), w->etag)))
		w->match = true;
	return !w->match;
}

bool cache_etag_match(struct ist inm, struct ist etag)
{
	struct etag_walk w = { opaque_tag(trim(etag)), false };

	cache_each_elem(inm, etag_elem, &w);
	return w.match;
}

bool cache_not_modified(const struct h1_msg *m, struct ist etag, int64_t last_mod)
{
	struct ist inm = hdr_first(m, IST("if-none-match"), NULL), ims;
	int64_t t;

	if (inm.ptr) {
		for (uint16_t i = 0; i < m->nhdr; i++)
			if (hdr_is(&m->hdr[i], IST("if-none-match")) &&
			    cache_etag_match(m->hdr[i].v, etag))
				return true;
		return false;
	}
	ims = hdr_first(m, IST("if-modified-since"), NULL);
	return ims.ptr && cache_http_date(ims, &t) == 0 && t >= last_mod;
}
