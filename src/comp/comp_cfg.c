/* Configuration of HTTP compression: the "compression" keyword of proxies and defaults
 * sections (what a proxy inherits from its defaults, as HAProxy copies it), the global
 * tunables (tune.comp.maxlevel, tune.zlib.*, maxcomprate, maxcompcpuusage, maxzlibmem),
 * "filter compression", and the check-time work of the filter kind: each proxy's
 * settings resolved and the filter declared when the proxy compresses without a
 * "filter compression" line. Config time only (single-threaded).
 */
#include <stdlib.h>
#include <string.h>

#include <base/parse.h>
#include <cfg/cfg.h>
#include <comp/comp.h>
#include <comp/comp_cfg.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>

/* HAProxy reads these numbers with atoi(): "abc" is 0, "5x" is 5. */
static long comp_atol(const char *s)
{
	return strtol(s, NULL, 10);
}

/* ---- a proxy's settings ---- */

static void comp_px_free(struct comp_px *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; i < c->n_types; i++)
		free((char *)c->types[i].ptr);
	for (uint32_t i = 0; i < c->n_types_req; i++)
		free((char *)c->types_req[i].ptr);
	free(c->types);
	free(c->types_req);
	free(c->algos);
	free(c);
}

static int comp_types_copy(struct ist **dst, uint32_t *n, const struct ist *src, uint32_t sn)
{
	*dst = NULL;
	*n = 0;
	if (!sn)
		return 0;
	*dst = calloc(sn, sizeof(**dst));
	if (!*dst)
		return -1;
	for (uint32_t i = 0; i < sn; i++, (*n)++) {
		char *s = strndup(src[i].ptr, src[i].len);

		if (!s)
			return -1;
		(*dst)[i] = ist2(s, src[i].len);
	}
	return 0;
}

/* A copy of <src> (NULL: fresh settings), "offload" left out as HAProxy does. */
static struct comp_px *comp_px_dup(const struct comp_px *src)
{
	struct comp_px *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->flags = COMP_F_DIR_RES;
	if (!src)
		return c;
	c->flags = src->flags & ~COMP_F_OFFLOAD;
	c->algo_req = src->algo_req;
	c->minsize_req = src->minsize_req;
	c->minsize_res = src->minsize_res;
	if (src->n_algos) {
		c->algos = calloc(src->n_algos, sizeof(*c->algos));
		if (!c->algos)
			goto fail;
		memcpy(c->algos, src->algos, src->n_algos * sizeof(*c->algos));
		c->n_algos = src->n_algos;
	}
	if (comp_types_copy(&c->types, &c->n_types, src->types, src->n_types) < 0 ||
	    comp_types_copy(&c->types_req, &c->n_types_req, src->types_req, src->n_types_req) < 0)
		goto fail;
	return c;
fail:
	comp_px_free(c);
	return NULL;
}

/* The settings <px> uses: its own, else those of the defaults section it comes from. */
static const struct comp_px *comp_px_eff(const struct proxy *px)
{
	for (; px; px = px->defpx)
		if (px->comp)
			return px->comp;
	return NULL;
}

/* The settings of <px> to write into, created from its defaults on first use. */
static struct comp_px *comp_px_get(struct proxy *px)
{
	if (!px->comp)
		px->comp = comp_px_dup(comp_px_eff(px->defpx));
	return px->comp;
}

/* Puts <a> first in <c>'s response algorithms. */
static int comp_algo_prepend(struct comp_px *c, const struct comp_algo *a)
{
	const struct comp_algo **n = realloc(c->algos, (c->n_algos + 1) * sizeof(*n));

	if (!n)
		return -1;
	memmove(n + 1, n, c->n_algos * sizeof(*n));
	n[0] = a;
	c->algos = n;
	c->n_algos++;
	return 0;
}

static int comp_type_prepend(struct ist **types, uint32_t *cnt, const char *t)
{
	struct ist *n = realloc(*types, (*cnt + 1) * sizeof(*n));
	char *s;

	if (!n)
		return -1;
	*types = n;
	s = strdup(t);
	if (!s)
		return -1;
	memmove(n + 1, n, *cnt * sizeof(*n));
	n[0] = ist_str(s);
	(*cnt)++;
	return 0;
}

