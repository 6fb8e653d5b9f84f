/* The stores of the caches (include/cache/cache.h): sharded hash chains and LRU lists,
 * the byte budget of each store and the evictions that keep it, reference counting of
 * entries, and the life of an entry from its writer to its last reader. Any thread.
 *
 * Why the locks: a store is shared by all threads, and a lookup, an insertion or an
 * eviction changes a chain, the LRU list and entry states together; each shard's mutex
 * makes that one step. It is held for pointer updates and key comparisons only (never
 * while copying a body, allocating or freeing), and only one shard lock is held at a
 * time (an eviction made for another shard takes the victim's lock alone), so that no
 * two threads can wait on each other. The budget and reference counts are atomics:
 * readers release their entry without the lock, and whoever drops the last reference of
 * an entry out of its chain frees it.
 */
#include <stdlib.h>
#include <string.h>

#include <base/atomic.h>
#include <cache/cache.h>
#include <sample/hash.h>

#define WR_FIRST_BODY 4096 /* first room for a body of unknown length */

uint64_t cache_key_hash(const char *p, size_t len)
{
	return hash_xxh3(p, len, 0x6361636865ULL);
}

uint64_t cache_entry_size(const struct cache_entry *e)
{
	return sizeof(*e) + e->reason_len + e->head_len + e->body_len;
}

/* Bytes an entry holds in the budget. */
static uint64_t entry_alloc(const struct cache_entry *e)
{
	return sizeof(*e) + e->key_len + e->cap;
}

static struct cache_shard *shard_of(struct cache_store *st, uint64_t hash)
{
	return &st->shards[hash >> 60];
}

static struct cache_entry **chain_of(struct cache_shard *sh, uint64_t hash)
{
	return &sh->table[hash & sh->mask];
}

int cache_store_init(struct cache *c)
{
	struct cache_store *st = aligned_alloc(CACHELINE, sizeof(*st));
	uint64_t want = c->max_bytes / 2048 / CACHE_SHARDS;
	uint32_t n = 8;

	if (!st)
		return -1;
	memset(st, 0, sizeof(*st));
	while (n < want && n < (1u << 16))
		n <<= 1;
	for (int i = 0; i < CACHE_SHARDS; i++) {
		struct cache_shard *sh = &st->shards[i];

		pthread_mutex_init(&sh->lock, NULL);
		list_init(&sh->lru);
		sh->mask = n - 1;
		sh->table = calloc(n, sizeof(*sh->table));
		if (!sh->table) {
			c->store = st;
			cache_store_free(c);
			return -1;
		}
	}
	c->store = st;
	return 0;
}

static void entry_free(struct cache_entry *e)
{
	HA_ATOMIC_SUB(&e->st->used, entry_alloc(e));
	free(e->buf);
	free(e);
}

void cache_store_free(struct cache *c)
{
	struct cache_store *st = c->store;

	if (!st)
		return;
	for (int i = 0; i < CACHE_SHARDS; i++) {
		struct cache_shard *sh = &st->shards[i];

		for (uint32_t b = 0; sh->table && b <= sh->mask; b++) {
			struct cache_entry *e, *next;

			for (e = sh->table[b]; e; e = next) {
				next = e->next;
				entry_free(e);
			}
		}
		free(sh->table);
		pthread_mutex_destroy(&sh->lock);
	}
	free(st);
	c->store = NULL;
}

/* Drops a reference of <e>; the last one frees it (it is out of its chain then). */
void cache_put(struct cache_entry *e)
{
	if (HA_ATOMIC_SUB(&e->refcnt, 1) == 0)
		entry_free(e);
}

/* Takes <e>, found at *pp, out of its chain (and of the LRU). Shard lock held. Returns
 * true when the chain's reference was the last one: the caller frees it after unlocking. */
static bool __unlink(struct cache_shard *sh, struct cache_entry **pp, struct cache_entry *e)
{
	*pp = e->next;
	e->next = NULL;
	if (e->state == CE_LIVE) {
		list_delete(&e->lru);
		sh->nb_live--;
	}
	e->state = CE_DEAD;
	return HA_ATOMIC_SUB(&e->refcnt, 1) == 0;
}

/* Frees the entries linked by <next> in <dead> (unlinked, last reference gone). */
static void free_dead(struct cache_entry *dead)
{
	while (dead) {
		struct cache_entry *next = dead->next;

		entry_free(dead);
		dead = next;
	}
}

static bool same_key(const struct cache_entry *e, const struct cache_key *k)
{
	return e->hash == k->hash && e->key_len == k->len && !memcmp(e->key, k->ptr, k->len);
}

/* The secondary key of <e> accepts the request's values <sec>. */
static bool sec_match(const struct cache_entry *e, const struct cache_sec *sec)
{
	if (!e->vary)
		return true;
	if (!sec)
		return false;
	if ((e->vary & CACHE_VARY_AE) && !cache_enc_acceptable(e->sec[0], sec))
		return false;
	if ((e->vary & CACHE_VARY_REFERER) && e->sec[1] != sec->referer)
		return false;
	return !(e->vary & CACHE_VARY_ORIGIN) || e->sec[2] == sec->origin;
}

