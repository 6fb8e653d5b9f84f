/* Pure HTTP/1 header-block parser: start line, a table of header views into the input,
 * interned well-known names, framing flags, limits and the request-smuggling rules. It keeps
 * no state between calls (the caller re-parses the whole buffer when more bytes arrive),
 * allocates nothing and touches no globals but constant tables. Chunked framing lives in
 * h1_chunk.c, request-target helpers in h1_uri.c. Rules and their differences from
 * HAProxy: doc/internals/h1-parser.md.
 */
#include <stdint.h>
#include <string.h>
#include <base/compiler.h>
#include <http/h1.h>

/* Character classes, one byte per input byte. */
#define C_TOK  0x01 /* tchar: may appear in a method or a header name */
#define C_VAL  0x02 /* may appear in a header value or reason: VCHAR, SP, HTAB, obs-text */
#define C_URI  0x04 /* may appear in a request target: VCHAR, but not obs-text */

#define H1_IS_TOK(c)                                                                    \
	(((c) >= '0' && (c) <= '9') || ((c) >= 'A' && (c) <= 'Z') ||                      \
	 ((c) >= 'a' && (c) <= 'z') || (c) == '!' || (c) == '#' || (c) == '$' ||          \
	 (c) == '%' || (c) == '&' || (c) == '\'' || (c) == '*' || (c) == '+' ||           \
	 (c) == '-' || (c) == '.' || (c) == '^' || (c) == '_' || (c) == '`' ||            \
	 (c) == '|' || (c) == '~')
#define H1_CC(c)                                                                        \
	((H1_IS_TOK(c) ? C_TOK : 0) |                                                   \
	 ((((c) >= 0x20 && (c) != 0x7f) || (c) == '\t') ? C_VAL : 0) |                  \
	 (((c) > 0x20 && (c) < 0x7f) ? C_URI : 0))
#define H1_CC4(c)  H1_CC(c), H1_CC((c) + 1), H1_CC((c) + 2), H1_CC((c) + 3)
#define H1_CC16(c) H1_CC4(c), H1_CC4((c) + 4), H1_CC4((c) + 8), H1_CC4((c) + 12)
#define H1_CC64(c) H1_CC16(c), H1_CC16((c) + 16), H1_CC16((c) + 32), H1_CC16((c) + 48)

static const uint8_t h1_cc[256] = { H1_CC64(0), H1_CC64(64), H1_CC64(128), H1_CC64(192) };

/* Parsing context of one call. */
struct h1_ctx {
	const char *buf;          /* start of the input */
	const char *end;          /* end of the input, capped at lim->max_hdr_block */
	struct h1_msg *msg;
	uint32_t max_hdr;         /* smaller of msg->max_hdr and lim->max_hdr */
	bool resp;
	bool in_start;            /* still in the start line (for 414 vs 431) */
	bool te_other;            /* a coding other than chunked was seen */
	bool cl_seen;             /* at least one Content-Length header */
	bool rare;                /* the request needs h1_finish_req_rare(): a target not in
				   * origin-form, Transfer-Encoding, or a WebSocket upgrade */
	bool ws_key;              /* Sec-WebSocket-Key (request) / -Accept (response) seen */
	const struct h1_hdr *host; /* first Host header */
	int rc;                   /* H1_INCOMPLETE or H1_INVALID when a step returns NULL */
};

/* Returns the first byte of p[0..end) not in class <m>, or <end>. */
static inline const char *h1_span(const char *p, const char *end, uint8_t m)
{
	while (end - p >= 8) {
		if (!(h1_cc[(uint8_t)p[0]] & m))
			return p;
		if (!(h1_cc[(uint8_t)p[1]] & m))
			return p + 1;
		if (!(h1_cc[(uint8_t)p[2]] & m))
			return p + 2;
		if (!(h1_cc[(uint8_t)p[3]] & m))
			return p + 3;
		if (!(h1_cc[(uint8_t)p[4]] & m))
			return p + 4;
		if (!(h1_cc[(uint8_t)p[5]] & m))
			return p + 5;
		if (!(h1_cc[(uint8_t)p[6]] & m))
			return p + 6;
		if (!(h1_cc[(uint8_t)p[7]] & m))
			return p + 7;
		p += 8;
	}
	while (p < end && (h1_cc[(uint8_t)*p] & m))
		p++;
	return p;
}

