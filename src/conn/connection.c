/* Connections: pool allocation, edge-triggered raw socket I/O, deferred release. A TLS
 * connection (CO_FL_XPRT) is diverted to ssl/ssl_sock.c inside the tests the raw path
 * already makes for rare states, so plain connections pay nothing for it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <base/buf.h>
#include <base/pool.h>
#include <base/sys.h>
#include <conn/connection.h>
#include <event/loop.h>
#include <event/profiling.h>
#include <ssl/ssl.h>

DECLARE_POOL(pool_conn, "connection", sizeof(struct conn))

/* While a thread has connections, its pools are trimmed every CONN_GC_MS (see
 * pool_gc_thread()): what a burst of connections left in the caches goes back to the
 * system a moment after it ends. The timer is armed by conn_new(), so an idle thread
 * without connections never wakes up for it. */
#define CONN_GC_MS 500

static __thread struct timer conn_gc_tmr;
static __thread struct thread_ctx *conn_gc_ctx; /* loop <conn_gc_tmr> is queued in */

static void conn_gc_cb(struct timer *t)
{
	pool_gc_thread();
	if (th_ctx->nb_conns)
		timer_set(t, tick_add(CONN_GC_MS));
}

static inline void conn_gc_arm(void)
{
	if (likely(conn_gc_tmr.expire && conn_gc_ctx == th_ctx))
		return;
	if (conn_gc_ctx != th_ctx) { /* first use on this loop */
		memset(&conn_gc_tmr, 0, sizeof(conn_gc_tmr));
		conn_gc_tmr.cb = conn_gc_cb;
		conn_gc_ctx = th_ctx;
	}
	timer_set(&conn_gc_tmr, tick_add(CONN_GC_MS));
}

void (*conn_vars_release)(struct vars *v);
const struct conn_sess_ops *conn_sess_ops;

static void conn_release_cb(struct tasklet *tl)
{
	struct conn *c = container_of(tl, struct conn, tl);

	if (unlikely(c->stk))
		conn_sess_ops->release(c);
	if (c->vars.head && conn_vars_release)
		conn_vars_release(&c->vars);
	if (unlikely(c->pp != NULL))
		free(c->pp);
	pool_free(&pool_conn, c);
}

struct conn *conn_new(int fd, void (*iocb)(struct fd_handler *, uint32_t),
		      void (*tmr_cb)(struct timer *))
{
	struct conn *c = pool_alloc(&pool_conn);

	if (!c)
		return NULL;
	memset(c, 0, offsetof(struct conn, peer));
	c->h.fd = fd;
	c->h.iocb = iocb;
	c->tmr.cb = tmr_cb;
	tasklet_init(&c->tl, NULL);
	list_init(&c->idle);
	if (fd_register(&c->h) < 0) {
		pool_free(&pool_conn, c);
		return NULL;
	}
	th_ctx->nb_conns++;
	list_append(&th_ctx->conns, &c->by_thread);
	conn_gc_arm();
	return c;
}

void conn_close(struct conn *c)
{
	if (c->flags & CO_FL_CLOSED)
		return;
	c->flags |= CO_FL_CLOSED;
	if (unlikely(c->flags & CO_FL_XPRT))
		ssl_close(c); /* close_notify if clean, then the SSL object goes */
	if (c->priv) {	      /* a private pair (http-reuse never) comes apart */
		struct conn *o = c->priv;

		c->priv = o->priv = NULL;
		if (!(c->flags & CO_FL_BACK))
			conn_close(o); /* the client is gone: its server connection too */
	}
	timer_del(&c->tmr);
	list_delete(&c->idle);
	list_delete(&c->by_thread);
	b_release(&c->ibuf);
	b_release(&c->obuf);
	close(c->h.fd); /* also removes it from epoll */
	c->h.fd = -1;
	th_ctx->nb_conns--;
	/* events of this batch may still point to <c>: free it after them */
	loop_defer_release(&c->tl, conn_release_cb);
}

