/* The other HTTP actions: set-status, set-log-level, set-src, set-src-port, set-dst,
 * set-dst-port, wait-for-body (a yielding rule: the rule set resumes at it when data or
 * its deadline come), early-hint (103 responses before the final one), set-timeout,
 * strict-mode, disable-l7-retry and wait-for-handshake; and the counting of rewrites that
 * failed with strict-mode off. set-log-level is valid in the tcp content rule sets too,
 * set-src/-dst[-port] in every tcp-request rule set.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/buf.h>
#include <base/parse.h>
#include <conn/conn_addr.h>
#include <conn/connection.h>
#include <event/loop.h>
#include <http/h1.h>
#include <proc/global-t.h>
#include <backend/server-t.h>
#include <proxy/proxy-t.h>
#include <sample/logfmt.h>
#include <sample/sample.h>
#include <stats/counters.h>
#include <stream/action.h>
#include <stream/stream.h>

void stream_count_rewrite_soft(struct stream *s)
{
	CNT_INC(s->fe->fe_cnt, failed_rewrites);
	if (s->be)
		CNT_INC(s->be->be_cnt, failed_rewrites);
	if (s->srv)
		CNT_INC(s->srv->cnt, failed_rewrites);
}

/* ---- set-status ---- */

/* rule->arg.gen: i[0] status, str the reason (owned, may be empty) */
static enum act_return act_set_status(struct act_rule *r, struct proxy *px, struct stream *s,
				      int from)
{
	s->rsp.status = (int)r->arg.gen.i[0];
	s->rsp.reason = r->arg.gen.str;
	return ACT_RET_CONT;
}

static void act_gen_release(struct act_rule *r)
{
	free((char *)r->arg.gen.str.ptr);
	sample_expr_free(r->arg.gen.expr);
	lf_free(&r->arg.gen.fmt);
}

/* set-status N [reason TEXT] */
static int parse_set_status(char **args, int *pos, int nargs, const struct act_parse *ap,
			    struct act_rule *r, char *err, size_t errsz)
{
	const char *st = act_next_word(args, pos, nargs);
	long v;

	r->action = act_set_status;
	r->release = act_gen_release;
	if (!st) {
		snprintf(err, errsz,
			 "expects 1 argument: <status>; or 3 arguments: <status> "
			 "reason <fmt>");
		return -1;
	}
	if (parse_long(st, 100, 999, &v) < 0) {
		snprintf(err, errsz, "expects an integer status code between 100 and 999");
		return -1;
	}
	r->arg.gen.i[0] = v;
	if (*pos + 1 < nargs && !strcmp(args[*pos], "reason")) {
		*pos += 1;
		return act_set_name(&r->arg.gen.str, args[(*pos)++], err, errsz);
	}
	return 0;
}

/* ---- set-log-level ---- */

static const char *const log_levels[] = { "emerg",   "alert",  "crit", "err",
					  "warning", "notice", "info", "debug" };

static enum act_return act_set_log_level(struct act_rule *r, struct proxy *px, struct stream *s,
					 int from)
{
	s->log_level = (uint8_t)r->arg.gen.i[0];
	return ACT_RET_CONT;
}

/* set-log-level LEVEL|silent */
static int parse_set_log_level(char **args, int *pos, int nargs, const struct act_parse *ap,
			       struct act_rule *r, char *err, size_t errsz)
{
	const char *lvl = act_next_word(args, pos, nargs);

	r->action = act_set_log_level;
	if (lvl && !strcmp(lvl, "silent")) {
		r->arg.gen.i[0] = STRM_LOG_SILENT;
		return 0;
	}
	for (int i = 0; lvl && i < 8; i++) {
		if (!strcmp(lvl, log_levels[i])) {
			r->arg.gen.i[0] = i + 1;
			return 0;
		}
	}
	snprintf(err, errsz, "expects exactly 1 argument (log level name or 'silent')");
	return -1;
}

/* ---- set-src, set-src-port, set-dst, set-dst-port ---- */

