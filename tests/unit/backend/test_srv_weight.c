/* Unit tests of run-time weights (srv_set_weight) per algorithm: the distribution before and
 * after a change, static algorithms refusing other weights, "option allbackups", the
 * slowstart ramp, and the grace period of replaced tables (event/qsbr.h).
 */
#include <string.h>
#include <backend/backend.h>
#include <backend/lb_update.h>
#include <backend/server.h>
#include <event/qsbr.h>
#include "../test.h"

#define NSRV 4

static struct server srv[NSRV];
static struct proxy px;
static struct srv_per_thread pt[NSRV][MAX_THREADS];

/* <n> servers with <weights>, the last <nbck> of them backups, algorithm <algo>. */
static void setup(const int *weights, int n, int nbck, int algo, int type, bool is_static)
{
	lb_rr_free(&px);
	lb_hash_free(&px);
	memset(srv, 0, sizeof(srv));
	memset(&px, 0, sizeof(px));
	memset(pt, 0, sizeof(pt));
	px.id = "be";
	for (int i = 0; i < n; i++) {
		srv[i].id = "s";
		srv[i].weight = weights[i];
		srv[i].puid = i + 1;
		srv[i].px = &px;
		srv[i].per_thr = pt[i];
		srv[i].flags = i >= n - nbck ? SRV_F_BACKUP : 0;
		srv[i].next = i + 1 < n ? &srv[i + 1] : NULL;
		srv_init_weights(&srv[i]);
	}
	px.srv = &srv[0];
	px.lbalgo = algo;
	px.hash_type = (uint8_t)type;
	px.lb_static = is_static;
	px.lb = lb_ops_for(&px);
	if (algo >= LB_ALGO_FIRST)
		CHECK_INT(lb_hash_build(&px), 0);
	CHECK_INT(lb_rr_build(&px), 0);
}

static void pick_n(struct server *(*pick)(struct proxy *, struct server *, bool *), int n,
		   int *counts)
{
	bool full;

	memset(counts, 0, sizeof(int) * NSRV);
	for (int i = 0; i < n; i++) {
		struct server *s = pick(&px, NULL, &full);

		if (s)
			counts[s - srv]++;
	}
}

TEST(srv_weight_roundrobin_rebuilds)
{
	int w[] = { 1, 1 }, c[NSRV];

	setup(w, 2, 0, LB_ALGO_ROUNDROBIN, 0, false);
	pick_n(lb_rr_pick, 40, c);
	CHECK_INT(c[0], 20);
	CHECK_INT(c[1], 20);
	CHECK(srv_set_weight(&srv[1], 3, 0) == NULL);
	CHECK_INT(srv_weight(&srv[1]), 3);
	pick_n(lb_rr_pick, 40, c);
	CHECK_INT(c[0], 10);
	CHECK_INT(c[1], 30);
	CHECK(srv_set_weight(&srv[0], 0, 0) == NULL);
	pick_n(lb_rr_pick, 40, c);
	CHECK_INT(c[0], 0);
	CHECK_INT(c[1], 40);
	CHECK(srv_set_weight(&srv[0], 257, 0) != NULL);
}

TEST(srv_weight_static_rr_only_zero_or_initial)
{
	int w[] = { 2, 1 }, c[NSRV];

	setup(w, 2, 0, LB_ALGO_ROUNDROBIN, 0, true);
	CHECK_STR(srv_set_weight(&srv[1], 3, 0),
		  "Backend is using a static LB algorithm and only accepts weights '0%' and "
		  "'100%'.\n");
	CHECK(srv_set_weight(&srv[0], 0, 0) == NULL);
	pick_n(lb_rr_pick, 30, c);
	CHECK_INT(c[0], 0);
	CHECK_INT(c[1], 30);
	CHECK(srv_set_weight(&srv[0], 2, 0) == NULL);
	pick_n(lb_rr_pick, 30, c);
	CHECK_INT(c[0], 20);
	CHECK_INT(c[1], 10);
}

TEST(srv_weight_leastconn_and_random_live)
{
	int w[] = { 1, 1 }, c[NSRV];
	bool full;

	setup(w, 2, 0, LB_ALGO_LEASTCONN, 0, false);
	CHECK(srv_set_weight(&srv[1], 4, 0) == NULL);
	/* s0 with 1 connection per unit, s1 with 3 for 4 units: s1 is less loaded */
	srv[0].cur_conns = 1;
	srv[1].cur_conns = 3;
	CHECK(lb_lc_pick(&px, NULL, &full) == &srv[1]);
	srv[0].cur_conns = srv[1].cur_conns = 0;

	setup(w, 2, 0, LB_ALGO_RANDOM, 0, false);
	px.lb_draws = 1;
	CHECK(srv_set_weight(&srv[1], 3, 0) == NULL);
	pick_n(lb_rand_pick, 10000, c);
	CHECK(c[1] > 7000 && c[1] < 8000);
}

TEST(srv_weight_consistent_moves_keys_to_the_heavier)
{
	int w[] = { 1, 1, 1, 1 }, before[4000], moved = 0, wrong = 0;
	bool full;

	setup(w, 4, 0, LB_ALGO_URI, LB_HASH_CONSISTENT, false);
	for (uint32_t h = 0; h < 4000; h++)
		before[h] = (int)(lb_hash_pick(&px, h * 2654435761u, NULL, &full) - srv);
	CHECK(srv_set_weight(&srv[2], 2, 0) == NULL);
	for (uint32_t h = 0; h < 4000; h++) {
		int now = (int)(lb_hash_pick(&px, h * 2654435761u, NULL, &full) - srv);

		if (now != before[h]) {
			moved++;
			wrong += now != 2;
		}
	}
	CHECK_INT(wrong, 0);		    /* only keys going to the heavier server move */
	CHECK(moved > 400 && moved < 1300); /* about 1/4 - 1/5 = 15 % of 4000 ... 20 % */
}

