/* Configuration of the cache: "cache NAME" sections (total-max-size, max-object-size,
 * max-age, process-vary, max-secondary-entries) with HAProxy 2.6's messages, the checks of
 * their sizes and the making of their stores; the "http-request cache-use NAME" and
 * "http-response cache-store NAME" rules; and the configuration side of the "cache"
 * filter ("filter cache NAME", the implicit declarations the rules need, their checks).
 * The run-time side is cache_act.c, the stores cache_store.c.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cache/cache.h>
#include <cfg/cfg.h>
#include <proxy/proxy-t.h>
#include <proxy/proxy_cfg.h>
#include <stream/action.h>

#include "cache_int.h"

#define CACHE_SEC 0x10000000u /* local to this file: nothing else parses the section */

struct cache *caches;
static struct cache *cache_cur; /* the section being parsed, NULL when it failed */

struct cache *cache_find(const char *name)
{
	for (struct cache *c = caches; c; c = c->next)
		if (!strcmp(c->id, name))
			return c;
	return NULL;
}

/* 2.6 words these as warnings but stops on them: printed as warnings, counted as
 * errors. */
#define cache_warn_fatal(ctx, fmt, ...)                                                     \
	do {                                                                                \
		ha_warning("parsing [%s:%d]: " fmt, (ctx)->file, (ctx)->line, __VA_ARGS__); \
		cfg_errors++;                                                               \
		if (cache_cur)                                                              \
			cache_cur->broken = 1;                                              \
	} while (0)

/* The keyword's single argument ("" when absent), or NULL after an alert when there are
 * more. */
static const char *one_arg(struct cfg_ctx *ctx)
{
	if (ctx->nargs > 2) {
		cfg_alert(ctx, "'%s' cannot handle unexpected argument '%s'.", ctx->args[0],
			  ctx->args[2]);
		if (cache_cur)
			cache_cur->broken = 1;
		return NULL;
	}
	return ctx->nargs > 1 ? ctx->args[1] : "";
}

/* A decimal number, the whole word (strtoul's reading: "-1" is ULONG_MAX). */
static int word_ulong(const char *w, unsigned long *v)
{
	char *end;

	*v = strtoul(w, &end, 10);
	return end == w || *end ? -1 : 0;
}

static int cache_begin(struct cfg_ctx *ctx)
{
	struct cache *c, **tail;

	cache_cur = NULL;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'cache' expects a <name> argument");
		return -1;
	}
	if (ctx->nargs > 2) {
		cfg_alert(ctx, "'cache' cannot handle unexpected argument '%s'.", ctx->args[2]);
		return -1;
	}
	if (cache_find(ctx->args[1])) {
		ha_alert("parsing [%s:%d]: Duplicate cache name '%s'.", ctx->file, ctx->line,
			 ctx->args[1]);
		return -1;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->id = strdup(ctx->args[1])) || !(c->file = strdup(ctx->file))) {
		if (c)
			free(c->id);
		free(c);
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	c->line = ctx->line;
	c->max_age = 60; /* 2.6's defaults */
	c->max_sec = 10;
	for (tail = &caches; *tail; tail = &(*tail)->next)
		;
	*tail = c;
	cache_cur = c;
	return 0;
}

static const struct cfg_section cache_section = { "cache", CACHE_SEC, cache_begin };

__attribute__((constructor)) static void cache_register_section(void)
{
	cfg_register_section(&cache_section);
}

static int kw_total_max_size(struct cfg_ctx *ctx)
{
	const char *a = one_arg(ctx);
	unsigned long v;

	if (!a || !cache_cur)
		return 0;
	if (word_ulong(a, &v) < 0) {
		cache_warn_fatal(ctx, "total-max-size wrong value '%s'", a);
		return 0;
	}
	if (v > (UINT_MAX >> 20)) {
		cache_warn_fatal(ctx, "\"total-max-size\" (%s) must not be greater than %u", a,
				 UINT_MAX >> 20);
		return 0;
	}
	cache_cur->max_bytes = (uint64_t)v << 20; /* megabytes */
	return 0;
}

static int kw_max_object_size(struct cfg_ctx *ctx)
{
	const char *a = one_arg(ctx);
	unsigned long v;

	if (!a || !cache_cur)
		return 0;
	if (!*a)
		ha_warning("parsing [%s:%d]: '%s' expects a maximum file size parameter in bytes.",
			   ctx->file, ctx->line, ctx->args[0]);
	if (word_ulong(a, &v) < 0) {
		cache_warn_fatal(ctx, "max-object-size wrong value '%s'", a);
		return 0;
	}
	cache_cur->max_obj = v;
	return 0;
}

