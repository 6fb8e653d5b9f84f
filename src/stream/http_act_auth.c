/* Actions that refuse a request without serving it: auth (the 401 page of the proxy with
 * a Basic challenge for the realm), tarpit (the stream waits "timeout tarpit", or the
 * connect timeout, then answers its reply, 500 by default), reject (close without an
 * answer) and silent-drop (the connection disappears without the client being told:
 * TCP_REPAIR when allowed, else a TTL of 1 and a reset, as HAProxy).
 */
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <base/buf.h>
#include <conn/connection.h>
#include <event/loop.h>
#include <http/status.h>
#include <proxy/proxy-t.h>
#include <stats/counters.h>
#include <stream/action.h>
#include <stream/http_err.h>
#include <stream/http_reply.h>
#include <stream/http_rw.h>
#include <stream/stream.h>

#ifndef TCP_REPAIR
#define TCP_REPAIR 19
#endif

/* ---- auth ---- */

/* rule->arg.gen.str: the realm (owned), empty for the proxy's name */
static enum act_return act_auth(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	struct ist realm = r->arg.gen.str.len ? r->arg.gen.str : ist_str(px->id), v;
	/* 407 belongs to forward proxies ("option http-use-proxy-header"), not supported */
	struct ist hdr = IST("www-authenticate");
	int status = 401, start, ret;
	struct rw_build b;

	start = stream_reply_start(s);
	if (start < 0)
		return ACT_RET_ERR;
	ret = stream_put_error_page(s, status, false);
	if (ret > 0)
		return ACT_RET_ABRT; /* an empty errorfile: close without answering */
	if (ret < 0 || http_local_parse(s, (uint32_t)start) < 0)
		goto fail;
	rwb_begin(&b, s);
	rwb_put(&b, IST("Basic realm=\""));
	rwb_put(&b, realm);
	rwb_put(&b, IST("\""));
	if (!rwb_end(&b, s, &v))
		goto fail;
	/* the page's own challenges are replaced by this one */
	http_hdr_del(&s->rsp, hdr);
	if (http_hdr_add(s, &s->rsp, hdr, v) < 0 || http_local_rebuild(s, (uint32_t)start) < 0)
		goto fail;
	s->status = status;
	return ACT_RET_DONE;
fail:
	s->front->obuf.data = (uint32_t)start; /* the page written so far goes */
	return ACT_RET_ERR;
}

static void act_auth_release(struct act_rule *r)
{
	free((char *)r->arg.gen.str.ptr);
}

/* auth [realm REALM] */
static int parse_auth(char **args, int *pos, int nargs, const struct act_parse *ap,
		      struct act_rule *r, char *err, size_t errsz)
{
	r->action = act_auth;
	r->release = act_auth_release;
	r->flags |= ACT_FL_FINAL;
	if (*pos < nargs && !strcmp(args[*pos], "realm")) {
		(*pos)++;
		if (*pos >= nargs || act_is_cond_word(args[*pos])) {
			snprintf(err, errsz, "missing realm value");
			return -1;
		}
		return act_set_name(&r->arg.gen.str, args[(*pos)++], err, errsz);
	}
	return 0;
}

/* ---- tarpit ---- */

/* The first run arms the delay and yields; the stream runs the rule again when the delay
 * is over (the deny) or when the client does something (it may have left). */
static enum act_return act_tarpit(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	struct proxy *bpx = s->be ? s->be : s->fe;
	struct conn *f = s->front;
	int ms;

	if (s->flags & SF_RULE_EXPIRED) {
		s->flags &= ~SF_RULE_EXPIRED;
		s->rule_exp = 0;
		return ACT_RET_DENY;
	}
	if (!s->rule_exp) {
		ms = bpx->timeout.tarpit ? bpx->timeout.tarpit : bpx->timeout.connect;
		if (ms <= 0)
			return ACT_RET_DENY;
		s->rule_exp = tick_add(ms);
		timer_set(&s->tmr, s->rule_exp);
	}
	while (conn_recv(f) > 0)
		; /* whatever the client sends meanwhile stays for later */
	if (f->flags & (CO_FL_RD_EOF | CO_FL_ERROR)) {
		s->rule_exp = 0;
		timer_del(&s->tmr);
		return ACT_RET_ABRT;
	}
	return ACT_RET_YIELD;
}

