/* Runtime of rule-based checks ("tcp-check" lines and the protocol checks): runs a
 * check's rules in order on its thread (connect, send, expect), without blocking, with
 * the response bounded by the check's buffer (tune.bufsize) and the whole run by the
 * check's deadline; reports through chk_finish() in HAProxy 2.6's wording
 * ("TCPCHK did not match content 'x' at step 2"). Owns no state but struct check's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <backend/server-t.h>
#include <base/atomic.h>
#include <check/check.h>
#include <check/check_pp.h>
#include <check/check_http.h>
#include <check/check_ssl.h>
#include <check/tcpcheck.h>
#include <event/loop.h>
#include <proc/global-t.h>
#include <proxy/proxy-t.h>
#include <sample/logfmt.h>

#define TCPCHK_PH_CONNECT 1 /* the same values as check.c's CHK_PH_*: its timer reads them */
#define TCPCHK_PH_RUN 3

#define TCPCHK_INFO_MAX 320

static const char *const tcpchk_exp_names[] = {
	[TCPCHK_EXP_STRING] = "string",
	[TCPCHK_EXP_RSTRING] = "regex",
	[TCPCHK_EXP_BINARY] = "binary",
	[TCPCHK_EXP_RBINARY] = "binary regex",
	[TCPCHK_EXP_STRING_LF] = "string",
	[TCPCHK_EXP_BINARY_LF] = "binary",
	[TCPCHK_EXP_MYSQL_HS] = "custom function",
	[TCPCHK_EXP_MYSQL_OK] = "custom function",
	[TCPCHK_EXP_LDAP] = "custom function",
	[TCPCHK_EXP_HTTP] = "http",
	[TCPCHK_EXP_HTTP_HDR] = "http header",
};

static bool tcpchk_builtin(const struct check *c)
{
	return c->tcp->flags & TCPCHK_F_BUILTIN;
}

/* Renders log-format <lf> into out[0..sz) with a NUL after it, for the check's proxy;
 * returns the length or -1. No stream: fetches that need one find nothing. */
static int tcpchk_render(struct check *c, const struct lf_expr *lf, char *out, size_t sz)
{
	struct smp_ctx ctx;
	int n;

	tcpchk_smp_ctx(c, &ctx);
	n = sz ? lf_render(lf, &ctx, out, sz - 1) : -1;
	tcpchk_smp_done();

	if (n >= 0)
		out[n] = 0; /* also used as a C string (notices) */
	return n;
}

/* Appends " comment: 'C'" (or without quotes) to <info>. */
static void tcpchk_add_comment(const struct tcpchk_rule *r, char *info, size_t sz, bool quotes)
{
	size_t l = strlen(info);

	if (r->comment && l < sz)
		snprintf(info + l, sz - l, quotes ? " comment: '%s'" : " comment: %s", r->comment);
}

/* A connection-level failure (<err> is errno or 0 for a timeout) at the current rule:
 * "Connection refused at step 1 of tcp-check (connect)", as 2.6 words it. */
static void tcpchk_conn_fail(struct check *c, int res, int err)
{
	const struct tcpchk_rule *r = c->tstep < c->tcp->n ? &c->tcp->r[c->tstep] : NULL;
	const char *what = err ? strerror(err) : "";
	char info[TCPCHK_INFO_MAX];

	if (tcpchk_builtin(c)) {
		if (r && r->act == TCPCHK_ACT_EXPECT && !err && r->tout_status)
			res = r->tout_status;
		chk_finish(c, res, 0, err ? what : NULL);
		return;
	}
	if (!r || (r->act == TCPCHK_ACT_CONNECT && !c->tconn_rule) ||
	    (c->phase == TCPCHK_PH_CONNECT && !c->tconn_rule))
		snprintf(info, sizeof(info), "%s at initial connection step of tcp-check", what);
	else if (r->act == TCPCHK_ACT_CONNECT)
		snprintf(info, sizeof(info), "%s at step %d of tcp-check (connect)", what,
			 c->tstep + 1);
	else if (r->act == TCPCHK_ACT_SEND)
		snprintf(info, sizeof(info), "%s at step %d of tcp-check (send)", what,
			 c->tstep + 1);
	else if (r->kind == TCPCHK_EXP_STRING || r->kind == TCPCHK_EXP_BINARY)
		snprintf(info, sizeof(info), "%s at step %d of tcp-check (expect %s '%s')", what,
			 c->tstep + 1, tcpchk_exp_names[r->kind], r->pattern);
	else
		snprintf(info, sizeof(info), "%s at step %d of tcp-check (expect %s)", what,
			 c->tstep + 1, tcpchk_exp_names[r->kind]);
	if (r)
		tcpchk_add_comment(r, info, sizeof(info), true);
	if (r && r->act == TCPCHK_ACT_EXPECT && !err && r->tout_status)
		res = r->tout_status;
	chk_finish(c, res, 0, info);
}