enum addr_part {
	ADDR_SRC = 0,
	ADDR_SRC_PORT,
	ADDR_DST,
	ADDR_DST_PORT,
};

static uint16_t ss_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_port;
	if (ss->ss_family == AF_INET6)
		return ((const struct sockaddr_in6 *)ss)->sin6_port;
	return 0;
}

/* Sets the address of <ss> from an IPv4 or IPv6 sample, keeping its port. */
static void ss_set_addr(struct sockaddr_storage *ss, const struct sample *smp)
{
	uint16_t port = ss_port(ss);

	memset(ss, 0, sizeof(*ss));
	if (smp->data.type == SMP_T_IPV4) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_addr = smp->data.u.ipv4;
		in->sin_port = port;
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_addr = smp->data.u.ipv6;
		in6->sin6_port = port;
	}
}

/* Sets the port of <ss>; an address without ports becomes IPv4 0.0.0.0 first. */
static void ss_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family != AF_INET && ss->ss_family != AF_INET6) {
		memset(ss, 0, sizeof(*ss));
		ss->ss_family = AF_INET;
	}
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static enum act_return act_set_addr(struct act_rule *r, struct proxy *px, struct stream *s,
				    int from)
{
	long long part = r->arg.gen.i[0];
	struct conn *f = s->front;
	struct sockaddr_storage *ss, dst;
	struct smp_ctx ctx;
	struct sample smp;

	act_smp_ctx(&ctx, s, px, from);
	memset(&smp, 0, sizeof(smp));
	smp.ctx = &ctx;
	if (part == ADDR_SRC || part == ADDR_SRC_PORT) {
		ss = &f->peer;
	} else { /* the local address as the socket tells it, if it can */
		const struct sockaddr *la = conn_local_addr(f);

		memset(&dst, 0, sizeof(dst));
		if (la)
			memcpy(&dst, la,
			       la->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
							 : sizeof(struct sockaddr_in));
		ss = &dst;
	}
	if (part == ADDR_SRC || part == ADDR_DST) {
		if (!sample_process_as(r->arg.gen.expr, &smp, SMP_T_ADDR) ||
		    (smp.data.type != SMP_T_IPV4 && smp.data.type != SMP_T_IPV6))
			return ACT_RET_CONT;
		ss_set_addr(ss, &smp);
	} else {
		if (!sample_process_as(r->arg.gen.expr, &smp, SMP_T_SINT))
			return ACT_RET_CONT;
		ss_set_port(ss, (uint16_t)smp.data.u.sint);
	}
	if (ss == &dst) { /* what the dst fetches read from now on */
		if (dst.ss_family == AF_INET6)
			memcpy(&f->local.in6, &dst, sizeof(f->local.in6));
		else
			memcpy(&f->local.in, &dst, sizeof(f->local.in));
		f->flags |= CO_FL_LOCAL_SET;
	}
	return ACT_RET_CONT;
}

/* set-src|set-src-port|set-dst|set-dst-port EXPR */
static int parse_set_addr(char **args, int *pos, int nargs, const struct act_parse *ap,
			  struct act_rule *r, char *err, size_t errsz)
{
	const char *e = act_next_word(args, pos, nargs);

	r->action = act_set_addr;
	r->release = act_gen_release;
	r->arg.gen.i[0] = !strcmp(r->kw, "set-src")	   ? ADDR_SRC
			  : !strcmp(r->kw, "set-src-port") ? ADDR_SRC_PORT
			  : !strcmp(r->kw, "set-dst")	   ? ADDR_DST
							   : ADDR_DST_PORT;
	r->arg.gen.expr = act_parse_expr(e ? e : "", ap, err, errsz);
	return r->arg.gen.expr ? 0 : -1;
}

/* ---- wait-for-body ---- */

/* Moves the views of <m> that pointed into [old, old + len) to the same offsets from <new>
 * (the buffer they point into was realigned). */
