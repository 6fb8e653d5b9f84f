/* Configuration of rule-based checks: "option tcp-check" and the "tcp-check" lines
 * (connect, send, send-lf, send-binary, send-binary-lf, expect, comment), and the protocol
 * check options built as fixed rule lists (ssl-hello-chk, redis-check, smtpchk,
 * mysql-check, pgsql-check, ldap-check). Rule lists are shared with a defaults section
 * until a proxy writes its own. Parse time only; set-var/unset-var: tcpcheck_vars.c.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfg/cfg.h>
#include <check/tcpcheck.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <sample/logfmt.h>
#include <sample/regex.h>
#include <sample/sample.h>

static void tcpchk_lf_free(struct lf_expr *lf)
{
	if (lf)
		lf_free(lf);
	free(lf);
}

static void tcpchk_rule_clear(struct tcpchk_rule *r)
{
	free(r->comment);
	free(r->data);
	free(r->pattern);
	free(r->bin);
	if (r->re)
		regex_free(r->re);
	tcpchk_lf_free(r->lf);
	tcpchk_lf_free(r->plf);
	tcpchk_lf_free(r->on_success);
	tcpchk_lf_free(r->on_error);
	free(r->hname);
	free(r->hval);
	if (r->hname_re)
		regex_free(r->hname_re);
	if (r->hval_re)
		regex_free(r->hval_re);
	tcpchk_var_clear(r);
}

void tcpchk_rules_free(struct tcpchk_rules *rs)
{
	if (!rs)
		return;
	for (int i = 0; i < rs->n; i++)
		tcpchk_rule_clear(&rs->r[i]);
	free(rs->r);
	free(rs->pending_cmt);
	free(rs);
}

void tcpchk_proxy_free(struct proxy *px)
{
	if (px->tcpchk_user_own)
		tcpchk_rules_free(px->tcpchk_user);
	if (px->tcpchk_proto_own)
		tcpchk_rules_free(px->tcpchk_proto);
	px->tcpchk_user = px->tcpchk_proto = NULL;
	px->tcpchk_user_own = px->tcpchk_proto_own = false;
}

const struct tcpchk_rules *tcpchk_proxy_rules(const struct proxy *px)
{
	static const struct tcpchk_rules none; /* option tcp-check without rules: connect */

	if (px->tcpchk_kind == TCPCHK_K_NONE || px->tcpchk_kind == TCPCHK_K_EXT)
		return NULL;
	if (px->tcpchk_kind == TCPCHK_K_TCP)
		return px->tcpchk_user ? px->tcpchk_user : &none;
	return px->tcpchk_proto;
}

/* Appends a zeroed rule of action <act> to <rs>; NULL when out of memory. */
struct tcpchk_rule *tcpchk_add(struct tcpchk_rules *rs, int act)
{
	struct tcpchk_rule *r = realloc(rs->r, (size_t)(rs->n + 1) * sizeof(*r));

	if (!r)
		return NULL;
	rs->r = r;
	r = &rs->r[rs->n++];
	memset(r, 0, sizeof(*r));
	r->act = act;
	r->min_recv = -1;
	r->ok_status = CHK_R_L7OK;
	r->err_status = CHK_R_L7RSP;
	r->tout_status = CHK_R_L7TOUT;
	r->comment = rs->pending_cmt; /* a "tcp-check comment" line names the next rule */
	rs->pending_cmt = NULL;
	return r;
}

/* Compiles log-format <s> into a new expression (*out). Returns 0 or -1 (alerted). */
int tcpchk_lf_compile(struct cfg_ctx *ctx, const char *kw, const char *s, struct lf_expr **out)
{
	struct smp_parse_ctx pc = { .file = ctx->file, .line = ctx->line, .px = ctx->px };
	struct lf_expr *lf = calloc(1, sizeof(*lf));
	char err[256];

	if (!lf) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	if (lf_compile(lf, s, &pc, err, sizeof(err)) < 0) {
		cfg_alert(ctx, "'tcp-check %s' : failed to parse log-format '%s' : %s.", kw, s,
			  err);
		tcpchk_lf_free(lf);
		return -1;
	}
	*out = lf;
	return 0;
}

