/* Unit tests of task profiling: the per-thread table (calls, time, nested measures, the
 * "other" overflow slot), the mode switch and auto thresholds, names, percentiles. */
#include <dlfcn.h>
#include <string.h>
#include <time.h>
#include <base/tinfo.h>
#include <event/loop.h>
#include <event/profiling.h>
#include <event/timer.h>
#include "../test.h"

static int ran;

static void spin_us(unsigned int us)
{
	uint64_t end = prof_now_ns() + (uint64_t)us * 1000;

	while (prof_now_ns() < end)
		;
}

static void inner_fn(void)
{
}

static void work_tasklet(struct tasklet *tl)
{
	struct prof_mark m;

	(void)tl;
	ran++;
	spin_us(200);
	prof_begin(&m); /* nested: 300 us charged to inner_fn, not to this tasklet */
	spin_us(300);
	prof_end(&m, inner_fn);
}

static void work_timer(struct timer *t)
{
	(void)t;
	ran++;
}

PROF_NAME(work_tasklet, "work_tasklet_name")

static const struct prof_entry *find(const struct prof_entry *tab, void (*fn)(void))
{
	for (int i = 1; i < PROF_SLOTS; i++)
		if (tab[i].fn == fn && tab[i].calls)
			return &tab[i];
	return NULL;
}

static struct prof_entry tab[PROF_SLOTS];

TEST(prof_measures_calls_time_and_nesting)
{
	struct tasklet tl;
	const struct prof_entry *e, *in;

	CHECK_INT(loop_init_thread(), 0);
	prof_mode_set(PROF_ON);
	prof_loop_sample(th_ctx);
	CHECK(th_ctx->prof);
	CHECK(prof_th_on);
	ran = 0;
	tasklet_init(&tl, work_tasklet);
	for (int i = 0; i < 3; i++) {
		tasklet_wakeup(&tl);
		CHECK(tl.wake_date != 0);
		tasklets_run();
	}
	CHECK_INT(ran, 3);
	CHECK(prof_snapshot((int)tid, tab));
	e = find(tab, (void (*)(void))work_tasklet);
	in = find(tab, inner_fn);
	CHECK(e && in);
	if (e && in) {
		CHECK_INT((int)e->calls, 3);
		CHECK_INT((int)in->calls, 3);
		/* 3 x 200 us of its own, the nested 3 x 300 us are the inner entry's */
		CHECK(e->cpu_ns >= 600000 && e->cpu_ns < 900000);
		CHECK(in->cpu_ns >= 900000);
		CHECK(in->lat_ns == e->lat_ns); /* the nested measure shares the latency */
	}
	prof_mode_set(PROF_OFF);
	prof_loop_sample(th_ctx);
	CHECK(!th_ctx->prof);
	tasklet_wakeup(&tl);
	CHECK(tl.wake_date == 0);
	tasklets_run();
	CHECK(prof_snapshot((int)tid, tab));
	e = find(tab, (void (*)(void))work_tasklet);
	CHECK(e && e->calls == 3); /* not measured while off, table kept for reading */
	loop_deinit_thread();
}

TEST(prof_timer_latency_and_restart_clears)
{
	struct timer t = { .cb = work_timer };
	const struct prof_entry *e;

	CHECK_INT(loop_init_thread(), 0);
	prof_mode_set(PROF_ON); /* a new window: the table is cleared on the next sample */
	prof_loop_sample(th_ctx);
	CHECK(prof_snapshot((int)tid, tab));
	CHECK(!find(tab, (void (*)(void))work_tasklet));
	clock_update();
	timer_set(&t, th_ctx->now_ms - 5); /* due 5 ms ago */
	ran = 0;
	timer_run();
	CHECK_INT(ran, 1);
	CHECK(prof_snapshot((int)tid, tab));
	e = find(tab, (void (*)(void))work_timer);
	CHECK(e != NULL);
	if (e) {
		CHECK_INT((int)e->calls, 1);
		CHECK(e->lat_ns >= 4000000); /* late by about 5 ms */
	}
	prof_mode_set(PROF_OFF);
	prof_loop_sample(th_ctx);
	loop_deinit_thread();
}

TEST(prof_auto_thresholds)
{
	CHECK_INT(loop_init_thread(), 0);
	prof_mode_set(PROF_AUTO_ON);
	/* fast turns: the average stays low, nothing is measured */
	for (int i = 0; i < 8; i++) {
		clock_update();
		prof_loop_sample(th_ctx);
	}
	CHECK(!th_ctx->prof);
	CHECK_INT(prof_mode_get(), PROF_AUTO_ON);
	/* turns of 1.5 s: one sample brings the 512-sample average over 1 ms */
	clock_update();
	th_ctx->now_ns -= 1500000000ULL;
	prof_loop_sample(th_ctx);
	CHECK(prof_avg_loop_us((int)tid) >= 1000);
	CHECK(th_ctx->prof);
	/* fast turns again: the average decays below 990 us and measuring stops */
	for (int i = 0; i < 20000 && th_ctx->prof; i++) {
		clock_update();
		prof_loop_sample(th_ctx);
	}
	CHECK(!th_ctx->prof);
	CHECK(prof_avg_loop_us((int)tid) <= 990);
	prof_mode_set(PROF_OFF);
	prof_loop_sample(th_ctx);
	loop_deinit_thread();
}

TEST(prof_names_and_percentiles)
{
	char name[64];
	uint32_t hist[PROF_HIST] = { 0 };
	Dl_info di;

	prof_fn_name((void (*)(void))work_tasklet, name, sizeof(name));
	CHECK_STR(name, "work_tasklet_name");
	prof_fn_name((void (*)(void))clock_gettime, name, sizeof(name));
	if (dladdr((void *)clock_gettime, &di) && di.dli_sname) /* a shared library's symbol */
		CHECK_STR(name, "clock_gettime");
	else /* a static build (the arm64 check under qemu): no symbol table to ask */
		CHECK(name[0] == '0' && name[1] == 'x' && strlen(name) > 2);
	CHECK(prof_hist_pct(hist, 99) == 0);
	hist[3] = 98; /* [8, 16) ns */
	hist[10] = 2; /* [1024, 2048) ns */
	CHECK(prof_hist_pct(hist, 50) == 16);
	CHECK(prof_hist_pct(hist, 98) == 16);
	CHECK(prof_hist_pct(hist, 99) == 2048);
	CHECK(prof_hist_pct(hist, 100) == 2048);
}
