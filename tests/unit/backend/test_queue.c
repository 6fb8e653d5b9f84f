/* Unit tests of the backend's per-group queues (backend.c): with one slot, streams queued
 * in one group are woken in arrival order, a released slot serves the releasing group
 * first and still reaches the other group's streams within a bounded number of releases,
 * and every queued stream is served exactly once. */
#include <stdlib.h>
#include <string.h>
#include <backend/backend.h>
#include <backend/server.h>
#include <base/tinfo.h>
#include <event/inbox.h>
#include <event/loop.h>
#include <proxy/proxy.h>
#include <stats/counters.h>
#include <stream/stream-t.h>
#include "../test.h"
#include "queue_fixture.h"

#define G1 20 /* streams queued by group 1 */
#define G2 2  /* and by group 2 */
#define NST (1 + G1 + G2)

static struct stream *st;
static int order[NST], norder;
static struct stream *holder;

/* A dequeued stream, on its thread: it takes the released slot. */
static void on_wake(struct inbox_item *it)
{
	struct stream *s = container_of(it, struct stream, wake);

	backend_woken(s);
	order[norder++] = (int)(s - st);
	CHECK_INT(backend_assign(s, NULL, true), ASSIGN_OK);
	holder = s;
}

TEST(backend_queue_fifo_per_group_and_other_groups_served)
{
	static struct proxy px;
	static struct server srv;
	struct proxy *saved = proxies;
	int first_g2 = -1, prev1 = 0, prev2 = 0;

	proxies = &px;
	st = queue_fixture_setup(&px, &srv, 2, NST, on_wake);
	if (!st)
		return;
	tgid = 1;
	CHECK_INT(backend_assign(&st[0], NULL, false), ASSIGN_OK);
	holder = &st[0];
	for (int i = 1; i < NST; i++) { /* G1 from group 1, then G2 from group 2 */
		tgid = i <= G1 ? 1 : 2;
		CHECK_INT(backend_assign(&st[i], NULL, false), ASSIGN_QUEUED);
		CHECK_INT(st[i].queue_grp, (int)tgid - 1);
	}
	tgid = 1; /* the releases happen in group 1 */
	norder = 0;
	for (int k = 0; k < NST - 1; k++) {
		struct stream *s = holder;

		backend_release_slot(s);
		CHECK_INT(inbox_drain(), 1); /* exactly one stream woken per released slot */
		CHECK(holder != s);
	}
	CHECK_INT(norder, NST - 1);
	for (int k = 0; k < norder; k++) { /* each group's streams in arrival order */
		int i = order[k];

		if (i <= G1) {
			CHECK(i > prev1);
			prev1 = i;
		} else {
			CHECK(i > prev2);
			prev2 = i;
			if (first_g2 < 0)
				first_g2 = k;
		}
	}
	/* the other group is served while this one still has streams waiting: the 8th or
	 * 16th release at the latest with two groups, not after group 1 is empty */
	CHECK(first_g2 >= 0 && first_g2 < 16);
	backend_release_slot(holder);
	CHECK_INT(srv.cur_conns, 0);
	queue_fixture_teardown(&px, &srv, st);
	proxies = saved;
}