static inline uint64_t h1_ld64(const char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t h1_ld2(const char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t h1_ld32(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

#define H1_B(x) (0x0101010101010101ULL * (x))

/* Nonzero when one of the 8 bytes of <x> is below <n> (n <= 128); exact as a boolean. */
#define H1_HAS_LESS(x, n) (((x) - H1_B(n)) & ~(x) & H1_B(0x80))

/* Nonzero when one of the 8 bytes of <x> is above <n> (n <= 127); exact as a boolean. */
#define H1_HAS_MORE(x, n) ((((x) + H1_B(127 - (n))) | (x)) & H1_B(0x80))

/* Sixteen bytes at a time through the compiler's generic vectors (SSE2 on x86-64, NEON on
 * aarch64), for the spans every header line goes through. Comparisons give 0x00/0xff
 * lanes; the first flagged lane is found with a ctz on each 64-bit half (little endian).
 */
#if defined(__GNUC__) && (defined(__SSE2__) || defined(__ARM_NEON)) &&                  \
	defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define H1_VEC 1
#ifdef __SSE2__
#include <emmintrin.h>
#endif
typedef uint8_t h1_v16 __attribute__((vector_size(16)));

static inline h1_v16 h1_ldv(const char *p)
{
	h1_v16 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Index of the first flagged lane of <m>, 16 when none is. */
static inline unsigned h1_first16(h1_v16 m)
{
#ifdef __SSE2__
	unsigned bits = (unsigned)_mm_movemask_epi8((__m128i)m); /* one bit per lane */

	return bits ? (unsigned)__builtin_ctz(bits) : 16;
#else
	uint64_t lo, hi;

	memcpy(&lo, &m, 8);
	memcpy(&hi, (const char *)&m + 8, 8);
	if (lo)
		return (unsigned)__builtin_ctzll(lo) >> 3;
	if (hi)
		return 8 + ((unsigned)__builtin_ctzll(hi) >> 3);
	return 16;
#endif
}
#endif

/* h1_span(C_TOK) for header names: letters, digits and '-' (nearly every name byte) are
 * skipped sixteen at a time; the table takes over at the first other byte. */
static inline const char *h1_span_name(const char *p, const char *end)
{
#ifdef H1_VEC
	while (end - p >= 16) {
		h1_v16 x = h1_ldv(p), y = x | 0x20;
		h1_v16 ok = (h1_v16)((h1_v16)(y - 'a') < 26) | (h1_v16)((h1_v16)(x - '0') < 10) |
			    (h1_v16)(x == '-');
		unsigned n = h1_first16(~ok);

		p += n;
		if (n < 16) {
			if (*p == ':')
				return p; /* the usual end of a name */
			break;
		}
	}
#endif
	return h1_span(p, end, C_TOK);
}

/* h1_span(C_VAL) eight bytes at a time. The lowest flagged byte of H1_HAS_LESS is always a
 * true match, so on little-endian machines the first CTL or DEL of a word is found with one
 * ctz; an HTAB there is skipped and the scan goes on.
 */
static inline const char *h1_span_val(const char *p, const char *end)
{
#ifdef H1_VEC
	while (end - p >= 16) {
		h1_v16 x = h1_ldv(p);
		unsigned n = h1_first16((h1_v16)((x < 0x20) | (x == 0x7f)));

		p += n;
		if (n == 16)
			continue;
		if (*p != '\t')
			return p;
		p++;
	}
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (end - p >= 8) {
		uint64_t x = h1_ld64(p), d = x ^ H1_B(0x7f);
		uint64_t m = H1_HAS_LESS(x, 0x20) | H1_HAS_LESS(d, 1);

		if (!m) {
			p += 8;
			continue;
		}
		p += __builtin_ctzll(m) >> 3;
		if (*p != '\t')
			return p;
		p++;
	}
#endif
	return h1_span(p, end, C_VAL);
}

/* h1_span(C_URI) eight bytes at a time: 0x21..0x7e only. */
static inline const char *h1_span_uri(const char *p, const char *end)
{
	while (end - p >= 8) {
		uint64_t x = h1_ld64(p);

		if (H1_HAS_LESS(x, 0x21) | H1_HAS_MORE(x, 0x7e))
			break;
		p += 8;
	}
	return h1_span(p, end, C_URI);
}

/* Records an error at <p> (400-class code for requests, 502 for responses); returns NULL. */
static const char *h1_err(struct h1_ctx *c, const char *p, int code)
{
	c->msg->err_code = c->resp ? 502 : code;
	c->msg->err_pos = (uint32_t)(p - c->buf);
	c->rc = H1_INVALID;
	return NULL;
}

static inline const char *h1_more(struct h1_ctx *c)
{
	c->rc = H1_INCOMPLETE;
	return NULL;
}

/* Expects CRLF or a bare LF at <p>; returns the start of the next line. */
static inline const char *h1_eol(struct h1_ctx *c, const char *p)
{
	if (c->end - p >= 2 && p[0] == '\r' && p[1] == '\n')
		return p + 2;
	if (p >= c->end)
		return h1_more(c);
	if (*p == '\n')
		return p + 1;
	if (*p != '\r')
		return h1_err(c, p, 400);
	if (p + 1 >= c->end)
		return h1_more(c);
	if (p[1] != '\n')
		return h1_err(c, p, 400); /* bare CR */
	return p + 2;
}

/* Case-insensitive compare of validated name or value bytes <n> with <lc>, made only of
 * lowercase letters, digits and '-'. OR-ing 0x20 is exact there: the only other bytes that
 * fold onto those are CTLs, which never reach this point.
 */
static inline bool h1_lc_eq(const char *n, const char *lc, size_t len)
{
	size_t i;

	if (len >= 8) {
		for (i = 0; i + 8 <= len; i += 8)
			if ((h1_ld64(n + i) | 0x2020202020202020ULL) != h1_ld64(lc + i))
				return false;
		return (len & 7) == 0 || (h1_ld64(n + len - 8) | 0x2020202020202020ULL) ==
						h1_ld64(lc + len - 8);
	}
	if (len >= 4)
		return (h1_ld32(n) | 0x20202020U) == h1_ld32(lc) &&
		       (h1_ld32(n + len - 4) | 0x20202020U) == h1_ld32(lc + len - 4);
	for (i = 0; i < len; i++)
		if ((n[i] | 0x20) != lc[i])
			return false;
	return true;
}

/* Well-known header id of the name n[0..len). */
static uint16_t h1_hdr_intern(const char *n, size_t len)
{
	switch (len) {
	case 2:
		return h1_lc_eq(n, "te", 2) ? H1_HDR_TE : H1_HDR_OTHER;
	case 4:
		return h1_lc_eq(n, "host", 4) ? H1_HDR_HOST : H1_HDR_OTHER;
	case 6:
		return h1_lc_eq(n, "expect", 6) ? H1_HDR_EXPECT : H1_HDR_OTHER;
	case 7:
		return h1_lc_eq(n, "upgrade", 7) ? H1_HDR_UPGRADE : H1_HDR_OTHER;
	case 10:
		if (h1_lc_eq(n, "connection", 10))
			return H1_HDR_CONNECTION;
		return h1_lc_eq(n, "keep-alive", 10) ? H1_HDR_KEEP_ALIVE : H1_HDR_OTHER;
	case 14:
		return h1_lc_eq(n, "content-length", 14) ? H1_HDR_CONTENT_LENGTH : H1_HDR_OTHER;
	case 16:
		return h1_lc_eq(n, "proxy-connection", 16) ? H1_HDR_PROXY_CONNECTION
							   : H1_HDR_OTHER;
	case 17:
		if (h1_lc_eq(n, "transfer-encoding", 17))
			return H1_HDR_TRANSFER_ENCODING;
		return h1_lc_eq(n, "sec-websocket-key", 17) ? H1_HDR_SEC_WS_KEY : H1_HDR_OTHER;
	case 20:
		return h1_lc_eq(n, "sec-websocket-accept", 20) ? H1_HDR_SEC_WS_ACCEPT
							       : H1_HDR_OTHER;
	}
	return H1_HDR_OTHER;
}

static inline bool h1_word_ieq(struct ist v, const char *lc, size_t len)
{
	return v.len == len && h1_lc_eq(v.ptr, lc, len);
}

/* Cuts the next comma-separated item of v[0..end) into <item> (spaces and tabs trimmed);
 * returns where the following item starts, or NULL after the last one.
 */
static const char *h1_list_next(const char *p, const char *end, struct ist *item)
{
	const char *e = p, *comma;

	while (e < end && *e != ',')
		e++;
	comma = e < end ? e : NULL;

	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	*item = ist2(p, e - p);
	return comma ? comma + 1 : NULL;
}

/* Content-Length: digits, or a comma list of identical values. 0 or -1 (error). As
 * HAProxy does, only one value goes on: a repeated header is marked skip and a list is
 * narrowed to its first item.
 */
static int h1_hdr_clen(struct h1_ctx *c, struct h1_hdr *h)
{
	struct ist v = h->v, item, first = { NULL, 0 };
	const char *p = v.ptr, *end = v.ptr + v.len;
	bool dup = c->cl_seen;
	uint64_t val;
	size_t i;

	if (likely(!dup && v.len && v.len <= 18)) { /* one value of up to 18 digits */
		for (i = 0, val = 0; i < v.len; i++) {
			unsigned d = (unsigned char)v.ptr[i] - '0';

			if (d > 9)
				break;
			val = val * 10 + d;
		}
		if (i == v.len) {
			c->cl_seen = true;
			c->msg->body_len = val;
			c->msg->flags |= H1_MF_CLEN;
			return 0;
		}
	}

	do {
		p = h1_list_next(p, end, &item);
		if (!item.len)
			return -1;
		val = 0;
		for (i = 0; i < item.len; i++) {
			unsigned d = (unsigned char)item.ptr[i] - '0';

			if (d > 9 || val > (UINT64_MAX - d) / 10)
				return -1;
			val = val * 10 + d;
		}
		if (c->cl_seen && val != c->msg->body_len)
			return -1;
		if (!first.ptr)
			first = item;
		c->cl_seen = true;
		c->msg->body_len = val;
	} while (p);
	c->msg->flags |= H1_MF_CLEN;
	if (dup)
		h->skip = 1;
	else
		h->v = first;
	return 0;
}

/* Transfer-Encoding: a list whose last coding must end up being a single chunked. */
static int h1_hdr_te(struct h1_ctx *c, struct ist v)
{
	const char *p = v.ptr, *end = v.ptr + v.len;
	struct ist item;

	c->msg->flags |= H1_MF_XFER_ENC;
	c->rare = true;
	do {
		p = h1_list_next(p, end, &item);
		if (!item.len || (c->msg->flags & H1_MF_CHNK))
			return -1; /* empty item, or anything after chunked */
		if (h1_word_ieq(item, "chunked", 7))
			c->msg->flags |= H1_MF_CHNK;
		else
			c->te_other = true;
	} while (p);
	return 0;
}

/* Connection and Upgrade tokens. */
static void h1_hdr_conn(struct h1_ctx *c, struct ist v)
{
	const char *p = v.ptr, *end = v.ptr + v.len;
	struct ist item;

	if (h1_word_ieq(v, "keep-alive", 10)) { /* the common single token */
		c->msg->flags |= H1_MF_CONN_KAL;
		return;
	}
	do {
		p = h1_list_next(p, end, &item);
		if (h1_word_ieq(item, "close", 5))
			c->msg->flags |= H1_MF_CONN_CLO;
		else if (h1_word_ieq(item, "keep-alive", 10))
			c->msg->flags |= H1_MF_CONN_KAL;
		else if (h1_word_ieq(item, "upgrade", 7))
			c->msg->flags |= H1_MF_CONN_UPG;
	} while (p);
}

static void h1_hdr_upgrade(struct h1_ctx *c, struct ist v)
{
	const char *p = v.ptr, *end = v.ptr + v.len;
	struct ist item;

	do {
		p = h1_list_next(p, end, &item);
		if (h1_word_ieq(item, "websocket", 9)) {
			c->msg->flags |= H1_MF_UPG_WEBSOCKET;
			c->rare = true;
		}
	} while (p);
}

/* Request TE: only the "trailers" token goes on, as HAProxy does (the other codings are
 * hop-by-hop offers this proxy does not take up); without it the header is dropped. The
 * value view is narrowed in place to the token.
 */
static void h1_hdr_te_req(struct h1_hdr *h)
{
	const char *p = h->v.ptr, *end = h->v.ptr + h->v.len;
	struct ist item;

	do {
		p = h1_list_next(p, end, &item);
		if (h1_word_ieq(item, "trailers", 8)) {
			h->v = item;
			h->folded = 0;
			return;
		}
	} while (p);
	h->skip = 1;
}

/* Host: a repeated header must carry the same value (case-insensitive) and is then
 * dropped, as HAProxy does; a different one is 400. 0 or -1.
 */
static int h1_hdr_host_dup(struct h1_ctx *c, struct h1_hdr *h)
{
	if (c->host->v.len != h->v.len || !h1_ieq(c->host->v, h->v))
		return -1;
	h->skip = 1;
	return 0;
}

/* Applies a well-known header to the message flags; 0, or -1 with the error recorded. */
static int h1_hdr_apply(struct h1_ctx *c, struct h1_hdr *h)
{
	switch (h->id) {
	case H1_HDR_CONTENT_LENGTH:
		if (h1_hdr_clen(c, h) < 0)
			return h1_err(c, h->v.ptr, 400), -1;
		break;
	case H1_HDR_TRANSFER_ENCODING:
		if (h1_hdr_te(c, h->v) < 0)
			return h1_err(c, h->v.ptr, 400), -1;
		break;
	case H1_HDR_CONNECTION:
		h1_hdr_conn(c, h->v);
		break;
	case H1_HDR_UPGRADE:
		h1_hdr_upgrade(c, h->v);
		break;
	case H1_HDR_EXPECT:
		if (h1_word_ieq(h->v, "100-continue", 12))
			c->msg->flags |= H1_MF_EXPECT_100;
		break;
	case H1_HDR_HOST:
		if (likely(!c->host))
			c->host = h;
		else if (!c->resp && h1_hdr_host_dup(c, h) < 0)
			return h1_err(c, h->v.ptr, 400), -1;
		break;
	case H1_HDR_TE:
		if (!c->resp)
			h1_hdr_te_req(h);
		break;
	case H1_HDR_SEC_WS_KEY:
		c->ws_key |= !c->resp;
		break;
	case H1_HDR_SEC_WS_ACCEPT:
		c->ws_key |= c->resp;
		break;
	}
	return 0;
}

/* Matches the protocol version at <p> against "HTTP/1.0" / "HTTP/1.1" on the bytes present;
 * returns p + 8 when all 8 are there and valid.
 */
static const char *h1_version_slow(struct h1_ctx *c, const char *p);

static inline const char *h1_version(struct h1_ctx *c, const char *p)
{
	if (likely(c->end - p >= 8 && h1_ld64(p) == h1_ld64("HTTP/1.1"))) {
		c->msg->flags |= H1_MF_VER_11;
		c->msg->vsn = ist2(p, 8);
		return p + 8;
	}
	return h1_version_slow(c, p);
}

static const char *h1_version_slow(struct h1_ctx *c, const char *p)
{
	size_t avail = c->end - p;
	size_t n = avail < 7 ? avail : 7;

	if (memcmp(p, "HTTP/1.", n) != 0)
		return h1_err(c, p, 400);
	if (avail < 8)
		return h1_more(c);
	if (p[7] == '1')
		c->msg->flags |= H1_MF_VER_11;
	else if (p[7] == '0')
		c->msg->flags |= H1_MF_VER_10;
	else
		return h1_err(c, p + 7, 400);
	c->msg->vsn = ist2(p, 8);
	return p + 8;
}

static void h1_meth_flags(struct h1_msg *msg)
{
	struct ist m = msg->meth;

	if (m.len == 3 && memcmp(m.ptr, "GET", 3) == 0)
		msg->flags |= H1_MF_METH_GET;
	else if (m.len == 4 && memcmp(m.ptr, "HEAD", 4) == 0)
		msg->flags |= H1_MF_METH_HEAD;
	else if (m.len == 7 && memcmp(m.ptr, "CONNECT", 7) == 0)
		msg->flags |= H1_MF_METH_CONNECT;
}

/* METHOD SP+ TARGET SP HTTP/1.x EOL. Several spaces after the method are tolerated as
 * HAProxy does; anything else out of place is 400.
 */
static const char *h1_req_line(struct h1_ctx *c, const char *p)
{
	const char *q = h1_span(p, c->end, C_TOK), *u;

	if (q >= c->end)
		return h1_more(c);
	if (q == p || *q != ' ')
		return h1_err(c, q, 400);
	c->msg->meth = ist2(p, q - p);
	while (q < c->end && *q == ' ')
		q++;
	u = q;
	q = h1_span_uri(q, c->end);
	if (q >= c->end)
		return h1_more(c);
	if (q == u || *q != ' ')
		return h1_err(c, q, 400); /* bad byte, or HTTP/0.9 style line */
	c->msg->uri = ist2(u, q - u);
	c->rare = *u != '/';
	q = h1_version(c, q + 1);
	if (!q)
		return NULL;
	h1_meth_flags(c->msg);
	return h1_eol(c, q);
}

/* HTTP/1.x SP 3DIGIT [SP reason] EOL, status 100..999. */
static const char *h1_resp_line(struct h1_ctx *c, const char *p)
{
	const char *q = h1_version(c, p), *r;
	int i;

	if (!q)
		return NULL;
	if (q >= c->end)
		return h1_more(c);
	if (*q++ != ' ')
		return h1_err(c, q - 1, 502);
	c->msg->status = 0;
	for (i = 0; i < 3; i++, q++) {
		if (q >= c->end)
			return h1_more(c);
		if (*q < '0' || *q > '9' || (i == 0 && *q == '0'))
			return h1_err(c, q, 502);
		c->msg->status = c->msg->status * 10 + (*q - '0');
	}
	if (q >= c->end)
		return h1_more(c);
	r = q;
	if (*q == ' ') {
		r = ++q;
		q = h1_span(q, c->end, C_VAL);
	}
	c->msg->reason = ist2(r, q - r);
	return h1_eol(c, q);
}

/* One header line "name: OWS value OWS EOL" at <p>, stored in the table and applied to the
 * flags when the name is well known. Returns the next line start.
 */
static const char *h1_hdr_line(struct h1_ctx *c, const char *p)
{
	/* locals, not c->...: the build allows any store to alias the context */
	const char *const end = c->end;
	struct h1_msg *msg = c->msg;
	const char *q, *v, *ve, *next;
	uint8_t folded = 0;
	struct h1_hdr *h;
	uint16_t n;

	q = h1_span_name(p, end);
	if (q >= end)
		return h1_more(c);
	if (q == p || *q != ':')
		return h1_err(c, q, 400); /* empty name, space before ':', obs-fold, bad byte */
	v = q + 1;
	if (likely(end - v >= 2 && v[0] == ' ' && v[1] != ' ' && v[1] != '\t'))
		v++; /* the usual single space */
	else
		while (v < end && (*v == ' ' || *v == '\t'))
			v++;
	ve = h1_span_val(v, end);
	if (likely(end - ve >= 3 && h1_ld2(ve) == h1_ld2("\r\n") && ve[2] != ' ' &&
		   ve[2] != '\t')) {
		next = ve + 2; /* CRLF, and the next line is no continuation */
	} else {
		next = h1_eol(c, ve);
		if (!next)
			return NULL;
		/* obs-fold: a line starting with SP/HT continues the value; like HAProxy we
		 * accept it and the serializer turns the line breaks into spaces */
		while (next < end && (*next == ' ' || *next == '\t')) {
			folded = 1;
			ve = h1_span_val(next, end);
			next = h1_eol(c, ve);
			if (!next)
				return NULL;
		}
	}
	while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
		ve--;
	n = msg->nhdr;
	if (n >= c->max_hdr)
		return h1_err(c, p, 400);
	msg->nhdr = n + 1;
	h = &msg->hdr[n];
	*h = (struct h1_hdr){ .n = ist2(p, q - p), .v = ist2(v, ve - v), .folded = folded,
			      .id = h1_hdr_intern(p, q - p) };
	if (h->id != H1_HDR_OTHER && h1_hdr_apply(c, h) < 0)
		return NULL;
	return next;
}

/* Request rules that only apply to rare messages: odd targets, Transfer-Encoding on
 * HTTP/1.0 (faulty framing, RFC 9112 section 6.1: a smuggling vector against 1.0-only
 * origins, so refused where HAProxy 2.6 forwards it), a WebSocket upgrade without its
 * key. 0, or -1 with the error recorded.
 */
static int h1_finish_req_rare(struct h1_ctx *c)
{
	uint32_t f = c->msg->flags;

	if (c->msg->uri.ptr[0] != '/' &&
	    h1_target_check(c->msg->uri, f & H1_MF_METH_CONNECT, c->host ? &c->host->v : NULL) < 0)
		return h1_err(c, c->msg->uri.ptr, 400), -1;
	if ((f & H1_MF_XFER_ENC) && (f & H1_MF_VER_10))
		return h1_err(c, c->buf, 400), -1;
	if ((f & H1_MF_UPG_WEBSOCKET) && (f & H1_MF_CONN_UPG) && !c->ws_key)
		return h1_err(c, c->buf, 400), -1;
	return 0;
}

/* Response rules for 204 (no Content-Length goes on: RFC 9110 section 8.6) and 101 (a
 * WebSocket switch needs Sec-WebSocket-Accept). 0, or -1 with the error recorded.
 */
static int h1_finish_resp_rare(struct h1_ctx *c)
{
	struct h1_msg *msg = c->msg;
	uint16_t i;

	if (msg->status == 101 && (msg->flags & H1_MF_UPG_WEBSOCKET) && !c->ws_key)
		return h1_err(c, c->buf, 502), -1;
	if (msg->status == 204 && c->cl_seen) {
		for (i = 0; i < msg->nhdr; i++)
			if (msg->hdr[i].id == H1_HDR_CONTENT_LENGTH)
				msg->hdr[i].skip = 1;
		msg->flags &= ~H1_MF_CLEN;
		msg->body_len = 0;
	}
	return 0;
}

/* Framing decisions once the block is complete; 0, or -1 with the error recorded. */
static int h1_finish(struct h1_ctx *c, const struct h1_limits *lim)
{
	struct h1_msg *msg = c->msg;
	uint32_t f;
	uint16_t i;

	if (!c->resp) {
		if (unlikely(c->rare) && h1_finish_req_rare(c) < 0)
			return -1;
	} else if (msg->status != 200 && unlikely(msg->status == 204 || msg->status == 101) &&
		   h1_finish_resp_rare(c) < 0) {
		return -1;
	}
	f = msg->flags;
	if (f & H1_MF_XFER_ENC) {
		if (!(f & H1_MF_CHNK))
			return h1_err(c, c->buf, 400), -1;
		if (c->te_other && !c->resp)
			return h1_err(c, c->buf, 422), -1;
		if (c->cl_seen) {
			for (i = 0; i < msg->nhdr; i++)
				if (msg->hdr[i].id == H1_HDR_CONTENT_LENGTH)
					msg->hdr[i].skip = 1;
			f = (f & ~H1_MF_CLEN) | H1_MF_FORCE_CLOSE;
			msg->body_len = 0;
		}
		if (f & H1_MF_VER_10)
			f |= H1_MF_FORCE_CLOSE;
	}
	if (f & (H1_MF_CLEN | H1_MF_CHNK))
		f |= H1_MF_XFER_LEN;
	else if (!c->resp)
		f |= H1_MF_XFER_LEN; /* a request without CL or TE has no body */
	if ((f & H1_MF_CHNK) || ((f & H1_MF_CLEN) && msg->body_len) ||
	    (c->resp && !(f & (H1_MF_CLEN | H1_MF_CHNK))))
		f |= H1_MF_HAS_BODY;
	msg->flags = f;
	if (!c->resp && (f & H1_MF_VER_10) && (f & H1_MF_HAS_BODY) &&
	    !(lim && lim->accept_payload_any_method) &&
	    ((f & (H1_MF_METH_GET | H1_MF_METH_HEAD)) ||
	     (msg->meth.len == 6 && memcmp(msg->meth.ptr, "DELETE", 6) == 0)))
		return h1_err(c, c->buf, 413), -1;
	return 0;
}

static void h1_msg_reset(struct h1_msg *msg, bool resp)
{
	msg->flags = resp ? H1_MF_RESP : 0;
	msg->status = 0;
	msg->meth = msg->uri = msg->vsn = msg->reason = ist2(NULL, 0);
	msg->body_len = 0;
	msg->hdr_len = 0;
	msg->nhdr = 0;
	msg->err_code = 0;
	msg->err_pos = 0;
}

/* See h1.h. Leading empty lines (CRLF or LF) before the start line are skipped and counted
 * in the returned length.
 */
int h1_parse_headers(const char *buf, size_t len, struct h1_msg *msg, bool resp,
		     const struct h1_limits *lim)
{
	struct h1_ctx c = { .buf = buf, .end = buf + len, .msg = msg, .resp = resp,
			    .in_start = true, .rc = H1_INCOMPLETE };
	const char *p = buf;
	bool capped = false;

	h1_msg_reset(msg, resp);
	c.max_hdr = msg->max_hdr;
	if (lim && lim->max_hdr && lim->max_hdr < c.max_hdr)
		c.max_hdr = lim->max_hdr;
	if (lim && lim->max_hdr_block && len >= lim->max_hdr_block) {
		c.end = buf + lim->max_hdr_block;
		capped = true;
	}

	while (p < c.end && (*p == '\r' || *p == '\n')) {
		if (*p == '\r' && p + 1 < c.end && p[1] != '\n')
			goto fail_at_cr;
		p += (*p == '\r') ? (p + 1 < c.end ? 2 : 1) : 1;
	}
	if (p >= c.end)
		goto incomplete;
	p = resp ? h1_resp_line(&c, p) : h1_req_line(&c, p);
	if (!p)
		goto stop;
	c.in_start = false;
	while (1) {
		if (p >= c.end)
			goto incomplete;
		if (*p == '\r' || *p == '\n') {
			p = h1_eol(&c, p);
			if (!p)
				goto stop;
			break;
		}
		p = h1_hdr_line(&c, p);
		if (!p)
			goto stop;
	}
	if (h1_finish(&c, lim) < 0)
		return H1_INVALID;
	msg->hdr_len = (uint32_t)(p - buf);
	return (int)msg->hdr_len;

fail_at_cr:
	h1_err(&c, p, 400);
stop:
	if (c.rc == H1_INVALID)
		return H1_INVALID;
incomplete:
	if (!capped)
		return H1_INCOMPLETE;
	msg->err_code = resp ? 502 : (c.in_start ? 414 : 431);
	msg->err_pos = lim->max_hdr_block;
	return H1_INVALID;
}

bool h1_resp_bodyless(int status, bool head_req)
{
	return head_req || (status >= 100 && status < 200) || status == 204 || status == 304;
}
