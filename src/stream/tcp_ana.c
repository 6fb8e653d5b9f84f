/* Mode tcp streams: a stream starts as soon as its client connection is accepted (its
 * handshakes and session rules done), runs the tcp-request content rules (waiting for
 * data up to "tcp-request inspect-delay"), chooses the backend, runs the backend's content
 * rules, and connects through the common server assignment (queues, retries, redispatch).
 * Then the bytes flow both ways with one buffer per direction, the tcp-response content
 * rules look at the server's first bytes, and a half-close on one side is passed on to the
 * other. Nothing is ever answered by the proxy: an error closes the client connection.
 * Loop thread only.
 */
#include <sys/socket.h>
#include <backend/server-t.h>
#include <base/buf.h>
#include <base/freq_ctr.h>
#include <conn/connection.h>
#include <event/loop.h>
#include <mux/h1.h>
#include <proxy/proxy-t.h>
#include <stats/counters.h>
#include <proc/global-t.h>
#include <stream/action.h>
#include <stream/splice.h>
#include <stream/stktable_act.h>
#include <stream/stream.h>
#include <stream/tcp_ana.h>
#include <stream/tcp_rules.h>

/* True when the data of <f> cannot grow any more for the content rules: its buffer is
 * full up to the rewrite reserve (as HAProxy's channel_full) or the peer closed or
 * failed. */
static bool tcp_req_complete(const struct conn *f)
{
	uint32_t full = global.tune_bufsize > global.tune_maxrewrite
				? global.tune_bufsize - global.tune_maxrewrite
				: global.tune_bufsize;

	return (f->flags & (CO_FL_RD_EOF | CO_FL_ERROR | CO_FL_RDHUP)) || f->ibuf.data >= full;
}

/* Reads what the client sent, as far as the buffer holds it (nothing is consumed before
 * the content rules are over). */
static void tcp_req_read(struct conn *f)
{
	while (conn_recv(f) > 0)
		;
}

/* Runs the content rules of <px> (the frontend's while s->be is NULL, then the backend's);
 * returns 1 when they are over, 0 with *ret set otherwise (waiting, or the stream gone). */
static int tcp_req_rules(struct stream *s, struct proxy *px, bool expired, int *ret)
{
	bool final = expired || !px->tcp_inspect_delay || tcp_req_complete(s->front);
	int r = tcp_req_content(s, px, final, ret);

	if (r == TCP_RULES_GONE)
		return 0;
	if (r == TCP_RULES_CONT) {
		timer_del(&s->tmr);
		s->tcp_next = NULL;
		return 1;
	}
	if (!s->tmr.expire) /* the first wait of this rule set */
		timer_set(&s->tmr, tick_add(px->tcp_inspect_delay));
	*ret = 0;
	return 0;
}

/* The frontend's content rules let the connection in: choose the backend, run its content
 * rules, assign a server and connect. */
static int tcp_to_backend(struct stream *s, bool expired)
{
	struct proxy *be;
	int ret;

	if (!s->be) {
		be = ana_choose_backend(s, ACT_F_TCP_REQ_CNT);
		if (!be) { /* no default_backend: closed, as HAProxy does */
			stream_set_term2(s, 'R', 'R');
			return stream_abort(s);
		}
		s->be = be;
		CNT_INC(be->be_cnt, cum_sess);
		freq_ctr_inc(&be->be_sess_rate, now_ms());
		if (be == s->fe || !tcp_px_has_req_content(be))
			return stream_connect_server(s);
		expired = false; /* the backend's own inspect-delay starts now */
	}
	if (!tcp_req_rules(s, s->be, expired, &ret))
		return ret;
	return stream_connect_server(s);
}

int tcp_inspect(struct stream *s, bool expired)
{
	int ret;

	tcp_req_read(s->front);
	if (!s->be && tcp_px_has_req_content(s->fe) && !tcp_req_rules(s, s->fe, expired, &ret))
		return ret;
	return tcp_to_backend(s, expired);
}

int tcp_stream_begin(struct stream *s)
{
	s->t_hdrs = s->req_start; /* %Th is 0: there are no headers */
	/* as 2.6 dates it: the wait for the handshakes (PROXY, TLS) shows in %Tw, %Tc is the
	 * connect alone (a real queue moves it on when the stream leaves it) */
	s->t_queue = now_ms();
	s->state = SS_TCP_INSPECT;
	HA_OWNER_INC(&activity[tid].streams);
	CNT_INC(s->fe->fe_cnt, cum_tcp);
	return 1;
}

