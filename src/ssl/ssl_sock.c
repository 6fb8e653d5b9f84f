/* The TLS transport: an SSL object per connection over a BIO that calls the socket itself
 * (so a short read or write clears the same edge-triggered readiness flags as the raw
 * path), TLS reads straight into the connection's input buffer, writes from the caller's
 * buffers (small pieces gathered into one record), close_notify on close, and the
 * handshakes: the front one runs before the H1 mux sees the connection, the back one while
 * the stream waits for its connection. Handshakes are rationed per loop turn: a flood of
 * new clients waits a turn or two while established connections keep being served.
 * Loop thread only.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <openssl/err.h>

#include <backend/server-t.h>
#include <base/atomic.h>
#include <base/buf.h>
#include <base/sys.h>
#include <conn/connection.h>
#include <conn/listener-t.h>
#include <event/loop.h>
#include <event/profiling.h>
#include <mux/h1.h>
#include <proxy/proxy-t.h>
#include <ssl/ssl.h>
#include <ssl/ssl_stats.h>

/* Handshake steps a thread runs per loop turn by default: one full RSA-2048 handshake
 * costs about a millisecond of CPU, so a turn spends at most a few milliseconds on new
 * clients before it serves established connections again. */
#define SSL_HS_PER_TURN 4

/* The largest TLS record payload: writes gather small pieces up to this size. */
#define SSL_REC_MAX 16384

struct ssl_thr_stats ssl_thr_stats[MAX_THREADS];

static BIO_METHOD *conn_bio_meth;

/* loop turn (th_ctx->now_ns) of <hs_left>, and the handshake steps left in that turn */
static __thread uint64_t hs_turn;
static __thread int hs_left;
/* SSL_REC_MAX bytes: small pieces of one write, gathered into one record */
static __thread char *wr_gather;
/* Front connections waiting for a handshake step, oldest first (linked by c->idle, which
 * a connection does not use before its handshake is done), and the tasklet that serves
 * them after each turn's I/O events, within the budget. */
static __thread struct list hs_queue;
static __thread struct tasklet hs_tl;
static __thread struct thread_ctx *hs_ctx; /* loop <hs_queue> and <hs_tl> belong to */

/* ---- the socket BIO ---- */

static int conn_bio_read(BIO *b, char *buf, int len)
{
	struct conn *c = BIO_get_data(b);
	ssize_t ret;

	BIO_clear_retry_flags(b);
	if (len <= 0)
		return 0;
	ret = sys_recv(c->h.fd, buf, (size_t)len, 0);
	if (ret > 0) {
		if (ret < len && !(c->flags & (CO_FL_HUP | CO_FL_RDHUP)))
			c->flags &= ~CO_FL_CAN_RECV; /* drained: the next edge says when */
		return (int)ret;
	}
	if (ret == 0) {
		c->flags |= CO_FL_RD_EOF;
		c->flags &= ~CO_FL_CAN_RECV;
		return 0;
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
		if (errno != EINTR)
			c->flags &= ~CO_FL_CAN_RECV;
		BIO_set_retry_read(b);
		return -1;
	}
	c->flags |= CO_FL_ERROR;
	return -1;
}

static int conn_bio_write(BIO *b, const char *buf, int len)
{
	struct conn *c = BIO_get_data(b);
	ssize_t ret;

	BIO_clear_retry_flags(b);
	if (len <= 0)
		return 0;
	ret = send(c->h.fd, buf, (size_t)len, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (ret >= 0) {
		if (ret < len)
			c->flags &= ~CO_FL_CAN_SEND;
		return (int)ret;
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
		if (errno != EINTR)
			c->flags &= ~CO_FL_CAN_SEND;
		BIO_set_retry_write(b);
		return -1;
	}
	c->flags |= CO_FL_WR_ERR;
	return -1;
}

static long conn_bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
	(void)b;
	(void)num;
	(void)ptr;
	return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

static int conn_bio_create(BIO *b)
{
	BIO_set_init(b, 1);
	return 1;
}

static int ssl_sock_init(void)
{
	if (conn_bio_meth)
		return 0;
	conn_bio_meth = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "hapx-conn");
	if (!conn_bio_meth || !BIO_meth_set_read(conn_bio_meth, conn_bio_read) ||
	    !BIO_meth_set_write(conn_bio_meth, conn_bio_write) ||
	    !BIO_meth_set_ctrl(conn_bio_meth, conn_bio_ctrl) ||
	    !BIO_meth_set_create(conn_bio_meth, conn_bio_create))
		return -1;
	return 0;
}

