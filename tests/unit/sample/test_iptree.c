/* Unit tests for sample/iptree: edge cases (/0, /32, /128, host bits, duplicates, the IPv4
 * forms embedded in IPv6), random sets of both families against a brute-force reference
 * (longest match and first idx), and iptree_scale, which prints lookup times at 1k, 10k
 * and 100k networks and the memory they take (only the results are checked).
 */
#include <arpa/inet.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sample/iptree.h>
#include "../test.h"

/* ---- helpers and the reference ---- */

static uint64_t iptt_seed = 0x9d2c5680a1b2c3d4ULL;

static uint32_t iptt_rand(void)
{
	iptt_seed ^= iptt_seed << 13;
	iptt_seed ^= iptt_seed >> 7;
	iptt_seed ^= iptt_seed << 17;
	return (uint32_t)(iptt_seed >> 16);
}

static struct in_addr iptt_v4(const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		test_fail(__FILE__, __LINE__, "bad address %s", s);
	return a;
}

static struct in6_addr iptt_v6(const char *s)
{
	struct in6_addr a;

	if (inet_pton(AF_INET6, s, &a) != 1)
		test_fail(__FILE__, __LINE__, "bad address %s", s);
	return a;
}

static int iptt_add4(struct iptree *t, const char *s, int plen, const char *data, unsigned idx)
{
	return iptree_insert4(t, iptt_v4(s), plen, (void *)data, idx);
}

static int iptt_add6(struct iptree *t, const char *s, int plen, const char *data, unsigned idx)
{
	struct in6_addr a = iptt_v6(s);

	return iptree_insert6(t, &a, plen, (void *)data, idx);
}

static const char *iptt_get4(const struct iptree *t, const char *s)
{
	const char *d = iptree_lookup4(t, iptt_v4(s));

	return d ? d : "-";
}

static const char *iptt_get6(const struct iptree *t, const char *s)
{
	struct in6_addr a = iptt_v6(s);
	const char *d = iptree_lookup6(t, &a);

	return d ? d : "-";
}

static unsigned iptt_first6(const struct iptree *t, const char *s)
{
	struct in6_addr a = iptt_v6(s);

	return iptree_first_idx6(t, &a);
}

struct iptt_net {
	bool v6;
	uint8_t a[16]; /* 4 bytes used for IPv4 */
	int plen;
	unsigned idx;
};

/* True if address <a> lies in <net>/<plen> (byte strings). */
static bool iptt_in(const uint8_t *a, const uint8_t *net, int plen)
{
	int i;

	for (i = 0; i < plen / 8; i++)
		if (a[i] != net[i])
			return false;
	return plen % 8 == 0 || !((a[i] ^ net[i]) & (0xff00 >> (plen % 8)));
}

/* Reference longest match among the <n> nets of family <v6>: record number + 1, or 0. The
 * first inserted of equal networks wins, as in the tree.
 */
static size_t iptt_ref_longest(const struct iptt_net *nets, size_t n, bool v6, const uint8_t *a)
{
	size_t i, best = 0;

	for (i = 0; i < n; i++)
		if (nets[i].v6 == v6 && iptt_in(a, nets[i].a, nets[i].plen) &&
		    (!best || nets[i].plen > nets[best - 1].plen))
			best = i + 1;
	return best;
}

static unsigned iptt_ref_first(const struct iptt_net *nets, size_t n, bool v6, const uint8_t *a)
{
	unsigned best = UINT_MAX;
	size_t i;

	for (i = 0; i < n; i++)
		if (nets[i].v6 == v6 && iptt_in(a, nets[i].a, nets[i].plen) && nets[i].idx < best)
			best = nets[i].idx;
	return best;
}

/* The IPv4 address embedded in IPv6 <a> (HAProxy's three forms) into v4[0..4). */
static bool iptt_ref_embedded(const uint8_t *a, uint8_t *v4)
{
	static const uint8_t zero[12], mapped[12] = { [10] = 0xff, [11] = 0xff };

	if (!memcmp(a, zero, 12) || !memcmp(a, mapped, 12)) {
		memcpy(v4, a + 12, 4);
		return true;
	}
	if (a[0] == 0x20 && a[1] == 0x02) {
		memcpy(v4, a + 2, 4);
		return true;
	}
	return false;
}

