/* Streams: creation when a request starts, the state machine that moves an exchange from
 * request headers to server assignment, connect (with retries and redispatch), exchange,
 * local replies and tunnels, the deadlines of each state, and the end of the exchange
 * (keep-alive or close on each side). Loop thread only.
 */
#include <string.h>
#include <backend/backend.h>
#include <backend/be_transp.h>
#include <backend/server.h>
#include <base/buf.h>
#include <base/pool.h>
#include <conn/conn_addr.h>
#include <conn/connection.h>
#include <base/freq_ctr.h>
#include <event/loop.h>
#include <event/profiling.h>
#include <event/stop.h>
#include <http/h1.h>
#include <http/status.h>
#include <mux/h1.h>
#include <proc/global-t.h>
#include <proxy/proxy.h>
#include <stats/counters.h>
#include <sample/vars.h>
#include <ssl/ssl.h>
#include <stream/action.h>
#include <stream/cookie.h>
#include <stream/http_capture.h>
#include <stream/http_err.h>
#include <stream/http_reply.h>
#include <stream/filter.h>
#include <stream/l7_body.h>
#include <stream/persist.h>
#include <stream/pp_send.h>
#include <stream/service.h>
#include <stream/splice.h>
#include <stream/stktable_act.h>
#include <stream/tcp_ana.h>
#include <stream/tcp_rules.h>
#include <dns/dns_req.h>
#include <stream/stream.h>
#include <dns/dns_addr.h>

#define TURNAROUND_MAX_MS 1000

DECLARE_POOL(pool_stream, "stream", sizeof(struct stream))
static uint16_t stream_hdr_cap;

static void stream_process(struct stream *s);

void (*stream_log_hook)(struct stream *s, int ev);

void stream_log_event(struct stream *s, int ev)
{
	stream_log_hook(s, ev);
}

void stream_set_term(struct stream *s, char who)
{
	char ph;

	switch (s->state) {
	case SS_QUEUED:
		ph = 'Q';
		break;
	case SS_CONNECTING:
	case SS_TURNAROUND:
		ph = 'C';
		break;
	case SS_EXCHANGE:
		ph = (s->flags & SF_RSP_HDRS_SENT) ? 'D' : 'H';
		break;
	case SS_TUNNEL:
	case SS_TCP_FWD:
		ph = 'D';
		break;
	case SS_LOCAL_REPLY:
	case SS_CLOSING:
		ph = 'L';
		break;
	default:
		ph = 'R';
		break;
	}
	stream_set_term2(s, who, ph);
}

/* stream_count_times' slow path: the queue and connect times of an exchange that was
 * queued or opened a connection (the log's %Tw and %Tc), and the maxima. */
static __attribute__((noinline)) void stream_count_times_slow(struct stream *s,
							      struct be_counters *c, uint64_t r,
							      uint64_t t)
{
	uint64_t left = s->t_hdrs;

	if (s->t_queue) {
		stat_time_add_max(c, STAT_T_QUEUE, s->t_queue - left);
		left = s->t_queue;
	}
	if (!(s->flags & SF_REUSED_CONN))
		stat_time_add_max(c, STAT_T_CONNECT, s->t_conn - left);
	stat_time_raise(c, r, t);
}

/* Records the timings HAProxy's stats average (qtime, ctime, rtime, ttime) of an exchange
 * that got its server's response in the server's block <c> (its responses count them):
 * %Tw and %Tc when it waited in a queue or opened a connection (0 otherwise: a reused
 * connection is ready at once, as in HAProxy), %Tr, and %Tt up to the last byte sent to
 * the client (the end of the exchange but for one the client did not take to its end).
 * <f> is its front connection. */
static void stream_count_times(struct stream *s, const struct conn *f, struct be_counters *c)
{
	uint64_t r = s->t_rsp - s->t_conn, t = f->last_act - f->idle_start;

	stat_time_add(c, r, t);
	if (unlikely((s->flags & SF_T_SLOW) || stat_time_new_max(c, r, t)))
		stream_count_times_slow(s, c, r, t);
}

/* Adds the end of the exchange to the counters: the final status (none: "other") of a
 * counted request to the frontend and to the backend it chose; the client's bytes to the
 * frontend, the backend (a listen's own before it chose itself) and the last server. */
static void stream_count(struct stream *s)
{
	struct conn *f = s->front;
	uint64_t in = f->bytes_in, out = f->bytes_out;
	struct fe_counters *fc = CNT_GRP(s->fe->fe_cnt);
	struct be_counters *bc = NULL, *sc = NULL;
	int cls = status_class(s->status);

	stream_req_consume(s);
	if (s->be)
		bc = CNT_GRP(s->be->be_cnt);
	if (s->flags & SF_REQ_COUNTED) {
		HA_COUNTER_INC(&fc->rsp[cls]);
		if (bc)
			HA_COUNTER_INC(&bc->rsp[cls]);
	}
	if (!bc && (s->fe->cap & PR_CAP_BE))
		bc = CNT_GRP(s->fe->be_cnt);
	HA_COUNTER_ADD(&fc->bytes_in, in);
	HA_COUNTER_ADD(&fc->bytes_out, out);
	if (bc) {
		HA_COUNTER_ADD(&bc->bytes_in, in);
		HA_COUNTER_ADD(&bc->bytes_out, out);
	}
	if (s->srv) {
		sc = CNT_GRP(s->srv->cnt);
		HA_COUNTER_ADD(&sc->bytes_in, in);
		HA_COUNTER_ADD(&sc->bytes_out, out);
	}
	if (unlikely(stk_tracking(s)))
		stk_count_bytes(s, in, out);
	f->bytes_in = f->bytes_out = 0; /* the back side's are not counted: HAProxy's rows
					 * all count the client's bytes */
	if (likely(sc && s->t_rsp)) /* HAProxy samples the exchanges that got a response;
				     * last, so that its slow path is a tail call */
		stream_count_times(s, f, sc);
}

/* Counts a request that failed before its analysis (invalid, incomplete, timed out) in
 * the frontend's request errors, and in its requests once. */
static void stream_count_bad_req(struct stream *s)
{
	if (!(s->flags & SF_REQ_COUNTED)) {
		s->flags |= SF_REQ_COUNTED;
		CNT_INC(s->fe->fe_cnt, cum_req);
		freq_ctr_inc(&s->fe->req_rate, now_ms());
		if (unlikely(stk_tracking(s)))
			stk_count_http(s, STK_DT_HTTP_REQ_CNT);
	}
	CNT_INC(s->fe->fe_cnt, failed_req);
	if (unlikely(stk_tracking(s)))
		stk_count_http(s, STK_DT_HTTP_ERR_CNT);
}

