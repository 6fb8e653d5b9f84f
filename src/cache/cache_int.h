/* Private to src/cache: what the configuration (cache_cfg.c) and the run-time side
 * (cache_act.c) share: the filter's configuration, the rule actions (recognised by their
 * functions), the filter kind and the hit service.
 */
#ifndef CACHE_CACHE_INT_H
#define CACHE_CACHE_INT_H

#include <stdint.h>
#include <stream/action-t.h>
#include <stream/filter.h>
#include <stream/service.h>

struct cache;

/* The configuration of one cache filter of a proxy ("filter cache NAME", or declared
 * for the cache rules). */
struct cache_fconf {
	char *name;	     /* owned */
	struct cache *cache; /* resolved at check time */
	uint8_t implicit;    /* declared for the rules, not by a "filter" line */
};

/* The rules: r->arg.gen.str is the cache's name (owned), r->arg.gen.p[0] the cache
 * (resolved by the rule's check, NULL when there is none of that name). */
enum act_return cache_act_use(struct act_rule *r, struct proxy *px, struct stream *s, int from);
enum act_return cache_act_store(struct act_rule *r, struct proxy *px, struct stream *s, int from);

extern struct flt_kind cache_flt_kind;

/* Filter hooks of the configuration (cache_cfg.c). */
int cache_flt_parse(struct cfg_ctx *ctx, struct flt_conf *fc);
int cache_flt_check(struct proxy *px, struct flt_conf *fc);
int cache_flt_implicit(struct proxy *px);
void cache_flt_conf_free(struct flt_conf *fc);

#endif
