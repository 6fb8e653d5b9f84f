/* IPv4/IPv6 network sets (sample/iptree.h): one path-compressed binary trie per family,
 * nodes in a growable array linked by 32-bit indices, entries (data, idx) in another. Insert
 * runs at config time; lookups only read and may run on any thread without a lock. At run
 * time one writer inserts and deletes in place under the readers (as in strtree.c: new nodes
 * filled before a release store links them, changing fields are atomics, nothing reused, a
 * full tree copied rather than grown).
 */
#include <arpa/inet.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <base/atomic.h>
#include <base/compiler.h>
#include <base/array.h>
#include <sample/iptree.h>

/* Why a binary trie: multibit tries (DIR-24-8, poptrie) walk fewer nodes but take tens of
 * MB, or need a build step after the last insert that this insert-as-you-parse API has no
 * place for; a sorted array of ranges needs the same step. The binary trie grows in place,
 * holds at most 2n-1 nodes of 16 (IPv4) or 32 (IPv6) bytes, and a walk is bounded by the
 * address width: ~log2(n) dependent loads, so 100k networks cost a few more cache misses
 * than 1k (unit test iptree_scale prints both), never a scan.
 *
 * Index 0 of the node and entry arrays is never used: 0 means "no child" / "no entry".
 */

struct ipt_ent {
	void *data;   /* the caller's, from the first insert of this network */
	unsigned idx; /* smallest idx inserted for this network */
};

/* 16 bytes: IPv4 lists are the big ones, so plen shares a word with the entry number */
#define IPT4_ENT_MAX ((1U << 26) - 1)

struct ipt_node4 {
	uint32_t key;	/* network in host order, bits past plen zero */
	uint32_t ch[2]; /* children, by bit <plen> of their key; 0: none */
	uint32_t meta;	/* entry << 6 | plen (0..32); entry 0 where two branches part */
};

struct ipt_key6 {
	uint64_t hi; /* bytes 0..7 of the address, most significant first */
	uint64_t lo; /* bytes 8..15 */
};

struct ipt_node6 {
	struct ipt_key6 key;
	uint32_t ch[2];
	uint32_t ent;
	uint8_t plen; /* 0..128 */
};

struct iptree {
	struct ipt_node4 *n4;
	struct ipt_node6 *n6;
	struct ipt_ent *ent;
	uint32_t n4_used, n4_cap, root4;
	uint32_t n6_used, n6_cap, root6;
	uint32_t ent_used, ent_cap;
	uint32_t live; /* networks present (run-time deletes remove some) */
};

/* Makes room for two more nodes of the family (<v6>) and one more entry, so that an insert
 * never reallocates while it holds pointers into the arrays. Returns 0 or -1.
 */
static int ipt_reserve(struct iptree *t, bool v6)
{
	void *p;

	if (!v6 && t->ent_used >= IPT4_ENT_MAX)
		return -1;
	if (!v6 && (uint64_t)t->n4_used + 2 > t->n4_cap) {
		p = array_grow(t->n4, &t->n4_cap, (uint64_t)t->n4_used + 2, sizeof(*t->n4));
		if (!p)
			return -1;
		t->n4 = p;
	}
	if (v6 && (uint64_t)t->n6_used + 2 > t->n6_cap) {
		p = array_grow(t->n6, &t->n6_cap, (uint64_t)t->n6_used + 2, sizeof(*t->n6));
		if (!p)
			return -1;
		t->n6 = p;
	}
	if (t->ent_used + 1ULL > t->ent_cap) {
		p = array_grow(t->ent, &t->ent_cap, t->ent_used + 1ULL, sizeof(*t->ent));
		if (!p)
			return -1;
		t->ent = p;
	}
	return 0;
}

/* Records network data/idx on node entry *ent: a new entry when the node had none, else
 * the first data stays and idx becomes the smaller one. Room was reserved.
 */
static void ipt_set_ent(struct iptree *t, uint32_t *ent, void *data, unsigned idx)
{
	if (*ent) {
		if (idx < t->ent[*ent].idx)
			HA_ATOMIC_STORE_RLX(&t->ent[*ent].idx, idx);
		return;
	}
	t->live++;
	*ent = t->ent_used++;
	t->ent[*ent].data = data;
	t->ent[*ent].idx = idx;
}

