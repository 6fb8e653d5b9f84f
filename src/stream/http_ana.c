/* HTTP analysis of a stream: waiting for and checking the request headers, the request
 * analyzers in HAProxy's order (monitor-uri, frontend rules, backend choice, backend rules,
 * forwardfor, http-buffer-request), and the response analyzers (interim responses, body
 * framing, connection mode, response rules, serialization towards the client).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <base/buf.h>
#include <conn/conn_addr.h>
#include <conn/connection.h>
#include <base/freq_ctr.h>
#include <event/loop.h>
#include <event/stop.h>
#include <http/h1.h>
#include <http/meth.h>
#include <http/status.h>
#include <mux/h1.h>
#include <proc/global-t.h>
#include <backend/server.h>
#include <proxy/proxy-t.h>
#include <stats/counters.h>
#include <sample/acl.h>
#include <sample/logfmt.h>
#include <proxy/proxy.h>
#include <stream/action.h>
#include <stream/filter.h>
#include <stream/cookie.h>
#include <stream/err_capture.h>
#include <stream/http_capture.h>
#include <stream/http_px.h>
#include <stream/http_redir.h>
#include <stream/stktable_act.h>
#include <stream/service.h>
#include <stream/stream.h>
#include <stream/tcp_rules.h>
#include <string.h>

static void h1_limits_get(struct h1_limits *lim)
{
	lim->max_hdr_block = global.tune_bufsize - global.tune_maxrewrite;
	lim->max_hdr = global.tune_maxhdr;
	lim->accept_payload_any_method = global.h1_accept_payload_any_method;
}

/* use_backend rules in order, then default_backend; a dynamic name that names no backend
 * falls through to default_backend as in HAProxy. */
static inline __attribute__((always_inline)) struct proxy *choose_backend(struct stream *s,
									   int from)
{
	struct proxy *fe = s->fe;
	struct switching_rule *r;
	struct smp_ctx ctx;

	if (list_empty(&fe->switching_rules))
		goto no_rule;
	act_smp_ctx(&ctx, s, fe, from);
	list_for_each_entry(r, &fe->switching_rules, list) {
		char name[256];
		struct proxy *be;
		int n;

		if (r->cond && !acl_cond_true(r->cond, &ctx))
			continue;
		if (!r->dyn)
			return r->be;
		n = lf_render(r->dyn, &ctx, name, sizeof(name) - 1);
		if (n <= 0)
			break;
		name[n] = 0;
		be = proxy_find(name, PR_CAP_BE);
		if (be && be->mode == fe->mode)
			return be;
		break;
	}
no_rule:
	if (fe->defbe)
		return fe->defbe;
	return (fe->cap & PR_CAP_BE) ? fe : NULL;
}

struct proxy *ana_choose_backend(struct stream *s, int from)
{
	return choose_backend(s, from);
}

/* Adds header <name> with the address <sa> (IPv4 or IPv6), unless it is an IPv4 address of
 * the "except" network (<has_except>, <net>/<mask>) or a unix socket. The value is written
 * in s->scratch, or with <in_rw> in the rewrite buffer (a second header: the first one's
 * value still lives in scratch until the request is sent). */
static int add_addr_header(struct stream *s, const struct sockaddr *sa, struct ist name,
			   bool has_except, struct in_addr net, struct in_addr mask, bool in_rw)
{
	char *out = s->scratch;
	size_t room = sizeof(s->scratch);

	if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		return 0; /* unix socket: no address to give */
	if (sa->sa_family == AF_INET && has_except &&
	    (((const struct sockaddr_in *)sa)->sin_addr.s_addr & mask.s_addr) ==
		    (net.s_addr & mask.s_addr))
		return 0;
	if (in_rw) {
		out = stream_rw_tail(s, &room);
		if (!out || room < INET6_ADDRSTRLEN)
			return -1;
	}
	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, (socklen_t)room);
	else
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out,
			  (socklen_t)room);
	if (in_rw)
		stream_rw_commit(s, strlen(out));
	return http_hdr_add(s, &s->req, name, in_rw ? ist2(out, strlen(out)) : ist_str(out));
}

