/* Typed per-thread object pools: the slow paths (malloc/free) and the registry used by
 * "show pools". The fast paths are inline in include/base/pool.h.
 */
#include <stdlib.h>
#include <base/pool.h>

__thread unsigned int tid;
__thread unsigned int tgid = 1;

struct pool_head *pools;

/* Called from constructors before main(): single-threaded. */
void pool_register(struct pool_head *pool)
{
	if (pool->size < sizeof(struct pool_item))
		pool->size = sizeof(struct pool_item);
	pool->next = pools;
	pools = pool;
}

void *pool_alloc_slow(struct pool_head *pool)
{
	struct pool_cache *c = &pool->cache[tid];
	void *p = malloc(pool->size);

	if (p) {
		c->used++;
		c->allocated++;
	}
	return p;
}

void pool_free_slow(struct pool_head *pool, void *ptr)
{
	struct pool_cache *c = &pool->cache[tid];

	c->used--;
	c->allocated--;
	free(ptr);
}

/* Returns every cached object of the calling thread to malloc (thread exit, tests). */
void pool_flush_thread(void)
{
	for (struct pool_head *p = pools; p; p = p->next) {
		struct pool_cache *c = &p->cache[tid];

		while (c->free) {
			struct pool_item *it = c->free;

			c->free = it->next;
			c->allocated--;
			free(it);
		}
		c->count = 0;
	}
}