/* Opens the connection of connect rule <r> (NULL: the implicit first connect). Returns 0
 * while connecting, -1 when the run has ended. */
static int tcpchk_connect(struct check *c, const struct tcpchk_rule *r)
{
	struct sockaddr_storage ss;
	socklen_t sl = chk_target(c->srv, &ss);
	int fd, one = 1;

	chk_close(c);
	if (r && r->addr.ss_family) {
		uint16_t port = ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
							 : ((struct sockaddr_in *)&ss)->sin_port;

		ss = r->addr;
		sl = ss.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					      : sizeof(struct sockaddr_in);
		if (ss.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&ss)->sin6_port = port;
		else
			((struct sockaddr_in *)&ss)->sin_port = port;
	}
	if (r && r->port) {
		if (ss.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)r->port);
		else if (ss.ss_family == AF_INET)
			((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)r->port);
	}
	c->tconn_rule = r != NULL;
	c->phase = TCPCHK_PH_CONNECT;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		chk_finish(c, CHK_R_SOCKERR, 0, strerror(errno));
		return -1;
	}
	if (ss.ss_family != AF_UNIX)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (r && r->linger) {
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	c->fh.fd = fd;
	if (connect(fd, (struct sockaddr *)&ss, sl) < 0 && errno != EINPROGRESS) {
		tcpchk_conn_fail(c, CHK_R_L4CON, errno);
		return -1;
	}
	if (fd_register(&c->fh) < 0) {
		chk_finish(c, CHK_R_SOCKERR, 0, strerror(errno));
		return -1;
	}
	return 0;
}

/* Drives the TLS handshake of a connect (tstep is still the connect rule's). Returns 1
 * when done, 0 while waiting, -1 when the run ended ("SSL handshake failure at step 1 of
 * tcp-check (connect)", as 2.6). */
static int tcpchk_tls(struct check *c)
{
	const struct tcpchk_rule *r = c->tconn_rule ? &c->tcp->r[c->tstep] : NULL;
	const char *why = NULL;
	char info[TCPCHK_INFO_MAX];
	int ret = chk_ssl_step(c, &why);

	if (ret >= 0)
		return ret;
	if (tcpchk_builtin(c)) {
		chk_finish(c, CHK_R_L6RSP, 0, why);
		return -1;
	}
	if (!r)
		snprintf(info, sizeof(info), "%s at initial connection step of tcp-check", why);
	else
		snprintf(info, sizeof(info), "%s at step %d of tcp-check (connect)", why,
			 c->tstep + 1);
	if (r)
		tcpchk_add_comment(r, info, sizeof(info), true);
	chk_finish(c, CHK_R_L6RSP, 0, info);
	return -1;
}

/* The info of HTTP expect <r> on success (<ok>) or failure: its on-success/on-error
 * format rendered into sbuf (free while expecting), or NULL when it has none. */
static const char *tcpchk_http_info(struct check *c, const struct tcpchk_rule *r, bool ok)
{
	const struct lf_expr *lf = ok ? r->on_success : r->on_error;

	if (!lf || tcpchk_render(c, lf, c->sbuf, c->bufsize) < 0)
		return NULL;
	return c->sbuf;
}

