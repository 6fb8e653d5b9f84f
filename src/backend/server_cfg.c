/* The "server" keyword of backend and listen sections: name, address (literal, or a host
 * name resolved once at parse time), weight, maxconn, disabled, backup, and the health-check
 * options (accepted with a warning until health checks exist). Servers are appended to
 * proxy->srv in config order. Parse time only.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backend/server.h>
#include <backend/server_pp.h>
#include <backend/srv_limits.h>
#include <base/addr.h>
#include <cfg/cfg.h>
#include <check/agent.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <ssl/ssl.h>

/* HAProxy options not implemented yet, with the reason given to the user. */
static const char *const srv_later[][2] = {
	{ "check-alpn", "ALPN on TLS health checks is not implemented yet" },
	{ "check-proto", "health checks are not implemented yet" },
	{ "proto", "HTTP/2 to servers is not implemented yet" },
	{ "usesrc", "source address binding is not implemented yet" },
	{ "namespace", "network namespaces are not implemented yet" },
	{ "tfo", "TCP fast open is not implemented yet" },
	{ "max-reuse", "idle connection pool tuning is not implemented yet" },
	{ "ws", "WebSocket server selection is not implemented yet" },
	{ "shard", "peers are not implemented yet" },
	{ "guid", "guids are not implemented yet" },
};

/* Parses the integer value of option args[*i] in [min, max]; advances *i. */
static int srv_opt_int(struct cfg_ctx *ctx, const struct server *srv, int *i, long min, long max,
		       long *out)
{
	char kw[320];

	snprintf(kw, sizeof(kw), "server %s/%s' : '%s", srv->px->id, srv->id, ctx->args[*i]);
	if (*i + 1 >= ctx->nargs) {
		cfg_alert(ctx, "'%s' expects an integer argument.", kw);
		return -1;
	}
	return proxy_cfg_int(ctx, kw, ctx->args[++*i], min, max, out);
}

/* Health-check settings: inter, fastinter, downinter (times), rise, fall, port (integers),
 * addr (an address without port). */
static int srv_opt_check_tuning(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	const char *opt = ctx->args[*i];
	char kw[320], err[320];
	struct addr_res res;
	long v;
	int ms;

	snprintf(kw, sizeof(kw), "server %s/%s' : '%s", srv->px->id, srv->id, opt);
	if (*i + 1 >= ctx->nargs) {
		cfg_alert(ctx, "'%s' expects an argument.", kw);
		return -1;
	}
	if (!strcmp(opt, "addr")) {
		if (addr_parse(ctx->args[++*i], ADDR_F_PORT_MAP, &res, err, sizeof(err)) != ADDR_OK ||
		    (res.ss.ss_family != AF_INET && res.ss.ss_family != AF_INET6)) {
			cfg_alert(ctx, "'%s' : invalid address '%s'.", kw, ctx->args[*i]);
			return -1;
		}
		srv->check_addr = res.ss;
		return 0;
	}
	if (!strcmp(opt, "rise") || !strcmp(opt, "fall") || !strcmp(opt, "port")) {
		if (proxy_cfg_int(ctx, kw, ctx->args[++*i], 1, opt[0] == 'p' ? 65535 : INT_MAX / 4, &v) < 0)
			return -1;
		*(opt[0] == 'r' ? &srv->rise : opt[0] == 'f' ? &srv->fall : &srv->check_port) = (int)v;
		return 0;
	}
	if (proxy_cfg_time(ctx, kw, ctx->args[++*i], &ms) < 0)
		return -1;
	if (ms <= 0) {
		cfg_alert(ctx, "'%s' : expects a positive delay.", kw);
		return -1;
	}
	*(opt[0] == 'i' ? &srv->inter : opt[0] == 'f' ? &srv->fastinter : &srv->downinter) = ms;
	return 0;
}

