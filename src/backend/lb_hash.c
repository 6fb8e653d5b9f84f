/* Server selection from a 32-bit hash ("hash-type map-based" and "consistent") and the
 * "first" algorithm. Owns the per-backend tables built at start (map, ring, servers in id
 * order); does not compute the hash itself (stream/lb_key.c takes the key from the stream
 * and hashes it) nor the round-robin fallback (lb_rr.c). Read-only once built: any thread.
 * A weight or state change builds new tables (lb_hash_rebuild), publishes them with an atomic
 * store and retires the old ones until no thread can read them (backend/lb_update.h).
 */
#include <stdlib.h>
#include <backend/backend.h>
#include <backend/lb_update.h>
#include <backend/server.h>

/* One point of the consistent-hashing ring. */
struct lb_ring_pt {
	uint32_t hash;
	uint32_t pos; /* index in lb_hash.srv */
};

/* The usable servers of one tier (active or backup). */
struct lb_hash_tier {
	uint32_t *map;		 /* map-based: server positions, each weight times */
	uint32_t map_len;	 /* total weight; 0 when the tier has no usable server */
	struct lb_ring_pt *ring; /* consistent: points sorted by hash */
	uint32_t ring_len;
};

struct lb_hash {
	struct server **srv; /* servers sorted by id (puid) */
	int nsrv;
	struct lb_hash_tier tier[2]; /* [0] active, [1] backup */
};

/* A 64-bit mixing function (xor-shift-multiply): spreads the points of the ring. */
static uint64_t lb_mix64(uint64_t x)
{
	x ^= x >> 31;
	x *= 0x7fb5d329728ea185ULL;
	x ^= x >> 27;
	x *= 0x81dadef4bc2dd44dULL;
	x ^= x >> 33;
	return x;
}

uint32_t lb_ring_point(int puid, int k)
{
	return (uint32_t)(lb_mix64(((uint64_t)(uint32_t)puid << 32) | (uint32_t)k) >> 32);
}

static int lb_srv_cmp(const void *a, const void *b)
{
	const struct server *sa = *(struct server *const *)a, *sb = *(struct server *const *)b;

	return (sa->puid > sb->puid) - (sa->puid < sb->puid);
}

static int lb_pt_cmp(const void *a, const void *b)
{
	const struct lb_ring_pt *pa = a, *pb = b;

	if (pa->hash != pb->hash)
		return (pa->hash > pb->hash) - (pa->hash < pb->hash);
	return (pa->pos > pb->pos) - (pa->pos < pb->pos);
}

/* The consistent-hashing ring of tier <t>: LB_RING_POINTS points per unit of weight <wt>. */
static int lb_ring_build(struct lb_hash *h, struct lb_hash_tier *t, const int *wt, uint64_t total)
{
	uint32_t m = 0;

	t->ring = malloc(sizeof(*t->ring) * total * LB_RING_POINTS);
	if (!t->ring)
		return -1;
	t->ring_len = (uint32_t)(total * LB_RING_POINTS);
	for (int i = 0; i < h->nsrv; i++) {
		for (int k = 0; k < wt[i] * LB_RING_POINTS; k++) {
			t->ring[m].hash = lb_ring_point(h->srv[i]->puid, k);
			t->ring[m++].pos = (uint32_t)i;
		}
	}
	qsort(t->ring, t->ring_len, sizeof(*t->ring), lb_pt_cmp);
	return 0;
}

/* Fills tier <t> with the usable servers of <h> in tier <backup>, from one snapshot of
 * their weights and states (they may change on other threads meanwhile). 0 or -1. */
