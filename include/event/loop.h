/* The per-thread event loop: fd registration (edge-triggered, registered once), lazy
 * timers, tasklets, and the loop itself. Every function acts on the calling thread's
 * context; nothing here is shared between threads.
 */
#ifndef EVENT_LOOP_H
#define EVENT_LOOP_H

#include <event/loop-t.h>

/* Creates the calling thread's context. Returns 0 or -1 (errno set). */
int loop_init_thread(void);
void loop_deinit_thread(void);

/* Runs until loop_stop(). <idle_check> is called each turn while stopping; when it
 * returns true the loop exits (graceful stop done).
 */
void loop_run(bool (*idle_check)(void));

/* Registers <h> for EPOLLIN|EPOLLOUT|EPOLLRDHUP, edge-triggered. Returns 0 or -1. */
int fd_register(struct fd_handler *h);
/* Registers a listening socket: level-triggered EPOLLIN. Returns 0 or -1. */
int fd_register_listener(struct fd_handler *h);
void fd_unregister(struct fd_handler *h);

/* Queues <t> at t->expire in the thread's heap, or moves it earlier (timer_set's slow
 * path). */
void timer_queue(struct timer *t);
void timer_del(struct timer *t);

/* Arms or moves a timer; expire == 0 disarms. Inline: disarming and moving later only
 * store the deadline (the queued entry fires early, finds it moved and is re-queued). */
static inline void timer_set(struct timer *t, uint64_t expire)
{
	t->expire = expire;
	if (expire && (!t->queued || t->queued > expire))
		timer_queue(t);
}

static inline uint64_t now_ms(void)
{
	return th_ctx->now_ms;
}

/* Deadline <ms> from now, or 0 (never) when ms <= 0. */
static inline uint64_t tick_add(int ms)
{
	return ms > 0 ? th_ctx->now_ms + (uint64_t)ms : 0;
}

static inline void tasklet_init(struct tasklet *tl, void (*process)(struct tasklet *))
{
	list_init(&tl->list);
	tl->process = process;
	tl->wake_date = 0;
}

uint64_t prof_now_ns(void);

static inline void tasklet_wakeup(struct tasklet *tl)
{
	if (list_empty(&tl->list)) {
		list_append(&th_ctx->tasklets, &tl->list);
		if (unlikely(th_ctx->prof)) /* wake-to-run latency (event/profiling.h) */
			tl->wake_date = prof_now_ns();
	}
}

static inline void tasklet_cancel(struct tasklet *tl)
{
	list_delete(&tl->list);
}

/* Releasing what an event may name. epoll hands out a batch of events at once, each with
 * a pointer to its fd_handler; a handler run early in the batch may close or free objects
 * that later events of the same batch still point at. The rule: such an object is never
 * freed before the batch ends. Its owner unregisters it and sets h->fd to -1 (the loop
 * skips events of handlers whose fd is -1), then queues the release here: <release> runs
 * at the end of the loop turn. <tl> is a tasklet embedded in the object and not scheduled.
 */
static inline void loop_defer_release(struct tasklet *tl, void (*release)(struct tasklet *))
{
	list_delete(&tl->list);
	tl->process = release;
	list_append(&th_ctx->deferred, &tl->list);
}

/* Runs every deferred release (end of a loop turn, and teardown). */
void loop_release_deferred(void);

/* Runs the pending tasklets (a bounded batch). The loop does it every turn; exposed for
 * the teardown after the loop has ended. */
void tasklets_run(void);

/* Refreshes th_ctx->now_ms from the monotonic clock (vDSO, no syscall). */
void clock_update(void);

#endif
