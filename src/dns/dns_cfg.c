/* The "resolvers NAME" section: nameserver (UDP), parse-resolv-conf, accepted_payload_size,
 * resolve_retries, timeout resolve|retry, hold <status>, and the check that links servers
 * to their section. Parse and check time only, single-threaded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backend/server.h>
#include <base/addr.h>
#include <cfg/cfg.h>
#include <dns/dns.h>
#include <dns/dns_tcp.h>
#include <dns/dns_addr.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>

struct dns_resolvers *dns_resolvers_list;
static struct dns_resolvers *dns_cur; /* the section being parsed */

struct dns_resolvers *dns_resolvers_find(const char *name)
{
	for (struct dns_resolvers *r = dns_resolvers_list; r; r = r->next)
		if (!strcmp(r->id, name))
			return r;
	return NULL;
}

static int dns_oom(struct cfg_ctx *ctx)
{
	cfg_alert(ctx, "out of memory.");
	return -1;
}

/* A new section <name> with HAProxy 2.6's defaults, appended to the list; NULL when out of
 * memory. */
static struct dns_resolvers *dns_section_new(const char *name, const char *file, int line)
{
	struct dns_resolvers *r = calloc(1, sizeof(*r)), **tail;

	if (!r || !(r->id = strdup(name)) || !(r->file = strdup(file))) {
		if (r)
			free(r->id);
		free(r);
		return NULL;
	}
	r->line = line;
	r->payload = 512;
	r->retries = 3;
	r->t_resolve = r->t_retry = 1000;
	r->hold_valid = 10000;
	r->hold_nx = r->hold_timeout = r->hold_refused = r->hold_other = 30000;
	for (tail = &dns_resolvers_list; *tail; tail = &(*tail)->next)
		;
	*tail = r;
	return r;
}

/* resolvers NAME */
static int dns_begin(struct cfg_ctx *ctx)
{
	struct dns_resolvers *r;

	dns_cur = NULL;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "missing name for resolvers section.");
		return -1;
	}
	r = dns_resolvers_find(ctx->args[1]);
	if (r) {
		cfg_alert(ctx,
			  "resolvers '%s' has same name as another resolvers (declared at "
			  "%s:%d).",
			  r->id, r->file, r->line);
		return -1;
	}
	r = dns_section_new(ctx->args[1], ctx->file, ctx->line);
	if (!r)
		return dns_oom(ctx);
	dns_cur = r;
	return 0;
}

static const struct cfg_section dns_section = { "resolvers", CFG_SEC_RESOLVERS, dns_begin };

__attribute__((constructor)) static void dns_register_section(void)
{
	cfg_register_section(&dns_section);
}

/* Appends nameserver <id> at <res> to <r>. Returns 0, or -1 when out of memory. */
static int dns_ns_append(struct dns_resolvers *r, const char *id, const struct addr_res *res,
			 bool tcp, const char *file, int line)
{
	struct dns_nameserver *ns = calloc(1, sizeof(*ns)), **tail;

	if (!ns || !(ns->id = strdup(id)) || !(ns->file = strdup(file))) {
		if (ns)
			free(ns->id);
		free(ns);
		return -1;
	}
	ns->line = line;
	ns->tcp_mode = tcp;
	ns->addr = res->ss;
	ns->addrlen = res->len;
	ns->res = r;
	ns->h.fd = -1;
	for (tail = &r->ns; *tail; tail = &(*tail)->next)
		;
	*tail = ns;
	return 0;
}

/* Adds nameserver <id> at <str> ("IP:PORT", "udp@IP:PORT"). Returns 0 or -1. */
static int dns_add_ns(struct cfg_ctx *ctx, const char *id, const char *str)
{
	struct dns_nameserver *ns;
	struct addr_res res;
	char err[320];

	for (ns = dns_cur->ns; ns; ns = ns->next) {
		if (!strcmp(ns->id, id)) {
			cfg_alert(ctx,
				  "nameserver '%s' has same name as another nameserver "
				  "(declared at %s:%d).",
				  id, ns->file, ns->line);
			return -1;
		}
	}
	bool tcp = false;

	if (!strncmp(str, "tcp@", 4) || !strncmp(str, "tcp4@", 5) || !strncmp(str, "tcp6@", 5)) {
		tcp = true;
		str += str[3] == '@' ? 4 : 5;
	}
	if (!strncmp(str, "udp@", 4))
		str += 4;
	if (addr_parse(str, 0, &res, err, sizeof(err)) != ADDR_OK ||
	    (res.ss.ss_family != AF_INET && res.ss.ss_family != AF_INET6)) {
		cfg_alert(ctx, "'nameserver %s' : invalid address: '%s'.", id, str);
		return -1;
	}
	if (dns_ns_append(dns_cur, id, &res, tcp, ctx->file, ctx->line) < 0)
		return dns_oom(ctx);
	return 0;
}

