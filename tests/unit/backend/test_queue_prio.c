/* Unit tests of the queue order with priorities (backend.c): with one slot, queued streams
 * are woken by class, then by queue date plus offset, the default ones in arrival order
 * among them; a stream leaving the queue early takes nothing with it; a woken stream that
 * goes back keeps its place; with two groups the rotation's turn takes the best head;
 * 2,000 streams with scattered offsets keep the tree of prioritised streams shallow. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <backend/backend.h>
#include <backend/server.h>
#include <base/rbtree.h>
#include <base/tinfo.h>
#include <event/inbox.h>
#include <event/loop.h>
#include <proxy/proxy.h>
#include <stats/counters.h>
#include <stream/stream-t.h>
#include "../test.h"
#include "queue_fixture.h"

#define NST  21
#define NBIG 2001

static struct proxy qp_px;
static struct server qp_srv;
static struct stream *qp_st;
static int qp_order[NBIG], qp_norder;
static struct stream *qp_holder;
static struct stream *qp_thief; /* takes the slot before a woken stream (once) */

/* A dequeued stream on its thread: takes the released slot, unless the thief is quicker,
 * in which case it goes back to the queue (front_of_queue). */
static void qp_wake(struct inbox_item *it)
{
	struct stream *s = container_of(it, struct stream, wake);

	backend_woken(s);
	if (qp_thief) {
		CHECK(backend_take_server(qp_thief, &qp_srv));
		qp_holder = qp_thief;
		qp_thief = NULL;
		CHECK_INT(backend_assign(s, NULL, true), ASSIGN_QUEUED);
		return;
	}
	qp_order[qp_norder++] = (int)(s - qp_st);
	CHECK_INT(backend_assign(s, NULL, true), ASSIGN_OK);
	qp_holder = s;
}

static void qp_setup_n(int ngroups, int nst)
{
	qp_st = queue_fixture_setup(&qp_px, &qp_srv, ngroups, nst, qp_wake);
	th_ctx->now_ms = 100000;
	tgid = 1;
	CHECK_INT(backend_assign(&qp_st[0], NULL, false), ASSIGN_OK);
	qp_holder = &qp_st[0];
	qp_norder = 0;
	qp_thief = NULL;
}

static void qp_setup(int ngroups)
{
	qp_setup_n(ngroups, NST);
}

/* Stream <i> enters the queue at <date> from group <g> with a class and an offset. */
static void qp_queue(int i, uint64_t date, int g, int cls, int off)
{
	th_ctx->now_ms = date;
	tgid = (unsigned int)g;
	qp_st[i].prio_class = (int16_t)cls;
	qp_st[i].prio_offset = off;
	CHECK_INT(backend_assign(&qp_st[i], NULL, false), ASSIGN_QUEUED);
}

/* Releases the slot <n> times from group 1; each release wakes exactly one stream. */
static void qp_release(int n)
{
	tgid = 1;
	for (int k = 0; k < n; k++) {
		backend_release_slot(qp_holder);
		CHECK_INT(inbox_drain(), 1);
	}
}

static void qp_teardown(void)
{
	backend_release_slot(qp_holder);
	CHECK_INT(qp_srv.cur_conns, 0);
	CHECK_INT(qp_px.nb_queued, 0);
	queue_fixture_teardown(&qp_px, &qp_srv, qp_st);
}

static void qp_check_order(const int *want, int n)
{
	CHECK_INT(qp_norder, n);
	for (int k = 0; k < n && k < qp_norder; k++)
		if (qp_order[k] != want[k])
			test_fail(__FILE__, __LINE__, "woken #%d: stream %d, expected %d", k,
				  qp_order[k], want[k]);
}

TEST(queue_prio_class_then_date_plus_offset)
{
	struct proxy *saved = proxies;
	/* stream: date, class, offset -> key (class, date + offset) */
	static const int plan[][3] = {
		{ 1000, 0, 0 },	    /* 1: (0, 1000) */
		{ 1010, 5, 0 },	    /* 2: (5, 1010) */
		{ 1020, 0, 5000 },  /* 3: (0, 6020) */
		{ 1030, 0, 0 },	    /* 4: (0, 1030) */
		{ 1040, -1, 9000 }, /* 5: (-1, 10040) */
		{ 1050, 0, -45 },   /* 6: (0, 1005) */
		{ 1060, 0, 0 },	    /* 7: (0, 1060) */
		{ 1070, 5, -100 },  /* 8: (5, 970) */
		{ 1080, 0, -50 },   /* 9: (0, 1030): the same key as 4, which came first */
		{ 1090, -1, 9000 }, /* 10: (-1, 10090) */
		{ 1100, 0, 0 },	    /* 11: (0, 1100) */
	};
	static const int want[] = { 5, 10, 1, 6, 4, 9, 7, 11, 3, 8, 2 };

	proxies = &qp_px;
	qp_setup(1);
	for (int i = 1; i <= 11; i++)
		qp_queue(i, 100000 + (uint64_t)plan[i - 1][0], 1, plan[i - 1][1], plan[i - 1][2]);
	CHECK_INT(qp_px.queues[0].len, 11);
	qp_release(11);
	qp_check_order(want, 11);
	qp_teardown();
	proxies = saved;
}