/* A new SSL object for <c> from <ctx>, reading and writing the socket. */
static SSL *ssl_new_for(struct conn *c, SSL_CTX *ctx)
{
	SSL *ssl;
	BIO *bio;

	if (ssl_sock_init() < 0)
		return NULL;
	ssl = SSL_new(ctx);
	if (!ssl)
		return NULL;
	bio = BIO_new(conn_bio_meth);
	if (!bio) {
		SSL_free(ssl);
		return NULL;
	}
	BIO_set_data(bio, c);
	SSL_set_bio(ssl, bio, bio);
	c->xprt = ssl;
	c->flags |= CO_FL_XPRT;
	ssl_stats_open(); /* CurrSslConns, CumSslConns (ssl_stats.c) */
	return ssl;
}

/* ---- handshake rationing ---- */

/* Takes one handshake step from this turn's budget; false when it is spent. */
static bool hs_budget_take(void)
{
	if (hs_turn != th_ctx->now_ns) {
		hs_turn = th_ctx->now_ns;
		hs_left = ssl_set.hs_per_turn > 0 ? ssl_set.hs_per_turn : SSL_HS_PER_TURN;
	}
	if (hs_left <= 0)
		return false;
	hs_left--;
	return true;
}

int ssl_hs_budget_left(void)
{
	if (hs_turn == th_ctx->now_ns)
		return hs_left;
	return ssl_set.hs_per_turn > 0 ? ssl_set.hs_per_turn : SSL_HS_PER_TURN;
}

void ssl_stats_sum(struct ssl_thr_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int t = 0; t < MAX_THREADS; t++) {
		out->fe_hs += HA_ATOMIC_LOAD_RLX(&ssl_thr_stats[t].fe_hs);
		out->fe_hs_fail += HA_ATOMIC_LOAD_RLX(&ssl_thr_stats[t].fe_hs_fail);
		out->fe_reused += HA_ATOMIC_LOAD_RLX(&ssl_thr_stats[t].fe_reused);
		out->be_hs += HA_ATOMIC_LOAD_RLX(&ssl_thr_stats[t].be_hs);
		out->be_hs_fail += HA_ATOMIC_LOAD_RLX(&ssl_thr_stats[t].be_hs_fail);
		out->be_reused += HA_ATOMIC_LOAD_RLX(&ssl_thr_stats[t].be_reused);
	}
}

/* Why the last handshake of <ssl> failed, for the log and the counters. */
static void ssl_clear_errors(void)
{
	ERR_clear_error();
}

/* ---- front handshake ---- */

static void ssl_front_step(struct conn *c);

static void ssl_front_iocb(struct fd_handler *h, uint32_t events)
{
	struct conn *c = container_of(h, struct conn, h);

	if (c->flags & CO_FL_CLOSED)
		return;
	conn_update_events(c, events);
	ssl_front_step(c);
}

static void ssl_front_run(struct conn *c);

/* The handshake steps waiting for the budget, oldest first: while any waits, new events
 * queue behind it, so a flood of new clients cannot starve those that came first. */
static void ssl_hs_queue_run(struct tasklet *tl)
{
	while (!list_empty(&hs_queue) && hs_budget_take()) {
		struct conn *c = list_elem(hs_queue.next, struct conn, idle);

		list_delete(&c->idle);
		ssl_front_run(c);
	}
	if (!list_empty(&hs_queue))
		tasklet_wakeup(tl); /* the next turn, after its I/O events */
}

