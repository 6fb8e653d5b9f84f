/* Unit tests of the stick table core: rates over a period, keys of every type, lookups,
 * references, expiry, LRU eviction, nopurge, detached entries, walks, and exact counts
 * under concurrent threads.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <sample/sample.h>
#include <stream/stktable.h>

#include "../test.h"

#define T0 1000000ULL /* a "now" far from 0 */

static struct stktable *mk_table(int type, uint32_t key_size, uint32_t size, int expire)
{
	struct stktable *t = stktable_new("t", "test.cfg", 1, NULL);

	t->type = (uint8_t)type;
	t->key_size = key_size;
	t->size = size;
	t->expire = expire;
	stktable_store(t, STK_DT_GPC0, 1, 0);
	stktable_store(t, STK_DT_HTTP_REQ_RATE, 1, 10000);
	stktable_store(t, STK_DT_GPC, 3, 0);
	stktable_store(t, STK_DT_BYTES_IN_CNT, 1, 0);
	stktable_store(t, STK_DT_SERVER_ID, 1, 0);
	CHECK_INT(stktable_init(t), 0);
	return t;
}

/* A key pointing to its own buffer: built in place, never copied. */
static void ipkey(struct stk_key *k, const char *ip)
{
	memset(k, 0, sizeof(*k));
	inet_pton(AF_INET, ip, k->buf);
	k->ptr = k->buf;
	k->len = 4;
}

static long long get_dt(struct stktable *t, struct stksess *ts, int dt, uint32_t idx, uint64_t now)
{
	long long v = -1;

	stksess_lock(t, ts);
	stksess_get(t, ts, dt, idx, now, &v);
	stksess_unlock(t, ts);
	return v;
}

static void add_dt(struct stktable *t, struct stksess *ts, int dt, uint64_t v, uint64_t now)
{
	stksess_lock(t, ts);
	stksess_add(t, ts, dt, 0, v, now);
	stksess_unlock(t, ts);
}

TEST(stk_rate_first_period_counts_exactly)
{
	struct stk_rate r = { 0 };

	for (int i = 1; i <= 100; i++) {
		stk_rate_add(&r, 10000, T0 + (uint64_t)i * 90, 1);
		CHECK_INT(stk_rate_read(&r, 10000, T0 + (uint64_t)i * 90), i);
	}
	stk_rate_add(&r, 10000, T0 + 9999, 1);
	CHECK_INT(stk_rate_read(&r, 10000, T0 + 9999), 101);
}

TEST(stk_rate_sliding_window)
{
	struct stk_rate r = { 0 };

	for (int i = 0; i < 100; i++)
		stk_rate_add(&r, 1000, T0, 1);
	/* next period: the previous one weighs by the share of the window left */
	CHECK_INT(stk_rate_read(&r, 1000, T0 + 1000), 100);
	CHECK_INT(stk_rate_read(&r, 1000, T0 + 1250), 75);
	CHECK_INT(stk_rate_read(&r, 1000, T0 + 1500), 50);
	stk_rate_add(&r, 1000, T0 + 1500, 10);
	CHECK_INT(stk_rate_read(&r, 1000, T0 + 1500), 60);
	CHECK_INT(stk_rate_read(&r, 1000, T0 + 1900), 20);
	/* two periods later the old counts are gone */
	CHECK_INT(stk_rate_read(&r, 1000, T0 + 2500), 5);
	CHECK_INT(stk_rate_read(&r, 1000, T0 + 3000), 0);
	stk_rate_add(&r, 1000, T0 + 5000, 3);
	CHECK_INT(stk_rate_read(&r, 1000, T0 + 5000), 3);
	CHECK_INT(stk_rate_read(&r, 1000, T0 + 5999), 3);
	/* a lagging clock still counts in the current period */
	stk_rate_add(&r, 1000, T0 + 4990, 1);
	CHECK_INT(stk_rate_read(&r, 1000, T0 + 5000), 4);
}