/* idx of entry <e>, UINT_MAX for none. */
static inline unsigned ipt_idx(const struct iptree *t, uint32_t e)
{
	return e ? HA_ATOMIC_LOAD_RLX(&t->ent[e].idx) : UINT_MAX;
}

/* Entry <cand> replaces <best> on a walk: always for the longest match, when its idx is
 * smaller for the first match.
 */
static inline bool ipt_better(const struct iptree *t, uint32_t best, uint32_t cand, bool first)
{
	return !first || !best ||
	       HA_ATOMIC_LOAD_RLX(&t->ent[cand].idx) < HA_ATOMIC_LOAD_RLX(&t->ent[best].idx);
}

/* ---- IPv4 ---- */

static inline uint32_t ipt4_mask(unsigned plen)
{
	return plen ? ~0U << (32 - plen) : 0;
}

/* Bit <pos> (0 = most significant, pos < 32) of <k>. */
static inline unsigned ipt4_bit(uint32_t k, unsigned pos)
{
	return (k >> (31 - pos)) & 1;
}

/* Length of the common prefix of <a> and <b>, at most <max>. */
static inline unsigned ipt4_common(uint32_t a, uint32_t b, unsigned max)
{
	unsigned c = a ^ b ? (unsigned)__builtin_clz(a ^ b) : 32;

	return MIN(c, max);
}

static inline unsigned ipt4_plen(const struct ipt_node4 *n)
{
	return n->meta & 63;
}

static inline uint32_t ipt4_ent(const struct ipt_node4 *n)
{
	return n->meta >> 6;
}

/* Takes a reserved node for key/plen with entry <ent>; returns its index. */
static uint32_t ipt4_node(struct iptree *t, uint32_t key, unsigned plen, uint32_t ent)
{
	struct ipt_node4 *n = &t->n4[t->n4_used];

	n->key = key;
	n->ch[0] = n->ch[1] = 0;
	n->meta = ent << 6 | plen;
	return t->n4_used++;
}

int iptree_insert4(struct iptree *t, struct in_addr net, int plen, void *data, unsigned idx)
{
	uint32_t key, cur, e, glue, *link = &t->root4;
	struct ipt_node4 *n;
	unsigned p = (unsigned)plen, c, np;

	if (plen < 0 || plen > 32 || ipt_reserve(t, false))
		return -1;
	key = ntohl(net.s_addr) & ipt4_mask(p);
	while ((cur = *link)) {
		n = &t->n4[cur];
		np = ipt4_plen(n);
		c = ipt4_common(key, n->key, MIN(p, np));
		if (c == np && c == p) {
			e = ipt4_ent(n);
			ipt_set_ent(t, &e, data, idx);
			HA_ATOMIC_STORE(&n->meta, e << 6 | np);
			return 0;
		}
		if (c == np) {
			link = &n->ch[ipt4_bit(key, c)];
			continue;
		}
		/* <n> leaves the path at bit c: the new network, or a fork, goes above it */
		e = 0;
		ipt_set_ent(t, &e, data, idx);
		if (c == p) {
			glue = ipt4_node(t, key, p, e);
			t->n4[glue].ch[ipt4_bit(n->key, c)] = cur;
			HA_ATOMIC_STORE(link, glue);
			return 0;
		}
		glue = ipt4_node(t, key & ipt4_mask(c), c, 0);
		t->n4[glue].ch[ipt4_bit(n->key, c)] = cur;
		t->n4[glue].ch[ipt4_bit(key, c)] = ipt4_node(t, key, p, e);
		HA_ATOMIC_STORE(link, glue);
		return 0;
	}
	e = 0;
	ipt_set_ent(t, &e, data, idx);
	HA_ATOMIC_STORE(link, ipt4_node(t, key, p, e));
	return 0;
}

/* Walks the IPv4 trie along <a> (host order). Returns the entry of the longest network
 * containing it, or with <first> the one with the smallest idx; 0 if none.
 */