static int kw_max_age(struct cfg_ctx *ctx)
{
	const char *a = one_arg(ctx);

	if (!a || !cache_cur)
		return 0;
	if (!*a)
		ha_warning("parsing [%s:%d]: '%s' expects an age parameter in seconds.", ctx->file,
			   ctx->line, ctx->args[0]);
	/* atoi() as 2.6 reads it, kept in an unsigned int: "-5" is a very long time */
	cache_cur->max_age = (uint32_t)(int)strtol(a, NULL, 10);
	return 0;
}

static int kw_process_vary(struct cfg_ctx *ctx)
{
	const char *a = one_arg(ctx);

	if (!a || !cache_cur)
		return 0;
	if (!*a) /* 2.6 says it twice then */
		ha_warning("parsing [%s:%d]: '%s' expects \"on\" or \"off\" (enable or disable "
			   "vary processing).",
			   ctx->file, ctx->line, ctx->args[0]);
	if (!strcmp(a, "on"))
		cache_cur->vary_on = 1;
	else if (!strcmp(a, "off"))
		cache_cur->vary_on = 0;
	else
		ha_warning("parsing [%s:%d]: '%s' expects \"on\" or \"off\" (enable or disable "
			   "vary processing).",
			   ctx->file, ctx->line, ctx->args[0]);
	return 0;
}

static int kw_max_secondary_entries(struct cfg_ctx *ctx)
{
	const char *a = one_arg(ctx);
	unsigned long v;

	if (!a || !cache_cur)
		return 0;
	if (!*a)
		ha_warning("parsing [%s:%d]: '%s' expects a strictly positive number.", ctx->file,
			   ctx->line, ctx->args[0]);
	if (word_ulong(a, &v) < 0 || !v) {
		cache_warn_fatal(ctx, "max-secondary-entries wrong value '%s'", a);
		return 0;
	}
	cache_cur->max_sec = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
	return 0;
}