TEST(stk_table_get_lookup_and_counts)
{
	struct stktable *t = mk_table(STK_KEY_IP, 4, 100, 0);
	struct stk_key k, k2;
	struct stksess *a, *b;

	ipkey(&k, "10.0.0.1");
	ipkey(&k2, "10.0.0.2");
	CHECK(stktable_lookup(t, &k, T0) == NULL);
	a = stktable_get(t, &k, T0);
	CHECK(a != NULL);
	CHECK_INT(stktable_used(t), 1);
	b = stktable_get(t, &k, T0);
	CHECK(a == b);
	CHECK_INT(stksess_refs(a), 2);
	add_dt(t, a, STK_DT_GPC0, 5, T0);
	add_dt(t, a, STK_DT_HTTP_REQ_RATE, 1, T0);
	CHECK_INT(get_dt(t, a, STK_DT_GPC0, 0, T0), 5);
	CHECK_INT(get_dt(t, a, STK_DT_HTTP_REQ_RATE, 0, T0 + 1), 1);
	stktable_release(t, a, true, T0);
	stktable_release(t, b, true, T0);
	CHECK_INT(stksess_refs(a), 0);
	{
		long long v;

		CHECK_INT(stktable_read_key(t, &k, STK_DT_GPC0, 0, T0, &v), 1);
		CHECK_INT(v, 5);
		CHECK_INT(stktable_read_key(t, &k2, STK_DT_GPC0, 0, T0, &v), 0);
		CHECK_INT(v, 0);
		CHECK_INT(stktable_read_key(t, &k, STK_DT_CONN_CUR, 0, T0, &v), -1);
	}
	/* arrays: in range only */
	a = stktable_lookup(t, &k, T0);
	stksess_lock(t, a);
	CHECK(stksess_data(t, a, STK_DT_GPC, 2) != NULL);
	CHECK(stksess_data(t, a, STK_DT_GPC, 3) == NULL);
	CHECK(stksess_data(t, a, STK_DT_GPT, 0) == NULL);
	CHECK_INT(stksess_add(t, a, STK_DT_GPC, 2, 7, T0), 1);
	stksess_unlock(t, a);
	CHECK_INT(get_dt(t, a, STK_DT_GPC, 2, T0), 7);
	CHECK_INT(get_dt(t, a, STK_DT_GPC, 1, T0), 0);
	stktable_release(t, a, false, T0);
	CHECK_INT(stktable_remove_key(t, &k, T0), 1);
	CHECK_INT(stktable_remove_key(t, &k, T0), 0);
	CHECK_INT(stktable_used(t), 0);
	stktable_free(t);
}

TEST(stk_table_expiry)
{
	struct stktable *t = mk_table(STK_KEY_IP, 4, 100, 1000);
	struct stk_key k, k2;
	struct stksess *a, *b;

	ipkey(&k, "10.0.0.1");
	ipkey(&k2, "10.0.0.2");
	a = stktable_get(t, &k, T0);
	add_dt(t, a, STK_DT_GPC0, 3, T0);
	stktable_release(t, a, true, T0);
	CHECK_INT(stksess_expires_in(t, a, T0 + 400), 600);
	CHECK(stktable_lookup(t, &k, T0 + 999) == a);
	stktable_release(t, a, true, T0 + 999); /* a write renews the expiry */
	{
		long long v;

		CHECK_INT(stktable_read_key(t, &k, STK_DT_GPC0, 0, T0 + 1500, &v), 1);
		CHECK_INT(stktable_read_key(t, &k, STK_DT_GPC0, 0, T0 + 1999, &v), 0);
	}
	CHECK(stktable_lookup(t, &k, T0 + 2000) == NULL);
	/* get on an expired key starts over */
	a = stktable_get(t, &k, T0 + 2000);
	CHECK_INT(get_dt(t, a, STK_DT_GPC0, 0, T0 + 2000), 0);
	CHECK_INT(stktable_used(t), 1);
	/* an entry in use never expires; released late, it is freed */
	b = stktable_get(t, &k2, T0 + 2000);
	CHECK_INT(stktable_purge(t, T0 + 5000), 0);
	CHECK(stktable_lookup(t, &k, T0 + 5000) == a);
	stktable_release(t, a, false, T0 + 5000);
	stktable_release(t, a, false, T0 + 5000);
	CHECK_INT(stktable_used(t), 1);
	stktable_release(t, b, true, T0 + 5000);
	CHECK_INT(stktable_purge(t, T0 + 5999), 0);
	CHECK_INT(stktable_purge(t, T0 + 6000), 1);
	CHECK_INT(stktable_used(t), 0);
	stktable_free(t);
}

