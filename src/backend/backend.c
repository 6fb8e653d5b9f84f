/* Server assignment: the LB pick, server slots counted against "maxconn" (process-wide
 * atomics), and the backend's queues of streams waiting for a slot: one per thread group,
 * ordered by priority class, then by queue date plus priority offset (set-priority-class
 * and -offset). A released slot dequeues from the releasing thread's group, and every
 * eighth time (or when its own queue is empty) from the group whose head is best, the
 * groups visited in turn so that equal heads are taken from each in rotation; the stream
 * is woken on its own thread through that thread's inbox.
 */
#include <stdlib.h>
#include <backend/backend.h>
#include <backend/lb_load.h>
#include <backend/lb_update.h>
#include <backend/server.h>
#include <base/atomic.h>
#include <base/rbtree.h>
#include <base/tinfo.h>
#include <event/inbox.h>
#include <base/freq_ctr.h>
#include <event/loop.h>
#include <mux/h1.h>
#include <stats/counters.h>

/* Run-time state of <s> (weights, per-thread slots, idle lists). 0 or -1 (no memory). */
static int backend_init_srv(struct server *s)
{
	srv_init_weights(s);
	s->per_thr = aligned_alloc(CACHELINE, sizeof(*s->per_thr) * MAX_THREADS);
	if (!s->per_thr)
		return -1;
	memset(s->per_thr, 0, sizeof(*s->per_thr) * MAX_THREADS);
	h1_back_init_server(s);
	return 0;
}

int backend_init(struct proxy *px)
{
	px->queues = aligned_alloc(CACHELINE, sizeof(*px->queues) * MAX_TGROUPS);
	if (!px->queues)
		return -1;
	for (int g = 0; g < MAX_TGROUPS; g++) {
		pthread_mutex_init(&px->queues[g].lock, NULL);
		list_init(&px->queues[g].head);
		rb_init(&px->queues[g].prio);
		px->queues[g].len = 0;
		px->queues[g].head_key = QKEY_NONE;
	}
	px->lb = lb_ops_for(px);
	for (struct server *s = px->srv; s; s = s->next)
		if (backend_init_srv(s) < 0)
			return -1;
	/* the dispatch one (or "<transparent>", used even beside servers) */
	if (px->dispatch && backend_init_srv(px->dispatch) < 0)
		return -1;
	if (px->lbalgo >= LB_ALGO_FIRST && lb_hash_build(px) < 0)
		return -1;
	if ((px->lbalgo == LB_ALGO_LEASTCONN || px->lbalgo == LB_ALGO_RANDOM) &&
	    lb_load_build(px) < 0)
		return -1;
	return lb_rr_build(px); /* also the fallback of the hash algorithms */
}

bool (*lb_key_hash_hook)(struct stream *s, uint32_t *hash);
__thread struct server *lb_full_srv;

/* Hash-based algorithms: the key's server, round robin when the stream has no key. */
static struct server *lb_pick_hashed(struct stream *s, struct proxy *be, struct server *avoid,
				     bool *all_full)
{
	uint32_t hash;

	lb_full_srv = NULL;
	if (lb_key_hash_hook && lb_key_hash_hook(s, &hash))
		return lb_hash_pick(be, hash, avoid, all_full);
	return lb_rr_pick(be, avoid, all_full);
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
	if (!(px->options & PR_O_ALL_BK)) { /* only the first usable backup takes traffic */
		s = srv_first_backup(px);
		*all_full = s && srv_full(s);
		return *all_full ? NULL : s;
	}
	s = round(px, true, avoid, &usable);
	if (!s && usable)
		*all_full = true;
	return s;
}

/* The algorithms other than roundrobin, kept out of line so that the plain path stays short. */
static __attribute__((noinline)) struct server *lb_pick_other(struct stream *s, struct proxy *be,
							     struct server *avoid, bool *all_full)
{
	switch (be->lbalgo) {
	case LB_ALGO_LEASTCONN:
		return lb_lc_pick(be, avoid, all_full);
	case LB_ALGO_RANDOM:
		return lb_rand_pick(be, avoid, all_full);
	case LB_ALGO_FIRST:
		return lb_first_pick(be, avoid, all_full);
	default:
		return lb_pick_hashed(s, be, avoid, all_full);
	}
}