static void ssl_front_timeout(struct timer *t)
{
	struct conn *c = container_of(t, struct conn, tmr);

	ssl_thr_stats[tid].fe_hs_fail++;
	h1_front_tls_failed(c, "Timeout during SSL handshake");
}

static void ssl_front_step(struct conn *c)
{
	if (!(c->flags & (CO_FL_CAN_RECV | CO_FL_CAN_SEND | CO_FL_HUP)))
		return;			  /* nothing new since the last step */
	if (unlikely(hs_ctx != th_ctx)) { /* first use on this loop */
		list_init(&hs_queue);
		tasklet_init(&hs_tl, ssl_hs_queue_run);
		hs_ctx = th_ctx;
	}
	if (!list_empty(&c->idle))
		return; /* already waiting its turn */
	if (!list_empty(&hs_queue) || !hs_budget_take()) {
		list_append(&hs_queue, &c->idle);
		tasklet_wakeup(&hs_tl);
		return;
	}
	ssl_front_run(c);
}

/* One handshake step of front connection <c>, within this turn's budget. */
static void ssl_front_run(struct conn *c)
{
	SSL *ssl = c->xprt;
	const char *why;
	int ret, err;

	ret = SSL_do_handshake(ssl);
	if (ret == 1) {
		ssl_thr_stats[tid].fe_hs++;
		if (SSL_session_reused(ssl))
			ssl_thr_stats[tid].fe_reused++;
		else
			ssl_stats_key(false); /* SslFrontendKeyRate */
		c->flags |= CO_FL_CAN_RECV;   /* the request may already be in SSL's buffer */
		h1_front_tls_ready(c);
		return;
	}
	err = SSL_get_error(ssl, ret);
	if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
		if (err == SSL_ERROR_WANT_READ && (c->flags & (CO_FL_RD_EOF | CO_FL_HUP)))
			goto closed;
		return; /* the flags were cleared by the BIO: the next edge resumes */
	}
	/* the client went away without a TLS error: HAProxy logs it apart (dontlognull) */
	if ((err == SSL_ERROR_SYSCALL && !ERR_peek_error()) ||
	    (err == SSL_ERROR_SSL &&
	     ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING))
		goto closed;
	why = "SSL handshake failure";
fail:
	ssl_clear_errors();
	ssl_thr_stats[tid].fe_hs_fail++;
	c->flags |= CO_FL_ERROR;
	h1_front_tls_failed(c, why);
	return;
closed:
	why = "Connection closed during SSL handshake";
	goto fail;
}

int ssl_front_attach(struct conn *c, struct ssl_bind *sb)
{
	SSL *ssl = ssl_new_for(c, sb->initial_ctx);

	if (!ssl)
		return -1;
	ssl_stats_accept(); /* SslRate, maxsslrate (ssl_stats.c) */
	SSL_set_accept_state(ssl);
	if (ssl_set.maxrecord > 0)
		SSL_set_max_send_fragment(ssl, (long)(ssl_set.maxrecord < 512 ? 512
						      : ssl_set.maxrecord > SSL_REC_MAX
							      ? SSL_REC_MAX
							      : ssl_set.maxrecord));
	return 0;
}

void ssl_front_kick(struct conn *c)
{
	c->h.iocb = ssl_front_iocb; /* until the handshake is done */
	c->tmr.cb = ssl_front_timeout;
	c->flags |= CO_FL_CAN_RECV; /* the ClientHello may be there already */
	ssl_front_step(c);
}

/* ---- back handshake ---- */