/* Checks the tree against the reference for address <a> of family <v6>. */
static void iptt_check_addr(const struct iptree *t, const struct iptt_net *nets, size_t n, bool v6,
			    const uint8_t *a)
{
	uint8_t other[16] = { [10] = 0xff, [11] = 0xff };
	bool has_other = true;
	size_t ref;
	unsigned first, got_first;
	void *got;

	if (v6) {
		struct in6_addr a6;

		memcpy(&a6, a, 16);
		has_other = iptt_ref_embedded(a, other);
		got = iptree_lookup6(t, &a6);
		got_first = iptree_first_idx6(t, &a6);
	} else {
		struct in_addr a4;

		memcpy(&a4, a, 4);
		memcpy(other + 12, a, 4);
		got = iptree_lookup4(t, a4);
		got_first = iptree_first_idx4(t, a4);
	}
	ref = iptt_ref_longest(nets, n, v6, a);
	if (!ref && has_other)
		ref = iptt_ref_longest(nets, n, !v6, other);
	first = iptt_ref_first(nets, n, v6, a);
	if (has_other && iptt_ref_first(nets, n, !v6, other) < first)
		first = iptt_ref_first(nets, n, !v6, other);
	if (got != (void *)ref) {
		char buf[64];

		inet_ntop(v6 ? AF_INET6 : AF_INET, a, buf, sizeof(buf));
		test_fail(__FILE__, __LINE__, "lookup %s: got record %zu, expected %zu", buf,
			  (size_t)(uintptr_t)got, ref);
	}
	CHECK_INT(got_first, first);
}

/* A random network of family <v6> in <net>: IPv4 ones come from a few /8s so that they
 * nest; IPv6 ones from a few regions, IPv4-mapped, compatible and 6to4 ones included.
 */
static void iptt_rand_net(struct iptt_net *net, bool v6)
{
	static const uint8_t top4[] = { 10, 172, 192, 0, 255 };
	static const uint8_t v6pfx[][4] = {
		{ 0x20, 0x01, 0x0d, 0xb8 }, { 0x20, 0x02 }, { 0, 0, 0, 0 }, { 0xfe, 0x80 }
	};
	uint32_t r = iptt_rand(), i;
	int bits = v6 ? 128 : 32;

	memset(net, 0, sizeof(*net));
	net->v6 = v6;
	for (i = 0; i < 16; i++)
		net->a[i] = (uint8_t)iptt_rand();
	if (!v6) {
		net->a[0] = top4[r % sizeof(top4)];
		net->a[1] &= 0x0f; /* crowd the second byte too */
		net->plen = r % 7 == 0 ? (int)(iptt_rand() % 33) : 8 + (int)(iptt_rand() % 25);
	} else {
		switch (r % 5) {
		case 0: /* ::ffff:a.b.c.d or ::a.b.c.d over the IPv4 pool */
		case 1:
			memset(net->a, 0, 12);
			if (r % 5 == 0)
				net->a[10] = net->a[11] = 0xff;
			net->a[12] = top4[iptt_rand() % sizeof(top4)];
			net->a[13] &= 0x0f;
			net->plen = 80 + (int)(iptt_rand() % 49);
			break;
		default:
			memcpy(net->a, v6pfx[r % 4], 4);
			if (r % 4 == 1)
				net->a[2] = top4[iptt_rand() % sizeof(top4)];
			net->plen = r % 9 == 0 ? (int)(iptt_rand() % 129)
					       : 16 + (int)(iptt_rand() % 113);
			break;
		}
	}
	for (i = (unsigned)net->plen; i < (unsigned)bits; i++) /* the reference wants a clean net */
		net->a[i / 8] &= (uint8_t) ~(0x80 >> (i % 8));
}

/* An address of family <v6>: inside a random inserted network half of the time. */
static void iptt_rand_addr(const struct iptt_net *nets, size_t n, bool v6, uint8_t *a)
{
	struct iptt_net tmp;
	const struct iptt_net *src;
	int i, bits = v6 ? 128 : 32;

	src = &nets[iptt_rand() % n];
	if (src->v6 != v6 || iptt_rand() % 2) {
		iptt_rand_net(&tmp, v6);
		src = &tmp;
	}
	memcpy(a, src->a, 16);
	for (i = src->plen; i < bits; i++)
		if (iptt_rand() % 2)
			a[i / 8] |= (uint8_t)(0x80 >> (i % 8));
}

static void iptt_insert_net(struct iptree *t, const struct iptt_net *net, size_t recno)
{
	int ret;

	if (net->v6) {
		struct in6_addr a6;

		memcpy(&a6, net->a, 16);
		ret = iptree_insert6(t, &a6, net->plen, (void *)(uintptr_t)recno, net->idx);
	} else {
		struct in_addr a4;

		memcpy(&a4, net->a, 4);
		ret = iptree_insert4(t, a4, net->plen, (void *)(uintptr_t)recno, net->idx);
	}
	CHECK_INT(ret, 0);
}