static inline struct server *lb_pick(struct stream *s, struct proxy *be, struct server *avoid,
				     bool *all_full)
{
	if (likely(be->lbalgo == LB_ALGO_ROUNDROBIN))
		return lb_rr_pick(be, avoid, all_full);
	return lb_pick_other(s, be, avoid, all_full);
}

/* <s> leaves the queue: it no longer counts in its server's "maxqueue". Under the lock. */
static inline void queue_srv_leave(struct stream *s)
{
	if (unlikely(s->queue_srv)) {
		HA_ATOMIC_DEC(&s->queue_srv->queued);
		s->queue_srv = NULL;
	}
}

/* Counts <s>, whose key hashes to the full server <w>, in w's queue. False when that
 * queue is at its "maxqueue" (a stream already admitted, <again>, is never refused). */
static bool queue_srv_enter(struct server *w, bool again)
{
	int n = HA_ATOMIC_INC(&w->queued);

	if (w->maxqueue && !again && n > w->maxqueue) {
		HA_ATOMIC_DEC(&w->queued);
		return false;
	}
	return true;
}

/* Queue order. A stream's key (QKEY_*) is its class, then the date it entered the queue
 * plus its offset, as in HAProxy 2.6 (whose 20-bit circular dates are 64-bit here: a
 * stream stays in its place however long it waits). Two containers hold them:
 * - <head>: the streams that set no priority (class 0, offset 0), in arrival order. Their
 *   keys grow with their arrival, so the list is in key order and entering it stays the
 *   O(1) tail append it always was, whatever else is queued;
 * - <prio>: the streams that set a class or an offset, in a red-black tree by key, ties
 *   in arrival order (base/rbtree.c): entering and leaving cost O(log n) under the lock
 *   whatever the keys (a client may choose its offset), the smallest is at hand.
 * A queued stream is in <head> when its <queue> link is not self-linked, else in <prio>.
 * The head of the queue is the smaller of the two heads. */

/* The key of <s> entering the queue now. */
static inline uint64_t queue_key_now(const struct stream *s)
{
	uint64_t date = now_ms() + QKEY_BIAS + (uint64_t)(int64_t)s->prio_offset;

	return ((uint64_t)(s->prio_class + 2047) << QKEY_CLASS_SHIFT) |
	       (date & ((1ULL << QKEY_CLASS_SHIFT) - 1));
}

#define QNODE_STREAM(n) container_of((n), struct stream, qnode)

/* Inserts <s> into <q>'s tree of prioritised streams, after those of a smaller or equal
 * key (before the equal ones with <first>: a woken stream going back). Under the lock. */
static void queue_insert_prio(struct px_queue *q, struct stream *s, bool first)
{
	struct rb_node *parent = NULL, *at = q->prio.root;
	int dir = 0;

	while (at) {
		uint64_t k = QNODE_STREAM(at)->queue_key;

		parent = at;
		dir = k < s->queue_key || (k == s->queue_key && !first);
		at = at->kid[dir];
	}
	rb_insert_at(&q->prio, &s->qnode, parent, dir);
}

/* Takes the queued <s> out of <q>'s list or tree. Under the lock. */
static inline void queue_remove(struct px_queue *q, struct stream *s)
{
	if (likely(!list_empty(&s->queue)))
		list_delete(&s->queue);
	else
		rb_erase(&q->prio, &s->qnode);
}

/* The first stream of <q> (NULL when empty). Under the lock. On equal keys the stream of
 * <head> entered first unless the other one has a positive offset (its date is earlier). */
static struct stream *queue_first(struct px_queue *q)
{
	struct stream *d = list_empty(&q->head) ? NULL
						: list_elem(q->head.next, struct stream, queue);
	struct rb_node *f = rb_first(&q->prio);
	struct stream *p = f ? QNODE_STREAM(f) : NULL;

	if (!p || !d)
		return p ? p : d;
	if (p->queue_key < d->queue_key || (p->queue_key == d->queue_key && p->prio_offset > 0))
		return p;
	return d;
}

/* <q> gained or lost a stream: publishes its smallest key. Under the lock. */
static inline void queue_update_head(struct px_queue *q)
{
	const struct stream *f = queue_first(q);

	HA_ATOMIC_STORE_RLX(&q->head_key, f ? f->queue_key : QKEY_NONE);
}