/* The server's response was invalid, empty, timed out, or aborted: eresp. */
static void stream_count_bad_resp(struct stream *s)
{
	CNT_INC(s->be->be_cnt, failed_resp);
	if (s->srv)
		CNT_INC(s->srv->cnt, failed_resp);
}

/* The request got no connection: retries exhausted on <srv>, or no server at all. */
static void stream_count_conn_failed(struct stream *s, struct server *srv)
{
	CNT_INC(s->be->be_cnt, failed_conns);
	if (srv)
		CNT_INC(srv->cnt, failed_conns);
}

void (*stream_hlua_free)(struct stream *s);

static void stream_free(struct stream *s)
{
	timer_del(&s->tmr);
	if (unlikely(s->caps != NULL))
		http_capture_free(s);
	if (unlikely(s->stk))
		stk_stream_release(s);
	if (unlikely(s->dreq)) /* a do-resolve left waiting (client gone) */
		dns_req_release(s->dreq);
	/* one test on the plain path for what only some streams have */
	if (unlikely(((uintptr_t)s->svc | (uintptr_t)s->hlua | (uintptr_t)s->flt) != 0)) {
		if (s->svc) /* a service aborted before its end */
			service_release(s);
		if (s->hlua)
			stream_hlua_free(s);
		if (s->flt)
			flt_stream_free(s);
	}
	if (unlikely(!b_is_null(&s->rw)))
		b_release(&s->rw);
	if (unlikely(s->vars_txn.head || s->vars_req.head || s->vars_res.head)) {
		vars_prune(&s->vars_txn);
		vars_prune(&s->vars_req);
		vars_prune(&s->vars_res);
	}
	/* a queued stream is only freed from its expiry or its wake-up, which both leave
	 * the queue state at Q_NONE: a wake-up in flight never finds freed memory */
	backend_unqueue(s);
	backend_release_slot(s);
	pool_free(&pool_stream, s);
}

/* Continues after a step returned <ret> outside stream_process(). */
static void stream_continue(struct stream *s, int ret)
{
	if (ret >= 0)
		stream_process(s);
}

/* Closes the back connection of <s>, if any, without keeping it. */
static void stream_drop_back(struct stream *s)
{
	if (!s->back)
		return;
	s->back->strm = NULL;
	conn_close(s->back);
	s->back = NULL;
}

/* Ends the exchange: parks or closes the back connection, frees the stream, and lets the
 * front side wait for the next request or close. Returns -1 (stream gone). */
static int stream_end(struct stream *s)
{
	struct conn *f = s->front, *b = s->back;
	uint32_t both = SF_REQ_DONE | SF_RSP_DONE;
	bool kal = !(s->flags & SF_FRONT_CLOSE) && (s->flags & SF_REQ_DONE) &&
		   !(f->flags & (CO_FL_RD_EOF | CO_FL_ERROR | CO_FL_WR_ERR)) &&
		   !(th_ctx->stopping && stop_close_due((uintptr_t)f));

	if (unlikely(s->fe->strm_log != NULL)) /* before stream_count takes the bytes */
		stream_log_event(s, STRM_LOG_EV_END);
	stream_count(s);
	if (b) {
		b->strm = NULL;
		s->back = NULL;
		if ((s->flags & SF_BACK_CLOSE) || (s->flags & both) != both)
			conn_close(b);
		else if (unlikely(s->be->http_reuse == PR_REUSE_NEVER))
			kal ? h1_back_park_private(b, f) : conn_close(b);
		else
			h1_back_park(b);
	}
	stream_free(s);
	h1_front_end_stream(f, kal);
	return -1;
}

int stream_end_tcp(struct stream *s)
{
	return stream_end(s);
}

int stream_abort(struct stream *s)
{
	struct conn *f = s->front;
	bool partial_rsp = s->flags & SF_RSP_HDRS_SENT;

	s->flags &= ~SF_L7_RETRY; /* the kept request goes with the stream */
	if (unlikely(s->pipe[0] != NULL || s->pipe[1] != NULL)) { /* mode tcp splicing */
		splice_release(&s->pipe[0]);
		splice_release(&s->pipe[1]);
	}

	if (unlikely(s->fe->strm_log != NULL)) /* before stream_count takes the bytes */
		stream_log_event(s, STRM_LOG_EV_END);
	stream_count(s);
	stream_drop_back(s);
	stream_free(s);
	if (!partial_rsp) /* a started response goes out as far as it got, then the close */
		f->obuf.data = 0;
	h1_front_end_stream(f, false);
	return -1;
}

/* Connection header of a local reply, as HAProxy sets it: "close" when the client
 * connection ends with it (HTTP/1.0 clients included), "keep-alive" to a 1.0 client that
 * keeps it. A request that failed to parse (no header length) got the mux's raw page,
 * which goes as is. */
static void stream_reply_conn_hdr(struct stream *s)
{
	const char *v = (s->flags & SF_FRONT_CLOSE) ? "close" :
			!(s->req.flags & H1_MF_VER_11) ? "keep-alive" : NULL;
	struct buf *ob = &s->front->obuf, view;
	uint32_t skip = 0;

	if (!s->req.hdr_len || !v)
		return;
	/* 103 Early Hints still waiting ahead of the reply keep their header block */
	while (ob->data - skip > 12 && !memcmp(b_head(ob) + skip, "HTTP/1.1 1", 10)) {
		const char *e = memmem(b_head(ob) + skip, ob->data - skip, "\r\n\r\n", 4);

		if (!e)
			return;
		skip = (uint32_t)(e + 4 - b_head(ob));
	}
	if (b_room(ob) < 64)
		b_realign(ob); /* so that the view below never needs to move its data */
	view = *ob;
	view.head += skip;
	view.data -= skip;
	h1_reply_add_conn(&view, v);
	ob->data = skip + view.data;
}

/* The local reply state, without touching the reply (see stream_reply_local). */
static int stream_reply_enter(struct stream *s)
{
	s->flags &= ~SF_L7_RETRY; /* no retry after a reply of the proxy */
	if (unlikely(s->flags & SF_FLT_REQ)) /* the rest of the body is drained verbatim */
		flt_req_handover(s);
	stream_req_consume(s);
	stream_drop_back(s);
	backend_unqueue(s);
	backend_release_slot(s);
	timer_del(&s->tmr);
	if (!(s->flags & SF_REQ_HDRS_SENT) && s->req.hdr_len) {
		b_del(&s->front->ibuf, s->req.hdr_len);
		s->flags |= SF_REQ_HDRS_SENT;
	}
	if (s->reqx.done)
		s->flags |= SF_REQ_DONE;
	s->state = SS_LOCAL_REPLY;
	return 1;
}

int stream_reply_local(struct stream *s)
{
	stream_reply_enter(s);
	stream_reply_conn_hdr(s);
	return 1;
}

