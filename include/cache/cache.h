/* The cache: "cache NAME" sections (cache_cfg.c), their stores (cache_store.c), the
 * rules, filter and hit service that use them (cache_act.c), "show cache" (cache_cli.c).
 *
 * A store is shared by every thread: CACHE_SHARDS shards chosen by the key's hash, each
 * a mutex, hash chains and an LRU list; one byte budget (total-max-size) for the whole
 * store, kept by evicting least recently used entries (round-robin over the shards'
 * LRU tails). Entries are reference-counted: a reader keeps one while it sends it, so an
 * entry evicted or replaced meanwhile is freed by its last reader. An entry is written
 * by one stream while it is CE_PENDING, and found by lookups only once published.
 * Functions below may be called from any thread unless said otherwise.
 */
#ifndef CACHE_CACHE_H
#define CACHE_CACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <base/ist.h>
#include <cache/cache-t.h>
#include <cache/cache_http.h>

extern struct cache *caches; /* declaration order */

/* The cache section <name>, or NULL. Config time. */
struct cache *cache_find(const char *name);

/* Check time: the sections' sizes (HAProxy's alerts), then their stores. Returns the
 * number of errors printed. */
int cache_cfg_check(void);

/* The stores (cache_store.c): made for <c> at check time (0, or -1 without memory),
 * freed at exit. */
int cache_store_init(struct cache *c);
void cache_store_free(struct cache *c);

/* A primary key: its bytes and their hash. */
struct cache_key {
	uint64_t hash;
	const char *ptr;
	uint32_t len;
};

uint64_t cache_key_hash(const char *p, size_t len);

/* The live entry of <k> whose secondary key matches <sec> (NULL when the request has
 * none: only entries without one match), not expired at <now> (monotonic seconds), with a
 * reference for the caller and moved to the head of its LRU; NULL when there is none.
 * Expired entries met on the way are dropped. */
struct cache_entry *cache_get(struct cache *c, const struct cache_key *k,
			      const struct cache_sec *sec, int64_t now);
/* Drops the caller's reference to <e> (the last one frees it). */
void cache_put(struct cache_entry *e);

/* What a new entry is. */
struct cache_wdesc {
	uint8_t vary;	 /* CACHE_VARY_* */
	uint32_t sec[3]; /* as cache_entry.sec */
	uint16_t status;
	struct ist reason;
	uint32_t head_len;  /* bytes of head lines the caller writes at cache_wr_head() */
	uint64_t body_hint; /* the body's announced length (content-length), 0: unknown */
	uint8_t framing;    /* CE_FR_* */
};

/* Starts entry <k> (CE_PENDING) for the calling stream, with room for its head and, as
 * far as max-object-size allows, its body. Returns it with a reference for the writer,
 * or NULL when it is not stored: the same response is already being written, the
 * primary key has max-secondary-entries variants, it is larger than max-object-size, or
 * no room can be made. The writer fills the head at cache_wr_head(), appends the body,
 * then ends it. */
struct cache_entry *cache_wr_begin(struct cache *c, const struct cache_key *k,
				   const struct cache_wdesc *d);
/* Where the writer puts the <head_len> bytes of head lines. */
char *cache_wr_head(struct cache_entry *e);
/* Appends body bytes; -1 when the object would exceed max-object-size or no room can be
 * made (the writer then ends it with <ok> false). */
int cache_wr_append(struct cache *c, struct cache_entry *e, const char *p, size_t len);
/* Ends the writing: with <ok>, publishes it (usable until <expire>, monotonic seconds),
 * replacing the live entry with the same keys; else drops it. Drops the writer's
 * reference. Before, the writer may set the fields a lookup does not read (stored, age,
 * last_mod, etag_off, etag_len). */
void cache_wr_end(struct cache *c, struct cache_entry *e, bool ok, int64_t expire);

/* Drops every entry of primary key <k> (a successful unsafe request on it). */
void cache_invalidate(struct cache *c, const struct cache_key *k);

/* The bytes of an entry as max-object-size and "show cache" count them. */
uint64_t cache_entry_size(const struct cache_entry *e);
/* Its head lines and body. */
static inline const char *cache_entry_reason(const struct cache_entry *e)
{
	return e->buf;
}
static inline const char *cache_entry_head(const struct cache_entry *e)
{
	return e->buf + e->reason_len;
}
static inline const char *cache_entry_body(const struct cache_entry *e)
{
	return e->buf + e->reason_len + e->head_len;
}

/* "show cache": calls <fn> for each live entry of shard <shard> not expired at <now>,
 * from the <*pos>-th on (advanced), under the shard's lock (<fn> must not block);
 * stops when <fn> returns false. Returns true when it went through the whole shard. */
bool cache_walk(struct cache *c, int shard, int64_t now, uint64_t *pos,
		bool (*fn)(const struct cache_entry *e, void *arg), void *arg);
/* Bytes that could be reused now: free, or held by live entries nobody reads. */
uint64_t cache_avail_bytes(struct cache *c);

#endif
