/* Task profiling: the mode (off, auto, on), each thread's table of measured callbacks
 * (calls, time in the call, wake-to-run latency and its histogram), the loop's average
 * run time that drives the "auto" mode, and the names shown for the callbacks. The
 * outputs ("show profiling", "show tasks") are in stats/show_profiling.c.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/epoll.h>
#include <base/atomic.h>
#include <base/compiler.h>
#include <base/tinfo.h>
#include <event/loop.h>
#include <event/profiling.h>

#define PROF_PROBES 16	 /* slots tried before falling back to "other" */
#define LOOP_SAMPLES 512 /* swrate window of avg_loop_us */
#define AUTO_UP_US 1000	 /* auto: a thread starts measuring at this loop time */
#define AUTO_DOWN_US 990 /* ... and stops at this one */

/* One thread's profiling state. Written by its thread only; <e> is read by the CLI
 * thread (relaxed loads), the rest is private. */
struct prof_thread {
	struct prof_entry e[PROF_SLOTS];
	uint32_t gen;	  /* prof_gen this table was last cleared for */
	uint64_t child;	  /* time of nested measures inside the current one */
	uint64_t cur_lat; /* latency of the outermost call being measured */
};

/* Mode and window: written by the config and the CLI, read by every loop (relaxed: a
 * thread picking the change up a few turns late is harmless). */
static int prof_mode = PROF_AUTO_OFF; /* HAProxy's default */
static uint32_t prof_gen;	      /* bumped when measuring restarts: tables are cleared */
static uint64_t prof_start_ns, prof_stop_ns;

/* Published once by their thread (release store), never freed before exit. */
static struct prof_thread *prof_th[MAX_THREADS];

/* avg_loop_us of each thread: swrate sum, written by its thread, read by "show activity" */
static struct {
	uint64_t sum;
} ALIGNED_CL loop_avg[MAX_THREADS];

static __thread struct prof_thread *prof_self;
__thread bool prof_th_on;

uint64_t prof_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

int prof_mode_get(void)
{
	return HA_ATOMIC_LOAD_RLX(&prof_mode);
}

void prof_mode_set(int mode)
{
	int old = HA_ATOMIC_LOAD_RLX(&prof_mode);
	bool was_on = old == PROF_ON || old == PROF_AUTO_ON;
	bool on = mode == PROF_ON || mode == PROF_AUTO_ON;

	if (mode == PROF_ON) {
		/* a new window: each thread clears its table on its next sample */
		HA_ATOMIC_STORE_RLX(&prof_start_ns, prof_now_ns());
		HA_ATOMIC_STORE_RLX(&prof_stop_ns, 0);
		HA_ATOMIC_INC(&prof_gen);
	} else if (was_on && !on) {
		HA_ATOMIC_STORE_RLX(&prof_stop_ns, prof_now_ns());
	} else if (!HA_ATOMIC_LOAD_RLX(&prof_start_ns)) {
		HA_ATOMIC_STORE_RLX(&prof_start_ns, prof_now_ns());
	}
	HA_ATOMIC_STORE_RLX(&prof_mode, mode);
	if (th_ctx)
		th_ctx->act_cnt = 1; /* the calling thread follows on its next turn */
}

uint64_t prof_window_ns(uint64_t *since_stop)
{
	uint64_t start = HA_ATOMIC_LOAD_RLX(&prof_start_ns);
	uint64_t stop = HA_ATOMIC_LOAD_RLX(&prof_stop_ns);
	uint64_t now = prof_now_ns();

	*since_stop = stop ? now - stop : 0;
	if (!start)
		return 0;
	return (stop ? stop : now) - start;
}

uint64_t prof_avg_loop_us(int thr)
{
	uint64_t sum = HA_ATOMIC_LOAD_RLX(&loop_avg[thr].sum);

	return (sum + LOOP_SAMPLES - 1) / LOOP_SAMPLES;
}

/* Clears the calling thread's table field by field (the CLI thread may be reading it). */
static void prof_clear(struct prof_thread *pt)
{
	for (int i = 0; i < PROF_SLOTS; i++) {
		struct prof_entry *e = &pt->e[i];

		HA_ATOMIC_STORE_RLX(&e->fn, NULL);
		HA_ATOMIC_STORE_RLX(&e->calls, 0);
		HA_ATOMIC_STORE_RLX(&e->cpu_ns, 0);
		HA_ATOMIC_STORE_RLX(&e->lat_ns, 0);
		for (int b = 0; b < PROF_HIST; b++)
			HA_ATOMIC_STORE_RLX(&e->hist[b], 0);
	}
}

