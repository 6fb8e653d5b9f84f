/* Splicing for mode tcp: with "option splice-request" (client to server),
 * "splice-response" (server to client) or "splice-auto" (each direction once it carried
 * more than a buffer: a large transfer), and neither side using TLS, the bytes move from
 * socket to socket through a kernel pipe (splice(2)) instead of being copied through a
 * buffer. A pipe is held only while it holds bytes; each thread keeps a few empty ones.
 * "maxpipes" bounds them process-wide (an atomic count: taken once per pipe, not per
 * byte); "tune.pipesize" sizes them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <base/atomic.h>
#include <conn/connection.h>
#include <event/loop.h>
#include <mux/h1.h>
#include <proc/global-t.h>
#include <stream/splice.h>

#define PIPE_CACHE 8 /* empty pipes a thread keeps */

struct splice_pipe {
	int rd, wr;
	uint32_t data;		  /* bytes in the pipe */
	uint32_t size;		  /* its capacity */
	struct splice_pipe *next; /* in the thread's cache */
};

static __thread struct splice_pipe *pipe_cache;
static __thread int pipe_cached;
static int pipes_used, pipes_free; /* process-wide, atomic */

static int pipe_limit(void)
{
	if (global.maxpipes)
		return global.maxpipes;
	return global.maxconn > 4 ? global.maxconn / 4 : 1;
}

static struct splice_pipe *pipe_get(void)
{
	struct splice_pipe *p = pipe_cache;
	int fds[2];

	if (p) {
		pipe_cache = p->next;
		pipe_cached--;
		HA_ATOMIC_DEC(&pipes_free);
		HA_ATOMIC_INC(&pipes_used);
		return p;
	}
	/* the cached ones count too: maxpipes bounds every pipe the process holds */
	if (HA_ATOMIC_ADD(&pipes_used, 1) + HA_ATOMIC_LOAD_RLX(&pipes_free) > pipe_limit())
		goto fail;
	p = malloc(sizeof(*p));
	if (!p)
		goto fail;
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) < 0) {
		free(p);
		goto fail;
	}
	if (global.tune_pipesize)
		fcntl(fds[0], F_SETPIPE_SZ, global.tune_pipesize);
	p->rd = fds[0];
	p->wr = fds[1];
	p->data = 0;
	{
		int sz = fcntl(fds[0], F_GETPIPE_SZ);

		p->size = sz > 0 ? (uint32_t)sz : 65536;
	}
	return p;
fail:
	HA_ATOMIC_DEC(&pipes_used);
	return NULL;
}

static void pipe_put(struct splice_pipe *p)
{
	HA_ATOMIC_DEC(&pipes_used);
	if (p->data || pipe_cached >= PIPE_CACHE) {
		close(p->rd);
		close(p->wr);
		free(p);
		return;
	}
	p->next = pipe_cache;
	pipe_cache = p;
	pipe_cached++;
	HA_ATOMIC_INC(&pipes_free);
}

uint32_t splice_pending(const struct splice_pipe *p)
{
	return p ? p->data : 0;
}

void splice_release(struct splice_pipe **pp)
{
	if (*pp) {
		pipe_put(*pp);
		*pp = NULL;
	}
}

int splice_pipes_used(void)
{
	return HA_ATOMIC_LOAD_RLX(&pipes_used);
}

int splice_pipes_free(void)
{
	return HA_ATOMIC_LOAD_RLX(&pipes_free);
}

/* Empties the pipe into <dst>: 1 if bytes left, 0 if none could, XFER_ERR_DST. */
static int pipe_flush(struct splice_pipe *p, struct conn *dst)
{
	int moved = 0;

	while (p->data && (dst->flags & CO_FL_CAN_SEND)) {
		ssize_t n = splice(p->rd, NULL, dst->h.fd, NULL, p->data,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

		if (n > 0) {
			p->data -= (uint32_t)n;
			dst->bytes_out += (uint64_t)n;
			dst->last_act = now_ms();
			moved = 1;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			dst->flags &= ~CO_FL_CAN_SEND;
			break;
		}
		dst->flags |= CO_FL_WR_ERR;
		return XFER_ERR_DST;
	}
	return moved;
}

/* Fills the pipe from <src>: 1 if bytes came, 0 if none, XFER_ERR_SRC on an error. */
static int pipe_fill(struct splice_pipe *p, struct conn *src)
{
	int moved = 0;

	while (p->data < p->size && (src->flags & CO_FL_CAN_RECV) &&
	       !(src->flags & (CO_FL_RD_EOF | CO_FL_ERROR))) {
		ssize_t n = splice(src->h.fd, NULL, p->wr, NULL, p->size - p->data,
				   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

		if (n > 0) {
			p->data += (uint32_t)n;
			src->bytes_in += (uint64_t)n;
			src->last_act = now_ms();
			moved = 1;
			continue;
		}
		if (n == 0) {
			src->flags = (src->flags | CO_FL_RD_EOF) & ~CO_FL_CAN_RECV;
			break;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN) {
			/* the socket is empty, or the pipe is full (it then has data) */
			if (!p->data)
				src->flags &= ~CO_FL_CAN_RECV;
			break;
		}
		src->flags |= CO_FL_ERROR;
		return XFER_ERR_SRC;
	}
	return moved;
}

int splice_xfer(struct conn *src, struct conn *dst, struct splice_pipe **pp, struct h1_xfer *x)
{
	struct splice_pipe *p = *pp;
	int moved = 0, ret;

	if (!p && !(p = *pp = pipe_get()))
		return -3;
	for (int round = 0; round < 16; round++) { /* bounded: other streams run too */
		int step = 0;

		ret = pipe_flush(p, dst);
		if (ret < 0)
			return ret;
		step |= ret;
		ret = pipe_fill(p, src);
		if (ret < 0)
			return ret;
		step |= ret;
		moved |= step;
		if (!step)
			break;
	}
	if (!p->data) {
		if (src->flags & (CO_FL_RD_EOF | CO_FL_ERROR))
			x->done = 1;
		splice_release(pp); /* an empty pipe goes back at once */
	}
	return moved;
}