/* The whole run succeeded: the status of the last rule, as 2.6 reports it. */
static void tcpchk_success(struct check *c)
{
	const struct tcpchk_rule *r = NULL;
	char info[TCPCHK_INFO_MAX];
	const char *msg = tcpchk_builtin(c) ? NULL : "(tcp-check)";
	int code = 0;

	for (int i = c->tcp->n - 1; i >= 0 && !r; i--) /* variable rules do not count */
		if (c->tcp->r[i].act != TCPCHK_ACT_SETVAR &&
		    c->tcp->r[i].act != TCPCHK_ACT_UNSETVAR)
			r = &c->tcp->r[i];
	if (!r) {
		chk_finish(c, CHK_R_L4OK, 0, NULL);
		return;
	}
	if (r->act == TCPCHK_ACT_CONNECT) {
		chk_finish(c, CHK_R_L4OK, 0, msg);
		return;
	}
	if (r->act != TCPCHK_ACT_EXPECT) {
		chk_finish(c, CHK_R_L7OK, 0, msg);
		return;
	}
	if (r->kind == TCPCHK_EXP_HTTP || r->kind == TCPCHK_EXP_HTTP_HDR) {
		chk_finish(c, r->ok_status, tcpchk_code(c, r, c->tcode),
			   tcpchk_http_info(c, r, true));
		return;
	}
	if (r->on_success && tcpchk_render(c, r->on_success, info, sizeof(info)) >= 0)
		msg = info;
	else if (r->ok_msg)
		msg = r->ok_msg;
	if (r->code_smtp)
		code = c->tcode;
	code = tcpchk_code(c, r, code);
	if (r->info_ok) {
		struct ist iv = tcpchk_info_view(r->info_ok, 0, c->buf, c->rcvd);

		snprintf(info, sizeof(info), "%.*s", (int)iv.len, iv.ptr);
		msg = info;
	}
	chk_finish(c, r->ok_status, code, msg);
}

/* Expect rule <r> failed with <v>: the info 2.6 gives. */
static void tcpchk_expect_fail(struct check *c, const struct tcpchk_rule *r,
			       const struct tcpchk_verdict *v)
{
	char info[TCPCHK_INFO_MAX];
	int code = v->code;

	if (r->code_smtp)
		code = tcpchk_smtp_code(c->buf, c->rcvd);
	if (v->empty) {
		snprintf(info, sizeof(info), "TCPCHK got an empty response at step %d",
			 c->tstep + 1);
		tcpchk_add_comment(r, info, sizeof(info), false);
	} else if (r->on_error && tcpchk_render(c, r->on_error, info, sizeof(info)) >= 0) {
		;
	} else if (r->err_msg) {
		snprintf(info, sizeof(info), "%s", r->err_msg);
	} else if (r->info_err) {
		struct ist iv = tcpchk_info_view(r->info_err, r->info_err_off, c->buf, c->rcvd);

		snprintf(info, sizeof(info), "%.*s", (int)iv.len, iv.ptr);
	} else if (v->info.ptr) {
		snprintf(info, sizeof(info), "%.*s", (int)v->info.len, v->info.ptr);
	} else {
		const char *what = v->matched ? "TCPCHK matched unwanted content"
					      : "TCPCHK did not match content";

		if (r->kind == TCPCHK_EXP_STRING)
			snprintf(info, sizeof(info), "%s '%s' at step %d", what, r->pattern,
				 c->tstep + 1);
		else if (r->kind == TCPCHK_EXP_STRING_LF || r->kind == TCPCHK_EXP_BINARY_LF)
			snprintf(info, sizeof(info), "%s (log-format string) at step %d", what,
				 c->tstep + 1);
		else
			snprintf(info, sizeof(info), "%s (%s) at step %d", what,
				 tcpchk_exp_names[r->kind], c->tstep + 1);
		tcpchk_add_comment(r, info, sizeof(info), false);
	}
	chk_finish(c, v->status ? v->status : CHK_R_L7RSP, tcpchk_code(c, r, code), info);
}