TEST(stk_table_lru_eviction)
{
	struct stktable *t = mk_table(STK_KEY_IP, 4, 3, 0);
	struct stk_key k[6];
	char ip[16];
	struct stksess *held;

	for (int i = 0; i < 6; i++) {
		snprintf(ip, sizeof(ip), "10.0.0.%d", i);
		ipkey(&k[i], ip);
	}
	for (int i = 0; i < 3; i++)
		stktable_release(t, stktable_get(t, &k[i], T0 + (uint64_t)i), true,
				 T0 + (uint64_t)i);
	/* k0 is written again: k1 is now the least recently written */
	stktable_release(t, stktable_get(t, &k[0], T0 + 10), true, T0 + 10);
	stktable_release(t, stktable_get(t, &k[3], T0 + 11), true, T0 + 11);
	CHECK_INT(stktable_used(t), 3);
	CHECK(stktable_lookup(t, &k[1], T0 + 12) == NULL);
	/* an entry in use is not evicted: k2 held, k0 goes next */
	held = stktable_lookup(t, &k[2], T0 + 12);
	CHECK(held != NULL);
	stktable_release(t, stktable_get(t, &k[4], T0 + 13), true, T0 + 13);
	CHECK(stktable_lookup(t, &k[0], T0 + 14) == NULL);
	stktable_release(t, held, false, T0 + 14);
	CHECK_INT(stktable_clear(t), 3);
	CHECK_INT(stktable_used(t), 0);
	stktable_free(t);
}

TEST(stk_table_full_of_entries_in_use_and_nopurge)
{
	struct stktable *t = mk_table(STK_KEY_IP, 4, 2, 0);
	struct stk_key a, b, c;
	struct stksess *ea, *eb;

	ipkey(&a, "1.1.1.1");
	ipkey(&b, "2.2.2.2");
	ipkey(&c, "3.3.3.3");
	ea = stktable_get(t, &a, T0);
	eb = stktable_get(t, &b, T0);
	CHECK(stktable_get(t, &c, T0) == NULL); /* both in use */
	stktable_release(t, ea, true, T0);
	stktable_release(t, eb, true, T0 + 1);
	t->nopurge = 1;
	CHECK(stktable_get(t, &c, T0) == NULL);
	t->nopurge = 0;
	ea = stktable_get(t, &c, T0 + 2);
	CHECK(ea != NULL);
	CHECK(stktable_lookup(t, &a, T0 + 2) == NULL);
	stktable_release(t, ea, true, T0 + 2);
	CHECK_INT(stktable_used(t), 2);
	stktable_free(t);
}

TEST(stk_table_batch_eviction_like_haproxy)
{
	/* size 1000: a full table evicts size/256 + 1 = 4 entries at once */
	struct stktable *t = mk_table(STK_KEY_INT, 4, 1000, 0);
	struct stk_key k = { 0 };

	k.ptr = k.buf;
	k.len = 4;
	for (uint32_t i = 0; i < 1001; i++) {
		memcpy(k.buf, &i, 4);
		stktable_release(t, stktable_get(t, &k, T0 + i), true, T0 + i);
	}
	CHECK_INT(stktable_used(t), 997);
	for (uint32_t i = 0; i < 4; i++) {
		long long v;

		memcpy(k.buf, &i, 4);
		CHECK_INT(stktable_read_key(t, &k, STK_DT_GPC0, 0, T0 + 2000, &v), 0);
	}
	stktable_free(t);
}

