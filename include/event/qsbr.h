/* Quiescent states of the loop threads, for objects that readers on any thread use without
 * a lock or a reference count (the load balancers' tables): a writer publishes a new version,
 * takes a snapshot, and frees the old one once every thread has been outside its handlers
 * (waiting in epoll_wait) since then. Costs the loop two atomic adds per turn, nothing per
 * request.
 */
#ifndef EVENT_QSBR_H
#define EVENT_QSBR_H

#include <stdbool.h>
#include <base/atomic.h>
#include <base/compiler.h>
#include <base/tinfo.h>

/* Written by its thread only, read by writers of shared tables: odd while the thread waits
 * in epoll_wait (it holds no pointer to a shared table), even while it runs. */
struct qs_thread {
	unsigned long ctr;
} ALIGNED_CL;

extern struct qs_thread qs_thr[MAX_THREADS];

/* Snapshot of every thread's counter, taken after a new version was published. */
struct qs_snap {
	unsigned long ctr[MAX_THREADS];
};

/* The calling loop thread stops using shared tables (before epoll_wait). */
static inline void qs_leave(void)
{
	/* release: the thread's reads of old versions come before a writer sees it out */
	HA_ATOMIC_STORE(&qs_thr[tid].ctr, HA_ATOMIC_LOAD_RLX(&qs_thr[tid].ctr) + 1);
}

/* The calling loop thread may use shared tables again. A full barrier: a writer that saw
 * the thread outside published its new version before this, so the thread sees it. */
static inline void qs_enter(void)
{
	HA_ATOMIC_INC(&qs_thr[tid].ctr);
}

/* Records the threads' counters into <snap>, after the new version was published. */
void qs_snapshot(struct qs_snap *snap);

/* True when every thread was outside at the snapshot or has left since: nobody can still
 * hold the version replaced before <snap> was taken. */
bool qs_passed(const struct qs_snap *snap);

#endif