static int tcpchk_strdup(struct cfg_ctx *ctx, char **dst, const char *s)
{
	free(*dst);
	*dst = strdup(s);
	if (*dst)
		return 0;
	cfg_alert(ctx, "out of memory.");
	return -1;
}

/* The proxy's own "tcp-check" list (a fresh one replaces its defaults' on first write). */
static struct tcpchk_rules *tcpchk_own(struct cfg_ctx *ctx)
{
	struct proxy *px = ctx->px;

	if (px->tcpchk_user_own)
		return px->tcpchk_user;
	px->tcpchk_user = calloc(1, sizeof(*px->tcpchk_user));
	if (!px->tcpchk_user) {
		cfg_alert(ctx, "out of memory.");
		return NULL;
	}
	px->tcpchk_user_own = true;
	return px->tcpchk_user;
}

/* tcp-check connect [default] [port N] [addr A] [linger] [comment C] */
int tcpchk_kw_connect(struct cfg_ctx *ctx, struct tcpchk_rules *rs)
{
	struct tcpchk_rule *r;

	for (int i = 0; i < rs->n; i++) { /* set-var/unset-var may come first */
		if (rs->r[i].act == TCPCHK_ACT_SETVAR || rs->r[i].act == TCPCHK_ACT_UNSETVAR)
			continue;
		if (rs->r[i].act != TCPCHK_ACT_CONNECT) {
			cfg_alert(ctx,
				  "'%s connect' : first step MUST also be a 'connect', "
				  "optionally preceded by a 'set-var', an 'unset-var' or a "
				  "'comment', when there is a 'connect' step in the tcp-check "
				  "ruleset.",
				  ctx->args[0]);
			return -1;
		}
		break;
	}
	r = tcpchk_add(rs, TCPCHK_ACT_CONNECT);
	if (!r)
		goto oom;
	for (int i = 2; i < ctx->nargs; i++) {
		const char *k = ctx->args[i], *v = i + 1 < ctx->nargs ? ctx->args[i + 1] : NULL;

		if (!strcmp(k, "default") || !strcmp(k, "linger") || !strcmp(k, "send-proxy")) {
			r->linger |= !strcmp(k, "linger");
			r->deflt |= !strcmp(k, "default");
			r->send_proxy |= !strcmp(k, "send-proxy");
			continue;
		}
		if (!strcmp(k, "via-socks4"))
			return cfg_not_supported(ctx, "SOCKS4 is not implemented yet");
		if (!strcmp(k, "ssl") || !strcmp(k, "sni") || !strcmp(k, "alpn"))
			return cfg_not_supported(ctx, "TLS options of a connect rule are not "
						      "implemented yet: 'default' uses the "
						      "server's check-ssl and check-sni");
		if (!strcmp(k, "proto"))
			return cfg_not_supported(ctx, "only HTTP/1 checks are implemented");
		if (strcmp(k, "port") && strcmp(k, "addr") && strcmp(k, "comment")) {
			cfg_alert(ctx,
				  "'tcp-check connect' : expects 'comment', 'port', 'addr', "
				  "'send-proxy', 'via-socks4', 'ssl', 'sni', 'alpn', 'proto', "
				  "'linger' or 'default' but got '%s' as argument.",
				  k);
			return -1;
		}
		if (!v) {
			cfg_alert(ctx, "'tcp-check connect' : '%s' expects a value.", k);
			return -1;
		}
		i++;
		if (!strcmp(k, "comment")) {
			if (tcpchk_strdup(ctx, &r->comment, v) < 0)
				return -1;
		} else if (!strcmp(k, "port")) {
			long p;

			if (cfg_parse_int_arg(ctx, v, 1, 65535, &p) < 0)
				return -1;
			r->port = (int)p;
		} else {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&r->addr;
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&r->addr;

			if (inet_pton(AF_INET, v, &s4->sin_addr) == 1) {
				s4->sin_family = AF_INET;
			} else if (inet_pton(AF_INET6, v, &s6->sin6_addr) == 1) {
				s6->sin6_family = AF_INET6;
			} else {
				cfg_alert(ctx, "'tcp-check connect' : invalid address '%s'.", v);
				return -1;
			}
		}
	}
	return 0;
oom:
	cfg_alert(ctx, "out of memory.");
	return -1;
}

