/* Map and ACL changes made by rules (map_act.h): add-acl, del-acl, set-map and del-map run
 * on whichever loop thread handles the request. Each change is the runtime API's: the
 * writer lock (map_lock), the frees earlier changes left behind, the change through
 * map_ref.h, then the retired objects wait for the threads and ACL indexes fall back.
 *
 * Why this is safe off thread 0: map_lock only orders writers, and every map_ref.h change
 * is written for readers that take no lock on any thread (publication by release stores,
 * nothing freed before every thread passed a quiescent state). The writer's own thread is
 * one of those readers: what it retired stays valid until its loop turn ends, so samples
 * of the current request that point into a replaced value remain readable. The lock is
 * held for one change only (no I/O, no allocation-heavy work beyond the entry itself).
 */
#include <pthread.h>
#include <string.h>

#include <base/atomic.h>
#include <sample/cond_index.h>
#include <sample/map_act.h>
#include <sample/map_ref.h>
#include <sample/pattern.h>

struct map_ref *map_act_find(const char *path)
{
	return map_ref_find_path(path, MAP_REF_F_MAP | MAP_REF_F_ACL);
}

static void map_act_begin(void)
{
	pthread_mutex_lock(&map_lock);
	pat_reclaim();
}

/* ACL indexes of rules copy the patterns: once an ACL one of them copied changed,
 * conditions are tested one by one (cond_index.c), as after the CLI's "add acl". */
static void map_act_end(const struct map_ref *r)
{
	if (r->flags & MAP_REF_F_INDEXED)
		HA_ATOMIC_STORE_RLX(&cond_index_acls_changed, true);
	pat_retire_close();
	pthread_mutex_unlock(&map_lock);
}

static struct map_elt *map_act_first(struct map_ref *r, const char *key)
{
	for (struct map_elt *el = r->head; el; el = el->next)
		if (el->gen == r->curr_ver && !strcmp(el->key, key))
			return el;
	return NULL;
}

void map_act_add_acl(struct map_ref *r, const char *key)
{
	char err[256];

	map_act_begin();
	if (!map_act_first(r, key))
		map_ref_add(r, key, NULL, r->curr_ver, err, sizeof(err));
	map_act_end(r);
}

void map_act_del(struct map_ref *r, const char *key)
{
	struct map_elt *el, *n;

	map_act_begin();
	for (el = r->head; el; el = n) {
		n = el->next;
		if (el->gen == r->curr_ver && !strcmp(el->key, key))
			map_ref_del(r, el);
	}
	map_act_end(r);
}

void map_act_set(struct map_ref *r, const char *key, const char *value)
{
	struct map_elt *el;
	bool found = false;
	char err[256];

	map_act_begin();
	for (el = r->head; el; el = el->next) {
		if (el->gen != r->curr_ver || strcmp(el->key, key))
			continue;
		found = true;
		if (map_ref_set_value(r, el, value, err, sizeof(err)) < 0)
			break;
	}
	if (!found)
		map_ref_add(r, key, value, r->curr_ver, err, sizeof(err));
	map_act_end(r);
}
