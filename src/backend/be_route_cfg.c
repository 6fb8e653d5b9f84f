/* Where a backend's connections go and come from, config side: "source ADDR[:PORT]" on
 * backends and servers (bound before connect; "usesrc" refused: no TPROXY), the server
 * option "redir PREFIX", "dispatch ADDR:PORT", "http-send-name-header NAME",
 * "max-session-srv-conns" (accepted),
 * and HAProxy 3.x's "hash-preserve-affinity" (refused). The runtime parts are in
 * mux/h1_back.c (bind) and stream/be_route.c (redirect, header).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backend/server.h>
#include <backend/srv_limits.h>
#include <base/addr.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>

/* addr_parse() with an optional port, ":0" (any) included. */
static int route_addr_parse(const char *str, struct addr_res *res, char *err, size_t errsz)
{
	size_t len = strlen(str);
	char tmp[ADDR_HOST_MAX];

	if (len > 2 && len < sizeof(tmp) && !strcmp(str + len - 2, ":0") && str[len - 3] != ':') {
		memcpy(tmp, str, len - 2);
		tmp[len - 2] = 0;
		str = tmp;
	}
	return addr_parse(str, ADDR_F_PORT_MAP, res, err, errsz);
}

/* Parses "source ADDR[:PORT]" at args[a] into <ss>/<len>. <who> names the owner in
 * messages. Returns the number of words consumed (>= 1) or -1 after an alert. */
static int route_parse_source(struct cfg_ctx *ctx, int a, const char *who,
			      struct sockaddr_storage *ss, socklen_t *len)
{
	struct addr_res res;
	char err[320];

	if (a >= ctx->nargs || !*ctx->args[a]) {
		cfg_alert(ctx, "%s'source' expects <addr>[:<port>] as argument.", who);
		return -1;
	}
	if (route_addr_parse(ctx->args[a], &res, err, sizeof(err)) != ADDR_OK ||
	    (res.ss.ss_family != AF_INET && res.ss.ss_family != AF_INET6) || res.port_off) {
		cfg_alert(ctx, "%s'source' : invalid source address '%s'.", who, ctx->args[a]);
		return -1;
	}
	if (a + 1 < ctx->nargs &&
	    (!strcmp(ctx->args[a + 1], "usesrc") || !strcmp(ctx->args[a + 1], "interface"))) {
		cfg_alert(ctx,
			  "%s'source ... %s' is not supported yet (it needs transparent "
			  "proxying (TPROXY) or interface binding, not implemented)",
			  who, ctx->args[a + 1]);
		return -1;
	}
	*ss = res.ss;
	*len = res.len;
	return 1;
}

int srv_route_parse_opt(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	const char *opt = ctx->args[*i];
	char who[320];
	int n;

	snprintf(who, sizeof(who), "'server %s/%s' : ", srv->px ? srv->px->id : "", srv->id);
	if (!strcmp(opt, "source")) {
		n = route_parse_source(ctx, *i + 1, who, &srv->src, &srv->srclen);
		if (n < 0)
			return -1;
		*i += n;
		return 0;
	}
	if (!strcmp(opt, "redir")) {
		char *v;

		if (*i + 1 >= ctx->nargs || !*ctx->args[*i + 1]) {
			cfg_alert(ctx, "%s'redir' expects <prefix> as argument.", who);
			return -1;
		}
		v = strdup(ctx->args[++*i]);
		if (!v) {
			cfg_alert(ctx, "out of memory.");
			return -1;
		}
		free(srv->redir);
		srv->redir = v;
		srv->flags |= SRV_F_REDIR;
		return 0;
	}
	return 1;
}

/* source ADDR[:PORT] (defaults, backend, listen) */
static int route_kw_source(struct cfg_ctx *ctx)
{
	if (!ctx->px)
		return -1;
	if (!proxy_cfg_has_cap(ctx, PR_CAP_BE, ctx->args[0]))
		return 0;
	if (route_parse_source(ctx, 1, "", &ctx->px->src, &ctx->px->srclen) < 0)
		return -1;
	return proxy_cfg_max_args(ctx, 2, 0);
}

