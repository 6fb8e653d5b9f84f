/* Unit tests of the smooth weighted round-robin: exact shares over a cycle, interleaving,
 * weight 0, disabled servers, backups, maxconn-full servers and the "avoid" rule.
 */
#include <string.h>
#include <backend/backend.h>
#include <backend/server.h>
#include "../test.h"

static struct server srv[5];
static struct proxy px;
static struct srv_per_thread pt[5][MAX_THREADS];

static void setup(const int *weights, int n)
{
	lb_rr_free(&px);
	memset(srv, 0, sizeof(srv));
	memset(&px, 0, sizeof(px));
	memset(pt, 0, sizeof(pt));
	for (int i = 0; i < n; i++) {
		srv[i].weight = weights[i];
		srv[i].per_thr = pt[i];
		srv[i].px = &px;
		srv[i].next = i + 1 < n ? &srv[i + 1] : NULL;
	}
	px.srv = &srv[0];
	CHECK_INT(lb_rr_build(&px), 0);
}

static void pick_n(int n, int *counts)
{
	bool full;

	for (int i = 0; i < n; i++) {
		struct server *s = lb_rr_pick(&px, NULL, &full);

		if (s)
			counts[s - srv]++;
	}
}

TEST(lb_rr_equal_weights_alternate)
{
	int w[] = { 1, 1, 1 };
	bool full;

	setup(w, 3);
	for (int i = 0; i < 9; i++)
		CHECK_INT(lb_rr_pick(&px, NULL, &full) - srv, i % 3);
}

TEST(lb_rr_weights_exact_shares)
{
	int w[] = { 1, 2, 3 }, counts[5] = { 0 };

	setup(w, 3);
	pick_n(60, counts);
	CHECK_INT(counts[0], 10);
	CHECK_INT(counts[1], 20);
	CHECK_INT(counts[2], 30);
}

TEST(lb_rr_smooth_interleaving)
{
	int w[] = { 5, 1, 1 };
	static const int expect[] = { 0, 0, 1, 0, 2, 0, 0 };
	bool full;

	setup(w, 3);
	/* smooth WRR spreads the light servers inside the heavy one's share instead of
	 * sending it 5 requests in a row: a a b a c a a, then the cycle repeats */
	for (int i = 0; i < 14; i++)
		CHECK_INT(lb_rr_pick(&px, NULL, &full) - srv, expect[i % 7]);
}

TEST(lb_rr_weight_zero_and_disabled_skipped)
{
	int w[] = { 0, 1, 1 }, counts[5] = { 0 };

	setup(w, 3);
	srv[2].flags |= SRV_F_DISABLED;
	CHECK_INT(lb_rr_build(&px), 0);
	pick_n(10, counts);
	CHECK_INT(counts[0], 0);
	CHECK_INT(counts[1], 10);
	CHECK_INT(counts[2], 0);
}

TEST(lb_rr_backup_only_when_no_active)
{
	int w[] = { 1, 1, 1 }, counts[5] = { 0 };
	bool full;

	setup(w, 3);
	srv[2].flags |= SRV_F_BACKUP;
	CHECK_INT(lb_rr_build(&px), 0);
	pick_n(10, counts);
	CHECK_INT(counts[2], 0);
	srv[0].flags |= SRV_F_DISABLED;
	srv[1].flags |= SRV_F_DISABLED;
	CHECK_INT(lb_rr_build(&px), 0);
	CHECK(lb_rr_pick(&px, NULL, &full) == &srv[2]);
}

TEST(lb_rr_full_servers_report_all_full)
{
	int w[] = { 1, 1 };
	bool full = false;

	setup(w, 2);
	srv[0].maxconn = srv[1].maxconn = 1;
	srv[0].cur_conns = srv[1].cur_conns = 1;
	CHECK(lb_rr_pick(&px, NULL, &full) == NULL);
	CHECK(full);
	srv[1].cur_conns = 0;
	CHECK(lb_rr_pick(&px, NULL, &full) == &srv[1]);
}

TEST(lb_rr_no_server_is_not_full)
{
	int w[] = { 1 };
	bool full = true;

	setup(w, 1);
	srv[0].flags |= SRV_F_DISABLED;
	CHECK_INT(lb_rr_build(&px), 0);
	CHECK(lb_rr_pick(&px, NULL, &full) == NULL);
	CHECK(!full);
}

TEST(lb_rr_avoid_previous_server)
{
	int w[] = { 1, 1 };
	bool full;

	setup(w, 2);
	for (int i = 0; i < 4; i++)
		CHECK(lb_rr_pick(&px, &srv[0], &full) == &srv[1]);
	srv[1].flags |= SRV_F_DISABLED;
	CHECK_INT(lb_rr_build(&px), 0);
	CHECK(lb_rr_pick(&px, &srv[0], &full) == &srv[0]); /* the only one left */
}

TEST(lb_rr_weights_reduced_and_free)
{
	int w[] = { 256, 128 }, counts[5] = { 0 };

	setup(w, 2);
	pick_n(3, counts); /* gcd 128: a cycle of 3 */
	CHECK_INT(counts[0], 2);
	CHECK_INT(counts[1], 1);
	lb_rr_free(&px);
	CHECK(px.lb_ctx == NULL);
}
