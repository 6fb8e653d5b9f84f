/* Smooth weighted round-robin (roundrobin, static-rr): each pick adds every usable
 * server's weight to its current weight, takes the largest, and subtracts the total from
 * it. Over W = sum(weights) picks each server gets exactly its weight, interleaved.
 * Backup servers are used only when no active server is usable. State lives in the
 * servers (one thread for now; per group with issue #3).
 */
#include <stddef.h>
#include <backend/backend.h>
#include <backend/server.h>
#include <base/atomic.h>

/* One smooth-WRR round over servers whose backup flag equals <backup>. */
static struct server *rr_round(struct proxy *px, bool backup, struct server *avoid,
			       bool *any_usable)
{
	struct server *best = NULL, *s;
	int total = 0, usable = 0;

	for (s = px->srv; s; s = s->next) {
		if (!srv_usable(s, backup))
			continue;
		usable++;
		if (srv_full(s))
			continue;
		if (s == avoid)
			continue;
		s->lb_cur_weight += s->weight;
		total += s->weight;
		if (!best || s->lb_cur_weight > best->lb_cur_weight)
			best = s;
	}
	if (!best && avoid && !srv_full(avoid) && srv_usable(avoid, backup))
		best = avoid; /* the only usable one: retry it rather than fail */
	else if (best)
		best->lb_cur_weight -= total;
	*any_usable = usable > 0;
	return best;
}

struct server *lb_rr_pick(struct proxy *px, struct server *avoid, bool *all_full)
{
	return lb_pick_tiered(px, avoid, all_full, rr_round);
}
