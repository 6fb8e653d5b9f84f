/* Unit tests of the dense load keys of leastconn and random(N) (lb_load.c): the picks they
 * give match the exact walk, keys follow slot and state changes, padding and stale keys
 * never pick a wrong server, and weighted draws keep their shares. */
#include <stdlib.h>
#include <string.h>
#include <backend/backend.h>
#include <backend/lb_load.h>
#include <backend/lb_update.h>
#include <backend/server.h>
#include "../test.h"

#define NMAX 1003

static struct server *srv;
static struct proxy px;

static void setup(int n, int weight)
{
	lb_load_free(&px);
	free(srv);
	srv = calloc(NMAX, sizeof(*srv));
	CHECK(srv != NULL);
	memset(&px, 0, sizeof(px));
	for (int i = 0; i < n; i++) {
		srv[i].weight = weight;
		srv[i].px = &px;
		srv[i].next = i + 1 < n ? &srv[i + 1] : NULL;
	}
	px.srv = &srv[0];
	px.lb_draws = 2;
}

static void build(void)
{
	CHECK_INT(lb_load_build(&px), 0);
}

static void done(void)
{
	lb_load_free(&px);
	free(srv);
	srv = NULL;
}

TEST(lb_load_lc_least_loaded_and_per_weight)
{
	bool full;

	setup(3, 1);
	srv[0].cur_conns = 5;
	srv[1].cur_conns = 2;
	srv[2].cur_conns = 7;
	build();
	CHECK(lb_lc_pick(&px, NULL, &full) == &srv[1]);
	srv[1].cur_conns = 9; /* a slot change rewrites the key */
	lb_load_touch(&srv[1]);
	CHECK(lb_lc_pick(&px, NULL, &full) == &srv[0]);
	srv[2].weight = 4; /* (7+1)/4 = 2 < (5+1)/1 */
	lb_load_weight_changed(&srv[2]);
	CHECK(lb_lc_pick(&px, NULL, &full) == &srv[2]);
	done();
}

TEST(lb_load_lc_equal_loads_take_turns)
{
	int counts[3] = { 0 };
	bool full;

	setup(3, 1);
	build();
	for (int i = 0; i < 30; i++)
		counts[lb_lc_pick(&px, NULL, &full) - srv]++;
	CHECK_INT(counts[0], 10);
	CHECK_INT(counts[1], 10);
	CHECK_INT(counts[2], 10);
	done();
}

TEST(lb_load_lc_last_of_many_and_padding)
{
	bool full;

	setup(NMAX, 1); /* not a multiple of the scan step: the padding is never picked */
	for (int i = 0; i < NMAX; i++)
		srv[i].cur_conns = 3;
	srv[NMAX - 1].cur_conns = 1;
	build();
	for (int i = 0; i < 5; i++)
		CHECK(lb_lc_pick(&px, NULL, &full) == &srv[NMAX - 1]);
	done();
}

TEST(lb_load_state_full_disabled_backup)
{
	bool full;

	setup(3, 1);
	srv[0].maxconn = 1;
	srv[1].flags |= SRV_F_DISABLED;
	srv[2].flags |= SRV_F_BACKUP;
	build();
	CHECK(lb_lc_pick(&px, NULL, &full) == &srv[0]);
	srv[0].cur_conns = 1;
	lb_load_touch(&srv[0]);
	CHECK(lb_lc_pick(&px, NULL, &full) == NULL); /* active exists but is full: queue */
	CHECK(full);
	srv[0].run_state = SRV_RS_DOWN; /* what srv_set_state() stores, then touches */
	lb_load_touch(&srv[0]);
	CHECK(lb_lc_pick(&px, NULL, &full) == &srv[2]);
	CHECK(lb_rand_pick(&px, NULL, &full) == &srv[2]);
	done();
}

