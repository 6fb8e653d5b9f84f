/* Stick tables: the tables, their entries (lookup, creation, references), eviction,
 * expiry and walks. Keys, data types, data access and rates are in stktable_data.c; the
 * configuration in stktable_cfg.c; tracking in stktable_act.c.
 *
 * Concurrency. A table is shared by every thread of every group. An entry's counters must
 * be exact for the whole process ("the 101st request in the period is the first refused,
 * with any number of threads and groups"), so a key has exactly one entry and one set of
 * counters: no per-thread or per-group copies whose sums would lag. What is sharded is the
 * locking: the key's keyed hash (SipHash-1-3, random key per process) picks one of
 * STK_SHARDS shards, each with its own spinlock, hash buckets and LRU list. A lock is held
 * for a few instructions (a bucket walk, a few additions), never across an allocation or
 * I/O; streams tracking different keys meet only when their keys share a shard (1 in 64),
 * and those tracking the same key serialize on the very counters they must agree on. No
 * global lock is taken on the request path: the table-wide entry count is one atomic,
 * changed only when entries are created or freed. Per-group tables summed on read were
 * rejected: a read would either lock every group's copy or see a stale sum, and the
 * limit would let through more than 100 requests as soon as two groups count at once.
 * What remains, as in HAProxy, is that a count and a later read are two steps: requests
 * of one key running at the same instant may read each other's increments, so they can
 * only be refused early, never late (test_rate_limit_under_concurrent_clients).
 *
 * Memory. Entries are malloc()ed (their size is the table's) on first sight of a key. An
 * entry held by someone (ref > 0) is out of the LRU list and is neither evicted nor
 * expired; unreferenced entries sit in their shard's LRU list ordered by last write, which
 * is also their expiry order since a table has one expire delay. A full table evicts the
 * oldest unreferenced entries (the oldest of all shards: each shard publishes its oldest
 * write time), HAProxy's batch of size/256 + 1; "nopurge" refuses new keys instead.
 * Expired entries are dropped when a lookup meets them and by a purge timer of each
 * thread that writes to tables.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <base/atomic.h>
#include <event/loop.h>
#include <stream/stktable.h>

#define STK_BUCKETS_MIN 16U /* buckets of a shard at its first entry */
#define STK_BUCKETS_MAX (1U << 24)
#define STK_PURGE_MS 250 /* purge timer period */

struct stktable *stktables;

static inline size_t stk_align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* ---- keyed hash: SipHash-1-3 over the key, binary keys zero-padded to key_size ---- */

#define ROTL64(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND(v0, v1, v2, v3)     \
	do {                         \
		v0 += v1;            \
		v1 = ROTL64(v1, 13); \
		v1 ^= v0;            \
		v0 = ROTL64(v0, 32); \
		v2 += v3;            \
		v3 = ROTL64(v3, 16); \
		v3 ^= v2;            \
		v0 += v3;            \
		v3 = ROTL64(v3, 21); \
		v3 ^= v0;            \
		v2 += v1;            \
		v1 = ROTL64(v1, 17); \
		v1 ^= v2;            \
		v2 = ROTL64(v2, 32); \
	} while (0)

/* The little-endian word of bytes [off, off+n) of a key whose bytes after <len> are 0. */
static inline uint64_t sip_word(const unsigned char *p, size_t len, size_t off, size_t n)
{
	uint64_t w = 0;

	for (size_t i = 0; i < n && off + i < len; i++)
		w |= (uint64_t)p[off + i] << (8 * i);
	return w;
}

