/* Typed per-thread object pools: the slow paths (system allocation and release), the
 * cache trimming after bursts and the registry used by "show pools". The fast paths are
 * inline in include/base/pool.h.
 *
 * Objects of POOL_MMAP_MIN bytes or more (buffers) get pages of their own from mmap():
 * from malloc they would sit between the small long-lived objects (connections) of the
 * same heap, which would pin their pages after a burst whatever free() or malloc_trim()
 * do. Their slow paths are rare: the caches serve steady traffic.
 */
#include <malloc.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <base/atomic.h>
#include <sys/mman.h>
#include <base/pool.h>

#define POOL_MAX_CACHED  4096U          /* hard per-thread cache limit, objects */
#define POOL_KEEP_BYTES  (128U << 10)   /* what a gc leaves per pool and thread, bytes */
#define POOL_KEEP_MIN    8U             /* ... and at least that many objects */
#define POOL_MMAP_MIN    8192U          /* objects this large are mmap()ed */
#define POOL_PAGE        4096U

__thread unsigned int tid;
__thread unsigned int tgid = 1;

struct pool_head *pools;

/* Sizes below a free-list link are raised to it. */
static void pool_fix_size(struct pool_head *pool)
{
	if (pool->size < sizeof(struct pool_item))
		pool->size = sizeof(struct pool_item);
	pool->max_cached = POOL_MAX_CACHED;
}

/* Computed from the current size: some pools are resized at startup (buffers, streams). */
unsigned int pool_keep_cached(const struct pool_head *pool)
{
	size_t keep = POOL_KEEP_BYTES / pool->size;

	return (unsigned int)(keep < POOL_KEEP_MIN ? POOL_KEEP_MIN :
			      keep > POOL_MAX_CACHED ? POOL_MAX_CACHED : keep);
}

/* Called from constructors before main(): single-threaded. */
void pool_register(struct pool_head *pool)
{
	pool_fix_size(pool);
	pool->next = pools;
	pools = pool;
}

void pool_resize(struct pool_head *pool, size_t size)
{
	pool->size = size;
	pool_fix_size(pool);
}

static bool pool_is_mapped(const struct pool_head *pool)
{
#ifdef POOL_BYPASS
	return false;      /* ASan checks malloc()ed objects only */
#else
	return pool->size >= POOL_MMAP_MIN;
#endif
}

static size_t pool_map_len(const struct pool_head *pool)
{
	return (pool->size + POOL_PAGE - 1) & ~(size_t)(POOL_PAGE - 1);
}

static void *pool_sys_alloc(struct pool_head *pool)
{
	void *p;

	if (!pool_is_mapped(pool))
		return malloc(pool->size);
	p = mmap(NULL, pool_map_len(pool), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void pool_sys_free(struct pool_head *pool, void *ptr)
{
	if (pool_is_mapped(pool))
		munmap(ptr, pool_map_len(pool));
	else
		free(ptr);
}

void *pool_alloc_slow(struct pool_head *pool)
{
	struct pool_cache *c = &pool->cache[tid];
	void *p = pool_sys_alloc(pool);

	c->misses++;
	if (!p)
		c->failed++;
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
	pool_sys_free(pool, ptr);
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
			pool_sys_free(p, it);
		}
		c->count = 0;
	}
}

/* Releases the cached objects of <pool> beyond what the calling thread should keep:
 * nothing if the cache ran dry since the last gc (the load uses it), else down to twice
 * the objects in use (room for the load to double) and at least pool_keep_cached(). Returns the
 * number released; sets *small when malloc()ed objects were among them.
 */
static unsigned long pool_gc_one(struct pool_head *pool, bool *small)
{
	struct pool_cache *c = &pool->cache[tid];
	unsigned long keep = 2UL * c->used, n = 0;
	bool missed = c->misses != c->gc_misses;

	/* the cache ran dry since the last gc: the load needs it all */
	c->gc_misses = c->misses;
	if (missed)
		return 0;
	if (keep < pool_keep_cached(pool))
		keep = pool_keep_cached(pool);

	while (c->count > keep && c->free) {
		struct pool_item *it = c->free;

		c->free = it->next;
		c->count--;
		c->allocated--;
		pool_sys_free(pool, it);
		n++;
	}
	if (n && !pool_is_mapped(pool))
		*small = true;
	return n;
}

unsigned long pool_gc_thread(void)
{
	unsigned long n = 0;
	bool small = false;

	for (struct pool_head *p = pools; p; p = p->next)
		n += pool_gc_one(p, &small);
	if (small)
		malloc_trim(0);
	return n;
}

void pool_stats(const struct pool_head *pool, struct pool_stats *st)
{
	long used = 0;

	memset(st, 0, sizeof(*st));
	for (int t = 0; t < MAX_THREADS; t++) {
		const struct pool_cache *c = &pool->cache[t];

		st->allocated += HA_ATOMIC_LOAD_RLX(&c->allocated);
		st->cached += HA_ATOMIC_LOAD_RLX(&c->count);
		st->failed += HA_ATOMIC_LOAD_RLX(&c->failed);
		/* an object freed by another thread than its allocator makes one thread's
		 * count wrap: only the sum means something */
		used += (long)(int)HA_ATOMIC_LOAD_RLX(&c->used);
	}
	st->used = used > 0 ? (unsigned long)used : 0;
}
