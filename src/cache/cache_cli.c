/* "show cache" on the runtime API, in HAProxy 2.6's layout: per cache a line
 * "ADDR: NAME (shctx:ADDR, available blocks:N)" then one line per live entry
 * "ADDR hash:N vary:0xHEX size:N (N blocks), refcount:N, expire:N". Blocks are 1 KB, as
 * HAProxy counts its shared memory; the available ones are those not held by an entry in
 * use or being written. Runs on the CLI's thread; the entries are read under their
 * shard's lock, one shard at a time, a full output buffer resuming where it stopped.
 */
#include <stdio.h>

#include <cache/cache.h>
#include <cli/cli.h>
#include <event/loop.h>

#define BLOCK 1024 /* bytes per block, as HAProxy's cache counts them */

struct show_walk {
	struct cli_ctx *ctx;
	int64_t now;
};

/* The secondary key as 2.6 prints its bytes: each part little-endian. */
static void vary_hex(const struct cache_entry *e, char *out)
{
	static const char hex[] = "0123456789abcdef";
	int n = 0;

	for (int i = 0; i < 3; i++)
		for (int b = 0; b < 4; b++) {
			unsigned v = (e->sec[i] >> (8 * b)) & 0xff;

			out[n++] = hex[v >> 4];
			out[n++] = hex[v & 15];
		}
	out[n] = 0;
}

static bool show_entry(const struct cache_entry *e, void *arg)
{
	struct show_walk *w = arg;
	uint64_t size = cache_entry_size(e);
	unsigned refs = __atomic_load_n(&e->refcnt, __ATOMIC_RELAXED);
	char vary[25];

	vary_hex(e, vary);
	return cli_printf(w->ctx,
			  "%p hash:%u vary:0x%s size:%llu (%llu blocks), refcount:%u, "
			  "expire:%lld\n",
			  (const void *)e, (unsigned)(e->hash >> 32), vary,
			  (unsigned long long)size,
			  (unsigned long long)((size + BLOCK - 1) / BLOCK), refs ? refs - 1 : 0,
			  (long long)(e->expire - w->now)) == 0;
}

/* Listed by "help" at every level, run for admins only, as in 2.6. st: 0 for the
 * cache's line, then 1 + the shard whose entries are printed; p[0] the cache, n[0] the
 * position in the shard. */
static int cli_show_cache(struct cli_ctx *ctx)
{
	struct show_walk w = { ctx, (int64_t)(now_ms() / 1000) };
	struct cache *c;

	if (ctx->level < CLI_LVL_ADMIN)
		return cli_printf(ctx, "Permission denied\n") < 0 ? CLI_MORE : CLI_DONE;
	if (!ctx->n[1]) { /* first call */
		ctx->n[1] = 1;
		ctx->p[0] = caches;
		ctx->st = 0;
	}
	for (c = (struct cache *)ctx->p[0]; c; ctx->p[0] = c = c->next, ctx->st = 0) {
		if (!c->store)
			continue;
		if (ctx->st == 0) {
			if (cli_printf(ctx, "%p: %s (shctx:%p, available blocks:%llu)\n", (void *)c,
				       c->id, (void *)c->store,
				       (unsigned long long)(cache_avail_bytes(c) / BLOCK)) < 0)
				return CLI_MORE;
			ctx->st = 1;
			ctx->n[0] = 0;
		}
		for (; ctx->st <= CACHE_SHARDS; ctx->st++, ctx->n[0] = 0)
			if (!cache_walk(c, ctx->st - 1, w.now, &ctx->n[0], show_entry, &w))
				return CLI_MORE; /* the output is full: go on from there */
	}
	return CLI_DONE;
}

static const struct cli_kw cache_cli_kws[] = {
	{ { "show", "cache" }, "show cache", "show cache status", CLI_LVL_USER, cli_show_cache },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(cache_cli_kws);
