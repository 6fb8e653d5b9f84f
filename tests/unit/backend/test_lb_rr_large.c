/* Unit test of roundrobin at HAProxy's limit of 4,095 servers: one cycle of the sequence
 * gives every server exactly its weight (1 or 256 here), and a weight changed at run time
 * (srv_set_weight) is what the next cycle follows. */
#include <stdlib.h>
#include <string.h>
#include <backend/backend.h>
#include <backend/lb_update.h>
#include <backend/server.h>
#include "../test.h"

#define NBIG 4095

static int cycle_ok(struct proxy *px, struct server *srv, int *counts)
{
	long total = 0;
	bool full;

	memset(counts, 0, sizeof(int) * NBIG);
	for (int i = 0; i < NBIG; i++)
		total += srv_weight(&srv[i]);
	for (long k = 0; k < total; k++) {
		struct server *s = lb_rr_pick(px, NULL, &full);

		if (!s)
			return 0;
		counts[s - srv]++;
	}
	for (int i = 0; i < NBIG; i++)
		if (counts[i] != srv_weight(&srv[i]))
			return 0;
	return 1;
}

TEST(lb_rr_4095_servers_exact_cycle_and_weight_change)
{
	static struct proxy px;
	struct server *srv = calloc(NBIG, sizeof(*srv));
	struct srv_per_thread *pt = calloc((size_t)NBIG * MAX_THREADS, sizeof(*pt));
	int *counts = calloc(NBIG, sizeof(int));

	CHECK(srv && pt && counts);
	memset(&px, 0, sizeof(px));
	px.id = "be";
	for (int i = 0; i < NBIG; i++) {
		srv[i].id = "s";
		srv[i].weight = i % 16 ? 1 : 256;
		srv[i].puid = i + 1;
		srv[i].px = &px;
		srv[i].per_thr = pt + (size_t)i * MAX_THREADS;
		srv[i].next = i + 1 < NBIG ? &srv[i + 1] : NULL;
		srv_init_weights(&srv[i]);
	}
	px.srv = srv;
	px.lb = lb_ops_for(&px);
	CHECK_INT(lb_rr_build(&px), 0);
	CHECK(cycle_ok(&px, srv, counts));
	CHECK(srv_set_weight(&srv[1], 200, 0) == NULL); /* 1 -> 200 */
	CHECK(srv_set_weight(&srv[16], 0, 0) == NULL);	/* 256 -> out */
	CHECK(cycle_ok(&px, srv, counts));
	CHECK_INT(counts[1], 200);
	CHECK_INT(counts[16], 0);
	lb_rr_free(&px);
	free(counts);
	free(pt);
	free(srv);
}