TEST(stk_keys_of_every_type)
{
	struct stktable *ts = mk_table(STK_KEY_STR, 8, 10, 0);
	struct stktable *tb = mk_table(STK_KEY_BIN, 6, 10, 0);
	struct stktable *t6 = mk_table(STK_KEY_IPV6, 16, 10, 0);
	struct sample smp = { 0 };
	struct stk_key k, k2;
	unsigned char buf[64];
	struct stksess *e;
	char out[128];

	smp.data.type = SMP_T_STR;
	smp.data.u.str = ist_str("abcdefghijk");
	CHECK_INT(stk_key_from_smp(ts, &smp, &k), 1);
	CHECK_INT(k.len, 8);
	e = stktable_get(ts, &k, T0);
	stk_key_print(ts, e, out, sizeof(out));
	CHECK_STR(out, "abcdefgh");
	CHECK_INT(stk_key_parse(ts, "abcdefghXYZ", &k2, buf, sizeof(buf)), 0);
	CHECK(stktable_lookup(ts, &k2, T0) == e);
	stktable_release(ts, e, false, T0);
	stktable_release(ts, e, false, T0);
	smp.data.type = SMP_T_STR;
	smp.data.u.str = ist_str("a b\\c=");
	stk_key_from_smp(ts, &smp, &k);
	e = stktable_get(ts, &k, T0);
	stk_key_print(ts, e, out, sizeof(out));
	CHECK_STR(out, "a\\ b\\\\c\\=");
	stktable_release(ts, e, false, T0);

	/* binary keys are zero-padded: "ab" and "ab\0" are one key */
	smp.data.type = SMP_T_BIN;
	smp.data.u.str = ist2("ab", 2);
	stk_key_from_smp(tb, &smp, &k);
	e = stktable_get(tb, &k, T0);
	stk_key_print(tb, e, out, sizeof(out));
	CHECK_STR(out, "616200000000");
	smp.data.u.str = ist2("ab\0", 3);
	stk_key_from_smp(tb, &smp, &k);
	CHECK(stktable_lookup(tb, &k, T0) == e);
	CHECK_INT(stk_key_parse(tb, "6162", &k2, buf, sizeof(buf)), 0);
	CHECK(stktable_lookup(tb, &k2, T0) == e);
	CHECK_INT(stk_key_parse(tb, "616", &k2, buf, sizeof(buf)), -1);
	CHECK_INT(stk_key_parse(tb, "zz", &k2, buf, sizeof(buf)), -1);
	for (int i = 0; i < 3; i++)
		stktable_release(tb, e, false, T0);

	/* IPv4 samples are mapped into IPv6 tables */
	smp.data.type = SMP_T_IPV4;
	inet_pton(AF_INET, "192.0.2.1", &smp.data.u.ipv4);
	CHECK_INT(stk_key_from_smp(t6, &smp, &k), 1);
	e = stktable_get(t6, &k, T0);
	stk_key_print(t6, e, out, sizeof(out));
	CHECK_STR(out, "::ffff:192.0.2.1");
	CHECK_INT(stk_key_parse(t6, "::ffff:192.0.2.1", &k2, buf, sizeof(buf)), 0);
	CHECK(stktable_lookup(t6, &k2, T0) == e);
	CHECK_INT(stk_key_parse(t6, "192.0.2.1", &k2, buf, sizeof(buf)), -1);
	stktable_release(t6, e, false, T0);
	stktable_release(t6, e, false, T0);
	stktable_free(ts);
	stktable_free(tb);
	stktable_free(t6);
}

TEST(stk_keys_ip_and_int)
{
	struct stktable *t4 = mk_table(STK_KEY_IP, 4, 10, 0);
	struct stktable *ti = mk_table(STK_KEY_INT, 4, 10, 0);
	struct sample smp = { 0 };
	struct stk_key k;
	unsigned char buf[8];
	struct stksess *e;
	char out[64];

	/* an IPv6 client has no key in an IPv4 table, unless mapped */
	smp.data.type = SMP_T_IPV6;
	inet_pton(AF_INET6, "2001:db8::1", &smp.data.u.ipv6);
	CHECK_INT(stk_key_from_smp(t4, &smp, &k), 0);
	smp.data.type = SMP_T_IPV6;
	inet_pton(AF_INET6, "::ffff:10.1.2.3", &smp.data.u.ipv6);
	CHECK_INT(stk_key_from_smp(t4, &smp, &k), 1);
	e = stktable_get(t4, &k, T0);
	stk_key_print(t4, e, out, sizeof(out));
	CHECK_STR(out, "10.1.2.3");
	stktable_release(t4, e, false, T0);
	CHECK_INT(stk_key_parse(t4, "10.1.2.300", &k, buf, sizeof(buf)), -1);

	smp.data.type = SMP_T_STR;
	smp.data.u.str = ist_str("12345");
	CHECK_INT(stk_key_from_smp(ti, &smp, &k), 1);
	e = stktable_get(ti, &k, T0);
	stk_key_print(ti, e, out, sizeof(out));
	CHECK_STR(out, "12345");
	stktable_release(ti, e, false, T0);
	CHECK_INT(stk_key_parse(ti, "-3", &k, buf, sizeof(buf)), -1);
	CHECK_INT(stk_key_parse(ti, "4294967296", &k, buf, sizeof(buf)), -1);
	CHECK_INT(stk_key_parse(ti, "12345", &k, buf, sizeof(buf)), 0);
	CHECK(stktable_lookup(ti, &k, T0) == e);
	stktable_release(ti, e, false, T0);
	stktable_free(t4);
	stktable_free(ti);
}