int stream_reply_start(struct stream *s)
{
	struct buf *ob = &s->front->obuf;

	if (!(s->flags & SF_EARLY_HINTS))
		ob->data = 0; /* 103 responses already written stay in front */
	if (b_get(ob) < 0)
		return -1;
	b_realign(ob);
	s->reply_off = ob->data;
	return (int)ob->data;
}

int stream_reply_finish(struct stream *s, int start, int status, bool raw)
{
	s->status = status;
	if (!raw && http_after_local(s, (uint32_t)start) < 0)
		return stream_abort(s);
	if (unlikely(s->svc != NULL) && service_filters(s, (uint32_t)start) < 0)
		return stream_abort(s);
	return stream_reply_local(s);
}

int stream_reply_done(struct stream *s)
{
	if (unlikely(s->svc != NULL) && s->svc->head_pending)
		return stream_reply_enter(s); /* service_step writes the head once known */
	return stream_reply_finish(s, (int)s->reply_off, s->status, false);
}

int stream_put_error_page(struct stream *s, int status, bool raw)
{
	const struct errorfile *ef = raw ? proxy_errorfile(s->be ? s->be : s->fe, status)
					 : http_error_find(s, status);
	struct buf *ob = &s->front->obuf;
	struct smp_ctx ctx;
	struct ist msg;

	if (ef && ef->reply && !raw) {
		act_smp_ctx(&ctx, s, s->be ? s->be : s->fe, ACT_F_HTTP_REQ);
		return http_reply_write(ob, ef->reply, s, &ctx);
	}
	if (ef && !ef->reply && !ef->msg.len)
		return 1; /* an empty errorfile: close without an answer */
	msg = ef && !ef->reply ? ef->msg : raw ? http_error_message_raw(status)
					       : http_error_message(status);
	return b_putblk(ob, msg.ptr, (uint32_t)msg.len);
}

static int stream_reply_page(struct stream *s, int status, bool close, bool raw)
{
	int start, ret;

	if (unlikely(s->fe->mode != PR_MODE_HTTP))
		return stream_abort(s); /* mode tcp: the client connection just closes */

	s->err_status = status;
	if (close || status == 400 || status == 408)
		s->flags |= SF_FRONT_CLOSE;
	start = stream_reply_start(s);
	if (start < 0)
		return stream_abort(s);
	ret = stream_put_error_page(s, status, raw);
	if (ret != 0)
		return stream_abort(s); /* empty errorfile, or no room */
	return stream_reply_finish(s, start, status, raw);
}

int stream_reply_http(struct stream *s, const struct http_reply *r, const struct smp_ctx *ctx)
{
	int start;

	if (r->type == HTTP_REPLY_ERRMSG && !r->errmsg)
		return stream_reply_error(s, r->status, false);
	if (s->flags & SF_RSP_HDRS_SENT)
		return stream_abort(s);
	if (s->back && !(s->flags & SF_REQ_DONE))
		s->flags |= SF_FRONT_CLOSE; /* the request body cannot be resynchronized */
	/* rendered before the server side goes: the reply may quote the response; its
	 * status is known to the format (%ST) */
	s->status = r->status;
	start = stream_reply_start(s);
	if (start < 0 || http_reply_write(&s->front->obuf, r, s, ctx) < 0) {
		stream_count_rewrite_failed(s);
		return stream_reply_error(s, 500, false);
	}
	return stream_reply_finish(s, start, r->status, false);
}

int stream_reply_error(struct stream *s, int status, bool close)
{
	return stream_reply_page(s, status, close, false);
}

int stream_reply_mux_error(struct stream *s, int status)
{
	stream_set_term(s, status == 408 ? 'c' : 'P');
	stream_count_bad_req(s);
	return stream_reply_page(s, status, true, true);
}

int stream_req_truncated(struct stream *s)
{
	stream_count_bad_req(s);
	stream_set_term(s, 'C');
	s->status = 400; /* what HAProxy answers, and counts, to a closed connection */
	return stream_abort(s);
}

int stream_cli_abort(struct stream *s)
{
	stream_set_term(s, 'C');
	if (s->be) {
		CNT_INC(s->be->be_cnt, cli_aborts);
		if (s->srv)
			CNT_INC(s->srv->cnt, cli_aborts);
	}
	return stream_abort(s);
}

/* The server stopped a response whose headers were forwarded; <failed> when it closed or
 * broke it (counted as a response error too), not when it just went silent. */
static int stream_srv_abort(struct stream *s, bool failed)
{
	stream_set_term(s, failed ? 'S' : 's');
	CNT_INC(s->be->be_cnt, srv_aborts);
	if (s->srv)
		CNT_INC(s->srv->cnt, srv_aborts);
	if (failed && s->srv && unlikely(s->srv->observe))
		srv_observe(s->srv, HANA_HTTP_READ_ERR);
	if (failed)
		stream_count_bad_resp(s);
	return stream_abort(s);
}

/* Drops the server side and answers <status>, or aborts if the response started. */
static int stream_server_reply(struct stream *s, int status)
{
	stream_drop_back(s);
	if (s->flags & SF_RSP_HDRS_SENT)
		return stream_abort(s); /* too late for an error page */
	if (!(s->flags & SF_REQ_DONE))
		s->flags |= SF_FRONT_CLOSE; /* the request body cannot be resynchronized */
	return stream_reply_error(s, status, false);
}

int stream_server_error(struct stream *s, int status)
{
	if (status >= 502 && status <= 504)
		stream_set_term(s, status == 504 ? 's' : 'S');
	if ((status == 502 || status == 504) && s->srv && unlikely(s->srv->observe))
		srv_observe(s->srv, status == 502 ? HANA_HTTP_RSP : HANA_HTTP_READ_TO);
	if (status == 502 || status == 504) {
		stream_count_bad_resp(s);
		if (unlikely(stk_tracking(s)))
			stk_count_http(s, STK_DT_HTTP_FAIL_CNT);
	}
	return stream_server_reply(s, status);
}

void stream_server_killed(struct stream *s)
{
	stream_continue(s, stream_server_error(s, 502));
}

void stream_shutdown(struct stream *s)
{
	stream_set_term(s, 'K');
	/* a wake-up from the queue in flight: the stream ends when it arrives */
	if (s->state == SS_QUEUED && backend_unqueue(s) == Q_WOKEN) {
		s->flags |= SF_CLI_GONE_Q;
		return;
	}
	switch (s->state) {
	case SS_QUEUED:
	case SS_CONNECTING:
	case SS_TURNAROUND:
	case SS_EXCHANGE:
		/* as 2.6: a 502 while the response has not started, else the cut */
		if (s->be) {
			stream_server_killed(s);
			return;
		}
		break;
	default:
		break;
	}
	stream_abort(s);
}

