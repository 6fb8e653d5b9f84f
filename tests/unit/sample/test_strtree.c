/* Unit tests for sample/strtree: edge cases (empty key, NUL bytes, duplicates, case folding
 * of every byte, keys longer than the 8-byte hash words), random sets with and without
 * STRTREE_ICASE against a brute-force reference (exact, longest prefix, first idx), and
 * strtree_scale, which prints lookup times at 1k, 10k and 100k keys (results checked only).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sample/strtree.h>
#include "../test.h"

static uint64_t strt_t_seed = 0x51ed2701f00dcafeULL;

static uint32_t strtt_rand(void)
{
	strt_t_seed ^= strt_t_seed << 13;
	strt_t_seed ^= strt_t_seed >> 7;
	strt_t_seed ^= strt_t_seed << 17;
	return (uint32_t)(strt_t_seed >> 16);
}

static int strtt_add(struct strtree *t, const char *k, const char *data, unsigned idx)
{
	return strtree_insert(t, k, strlen(k), (void *)data, idx);
}

static const char *strtt_get(const struct strtree *t, const char *s)
{
	const char *d = strtree_lookup(t, s, strlen(s));

	return d ? d : "-";
}

static const char *strtt_beg(const struct strtree *t, const char *s)
{
	const char *d = strtree_lookup_prefix(t, s, strlen(s));

	return d ? d : "-";
}

static unsigned char strtt_fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static bool strtt_ref_eq(const char *a, const char *b, size_t len, bool icase)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (icase ? strtt_fold((unsigned char)a[i]) != strtt_fold((unsigned char)b[i])
			  : a[i] != b[i])
			return false;
	return true;
}

TEST(strtree_empty)
{
	struct strtree *t = strtree_new(STRTREE_PREFIX);

	CHECK(t);
	if (!t)
		return;
	CHECK_INT(strtree_count(t), 0);
	CHECK(!strtree_lookup(t, "", 0));
	CHECK(!strtree_lookup(t, NULL, 0));
	CHECK(!strtree_lookup_prefix(t, "abc", 3));
	CHECK_INT(strtree_first_idx(t, "abc", 3), UINT_MAX);
	CHECK_INT(strtree_first_idx_prefix(t, "", 0), UINT_MAX);
	strtree_free(t);
	strtree_free(NULL);
}

TEST(strtree_exact_edges)
{
	struct strtree *t = strtree_new(0);
	static const char nul1[] = "a\0b", nul2[] = "a\0c";

	CHECK_INT(strtt_add(t, "", "empty", 4), 0);
	CHECK_INT(strtt_add(t, "host.example.com", "h", 5), 0);
	CHECK_INT(strtt_add(t, "host.example.com", "dup", 2), 0);
	CHECK_INT(strtt_add(t, "Host.example.com", "H", 9), 0);
	CHECK_INT(strtree_insert(t, nul1, 3, (void *)"nul1", 6), 0);
	CHECK_INT(strtree_insert(t, nul2, 3, (void *)"nul2", 7), 0);
	CHECK_INT(strtree_insert(t, "a", 1, (void *)"a", 8), 0);
	CHECK_INT(strtree_insert(t, "x", (size_t)1 << 29, NULL, 0), -1); /* never read */
	CHECK_INT(strtree_count(t), 6);
	CHECK_STR(strtt_get(t, ""), "empty");
	CHECK_STR(strtt_get(t, "host.example.com"), "h");
	CHECK_STR(strtt_get(t, "Host.example.com"), "H");
	CHECK_STR(strtt_get(t, "HOST.example.com"), "-");
	CHECK_STR(strtt_get(t, "host.example.co"), "-");
	CHECK_STR(strtt_get(t, "host.example.comm"), "-");
	CHECK_STR(strtree_lookup(t, nul1, 3), "nul1");
	CHECK_STR(strtree_lookup(t, nul2, 3), "nul2");
	CHECK_STR(strtree_lookup(t, nul1, 1), "a");
	CHECK(!strtree_lookup(t, nul1, 2));
	CHECK_INT(strtree_first_idx(t, "host.example.com", 16), 2);
	CHECK_INT(strtree_first_idx(t, "", 0), 4);
	CHECK_INT(strtree_first_idx(t, "x", 1), UINT_MAX);
	strtree_free(t);

	t = strtree_new(STRTREE_ICASE);
	CHECK_INT(strtt_add(t, "Host.Example.COM", "h", 1), 0);
	CHECK_INT(strtt_add(t, "host.example.com", "dup", 0), 0);
	CHECK_INT(strtt_add(t, "\xC9t\xC9", "latin1", 3), 0); /* only ASCII folds */
	CHECK_INT(strtree_count(t), 2);
	CHECK_STR(strtt_get(t, "HOST.EXAMPLE.COM"), "h");
	CHECK_STR(strtt_get(t, "host.example.com"), "h");
	CHECK_STR(strtt_get(t, "\xC9T\xC9"), "latin1");
	CHECK_STR(strtt_get(t, "\xE9t\xE9"), "-");
	CHECK_INT(strtree_first_idx(t, "hOsT.eXaMpLe.CoM", 16), 0);
	CHECK_STR(strtt_get(t, "host.example.co["), "-"); /* '[' is not a folded '{' */
	/* keys that differ only in the case bit of a non-letter share a hash, not an entry */
	CHECK_INT(strtt_add(t, "a@b", "at", 5), 0);
	CHECK_INT(strtt_add(t, "a`b", "backquote", 6), 0);
	CHECK_INT(strtt_add(t, "long.key.with@sign", "at2", 7), 0);
	CHECK_STR(strtt_get(t, "A@B"), "at");
	CHECK_STR(strtt_get(t, "A`B"), "backquote");
	CHECK_STR(strtt_get(t, "LONG.KEY.WITH@SIGN"), "at2");
	CHECK_STR(strtt_get(t, "long.key.with`sign"), "-");
	strtree_free(t);
}

