/* Unit tests of the hash-based picks (map-based by weight, the consistent ring and what
 * moves when a server leaves), the hash-type functions with avalanche, the "balance uri"
 * and "use_domain_only" key extraction, and "first". */
#include <string.h>
#include <backend/backend.h>
#include <backend/server.h>
#include <sample/hash.h>
#include <stream/lb_key.h>
#include "../test.h"

#define NSRV 8

static struct server srv[NSRV];
static struct proxy px;

static void setup(const int *weights, int n, int algo, int type)
{
	lb_hash_free(&px);
	memset(srv, 0, sizeof(srv));
	memset(&px, 0, sizeof(px));
	for (int i = 0; i < n; i++) {
		srv[i].weight = weights[i];
		srv[i].puid = i + 1;
		srv[i].next = i + 1 < n ? &srv[i + 1] : NULL;
	}
	px.srv = &srv[0];
	px.lbalgo = algo;
	px.hash_type = (uint8_t)type;
	CHECK(lb_hash_build(&px) == 0);
}

static uint32_t xs(uint32_t *st)
{
	*st ^= *st << 13;
	*st ^= *st >> 17;
	*st ^= *st << 5;
	return *st;
}

TEST(lb_hash_map_follows_weights)
{
	int w[] = { 1, 2, 3, 0 }, counts[4] = { 0 };
	bool full;

	setup(w, 4, LB_ALGO_URI, LB_HASH_MAP);
	for (uint32_t h = 0; h < 6000; h++)
		counts[lb_hash_pick(&px, h, NULL, &full) - srv]++;
	CHECK_INT(counts[0], 1000);
	CHECK_INT(counts[1], 2000);
	CHECK_INT(counts[2], 3000);
	CHECK_INT(counts[3], 0);
	lb_hash_free(&px);
}

TEST(lb_hash_full_server_queues_and_avoid_moves_on)
{
	int w[] = { 1, 1 };
	bool full;

	setup(w, 2, LB_ALGO_URI, LB_HASH_MAP);
	srv[0].maxconn = 1;
	srv[0].cur_conns = 1;
	CHECK(lb_hash_pick(&px, 0, NULL, &full) == NULL);
	CHECK(full);
	CHECK(lb_hash_pick(&px, 1, NULL, &full) == &srv[1]);
	srv[0].cur_conns = 0;
	CHECK(lb_hash_pick(&px, 0, &srv[0], &full) == &srv[1]);
	lb_hash_free(&px);
}

TEST(lb_hash_backups_only_without_active)
{
	int w[] = { 1, 1, 1 };
	bool full;

	setup(w, 3, LB_ALGO_URI, LB_HASH_CONSISTENT);
	srv[2].flags = SRV_F_BACKUP;
	CHECK(lb_hash_build(&px) == 0);
	for (uint32_t h = 0; h < 100; h++)
		CHECK(lb_hash_pick(&px, h * 40000000u, NULL, &full) != &srv[2]);
	srv[0].flags = srv[1].flags = SRV_F_DISABLED;
	CHECK(lb_hash_build(&px) == 0);
	CHECK(lb_hash_pick(&px, 12345, NULL, &full) == &srv[2]);
	lb_hash_free(&px);
}

/* Removing one of n servers moves only its own keys: about 1/n of them. */
static void ring_remove_one(int n, int victim)
{
	static int before[10000];
	int w[NSRV], moved = 0, owned = 0;
	uint32_t st = 2463534242u;
	bool full;

	for (int i = 0; i < n; i++)
		w[i] = 1;
	setup(w, n, LB_ALGO_URI, LB_HASH_CONSISTENT);
	for (int k = 0; k < 10000; k++)
		before[k] = (int)(lb_hash_pick(&px, xs(&st), NULL, &full) - srv);
	srv[victim].flags |= SRV_F_DISABLED;
	CHECK(lb_hash_build(&px) == 0);
	st = 2463534242u;
	for (int k = 0; k < 10000; k++) {
		int now = (int)(lb_hash_pick(&px, xs(&st), NULL, &full) - srv);

		CHECK(now != victim);
		if (before[k] == victim)
			owned++;
		if (now != before[k]) {
			moved++;
			CHECK_INT(before[k], victim); /* no key of another server moves */
		}
	}
	CHECK_INT(moved, owned);
	CHECK(moved > 10000 / n / 2 && moved < 10000 * 3 / n / 2);
	lb_hash_free(&px);
}

TEST(lb_hash_consistent_remove_moves_one_share)
{
	ring_remove_one(4, 2);
	ring_remove_one(5, 0);
	ring_remove_one(8, 7);
}