static const struct cfg_kw cache_kws[] = {
	{ "total-max-size", CACHE_SEC, kw_total_max_size },
	{ "max-object-size", CACHE_SEC, kw_max_object_size },
	{ "max-age", CACHE_SEC, kw_max_age },
	{ "process-vary", CACHE_SEC, kw_process_vary },
	{ "max-secondary-entries", CACHE_SEC, kw_max_secondary_entries },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(cache_kws);

int cache_cfg_check(void)
{
	int errs = 0;

	for (struct cache *c = caches; c; c = c->next) {
		if (c->broken)
			continue; /* its error is reported */
		if (!c->max_bytes) {
			ha_alert("Size not specified for cache '%s'", c->id);
			errs++;
			continue;
		}
		if (!c->max_obj) {
			c->max_obj = c->max_bytes >> 8; /* a 256th of the cache */
		} else if (c->max_obj > c->max_bytes / 2) {
			ha_alert("\"max-object-size\" is limited to an half of \"total-max-size\" "
				 "=> "
				 "%llu",
				 (unsigned long long)(c->max_bytes / 2));
			errs++;
			continue;
		}
		if (cache_store_init(c) < 0) {
			ha_alert("cache '%s': out of memory.", c->id);
			errs++;
		}
	}
	return errs;
}

/* ---- the rules ---- */

static void cache_rule_release(struct act_rule *r)
{
	free((char *)r->arg.gen.str.ptr);
}

/* The cache is looked up by name once every section is read; an unknown one is reported
 * by the check of the filter the rule needs. */
static int cache_rule_check(struct act_rule *r, struct proxy *px, char *err, size_t errsz)
{
	r->arg.gen.p[0] = cache_find(r->arg.gen.str.ptr);
	return 0;
}

static int cache_rule_parse(char **args, int *pos, int nargs, const struct act_parse *ap,
			    struct act_rule *r, char *err, size_t errsz)
{
	const char *name = act_next_word(args, pos, nargs);
	char *dup;

	if (!name || !*name) {
		snprintf(err, errsz, "expects a cache name");
		return -1;
	}
	dup = strdup(name);
	if (!dup) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	r->arg.gen.str = ist2(dup, strlen(dup));
	r->action = ap->from == ACT_F_HTTP_REQ ? cache_act_use : cache_act_store;
	r->release = cache_rule_release;
	r->check = cache_rule_check;
	return 0;
}

static const struct action_kw cache_act_kws[] = {
	{ "cache-use", ACT_F_HTTP_REQ, 0, cache_rule_parse },
	{ "cache-store", ACT_F_HTTP_RES, 0, cache_rule_parse },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(cache_act_kws);

/* ---- the filter's configuration ---- */

static struct cache_fconf *fconf_new(const char *name, bool implicit)
{
	struct cache_fconf *cf = calloc(1, sizeof(*cf));

	if (!cf || !(cf->name = strdup(name))) {
		free(cf);
		return NULL;
	}
	cf->implicit = implicit;
	return cf;
}

/* The cache filter of <px> for cache <name>, NULL when there is none. */
static struct flt_conf *fconf_find(struct proxy *px, const char *name, const struct flt_conf * not )
{
	struct flt_conf *fc;

	list_for_each_entry(fc, flt_list(px), list)
	{
		const struct cache_fconf *cf = fc->conf;

		if (fc != not &&fc->kind == &cache_flt_kind && cf && !strcmp(cf->name, name))
			return fc;
	}
	return NULL;
}

/* "filter cache NAME" */
int cache_flt_parse(struct cfg_ctx *ctx, struct flt_conf *fc)
{
	const char *name = ctx->nargs > 2 ? ctx->args[2] : "";

	if (!*name) {
		cfg_alert(ctx, "'filter' : 'cache : expects a <name> argument'");
		return -1;
	}
	if (ctx->nargs > 3) {
		cfg_alert(ctx, "'filter cache' : unknown keyword '%s'.", ctx->args[3]);
		return -1;
	}
	if (fconf_find(ctx->px, name, fc)) {
		cfg_alert(ctx,
			  "'filter' : '%s: multiple explicit declarations of the cache filter "
			  "'%s''",
			  ctx->px->id, name);
		return -1;
	}
	fc->conf = fconf_new(name, false);
	if (!fc->conf) {
		cfg_alert(ctx, "'filter' : out of memory");
		return -1;
	}
	return 0;
}

/* Declares the cache filters <rules> of <px> need. Returns the errors printed. */
static int implicit_rules(struct proxy *px, struct list *rules)
{
	struct act_rule *r;

	list_for_each_entry(r, rules, list)
	{
		struct flt_conf *fc;

		if (r->action != cache_act_use && r->action != cache_act_store)
			continue;
		if (fconf_find(px, r->arg.gen.str.ptr, NULL))
			continue;
		fc = flt_declare(px, &cache_flt_kind, NULL);
		if (fc)
			fc->conf = fconf_new(r->arg.gen.str.ptr, true);
		if (!fc || !fc->conf) {
			ha_alert("config: %s '%s': out of memory.", proxy_type_str(px), px->id);
			return 1;
		}
	}
	return 0;
}

/* The rules of <px> (those of its named defaults section too) that use a cache get a
 * filter of it, as HAProxy declares one when it parses such a rule. */
/* True when <rules> hold a cache-use rule. */
static bool has_use_rule(struct list *rules)
{
	struct act_rule *r;

	list_for_each_entry(r, rules, list) if (r->action == cache_act_use) return true;
	return false;
}

int cache_flt_implicit(struct proxy *px)
{
	int errs = 0;

	/* its hits are served once its http-request rules are over (stream/http_ana.c) */
	if (has_use_rule(&px->http_req_rules) ||
	    (px->defpx && has_use_rule(&px->defpx->http_req_rules)))
		px->rule_sets |= PR_RS_CACHE;

	if (px->defpx) {
		errs += implicit_rules(px, &px->defpx->http_req_rules);
		errs += implicit_rules(px, &px->defpx->http_res_rules);
	}
	errs += implicit_rules(px, &px->http_req_rules);
	errs += implicit_rules(px, &px->http_res_rules);
	return errs;
}

/* The cache must exist and come before a compression filter (which would change the
 * body it stores); an implicit one goes with compression filters only. */
int cache_flt_check(struct proxy *px, struct flt_conf *fc)
{
	struct cache_fconf *cf = fc->conf;
	struct flt_conf *f;
	bool comp = false;

	cf->cache = cache_find(cf->name);
	if (!cf->cache) {
		ha_alert("config: %s '%s': unable to find the cache '%s' referenced by the filter "
			 "'cache'.",
			 proxy_type_str(px), px->id, cf->name);
		return 1;
	}
	list_for_each_entry(f, flt_list(px), list)
	{
		if (f == fc) {
			if (!comp)
				continue;
			ha_alert("config: %s '%s': unable to enable the compression filter before "
				 "the cache '%s'.",
				 proxy_type_str(px), px->id, cf->name);
			return 1;
		}
		if (!strcmp(f->kind->name, "compression")) {
			comp = true;
		} else if (f->kind != &cache_flt_kind && cf->implicit) {
			ha_alert("config: %s '%s': require an explicit filter declaration to use "
				 "the "
				 "cache '%s'.",
				 proxy_type_str(px), px->id, cf->name);
			return 1;
		}
	}
	return 0;
}

void cache_flt_conf_free(struct flt_conf *fc)
{
	struct cache_fconf *cf = fc->conf;

	if (cf)
		free(cf->name);
	free(cf);
	fc->conf = NULL;
}
