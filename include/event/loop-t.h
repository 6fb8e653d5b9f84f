/* Types of the per-thread event loop: its epoll fd, clock, timer heap, tasklet list. */
#ifndef EVENT_LOOP_T_H
#define EVENT_LOOP_T_H

#include <stdbool.h>
#include <stdint.h>
#include <base/compiler.h>
#include <base/list.h>

/* Something epoll reports on. Embedded in its owner; epoll's data.ptr points to it. */
struct fd_handler {
	void (*iocb)(struct fd_handler *h, uint32_t events);
	int fd;
};

/* A deadline in the thread's timer heap. The owner may move <expire> later without
 * touching the heap (lazy timer): when the heap entry fires early, timer_run re-queues it.
 */
struct timer {
	uint64_t expire;          /* ms on the thread's clock; 0 = not armed */
	uint64_t queued;          /* expiry the heap entry was queued with, 0 if not queued */
	uint32_t idx;             /* position in the heap */
	void (*cb)(struct timer *t);
};

/* Deferred work run after I/O events of the current loop turn. */
struct tasklet {
	struct list list;         /* in th_ctx->tasklets while scheduled */
	void (*process)(struct tasklet *tl);
	uint64_t wake_date;       /* profiling: monotonic ns of the wakeup, 0 if not measured */
};

struct inbox_item;

/* Written by other threads, on its own cache line: kept in sync with event/inbox.h. */
struct thread_shared {
	struct inbox_item *inbox_head; /* LIFO of items pushed by other threads (atomic) */
	int inbox_notified;       /* an eventfd write is pending (atomic) */
	int load;                 /* front connections owned or being handed over (atomic):
				   * the accept distribution compares it between threads */
	bool stop;                /* immediate stop requested (atomic) */
} ALIGNED_CL;

struct thread_ctx {
	/* owner only */
	int epfd;
	int tid;
	uint64_t now_ms;          /* monotonic milliseconds, updated once per loop turn */
	struct timer **heap;      /* min-heap on <queued> */
	uint32_t heap_len, heap_cap;
	struct list tasklets;     /* runnable tasklets */
	struct list deferred;     /* releases run at the end of the loop turn, once no event
				   * of the batch can name the object any more */
	bool stopping;            /* graceful stop requested */
	bool stopped;             /* loop must exit */
	unsigned int nb_conns;    /* connections owned by this thread */
	struct list conns;        /* those connections (struct conn.by_thread) */
	/* profiling and loop activity (event/profiling.h) */
	bool prof;                /* measure the callbacks (task profiling on for this thread) */
	uint32_t act_cnt;         /* turns left before the next prof_loop_sample() */
	uint64_t now_ns;          /* monotonic ns when the last epoll_wait returned */
	struct fd_handler inbox_h; /* the inbox eventfd */
	struct thread_shared sh;  /* written by other threads */
} ALIGNED_CL;

extern __thread struct thread_ctx *th_ctx;
/* Every running thread's context, for handing work over and comparing loads. */
extern struct thread_ctx *ha_thread_ctx[];

#endif