TEST(lb_hash_consistent_spreads_by_weight)
{
	int w[] = { 1, 3 }, counts[2] = { 0 };
	uint32_t st = 88172645u;
	bool full;

	setup(w, 2, LB_ALGO_URI, LB_HASH_CONSISTENT);
	for (int k = 0; k < 20000; k++)
		counts[lb_hash_pick(&px, xs(&st), NULL, &full) - srv]++;
	CHECK(counts[1] > 2 * counts[0] && counts[1] < 4 * counts[0]);
	lb_hash_free(&px);
}

TEST(lb_hash_balance_factor_skips_loaded_server)
{
	int w[] = { 1, 1, 1 };
	struct server *first;
	bool full;

	setup(w, 3, LB_ALGO_URI, LB_HASH_CONSISTENT);
	first = lb_hash_pick(&px, 777, NULL, &full);
	first->cur_conns = 10;
	CHECK(lb_hash_pick(&px, 777, NULL, &full) == first); /* no factor: stays */
	px.hash_balance_factor = 150;
	CHECK(lb_hash_pick(&px, 777, NULL, &full) != first);
	lb_hash_free(&px);
}

TEST(lb_key_hash_functions_and_avalanche)
{
	struct proxy p;
	const unsigned char num[] = { 0, 0, 0, 0, 0, 0, 1, 2 };

	memset(&p, 0, sizeof(p));
	CHECK(lb_key_hash(&p, "abc", 3) == hash_sdbm("abc", 3));
	p.hash_fn = LB_HFN_DJB2;
	CHECK(lb_key_hash(&p, "abc", 3) == hash_djb2("abc", 3));
	p.hash_fn = LB_HFN_WT6;
	CHECK(lb_key_hash(&p, "abc", 3) == hash_wt6("abc", 3));
	p.hash_fn = LB_HFN_CRC32;
	CHECK(lb_key_hash(&p, "abc", 3) == 0x352441c2u);
	p.hash_avalanche = true;
	CHECK(lb_key_hash(&p, "abc", 3) == hash_avalanche32(0x352441c2u));
	p.hash_avalanche = false;
	p.hash_fn = LB_HFN_NONE;
	CHECK(lb_key_hash(&p, num, sizeof(num)) == 0x0102u);
}

static bool uri_is(const struct lb_key *k, const char *uri, const char *want)
{
	struct ist r = lb_key_uri(k, ist_str(uri));

	return r.len == strlen(want) && !memcmp(r.ptr, want, r.len);
}

TEST(lb_key_uri_options)
{
	struct lb_key k;

	memset(&k, 0, sizeof(k));
	CHECK(uri_is(&k, "/a/b?x=1", "/a/b"));
	k.flags = LBK_F_WHOLE;
	CHECK(uri_is(&k, "/a/b?x=1", "/a/b?x=1"));
	k.flags = 0;
	k.uri_depth = 1;
	CHECK(uri_is(&k, "/a/b/c", "/a"));
	k.uri_depth = 2;
	CHECK(uri_is(&k, "/a/b/c", "/a/b"));
	k.uri_depth = 0;
	k.uri_len = 3;
	CHECK(uri_is(&k, "/abcdef", "/ab"));
	k.uri_len = 0;
	CHECK(uri_is(&k, "http://h:80/p?q", "http://h:80/p"));
	k.flags = LBK_F_PATH_ONLY;
	CHECK(uri_is(&k, "http://h:80/p?q", "/p"));
}

TEST(lb_key_domain_only)
{
	struct ist d = lb_key_domain(ist_str("www.example.com"));

	CHECK(d.len == 7 && !memcmp(d.ptr, "example", 7));
	d = lb_key_domain(ist_str("example.org"));
	CHECK(d.len == 7 && !memcmp(d.ptr, "example", 7));
	d = lb_key_domain(ist_str("localhost"));
	CHECK(d.len == 9);
}

TEST(lb_first_fills_in_id_order)
{
	int w[] = { 1, 1, 1 };
	bool full;

	setup(w, 3, LB_ALGO_FIRST, LB_HASH_MAP);
	for (int i = 0; i < 3; i++)
		srv[i].maxconn = 2;
	CHECK(lb_first_pick(&px, NULL, &full) == &srv[0]);
	srv[0].cur_conns = 2;
	CHECK(lb_first_pick(&px, NULL, &full) == &srv[1]);
	srv[1].cur_conns = 2;
	srv[2].cur_conns = 2;
	CHECK(lb_first_pick(&px, NULL, &full) == NULL);
	CHECK(full);
	srv[1].cur_conns = 1;
	srv[0].cur_conns = 0;
	CHECK(lb_first_pick(&px, &srv[0], &full) == &srv[1]); /* avoid */
	lb_hash_free(&px);
}