void stream_count_rewrite_failed(struct stream *s)
{
	CNT_INC(s->fe->fe_cnt, failed_rewrites);
	CNT_INC(s->fe->fe_cnt, internal_errors);
	if (s->be) {
		CNT_INC(s->be->be_cnt, failed_rewrites);
		CNT_INC(s->be->be_cnt, internal_errors);
	}
	if (s->srv) {
		CNT_INC(s->srv->cnt, failed_rewrites);
		CNT_INC(s->srv->cnt, internal_errors);
	}
}

int stream_rsp_denied(struct stream *s, int status)
{
	CNT_INC(s->fe->fe_cnt, denied_resp);
	CNT_INC(s->be->be_cnt, denied_resp);
	if (s->srv)
		CNT_INC(s->srv->cnt, denied_resp);
	return stream_server_reply(s, status);
}

/* Connection string for the request sent to the server. */
static const char *req_conn_hdr(const struct stream *s)
{
	if (s->req.flags & H1_MF_CONN_UPG)
		return "upgrade";
	if ((s->flags & SF_BACK_CLOSE) && !((s->fe->options | s->be->options) & PR_O_PRETEND_KA))
		return (s->req.flags & H1_MF_VER_11) ? "close" : NULL;
	return (s->req.flags & H1_MF_VER_11) ? NULL : "keep-alive";
}

void stream_req_consume(struct stream *s)
{
	if (!(s->flags & SF_REQ_KEPT))
		return;
	s->flags &= ~SF_REQ_KEPT;
	b_del(&s->front->ibuf, s->req.hdr_len + s->l7_body); /* l7_body: retry-on */
}

/* The back connection is usable: serialize the request headers into it. */
static int stream_established(struct stream *s)
{
	struct conn *f = s->front, *b = s->back;

	if (unlikely(s->be->rt_flags)) {
		if (s->be->rt_flags & PR_RT_TCP)
			return tcp_established(s);
		if (stream_route_request(s) < 0)
			return stream_server_error(s, 500);
	}
	timer_set(&b->tmr, 0);
	if (h1_write_request(&b->obuf, &s->req, req_conn_hdr(s)) < 0)
		return stream_server_error(s, 500);
	b->nb_req++;
	/* an idle connection may have been closed by its server just now: an idempotent
	 * request without body can then be sent again, so its headers are kept until a
	 * response head is accepted (retry-on keeps them the same way, SF_L7_RETRY) */
	if (((s->flags & SF_REUSED_CONN) && s->reqx.mode == XFER_NONE &&
	     ((s->req.flags & (H1_MF_METH_GET | H1_MF_METH_HEAD)) ||
	      h1_meth_idempotent(s->req.meth))) ||
	    (unlikely(s->flags & SF_L7_RETRY) && stream_l7_body_send(s)))
		s->flags |= SF_REQ_KEPT;
	else
		b_del(&f->ibuf, s->req.hdr_len);
	s->flags |= SF_REQ_HDRS_SENT;
	if (s->reqx.done)
		s->flags |= SF_REQ_DONE;
	s->t_conn = b->last_act = now_ms(); /* t_conn: the log's %Tc */
	s->state = SS_EXCHANGE;
	return 1;
}

/* The address of a server resolved at run time (SRV_F_RESOLVE: what DNS published last;
 * rt_addr: what "set server addr" published) and/or whose port follows the client's
 * (SRV_F_PORT_MAP): the port the client connected to plus the server's offset. False when
 * there is none in 1..65535 (a client on a unix socket, an offset out of range). */
static bool stream_mapped_addr(struct stream *s, struct sockaddr_storage *to)
{
	const struct dns_addr_pub *rt = HA_ATOMIC_LOAD(&s->srv->rt_addr); /* set server addr */
	const struct sockaddr *l = conn_local_addr(s->front);
	int port;

	if (unlikely(s->srv->flags & SRV_F_RESOLVE) || rt) { /* the address published last */
		if (!dns_addr_read(rt ? rt : &s->srv->dns->pub, to))
			return false;
		if (!(s->srv->flags & SRV_F_PORT_MAP))
			return true;
	} else {
		*to = s->srv->addr;
	}

	if (!l || (l->sa_family != AF_INET && l->sa_family != AF_INET6))
		return false;
	port = ntohs(l->sa_family == AF_INET ? ((const struct sockaddr_in *)l)->sin_port
					      : ((const struct sockaddr_in6 *)l)->sin6_port);
	port += s->srv->port_off;
	if (port < 1 || port > 65535)
		return false;
	if (to->ss_family == AF_INET)
		((struct sockaddr_in *)to)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)to)->sin6_port = htons((uint16_t)port);
	return true;
}

static int stream_try_connect(struct stream *s, bool allow_idle, uint32_t min_req)
{
	struct sockaddr_storage mapped, *to = NULL;
	struct conn *b;
	uint64_t key = 0;

	if (unlikely(s->srv->flags & (SRV_F_PORT_MAP | SRV_F_RESOLVE | SRV_F_REDIR | SRV_F_TRANSP |
				      SRV_F_SNI_KEY | SRV_F_SEND_PROXY)) ||
	    unlikely(HA_ATOMIC_LOAD_RLX(&s->srv->rt_addr) != NULL)) { /* "set server addr" */
		if (s->srv->flags & SRV_F_SNI_KEY) /* a connection serves one TLS server name */
			key = ssl_srv_reuse_key(s);
		if (s->srv->flags & SRV_F_SEND_PROXY) { /* and one PROXY header */
			uint64_t k = stream_pp_prepare(s);

			if (!k)
				return -2;
			key = key ? (key ^ k) | 2 : k;
		}
		if ((s->srv->flags & SRV_F_REDIR) &&
		    (s->req.flags & (H1_MF_METH_GET | H1_MF_METH_HEAD)))
			return stream_srv_redirect(s);
		if ((s->srv->flags & (SRV_F_PORT_MAP | SRV_F_RESOLVE)) ||
		    HA_ATOMIC_LOAD_RLX(&s->srv->rt_addr)) {
			if (!stream_mapped_addr(s, &mapped))
				return -2; /* no port to connect to: the caller retries, then 503 */
			to = &mapped;
		}
		if (s->srv->flags & SRV_F_TRANSP) { /* option transparent */
			if (!be_transp_addr(s->front, &mapped))
				return -2;
			to = &mapped;
		}
	}
	if (!allow_idle)
		b = NULL;
	else if (unlikely(s->be->http_reuse == PR_REUSE_NEVER))
		b = h1_back_take_private(s->front, s->srv, to, key);
	else
		b = h1_back_take_idle(s->srv, to, min_req, key);

	timer_del(&s->tmr); /* queue or turnaround deadline: over */
	if (b) {
		s->flags |= SF_REUSED_CONN;
		CNT_INC(s->srv->cnt, reuse);
	} else {
		s->flags = (s->flags & ~SF_REUSED_CONN) | SF_T_SLOW;
		CNT_INC(s->srv->cnt, connect);
		b = h1_back_connect(s->srv, to);
		if (!b)
			return -2; /* immediate failure: the caller retries */
		b->reuse_key = key;
		if (unlikely(s->srv->flags & SRV_F_SEND_PROXY) && stream_pp_queue(b) < 0) {
			conn_close(b);
			return -2;
		}
	}
	b->strm = s;
	s->back = b;
	if (b->flags & CO_FL_CONNECTING) {
		s->state = SS_CONNECTING;
		b->last_act = now_ms();
		timer_set(&b->tmr, tick_add(s->be->timeout.connect));
		return 0;
	}
	return stream_established(s);
}