static inline uint32_t ipt4_walk(const struct iptree *t, uint32_t a, bool first)
{
	uint32_t cur = HA_ATOMIC_LOAD(&t->root4), best = 0, e, meta;
	const struct ipt_node4 *n;
	unsigned plen;

	while (cur) {
		n = &t->n4[cur];
		meta = HA_ATOMIC_LOAD(&n->meta);
		plen = meta & 63;
		if ((a ^ n->key) & ipt4_mask(plen))
			break;
		e = meta >> 6;
		if (e && ipt_better(t, best, e, first))
			best = e;
		if (plen == 32)
			break;
		cur = HA_ATOMIC_LOAD(&n->ch[ipt4_bit(a, plen)]);
	}
	return best;
}

/* ---- IPv6 ---- */

static inline uint64_t ipt6_mask64(unsigned plen)
{
	return plen ? ~0ULL << (64 - plen) : 0;
}

static inline struct ipt_key6 ipt6_mask(struct ipt_key6 k, unsigned plen)
{
	k.hi &= ipt6_mask64(MIN(plen, 64));
	k.lo &= ipt6_mask64(plen > 64 ? plen - 64 : 0);
	return k;
}

/* True if <a> lies in network <k>/<plen>. */
static inline bool ipt6_in(struct ipt_key6 a, struct ipt_key6 k, unsigned plen)
{
	return !((a.hi ^ k.hi) & ipt6_mask64(MIN(plen, 64))) &&
	       !((a.lo ^ k.lo) & ipt6_mask64(plen > 64 ? plen - 64 : 0));
}

/* Bit <pos> (0 = most significant, pos < 128) of <k>. */
static inline unsigned ipt6_bit(struct ipt_key6 k, unsigned pos)
{
	return pos < 64 ? (k.hi >> (63 - pos)) & 1 : (k.lo >> (127 - pos)) & 1;
}

static inline unsigned ipt6_common(struct ipt_key6 a, struct ipt_key6 b, unsigned max)
{
	unsigned c;

	if (a.hi != b.hi)
		c = (unsigned)__builtin_clzll(a.hi ^ b.hi);
	else if (a.lo != b.lo)
		c = 64 + (unsigned)__builtin_clzll(a.lo ^ b.lo);
	else
		c = 128;
	return MIN(c, max);
}

static struct ipt_key6 ipt6_key(const struct in6_addr *a)
{
	struct ipt_key6 k = { 0, 0 };
	int i;

	for (i = 0; i < 8; i++) {
		k.hi = k.hi << 8 | a->s6_addr[i];
		k.lo = k.lo << 8 | a->s6_addr[8 + i];
	}
	return k;
}

/* ::ffff:a.b.c.d for IPv4 address <a> (host order). */
static inline struct ipt_key6 ipt6_mapped(uint32_t a)
{
	struct ipt_key6 k = { 0, 0xffff00000000ULL | a };

	return k;
}

/* True when <k> embeds an IPv4 address, which goes to *v4: ::ffff:a.b.c.d, ::a.b.c.d,
 * 2002:AABB:CCDD::/48 (HAProxy 2.6 tries these three forms in its IPv4 tree).
 */
static bool ipt6_embedded4(struct ipt_key6 k, uint32_t *v4)
{
	if (k.hi == 0 && (k.lo >> 32 == 0xffff || k.lo >> 32 == 0)) {
		*v4 = (uint32_t)k.lo;
		return true;
	}
	if (k.hi >> 48 == 0x2002) {
		*v4 = (uint32_t)(k.hi >> 16);
		return true;
	}
	return false;
}

static uint32_t ipt6_node(struct iptree *t, struct ipt_key6 key, unsigned plen, uint32_t ent)
{
	struct ipt_node6 *n = &t->n6[t->n6_used];

	n->key = key;
	n->plen = (uint8_t)plen;
	n->ch[0] = n->ch[1] = 0;
	n->ent = ent;
	return t->n6_used++;
}