/* Parses option args[*i] of server <srv>, advancing *i past its value. Returns 0 or -1. */
static int srv_parse_opt(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	const char *opt = ctx->args[*i];
	long v;
	size_t k;
	int ext;

	if (!strcmp(opt, "weight")) {
		if (srv_opt_int(ctx, srv, i, LONG_MIN, LONG_MAX, &v) < 0)
			return -1;
		if (v < 0 || v > 256) {
			cfg_alert(ctx, "'server %s/%s' : weight of server %s is not within 0 and 256 "
				  "(%ld).", srv->px->id, srv->id, srv->id, v);
			return -1;
		}
		srv->weight = (int)v;
		return 0;
	}
	if (!strcmp(opt, "maxconn")) {
		if (srv_opt_int(ctx, srv, i, 0, INT_MAX, &v) < 0)
			return -1;
		srv->maxconn = (int)v;
		return 0;
	}
	if (!strcmp(opt, "disabled") || !strcmp(opt, "enabled")) {
		srv->flags = opt[0] == 'd' ? srv->flags | SRV_F_DISABLED : srv->flags & ~SRV_F_DISABLED;
		return 0;
	}
	if (!strcmp(opt, "non-stick") || !strcmp(opt, "stick")) {
		srv->flags = opt[0] == 'n' ? srv->flags | SRV_F_NON_STICK :
					     srv->flags & ~SRV_F_NON_STICK;
		return 0;
	}
	if (!strcmp(opt, "backup") || !strcmp(opt, "no-backup")) {
		srv->flags = opt[0] == 'b' ? srv->flags | SRV_F_BACKUP : srv->flags & ~SRV_F_BACKUP;
		return 0;
	}
	if (!strcmp(opt, "check")) {
		srv->flags |= SRV_F_CHECK;
		return 0;
	}
	if (!strcmp(opt, "cookie")) {
		char *val;

		if (*i + 1 >= ctx->nargs || !*ctx->args[*i + 1]) {
			cfg_alert(ctx, "'server %s/%s' : 'cookie' expects <value> as argument.",
				  srv->px->id, srv->id);
			return -1;
		}
		val = strdup(ctx->args[++*i]);
		if (!val) {
			cfg_alert(ctx, "out of memory.");
			return -1;
		}
		free(srv->cookie);
		srv->cookie = val;
		return 0;
	}
	if (!strcmp(opt, "id")) {
		if (!srv->px || (srv->px->cap & PR_CAP_DEF) || !strcmp(srv->id, "default-server")) {
			cfg_alert(ctx, "'id' option is not accepted in default-server sections");
			return -1;
		}
		if (srv_opt_int(ctx, srv, i, 1, INT_MAX, &v) < 0)
			return -1;
		srv->puid = (int)v;
		srv->flags |= SRV_F_FIXED_ID;
		return 0;
	}
	if (!strcmp(opt, "tcp-ut")) {
		if (*i + 1 >= ctx->nargs) {
			cfg_alert(ctx, "'server %s/%s' : 'tcp-ut' : missing TCP User Timeout value.",
				  srv->px->id, srv->id);
			return -1;
		}
		return cfg_parse_time_arg(ctx, ctx->args[++*i], &srv->tcp_ut);
	}
	if (!strcmp(opt, "no-check")) {
		srv->flags &= ~SRV_F_CHECK;
		return 0;
	}
	switch (srv_limits_parse_opt(ctx, srv, i)) { /* maxqueue, minconn, pool-* */
	case 0:
		return 0;
	case -1:
		return -1;
	}
	if (!strcmp(opt, "inter") || !strcmp(opt, "fastinter") || !strcmp(opt, "downinter") ||
	    !strcmp(opt, "rise") || !strcmp(opt, "fall") || !strcmp(opt, "port") ||
	    !strcmp(opt, "addr"))
		return srv_opt_check_tuning(ctx, srv, i);
	if (srv_ext_opt_parse && (ext = srv_ext_opt_parse(ctx, srv, i)) != 1)
		return ext; /* a DNS option (dns/dns_srv_cfg.c) */
	if ((v = srv_state_parse_opt(ctx, srv, i)) <= 0) /* slowstart... (server_state_cfg.c) */
		return (int)v;
	if ((v = agent_parse_opt(ctx, srv, i)) <= 0) /* agent-* (check/agent_cfg.c) */
		return (int)v;
	if ((v = ssl_srv_parse_opt(ctx, srv, i)) <= 0) /* TLS (ssl/ssl_srv_cfg.c) */
		return (int)v;
	if ((v = srv_pp_parse_opt(ctx, srv, i)) <= 0) /* send-proxy* (server_pp_cfg.c) */
		return (int)v;
	for (k = 0; k < sizeof(srv_later) / sizeof(srv_later[0]); k++) {
		if (!strcmp(opt, srv_later[k][0])) {
			cfg_alert(ctx, "'server %s/%s' : option '%s' is not supported yet (%s)",
				  srv->px->id, srv->id, opt, srv_later[k][1]);
			return -1;
		}
	}
	if (cfg_known_why(CFG_KNOWN_SERVER, opt)) {
		cfg_alert(ctx, "'server %s/%s' : option '%s' is not supported yet (%s)",
			  srv->px->id, srv->id, opt, cfg_known_why(CFG_KNOWN_SERVER, opt));
		return -1;
	}
	cfg_alert(ctx, "'server %s/%s' : unknown keyword '%s'.", srv->px->id, srv->id, opt);
	return -1;
}

