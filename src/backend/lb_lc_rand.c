/* leastconn and random[(N)]: both pick among usable, non-full servers by load, where load
 * is in-use connections per unit of weight. leastconn takes the least loaded and rotates
 * the starting point so that equally loaded servers take turns; random draws N servers
 * with a probability proportional to their weight and keeps the least loaded (power of N
 * choices). Backup servers are used only when no active server is usable. The usual pick
 * reads the dense load keys of lb_load.c; the exact walk over the servers below decides
 * whenever those find no free active server, and for redispatches.
 */
#include <stdint.h>
#include <backend/backend.h>
#include <backend/lb_load.h>
#include <backend/server.h>
#include <base/atomic.h>
#include <base/tinfo.h>

/* true when a carries less load than b: cur_a / w_a < cur_b / w_b */
static bool srv_less_loaded(const struct server *a, const struct server *b)
{
	uint64_t la = (uint64_t)(HA_ATOMIC_LOAD_RLX(&a->cur_conns) + 1) * (uint64_t)srv_weight(b);
	uint64_t lb = (uint64_t)(HA_ATOMIC_LOAD_RLX(&b->cur_conns) + 1) * (uint64_t)srv_weight(a);

	return la < lb;
}

/* Rotation among equally loaded servers: per thread, so that no line is shared. */
static __thread unsigned int lc_cursor;

static struct server *lc_round(struct proxy *px, bool backup, struct server *avoid,
			       bool *usable)
{
	struct server *best = NULL, *s;
	int n = 0, start;

	*usable = false;
	for (s = px->srv; s; s = s->next)
		n++;
	if (!n)
		return NULL;
	start = (int)(lc_cursor++ % (unsigned int)n);
	for (int pass = 0; pass < 2; pass++) {
		int i = 0;

		for (s = px->srv; s; s = s->next, i++) {
			if ((pass == 0) != (i >= start) || !srv_usable(s, backup))
				continue;
			*usable = true;
			if (srv_full(s) || s == avoid)
				continue;
			if (!best || srv_less_loaded(s, best))
				best = s;
		}
	}
	if (!best && avoid && srv_usable(avoid, backup) && !srv_full(avoid))
		best = avoid;
	return best;
}

/* Per-thread xorshift: the draws need no quality beyond spreading load. */
static uint32_t lb_rand(void)
{
	static __thread uint32_t state;

	if (!state)
		state = 2463534242u ^ (tid * 0x9e3779b9u);
	state ^= state << 13;
	state ^= state >> 17;
	state ^= state << 5;
	return state;
}

/* One weighted draw among usable, non-full servers; NULL if none. */
static struct server *rand_draw(struct proxy *px, bool backup, struct server *avoid,
				int total)
{
	int pick = (int)(lb_rand() % (uint32_t)total);

	for (struct server *s = px->srv; s; s = s->next) {
		if (!srv_usable(s, backup) || srv_full(s) || s == avoid)
			continue;
		int w = srv_weight(s);

		if (pick < w)
			return s;
		pick -= w;
	}
	return NULL;
}

static struct server *rand_round(struct proxy *px, bool backup, struct server *avoid,
				 bool *usable)
{
	struct server *best = NULL, *s;
	int total = 0, draws = px->lb_draws > 0 ? px->lb_draws : 2;

	*usable = false;
	for (s = px->srv; s; s = s->next) {
		if (!srv_usable(s, backup))
			continue;
		*usable = true;
		if (!srv_full(s) && s != avoid)
			total += srv_weight(s);
	}
	if (!total)
		return (avoid && srv_usable(avoid, backup) && !srv_full(avoid)) ? avoid : NULL;
	for (int i = 0; i < draws; i++) {
		s = rand_draw(px, backup, avoid, total);
		if (s && (!best || srv_less_loaded(s, best)))
			best = s;
	}
	return best;
}

/* A fast-path candidate of the active tier, checked against the keys being stale. */
static inline bool lb_load_fresh(const struct server *s)
{
	return s && srv_usable(s, false) && !srv_full(s);
}

struct server *lb_lc_pick(struct proxy *px, struct server *avoid, bool *all_full)
{
	struct lb_load *ll = HA_ATOMIC_LOAD(&px->lb_load); /* add/del server replace it */

	if (ll && !avoid) {
		struct server *s = lb_load_lc(&ll->tier[0]);

		if (lb_load_fresh(s)) {
			*all_full = false;
			return s;
		}
	}
	return lb_pick_tiered(px, avoid, all_full, lc_round);
}

struct server *lb_rand_pick(struct proxy *px, struct server *avoid, bool *all_full)
{
	struct lb_load *ll = HA_ATOMIC_LOAD(&px->lb_load); /* add/del server replace it */

	if (ll && !avoid) {
		int draws = px->lb_draws > 0 ? px->lb_draws : 2;
		struct server *s = lb_load_rand(&ll->tier[0], draws, lb_rand);

		if (lb_load_fresh(s)) {
			*all_full = false;
			return s;
		}
	}
	return lb_pick_tiered(px, avoid, all_full, rand_round);
}