/* Reads what the socket has into the buffer, up to its size. Returns 0, or -1 when the
 * run ended on a socket error. Sets teof when no more bytes can come. */
static int tcpchk_read(struct check *c)
{
	while (!c->teof) {
		ssize_t n;

		if (c->rcvd == c->bufsize) {
			c->teof = true; /* full: judge what we have */
			break;
		}
		n = chk_xrecv(c, c->buf + c->rcvd, c->bufsize - c->rcvd);
		if (n > 0) {
			c->rcvd += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n < 0 && c->rcvd == 0 && errno != ECONNRESET) {
			tcpchk_conn_fail(c, CHK_R_L7RSP, errno);
			return -1;
		}
		c->teof = true;
	}
	return 0;
}

/* HTTP expect rule <r> (http-check sequences) on the response read so far: the status,
 * body or header test, in the simple HTTP check's wording. Returns 1, 0 or -1 as below. */
static int tcpchk_do_http_expect(struct check *c, const struct tcpchk_rule *r)
{
	struct chk_http_rsp rsp;
	char reason[256];
	bool m;
	const char *info;
	int rc, st;

	if (r->min_recv >= 0 && c->rcvd < (size_t)r->min_recv && !c->teof)
		return 0; /* min-recv */
	rc = chk_http_parse(c->buf, c->rcvd, c->teof, true, &rsp);
	if (rc == CHK_P_MORE)
		return 0;
	if (rc == CHK_P_INVALID) {
		chk_finish(c, CHK_R_L7RSP, 0, NULL);
		return -1;
	}
	snprintf(reason, sizeof(reason), "%.*s", (int)rsp.reason.len, rsp.reason.ptr);
	if (r->hexp.disable_on_404 && rsp.status == 404 && c->health >= c->srv->rise) {
		chk_finish(c, CHK_R_L7OKC, 404, reason);
		return -1;
	}
	if (r->kind == TCPCHK_EXP_HTTP_HDR)
		m = tcpchk_http_hdr_match(r, c->buf, c->rcvd) != r->negate;
	else
		m = chk_expect_match(&r->hexp, &rsp);
	c->tcode = rsp.status;
	if (m)
		return 1;
	info = tcpchk_http_info(c, r, false);
	rc = tcpchk_code(c, r, rsp.status);
	if (r->hexp.kind == CHK_EXP_STRING || r->hexp.kind == CHK_EXP_RSTRING) {
		st = r->err_status ? r->err_status : CHK_R_L7RSP; /* 0: the default */
		chk_finish(c, st, rc, info ? info : "HTTP content check did not match");
	} else {
		st = r->err_status ? r->err_status : CHK_R_L7STS;
		chk_finish(c, st, rc, info ? info : reason);
	}
	return -1;
}

/* Runs expect rule <r>. Returns 1 to go on, 0 to wait, -1 when the run has ended. */
static int tcpchk_do_expect(struct check *c, const struct tcpchk_rule *r)
{
	struct tcpchk_verdict v;
	char *pat = NULL;
	int plen = 0;

	if (tcpchk_read(c) < 0)
		return -1;
	if (r->kind == TCPCHK_EXP_HTTP || r->kind == TCPCHK_EXP_HTTP_HDR)
		return tcpchk_do_http_expect(c, r);
	if (r->kind == TCPCHK_EXP_MYSQL_HS || r->kind == TCPCHK_EXP_MYSQL_OK) {
		tcpchk_mysql_eval(c->buf, c->rcvd, c->teof, r->kind == TCPCHK_EXP_MYSQL_OK, &v);
	} else if (r->kind == TCPCHK_EXP_LDAP) {
		tcpchk_ldap_eval(c->buf, c->rcvd, c->teof, &v);
	} else {
		if (r->plf) { /* rendered into sbuf, which is free while expecting */
			pat = c->sbuf;
			plen = tcpchk_render(c, r->plf, pat, c->bufsize);
			if (plen < 0)
				plen = 0;
			if (r->kind == TCPCHK_EXP_BINARY_LF)
				plen = tcpchk_hex_decode(pat, (size_t)plen, pat, c->bufsize);
			if (plen < 0) {
				chk_finish(c, CHK_R_L7RSP, 0, "invalid binary pattern");
				return -1;
			}
		}
		tcpchk_expect_eval(r, c->buf, c->rcvd, c->teof, pat, (size_t)plen, c->hex, &v);
	}
	if (v.v == TCPCHK_V_MORE)
		return 0;
	if (v.v == TCPCHK_V_FAIL) {
		tcpchk_expect_fail(c, r, &v);
		return -1;
	}
	if (r->code_smtp)
		c->tcode = tcpchk_smtp_code(c->buf, c->rcvd);
	return 1;
}

