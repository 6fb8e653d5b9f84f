/* Server runtime state per thread: idle (reusable) connections. */
#ifndef BACKEND_SERVER_H
#define BACKEND_SERVER_H

#include <stdbool.h>
#include <base/atomic.h>
#include <base/compiler.h>
#include <base/list.h>
#include <base/tinfo.h>
#include <backend/server-t.h>
#include <proxy/proxy-t.h>

#define SRV_MAX_IDLE_PER_THREAD 1024

/* Only touched by its thread. */
struct srv_per_thread {
	struct list idle;         /* struct conn, most recently parked first */
	int nb_idle;
} ALIGNED_CL;

struct proxy;

/* Gives each server of <px> without an "id" the lowest id no other server has, in config
 * order. Check time. */
void srv_assign_ids(struct proxy *px);

/* Up for new traffic (not DOWN or NOLB after its checks); any thread. */
static inline bool srv_is_up(const struct server *s)
{
	return HA_ATOMIC_LOAD_RLX(&s->run_state) == SRV_RS_UP;
}

/* May take traffic in the tier <backup> (active or backup servers). */
static inline bool srv_usable(const struct server *s, bool backup)
{
	return !(s->flags & SRV_F_DISABLED) && s->weight > 0 &&
	       !!(s->flags & SRV_F_BACKUP) == backup && srv_is_up(s);
}

/* The one function that changes a server's run state (checks now, the runtime API
 * later): stores it, counts and times the change, and prints HAProxy's notice to stderr
 * ("Server be/s1 is DOWN, reason: <why>. 0 active and 0 backup servers left..."), plus
 * "backend 'be' has no server available!" when the last one goes. <why> is the
 * "reason: ..." text without the leading "reason: ". Any thread; <now> is the caller's
 * monotonic ms clock. */
void srv_set_state(struct server *s, enum srv_run_state st, const char *why, uint64_t now);

/* The "maxconn" of <s> with "minconn" and its backend's "fullconn": between minconn and
 * maxconn in proportion of the backend's load, its streams and queued ones (HAProxy's
 * beconn counts both). Only when s->minconn (see srv_limits.c). Inline and without a call,
 * so that srv_full() keeps the LB rounds leaf functions. Any thread. */
static inline int srv_dyn_maxconn(const struct server *s)
{
	const struct proxy *px = s->px;
	int load = HA_ATOMIC_LOAD_RLX(&px->beconn) + HA_ATOMIC_LOAD_RLX(&px->nb_queued);
	long max;

	if (load >= px->fullconn)
		return s->maxconn;
	max = (long)load * s->maxconn / px->fullconn;
	if (max < s->minconn)
		max = s->minconn;
	return max > 0 ? (int)max : 1;
}

/* The number of slots of <s> now (0: unlimited). */
static inline int srv_cur_maxconn(const struct server *s)
{
	return likely(!s->minconn) ? s->maxconn : srv_dyn_maxconn(s);
}

/* Every slot allowed by "maxconn" (and "minconn") is taken. A server without maxconn
 * costs one test, as before minconn existed. */
static inline bool srv_full(const struct server *s)
{
	int cur;

	if (!s->maxconn)
		return false;
	cur = HA_ATOMIC_LOAD_RLX(&s->cur_conns);
	if (cur >= s->maxconn)
		return true;
	if (likely(!s->minconn))
		return false;
	/* cur >= max(minconn, load * maxconn / fullconn), without a division */
	return cur >= s->minconn &&
	       (long)cur * s->px->fullconn >=
		       (long)(HA_ATOMIC_LOAD_RLX(&s->px->beconn) + HA_ATOMIC_LOAD_RLX(&s->px->nb_queued)) *
			       s->maxconn;
}

/* One candidate <s> of an LB round (lb_pick_tiered), already known usable: sets *usable, skips it when full,
 * and keeps <avoid> as a last resort (*avoid_free). True when <s> is the pick. */
static inline bool lb_take_candidate(const struct server *s, const struct server *avoid,
				     bool *usable, bool *avoid_free)
{
	*usable = true;
	if (srv_full(s))
		return false;
	if (s == avoid) {
		*avoid_free = true;
		return false;
	}
	return true;
}

#endif