static int stream_assign_and_connect(struct stream *s, struct server *avoid, bool front_q);

static int stream_conn_failed(struct stream *s);

bool stream_can_resend(const struct stream *s)
{
	return (s->flags & (SF_REQ_KEPT | SF_REUSED_CONN)) == (SF_REQ_KEPT | SF_REUSED_CONN) &&
	       s->back && !(s->back->flags & CO_FL_GOT_DATA);
}

int stream_resend(struct stream *s)
{
	int ret;

	if (s->srv) /* the reuse and this connect are one session of the server (stot) */
		CNT_INC(s->srv->cnt, resent);
	stream_drop_back(s);
	s->flags &= ~(SF_REQ_KEPT | SF_REQ_HDRS_SENT | SF_REQ_DONE | SF_REQ_ABORTED);
	ret = stream_try_connect(s, false, 0); /* a new connection, not another idle one */
	return ret == -2 ? stream_conn_failed(s) : ret;
}

/* option redispatch: this retry goes to another server (every Nth retry, or the last). */
static bool stream_redispatch_now(const struct stream *s)
{
	const struct proxy *be = s->be;

	return (be->options & PR_O_REDISP) &&
	       (be->redispatch_every > 0 ? (be->retries - s->conn_retries) % be->redispatch_every == 0
					 : s->conn_retries == 0);
}

/* A retry on the same server (<prev>, or none yet), counted in wretr as HAProxy does. */
static void stream_count_retry(struct stream *s, struct server *prev)
{
	s->retries++;
	CNT_INC(s->be->be_cnt, retries);
	if (prev)
		CNT_INC(prev->cnt, retries);
}

/* Leaves <prev> for another server chosen by the load balancer. */
static int stream_redispatch(struct stream *s, struct server *prev)
{
	backend_release_slot(s);
	s->srv = NULL;
	s->redisp = 1;
	return stream_assign_and_connect(s, prev, false);
}

/* A connection attempt failed: retry the same server after a pause, redispatch on the
 * last retry (option redispatch), or answer 503 when retries are exhausted. */
static int stream_conn_failed(struct stream *s)
{
	struct proxy *be = s->be;
	struct server *prev = s->srv;

	if (prev && unlikely(prev->observe))
		srv_observe(prev, HANA_L4_ERR);
	stream_drop_back(s);
	if (--s->conn_retries < 0 || unlikely(!(be->retry_on & PR_RE_CONN_FAILED))) {
		stream_count_conn_failed(s, prev);
		backend_release_slot(s);
		stream_set_term2(s, 'S', 'C');
		return stream_reply_error(s, 503, false);
	}
	if (stream_redispatch_now(s))
		return stream_redispatch(s, prev);
	stream_count_retry(s, prev);
	s->state = SS_TURNAROUND;
	{
		int ms = be->timeout.connect;

		if (!ms || ms > TURNAROUND_MAX_MS)
			ms = TURNAROUND_MAX_MS;
		timer_set(&s->tmr, tick_add(ms));
	}
	return 0;
}

/* The request may be sent again on a new connection if a reused one turns out closed:
 * no body, an idempotent method (stream_established keeps its headers for that). */
static bool stream_replayable(const struct stream *s)
{
	return s->reqx.mode == XFER_NONE && ((s->req.flags & (H1_MF_METH_GET | H1_MF_METH_HEAD)) ||
					     h1_meth_idempotent(s->req.meth));
}

static int stream_connect_now(struct stream *s)
{
	uint32_t min_req = 0;
	bool reuse;
	int ret;

	/* A reused connection may have been closed by its server just now. HAProxy's "safe"
	 * sends a client's first request on a connection of its own, so that only requests
	 * the client itself can retry are exposed; here a first request the proxy can replay
	 * by itself (stream_replayable) may take an idle connection too, which saves a
	 * connection per request in close mode. "aggressive" lets any first request take a
	 * connection that served two requests or more, "always" any; under "never" a
	 * client's server connection serves only its own requests, as in HAProxy. */
	switch (s->be->http_reuse) {
	case PR_REUSE_NEVER: /* only the client's own connection (stream_try_connect) */
		reuse = true;
		break;
	case PR_REUSE_AGGR:
		reuse = true;
		if (!s->front->nb_req && !stream_replayable(s))
			min_req = 2;
		break;
	case PR_REUSE_ALWAYS:
		reuse = true;
		break;
	default:
		reuse = s->front->nb_req > 0 || stream_replayable(s);
		break;
	}
	ret = stream_try_connect(s, reuse, min_req);
	return ret == -2 ? stream_conn_failed(s) : ret;
}

/* A redispatch from <prev> got <assign>: a retry when the LB chose <prev> again. */
static void stream_count_redispatch(struct stream *s, struct server *prev, int assign)
{
	if (assign < 0) /* no server, or a full maxqueue */
		return;
	if (assign == ASSIGN_OK && s->srv == prev) {
		CNT_INC(s->be->be_cnt, retries);
		CNT_INC(prev->cnt, retries);
	} else {
		CNT_INC(s->be->be_cnt, redispatches);
		CNT_INC(prev->cnt, redispatches);
	}
}

/* option prefer-last-server: the server of the private connection the client connection
 * keeps (http-reuse never), when it is still usable and has a free slot, as HAProxy does. */
static bool stream_take_last_server(struct stream *s)
{
	struct conn *priv = s->front->priv;
	struct server *srv = priv ? priv->srv : NULL;

	return srv && srv->px == s->be && srv_usable(srv, !!(srv->flags & SRV_F_BACKUP)) &&
	       backend_take_server(s, srv);
}

bool stream_l7_retry_on(const struct stream *s, uint32_t cause)
{
	return (s->flags & SF_L7_RETRY) && (s->be->retry_on & cause) && s->conn_retries > 0;
}

uint32_t stream_l7_status_cause(int status)
{
	static const struct {
		int status;
		uint32_t bit;
	} map[] = {
		{ 404, PR_RE_404 }, { 408, PR_RE_408 }, { 425, PR_RE_425 }, { 500, PR_RE_500 },
		{ 501, PR_RE_501 }, { 502, PR_RE_502 }, { 503, PR_RE_503 }, { 504, PR_RE_504 },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].status == status)
			return map[i].bit;
	return 0;
}