/* The calling thread's table, allocated on first use; NULL when out of memory. */
static struct prof_thread *prof_thread_get(void)
{
	struct prof_thread *pt = prof_self;

	if (likely(pt))
		return pt;
	pt = aligned_alloc(CACHELINE, (sizeof(*pt) + CACHELINE - 1) / CACHELINE * CACHELINE);
	if (!pt)
		return NULL;
	memset(pt, 0, sizeof(*pt));
	pt->gen = HA_ATOMIC_LOAD_RLX(&prof_gen);
	prof_self = pt;
	HA_ATOMIC_STORE(&prof_th[tid], pt);
	return pt;
}

void prof_loop_sample(struct thread_ctx *tc)
{
	uint64_t now = prof_now_ns();
	uint64_t run_us = now > tc->now_ns ? (now - tc->now_ns) / 1000 : 0;
	uint64_t sum = loop_avg[tid].sum;
	uint64_t avg;
	int mode = HA_ATOMIC_LOAD_RLX(&prof_mode);
	bool want = tc->prof;

	tc->act_cnt = PROF_SAMPLE_TURNS;
	sum = sum + run_us - (sum + LOOP_SAMPLES - 1) / LOOP_SAMPLES;
	HA_ATOMIC_STORE_RLX(&loop_avg[tid].sum, sum);
	avg = (sum + LOOP_SAMPLES - 1) / LOOP_SAMPLES;
	if (mode == PROF_ON)
		want = true;
	else if (mode == PROF_OFF)
		want = false;
	else if (avg >= AUTO_UP_US)
		want = true;
	else if (avg <= AUTO_DOWN_US)
		want = false;
	if (want) {
		struct prof_thread *pt = prof_thread_get();
		uint32_t gen = HA_ATOMIC_LOAD_RLX(&prof_gen);

		if (!pt)
			want = false;
		else if (pt->gen != gen) {
			prof_clear(pt);
			pt->gen = gen;
		}
	}
	tc->prof = want;
	prof_th_on = want;
}

/* Slot of <fn> in <pt>: its own, a free one claimed for it, or 0 ("other"). */
static struct prof_entry *prof_entry_get(struct prof_thread *pt, void (*fn)(void))
{
	uint64_t h = (uint64_t)(uintptr_t)fn * 0x9E3779B97F4A7C15ULL;
	unsigned int slot = (unsigned int)(h >> 56);

	for (int i = 0; i < PROF_PROBES; i++, slot = (slot + 1) % PROF_SLOTS) {
		struct prof_entry *e;

		if (!slot)
			continue;
		e = &pt->e[slot];
		if (e->fn == fn)
			return e;
		if (!e->fn) {
			HA_ATOMIC_STORE_RLX(&e->fn, fn);
			return e;
		}
	}
	return &pt->e[0];
}

static unsigned int prof_hist_bucket(uint64_t ns)
{
	unsigned int b = ns ? 63 - (unsigned int)__builtin_clzll(ns) : 0;

	return b < PROF_HIST ? b : PROF_HIST - 1;
}

static void prof_account(struct prof_thread *pt, void (*fn)(void), uint64_t cpu, uint64_t lat)
{
	struct prof_entry *e = prof_entry_get(pt, fn);

	HA_OWNER_INC(&e->calls);
	HA_OWNER_ADD(&e->cpu_ns, cpu);
	HA_OWNER_ADD(&e->lat_ns, lat);
	HA_OWNER_INC(&e->hist[prof_hist_bucket(lat)]);
}

void prof_begin(struct prof_mark *m)
{
	struct prof_thread *pt = prof_self;

	m->start = prof_now_ns();
	m->child = pt->child;
	m->lat = pt->cur_lat;
	pt->child = 0;
}

void prof_end(struct prof_mark *m, void (*fn)(void))
{
	struct prof_thread *pt = prof_self;
	uint64_t total = prof_now_ns() - m->start;
	uint64_t self = total > pt->child ? total - pt->child : 0;

	prof_account(pt, fn, self, m->lat);
	pt->child = m->child + total;
}

/* Starts an outermost measure whose wake date is <wake> (0: unknown latency). */
static void prof_begin_outer(struct prof_mark *m, uint64_t wake)
{
	struct prof_thread *pt = prof_self;

	m->start = prof_now_ns();
	m->child = 0;
	m->lat = wake && m->start > wake ? m->start - wake : 0;
	pt->child = 0;
	pt->cur_lat = m->lat;
}

