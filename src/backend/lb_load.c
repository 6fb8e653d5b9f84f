/* Load keys of leastconn and random(N): one 32-bit key per server in a dense array per
 * tier, (in-use connections + 1) per unit of weight, or "not usable" / "full". Every slot
 * taken or released and every state or weight change rewrites the server's key, so that a
 * pick reads 4 bytes per server instead of walking the server structures: leastconn scans
 * the array with 128-bit vectors, random(N) draws positions and accepts them by weight.
 * Keys live two per 64-bit word, each word a relaxed atomic (plain loads on x86-64 and
 * aarch64) that a scan may read while any thread rewrites one half with a CAS; a pick that
 * finds a key stale (the server full after all) falls back to the exact walk of
 * lb_lc_rand.c. A server added or deleted at run time gets a whole new table, published
 * with qsbr like round robin's sequences: picks never lock.
 */
#include <stdlib.h>
#include <backend/backend.h>
#include <backend/lb_load.h>
#include <backend/lb_update.h>
#include <backend/server.h>
#include <base/atomic.h>

/* The key of <s> now: lower is less loaded. */
static uint32_t lb_load_key(const struct server *s, bool backup)
{
	int w = srv_weight(s); /* once: it may change meanwhile (slowstart, agents) */
	uint64_t k;

	if (w <= 0 || !srv_usable(s, backup))
		return LB_KEY_NONE;
	if (srv_full(s))
		return LB_KEY_FULL;
	/* 65536 / weight: exact ratios for weights that divide 65536, within 0.4 % otherwise */
	k = (uint64_t)(HA_ATOMIC_LOAD_RLX(&s->cur_conns) + 1) * (65536u / (unsigned int)w);
	return k < LB_KEY_MAX ? (uint32_t)k : LB_KEY_MAX;
}

/* Key <i> of <tr>. */
static inline uint32_t lb_key_at(const struct lb_load_tier *tr, int i)
{
	return (uint32_t)(HA_ATOMIC_LOAD_RLX(&tr->word[i >> 1]) >> ((i & 1) * 32));
}

/* Where deleted servers' keys go (never read). */
static uint64_t lb_load_sink;

/* Stores <k> in the half <sh> of <w>. */
static inline void lb_key_store(uint64_t *w, unsigned int sh, uint32_t k)
{
	uint64_t old = HA_ATOMIC_LOAD_RLX(w), nw;

	do {
		nw = (old & ~(0xffffffffull << sh)) | ((uint64_t)k << sh);
	} while (!HA_ATOMIC_CAS(w, &old, nw));
}

void lb_load_update(struct server *s)
{
	bool backup = !!(s->flags & SRV_F_BACKUP);
	uint32_t k = lb_load_key(s, backup), again;
	/* a rebuild may move the word (never to NULL while SRV_F_LB_KEYS is set: a server
	 * not linked yet or deleted writes to the sink) and then rewrites every key after a
	 * grace period; the half stays */
	uint64_t *w = HA_ATOMIC_LOAD_RLX(&s->lb_load_word);
	/* two threads changing cur_conns may store their keys in the reverse order: each
	 * checks after storing that its key still holds, so the last store is fresh */
	for (int i = 0; i < 4; i++) {
		lb_key_store(w, s->lb_load_shift, k);
		again = lb_load_key(s, backup);
		if (again == k)
			break;
		k = again;
	}
}

void lb_load_forget(struct server *s)
{
	HA_ATOMIC_STORE_RLX(&s->lb_load_word, &lb_load_sink);
}

void lb_load_prepare_srv(struct server *s)
{
	s->lb_load_word = &lb_load_sink;
	s->flags |= SRV_F_LB_KEYS;
}

void lb_load_weight_changed(struct server *s)
{
	struct lb_load *ll = HA_ATOMIC_LOAD(&s->px->lb_load);
	struct lb_load_tier *tr;

	if (!ll)
		return;
	tr = &ll->tier[!!(s->flags & SRV_F_BACKUP)];
	HA_ATOMIC_UPDATE_MAX(&tr->wmax, srv_weight(s));
	lb_load_update(s);
}

/* Frees a table no thread reads any more (also the retired ones, after their grace). */
static void lb_load_table_free(void *p)
{
	struct lb_load *ll = p;

	for (int t = 0; t < 2; t++) {
		free(ll->tier[t].srv);
		free(ll->tier[t].word);
	}
	free(ll);
}