static void msg_rebase(struct h1_msg *m, const char *old, const char *new, size_t len)
{
	struct ist *v[] = { &m->meth, &m->uri, &m->vsn, &m->reason };

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (v[i]->ptr >= old && v[i]->ptr < old + len)
			v[i]->ptr = new + (v[i]->ptr - old);
	for (uint16_t i = 0; i < m->nhdr; i++) {
		if (m->hdr[i].n.ptr >= old && m->hdr[i].n.ptr < old + len)
			m->hdr[i].n.ptr = new + (m->hdr[i].n.ptr - old);
		if (m->hdr[i].v.ptr >= old && m->hdr[i].v.ptr < old + len)
			m->hdr[i].v.ptr = new + (m->hdr[i].v.ptr - old);
	}
}

/* True when the whole body of <m> is in <ib> (or there is none). */
static bool body_complete(const struct buf *ib, const struct h1_msg *m, const struct h1_xfer *x,
			  bool eof)
{
	uint64_t have = ib->data - m->hdr_len;
	struct h1_chunk ck = { 0 };
	int done = 0;

	switch (x->mode) {
	case XFER_CLEN:
		return have >= x->remain;
	case XFER_CHUNKED:
		h1_chunk_scan(&ck, b_head(ib) + m->hdr_len, (size_t)have, global.tune_bufsize,
			      &done);
		return done;
	case XFER_EOF:
		return eof;
	default:
		return true;
	}
}

/* Sends "100 Continue" to a client waiting for it before sending its body. */
static void send_100_continue(struct stream *s)
{
	static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";
	struct conn *f = s->front;

	if (!(s->req.flags & H1_MF_EXPECT_100) || (s->flags & SF_SENT_100))
		return;
	s->flags |= SF_SENT_100;
	http_hdr_del(&s->req, IST("Expect"));
	if (b_get(&f->obuf) == 0)
		b_putblk(&f->obuf, cont, sizeof(cont) - 1);
	conn_flush(f);
}

/* The body did not come in time: 408 to the client, or 504 for a response. */
static enum act_return wait_body_expired(struct stream *s, bool req)
{
	int status = req ? 408 : 504;
	int start;

	if (req) {
		CNT_INC(s->fe->fe_cnt, failed_req);
		s->flags |= SF_FRONT_CLOSE;
	} else {
		CNT_INC(s->be->be_cnt, failed_resp);
		if (s->srv)
			CNT_INC(s->srv->cnt, failed_resp);
	}
	start = stream_reply_start(s);
	if (start < 0 || stream_put_error_page(s, status, false) != 0) {
		if (start >= 0)
			s->front->obuf.data = (uint32_t)start;
		return ACT_RET_ABRT;
	}
	s->err_status = status;
	s->status = status;
	return ACT_RET_DONE;
}

/* rule->arg.gen: i[0] time (ms), i[1] at-least (bytes, 0: the whole body) */
static enum act_return act_wait_body(struct act_rule *r, struct proxy *px, struct stream *s,
				     int from)
{
	bool req = from == ACT_F_HTTP_REQ;
	struct conn *src = req ? s->front : s->back;
	struct h1_msg *m = req ? &s->req : &s->rsp;
	const struct h1_xfer *x = req ? &s->reqx : &s->rspx;
	uint64_t atleast = (uint64_t)r->arg.gen.i[1];
	struct buf *ib = &src->ibuf;

	if (req)
		send_100_continue(s);
	for (;;) {
		const char *old = b_head(ib);
		bool eof = src->flags & (CO_FL_RD_EOF | CO_FL_ERROR);

		if (body_complete(ib, m, x, eof) || eof ||
		    (atleast && ib->data - m->hdr_len >= atleast) || (!b_room(ib) && !ib->head))
			goto done;
		if (conn_recv(src) <= 0 && !(src->flags & (CO_FL_RD_EOF | CO_FL_ERROR)))
			break;
		if (b_head(ib) != old)
			msg_rebase(m, old, b_head(ib), ib->size);
	}
	if (s->flags & SF_RULE_EXPIRED) {
		s->flags &= ~SF_RULE_EXPIRED;
		s->rule_exp = 0;
		return wait_body_expired(s, req);
	}
	if (!s->rule_exp) {
		s->rule_exp = tick_add((int)r->arg.gen.i[0]);
		timer_set(&s->tmr, s->rule_exp);
	}
	return ACT_RET_YIELD;
done:
	if (s->rule_exp) {
		timer_del(&s->tmr);
		s->rule_exp = 0;
	}
	s->flags &= ~SF_RULE_EXPIRED;
	return ACT_RET_CONT;
}