static void act_tarpit_release(struct act_rule *r)
{
	http_reply_free(r->arg.reply);
}

/* tarpit [deny_status N] [reply options]: the reply of deny, 500 by default */
static int parse_tarpit(char **args, int *pos, int nargs, const struct act_parse *ap,
			struct act_rule *r, char *err, size_t errsz)
{
	struct http_reply *rp;

	r->action = act_tarpit;
	r->release = act_tarpit_release;
	r->flags |= ACT_FL_FINAL | ACT_FL_VERDICT;
	rp = r->arg.reply = http_reply_parse(args, pos, nargs, ap, 500, true, err, errsz);
	if (!rp)
		return -1;
	if (rp->type == HTTP_REPLY_EMPTY && !rp->nb_hdrs && !rp->ctype.len)
		rp->type = HTTP_REPLY_ERRMSG; /* without a payload: the status' error page */
	if (rp->type == HTTP_REPLY_ERRMSG && !rp->errmsg && !http_status_has_page(rp->status)) {
		snprintf(err, errsz,
			 "status code '%d' not handled by default with "
			 "'default-errorfiles' argument",
			 rp->status);
		return -1;
	}
	if (rp->type == HTTP_REPLY_ERRFILES)
		r->check = http_reply_check_rule;
	return 0;
}

/* ---- reject, silent-drop ---- */

static void count_denied(struct stream *s, int from)
{
	if (from == ACT_F_HTTP_REQ) {
		CNT_INC(s->fe->fe_cnt, denied_req);
		if (s->be && s->be != s->fe)
			CNT_INC(s->be->be_cnt, denied_req);
		return;
	}
	CNT_INC(s->fe->fe_cnt, denied_resp);
	if (s->be)
		CNT_INC(s->be->be_cnt, denied_resp);
}

static enum act_return act_reject(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	count_denied(s, from);
	return ACT_RET_ABRT;
}

/* The client's socket is closed without telling the client: in TCP repair mode nothing
 * is sent at all; otherwise the reset leaves with a TTL of 1 (it dies at the first
 * router). */
static void silent_close_prepare(int fd, int family)
{
	struct linger nolinger = { .l_onoff = 1, .l_linger = 0 };
	int one = 1;

	if (fd < 0 || setsockopt(fd, IPPROTO_TCP, TCP_REPAIR, &one, sizeof(one)) == 0)
		return;
	if (family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_UNICAST_HOPS, &one, sizeof(one));
	else
		setsockopt(fd, IPPROTO_IP, IP_TTL, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &nolinger, sizeof(nolinger));
}

static enum act_return act_silent_drop(struct act_rule *r, struct proxy *px, struct stream *s,
				       int from)
{
	count_denied(s, from);
	s->front->flags |= CO_FL_WR_ERR; /* nothing more leaves, not even a TLS alert */
	silent_close_prepare(s->front->h.fd, s->front->peer.ss_family);
	s->front->obuf.data = 0;
	return ACT_RET_ABRT;
}

static int parse_final(char **args, int *pos, int nargs, const struct act_parse *ap,
		       struct act_rule *r, char *err, size_t errsz)
{
	r->action = !strcmp(r->kw, "reject") ? act_reject : act_silent_drop;
	r->flags |= ACT_FL_FINAL;
	return 0;
}

static const struct action_kw http_act_auth_kws[] = {
	{ "auth", ACT_F_HTTP_REQ, 0, parse_auth },
	{ "tarpit", ACT_F_HTTP_REQ, 0, parse_tarpit },
	{ "reject", ACT_F_HTTP_REQ, 0, parse_final },
	{ "silent-drop", ACT_F_HTTP_REQ | ACT_F_HTTP_RES, 0, parse_final },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(http_act_auth_kws);
