/* Unit tests of the per-thread pools and of buffers: reuse from the cache, accounting,
 * release of empty buffers, append/realign limits. */
#include <base/buf.h>
#include <base/pool.h>
#include "../test.h"

DECLARE_POOL(pool_test_obj, "test_obj", 48)

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