/* Adds X-Forwarded-For (or the configured name) with the client address. */
static int add_forwardfor(struct stream *s)
{
	struct proxy *px = (s->be->options & PR_O_FWDFOR) ? s->be : s->fe;
	struct ist name = px->fwdfor_hdr.len ? px->fwdfor_hdr : IST("X-Forwarded-For");

	if (px->options & PR_O_FF_IFNONE) {
		for (uint16_t i = 0; i < s->req.nhdr; i++)
			if (!s->req.hdr[i].skip && ist_ieq(s->req.hdr[i].n, name))
				return 0;
	}
	return add_addr_header(s, (const struct sockaddr *)&s->front->peer, name,
			       px->fwdfor_has_except, px->fwdfor_except_net,
			       px->fwdfor_except_mask, false);
}

/* Adds X-Original-To (or the configured name) with the address the client connected to. */
static int add_originalto(struct stream *s)
{
	struct proxy *px = (s->be->options & PR_O_ORIGTO) ? s->be : s->fe;
	const struct sockaddr *sa = conn_local_addr(s->front);
	struct ist name = px->origto_hdr.len ? px->origto_hdr : IST("X-Original-To");

	if (!sa)
		return 0;
	return add_addr_header(s, sa, name, px->origto_has_except, px->origto_except_net,
			       px->origto_except_mask, true);
}

/* option forwardfor and option originalto, in that order (<opts>: both proxies'). */
static __attribute__((noinline)) int add_addr_headers(struct stream *s, uint32_t opts)
{
	if ((opts & PR_O_FWDFOR) && add_forwardfor(s) < 0)
		return -1;
	if ((opts & PR_O_ORIGTO) && add_originalto(s) < 0)
		return -1;
	return 0;
}

/* The rule list of <from> in <px>. */
/* The last changes to the request head before it goes to a server: the address headers,
 * then the filters (after every rule, as HAProxy's filters see it). A body a filter
 * rewrites cannot be sent again: no retry-on for it. Returns 0 or -1. */
static __attribute__((noinline)) int req_last_edits(struct stream *s, uint32_t opts)
{
	if ((opts & (PR_O_FWDFOR | PR_O_ORIGTO)) && add_addr_headers(s, opts) < 0)
		return -1;
	if (opts & PR_O_FILTER) {
		if (flt_head(s, FLT_REQ) < 0)
			return -1;
		if (s->flags & SF_FLT_REQ)
			s->flags &= ~SF_L7_RETRY;
	}
	return 0;
}

static struct list *rules_of(struct proxy *px, int from)
{
	return from == ACT_F_HTTP_REQ ? &px->http_req_rules :
	       from == ACT_F_HTTP_RES ? &px->http_res_rules : &px->http_after_rules;
}

/* Answers the reply of the rule that stopped a request rule set. */
static int req_rule_reply(struct stream *s, struct proxy *px, enum act_return r,
			  struct act_rule *last)
{
	struct smp_ctx ctx;

	switch (r) {
	case ACT_RET_DENY:
		act_smp_ctx(&ctx, s, px, ACT_F_HTTP_REQ);
		if (last->action && !strcmp(last->kw, "return")) {
			stream_set_term(s, 'L');
			CNT_INC(s->fe->fe_cnt, intercepted);
			return stream_reply_http(s, last->arg.reply, &ctx);
		}
		CNT_INC(s->fe->fe_cnt, denied_req);
		if (px != s->fe)
			CNT_INC(px->be_cnt, denied_req);
		if (unlikely(stk_tracking(s)))
			stk_count_http(s, STK_DT_HTTP_ERR_CNT);
		stream_set_term2(s, 'P', last->action && !strcmp(last->kw, "tarpit") ? 'T' : 'R');
		return stream_reply_http(s, last->arg.reply, &ctx);
	case ACT_RET_YIELD: /* the rule runs again on client data or at its deadline */
		s->state = SS_REQ_RULE_WAIT;
		return 0;
	case ACT_RET_ERR:
		stream_count_rewrite_failed(s);
		return stream_reply_error(s, 500, false);
	case ACT_RET_INV:
		return stream_reply_error(s, 400, false);
	case ACT_RET_ABRT:
		return stream_abort(s);
	default: /* DONE: the action wrote its reply */
		stream_set_term(s, 'L');
		return stream_reply_done(s);
	}
}

