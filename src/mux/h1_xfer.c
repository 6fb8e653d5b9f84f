/* Body forwarding between two connections: content-length, chunked (validated by the
 * chunk scanner and passed verbatim), close-delimited and tunnel bytes. Data already queued
 * in the destination's output buffer (serialized headers) goes first, in the same writev.
 */
#include <sys/uio.h>
#include <base/buf.h>
#include <conn/connection.h>
#include <http/h1.h>
#include <mux/h1.h>
#include <proc/global-t.h>

void h1_xfer_init(struct h1_xfer *x, enum xfer_mode mode, uint64_t remain)
{
	memset(x, 0, sizeof(*x));
	x->mode = mode;
	x->remain = remain;
	x->done = (mode == XFER_NONE || (mode == XFER_CLEN && !remain));
}

/* Scanned chunked bytes that may leave: an unfinished size line stays until it is
 * complete and valid. A full buffer holding only such a line is invalid (it can never
 * complete). */
static int64_t xfer_chunk_ready(struct buf *ib, struct h1_xfer *x)
{
	size_t held = h1_chunk_pending(&x->chunk);

	if (held >= x->ready)
		return (held && ib->data >= ib->size) ? -1 : 0;
	return x->ready - held;
}

/* Bytes at the head of src->ibuf that belong to the body and may be forwarded now;
 * -1 on invalid chunk framing. */
static int64_t xfer_available(struct buf *ib, struct h1_xfer *x)
{
	switch (x->mode) {
	case XFER_CLEN:
		return ib->data < x->remain ? ib->data : (int64_t)x->remain;
	case XFER_CHUNKED:
		if (x->ready < ib->data && !x->done) {
			int done = 0;
			ssize_t n = h1_chunk_scan(&x->chunk, b_head(ib) + x->ready,
						  ib->data - x->ready, global.tune_bufsize, &done);

			if (n < 0)
				return -1;
			x->ready += (uint32_t)n;
			x->eom_seen = (uint8_t)done;
		}
		return xfer_chunk_ready(ib, x);
	case XFER_EOF:
	case XFER_TUNNEL:
		return ib->data;
	default:
		return 0;
	}
}

static void xfer_consumed(struct buf *ib, struct h1_xfer *x, uint32_t n)
{
	b_del(ib, n);
	switch (x->mode) {
	case XFER_CLEN:
		x->remain -= n;
		x->done = !x->remain;
		break;
	case XFER_CHUNKED:
		x->ready -= n;
		x->done = (x->eom_seen && !x->ready);
		break;
	default:
		break;
	}
}

/* Sends dst->obuf then <n> bytes from src->ibuf in one writev; <more> when the message
 * goes on after them. Returns the body bytes sent, or XFER_ERR_DST. */
static int64_t xfer_send(struct conn *dst, struct buf *ib, uint32_t n, bool more)
{
	struct iovec iov[2];
	struct buf *ob = &dst->obuf;
	int cnt = 0;
	ssize_t ret;

	if (ob->data) {
		iov[cnt].iov_base = b_head(ob);
		iov[cnt++].iov_len = ob->data;
	}
	iov[cnt].iov_base = b_head(ib);
	iov[cnt++].iov_len = n;
	ret = conn_sendv(dst, iov, cnt, more);
	if (ret < 0)
		return XFER_ERR_DST;
	if (ob->data) {
		if ((uint32_t)ret < ob->data) {
			b_del(ob, (uint32_t)ret);
			return 0;
		}
		ret -= ob->data;
		b_del(ob, ob->data);
		b_release(ob);
	}
	return ret;
}

int h1_xfer(struct conn *src, struct conn *dst, struct h1_xfer *x)
{
	struct buf *ib = &src->ibuf;
	int moved = 0;

	while (!x->done) {
		int64_t avail = xfer_available(ib, x), sent;

		if (avail < 0)
			return XFER_ERR_FRAMING;
		if (!avail) {
			if (conn_recv(src) > 0)
				continue;
			if (!(src->flags & (CO_FL_RD_EOF | CO_FL_ERROR)))
				break; /* wait for more */
			if ((x->mode == XFER_EOF || x->mode == XFER_TUNNEL) && !ib->data) {
				x->done = 1; /* the sender closed: end of body */
				break;
			}
			return XFER_ERR_SRC; /* closed before the end of the body */
		}
		if (!dst) {
			sent = avail;
		} else {
			/* as HAProxy does: MSG_MORE while the body is known to go on, so that a
			 * large body leaves in full segments; tunnels and close-delimited bodies
			 * are sent as they come */
			bool more = !x->no_delay &&
				    ((x->mode == XFER_CLEN && x->remain > (uint64_t)avail) ||
				     (x->mode == XFER_CHUNKED && !x->eom_seen));

			sent = xfer_send(dst, ib, (uint32_t)avail, more);
			if (sent < 0)
				return XFER_ERR_DST;
		}
		if (sent)
			moved = 1;
		xfer_consumed(ib, x, (uint32_t)sent);
		if (sent < avail)
			break; /* destination full: wait for its EPOLLOUT */
	}
	b_release_if_empty(ib);
	return moved;
}