/* tcp-check send|send-lf|send-binary|send-binary-lf DATA [comment C] */
static int tcpchk_kw_send(struct cfg_ctx *ctx, struct tcpchk_rules *rs)
{
	const char *kw = ctx->args[1];
	bool bin = strstr(kw, "binary") != NULL, lf = strstr(kw, "-lf") != NULL;
	struct tcpchk_rule *r;

	if (ctx->nargs != 3 && !(ctx->nargs == 5 && !strcmp(ctx->args[3], "comment"))) {
		cfg_alert(ctx,
			  "'tcp-check %s' expects a %s as argument, optionally followed by "
			  "'comment <text>'.",
			  kw, bin ? "binary string" : "string");
		return -1;
	}
	r = tcpchk_add(rs, TCPCHK_ACT_SEND);
	if (!r || (ctx->nargs == 5 && tcpchk_strdup(ctx, &r->comment, ctx->args[4]) < 0))
		goto oom;
	if (lf) {
		r->lf_hex = bin;
		return tcpchk_lf_compile(ctx, kw, ctx->args[2], &r->lf);
	}
	if (!bin) {
		r->len = strlen(ctx->args[2]);
		return tcpchk_strdup(ctx, &r->data, ctx->args[2]);
	}
	r->data = malloc(strlen(ctx->args[2]) / 2 + 1);
	if (!r->data)
		goto oom;
	if (tcpchk_hex_decode(ctx->args[2], strlen(ctx->args[2]), r->data,
			      strlen(ctx->args[2]) / 2 + 1) < 0) {
		cfg_alert(ctx, "'tcp-check %s' invalid binary string '%s'.", kw, ctx->args[2]);
		return -1;
	}
	r->len = strlen(ctx->args[2]) / 2;
	return 0;
oom:
	cfg_alert(ctx, "out of memory.");
	return -1;
}

/* Status names of ok-status / error-status / tout-status. */
int tcpchk_status(struct cfg_ctx *ctx, const char *kw, const char *v, int *out)
{
	static const struct {
		const char *name;
		int st;
		char kw0; /* 'o', 'e' or 't': the keyword that accepts it */
	} st[] = {
		{ "L7OK", CHK_R_L7OK, 'o' },	 { "L7OKC", CHK_R_L7OKC, 'o' },
		{ "L6OK", CHK_R_L6OK, 'o' },	 { "L4OK", CHK_R_L4OK, 'o' },
		{ "L7RSP", CHK_R_L7RSP, 'e' },	 { "L7STS", CHK_R_L7STS, 'e' },
		{ "L6RSP", CHK_R_L6RSP, 'e' },	 { "L4CON", CHK_R_L4CON, 'e' },
		{ "L7TOUT", CHK_R_L7TOUT, 't' }, { "L6TOUT", CHK_R_L6TOUT, 't' },
		{ "L4TOUT", CHK_R_L4TOUT, 't' },
	};

	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
		if (st[i].kw0 == kw[0] && !strcmp(v, st[i].name)) {
			*out = st[i].st;
			return 0;
		}
	}
	cfg_alert(ctx, "'tcp-check expect' : '%s' only supports %s (got '%s').", kw,
		  kw[0] == 'o'	 ? "'L4OK', 'L6OK', 'L7OK' or 'L7OKC'"
		  : kw[0] == 'e' ? "'L7RSP', 'L7STS', 'L6RSP' or 'L4CON'"
				 : "'L7TOUT', 'L6TOUT' or 'L4TOUT'",
		  v);
	return -1;
}