/* wait-for-body time T [at-least SIZE] */
static int parse_wait_body(char **args, int *pos, int nargs, const struct act_parse *ap,
			   struct act_rule *r, char *err, size_t errsz)
{
	bool has_time = false;
	const char *w;

	r->action = act_wait_body;
	while ((w = act_next_word(args, pos, nargs))) {
		const char *a, *bad;
		int ms;

		if (strcmp(w, "time") && strcmp(w, "at-least")) {
			(*pos)--;
			break;
		}
		a = act_next_word(args, pos, nargs);
		if (!a) {
			snprintf(err, errsz, "missing argument for '%s'", w);
			return -1;
		}
		if (!strcmp(w, "time")) {
			bad = parse_time_ms(a, 1, &ms);
			if (bad) {
				snprintf(err, errsz, "unexpected character '%c'", *bad);
				return -1;
			}
			r->arg.gen.i[0] = ms;
			has_time = true;
		} else {
			uint64_t sz;

			bad = parse_size(a, &sz);
			if (bad) {
				snprintf(err, errsz, "unexpected character '%c'", *bad);
				return -1;
			}
			r->arg.gen.i[1] = (long long)sz;
		}
	}
	if (!has_time) {
		snprintf(err, errsz, "expects time <time> [ at-least <bytes> ]");
		return -1;
	}
	return 0;
}

/* ---- early-hint ---- */

/* Ends the 103 response being built and sends it. */
static void early_hint_close(struct stream *s)
{
	b_putblk(&s->front->obuf, "\r\n", 2); /* the room was kept by the last header */
	s->flags &= ~SF_EH_OPEN;
	conn_flush(s->front);
}

static enum act_return act_early_hint(struct act_rule *r, struct proxy *px, struct stream *s,
				      int from);

/* True when the rule after <r> adds to the same 103 response: an early-hint rule without
 * a condition (as HAProxy groups them). */
static bool early_hint_continues(const struct act_rule *r, const struct stream *s)
{
	const struct act_rule *n;

	if (r->list.next == s->rule_list)
		return false;
	n = list_elem(r->list.next, const struct act_rule, list);
	return n->action == act_early_hint && !n->cond;
}

/* rule->arg.hdr: name, fmt. Consecutive early-hint rules (the later ones without a
 * condition) make one "103 Early Hints"; an HTTP/1.0 client gets none. */
static enum act_return act_early_hint(struct act_rule *r, struct proxy *px, struct stream *s,
				      int from)
{
	static const char sl[] = "HTTP/1.1 103 Early Hints\r\n";
	struct buf *ob = &s->front->obuf;
	bool open = s->flags & SF_EH_OPEN;
	struct ist n = r->arg.hdr.name;
	struct smp_ctx ctx;
	size_t need;
	char *v;
	int vl;

	if (!(s->req.flags & H1_MF_VER_11))
		return ACT_RET_CONT;
	act_smp_ctx(&ctx, s, px, from);
	v = smp_trash();
	vl = v ? lf_render(&r->arg.hdr.fmt, &ctx, v, smp_trash_size()) : -1;
	need = (open ? 0 : sizeof(sl) - 1) + n.len + 2 + (size_t)(vl > 0 ? vl : 0) + 4;
	if (vl < 0 || !http_value_is_safe(ist2(v, (size_t)vl)) || b_get(ob) < 0)
		goto fail;
	if (b_room(ob) < need)
		b_realign(ob);
	if (b_room(ob) < need)
		goto fail;
	if (!open)
		b_putblk(ob, sl, sizeof(sl) - 1);
	for (size_t i = 0; i < n.len; i++) {
		char c = n.ptr[i];

		b_putblk(ob, &(char){ (char)(c >= 'A' && c <= 'Z' ? c + 32 : c) }, 1);
	}
	b_putblk(ob, ": ", 2);
	b_putblk(ob, v, (uint32_t)vl);
	b_putblk(ob, "\r\n", 2);
	s->flags |= SF_EARLY_HINTS | SF_EH_OPEN;
	if (!early_hint_continues(r, s))
		early_hint_close(s);
	return ACT_RET_CONT;
fail:
	if (open)
		early_hint_close(s);
	return ACT_RET_ERR;
}