static int lb_hash_tier_build(struct lb_hash *h, struct lb_hash_tier *t, bool backup, bool ring)
{
	int *wt = calloc((size_t)(h->nsrv ? h->nsrv : 1), sizeof(*wt));
	uint64_t total = 0;
	uint32_t m = 0;
	int rc = -1;

	if (!wt)
		return -1;
	for (int i = 0; i < h->nsrv; i++) {
		wt[i] = srv_usable(h->srv[i], backup) ? srv_weight(h->srv[i]) : 0;
		total += (uint64_t)wt[i];
	}
	if (!total) {
		rc = 0;
		goto out_free_wt;
	}
	if (total * LB_RING_POINTS > UINT32_MAX)
		goto out_free_wt;
	t->map = malloc(sizeof(*t->map) * total);
	if (!t->map)
		goto out_free_wt;
	t->map_len = (uint32_t)total;
	for (int i = 0; i < h->nsrv; i++)
		for (int w = 0; w < wt[i]; w++)
			t->map[m++] = (uint32_t)i;
	rc = 0;
	if (ring)
		rc = lb_ring_build(h, t, wt, total);
out_free_wt:
	free(wt);
	return rc;
}

static void lb_hash_destroy(void *ptr)
{
	struct lb_hash *h = ptr;

	if (!h)
		return;
	for (int t = 0; t < 2; t++) {
		free(h->tier[t].map);
		free(h->tier[t].ring);
	}
	free(h->srv);
	free(h);
}

void lb_hash_free(struct proxy *px)
{
	lb_retired_flush(px);
	lb_hash_destroy(px->lb_hash_ctx);
	px->lb_hash_ctx = NULL;
}

/* New tables for the current servers, weights and states of <px>; NULL: no memory. */
static struct lb_hash *lb_hash_make(struct proxy *px)
{
	struct lb_hash *h;
	int i = 0;

	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	for (struct server *s = px->srv; s; s = s->next)
		h->nsrv++;
	h->srv = calloc((size_t)(h->nsrv ? h->nsrv : 1), sizeof(*h->srv));
	if (!h->srv)
		goto out_free;
	/* "add server" may append one meanwhile (backend/srv_dyn.c) */
	for (struct server *s = px->srv; s && i < h->nsrv; s = s->next)
		h->srv[i++] = s;
	h->nsrv = i;
	qsort(h->srv, (size_t)h->nsrv, sizeof(*h->srv), lb_srv_cmp);
	if (px->lbalgo < LB_ALGO_HASHED)
		return h; /* "first" only needs the id order */
	for (int t = 0; t < 2; t++)
		if (lb_hash_tier_build(h, &h->tier[t], t == 1, px->hash_type == LB_HASH_CONSISTENT))
			goto out_free;
	return h;
out_free:
	lb_hash_destroy(h);
	return NULL;
}

int lb_hash_build(struct proxy *px)
{
	lb_hash_free(px);
	px->lb_hash_ctx = lb_hash_make(px);
	return px->lb_hash_ctx ? 0 : -1;
}

int lb_hash_rebuild(struct proxy *px)
{
	struct lb_retired *node;
	struct lb_hash *h;

	if (!px->lb_hash_ctx)
		return 0;
	node = lb_retire_prepare();
	h = node ? lb_hash_make(px) : NULL;
	if (!h) {
		free(node);
		return -1;
	}
	lb_retire(node, px, HA_ATOMIC_XCHG(&px->lb_hash_ctx, (void *)h), lb_hash_destroy);
	return 0;
}

/* Index of the first point of <t>'s ring at or after <hash>, wrapping to 0. */
static uint32_t lb_ring_find(const struct lb_hash_tier *t, uint32_t hash)
{
	uint32_t lo = 0, hi = t->ring_len;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->ring[mid].hash < hash)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == t->ring_len ? 0 : lo;
}

/* "hash-balance-factor": <s> may take one more stream when its connections after it stay
 * within <factor>% of the average per unit of weight over the usable servers of <t>. */
