/* Unit tests of run-time changes to maps and ACLs: random inserts and deletes in strtree and
 * iptree (in place, or into a copy when full, as pattern.c does) against a brute-force
 * reference; pattern sets with duplicate keys; map references changed as the CLI does
 * (add, del, set, versions) seen by map_lookup; the "<<" payload line parser.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sample/iptree.h>
#include <sample/map.h>
#include <sample/map_ref.h>
#include <sample/pattern.h>
#include <sample/sample.h>
#include <sample/strtree.h>
#include "../test.h"

static uint64_t ml_seed = 0x9d2c5680a1b2c3d4ULL;

static uint32_t ml_rand(void)
{
	ml_seed ^= ml_seed << 13;
	ml_seed ^= ml_seed >> 7;
	ml_seed ^= ml_seed << 17;
	return (uint32_t)(ml_seed >> 16);
}

/* ---- strtree ---- */

#define ML_NKEYS 300

struct ml_key {
	char s[8];
	size_t len;
	bool in;
};

static void ml_rand_key(struct ml_key *k)
{
	k->len = ml_rand() % 5;
	for (size_t i = 0; i < k->len; i++)
		k->s[i] = "abAB"[ml_rand() % 4];
}

/* Inserts as a live writer does: in place if it fits, else into a copy that replaces *t. */
static int ml_str_insert(struct strtree **t, const struct ml_key *k, void *data)
{
	struct strtree *n;

	if (strtree_has_room(*t, k->len))
		return strtree_insert(*t, k->s, k->len, data, 0);
	n = strtree_copy(*t, k->len);
	if (!n)
		return -1;
	strtree_free(*t);
	*t = n;
	return strtree_insert(*t, k->s, k->len, data, 0);
}

static bool ml_prefix_of(const struct ml_key *k, const char *s, size_t len)
{
	return k->len <= len && !memcmp(k->s, s, k->len);
}

static void ml_str_check(const struct strtree *t, struct ml_key *keys, int n)
{
	for (int q = 0; q < 200; q++) {
		struct ml_key s;
		const struct ml_key *exact = NULL, *best = NULL;

		ml_rand_key(&s);
		for (int i = 0; i < n; i++) {
			if (!keys[i].in)
				continue;
			if (keys[i].len == s.len && !memcmp(keys[i].s, s.s, s.len))
				exact = &keys[i];
			if (ml_prefix_of(&keys[i], s.s, s.len) &&
			    (!best || keys[i].len > best->len))
				best = &keys[i];
		}
		CHECK(strtree_lookup(t, s.s, s.len) == exact);
		CHECK(strtree_lookup_prefix(t, s.s, s.len) == best);
	}
}

TEST(map_live_strtree_random_ops)
{
	struct ml_key keys[ML_NKEYS];
	struct strtree *t = strtree_new(STRTREE_PREFIX);
	int n = 0, live = 0;

	CHECK(t != NULL);
	if (!t)
		return;
	/* distinct keys: the tree holds one data per key */
	while (n < ML_NKEYS) {
		struct ml_key k = { .in = false };
		bool dup = false;

		k.len = 1 + ml_rand() % 6;
		for (size_t i = 0; i < k.len; i++)
			k.s[i] = "abAB"[ml_rand() % 4];
		for (int i = 0; i < n && !dup; i++)
			dup = keys[i].len == k.len && !memcmp(keys[i].s, k.s, k.len);
		if (!dup)
			keys[n++] = k;
		if (n == 1) { /* and the empty key, a prefix of everything */
			keys[n].len = 0;
			keys[n++].in = false;
		}
	}
	for (int op = 0; op < 6000; op++) {
		struct ml_key *k = &keys[ml_rand() % ML_NKEYS];

		if (!k->in) {
			CHECK_INT(ml_str_insert(&t, k, k), 0);
			k->in = true;
			live++;
		} else if (ml_rand() % 2) {
			CHECK_INT(strtree_delete(t, k->s, k->len), 0);
			CHECK_INT(strtree_delete(t, k->s, k->len), -1);
			k->in = false;
			live--;
		}
		if (op % 500 == 0)
			ml_str_check(t, keys, ML_NKEYS);
	}
	CHECK_INT((int)strtree_count(t), live);
	ml_str_check(t, keys, ML_NKEYS);
	strtree_free(t);
}