void conn_update_events(struct conn *c, uint32_t events)
{
	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		c->flags |= CO_FL_CAN_RECV;
	if (events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
		c->flags |= CO_FL_CAN_SEND;
	if (events & (EPOLLHUP | EPOLLERR))
		c->flags |= CO_FL_HUP;
	if (events & EPOLLRDHUP)
		c->flags |= CO_FL_RDHUP;
}

int conn_recv(struct conn *c)
{
	struct buf *b = &c->ibuf;
	uint32_t room;
	ssize_t ret;

	const uint32_t st = CO_FL_CAN_RECV | CO_FL_RD_EOF | CO_FL_ERROR | CO_FL_XPRT;

	if ((c->flags & st) != CO_FL_CAN_RECV) /* one test: readable, plain, no EOF nor error */
		return (c->flags & st) == (CO_FL_CAN_RECV | CO_FL_XPRT) ? ssl_recv(c) : 0;
	if (b_get(b) < 0)
		return 0;
	room = b_room(b);
	if (room < 1024 && b->head) {
		b_realign(b);
		room = b_room(b);
	}
	if (!room)
		return 0;
	ret = sys_recv(c->h.fd, b_tail(b), room, 0);
	if (ret > 0) {
		c->last_act = now_ms();
		c->bytes_in += (uint64_t)ret;
		b->data += (uint32_t)ret;
		if ((size_t)ret < room && !(c->flags & (CO_FL_HUP | CO_FL_RDHUP)))
			c->flags &= ~CO_FL_CAN_RECV;
		return (int)ret;
	}
	if (ret == 0) {
		c->flags |= CO_FL_RD_EOF;
		c->flags &= ~CO_FL_CAN_RECV;
		b_release_if_empty(b);
		return 0;
	}
	b_release_if_empty(b);
	if (errno == EAGAIN || errno == EWOULDBLOCK) {
		c->flags &= ~CO_FL_CAN_RECV;
		return 0;
	}
	if (errno == EINTR)
		return 0;
	c->flags |= CO_FL_ERROR;
	return CO_ERR;
}

ssize_t conn_sendv(struct conn *c, struct iovec *iov, int iovcnt, bool more)
{
	int flags = MSG_NOSIGNAL | MSG_DONTWAIT | (more ? MSG_MORE : 0);
	size_t total;
	ssize_t ret;

	if (c->flags & (CO_FL_ERROR | CO_FL_WR_ERR | CO_FL_WR_SHUT | CO_FL_XPRT)) {
		if ((c->flags & (CO_FL_ERROR | CO_FL_WR_ERR | CO_FL_WR_SHUT)) ||
		    !(c->flags & CO_FL_CAN_SEND))
			return (c->flags & (CO_FL_ERROR | CO_FL_WR_ERR | CO_FL_WR_SHUT)) ? CO_ERR
											 : 0;
		return ssl_sendv(c, iov, iovcnt);
	}
	if (!(c->flags & CO_FL_CAN_SEND))
		return 0;
	if (iovcnt == 1) { /* one piece: send(), which the kernel takes with less work */
		total = iov[0].iov_len;
		ret = sys_send(c->h.fd, iov[0].iov_base, total, flags);
	} else {
		struct msghdr msg = { .msg_iov = iov, .msg_iovlen = (size_t)iovcnt };

		ret = sys_sendmsg(c->h.fd, &msg, flags);
		total = 0;
		for (int i = 0; i < iovcnt; i++)
			total += iov[i].iov_len;
	}
	if (ret >= 0) {
		c->last_act = now_ms();
		c->bytes_out += (uint64_t)ret;
		if ((size_t)ret < total)
			c->flags &= ~CO_FL_CAN_SEND;
		return ret;
	}
	if (errno == EINTR)
		return 0; /* still writable: the caller retries on its next pass */
	if (errno == EAGAIN || errno == EWOULDBLOCK) {
		c->flags &= ~CO_FL_CAN_SEND;
		return 0;
	}
	c->flags |= CO_FL_WR_ERR;
	return CO_ERR;
}

int conn_flush(struct conn *c)
{
	struct buf *b = &c->obuf;
	struct iovec iov;
	ssize_t ret;

	if (!b->data) {
		b_release(b);
		return 0;
	}
	iov.iov_base = b_head(b);
	iov.iov_len = b->data;
	ret = conn_sendv(c, &iov, 1, false);
	if (ret < 0)
		return CO_ERR;
	b_del(b, (uint32_t)ret);
	if (!b->data) {
		b_release(b);
		return 0;
	}
	return 1;
}

void conn_shutw(struct conn *c)
{
	if (c->flags & (CO_FL_WR_SHUT | CO_FL_CLOSED))
		return;
	if (unlikely(c->flags & CO_FL_XPRT))
		ssl_shutw(c); /* close_notify first */
	c->flags |= CO_FL_WR_SHUT;
	shutdown(c->h.fd, SHUT_WR);
}

/* names in "show profiling" (event/profiling.h) */
PROF_NAME(conn_gc_cb, "conn_gc_cb")
