/* Dense per-tier load keys of leastconn and random(N) (lb_load.c): what a pick reads, and
 * what slot changes, state changes and weight changes write. Any thread.
 */
#ifndef BACKEND_LB_LOAD_H
#define BACKEND_LB_LOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <backend/server-t.h>
#include <base/atomic.h>
#include <proxy/proxy-t.h>

/* keys stay below 2^31: the vector scan compares signed lanes */
#define LB_KEY_NONE 0x7fffffffu /* not usable (down, disabled, weight 0) */
#define LB_KEY_FULL 0x7ffffffeu /* usable but every maxconn slot is taken */
#define LB_KEY_MAX 0x7ffffffdu	/* saturated load */
#define LB_KEY_LANES                                                            \
	8		 /* keys per step of the scan (two vectors); arrays are \
			  * padded to a multiple */
#define LB_RAND_TRIES 16 /* rejected draws before random(N) walks the servers */

/* One tier (active or backup) of a backend: servers by position, their keys. */
struct lb_load_tier {
	int n;
	int wmax; /* largest weight of the tier (atomic: raised at run time) */
	struct server **srv;
	uint64_t *word; /* keys, two per word (atomic), 16-byte aligned, padded
			 * with LB_KEY_NONE */
};

struct lb_load {
	struct lb_load_tier tier[2]; /* [0] active, [1] backup */
};

/* Builds the keys of <px>'s servers at start-up; 0 or -1 (memory). */
int lb_load_build(struct proxy *px);
void lb_load_free(struct proxy *px);
/* A server was added to or removed from <px>'s list at run time (backend/srv_dyn.c, one
 * thread at a time): builds a new table of the linked servers, publishes it, points each
 * server at its new key and retires the old table (qsbr). Keys written meanwhile into the
 * old table are lost: lb_load_refresh() once a grace period has passed rewrites them all.
 * 0, or -1 (memory: the old table stays). */
int lb_load_rebuild(struct proxy *px);
/* Rewrites every key of <px> (and its tiers' largest weights) from the servers. */
void lb_load_refresh(struct proxy *px);

/* Rewrites <s>'s key after its slots, state or weight changed. No-op without keys. */
void lb_load_update(struct server *s);
static inline void lb_load_touch(struct server *s)
{
	if (s->flags & SRV_F_LB_KEYS) /* a constant: the word pointer may move */
		lb_load_update(s);
}
/* <s>, not published yet, will get a key with the next lb_load_rebuild(): until then its
 * key goes to a sink. */
void lb_load_prepare_srv(struct server *s);
/* <s> was deleted (and the table rebuilt without it): its key goes to a sink from now on,
 * so a late slot release on another thread never writes into a freed table. */
void lb_load_forget(struct server *s);
/* <s>'s weight changed at run time (the largest weight of its tier may grow). */
void lb_load_weight_changed(struct server *s);

/* The least loaded free server of <tr>, rotating among equals; NULL when the keys show
 * none free. The caller checks that the server is still usable and free. */
struct server *lb_load_lc(struct lb_load_tier *tr);
/* The least loaded of <draws> weighted draws of free servers of <tr>; NULL when the draws
 * found none (the caller then walks the servers). */
struct server *lb_load_rand(struct lb_load_tier *tr, int draws, uint32_t (*rnd)(void));

#endif
