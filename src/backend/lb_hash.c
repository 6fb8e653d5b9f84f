/* Server selection from a 32-bit hash ("hash-type map-based" and "consistent") and the
 * "first" algorithm. Owns the per-backend tables built at start (map, ring, servers in id
 * order); does not compute the hash itself (stream/lb_key.c takes the key from the stream
 * and hashes it) nor the round-robin fallback (lb_rr.c). Read-only once built: any thread.
 */
#include <stdlib.h>
#include <backend/backend.h>
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

/* Fills tier <t> with the usable servers of <h> in tier <backup>. Returns 0 or -1. */
static int lb_hash_tier_build(struct lb_hash *h, struct lb_hash_tier *t, bool backup, bool ring)
{
	uint64_t total = 0;
	uint32_t m = 0;

	for (int i = 0; i < h->nsrv; i++)
		if (srv_usable(h->srv[i], backup))
			total += (uint64_t)h->srv[i]->weight;
	if (!total)
		return 0;
	if (total * LB_RING_POINTS > UINT32_MAX)
		return -1;
	t->map = malloc(sizeof(*t->map) * total);
	if (!t->map)
		return -1;
	t->map_len = (uint32_t)total;
	for (int i = 0; i < h->nsrv; i++)
		for (int w = 0; srv_usable(h->srv[i], backup) && w < h->srv[i]->weight; w++)
			t->map[m++] = (uint32_t)i;
	if (!ring)
		return 0;
	t->ring = malloc(sizeof(*t->ring) * total * LB_RING_POINTS);
	if (!t->ring)
		return -1;
	t->ring_len = (uint32_t)(total * LB_RING_POINTS);
	m = 0;
	for (int i = 0; i < h->nsrv; i++) {
		if (!srv_usable(h->srv[i], backup))
			continue;
		for (int k = 0; k < h->srv[i]->weight * LB_RING_POINTS; k++) {
			t->ring[m].hash = lb_ring_point(h->srv[i]->puid, k);
			t->ring[m++].pos = (uint32_t)i;
		}
	}
	qsort(t->ring, t->ring_len, sizeof(*t->ring), lb_pt_cmp);
	return 0;
}

void lb_hash_free(struct proxy *px)
{
	struct lb_hash *h = px->lb_hash_ctx;

	if (!h)
		return;
	for (int t = 0; t < 2; t++) {
		free(h->tier[t].map);
		free(h->tier[t].ring);
	}
	free(h->srv);
	free(h);
	px->lb_hash_ctx = NULL;
}

int lb_hash_build(struct proxy *px)
{
	struct lb_hash *h;
	int i = 0;

	lb_hash_free(px);
	h = calloc(1, sizeof(*h));
	if (!h)
		return -1;
	px->lb_hash_ctx = h;
	for (struct server *s = px->srv; s; s = s->next)
		h->nsrv++;
	h->srv = calloc((size_t)(h->nsrv ? h->nsrv : 1), sizeof(*h->srv));
	if (!h->srv)
		goto out_free;
	for (struct server *s = px->srv; s; s = s->next)
		h->srv[i++] = s;
	qsort(h->srv, (size_t)h->nsrv, sizeof(*h->srv), lb_srv_cmp);
	if (px->lbalgo < LB_ALGO_HASHED)
		return 0; /* "first" only needs the id order */
	for (int t = 0; t < 2; t++)
		if (lb_hash_tier_build(h, &h->tier[t], t == 1, px->hash_type == LB_HASH_CONSISTENT))
			goto out_free;
	return 0;
out_free:
	lb_hash_free(px);
	return -1;
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
	       (total + 1) * (uint64_t)factor * (uint64_t)s->weight + (uint64_t)t->map_len * 100 -
		       1;
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
	const struct lb_hash *h = px->lb_hash_ctx;

	*all_full = false;
	for (int b = 0; h && b < 2; b++) {
		const struct lb_hash_tier *t = &h->tier[b];
		struct server *s;

		if (!t->map_len)
			continue;
		if (t->ring)
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
	const struct lb_hash *h = px->lb_hash_ctx;
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