int tcp_established(struct stream *s)
{
	struct conn *b = s->back;

	timer_set(&b->tmr, 0);
	b->nb_req++;
	s->flags |= SF_REQ_HDRS_SENT | SF_FRONT_CLOSE | SF_BACK_CLOSE;
	h1_xfer_init(&s->reqx, XFER_TUNNEL, 0);
	h1_xfer_init(&s->rspx, XFER_TUNNEL, 0);
	s->t_conn = b->last_act = now_ms(); /* %Tc */
	s->t_rsp = s->t_conn;
	if (!tcp_px_has_res_content(s->be))
		s->flags |= SF_TCP_RSP_DONE;
	s->state = SS_TCP_FWD;
	return 1;
}

/* The tcp-response content rules on the server's first bytes; returns 1 when they are
 * over (or still waiting: the request side goes on), or the stream's end. */
static int tcp_rsp_rules(struct stream *s, bool expired)
{
	struct conn *b = s->back;
	bool final;
	int ret, r;

	tcp_req_read(b);
	final = expired || !s->be->tcp_res_inspect_delay || tcp_req_complete(b);
	r = tcp_res_content_step(s, final, &ret);
	if (r == TCP_RULES_GONE)
		return ret;
	if (r == TCP_RULES_CONT) {
		s->flags |= SF_TCP_RSP_DONE;
		timer_del(&s->tmr);
		return 1;
	}
	if (!s->tmr.expire)
		timer_set(&s->tmr, tick_add(s->be->tcp_res_inspect_delay));
	return 1;
}

/* The server side ended the stream; <failed> (an error, a reset, not a timeout): an
 * aborted response too (eresp), as 2.6 counts it. */
static int tcp_srv_abort(struct stream *s, bool failed)
{
	stream_set_term2(s, failed ? 'S' : 's', 'D');
	CNT_INC(s->be->be_cnt, srv_aborts);
	if (failed)
		CNT_INC(s->be->be_cnt, failed_resp);
	if (s->srv) {
		CNT_INC(s->srv->cnt, srv_aborts);
		if (failed)
			CNT_INC(s->srv->cnt, failed_resp);
	}
	return stream_abort(s);
}

/* A side failed (an error, a reset): who ended it, counted as HAProxy counts aborts. */
static int tcp_side_failed(struct stream *s, bool server)
{
	if (server)
		return tcp_srv_abort(s, true);
	stream_set_term2(s, 'C', 'D');
	return stream_cli_abort(s);
}

/* Whether the bytes from <src> to <dst> of direction <dir> (0: request, 1: response) go
 * through a pipe now: asked for that direction (or splice-auto once it carried more than
 * a buffer), no TLS, and nothing left in the buffers (a pipe with bytes goes on). */
static bool tcp_splice_now(const struct stream *s, int dir, const struct conn *src,
			   const struct conn *dst)
{
	uint32_t opts = s->fe->options | s->be->options;
	uint32_t want = dir ? PR_O_SPLICE_RSP : PR_O_SPLICE_REQ;

	if (s->pipe[dir])
		return true;
	if (likely(!(opts & (want | PR_O_SPLICE_AUTO))) || global.nosplice || src->ibuf.data ||
	    dst->obuf.data || ((src->flags | dst->flags) & CO_FL_XPRT))
		return false;
	return (opts & want) ||
	       (dir ? s->front->bytes_out : s->front->bytes_in) > global.tune_bufsize;
}

/* One direction: through a pipe or the source's buffer. Returns like h1_xfer(). */
static int tcp_xfer(struct stream *s, int dir, struct conn *src, struct conn *dst,
		    struct h1_xfer *x)
{
	if (unlikely(tcp_splice_now(s, dir, src, dst))) {
		int ret = splice_xfer(src, dst, &s->pipe[dir], x);

		if (ret != -3)
			return ret;
		/* no pipe to be had: the buffer carries it */
	}
	return h1_xfer(src, dst, x);
}