/* ---- iptree ---- */

struct ml_net {
	uint32_t a; /* host order, masked */
	int plen;
	bool v6, in;
};

static bool ml_net_has(const struct ml_net *n, uint32_t a)
{
	uint32_t m = n->plen ? ~0U << (32 - n->plen) : 0;

	return (a & m) == n->a;
}

/* IPv6 networks are ::ffff:a/96+plen here, so that both trees answer for IPv4 lookups. */
static void ml_net6(const struct ml_net *n, struct in6_addr *a6)
{
	uint32_t be = htonl(n->a);

	memset(a6, 0, sizeof(*a6));
	a6->s6_addr[10] = a6->s6_addr[11] = 0xff;
	memcpy(&a6->s6_addr[12], &be, 4);
}

static int ml_ip_insert(struct iptree **t, const struct ml_net *n, void *data)
{
	struct in_addr a = { htonl(n->a) };
	struct in6_addr a6;
	struct iptree *c;

	if (!iptree_has_room(*t)) {
		c = iptree_copy(*t);
		if (!c)
			return -1;
		iptree_free(*t);
		*t = c;
	}
	if (!n->v6)
		return iptree_insert4(*t, a, n->plen, data, 0);
	ml_net6(n, &a6);
	return iptree_insert6(*t, &a6, 96 + n->plen, data, 0);
}

static int ml_ip_delete(struct iptree *t, const struct ml_net *n)
{
	struct in_addr a = { htonl(n->a) };
	struct in6_addr a6;

	if (!n->v6)
		return iptree_delete4(t, a, n->plen);
	ml_net6(n, &a6);
	return iptree_delete6(t, &a6, 96 + n->plen);
}

TEST(map_live_iptree_random_ops)
{
	struct ml_net nets[200];
	struct iptree *t = iptree_new();
	int n = 0;

	CHECK(t != NULL);
	if (!t)
		return;
	while (n < 200) {
		struct ml_net x = { .in = false };
		bool dup = false;

		x.plen = (int)(ml_rand() % 33);
		x.a = (0x0a000000U | (ml_rand() & 0x00ff0f0fU)) &
		      (x.plen ? ~0U << (32 - x.plen) : 0);
		x.v6 = ml_rand() % 4 == 0;
		for (int i = 0; i < n && !dup; i++)
			dup = nets[i].a == x.a && nets[i].plen == x.plen && nets[i].v6 == x.v6;
		if (!dup)
			nets[n++] = x;
	}
	for (int op = 0; op < 5000; op++) {
		struct ml_net *x = &nets[ml_rand() % 200];

		if (!x->in) {
			CHECK_INT(ml_ip_insert(&t, x, x), 0);
			x->in = true;
		} else if (ml_rand() % 2) {
			CHECK_INT(ml_ip_delete(t, x), 0);
			CHECK_INT(ml_ip_delete(t, x), -1);
			x->in = false;
		}
		if (op % 250)
			continue;
		for (int q = 0; q < 200; q++) {
			uint32_t a = 0x0a000000U | (ml_rand() & 0x00ff0f0fU);
			const struct ml_net *b4 = NULL, *b6 = NULL, *got;
			struct in_addr ia = { htonl(a) };

			for (int i = 0; i < 200; i++) {
				const struct ml_net *c = &nets[i];
				const struct ml_net **b = c->v6 ? &b6 : &b4;

				if (c->in && ml_net_has(c, a) && (!*b || c->plen > (*b)->plen))
					*b = c;
			}
			/* IPv4 networks first, then the IPv6 ones holding ::ffff:a */
			got = iptree_lookup4(t, ia);
			CHECK(got == (b4 ? b4 : b6));
		}
	}
	iptree_free(t);
}

/* ---- pattern sets ---- */