int ssl_back_handshake(struct conn *c)
{
	struct ssl_srv *ss = c->srv->ssl;
	SSL *ssl = c->xprt;
	int ret, err;

	if (!(c->flags & CO_FL_XPRT)) {
		ssl = ssl_new_for(c, ss->ctx);
		if (!ssl)
			return -1;
		SSL_set_connect_state(ssl);
		if (ssl_srv_prepare(c, ssl) < 0)
			return -1;
	}
	if (SSL_is_init_finished(ssl))
		return 1;
	if (!(c->flags & (CO_FL_CAN_RECV | CO_FL_CAN_SEND | CO_FL_HUP)))
		return 0;
	ret = SSL_do_handshake(ssl);
	if (ret == 1) {
		ssl_thr_stats[tid].be_hs++;
		if (SSL_session_reused(ssl))
			ssl_thr_stats[tid].be_reused++;
		else
			ssl_stats_key(true); /* SslBackendKeyRate */
		c->flags |= CO_FL_CAN_RECV;
		return 1;
	}
	err = SSL_get_error(ssl, ret);
	if ((err == SSL_ERROR_WANT_READ && !(c->flags & (CO_FL_RD_EOF | CO_FL_HUP))) ||
	    err == SSL_ERROR_WANT_WRITE)
		return 0;
	ssl_clear_errors();
	ssl_thr_stats[tid].be_hs_fail++;
	c->flags |= CO_FL_ERROR;
	return -1;
}

/* ---- I/O ---- */

int ssl_recv(struct conn *c)
{
	SSL *ssl = c->xprt;
	struct buf *b = &c->ibuf;
	size_t room, got = 0;
	int ret, err;

	if (!(c->flags & CO_FL_CAN_RECV))
		return 0;
	if (b_get(b) < 0)
		return 0;
	room = b_room(b);
	if (room < 1024 && b->head) {
		b_realign(b);
		room = b_room(b);
	}
	if (!room)
		return 0;
	ret = SSL_read_ex(ssl, b_tail(b), room, &got);
	if (ret == 1) {
		c->last_act = now_ms();
		c->bytes_in += got;
		b->data += (uint32_t)got;
		/* SSL may hold more than the room took, or a whole next record */
		if (SSL_has_pending(ssl))
			c->flags |= CO_FL_CAN_RECV;
		return (int)got;
	}
	b_release_if_empty(b);
	err = SSL_get_error(ssl, ret);
	switch (err) {
	case SSL_ERROR_WANT_READ:
		if (c->flags & CO_FL_RD_EOF) /* a truncated record: the peer went away */
			return 0;
		c->flags &= ~CO_FL_CAN_RECV;
		return 0;
	case SSL_ERROR_WANT_WRITE: /* an answer to send first: reading goes on once the
				    * socket takes it (the mux reads again on EPOLLOUT) */
		c->flags &= ~CO_FL_CAN_SEND;
		return 0;
	case SSL_ERROR_ZERO_RETURN: /* close_notify: a clean end of the stream */
		c->flags |= CO_FL_RD_EOF;
		c->flags &= ~CO_FL_CAN_RECV;
		return 0;
	case SSL_ERROR_SYSCALL:
		ssl_clear_errors();
		if (c->flags & CO_FL_RD_EOF) { /* a close without close_notify, as most do */
			c->flags &= ~CO_FL_CAN_RECV;
			return 0;
		}
		c->flags |= CO_FL_ERROR;
		return CO_ERR;
	default:
		ssl_clear_errors();
		c->flags |= CO_FL_ERROR;
		return CO_ERR;
	}
}

/* Copies up to SSL_REC_MAX bytes of <iov> from offset <off> into the thread's gathering
 * buffer; returns the length, or 0 if the buffer cannot be allocated. */
static size_t ssl_gather(const struct iovec *iov, int iovcnt, size_t off)
{
	size_t len = 0;

	if (!wr_gather && !(wr_gather = malloc(SSL_REC_MAX)))
		return 0;
	for (int i = 0; i < iovcnt && len < SSL_REC_MAX; i++) {
		size_t n = iov[i].iov_len;

		if (off >= n) {
			off -= n;
			continue;
		}
		n -= off;
		if (n > SSL_REC_MAX - len)
			n = SSL_REC_MAX - len;
		memcpy(wr_gather + len, (const char *)iov[i].iov_base + off, n);
		len += n;
		off = 0;
	}
	return len;
}