int stream_l7_retry(struct stream *s)
{
	struct server *prev = s->srv;
	int ret;

	s->conn_retries--;
	stream_drop_back(s); /* and whatever the server sent */
	s->flags &= ~(SF_REQ_KEPT | SF_L7_RETRY | SF_REQ_HDRS_SENT | SF_REQ_DONE | SF_REQ_ABORTED);
	/* as HAProxy 2.6 counts: the retry itself, then the new connection as a retry (same
	 * server) or a redispatch (another one), so wretr grows by 2 per same-server retry */
	stream_count_retry(s, prev);
	if (stream_redispatch_now(s))
		return stream_redispatch(s, prev);
	stream_count_retry(s, prev);
	ret = stream_try_connect(s, false, 0);
	return ret == -2 ? stream_conn_failed(s) : ret;
}

/* <avoid> is the server a redispatch leaves, NULL for a first assignment. */
static int stream_assign_and_connect(struct stream *s, struct server *avoid, bool front_q)
{
	if (unlikely(s->be->options & PR_O_PREF_LAST) && !avoid && !(s->flags & SF_HAS_SLOT))
		stream_take_last_server(s);
	if (!(s->flags & SF_HAS_SLOT)) {
		int ret = backend_assign(s, avoid, front_q);

		if (avoid)
			stream_count_redispatch(s, avoid, ret);
		if (ret == ASSIGN_NOSRV || ret == ASSIGN_FULL) { /* FULL: its server's maxqueue */
			stream_count_conn_failed(s, NULL);
			stream_set_term2(s, 'S', 'C');
			return stream_reply_error(s, 503, false);
		}
		if (ret == ASSIGN_QUEUED) {
			int ms = s->be->timeout.queue ? s->be->timeout.queue : s->be->timeout.connect;

			if (s->state != SS_QUEUED) /* a re-queue keeps the first deadline */
				timer_set(&s->tmr, tick_add(ms));
			s->state = SS_QUEUED;
			return 0;
		}
	}
	return stream_connect_now(s);
}

int stream_connect_server(struct stream *s)
{
	if (unlikely(s->be->rule_sets & PR_RS_PERSIST))
		persist_process(s);
	if (unlikely(s->be->ck))
		cookie_process_request(s);
	if (unlikely(stk_used) && !list_empty(&s->be->stick_rules))
		stk_process_sticking_rules(s);
	s->conn_retries = s->be->retries;
	return stream_assign_and_connect(s, NULL, false);
}

static int stream_connecting(struct stream *s)
{
	int ret = h1_back_check_connect(s->back);

	if (ret == 0)
		return 0;
	if (ret < 0)
		return stream_conn_failed(s);
	if (unlikely(s->srv->observe))
		srv_observe(s->srv, HANA_L4_OK);
	return stream_established(s);
}

/* The server stopped taking the request (it may have answered early, e.g. 413, and
 * closed): stop sending, keep reading its response; both sides close afterwards. */
static void stream_req_aborted(struct stream *s)
{
	s->flags |= SF_REQ_ABORTED | SF_FRONT_CLOSE | SF_BACK_CLOSE;
	s->back->obuf.data = 0;
}

/* Request body, response headers and body, in both directions as far as possible. */
static int stream_exchange(struct stream *s)
{
	struct conn *f = s->front, *b = s->back;
	int progress = 0, ret;
	unsigned int rf;

	if (!(s->flags & (SF_REQ_DONE | SF_REQ_ABORTED))) {
		ret = unlikely(s->flags & SF_FLT_REQ)
			      ? flt_xfer(s, FLT_REQ, f, b, &s->reqx)
			      : h1_xfer(f, b, &s->reqx);
		if (ret == XFER_ERR_FRAMING && !(s->flags & SF_RSP_HDRS_SENT)) {
			stream_drop_back(s);
			return stream_reply_mux_error(s, 400);
		}
		if (ret == XFER_ERR_SRC)
			return stream_cli_abort(s);
		if (ret == XFER_ERR_FRAMING)
			return stream_abort(s);
		if (ret == XFER_ERR_DST && stream_can_resend(s))
			return stream_resend(s);
		if (ret == XFER_ERR_DST)
			stream_req_aborted(s);
		else
			progress |= ret;
		if (s->reqx.done)
			s->flags |= SF_REQ_DONE;
	}
	if (b->obuf.data && !(s->flags & SF_REQ_ABORTED) && conn_flush(b) < 0) {
		if (stream_can_resend(s))
			return stream_resend(s);
		stream_req_aborted(s);
	}
	if (!(s->flags & SF_RSP_HDRS_SENT)) {
		ret = ana_wait_response(s);
		if (ret < 0)
			return ret;
		if (s->state != SS_EXCHANGE)
			return 1;
		progress |= ret;
	}
	/* a body the filters take is tested apart: the plain path's one test stays one (the
	 * second test repeats the first, so the compiler jumps straight to h1_xfer) */
	rf = s->flags & (SF_RSP_HDRS_SENT | SF_RSP_DONE | SF_FLT_RSP);
	if (rf == SF_RSP_HDRS_SENT || unlikely(rf == (SF_RSP_HDRS_SENT | SF_FLT_RSP))) {
		ret = likely(rf == SF_RSP_HDRS_SENT) ? h1_xfer(b, f, &s->rspx)
						     : flt_xfer(s, FLT_RSP, b, f, &s->rspx);
		if (ret == XFER_ERR_DST)
			return stream_cli_abort(s);
		if (ret < 0)
			return stream_srv_abort(s, true);
		progress |= ret;
		if (s->rspx.done)
			s->flags |= SF_RSP_DONE;
	}
	if (f->obuf.data && conn_flush(f) < 0)
		return stream_cli_abort(s);
	if ((s->flags & SF_RSP_DONE) && !f->obuf.data) {
		if (!(s->flags & SF_REQ_DONE))
			s->flags |= SF_FRONT_CLOSE | SF_BACK_CLOSE;
		return stream_end(s);
	}
	return progress;
}

static int stream_local(struct stream *s)
{
	struct conn *f = s->front;
	int ret;

	if (unlikely(s->svc != NULL) && (ret = service_step(s)) <= 0) /* its body first */
		return ret;
	if (s->flags & SF_FRONT_CLOSE)
		return stream_end(s); /* the graceful close flushes the reply */
	if (!(s->flags & SF_REQ_DONE)) {
		ret = h1_xfer(f, NULL, &s->reqx);
		if (ret < 0) {
			s->flags |= SF_FRONT_CLOSE;
			return stream_end(s);
		}
		if (s->reqx.done)
			s->flags |= SF_REQ_DONE;
	}
	if (f->obuf.data && conn_flush(f) < 0)
		return stream_abort(s);
	if (!f->obuf.data && (s->flags & SF_REQ_DONE))
		return stream_end(s);
	return 0;
}

