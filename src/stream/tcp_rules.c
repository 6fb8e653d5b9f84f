/* TCP rules at run time: the accept hook that runs "tcp-request connection" then
 * "tcp-request session" rules on a new front connection (through conn_sess_ops, set only
 * when such rules exist), the runners of "tcp-request content" (with waits while a
 * condition cannot tell yet) and "tcp-response content" rules, and the actions proper to
 * these rule sets: accept, reject, silent-drop, close, switch-mode, expect-proxy.
 *
 * Connection and session rules run before any stream exists; they are given a per-thread
 * stand-in stream whose only parts are the front connection and the frontend (what
 * actions valid there may use: fetches see the connection, "sess" variables live on it);
 * its transaction variables are dropped after the rules, as HAProxy has none there.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <backend/server-t.h>
#include <base/buf.h>
#include <conn/connection.h>
#include <event/loop.h>
#include <proxy/proxy.h>
#include <sample/acl.h>
#include <sample/vars.h>
#include <stats/counters.h>
#include <stream/action.h>
#include <stream/stktable_act.h>
#include <stream/stream.h>
#include <stream/http_capture.h>
#include <stream/tcp_rules.h>

bool tcp_req_content_used;
bool tcp_res_content_used;
static __thread bool rules_partial;
static __thread bool rules_can_wait;
static __thread struct stream sess_strm; /* the stand-in of connection and session rules */

bool tcp_rules_partial(void)
{
	return rules_partial;
}

bool tcp_rules_can_wait(void)
{
	return rules_can_wait;
}

static bool has_rules(const struct proxy *px, size_t ofs)
{
	const struct list *l = (const void *)((const char *)px + ofs);

	if (!list_empty(l))
		return true;
	return px->defpx && !list_empty((const void *)((const char *)px->defpx + ofs));
}

bool tcp_px_has_req_content(const struct proxy *px)
{
	return has_rules(px, offsetof(struct proxy, tcp_req_cont_rules));
}

bool tcp_px_has_res_content(const struct proxy *px)
{
	return has_rules(px, offsetof(struct proxy, tcp_res_cont_rules));
}

/* Runs the rules of <list> from *resume (NULL: the first) with <final> data. Returns
 * ACT_RET_CONT when all ran or one accepted, ACT_RET_YIELD with *resume set when one
 * waits (a condition or a key that may still change), or the result of the rule that
 * ended the set. A do-resolve waiting for its answer (s->dreq) runs again without its
 * condition, which was already true. */
static enum act_return tcp_run_list(struct list *list, struct proxy *px, struct stream *s, int from,
				    bool final, struct act_rule **resume)
{
	struct act_rule *r = *resume ? *resume : list_elem(list->next, struct act_rule, list);
	bool async = *resume && s && s->dreq;
	struct smp_ctx ctx;

	act_smp_ctx(&ctx, s, px, from);
	if (!final)
		ctx.opt &= ~SMP_OPT_FINAL;
	*resume = NULL;
	for (; &r->list != list; r = list_elem(r->list.next, struct act_rule, list)) {
		bool resumed = async;
		enum act_return ret;

		async = false;
		if (r->cond && !resumed) {
			enum acl_test_res res = acl_cond_exec(r->cond, &ctx);

			if (res == ACL_TEST_MISS) {
				*resume = r;
				return ACT_RET_YIELD;
			}
			if (res != ACL_TEST_PASS)
				continue;
		}
		rules_partial = !final;
		ret = r->action(r, px, s, from);
		rules_partial = false;
		if (ret == ACT_RET_CONT)
			continue;
		if ((r->flags & ACT_FL_VERDICT) && s) {
			s->last_rule_file = r->file;
			s->last_rule_line = r->line;
		}
		if (ret == ACT_RET_STOP)
			return ACT_RET_CONT; /* accept: this rule set is over */
		if (ret == ACT_RET_YIELD)
			*resume = final && !(r->flags & ACT_FL_ASYNC) ? NULL : r;
		if (ret == ACT_RET_YIELD && final && !(r->flags & ACT_FL_ASYNC))
			continue; /* nothing more will come: the action did what it could */
		return ret;
	}
	return ACT_RET_CONT;
}