TEST(queue_prio_leaving_and_going_back)
{
	struct proxy *saved = proxies;
	static const int want[] = { 3, 1, 5 };

	proxies = &qp_px;
	qp_setup(1);
	qp_queue(1, 100000, 1, 0, 0);
	qp_queue(2, 100001, 1, -2, 0);
	qp_queue(3, 100002, 1, -1, 0);
	qp_queue(4, 100003, 1, 0, 0);
	qp_queue(5, 100004, 1, 0, 0);
	/* 2 (the head, prioritised) and 4 (a default one) leave: timeout or abort */
	CHECK_INT(backend_unqueue(&qp_st[2]), Q_QUEUED);
	CHECK_INT(backend_unqueue(&qp_st[4]), Q_QUEUED);
	CHECK_INT(backend_unqueue(&qp_st[4]), Q_NONE);
	CHECK(qp_px.queues[0].head_key == qp_st[3].queue_key);
	/* 3 is woken but the slot is taken before it runs: it goes back, still first */
	qp_thief = &qp_st[6];
	qp_release(1);
	CHECK_INT(qp_norder, 0);
	CHECK_INT(qp_st[3].queue_state, Q_QUEUED);
	qp_release(3);
	qp_check_order(want, 3);
	CHECK(qp_px.queues[0].head_key == QKEY_NONE);
	qp_teardown();
	proxies = saved;
}

TEST(queue_prio_rotation_turn_takes_the_best_head)
{
	struct proxy *saved = proxies;

	proxies = &qp_px;
	qp_setup(3);
	/* group 2: default streams, the oldest; group 3: a better class. The releases come
	 * from group 1, whose queue is empty: each one is the rotation's turn, which takes
	 * the best head of all, whichever group it visits first (it changes every eighth
	 * release: more than eight streams of group 3 make both orders of visit happen) */
	for (int i = 1; i <= 10; i++)
		qp_queue(i, 100000 + (uint64_t)i, 2, 0, 0);
	for (int i = 11; i <= 20; i++)
		qp_queue(i, 100100 + (uint64_t)i, 3, -1, 0);
	qp_release(20);
	CHECK_INT(qp_norder, 20);
	for (int k = 0; k < qp_norder; k++) /* 11..20, then 1..10: each group in order */
		if (qp_order[k] != (k < 10 ? 11 + k : k - 9))
			test_fail(__FILE__, __LINE__, "woken #%d: stream %d", k, qp_order[k]);
	qp_teardown();
	proxies = saved;
}

static uint64_t qp_rng = 0x9e3779b97f4a7c15ULL;

static unsigned int qp_rand(unsigned int n)
{
	qp_rng ^= qp_rng << 13;
	qp_rng ^= qp_rng >> 7;
	qp_rng ^= qp_rng << 17;
	return (unsigned int)(qp_rng % n);
}

static int qp_big_plan[NBIG][3]; /* class, offset, still queued */

/* Expected order: class, then date (100000 + i) plus offset, then arrival. */
static int qp_big_cmp(const void *a, const void *b)
{
	int i = *(const int *)a, j = *(const int *)b;
	int64_t ki = 100000 + i + qp_big_plan[i][1], kj = 100000 + j + qp_big_plan[j][1];

	if (qp_big_plan[i][0] != qp_big_plan[j][0])
		return qp_big_plan[i][0] < qp_big_plan[j][0] ? -1 : 1;
	if (ki != kj)
		return ki < kj ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* What a client choosing its offset (set-priority-offset from a header) does: 2,000
 * streams, most with scattered offsets, a few with a class or none, some leaving early.
 * Each placement descends the tree once, so its depth bounds the steps under the lock. */
TEST(queue_prio_many_scattered_offsets)
{
	struct proxy *saved = proxies;
	static int want[NBIG];
	const struct rb_tree *t;
	int n = NBIG - 1, nwant = 0, depth;

	proxies = &qp_px;
	qp_setup_n(1, NBIG);
	t = &qp_px.queues[0].prio; /* allocated by the setup */
	for (int i = 1; i <= n; i++) {
		int r = (int)qp_rand(10);

		qp_big_plan[i][0] = r == 0 ? (int)qp_rand(5) - 2 : 0;
		qp_big_plan[i][1] = r == 1 ? 0 : (int)qp_rand(20001) - 10000;
		qp_big_plan[i][2] = 1;
		qp_queue(i, 100000 + (uint64_t)i, 1, qp_big_plan[i][0], qp_big_plan[i][1]);
	}
	depth = rb_check(t);
	CHECK(depth > 0 && depth <= 2 * log2(n + 1));
	/* a quarter leave early (abort, timeout queue) from anywhere in the queue */
	for (int i = 1; i <= n; i += 4) {
		CHECK_INT(backend_unqueue(&qp_st[i]), Q_QUEUED);
		qp_big_plan[i][2] = 0;
	}
	CHECK(rb_check(t) >= 0);
	CHECK_INT(qp_px.queues[0].len, n - (n + 3) / 4);
	for (int i = 1; i <= n; i++)
		if (qp_big_plan[i][2])
			want[nwant++] = i;
	qsort(want, (size_t)nwant, sizeof(*want), qp_big_cmp);
	qp_release(nwant);
	qp_check_order(want, nwant);
	CHECK(rb_empty(t) && rb_check(t) == 0);
	CHECK(qp_px.queues[0].head_key == QKEY_NONE);
	qp_teardown();
	proxies = saved;
}