/* Takes the first stream of group queue <g> out (Q_WOKEN); NULL when empty. */
static struct stream *queue_pop(struct proxy *be, int g)
{
	struct px_queue *q = &be->queues[g];
	struct stream *s;

	if (!HA_ATOMIC_LOAD_RLX(&q->len))
		return NULL;
	pthread_mutex_lock(&q->lock);
	s = queue_first(q);
	if (s) {
		queue_remove(q, s);
		s->queue_state = Q_WOKEN;
		HA_ATOMIC_STORE_RLX(&q->len, q->len - 1);
		HA_ATOMIC_DEC(&be->nb_queued);
		queue_srv_leave(s);
		queue_update_head(q);
	}
	pthread_mutex_unlock(&q->lock);
	return s;
}

/* The rotation's turn: takes the best head among all the groups, visited from group
 * <from> so that equal heads go to each group in turn. The heads are compared on their
 * published keys, without locks; a group emptied meanwhile makes it look again (bounded).
 */
static struct stream *queue_pop_best(struct proxy *be, int from, int ngroups)
{
	for (int tries = 0; tries < ngroups; tries++) {
		uint64_t best = QKEY_NONE;
		int g = -1;
		struct stream *s;

		for (int i = 0; i < ngroups; i++) {
			int k = (from + i) % ngroups;
			uint64_t key;

			if (!HA_ATOMIC_LOAD_RLX(&be->queues[k].len))
				continue;
			key = HA_ATOMIC_LOAD_RLX(&be->queues[k].head_key);
			if (g < 0 || key < best) {
				best = key;
				g = k;
			}
		}
		if (g < 0)
			return NULL;
		s = queue_pop(be, g);
		if (s)
			return s;
	}
	return NULL;
}

/* A slot may be free on <be>: wakes the first queued stream of this group, or, every
 * eighth time or when this group has none waiting, the best head of all groups. */
static void backend_kick(struct proxy *be)
{
	static __thread unsigned int kicks;
	int ngroups = counters_ngroups, own = (int)tgid - 1;
	struct stream *s = NULL;

	if (ngroups == 1) {
		s = queue_pop(be, 0);
	} else {
		if (++kicks % 8)
			s = queue_pop(be, own);
		if (!s)
			s = queue_pop_best(be, (own + (int)(kicks / 8) + 1) % ngroups, ngroups);
	}
	if (s)
		inbox_push(s->tid, &s->wake); /* even to this thread: never re-entered here */
}

/* Takes one of <srv>'s "maxconn" slots; false when they are all taken. Any thread. */
static bool srv_take_slot(struct server *srv)
{
	int cur = HA_ATOMIC_LOAD_RLX(&srv->cur_conns);

	do {
		/* an agent or "set maxconn server" may change it (atomic) */
		if (HA_ATOMIC_LOAD_RLX(&srv->maxconn) && cur >= srv_cur_maxconn(srv))
			return false;
	} while (!HA_ATOMIC_CAS(&srv->cur_conns, &cur, cur + 1));
	HA_ATOMIC_UPDATE_MAX(&srv->cur_conns_max, cur + 1);
	lb_load_touch(srv);
	return true;
}

/* A stream was queued: raises the maxima of queued streams and of the backend's streams
 * (HAProxy counts queued ones in them). Off the plain path. */
static void backend_queue_max(struct proxy *be)
{
	int queued = 0;

	for (int g = 0; g < counters_ngroups; g++)
		queued += HA_ATOMIC_LOAD_RLX(&be->queues[g].len);
	HA_ATOMIC_UPDATE_MAX(&be->queue_max, queued);
	HA_ATOMIC_UPDATE_MAX(&be->beconn_max, queued + HA_ATOMIC_LOAD_RLX(&be->beconn));
}

/* The backend's "dispatch" server (or the "<transparent>" one): no limit, no queue. */
static int backend_take_dispatch(struct stream *s)
{
	struct server *srv = s->be->dispatch;

	HA_ATOMIC_INC(&srv->cur_conns);
	s->srv = srv;
	HA_ATOMIC_UPDATE_MAX(&s->be->beconn_max, HA_ATOMIC_INC(&s->be->beconn));
	s->flags |= SF_HAS_SLOT;
	return ASSIGN_OK;
}