static uint64_t stk_hash(const uint64_t seed[2], const unsigned char *p, size_t len, size_t total)
{
	uint64_t v0 = seed[0] ^ 0x736f6d6570736575ULL, v1 = seed[1] ^ 0x646f72616e646f6dULL;
	uint64_t v2 = seed[0] ^ 0x6c7967656e657261ULL, v3 = seed[1] ^ 0x7465646279746573ULL;
	size_t off = 0;
	uint64_t m;

	for (; off + 8 <= total; off += 8) {
		m = sip_word(p, len, off, 8);
		v3 ^= m;
		SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	m = ((uint64_t)total << 56) | sip_word(p, len, off, total - off);
	v3 ^= m;
	SIPROUND(v0, v1, v2, v3);
	v0 ^= m;
	v2 ^= 0xff;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

/* Bytes a key occupies in an entry and takes part in the hash. */
static inline size_t stk_key_total(const struct stktable *t, const struct stk_key *k)
{
	return t->type == STK_KEY_STR ? k->len : t->key_size;
}

static inline uint64_t stk_key_hash(const struct stktable *t, const struct stk_key *k)
{
	return stk_hash(t->seed, k->ptr, k->len, stk_key_total(t, k));
}

static bool stk_key_eq(const struct stktable *t, const struct stksess *ts, const struct stk_key *k)
{
	size_t total = stk_key_total(t, k);

	if (ts->klen != total || memcmp(ts->kd, k->ptr, k->len) != 0)
		return false;
	for (size_t i = k->len; i < total; i++) /* binary keys: zero padding */
		if (ts->kd[i])
			return false;
	return true;
}

/* ---- tables ---- */

struct stktable *stktable_new(const char *id, const char *file, int line, struct proxy *px)
{
	struct stktable *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->id = strdup(id);
	t->file = strdup(file ? file : "");
	if (!t->id || !t->file) {
		free(t->id);
		free(t->file);
		free(t);
		return NULL;
	}
	t->line = line;
	t->px = px;
	t->type = STK_KEY_IP;
	t->key_size = 4;
	for (int i = 0; i < STK_DT_TYPES; i++)
		t->data_ofs[i] = STK_DT_NONE;
	return t;
}

void stktable_store(struct stktable *t, int dt, uint32_t nb, uint32_t period)
{
	t->data_ofs[dt] = 0; /* laid out by stktable_init() */
	t->data_nb[dt] = nb ? nb : 1;
	t->data_period[dt] = period;
}

static void stk_seed(uint64_t seed[2])
{
	struct timespec ts;

	if (getrandom(seed, 2 * sizeof(uint64_t), GRND_NONBLOCK) == (ssize_t)(2 * sizeof(uint64_t)))
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	seed[0] = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)ts.tv_sec;
	seed[1] = (uint64_t)(uintptr_t)seed * 0xbf58476d1ce4e5b9ULL ^ (uint64_t)getpid();
}

int stktable_init(struct stktable *t)
{
	size_t ofs = 0;

	/* 8-byte types first, so that every type is naturally aligned */
	for (int pass = 0; pass < 2; pass++) {
		for (int dt = 0; dt < STK_DT_TYPES; dt++) {
			size_t sz = stk_std_size(stk_dt_info[dt].std);

			if (t->data_ofs[dt] == STK_DT_NONE || (sz >= 8) != (pass == 0))
				continue;
			t->data_ofs[dt] = (uint16_t)ofs;
			ofs += sz * t->data_nb[dt];
		}
	}
	t->data_off0 = (uint32_t)stk_align8(t->key_size);
	t->ent_size = (uint32_t)(sizeof(struct stksess) + t->data_off0 + stk_align8(ofs));
	t->shards = aligned_alloc(CACHELINE, STK_SHARDS * sizeof(*t->shards));
	if (!t->shards)
		return -1;
	memset(t->shards, 0, STK_SHARDS * sizeof(*t->shards));
	for (int i = 0; i < STK_SHARDS; i++) {
		pthread_spin_init(&t->shards[i].lock, PTHREAD_PROCESS_PRIVATE);
		list_init(&t->shards[i].lru);
		t->shards[i].oldest = UINT64_MAX;
	}
	stk_seed(t->seed);
	return 0;
}

void stktable_register(struct stktable *t)
{
	t->next = stktables; /* the latest first, as HAProxy lists them */
	stktables = t;
}

struct stktable *stktable_find(const char *id)
{
	for (struct stktable *t = stktables; t; t = t->next)
		if (!strcmp(t->id, id))
			return t;
	return NULL;
}

void stktable_free(struct stktable *t)
{
	if (!t)
		return;
	for (int i = 0; t->shards && i < STK_SHARDS; i++) {
		struct stk_shard *sh = &t->shards[i];

		for (uint32_t b = 0; b < sh->nbuckets; b++) {
			while (sh->buckets[b]) {
				struct stksess *ts = sh->buckets[b];

				sh->buckets[b] = ts->hnext;
				free(ts);
			}
		}
		free(sh->buckets);
		pthread_spin_destroy(&sh->lock);
	}
	free(t->shards);
	free(t->id);
	free(t->file);
	free(t);
}

void stktables_deinit(void)
{
	while (stktables) {
		struct stktable *t = stktables;

		stktables = t->next;
		stktable_free(t);
	}
}

int stktable_used(const struct stktable *t)
{
	return HA_ATOMIC_LOAD_RLX(&t->current);
}

/* ---- shards: every function below named __x runs under the shard's lock ---- */

static inline struct stk_shard *stk_shard_of(const struct stktable *t, uint64_t hash)
{
	return &t->shards[hash & (STK_SHARDS - 1)];
}

static inline uint32_t stk_bucket(const struct stk_shard *sh, uint64_t hash)
{
	return (uint32_t)(hash >> 6) & (sh->nbuckets - 1);
}

void stksess_lock(struct stktable *t, const struct stksess *ts)
{
	pthread_spin_lock(&stk_shard_of(t, ts->hash)->lock);
}

void stksess_unlock(struct stktable *t, const struct stksess *ts)
{
	pthread_spin_unlock(&stk_shard_of(t, ts->hash)->lock);
}

static void __stk_update_oldest(struct stk_shard *sh)
{
	uint64_t v = UINT64_MAX;

	if (!list_empty(&sh->lru))
		v = list_elem(sh->lru.prev, struct stksess, lru)->touch;
	HA_ATOMIC_STORE_RLX(&sh->oldest, v);
}

/* Puts an unreferenced entry at the head of the LRU list (most recent). */
static void __stk_lru_link(struct stk_shard *sh, struct stksess *ts)
{
	list_insert(&sh->lru, &ts->lru);
	if (sh->lru.prev == &ts->lru)
		__stk_update_oldest(sh);
}

static void __stk_lru_unlink(struct stk_shard *sh, struct stksess *ts)
{
	bool tail = sh->lru.prev == &ts->lru;

	list_delete(&ts->lru);
	if (tail)
		__stk_update_oldest(sh);
}

static struct stksess *__stk_find(const struct stktable *t, struct stk_shard *sh,
				  const struct stk_key *k, uint64_t hash)
{
	if (!sh->nbuckets)
		return NULL;
	for (struct stksess *ts = sh->buckets[stk_bucket(sh, hash)]; ts; ts = ts->hnext)
		if (ts->hash == hash && stk_key_eq(t, ts, k))
			return ts;
	return NULL;
}

/* Doubles the buckets of <sh> (or allocates the first ones); on allocation failure the
 * chains just get longer. */
static void __stk_grow(struct stk_shard *sh)
{
	uint32_t nb = sh->nbuckets ? sh->nbuckets * 2 : STK_BUCKETS_MIN;
	struct stksess **nbk;

	if (nb > STK_BUCKETS_MAX || !(nbk = calloc(nb, sizeof(*nbk))))
		return;
	for (uint32_t b = 0; b < sh->nbuckets; b++) {
		while (sh->buckets[b]) {
			struct stksess *ts = sh->buckets[b];
			uint32_t nbi = (uint32_t)(ts->hash >> 6) & (nb - 1);

			sh->buckets[b] = ts->hnext;
			ts->hnext = nbk[nbi];
			nbk[nbi] = ts;
		}
	}
	free(sh->buckets);
	sh->buckets = nbk;
	sh->nbuckets = nb;
}

/* Links <ts> into the buckets; false when the shard has no bucket (no memory). */
static bool __stk_insert(struct stk_shard *sh, struct stksess *ts)
{
	uint32_t b;

	if (sh->count >= sh->nbuckets)
		__stk_grow(sh);
	if (!sh->nbuckets)
		return false;
	b = stk_bucket(sh, ts->hash);
	ts->hnext = sh->buckets[b];
	sh->buckets[b] = ts;
	sh->count++;
	return true;
}

/* Unlinks <ts> from its bucket and its LRU list; the caller frees it. */
static void __stk_unlink(struct stk_shard *sh, struct stksess *ts)
{
	struct stksess **pp = &sh->buckets[stk_bucket(sh, ts->hash)];

	while (*pp && *pp != ts)
		pp = &(*pp)->hnext;
	if (*pp)
		*pp = ts->hnext;
	sh->count--;
	__stk_lru_unlink(sh, ts);
}

static inline bool stk_expired(const struct stktable *t, const struct stksess *ts, uint64_t now)
{
	return t->expire && !ts->ref && (int64_t)(now - ts->touch) >= t->expire;
}

static void stk_free_entry(struct stktable *t, struct stksess *ts)
{
	free(ts);
	HA_ATOMIC_DEC(&t->current);
}

/* ---- eviction and expiry ---- */

/* Evicts the oldest unreferenced entry of the whole table; false when there is none. */
static bool stk_evict_one(struct stktable *t)
{
	for (int tries = 0; tries < 4; tries++) {
		struct stk_shard *best = NULL;
		uint64_t oldest = UINT64_MAX;
		struct stksess *ts = NULL;

		for (int i = 0; i < STK_SHARDS; i++) {
			uint64_t o = HA_ATOMIC_LOAD_RLX(&t->shards[i].oldest);

			if (o < oldest) {
				oldest = o;
				best = &t->shards[i];
			}
		}
		if (!best)
			return false;
		pthread_spin_lock(&best->lock);
		if (!list_empty(&best->lru)) {
			ts = list_elem(best->lru.prev, struct stksess, lru);
			__stk_unlink(best, ts);
		}
		pthread_spin_unlock(&best->lock);
		if (ts) {
			stk_free_entry(t, ts);
			return true;
		}
	}
	return false;
}

int stktable_purge(struct stktable *t, uint64_t now)
{
	int n = 0;

	if (!t->expire)
		return 0;
	for (int i = 0; i < STK_SHARDS; i++) {
		struct stk_shard *sh = &t->shards[i];
		uint64_t o = HA_ATOMIC_LOAD_RLX(&sh->oldest);

		if (o == UINT64_MAX || (int64_t)(now - o) < t->expire)
			continue;
		for (int batch = 0; batch < 1024; batch++) {
			struct stksess *ts = NULL;

			pthread_spin_lock(&sh->lock);
			if (!list_empty(&sh->lru)) {
				ts = list_elem(sh->lru.prev, struct stksess, lru);
				if (stk_expired(t, ts, now))
					__stk_unlink(sh, ts);
				else
					ts = NULL;
			}
			pthread_spin_unlock(&sh->lock);
			if (!ts)
				break;
			stk_free_entry(t, ts);
			n++;
		}
	}
	return n;
}

/* ---- entries ---- */

static void stk_entry_fill(struct stktable *t, struct stksess *ts, const struct stk_key *k,
			   uint64_t hash)
{
	size_t total = stk_key_total(t, k);

	memset(ts, 0, t->ent_size);
	list_init(&ts->lru);
	ts->hash = hash;
	ts->klen = (uint32_t)total;
	memcpy(ts->kd, k->ptr, k->len); /* binary keys: the padding is already zero */
}

/* An expired unreferenced entry found by a lookup starts over. */
static void __stk_reset(struct stktable *t, struct stksess *ts)
{
	memset(ts->kd + t->data_off0, 0, t->ent_size - sizeof(*ts) - t->data_off0);
}

/* Takes a reference on <ts> found in <sh>, resetting it when it had expired. */
static void __stk_hold(struct stktable *t, struct stk_shard *sh, struct stksess *ts, uint64_t now)
{
	if (!ts->ref) {
		if (stk_expired(t, ts, now)) {
			__stk_reset(t, ts);
			ts->touch = now;
		}
		__stk_lru_unlink(sh, ts);
	}
	ts->ref++;
}

struct stksess *stktable_lookup(struct stktable *t, const struct stk_key *k, uint64_t now)
{
	uint64_t hash = stk_key_hash(t, k);
	struct stk_shard *sh = stk_shard_of(t, hash);
	struct stksess *ts;

	pthread_spin_lock(&sh->lock);
	ts = __stk_find(t, sh, k, hash);
	if (ts && stk_expired(t, ts, now))
		ts = NULL;
	if (ts)
		__stk_hold(t, sh, ts, now);
	pthread_spin_unlock(&sh->lock);
	return ts;
}

/* Reserves room for one more entry, evicting when the table is full. */
static bool stk_reserve(struct stktable *t)
{
	int batch = (int)(t->size >> 8) + 1;

	if (HA_ATOMIC_ADD(&t->current, 1) <= (int)t->size)
		return true;
	if (!t->nopurge) {
		for (int i = 0; i < batch; i++)
			if (!stk_evict_one(t))
				break;
		if (HA_ATOMIC_LOAD(&t->current) <= (int)t->size)
			return true;
	}
	HA_ATOMIC_DEC(&t->current);
	return false;
}

/* Inserts the new entry <nts> (counted, filled) unless its key appeared meanwhile; returns
 * the table's entry with a reference held, or NULL. */
static struct stksess *stk_insert_new(struct stktable *t, struct stksess *nts, uint64_t now)
{
	struct stk_shard *sh = stk_shard_of(t, nts->hash);
	struct stk_key k = { .ptr = nts->kd, .len = nts->klen };
	struct stksess *ts;

	pthread_spin_lock(&sh->lock);
	ts = __stk_find(t, sh, &k, nts->hash);
	if (ts) {
		__stk_hold(t, sh, ts, now);
	} else if (__stk_insert(sh, nts)) {
		nts->ref = 1;
		nts->touch = now;
		ts = nts;
		nts = NULL;
	}
	pthread_spin_unlock(&sh->lock);
	if (nts)
		stk_free_entry(t, nts);
	if (t->expire)
		stktable_purge_arm();
	return ts;
}

struct stksess *stktable_get(struct stktable *t, const struct stk_key *k, uint64_t now)
{
	uint64_t hash = stk_key_hash(t, k);
	struct stk_shard *sh = stk_shard_of(t, hash);
	struct stksess *ts;

	pthread_spin_lock(&sh->lock);
	ts = __stk_find(t, sh, k, hash);
	if (ts)
		__stk_hold(t, sh, ts, now);
	pthread_spin_unlock(&sh->lock);
	if (ts)
		return ts;
	if (!stk_reserve(t))
		return NULL;
	ts = malloc(t->ent_size);
	if (!ts) {
		HA_ATOMIC_DEC(&t->current);
		return NULL;
	}
	stk_entry_fill(t, ts, k, hash);
	return stk_insert_new(t, ts, now);
}

void stktable_release(struct stktable *t, struct stksess *ts, bool touch, uint64_t now)
{
	struct stk_shard *sh = stk_shard_of(t, ts->hash);
	bool kill = false;

	pthread_spin_lock(&sh->lock);
	if (touch && (int64_t)(now - ts->touch) > 0)
		ts->touch = now;
	if (--ts->ref == 0) {
		if (stk_expired(t, ts, now)) {
			__stk_unlink(sh, ts);
			kill = true;
		} else {
			__stk_lru_link(sh, ts);
		}
	}
	pthread_spin_unlock(&sh->lock);
	if (kill)
		stk_free_entry(t, ts);
}

int stktable_with_key(struct stktable *t, const struct stk_key *k, uint64_t now,
		      int (*cb)(void *arg, struct stktable *t, struct stksess *ts), void *arg)
{
	uint64_t hash = stk_key_hash(t, k);
	struct stk_shard *sh = stk_shard_of(t, hash);
	struct stksess *ts;
	int ret = 0;

	pthread_spin_lock(&sh->lock);
	ts = __stk_find(t, sh, k, hash);
	if (ts && !stk_expired(t, ts, now))
		ret = cb(arg, t, ts);
	pthread_spin_unlock(&sh->lock);
	return ret;
}

struct stk_read_arg {
	int dt;
	uint32_t idx;
	uint64_t now;
	long long *v;
};

static int stk_read_cb(void *arg, struct stktable *t, struct stksess *ts)
{
	struct stk_read_arg *a = arg;

	return stksess_get(t, ts, a->dt, a->idx, a->now, a->v);
}

int stktable_read_key(struct stktable *t, const struct stk_key *k, int dt, uint32_t idx,
		      uint64_t now, long long *v)
{
	struct stk_read_arg a = { dt, idx, now, v };

	*v = 0;
	if (t->data_ofs[dt] == STK_DT_NONE)
		return -1;
	return stktable_with_key(t, k, now, stk_read_cb, &a);
}

int stktable_remove_key(struct stktable *t, const struct stk_key *k, uint64_t now)
{
	uint64_t hash = stk_key_hash(t, k);
	struct stk_shard *sh = stk_shard_of(t, hash);
	struct stksess *ts;
	int ret = 0;

	pthread_spin_lock(&sh->lock);
	ts = __stk_find(t, sh, k, hash);
	if (ts && ts->ref) {
		ret = -1;
	} else if (ts) {
		__stk_unlink(sh, ts);
		ret = 1;
	}
	pthread_spin_unlock(&sh->lock);
	if (ret == 1)
		stk_free_entry(t, ts);
	return ret;
}

int stktable_remove_if(struct stktable *t,
		       bool (*match)(void *arg, struct stktable *t, struct stksess *ts), void *arg)
{
	int n = 0;

	for (int i = 0; i < STK_SHARDS; i++) {
		struct stk_shard *sh = &t->shards[i];
		struct stksess *dead = NULL, *ts, *next;

		pthread_spin_lock(&sh->lock);
		list_for_each_entry_safe(ts, next, &sh->lru, lru)
		{
			if (!match(arg, t, ts))
				continue;
			__stk_unlink(sh, ts);
			ts->hnext = dead;
			dead = ts;
		}
		pthread_spin_unlock(&sh->lock);
		for (; dead; dead = next, n++) {
			next = dead->hnext;
			stk_free_entry(t, dead);
		}
	}
	return n;
}

int stktable_clear(struct stktable *t)
{
	int n = 0;

	for (int i = 0; i < STK_SHARDS; i++) {
		struct stk_shard *sh = &t->shards[i];

		for (;;) {
			struct stksess *ts = NULL;

			pthread_spin_lock(&sh->lock);
			if (!list_empty(&sh->lru)) {
				ts = list_elem(sh->lru.prev, struct stksess, lru);
				__stk_unlink(sh, ts);
			}
			pthread_spin_unlock(&sh->lock);
			if (!ts)
				break;
			stk_free_entry(t, ts);
			n++;
		}
	}
	return n;
}

struct stksess *stksess_new_detached(struct stktable *t, const struct stk_key *k)
{
	struct stksess *ts = malloc(t->ent_size);

	if (ts)
		stk_entry_fill(t, ts, k, stk_key_hash(t, k));
	return ts;
}

void stksess_free_detached(struct stksess *ts)
{
	free(ts);
}

struct stksess *stktable_set_detached(struct stktable *t, struct stksess *ts, uint64_t now)
{
	struct stk_key k = { .ptr = ts->kd, .len = ts->klen };
	struct stksess *found = stktable_lookup(t, &k, now);

	if (found) {
		free(ts);
		return found;
	}
	if (!stk_reserve(t)) {
		free(ts);
		return NULL;
	}
	return stk_insert_new(t, ts, now);
}

/* ---- dumps ---- */

/* The cursor is (shard << 40) | (bucket << 16) | rank in the chain. Entries are visited
 * under their shard's lock without being held: one that moves meanwhile (a bucket array
 * that grows) may be missed or shown twice, as in any walk over a live table. */
int stktable_walk(struct stktable *t, uint64_t *pos, int (*cb)(void *arg, struct stksess *ts),
		  void *arg)
{
	while ((*pos >> 40) < STK_SHARDS) {
		struct stk_shard *sh = &t->shards[*pos >> 40];
		uint32_t b = (uint32_t)(*pos >> 16) & 0xffffff, rank = (uint32_t)*pos & 0xffff;
		int stop = 0;

		pthread_spin_lock(&sh->lock);
		for (; b < sh->nbuckets && !stop; b++, rank = 0) {
			uint32_t r = 0;
			struct stksess *ts = sh->buckets[b];

			for (; ts && r < rank; ts = ts->hnext)
				r++;
			for (; ts; ts = ts->hnext, r++) {
				if (cb(arg, ts) < 0) {
					*pos = ((*pos >> 40) << 40) | ((uint64_t)b << 16) | r;
					stop = 1;
					break;
				}
			}
		}
		pthread_spin_unlock(&sh->lock);
		if (stop)
			return 1;
		*pos = ((*pos >> 40) + 1) << 40;
	}
	return 0;
}

/* ---- purge timer ---- */

static __thread struct timer purge_tmr;
static __thread struct thread_ctx *purge_ctx; /* the loop <purge_tmr> is queued in */

static void stk_purge_cb(struct timer *tm)
{
	uint64_t now = now_ms();

	for (struct stktable *t = stktables; t; t = t->next) {
		uint64_t next = HA_ATOMIC_LOAD_RLX(&t->next_purge);

		/* one thread purges a table per period */
		if (!t->expire || (int64_t)(now - next) < 0 ||
		    !HA_ATOMIC_CAS(&t->next_purge, &next, now + STK_PURGE_MS))
			continue;
		stktable_purge(t, now);
	}
	timer_set(tm, tick_add(STK_PURGE_MS));
}

void stktable_purge_arm(void)
{
	if (likely(purge_ctx == th_ctx) || !th_ctx)
		return;
	memset(&purge_tmr, 0, sizeof(purge_tmr));
	purge_tmr.cb = stk_purge_cb;
	purge_ctx = th_ctx;
	timer_set(&purge_tmr, tick_add(STK_PURGE_MS));
}