static bool rule_in(const struct list *list, const struct act_rule *r)
{
	const struct act_rule *x;

	list_for_each_entry(x, list, list) if (x == r) return true;
	return false;
}

/* The rules of a set of <px>: its named defaults section's first, then its own. */
static enum act_return tcp_run_set(struct proxy *px, size_t ofs, struct stream *s, int from,
				   bool final, struct act_rule **resume)
{
	struct list *own = (void *)((char *)px + ofs);
	struct list *def = px->defpx ? (void *)((char *)px->defpx + ofs) : NULL;
	enum act_return ret = ACT_RET_CONT;

	if (def && !list_empty(def) && (!*resume || rule_in(def, *resume))) {
		ret = tcp_run_list(def, px, s, from, final, resume);
		if (ret != ACT_RET_CONT)
			return ret;
	}
	return tcp_run_list(own, px, s, from, final, resume);
}

/* ---- connection and session rules ---- */

bool tcp_rules_standin(const struct stream *s)
{
	return s == &sess_strm;
}

/* The stand-in stream's own state goes: its variables, rewrite room and captures (none
 * should be made there: the next connection's memset would lose them). */
static void tcp_sess_strm_done(struct stream *s)
{
	http_capture_free(s);
	if (s->hlua) /* a Lua fetch kept data on it (txn:set_priv) */
		stream_hlua_free(s);
	vars_prune(&s->vars_txn);
	vars_prune(&s->vars_req);
	vars_prune(&s->vars_res);
	b_release(&s->rw);
}

/* Runs the connection rules (<cr>) and/or the session rules (<sr>) of <c>'s frontend
 * on the stand-in stream; returns 0, or -1 when they refused it. */
static int tcp_sess_run(struct conn *c, bool cr, bool sr)
{
	struct proxy *fe = c->px;
	struct stream *s = &sess_strm;
	struct act_rule *resume = NULL;
	enum act_return ret = ACT_RET_CONT;

	if (!(cr && has_rules(fe, offsetof(struct proxy, tcp_req_conn_rules))) &&
	    !(sr && has_rules(fe, offsetof(struct proxy, tcp_req_sess_rules))))
		goto done;
	memset(s, 0, sizeof(*s));
	s->front = c;
	s->fe = fe;
	s->tid = (uint16_t)tid;
	if (cr)
		ret = tcp_run_set(fe, offsetof(struct proxy, tcp_req_conn_rules), s,
				  ACT_F_TCP_REQ_CON, true, &resume);
	if (ret != ACT_RET_CONT) {
		CNT_INC(fe->fe_cnt, denied_conn);
		goto refused;
	}
	resume = NULL;
	if (sr)
		ret = tcp_run_set(fe, offsetof(struct proxy, tcp_req_sess_rules), s,
				  ACT_F_TCP_REQ_SES, true, &resume);
	if (ret != ACT_RET_CONT) {
		CNT_INC(fe->fe_cnt, denied_sess);
		goto refused;
	}
	tcp_sess_strm_done(s);
done:
	if (sr && c->stk)
		stk_sess_start(c);
	return 0;
refused:
	tcp_sess_strm_done(s);
	return -1;
}

static int tcp_sess_accept(struct conn *c)
{
	return tcp_sess_run(c, true, true);
}

static int tcp_sess_accept_conn(struct conn *c)
{
	return tcp_sess_run(c, true, false);
}

static int tcp_sess_accept_sess(struct conn *c)
{
	return tcp_sess_run(c, false, true);
}

static const struct conn_sess_ops tcp_sess_ops = {
	.accept = tcp_sess_accept,
	.accept_conn = tcp_sess_accept_conn,
	.accept_sess = tcp_sess_accept_sess,
	.probe = stk_sess_probe,
	.release = stk_sess_release,
};

void tcp_rules_enable_sess(void)
{
	conn_sess_ops = &tcp_sess_ops;
}

/* ---- content rules ---- */

