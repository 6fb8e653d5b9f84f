/* Unit tests of leastconn and random(N): load per weight, rotation among equals, full and
 * disabled servers, backups, and the spread of weighted draws. */
#include <string.h>
#include <backend/backend.h>
#include <backend/server.h>
#include "../test.h"

static struct server srv[4];
static struct proxy px;
static struct srv_per_thread pt[4][MAX_THREADS];

static void setup(const int *weights, int n)
{
	memset(srv, 0, sizeof(srv));
	memset(&px, 0, sizeof(px));
	memset(pt, 0, sizeof(pt));
	for (int i = 0; i < n; i++) {
		srv[i].weight = weights[i];
		srv[i].per_thr = pt[i];
		srv[i].next = i + 1 < n ? &srv[i + 1] : NULL;
	}
	px.srv = &srv[0];
	px.lb_draws = 2;
}

TEST(lb_lc_picks_least_loaded)
{
	int w[] = { 1, 1, 1 };
	bool full;

	setup(w, 3);
	srv[0].cur_conns = 5;
	srv[1].cur_conns = 2;
	srv[2].cur_conns = 7;
	CHECK(lb_lc_pick(&px, NULL, &full) == &srv[1]);
}

TEST(lb_lc_load_is_per_weight)
{
	int w[] = { 1, 4 };
	bool full;

	setup(w, 2);
	srv[0].cur_conns = 1; /* (1+1)/1 = 2 */
	srv[1].cur_conns = 4; /* (4+1)/4 = 1.25 */
	CHECK(lb_lc_pick(&px, NULL, &full) == &srv[1]);
}

TEST(lb_lc_equal_loads_take_turns)
{
	int w[] = { 1, 1, 1 }, counts[3] = { 0 };
	bool full;

	setup(w, 3);
	for (int i = 0; i < 30; i++)
		counts[lb_lc_pick(&px, NULL, &full) - srv]++;
	CHECK_INT(counts[0], 10);
	CHECK_INT(counts[1], 10);
	CHECK_INT(counts[2], 10);
}

TEST(lb_lc_full_disabled_and_backup)
{
	int w[] = { 1, 1, 1 };
	bool full;

	setup(w, 3);
	srv[0].maxconn = 1;
	srv[0].cur_conns = 1;
	srv[1].flags |= SRV_F_DISABLED;
	srv[2].flags |= SRV_F_BACKUP;
	CHECK(lb_lc_pick(&px, NULL, &full) == NULL); /* active exists but is full: queue */
	CHECK(full);
	srv[0].flags |= SRV_F_DISABLED;
	CHECK(lb_lc_pick(&px, NULL, &full) == &srv[2]);
}

TEST(lb_rand_spread_follows_weights)
{
	int w[] = { 1, 3 }, counts[2] = { 0 };
	bool full;

	setup(w, 2);
	px.lb_draws = 1; /* pure weighted draws */
	for (int i = 0; i < 4000; i++)
		counts[lb_rand_pick(&px, NULL, &full) - srv]++;
	CHECK(counts[0] > 800 && counts[0] < 1200);
	CHECK(counts[1] > 2800 && counts[1] < 3200);
}

TEST(lb_rand_two_draws_prefers_less_loaded)
{
	int w[] = { 1, 1 }, counts[2] = { 0 };
	bool full;

	setup(w, 2);
	srv[0].cur_conns = 10;
	for (int i = 0; i < 1000; i++)
		counts[lb_rand_pick(&px, NULL, &full) - srv]++;
	/* srv[0] wins only when both draws hit it: about a quarter of the time */
	CHECK(counts[0] > 150 && counts[0] < 350);
}

TEST(lb_rand_none_usable)
{
	int w[] = { 0, 1 };
	bool full = true;

	setup(w, 2);
	srv[1].flags |= SRV_F_DISABLED;
	CHECK(lb_rand_pick(&px, NULL, &full) == NULL);
	CHECK(!full);
}