/* <e> and a response described by <d> are the same variant of their primary key. */
static bool same_variant(const struct cache_entry *e, uint8_t vary, const uint32_t sec[3])
{
	if (e->vary != vary)
		return false;
	return (!(vary & CACHE_VARY_AE) || e->sec[0] == sec[0]) &&
	       (!(vary & CACHE_VARY_REFERER) || e->sec[1] == sec[1]) &&
	       (!(vary & CACHE_VARY_ORIGIN) || e->sec[2] == sec[2]);
}

struct cache_entry *cache_get(struct cache *c, const struct cache_key *k,
			      const struct cache_sec *sec, int64_t now)
{
	struct cache_shard *sh = shard_of(c->store, k->hash);
	struct cache_entry **pp, *e, *found = NULL, *dead = NULL;

	pthread_mutex_lock(&sh->lock);
	for (pp = chain_of(sh, k->hash); (e = *pp);) {
		if (e->state != CE_LIVE || !same_key(e, k)) {
			pp = &e->next;
			continue;
		}
		if (e->expire <= now) {
			if (__unlink(sh, pp, e)) {
				e->next = dead;
				dead = e;
			}
			continue;
		}
		if (sec_match(e, sec)) {
			found = e;
			HA_ATOMIC_ADD(&e->refcnt, 1);
			list_delete(&e->lru);
			list_insert(&sh->lru, &e->lru);
			break;
		}
		pp = &e->next;
	}
	pthread_mutex_unlock(&sh->lock);
	free_dead(dead);
	return found;
}

/* Evicts the least recently used live entry of the next shard that has one. Returns
 * false when no shard has any. No lock held by the caller. */
static bool evict_one(struct cache *c)
{
	struct cache_store *st = c->store;

	for (int i = 0; i < CACHE_SHARDS; i++) {
		uint32_t n = HA_ATOMIC_FETCH_ADD(&st->evict_cursor, 1) % CACHE_SHARDS;
		struct cache_shard *sh = &st->shards[n];
		struct cache_entry *e = NULL, **pp;
		bool last = false;

		pthread_mutex_lock(&sh->lock);
		if (!list_empty(&sh->lru)) {
			e = list_elem(sh->lru.prev, struct cache_entry, lru);
			for (pp = chain_of(sh, e->hash); *pp != e; pp = &(*pp)->next)
				;
			last = __unlink(sh, pp, e);
		}
		pthread_mutex_unlock(&sh->lock);
		if (!e)
			continue;
		HA_COUNTER_INC(&st->evictions);
		if (last)
			entry_free(e);
		return true;
	}
	return false;
}

/* Reserves <n> bytes of the budget, evicting what it takes. 0, or -1 when the store
 * cannot hold them (what is left is in use or being written). */
static int reserve(struct cache *c, uint64_t n)
{
	struct cache_store *st = c->store;

	if (n > c->max_bytes)
		return -1;
	for (;;) {
		uint64_t cur = HA_ATOMIC_LOAD(&st->used);

		if (cur + n <= c->max_bytes) {
			if (HA_ATOMIC_CAS(&st->used, &cur, cur + n))
				return 0;
			continue;
		}
		if (!evict_one(c))
			return -1;
	}
}

struct cache_entry *cache_wr_begin(struct cache *c, const struct cache_key *k,
				   const struct cache_wdesc *d)
{
	uint64_t fixed = sizeof(struct cache_entry) + d->reason.len + 1 + d->head_len, body;
	struct cache_shard *sh = shard_of(c->store, k->hash);
	struct cache_entry *e, *o, **pp;
	uint32_t variants = 0;

	if (fixed > c->max_obj || d->body_hint > c->max_obj - fixed)
		return NULL;
	body = d->body_hint ? d->body_hint : MIN(WR_FIRST_BODY, c->max_obj - fixed);
	e = calloc(1, sizeof(*e) + k->len);
	if (!e)
		return NULL;
	e->st = c->store;
	e->hash = k->hash;
	e->key_len = k->len;
	memcpy(e->key, k->ptr, k->len);
	e->vary = d->vary;
	memcpy(e->sec, d->sec, sizeof(e->sec));
	e->status = d->status;
	e->reason_len = (uint16_t)(MIN(d->reason.len, 0xfffe) + 1); /* NUL-terminated */
	e->head_len = d->head_len;
	e->framing = d->framing;
	e->cap = e->reason_len + e->head_len + body;
	e->refcnt = 2; /* its chain's and the writer's */
	if (reserve(c, entry_alloc(e)) < 0) {
		free(e);
		return NULL;
	}
	e->buf = malloc(e->cap);
	if (!e->buf) {
		HA_ATOMIC_SUB(&c->store->used, entry_alloc(e));
		free(e);
		return NULL;
	}
	if (e->reason_len > 1)
		memcpy(e->buf, d->reason.ptr, e->reason_len - 1u);
	e->buf[e->reason_len - 1] = 0;

	pthread_mutex_lock(&sh->lock);
	for (pp = chain_of(sh, k->hash); (o = *pp); pp = &o->next) {
		if (o->state == CE_DEAD || !same_key(o, k))
			continue;
		if (same_variant(o, d->vary, d->sec)) {
			if (o->state == CE_PENDING)
				break; /* another stream writes it: one copy is enough */
			continue;      /* live: replaced when this one is published */
		}
		variants++;
	}
	if (!o && d->vary && variants >= c->max_sec)
		o = e; /* as many variants as allowed */
	if (!o) {
		e->next = *chain_of(sh, k->hash);
		*chain_of(sh, k->hash) = e;
	}
	pthread_mutex_unlock(&sh->lock);
	if (o) {
		entry_free(e);
		return NULL;
	}
	return e;
}

