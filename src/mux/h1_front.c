/* Front side of the H1 mux: client connections from accept to close. Between requests a
 * connection holds no buffer and no stream; request bytes start a stream (stream layer,
 * through h1_stream_ops). Closing after an error response is graceful: shut the write
 * side, drain what the client still sends for a short while, then close, so that the
 * client reads the response instead of a reset.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <base/atomic.h>
#include <base/buf.h>
#include <conn/connection.h>
#include <conn/listener.h>
#include <base/freq_ctr.h>
#include <event/loop.h>
#include <event/profiling.h>
#include <event/stop.h>
#include <mux/h1.h>
#include <conn/pp_recv.h>
#include <ssl/ssl.h>
#include <proxy/proxy-t.h>
#include <stats/counters.h>

enum front_state {
	FC_IDLE = 0,  /* waiting for a request, no stream */
	FC_STREAM,    /* a stream owns the connection */
	FC_DRAINING,  /* closing: output flushed then write side shut, input discarded */
	FC_HANDSHAKE, /* TLS handshake in progress (ssl/ssl_sock.c owns the events) */
	FC_PROXY,     /* waiting for the PROXY header (accept-proxy, expect-proxy) */
};

#define DRAIN_TIMEOUT_MS 1000 /* lingering after our FIN when no client-fin is set */
#define STOP_QUIET_MS 1000    /* graceful stop: idle connections quiet this long close */

static const struct h1_stream_ops *stream_ops;

static void front_pp_process(struct conn *c);

/* Front connections waiting for a request, closed at once by a graceful stop. */
static __thread struct list idle_fronts = { NULL, NULL };

static void front_set_idle(struct conn *c)
{
	c->front_state = FC_IDLE;
	if (!idle_fronts.next)
		list_init(&idle_fronts);
	list_append(&idle_fronts, &c->idle);
}

static void front_set_busy(struct conn *c, uint32_t state)
{
	c->front_state = state;
	list_delete(&c->idle);
}

void h1_register_stream_ops(const struct h1_stream_ops *ops)
{
	stream_ops = ops;
}

const struct h1_stream_ops *h1_stream_ops_get(void)
{
	return stream_ops;
}

static void front_close(struct conn *c)
{
	struct listener *li = c->li;

	conn_close(c);
	HA_ATOMIC_DEC(&th_ctx->sh.load);
	listener_release(li);
}

/* A connection that closed or timed out before sending its first byte: HAProxy counts it
 * as an invalid request of the frontend, answered 400 or 408. */
static void front_count_probe(struct conn *c)
{
	if (unlikely(c->stk))
		conn_sess_ops->probe(c);
	CNT_INC(c->px->fe_cnt, cum_req);
	freq_ctr_inc(&c->px->req_rate, now_ms());
	CNT_INC(c->px->fe_cnt, failed_req);
	CNT_INC(c->px->fe_cnt, rsp[4]);
}

/* A new connection closed or timed out before its first byte (<timeout>): as HAProxy
 * does, a stream without a request answers it (nothing on a close, 408 on a timeout),
 * counts it and, where the frontend logs, logs it ("CR"/"cR", "<BADREQ>"). Its dates and
 * timers start at the accept (the stream sees an empty buffer). */
static void front_probe_stream(struct conn *c, bool timeout)
{
	if (c->px->options & PR_O_IGN_PROBES) {
		front_close(c); /* option http-ignore-probes */
		return;
	}
	front_set_busy(c, FC_STREAM);
	if (stream_ops->start(c) < 0) {
		front_count_probe(c);
		front_close(c);
		return;
	}
	if (timeout && c->front_state == FC_STREAM && c->strm)
		stream_ops->timeout(c->strm, c);
}

/* Idle keep-alive (or new) connection: wait for the first request byte. */
static void front_idle_process(struct conn *c)
{
	if (c->ibuf.data || conn_recv(c) > 0) {
		front_set_busy(c, FC_STREAM);
		if (stream_ops->start(c) < 0)
			front_close(c);
		return;
	}
	if (c->flags & (CO_FL_RD_EOF | CO_FL_ERROR)) {
		if (c->nb_req) /* an idle keep-alive connection: nothing was expected */
			front_close(c);
		else if (unlikely(c->px->strm_log != NULL || (c->px->options & PR_O_IGN_PROBES)))
			front_probe_stream(c, false);
		else {
			front_count_probe(c);
			front_close(c);
		}
	}
}

static void front_drain_process(struct conn *c)
{
	if (c->obuf.data) {
		if (conn_flush(c) < 0) {
			front_close(c);
			return;
		}
		if (c->obuf.data)
			return;
		conn_shutw(c);
	}
	while (conn_recv(c) > 0)
		b_del(&c->ibuf, c->ibuf.data);
	if (c->flags & (CO_FL_RD_EOF | CO_FL_ERROR | CO_FL_HUP))
		front_close(c);
}