int (*srv_ext_opt_parse)(struct cfg_ctx *ctx, struct server *srv, int *i);
int (*srv_ext_init_addr)(struct cfg_ctx *ctx, struct server *srv, const struct addr_res *res);
void (*srv_ext_release)(struct server *srv);

/* Parses the address of <srv> into <res>; a host name is left in res->host (rc
 * ADDR_HOSTNAME) for srv_ext_init_addr once the options are known. Returns 0 or -1 after
 * an alert. */
static int srv_parse_addr(struct cfg_ctx *ctx, struct server *srv, const char *str,
			  struct addr_res *hres)
{
	struct addr_res res;
	char err[320];
	int rc;

	rc = addr_parse(str, ADDR_F_HOSTNAME | ADDR_F_PORT_MAP, &res, err, sizeof(err));
	if (rc == ADDR_HOSTNAME && !srv_ext_init_addr && addr_resolve(&res, err, sizeof(err)) < 0)
		rc = ADDR_ERR;
	if (rc == ADDR_HOSTNAME && srv_ext_init_addr)
		*hres = res;
	if (rc == ADDR_ERR) {
		cfg_alert(ctx, "'server %s/%s' : %s", srv->px->id, srv->id, err);
		return -1;
	}
	if (res.port_map && res.ss.ss_family == AF_UNIX) {
		cfg_alert(ctx, "'server %s/%s' : a unix socket takes no port.", srv->px->id, srv->id);
		return -1;
	}
	srv->addr = res.ss;
	srv->addrlen = res.len;
	if (res.port_map) {
		srv->flags |= SRV_F_PORT_MAP;
		srv->port_off = res.port_off;
	}
	return 0;
}

/* Appends <srv> to its backend. A fixed id must be unique there; the other servers get
 * theirs at check time (srv_assign_ids). Returns 0, or -1 after an alert. */
static int srv_append(struct cfg_ctx *ctx, struct proxy *px, struct server *srv)
{
	struct server **tail = &px->srv;

	for (; *tail; tail = &(*tail)->next) {
		const struct server *o = *tail;

		if ((srv->flags & SRV_F_FIXED_ID) && (o->flags & SRV_F_FIXED_ID) &&
		    o->puid == srv->puid) {
			cfg_alert(ctx, "'server %s/%s' : custom id %d already used at %s:%d "
				  "('server %s').", px->id, srv->id, srv->puid, o->file, o->line,
				  o->id);
			return -1;
		}
	}
	*tail = srv;
	px->srv_count++;
	return 0;
}

void srv_assign_ids(struct proxy *px)
{
	int next = 1;

	for (struct server *s = px->srv; s; s = s->next) {
		bool used;

		if (s->flags & SRV_F_FIXED_ID)
			continue;
		do { /* the lowest id no fixed one takes, in config order */
			used = false;
			for (const struct server *o = px->srv; o; o = o->next)
				if ((o->flags & SRV_F_FIXED_ID) && o->puid == next)
					used = true;
		} while (used && ++next);
		s->puid = next++;
	}
}

/* Applies the "default-server" options of <px> to the fresh <srv>. */
static int srv_apply_defaults(struct cfg_ctx *ctx, struct proxy *px, struct server *srv)
{
	struct cfg_ctx dctx = *ctx;
	int rc = 0;

	dctx.args = px->defsrv_args;
	dctx.nargs = px->defsrv_nargs;
	for (int i = 0; i < dctx.nargs && rc == 0; i++)
		rc = srv_parse_opt(&dctx, srv, &i);
	return rc;
}

/* default-server [options]: the options every later "server" line of this section starts
 * with (a defaults section hands them on to the proxies that follow it). They are checked
 * here, on a scratch server, so that an error names this line. */
