/* Unit tests of the cache's store (src/cache/cache_store.c): entries visible once
 * published, one writer per variant, secondary keys and their limit, max-object-size,
 * the byte budget kept by LRU eviction, references that keep an evicted entry alive for
 * its reader, invalidation, expiry, and threads hammering one store (bodies checked).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <cache/cache.h>
#include "../test.h"

static void mk(struct cache *c, uint64_t max_bytes, uint64_t max_obj)
{
	memset(c, 0, sizeof(*c));
	c->id = "t";
	c->max_bytes = max_bytes;
	c->max_obj = max_obj;
	c->max_age = 60;
	c->max_sec = 3;
	if (cache_store_init(c) < 0)
		test_fail(__FILE__, __LINE__, "cache_store_init failed");
}

static struct cache_key key(const char *s)
{
	struct cache_key k = { cache_key_hash(s, strlen(s)), s, (uint32_t)strlen(s) };

	return k;
}

/* Stores <body> under <k> (variant vary/sec), published until <expire>. */
static struct cache_entry *put_obj(struct cache *c, const char *k, const char *body, uint8_t vary,
				   uint32_t sec1, int64_t expire)
{
	struct cache_key ck = key(k);
	struct cache_wdesc d = { .vary = vary,
				 .sec = { 0, sec1, 0 },
				 .status = 200,
				 .reason = IST("OK"),
				 .head_len = 4,
				 .framing = CE_FR_CLEN };
	struct cache_entry *e = cache_wr_begin(c, &ck, &d);

	if (!e)
		return NULL;
	memcpy(cache_wr_head(e), "a: b", 4);
	if (cache_wr_append(c, e, body, strlen(body)) < 0) {
		cache_wr_end(c, e, false, 0);
		return NULL;
	}
	cache_wr_end(c, e, true, expire);
	return e;
}

static bool body_is(const struct cache_entry *e, const char *s)
{
	return e && e->body_len == strlen(s) && !memcmp(cache_entry_body(e), s, e->body_len);
}

TEST(cache_store_publish_and_get)
{
	struct cache c;
	struct cache_key k = key("https://h/a");
	struct cache_wdesc d = { .status = 200, .reason = IST("OK"), .head_len = 4 };
	struct cache_entry *w, *e;

	mk(&c, 1 << 20, 1 << 18);
	w = cache_wr_begin(&c, &k, &d);
	CHECK(w != NULL);
	memcpy(cache_wr_head(w), "x: y", 4);
	CHECK_INT(cache_wr_append(&c, w, "hello ", 6), 0);
	/* not visible while written, and a second writer of the same response is refused */
	CHECK(cache_get(&c, &k, NULL, 0) == NULL);
	CHECK(cache_wr_begin(&c, &k, &d) == NULL);
	CHECK_INT(cache_wr_append(&c, w, "world", 5), 0);
	cache_wr_end(&c, w, true, 100);
	e = cache_get(&c, &k, NULL, 10);
	CHECK(body_is(e, "hello world"));
	CHECK_STR(cache_entry_reason(e), "OK");
	CHECK(e && !memcmp(cache_entry_head(e), "x: y", 4));
	if (e)
		cache_put(e);
	/* expired: gone */
	CHECK(cache_get(&c, &k, NULL, 100) == NULL);
	CHECK(cache_get(&c, &k, NULL, 10) == NULL);
	cache_store_free(&c);
}

TEST(cache_store_replace_abort_invalidate)
{
	struct cache c;
	struct cache_key k = key("https://h/b");
	struct cache_entry *e;

	mk(&c, 1 << 20, 1 << 18);
	CHECK(put_obj(&c, "https://h/b", "one", 0, 0, 100) != NULL);
	CHECK(put_obj(&c, "https://h/b", "two", 0, 0, 100) != NULL);
	e = cache_get(&c, &k, NULL, 1);
	CHECK(body_is(e, "two"));
	if (e)
		cache_put(e);
	/* an aborted write leaves what was there */
	{
		struct cache_wdesc d = { .status = 200, .reason = IST("OK") };
		struct cache_entry *w = cache_wr_begin(&c, &k, &d);

		CHECK(w != NULL);
		if (w)
			cache_wr_end(&c, w, false, 100);
	}
	e = cache_get(&c, &k, NULL, 1);
	CHECK(body_is(e, "two"));
	if (e)
		cache_put(e);
	cache_invalidate(&c, &k);
	CHECK(cache_get(&c, &k, NULL, 1) == NULL);
	CHECK_INT(c.store->used, 0);
	cache_store_free(&c);
}

