/* Server and backend limits beyond "maxconn": "maxqueue", "minconn" and the backend's
 * "fullconn" (the dynamic maxconn HAProxy computes from the backend's load), the idle pool
 * settings ("pool-max-conn", "pool-low-conn", "pool-purge-delay", tune.idle-pool.shared,
 * tune.pool-low/high-fd-ratio). Parse and check; srv_dyn_maxconn() is read by any thread.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backend/server.h>
#include <backend/srv_limits.h>
#include <base/atomic.h>
#include <base/parse.h>
#include <proc/global-t.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>

/* Settings read by nothing yet: idle pools are per thread (no sharing between threads,
 * hence no fd-ratio to balance), kept for "-c" and documented. */
static struct {
	bool shared;
	int low_fd_ratio;
	int high_fd_ratio;
} idle_pool_tune = { true, 20, 25 };

void srv_limits_init(struct server *srv)
{
	srv->pool_max_conn = -1;
	srv->pool_purge_delay = SRV_POOL_PURGE_DELAY_MS;
}

/* "KW N" with N in [min, max]. */
static int srv_lim_int(struct cfg_ctx *ctx, struct server *srv, int *i, long min, long max,
		       int *out)
{
	char kw[320];
	long v;

	snprintf(kw, sizeof(kw), "server %s/%s' : '%s", srv->px ? srv->px->id : "", srv->id,
		 ctx->args[*i]);
	if (*i + 1 >= ctx->nargs) {
		cfg_alert(ctx, "'%s' expects an integer argument.", kw);
		return -1;
	}
	if (proxy_cfg_int(ctx, kw, ctx->args[++*i], min, max, &v) < 0)
		return -1;
	*out = (int)v;
	return 0;
}

int srv_limits_parse_opt(struct cfg_ctx *ctx, struct server *srv, int *i)
{
	const char *opt = ctx->args[*i];
	char kw[320];

	if (!strcmp(opt, "maxqueue"))
		return srv_lim_int(ctx, srv, i, 0, INT_MAX, &srv->maxqueue);
	if (!strcmp(opt, "minconn"))
		return srv_lim_int(ctx, srv, i, 0, INT_MAX, &srv->minconn);
	if (!strcmp(opt, "pool-low-conn"))
		return srv_lim_int(ctx, srv, i, 0, INT_MAX, &srv->pool_low_conn);
	if (!strcmp(opt, "pool-max-conn")) {
		if (*i + 1 < ctx->nargs && strtol(ctx->args[*i + 1], NULL, 10) < -1) {
			cfg_alert(ctx, "'server %s/%s' : 'pool-max-conn' must be >= -1.",
				  srv->px ? srv->px->id : "", srv->id);
			return -1;
		}
		return srv_lim_int(ctx, srv, i, -1, INT_MAX, &srv->pool_max_conn);
	}
	if (!strcmp(opt, "pool-purge-delay")) {
		snprintf(kw, sizeof(kw), "server %s/%s' : 'pool-purge-delay",
			 srv->px ? srv->px->id : "", srv->id);
		if (*i + 1 >= ctx->nargs) {
			cfg_alert(ctx, "'%s' expects a delay argument.", kw);
			return -1;
		}
		if (proxy_cfg_time(ctx, kw, ctx->args[++*i], &srv->pool_purge_delay) < 0)
			return -1;
		return 0;
	}
	return srv_route_parse_opt(ctx, srv, i);
}

/* fullconn N (backend, listen, defaults) */
static int srv_limits_fullconn(struct cfg_ctx *ctx)
{
	long v;

	if (!ctx->px || cfg_need_args(ctx, 1) < 0)
		return -1;
	if (!(ctx->px->cap & (PR_CAP_DEF | PR_CAP_BE))) {
		cfg_warn(ctx,
			 "'fullconn' ignored because %s '%s' has no backend capability. "
			 "Maybe you want 'maxconn' instead ?",
			 proxy_type_str(ctx->px), ctx->px->id);
		return 0;
	}
	if (cfg_parse_int_arg(ctx, ctx->args[1], 0, INT_MAX, &v) < 0)
		return -1;
	ctx->px->fullconn = (int)v;
	return 0;
}