/* The pattern of expect rule <r> of kind r->kind. Returns 0 or -1 (alerted). */
static int tcpchk_pattern(struct cfg_ctx *ctx, struct tcpchk_rule *r, const char *kw,
			  const char *pat)
{
	char err[256];
	size_t l = strlen(pat);

	if (tcpchk_strdup(ctx, &r->pattern, pat) < 0)
		return -1;
	switch (r->kind) {
	case TCPCHK_EXP_BINARY:
		r->bin = malloc(l / 2 + 1);
		if (!r->bin) {
			cfg_alert(ctx, "out of memory.");
			return -1;
		}
		if (tcpchk_hex_decode(pat, l, r->bin, l / 2 + 1) < 0) {
			cfg_alert(ctx, "'tcp-check expect binary' : invalid binary string '%s'.",
				  pat);
			return -1;
		}
		r->len = l / 2;
		return 0;
	case TCPCHK_EXP_RSTRING:
	case TCPCHK_EXP_RBINARY:
		r->re = regex_comp(pat, 0, err, sizeof(err));
		if (!r->re) {
			cfg_alert(ctx, "'tcp-check expect' : regex '%s' is invalid (%s).", pat,
				  err);
			return -1;
		}
		return 0;
	case TCPCHK_EXP_STRING_LF:
	case TCPCHK_EXP_BINARY_LF:
		return tcpchk_lf_compile(ctx, "expect", pat, &r->plf);
	default:
		return 0;
	}
}

/* tcp-check expect [min-recv N] [comment C] [ok-status S] [error-status S] [tout-status S]
 * [on-success FMT] [on-error FMT] [!] string|rstring|binary|rbinary|string-lf|binary-lf P */
static int tcpchk_kw_expect(struct cfg_ctx *ctx, struct tcpchk_rules *rs)
{
	static const char *const kinds[] = { "string",	"rstring",   "binary",
					     "rbinary", "string-lf", "binary-lf" };
	struct tcpchk_rule *r = tcpchk_add(rs, TCPCHK_ACT_EXPECT);
	const char *pat = NULL, *kw = NULL;

	if (!r) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	for (int i = 2; i < ctx->nargs; i++) {
		const char *k = ctx->args[i], *v = i + 1 < ctx->nargs ? ctx->args[i + 1] : NULL;
		int kind = -1;

		if (!strcmp(k, "!")) {
			r->negate = true;
			continue;
		}
		for (int j = 0; j < 6; j++)
			if (!strcmp(k, kinds[j]))
				kind = j;
		if (kind < 0 && strcmp(k, "min-recv") && strcmp(k, "comment") &&
		    strcmp(k, "ok-status") && strcmp(k, "error-status") &&
		    strcmp(k, "tout-status") && strcmp(k, "on-success") && strcmp(k, "on-error") &&
		    strcmp(k, "status-code")) {
			cfg_alert(ctx,
				  "'tcp-check expect' : expects 'min-recv', 'comment', "
				  "'ok-status', 'error-status', 'tout-status', 'on-success', "
				  "'on-error', 'status-code', '!' or a match type ('string', "
				  "'rstring', "
				  "'binary', 'rbinary', 'string-lf', 'binary-lf') but got '%s'.",
				  k);
			return -1;
		}
		if (!v) {
			cfg_alert(ctx, "'tcp-check expect' : '%s' expects %s.", k,
				  kind >= 0 ? "a pattern" : "an argument");
			return -1;
		}
		i++;
		if (kind >= 0) {
			if (pat) {
				cfg_alert(ctx, "'tcp-check expect' : only one pattern expected.");
				return -1;
			}
			r->kind = kind;
			pat = v;
			kw = k;
		} else if (!strcmp(k, "min-recv")) {
			long n;

			if (cfg_parse_int_arg(ctx, v, -1, INT32_MAX, &n) < 0)
				return -1;
			r->min_recv = (int)n;
		} else if (!strcmp(k, "comment")) {
			if (tcpchk_strdup(ctx, &r->comment, v) < 0)
				return -1;
		} else if (!strcmp(k, "ok-status")) {
			if (tcpchk_status(ctx, k, v, &r->ok_status) < 0)
				return -1;
		} else if (!strcmp(k, "error-status")) {
			if (tcpchk_status(ctx, k, v, &r->err_status) < 0)
				return -1;
		} else if (!strcmp(k, "tout-status")) {
			if (tcpchk_status(ctx, k, v, &r->tout_status) < 0)
				return -1;
		} else if (!strcmp(k, "status-code")) {
			sample_expr_free(r->code_expr);
			r->code_expr = tcpchk_parse_expr(ctx, "expect status-code", v);
			if (!r->code_expr)
				return -1;
		} else if (tcpchk_lf_compile(ctx, "expect", v,
					     !strcmp(k, "on-success") ? &r->on_success
								      : &r->on_error) < 0) {
			return -1;
		}
	}
	if (!pat) {
		cfg_alert(ctx, "'tcp-check expect' : expects a pattern type ('string', 'rstring', "
			       "'binary', 'rbinary', 'string-lf' or 'binary-lf').");
		return -1;
	}
	return tcpchk_pattern(ctx, r, kw, pat);
}