int tcp_forward(struct stream *s)
{
	struct conn *f = s->front, *b = s->back;
	int progress = 0, ret;

	if (unlikely(b->obuf.data) && conn_flush(b) < 0) /* a PROXY header, if nothing else */
		return tcp_side_failed(s, true);
	if (unlikely(!(s->flags & SF_TCP_RSP_DONE))) {
		ret = tcp_rsp_rules(s, false);
		if (ret < 0)
			return ret;
	}
	if (unlikely(s->flags & SF_TCP_SRV_CLOSE)) {
		/* tcp-response content close: nothing more from the server (its bytes read
		 * already go on, then the client gets our FIN), nothing more to it */
		s->flags &= ~SF_TCP_SRV_CLOSE;
		shutdown(b->h.fd, SHUT_RD);
		b->flags |= CO_FL_CAN_RECV; /* the next read sees the end */
		s->reqx.done = 1;
		b->obuf.data = 0;
	}
	if (!s->reqx.done) {
		ret = tcp_xfer(s, 0, f, b, &s->reqx);
		if (ret == XFER_ERR_DST)
			return tcp_side_failed(s, true);
		if (ret < 0 || (f->flags & CO_FL_ERROR))
			return tcp_side_failed(s, false);
		progress |= ret;
	}
	if (s->reqx.done && !b->obuf.data)
		conn_shutw(b); /* the client's FIN goes on to the server (once) */
	if (!s->rspx.done && (s->flags & SF_TCP_RSP_DONE)) {
		ret = tcp_xfer(s, 1, b, f, &s->rspx);
		if (ret == XFER_ERR_DST)
			return tcp_side_failed(s, false);
		if (ret < 0 || (b->flags & CO_FL_ERROR))
			return tcp_side_failed(s, true);
		progress |= ret;
	}
	if (s->rspx.done && !f->obuf.data)
		conn_shutw(f); /* the server's FIN goes on to the client (once) */
	if (s->reqx.done && s->rspx.done && !b->obuf.data && !f->obuf.data)
		return stream_end_tcp(s);
	return progress;
}

void tcp_set_timers(struct stream *s)
{
	const struct proxy_timeouts *fto = &s->fe->timeout, *bto = &s->be->timeout;
	struct conn *f = s->front, *b = s->back;
	uint64_t last = MAX(f->last_act, b->last_act);
	/* as HAProxy: "timeout tunnel" (the backend's) supersedes both sides' timeouts */
	int tms = s->tunnel_timeout ? s->tunnel_timeout : bto->tunnel;
	int fms = tms ? tms : s->cli_timeout ? s->cli_timeout : fto->client;
	int bms = tms ? tms : s->srv_timeout ? s->srv_timeout : bto->server;
	/* a side is given its timeout while we wait on it, not while its bytes are stuck
	 * because the other side does not take them (as 2.6 stops a full channel's read
	 * timeout): a slow reader is blamed for it */
	bool req_stuck =
		(f->ibuf.data || splice_pending(s->pipe[0])) && !(b->flags & CO_FL_CAN_SEND);
	bool rsp_stuck =
		(b->ibuf.data || splice_pending(s->pipe[1])) && !(f->flags & CO_FL_CAN_SEND);
	bool wait_cli = !req_stuck || rsp_stuck;
	bool wait_srv = !rsp_stuck || req_stuck;

	if ((f->flags & CO_FL_WR_SHUT) && fto->client_fin)
		fms = fto->client_fin;
	if ((b->flags & CO_FL_WR_SHUT) && bto->server_fin)
		bms = bto->server_fin;
	timer_set(&f->tmr, wait_cli && fms > 0 ? last + (uint64_t)fms : 0);
	timer_set(&b->tmr, wait_srv && bms > 0 ? last + (uint64_t)bms : 0);
}

int tcp_timeout(struct stream *s, struct conn *c)
{
	if (s->state == SS_TCP_INSPECT) {
		if (c) { /* "timeout client" while the rules wait: the client gave nothing */
			stream_set_term2(s, 'c', 'R');
			return stream_cli_abort(s);
		}
		return tcp_inspect(s, true);
	}
	if (!c) /* the tcp-response inspect-delay is over */
		return tcp_rsp_rules(s, true);
	if (c == s->back)
		return tcp_srv_abort(s, false);
	stream_set_term2(s, 'c', 'D');
	return stream_cli_abort(s);
}