/* "compression algo|algo-res ALGO..." */
static int comp_kw_algo(struct cfg_ctx *ctx, struct comp_px *c)
{
	if (ctx->nargs < 3 || !*ctx->args[2]) {
		cfg_alert(ctx, "'%s' expects <algorithm>.", ctx->args[0]);
		return -1;
	}
	for (int i = 2; i < ctx->nargs; i++) {
		const struct comp_algo *a = comp_algo_find(ctx->args[i]);

		if (!a) {
			cfg_alert(ctx, "'%s' : '%s' is not a supported algorithm.", ctx->args[0],
				  ctx->args[i]);
			return -1;
		}
		if (comp_algo_prepend(c, a) < 0)
			goto oom;
	}
	return 0;
oom:
	cfg_alert(ctx, "'%s' : out of memory.", ctx->args[0]);
	return -1;
}

/* "compression algo-req ALGO": one algorithm for the request bodies. */
static int comp_kw_algo_req(struct cfg_ctx *ctx, struct comp_px *c)
{
	const struct comp_algo *a;

	if (ctx->nargs < 3 || !*ctx->args[2]) {
		cfg_alert(ctx, "'%s' expects <algorithm>.", ctx->args[0]);
		return -1;
	}
	if (ctx->nargs > 3) {
		cfg_alert(ctx, "'%s %s' accepts only one algorithm.", ctx->args[0], ctx->args[1]);
		return -1;
	}
	a = comp_algo_find(ctx->args[2]);
	if (!a) {
		cfg_alert(ctx, "'%s' : '%s' is not a supported algorithm.", ctx->args[0],
			  ctx->args[2]);
		return -1;
	}
	c->algo_req = a;
	return 0;
}

/* "compression type|type-res|type-req TYPE..." */
static int comp_kw_type(struct cfg_ctx *ctx, struct comp_px *c, bool req)
{
	if (ctx->nargs < 3 || !*ctx->args[2]) {
		cfg_alert(ctx, "'%s' expects <type>.", ctx->args[0]);
		return -1;
	}
	for (int i = 2; i < ctx->nargs; i++) {
		if (comp_type_prepend(req ? &c->types_req : &c->types,
				      req ? &c->n_types_req : &c->n_types, ctx->args[i]) < 0) {
			cfg_alert(ctx, "'%s' : out of memory.", ctx->args[0]);
			return -1;
		}
	}
	return 0;
}

/* "compression minsize-req|minsize-res SIZE" */
static int comp_kw_minsize(struct cfg_ctx *ctx, uint64_t *dst)
{
	const char *bad;
	uint64_t v;

	if (ctx->nargs < 3 || !*ctx->args[2]) {
		cfg_alert(ctx, "'%s %s' expects a size in bytes.", ctx->args[0], ctx->args[1]);
		return -1;
	}
	if (ctx->nargs > 3) {
		cfg_alert(ctx, "'%s %s' cannot handle unexpected argument '%s'.", ctx->args[0],
			  ctx->args[1], ctx->args[3]);
		return -1;
	}
	bad = parse_size(ctx->args[2], &v);
	if (bad) {
		cfg_alert(ctx, "'%s %s' : unexpected character '%c' in size argument '%s'.",
			  ctx->args[0], ctx->args[1], *bad ? *bad : ' ', ctx->args[2]);
		return -1;
	}
	*dst = v;
	return 0;
}

/* "compression direction request|response|both" */
static int comp_kw_direction(struct cfg_ctx *ctx, struct comp_px *c)
{
	const char *d = ctx->nargs > 2 ? ctx->args[2] : "";
	uint32_t dir;

	if (!strcmp(d, "request"))
		dir = COMP_F_DIR_REQ;
	else if (!strcmp(d, "response"))
		dir = COMP_F_DIR_RES;
	else if (!strcmp(d, "both"))
		dir = COMP_F_DIR_REQ | COMP_F_DIR_RES;
	else {
		cfg_alert(ctx, "'%s direction' expects 'request', 'response', or 'both'.",
			  ctx->args[0]);
		return -1;
	}
	c->flags = (c->flags & ~(COMP_F_DIR_REQ | COMP_F_DIR_RES)) | dir;
	return 0;
}