static int dns_kw_nameserver(struct cfg_ctx *ctx)
{
	if (!dns_cur)
		return -1;
	if (ctx->nargs < 3 || !*ctx->args[1] || !*ctx->args[2]) {
		cfg_alert(ctx, "'nameserver' expects <name> and <addr>[:<port>] as arguments.");
		return -1;
	}
	return dns_add_ns(ctx, ctx->args[1], ctx->args[2]);
}

/* parse-resolv-conf: the "nameserver" lines of /etc/resolv.conf, port 53, named as
 * HAProxy names them ("resolv.conf.N"). */
static int dns_kw_resolv_conf(struct cfg_ctx *ctx)
{
	char line[512], id[32], addr[300];
	int n = 0, rc = 0;
	FILE *f;

	if (!dns_cur)
		return -1;
	f = fopen("/etc/resolv.conf", "r");
	if (!f) {
		cfg_alert(ctx, "failed to open /etc/resolv.conf.");
		return -1;
	}
	while (rc == 0 && fgets(line, sizeof(line), f)) {
		char ip[256];

		if (sscanf(line, " nameserver %255s", ip) != 1)
			continue;
		snprintf(id, sizeof(id), "resolv.conf.%d", ++n);
		snprintf(addr, sizeof(addr), strchr(ip, ':') ? "[%s]:53" : "%s:53", ip);
		rc = dns_add_ns(ctx, id, addr);
	}
	fclose(f);
	return rc;
}

struct dns_resolvers *dns_resolvers_default(void)
{
	struct dns_resolvers *r = dns_resolvers_find("default");
	char line[512], id[32], addr[300], err[128];
	struct addr_res res;
	int n = 0;
	FILE *f;

	if (r)
		return r;
	f = fopen("/etc/resolv.conf", "r");
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char ip[256];

		if (sscanf(line, " nameserver %255s", ip) != 1)
			continue;
		snprintf(addr, sizeof(addr), strchr(ip, ':') ? "[%s]:53" : "%s:53", ip);
		if (addr_parse(addr, 0, &res, err, sizeof(err)) != ADDR_OK ||
		    (res.ss.ss_family != AF_INET && res.ss.ss_family != AF_INET6))
			continue; /* silently, as HAProxy's own section */
		if (!r && !(r = dns_section_new("default", "/etc/resolv.conf", 0)))
			break;
		snprintf(id, sizeof(id), "resolv.conf.%d", ++n);
		if (dns_ns_append(r, id, &res, false, "/etc/resolv.conf", 0) < 0)
			break;
	}
	fclose(f);
	return r;
}

static int dns_kw_int(struct cfg_ctx *ctx)
{
	bool payload = ctx->args[0][0] == 'a';
	long v;

	if (!dns_cur)
		return -1;
	if (ctx->nargs < 2) {
		cfg_alert(ctx, "'%s' expects an integer argument.", ctx->args[0]);
		return -1;
	}
	if (payload) {
		if (cfg_parse_int_arg(ctx, ctx->args[1], 0, 0x7fffffff, &v) < 0)
			return -1;
		if (v < 12 || v > 65535) { /* HAProxy's bounds; the buffer is 512 at least */
			cfg_alert(ctx,
				  "'accepted_payload_size' must be between 12 and 65535 "
				  "inclusive (was %s).",
				  ctx->args[1]);
			return -1;
		}
		dns_cur->payload = (int)v;
		return 0;
	}
	if (cfg_parse_int_arg(ctx, ctx->args[1], 0, 1000, &v) < 0)
		return -1;
	dns_cur->retries = (int)v;
	return 0;
}