/* tcp-check connect|send|send-lf|send-binary|send-binary-lf|expect|comment|... */
static int tcpchk_kw(struct cfg_ctx *ctx)
{
	const char *a = ctx->nargs > 1 ? ctx->args[1] : "";
	struct tcpchk_rules *rs;

	if (!ctx->px)
		return -1;
	if (!proxy_cfg_has_cap(ctx, PR_CAP_BE, "tcp-check"))
		return 0;
	if (!strncmp(a, "set-var", 7) || !strncmp(a, "unset-var", 9)) {
		rs = tcpchk_own(ctx);
		return rs ? tcpchk_kw_var(ctx, rs) : -1;
	}
	if (strcmp(a, "connect") && strcmp(a, "send") && strcmp(a, "send-lf") &&
	    strcmp(a, "send-binary") && strcmp(a, "send-binary-lf") && strcmp(a, "expect") &&
	    strcmp(a, "comment")) {
		cfg_alert(ctx,
			  "'tcp-check' only supports 'comment', 'connect', 'send', "
			  "'send-binary', 'send-lf', 'send-binary-lf', 'expect', 'set-var' "
			  "and 'unset-var' but got '%s'.",
			  a);
		return -1;
	}
	rs = tcpchk_own(ctx);
	if (!rs)
		return -1;
	if (!strcmp(a, "comment")) {
		if (ctx->nargs != 3) {
			cfg_alert(ctx, "'tcp-check comment' expects a string as argument.");
			return -1;
		}
		return tcpchk_strdup(ctx, &rs->pending_cmt, ctx->args[2]);
	}
	if (!strcmp(a, "connect"))
		return tcpchk_kw_connect(ctx, rs);
	if (!strcmp(a, "expect"))
		return tcpchk_kw_expect(ctx, rs);
	return tcpchk_kw_send(ctx, rs);
}

/* Built-in lists ---------------------------------------------------------------------- */

/* Adds a send rule of bytes data[0..len) to <rs>. */
static int tcpchk_b_send(struct tcpchk_rules *rs, const char *data, size_t len)
{
	struct tcpchk_rule *r = tcpchk_add(rs, TCPCHK_ACT_SEND);

	if (!r || !(r->data = malloc(len ? len : 1)))
		return -1;
	memcpy(r->data, data, len);
	r->len = len;
	return 0;
}

/* Adds an expect rule of <kind> with <pat> (NULL for the custom kinds). NULL on error. */
static struct tcpchk_rule *tcpchk_b_expect(struct tcpchk_rules *rs, int kind, const char *pat)
{
	struct tcpchk_rule *r = tcpchk_add(rs, TCPCHK_ACT_EXPECT);
	char err[128];

	if (!r)
		return NULL;
	r->kind = kind;
	if (pat && !(r->pattern = strdup(pat)))
		return NULL;
	if ((kind == TCPCHK_EXP_RSTRING || kind == TCPCHK_EXP_RBINARY) &&
	    !(r->re = regex_comp(pat, 0, err, sizeof(err))))
		return NULL;
	return r;
}

/* SMTP: a reply line, then its code must be 2xx. */
static int tcpchk_b_smtp_reply(struct tcpchk_rules *rs, const char *any, const char *ok)
{
	struct tcpchk_rule *r = tcpchk_b_expect(rs, TCPCHK_EXP_RSTRING, any);

	if (!r)
		return -1;
	r->min_recv = 4;
	r->info_err = TCPCHK_INFO_LINE;
	r = tcpchk_b_expect(rs, TCPCHK_EXP_RSTRING, ok);
	if (!r)
		return -1;
	r->min_recv = 4;
	r->err_status = CHK_R_L7STS;
	r->info_err = TCPCHK_INFO_SMTP;
	r->info_ok = TCPCHK_INFO_SMTP;
	r->code_smtp = true;
	return 0;
}