static int defsrv_kw_parse(struct cfg_ctx *ctx)
{
	struct proxy *px = ctx->px;
	struct server tmp = { .id = "default-server", .px = px, .weight = 1, .inter = 2000,
			      .rise = 2, .fall = 3 };
	int i;

	srv_limits_init(&tmp);
	if (!px)
		return -1;
	if (!(px->cap & (PR_CAP_BE | PR_CAP_DEF))) {
		cfg_alert(ctx, "'default-server' not allowed because %s '%s' has no backend "
			  "capability.", proxy_type_str(px), px->id);
		return -1;
	}
	for (i = 1; i < ctx->nargs; i++) {
		if (srv_parse_opt(ctx, &tmp, &i) < 0) {
			free(tmp.cookie);
			if (srv_ext_release)
				srv_ext_release(&tmp);
			free(tmp.track_name);
			free(tmp.agent_send);
			free(tmp.redir);
			ssl_srv_free(&tmp);
			return -1;
		}
	}
	free(tmp.cookie);
	if (srv_ext_release)
		srv_ext_release(&tmp);
	free(tmp.track_name);
	free(tmp.agent_send);
	free(tmp.redir);
	ssl_srv_free(&tmp); /* the scratch server's TLS options (ssl/ssl_srv_cfg.c) */
	if (proxy_defsrv_append(px, ctx->args + 1, ctx->nargs - 1) < 0) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	return 0;
}

/* server NAME ADDR[:PORT] [options] */
int srv_kw_parse(struct cfg_ctx *ctx)
{
	struct proxy *px = ctx->px;
	struct server *srv;
	struct addr_res hres;
	int i;

	hres.host[0] = 0;
	if (!px || proxy_cfg_in_defaults(ctx, "server"))
		return -1;
	if (!(px->cap & PR_CAP_BE)) {
		cfg_alert(ctx, "'server' not allowed because %s '%s' has no backend capability.",
			  proxy_type_str(px), px->id);
		return -1;
	}
	if (ctx->nargs < 3 || !*ctx->args[1] || !*ctx->args[2]) {
		cfg_alert(ctx, "'server' expects <name> and <addr>[:<port>] as arguments.");
		return -1;
	}
	srv = calloc(1, sizeof(*srv));
	if (!srv || !(srv->id = strdup(ctx->args[1])) || !(srv->file = strdup(ctx->file))) {
		cfg_alert(ctx, "out of memory.");
		goto fail;
	}
	srv->px = px;
	srv->line = ctx->line;
	srv->weight = 1;
	srv->inter = 2000; /* HAProxy's check defaults */
	srv->rise = 2;
	srv->fall = 3;
	srv_limits_init(srv);
	if (srv_parse_addr(ctx, srv, ctx->args[2], &hres) < 0 || srv_apply_defaults(ctx, px, srv) < 0)
		goto fail;
	for (i = 3; i < ctx->nargs; i++)
		if (srv_parse_opt(ctx, srv, &i) < 0)
			goto fail;
	if (hres.host[0] && srv_ext_init_addr(ctx, srv, &hres) < 0)
		goto fail;
	if (srv_append(ctx, px, srv) < 0)
		goto fail;
	return 0;
fail:
	if (srv) {
		free(srv->id);
		free(srv->file);
		free(srv->cookie);
		if (srv_ext_release)
			srv_ext_release(srv);
		free(srv->track_name);
		free(srv->agent_send);
		free(srv->redir);
		ssl_srv_free(srv);
	}
	free(srv);
	return -1;
}

void srv_cfg_free(struct server *srv)
{
	if (!srv)
		return;
	free(srv->id);
	free(srv->file);
	free(srv->cookie);
	if (srv_ext_release)
		srv_ext_release(srv);
	free(srv->track_name);
	free(srv->agent_send);
	free(srv->redir);
	free(srv->rt_addr);
	ssl_srv_free(srv);
	free(srv);
}

struct server *srv_build_dynamic(struct cfg_ctx *ctx)
{
	struct addr_res hres;
	struct server *srv;
	int i;

	hres.host[0] = 0;
	srv = calloc(1, sizeof(*srv));
	if (!srv || !(srv->id = strdup(ctx->args[1]))) {
		cfg_alert(ctx, "out of memory.");
		goto fail;
	}
	srv->px = ctx->px;
	srv->weight = 1;
	srv->inter = 2000; /* HAProxy's check defaults; no default-server (as 2.6) */
	srv->rise = 2;
	srv->fall = 3;
	srv_limits_init(srv);
	if (srv_parse_addr(ctx, srv, ctx->args[2], &hres) < 0)
		goto fail;
	for (i = 3; i < ctx->nargs; i++)
		if (srv_parse_opt(ctx, srv, &i) < 0)
			goto fail;
	if (hres.host[0]) {
		cfg_alert(ctx, "a host name is not supported yet on a dynamic server: '%s'.",
			  ctx->args[2]);
		goto fail;
	}
	return srv;
fail:
	srv_cfg_free(srv);
	return NULL;
}

static const struct cfg_kw srv_kws[] = {
	{ "server", CFG_SEC_PROXIES, srv_kw_parse },
	{ "default-server", CFG_SEC_PROXIES, defsrv_kw_parse },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(srv_kws);