int tcp_req_content(struct stream *s, struct proxy *px, bool final, int *ret)
{
	struct act_rule *resume = s->tcp_next;
	enum act_return r;

	/* A do-resolve waits (http_act_resolve.c): its poll timer replaced the inspect-delay,
	 * so an expiry is not the end of the delay and the rules after it do not see final
	 * data (they wait for a new inspect-delay when they need more). */
	if (unlikely(s->dreq) && resume && s->rule_exp && px->tcp_inspect_delay)
		final = false;
	/* the delay is over when a rule waited (tcp_next) and its timer fired */
	rules_can_wait = !final || (px->tcp_inspect_delay && !(resume && !s->tmr.expire));
	r = tcp_run_set(px, offsetof(struct proxy, tcp_req_cont_rules), s, ACT_F_TCP_REQ_CNT, final,
			&resume);
	rules_can_wait = false;
	s->tcp_next = resume;
	if (r == ACT_RET_CONT)
		return TCP_RULES_CONT;
	if (r == ACT_RET_YIELD)
		return TCP_RULES_WAIT;
	if (r == ACT_RET_DONE && s->svc) { /* use-service: a TCP service has the connection */
		*ret = 1;
		return TCP_RULES_GONE;
	}
	if (r == ACT_RET_DONE && s->fe->mode == PR_MODE_HTTP) {
		*ret = stream_reply_done(s); /* a Lua txn:done(reply) wrote its answer */
		return TCP_RULES_GONE;
	}
	/* reject, silent-drop, or an action that failed: closed without an answer */
	stream_set_term2(s, 'P', 'R');
	CNT_INC(s->fe->fe_cnt, denied_req);
	if (!s->be && s->fe->mode == PR_MODE_HTTP) /* before the request was counted: its
						    * end counts it alone */
		CNT_INC(s->fe->fe_cnt, rsp[0]);
	*ret = stream_abort(s);
	return TCP_RULES_GONE;
}

/* A response refused by a tcp-response content rule: counted where HAProxy counts it,
 * closed with <phase> as the termination phase (0: the one the stream is in). */
static int tcp_res_denied(struct stream *s, char phase, int *ret)
{
	if (phase)
		stream_set_term2(s, 'P', phase);
	CNT_INC(s->fe->fe_cnt, denied_resp);
	CNT_INC(s->be->be_cnt, denied_resp);
	if (s->srv)
		CNT_INC(s->srv->cnt, denied_resp);
	*ret = stream_abort(s);
	return TCP_RULES_GONE;
}

int tcp_res_content(struct stream *s, struct proxy *px, int *ret)
{
	struct act_rule *resume = NULL;

	enum act_return r = tcp_run_set(px, offsetof(struct proxy, tcp_res_cont_rules), s,
					ACT_F_TCP_RES_CNT, true, &resume);

	if (r == ACT_RET_CONT)
		return TCP_RULES_CONT;
	if (r == ACT_RET_DONE) {
		*ret = stream_reply_done(s); /* a Lua txn:done(reply) wrote its answer */
		return TCP_RULES_GONE;
	}
	return tcp_res_denied(s, 0, ret);
}

int tcp_res_content_step(struct stream *s, bool final, int *ret)
{
	struct act_rule *resume = s->tcp_next;
	enum act_return r;

	r = tcp_run_set(s->be, offsetof(struct proxy, tcp_res_cont_rules), s, ACT_F_TCP_RES_CNT,
			final, &resume);
	s->tcp_next = resume;
	if (r == ACT_RET_CONT)
		return TCP_RULES_CONT;
	if (r == ACT_RET_YIELD)
		return TCP_RULES_WAIT;
	return tcp_res_denied(s, 'D', ret);
}

/* ---- actions ---- */

static enum act_return act_accept(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	return ACT_RET_STOP;
}

static enum act_return act_reject(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	struct linger nolinger = { .l_onoff = 1, .l_linger = 0 };

	/* a refused connection is reset, as HAProxy does; later ones just close */
	if (from == ACT_F_TCP_REQ_CON)
		setsockopt(s->front->h.fd, SOL_SOCKET, SO_LINGER, &nolinger, sizeof(nolinger));
	return ACT_RET_ABRT;
}

/* Closes without the client knowing: the socket is put in repair mode when allowed (its
 * close sends nothing), else its reset leaves with a TTL of 1 and dies on the way. */
static enum act_return act_silent_drop(struct act_rule *r, struct proxy *px, struct stream *s,
				       int from)
{
	struct linger nolinger = { .l_onoff = 1, .l_linger = 0 };
	int fd = s->front->h.fd, one = 1;

	s->front->flags |= CO_FL_WR_ERR; /* nothing more leaves, not even a TLS alert */
#ifdef TCP_REPAIR
	if (setsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &one, sizeof(one)) == 0)
		return ACT_RET_ABRT;
