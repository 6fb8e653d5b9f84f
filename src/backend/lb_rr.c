/* Smooth weighted round-robin (roundrobin, static-rr). The smooth WRR sequence of the
 * usable servers (each pick adds every server's weight to its current weight, takes the
 * largest and subtracts the total; weights reduced by their gcd) is computed once per
 * tier (active, backup) when the backend is built. A pick takes the next position of its
 * thread group's cursor with one atomic add and skips full servers: every group follows
 * the exact sequence (s1 s2 s1 s2... for equal weights, a a b a c a a for 5/1/1) and no
 * lock is taken per request. A weight or state change at run time (lb_rr_rebuild, under
 * lb_update's lock) builds new sequences, publishes them with an atomic store and retires the
 * old ones, freed after a grace period (event/qsbr.h: every thread has waited in epoll_wait
 * since), so a pick never reads a freed sequence and pays no reference count.
 */
#include <stdlib.h>
#include <backend/backend.h>
#include <backend/lb_update.h>
#include <backend/server.h>
#include <base/atomic.h>
#include <base/tinfo.h>

/* One tier's sequence of servers: the sequence names them directly, so that servers added
 * or removed at run time (backend/srv_dyn.c) only need a new sequence. */
struct rr_seq {
	uint32_t len;
	struct server *srv[];
};

/* The cursor of one thread group: written by its threads only (atomic add). */
struct rr_cursor {
	unsigned int next;
} ALIGNED_CL;

struct lb_rr {
	struct rr_seq *tier[2];   /* [0] active, [1] backup; NULL when empty. Replaced at run
				   * time by lb_rr_rebuild (atomic store), read by any thread */
	struct rr_cursor cur[MAX_TGROUPS][2];
};

static int gcd(int a, int b)
{
	while (b) {
		int t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* Builds the smooth WRR sequence of the usable servers of one tier, from their weights in
 * sixteenths (a server warming up under "slowstart" has a fraction of its weight). */
static struct rr_seq *rr_seq_build(struct server **tab, int n, bool backup)
{
	int g = 0, total = 0, cw[n > 0 ? n : 1], w[n > 0 ? n : 1];
	struct rr_seq *seq;

	for (int i = 0; i < n; i++) {
		w[i] = srv_usable(tab[i], backup) ? srv_rr_weight(tab[i]) : 0;
		if (w[i])
			g = gcd(g, w[i]);
	}
	for (int i = 0; i < n; i++)
		if (w[i])
			total += w[i] / g;
	if (!total)
		return NULL;
	seq = malloc(sizeof(*seq) + sizeof(seq->srv[0]) * (size_t)total);
	if (!seq)
		return NULL;
	seq->len = (uint32_t)total;
	memset(cw, 0, sizeof(cw));
	for (int k = 0; k < total; k++) {
		int best = -1;

		for (int i = 0; i < n; i++) {
			if (!w[i])
				continue;
			cw[i] += w[i] / g;
			if (best < 0 || cw[i] > cw[best])
				best = i;
		}
		cw[best] -= total;
		seq->srv[k] = tab[best];
	}
	return seq;
}

void lb_rr_free(struct proxy *px)
{
	struct lb_rr *rr = px->lb_ctx;

	lb_retired_flush(px);
	if (!rr)
		return;
	free(rr->tier[0]);
	free(rr->tier[1]);
	free(rr);
	px->lb_ctx = NULL;
}

/* The servers of <px> in config order (then those added at run time) in a new array of
 * *n, or NULL (memory). Under lb_update's lock or before threads start. */
static struct server **rr_servers(struct proxy *px, int *n)
{
	struct server **tab;
	int i = 0;

	*n = 0;
	for (struct server *s = px->srv; s; s = s->next)
		(*n)++;
	tab = calloc((size_t)(*n ? *n : 1), sizeof(*tab));
	if (!tab)
		return NULL;
	for (struct server *s = px->srv; s && i < *n; s = s->next)
		tab[i++] = s;
	*n = i;
	return tab;
}

/* Whether <tab> has a usable server in tier <backup> (a NULL sequence then means no
 * memory). */
static bool rr_tier_usable(struct server **tab, int n, bool backup)
{
	for (int i = 0; i < n; i++)
		if (srv_usable(tab[i], backup))
			return true;
	return false;
}

int lb_rr_build(struct proxy *px)
{
	struct server **tab;
	struct lb_rr *rr;
	int n, rc = 0;

	lb_rr_free(px);
	rr = aligned_alloc(CACHELINE, sizeof(*rr));
	if (!rr)
		return -1;
	memset(rr, 0, sizeof(*rr));
	px->lb_ctx = rr;
	tab = rr_servers(px, &n);
	if (!tab)
		return -1;
	for (int t = 0; t < 2; t++) {
		rr->tier[t] = rr_seq_build(tab, n, t == 1);
		if (!rr->tier[t] && rr_tier_usable(tab, n, t == 1))
			rc = -1; /* usable servers but no memory */
	}
	free(tab);
	return rc;
}

/* Next usable, non-full server of tier <backup> other than <avoid>; <avoid> when it is
 * the only one left. */
static struct server *rr_round(struct proxy *px, bool backup, struct server *avoid,
			       bool *usable)
{
	struct lb_rr *rr = px->lb_ctx;
	struct rr_seq *seq = rr ? HA_ATOMIC_LOAD(&rr->tier[backup]) : NULL;
	unsigned int start;
	bool avoid_free = false;

	*usable = false;
	if (!seq)
		return NULL;
	start = HA_ATOMIC_FETCH_ADD(&rr->cur[tgid - 1][backup].next, 1);
	for (uint32_t k = 0; k < seq->len; k++) {
		struct server *s = seq->srv[(start + k) % seq->len];

		/* the sequence holds the configured servers: skip DOWN ones */
		if (srv_is_up(s) && lb_take_candidate(s, avoid, usable, &avoid_free))
			return s;
	}
	return avoid_free ? avoid : NULL;
}

struct server *lb_rr_pick(struct proxy *px, struct server *avoid, bool *all_full)
{
	return lb_pick_tiered(px, avoid, all_full, rr_round);
}

int lb_rr_rebuild(struct proxy *px)
{
	struct lb_rr *rr = px->lb_ctx;
	struct server **tab;
	int n, rc = 0;

	if (!rr)
		return 0;
	tab = rr_servers(px, &n);
	if (!tab)
		return -1; /* the old sequences stay */
	for (int t = 0; t < 2; t++) {
		struct rr_seq *seq = rr_seq_build(tab, n, t == 1);
		struct lb_retired *node = lb_retire_prepare();

		if (!node || (!seq && rr_tier_usable(tab, n, t == 1))) {
			free(seq);
			free(node);
			rc = -1; /* the old sequence stays */
			continue;
		}
		lb_retire(node, px, HA_ATOMIC_XCHG(&rr->tier[t], seq), free);
	}
	free(tab);
	return rc;
}