/* Every byte value folds like tolower() in the C locale, at every position of a hash
 * word and in the tail: 256 keys of 11 bytes "#...#" with byte b at position b % 11
 * (no two fold alike, as 32 % 11 != 0), probed with every byte at every position.
 */
static void strtt_fold_key(char *k, unsigned pos, unsigned b)
{
	memset(k, '#', 11);
	k[pos] = (char)b;
}

TEST(strtree_fold_all_bytes)
{
	struct strtree *t = strtree_new(STRTREE_ICASE | STRTREE_PREFIX);
	char key[11], probe[11];
	unsigned b, c, pos, bad = 0;

	for (b = 0; b < 256; b++) {
		strtt_fold_key(key, b % 11, b);
		CHECK_INT(strtree_insert(t, key, sizeof(key), (void *)(uintptr_t)(b + 1), b), 0);
	}
	CHECK_INT(strtree_count(t), 256);
	for (pos = 0; pos < 11; pos++) {
		for (c = 0; c < 256; c++) {
			const void *want = NULL;

			strtt_fold_key(probe, pos, c);
			for (b = 0; b < 256; b++) {
				strtt_fold_key(key, b % 11, b);
				if (strtt_ref_eq(key, probe, sizeof(key), true))
					want = (void *)(uintptr_t)(b + 1);
			}
			if (strtree_lookup(t, probe, sizeof(probe)) != want ||
			    strtree_lookup_prefix(t, probe, sizeof(probe)) != want)
				bad++;
		}
	}
	CHECK_INT(bad, 0);
	strtree_free(t);
}

TEST(strtree_prefix_edges)
{
	struct strtree *t = strtree_new(STRTREE_PREFIX);
	static const char nul[] = "/a\0b";

	CHECK_INT(strtt_add(t, "/a", "first", 3), 0);
	CHECK_INT(strtt_add(t, "/ab", "second", 4), 0);
	CHECK_INT(strtt_add(t, "/ab", "dup", 5), 0);
	CHECK_INT(strtt_add(t, "/ABC", "upper", 6), 0);
	CHECK_INT(strtt_add(t, "/abcdefghijklmnop", "long", 1), 0);
	CHECK_INT(strtree_insert(t, nul, 4, (void *)"nul", 2), 0);
	CHECK_INT(strtree_count(t), 5);
	/* HAProxy 2.6 map_beg on the same lines gives the same answers */
	CHECK_STR(strtt_beg(t, "/abc"), "second");
	CHECK_STR(strtt_beg(t, "/ab"), "second");
	CHECK_STR(strtt_beg(t, "/a"), "first");
	CHECK_STR(strtt_beg(t, "/ABCD"), "upper");
	CHECK_STR(strtt_beg(t, "/x"), "-");
	CHECK_STR(strtt_beg(t, "/"), "-");
	CHECK_STR(strtt_beg(t, ""), "-");
	CHECK_STR(strtt_beg(t, "/abcdefghijklmnopq"), "long");
	CHECK_STR(strtt_beg(t, "/abcdefghijklmno"), "second");
	CHECK_STR(strtree_lookup_prefix(t, "/a\0bc", 5), "nul");
	CHECK_STR(strtree_lookup_prefix(t, "/a\0c", 4), "first");
	CHECK_INT(strtree_first_idx_prefix(t, "/abcdefghijklmnopq", 18), 1);
	CHECK_INT(strtree_first_idx_prefix(t, "/abc", 4), 3);
	CHECK_INT(strtree_first_idx_prefix(t, "/a\0bc", 5), 2);
	CHECK_INT(strtree_first_idx_prefix(t, "/x", 2), UINT_MAX);
	CHECK_STR(strtt_get(t, "/ab"), "second"); /* exact lookups work on a prefix set */
	CHECK_STR(strtt_get(t, "/abc"), "-");
	/* the empty key is a prefix of every string */
	CHECK_INT(strtt_add(t, "", "empty", 7), 0);
	CHECK_STR(strtt_beg(t, ""), "empty");
	CHECK_STR(strtt_beg(t, "/x"), "empty");
	CHECK_STR(strtt_beg(t, "/abc"), "second");
	CHECK_INT(strtree_first_idx_prefix(t, "/x", 2), 7);
	CHECK_INT(strtree_first_idx_prefix(t, "/a", 2), 3);
	strtree_free(t);

	t = strtree_new(STRTREE_PREFIX | STRTREE_ICASE);
	CHECK_INT(strtt_add(t, "/API/", "api", 2), 0);
	CHECK_INT(strtt_add(t, "/api/v1/", "v1", 1), 0);
	CHECK_STR(strtt_beg(t, "/Api/V1/users"), "v1");
	CHECK_STR(strtt_beg(t, "/aPI/v2/users"), "api");
	CHECK_STR(strtt_beg(t, "/apj/v1/users"), "-");
	CHECK_INT(strtree_first_idx_prefix(t, "/API/V1/X", 9), 1);
	strtree_free(t);
}