int (*ana_cache_hook)(struct stream *s, struct proxy *px, int *ret);

/* Runs the request rules of <px> (those of its named defaults section first), then its
 * legacy "redirect" rules. A yielded rule is resumed first. Returns 1 to go on, 0 with
 * the step result in *ret otherwise. */
static int run_req_rules(struct stream *s, struct proxy *px, int *ret)
{
	struct act_rule *last = NULL;
	enum act_return r = ACT_RET_CONT;
	bool own = s->resume_list == &px->http_req_rules;

	if (likely(!(px->rule_sets & (PR_RS_HTTP_REQ | PR_RS_LEGACY_REDIR | PR_RS_STATS))))
		return 1; /* no rule costs nothing */
	if (!(px->rule_sets & PR_RS_HTTP_REQ))
		goto after_rules;
	if (!own && px->defpx && !list_empty(&px->defpx->http_req_rules))
		r = act_rules_run(&px->defpx->http_req_rules, px, s, ACT_F_HTTP_REQ, &last);
	if (r == ACT_RET_CONT && !(last && last->action))
		r = act_rules_run(&px->http_req_rules, px, s, ACT_F_HTTP_REQ, &last);
	if (r == ACT_RET_CONT) {
		/* a cache hit is answered once the rules let it (a later deny wins) */
		if (unlikely(px->rule_sets & PR_RS_CACHE) && ana_cache_hook(s, px, ret))
			return 0;
	after_rules: /* then the stats page, then the legacy redirects, as HAProxy */
		if ((px->rule_sets & PR_RS_STATS) && service_stats_hook(s, px, ret))
			return 0;
		return !(px->rule_sets & PR_RS_LEGACY_REDIR) || !http_redirect_legacy(s, px, ret);
	}
	*ret = req_rule_reply(s, px, r, last);
	return 0;
}

static int ana_request_rules(struct stream *s);

/* True when the request cannot grow any more for the tcp-request content rules: nothing
 * left to receive (its body is all in), the buffer is full, or the client is gone. */
static bool req_complete(struct stream *s)
{
	struct conn *f = s->front;
	uint64_t have = f->ibuf.data - s->req.hdr_len;

	if (f->flags & (CO_FL_RD_EOF | CO_FL_ERROR))
		return true;
	if (!b_room(&f->ibuf) || (f->ibuf.head && b_room(&f->ibuf) < 1024))
		return true; /* full (receiving more would move the parsed headers) */
	if (s->req.flags & H1_MF_CHNK) {
		struct h1_chunk ck = { 0 };
		int done = 0;

		return h1_chunk_scan(&ck, b_head(&f->ibuf) + s->req.hdr_len, (size_t)have,
				     global.tune_bufsize, &done) < 0 || done;
	}
	return !(s->req.flags & H1_MF_CLEN) || have >= s->req.body_len;
}

/* Runs the tcp-request content rules of <px> (the frontend's while s->be is NULL, then the
 * backend's); <expired> when the inspect-delay is over. Returns 1 when they are done, 0
 * with *ret set otherwise (waiting: state SS_REQ_INSPECT, or the stream is gone). */
static int req_inspect(struct stream *s, struct proxy *px, bool expired, int *ret)
{
	bool final = expired || !px->tcp_inspect_delay || req_complete(s);
	int r = tcp_req_content(s, px, final, ret);

	if (r == TCP_RULES_GONE)
		return 0;
	if (r == TCP_RULES_CONT) {
		timer_del(&s->tmr);
		s->state = SS_REQ_HDRS;
		return 1;
	}
	if (!s->tmr.expire) /* the first wait of this rule set */
		timer_set(&s->tmr, tick_add(px->tcp_inspect_delay));
	s->state = SS_REQ_INSPECT;
	*ret = 0;
	return 0;
}