static struct pattern *ml_match(const struct pat_set *ps, const char *s)
{
	struct sample smp;

	memset(&smp, 0, sizeof(smp));
	smp.data.type = SMP_T_STR;
	smp.data.u.str = ist_str(s);
	smp.flags = SMP_F_CONST;
	return pat_match(ps, &smp);
}

TEST(map_live_pattern_dups)
{
	static const int methods[] = { PAT_MATCH_STR, PAT_MATCH_BEG, PAT_MATCH_SUB, PAT_MATCH_IP };

	for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); m++) {
		bool ip = methods[m] == PAT_MATCH_IP;
		const char *k = ip ? "10.0.0.0/8" : "abc", *s = ip ? "10.1.2.3" : "abc";
		struct pattern *p1, *p2, *p3;
		struct pat_set ps;
		char err[256];

		pat_set_init(&ps, methods[m], 0);
		p1 = pat_set_add_ref(&ps, k, PAT_OP_NONE, NULL, true, err, sizeof(err));
		p2 = pat_set_add_ref(&ps, k, PAT_OP_NONE, NULL, true, err, sizeof(err));
		p3 = pat_set_add_ref(&ps, k, PAT_OP_NONE, NULL, true, err, sizeof(err));
		CHECK(p1 && p2 && p3);
		if (!p1 || !p2 || !p3)
			return;
		CHECK(ml_match(&ps, s) == p1); /* the first one added answers */
		pat_set_del_live(p2);
		CHECK(ml_match(&ps, s) == p1);
		pat_set_del_live(p1);
		CHECK(ml_match(&ps, s) == p3);
		pat_set_del_live(p3);
		CHECK(ml_match(&ps, s) == NULL);
		CHECK_INT((int)ps.count, 0);
		CHECK(ps.head == NULL);
		pat_free_one(p1);
		pat_free_one(p2);
		pat_free_one(p3);
		pat_set_free(&ps);
	}
}

/* 20,000 adds one at a time then deletes: each add stays cheap (no rebuild per add), and the
 * set answers like a brute-force list throughout. */
TEST(map_live_pattern_many)
{
	enum { N = 20000 };
	struct pattern **pp = calloc(N, sizeof(*pp));
	struct pat_set ps;
	char key[32], err[256];

	CHECK(pp != NULL);
	if (!pp)
		return;
	pat_set_init(&ps, PAT_MATCH_STR, 0);
	for (int i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "host%d.example", i);
		pp[i] = pat_set_add_ref(&ps, key, PAT_OP_NONE, NULL, true, err, sizeof(err));
		CHECK(pp[i] != NULL);
	}
	for (int i = 0; i < N; i += 2)
		pat_set_del_live(pp[i]);
	for (int i = 0; i < N; i += 97) {
		snprintf(key, sizeof(key), "host%d.example", i);
		CHECK(ml_match(&ps, key) == (i % 2 ? pp[i] : NULL));
	}
	CHECK_INT((int)ps.count, N / 2);
	for (int i = 0; i < N; i += 2)
		pat_free_one(pp[i]);
	pat_set_free(&ps);
	pat_retire_flush(); /* the trees replaced by larger copies */
	free(pp);
}

/* ---- map references ---- */

static const char *ml_lookup(const struct map_desc *m, const char *s, char *buf, size_t sz)
{
	struct sample smp;

	memset(&smp, 0, sizeof(smp));
	smp.data.type = SMP_T_STR;
	smp.data.u.str = ist_str(s);
	smp.flags = SMP_F_CONST;
	if (!map_lookup(m, &smp))
		return "-";
	if (smp.data.type == SMP_T_SINT)
		snprintf(buf, sz, "%lld", (long long)smp.data.u.sint);
	else
		snprintf(buf, sz, "%.*s", (int)smp.data.u.str.len, smp.data.u.str.ptr);
	return buf;
}