TEST(stk_detached_store_entries)
{
	struct stktable *t = mk_table(STK_KEY_IP, 4, 10, 0);
	struct stk_key k;
	struct stksess *d, *e, *d2;

	ipkey(&k, "10.9.9.9");
	d = stksess_new_detached(t, &k);
	CHECK_INT(stktable_used(t), 0);
	e = stktable_set_detached(t, d, T0);
	CHECK(e == d);
	stksess_lock(t, e);
	stksess_set(t, e, STK_DT_SERVER_ID, 0, 3, T0);
	stksess_unlock(t, e);
	stktable_release(t, e, true, T0);
	/* a second store of the same key lands on the same entry */
	d2 = stksess_new_detached(t, &k);
	e = stktable_set_detached(t, d2, T0 + 1);
	CHECK(e == d);
	CHECK_INT(get_dt(t, e, STK_DT_SERVER_ID, 0, T0), 3);
	stktable_release(t, e, true, T0 + 1);
	CHECK_INT(stktable_used(t), 1);
	stktable_free(t);
}

static int walk_count(void *arg, struct stksess *ts)
{
	int *n = arg;

	if (*n == 7)
		return -1; /* "buffer full" once, mid-walk */
	(*n)++;
	return 0;
}

TEST(stk_walk_resumes)
{
	struct stktable *t = mk_table(STK_KEY_INT, 4, 1000, 0);
	struct stk_key k = { 0 };
	uint64_t pos = 0;
	int n = 0, stops = 0;

	k.ptr = k.buf;
	k.len = 4;
	for (uint32_t i = 0; i < 300; i++) {
		memcpy(k.buf, &i, 4);
		stktable_release(t, stktable_get(t, &k, T0), true, T0);
	}
	while (stktable_walk(t, &pos, walk_count, &n)) {
		stops++;
		if (n == 7)
			n = 8; /* let it go on */
		CHECK(stops < 3);
	}
	CHECK_INT(stops, 1);
	CHECK_INT(n, 301);
	stktable_free(t);
}

/* Several threads hammer one key: no count is lost. */
struct stk_thr_arg {
	struct stktable *t;
	int loops;
};

static void *stk_thr(void *p)
{
	struct stk_thr_arg *a = p;
	struct stk_key k;
	struct stk_key other;

	ipkey(&k, "10.0.0.1");
	ipkey(&other, "10.0.0.2");
	for (int i = 0; i < a->loops; i++) {
		struct stksess *ts = stktable_get(a->t, (i & 1) ? &k : &other, T0 + (uint64_t)i);

		stksess_lock(a->t, ts);
		stksess_add(a->t, ts, STK_DT_GPC0, 0, 1, T0);
		stksess_add(a->t, ts, STK_DT_HTTP_REQ_RATE, 0, 1, T0);
		stksess_unlock(a->t, ts);
		stktable_release(a->t, ts, true, T0 + (uint64_t)i);
	}
	return NULL;
}

TEST(stk_exact_counts_across_threads)
{
	struct stktable *t = mk_table(STK_KEY_IP, 4, 10, 0);
	struct stk_thr_arg a = { t, 20000 };
	struct stk_key k;
	pthread_t th[4];
	long long v;

	ipkey(&k, "10.0.0.1");
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, stk_thr, &a);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	CHECK_INT(stktable_read_key(t, &k, STK_DT_GPC0, 0, T0, &v), 1);
	CHECK_INT(v, 40000);
	CHECK_INT(stktable_read_key(t, &k, STK_DT_HTTP_REQ_RATE, 0, T0, &v), 1);
	CHECK_INT(v, 40000);
	CHECK_INT(stktable_used(t), 2);
	stktable_free(t);
}