/* The backend is chosen and its content rules ran: its request rules, then the server.
 * Inlined into both callers: the plain path keeps the cost of one function. */
static inline __attribute__((always_inline)) int ana_request_be(struct stream *s)
{
	struct proxy *fe = s->fe, *be = s->be;
	uint32_t opts;
	int ret;

	if (be != fe && !run_req_rules(s, be, &ret))
		return ret;
	opts = fe->options | be->options;
	if (opts & (PR_O_HTTP_SCL | PR_O_HTTP_CLO))
		s->flags |= SF_BACK_CLOSE;
	if ((unlikely(fe->rule_sets & PR_RS_UNIQUE_ID) && http_unique_id_header(s) < 0) ||
	    (unlikely(opts & (PR_O_FWDFOR | PR_O_ORIGTO | PR_O_FILTER)) &&
	     req_last_edits(s, opts) < 0)) {
		stream_count_rewrite_failed(s);
		return stream_reply_error(s, 500, false);
	}
	s->reqx.no_delay = !!(opts & PR_O_HTTP_NO_DELAY);
	if ((be->options & PR_O_BUF_REQ) && !s->reqx.done && !(fe->options & PR_O_BUF_REQ)) {
		s->state = SS_REQ_BODY_WAIT;
		return 1;
	}
	return stream_connect_server(s);
}

/* The frontend's request rules (the body being in the buffer when the frontend buffers
 * requests), the backend choice and the backend's content rules. */
static int ana_request_rules(struct stream *s)
{
	struct proxy *fe = s->fe, *be;
	int ret;

	if (!run_req_rules(s, fe, &ret))
		return ret;
	be = choose_backend(s, ACT_F_HTTP_REQ);
	if (!be)
		return stream_reply_error(s, 503, false);
	s->be = be;
	s->ana_stage = ANA_BE_RULES;
	CNT_INC(be->be_cnt, cum_sess);
	freq_ctr_inc(&be->be_sess_rate, now_ms());
	if (be != fe && unlikely(tcp_has_req_content(be)) && !req_inspect(s, be, false, &ret))
		return ret;
	return ana_request_be(s);
}

int ana_req_rules(struct stream *s)
{
	return s->ana_stage == ANA_FE_RULES ? ana_request_rules(s) : ana_request_be(s);
}

/* The frontend's content rules let the request in: count it, run the frontend's request
 * rules, choose the backend and run its content rules. */
static inline __attribute__((always_inline)) int ana_request_http(struct stream *s)
{
	struct h1_msg *m = &s->req;
	struct proxy *fe = s->fe;

	CNT_INC(fe->fe_cnt, cum_req);
	freq_ctr_inc(&fe->req_rate, now_ms());
	s->flags |= SF_REQ_COUNTED;
	s->meth = (m->flags & H1_MF_METH_GET) ? HTTP_METH_GET : (uint8_t)http_meth_id(m->meth);
	if (unlikely(stk_tracking(s)))
		stk_count_http(s, STK_DT_HTTP_REQ_CNT);
	HA_OWNER_INC(&activity[tid].streams);
	if ((m->flags & H1_MF_CONN_CLO) || (!(m->flags & H1_MF_VER_11) && !(m->flags & H1_MF_CONN_KAL)) ||
	    (fe->options & PR_O_HTTP_CLO) || (th_ctx->stopping && stop_close_due((uintptr_t)s->front)))
		s->flags |= SF_FRONT_CLOSE;
	if ((m->flags & H1_MF_FORCE_CLOSE) && !global.h1_keep_open_on_insecure_te)
		s->flags |= SF_FRONT_CLOSE | SF_BACK_CLOSE;

	if (fe->monitor_uri.len && ist_eq(h1_uri_pathq(m->uri), fe->monitor_uri)) {
		CNT_INC(fe->fe_cnt, intercepted);
		return stream_reply_error(s, http_monitor_status(s), false);
	}
	if (unlikely(fe->rule_sets & (PR_RS_CAPTURE | PR_RS_LOG))) {
		if (fe->rule_sets & PR_RS_CAPTURE)
			http_capture_request(s);
		if (fe->rule_sets & PR_RS_LOG) /* the request line, for %r */
			stream_log_event(s, STRM_LOG_EV_REQ);
	}
	s->ana_stage = ANA_FE_RULES;
	if ((fe->options & PR_O_BUF_REQ) && !s->reqx.done) {
		/* the rules see the whole body (req.body...): wait for it first */
		s->flags |= SF_BODY_RULES;
		s->state = SS_REQ_BODY_WAIT;
		return 1;
	}
	return ana_request_rules(s);
}