#endif
	if (s->front->peer.ss_family == AF_INET)
		setsockopt(fd, IPPROTO_IP, IP_TTL, &one, sizeof(one));
	else if (s->front->peer.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &nolinger, sizeof(nolinger));
	return ACT_RET_ABRT;
}

/* tcp-response content close: the server connection is not kept after this response. */
static enum act_return act_close(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	s->flags |= SF_BACK_CLOSE;
	if (s->be && (s->be->rt_flags & PR_RT_TCP))
		s->flags |= SF_TCP_SRV_CLOSE; /* mode tcp: the server side ends now */
	return ACT_RET_STOP;
}

static enum act_return act_noop(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	return ACT_RET_CONT;
}

static int parse_simple(char **args, int *pos, int nargs, const struct act_parse *ap,
			struct act_rule *r, char *err, size_t errsz)
{
	const char *name = args[*pos - 1];

	r->action = !strcmp(name, "accept")   ? act_accept
		    : !strcmp(name, "reject") ? act_reject
		    : !strcmp(name, "close")  ? act_close
					      : act_silent_drop;
	if (r->action != act_accept)
		r->flags |= ACT_FL_FINAL;
	if (r->action == act_accept || r->action == act_reject)
		r->flags |= ACT_FL_VERDICT;
	return 0;
}

/* switch-mode http [proto h1]: the proxies run in mode http already. */
static int parse_switch_mode(char **args, int *pos, int nargs, const struct act_parse *ap,
			     struct act_rule *r, char *err, size_t errsz)
{
	const char *mode = act_next_word(args, pos, nargs);

	if (!mode || strcmp(mode, "http")) {
		snprintf(err, errsz,
			 "'switch-mode' expects a mode as argument, only 'http' is "
			 "supported");
		return -1;
	}
	if (*pos < nargs && !strcmp(args[*pos], "proto")) {
		const char *p = (++*pos, act_next_word(args, pos, nargs));

		if (!p || strcmp(p, "h1")) {
			snprintf(err, errsz, "only the 'h1' protocol is supported");
			return -1;
		}
	}
	if (ap->px->mode != PR_MODE_HTTP) {
		snprintf(err, errsz, "'switch-mode http' in a TCP proxy is not supported yet");
		return -1;
	}
	r->action = act_noop;
	return 0;
}

/* expect-proxy layer4: the connection waits for a PROXY header before anything else
 * (mux/h1_front.c reads it once the connection rules are over). */
static enum act_return act_expect_proxy(struct act_rule *r, struct proxy *px, struct stream *s,
					int from)
{
	s->front->flags |= CO_FL_PP_WAIT;
	return ACT_RET_CONT;
}

static int parse_expect(char **args, int *pos, int nargs, const struct act_parse *ap,
			struct act_rule *r, char *err, size_t errsz)
{
	const char *name = args[*pos - 1];
	const char *what;

	if (!strcmp(name, "expect-netscaler-cip")) {
		snprintf(err, errsz,
			 "'expect-netscaler-cip' is not supported yet (the NetScaler "
			 "CIP protocol is not implemented)");
		return -1;
	}
	what = act_next_word(args, pos, nargs);
	if (!what || strcmp(what, "layer4")) {
		snprintf(err, errsz, "'expect-proxy' only supports 'layer4' (got '%s')",
			 what ? what : "");
		return -1;
	}
	r->action = act_expect_proxy;
	return 0;
}

static const struct action_kw tcp_act_kws[] = {
	{ "accept", ACT_F_TCP_ANY, 0, parse_simple },
	{ "reject", ACT_F_TCP_ANY, 0, parse_simple },
	{ "silent-drop", ACT_F_TCP_ANY, 0, parse_simple },
	{ "close", ACT_F_TCP_RES_CNT, 0, parse_simple },
	{ "switch-mode", ACT_F_TCP_REQ_CNT, 0, parse_switch_mode },
	{ "expect-proxy", ACT_F_TCP_REQ_CON, 0, parse_expect },
	{ "expect-netscaler-cip", ACT_F_TCP_REQ_CON, 0, parse_expect },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(tcp_act_kws);