static int dns_kw_timeout(struct cfg_ctx *ctx)
{
	const char *w = ctx->nargs > 1 ? ctx->args[1] : "";
	char kw[64];
	int ms;

	if (!dns_cur)
		return -1;
	if (strcmp(w, "retry") && strcmp(w, "resolve")) {
		cfg_alert(ctx,
			  "'timeout' expects 'retry' or 'resolve' and <time> as arguments "
			  "got '%s'.",
			  w);
		return -1;
	}
	snprintf(kw, sizeof(kw), "timeout %s", w);
	if (ctx->nargs < 3 || !*ctx->args[2]) {
		cfg_alert(ctx, "'%s' expects <time> as argument.", kw);
		return -1;
	}
	if (cfg_parse_time_arg(ctx, ctx->args[2], &ms) < 0)
		return -1;
	if (ms <= 0) {
		cfg_alert(ctx, "'%s' expects a positive <time>.", kw);
		return -1;
	}
	*(w[1] == 'e' && w[2] == 't' ? &dns_cur->t_retry : &dns_cur->t_resolve) = ms;
	return 0;
}

static int dns_kw_hold(struct cfg_ctx *ctx)
{
	static const char *const ev[] = {
		"valid", "nx", "timeout", "refused", "other", "obsolete"
	};
	int *field[6], ms;
	size_t k;

	if (!dns_cur)
		return -1;
	field[0] = &dns_cur->hold_valid;
	field[1] = &dns_cur->hold_nx;
	field[2] = &dns_cur->hold_timeout;
	field[3] = &dns_cur->hold_refused;
	field[4] = &dns_cur->hold_other;
	field[5] = &dns_cur->hold_obsolete;
	if (ctx->nargs < 3 || !*ctx->args[2]) {
		cfg_alert(ctx, "'hold' expects an <event> and a <time> as arguments.");
		return -1;
	}
	for (k = 0; k < 6 && strcmp(ctx->args[1], ev[k]); k++)
		;
	if (k == 6) {
		cfg_alert(ctx,
			  "'hold' unknown <event>: '%s', expects either 'nx', 'timeout', "
			  "'valid', 'obsolete' or 'other'.",
			  ctx->args[1]);
		return -1;
	}
	if (cfg_parse_time_arg(ctx, ctx->args[2], &ms) < 0)
		return -1;
	*field[k] = ms;
	if (k == 5) /* it keeps the servers of SRV records that left the answer */
		cfg_warn(ctx, "'hold obsolete' has no effect: SRV records are not supported.");
	return 0;
}

static const struct cfg_kw dns_kws[] = {
	{ "nameserver", CFG_SEC_RESOLVERS, dns_kw_nameserver },
	{ "parse-resolv-conf", CFG_SEC_RESOLVERS, dns_kw_resolv_conf },
	{ "accepted_payload_size", CFG_SEC_RESOLVERS, dns_kw_int },
	{ "resolve_retries", CFG_SEC_RESOLVERS, dns_kw_int },
	{ "timeout", CFG_SEC_RESOLVERS, dns_kw_timeout },
	{ "hold", CFG_SEC_RESOLVERS, dns_kw_hold },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(dns_kws);

int dns_cfg_check(void)
{
	int errs = 0;

	for (struct dns_resolvers *r = dns_resolvers_list; r; r = r->next)
		if (!r->ns)
			ha_warning("resolvers '%s' [%s:%d] has no nameservers "
				   "configured!\n",
				   r->id, r->file, r->line);
	for (struct proxy *px = proxies; px; px = px->next) {
		for (struct server *s = px->srv; s; s = s->next) {
			struct dns_srv *d = s->dns, **tail;

			if (!d || !d->res_name)
				continue;
			d->res = dns_resolvers_find(d->res_name);
			if (!d->res) {
				ha_alert("%s '%s', server '%s': unable to find required "
					 "resolvers '%s'\n",
					 proxy_type_str(px), px->id, s->id, d->res_name);
				errs++;
				continue;
			}
			if (!d->hostname) /* an IP address: nothing to resolve */
				continue;
			for (tail = &d->res->reqs; *tail; tail = &(*tail)->next)
				; /* config order: a server-template fills its first servers first
				   */
			*tail = d;
			s->flags |= SRV_F_RESOLVE;
			if (!d->maint)
				d->cur = s->addr;
			dns_addr_publish(&d->pub, &d->cur);
		}
	}
	return errs;
}

void dns_release(void)
{
	while (dns_resolvers_list) {
		struct dns_resolvers *r = dns_resolvers_list;

		dns_resolvers_list = r->next;
		while (r->ns) {
			struct dns_nameserver *ns = r->ns;

			r->ns = ns->next;
			free(ns->id);
			free(ns->file);
			dns_tcp_free(ns);
			free(ns);
		}
		free(r->rxbuf);
		free(r->id);
		free(r->file);
		free(r);
	}
	dns_cur = NULL;
}
