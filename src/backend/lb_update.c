/* Run-time updates of the load-balancing tables: picks the per-algorithm ops, serialises
 * the rebuilds with one lock, and keeps the replaced tables until every thread has passed
 * a quiescent state (event/qsbr.h), then frees them. Off the request path: picks only load
 * the published pointer.
 */
#include <pthread.h>
#include <stdlib.h>
#include <backend/backend.h>
#include <backend/lb_update.h>
#include <event/qsbr.h>

/* A replaced table waiting for its grace period. */
struct lb_retired {
	struct lb_retired *next;
	struct proxy *px;
	void *ptr;
	void (*free_fn)(void *);
	struct qs_snap snap;
};

/* One lock for every backend: weight and state changes are rare (checks, CLI, agents) and
 * a rebuild must see a consistent set of weights; it also guards lb_retired_list. */
static pthread_mutex_t lb_update_lock = PTHREAD_MUTEX_INITIALIZER;
static struct lb_retired *lb_retired_list;

static int lb_update_rr(struct proxy *px)
{
	return lb_rr_rebuild(px);
}

static int lb_update_hash(struct proxy *px)
{
	/* round robin is the fallback for streams without a key */
	return lb_rr_rebuild(px) | lb_hash_rebuild(px);
}

static const struct lb_ops lb_ops_rr = { .update = lb_update_rr };
static const struct lb_ops lb_ops_static_rr = { .update = lb_update_rr, .static_weights = true };
/* "first" reads states and weights live, but its id order is a table: rebuilt when a
 * server is added or deleted at run time (backend/srv_dyn.c) */
static int lb_update_first(struct proxy *px)
{
	return lb_hash_rebuild(px);
}

static const struct lb_ops lb_ops_live = { .update = NULL }; /* leastconn, random */
static const struct lb_ops lb_ops_first = { .update = lb_update_first };
static const struct lb_ops lb_ops_consistent = { .update = lb_update_hash };
static const struct lb_ops lb_ops_map = { .update = lb_update_hash, .static_weights = true };

const struct lb_ops *lb_ops_for(const struct proxy *px)
{
	if (px->lbalgo == LB_ALGO_ROUNDROBIN)
		return px->lb_static ? &lb_ops_static_rr : &lb_ops_rr;
	if (px->lbalgo == LB_ALGO_FIRST)
		return &lb_ops_first;
	if (px->lbalgo < LB_ALGO_HASHED)
		return &lb_ops_live;
	return px->hash_type == LB_HASH_CONSISTENT ? &lb_ops_consistent : &lb_ops_map;
}

/* Frees the retired tables nobody can read any more. Lock held. */
static void lb_retired_reclaim(void)
{
	struct lb_retired **p = &lb_retired_list;

	while (*p) {
		struct lb_retired *r = *p;

		if (!qs_passed(&r->snap)) {
			p = &r->next;
			continue;
		}
		*p = r->next;
		r->free_fn(r->ptr);
		free(r);
	}
}

int lb_update(struct proxy *px)
{
	const struct lb_ops *ops = px->lb ? px->lb : lb_ops_for(px);
	int rc = 0;

	pthread_mutex_lock(&lb_update_lock);
	lb_retired_reclaim();
	if (ops->update)
		rc = ops->update(px);
	pthread_mutex_unlock(&lb_update_lock);
	return rc;
}

struct lb_retired *lb_retire_prepare(void)
{
	return calloc(1, sizeof(struct lb_retired));
}

void lb_retire(struct lb_retired *node, struct proxy *px, void *ptr, void (*free_fn)(void *))
{
	if (!ptr) {
		free(node);
		return;
	}
	node->px = px;
	node->ptr = ptr;
	node->free_fn = free_fn;
	qs_snapshot(&node->snap);
	node->next = lb_retired_list;
	lb_retired_list = node;
}

void lb_retire_locked(struct lb_retired *node, struct proxy *px, void *ptr, void (*free_fn)(void *))
{
	pthread_mutex_lock(&lb_update_lock);
	lb_retired_reclaim();
	lb_retire(node, px, ptr, free_fn);
	pthread_mutex_unlock(&lb_update_lock);
}

void lb_retired_flush(struct proxy *px)
{
	struct lb_retired **p = &lb_retired_list;

	pthread_mutex_lock(&lb_update_lock);
	while (*p) {
		struct lb_retired *r = *p;

		if (r->px != px) {
			p = &r->next;
			continue;
		}
		*p = r->next;
		r->free_fn(r->ptr);
		free(r);
	}
	pthread_mutex_unlock(&lb_update_lock);
}
