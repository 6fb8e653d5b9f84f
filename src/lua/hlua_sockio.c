/* The outgoing connections of Lua scripts (cosockets and the HTTP client): a non-blocking
 * socket in the poller of the thread that uses it, TLS over it when asked (the client TLS
 * of ssl/ssl_client.c), a small input buffer, and the context waiting on it. Lua C
 * functions drive it: they try an operation and, when it would block, yield through
 * hsock_wait() until an event of the socket or their deadline resumes them; they then try
 * again. A socket belongs to one thread; whoever drops it (close, __gc on any thread, the
 * end of the context waiting on it) never frees memory an event of the current batch may
 * still name. See hlua_int.h for the contract.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event/inbox.h>
#include <event/loop.h>
#include <ssl/ssl.h>

#include "hlua_int.h"

/* This thread's sockets a context is yielded on (so that the end of a context finds
 * them), and the states whose scripts created sockets since their last full collection. */
static __thread struct list th_waiting;
static __thread uint64_t th_gc_want[(HLUA_STATES + 63) / 64];
static __thread bool th_gc_any;
static bool hsock_teardown; /* every loop has ended: any thread may free any socket */

/* Asks for a full collection of <st> once no context runs on this thread. */
static void hsock_want_gc(const struct hlua_state *st)
{
	if (st && st->id >= 0 && st->id < HLUA_STATES) {
		th_gc_want[st->id / 64] |= 1ull << (st->id % 64);
		th_gc_any = true;
	}
}

struct hsock *hsock_new(struct hlua_state *st)
{
	struct hsock *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->h.fd = -1;
	s->tid = tid;
	list_init(&s->wait);
	tasklet_init(&s->tl, NULL);
	/* a socket left unreferenced is closed by the next full collection */
	hsock_want_gc(st);
	return s;
}

/* Events of the socket: wake the context waiting on it, which tries its operation
 * again. Readiness is not kept: an operation always tries before it waits. */
static void hsock_iocb(struct fd_handler *h, uint32_t events)
{
	struct hsock *s = container_of(h, struct hsock, h);

	if (events & EPOLLOUT)
		s->ev_out = 1;
	if (events & (EPOLLERR | EPOLLHUP))
		s->ev_err = 1;
	if (s->waiter && s->waiter->wake)
		s->waiter->wake(s->waiter);
}

int hsock_connect(struct hsock *s, const struct sockaddr_storage *ss, socklen_t len)
{
	int fd, one = 1;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (ss->ss_family != AF_UNIX)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (const struct sockaddr *)ss, len) < 0 && errno != EINPROGRESS)
		goto out_close;
	s->h.fd = fd;
	s->h.iocb = hsock_iocb;
	if (fd_register(&s->h) < 0) {
		s->h.fd = -1;
		goto out_close;
	}
	s->tid = tid;
	s->registered = 1;
	s->peer = *ss;
	s->peer_len = len;
	s->state = HS_CONNECTING;
	return 0;
out_close:
	close(fd);
	return -1;
}

