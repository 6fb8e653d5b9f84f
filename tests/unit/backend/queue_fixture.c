/* The backend queue tests' common setting (see queue_fixture.h). */
#include <stdlib.h>
#include <string.h>
#include <backend/backend.h>
#include <base/tinfo.h>
#include <event/loop.h>
#include <stats/counters.h>
#include "../test.h"
#include "queue_fixture.h"

struct stream *queue_fixture_setup(struct proxy *px, struct server *srv, int ngroups, int nst,
				   void (*wake)(struct inbox_item *))
{
	struct stream *st;

	memset(px, 0, sizeof(*px));
	memset(srv, 0, sizeof(*srv));
	px->id = "be";
	list_init(&px->binds);
	srv->id = "s1";
	srv->px = px;
	srv->weight = 1;
	srv->maxconn = 1;
	px->srv = srv;
	CHECK_INT(counters_alloc(ngroups), 0);
	CHECK_INT(backend_init(px), 0);
	CHECK_INT(loop_init_thread(), 0);
	CHECK_INT(inbox_init(), 0);
	st = calloc((size_t)nst, sizeof(*st));
	CHECK(st != NULL);
	for (int i = 0; st && i < nst; i++) {
		st[i].be = px;
		st[i].tid = (uint16_t)tid;
		st[i].wake.fn = wake;
		list_init(&st[i].queue);
	}
	return st;
}

void queue_fixture_teardown(struct proxy *px, struct server *srv, struct stream *st)
{
	free(st);
	lb_rr_free(px); /* what backend_init() built (the process keeps it for its life) */
	free(srv->per_thr);
	free(px->queues);
	inbox_deinit();
	loop_deinit_thread();
	counters_free();
}