char *cache_wr_head(struct cache_entry *e)
{
	return e->buf + e->reason_len;
}

int cache_wr_append(struct cache *c, struct cache_entry *e, const char *p, size_t len)
{
	uint64_t need = (uint64_t)e->reason_len + e->head_len + e->body_len + len, cap;
	char *nb;

	if (cache_entry_size(e) + len > c->max_obj)
		return -1;
	if (need > e->cap) {
		/* doubling, but never past the largest object it may become */
		cap = MAX(e->cap * 2, need);
		cap = MIN(cap, c->max_obj - sizeof(*e));
		if (reserve(c, cap - e->cap) < 0)
			return -1;
		nb = realloc(e->buf, cap);
		if (!nb) {
			HA_ATOMIC_SUB(&c->store->used, cap - e->cap);
			return -1;
		}
		e->buf = nb;
		e->cap = cap;
	}
	memcpy(e->buf + e->reason_len + e->head_len + e->body_len, p, len);
	e->body_len += len;
	return 0;
}

void cache_wr_end(struct cache *c, struct cache_entry *e, bool ok, int64_t expire)
{
	struct cache_shard *sh = shard_of(c->store, e->hash);
	struct cache_entry **pp, *o, *dead = NULL;
	struct cache_key k = { e->hash, e->key, e->key_len };

	pthread_mutex_lock(&sh->lock);
	if (e->state == CE_PENDING) {
		for (pp = chain_of(sh, e->hash); (o = *pp);) {
			if (o == e && !ok) {
				__unlink(sh, pp, o); /* never the last: the writer's is left */
				continue;
			}
			if (ok && o != e && o->state == CE_LIVE && same_key(o, &k) &&
			    same_variant(o, e->vary, e->sec)) {
				if (__unlink(sh, pp, o)) {
					o->next = dead;
					dead = o;
				}
				continue;
			}
			pp = &o->next;
		}
		if (ok) {
			e->expire = expire;
			e->state = CE_LIVE;
			list_insert(&sh->lru, &e->lru);
			sh->nb_live++;
		}
	}
	pthread_mutex_unlock(&sh->lock);
	free_dead(dead);
	cache_put(e);
}

void cache_invalidate(struct cache *c, const struct cache_key *k)
{
	struct cache_shard *sh = shard_of(c->store, k->hash);
	struct cache_entry **pp, *e, *dead = NULL;

	pthread_mutex_lock(&sh->lock);
	for (pp = chain_of(sh, k->hash); (e = *pp);) {
		if (e->state == CE_DEAD || !same_key(e, k)) {
			pp = &e->next;
			continue;
		}
		if (__unlink(sh, pp, e)) {
			e->next = dead;
			dead = e;
		}
	}
	pthread_mutex_unlock(&sh->lock);
	free_dead(dead);
}

bool cache_walk(struct cache *c, int shard, int64_t now, uint64_t *pos,
		bool (*fn)(const struct cache_entry *e, void *arg), void *arg)
{
	struct cache_shard *sh = &c->store->shards[shard];
	bool all = false;
	uint64_t i = 0;

	pthread_mutex_lock(&sh->lock);
	for (uint32_t b = 0; b <= sh->mask; b++) {
		for (struct cache_entry *e = sh->table[b]; e; e = e->next) {
			if (e->state != CE_LIVE || e->expire <= now)
				continue;
			if (i++ < *pos)
				continue;
			if (!fn(e, arg))
				goto out;
			(*pos)++;
		}
	}
	all = true;
out:
	pthread_mutex_unlock(&sh->lock);
	return all;
}

uint64_t cache_avail_bytes(struct cache *c)
{
	struct cache_store *st = c->store;
	uint64_t idle = 0, used = HA_ATOMIC_LOAD(&st->used);

	for (int i = 0; i < CACHE_SHARDS; i++) {
		struct cache_shard *sh = &st->shards[i];
		struct cache_entry *e;

		pthread_mutex_lock(&sh->lock);
		list_for_each_entry(e, &sh->lru, lru) if (HA_ATOMIC_LOAD(&e->refcnt) == 1) idle +=
			entry_alloc(e);
		pthread_mutex_unlock(&sh->lock);
	}
	used = used > idle ? used - idle : 0;
	return c->max_bytes > used ? c->max_bytes - used : 0;
}