static int tcpchk_b_smtp(struct tcpchk_rules *rs, const char *hello)
{
	char req[512];
	int n = snprintf(req, sizeof(req), "%s\r\n", hello);

	if (n < 0 || (size_t)n >= sizeof(req))
		return -1;
	if (tcpchk_b_smtp_reply(rs, "^[0-9]{3}[ \r]", "^2[0-9]{2}[ \r]") < 0 ||
	    tcpchk_b_send(rs, req, (size_t)n) < 0 ||
	    tcpchk_b_smtp_reply(rs, "^[0-9]{3}[- \r]", "^2[0-9]{2}[- \r]") < 0 ||
	    tcpchk_b_send(rs, "QUIT\r\n", 6) < 0 ||
	    tcpchk_b_smtp_reply(rs, "^[0-9]{3}[- \r]", "^2[0-9]{2}[- \r]") < 0)
		return -1;
	rs->r[0].linger = true;
	return 0;
}

static int tcpchk_b_redis(struct tcpchk_rules *rs)
{
	static const char ping[] = "*1\r\n$4\r\nPING\r\n";
	struct tcpchk_rule *r;

	if (tcpchk_b_send(rs, ping, sizeof(ping) - 1) < 0 ||
	    !(r = tcpchk_b_expect(rs, TCPCHK_EXP_STRING, "+PONG\r\n")))
		return -1;
	r->err_status = CHK_R_L7STS;
	r->info_err = TCPCHK_INFO_LINE;
	r->ok_msg = "Redis server is ok";
	return 0;
}

/* An SSLv3 ClientHello (what 2.6 sends): any TLS server answers with a handshake or an
 * alert record, 0x16 or 0x15. */
static int tcpchk_b_ssl(struct tcpchk_rules *rs)
{
	static const unsigned char suites[] = { 0x00, 0xff, 0xc0, 0x2f, 0xc0, 0x30, 0xc0, 0x13,
						0xc0, 0x14, 0x00, 0x9c, 0x00, 0x9d, 0x00, 0x2f,
						0x00, 0x35, 0x00, 0x0a, 0x00, 0x05, 0x00, 0x04 };
	unsigned char h[128];
	size_t n = 0, body = 2 + 32 + 1 + 2 + sizeof(suites) + 2;
	struct tcpchk_rule *r;

	h[n++] = 0x16, h[n++] = 0x03, h[n++] = 0x00; /* handshake, SSLv3 */
	h[n++] = (unsigned char)((body + 4) >> 8), h[n++] = (unsigned char)(body + 4);
	h[n++] = 0x01, h[n++] = 0, h[n++] = (unsigned char)(body >> 8),
	h[n++] = (unsigned char)body;
	h[n++] = 0x03, h[n++] = 0x00; /* client version */
	for (int i = 0; i < 32; i++)  /* "random" */
		h[n++] = (unsigned char)(0x5a ^ (i * 37));
	h[n++] = 0; /* no session id */
	h[n++] = 0, h[n++] = sizeof(suites);
	memcpy(h + n, suites, sizeof(suites));
	n += sizeof(suites);
	h[n++] = 1, h[n++] = 0; /* compression: null */
	if (tcpchk_b_send(rs, (const char *)h, n) < 0 ||
	    !(r = tcpchk_b_expect(rs, TCPCHK_EXP_RBINARY, "^1[56]")))
		return -1;
	r->min_recv = 5;
	r->ok_status = CHK_R_L6OK;
	r->err_status = CHK_R_L6RSP;
	r->tout_status = CHK_R_L6TOUT;
	r->err_msg = ""; /* 2.6 reports no info for a non-TLS answer */
	return 0;
}

/* MySQL: a login packet for <user> (4.1 or older client protocol) and a QUIT, then the
 * server's handshake and its reply to the login; without a user, only the handshake. */