void lb_load_free(struct proxy *px)
{
	struct lb_load *ll = px->lb_load;

	if (!ll)
		return;
	for (struct server *s = px->srv; s; s = s->next)
		s->lb_load_word = &lb_load_sink; /* it may still have SRV_F_LB_KEYS */
	lb_load_table_free(ll);
	px->lb_load = NULL;
}

/* Whether <s> was given its half already (it had a key in a table). */
static bool lb_load_has_half(const struct server *s)
{
	return s->lb_load_word && s->lb_load_word != &lb_load_sink;
}

/* Gives a server without a key yet (startup, or added) a half: the one of its tier that
 * fewer servers use, so that a table has at most one hole per server of difference. */
static void lb_load_pick_halves(struct proxy *px)
{
	int cnt[2][2] = { { 0 } };
	struct server *s;

	for (s = px->srv; s; s = s->next)
		if (lb_load_has_half(s))
			cnt[!!(s->flags & SRV_F_BACKUP)][s->lb_load_shift != 0]++;
	for (s = px->srv; s; s = s->next) {
		int *c = cnt[!!(s->flags & SRV_F_BACKUP)], h;

		if (lb_load_has_half(s))
			continue;
		h = c[1] < c[0];
		s->lb_load_shift = (uint8_t)(h * 32);
		c[h]++;
	}
}

/* A table of <px>'s linked servers with their keys now, not published; NULL (memory).
 * Each server keeps its half (lb_load_shift): even positions hold the low halves, odd ones
 * the high halves, holes are "not usable". */
static struct lb_load *lb_load_new(struct proxy *px)
{
	struct lb_load *ll = calloc(1, sizeof(*ll));
	int cnt[2][2] = { { 0 } }, next[2][2] = { { 0, 1 }, { 0, 1 } };
	struct server *s;

	if (!ll)
		return NULL;
	lb_load_pick_halves(px);
	for (s = px->srv; s; s = s->next)
		cnt[!!(s->flags & SRV_F_BACKUP)][s->lb_load_shift != 0]++;
	for (int t = 0; t < 2; t++) {
		struct lb_load_tier *tr = &ll->tier[t];
		int pos = cnt[t][0] > cnt[t][1] ? 2 * cnt[t][0] : 2 * cnt[t][1];
		size_t slots = ((size_t)pos + LB_KEY_LANES - 1) / LB_KEY_LANES * LB_KEY_LANES;

		if (!slots)
			continue;
		tr->srv = calloc(slots, sizeof(*tr->srv));
		tr->word = aligned_alloc(16, slots / 2 * sizeof(*tr->word));
		if (!tr->srv || !tr->word) {
			lb_load_table_free(ll);
			return NULL;
		}
		for (size_t i = 0; i < slots / 2; i++) /* padding and holes are never usable */
			tr->word[i] = (uint64_t)LB_KEY_NONE << 32 | LB_KEY_NONE;
	}
	for (s = px->srv; s; s = s->next) {
		bool backup = !!(s->flags & SRV_F_BACKUP);
		struct lb_load_tier *tr = &ll->tier[backup];
		unsigned int sh = s->lb_load_shift;
		int i = next[backup][sh != 0];
		uint64_t *w = &tr->word[i >> 1];

		next[backup][sh != 0] += 2;
		tr->srv[i] = s;
		if (i + 1 > tr->n)
			tr->n = i + 1;
		*w = (*w & ~(0xffffffffull << sh)) | ((uint64_t)lb_load_key(s, backup) << sh);
		if (srv_weight(s) > tr->wmax)
			tr->wmax = srv_weight(s);
	}
	return ll;
}

/* Points each server of <ll> at its key's word. */
static void lb_load_link(struct lb_load *ll)
{
	for (int t = 0; t < 2; t++) {
		struct lb_load_tier *tr = &ll->tier[t];

		for (int i = 0; i < tr->n; i++) {
			struct server *s = tr->srv[i];

			if (!s)
				continue;
			HA_ATOMIC_STORE_RLX(&s->lb_load_word, &tr->word[i >> 1]);
			if (!(s->flags & SRV_F_LB_KEYS)) /* start-up: no other thread yet */
				s->flags |= SRV_F_LB_KEYS;
		}
	}
}

int lb_load_build(struct proxy *px)
{
	struct lb_load *ll;

	lb_load_free(px);
	ll = lb_load_new(px);
	if (!ll)
		return -1;
	px->lb_load = ll;
	lb_load_link(ll);
	return 0;
}