void prof_run_fd(struct fd_handler *h, uint32_t events)
{
	void (*iocb)(struct fd_handler *, uint32_t) = h->iocb;
	struct prof_mark m;

	prof_begin_outer(&m, th_ctx->now_ns); /* ready since epoll_wait returned */
	iocb(h, events);
	prof_end(&m, (void (*)(void))iocb);
}

void prof_dispatch(const struct epoll_event *evs, int n)
{
	for (int i = 0; i < n; i++) {
		struct fd_handler *h = evs[i].data.ptr;

		if (likely(h->fd >= 0))
			prof_run_fd(h, evs[i].events);
	}
}

void prof_run_timer(struct timer *t, uint64_t expire_ms)
{
	void (*cb)(struct timer *) = t->cb;
	struct prof_mark m;

	prof_begin_outer(&m, expire_ms * 1000000); /* due since its deadline */
	cb(t);
	prof_end(&m, (void (*)(void))cb);
}

void prof_run_tasklet(struct tasklet *tl)
{
	void (*process)(struct tasklet *) = tl->process;
	struct prof_mark m;

	prof_begin_outer(&m, tl->wake_date);
	tl->wake_date = 0;
	process(tl);
	prof_end(&m, (void (*)(void))process);
}

void prof_run_inbox(struct inbox_item *it)
{
	void (*fn)(struct inbox_item *) = it->fn;
	struct prof_mark m;

	prof_begin(&m); /* nested in the inbox's fd callback */
	fn(it);
	prof_end(&m, (void (*)(void))fn);
}

bool prof_snapshot(int thr, struct prof_entry *out)
{
	struct prof_thread *pt = HA_ATOMIC_LOAD(&prof_th[thr]);

	if (!pt)
		return false;
	for (int i = 0; i < PROF_SLOTS; i++) {
		const struct prof_entry *e = &pt->e[i];

		out[i].fn = HA_ATOMIC_LOAD_RLX(&e->fn);
		out[i].calls = HA_ATOMIC_LOAD_RLX(&e->calls);
		out[i].cpu_ns = HA_ATOMIC_LOAD_RLX(&e->cpu_ns);
		out[i].lat_ns = HA_ATOMIC_LOAD_RLX(&e->lat_ns);
		for (int b = 0; b < PROF_HIST; b++)
			out[i].hist[b] = HA_ATOMIC_LOAD_RLX(&e->hist[b]);
	}
	return true;
}

uint64_t prof_hist_pct(const uint32_t *hist, unsigned int pct)
{
	uint64_t total = 0, need, seen = 0;

	for (int b = 0; b < PROF_HIST; b++)
		total += hist[b];
	if (!total)
		return 0;
	need = (total * pct + 99) / 100;
	for (int b = 0; b < PROF_HIST; b++) {
		seen += hist[b];
		if (seen >= need && hist[b])
			return b ? 2ULL << b : 1; /* upper edge of [2^b, 2^(b+1)) */
	}
	return 2ULL << (PROF_HIST - 1);
}

/* Registered names: built by constructors before main(), read-only afterwards. */
static struct prof_name *prof_names;

void prof_name_register(struct prof_name *pn)
{
	pn->next = prof_names;
	prof_names = pn;
}

void prof_fn_name(void (*fn)(void), char *out, size_t size)
{
	void *addr;
	Dl_info di;

	for (const struct prof_name *pn = prof_names; pn; pn = pn->next) {
		if (pn->fn == fn) {
			snprintf(out, size, "%s", pn->name);
			return;
		}
	}
	memcpy(&addr, &fn, sizeof(addr)); /* POSIX: function pointers fit in void * */
	if (dladdr(addr, &di) && di.dli_sname && di.dli_saddr) {
		uintptr_t off = (uintptr_t)addr - (uintptr_t)di.dli_saddr;

		if (off)
			snprintf(out, size, "%s+%#lx", di.dli_sname, (unsigned long)off);
		else
			snprintf(out, size, "%s", di.dli_sname);
		return;
	}
	if (dladdr(addr, &di) && di.dli_fbase) /* a static function: as HAProxy prints them */
		snprintf(out, size, "main+%#lx",
			 (unsigned long)((uintptr_t)addr - (uintptr_t)di.dli_fbase));
	else
		snprintf(out, size, "%p", addr);
}