/* Builds <n> random networks (family mix by <v6pct> percent), inserts them with shuffled
 * idx (so that first idx and insertion order differ) and checks <lookups> addresses.
 */
static void iptt_random_run(size_t n, unsigned v6pct, size_t lookups)
{
	struct iptt_net *nets = calloc(n, sizeof(*nets));
	struct iptree *t = iptree_new();
	uint8_t a[16];
	size_t i;

	CHECK(nets && t);
	if (!nets || !t)
		goto out;
	for (i = 0; i < n; i++) {
		if (i && iptt_rand() % 10 == 0) /* a duplicate network */
			nets[i] = nets[iptt_rand() % i];
		else
			iptt_rand_net(&nets[i], iptt_rand() % 100 < v6pct);
		nets[i].idx = iptt_rand() % (unsigned)(4 * n);
		iptt_insert_net(t, &nets[i], i + 1);
	}
	for (i = 0; i < lookups; i++) {
		bool v6 = iptt_rand() % 100 < (v6pct ? (v6pct < 100 ? 50 : 100) : 0);

		iptt_rand_addr(nets, n, v6, a);
		iptt_check_addr(t, nets, n, v6, a);
	}
out:
	iptree_free(t);
	free(nets);
}

/* ---- tests ---- */

TEST(iptree_empty)
{
	struct iptree *t = iptree_new();
	struct in6_addr a6 = iptt_v6("::ffff:1.2.3.4");

	CHECK(t);
	if (!t)
		return;
	CHECK_INT(iptree_count(t), 0);
	CHECK(!iptree_lookup4(t, iptt_v4("1.2.3.4")));
	CHECK(!iptree_lookup6(t, &a6));
	CHECK_INT(iptree_first_idx4(t, iptt_v4("0.0.0.0")), UINT_MAX);
	CHECK_INT(iptree_first_idx6(t, &a6), UINT_MAX);
	iptree_free(t);
	iptree_free(NULL);
}

TEST(iptree_v4_edges)
{
	struct iptree *t = iptree_new();

	CHECK_INT(iptt_add4(t, "10.0.0.0", 8, "ten", 5), 0);
	CHECK_INT(iptt_add4(t, "10.1.2.3", 16, "ten-one", 6), 0); /* host bits dropped */
	CHECK_INT(iptt_add4(t, "10.1.2.3", 32, "host", 7), 0);
	CHECK_INT(iptt_add4(t, "10.0.0.0", 8, "dup", 1), 0); /* first data, smaller idx */
	CHECK_INT(iptt_add4(t, "1.2.3.4", 33, "bad", 0), -1);
	CHECK_INT(iptt_add4(t, "1.2.3.4", -1, "bad", 0), -1);
	CHECK_INT(iptree_count(t), 3);
	CHECK_STR(iptt_get4(t, "10.1.2.3"), "host");
	CHECK_STR(iptt_get4(t, "10.1.2.4"), "ten-one");
	CHECK_STR(iptt_get4(t, "10.1.255.255"), "ten-one");
	CHECK_STR(iptt_get4(t, "10.2.0.0"), "ten");
	CHECK_STR(iptt_get4(t, "11.0.0.0"), "-");
	CHECK_STR(iptt_get4(t, "9.255.255.255"), "-");
	CHECK_INT(iptree_first_idx4(t, iptt_v4("10.1.2.3")), 1);
	CHECK_INT(iptree_first_idx4(t, iptt_v4("11.1.2.3")), UINT_MAX);

	CHECK_INT(iptt_add4(t, "255.255.255.255", 0, "all", 9), 0);
	CHECK_STR(iptt_get4(t, "11.0.0.0"), "all");
	CHECK_STR(iptt_get4(t, "255.255.255.255"), "all");
	CHECK_STR(iptt_get4(t, "10.1.2.3"), "host");
	CHECK_INT(iptree_first_idx4(t, iptt_v4("11.1.2.3")), 9);
	CHECK_INT(iptt_add4(t, "255.255.255.255", 32, "bcast", 0), 0);
	CHECK_STR(iptt_get4(t, "255.255.255.255"), "bcast");
	CHECK_INT(iptree_first_idx4(t, iptt_v4("255.255.255.255")), 0);
	CHECK_INT(iptt_add4(t, "0.0.0.0", 32, "zero", 10), 0);
	CHECK_STR(iptt_get4(t, "0.0.0.0"), "zero");
	CHECK_STR(iptt_get4(t, "0.0.0.1"), "all");
	CHECK_INT(iptree_count(t), 6);
	iptree_free(t);
}

