/* Server choice by rules, before load balancing: "use-server NAME [if|unless COND]",
 * "persist rdp-cookie[(NAME)]" (the server whose address the client's RDP cookie names),
 * "force-persist if|unless COND" (a server in maintenance may still be used by use-server
 * and stick match rules) and "ignore-persist if|unless COND" (cookie persistence is
 * ignored; as in HAProxy 2.6 it does not concern stick tables, so without cookies it
 * changes nothing). The first persist rule whose condition holds decides, as in HAProxy; then the
 * first use-server rule whose condition holds names the server.
 */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/atomic.h>
#include <backend/backend.h>
#include <backend/server-t.h>
#include <backend/server.h>
#include <base/buf.h>
#include <conn/connection-t.h>
#include <cfg/cfg.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <proxy/proxy-t.h>
#include <sample/acl.h>
#include <sample/payload.h>
#include <stream/action.h>
#include <stream/persist.h>
#include <stream/stream.h>

struct server_rule {
	struct list list;         /* member of proxy->server_rules */
	struct acl_cond *cond;
	char *srv_name;           /* resolved at check time */
	struct server *srv;
	char *file;
	int line;
};

#define PERSIST_FORCE  1
#define PERSIST_IGNORE 2

struct persist_rule {
	struct list list;         /* member of proxy->persist_rules */
	struct acl_cond *cond;
	int type;                 /* PERSIST_* */
};

static struct acl_cond *persist_cond(struct cfg_ctx *ctx, int first, const char *kw)
{
	struct smp_parse_ctx pc = { ctx->file, ctx->line, ctx->px, SMP_VAL_HRQ_HDR | SMP_VAL_BE,
				    kw };
	char err[1024];
	struct acl_cond *c;

	c = acl_cond_parse(ctx->args + first, ctx->nargs - first, &ctx->px->acls, &pc, err,
			   sizeof(err));
	if (!c)
		cfg_alert(ctx, "error detected while parsing a '%s' rule : %s.", kw, err);
	return c;
}

/* use-server NAME [if|unless COND] */
static int kw_use_server(struct cfg_ctx *ctx)
{
	struct server_rule *r;

	if (!ctx->px || proxy_cfg_in_defaults(ctx, "use-server"))
		return -1;
	if (!proxy_cfg_has_cap(ctx, PR_CAP_BE, "use-server"))
		return 0;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'use-server' expects a server name.");
		return -1;
	}
	if (ctx->nargs > 2 && !act_is_cond_word(ctx->args[2])) {
		cfg_alert(ctx, "'use-server' expects 'if' or 'unless' followed by a condition.");
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->srv_name = strdup(ctx->args[1])) || !(r->file = strdup(ctx->file)))
		goto oom;
	r->line = ctx->line;
	if (ctx->nargs > 2 && !(r->cond = persist_cond(ctx, 2, "use-server")))
		goto fail;
	list_append(&ctx->px->server_rules, &r->list);
	return 0;
oom:
	cfg_alert(ctx, "out of memory.");
fail:
	if (r) {
		free(r->srv_name);
		free(r->file);
		free(r);
	}
	return -1;
}

