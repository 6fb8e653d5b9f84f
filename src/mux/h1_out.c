/* HTTP/1.1 serialization of parsed messages: the start line, the kept headers and the
 * connection header chosen by the stream, in one pass into an output buffer.
 */
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <base/buf.h>
#include <http/status.h>
#include <mux/h1.h>

#define HOP_BY_HOP_IDS \
	((1u << H1_HDR_CONNECTION) | (1u << H1_HDR_PROXY_CONNECTION) | (1u << H1_HDR_KEEP_ALIVE))

static inline bool hdr_is_hop(const struct h1_hdr *h)
{
	return h->skip | ((HOP_BY_HOP_IDS >> h->id) & 1u);
}

static char *put(char *p, const void *src, size_t len)
{
	memcpy(p, src, len);
	return p + len;
}

/* put() for a length known only at run time, inline up to 32 bytes (most names, values
 * and request targets): two loads and two stores that may overlap, instead of a call. */
static inline char *put_var(char *p, const char *src, size_t len)
{
	uint64_t a, b, c, d;
	uint32_t x, y;

	if (len > 32)
		return put(p, src, len);
	if (len >= 16) {
		memcpy(&a, src, 8);
		memcpy(&b, src + 8, 8);
		memcpy(&c, src + len - 16, 8);
		memcpy(&d, src + len - 8, 8);
		memcpy(p, &a, 8);
		memcpy(p + 8, &b, 8);
		memcpy(p + len - 16, &c, 8);
		memcpy(p + len - 8, &d, 8);
	} else if (len >= 8) {
		memcpy(&a, src, 8);
		memcpy(&b, src + len - 8, 8);
		memcpy(p, &a, 8);
		memcpy(p + len - 8, &b, 8);
	} else if (len >= 4) {
		memcpy(&x, src, 4);
		memcpy(&y, src + len - 4, 4);
		memcpy(p, &x, 4);
		memcpy(p + len - 4, &y, 4);
	} else {
		for (size_t i = 0; i < len; i++)
			p[i] = src[i];
	}
	return p + len;
}

/* Lower-cases the ASCII letters of 8 bytes at once. Valid for bytes below 0x80 (header
 * names are token characters): b + 0x3f has bit 7 set from 'A' up, b + 0x25 from 'Z' + 1
 * up, so their XOR flags exactly 'A'..'Z', and bit 7 >> 2 is the 0x20 case bit. */
static inline uint64_t lower8(uint64_t x)
{
	uint64_t hi =
		((x + 0x3f3f3f3f3f3f3f3fULL) ^ (x + 0x2525252525252525ULL)) & 0x8080808080808080ULL;

	return x | (hi >> 2);
}

static inline void lower8_at(char *dst, const char *src)
{
	uint64_t w;

	memcpy(&w, src, 8);
	w = lower8(w);
	memcpy(dst, &w, 8);
}

static inline void lower4_at(char *dst, const char *src)
{
	uint32_t w, hi;

	memcpy(&w, src, 4);
	hi = ((w + 0x3f3f3f3fU) ^ (w + 0x25252525U)) & 0x80808080U;
	w |= hi >> 2;
	memcpy(dst, &w, 4);
}

/* Copies a header name in lower case, as HAProxy emits them. Lengths of 4 and more are
 * done in words, the last one overlapping the previous ones. */
static char *put_name(char *p, struct ist n)
{
	size_t i = 0, len = n.len;

	if (len >= 8) {
		for (; i + 8 <= len; i += 8)
			lower8_at(p + i, n.ptr + i);
		if (i < len)
			lower8_at(p + len - 8, n.ptr + len - 8);
	} else if (len >= 4) {
		lower4_at(p, n.ptr);
		lower4_at(p + len - 4, n.ptr + len - 4);
	} else {
		for (; i < len; i++) {
			unsigned char c = (unsigned char)n.ptr[i];

			p[i] = (char)((unsigned int)(c - 'A') < 26u ? c + 32 : c);
		}
	}
	return p + len;
}

/* Writes the kept headers, the connection header and the empty line at <p>, up to <lim>.
 * Returns the end, or NULL when they do not fit. Checking the room header by header costs
 * less than sizing the block first. */
