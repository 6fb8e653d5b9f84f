/* The per-thread event loop: epoll registration, the clock, tasklets, deferred release,
 * and the loop turn itself (events -> timers -> tasklets). One context per thread; no
 * function here touches another thread's context.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <base/atomic.h>
#include <base/sys.h>
#include <event/loop.h>
#include <event/profiling.h>
#include <event/qsbr.h>
#include <stats/counters.h>
#include <event/timer.h>
#include <proc/global-t.h>

__thread struct thread_ctx *th_ctx;
struct thread_ctx *ha_thread_ctx[MAX_THREADS];

void clock_update(void)
{
	struct timespec ts;

	uint64_t ns;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
	th_ctx->now_ns = ns;
	th_ctx->now_ms = ns / 1000000;
}

int loop_init_thread(void)
{
	struct thread_ctx *tc = aligned_alloc(CACHELINE, sizeof(*tc));

	if (!tc)
		return -1;
	memset(tc, 0, sizeof(*tc));
	tc->tid = (int)tid;
	tc->inbox_h.fd = -1;
	tc->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (tc->epfd < 0) {
		free(tc);
		return -1;
	}
	list_init(&tc->tasklets);
	list_init(&tc->deferred);
	list_init(&tc->conns);
	tc->act_cnt = 1; /* the first turn samples: profiling follows the mode at once */
	th_ctx = tc;
	HA_ATOMIC_STORE(&ha_thread_ctx[tid], tc);
	clock_update();
	return 0;
}

void loop_deinit_thread(void)
{
	if (!th_ctx)
		return;
	loop_release_deferred();
	HA_ATOMIC_STORE(&ha_thread_ctx[tid], NULL);
	close(th_ctx->epfd);
	free(th_ctx->heap);
	free(th_ctx);
	th_ctx = NULL;
}

int fd_register(struct fd_handler *h)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
		.data.ptr = h,
	};

	return epoll_ctl(th_ctx->epfd, EPOLL_CTL_ADD, h->fd, &ev);
}

int fd_register_listener(struct fd_handler *h)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = h };

	return epoll_ctl(th_ctx->epfd, EPOLL_CTL_ADD, h->fd, &ev);
}

void fd_unregister(struct fd_handler *h)
{
	epoll_ctl(th_ctx->epfd, EPOLL_CTL_DEL, h->fd, NULL);
}

void tasklets_run(void)
{
	struct thread_ctx *tc = th_ctx;
	/* The batch ends with the tasklet queued last when it starts: those woken while it
	 * runs, the same one included, wait for the next turn, after I/O and timers, so one
	 * that wakes itself again (a service producing a large body) never keeps the loop to
	 * itself. <last> is only compared, never read: if it was cancelled meanwhile, the
	 * batch runs to the budget, as it would have. */
	const struct list *last = tc->tasklets.prev;
	int budget = 1024; /* bounded so timers and I/O are never starved */

	while (!list_empty(&tc->tasklets) && budget--) {
		struct tasklet *tl = list_elem(tc->tasklets.next, struct tasklet, list);
		bool end = &tl->list == last;

		list_delete(&tl->list);
		if (unlikely(tc->prof))
			prof_run_tasklet(tl);
		else
			tl->process(tl);
		if (end)
			break;
	}
}

void loop_release_deferred(void)
{
	struct thread_ctx *tc = th_ctx;

	while (!list_empty(&tc->deferred)) {
		struct tasklet *tl = list_elem(tc->deferred.next, struct tasklet, list);

		list_delete(&tl->list);
		tl->process(tl);
	}
}

void loop_run(bool (*idle_check)(void))
{
	struct thread_ctx *tc = th_ctx;
	int maxev = global.tune_maxpollevents > 0 ? global.tune_maxpollevents : 200;
	struct epoll_event *evs = calloc((size_t)maxev, sizeof(*evs));

	if (!evs)
		return;
	while (!tc->stopped) {
		int delay = timer_run();
		int n;

		if (!list_empty(&tc->tasklets))
			delay = 0;
		if (tc->stopping && idle_check && idle_check())
			break;
		if (tc->stopping && (delay < 0 || delay > 100))
			delay = 100; /* re-check the graceful stop regularly */
		HA_OWNER_INC(&activity[tid].loops);
		if (unlikely(!--tc->act_cnt))
			prof_loop_sample(tc); /* loop time, profiling mode */
		qs_leave(); /* no pointer to a shared LB table is held across the wait */
		n = sys_epoll_wait(tc->epfd, evs, maxev, delay);
		qs_enter();
		clock_update();
		if (unlikely(tc->prof))
			prof_dispatch(evs, n); /* the same, each call measured */
		else
			for (int i = 0; i < n; i++) {
				struct fd_handler *h = evs[i].data.ptr;

				/* closed or unregistered by an earlier handler of this batch:
				 * its memory stays valid until loop_release_deferred() */
				if (likely(h->fd >= 0))
					h->iocb(h, evs[i].events);
			}
		tasklets_run();
		loop_release_deferred();
		if (n < 0 && errno != EINTR)
			break;
	}
	free(evs);
}
