/* The body of a request kept for an L7 retry (retry-on): it stays in the front buffer
 * after the kept headers until a response head is accepted, and each attempt sends a copy
 * of it from the back buffer. A body that is not complete in the front buffer when the
 * request goes out is forwarded as usual and the request is not retried (HAProxy 2.6's
 * rule). Loop thread.
 */
#include <base/buf.h>
#include <conn/connection.h>
#include <http/h1.h>
#include <mux/h1.h>
#include <proc/global-t.h>
#include <stream/l7_body.h>
#include <stream/stream.h>

/* Length of the complete body that follows the headers in <ib>, or -1 when it is not all
 * there (or is invalid: the usual forwarding then reports it). */
static int64_t l7_body_len(const struct stream *s, const struct buf *ib)
{
	uint32_t have = ib->data - s->req.hdr_len;
	struct h1_chunk c = { 0 };
	int done = 0;
	ssize_t n;

	if (s->reqx.mode == XFER_CLEN)
		return s->reqx.remain <= have ? (int64_t)s->reqx.remain : -1;
	if (s->reqx.mode != XFER_CHUNKED)
		return -1;
	n = h1_chunk_scan(&c, b_head(ib) + s->req.hdr_len, have, global.tune_bufsize, &done);
	return n >= 0 && done ? n : -1;
}

bool stream_l7_body_ready(struct stream *s)
{
	const struct buf *ib = &s->front->ibuf;
	int64_t len;

	if (s->reqx.mode == XFER_NONE || s->reqx.done)
		return true; /* no body, or one already measured and kept (a new attempt) */
	if (ib->data < s->req.hdr_len)
		return false;
	len = l7_body_len(s, ib);
	if (len < 0)
		return false;
	s->l7_body = (uint32_t)len;
	return true;
}

bool stream_l7_body_send(struct stream *s)
{
	struct buf *ib = &s->front->ibuf;

	if (!s->l7_body)
		return true;
	if (b_putblk(&s->back->obuf, b_head(ib) + s->req.hdr_len, s->l7_body) == 0) {
		s->reqx.done = 1;
		return true;
	}
	/* no room behind the headers: forward it as usual, without retry */
	h1_xfer_init(&s->reqx, s->reqx.mode, s->reqx.mode == XFER_CLEN ? s->l7_body : 0);
	s->l7_body = 0;
	s->flags &= ~SF_L7_RETRY;
	return false;
}