static char *hdrs_write(char *p, const char *lim, const struct h1_msg *m, const char *conn_hdr)
{
	size_t cl;

	for (uint16_t i = 0; i < m->nhdr; i++) {
		const struct h1_hdr *h = &m->hdr[i];

		if (hdr_is_hop(h))
			continue;
		if ((size_t)(lim - p) < h->n.len + h->v.len + 4)
			return NULL;
		p = put_name(p, h->n);
		p = put(p, ": ", 2);
		if (unlikely(h->folded)) {
			for (size_t j = 0; j < h->v.len; j++)
				p[j] = (h->v.ptr[j] == '\r' || h->v.ptr[j] == '\n') ? ' '
										    : h->v.ptr[j];
			p += h->v.len;
		} else {
			p = put_var(p, h->v.ptr, h->v.len);
		}
		p = put(p, "\r\n", 2);
	}
	cl = conn_hdr ? strlen(conn_hdr) : 0;
	if ((size_t)(lim - p) < (conn_hdr ? cl + 14 : 0) + 2)
		return NULL;
	if (conn_hdr) {
		p = put(p, "connection: ", 12);
		p = put_var(p, conn_hdr, cl);
		p = put(p, "\r\n", 2);
	}
	return put(p, "\r\n", 2);
}

/* True when the header block h[0..len) (start line first) has a Connection header. */
static bool block_has_conn(const char *h, size_t len)
{
	const char *p = h, *end = h + len, *nl;

	while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		p = nl + 1;
		if ((size_t)(end - p) >= 11 && strncasecmp(p, "connection:", 11) == 0)
			return true;
	}
	return false;
}

int h1_reply_add_conn(struct buf *b, const char *conn_hdr)
{
	size_t vl = strlen(conn_hdr), add = vl + 14, hlen;
	char *h = b_head(b), *eoh;

	eoh = memmem(h, b->data, "\r\n\r\n", 4);
	if (!eoh)
		return -1;
	hlen = (size_t)(eoh - h) + 2;
	if (block_has_conn(h, hlen))
		return 0;
	if (b_room(b) < add)
		b_realign(b);
	if (b_room(b) < add)
		return -1;
	h = b_head(b);
	memmove(h + hlen + add, h + hlen, b->data - hlen);
	memcpy(h + hlen, "connection: ", 12);
	memcpy(h + hlen + 12, conn_hdr, vl);
	memcpy(h + hlen + 12 + vl, "\r\n", 2);
	b->data += (uint32_t)add;
	return 0;
}

/* The start line of a request at <p>, up to <lim>; the end, or NULL when it does not fit. */
static char *req_line_write(char *p, const char *lim, const struct h1_msg *m)
{
	if ((size_t)(lim - p) < m->meth.len + m->uri.len + m->vsn.len + 4)
		return NULL;
	p = put_var(p, m->meth.ptr, m->meth.len);
	*p++ = ' ';
	p = put_var(p, m->uri.ptr, m->uri.len);
	*p++ = ' ';
	p = put_var(p, m->vsn.ptr, m->vsn.len);
	return put(p, "\r\n", 2);
}

/* The status line of a response at <p>, up to <lim>; the end, or NULL. */
static char *rsp_line_write(char *p, const char *lim, const struct h1_msg *m)
{
	struct ist reason = m->reason;
	char sl[13] = "HTTP/1.1 000 ";
	int st = m->status % 1000;

	if (!reason.len)
		reason = ist_str(http_reason(m->status));
	if ((size_t)(lim - p) < sizeof(sl) + reason.len + 2)
		return NULL;
	sl[9] = (char)('0' + st / 100);
	sl[10] = (char)('0' + st / 10 % 10);
	sl[11] = (char)('0' + st % 10);
	p = put(p, sl, sizeof(sl));
	p = put_var(p, reason.ptr, reason.len);
	return put(p, "\r\n", 2);
}

/* Serializes <m> at the tail of <b>: written in the room there, and once more after the
 * data was moved to the start of the buffer if that room was too small. 0, or -1 when it
 * does not fit at all. */
static int msg_write(struct buf *b, const struct h1_msg *m, const char *conn_hdr, bool resp)
{
	if (b_get(b) < 0)
		return -1;
	for (;;) {
		char *t = b_tail(b), *lim = b->area + b->size;
		char *p = resp ? rsp_line_write(t, lim, m) : req_line_write(t, lim, m);

		if (p)
			p = hdrs_write(p, lim, m, conn_hdr);
		if (p) {
			b->data += (uint32_t)(p - t);
			return 0;
		}
		if (!b->head)
			return -1;
		b_realign(b);
	}
}

int h1_write_request(struct buf *b, const struct h1_msg *m, const char *conn_hdr)
{
	return msg_write(b, m, conn_hdr, false);
}

int h1_write_response(struct buf *b, const struct h1_msg *m, const char *conn_hdr)
{
	return msg_write(b, m, conn_hdr, true);
}
