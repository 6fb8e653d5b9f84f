/* The "option X" and "no option X" keywords of proxy sections (and "no log"): connection
 * modes, forwardfor, redispatch, http-buffer-request, the obsolete http-use-htx, logging
 * options (warned about: no logging yet) and the options not implemented yet, refused.
 */
#include <arpa/inet.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backend/be_transp.h>
#include <cfg/cfg.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>

/* An option parser: args[a] is the option name, <neg> for "no option". */
struct pxopt {
	const char *name;
	uint32_t cap;             /* PR_CAP_FE/BE needed (either one when both) */
	int (*parse)(struct cfg_ctx *ctx, int a, bool neg);
};

/* http-keep-alive, http-server-close, httpclose: exclusive, the last one wins. */
static int pxopt_http_mode(struct cfg_ctx *ctx, int a, bool neg, uint32_t flag)
{
	uint32_t *o = &ctx->px->options;

	if (proxy_cfg_max_args(ctx, a, 1) < 0)
		return -1;
	if (neg) {
		*o &= ~flag;
		if (!(*o & PR_O_HTTP_MODE_MASK))
			*o |= PR_O_HTTP_KAL;
		return 0;
	}
	*o = (*o & ~PR_O_HTTP_MODE_MASK) | flag;
	return 0;
}

static int pxopt_kal(struct cfg_ctx *ctx, int a, bool neg)
{
	return pxopt_http_mode(ctx, a, neg, PR_O_HTTP_KAL);
}

static int pxopt_scl(struct cfg_ctx *ctx, int a, bool neg)
{
	return pxopt_http_mode(ctx, a, neg, PR_O_HTTP_SCL);
}

static int pxopt_clo(struct cfg_ctx *ctx, int a, bool neg)
{
	return pxopt_http_mode(ctx, a, neg, PR_O_HTTP_CLO);
}

/* forceclose: HAProxy 1.x, removed in 2.x; closest is httpclose. */
static int pxopt_forceclose(struct cfg_ctx *ctx, int a, bool neg)
{
	cfg_warn(ctx, "'option forceclose' is deprecated (removed in HAProxy 2.0); it is mapped "
		 "to 'option httpclose'. Please use 'option httpclose' instead.");
	return pxopt_http_mode(ctx, a, neg, PR_O_HTTP_CLO);
}

/* Simple boolean options (http-buffer-request). */
static int pxopt_bool(struct cfg_ctx *ctx, int a, bool neg, uint32_t flag)
{
	if (proxy_cfg_max_args(ctx, a, 1) < 0)
		return -1;
	if (neg)
		ctx->px->options &= ~flag;
	else
		ctx->px->options |= flag;
	return 0;
}

static int pxopt_buf_req(struct cfg_ctx *ctx, int a, bool neg)
{
	return pxopt_bool(ctx, a, neg, PR_O_BUF_REQ);
}

static int pxopt_no_delay(struct cfg_ctx *ctx, int a, bool neg)
{
	return pxopt_bool(ctx, a, neg, PR_O_HTTP_NO_DELAY);
}

static int pxopt_idle_close(struct cfg_ctx *ctx, int a, bool neg)
{
	return pxopt_bool(ctx, a, neg, PR_O_IDLE_CLOSE_RSP);
}

static int pxopt_ign_probes(struct cfg_ctx *ctx, int a, bool neg)
{
	return pxopt_bool(ctx, a, neg, PR_O_IGN_PROBES);
}

static int pxopt_splice(struct cfg_ctx *ctx, int a, bool neg)
{
	const char *n = ctx->args[a];

	return pxopt_bool(ctx, a, neg, !strcmp(n, "splice-auto")      ? PR_O_SPLICE_AUTO
				       : !strcmp(n, "splice-request") ? PR_O_SPLICE_REQ
								      : PR_O_SPLICE_RSP);
}

static int pxopt_clitcpka(struct cfg_ctx *ctx, int a, bool neg)
{
	return pxopt_bool(ctx, a, neg, PR_O_CLITCPKA);
}

static int pxopt_srvtcpka(struct cfg_ctx *ctx, int a, bool neg)
{
	return pxopt_bool(ctx, a, neg, PR_O_SRVTCPKA);
}

