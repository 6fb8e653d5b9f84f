/* Quiescent-state tracking of the loop threads (see event/qsbr.h): the per-thread counters
 * and the writer's snapshot and grace-period test. The loop calls qs_leave()/qs_enter()
 * around epoll_wait.
 */
#include <event/qsbr.h>
#include <proc/global-t.h>

struct qs_thread qs_thr[MAX_THREADS];

/* Threads that may run a loop: all of them before the runtime knows how many. */
static int qs_nbthread(void)
{
	return global.nbthread > 0 && global.nbthread <= MAX_THREADS ? global.nbthread
								     : MAX_THREADS;
}

void qs_snapshot(struct qs_snap *snap)
{
	int n = qs_nbthread();

	HA_BARRIER(); /* the new version is visible before we look at the threads */
	for (int t = 0; t < n; t++)
		snap->ctr[t] = HA_ATOMIC_LOAD(&qs_thr[t].ctr);
}

bool qs_passed(const struct qs_snap *snap)
{
	int n = qs_nbthread();

	for (int t = 0; t < n; t++) {
		unsigned long c = HA_ATOMIC_LOAD(&qs_thr[t].ctr);

		if (!(snap->ctr[t] & 1) && c == snap->ctr[t])
			return false; /* was running then and has not left since */
	}
	return true;
}