int iptree_insert6(struct iptree *t, const struct in6_addr *net, int plen, void *data, unsigned idx)
{
	uint32_t cur, e, glue, *link = &t->root6;
	struct ipt_node6 *n;
	struct ipt_key6 key;
	unsigned p = (unsigned)plen, c;

	if (plen < 0 || plen > 128 || ipt_reserve(t, true))
		return -1;
	key = ipt6_mask(ipt6_key(net), p);
	while ((cur = *link)) {
		n = &t->n6[cur];
		c = ipt6_common(key, n->key, MIN(p, n->plen));
		if (c == n->plen && c == p) {
			e = n->ent;
			ipt_set_ent(t, &e, data, idx);
			HA_ATOMIC_STORE(&n->ent, e);
			return 0;
		}
		if (c == n->plen) {
			link = &n->ch[ipt6_bit(key, c)];
			continue;
		}
		e = 0;
		ipt_set_ent(t, &e, data, idx);
		if (c == p) {
			glue = ipt6_node(t, key, p, e);
			t->n6[glue].ch[ipt6_bit(n->key, c)] = cur;
			HA_ATOMIC_STORE(link, glue);
			return 0;
		}
		glue = ipt6_node(t, ipt6_mask(key, c), c, 0);
		t->n6[glue].ch[ipt6_bit(n->key, c)] = cur;
		t->n6[glue].ch[ipt6_bit(key, c)] = ipt6_node(t, key, p, e);
		HA_ATOMIC_STORE(link, glue);
		return 0;
	}
	e = 0;
	ipt_set_ent(t, &e, data, idx);
	HA_ATOMIC_STORE(link, ipt6_node(t, key, p, e));
	return 0;
}

/* ipt4_walk() for the IPv6 trie. */
static inline uint32_t ipt6_walk(const struct iptree *t, struct ipt_key6 a, bool first)
{
	uint32_t cur = HA_ATOMIC_LOAD(&t->root6), best = 0, e;
	const struct ipt_node6 *n;

	while (cur) {
		n = &t->n6[cur];
		if (!ipt6_in(a, n->key, n->plen))
			break;
		e = HA_ATOMIC_LOAD(&n->ent);
		if (e && ipt_better(t, best, e, first))
			best = e;
		if (n->plen == 128)
			break;
		cur = HA_ATOMIC_LOAD(&n->ch[ipt6_bit(a, n->plen)]);
	}
	return best;
}

/* ---- public API ---- */

struct iptree *iptree_new(void)
{
	struct iptree *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->n4_used = t->n6_used = t->ent_used = 1;
	return t;
}

void iptree_free(struct iptree *t)
{
	if (!t)
		return;
	free(t->n4);
	free(t->n6);
	free(t->ent);
	free(t);
}

void *iptree_lookup4(const struct iptree *t, struct in_addr a)
{
	uint32_t h = ntohl(a.s_addr), e;

	e = ipt4_walk(t, h, false);
	if (!e)
		e = ipt6_walk(t, ipt6_mapped(h), false);
	return e ? HA_ATOMIC_LOAD(&t->ent[e].data) : NULL;
}

void *iptree_lookup6(const struct iptree *t, const struct in6_addr *a)
{
	struct ipt_key6 k = ipt6_key(a);
	uint32_t e, v4;

	e = ipt6_walk(t, k, false);
	if (!e && ipt6_embedded4(k, &v4))
		e = ipt4_walk(t, v4, false);
	return e ? HA_ATOMIC_LOAD(&t->ent[e].data) : NULL;
}

unsigned iptree_first_idx4(const struct iptree *t, struct in_addr a)
{
	uint32_t h = ntohl(a.s_addr);
	unsigned i4 = ipt_idx(t, ipt4_walk(t, h, true));

	if (!HA_ATOMIC_LOAD_RLX(
		    &t->root6)) /* no IPv6 network: nothing may hold the mapped address */
		return i4;
	return MIN(i4, ipt_idx(t, ipt6_walk(t, ipt6_mapped(h), true)));
}

unsigned iptree_first_idx6(const struct iptree *t, const struct in6_addr *a)
{
	struct ipt_key6 k = ipt6_key(a);
	unsigned i6 = ipt_idx(t, ipt6_walk(t, k, true)), i4 = UINT_MAX;
	uint32_t v4;

	if (ipt6_embedded4(k, &v4))
		i4 = ipt_idx(t, ipt4_walk(t, v4, true));
	return MIN(i4, i6);
}

