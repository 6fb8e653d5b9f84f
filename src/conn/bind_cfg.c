/* The "bind" keyword of frontend and listen sections: one struct bind_conf per line and one
 * struct listener per address and port (fd = -1 until the runtime binds it). Addresses are
 * parsed by base/addr, "thread" and "shards" by thread/thread_cfg, the TLS options by
 * ssl/ssl_bind_cfg; the options not implemented yet (PROXY protocol...) are refused with a
 * reason. Parse time only.
 */
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/addr.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <conn/bind_cfg.h>
#include <proxy/proxy-t.h>
#include <ssl/ssl.h>
#include <thread/thread_cfg.h>

void bind_conf_free(struct bind_conf *bc)
{
	struct listener *l, *lt;

	if (!bc)
		return;
	list_for_each_entry_safe(l, lt, &bc->listeners, list) {
		list_delete(&l->list);
		free(l->name);
		free(l);
	}
	ssl_bind_free(bc);
	free(bc->file);
	free(bc->name);
	free(bc);
}

static struct bind_conf *bind_conf_new(struct cfg_ctx *ctx, struct proxy *px)
{
	struct bind_conf *bc = calloc(1, sizeof(*bc));

	if (!bc)
		return NULL;
	list_init(&bc->list);
	list_init(&bc->listeners);
	bc->px = px;
	bc->line = ctx->line;
	bc->file = strdup(ctx->file ? ctx->file : "");
	if (!bc->file) {
		free(bc);
		return NULL;
	}
	return bc;
}

static void bind_set_port(struct sockaddr_storage *ss, int port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/* Appends a listener for <res> (port <port>, or the inherited fd) to <bc>. */
static int bind_add_listener(struct bind_conf *bc, const struct addr_res *res, int port)
{
	struct listener *l = calloc(1, sizeof(*l));

	if (!l)
		return -1;
	l->bind = bc;
	l->fd = -1;
	l->inherited_fd = res->fd;
	if (res->fd < 0) {
		l->addr = res->ss;
		l->addrlen = res->len;
		bind_set_port(&l->addr, port);
	}
	list_append(&bc->listeners, &l->list);
	return 0;
}

/* Parses one address of a bind line and adds its listeners to <bc>. */
static int bind_add_one(struct cfg_ctx *ctx, struct bind_conf *bc, const char *str)
{
	struct addr_res res;
	char err[320], buf[160];
	const char *s = addr_expand_fd_env(str, buf, sizeof(buf));
	int rc, port;

	if (!s) {
		cfg_alert(ctx, "'%s' : '%s': environment variable not set or invalid.",
			  ctx->args[0], str);
		return -1;
	}
	rc = addr_parse(s, ADDR_F_PORT_RANGE | ADDR_F_FD | ADDR_F_HOSTNAME, &res, err,
			sizeof(err));
	if (rc == ADDR_HOSTNAME && addr_resolve(&res, err, sizeof(err)) < 0)
		rc = ADDR_ERR;
	if (rc == ADDR_ERR) {
		cfg_alert(ctx, "'%s' : %s", ctx->args[0], err);
		return -1;
	}
	if (res.fd >= 0 || res.ss.ss_family == AF_UNIX)
		return bind_add_listener(bc, &res, 0);
	for (port = res.port_lo; port <= res.port_hi; port++)
		if (bind_add_listener(bc, &res, port) < 0)
			return -1;
	return 0;
}

/* Adds the listeners of the comma-separated <addrs> to <bc>. */
static int bind_add_list(struct cfg_ctx *ctx, struct bind_conf *bc, const char *addrs)
{
	char *copy = strdup(addrs), *tok, *save = NULL;
	int ret = 0;

	if (!copy) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save))
		ret = bind_add_one(ctx, bc, tok);
	free(copy);
	if (!ret && list_empty(&bc->listeners)) {
		cfg_alert(ctx, "'%s' : no address in '%s'.", ctx->args[0], addrs);
		ret = -1;
	}
	return ret;
}

/* Names the listeners after the bind's "name": as is for one, "name-N" for several. */
static int bind_name_listeners(struct bind_conf *bc)
{
	struct listener *l;
	int n = 0, several = bc->listeners.next->next != &bc->listeners;
	char buf[256];

	if (!bc->name)
		return 0;
	list_for_each_entry(l, &bc->listeners, list) {
		if (several)
			snprintf(buf, sizeof(buf), "%s-%d", bc->name, ++n);
		else
			snprintf(buf, sizeof(buf), "%s", bc->name);
		l->name = strdup(buf);
		if (!l->name)
			return -1;
	}
	return 0;
}