static void front_iocb(struct fd_handler *h, uint32_t events)
{
	struct conn *c = container_of(h, struct conn, h);

	if (c->flags & CO_FL_CLOSED)
		return;
	conn_update_events(c, events);
	switch (c->front_state) {
	case FC_STREAM:
		stream_ops->wake(c->strm);
		break;
	case FC_IDLE:
		front_idle_process(c);
		break;
	case FC_PROXY:
		front_pp_process(c);
		break;
	default:
		front_drain_process(c);
		break;
	}
}

static void front_tasklet(struct tasklet *tl)
{
	struct conn *c = container_of(tl, struct conn, tl);

	if (c->front_state == FC_IDLE)
		front_idle_process(c);
}

static void front_timeout(struct timer *t)
{
	struct conn *c = container_of(t, struct conn, tmr);

	if (c->front_state == FC_STREAM) {
		stream_ops->timeout(c->strm, c);
		return;
	}
	if (c->front_state == FC_IDLE && !c->nb_req) {
		front_probe_stream(c, true); /* 408 */
		return;
	}
	if (c->front_state == FC_PROXY) {
		h1_front_tls_failed(c, "Timeout while waiting for PROXY protocol header");
		return;
	}
	front_close(c); /* idle keep-alive, or drain period over */
}

/* Deadline of an idle front connection: http-keep-alive after a request, else
 * http-request, else client. */
static uint64_t front_idle_deadline(struct conn *c)
{
	const struct proxy_timeouts *to = &c->px->timeout;
	int ms = to->http_request ? to->http_request : to->client;

	if (c->nb_req && to->http_keep_alive)
		ms = to->http_keep_alive;
	return tick_add(ms);
}

static int front_accept_slow(struct conn *c);