struct strtt_key {
	char s[24];
	size_t len;
	unsigned idx;
};

/* Keys over a small alphabet, so that many are prefixes of others; some random bytes. */
static void strtt_rand_key(struct strtt_key *k)
{
	static const char alpha[] = { 'a', 'b', 'A', 'B', '/', '\0', (char)0xc1, 'z' };
	size_t i;

	k->len = strtt_rand() % 13;
	if (strtt_rand() % 8 == 0)
		k->len += strtt_rand() % 11;
	for (i = 0; i < k->len; i++)
		k->s[i] = strtt_rand() % 16 ? alpha[strtt_rand() % sizeof(alpha)]
					    : (char)strtt_rand();
}

/* Checks the four lookups of s[0..len) against the <n> keys. */
static void strtt_check(const struct strtree *t, const struct strtt_key *keys, size_t n, bool icase,
			const char *s, size_t len)
{
	size_t i, exact = 0, longest = 0;
	unsigned fexact = UINT_MAX, fpfx = UINT_MAX;

	for (i = 0; i < n; i++) {
		if (keys[i].len > len || !strtt_ref_eq(keys[i].s, s, keys[i].len, icase))
			continue;
		if (keys[i].idx < fpfx)
			fpfx = keys[i].idx;
		if (!longest || keys[i].len > keys[longest - 1].len)
			longest = i + 1;
		if (keys[i].len == len) {
			if (!exact)
				exact = i + 1;
			if (keys[i].idx < fexact)
				fexact = keys[i].idx;
		}
	}
	CHECK_INT((uintptr_t)strtree_lookup(t, s, len), exact);
	CHECK_INT(strtree_first_idx(t, s, len), fexact);
	CHECK_INT((uintptr_t)strtree_lookup_prefix(t, s, len), longest);
	CHECK_INT(strtree_first_idx_prefix(t, s, len), fpfx);
}

static void strtt_random_run(size_t n, unsigned flags, size_t lookups)
{
	struct strtt_key *keys = calloc(n, sizeof(*keys));
	struct strtree *t = strtree_new(flags | STRTREE_PREFIX);
	char s[64];
	size_t i, len;

	CHECK(keys && t);
	if (!keys || !t)
		goto out;
	for (i = 0; i < n; i++) {
		if (i && strtt_rand() % 10 == 0)
			keys[i] = keys[strtt_rand() % i];
		else
			strtt_rand_key(&keys[i]);
		keys[i].idx = strtt_rand() % (unsigned)(4 * n);
		CHECK_INT(strtree_insert(t, keys[i].s, keys[i].len, (void *)(uintptr_t)(i + 1),
					 keys[i].idx),
			  0);
	}
	for (i = 0; i < lookups; i++) {
		struct strtt_key k, *src = &keys[strtt_rand() % n];

		if (strtt_rand() % 3 == 0) {
			strtt_rand_key(&k);
			src = &k;
		}
		memcpy(s, src->s, src->len);
		len = src->len;
		if (strtt_rand() % 2) { /* a longer string starting with the key */
			strtt_rand_key(&k);
			memcpy(s + len, k.s, k.len);
			len += k.len;
		}
		if (flags & STRTREE_ICASE && len && strtt_rand() % 2)
			s[strtt_rand() % len] ^= 0x20; /* flip a case (or a non-letter) */
		strtt_check(t, keys, n, flags & STRTREE_ICASE, s, len);
	}
out:
	strtree_free(t);
	free(keys);
}

TEST(strtree_random)
{
	strtt_random_run(3000, 0, 20000);
	strtt_random_run(40, 0, 5000);
}