static int stream_tunnel(struct stream *s)
{
	struct conn *f = s->front, *b = s->back;
	int progress = 0, ret;

	if (f->obuf.data && conn_flush(f) < 0)
		return stream_abort(s);
	if (!s->reqx.done) {
		ret = h1_xfer(f, b, &s->reqx);
		if (ret < 0)
			return stream_abort(s);
		progress |= ret;
		if (s->reqx.done)
			conn_shutw(b);
	}
	if (!s->rspx.done) {
		ret = h1_xfer(b, f, &s->rspx);
		if (ret < 0)
			return stream_abort(s);
		progress |= ret;
		if (s->rspx.done)
			conn_shutw(f);
	}
	if (s->reqx.done && s->rspx.done) {
		s->flags |= SF_FRONT_CLOSE | SF_BACK_CLOSE;
		return stream_end(s);
	}
	return progress;
}

static uint64_t deadline(uint64_t last, int ms)
{
	return ms > 0 ? last + (uint64_t)ms : 0;
}

/* Arms the deadlines of the state <s> waits in. */
static void stream_set_timers(struct stream *s)
{
	const struct proxy_timeouts *fto = &s->fe->timeout;
	const struct proxy_timeouts *bto = s->be ? &s->be->timeout : fto;
	struct conn *f = s->front, *b = s->back;

	switch (s->state) {
	case SS_REQ_HDRS:
	case SS_REQ_BODY_WAIT:
		timer_set(&f->tmr, fto->http_request ? deadline(s->req_start, fto->http_request)
						     : deadline(f->last_act, fto->client));
		break;
	case SS_EXCHANGE: {
		/* a side is only given its timeout while we wait on it: not while its data
		 * are stuck because the other side does not take them */
		bool req_open = !(s->flags & (SF_REQ_DONE | SF_REQ_ABORTED));
		bool req_stuck = req_open && b->obuf.data && !(b->flags & CO_FL_CAN_SEND);
		bool rsp_stuck = f->obuf.data || ((s->flags & SF_RSP_HDRS_SENT) &&
						  b->ibuf.data && !(f->flags & CO_FL_CAN_SEND));
		bool wait_cli = (req_open && !req_stuck) || rsp_stuck;
		bool wait_srv = (!(s->flags & SF_RSP_DONE) && !rsp_stuck) || req_stuck;
		uint64_t last = MAX(f->last_act, b->last_act);

		int cms = s->cli_timeout ? s->cli_timeout : fto->client;
		int sms = s->srv_timeout ? s->srv_timeout : bto->server;

		timer_set(&f->tmr, wait_cli ? deadline(last, cms) : 0);
		timer_set(&b->tmr, wait_srv ? deadline(last, sms) : 0);
		break;
	}
	case SS_LOCAL_REPLY: /* not while a service waits for itself rather than the client */
		timer_set(&f->tmr, unlikely(s->svc != NULL) && s->svc->busy && !f->obuf.data
					   ? 0
					   : deadline(f->last_act, fto->client));
		break;
	case SS_TUNNEL: {
		uint64_t last = MAX(f->last_act, b->last_act);
		int fms = fto->tunnel ? fto->tunnel : s->cli_timeout ? s->cli_timeout : fto->client;
		int bms = bto->tunnel ? bto->tunnel : s->srv_timeout ? s->srv_timeout : bto->server;

		if (s->tunnel_timeout) /* set-timeout tunnel */
			fms = bms = s->tunnel_timeout;

		if ((f->flags & CO_FL_WR_SHUT) && fto->client_fin)
			fms = fto->client_fin;
		if ((b->flags & CO_FL_WR_SHUT) && bto->server_fin)
			bms = bto->server_fin;
		timer_set(&f->tmr, deadline(last, fms));
		timer_set(&b->tmr, deadline(last, bms));
		break;
	}
	case SS_TCP_INSPECT: /* the client's timeout runs while the rules wait for data */
		timer_set(&f->tmr, deadline(f->last_act, fto->client));
		break;
	case SS_TCP_FWD:
		tcp_set_timers(s);
		break;
	default:
		/* QUEUED, TURNAROUND, CONNECTING: the stream's or the back connection's deadline
		 * was armed when entering the state; nothing is expected from the client */
		timer_set(&f->tmr, 0);
		break;
	}
}

/* option abortonclose: the client closed (or half-closed) its side while its request waits
 * for a server slot or a connection (dropped without an answer, as HAProxy does) or for the
 * response headers (HAProxy answers 400 then). Returns the step's result, 0 if nothing. */
static __attribute__((noinline)) int stream_check_cli_gone(struct stream *s)
{
	if (!s->be || !(s->be->options & PR_O_ABRT_CLOSE))
		return 0;
	switch (s->state) {
	case SS_QUEUED:
		if (backend_unqueue(s) == Q_WOKEN) {
			s->flags |= SF_CLI_GONE_Q; /* aborted when the wake-up arrives */
			return 0;
		}
		return stream_cli_abort(s);
	case SS_TURNAROUND:
	case SS_CONNECTING:
		return stream_cli_abort(s);
	case SS_EXCHANGE:
		if ((s->flags & (SF_REQ_DONE | SF_RSP_HDRS_SENT)) != SF_REQ_DONE)
			return 0;
		CNT_INC(s->be->be_cnt, cli_aborts);
		if (s->srv)
			CNT_INC(s->srv->cnt, cli_aborts);
		s->flags |= SF_FRONT_CLOSE;
		return stream_server_reply(s, 400);
	default:
		return 0;
	}
}

static void stream_process_run(struct stream *s)
{
	int ret;

	do {
		switch (s->state) {
		case SS_REQ_HDRS:
			ret = ana_wait_request(s);
			break;
		case SS_REQ_BODY_WAIT:
			ret = ana_wait_body(s);
			break;
		case SS_REQ_RULE_WAIT:
			ret = ana_req_rules(s);
			break;
		case SS_REQ_INSPECT:
			ret = ana_inspect(s, false);
			break;
		case SS_CONNECTING:
			ret = stream_connecting(s);
			break;
		case SS_EXCHANGE:
			ret = stream_exchange(s);
			break;
		case SS_LOCAL_REPLY:
			ret = stream_local(s);
			break;
		case SS_TUNNEL:
			ret = stream_tunnel(s);
			break;
		case SS_TCP_INSPECT:
			ret = tcp_inspect(s, false);
			break;
		case SS_TCP_FWD:
			ret = tcp_forward(s);
			break;
		default:
			ret = 0;
			break;
		}
		/* ret < 0: the stream is gone, never look at it again */
		if (ret == 0 &&
		    unlikely(s->front->flags & (CO_FL_RDHUP | CO_FL_RD_EOF | CO_FL_HUP | CO_FL_ERROR)))
			ret = stream_check_cli_gone(s);
	} while (ret > 0);
	if (ret == 0)
		stream_set_timers(s);
}