TEST(map_live_ref_changes)
{
	char path[] = "/tmp/test_map_live_XXXXXX", err[256], b[64];
	struct map_desc *ms, *mi, *mb;
	struct map_ref *r;
	FILE *f;
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	fputs("a.com 1\n/api 2\n", f);
	fclose(f);
	ms = map_get(path, PAT_MATCH_STR, SMP_T_STR, err, sizeof(err));
	mi = map_get(path, PAT_MATCH_STR, SMP_T_SINT, err, sizeof(err));
	mb = map_get(path, PAT_MATCH_BEG, SMP_T_STR, err, sizeof(err));
	r = map_ref_lookup(path, MAP_REF_F_MAP);
	CHECK(ms && mi && mb && r);
	if (!ms || !mi || !mb || !r)
		goto out;
	CHECK_INT(map_ref_add(r, "b.com", "3", 0, err, sizeof(err)), 0);
	CHECK_STR(ml_lookup(ms, "b.com", b, sizeof(b)), "3");
	CHECK_STR(ml_lookup(mi, "b.com", b, sizeof(b)), "3");
	/* a value the int map cannot take is refused everywhere */
	CHECK_INT(map_ref_add(r, "c.com", "x", 0, err, sizeof(err)), -1);
	CHECK_STR(err, "unable to parse 'x'");
	CHECK_STR(ml_lookup(ms, "c.com", b, sizeof(b)), "-");
	CHECK_INT((int)r->count, 3);
	CHECK_INT(map_ref_set_value(r, r->head, "7", err, sizeof(err)), 0);
	CHECK_STR(ml_lookup(ms, "a.com", b, sizeof(b)), "7");
	CHECK_STR(ml_lookup(mi, "a.com", b, sizeof(b)), "7");
	CHECK_INT(map_ref_set_value(r, r->head, "y", err, sizeof(err)), -1);
	CHECK_STR(ml_lookup(ms, "a.com", b, sizeof(b)), "7");
	CHECK_STR(ml_lookup(mb, "/api/v1", b, sizeof(b)), "2");
	CHECK_INT(map_ref_del(r, r->head->next), 0);
	CHECK_STR(ml_lookup(mb, "/api/v1", b, sizeof(b)), "-");
	/* versions: the new entries show only once committed, the old ones leave then */
	r->next_ver++;
	CHECK_INT(map_ref_add(r, "v.com", "9", 1, err, sizeof(err)), 0);
	CHECK_STR(ml_lookup(ms, "v.com", b, sizeof(b)), "-");
	CHECK_STR(ml_lookup(ms, "a.com", b, sizeof(b)), "7");
	CHECK_INT(map_ref_commit(r, 1, err, sizeof(err)), 0);
	CHECK_STR(ml_lookup(ms, "v.com", b, sizeof(b)), "9");
	CHECK_STR(ml_lookup(ms, "a.com", b, sizeof(b)), "-");
	CHECK_INT((int)r->count, 1);
	CHECK_INT(map_ref_purge(r, 1), 0);
	CHECK_STR(ml_lookup(ms, "v.com", b, sizeof(b)), "-");
	CHECK_INT((int)map_count(ms), 0);
out:
	map_deinit();
	unlink(path);
}

TEST(map_live_payload_lines)
{
	char pl[] = "k1 v1\n\n# c\n  k2 \t v2 x \r\nk3\n#k4 v\n k5#x y";
	char *cur = pl, *k, *v;

	CHECK_INT(map_payload_next(&cur, &k, &v), 1);
	CHECK_STR(k, "k1");
	CHECK_STR(v, "v1");
	CHECK_INT(map_payload_next(&cur, &k, &v), 1);
	CHECK_STR(k, "k2");
	CHECK_STR(v, "v2 x");
	CHECK_INT(map_payload_next(&cur, &k, &v), 1);
	CHECK_STR(k, "k3");
	CHECK_STR(v, "");
	CHECK_INT(map_payload_next(&cur, &k, &v), 1);
	CHECK_STR(k, "k5#x");
	CHECK_STR(v, "y");
	CHECK_INT(map_payload_next(&cur, &k, &v), 0);
	CHECK_INT(map_payload_next(&cur, &k, &v), 0);
}