/* http-send-name-header NAME (defaults, backend, listen) */
static int route_kw_send_name(struct cfg_ctx *ctx)
{
	if (!ctx->px)
		return -1;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'%s' requires a header string.", ctx->args[0]);
		return -1;
	}
	if (!proxy_cfg_has_cap(ctx, PR_CAP_BE, ctx->args[0]))
		return 0;
	if (proxy_ist_set(&ctx->px->srv_name_hdr, ctx->args[1]) < 0) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	return 0;
}

/* max-session-srv-conns N (defaults, frontend, listen): a session keeps at most one
 * server connection of its own here ("http-reuse never"), so any N >= 1 holds. */
static int route_kw_max_sess_conns(struct cfg_ctx *ctx)
{
	long v;

	if (!ctx->px || cfg_need_args(ctx, 1) < 0)
		return -1;
	if (!(ctx->px->cap & (PR_CAP_DEF | PR_CAP_FE))) {
		cfg_warn(ctx, "'%s' ignored because %s '%s' has no frontend capability.",
			 ctx->args[0], proxy_type_str(ctx->px), ctx->px->id);
		return 0;
	}
	return cfg_parse_int_arg(ctx, ctx->args[1], 0, INT_MAX, &v);
}

/* dispatch ADDR:PORT (backend, listen): a server of its own, outside the server list */
static int route_kw_dispatch(struct cfg_ctx *ctx)
{
	struct proxy *px = ctx->px;
	struct server *srv = NULL;
	struct addr_res res;
	char err[320];

	if (!px || proxy_cfg_in_defaults(ctx, ctx->args[0]) || cfg_need_args(ctx, 1) < 0)
		return -1;
	if (!proxy_cfg_has_cap(ctx, PR_CAP_BE, ctx->args[0]))
		return 0;
	if (addr_parse(ctx->args[1], 0, &res, err, sizeof(err)) != ADDR_OK ||
	    (res.ss.ss_family != AF_INET && res.ss.ss_family != AF_INET6)) {
		cfg_alert(ctx, "'%s' : %s", ctx->args[0],
			  res.ss.ss_family == AF_UNIX ? "a unix socket is not supported" : err);
		return -1;
	}
	srv = calloc(1, sizeof(*srv));
	if (!srv || !(srv->id = strdup("<dispatch>")) || !(srv->file = strdup(ctx->file))) {
		cfg_alert(ctx, "out of memory.");
		if (srv)
			free(srv->id);
		free(srv);
		return -1;
	}
	srv->px = px;
	srv->line = ctx->line;
	srv->addr = res.ss;
	srv->addrlen = res.len;
	srv->weight = 1;
	srv_limits_init(srv);
	if (px->dispatch) {
		free(px->dispatch->id);
		free(px->dispatch->file);
		free(px->dispatch);
	}
	px->dispatch = srv;
	return 0;
}

/* hash-preserve-affinity: HAProxy 3.x */
static int route_kw_hpa(struct cfg_ctx *ctx)
{
	return cfg_not_supported(ctx, "it is a keyword of HAProxy 3.x that 2.6 does not have; "
				      "a full hashed server makes the request wait here");
}

static const struct cfg_kw route_kws[] = {
	{ "source", CFG_SEC_PROXIES, route_kw_source },
	{ "dispatch", CFG_SEC_PROXIES, route_kw_dispatch },
	{ "http-send-name-header", CFG_SEC_PROXIES, route_kw_send_name },
	{ "max-session-srv-conns", CFG_SEC_PROXIES, route_kw_max_sess_conns },
	{ "hash-preserve-affinity", CFG_SEC_PROXIES, route_kw_hpa },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(route_kws)