int hsock_connect_poll(struct hsock *s)
{
	int err = 0;
	socklen_t el = sizeof(err);

	if (s->state != HS_CONNECTING)
		return s->state == HS_CLOSED || s->state == HS_IDLE ? -1 : 1;
	if (!s->ev_out && !s->ev_err)
		return 0;
	if (getsockopt(s->h.fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err || !s->ev_out)
		return -1; /* refused, unreachable, or a hangup without ever being writable */
	s->state = HS_READY;
	return 1;
}

int hsock_tls_start(struct hsock *s, SSL_CTX *ctx, const char *name)
{
	s->ssl = ssl_client_new(ctx, s->h.fd, name);
	if (!s->ssl)
		return -1;
	s->state = HS_TLS;
	return 0;
}

int hsock_tls_poll(struct hsock *s)
{
	const char *why;
	int ret;

	if (s->state != HS_TLS)
		return s->state == HS_READY ? 1 : -1;
	ret = ssl_chk_handshake(s->ssl, &why);
	if (ret > 0)
		s->state = HS_READY;
	return ret;
}

ssize_t hsock_recv(struct hsock *s)
{
	ssize_t n;

	if (s->state != HS_READY || s->eof)
		return s->eof ? 0 : -1;
	if (!s->ibuf && !(s->ibuf = malloc(HSOCK_BUFSZ)))
		return -1;
	if (s->ihead && s->ihead + s->ilen == HSOCK_BUFSZ) {
		memmove(s->ibuf, s->ibuf + s->ihead, s->ilen);
		s->ihead = 0;
	}
	if (s->ihead + s->ilen == HSOCK_BUFSZ)
		return HSOCK_AGAIN; /* full: the caller consumes first */
	do {
		size_t room = HSOCK_BUFSZ - s->ihead - s->ilen;
		char *at = s->ibuf + s->ihead + s->ilen;

		n = s->ssl ? ssl_chk_recv(s->ssl, at, room) : recv(s->h.fd, at, room, 0);
	} while (n < 0 && errno == EINTR);
	if (n > 0) {
		s->ilen += (uint32_t)n;
		return n;
	}
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return HSOCK_AGAIN;
	s->eof = 1; /* closed, or failed: either way nothing more comes */
	return n < 0 ? -1 : 0;
}

ssize_t hsock_send(struct hsock *s, const char *p, size_t len)
{
	ssize_t n;

	if (s->state != HS_READY)
		return -1;
	if (!len)
		return 0;
	do {
		n = s->ssl ? ssl_chk_send(s->ssl, p, len) : send(s->h.fd, p, len, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n >= 0)
		return n ? n : -1; /* a TLS close_notify while sending */
	return errno == EAGAIN || errno == EWOULDBLOCK ? HSOCK_AGAIN : -1;
}

void hsock_consume(struct hsock *s, size_t n)
{
	if (n > s->ilen)
		n = s->ilen;
	s->ihead += (uint32_t)n;
	s->ilen -= (uint32_t)n;
	if (!s->ilen)
		s->ihead = 0;
}

bool hsock_usable(lua_State *L, const struct hsock *s)
{
	struct hlua_ctx *ctx = hlua_ctx_of(L);

	return ctx && ctx->yieldable && lua_isyieldable(L) &&
	       (s->state == HS_IDLE || s->tid == tid);
}

int hsock_wait(lua_State *L, struct hsock *s, uint64_t deadline, lua_KFunction k, lua_KContext kctx)
{
	struct hlua_ctx *ctx = hlua_ctx_of(L);

	if (!th_waiting.next)
		list_init(&th_waiting);
	if (ctx && ctx->yieldable && lua_isyieldable(L)) {
		s->waiter = ctx;
		list_delete(&s->wait);
		list_append(&th_waiting, &s->wait);
	}
	return hlua_yield(L, deadline, false, k, kctx);
}

void hsock_unwait(struct hsock *s)
{
	s->waiter = NULL;
	list_delete(&s->wait);
}

void hsock_close(struct hsock *s)
{
	hsock_unwait(s);
	if (s->ssl) {
		ssl_chk_free(s->ssl);
		s->ssl = NULL;
	}
	if (s->h.fd >= 0) {
		if (th_ctx && s->tid == tid)
			fd_unregister(&s->h);
		close(s->h.fd); /* also leaves any other poller */
		s->h.fd = -1;	/* the loop skips what the current batch still holds for it */
	}
	free(s->ibuf);
	s->ibuf = NULL;
	s->ihead = s->ilen = 0;
	s->state = HS_CLOSED;
}

static void hsock_free_cb(struct tasklet *tl)
{
	free(container_of(tl, struct hsock, tl));
}

/* Closes <s> and frees it once no event of the current batch can name it. */
static void hsock_release_here(struct hsock *s)
{
	hsock_close(s);
	if (!th_ctx || th_ctx->stopped || hsock_teardown) {
		free(s); /* no loop runs here any more */
		return;
	}
	loop_defer_release(&s->tl, hsock_free_cb);
}

static void hsock_release_inbox(struct inbox_item *it)
{
	hsock_release_here(container_of(it, struct hsock, it));
}

void hsock_release(struct hsock *s)
{
	if (!s)
		return;
	if (s->tid == tid || !s->registered || hsock_teardown || !ha_thread_ctx[s->tid]) {
		hsock_release_here(s);
		return;
	}
	/* it was in another thread's poller, whose current batch may still name it: that
	 * thread closes and frees it (the shared state's collector runs on any thread) */
	s->it.fn = hsock_release_inbox;
	inbox_push((int)s->tid, &s->it);
}

void hlua_sock_ctx_end(struct hlua_ctx *ctx)
{
	struct hsock *s, *n;

	if (th_waiting.next && !list_empty(&th_waiting)) {
		list_for_each_entry_safe(s, n, &th_waiting, wait)
		{
			if (s->waiter != ctx)
				continue;
			/* abandoned while waiting (error, stream gone): a collection closes the
			 * socket if nothing keeps it */
			hsock_unwait(s);
			hsock_want_gc(ctx->st);
		}
	}
	if (!th_gc_any || hlua_cur)
		return; /* nothing created, or an outer context still runs: at its end */
	th_gc_any = false;
	for (int id = 0; id < HLUA_STATES; id++) {
		struct hlua_state *st = hlua_states[id];

		if (!(th_gc_want[id / 64] & (1ull << (id % 64))))
			continue;
		th_gc_want[id / 64] &= ~(1ull << (id % 64));
		if (!st)
			continue;
		/* as HAProxy: a full collection after a call that created sockets closes those
		 * nothing references any more (the finished coroutine's locals) */
		hlua_lock(st);
		lua_gc(st->L, LUA_GCCOLLECT);
		hlua_unlock(st);
	}
}

void hlua_sock_teardown(void)
{
	hsock_teardown = true;
}
