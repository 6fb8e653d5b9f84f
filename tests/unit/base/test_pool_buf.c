/* Unit tests of the per-thread pools and of buffers: reuse from the cache, accounting,
 * release of empty buffers, append/realign limits. */
#include <base/buf.h>
#include <base/pool.h>
#include "../test.h"

DECLARE_POOL(pool_test_obj, "test_obj", 48)
DECLARE_POOL(pool_test_gc, "test_gc", 1024)

TEST(pool_reuses_cached_objects)
{
	void *a = pool_alloc(&pool_test_obj), *b;

	CHECK(a != NULL);
	CHECK_INT(pool_test_obj.cache[tid].used, 1);
	pool_free(&pool_test_obj, a);
#ifdef POOL_BYPASS /* ASan builds: every free goes back to malloc */
	CHECK_INT(pool_test_obj.cache[tid].count, 0);
	b = pool_alloc(&pool_test_obj);
#else
	CHECK_INT(pool_test_obj.cache[tid].count, 1);
	b = pool_alloc(&pool_test_obj);
	CHECK(a == b);
#endif
	pool_free(&pool_test_obj, b);
	pool_free(&pool_test_obj, NULL);
	pool_flush_thread();
	CHECK_INT(pool_test_obj.cache[tid].count, 0);
	CHECK_INT(pool_test_obj.cache[tid].allocated, 0);
}

/* After a burst, a gc leaves max(pool_keep_cached(), 2 x objects in use) free objects per pool,
 * and nothing at all while the cache runs dry between two gcs. */
TEST(pool_gc_releases_burst_surplus)
{
	enum { N = 600, H = 100 };
	static void *objs[N];
	struct pool_cache *c = &pool_test_gc.cache[tid];
	unsigned int keep = pool_keep_cached(&pool_test_gc);
	int i;

	CHECK(keep >= 8 && keep < 2 * H);
	for (i = 0; i < N; i++) {
		objs[i] = pool_alloc(&pool_test_gc);
		CHECK(objs[i] != NULL);
	}
	for (i = H; i < N; i++)
		pool_free(&pool_test_gc, objs[i]);
	CHECK_INT(pool_gc_thread(), 0);   /* the cache ran dry since the last gc */
#ifdef POOL_BYPASS
	CHECK_INT(c->count, 0);
	for (i = 0; i < H; i++)
		pool_free(&pool_test_gc, objs[i]);
#else
	CHECK_INT(c->count, N - H);
	CHECK_INT(pool_gc_thread(), N - 3 * H);
	CHECK_INT(c->count, 2 * H);       /* room for the load to double */
	for (i = 0; i < H; i++)
		pool_free(&pool_test_gc, objs[i]);
	pool_gc_thread();
	CHECK_INT(c->count, keep);
	CHECK_INT(c->allocated, keep);
#endif
	pool_flush_thread();
	CHECK_INT(c->allocated, 0);
}

/* Large objects (buffers) have pages of their own and go back to the system on a gc. */
TEST(pool_gc_large_objects)
{
	enum { N = 64 };
	static char *bufs[N];
	struct pool_cache *c = &pool_buffer.cache[tid];
	int i;

	for (i = 0; i < N; i++) {
		bufs[i] = pool_alloc(&pool_buffer);
		CHECK(bufs[i] != NULL);
		memset(bufs[i], 'x', global_bufsize); /* the whole object is writable */
	}
	for (i = 0; i < N; i++)
		pool_free(&pool_buffer, bufs[i]);
	pool_gc_thread();
	pool_gc_thread();
#ifndef POOL_BYPASS
	CHECK_INT(c->count, pool_keep_cached(&pool_buffer));
#endif
	pool_flush_thread();
	CHECK_INT(c->allocated, 0);
}

TEST(buf_get_put_release)
{
	struct buf b = { 0 };

	CHECK_INT(b_get(&b), 0);
	CHECK_INT(b.size, global_bufsize);
	CHECK_INT(b_putblk(&b, "hello", 5), 0);
	CHECK_INT(b.data, 5);
	b_del(&b, 2);
	CHECK(memcmp(b_head(&b), "llo", 3) == 0);
	b_release_if_empty(&b);
	CHECK(b.area != NULL); /* not empty: kept */
	b_del(&b, 3);
	CHECK_INT(b.head, 0);
	b_release_if_empty(&b);
	CHECK(b.area == NULL);
	pool_flush_thread();
}

TEST(buf_putblk_realigns_then_refuses)
{
	struct buf b = { 0 };
	static char big[16384];

	CHECK_INT(b_get(&b), 0);
	CHECK_INT(b_putblk(&b, big, b.size - 10), 0);
	b_del(&b, 100);
	CHECK_INT(b_putblk(&b, big, 50), 0); /* fits after realign */
	CHECK_INT(b.head, 0);
	CHECK_INT(b_putblk(&b, big, 100), -1);
	CHECK_INT(b.data, b.size - 60);
	b_release(&b);
	pool_flush_thread();
}

/* "show pools" sums the threads' caches: objects handed out, idle in a cache, allocated. */
TEST(pool_stats_sums_threads)
{
	struct pool_stats st;
	void *a = pool_alloc(&pool_test_obj), *b = pool_alloc(&pool_test_obj);

	pool_stats(&pool_test_obj, &st);
	CHECK_INT(st.used, 2);
	CHECK_INT(st.failed, 0);
	pool_free(&pool_test_obj, a);
	pool_stats(&pool_test_obj, &st);
	CHECK_INT(st.used, 1);
	CHECK(st.allocated >= 1);
	pool_free(&pool_test_obj, b);
	pool_flush_thread();
	pool_stats(&pool_test_obj, &st);
	CHECK_INT(st.used, 0);
	CHECK_INT(st.cached, 0);
	CHECK_INT(st.allocated, 0);
}
