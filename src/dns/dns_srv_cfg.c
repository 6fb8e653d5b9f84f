/* The server options of DNS resolution (resolvers, resolve-prefer, resolve-net,
 * resolve-opts, init-addr) and the start-up address of a server written with a host name,
 * chosen by its "init-addr" methods. Reached from backend/server_cfg.c through the hooks
 * of backend/server.h. Parse time only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <backend/server.h>
#include <backend/srv_state.h>
#include <base/addr.h>
#include <cfg/cfg.h>
#include <dns/dns.h>
#include <dns/dns_addr.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>

/* The DNS state of <srv>, created on first use. NULL after an alert. */
static struct dns_srv *dns_srv_get(struct cfg_ctx *ctx, struct server *srv)
{
	if (!srv->dns) {
		srv->dns = calloc(1, sizeof(*srv->dns));
		if (!srv->dns) {
			cfg_alert(ctx, "out of memory.");
			return NULL;
		}
		srv->dns->srv = srv;
		srv->dns->prefer = AF_INET6; /* HAProxy's default */
	}
	return srv->dns;
}

static void dns_srv_release(struct server *srv)
{
	if (!srv->dns)
		return;
	free(srv->dns->hostname);
	free(srv->dns->res_name);
	free(srv->dns->init_addr);
	free(srv->dns);
	srv->dns = NULL;
}

/* Replaces the string *dst by a copy of <s>. Returns 0 or -1 after an alert. */
static int dns_set_str(struct cfg_ctx *ctx, char **dst, const char *s)
{
	char *d = strdup(s);

	if (!d) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	free(*dst);
	*dst = d;
	return 0;
}

/* One network "A.B.C.D[/N]" or "IPv6[/N]" into <n>. Returns 0 or -1. */
static int dns_parse_net(const char *s, struct dns_net *n)
{
	char buf[64], *slash;
	long plen;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = 0;
	memset(n, 0, sizeof(*n));
	if (inet_pton(AF_INET, buf, n->ip) == 1)
		n->family = AF_INET;
	else if (inet_pton(AF_INET6, buf, n->ip) == 1)
		n->family = AF_INET6;
	else
		return -1;
	plen = n->family == AF_INET ? 32 : 128;
	if (slash) {
		char *end;
		long v = strtol(slash, &end, 10);

		if (!*slash || *end || v < 0 || v > plen) {
			struct in_addr mask; /* a dotted mask */

			if (n->family != AF_INET || inet_pton(AF_INET, slash, &mask) != 1)
				return -1;
			v = __builtin_popcount(mask.s_addr);
		}
		plen = v;
	}
	n->plen = (int)plen;
	return 0;
}

static int dns_opt_resolve_net(struct cfg_ctx *ctx, struct server *srv, struct dns_srv *d,
			       const char *arg)
{
	char buf[1024], *save = NULL, *tok;

	if (strlen(arg) >= sizeof(buf)) {
		cfg_alert(ctx, "'server %s/%s' : 'resolve-net' : list too long.", srv->px->id,
			  srv->id);
		return -1;
	}
	strcpy(buf, arg);
	d->nnets = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (d->nnets == DNS_MAX_NETS) {
			cfg_alert(ctx,
				  "'server %s/%s' : 'resolve-net' : too many networks (max %d).",
				  srv->px->id, srv->id, DNS_MAX_NETS);
			return -1;
		}
		if (dns_parse_net(tok, &d->nets[d->nnets]) < 0) {
			cfg_alert(ctx, "'server %s/%s' : 'resolve-net' invalid network '%s'.",
				  srv->px->id, srv->id, tok);
			return -1;
		}
		d->nnets++;
	}
	return 0;
}

/* resolve-opts: a comma list of allow-dup-ip, ignore-weight, prevent-dup-ip. */
static int dns_opt_resolve_opts(struct cfg_ctx *ctx, struct server *srv, struct dns_srv *d,
				const char *arg)
{
	static const char *const w[] = { "allow-dup-ip", "ignore-weight", "prevent-dup-ip" };
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", arg);
	d->opts = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t k;

		for (k = 0; k < 3 && strcmp(tok, w[k]); k++)
			;
		if (k == 3) {
			cfg_alert(
				ctx,
				"'server %s/%s' : 'resolve-opts' : unknown resolve-opts option "
				"'%s', supported methods are 'allow-dup-ip', 'ignore-weight', and "
				"'prevent-dup-ip'.",
				srv->px->id, srv->id, tok);
			return -1;
		}
		d->opts |= 1u << k;
	}
	return 0;
}