/* option tcpka: both sides, as far as the proxy has them. */
static int pxopt_tcpka(struct cfg_ctx *ctx, int a, bool neg)
{
	uint32_t flags = 0;

	if (ctx->px->cap & (PR_CAP_FE | PR_CAP_DEF))
		flags |= PR_O_CLITCPKA;
	if (ctx->px->cap & (PR_CAP_BE | PR_CAP_DEF))
		flags |= PR_O_SRVTCPKA;
	return pxopt_bool(ctx, a, neg, flags);
}

static int pxopt_abortonclose(struct cfg_ctx *ctx, int a, bool neg)
{
	return pxopt_bool(ctx, a, neg, PR_O_ABRT_CLOSE);
}

static int pxopt_prefer_last(struct cfg_ctx *ctx, int a, bool neg)
{
	return pxopt_bool(ctx, a, neg, PR_O_PREF_LAST);
}

static int pxopt_pretend_ka(struct cfg_ctx *ctx, int a, bool neg)
{
	return pxopt_bool(ctx, a, neg, PR_O_PRETEND_KA);
}

static int pxopt_persist(struct cfg_ctx *ctx, int a, bool neg)
{
	return pxopt_bool(ctx, a, neg, PR_O_PERSIST);
}

/* option socket-stats: "show stat" adds a line per listener (stats/stat_proxy.c) */
static int pxopt_socket_stats(struct cfg_ctx *ctx, int a, bool neg)
{
	return pxopt_bool(ctx, a, neg, PR_O_SOCK_STATS);
}

/* option allbackups: every usable backup shares the load, not only the first one */
static int pxopt_allbackups(struct cfg_ctx *ctx, int a, bool neg)
{
	return pxopt_bool(ctx, a, neg, PR_O_ALL_BK);
}