TEST(iptree_v6_edges)
{
	struct iptree *t = iptree_new();

	CHECK_INT(iptt_add6(t, "2001:db8::", 32, "doc", 3), 0);
	CHECK_INT(iptt_add6(t, "2001:db8::1", 128, "one", 4), 0);
	CHECK_INT(iptt_add6(t, "2001:db8:ffff::", 48, "f48", 5), 0);
	CHECK_INT(iptt_add6(t, "2001:db8::abcd", 32, "dup", 2), 0);
	CHECK_INT(iptt_add6(t, "::", 129, "bad", 0), -1);
	CHECK_INT(iptree_count(t), 3);
	CHECK_STR(iptt_get6(t, "2001:db8::1"), "one");
	CHECK_STR(iptt_get6(t, "2001:db8::2"), "doc");
	CHECK_STR(iptt_get6(t, "2001:db8:ffff:1::"), "f48");
	CHECK_STR(iptt_get6(t, "2001:db9::"), "-");
	CHECK_INT(iptt_first6(t, "2001:db8::1"), 2);
	CHECK_INT(iptt_first6(t, "2001:db9::1"), UINT_MAX);
	/* host bit 127 and 63/64 boundaries */
	CHECK_INT(iptt_add6(t, "2001:db8:0:0:8000::", 65, "b64", 6), 0);
	CHECK_STR(iptt_get6(t, "2001:db8:0:0:8000::5"), "b64");
	CHECK_STR(iptt_get6(t, "2001:db8:0:0:7fff::5"), "doc");
	CHECK_INT(iptt_add6(t, "::", 0, "all", 8), 0);
	CHECK_STR(iptt_get6(t, "fe80::1"), "all");
	CHECK_STR(iptt_get6(t, "2001:db8::1"), "one");
	CHECK_INT(iptt_add6(t, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", 128, "last", 1), 0);
	CHECK_STR(iptt_get6(t, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), "last");
	CHECK_STR(iptt_get6(t, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe"), "all");
	CHECK_INT(iptt_first6(t, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"), 1);
	iptree_free(t);
}

/* The family fallbacks as HAProxy 2.6 does them (checked with map_ip on its binary): own
 * family first, then the other, with the three embedded IPv4 forms.
 */
TEST(iptree_v4_mapped)
{
	struct iptree *t = iptree_new();

	CHECK_INT(iptt_add4(t, "10.0.0.0", 8, "v4_8", 10), 0);
	CHECK_INT(iptt_add6(t, "::ffff:10.1.0.0", 112, "mapped_112", 20), 0);
	/* an IPv4 address: the IPv4 tree first */
	CHECK_STR(iptt_get4(t, "10.1.2.3"), "v4_8");
	CHECK_STR(iptt_get4(t, "11.1.2.3"), "-");
	CHECK_INT(iptree_first_idx4(t, iptt_v4("10.1.2.3")), 10);
	/* an IPv6 address: the IPv6 tree first, then its embedded IPv4 address */
	CHECK_STR(iptt_get6(t, "::ffff:10.1.2.3"), "mapped_112");
	CHECK_STR(iptt_get6(t, "::ffff:10.2.0.1"), "v4_8");
	CHECK_STR(iptt_get6(t, "::10.2.0.1"), "v4_8");
	CHECK_STR(iptt_get6(t, "2002:0a02:0001::"), "v4_8");
	CHECK_STR(iptt_get6(t, "2002:0a02:0001:5::1"), "v4_8");
	CHECK_STR(iptt_get6(t, "2003:0a02:0001::"), "-");
	CHECK_STR(iptt_get6(t, "::1:ffff:10.2.0.1"), "-");
	CHECK_STR(iptt_get6(t, "::ffff:11.0.0.1"), "-");
	CHECK_INT(iptt_first6(t, "::ffff:10.1.2.3"), 10);
	CHECK_INT(iptt_first6(t, "::ffff:10.2.2.3"), 10);
	CHECK_INT(iptt_first6(t, "2002:0a01:0203::"), 10);
	CHECK_INT(iptt_first6(t, "2001:0a01:0203::"), UINT_MAX);

	/* an IPv6 /0 covers IPv4 addresses that match nothing in the IPv4 tree */
	CHECK_INT(iptt_add6(t, "::", 0, "v6_any", 5), 0);
	CHECK_STR(iptt_get4(t, "11.1.1.1"), "v6_any");
	CHECK_STR(iptt_get4(t, "10.1.1.1"), "v4_8");
	CHECK_STR(iptt_get6(t, "::ffff:10.2.0.1"), "v6_any");
	CHECK_INT(iptree_first_idx4(t, iptt_v4("10.1.1.1")), 5);
	/* an IPv4 address maps only to ::ffff:a.b.c.d in the IPv6 tree */
	iptree_free(t);
	t = iptree_new();
	CHECK_INT(iptt_add6(t, "::10.2.0.0", 112, "compat", 1), 0);
	CHECK_INT(iptt_add6(t, "2002:0a02::", 32, "6to4", 2), 0);
	CHECK_STR(iptt_get4(t, "10.2.3.4"), "-");
	CHECK_INT(iptree_first_idx4(t, iptt_v4("10.2.3.4")), UINT_MAX);
	CHECK_INT(iptt_add4(t, "0.0.0.0", 8, "zero8", 3), 0);
	CHECK_STR(iptt_get6(t, "::1"), "zero8"); /* ::1 is 0.0.0.1 in compatible form */
	CHECK_STR(iptt_get6(t, "::"), "zero8");
	CHECK_STR(iptt_get6(t, "2002::1"), "zero8");
	iptree_free(t);
}

TEST(iptree_random_v4)
{
	iptt_random_run(3000, 0, 20000);
	iptt_random_run(50, 0, 5000);
}

TEST(iptree_random_v6)
{
	iptt_random_run(3000, 100, 20000);
	iptt_random_run(50, 100, 5000);
}

TEST(iptree_random_mixed)
{
	iptt_random_run(4000, 50, 30000);
	iptt_random_run(20, 50, 5000);
}

static double iptt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* n random IPv4 networks (/8 to /32 anywhere) and a million lookups of addresses inside
 * them: each answer must contain its address and be at least as long as the network it
 * was drawn from. Prints ns per lookup and the memory taken.
 */
static void iptt_scale_v4(size_t n)
{
	enum { LOOKUPS = 1000000 };
	struct iptt_net *nets = calloc(n, sizeof(*nets));
	uint32_t *addr = calloc(LOOKUPS, sizeof(*addr)), *from = calloc(LOOKUPS, sizeof(*from));
	const struct iptt_net **res = calloc(LOOKUPS, sizeof(*res));
	struct iptree *t = iptree_new();
	size_t i, bad = 0;
	double t0, dt;

	if (!nets || !addr || !from || !res || !t) {
		CHECK(0);
		goto out;
	}
	for (i = 0; i < n; i++) {
		uint32_t k = iptt_rand(), plen = 8 + iptt_rand() % 25;

		k &= ~0U << (32 - plen);
		memcpy(nets[i].a, &k, 4);
		nets[i].plen = (int)plen;
		CHECK_INT(iptree_insert4(t, (struct in_addr){ htonl(k) }, (int)plen, &nets[i],
					 (unsigned)i),
			  0);
	}
	for (i = 0; i < LOOKUPS; i++) {
		uint32_t k, j = iptt_rand() % n;

		memcpy(&k, nets[j].a, 4);
		addr[i] = htonl(k | (iptt_rand() & ~(~0U << (32 - nets[j].plen))));
		from[i] = j;
	}
	t0 = iptt_now();
	for (i = 0; i < LOOKUPS; i++)
		res[i] = iptree_lookup4(t, (struct in_addr){ addr[i] });
	dt = iptt_now() - t0;
	for (i = 0; i < LOOKUPS; i++) {
		const struct iptt_net *r = res[i];
		uint32_t k;

		if (!r) {
			bad++;
			continue;
		}
		memcpy(&k, r->a, 4);
		if (r->plen < nets[from[i]].plen ||
		    ((ntohl(addr[i]) ^ k) & (r->plen ? ~0U << (32 - r->plen) : 0)))
			bad++;
	}
	CHECK_INT(bad, 0);
	printf("  iptree_scale: %6zu IPv4 nets (%zu distinct): %5.1f ns/lookup, %.2f MB\n", n,
	       iptree_count(t), dt * 1e9 / LOOKUPS, iptree_mem_usage(t) / 1048576.0);
	if (n >= 100000)
		CHECK(iptree_mem_usage(t) < 8 << 20);
out:
	iptree_free(t);
	free(nets);
	free(addr);
	free(from);
	free(res);
}

TEST(iptree_scale)
{
	iptt_scale_v4(1000);
	iptt_scale_v4(10000);
	iptt_scale_v4(100000);
}