TEST(lb_load_stale_key_never_picks_full_server)
{
	bool full;

	setup(2, 1);
	srv[0].maxconn = 1;
	srv[1].cur_conns = 4;
	build();
	srv[0].cur_conns = 1; /* taken, key not rewritten yet: the pick must see it */
	for (int i = 0; i < 20; i++) {
		CHECK(lb_lc_pick(&px, NULL, &full) == &srv[1]);
		CHECK(lb_rand_pick(&px, NULL, &full) == &srv[1]);
	}
	done();
}

TEST(lb_load_rand_weighted_draws)
{
	int counts[2] = { 0 };
	bool full;

	setup(2, 1);
	srv[1].weight = 3;
	px.lb_draws = 1; /* pure weighted draws */
	build();
	for (int i = 0; i < 4000; i++)
		counts[lb_rand_pick(&px, NULL, &full) - srv]++;
	CHECK(counts[0] > 800 && counts[0] < 1200);
	CHECK(counts[1] > 2800 && counts[1] < 3200);
	done();
}

TEST(lb_load_rand_many_equal_servers_share)
{
	static int counts[64];
	bool full;
	int lo = 1 << 30, hi = 0;

	memset(counts, 0, sizeof(counts));
	setup(64, 10);
	srv[5].weight = 0; /* never drawn */
	build();
	for (int i = 0; i < 64000; i++) {
		struct server *s = lb_rand_pick(&px, NULL, &full);

		counts[s - srv]++;
	}
	CHECK_INT(counts[5], 0);
	for (int i = 0; i < 64; i++) {
		if (i == 5)
			continue;
		lo = counts[i] < lo ? counts[i] : lo;
		hi = counts[i] > hi ? counts[i] : hi;
	}
	CHECK(lo > 800 && hi < 1250); /* about 1016 each */
	done();
}

/* A server added at run time: a new table with its key, the others' keys moved with them
 * (each keeps its half); a deleted one leaves a hole and writes to a sink. */
TEST(lb_load_rebuild_adds_and_removes)
{
	struct lb_load *old;
	bool full;

	setup(3, 1);
	srv[0].cur_conns = 2;
	srv[1].cur_conns = 3;
	srv[2].cur_conns = 4;
	srv[1].next = NULL; /* srv[2] not linked yet */
	build();
	CHECK(lb_lc_pick(&px, NULL, &full) == &srv[0]);
	old = px.lb_load;
	srv[1].next = &srv[2];
	srv[2].cur_conns = 0;
	CHECK_INT(lb_load_rebuild(&px), 0);
	CHECK(px.lb_load != old);
	CHECK_INT(px.lb_load->tier[0].n, 3); /* low, high, low halves */
	CHECK_INT(srv[2].lb_load_shift, 0);
	CHECK(srv[2].lb_load_word == &px.lb_load->tier[0].word[1]);
	CHECK(lb_lc_pick(&px, NULL, &full) == &srv[2]);
	srv[2].cur_conns = 9; /* its key follows, in the new table */
	lb_load_touch(&srv[2]);
	CHECK(lb_lc_pick(&px, NULL, &full) == &srv[0]);
	srv[1].cur_conns = 0; /* a key rewritten after the move lands in the new table */
	lb_load_touch(&srv[1]);
	CHECK(lb_lc_pick(&px, NULL, &full) == &srv[1]);
	/* deleted: unlinked, rebuilt, its key gone */
	srv[0].next = &srv[2];
	CHECK_INT(lb_load_rebuild(&px), 0);
	lb_load_forget(&srv[1]);
	CHECK_INT(px.lb_load->tier[0].n, 3); /* a hole where srv[1] was */
	CHECK(px.lb_load->tier[0].srv[1] == NULL);
	for (int i = 0; i < 10; i++)
		CHECK(lb_lc_pick(&px, NULL, &full) == &srv[0]);
	lb_load_refresh(&px);
	CHECK(lb_lc_pick(&px, NULL, &full) == &srv[0]);
	srv[1].next = NULL;
	lb_retired_flush(&px);
	done();
}