int lb_load_rebuild(struct proxy *px)
{
	struct lb_retired *node = lb_retire_prepare();
	struct lb_load *ll = node ? lb_load_new(px) : NULL, *old;

	if (!ll) {
		free(node);
		return -1;
	}
	old = HA_ATOMIC_XCHG(&px->lb_load, ll); /* release: the table is complete */
	lb_load_link(ll);
	lb_retire_locked(node, px, old, lb_load_table_free);
	return 0;
}

void lb_load_refresh(struct proxy *px)
{
	struct lb_load *ll = HA_ATOMIC_LOAD(&px->lb_load);

	if (!ll)
		return;
	for (struct server *s = px->srv; s; s = s->next) {
		HA_ATOMIC_UPDATE_MAX(&ll->tier[!!(s->flags & SRV_F_BACKUP)].wmax, srv_weight(s));
		lb_load_update(s);
	}
}

typedef int32_t v4i32 __attribute__((vector_size(16)));
typedef uint64_t v2u64 __attribute__((vector_size(16)));

/* Keys 4 to 7 of a step, as one vector of two relaxed 64-bit loads. */
static inline v4i32 lb_load_vec(const uint64_t *w)
{
	return (v4i32)(v2u64){ HA_ATOMIC_LOAD_RLX(&w[0]), HA_ATOMIC_LOAD_RLX(&w[1]) };
}

/* The lowest key of <tr> below LB_KEY_FULL (LB_KEY_FULL when none): a vector min with two
 * accumulators, so that consecutive steps do not wait for each other. Keys stay below
 * 2^31, so signed lanes compare them (SSE2 has no unsigned compare). */
static uint32_t lb_load_min(const struct lb_load_tier *tr)
{
	v4i32 m0 = { LB_KEY_FULL, LB_KEY_FULL, LB_KEY_FULL, LB_KEY_FULL }, m1 = m0, v0, v1, lt;
	int32_t best;

	for (int i = 0; i < tr->n; i += LB_KEY_LANES) {
		v0 = lb_load_vec(&tr->word[i >> 1]);
		v1 = lb_load_vec(&tr->word[(i >> 1) + 2]);
		lt = v0 < m0;
		m0 = (v0 & lt) | (m0 & ~lt);
		lt = v1 < m1;
		m1 = (v1 & lt) | (m1 & ~lt);
	}
	lt = m1 < m0;
	m0 = (m1 & lt) | (m0 & ~lt);
	best = m0[0];
	for (int l = 1; l < 4; l++)
		best = m0[l] < best ? m0[l] : best;
	return (uint32_t)best;
}

/* The first position from <start> on (wrapping) whose key is <k>, or -1. */
static int lb_load_find(const struct lb_load_tier *tr, int start, uint32_t k)
{
	for (int pass = 0; pass < 2; pass++) {
		int from = pass ? 0 : start, to = pass ? start : tr->n;

		for (int i = from; i < to; i++)
			if (lb_key_at(tr, i) == k)
				return i;
	}
	return -1;
}

/* Rotation among equally loaded servers: per thread, so that no line is shared. */
static __thread unsigned int lc_cursor;

struct server *lb_load_lc(struct lb_load_tier *tr)
{
	uint32_t k;
	int i;

	if (!tr->n)
		return NULL;
	k = lb_load_min(tr);
	if (k >= LB_KEY_FULL)
		return NULL; /* none free: the caller's exact walk decides between full and none */
	i = lb_load_find(tr, (int)(lc_cursor++ % (unsigned int)tr->n), k);
	return i < 0 ? NULL : tr->srv[i];
}

struct server *lb_load_rand(struct lb_load_tier *tr, int draws, uint32_t (*rnd)(void))
{
	struct server *best = NULL;
	uint32_t best_key = LB_KEY_FULL;
	int wmax = HA_ATOMIC_LOAD_RLX(&tr->wmax);

	if (!tr->n || wmax <= 0)
		return NULL;
	for (int d = 0; d < draws; d++) {
		/* rejection sampling: a uniform position accepted with probability weight/wmax
		 * is a draw proportional to weight; bounded, the caller walks after a miss */
		for (int tries = 0; tries < LB_RAND_TRIES; tries++) {
			uint32_t r = rnd();
			int i = (int)(r % (uint32_t)tr->n);
			uint32_t k = lb_key_at(tr, i);

			if (k >= LB_KEY_FULL)
				continue;
			if (wmax > 1 && (int)((r >> 16) % (uint32_t)wmax) >= srv_weight(tr->srv[i]))
				continue;
			if (k < best_key) {
				best_key = k;
				best = tr->srv[i];
			}
			break;
		}
	}
	return best;
}