/* "compression ..." in defaults, frontend, backend and listen sections. */
static int comp_kw(struct cfg_ctx *ctx)
{
	const char *sub = ctx->nargs > 1 ? ctx->args[1] : "";
	struct comp_px *c;

	if (!ctx->px)
		return -1;
	if (!strcmp(sub, "offload") && ctx->section == CFG_SEC_DEFAULTS) {
		cfg_warn(ctx, "'%s' : 'offload' ignored in 'defaults' section.", ctx->args[0]);
		return 0;
	}
	if (strcmp(sub, "algo") && strcmp(sub, "algo-res") && strcmp(sub, "algo-req") &&
	    strcmp(sub, "type") && strcmp(sub, "type-res") && strcmp(sub, "type-req") &&
	    strcmp(sub, "offload") && strcmp(sub, "direction") && strcmp(sub, "minsize-req") &&
	    strcmp(sub, "minsize-res")) {
		cfg_alert(ctx,
			  "'%s' expects 'algo', 'algo-res', 'algo-req', 'type', 'type-res', "
			  "'type-req', 'minsize-res', 'minsize-req', 'direction' or 'offload'",
			  ctx->args[0]);
		return -1;
	}
	c = comp_px_get(ctx->px);
	if (!c) {
		cfg_alert(ctx, "'%s' : out of memory.", ctx->args[0]);
		return -1;
	}
	if (!strcmp(sub, "algo") || !strcmp(sub, "algo-res"))
		return comp_kw_algo(ctx, c);
	if (!strcmp(sub, "algo-req"))
		return comp_kw_algo_req(ctx, c);
	if (!strcmp(sub, "type") || !strcmp(sub, "type-res"))
		return comp_kw_type(ctx, c, false);
	if (!strcmp(sub, "type-req"))
		return comp_kw_type(ctx, c, true);
	if (!strcmp(sub, "minsize-res"))
		return comp_kw_minsize(ctx, &c->minsize_res);
	if (!strcmp(sub, "minsize-req"))
		return comp_kw_minsize(ctx, &c->minsize_req);
	if (!strcmp(sub, "direction"))
		return comp_kw_direction(ctx, c);
	c->flags |= COMP_F_OFFLOAD; /* HAProxy ignores what follows "offload" */
	return 0;
}

/* ---- global tunables ---- */

/* HAProxy's "too many arguments" check: at most <n> after the keyword. */
static int comp_g_args(struct cfg_ctx *ctx, int n)
{
	if (ctx->nargs <= n + 1)
		return 0;
	cfg_alert(ctx, "'%s' cannot handle unexpected argument '%s'.", ctx->args[0],
		  ctx->args[n + 1]);
	return -1;
}

/* "tune.comp.maxlevel N", "tune.zlib.memlevel N", "tune.zlib.windowsize N" */
static int comp_g_level(struct cfg_ctx *ctx)
{
	const char *kw = ctx->args[0];
	bool maxlvl = !strcmp(kw, "tune.comp.maxlevel");
	bool wsize = !strcmp(kw, "tune.zlib.windowsize");
	long lo = wsize ? 8 : 1, hi = wsize ? 15 : 9, v;

	if (comp_g_args(ctx, 1) < 0)
		return -1;
#ifndef USE_ZLIB
	if (!maxlvl) {
		cfg_alert(ctx, "'%s' needs zlib, which this build left out (USE_ZLIB=0).", kw);
		return -1;
	}
#endif
	v = ctx->nargs > 1 && *ctx->args[1] ? comp_atol(ctx->args[1]) : 0;
	if (v < lo || v > hi) {
		/* 2.6's own wording: with a final dot for the zlib ones only */
		cfg_alert(ctx, "'%s' expects a numeric value between %ld and %ld%s", kw, lo, hi,
			  maxlvl ? "" : ".");
		return -1;
	}
	if (maxlvl)
		comp_set.maxlevel = (int)v;
	else if (wsize)
		comp_set.windowsize = (int)v;
	else
		comp_set.memlevel = (int)v;
	return 0;
}

/* "maxcomprate KBPS" */
static int comp_g_rate(struct cfg_ctx *ctx)
{
	long v;

	if (comp_g_args(ctx, 1) < 0)
		return -1;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'%s' expects an integer argument in kb/s.", ctx->args[0]);
		return -1;
	}
	v = comp_atol(ctx->args[1]);
	comp_set.rate_lim = v <= 0			     ? 0
			    : v >= (long)(UINT32_MAX / 1024) ? UINT32_MAX
							     : (uint32_t)v * 1024;
	return 0;
}