/* The request headers are complete and valid: run the request analyzers. */
static int ana_request(struct stream *s)
{
	struct h1_msg *m = &s->req;
	int ret;

	if (m->flags & H1_MF_CHNK)
		h1_xfer_init(&s->reqx, XFER_CHUNKED, 0);
	else if (m->flags & H1_MF_CLEN)
		h1_xfer_init(&s->reqx, XFER_CLEN, m->body_len);
	else
		h1_xfer_init(&s->reqx, XFER_NONE, 0);
	if (unlikely(tcp_has_req_content(s->fe)) && !req_inspect(s, s->fe, false, &ret))
		return ret;
	return ana_request_http(s);
}

int ana_inspect(struct stream *s, bool expired)
{
	struct buf *ib = &s->front->ibuf;
	int ret;

	/* more of the body may decide: read while it cannot move the parsed headers */
	while (!(ib->head && b_room(ib) < 1024) && conn_recv(s->front) > 0)
		;

	if (!req_inspect(s, s->be ? s->be : s->fe, expired, &ret))
		return ret;
	return s->be ? ana_request_be(s) : ana_request_http(s);
}

int ana_wait_request(struct stream *s)
{
	struct conn *f = s->front;
	struct h1_limits lim;
	int ret;

	h1_limits_get(&lim);
	for (;;) {
		if (f->ibuf.data) {
			ret = h1_parse_headers(b_head(&f->ibuf), f->ibuf.data, &s->req, false, &lim);
			if (ret > 0)
				break;
			if (ret < 0) {
				err_capture_req(s); /* show errors */
				return stream_reply_mux_error(s, s->req.err_code ? s->req.err_code : 400);
			}
		}
		if (conn_recv(f) > 0)
			continue;
		if (f->flags & (CO_FL_RD_EOF | CO_FL_ERROR))
			return stream_req_truncated(s); /* client gave up before a full request */
		return 0;
	}
	s->t_hdrs = now_ms();
	return ana_request(s);
}

/* option http-buffer-request: wait until the whole body is in the buffer, or the buffer
 * is full, before connecting. */
int ana_wait_body(struct stream *s)
{
	struct conn *f = s->front;
	struct buf *ib = &f->ibuf;
	static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";

	if ((s->req.flags & H1_MF_EXPECT_100) && !(s->flags & SF_SENT_100)) {
		s->flags |= SF_SENT_100;
		http_hdr_del(&s->req, IST("Expect"));
		if (b_get(&f->obuf) == 0)
			b_putblk(&f->obuf, cont, sizeof(cont) - 1);
		if (conn_flush(f) < 0)
			return stream_abort(s);
	}
	for (;;) {
		uint64_t have = ib->data - s->req.hdr_len;

		if (s->reqx.mode == XFER_CLEN && have >= s->reqx.remain)
			break;
		if (s->reqx.mode == XFER_CHUNKED) {
			struct h1_chunk ck = { 0 };
			int done = 0;

			if (h1_chunk_scan(&ck, b_head(ib) + s->req.hdr_len, (size_t)have,
					  global.tune_bufsize, &done) < 0)
				return stream_reply_error(s, 400, true);
			if (done)
				break;
		}
		if (!b_room(ib) && !ib->head)
			break; /* buffer full: forward what we have */
		if (conn_recv(f) > 0)
			continue;
		if (f->flags & (CO_FL_RD_EOF | CO_FL_ERROR))
			return stream_abort(s);
		return 0;
	}
	if (s->flags & SF_BODY_RULES) {
		s->flags &= ~SF_BODY_RULES;
		return ana_req_rules(s);
	}
	return stream_connect_server(s);
}