/* Runs send rule <r>. Returns 1 to go on, 0 to wait for room, -1 when the run ended. */
static int tcpchk_do_send(struct check *c, const struct tcpchk_rule *r)
{
	const char *data = r->data;
	size_t len = r->len;

	if (r->lf || r->http_state || r->ulf || r->blf) {
		data = c->sbuf;
		len = c->slen;
	}
	while (c->sent < len) {
		ssize_t n = chk_xsend(c, data + c->sent, len - c->sent);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0) {
			tcpchk_conn_fail(c, CHK_R_L4CON, n < 0 ? errno : EPIPE);
			return -1;
		}
		c->sent += (size_t)n;
	}
	return 1;
}

/* The "x-haproxy-server-state" header line of send-state, as 2.6 writes it, into
 * out[0..sz). Returns its length, or -1 when it does not fit. */
static int tcpchk_state_hdr(struct check *c, char *out, size_t sz)
{
	const struct server *s = c->srv, *o;
	int rs = HA_ATOMIC_LOAD_RLX(&s->run_state), h = c->health, tw = 0, n;
	char st[32], node[128] = "", ab[64] = "-";
	int port = 0;

	for (o = s->px->srv; o; o = o->next)
		if (HA_ATOMIC_LOAD_RLX(&o->run_state) != SRV_RS_DOWN && !(o->flags & SRV_F_BACKUP))
			tw += o->weight;
	if (rs == SRV_RS_DOWN && h > 0)
		snprintf(st, sizeof(st), "DOWN %d/%d", h, s->rise);
	else if (rs != SRV_RS_DOWN && h < s->rise + s->fall - 1)
		snprintf(st, sizeof(st), "%s %d/%d", rs == SRV_RS_NOLB ? "NOLB" : "UP",
			 h - s->rise + 1, s->fall);
	else
		snprintf(st, sizeof(st), "%s",
			 rs == SRV_RS_DOWN   ? "DOWN"
			 : rs == SRV_RS_NOLB ? "NOLB"
					     : "UP");
	if (global.node)
		snprintf(node, sizeof(node), "%s", global.node);
	else
		gethostname(node, sizeof(node) - 1);
	if (s->addr.ss_family == AF_INET) {
		const struct sockaddr_in *a4 = (const struct sockaddr_in *)&s->addr;

		inet_ntop(AF_INET, &a4->sin_addr, ab, sizeof(ab));
		port = ntohs(a4->sin_port);
	} else if (s->addr.ss_family == AF_INET6) {
		const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)&s->addr;

		inet_ntop(AF_INET6, &a6->sin6_addr, ab, sizeof(ab));
		port = ntohs(a6->sin6_port);
	}
	n = snprintf(out, sz,
		     "x-haproxy-server-state: %s; address=%s; port=%d; "
		     "name=%s/%s; node=%s; weight=%d/%d; scur=%d/%d; qcur=%d\r\n",
		     st, ab, port, s->px->id, s->id, node, s->weight, tw,
		     HA_ATOMIC_LOAD_RLX(&s->cur_conns), HA_ATOMIC_LOAD_RLX(&s->px->beconn), 0);
	return n < 0 || (size_t)n >= sz ? -1 : n;
}