TEST(cache_store_secondary_keys)
{
	struct cache c;
	struct cache_key k = key("https://h/v");
	struct cache_sec s = { .ae_any = 1 };
	struct cache_entry *e;

	mk(&c, 1 << 20, 1 << 18);
	CHECK(put_obj(&c, "https://h/v", "ra", CACHE_VARY_REFERER, 11, 100) != NULL);
	CHECK(put_obj(&c, "https://h/v", "rb", CACHE_VARY_REFERER, 22, 100) != NULL);
	CHECK(put_obj(&c, "https://h/v", "rc", CACHE_VARY_REFERER, 33, 100) != NULL);
	/* max-secondary-entries 3 */
	CHECK(put_obj(&c, "https://h/v", "rd", CACHE_VARY_REFERER, 44, 100) == NULL);
	/* the same variant again replaces it */
	CHECK(put_obj(&c, "https://h/v", "rb2", CACHE_VARY_REFERER, 22, 100) != NULL);
	s.referer = 22;
	e = cache_get(&c, &k, &s, 1);
	CHECK(body_is(e, "rb2"));
	if (e)
		cache_put(e);
	s.referer = 44;
	CHECK(cache_get(&c, &k, &s, 1) == NULL);
	/* a request without secondary values never matches a variant */
	CHECK(cache_get(&c, &k, NULL, 1) == NULL);
	cache_store_free(&c);
}

TEST(cache_store_max_object_size)
{
	struct cache c;
	char big[600];
	struct cache_key k = key("https://h/big");
	struct cache_wdesc d = { .status = 200, .reason = IST("OK"), .body_hint = 10000 };

	mk(&c, 1 << 20, sizeof(struct cache_entry) + 500);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	/* an announced length over the limit: not even started */
	CHECK(cache_wr_begin(&c, &k, &d) == NULL);
	/* a body that grows over it: refused while written */
	CHECK(put_obj(&c, "https://h/big", big, 0, 0, 100) == NULL);
	CHECK(cache_get(&c, &k, NULL, 1) == NULL);
	big[400] = 0;
	CHECK(put_obj(&c, "https://h/big", big, 0, 0, 100) != NULL);
	CHECK_INT(c.store->used <= c.max_bytes, 1);
	cache_store_free(&c);
}

TEST(cache_store_lru_eviction_and_refs)
{
	struct cache c;
	char name[64], body[2000];
	struct cache_entry *held, *e;
	struct cache_key k0 = key("https://h/0");
	int i, found = 0;

	mk(&c, 64 * 1024, 16 * 1024);
	memset(body, 'b', sizeof(body) - 1);
	body[sizeof(body) - 1] = 0;
	CHECK(put_obj(&c, "https://h/0", body, 0, 0, 100) != NULL);
	held = cache_get(&c, &k0, NULL, 1); /* a reader keeps the first one */
	CHECK(held != NULL);
	for (i = 1; i < 200; i++) {
		snprintf(name, sizeof(name), "https://h/%d", i);
		CHECK(put_obj(&c, name, body, 0, 0, 100) != NULL);
		CHECK(c.store->used <= c.max_bytes);
	}
	/* the oldest were evicted, the newest are there */
	for (i = 0; i < 200; i++) {
		struct cache_key ki;

		snprintf(name, sizeof(name), "https://h/%d", i);
		ki = key(name);
		e = cache_get(&c, &ki, NULL, 1);
		if (e) {
			found++;
			cache_put(e);
		}
	}
	CHECK(found > 10 && found < 40);
	CHECK(c.store->evictions > 150);
	/* the evicted entry is still whole for its reader */
	CHECK(body_is(held, body));
	if (held)
		cache_put(held);
	/* an object larger than the store is refused */
	cache_store_free(&c);
}

/* ---- threads ---- */

#define NTHREADS 4
#define NKEYS 64
#define ROUNDS 20000

static struct cache mt;
static int mt_bad;

/* The body of key <i>: its length and bytes derive from it. */
static size_t mt_body(int i, char *out)
{
	size_t n = 100 + (size_t)(i * 37) % 900;

	for (size_t j = 0; j < n; j++)
		out[j] = (char)('a' + (i + j) % 26);
	out[n] = 0;
	return n;
}

static void *mt_run(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	char name[32], body[1100];

	for (int r = 0; r < ROUNDS; r++) {
		int i = (int)(rand_r(&seed) % NKEYS);
		struct cache_key k;
		struct cache_entry *e;

		snprintf(name, sizeof(name), "https://h/%d", i);
		k = key(name);
		mt_body(i, body);
		e = cache_get(&mt, &k, NULL, 1);
		if (e) {
			if (!body_is(e, body))
				__atomic_store_n(&mt_bad, 1, __ATOMIC_RELAXED);
			cache_put(e);
		} else if (rand_r(&seed) % 4 == 0) {
			put_obj(&mt, name, body, 0, 0, 100);
		} else if (rand_r(&seed) % 64 == 0) {
			cache_invalidate(&mt, &k);
		}
	}
	return NULL;
}

TEST(cache_store_threads)
{
	pthread_t th[NTHREADS];

	mk(&mt, 32 * 1024, 8 * 1024); /* small: evictions all the time */
	for (int t = 0; t < NTHREADS; t++)
		pthread_create(&th[t], NULL, mt_run, (void *)(uintptr_t)(t + 1));
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	CHECK_INT(mt_bad, 0);
	CHECK(mt.store->used <= mt.max_bytes);
	CHECK(mt.store->evictions > 0);
	cache_store_free(&mt);
}