int backend_assign(struct stream *s, struct server *avoid, bool front_of_queue)
{
	struct proxy *be = s->be;
	struct px_queue *q = &be->queues[tgid - 1];
	bool all_full = false;
	struct server *srv = NULL;

	if (unlikely(be->options & PR_O_TRANSP)) /* servers unused (be_transp.c) */
		return backend_take_dispatch(s);
	/* the pick saw a free slot, but another thread may take it first: the slot is
	 * taken with a CAS against maxconn, and a lost race picks again */
	for (int tries = 0; tries < 4; tries++) {
		srv = lb_pick(s, be, avoid, &all_full);
		if (!srv || srv_take_slot(srv))
			break;
		srv = NULL;
		all_full = true;
	}
	if (srv) {
		s->srv = srv;
		HA_ATOMIC_UPDATE_MAX(&be->beconn_max, HA_ATOMIC_INC(&be->beconn));
		s->flags |= SF_HAS_SLOT;
		if (!front_of_queue) /* HAProxy hands a dequeued stream the released slot */
			CNT_INC(srv->cnt, cum_lbconn);
		freq_ctr_inc(&srv->sess_rate, now_ms());
		return ASSIGN_OK;
	}
	if (!all_full && unlikely(be->dispatch) && !be->srv)
		return backend_take_dispatch(s); /* "dispatch": a backend without servers */
	if (!all_full)
		return ASSIGN_NOSRV;
	if (unlikely(be->lbalgo >= LB_ALGO_HASHED) && (srv = lb_full_srv)) {
		lb_full_srv = NULL;
		if (!queue_srv_enter(srv, front_of_queue))
			return ASSIGN_FULL;
	}
	if (!front_of_queue) /* a woken stream going back keeps its place */
		s->queue_key = queue_key_now(s);
	pthread_mutex_lock(&q->lock);
	s->queue_srv = srv;
	if (unlikely(s->prio_class || s->prio_offset))
		queue_insert_prio(q, s, front_of_queue);
	else if (front_of_queue)
		list_insert(&q->head, &s->queue);
	else
		list_append(&q->head, &s->queue);
	queue_update_head(q);
	s->queue_state = Q_QUEUED;
	s->queue_grp = (uint8_t)(tgid - 1);
	HA_ATOMIC_STORE_RLX(&q->len, q->len + 1);
	HA_ATOMIC_INC(&be->nb_queued);
	pthread_mutex_unlock(&q->lock);
	CNT_INC(be->be_cnt, queued_total);
	backend_queue_max(be);
	/* a slot released between the pick and the enqueue found no one to wake */
	lb_pick(s, be, NULL, &all_full);
	if (!all_full)
		backend_kick(be);
	return ASSIGN_QUEUED;
}

bool backend_take_server(struct stream *s, struct server *srv)
{
	if (!srv_take_slot(srv))
		return false;
	s->srv = srv;
	HA_ATOMIC_UPDATE_MAX(&s->be->beconn_max, HA_ATOMIC_INC(&s->be->beconn));
	s->flags |= SF_HAS_SLOT;
	return true;
}

int backend_unqueue(struct stream *s)
{
	struct px_queue *q;
	int state;

	if (s->queue_state == Q_NONE)
		return Q_NONE;
	q = &s->be->queues[s->queue_grp];
	pthread_mutex_lock(&q->lock);
	state = s->queue_state;
	if (state == Q_QUEUED) {
		queue_remove(q, s);
		HA_ATOMIC_STORE_RLX(&q->len, q->len - 1);
		s->queue_state = Q_NONE;
		HA_ATOMIC_DEC(&s->be->nb_queued);
		queue_srv_leave(s);
		queue_update_head(q);
	}
	pthread_mutex_unlock(&q->lock);
	return state;
}

void backend_woken(struct stream *s)
{
	struct px_queue *q = &s->be->queues[s->queue_grp];

	pthread_mutex_lock(&q->lock);
	s->queue_state = Q_NONE;
	pthread_mutex_unlock(&q->lock);
}

void backend_release_slot(struct stream *s)
{
	struct proxy *be = s->be;

	if (!(s->flags & SF_HAS_SLOT))
		return;
	s->flags &= ~SF_HAS_SLOT;
	HA_ATOMIC_DEC(&s->srv->cur_conns);
	lb_load_touch(s->srv);
	HA_ATOMIC_DEC(&be->beconn);
	backend_kick(be);
}
