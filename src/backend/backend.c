/* Server assignment: the LB pick, server slots counted against "maxconn", and the FIFO
 * queue of streams waiting for a slot (with "timeout queue", enforced by the stream).
 * One thread for now; issue #3 makes the queue per group.
 */
#include <stdlib.h>
#include <backend/backend.h>
#include <backend/server.h>
#include <base/atomic.h>
#include <base/tinfo.h>
#include <event/loop.h>
#include <mux/h1.h>
#include <stats/counters.h>

int backend_init(struct proxy *px)
{
	list_init(&px->queue);
	px->nbpend = 0;
	for (struct server *s = px->srv; s; s = s->next) {
		s->per_thr = aligned_alloc(CACHELINE, sizeof(*s->per_thr) * MAX_THREADS);
		if (!s->per_thr)
			return -1;
		memset(s->per_thr, 0, sizeof(*s->per_thr) * MAX_THREADS);
		h1_back_init_server(s);
	}
	return 0;
}

struct server *lb_pick_tiered(struct proxy *px, struct server *avoid, bool *all_full,
			      struct server *(*round)(struct proxy *px, bool backup,
						      struct server *avoid, bool *usable))
{
	bool usable;
	struct server *s = round(px, false, avoid, &usable);

	*all_full = false;
	if (s)
		return s;
	if (usable) {
		*all_full = true; /* active servers exist: wait for one rather than use backups */
		return NULL;
	}
	s = round(px, true, avoid, &usable);
	if (!s && usable)
		*all_full = true;
	return s;
}

int backend_assign(struct stream *s, struct server *avoid, bool front_of_queue)
{
	struct proxy *be = s->be;
	bool all_full;
	struct server *srv;

	switch (be->lbalgo) {
	case LB_ALGO_LEASTCONN:
		srv = lb_lc_pick(be, avoid, &all_full);
		break;
	case LB_ALGO_RANDOM:
		srv = lb_rand_pick(be, avoid, &all_full);
		break;
	default:
		srv = lb_rr_pick(be, avoid, &all_full);
		break;
	}
	if (srv) {
		s->srv = srv;
		HA_ATOMIC_INC(&srv->cur_conns);
		s->flags |= SF_HAS_SLOT;
		CNT_INC(be->be_cnt, cum_sess);
		CNT_INC(srv->cnt, cum_sess);
		CNT_INC(srv->cnt, cum_lbconn);
		return ASSIGN_OK;
	}
	if (!all_full)
		return ASSIGN_NOSRV;
	if (front_of_queue)
		list_insert(&be->queue, &s->queue);
	else
		list_append(&be->queue, &s->queue);
	be->nbpend++;
	s->flags |= SF_QUEUED;
	return ASSIGN_QUEUED;
}

void backend_unqueue(struct stream *s)
{
	if (!(s->flags & SF_QUEUED))
		return;
	list_delete(&s->queue);
	s->be->nbpend--;
	s->flags &= ~SF_QUEUED;
}

void backend_release_slot(struct stream *s)
{
	struct proxy *be = s->be;

	if (!(s->flags & SF_HAS_SLOT))
		return;
	s->flags &= ~SF_HAS_SLOT;
	HA_ATOMIC_DEC(&s->srv->cur_conns);
	if (!list_empty(&be->queue)) {
		struct stream *next = list_elem(be->queue.next, struct stream, queue);

		backend_unqueue(next);
		tasklet_wakeup(&next->tl);
	}
}