/* Response rules of <px> (its named defaults section's first) for rule set <from>:
 * deny turns the response into an error; a yielded rule is resumed first. Returns 1 to
 * go on. */
static int run_res_rules(struct stream *s, struct proxy *px, int from, int *ret)
{
	struct act_rule *last = NULL;
	enum act_return r = ACT_RET_CONT;
	struct smp_ctx ctx;
	bool own = s->resume_list == rules_of(px, from);

	if (!own && px->defpx && !list_empty(rules_of(px->defpx, from)))
		r = act_rules_run(rules_of(px->defpx, from), px, s, from, &last);
	if (r == ACT_RET_CONT && !(last && last->action))
		r = act_rules_run(rules_of(px, from), px, s, from, &last);
	switch (r) {
	case ACT_RET_CONT:
		return 1;
	case ACT_RET_YIELD: /* run again when the server sends more or at the deadline */
		s->flags |= SF_RSP_RULE_WAIT;
		*ret = 0;
		return 0;
	case ACT_RET_DENY:
		act_smp_ctx(&ctx, s, px, from);
		if (strcmp(last->kw, "return")) {
			CNT_INC(s->fe->fe_cnt, denied_resp);
			CNT_INC(s->be->be_cnt, denied_resp);
			if (s->srv)
				CNT_INC(s->srv->cnt, denied_resp);
		}
		*ret = stream_reply_http(s, last->arg.reply, &ctx);
		return 0;
	case ACT_RET_ERR:
		stream_count_rewrite_failed(s);
		*ret = stream_server_error(s, 500);
		return 0;
	case ACT_RET_INV:
		*ret = stream_server_error(s, 502);
		return 0;
	case ACT_RET_ABRT:
		*ret = stream_abort(s);
		return 0;
	default: /* DONE: the action wrote its reply */
		*ret = stream_reply_done(s);
		return 0;
	}
}

/* Connection header of the response: "upgrade" for a 101 only (a 2xx to CONNECT carries
 * none), "close" whenever the client connection closes after it, HTTP/1.0 clients
 * included, and "keep-alive" to a 1.0 client that keeps it. */
static const char *rsp_conn_hdr(const struct stream *s, bool tunnel)
{
	if (tunnel)
		return s->rsp.status == 101 ? "upgrade" : NULL;
	if (s->flags & SF_FRONT_CLOSE)
		return "close";
	return (s->req.flags & H1_MF_VER_11) ? NULL : "keep-alive";
}

/* The backend's persistence cookie on the response, once: after the http-response rules,
 * before the http-after-response ones, as in HAProxy. Returns 1 to go on. */
static int rsp_cookie(struct stream *s, int *ret)
{
	s->flags |= SF_CK_RSP_DONE;
	if (cookie_process_response(s) == 0)
		return 1;
	stream_count_rewrite_failed(s);
	*ret = stream_server_error(s, 500);
	return 0;
}

/* The response rule sets in order, from where they stopped (rsp_set): the backend's then
 * the frontend's http-response rules, then their http-after-response rules; then the
 * headers go to the client. */