static int tcpchk_b_mysql(struct tcpchk_rules *rs, const char *user, bool post41)
{
	static const char quit[] = { 0x01, 0x00, 0x00, 0x00, 0x01 };
	char pkt[128 + 5];
	size_t ul = user ? strlen(user) : 0, n = 4;
	struct tcpchk_rule *r;

	if (user) {
		if (ul > 64)
			return -1;
		if (post41) { /* caps, max packet, utf8, 23 zeros */
			memcpy(pkt + n, "\x00\xa2\x00\x00\x00\x00\x00\x01\x21", 9);
			memset(pkt + n + 9, 0, 23);
			n += 32;
		} else {
			memcpy(pkt + n, "\x80\x00\x00\x00\x00", 5);
			n += 5;
		}
		memcpy(pkt + n, user, ul + 1);
		n += ul + 1;
		if (post41)
			pkt[n++] = 0; /* no password */
		pkt[0] = (char)(n - 4), pkt[1] = 0, pkt[2] = 0, pkt[3] = 1;
		memcpy(pkt + n, quit, sizeof(quit));
		n += sizeof(quit);
		if (tcpchk_b_send(rs, pkt, n) < 0)
			return -1;
	}
	r = tcpchk_b_expect(rs, TCPCHK_EXP_MYSQL_HS, NULL);
	if (!r || (user && !tcpchk_b_expect(rs, TCPCHK_EXP_MYSQL_OK, NULL)))
		return -1;
	rs->r[0].linger = user != NULL;
	return 0;
}

/* PostgreSQL: a startup packet for <user>; an error, or an authentication request. */
static int tcpchk_b_pgsql(struct tcpchk_rules *rs, const char *user)
{
	char pkt[128];
	size_t ul = strlen(user), n = 8;
	struct tcpchk_rule *r;

	if (ul > 100)
		return -1;
	memcpy(pkt + n, "user", 5);
	n += 5;
	memcpy(pkt + n, user, ul + 1);
	n += ul + 1;
	pkt[n++] = 0;
	pkt[0] = 0, pkt[1] = 0, pkt[2] = (char)(n >> 8), pkt[3] = (char)n;
	memcpy(pkt + 4, "\x00\x03\x00\x00", 4); /* protocol 3.0 */
	if (tcpchk_b_send(rs, pkt, n) < 0 || !(r = tcpchk_b_expect(rs, TCPCHK_EXP_RSTRING, "^E")))
		return -1;
	r->negate = true;
	r->min_recv = 5;
	r->info_err = TCPCHK_INFO_NUL;
	r->info_err_off = 6;
	r = tcpchk_b_expect(rs, TCPCHK_EXP_RBINARY,
			    "^52000000[A-Z0-9]{2}000000(00|02|03|04|05|06|07|09|0A)");
	if (!r)
		return -1;
	r->min_recv = 9;
	r->err_status = CHK_R_L7STS;
	r->ok_msg = "PostgreSQL server is ok";
	r->err_msg = "PostgreSQL unknown error";
	return 0;
}

static int tcpchk_b_ldap(struct tcpchk_rules *rs)
{
	static const char bind[] = "\x30\x0c\x02\x01\x01\x60\x07\x02\x01\x03\x04\x00\x80\x00";

	if (tcpchk_b_send(rs, bind, sizeof(bind) - 1) < 0 ||
	    !tcpchk_b_expect(rs, TCPCHK_EXP_LDAP, NULL))
		return -1;
	return 0;
}

/* option smtpchk [EHLO|HELO domain], mysql-check [user U [post-41|pre-41]],
 * pgsql-check user U: checks the arguments and builds the list into <rs>. */