static bool lb_bf_eligible(const struct lb_hash *h, const struct lb_hash_tier *t, bool backup,
			   const struct server *s, int factor)
{
	uint64_t total = 0;

	for (int i = 0; i < h->nsrv; i++)
		if (srv_usable(h->srv[i], backup))
			total += (uint64_t)HA_ATOMIC_LOAD_RLX(&h->srv[i]->cur_conns);
	/* (cur + 1) / w <= factor/100 * (total + 1) / W, rounded up on the right */
	return (uint64_t)(HA_ATOMIC_LOAD_RLX(&s->cur_conns) + 1) * t->map_len * 100 <=
	       (total + 1) * (uint64_t)factor * (uint64_t)srv_weight(s) +
		       (uint64_t)t->map_len * 100 - 1;
}

/* Consistent hashing: the server of the first point at or after <hash>, skipping <avoid>
 * and servers over the balance factor (the first point's server when all are skipped). */
static struct server *lb_ring_pick(const struct proxy *px, const struct lb_hash *h,
				   const struct lb_hash_tier *t, bool backup, uint32_t hash,
				   const struct server *avoid)
{
	uint32_t start = lb_ring_find(t, hash);
	struct server *fallback = NULL;

	for (uint32_t k = 0; k < t->ring_len; k++) {
		struct server *s = h->srv[t->ring[(start + k) % t->ring_len].pos];

		if (s == avoid || !srv_is_up(s)) /* a DOWN server's keys go to the next ones */
			continue;
		if (!fallback)
			fallback = s;
		if (px->hash_balance_factor &&
		    !lb_bf_eligible(h, t, backup, s, px->hash_balance_factor))
			continue;
		return s;
	}
	if (fallback)
		return fallback;
	/* only <avoid> is left, or nothing is up */
	return avoid && srv_is_up(avoid) ? (struct server *)avoid : NULL;
}

/* Map-based: entry <hash> % total weight, the next ones when it is <avoid>. */
static struct server *lb_map_pick(const struct lb_hash *h, const struct lb_hash_tier *t,
				  uint32_t hash, const struct server *avoid)
{
	uint32_t start = hash % t->map_len;

	for (uint32_t k = 0; k < t->map_len; k++) {
		struct server *s = h->srv[t->map[(start + k) % t->map_len]];

		if (s != avoid && srv_is_up(s)) /* a DOWN server's keys go to the next entries */
			return s;
	}
	return avoid && srv_is_up(avoid) ? (struct server *)avoid : NULL;
}

struct server *lb_hash_pick(struct proxy *px, uint32_t hash, struct server *avoid, bool *all_full)
{
	const struct lb_hash *h = HA_ATOMIC_LOAD(&px->lb_hash_ctx);

	*all_full = false;
	for (int b = 0; h && b < 2; b++) {
		const struct lb_hash_tier *t = &h->tier[b];
		struct server *s;

		if (!t->map_len)
			continue;
		if (b == 1 && !(px->options & PR_O_ALL_BK))
			s = srv_first_backup(px); /* without "option allbackups", the first only */
		else if (t->ring)
			s = lb_ring_pick(px, h, t, b == 1, hash, avoid);
		else
			s = lb_map_pick(h, t, hash, avoid);
		if (!s)
			continue; /* nothing up in this tier: the backups */
		if (srv_full(s)) {
			*all_full = true; /* HAProxy queues on the hashed server: we queue */
			lb_full_srv = s;  /* for its maxqueue */
			return NULL;
		}
		return s;
	}
	return NULL;
}

/* "first": the first usable server in id order with a free slot, other than <avoid>. */
static struct server *lb_first_round(struct proxy *px, bool backup, struct server *avoid,
				     bool *usable)
{
	const struct lb_hash *h = HA_ATOMIC_LOAD(&px->lb_hash_ctx);
	bool avoid_free = false;

	*usable = false;
	for (int i = 0; h && i < h->nsrv; i++) {
		struct server *s = h->srv[i];

		if (srv_usable(s, backup) && lb_take_candidate(s, avoid, usable, &avoid_free))
			return s;
	}
	return avoid_free ? avoid : NULL;
}

struct server *lb_first_pick(struct proxy *px, struct server *avoid, bool *all_full)
{
	return lb_pick_tiered(px, avoid, all_full, lb_first_round);
}