static int ana_rsp_rules(struct stream *s)
{
	static const struct {
		bool be;
		uint8_t from;
		uint32_t set;
	} sets[] = {
		{ true, ACT_F_HTTP_RES, PR_RS_HTTP_RES },
		{ false, ACT_F_HTTP_RES, PR_RS_HTTP_RES },
		{ true, ACT_F_HTTP_AFTER, PR_RS_HTTP_AFTER },
		{ false, ACT_F_HTTP_AFTER, PR_RS_HTTP_AFTER },
		{ false, 0, PR_RS_FILTER }, /* the filters: they see the head last */
	};
	struct h1_msg *m = &s->rsp;
	struct conn *f = s->front, *b = s->back;
	bool tunnel = s->rspx.mode == XFER_TUNNEL;
	int ret;

	s->flags &= ~SF_RSP_RULE_WAIT;
	s->ana_stage = ANA_RSP_RULES;
	if (likely(!((s->fe->rule_sets | s->be->rule_sets) &
		     (PR_RS_HTTP_RES | PR_RS_HTTP_AFTER | PR_RS_FILTER))))
		s->rsp_set = sizeof(sets) / sizeof(sets[0]); /* no rule costs nothing */
	for (; s->rsp_set < sizeof(sets) / sizeof(sets[0]); s->rsp_set++) {
		struct proxy *px = sets[s->rsp_set].be ? s->be : s->fe;

		if (s->rsp_set == 2 && unlikely(s->be->ck) && !(s->flags & SF_CK_RSP_DONE) &&
		    !rsp_cookie(s, &ret))
			return ret;
		if (sets[s->rsp_set].set == PR_RS_FILTER) {
			/* as HAProxy's, the filters see the head after every rule and the
			 * cookie (compression edits it) */
			if (unlikely(s->be->ck) && !(s->flags & SF_CK_RSP_DONE) &&
			    !rsp_cookie(s, &ret))
				return ret;
			if (((s->fe->rule_sets | s->be->rule_sets) & PR_RS_FILTER) &&
			    flt_head(s, FLT_RSP) < 0)
				return stream_server_error(s, 500);
			continue;
		}

		if ((!sets[s->rsp_set].be && s->fe == s->be) ||
		    likely(!(px->rule_sets & sets[s->rsp_set].set)))
			continue; /* no rule costs nothing */
		if (!run_res_rules(s, px, sets[s->rsp_set].from, &ret))
			return ret;
	}
	if (unlikely(s->be->ck) && !(s->flags & SF_CK_RSP_DONE) && !rsp_cookie(s, &ret))
		return ret;
	if (h1_write_response(&f->obuf, m, rsp_conn_hdr(s, tunnel)) < 0)
		return stream_server_error(s, 502);
	b_del(&b->ibuf, m->hdr_len);
	s->flags |= SF_RSP_HDRS_SENT;
	s->status = m->status;
	s->rspx.no_delay = !!((s->fe->options | s->be->options) & PR_O_HTTP_NO_DELAY);
	if (tunnel) {
		h1_xfer_init(&s->reqx, XFER_TUNNEL, 0);
		s->flags &= ~SF_REQ_DONE;
		s->state = SS_TUNNEL;
	}
	return 1;
}

/* The response headers are complete: choose framing and modes, run the rules, and
 * serialize them towards the client. */
static int ana_response(struct stream *s)
{
	struct h1_msg *m = &s->rsp;
	bool tunnel = false;
	enum xfer_mode mode;
	int ret;

	s->t_rsp = now_ms();
	if (m->status == 101 && (s->req.flags & H1_MF_CONN_UPG))
		tunnel = true;
	else if ((s->req.flags & H1_MF_METH_CONNECT) && m->status >= 200 && m->status < 300)
		tunnel = true;
	if (tunnel)
		mode = XFER_TUNNEL;
	else if (h1_resp_bodyless(m->status, s->req.flags & H1_MF_METH_HEAD))
		mode = XFER_NONE;
	else if (m->flags & H1_MF_CHNK)
		mode = XFER_CHUNKED;
	else if (m->flags & H1_MF_CLEN)
		mode = XFER_CLEN;
	else
		mode = XFER_EOF;
	if (mode == XFER_EOF)
		s->flags |= SF_FRONT_CLOSE | SF_BACK_CLOSE;
	if (s->srv) {
		CNT_INC(s->srv->cnt, rsp[status_class(m->status)]);
		if (unlikely(s->srv->observe)) /* "observe layer7" (check/check_hana.c) */
			srv_observe(s->srv, srv_hana_http(m->status));
	}
	if (m->status >= 400 && unlikely(stk_tracking(s)) && m->status < 600 &&
	    m->status != 501 && m->status != 505)
		stk_count_http(s, m->status < 500 ? STK_DT_HTTP_ERR_CNT : STK_DT_HTTP_FAIL_CNT);
	if ((m->flags & H1_MF_CONN_CLO) || (!(m->flags & H1_MF_VER_11) && !(m->flags & H1_MF_CONN_KAL)))
		s->flags |= SF_BACK_CLOSE;
	if (m->flags & H1_MF_FORCE_CLOSE)
		s->flags |= SF_FRONT_CLOSE | SF_BACK_CLOSE;
	if (th_ctx->stopping && stop_close_due((uintptr_t)s->front))
		s->flags |= SF_FRONT_CLOSE;

	if (unlikely(tcp_has_res_content(s->be)) && tcp_res_content(s, s->be, &ret) != TCP_RULES_CONT)
		return ret;
	if (unlikely(stk_used) && (!list_empty(&s->be->store_rules) || (s->stk && s->stk->nb_store)))
		stk_process_store_rules(s);
	/* the framing is known before the rules: wait-for-body reads it */
	h1_xfer_init(&s->rspx, mode, m->body_len);
	s->rsp_ver = (m->flags & H1_MF_VER_11) ? 11 : 10;
	if (unlikely(s->fe->rule_sets & (PR_RS_CAPTURE | PR_RS_LOG))) {
		if (s->fe->rule_sets & PR_RS_CAPTURE)
			http_capture_response(s);
		if (s->fe->rule_sets & PR_RS_LOG) /* option logasap */
			stream_log_event(s, STRM_LOG_EV_RSP);
	}
	s->rsp_set = 0;
	return ana_rsp_rules(s);
}