static int tcpchk_build_proto(struct cfg_ctx *ctx, int a, int kind, struct tcpchk_rules *rs)
{
	const char *const *v = (const char *const *)ctx->args + a + 1;
	int n = ctx->nargs - a - 1, rc;
	char hello[300];

	switch (kind) {
	case TCPCHK_K_SSL:
		rc = tcpchk_b_ssl(rs);
		break;
	case TCPCHK_K_REDIS:
		rc = tcpchk_b_redis(rs);
		break;
	case TCPCHK_K_LDAP:
		rc = tcpchk_b_ldap(rs);
		break;
	case TCPCHK_K_SMTP:
		if (n >= 2 && (!strcmp(v[0], "EHLO") || !strcmp(v[0], "HELO")) &&
		    strlen(v[1]) < 256)
			snprintf(hello, sizeof(hello), "%s %s", v[0], v[1]);
		else
			snprintf(hello, sizeof(hello), "HELO localhost");
		rc = tcpchk_b_smtp(rs, hello);
		break;
	case TCPCHK_K_MYSQL:
		if (n && (strcmp(v[0], "user") || n < 2 || n > 3 ||
			  (n == 3 && strcmp(v[2], "post-41") && strcmp(v[2], "pre-41")))) {
			cfg_alert(ctx, "'option mysql-check' only supports optional values: "
				       "'user <name> [post-41|pre-41]'.");
			return -1;
		}
		if (n && strlen(v[1]) > 64) {
			cfg_alert(ctx, "'option mysql-check' : the user name is too long.");
			return -1;
		}
		rc = tcpchk_b_mysql(rs, n ? v[1] : NULL, !(n == 3 && !strcmp(v[2], "pre-41")));
		break;
	default: /* TCPCHK_K_PGSQL */
		if (n != 2 || strcmp(v[0], "user") || strlen(v[1]) > 100) {
			cfg_alert(ctx,
				  "'option pgsql-check' expects 'user <username>' as argument.");
			return -1;
		}
		rc = tcpchk_b_pgsql(rs, v[1]);
		break;
	}
	if (rc < 0)
		cfg_alert(ctx, "out of memory.");
	return rc;
}

/* [no] option tcp-check|ssl-hello-chk|redis-check|smtpchk|mysql-check|pgsql-check|
 * ldap-check: the last check option of a section wins (option httpchk included). */
static int tcpchk_opt(struct cfg_ctx *ctx, int a, bool neg)
{
	static const char *const names[] = {
		[TCPCHK_K_TCP] = "tcp-check",	   [TCPCHK_K_SSL] = "ssl-hello-chk",
		[TCPCHK_K_REDIS] = "redis-check",  [TCPCHK_K_SMTP] = "smtpchk",
		[TCPCHK_K_MYSQL] = "mysql-check",  [TCPCHK_K_PGSQL] = "pgsql-check",
		[TCPCHK_K_LDAP] = "ldap-check",	   [TCPCHK_K_HTTP] = "httpchk",
		[TCPCHK_K_EXT] = "external-check",
	};
	struct proxy *px = ctx->px;
	struct tcpchk_rules *rs;
	int kind = TCPCHK_K_TCP;

	for (int k = TCPCHK_K_TCP; k <= TCPCHK_K_EXT; k++)
		if (k != TCPCHK_K_HTTP && !strcmp(ctx->args[a], names[k]))
			kind = k;
	if (neg) {
		if (px->tcpchk_kind == kind)
			px->tcpchk_kind = TCPCHK_K_NONE;
		return 0;
	}
	if (kind == TCPCHK_K_TCP || kind == TCPCHK_K_SSL || kind == TCPCHK_K_REDIS ||
	    kind == TCPCHK_K_LDAP || kind == TCPCHK_K_EXT) {
		if (ctx->nargs > a + 1) {
			cfg_alert(ctx, "'option %s' does not expect any argument.", names[kind]);
			return -1;
		}
	}
	if (px->httpchk && px->httpchk->enabled && proxy_httpchk_hook &&
	    proxy_httpchk_hook(ctx, a, true) < 0) /* "no option httpchk": the last one wins */
		return -1;
	px->tcpchk_kind = kind;
	if (kind == TCPCHK_K_TCP || kind == TCPCHK_K_EXT) /* EXT: extcheck.c, no rules */
		return 0;
	rs = calloc(1, sizeof(*rs));
	if (!rs) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	rs->flags = TCPCHK_F_BUILTIN;
	if (tcpchk_build_proto(ctx, a, kind, rs) < 0) {
		tcpchk_rules_free(rs);
		return -1;
	}
	if (px->tcpchk_proto_own)
		tcpchk_rules_free(px->tcpchk_proto);
	px->tcpchk_proto = rs;
	px->tcpchk_proto_own = true;
	return 0;
}

static const struct cfg_kw tcpchk_kws[] = {
	{ "tcp-check", CFG_SEC_PROXIES, tcpchk_kw },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(tcpchk_kws);

__attribute__((constructor)) static void tcpchk_cfg_init(void)
{
	proxy_chkopt_hook = tcpchk_opt;
}