TEST(srv_weight_map_based_static)
{
	int w[] = { 1, 1 }, counts[2] = { 0 };
	bool full;

	setup(w, 2, 0, LB_ALGO_SOURCE, LB_HASH_MAP, false);
	CHECK(srv_set_weight(&srv[0], 2, 0) != NULL);
	CHECK(srv_set_weight(&srv[0], 0, 0) == NULL);
	for (uint32_t h = 0; h < 100; h++)
		counts[lb_hash_pick(&px, h, NULL, &full) - srv]++;
	CHECK_INT(counts[0], 0);
	CHECK_INT(counts[1], 100);
}

TEST(srv_weight_state_change_rebuilds_roundrobin)
{
	int w[] = { 1, 1, 1 }, c[NSRV];

	setup(w, 3, 0, LB_ALGO_ROUNDROBIN, 0, false);
	srv_set_state(&srv[1], SRV_RS_DOWN, "test", 10);
	pick_n(lb_rr_pick, 40, c);
	CHECK_INT(c[0], 20);
	CHECK_INT(c[1], 0);
	CHECK_INT(c[2], 20);
	srv_set_state(&srv[1], SRV_RS_UP, "test", 20);
	pick_n(lb_rr_pick, 30, c);
	CHECK_INT(c[1], 10);
}

TEST(srv_weight_first_backup_unless_allbackups)
{
	int w[] = { 1, 1, 1 }, c[NSRV];

	setup(w, 3, 2, LB_ALGO_ROUNDROBIN, 0, false);
	srv_set_state(&srv[0], SRV_RS_DOWN, "test", 10);
	pick_n(lb_rr_pick, 20, c);
	CHECK_INT(c[1], 20);
	CHECK_INT(c[2], 0);
	px.options |= PR_O_ALL_BK;
	pick_n(lb_rr_pick, 20, c);
	CHECK_INT(c[1], 10);
	CHECK_INT(c[2], 10);
	px.options &= ~PR_O_ALL_BK;
	srv_set_state(&srv[1], SRV_RS_DOWN, "test", 20);
	pick_n(lb_rr_pick, 20, c);
	CHECK_INT(c[2], 20); /* the next backup takes over */
}

TEST(srv_weight_slowstart_ramps)
{
	int w[] = { 10, 10 }, c[NSRV];

	setup(w, 2, 0, LB_ALGO_ROUNDROBIN, 0, false);
	srv[1].slowstart = 10000;
	srv[1].maxconn = srv[1].maxconn_cfg = 100;
	srv_set_state(&srv[1], SRV_RS_DOWN, "test", 1000);
	srv_set_state(&srv[1], SRV_RS_UP, "test", 2000);
	CHECK_INT(srv_weight(&srv[1]), 1);
	CHECK_INT(srv[1].maxconn, 1); /* the dynamic maxconn ramps too */
	pick_n(lb_rr_pick, 161, c);
	CHECK_INT(c[1], 1);					 /* 1/16th of a unit against 160 */
	CHECK(srv_set_weight(&srv[1], 10, 2000 + 5000) == NULL); /* half-way */
	CHECK_INT(srv_weight(&srv[1]), 5);
	CHECK_INT(srv[1].maxconn, 50);
	pick_n(lb_rr_pick, 300, c);
	CHECK_INT(c[1], 100);
	CHECK(srv_set_weight(&srv[1], 10, 2000 + 10000) == NULL); /* done */
	CHECK_INT(srv_weight(&srv[1]), 10);
	CHECK_INT(srv[1].ss_w16, 0);
	CHECK_INT(srv[1].maxconn, 100);
	pick_n(lb_rr_pick, 40, c);
	CHECK_INT(c[1], 20);
}

TEST(srv_weight_qsbr_grace_period)
{
	struct qs_snap snap;
	int saved_tid = (int)tid;

	/* a thread running at the snapshot holds the old version until it leaves */
	for (int t = 0; t < MAX_THREADS; t++)
		qs_thr[t].ctr = 1; /* all waiting */
	qs_thr[0].ctr = 2;	   /* thread 0 running */
	qs_snapshot(&snap);
	CHECK(!qs_passed(&snap));
	tid = 0;
	qs_leave();
	CHECK(qs_passed(&snap));
	qs_enter();
	CHECK(qs_passed(&snap));
	tid = (unsigned int)saved_tid;
	memset(qs_thr, 0, sizeof(qs_thr));
}

TEST(srv_track_follows_state)
{
	int w[] = { 1, 1, 1 }, c[NSRV];

	setup(w, 3, 0, LB_ALGO_ROUNDROBIN, 0, false);
	srv[1].track = &srv[0]; /* s1 <- s2 <- s3, as srv_track_check_all links them */
	srv[0].trackers = &srv[1];
	srv[2].track = &srv[1];
	srv[1].trackers = &srv[2];
	srv_set_state(&srv[0], SRV_RS_DOWN, "test", 10);
	CHECK(!srv_is_up(&srv[1]));
	CHECK(!srv_is_up(&srv[2]));
	pick_n(lb_rr_pick, 3, c);
	CHECK_INT(c[0] + c[1] + c[2], 0);
	srv_set_state(&srv[0], SRV_RS_UP, "test", 20);
	CHECK(srv_is_up(&srv[2]));
	pick_n(lb_rr_pick, 30, c);
	CHECK_INT(c[2], 10);
}
