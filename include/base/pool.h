/* Typed per-thread object pools. pool_alloc() returns NULL when memory is exhausted (the
 * caller fails the request, never the process); pool_free(NULL) is a no-op. Any thread may
 * call them: each thread uses only its own cache, so there is no lock.
 */
#ifndef BASE_POOL_H
#define BASE_POOL_H

#include <stdlib.h>
#include <base/pool-t.h>

extern struct pool_head *pools;

/* Declares a pool for objects of <sz> bytes, registered at startup (pool_register() sets
 * the cache limits from the size). */
#define DECLARE_POOL(var, nm, sz)                                                   \
	struct pool_head var = { .name = (nm), .size = (sz) };                      \
	__attribute__((constructor)) static void __pool_reg_##var(void)             \
	{                                                                            \
		pool_register(&var);                                                 \
	}

void pool_register(struct pool_head *pool);
/* Changes the object size of <pool>; only before any allocation. */
void pool_resize(struct pool_head *pool, size_t size);
/* The fewest free objects pool_gc_thread() leaves in a thread's cache of <pool>. */
unsigned int pool_keep_cached(const struct pool_head *pool);
void *pool_alloc_slow(struct pool_head *pool);
void pool_free_slow(struct pool_head *pool, void *ptr);
void pool_flush_thread(void);

/* Sums <pool>'s per-thread counters into <st>. Any thread; the counters of the other
 * threads are read without synchronisation while they change: an estimate, as HAProxy's
 * ("~N by thread caches"). */
void pool_stats(const struct pool_head *pool, struct pool_stats *st);

/* Gives back what a burst left in the calling thread's caches. A pool whose cache ran
 * dry since the previous call keeps everything (the load needs it); another keeps twice
 * the objects in use now and at least pool_keep_cached(), the rest goes back to the system
 * (large objects have pages of their own, the small ones are followed by a malloc_trim()).
 * Called from a timer of the thread's loop (conn/connection.c), never on the request
 * path. Returns the number of objects released.
 */
unsigned long pool_gc_thread(void);

/* Under AddressSanitizer objects go straight to malloc/free, so that a use after free of
 * a pooled object is reported instead of hidden by the cache. */
#if defined(__SANITIZE_ADDRESS__)
#define POOL_BYPASS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_BYPASS 1
#endif
#endif

static inline void *pool_alloc(struct pool_head *pool)
{
	struct pool_cache *c = &pool->cache[tid];
	struct pool_item *it = c->free;

#ifdef POOL_BYPASS
	it = NULL;
#endif
	if (unlikely(!it))
		return pool_alloc_slow(pool);
	c->free = it->next;
	c->count--;
	c->used++;
	return it;
}

static inline void pool_free(struct pool_head *pool, void *ptr)
{
	struct pool_cache *c = &pool->cache[tid];
	struct pool_item *it = ptr;

	if (unlikely(!ptr))
		return;
#ifdef POOL_BYPASS
	pool_free_slow(pool, ptr);
	return;
#endif
	if (unlikely(c->count >= pool->max_cached)) {
		pool_free_slow(pool, ptr);
		return;
	}
	it->next = c->free;
	c->free = it;
	c->count++;
	c->used--;
}

#endif