TEST(strtree_random_icase)
{
	strtt_random_run(3000, STRTREE_ICASE, 20000);
	strtt_random_run(40, STRTREE_ICASE, 5000);
}

/* An exact-only set answers exact lookups the same as a prefix set. */
TEST(strtree_exact_only)
{
	struct strtree *a = strtree_new(0), *b = strtree_new(STRTREE_PREFIX);
	struct strtt_key k;
	size_t i;

	for (i = 0; i < 5000; i++) {
		strtt_rand_key(&k);
		CHECK_INT(strtree_insert(a, k.s, k.len, (void *)(uintptr_t)(i + 1), (unsigned)i),
			  0);
		CHECK_INT(strtree_insert(b, k.s, k.len, (void *)(uintptr_t)(i + 1), (unsigned)i),
			  0);
	}
	CHECK_INT(strtree_count(a), strtree_count(b));
	CHECK(strtree_mem_usage(a) < strtree_mem_usage(b));
	for (i = 0; i < 20000; i++) {
		strtt_rand_key(&k);
		CHECK(strtree_lookup(a, k.s, k.len) == strtree_lookup(b, k.s, k.len));
		CHECK_INT(strtree_first_idx(a, k.s, k.len), strtree_first_idx(b, k.s, k.len));
	}
	strtree_free(a);
	strtree_free(b);
}

static double strtt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* n path-like keys ("/d<i>/x<j>/"), a million exact lookups of present keys and a million
 * prefix lookups of 4096 longer paths under them; prints ns per lookup and memory.
 */
static void strtt_scale(size_t n)
{
	enum { LOOKUPS = 1000000 };
	struct strtt_str40 {
		char s[40];
	} *keys = calloc(n, sizeof(*keys));
	struct strtt_str64 {
		char s[64];
	} *paths = calloc(4096, sizeof(*paths));
	uint32_t *pick = calloc(LOOKUPS, sizeof(*pick));
	size_t *klen = calloc(LOOKUPS, sizeof(*klen)), plen[4096];
	const char **res = calloc(LOOKUPS, sizeof(*res));
	struct strtree *t = strtree_new(STRTREE_PREFIX);
	size_t i, bad = 0, sum = 0;
	double t0, dx, dp;

	if (!keys || !paths || !pick || !klen || !res || !t) {
		CHECK(0);
		goto out;
	}
	for (i = 0; i < n; i++) {
		snprintf(keys[i].s, sizeof(keys[i].s), "/d%u/x%u/", strtt_rand() % 1000,
			 strtt_rand());
		CHECK_INT(strtree_insert(t, keys[i].s, strlen(keys[i].s), keys[i].s, (unsigned)i),
			  0);
	}
	for (i = 0; i < LOOKUPS; i++)
		pick[i] = strtt_rand() % n;
	for (i = 0; i < 4096; i++)
		snprintf(paths[i].s, sizeof(paths[i].s), "%.39sindex.html?q=%zu", keys[pick[i]].s,
			 i);

	for (i = 0; i < LOOKUPS; i++)
		klen[i] = strlen(keys[pick[i]].s);
	for (i = 0; i < 4096; i++)
		plen[i] = strlen(paths[i].s);
	t0 = strtt_now();
	for (i = 0; i < LOOKUPS; i++)
		res[i] = strtree_lookup(t, keys[pick[i]].s, klen[i]);
	dx = strtt_now() - t0;
	for (i = 0; i < LOOKUPS; i++) {
		sum += res[i] == keys[pick[i]].s; /* duplicates excepted, a key finds itself */
		bad += !res[i] || strcmp(res[i], keys[pick[i]].s);
	}
	t0 = strtt_now();
	for (i = 0; i < LOOKUPS; i++)
		res[i] = strtree_lookup_prefix(t, paths[i & 4095].s, plen[i & 4095]);
	dp = strtt_now() - t0;
	for (i = 0; i < LOOKUPS; i++) {
		const char *d = res[i], *p = paths[i & 4095].s;

		bad += !d || strncmp(d, p, strlen(d)) || strlen(d) < strlen(keys[pick[i & 4095]].s);
	}
	CHECK_INT(bad, 0);
	CHECK(sum > LOOKUPS / 2);
	printf("  strtree_scale: %6zu keys: exact %5.1f ns, prefix %5.1f ns/lookup, %.2f MB\n",
	       strtree_count(t), dx * 1e9 / LOOKUPS, dp * 1e9 / LOOKUPS,
	       strtree_mem_usage(t) / 1048576.0);
out:
	strtree_free(t);
	free(keys);
	free(paths);
	free(pick);
	free(klen);
	free(res);
}

TEST(strtree_scale)
{
	strtt_scale(1000);
	strtt_scale(10000);
	strtt_scale(100000);
}