static bool dns_is_ip(const char *s)
{
	uint8_t b[16];

	return inet_pton(AF_INET, s, b) == 1 || inet_pton(AF_INET6, s, b) == 1;
}

static int dns_opt_init_addr(struct cfg_ctx *ctx, struct server *srv, struct dns_srv *d,
			     const char *arg)
{
	char buf[512], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", arg);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "libc") && strcmp(tok, "last") && strcmp(tok, "none") &&
		    !dns_is_ip(tok)) {
			cfg_alert(ctx,
				  "'server %s/%s' : 'init-addr' : unknown init-addr method '%s', "
				  "supported methods are 'libc', 'last', 'none'.",
				  srv->px->id, srv->id, tok);
			return -1;
		}
	}
	return dns_set_str(ctx, &d->init_addr, arg);
}

/* The hook of backend/server.h: 1 when args[*i] is not a DNS option. */
static int dns_srv_parse_opt(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	static const char *const opts[] = { "resolvers", "resolve-prefer", "resolve-net",
					    "resolve-opts", "init-addr" };
	const char *opt = ctx->args[*i], *arg;
	struct dns_srv *d;
	size_t k;

	for (k = 0; k < 5 && strcmp(opt, opts[k]); k++)
		;
	if (k == 5)
		return 1;
	arg = *i + 1 < ctx->nargs ? ctx->args[++*i] : "";
	d = dns_srv_get(ctx, srv);
	if (!d)
		return -1;
	switch (k) {
	case 0:
		return dns_set_str(ctx, &d->res_name, arg);
	case 1:
		if (strcmp(arg, "ipv4") && strcmp(arg, "ipv6")) {
			cfg_alert(ctx,
				  "'server %s/%s' : 'resolve-prefer' expects either ipv4 or ipv6 "
				  "as argument.",
				  srv->px->id, srv->id);
			return -1;
		}
		d->prefer = arg[3] == '4' ? AF_INET : AF_INET6;
		return 0;
	case 2:
		return dns_opt_resolve_net(ctx, srv, d, arg);
	case 3:
		return dns_opt_resolve_opts(ctx, srv, d, arg);
	default:
		return dns_opt_init_addr(ctx, srv, d, arg);
	}
}

/* Sets <srv>'s address from <ss> (any port in it replaced by the server's). */
static void dns_srv_set_addr(struct server *srv, const struct sockaddr_storage *ss, int port)
{
	srv->addr = *ss;
	if (ss->ss_family == AF_INET) {
		((struct sockaddr_in *)&srv->addr)->sin_port = htons((uint16_t)port);
		srv->addrlen = sizeof(struct sockaddr_in);
	} else {
		((struct sockaddr_in6 *)&srv->addr)->sin6_port = htons((uint16_t)port);
		srv->addrlen = sizeof(struct sockaddr_in6);
	}
}

/* No address: the server waits in maintenance for DNS (entered by dns_thread_start, after
 * the LB tables are built with every server); 0.0.0.0 is shown meanwhile. */
static void dns_srv_no_addr(struct server *srv, struct dns_srv *d)
{
	struct sockaddr_storage ss = { .ss_family = AF_INET };

	dns_srv_set_addr(srv, &ss, d->port);
	d->maint = true;
}

/* Tries one init-addr method. Returns 1 when it gave the server an address (or "none"),
 * 0 when it did not, and sets d->tried when a real method (libc, IP) was there. "last"
 * gives nothing now: the state file is read at the end of the check, and its srv_addr
 * then replaces what a later method gave (dns_srv_state_addr). */
static int dns_init_method(struct server *srv, struct dns_srv *d, const struct addr_res *res,
			   const char *m)
{
	struct addr_res r = *res;
	char err[320];

	if (!strcmp(m, "last")) {
		d->last_first = true;
		return 0;
	}
	if (!strcmp(m, "none")) {
		d->tried = true;
		dns_srv_no_addr(srv, d);
		return 1;
	}
	d->tried = true;
	if (!strcmp(m, "libc")) {
		if (addr_resolve(&r, err, sizeof(err)) < 0)
			return 0;
	} else {
		if (addr_parse(m, ADDR_F_PORT_MAP, &r, err, sizeof(err)) != ADDR_OK)
			return 0;
	}
	dns_srv_set_addr(srv, &r.ss, d->port);
	return 1;
}

