/* Server runtime state per thread: idle (reusable) connections. */
#ifndef BACKEND_SERVER_H
#define BACKEND_SERVER_H

#include <stdbool.h>
#include <base/atomic.h>
#include <base/compiler.h>
#include <base/list.h>
#include <base/tinfo.h>
#include <backend/server-t.h>

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

/* May take traffic in the tier <backup> (active or backup servers). */
static inline bool srv_usable(const struct server *s, bool backup)
{
	return !(s->flags & SRV_F_DISABLED) && s->weight > 0 &&
	       !!(s->flags & SRV_F_BACKUP) == backup;
}

/* Every slot allowed by "maxconn" is taken. */
static inline bool srv_full(const struct server *s)
{
	return s->maxconn && HA_ATOMIC_LOAD_RLX(&s->cur_conns) >= s->maxconn;
}

#endif