/* The stream's processing, measured under its own name ("process_stream") when the
 * thread profiles: it runs inline from the mux's I/O callbacks and timers. */
static __attribute__((noinline, cold)) void stream_process_prof(struct stream *s)
{
	struct prof_mark m;

	prof_begin(&m);
	stream_process_run(s);
	prof_end(&m, (void (*)(void))stream_process_run);
}

static void stream_process(struct stream *s)
{
	if (unlikely(prof_th_on))
		stream_process_prof(s);
	else
		stream_process_run(s);
}

/* timeout queue: 503, counted as a connection error of the backend. */
static int stream_queue_expired(struct stream *s)
{
	s->t_queue = now_ms(); /* %Tw: the time spent in the queue */
	stream_count_conn_failed(s, NULL);
	stream_set_term2(s, 's', 'Q');
	return stream_reply_error(s, 503, false);
}

/* A deadline of <s> expired: on connection <c> (front or back), or the stream's own
 * timer when <c> is NULL. */
static void stream_timeout(struct stream *s, struct conn *c)
{
	int ret;

	switch (s->state) {
	case SS_REQ_HDRS:
	case SS_REQ_BODY_WAIT:
		ret = stream_reply_mux_error(s, 408);
		break;
	case SS_REQ_INSPECT: /* the inspect-delay is over */
		ret = ana_inspect(s, true);
		break;
	case SS_TCP_INSPECT:
	case SS_TCP_FWD:
		ret = tcp_timeout(s, c);
		break;
	case SS_QUEUED:
		if (backend_unqueue(s) == Q_WOKEN) {
			s->flags |= SF_QUEUE_EXPIRED; /* answered when the wake-up arrives */
			return;
		}
		ret = stream_queue_expired(s);
		break;
	case SS_TURNAROUND:
		ret = stream_connect_now(s);
		break;
	case SS_CONNECTING:
		ret = stream_conn_failed(s);
		break;
	case SS_REQ_RULE_WAIT:
		if (c) { /* no deadline is armed on the connections in this state */
			ret = stream_abort(s);
			break;
		}
		s->flags |= SF_RULE_EXPIRED; /* the yielded rule decides what it means */
		ret = 1;
		break;
	case SS_EXCHANGE:
		if (!c && (s->flags & SF_RSP_RULE_WAIT)) {
			s->flags |= SF_RULE_EXPIRED;
			ret = 1;
		} else if (c && c == s->back && (s->flags & SF_RSP_HDRS_SENT))
			ret = stream_srv_abort(s, false);
		else if (c && c == s->back && stream_l7_retry_on(s, PR_RE_TIMEOUT))
			ret = stream_l7_retry(s);
		else if (c && c == s->back)
			ret = stream_server_error(s, 504);
		else {
			stream_set_term(s, 'c');
			ret = stream_cli_abort(s);
		}
		break;
	default:
		ret = stream_abort(s);
		break;
	}
	stream_continue(s, ret);
}

static void stream_tmr_cb(struct timer *t)
{
	stream_timeout(container_of(t, struct stream, tmr), NULL);
}

/* A queued stream was told, on its own thread, that a slot may be free. */
static void stream_wake_cb(struct inbox_item *it)
{
	struct stream *s = container_of(it, struct stream, wake);

	backend_woken(s);
	if (s->flags & SF_CLI_GONE_Q)
		stream_continue(s, stream_cli_abort(s));
	else if (s->flags & SF_QUEUE_EXPIRED)
		stream_continue(s, stream_queue_expired(s));
	else if (s->state == SS_QUEUED) {
		s->t_queue = now_ms(); /* %Tw: the time spent in the queue */
		s->flags |= SF_T_SLOW;
		stream_continue(s, stream_assign_and_connect(s, NULL, true));
	}
}

/* A new stream on <front>, started at <start> (ms), or NULL. */
static inline __attribute__((always_inline)) struct stream *stream_new(struct conn *front,
									uint64_t start)
{
	struct stream *s = pool_alloc(&pool_stream);

	if (!s)
		return NULL;
	/* all but the scratch area, which is written before it is read */
	memset(s, 0, offsetof(struct stream, scratch));
	s->front = front;
	s->fe = front->px;
	s->hdr_cap = stream_hdr_cap;
	s->req.hdr = s->hdrs;
	s->req.max_hdr = global.tune_maxhdr;
	s->rsp.hdr = s->hdrs + stream_hdr_cap;
	s->rsp.max_hdr = global.tune_maxhdr;
	s->req_start = start;
	s->tid = (uint16_t)tid;
	s->tmr.cb = stream_tmr_cb;
	s->wake.fn = stream_wake_cb;
	list_init(&s->queue);
	front->strm = s;
	return s;
}

static int stream_start(struct conn *front)
{
	/* an empty buffer: a connection closed or timed out without a byte (h1_front) */
	struct stream *s = stream_new(front, likely(front->ibuf.data) ? now_ms()
								     : front->idle_start);

	if (!s)
		return -1;
	s->state = SS_REQ_HDRS;
	stream_process(s);
	return 0;
}

/* A mode tcp front connection: its stream starts at once. */
static int stream_start_tcp(struct conn *front)
{
	struct stream *s = stream_new(front, front->idle_start);

	if (!s)
		return -1;
	tcp_stream_begin(s);
	stream_process(s);
	return 0;
}

static void stream_wake(struct stream *s)
{
	stream_process(s);
}

void stream_run(struct stream *s)
{
	stream_process(s);
}

static void stream_kill(struct stream *s)
{
	splice_release(&s->pipe[0]);
	splice_release(&s->pipe[1]);
	stream_drop_back(s);
	s->front->strm = NULL;
	stream_free(s);
}

static const struct h1_stream_ops stream_ops = {
	.start = stream_start,
	.start_tcp = stream_start_tcp,
	.wake = stream_wake,
	.timeout = stream_timeout,
	.kill = stream_kill,
};

/* Sizes the stream pool from tune.http.maxhdr (rewrites get 32 extra slots) and plugs the
 * stream layer into the mux. Before any thread runs. */
void stream_init_runtime(void)
{
	stream_hdr_cap = (uint16_t)(global.tune_maxhdr + 32);
	pool_stream.size = sizeof(struct stream) + 2 * stream_hdr_cap * sizeof(struct h1_hdr);
	h1_register_stream_ops(&stream_ops);
}

/* names in "show profiling" (event/profiling.h) */
PROF_NAME(stream_process_run, "process_stream")
PROF_NAME(stream_tmr_cb, "stream_tmr_cb")
PROF_NAME(stream_wake_cb, "stream_wake_cb")