int bind_cfg_add_addrs(struct cfg_ctx *ctx, struct proxy *px, const char *addrs)
{
	struct bind_conf *bc = bind_conf_new(ctx, px);

	if (!bc) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	if (bind_add_list(ctx, bc, addrs) < 0) {
		bind_conf_free(bc);
		return -1;
	}
	list_append(&px->binds, &bc->list);
	return 0;
}

/* HAProxy options not implemented yet, with the reason given to the user. */
struct bind_later {
	const char *name;
	const char *why;
};

static const struct bind_later bind_later_opts[] = {
	{ "accept-netscaler-cip", "the NetScaler CIP protocol is not implemented yet" },
	{ "process", "nbproc was removed in HAProxy 2.5; use 'thread' instead" },
	{ "transparent", "transparent binding is not implemented yet" },
	{ "interface", "interface binding is not implemented yet" },
	{ "namespace", "network namespaces are not implemented yet" },
	{ "mode", "unix socket permissions are not implemented yet" },
	{ "user", "unix socket permissions are not implemented yet" },
	{ "group", "unix socket permissions are not implemented yet" },
	{ "uid", "unix socket permissions are not implemented yet" },
	{ "gid", "unix socket permissions are not implemented yet" },
	{ "tfo", "TCP fast open is not implemented yet" },
	{ "defer-accept", "defer-accept is not implemented yet" },
	{ "mss", "mss is not implemented yet" },
	{ "nice", "nice is not implemented yet" },
	{ "id", "numeric listener ids are not implemented yet" },
	{ "level", "'level' applies to the runtime API ('stats socket'), not to proxies" },
	{ "severity-output", "the runtime API is not implemented yet" },
	{ "expose-fd", "the runtime API is not implemented yet" },
	{ "proto", "HTTP/2 and other protocols are not implemented yet" },
	{ "quic-cc-algo", "QUIC is not planned" },
	{ "quic-force-retry", "QUIC is not planned" },
	{ NULL, NULL },
};

static const char *bind_section_name(unsigned int section)
{
	switch (section) {
	case CFG_SEC_FRONTEND: return "frontend";
	case CFG_SEC_LISTEN: return "listen";
	case CFG_SEC_BACKEND: return "backend";
	default: return "defaults";
	}
}

/* Parses an option taking an integer value at args[*i]; advances *i. */
static int bind_opt_int(struct cfg_ctx *ctx, int *i, int *out)
{
	long v;

	if (*i + 1 >= ctx->nargs) {
		cfg_alert(ctx, "'bind %s' : '%s' expects an integer argument.", ctx->args[1],
			  ctx->args[*i]);
		return -1;
	}
	if (parse_long(ctx->args[*i + 1], 0, INT_MAX, &v) < 0) {
		cfg_alert(ctx, "'bind %s' : '%s' expects an integer argument between 0 and %d, "
			  "got '%s'.", ctx->args[1], ctx->args[*i], INT_MAX, ctx->args[*i + 1]);
		return -1;
	}
	++*i;
	*out = (int)v;
	return 0;
}

/* "thread [G/]RANGE[,...]": the threads serving the bind; several "thread" options on one
 * line add up (their forms may not be mixed). Resolved by thread_cfg_check().
 */
static int bind_opt_thread(struct cfg_ctx *ctx, struct bind_conf *bc, int *i)
{
	struct thread_set ts;
	char err[256];
	int g;

	if (*i + 1 >= ctx->nargs) {
		cfg_alert(ctx, "'bind %s' : 'thread' expects a thread set such as '1-4', 'odd' "
			  "or '2/1-4'.", ctx->args[1]);
		return -1;
	}
	if (thread_set_parse(ctx->args[++*i], &ts, err, sizeof(err)) < 0) {
		cfg_alert(ctx, "'bind %s' : 'thread' : %s", ctx->args[1], err);
		return -1;
	}
	if (bc->has_thread_set && bc->thread_set.is_abs != ts.is_abs) {
		cfg_alert(ctx, "'bind %s' : 'thread' : absolute thread numbers and group-relative "
			  "ones (G/...) cannot be mixed.", ctx->args[1]);
		return -1;
	}
	bc->thread_set.is_abs = ts.is_abs;
	bc->thread_set.abs |= ts.abs;
	bc->thread_set.grps |= ts.grps;
	for (g = 0; g < MAX_TGROUPS; g++)
		bc->thread_set.rel[g] |= ts.rel[g];
	bc->has_thread_set = true;
	return 0;
}

