/* Filters in the configuration (include/stream/filter.h): the registry of filter kinds,
 * the "filter" keyword of frontends, backends and listens, the implicit declarations done
 * at check time by the kinds (compression, cache), the kinds' checks, and freeing.
 */
#include <stdlib.h>
#include <string.h>

#include <cfg/cfg.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <proxy/proxy-t.h>
#include <stream/filter.h>

static struct list flt_kinds = LIST_HEAD_INIT(flt_kinds);

/* HAProxy's filters that are not built here, and why. */
static const struct {
	const char *name;
	const char *why;
} flt_missing[] = {
	{ "trace", "the trace filter is not supported yet" },
	{ "spoe", "SPOE is not supported yet" },
	{ "fcgi-app", "FastCGI applications are not supported yet" },
	{ "opentracing", "OpenTracing is not supported" },
	{ "bwlim-in", "bandwidth limitation filters are not supported yet" },
	{ "bwlim-out", "bandwidth limitation filters are not supported yet" },
};

void flt_register(struct flt_kind *k)
{
	struct flt_kind *cur;

	/* sorted by implicit_order: the implicit declarations follow it */
	list_for_each_entry(cur, &flt_kinds, list)
	{
		if (cur->implicit_order > k->implicit_order) {
			list_append(&cur->list, &k->list); /* before <cur> */
			return;
		}
	}
	list_append(&flt_kinds, &k->list);
}

const struct flt_kind *flt_kind_find(const char *name)
{
	const struct flt_kind *k;

	list_for_each_entry(k, &flt_kinds, list) if (!strcmp(k->name, name)) return k;
	return NULL;
}

struct list *flt_list(struct proxy *px)
{
	return &px->filters;
}

struct flt_conf *flt_declare(struct proxy *px, const struct flt_kind *kind,
			     const struct cfg_ctx *ctx)
{
	struct flt_conf *fc = calloc(1, sizeof(*fc));

	if (!fc)
		return NULL;
	fc->kind = kind;
	if (ctx) {
		fc->file = strdup(ctx->file);
		if (!fc->file) {
			free(fc);
			return NULL;
		}
		fc->line = ctx->line;
		px->flt_explicit = 1;
	}
	list_append(&px->filters, &fc->list);
	return fc;
}

struct flt_conf *flt_find_conf(struct proxy *px, const struct flt_kind *kind)
{
	struct flt_conf *fc;

	list_for_each_entry(fc, &px->filters, list) if (fc->kind == kind) return fc;
	return NULL;
}

bool flt_px_explicit(struct proxy *px)
{
	return px->flt_explicit;
}

static void flt_conf_free(struct flt_conf *fc)
{
	if (fc->kind->conf_free)
		fc->kind->conf_free(fc);
	free(fc->file);
	free(fc);
}

static void flt_px_free(struct proxy *px)
{
	struct flt_conf *fc, *next;

	list_for_each_entry_safe(fc, next, &px->filters, list)
	{
		list_delete(&fc->list);
		flt_conf_free(fc);
	}
}

/* "filter NAME [args...]" */
static int flt_kw_filter(struct cfg_ctx *ctx)
{
	const struct flt_kind *k;
	struct flt_conf *fc;

	if (!ctx->px)
		return -1;
	if (ctx->section == CFG_SEC_DEFAULTS) {
		cfg_alert(ctx, "filter is not allowed in a 'default' section.");
		return -1;
	}
	if (ctx->nargs < 2) {
		cfg_alert(ctx, "'filter' expects a filter name");
		return -1;
	}
	k = flt_kind_find(ctx->args[1]);
	if (!k) {
		for (size_t i = 0; i < sizeof(flt_missing) / sizeof(flt_missing[0]); i++)
			if (!strcmp(ctx->args[1], flt_missing[i].name))
				return cfg_not_supported(ctx, flt_missing[i].why);
		cfg_alert(ctx, "'filter' : unknown keyword '%s'", ctx->args[1]);
		return -1;
	}
	if (!k->parse && ctx->nargs > 2) {
		cfg_alert(ctx, "'filter %s' : expects no argument", k->name);
		return -1;
	}
	fc = flt_declare(ctx->px, k, ctx);
	if (!fc) {
		cfg_alert(ctx, "'filter' : out of memory");
		return -1;
	}
	if (k->parse && k->parse(ctx, fc) < 0) {
		list_delete(&fc->list);
		flt_conf_free(fc);
		return -1;
	}
	return 0;
}

int flt_check_all(void)
{
	const struct flt_kind *k;
	struct flt_conf *fc;
	struct proxy *px;
	int errs = 0;

	for (px = proxies; px; px = px->next) {
		int n = 0;

		list_for_each_entry(k, &flt_kinds, list) if (k->implicit) errs += k->implicit(px);
		list_for_each_entry(fc, &px->filters, list)
		{
			if (fc->kind->check)
				errs += fc->kind->check(px, fc);
			px->flt_svc |= fc->kind->svc_rsp;
			n++;
		}
		if (n > FLT_MAX_PX) {
			ha_alert("config : %s '%s' (%s:%d) : too many filters (%d, at most %d per "
				 "proxy, implicit ones included).\n",
				 proxy_type_str(px), px->id, px->file, px->line, n, FLT_MAX_PX);
			errs++;
		}
		px->flt_on = !list_empty(&px->filters);
		if (px->flt_on) { /* one more bit in what the plain path tests already */
			px->rule_sets |= PR_RS_FILTER;
			px->options |= PR_O_FILTER;
		}
	}
	return errs;
}

static const struct cfg_kw flt_kws[] = {
	{ "filter", CFG_SEC_PROXIES, flt_kw_filter },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(flt_kws);

__attribute__((constructor)) static void flt_cfg_init(void)
{
	proxy_flt_free_hook = flt_px_free;
}
