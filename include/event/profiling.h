/* Per-function CPU profiling of the event loop ("profiling.tasks", "show profiling") and
 * the loop's own activity measure (avg_loop_us, the "auto" switch). Each thread records
 * into its own table (no atomics on the measuring side beyond relaxed owner stores);
 * readers sum the threads' tables. Off costs one predictable branch per callback.
 */
#ifndef EVENT_PROFILING_H
#define EVENT_PROFILING_H

#include <stdbool.h>
#include <stdint.h>
#include <event/loop-t.h>
#include <event/inbox.h>

/* The process-wide task profiling mode (HAProxy's names in "show profiling"). */
enum prof_mode {
	PROF_OFF = 0,  /* "off" */
	PROF_AUTO_OFF, /* "auto-off": auto, loop fast enough */
	PROF_AUTO_ON,  /* "auto-on": auto, loop slow: measuring */
	PROF_ON,       /* "on" */
};

#define PROF_SLOTS 256 /* entries per thread; slot 0 is "other" */
#define PROF_HIST 40   /* latency histogram: bucket i counts [2^i, 2^(i+1)) ns */

/* One measured function on one thread. Written by the owner with relaxed stores, read by
 * the CLI thread with relaxed loads. */
struct prof_entry {
	void (*fn)(void); /* the callback (NULL: free slot, or "other" in slot 0) */
	uint64_t calls;
	uint64_t cpu_ns;	  /* monotonic time inside the call, minus nested entries */
	uint64_t lat_ns;	  /* wake-to-run latency, sum */
	uint32_t hist[PROF_HIST]; /* wake-to-run latency, log2 buckets (lat_p99) */
};

/* Measure of one call in progress (on the caller's stack). */
struct prof_mark {
	uint64_t start; /* monotonic ns at the call */
	uint64_t child; /* nested time of the enclosing measure, saved */
	uint64_t lat;	/* wake-to-run latency of this call */
};

/* The calling thread measures (same as th_ctx->prof, one load cheaper for code that
 * has no thread context at hand). Written by prof_loop_sample() only. */
extern __thread bool prof_th_on;

/* Current mode (any thread): PROF_*. */
int prof_mode_get(void);
/* Sets the mode from the config or the CLI (PROF_OFF, PROF_AUTO_OFF or PROF_ON; auto
 * starts off). Turning it on clears every thread's table and starts a new window. */
void prof_mode_set(int mode);
/* Window of the current measure: ns since it started, and ns since it stopped (0 while
 * on). */
uint64_t prof_window_ns(uint64_t *since_stop);

/* Monotonic clock in ns (vDSO). */
uint64_t prof_now_ns(void);

/* The loop's per-turn sampling (every PROF_SAMPLE_TURNS turns, before epoll_wait): the
 * turn's run time feeds avg_loop_us, and the thread's profiling flag follows the mode
 * (auto: on at >= 1000 us, off at <= 990 us). Loop thread only. */
#define PROF_SAMPLE_TURNS 16
void prof_loop_sample(struct thread_ctx *tc);
/* Average loop run time of thread <thr> in us (swrate over 512 samples). Any thread. */
uint64_t prof_avg_loop_us(int thr);

/* Measured calls (loop thread, only while th_ctx->prof is set). prof_dispatch runs a
 * batch of epoll events as the loop does (skipping handlers whose fd is -1). */
struct epoll_event;
void prof_dispatch(const struct epoll_event *evs, int n);
void prof_run_fd(struct fd_handler *h, uint32_t events);
void prof_run_timer(struct timer *t, uint64_t expire_ms);
void prof_run_tasklet(struct tasklet *tl);
void prof_run_inbox(struct inbox_item *it);

/* A measure nested in a measured call (work run inline that has its own name, as the
 * stream's processing inside the mux's I/O callback): its time is charged to <fn> and
 * taken off the enclosing entry. It shares the enclosing call's latency. */
void prof_begin(struct prof_mark *m);
void prof_end(struct prof_mark *m, void (*fn)(void));

/* Names: "fn" is shown as <name> in the outputs (HAProxy's name where one is obvious). */
struct prof_name {
	void (*fn)(void);
	const char *name;
	struct prof_name *next;
};
void prof_name_register(struct prof_name *pn);
#define PROF_NAME(func, str)                                            \
	__attribute__((constructor)) static void prof_name_##func(void) \
	{                                                               \
		static struct prof_name pn;                             \
		pn.fn = (void (*)(void))(func);                         \
		pn.name = (str);                                        \
		prof_name_register(&pn);                                \
	}

/* Writes the name of <fn> (registered name, else the symbol, else "main+0xOFF") into
 * out[0..size). Any thread. */
void prof_fn_name(void (*fn)(void), char *out, size_t size);

/* Copies thread <thr>'s table into out[PROF_SLOTS] (relaxed loads); returns false when
 * that thread never profiled. Any thread. */
bool prof_snapshot(int thr, struct prof_entry *out);

/* Percentile <pct> (0..100) of a latency histogram, in ns (upper edge of its bucket). */
uint64_t prof_hist_pct(const uint32_t *hist, unsigned int pct);

#endif