/* Parses an IPv4 "NET[/BITS|/MASK]" into net/mask. Returns 0 or -1. */
static int pxopt_parse_net4(const char *s, struct in_addr *net, struct in_addr *mask)
{
	char buf[64];
	const char *slash = strchr(s, '/');
	size_t len = slash ? (size_t)(slash - s) : strlen(s);
	long bits;
	char *end;

	if (len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	if (inet_pton(AF_INET, buf, net) != 1)
		return -1;
	mask->s_addr = htonl(0xffffffffu);
	if (slash) {
		if (strchr(slash + 1, '.')) {
			if (inet_pton(AF_INET, slash + 1, mask) != 1)
				return -1;
		} else {
			bits = strtol(slash + 1, &end, 10);
			if (!slash[1] || *end || bits < 0 || bits > 32)
				return -1;
			mask->s_addr = bits ? htonl(0xffffffffu << (32 - bits)) : 0;
		}
	}
	net->s_addr &= mask->s_addr;
	return 0;
}

/* option forwardfor [except NET[/MASK]] [header NAME] [if-none] */
static int pxopt_forwardfor(struct cfg_ctx *ctx, int a, bool neg)
{
	struct proxy *px = ctx->px;
	const char *hdr = "X-Forwarded-For";
	bool ifnone = false, except = false;
	struct in_addr net = { 0 }, mask = { 0 };
	int i;

	if (neg) {
		cfg_alert(ctx, "negation/default is not supported for option 'forwardfor'.");
		return -1;
	}
	for (i = a + 1; i < ctx->nargs; i++) {
		const char *w = ctx->args[i];

		if (!strcmp(w, "if-none")) {
			ifnone = true;
		} else if (!strcmp(w, "header")) {
			if (++i >= ctx->nargs || !*ctx->args[i]) {
				cfg_alert(ctx, "'option forwardfor header' expects <header_name> as "
					  "argument.");
				return -1;
			}
			hdr = ctx->args[i];
		} else if (!strcmp(w, "except")) {
			if (++i >= ctx->nargs) {
				cfg_alert(ctx, "'option forwardfor except' expects <address>[/mask] as "
					  "argument.");
				return -1;
			}
			if (strchr(ctx->args[i], ':'))
				return proxy_cfg_later(ctx, "option forwardfor except <ipv6>",
						       "IPv6 networks are not implemented yet");
			if (pxopt_parse_net4(ctx->args[i], &net, &mask) < 0) {
				cfg_alert(ctx, "'option forwardfor except' expects <address>[/mask] as "
					  "argument.");
				return -1;
			}
			except = true;
		} else {
			cfg_alert(ctx, "'option forwardfor' only supports optional values: 'except', "
				  "'header' and 'if-none'.");
			return -1;
		}
	}
	if (proxy_ist_set(&px->fwdfor_hdr, hdr) < 0)
		return cfg_alert(ctx, "out of memory."), -1;
	px->options |= PR_O_FWDFOR;
	px->options = ifnone ? (px->options | PR_O_FF_IFNONE) : (px->options & ~PR_O_FF_IFNONE);
	px->fwdfor_has_except = except;
	px->fwdfor_except_net = net;
	px->fwdfor_except_mask = mask;
	return 0;
}

/* option originalto [except NET[/MASK]] [header NAME] */
static int pxopt_originalto(struct cfg_ctx *ctx, int a, bool neg)
{
	struct proxy *px = ctx->px;
	const char *hdr = "X-Original-To";
	struct in_addr net = { 0 }, mask = { 0 };
	bool except = false;
	int i;

	if (neg) {
		cfg_alert(ctx, "negation/default is not supported for option 'originalto'.");
		return -1;
	}
	for (i = a + 1; i < ctx->nargs; i++) {
		const char *w = ctx->args[i];

		if (!strcmp(w, "header")) {
			if (++i >= ctx->nargs || !*ctx->args[i]) {
				cfg_alert(ctx, "'option originalto header' expects <header_name> as "
					  "argument.");
				return -1;
			}
			hdr = ctx->args[i];
		} else if (!strcmp(w, "except")) {
			if (++i < ctx->nargs && strchr(ctx->args[i], ':'))
				return proxy_cfg_later(ctx, "option originalto except <ipv6>",
						       "IPv6 networks are not implemented yet");
			if (i >= ctx->nargs || pxopt_parse_net4(ctx->args[i], &net, &mask) < 0) {
				cfg_alert(ctx, "'option originalto except' expects <address>[/mask] as "
					  "argument.");
				return -1;
			}
			except = true;
		} else {
			cfg_alert(ctx, "'option originalto' only supports optional values: 'except' "
				  "and 'header'.");
			return -1;
		}
	}
	if (proxy_ist_set(&px->origto_hdr, hdr) < 0)
		return cfg_alert(ctx, "out of memory."), -1;
	px->options |= PR_O_ORIGTO;
	px->origto_has_except = except;
	px->origto_except_net = net;
	px->origto_except_mask = mask;
	return 0;
}

/* option redispatch [N]: N > 0 every Nth retry, -1 (default) the last retry, 0 never. */
static int pxopt_redispatch(struct cfg_ctx *ctx, int a, bool neg)
{
	struct proxy *px = ctx->px;
	long n = -1;

	if (proxy_cfg_max_args(ctx, a, 2) < 0)
		return -1;
	if (neg) {
		px->options &= ~PR_O_REDISP;
		return 0;
	}
	if (a + 1 < ctx->nargs &&
	    proxy_cfg_int(ctx, "option redispatch", ctx->args[a + 1], INT_MIN, INT_MAX, &n) < 0)
		return -1;
	if (n < -1)
		return proxy_cfg_later(ctx, "option redispatch <negative>", "redispatching on the "
				       "Nth retry before the last is not implemented yet; use -1 or "
				       "a positive interval");
	if (n == 0) {
		px->options &= ~PR_O_REDISP;
		return 0;
	}
	px->options |= PR_O_REDISP;
	px->redispatch_every = n > 0 ? (int)n : 0;
	return 0;
}

static int pxopt_htx(struct cfg_ctx *ctx, int a, bool neg)
{
	cfg_warn(ctx, "'%soption http-use-htx' is deprecated and ignored. The HTX mode is now the "
		 "only supported mode.", neg ? "no " : "");
	return 0;
}

int (*proxy_logopt_hook)(struct cfg_ctx *ctx, int a, bool neg);

/* option httplog|tcplog|dontlognull...: parsed by log/ (log_strm.c). */
static int pxopt_logging(struct cfg_ctx *ctx, int a, bool neg)
{
	if (!proxy_logopt_hook)
		return cfg_not_supported(ctx, "logging is not linked in");
	return proxy_logopt_hook(ctx, a, neg);
}

int (*proxy_httpchk_hook)(struct cfg_ctx *ctx, int a, bool neg);

/* option httpchk: parsed by check/ (check_cfg.c). */
static int pxopt_httpchk(struct cfg_ctx *ctx, int a, bool neg)
{
	if (!proxy_httpchk_hook)
		return cfg_not_supported(ctx, "health checks are not linked in");
	if (!neg)
		ctx->px->tcpchk_kind = 0; /* the last check option wins */
	return proxy_httpchk_hook(ctx, a, neg);
}

int (*proxy_chkopt_hook)(struct cfg_ctx *ctx, int a, bool neg);

/* option tcp-check|ssl-hello-chk|redis-check|...: parsed by check/ (tcpcheck_cfg.c). */
static int pxopt_chkopt(struct cfg_ctx *ctx, int a, bool neg)
{
	if (!proxy_chkopt_hook)
		return cfg_not_supported(ctx, "health checks are not linked in");
	return proxy_chkopt_hook(ctx, a, neg);
}

#define FEBE (PR_CAP_FE | PR_CAP_BE)
static const struct pxopt pxopts[] = {
	{ "httpchk", PR_CAP_BE, pxopt_httpchk },
	{ "tcp-check", PR_CAP_BE, pxopt_chkopt },
	{ "ssl-hello-chk", PR_CAP_BE, pxopt_chkopt },
	{ "redis-check", PR_CAP_BE, pxopt_chkopt },
	{ "smtpchk", PR_CAP_BE, pxopt_chkopt },
	{ "mysql-check", PR_CAP_BE, pxopt_chkopt },
	{ "pgsql-check", PR_CAP_BE, pxopt_chkopt },
	{ "ldap-check", PR_CAP_BE, pxopt_chkopt },
	{ "external-check", PR_CAP_BE, pxopt_chkopt },
	{ "http-keep-alive", FEBE, pxopt_kal },
	{ "http-server-close", FEBE, pxopt_scl },
	{ "httpclose", FEBE, pxopt_clo },
	{ "forceclose", FEBE, pxopt_forceclose },
	{ "forwardfor", FEBE, pxopt_forwardfor },
	{ "originalto", FEBE, pxopt_originalto },
	{ "redispatch", PR_CAP_BE, pxopt_redispatch },
	{ "persist", PR_CAP_BE, pxopt_persist },
	{ "tcpka", FEBE, pxopt_tcpka },
	{ "abortonclose", PR_CAP_BE, pxopt_abortonclose },
	{ "prefer-last-server", PR_CAP_BE, pxopt_prefer_last },
	{ "http-pretend-keepalive", FEBE, pxopt_pretend_ka },
	{ "clitcpka", PR_CAP_FE, pxopt_clitcpka },
	{ "srvtcpka", PR_CAP_BE, pxopt_srvtcpka },
	{ "allbackups", PR_CAP_BE, pxopt_allbackups },
	{ "socket-stats", PR_CAP_FE, pxopt_socket_stats },
	{ "transparent", PR_CAP_BE, be_transp_parse_opt }, /* backend/be_transp.c */
	{ "http-buffer-request", FEBE, pxopt_buf_req },
	{ "http-no-delay", FEBE, pxopt_no_delay },
	{ "splice-auto", FEBE, pxopt_splice },
	{ "splice-request", FEBE, pxopt_splice },
	{ "splice-response", FEBE, pxopt_splice },
	{ "idle-close-on-response", PR_CAP_FE, pxopt_idle_close },
	{ "http-ignore-probes", PR_CAP_FE, pxopt_ign_probes },
	{ "http-use-htx", FEBE, pxopt_htx },
	{ "httplog", FEBE, pxopt_logging },
	{ "httpslog", FEBE, pxopt_logging },
	{ "tcplog", FEBE, pxopt_logging },
	{ "dontlognull", PR_CAP_FE, pxopt_logging },
	{ "dontlog-normal", PR_CAP_FE, pxopt_logging },
	{ "log-separate-errors", PR_CAP_FE, pxopt_logging },
	{ "logasap", PR_CAP_FE, pxopt_logging },
	{ "log-health-checks", PR_CAP_BE, pxopt_logging },
	{ NULL, 0, NULL },
};

/* HAProxy options not implemented yet, each with the reason given to the user. */
static const char *const pxopt_later[][2] = {
	{ "spop-check", "SPOP health checks are not implemented yet" },
	{ "accept-invalid-http-request", "relaxed HTTP parsing is not implemented yet" },
	{ "accept-invalid-http-response", "relaxed HTTP parsing is not implemented yet" },
	{ "checkcache", "checkcache is not implemented yet" },
	{ "contstats", "stats are not implemented yet" },
	{ "disable-h2-upgrade", "HTTP/2 is not implemented yet" },
	{ "h1-case-adjust-bogus-client", "header case adjustment is not implemented yet" },
	{ "h1-case-adjust-bogus-server", "header case adjustment is not implemented yet" },
	{ "http-restrict-req-hdr-names", "header name restrictions are not implemented yet" },
	{ "http_proxy", "the HTTP forward-proxy mode is not implemented yet" },
	{ "http-tunnel", "removed in HAProxy 2.1; use 'option http-keep-alive'" },
	{ "independent-streams", "timeouts here follow the activity of both directions; "
				 "independent-streams is not supported yet" },
	{ "nolinger", "nolinger is not implemented yet" },
	{ "tcp-smart-accept", "tcp-smart-accept is not implemented yet" },
	{ "tcp-smart-connect", "tcp-smart-connect is not implemented yet" },
};

/* Parses "option NAME ..." with args[a] the name. */
static int pxopt_dispatch(struct cfg_ctx *ctx, int a, bool neg)
{
	const char *name = a < ctx->nargs ? ctx->args[a] : "";
	const struct pxopt *o;
	size_t i;

	if (!ctx->px)
		return -1;
	for (o = pxopts; o->name; o++) {
		if (strcmp(o->name, name) != 0)
			continue;
		if (!proxy_cfg_has_cap(ctx, o->cap, name))
			return 0;
		return o->parse(ctx, a, neg);
	}
	for (i = 0; i < sizeof(pxopt_later) / sizeof(pxopt_later[0]); i++) {
		if (strcmp(pxopt_later[i][0], name) == 0) {
			char what[96];

			snprintf(what, sizeof(what), "option %s", name);
			return proxy_cfg_later(ctx, what, pxopt_later[i][1]);
		}
	}
	if (*name && cfg_known_why(CFG_KNOWN_OPTION, name)) {
		char what[96];

		snprintf(what, sizeof(what), "option %s", name);
		return proxy_cfg_later(ctx, what, cfg_known_why(CFG_KNOWN_OPTION, name));
	}
	if (!*name)
		cfg_alert(ctx, "'%soption' expects an option name.", neg ? "no " : "");
	else
		cfg_alert(ctx, "unknown option '%s'.", name);
	return -1;
}

static int pxopt_kw_option(struct cfg_ctx *ctx)
{
	return pxopt_dispatch(ctx, 1, false);
}

/* "no option X" and "no log". */
static int pxopt_kw_no(struct cfg_ctx *ctx)
{
	const char *what = ctx->nargs > 1 ? ctx->args[1] : "";

	if (!strcmp(what, "option"))
		return pxopt_dispatch(ctx, 2, true);
	if (!strcmp(what, "log") && ctx->nargs == 2) {
		if (proxy_no_log_hook)
			proxy_no_log_hook(ctx->px);
		return 0;
	}
	cfg_alert(ctx, "'no' is only supported before 'option' and 'log' (got 'no %s').", what);
	return -1;
}

static const struct cfg_kw pxopt_kws[] = {
	{ "option", CFG_SEC_PROXIES, pxopt_kw_option },
	{ "no", CFG_SEC_PROXIES, pxopt_kw_no },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(pxopt_kws);