/* Appends p[0..n) to sbuf at c->slen; false when it does not fit. */
static bool tcpchk_put(struct check *c, const char *p, size_t n)
{
	if (n > c->bufsize - c->slen)
		return false;
	memcpy(c->sbuf + c->slen, p, n);
	c->slen += n;
	return true;
}

/* The request of HTTP send rule <r> rendered into sbuf: its uri-lf at uri_off, the
 * send-state header and the body-lf with its content-length before the blank line (the
 * hex room holds the rendered URI and body meanwhile). Returns 0 or -1 (run ended). */
static int tcpchk_http_req(struct check *c, const struct tcpchk_rule *r)
{
	char st[512], cl[40];
	char *u = c->hex, *b = c->hex + c->bufsize;
	int sl = 0, ul = 0, bl = 0, cll = 0;
	size_t uo = r->ulf ? r->uri_off : 0;

	if (r->http_state)
		sl = tcpchk_state_hdr(c, st, sizeof(st));
	if (r->ulf)
		ul = tcpchk_render(c, r->ulf, u, c->bufsize);
	if (r->blf) {
		bl = tcpchk_render(c, r->blf, b, c->bufsize + 1);
		cll = snprintf(cl, sizeof(cl), "content-length: %d\r\n", bl);
	}
	c->slen = 0;
	if (sl < 0 || ul < 0 || bl < 0 || cll < 0 || !tcpchk_put(c, r->data, uo) ||
	    !tcpchk_put(c, u, (size_t)ul) || !tcpchk_put(c, r->data + uo, r->hdr_end - uo) ||
	    !tcpchk_put(c, st, (size_t)sl) || !tcpchk_put(c, cl, (size_t)cll) ||
	    !tcpchk_put(c, r->data + r->hdr_end, r->len - r->hdr_end) ||
	    !tcpchk_put(c, b, (size_t)bl)) {
		chk_finish(c, CHK_R_SOCKERR, 0, "the check request does not fit");
		return -1;
	}
	return 0;
}

/* Prepares send rule <r> at its start: a fresh response buffer and the bytes to send.
 * Returns 0 or -1 when the run ended. */
static int tcpchk_send_prepare(struct check *c, const struct tcpchk_rule *r)
{
	int n;

	c->rcvd = 0;
	c->teof = false;
	c->sent = 0;
	c->slen = 0;
	if (r->http_state || r->ulf || r->blf)
		return tcpchk_http_req(c, r);
	if (!r->lf)
		return 0;
	n = tcpchk_render(c, r->lf, c->sbuf, c->bufsize);
	if (n >= 0 && r->lf_hex)
		n = tcpchk_hex_decode(c->sbuf, (size_t)n, c->sbuf, c->bufsize);
	if (n < 0) {
		chk_finish(c, CHK_R_L7RSP, 0,
			   "tcp-check send: the data does not fit or is not hex");
		return -1;
	}
	c->slen = (size_t)n;
	return 0;
}

/* Runs rules from c->tstep until one must wait or the run ends. */
static void tcpchk_run(struct check *c)
{
	while (c->tstep < c->tcp->n) {
		const struct tcpchk_rule *r = &c->tcp->r[c->tstep];
		int rc;

		if (r->act == TCPCHK_ACT_SETVAR || r->act == TCPCHK_ACT_UNSETVAR) {
			tcpchk_do_var(c, r);
			c->tstep++;
			continue;
		}
		if (r->act == TCPCHK_ACT_CONNECT) {
			tcpchk_connect(c, r); /* tcpchk_io goes on from the next rule */
			return;
		}
		if (c->fh.fd < 0) { /* cannot happen: the first rule connects */
			chk_finish(c, CHK_R_SOCKERR, 0, "no connection");
			return;
		}
		if (r->act == TCPCHK_ACT_SEND) {
			if (!c->tsending && tcpchk_send_prepare(c, r) < 0)
				return;
			c->tsending = true;
			rc = tcpchk_do_send(c, r);
		} else {
			rc = tcpchk_do_expect(c, r);
		}
		if (rc <= 0)
			return;
		c->tstep++;
		c->tsending = false;
	}
	tcpchk_success(c);
}