/* The final word on a server no method gave an address to (d->pending). Returns 0 when it
 * may start (in maintenance, waiting for DNS), -1 after an alert. */
static int dns_srv_unresolved(struct server *srv, struct dns_srv *d)
{
	const char *what = d->tried ? "could not resolve address"
				    : "no method found to resolve "
				      "address";

	d->pending = false;
	if (d->tried && !d->init_addr && d->res_name) {
		ha_warning("[%s:%d] : 'server %s/%s' : could not resolve address "
			   "'%s', disabling server.\n",
			   srv->file, srv->line, srv->px->id, srv->id, d->hostname);
		dns_srv_no_addr(srv, d);
		return 0;
	}
	ha_alert("[%s:%d] : 'server %s/%s' : %s '%s'.\n", srv->file, srv->line, srv->px->id,
		 srv->id, what, d->hostname);
	return -1;
}

/* The hook of backend/server.h: gives a server written with a host name its first address
 * by its init-addr methods (default "last,libc"). Returns 0 or -1 after an alert. */
static int dns_srv_init_addr(struct cfg_ctx *ctx, struct server *srv, const struct addr_res *res)
{
	char buf[512], *save = NULL, *m;
	struct dns_srv *d = dns_srv_get(ctx, srv);

	if (!d || dns_set_str(ctx, &d->hostname, res->host) < 0)
		return -1;
	d->port = res->port_lo;
	snprintf(buf, sizeof(buf), "%s", d->init_addr ? d->init_addr : "last,libc");
	for (m = strtok_r(buf, ",", &save); m; m = strtok_r(NULL, ",", &save))
		if (dns_init_method(srv, d, res, m))
			return 0;
	d->pending = true;
	if (d->last_first) { /* the state file may still give one: decided at the check */
		dns_srv_no_addr(srv, d);
		return 0;
	}
	return dns_srv_unresolved(srv, d);
}

/* The hook of backend/srv_state.h: srv_addr and srv_port of <srv>'s state line. As 2.6,
 * the address counts only for a server written with a host name whose "last" comes before
 * the method that gave its address; the port is kept for later resolutions. */
static void dns_srv_state_addr(struct server *srv, struct ist addr, int port)
{
	struct dns_srv *d = srv->dns;
	struct sockaddr_storage ss = { 0 };
	char ip[INET6_ADDRSTRLEN];

	if (!d || !d->hostname)
		return;
	if (port > 0 && !(srv->flags & SRV_F_PORT_MAP))
		d->port = port;
	if (!d->last_first || addr.len >= sizeof(ip))
		return;
	memcpy(ip, addr.ptr, addr.len);
	ip[addr.len] = 0;
	if (inet_pton(AF_INET, ip, &((struct sockaddr_in *)&ss)->sin_addr) == 1)
		ss.ss_family = AF_INET;
	else if (inet_pton(AF_INET6, ip, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1)
		ss.ss_family = AF_INET6;
	else
		return; /* "-" or garbage: the other methods' result stands */
	dns_srv_set_addr(srv, &ss, d->port);
	d->maint = false;
	d->pending = false;
	d->last_first = false;		  /* applied once */
	if (srv->flags & SRV_F_RESOLVE) { /* published by dns_cfg_check already */
		d->cur = srv->addr;
		dns_addr_publish(&d->pub, &d->cur);
	}
}

int dns_srv_init_last_check(void)
{
	int errs = 0;

	for (struct proxy *px = proxies; px; px = px->next)
		for (struct server *s = px->srv; s; s = s->next)
			if (s->dns && s->dns->pending && dns_srv_unresolved(s, s->dns) < 0)
				errs++;
	return errs;
}

static void dns_proxy_free(struct proxy *px)
{
	for (struct server *s = px->srv; s; s = s->next)
		dns_srv_release(s);
}

__attribute__((constructor)) static void dns_srv_register_hooks(void)
{
	proxy_dns_free_hook = dns_proxy_free;
	srv_ext_opt_parse = dns_srv_parse_opt;
	srv_ext_init_addr = dns_srv_init_addr;
	srv_ext_release = dns_srv_release;
	srv_ext_state_addr = dns_srv_state_addr;
}
