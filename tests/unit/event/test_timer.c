/* Unit tests of the lazy timer heap: order of expiry, moving deadlines later without
 * firing early, disarming, and many timers. */
#include <event/loop.h>
#include <event/timer.h>
#include "../test.h"

static int nfired, ncount;
static struct timer tm[64];
static int order[64];

static void rec(struct timer *t)
{
	order[nfired++] = (int)(t - tm);
}

static void count(struct timer *t)
{
	(void)t;
	ncount++;
}

TEST(timer_fire_in_order)
{
	CHECK_INT(loop_init_thread(), 0);
	nfired = 0;
	th_ctx->now_ms = 1000;
	for (int i = 0; i < 5; i++) {
		tm[i] = (struct timer){ .cb = rec };
		timer_set(&tm[i], 1000 + (uint64_t)(50 - i * 10));
	}
	th_ctx->now_ms = 1100;
	CHECK_INT(timer_run(), -1);
	CHECK_INT(nfired, 5);
	for (int i = 0; i < 5; i++)
		CHECK_INT(order[i], 4 - i);
	loop_deinit_thread();
}

TEST(timer_moved_later_is_lazy)
{
	CHECK_INT(loop_init_thread(), 0);
	nfired = 0;
	th_ctx->now_ms = 0;
	tm[0] = (struct timer){ .cb = rec };
	timer_set(&tm[0], 100);
	timer_set(&tm[0], 500); /* later: heap untouched */
	th_ctx->now_ms = 200;
	CHECK_INT(timer_run(), 300); /* re-queued at 500 */
	CHECK_INT(nfired, 0);
	th_ctx->now_ms = 500;
	timer_run();
	CHECK_INT(nfired, 1);
	loop_deinit_thread();
}

TEST(timer_moved_earlier_and_disarmed)
{
	CHECK_INT(loop_init_thread(), 0);
	nfired = 0;
	th_ctx->now_ms = 0;
	tm[0] = (struct timer){ .cb = rec };
	tm[1] = (struct timer){ .cb = rec };
	timer_set(&tm[0], 500);
	timer_set(&tm[0], 100);
	timer_set(&tm[1], 50);
	timer_set(&tm[1], 0); /* disarmed */
	th_ctx->now_ms = 100;
	timer_run();
	CHECK_INT(nfired, 1);
	CHECK_INT(order[0], 0);
	timer_set(&tm[1], 150);
	timer_del(&tm[1]);
	th_ctx->now_ms = 1000;
	CHECK_INT(timer_run(), -1);
	CHECK_INT(nfired, 1);
	loop_deinit_thread();
}

TEST(timer_many_random)
{
	uint32_t seed = 12345;
	static struct timer big[1000];

	CHECK_INT(loop_init_thread(), 0);
	th_ctx->now_ms = 0;
	for (int i = 0; i < 1000; i++) {
		seed = seed * 1103515245 + 12345;
		big[i] = (struct timer){ .cb = count };
		timer_set(&big[i], 1 + (seed >> 16) % 10000);
	}
	ncount = 0;
	for (uint64_t now = 0; now <= 10006; now += 7) {
		th_ctx->now_ms = now;
		timer_run();
	}
	CHECK_INT(ncount, 1000);
	for (int i = 0; i < 1000; i++)
		CHECK(big[i].expire == 0 && big[i].queued == 0);
	loop_deinit_thread();
}