static void act_early_hint_release(struct act_rule *r)
{
	free((char *)r->arg.hdr.name.ptr);
	lf_free(&r->arg.hdr.fmt);
}

/* early-hint NAME FMT */
static int parse_early_hint(char **args, int *pos, int nargs, const struct act_parse *ap,
			    struct act_rule *r, char *err, size_t errsz)
{
	const char *name = act_next_word(args, pos, nargs);
	const char *fmt = name ? act_next_word(args, pos, nargs) : NULL;

	if (!fmt) {
		snprintf(err, errsz, "expects exactly 2 arguments");
		return -1;
	}
	r->action = act_early_hint;
	r->release = act_early_hint_release;
	if (act_set_name(&r->arg.hdr.name, name, err, errsz) < 0)
		return -1;
	return act_parse_fmt(&r->arg.hdr.fmt, fmt, ap, err, errsz);
}

/* ---- set-timeout ---- */

enum tmo_kind {
	TMO_SERVER = 0,
	TMO_TUNNEL,
	TMO_CLIENT,
};

/* rule->arg.gen: i[0] kind, i[1] constant ms or expr */
static enum act_return act_set_timeout(struct act_rule *r, struct proxy *px, struct stream *s,
				       int from)
{
	long long ms = r->arg.gen.i[1];

	if (r->arg.gen.expr) {
		struct smp_ctx ctx;
		struct sample smp;

		act_smp_ctx(&ctx, s, px, from);
		memset(&smp, 0, sizeof(smp));
		smp.ctx = &ctx;
		if (!sample_process_as(r->arg.gen.expr, &smp, SMP_T_SINT))
			return ACT_RET_CONT;
		ms = smp.data.u.sint;
	}
	if (ms <= 0 || ms > INT32_MAX)
		return ACT_RET_CONT;
	if (r->arg.gen.i[0] == TMO_SERVER)
		s->srv_timeout = (int)ms;
	else if (r->arg.gen.i[0] == TMO_TUNNEL)
		s->tunnel_timeout = (int)ms;
	else
		s->cli_timeout = (int)ms;
	return ACT_RET_CONT;
}

/* set-timeout server|tunnel|client TIME|EXPR */
static int parse_set_timeout(char **args, int *pos, int nargs, const struct act_parse *ap,
			     struct act_rule *r, char *err, size_t errsz)
{
	const char *kind = act_next_word(args, pos, nargs);
	const char *val = kind ? act_next_word(args, pos, nargs) : NULL;
	const char *bad;
	int ms;

	r->action = act_set_timeout;
	r->release = act_gen_release;
	if (!val) {
		snprintf(err, errsz, "expects exactly 2 arguments");
		return -1;
	}
	if (!strcmp(kind, "server") || !strcmp(kind, "tunnel")) {
		r->arg.gen.i[0] = kind[0] == 's' ? TMO_SERVER : TMO_TUNNEL;
		if (!(ap->px->cap & (PR_CAP_BE | PR_CAP_DEF))) {
			snprintf(err, errsz, "proxy '%s' has no backend capability", ap->px->id);
			return -1;
		}
	} else if (!strcmp(kind, "client")) {
		r->arg.gen.i[0] = TMO_CLIENT;
	} else {
		snprintf(err, errsz,
			 "'set-timeout' rule supports 'server'/'tunnel'/'client' (got "
			 "'%s')",
			 kind);
		return -1;
	}
	bad = parse_time_ms(val, 1, &ms);
	if (!bad) {
		if (!ms) {
			snprintf(err, errsz, "null value is not valid for a 'set-timeout %s' rule",
				 kind);
			return -1;
		}
		r->arg.gen.i[1] = ms;
		return 0;
	}
	r->arg.gen.expr = act_parse_expr(val, ap, err, errsz);
	if (!r->arg.gen.expr) {
		snprintf(err, errsz, "unexpected character '%c' in rule 'set-timeout %s'", *bad,
			 kind);
		return -1;
	}
	return 0;
}