/* tune.idle-pool.shared on|off */
static int srv_limits_idle_shared(struct cfg_ctx *ctx)
{
	const char *v = ctx->nargs > 1 ? ctx->args[1] : "";

	if (strcmp(v, "on") && strcmp(v, "off")) {
		cfg_alert(ctx, "'%s' expects either 'on' or 'off' but got '%s'.", ctx->args[0], v);
		return -1;
	}
	idle_pool_tune.shared = v[1] == 'n';
	return 0;
}

/* tune.pool-low-fd-ratio N, tune.pool-high-fd-ratio N: 0..100 */
static int srv_limits_fd_ratio(struct cfg_ctx *ctx)
{
	long v;

	if (ctx->nargs < 2 || parse_long(ctx->args[1], 0, 100, &v) != 0) {
		cfg_alert(ctx, "'%s' expects an integer argument between 0 and 100.", ctx->args[0]);
		return -1;
	}
	*(strstr(ctx->args[0], "low") ? &idle_pool_tune.low_fd_ratio
				      : &idle_pool_tune.high_fd_ratio) = (int)v;
	return 0;
}

/* The sum of the maxconn of the frontends that may send streams to <be>: by
 * "default_backend", a static "use_backend", or itself (listen). */
static long srv_limits_fe_maxconn(const struct proxy *be)
{
	long tot = 0;

	for (const struct proxy *fe = proxies; fe; fe = fe->next) {
		bool uses = (fe->cap & PR_CAP_FE) && (fe == be || fe->defbe == be);
		const struct switching_rule *r;

		list_for_each_entry(r, &fe->switching_rules, list) uses =
			uses || ((fe->cap & PR_CAP_FE) && r->be == be);
		if (uses)
			tot += fe->maxconn ? fe->maxconn : global.maxconn;
	}
	return tot;
}

void srv_limits_prepare_srv(const struct proxy *px, struct server *s)
{
	/* minconn matters only below maxconn: a static limit otherwise */
	if (!s->maxconn || s->minconn >= s->maxconn)
		s->minconn = 0;
	/* the one limit h1_back_park() compares with */
	if (s->pool_max_conn < 0 || s->pool_max_conn > SRV_MAX_IDLE_PER_THREAD)
		s->pool_max_conn = SRV_MAX_IDLE_PER_THREAD;
	if (!s->src.ss_family) { /* the backend's "source" */
		s->src = px->src;
		s->srclen = px->srclen;
	}
}

void srv_limits_prepare(void)
{
	for (struct proxy *px = proxies; px; px = px->next) {
		if (!(px->cap & PR_CAP_BE))
			continue;
		if (px->mode != PR_MODE_HTTP)
			px->rt_flags |= PR_RT_TCP; /* nothing else in it applies */
		else if (px->retry_on & PR_RE_L7_MASK)
			px->rt_flags |= PR_RT_L7_RETRY;
		if (px->srv_name_hdr.len && px->mode == PR_MODE_HTTP)
			px->rt_flags |= PR_RT_NAME_HDR;
		if (!px->fullconn) {
			long tot = srv_limits_fe_maxconn(px);

			px->fullconn =
				tot > 0 ? (int)((tot + 9) / 10 > INT_MAX ? INT_MAX : (tot + 9) / 10)
					: 1;
		}
		for (struct server *s = px->srv; s; s = s->next)
			srv_limits_prepare_srv(px, s);
		if (px->dispatch) /* or "<transparent>", used even beside servers */
			srv_limits_prepare_srv(px, px->dispatch);
	}
}

static const struct cfg_kw srv_limits_kws[] = {
	{ "fullconn", CFG_SEC_PROXIES, srv_limits_fullconn },
	{ "tune.idle-pool.shared", CFG_SEC_GLOBAL, srv_limits_idle_shared },
	{ "tune.pool-low-fd-ratio", CFG_SEC_GLOBAL, srv_limits_fd_ratio },
	{ "tune.pool-high-fd-ratio", CFG_SEC_GLOBAL, srv_limits_fd_ratio },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(srv_limits_kws)