/* force-persist|ignore-persist if|unless COND */
static int kw_persist(struct cfg_ctx *ctx)
{
	const char *kw = ctx->args[0];
	struct persist_rule *r;

	if (!ctx->px || proxy_cfg_in_defaults(ctx, kw))
		return -1;
	if (ctx->nargs < 2 || !act_is_cond_word(ctx->args[1])) {
		cfg_alert(ctx, "'%s' requires either 'if' or 'unless' followed by a condition.",
			  kw);
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	r->type = !strcmp(kw, "force-persist") ? PERSIST_FORCE : PERSIST_IGNORE;
	r->cond = persist_cond(ctx, 1, kw);
	if (!r->cond) {
		free(r);
		return -1;
	}
	list_append(&ctx->px->persist_rules, &r->list);
	return 0;
}

/* persist rdp-cookie[(NAME)]: the cookie named NAME ("msts" by default) */
static int kw_persist_method(struct cfg_ctx *ctx)
{
	const char *a = ctx->nargs > 1 ? ctx->args[1] : "", *name = "msts", *end;
	size_t len = 4;

	if (!ctx->px)
		return -1;
	if (!*a) {
		cfg_alert(ctx, "missing persist method.");
		return -1;
	}
	if (strncmp(a, "rdp-cookie", 10)) {
		cfg_alert(ctx, "unknown persist method.");
		return -1;
	}
	if (a[10]) {
		end = strchr(a + 11, ')');
		if (a[10] != '(' || !end || end == a + 11) {
			cfg_alert(ctx, "persist rdp-cookie(name)' requires an rdp cookie name.");
			return -1;
		}
		name = a + 11;
		len = (size_t)(end - name);
	}
	if (ctx->nargs > 2) {
		cfg_alert(ctx, "'persist' cannot handle unexpected argument '%s'.", ctx->args[2]);
		return -1;
	}
	if (len >= sizeof(ctx->px->rdp_prst)) {
		cfg_alert(ctx, "persist rdp-cookie: cookie name too long (%zu characters at most).",
			  sizeof(ctx->px->rdp_prst) - 1);
		return -1;
	}
	memcpy(ctx->px->rdp_prst, name, len);
	ctx->px->rdp_prst[len] = 0;
	return 0;
}

int persist_check_proxy(struct proxy *px)
{
	struct server_rule *r;
	int errs = 0;

	list_for_each_entry(r, &px->server_rules, list) {
		for (r->srv = px->srv; r->srv; r->srv = r->srv->next)
			if (!strcmp(r->srv->id, r->srv_name))
				break;
		if (!r->srv) {
			ha_alert("parsing [%s:%d] : %s '%s' : unable to find server '%s' "
				 "referenced in a 'use-server' rule.\n", r->file, r->line,
				 proxy_type_str(px), px->id, r->srv_name);
			errs++;
		} else {
			r->srv->flags |= SRV_F_NON_PURGEABLE; /* "del server" refuses it */
		}
	}
	return errs;
}

void persist_free_proxy(struct proxy *px)
{
	struct server_rule *r, *rn;
	struct persist_rule *p, *pn;

	list_for_each_entry_safe(r, rn, &px->server_rules, list) {
		list_delete(&r->list);
		acl_cond_free(r->cond);
		free(r->srv_name);
		free(r->file);
		free(r);
	}
	list_for_each_entry_safe(p, pn, &px->persist_rules, list) {
		list_delete(&p->list);
		acl_cond_free(p->cond);
		free(p);
	}
}

/* persist rdp-cookie: the client's cookie "ADDR.PORT.*" holds an IPv4 address and port
 * as the 32- and 16-bit numbers of their bytes in network order (Microsoft's load balancing
 * cookie); the server listening there is taken if it is up, or under "option persist". */
static void persist_rdp(struct stream *s)
{
	struct proxy *be = s->be;
	struct ist v = ist2("", 0);
	unsigned long addr, port;
	char tmp[32], *p;

	if (!s->front || rdp_cookie_find(b_head(&s->front->ibuf), s->front->ibuf.data,
					 ist_str(be->rdp_prst), &v) <= 0 ||
	    !v.len || v.len >= sizeof(tmp))
		return;
	memcpy(tmp, v.ptr, v.len);
	tmp[v.len] = 0;
	addr = strtoul(tmp, &p, 10);
	if (*p != '.')
		return;
	port = strtoul(p + 1, &p, 10);
	if (*p != '.')
		return;
	for (struct server *srv = be->srv; srv; srv = srv->next) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)&srv->addr;

		if (srv->addr.ss_family != AF_INET || sin->sin_addr.s_addr != (uint32_t)addr ||
		    sin->sin_port != (uint16_t)port)
			continue;
		if (srv_is_up(srv) || (be->options & PR_O_PERSIST))
			backend_take_server(s, srv);
		return;
	}
}

void persist_process(struct stream *s)
{
	struct proxy *be = s->be;
	struct persist_rule *p;
	struct server_rule *r;
	struct smp_ctx ctx;

	act_smp_ctx(&ctx, s, be, ACT_F_HTTP_REQ);
	list_for_each_entry(p, &be->persist_rules, list) {
		if (!acl_cond_true(p->cond, &ctx))
			continue;
		s->flags |= p->type == PERSIST_FORCE ? SF_FORCE_PRST : SF_IGNORE_PRST;
		break;
	}
	if (s->flags & SF_HAS_SLOT)
		return;
	list_for_each_entry(r, &be->server_rules, list) {
		if (r->cond && !acl_cond_true(r->cond, &ctx))
			continue;
		/* a server in maintenance is only used under force-persist; a full one is left
		 * to the load balancer (there is no per-server queue) */
		if (!(HA_ATOMIC_LOAD_RLX(&r->srv->admin) & SRV_ADM_FMAINT) || (s->flags & SF_FORCE_PRST))
			backend_take_server(s, r->srv);
		return;
	}
	if (be->rdp_prst[0])
		persist_rdp(s);
}

static const struct cfg_kw persist_kws[] = {
	{ "use-server", CFG_SEC_PROXIES, kw_use_server },
	{ "persist", CFG_SEC_PROXIES, kw_persist_method },
	{ "force-persist", CFG_SEC_PROXIES, kw_persist },
	{ "ignore-persist", CFG_SEC_PROXIES, kw_persist },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(persist_kws);