int h1_front_accept(struct listener *li, int fd, const struct sockaddr_storage *peer)
{
	struct conn *c;

	/* TCP_NODELAY on client sockets, as HAProxy 2.6 sets it: a response whose body
	 * arrives from the server after its headers leaves in two sends, and with Nagle the
	 * second waited for the client's delayed ACK (40 ms per such response). */
	c = conn_new(fd, front_iocb, front_timeout);
	if (!c)
		return -1;
	if (peer->ss_family != AF_UNIX) {
		int one = 1;

		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	c->flags |= CO_FL_CAN_SEND;
	c->li = li;
	c->px = li->bind->px;
	c->peer = *peer;
	c->last_act = now_ms(); /* its first request is on its way */
	c->idle_start = c->last_act;
	HA_OWNER_INC(&activity[tid].conns_served);
	if (unlikely(li->bind->ssl || li->bind->accept_proxy || c->px->mode != PR_MODE_HTTP))
		return front_accept_slow(c);
	front_set_idle(c);
	c->tl.process = front_tasklet;
	timer_set(&c->tmr, front_idle_deadline(c));
	if (unlikely(conn_sess_ops) && conn_sess_ops->accept(c) < 0)
		front_close(c); /* refused by a tcp-request connection or session rule */
	return 0;
}

/* The handshakes are over (none, PROXY header, TLS): the session rules run, then a mode
 * tcp connection starts its stream at once, an HTTP one waits for its first request. */
static void front_session_start(struct conn *c)
{
	if (unlikely(conn_sess_ops) && conn_sess_ops->accept_sess(c) < 0) {
		front_close(c); /* refused by a tcp-request session rule */
		return;
	}
	c->last_act = now_ms();
	c->tl.process = front_tasklet;
	if (c->px->mode != PR_MODE_HTTP) {
		/* the client may have spoken already: its rules see it (as HAProxy reads
		 * before they run); a read finding nothing clears it */
		c->flags |= CO_FL_CAN_RECV;
		front_set_busy(c, FC_STREAM);
		if (stream_ops->start_tcp(c) < 0)
			front_close(c);
		return;
	}
	front_set_idle(c);
	timer_set(&c->tmr, front_idle_deadline(c));
	front_idle_process(c);
}

/* The PROXY header is in (or none was expected): the TLS handshake, else the session. */
static void front_after_proxy(struct conn *c)
{
	const struct proxy_timeouts *to = &c->px->timeout;

	if (!(c->flags & CO_FL_XPRT)) {
		front_session_start(c);
		return;
	}
	c->front_state = FC_HANDSHAKE;
	timer_set(&c->tmr, tick_add(to->client_hs ? to->client_hs : to->client));
	ssl_front_kick(c);
}

/* Waits for the PROXY header: once read, its addresses are the connection's. */
static void front_pp_process(struct conn *c)
{
	const char *why = NULL;
	int ret = pp_recv(c, &why);

	if (ret > 0) {
		front_after_proxy(c);
		return;
	}
	if (ret < 0 || (c->flags & (CO_FL_RD_EOF | CO_FL_ERROR | CO_FL_HUP)))
		h1_front_tls_failed(c, why ? why
					   : "Connection closed while waiting for PROXY "
					     "protocol header");
}

/* A TLS connection, a PROXY header to wait for, or a mode tcp frontend, as HAProxy: the
 * TLS layer is attached (ssl_fc is true in the connection rules), the connection rules
 * run at once (they may ask for a PROXY header: expect-proxy), then the PROXY header,
 * then the TLS handshake, each under "timeout client-hs" if set, else "timeout client";
 * then the session rules and the stream (front_session_start). */
static int front_accept_slow(struct conn *c)
{
	const struct proxy_timeouts *to = &c->px->timeout;
	struct bind_conf *bc = c->li->bind;

	if ((bc->ssl && ssl_front_attach(c, bc->ssl) < 0) ||
	    (unlikely(conn_sess_ops) && conn_sess_ops->accept_conn(c) < 0)) {
		front_close(c);
		return 0;
	}
	if (!bc->accept_proxy && !(c->flags & CO_FL_PP_WAIT)) {
		front_after_proxy(c);
		return 0;
	}
	c->front_state = FC_PROXY;
	c->tl.process = NULL;
	timer_set(&c->tmr, tick_add(to->client_hs ? to->client_hs : to->client));
	front_pp_process(c);
	return 0;
}

void h1_front_tls_ready(struct conn *c)
{
	c->h.iocb = front_iocb;
	c->tmr.cb = front_timeout;
	front_session_start(c);
}

void (*h1_conn_err_log)(struct conn *c, const char *why);

void h1_front_tls_failed(struct conn *c, const char *why)
{
	if (h1_conn_err_log)
		h1_conn_err_log(c, why);
	front_close(c);
}

void h1_front_end_stream(struct conn *c, bool keep_alive)
{
	c->strm = NULL;
	c->nb_req++;
	if (!keep_alive) {
		h1_front_close_gracefully(c);
		return;
	}
	front_set_idle(c);
	c->idle_start = now_ms();
	b_release_if_empty(&c->ibuf);
	timer_set(&c->tmr, front_idle_deadline(c));
	if (c->ibuf.data || (c->flags & (CO_FL_CAN_RECV | CO_FL_RD_EOF)))
		tasklet_wakeup(&c->tl); /* pipelined request, or bytes signalled meanwhile */
}

void h1_front_close_gracefully(struct conn *c)
{
	c->strm = NULL;
	front_set_busy(c, FC_DRAINING);
	c->tl.process = NULL;
	tasklet_cancel(&c->tl);
	b_del(&c->ibuf, c->ibuf.data);
	/* the client-side half-closed phase: "timeout client-fin" when set */
	timer_set(&c->tmr, tick_add(c->px->timeout.client_fin ? c->px->timeout.client_fin
							      : DRAIN_TIMEOUT_MS));
	if (!c->obuf.data)
		conn_shutw(c);
	front_drain_process(c);
}

/* A client may send its next request on a keep-alive connection at the moment we close
 * it, and then sees the close instead of a response. On a graceful stop (a reload), an
 * idle connection is therefore closed only once it has been quiet for STOP_QUIET_MS: a
 * client busy on it sends its next request before that, gets its response with
 * "Connection: close" and reconnects to the new process. With "option
 * idle-close-on-response" it waits for that request however long it takes (bounded by its
 * keep-alive timeout and hard-stop-after). Returns how many stay open. */
int h1_front_close_idle(void)
{
	struct conn *c, *tmp;
	int left = 0;

	if (!idle_fronts.next)
		return 0;
	list_for_each_entry_safe(c, tmp, &idle_fronts, idle)
	{
		if ((c->flags & CO_FL_RD_EOF) ||
		    (!(c->px->options & PR_O_IDLE_CLOSE_RSP) &&
		     now_ms() - c->last_act >= STOP_QUIET_MS && stop_close_due((uintptr_t)c)))
			front_close(c);
		else
			left++;
	}
	return left;
}

void h1_release_all(void)
{
	while (!list_empty(&th_ctx->conns)) {
		/* closing a stream's front also closes its back, which may be the next
		 * element: take the head again every time */
		struct conn *c = list_elem(th_ctx->conns.next, struct conn, by_thread);

		if (c->flags & CO_FL_BACK) {
			if (c->strm)
				stream_ops->kill(c->strm);
			else
				conn_close(c);
			continue;
		}
		if (c->front_state == FC_STREAM && c->strm)
			stream_ops->kill(c->strm);
		front_close(c);
	}
	while (!list_empty(&th_ctx->tasklets))
		tasklets_run();
	loop_release_deferred();
}

/* names in "show profiling" (event/profiling.h) */
PROF_NAME(front_iocb, "h1_io_cb")
PROF_NAME(front_tasklet, "h1_front_tasklet")
PROF_NAME(front_timeout, "h1_timeout_task")