/* Writes as much of <iov> as the socket takes, one record per SSL_write_ex (partial
 * writes are on): like the raw path, a short count means the socket is full
 * (CO_FL_CAN_SEND cleared). Small pieces are gathered into one record; a record left
 * half sent is offered again with at least the same bytes (callers keep what was not
 * taken), as OpenSSL needs. */
ssize_t ssl_sendv(struct conn *c, struct iovec *iov, int iovcnt)
{
	SSL *ssl = c->xprt;
	size_t total = 0, sent = 0;
	int ret, err;

	for (int i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	while (sent < total && (c->flags & CO_FL_CAN_SEND)) {
		const void *src;
		size_t len, done = 0, off = sent;
		int i = 0;

		while (i < iovcnt && off >= iov[i].iov_len) /* the piece holding <sent> */
			off -= iov[i++].iov_len;
		if (i == iovcnt - 1 || iov[i].iov_len - off >= SSL_REC_MAX) {
			src = (const char *)iov[i].iov_base + off;
			len = iov[i].iov_len - off;
		} else {
			len = ssl_gather(iov, iovcnt, sent);
			if (!len)
				break;
			src = wr_gather;
		}
		ret = SSL_write_ex(ssl, src, len, &done);
		if (ret == 1) {
			c->flags &= ~CO_FL_XPRT_WPEND;
			sent += done;
			continue;
		}
		err = SSL_get_error(ssl, ret);
		if (err == SSL_ERROR_WANT_WRITE) {
			c->flags |= CO_FL_XPRT_WPEND;
			c->flags &= ~CO_FL_CAN_SEND; /* the BIO saw EAGAIN */
			break;
		}
		if (err == SSL_ERROR_WANT_READ) { /* a key update to read first */
			c->flags |= CO_FL_XPRT_WPEND;
			c->flags &= ~CO_FL_CAN_RECV;
			break;
		}
		ssl_clear_errors();
		c->flags |= CO_FL_WR_ERR;
		if (!sent)
			return CO_ERR;
		break;
	}
	if (sent) {
		c->last_act = now_ms();
		c->bytes_out += sent;
	}
	return (ssize_t)sent;
}

void ssl_shutw(struct conn *c)
{
	SSL *ssl = c->xprt;

	if (!(c->flags & (CO_FL_ERROR | CO_FL_WR_ERR | CO_FL_XPRT_WPEND)) &&
	    SSL_is_init_finished(ssl))
		SSL_shutdown(ssl); /* one close_notify record, never waits */
	ssl_clear_errors();
}

void ssl_close(struct conn *c)
{
	SSL *ssl = c->xprt;

	if (!(c->flags & CO_FL_WR_SHUT))
		ssl_shutw(c);
	SSL_free(ssl);
	c->xprt = NULL;
	c->flags &= ~CO_FL_XPRT;
	ssl_stats_close();
}

int ssl_idle_event(struct conn *c)
{
	char byte;
	size_t got;
	int ret = SSL_read_ex(c->xprt, &byte, 1, &got);

	if (ret == 1)
		return -1; /* data nobody asked for */
	ret = SSL_get_error(c->xprt, ret);
	ssl_clear_errors();
	if (ret == SSL_ERROR_WANT_READ && !(c->flags & (CO_FL_RD_EOF | CO_FL_HUP | CO_FL_ERROR))) {
		c->flags &= ~CO_FL_CAN_RECV;
		return 0; /* a session ticket, or part of a record */
	}
	return -1;
}

bool ssl_idle_ok(struct conn *c)
{
	/* no syscall when OpenSSL holds nothing: the next event tells */
	return !SSL_has_pending(c->xprt) || ssl_idle_event(c) == 0;
}

void ssl_sock_thread_release(void)
{
	free(wr_gather);
	wr_gather = NULL;
}

/* names in "show profiling" (event/profiling.h) */
PROF_NAME(ssl_front_iocb, "ssl_sock_io_cb")
PROF_NAME(ssl_hs_queue_run, "ssl_sock_hs_queue")
PROF_NAME(ssl_front_timeout, "ssl_sock_hs_timeout")