size_t iptree_count(const struct iptree *t)
{
	return t->live;
}

/* ---- run-time changes (one writer, readers on any thread) ---- */

bool iptree_has_room(const struct iptree *t)
{
	return t->ent_used < IPT4_ENT_MAX && t->n4_used + 2ULL <= t->n4_cap &&
	       t->n6_used + 2ULL <= t->n6_cap && t->ent_used + 1ULL <= t->ent_cap;
}

/* Inserts every network under IPv4 node <cur> of <t> into <n>. 0 or -1. */
static int ipt4_copy(struct iptree *n, const struct iptree *t, uint32_t cur)
{
	const struct ipt_node4 *x = &t->n4[cur];
	uint32_t e = ipt4_ent(x);
	struct in_addr a = { htonl(x->key) };

	if (e && iptree_insert4(n, a, (int)ipt4_plen(x), t->ent[e].data, t->ent[e].idx) < 0)
		return -1;
	for (int i = 0; i < 2; i++)
		if (x->ch[i] && ipt4_copy(n, t, x->ch[i]) < 0)
			return -1;
	return 0;
}

static int ipt6_copy(struct iptree *n, const struct iptree *t, uint32_t cur)
{
	const struct ipt_node6 *x = &t->n6[cur];
	struct in6_addr a;

	for (int i = 0; i < 8; i++) {
		a.s6_addr[i] = (uint8_t)(x->key.hi >> (56 - 8 * i));
		a.s6_addr[8 + i] = (uint8_t)(x->key.lo >> (56 - 8 * i));
	}
	if (x->ent && iptree_insert6(n, &a, x->plen, t->ent[x->ent].data, t->ent[x->ent].idx) < 0)
		return -1;
	for (int i = 0; i < 2; i++)
		if (x->ch[i] && ipt6_copy(n, t, x->ch[i]) < 0)
			return -1;
	return 0;
}

struct iptree *iptree_copy(const struct iptree *t)
{
	struct iptree *n = iptree_new();
	uint64_t need = 2ULL * t->live + 16;
	void *p;

	if (!n)
		return NULL;
	if (!(p = array_grow(n->ent, &n->ent_cap, need, sizeof(*n->ent))))
		goto out_free;
	n->ent = p;
	if (!(p = array_grow(n->n4, &n->n4_cap, 2 * need, sizeof(*n->n4))))
		goto out_free;
	n->n4 = p;
	if (!(p = array_grow(n->n6, &n->n6_cap, t->root6 ? 2 * need : 16, sizeof(*n->n6))))
		goto out_free;
	n->n6 = p;
	if ((t->root4 && ipt4_copy(n, t, t->root4) < 0) ||
	    (t->root6 && ipt6_copy(n, t, t->root6) < 0))
		goto out_free;
	return n;
out_free:
	iptree_free(n);
	return NULL;
}

/* The link to the node of network key/plen in the IPv4 trie, its parent's link in *plink
 * (NULL at the root); NULL when the network is absent. */
static uint32_t *ipt4_find(struct iptree *t, uint32_t key, unsigned plen, uint32_t **plink)
{
	uint32_t *link = &t->root4, cur;

	*plink = NULL;
	while ((cur = *link) && ipt4_plen(&t->n4[cur]) < plen) {
		if (ipt4_common(key, t->n4[cur].key, ipt4_plen(&t->n4[cur])) <
		    ipt4_plen(&t->n4[cur]))
			return NULL;
		*plink = link;
		link = &t->n4[cur].ch[ipt4_bit(key, ipt4_plen(&t->n4[cur]))];
	}
	if (!cur || ipt4_plen(&t->n4[cur]) != plen || t->n4[cur].key != key ||
	    !ipt4_ent(&t->n4[cur]))
		return NULL;
	return link;
}