/* True when the first rule other than set-var/unset-var is a connect. */
static bool tcpchk_first_connects(const struct tcpchk_rules *rs)
{
	for (int i = 0; i < rs->n; i++)
		if (rs->r[i].act != TCPCHK_ACT_SETVAR && rs->r[i].act != TCPCHK_ACT_UNSETVAR)
			return rs->r[i].act == TCPCHK_ACT_CONNECT;
	return false;
}

void tcpchk_start(struct check *c)
{
	uint64_t all;

	c->tstep = 0;
	c->teof = c->tsending = false;
	c->tcode = 0;
	c->rcvd = c->slen = c->sent = 0;
	tcpchk_vars_reset(c); /* check.* lives for one run */
	/* the timer: the connect deadline until connected, then the whole run's */
	chk_deadlines(c, c->start_ms, &c->conn_deadline, &all);
	c->timer.expire = 0;
	timer_set(&c->timer, c->conn_deadline < all ? c->conn_deadline : all);
	c->conn_deadline = all;
	if (tcpchk_first_connects(c->tcp))
		tcpchk_run(c); /* variable rules, then the first connect */
	else
		tcpchk_connect(c, NULL); /* the implicit first connect */
}

/* The PROXY header opens the connection of "connect send-proxy", or of the implicit
 * connect and "connect default" when the server's checks send it (check-send-proxy). */
static bool tcpchk_pp_wanted(const struct check *c)
{
	const struct tcpchk_rule *r = c->tconn_rule ? &c->tcp->r[c->tstep] : NULL;

	if (r && r->send_proxy)
		return true;
	return (!r || r->deflt) && c->srv->pp_opts && chk_pp_wanted(c->srv);
}

void tcpchk_io(struct check *c, uint32_t events)
{
	if (c->phase == TCPCHK_PH_CONNECT) {
		int err = 0;
		socklen_t len = sizeof(err);

		if (getsockopt(c->fh.fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			err = errno;
		if (err) {
			tcpchk_conn_fail(c, CHK_R_L4CON, err);
			return;
		}
		if (!(events & EPOLLOUT))
			return;
		c->phase = TCPCHK_PH_RUN;
		c->rcvd = 0;
		c->teof = false;
		if (c->srv->px->timeout.check) /* connected: "timeout check" from now on */
			c->conn_deadline = now_ms() + (uint64_t)c->srv->px->timeout.check;
		timer_set(&c->timer, c->conn_deadline);
		if (unlikely(tcpchk_pp_wanted(c)) && chk_pp_send(c) < 0)
			return; /* the PROXY header before TLS (check_pp.c) */
		/* TLS (check_ssl.c): the implicit connect and "connect default" */
		c->ssl_hs = chk_ssl_wanted(c) && (!c->tconn_rule || c->tcp->r[c->tstep].deflt);
		if (c->tconn_rule && !c->ssl_hs)
			c->tstep++;
	}
	if (unlikely(c->ssl_hs)) {
		if (tcpchk_tls(c) <= 0)
			return;
		if (c->tconn_rule)
			c->tstep++;
	}
	tcpchk_run(c);
}

void tcpchk_timeout(struct check *c)
{
	if (c->phase == TCPCHK_PH_CONNECT) {
		tcpchk_conn_fail(c, CHK_R_L4TOUT, 0);
		return;
	}
	if (now_ms() < c->conn_deadline) {
		timer_set(&c->timer, c->conn_deadline);
		return;
	}
	if (unlikely(c->ssl_hs)) {
		chk_ssl_timeout(c);
		return;
	}
	tcpchk_conn_fail(c, CHK_R_L7TOUT, 0);
}