/* "shards by-group|by-thread|N": sockets per listener, resolved by thread_cfg_check(). */
static int bind_opt_shards(struct cfg_ctx *ctx, struct bind_conf *bc, int *i)
{
	char err[256];

	if (*i + 1 >= ctx->nargs) {
		cfg_alert(ctx, "'bind %s' : 'shards' expects 'by-group', 'by-thread' or a number.",
			  ctx->args[1]);
		return -1;
	}
	if (thread_shards_parse(ctx->args[++*i], &bc->shards, err, sizeof(err)) < 0) {
		cfg_alert(ctx, "'bind %s' : 'shards' : %s", ctx->args[1], err);
		return -1;
	}
	return 0;
}

/* Parses one option at args[*i] (advancing *i past its value). Returns 0 or -1. */
static int bind_parse_opt(struct cfg_ctx *ctx, struct bind_conf *bc, int *i)
{
	const char *opt = ctx->args[*i];
	const struct bind_later *l;
	int ret;

	if (!strcmp(opt, "name")) {
		if (*i + 1 >= ctx->nargs) {
			cfg_alert(ctx, "'bind %s' : missing name.", ctx->args[1]);
			return -1;
		}
		free(bc->name);
		bc->name = strdup(ctx->args[++*i]);
		return bc->name ? 0 : (cfg_alert(ctx, "out of memory."), -1);
	}
	if (!strcmp(opt, "maxconn"))
		return bind_opt_int(ctx, i, &bc->maxconn);
	if (!strcmp(opt, "backlog"))
		return bind_opt_int(ctx, i, &bc->backlog);
	if (!strcmp(opt, "v4v6")) {
		bc->v4v6 = true;
		return 0;
	}
	if (!strcmp(opt, "accept-proxy")) {
		bc->accept_proxy = true; /* every connection opens with a PROXY header */
		return 0;
	}
	if (!strcmp(opt, "v6only")) {
		bc->v6only = true;
		return 0;
	}
	if (!strcmp(opt, "tcp-ut")) {
		if (*i + 1 >= ctx->nargs) {
			cfg_alert(ctx, "'bind %s' : '%s' : missing TCP User Timeout value.",
				  ctx->args[1], opt);
			return -1;
		}
		if (cfg_parse_time_arg(ctx, ctx->args[++*i], &bc->tcp_ut) < 0)
			return -1;
		return 0;
	}
	if (!strcmp(opt, "thread"))
		return bind_opt_thread(ctx, bc, i);
	if (!strcmp(opt, "shards"))
		return bind_opt_shards(ctx, bc, i);
	ret = ssl_bind_parse_opt(ctx, bc, i);
	if (ret <= 0)
		return ret; /* a TLS option (ssl/ssl_bind_cfg.c) */
	for (l = bind_later_opts; l->name; l++) {
		if (!strcmp(opt, l->name)) {
			cfg_alert(ctx, "'bind' option '%s' is not supported yet (%s)", opt, l->why);
			return -1;
		}
	}
	if (cfg_known_why(CFG_KNOWN_BIND, opt)) {
		cfg_alert(ctx, "'bind' option '%s' is not supported yet (%s)", opt,
			  cfg_known_why(CFG_KNOWN_BIND, opt));
		return -1;
	}
	cfg_alert(ctx, "'bind %s' in section '%s': unknown keyword '%s'.", ctx->args[1],
		  bind_section_name(ctx->section), opt);
	return -1;
}

/* bind ADDR[,ADDR...] [options] */
static int bind_kw_parse(struct cfg_ctx *ctx)
{
	struct proxy *px = ctx->px;
	struct bind_conf *bc;
	int i;

	if (!px)
		return -1;
	if (ctx->section == CFG_SEC_DEFAULTS) {
		cfg_alert(ctx, "'bind' not allowed in 'defaults' section.");
		return -1;
	}
	if (!(px->cap & PR_CAP_FE)) {
		cfg_warn(ctx, "'bind' ignored because backend '%s' has no frontend capability.",
			 px->id);
		return 0;
	}
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'bind' expects {<path>|[addr1]:port1[-end1]}{,[addr]:port[-end]}... "
			  "as arguments.");
		return -1;
	}
	bc = bind_conf_new(ctx, px);
	if (!bc) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	if (bind_add_list(ctx, bc, ctx->args[1]) < 0)
		goto fail;
	for (i = 2; i < ctx->nargs; i++)
		if (bind_parse_opt(ctx, bc, &i) < 0)
			goto fail;
	if (bind_name_listeners(bc) < 0) {
		cfg_alert(ctx, "out of memory.");
		goto fail;
	}
	list_append(&px->binds, &bc->list);
	return 0;
fail:
	bind_conf_free(bc);
	return -1;
}

static const struct cfg_kw bind_kws[] = {
	{ "bind", CFG_SEC_PROXIES, bind_kw_parse },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(bind_kws);