static uint32_t *ipt6_find(struct iptree *t, struct ipt_key6 key, unsigned plen, uint32_t **plink)
{
	uint32_t *link = &t->root6, cur;

	*plink = NULL;
	while ((cur = *link) && t->n6[cur].plen < plen) {
		if (!ipt6_in(key, t->n6[cur].key, t->n6[cur].plen))
			return NULL;
		*plink = link;
		link = &t->n6[cur].ch[ipt6_bit(key, t->n6[cur].plen)];
	}
	if (!cur || t->n6[cur].plen != plen || t->n6[cur].key.hi != key.hi ||
	    t->n6[cur].key.lo != key.lo || !t->n6[cur].ent)
		return NULL;
	return link;
}

/* Cuts node *link (whose key was removed; children ch[2]) as strtree.c's trie delete does:
 * replaced by its only child, or cut and then its keyless parent (*plink, children pch[2])
 * replaced by the remaining child. */
static void ipt_unlink(uint32_t *link, const uint32_t ch[2], uint32_t *plink, const uint32_t *pch,
		       bool pkey)
{
	HA_ATOMIC_STORE(link, ch[0] ? ch[0] : ch[1]);
	if (ch[0] || ch[1] || !plink || pkey)
		return;
	HA_ATOMIC_STORE(plink, pch[0] ? pch[0] : pch[1]);
}

int iptree_delete4(struct iptree *t, struct in_addr net, int plen)
{
	uint32_t key, *link, *plink, e;
	struct ipt_node4 *n, *p;

	if (plen < 0 || plen > 32)
		return -1;
	key = ntohl(net.s_addr) & ipt4_mask((unsigned)plen);
	if (!(link = ipt4_find(t, key, (unsigned)plen, &plink)))
		return -1;
	n = &t->n4[*link];
	e = ipt4_ent(n);
	if (n->ch[0] && n->ch[1]) {
		HA_ATOMIC_STORE(&n->meta, (uint32_t)plen);
	} else {
		p = plink ? &t->n4[*plink] : NULL;
		ipt_unlink(link, n->ch, plink, p ? p->ch : NULL, p && ipt4_ent(p));
	}
	HA_ATOMIC_STORE(&t->ent[e].data, NULL);
	t->live--;
	return 0;
}

int iptree_delete6(struct iptree *t, const struct in6_addr *net, int plen)
{
	uint32_t *link, *plink, e;
	struct ipt_node6 *n, *p;
	struct ipt_key6 key;

	if (plen < 0 || plen > 128)
		return -1;
	key = ipt6_mask(ipt6_key(net), (unsigned)plen);
	if (!(link = ipt6_find(t, key, (unsigned)plen, &plink)))
		return -1;
	n = &t->n6[*link];
	e = n->ent;
	if (n->ch[0] && n->ch[1]) {
		HA_ATOMIC_STORE(&n->ent, 0);
	} else {
		p = plink ? &t->n6[*plink] : NULL;
		ipt_unlink(link, n->ch, plink, p ? p->ch : NULL, p && p->ent);
	}
	HA_ATOMIC_STORE(&t->ent[e].data, NULL);
	t->live--;
	return 0;
}

void **iptree_data_ref4(struct iptree *t, struct in_addr net, int plen)
{
	uint32_t key, *link, *plink;

	if (plen < 0 || plen > 32)
		return NULL;
	key = ntohl(net.s_addr) & ipt4_mask((unsigned)plen);
	link = ipt4_find(t, key, (unsigned)plen, &plink);
	return link ? &t->ent[ipt4_ent(&t->n4[*link])].data : NULL;
}

void **iptree_data_ref6(struct iptree *t, const struct in6_addr *net, int plen)
{
	uint32_t *link, *plink;

	if (plen < 0 || plen > 128)
		return NULL;
	link = ipt6_find(t, ipt6_mask(ipt6_key(net), (unsigned)plen), (unsigned)plen, &plink);
	return link ? &t->ent[t->n6[*link].ent].data : NULL;
}

size_t iptree_mem_usage(const struct iptree *t)
{
	return sizeof(*t) + (size_t)t->n4_cap * sizeof(*t->n4) +
	       (size_t)t->n6_cap * sizeof(*t->n6) + (size_t)t->ent_cap * sizeof(*t->ent);
}