/* ---- strict-mode, disable-l7-retry ---- */

static enum act_return act_strict_mode(struct act_rule *r, struct proxy *px, struct stream *s,
				       int from)
{
	if (r->arg.gen.i[0])
		s->flags &= ~SF_SOFT_RW;
	else
		s->flags |= SF_SOFT_RW;
	return ACT_RET_CONT;
}

/* strict-mode on|off */
static int parse_strict_mode(char **args, int *pos, int nargs, const struct act_parse *ap,
			     struct act_rule *r, char *err, size_t errsz)
{
	const char *v = act_next_word(args, pos, nargs);

	r->action = act_strict_mode;
	if (!v) {
		snprintf(err, errsz, "expects exactly 1 arguments");
		return -1;
	}
	if (strcmp(v, "on") && strcmp(v, "off")) {
		snprintf(err, errsz, "Unexpected value '%s'. Only 'on' and 'off' are supported", v);
		return -1;
	}
	r->arg.gen.i[0] = !strcmp(v, "on");
	return 0;
}

/* The stream is only retried after connection failures, whatever "retry-on" says (the
 * flag is read when the request is sent, stream_established). */
static enum act_return act_no_l7_retry(struct act_rule *r, struct proxy *px, struct stream *s,
				       int from)
{
	s->flags |= SF_NO_L7_RETRY;
	return ACT_RET_CONT;
}

static int parse_no_l7_retry(char **args, int *pos, int nargs, const struct act_parse *ap,
			     struct act_rule *r, char *err, size_t errsz)
{
	r->action = act_no_l7_retry;
	return 0;
}

/* ---- wait-for-handshake ---- */

/* TLS early data (0-RTT) is never accepted ("allow-0rtt" is refused), so a request is only
 * parsed once the handshake is over: there is nothing to wait for. */
static enum act_return act_wait_handshake(struct act_rule *r, struct proxy *px, struct stream *s,
					  int from)
{
	return ACT_RET_CONT;
}

static int parse_wait_handshake(char **args, int *pos, int nargs, const struct act_parse *ap,
				struct act_rule *r, char *err, size_t errsz)
{
	r->action = act_wait_handshake;
	return 0;
}

#define REQ ACT_F_HTTP_REQ
#define RES ACT_F_HTTP_RES
#define AFTER ACT_F_HTTP_AFTER
#define TCP_CNT (ACT_F_TCP_REQ_CNT | ACT_F_TCP_RES_CNT)
#define TCP_REQ (ACT_F_TCP_REQ_CON | ACT_F_TCP_REQ_SES | ACT_F_TCP_REQ_CNT)
static const struct action_kw http_act_misc_kws[] = {
	{ "set-status", RES | AFTER, 0, parse_set_status },
	{ "set-log-level", REQ | RES | TCP_CNT, 0, parse_set_log_level },
	{ "set-src", REQ | TCP_REQ, 0, parse_set_addr },
	{ "set-src-port", REQ | TCP_REQ, 0, parse_set_addr },
	{ "set-dst", REQ | TCP_REQ, 0, parse_set_addr },
	{ "set-dst-port", REQ | TCP_REQ, 0, parse_set_addr },
	{ "wait-for-handshake", REQ, 0, parse_wait_handshake },
	{ "wait-for-body", REQ | RES, 0, parse_wait_body },
	{ "early-hint", REQ, 0, parse_early_hint },
	{ "set-timeout", REQ, 0, parse_set_timeout },
	{ "strict-mode", REQ | RES | AFTER, 0, parse_strict_mode },
	{ "disable-l7-retry", REQ, 0, parse_no_l7_retry },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(http_act_misc_kws);
