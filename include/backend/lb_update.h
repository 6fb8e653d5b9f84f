/* Run-time changes of a backend's load-balancing tables (weights, states): the per-algorithm
 * update hook (px->lb) and the retirement of replaced tables, freed after a grace period
 * (event/qsbr.h) so that a pick on another thread never reads freed memory.
 */
#ifndef BACKEND_LB_UPDATE_H
#define BACKEND_LB_UPDATE_H

#include <stdbool.h>
#include <proxy/proxy-t.h>

/* What an algorithm does when a server's effective weight or state changes. */
struct lb_ops {
	/* Rebuilds or re-reads the tables of <px>; NULL: the picks read weights live.
	 * Called with lb_update_lock held. Returns 0, or -1 (memory: the old tables stay). */
	int (*update)(struct proxy *px);
	/* Weights other than 0 and the initial one are refused (static-rr, map-based) */
	bool static_weights;
};

/* The ops of <px>'s algorithm (set into px->lb by backend_init). */
const struct lb_ops *lb_ops_for(const struct proxy *px);

/* Runs px->lb->update under the global update lock, and frees the retired tables whose
 * grace period is over. Any thread, off the request path. Returns 0 or -1. */
int lb_update(struct proxy *px);

/* Hands <ptr> (replaced in <px>, published before this call) to <free_fn> once no thread
 * can still read it; <node> comes from lb_retire_prepare(). Caller holds the lock. */
struct lb_retired;
struct lb_retired *lb_retire_prepare(void);
void lb_retire(struct lb_retired *node, struct proxy *px, void *ptr, void (*free_fn)(void *));

/* lb_retire() for a caller that does not hold the lock (takes it). */
void lb_retire_locked(struct lb_retired *node, struct proxy *px, void *ptr,
		      void (*free_fn)(void *));

/* Frees every retired table of <px> at once: no other thread may run (tests, exit). */
void lb_retired_flush(struct proxy *px);

#endif
