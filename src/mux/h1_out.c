/* HTTP/1.1 serialization of parsed messages: the start line, the kept headers and the
 * connection header chosen by the stream, in one pass into an output buffer.
 */
#include <stdio.h>
#include <string.h>
#include <base/buf.h>
#include <http/status.h>
#include <mux/h1.h>

static bool hdr_is_hop(const struct h1_hdr *h)
{
	return h->skip || h->id == H1_HDR_CONNECTION || h->id == H1_HDR_PROXY_CONNECTION ||
	       h->id == H1_HDR_KEEP_ALIVE;
}

/* Bytes needed for the headers of <m> and the connection header. */
static size_t hdrs_size(const struct h1_msg *m, const char *conn_hdr)
{
	size_t sz = 2 + (conn_hdr ? strlen(conn_hdr) + 14 : 0);

	for (uint16_t i = 0; i < m->nhdr; i++) {
		const struct h1_hdr *h = &m->hdr[i];

		if (!hdr_is_hop(h))
			sz += h->n.len + h->v.len + 4;
	}
	return sz;
}

static char *put(char *p, const void *src, size_t len)
{
	memcpy(p, src, len);
	return p + len;
}

/* Copies a header name in lower case, as HAProxy emits them. */
static char *put_name(char *p, struct ist n)
{
	for (size_t i = 0; i < n.len; i++) {
		unsigned char c = (unsigned char)n.ptr[i];

		p[i] = (char)((unsigned int)(c - 'A') < 26u ? c + 32 : c);
	}
	return p + n.len;
}

static void hdrs_write(char *p, const struct h1_msg *m, const char *conn_hdr)
{
	for (uint16_t i = 0; i < m->nhdr; i++) {
		const struct h1_hdr *h = &m->hdr[i];

		if (hdr_is_hop(h))
			continue;
		p = put_name(p, h->n);
		p = put(p, ": ", 2);
		p = put(p, h->v.ptr, h->v.len);
		p = put(p, "\r\n", 2);
	}
	if (conn_hdr) {
		p = put(p, "connection: ", 12);
		p = put(p, conn_hdr, strlen(conn_hdr));
		p = put(p, "\r\n", 2);
	}
	put(p, "\r\n", 2);
}

/* Makes room for <need> bytes at the tail of <b>; returns the write pointer or NULL. */
static char *reserve(struct buf *b, size_t need)
{
	if (b_get(b) < 0)
		return NULL;
	if (b_room(b) < need)
		b_realign(b);
	if (b_room(b) < need)
		return NULL;
	return b_tail(b);
}

int h1_write_request(struct buf *b, const struct h1_msg *m, const char *conn_hdr)
{
	size_t sl = m->meth.len + m->uri.len + m->vsn.len + 4;
	size_t need = sl + hdrs_size(m, conn_hdr);
	char *p = reserve(b, need);

	if (!p)
		return -1;
	p = put(p, m->meth.ptr, m->meth.len);
	*p++ = ' ';
	p = put(p, m->uri.ptr, m->uri.len);
	*p++ = ' ';
	p = put(p, m->vsn.ptr, m->vsn.len);
	p = put(p, "\r\n", 2);
	hdrs_write(p, m, conn_hdr);
	b->data += (uint32_t)need;
	return 0;
}

int h1_write_response(struct buf *b, const struct h1_msg *m, const char *conn_hdr)
{
	struct ist reason = m->reason;
	char sl[16];
	size_t need, sll;
	char *p;

	if (!reason.len)
		reason = ist_str(http_reason(m->status));
	sll = (size_t)snprintf(sl, sizeof(sl), "HTTP/1.1 %03d ", m->status % 1000);
	need = sll + reason.len + 2 + hdrs_size(m, conn_hdr);
	p = reserve(b, need);
	if (!p)
		return -1;
	p = put(p, sl, sll);
	p = put(p, reason.ptr, reason.len);
	p = put(p, "\r\n", 2);
	hdrs_write(p, m, conn_hdr);
	b->data += (uint32_t)need;
	return 0;
}