int ana_wait_response(struct stream *s)
{
	struct conn *b = s->back, *f = s->front;
	struct h1_limits lim;
	int ret;

	if (s->flags & SF_RSP_RULE_WAIT)
		return ana_rsp_rules(s); /* a response rule waits (wait-for-body) */
	h1_limits_get(&lim);
	for (;;) {
		if (b->ibuf.data) {
			ret = h1_parse_headers(b_head(&b->ibuf), b->ibuf.data, &s->rsp, true, &lim);
			if (unlikely(ret < 0))
				err_capture_rsp(s); /* show errors */
			if (ret < 0 && stream_l7_retry_on(s, PR_RE_JUNK_REQUEST))
				return stream_l7_retry(s);
			if (ret < 0)
				return stream_server_error(s, 502);
			if (ret > 0) {
				/* a kept request (resend, L7 retry) is released with the first
				 * response head the proxy accepts */
				if (unlikely(s->flags & SF_L7_RETRY)) {
					if (stream_l7_retry_on(s, stream_l7_status_cause(s->rsp.status)))
						return stream_l7_retry(s);
					s->flags &= ~SF_L7_RETRY;
				}
				stream_req_consume(s);
			}
			if (ret > 0 && s->rsp.status >= 200)
				return ana_response(s);
			if (ret > 0 && s->rsp.status == 101) {
				/* switching protocols the client did not ask for is invalid */
				if (!(s->req.flags & H1_MF_CONN_UPG))
					return stream_server_error(s, 502);
				return ana_response(s);
			}
			if (ret > 0) {
				/* interim response (100 Continue...): pass it on, wait for more */
				if (s->srv)
					CNT_INC(s->srv->cnt, rsp[1]);
				if (h1_write_response(&f->obuf, &s->rsp, NULL) < 0)
					return stream_server_error(s, 502);
				b_del(&b->ibuf, s->rsp.hdr_len);
				if (conn_flush(f) < 0)
					return stream_cli_abort(s);
				continue;
			}
		}
		if (conn_recv(b) > 0) {
			b->flags |= CO_FL_GOT_DATA;
			continue;
		}
		if (b->flags & (CO_FL_RD_EOF | CO_FL_ERROR)) {
			if (stream_can_resend(s))
				return stream_resend(s);
			if (stream_l7_retry_on(s, (b->flags & CO_FL_GOT_DATA) ? PR_RE_JUNK_REQUEST
									: PR_RE_DISCONNECTED))
				return stream_l7_retry(s);
			/* a reused connection that the server had closed, and a request that
			 * cannot be replayed: close the client connection without a response,
			 * as HAProxy does, so that the client may retry */
			if ((s->flags & SF_REUSED_CONN) && !(b->flags & CO_FL_GOT_DATA))
				return stream_abort(s);
			return stream_server_error(s, 502);
		}
		return 0;
	}
}
