/* Unit tests of the dynamic maxconn ("minconn" + "fullconn", the backend's load counting
 * its queued streams), srv_full() with it, and the hashed server reported full for
 * "maxqueue". */
#include <string.h>
#include <backend/backend.h>
#include <backend/server.h>
#include <backend/srv_limits.h>
#include <stats/counters.h>
#include "../test.h"

static struct px_queue queues[MAX_TGROUPS];

static void setup(struct proxy *px, struct server *s, int maxconn, int minconn, int fullconn)
{
	memset(px, 0, sizeof(*px));
	memset(s, 0, sizeof(*s));
	memset(queues, 0, sizeof(queues));
	px->queues = queues;
	px->fullconn = fullconn;
	s->px = px;
	s->maxconn = maxconn;
	s->minconn = minconn;
	if (counters_ngroups < 1)
		counters_ngroups = 1;
}

TEST(srv_dyn_maxconn_between_minconn_and_maxconn)
{
	struct proxy px;
	struct server s;

	setup(&px, &s, 100, 10, 1000);
	CHECK_INT(srv_dyn_maxconn(&s), 10); /* idle backend: the floor */
	px.beconn = 200;
	CHECK_INT(srv_dyn_maxconn(&s), 20); /* 200/1000 of 100 */
	px.beconn = 500;
	px.nb_queued = 300;                 /* queued streams count in the load */
	CHECK_INT(srv_dyn_maxconn(&s), 80);
	px.beconn = 1000;
	CHECK_INT(srv_dyn_maxconn(&s), 100); /* fullconn reached */
	px.beconn = 5000;
	CHECK_INT(srv_dyn_maxconn(&s), 100);
}

TEST(srv_full_uses_dynamic_limit)
{
	struct proxy px;
	struct server s;

	setup(&px, &s, 10, 2, 100);
	s.cur_conns = 2;
	CHECK(srv_full(&s));
	px.beconn = 50; /* 50% of fullconn: 5 slots */
	CHECK(!srv_full(&s));
	s.cur_conns = 5;
	CHECK(srv_full(&s));
	s.minconn = 0; /* static */
	CHECK(!srv_full(&s));
	s.maxconn = 0; /* unlimited */
	s.cur_conns = 1000;
	CHECK(!srv_full(&s));
}

TEST(srv_dyn_maxconn_never_zero)
{
	struct proxy px;
	struct server s;

	setup(&px, &s, 3, 1, 1000);
	px.beconn = 1;
	CHECK_INT(srv_dyn_maxconn(&s), 1);
}

TEST(srv_limits_defaults)
{
	struct server s;

	memset(&s, 0, sizeof(s));
	srv_limits_init(&s);
	CHECK_INT(s.pool_max_conn, -1);
	CHECK_INT(s.pool_purge_delay, 5000);
	CHECK_INT(s.maxqueue, 0);
}