/* "maxcompcpuusage PCT" */
static int comp_g_cpu(struct cfg_ctx *ctx)
{
	long v = ctx->nargs > 1 && *ctx->args[1] ? comp_atol(ctx->args[1]) : -1;

	if (comp_g_args(ctx, 1) < 0)
		return -1;
	if (v < 0 || v > 100) {
		cfg_alert(ctx, "'%s' expects an integer argument between 0 and 100.", ctx->args[0]);
		return -1;
	}
	comp_set.min_idle = 100 - (int)v;
	return 0;
}

/* "maxzlibmem MB" */
static int comp_g_mem(struct cfg_ctx *ctx)
{
	long v;

	if (comp_g_args(ctx, 1) < 0)
		return -1;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'%s' expects an integer argument.", ctx->args[0]);
		return -1;
	}
	v = comp_atol(ctx->args[1]);
	comp_set.maxzlibmem = v > 0 ? (uint64_t)v << 20 : 0;
	return 0;
}

static const struct cfg_kw comp_kws[] = {
	{ "compression", CFG_SEC_PROXIES, comp_kw },
	{ "tune.comp.maxlevel", CFG_SEC_GLOBAL, comp_g_level },
	{ "tune.zlib.memlevel", CFG_SEC_GLOBAL, comp_g_level },
	{ "tune.zlib.windowsize", CFG_SEC_GLOBAL, comp_g_level },
	{ "maxcomprate", CFG_SEC_GLOBAL, comp_g_rate },
	{ "maxcompcpuusage", CFG_SEC_GLOBAL, comp_g_cpu },
	{ "maxzlibmem", CFG_SEC_GLOBAL, comp_g_mem },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(comp_kws);

/* ---- the filter kind's config side ---- */

/* "filter compression": one per proxy, no argument. */
int comp_flt_parse(struct cfg_ctx *ctx, struct flt_conf *fc)
{
	struct flt_conf *o;

	if (ctx->nargs > 2) {
		cfg_alert(ctx, "'filter %s' : unknown keyword '%s'.", ctx->args[1], ctx->args[2]);
		return -1;
	}
	list_for_each_entry(o, flt_list(ctx->px), list)
	{
		if (o != fc && o->kind == fc->kind) {
			cfg_alert(ctx,
				  "'filter' : '%s: Proxy supports only one compression filter'",
				  ctx->px->id);
			return -1;
		}
	}
	return 0;
}

/* Check time, once per proxy: the proxy's settings are resolved (those of its defaults
 * when it has none of its own), then the filter is declared when it compresses without
 * a "filter compression" line; HAProxy's rules on the order of the filters apply. */
int comp_flt_implicit(struct proxy *px, const struct flt_kind *kind)
{
	struct flt_conf *fc;
	bool comp = false, explicit = false;

	if (!px->comp && comp_px_eff(px->defpx)) {
		px->comp = comp_px_dup(comp_px_eff(px->defpx));
		if (!px->comp) {
			ha_alert("config: %s '%s': out of memory\n", proxy_type_str(px), px->id);
			return 1;
		}
	}
	if (!px->comp)
		return 0;
	list_for_each_entry(fc, flt_list(px), list)
	{
		if (fc->kind == kind) {
			comp = true;
		} else if (!strcmp(fc->kind->name, "cache")) {
			if (comp) {
				ha_alert("config: %s '%s': unable to enable the compression filter "
					 "before any cache filter.\n",
					 proxy_type_str(px), px->id);
				return 1;
			}
		} else {
			explicit = true;
		}
	}
	if (comp)
		return 0;
	if (explicit) {
		ha_alert("config: %s '%s': require an explicit filter declaration to use HTTP "
			 "compression\n",
			 proxy_type_str(px), px->id);
		return 1;
	}
	if (!flt_declare(px, kind, NULL)) {
		ha_alert("config: %s '%s': out of memory\n", proxy_type_str(px), px->id);
		return 1;
	}
	return 0;
}

static void comp_px_release(struct proxy *px)
{
	comp_px_free(px->comp);
	px->comp = NULL;
}

__attribute__((constructor)) static void comp_cfg_init(void)
{
	proxy_comp_free_hook = comp_px_release;
}
