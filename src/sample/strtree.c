/* String sets (sample/strtree.h). Keys are copied (folded under STRTREE_ICASE) into one
 * arena; entries point into it. Exact match: open addressing with linear probing, load at
 * most 1/2, over a seeded hash. Prefix match (STRTREE_PREFIX): a path-compressed binary
 * trie over the key bits, where a key of n bytes is a "network" of 8n bits, so a walk sees
 * every key that is a prefix of the string. Arrays grow at config time; at run time (maps
 * changed from the CLI) one writer inserts and deletes in place while readers walk without a
 * lock: new nodes and slots are filled before a release store links them, the fields that
 * change under readers (links, slot entries, data, idx) are atomics, nothing is reused, and
 * a full tree is copied (strtree_copy) rather than grown under the readers.
 */
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <base/atomic.h>
#include <base/compiler.h>
#include <base/array.h>
#include <sample/strtree.h>

#define STRT_KEY_MAX ((1U << 29) - 1) /* so that a key's length in bits fits 32 bits */
#define STRT_K1 0x9e3779b97f4a7c15ULL
#define STRT_K2 0xd6e8feb86659fd93ULL
#define STRT_ONES 0x0101010101010101ULL
#define STRT_TOMB UINT32_MAX /* slot of a deleted key: probing goes on past it */

/* Why a trie over bits rather than over bytes: every node is the same 16 bytes in one
 * array (no per-node child tables to size and grow), a node exists only where keys end or
 * part, and a lookup reads no key bytes until it compares the string once with the deepest
 * key on its path (strt_walk).
 *
 * Index 0 of the entry and node arrays is never used: 0 means "none".
 */

struct strt_ent {
	void *data;   /* the caller's, from the first insert of this key */
	uint32_t off; /* key bytes in t->keys */
	uint32_t len;
	unsigned idx; /* smallest idx inserted for this key */
};

struct strt_slot {
	uint32_t hash; /* strt_hash() of the key, to skip most key compares */
	uint32_t ent;  /* 0: free slot, STRT_TOMB: deleted (never reused until a copy) */
};

struct strt_node {
	uint32_t plen;	/* bits: the keys below all start with the same <plen> bits */
	uint32_t ch[2]; /* children, by bit <plen> of their key; 0: none */
	uint32_t ent;	/* key ending here, 0 for a node where two branches part */
};

struct strtree {
	unsigned flags;
	uint64_t seed;
	char *keys;
	struct strt_ent *ent;
	struct strt_slot *slot;
	struct strt_node *node;
	uint32_t keys_used, keys_cap;
	uint32_t ent_used, ent_cap;
	uint32_t slot_cap; /* 0 or a power of two */
	uint32_t node_used, node_cap, root;
	/* run-time changes */
	uint32_t live;	    /* keys present (ent_used - 1 minus the deleted ones) */
	uint32_t live_keys; /* bytes of the keys present */
};

static uint64_t strt_seed;
static pthread_once_t strt_seed_once = PTHREAD_ONCE_INIT;

/* Draws the per-process hash seed, so that a list of keys colliding in one process does
 * not collide in another (lookups cannot lengthen probe chains: only config keys are in
 * the table; the seed keeps a hostile list from being precomputed against it).
 */
static void strt_seed_init(void)
{
	struct timespec ts;
	uint64_t s = 0;

	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		s = (uint64_t)ts.tv_nsec * STRT_K1 ^ (uint64_t)ts.tv_sec ^
		    (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)&s;
	}
	strt_seed = s;
}

static inline unsigned char strt_fold(unsigned char c)
{
	return (unsigned char)(c - 'A') < 26 ? c | 0x20 : c;
}

/* ASCII lower case of the 8 bytes in <w>, without a branch: a byte gets 0x20 added when
 * its low 7 bits are in 'A'..'Z' and its top bit is clear.
 */
static inline uint64_t strt_fold8(uint64_t w)
{
	uint64_t low7 = w & (0x7f * STRT_ONES);
	uint64_t ge_a = low7 + (0x80 - 'A') * STRT_ONES;
	uint64_t gt_z = low7 + (0x80 - 'Z' - 1) * STRT_ONES;
	uint64_t upper = ge_a & ~gt_z & ~w & (0x80 * STRT_ONES);

	return w | upper >> 2;
}

static inline uint64_t strt_load8(const char *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

static inline uint64_t strt_round(uint64_t h, uint64_t w)
{
	h = (h ^ w) * STRT_K1;
	return h << 29 | h >> 35;
}

/* Under STRTREE_ICASE the hash reads every byte with its case bit (0x20) set: a key and
 * any case variant of it then hash the same (they differ in that bit only), which is all
 * the table needs; the few other pairs this merges ('@' and '`'...) are told apart by
 * strt_eq(). Cheaper than an exact fold. */
#define STRT_CASE_BITS (0x20 * STRT_ONES)

/* Hash of s[0..len), of its case-folded form under STRTREE_ICASE. */
static uint32_t strt_hash(const struct strtree *t, const char *s, size_t len)
{
	bool icase = t->flags & STRTREE_ICASE;
	uint64_t h = t->seed ^ ((uint64_t)len * STRT_K2), w;
	bool long_key = len >= 8;

	for (; len >= 8; s += 8, len -= 8) {
		w = strt_load8(s);
		h = strt_round(h, icase ? w | STRT_CASE_BITS : w);
	}
	if (len) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		/* the last bytes of a long key: one load ending at the key's end, the bytes
		 * already hashed shifted out (cheaper than a variable-size copy) */
		if (long_key) {
			w = strt_load8(s + len - 8) >> (8 * (8 - len));
		} else
#endif
		{
			w = 0;
			for (size_t i = 0; i < len; i++)
				w |= (uint64_t)(unsigned char)s[i] << (8 * i);
		}
		h = strt_round(h, icase ? w | STRT_CASE_BITS : w);
	}
	h ^= h >> 32;
	h *= STRT_K2;
	h ^= h >> 29;
	return (uint32_t)(h ^ h >> 32);
}

/* True if s[0..len) equals stored key k[0..len) (k is already folded under icase). */
static bool strt_eq(const struct strtree *t, const char *s, const char *k, size_t len)
{
	if (!len)
		return true;
	if (!(t->flags & STRTREE_ICASE))
		return memcmp(s, k, len) == 0;
	for (; len >= 8; s += 8, k += 8, len -= 8)
		if (strt_fold8(strt_load8(s)) != strt_load8(k))
			return false;
	for (; len; s++, k++, len--)
		if (strt_fold((unsigned char)*s) != (unsigned char)*k)
			return false;
	return true;
}

/* Entry of the key equal to s[0..len) with hash <h>, 0 if none. */
static inline uint32_t strt_find(const struct strtree *t, const char *s, size_t len, uint32_t h)
{
	uint32_t mask = t->slot_cap - 1, i, se;
	const struct strt_ent *e;

	if (!t->slot_cap)
		return 0;
	/* acquire: the slot's hash and entry were written before it was published */
	for (i = h & mask; (se = HA_ATOMIC_LOAD(&t->slot[i].ent)); i = (i + 1) & mask) {
		if (se == STRT_TOMB || t->slot[i].hash != h)
			continue;
		e = &t->ent[se];
		if (e->len == len && strt_eq(t, s, t->keys + e->off, len))
			return se;
	}
	return 0;
}

static void strt_slot_put(struct strt_slot *slot, uint32_t cap, uint32_t h, uint32_t ent)
{
	uint32_t i;

	for (i = h & (cap - 1); slot[i].ent; i = (i + 1) & (cap - 1))
		;
	slot[i].hash = h;
	HA_ATOMIC_STORE(&slot[i].ent, ent);
}

/* Doubles the hash table when one more entry would fill it past 1/2. Returns 0 or -1. */
static int strt_reserve_slot(struct strtree *t)
{
	uint32_t cap = t->slot_cap ? t->slot_cap : 8, i;
	struct strt_slot *ns;

	while ((uint64_t)t->ent_used * 2 > cap) { /* ent_used - 1 entries, plus the new one */
		if (cap > UINT32_MAX / 2)
			return -1;
		cap *= 2;
	}
	if (cap == t->slot_cap)
		return 0;
	ns = calloc(cap, sizeof(*ns));
	if (!ns)
		return -1;
	for (i = 0; i < t->slot_cap; i++)
		if (t->slot[i].ent && t->slot[i].ent != STRT_TOMB)
			strt_slot_put(ns, cap, t->slot[i].hash, t->slot[i].ent);
	free(t->slot);
	t->slot = ns;
	t->slot_cap = cap;
	return 0;
}

/* Makes room for a key of <len> bytes, an entry, its slot and two trie nodes, so that an
 * insert cannot fail or reallocate once it has started. Returns 0 or -1.
 */
static int strt_reserve(struct strtree *t, size_t len)
{
	void *p;

	/* one spare byte: the arena exists even when every key is empty */
	if ((uint64_t)t->keys_used + len + 1 > t->keys_cap) {
		p = array_grow(t->keys, &t->keys_cap, (uint64_t)t->keys_used + len + 1, 1);
		if (!p)
			return -1;
		t->keys = p;
	}
	if (t->ent_used + 1ULL > t->ent_cap) {
		p = array_grow(t->ent, &t->ent_cap, t->ent_used + 1ULL, sizeof(*t->ent));
		if (!p)
			return -1;
		t->ent = p;
	}
	if ((t->flags & STRTREE_PREFIX) && t->node_used + 2ULL > t->node_cap) {
		p = array_grow(t->node, &t->node_cap, t->node_used + 2ULL, sizeof(*t->node));
		if (!p)
			return -1;
		t->node = p;
	}
	return strt_reserve_slot(t);
}

/* ---- prefix trie ---- */

static inline const unsigned char *strt_ent_key(const struct strtree *t, uint32_t e)
{
	return (const unsigned char *)t->keys + t->ent[e].off;
}

/* Bit <pos> (0 = most significant bit of byte 0) of <s>, folded first when <fold>. */
static inline unsigned strt_bit(const char *s, uint32_t pos, bool fold)
{
	unsigned char c = (unsigned char)s[pos >> 3];

	return ((fold ? strt_fold(c) : c) >> (7 - (pos & 7))) & 1;
}

/* Length in bits of the common prefix of <s> (folded first when <fold>) and stored key
 * <k>, at most <max>; both are at least <max> bits long.
 */
static uint32_t strt_common(const char *s, const unsigned char *k, uint32_t max, bool fold)
{
	uint32_t i = 0, n = (uint32_t)(((uint64_t)max + 7) / 8), c;
	uint64_t w;
	unsigned char b;

	for (; i + 8 <= n; i += 8) {
		w = strt_load8(s + i);
		if ((fold ? strt_fold8(w) : w) != strt_load8((const char *)k + i))
			break;
	}
	for (; i < n; i++) {
		b = (unsigned char)s[i];
		b = fold ? strt_fold(b) : b;
		if (b != k[i]) {
			c = i * 8 + (uint32_t)__builtin_clz((unsigned)(b ^ k[i])) - 24;
			return MIN(c, max);
		}
	}
	return max;
}

static uint32_t strt_node_new(struct strtree *t, uint32_t plen, uint32_t ent)
{
	struct strt_node *n = &t->node[t->node_used];

	n->plen = plen;
	n->ch[0] = n->ch[1] = 0;
	n->ent = ent;
	return t->node_used++;
}

/* Entry of a key under node <cur> (every node has one: a fork has two children). */
static uint32_t strt_any_key(const struct strtree *t, uint32_t cur)
{
	while (!t->node[cur].ent)
		cur = t->node[cur].ch[0] ? t->node[cur].ch[0] : t->node[cur].ch[1];
	return t->node[cur].ent;
}

/* Links new entry <e> (a key not in the trie yet) into the trie; room was reserved. First
 * walks k's bits as far as the trie goes and takes a key r found there: no key shares more
 * leading bits with k, so k leaves the trie at the bit c where it leaves r. Then walks
 * again from the root to the place of bit c.
 */
static void strt_trie_insert(struct strtree *t, uint32_t e)
{
	const char *k = (const char *)strt_ent_key(t, e);
	uint32_t kbits = t->ent[e].len * 8, cur = t->root, r, rbits, c, leaf, fork, *link;
	const unsigned char *rk;

	if (!cur) {
		HA_ATOMIC_STORE(&t->root, strt_node_new(t, kbits, e));
		return;
	}
	while (t->node[cur].plen < kbits && t->node[cur].ch[strt_bit(k, t->node[cur].plen, false)])
		cur = t->node[cur].ch[strt_bit(k, t->node[cur].plen, false)];
	r = strt_any_key(t, cur);
	rk = strt_ent_key(t, r);
	rbits = t->ent[r].len * 8;
	c = strt_common(k, rk, MIN(kbits, rbits), false);

	link = &t->root;
	while (*link && t->node[*link].plen < c)
		link = &t->node[*link].ch[strt_bit(k, t->node[*link].plen, false)];
	cur = *link;
	BUG_ON(!cur); /* the first walk went at least as far */
	if (t->node[cur].plen == c) {
		/* a fork exactly k long takes k (never a key: the hash table saw them all) */
		if (c == kbits) {
			BUG_ON(t->node[cur].ent);
			HA_ATOMIC_STORE(&t->node[cur].ent, e);
			return;
		}
		link = &t->node[cur].ch[strt_bit(k, c, false)];
		BUG_ON(*link); /* else the first walk would have gone there */
		HA_ATOMIC_STORE(link, strt_node_new(t, kbits, e));
		return;
	}
	/* <cur> and all below it (r included) start with r's first c + 1 bits: k, if it ends
	 * at bit c, or a fork between k and them, goes above <cur>
	 */
	leaf = strt_node_new(t, kbits, e);
	if (c == kbits) {
		t->node[leaf].ch[strt_bit((const char *)rk, c, false)] = cur;
		HA_ATOMIC_STORE(link, leaf);
		return;
	}
	fork = strt_node_new(t, c, 0);
	t->node[fork].ch[strt_bit((const char *)rk, c, false)] = cur;
	t->node[fork].ch[strt_bit(k, c, false)] = leaf;
	HA_ATOMIC_STORE(link, fork);
}

/* Walks the trie along s[0..len). Returns the entry of the longest key that is a prefix
 * of it, or with <first> the one with the smallest idx; 0 if none. The first walk follows
 * s's bits without comparing the bits that path compression skipped (so it touches no key)
 * and keeps the deepest key on the way; the keys on one path are prefixes of one another,
 * so those no longer than what s has in common with the deepest are exactly the keys that
 * are prefixes of s, found by a second walk when the deepest is not one.
 */
static uint32_t strt_walk(const struct strtree *t, const char *s, size_t len, bool first)
{
	bool fold = t->flags & STRTREE_ICASE;
	uint64_t sbits = (uint64_t)len * 8;
	uint32_t cur = HA_ATOMIC_LOAD(&t->root), deep = 0, lim, best = 0, e;
	const struct strt_node *n;

	BUG_ON(!(t->flags & STRTREE_PREFIX));
	for (; cur; cur = HA_ATOMIC_LOAD(&n->ch[strt_bit(s, n->plen, fold)])) {
		n = &t->node[cur];
		if (n->plen > sbits)
			break;
		if ((e = HA_ATOMIC_LOAD(&n->ent)))
			deep = e;
		if (n->plen == sbits)
			break;
	}
	if (!deep)
		return 0;
	lim = strt_common(s, strt_ent_key(t, deep), t->ent[deep].len * 8, fold);
	if (!first && lim == t->ent[deep].len * 8)
		return deep;
	for (cur = HA_ATOMIC_LOAD(&t->root); cur;
	     cur = HA_ATOMIC_LOAD(&n->ch[strt_bit(s, n->plen, fold)])) {
		n = &t->node[cur];
		if (n->plen > lim)
			break;
		e = HA_ATOMIC_LOAD(&n->ent);
		if (e &&
		    (!first || !best ||
		     HA_ATOMIC_LOAD_RLX(&t->ent[e].idx) < HA_ATOMIC_LOAD_RLX(&t->ent[best].idx)))
			best = e;
		if (n->plen == lim)
			break;
	}
	return best;
}

/* ---- public API ---- */

struct strtree *strtree_new(unsigned flags)
{
	struct strtree *t;

	pthread_once(&strt_seed_once, strt_seed_init);
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->flags = flags & (STRTREE_ICASE | STRTREE_PREFIX);
	t->seed = strt_seed;
	t->ent_used = t->node_used = 1;
	return t;
}

void strtree_free(struct strtree *t)
{
	if (!t)
		return;
	free(t->keys);
	free(t->ent);
	free(t->slot);
	free(t->node);
	free(t);
}

int strtree_insert(struct strtree *t, const char *key, size_t len, void *data, unsigned idx)
{
	char *k;
	uint32_t h, e;
	size_t i;

	if (len > STRT_KEY_MAX || strt_reserve(t, len))
		return -1;
	/* the key goes past the arena's end first, and stays there unless it is a duplicate */
	k = t->keys + t->keys_used;
	for (i = 0; i < len; i++)
		k[i] = (t->flags & STRTREE_ICASE) ? (char)strt_fold((unsigned char)key[i]) : key[i];
	h = strt_hash(t, k, len);
	e = strt_find(t, k, len, h);
	if (e) {
		if (idx < t->ent[e].idx)
			HA_ATOMIC_STORE_RLX(&t->ent[e].idx, idx);
		return 0;
	}
	e = t->ent_used++;
	t->ent[e].data = data;
	t->ent[e].off = t->keys_used;
	t->ent[e].len = (uint32_t)len;
	t->ent[e].idx = idx;
	t->keys_used += (uint32_t)len;
	t->live++;
	t->live_keys += (uint32_t)len;
	strt_slot_put(t->slot, t->slot_cap, h, e);
	if (t->flags & STRTREE_PREFIX)
		strt_trie_insert(t, e);
	return 0;
}

void *strtree_lookup(const struct strtree *t, const char *s, size_t len)
{
	uint32_t e = strt_find(t, s, len, strt_hash(t, s, len));

	return e ? HA_ATOMIC_LOAD(&t->ent[e].data) : NULL;
}

unsigned strtree_first_idx(const struct strtree *t, const char *s, size_t len)
{
	uint32_t e = strt_find(t, s, len, strt_hash(t, s, len));

	return e ? HA_ATOMIC_LOAD_RLX(&t->ent[e].idx) : UINT_MAX;
}

void *strtree_lookup_prefix(const struct strtree *t, const char *s, size_t len)
{
	uint32_t e = strt_walk(t, s, len, false);

	return e ? HA_ATOMIC_LOAD(&t->ent[e].data) : NULL;
}

unsigned strtree_first_idx_prefix(const struct strtree *t, const char *s, size_t len)
{
	uint32_t e = strt_walk(t, s, len, true);

	return e ? HA_ATOMIC_LOAD_RLX(&t->ent[e].idx) : UINT_MAX;
}

size_t strtree_count(const struct strtree *t)
{
	return t->live;
}

/* ---- run-time changes (one writer, readers on any thread) ---- */

bool strtree_has_room(const struct strtree *t, size_t len)
{
	return (uint64_t)t->keys_used + len + 1 <= t->keys_cap &&
	       t->ent_used + 1ULL <= t->ent_cap &&
	       (!(t->flags & STRTREE_PREFIX) || t->node_used + 2ULL <= t->node_cap) &&
	       (uint64_t)t->ent_used * 2 <= t->slot_cap;
}

/* Grows array *arr of *cap elements to hold <need>. 0 or -1. */
static int strt_presize(void *arr, uint32_t *cap, uint64_t need, size_t size)
{
	void *p;

	if (need <= *cap)
		return 0;
	p = array_grow(*(void **)arr, cap, need, size);
	if (!p)
		return -1;
	*(void **)arr = p;
	return 0;
}

struct strtree *strtree_copy(const struct strtree *t, size_t len)
{
	struct strtree *n = strtree_new(t->flags);
	uint64_t keys = 2ULL * t->live_keys + len + 64, ents = 2ULL * t->live + 16, slots = 16;

	if (!n)
		return NULL;
	n->seed = t->seed;
	while (slots < 2 * ents)
		slots *= 2;
	if (keys > STRT_KEY_MAX || slots > UINT32_MAX / 2 ||
	    strt_presize(&n->keys, &n->keys_cap, keys, 1) ||
	    strt_presize(&n->ent, &n->ent_cap, ents, sizeof(*n->ent)) ||
	    ((n->flags & STRTREE_PREFIX) &&
	     strt_presize(&n->node, &n->node_cap, 2 * ents, sizeof(*n->node))) ||
	    !(n->slot = calloc(slots, sizeof(*n->slot))))
		goto out_free;
	n->slot_cap = (uint32_t)slots;
	for (uint32_t e = 1; e < t->ent_used; e++) {
		const struct strt_ent *o = &t->ent[e];

		if (o->data && strtree_insert(n, t->keys + o->off, o->len, o->data, o->idx) < 0)
			goto out_free;
	}
	return n;
out_free:
	strtree_free(n);
	return NULL;
}

void **strtree_data_ref(struct strtree *t, const char *key, size_t len)
{
	uint32_t e = strt_find(t, key, len, strt_hash(t, key, len));

	return e ? &t->ent[e].data : NULL;
}

/* Unlinks the trie node of entry <e>: a node with two children only loses its key; one
 * with one child is replaced by it; a leaf is cut, and then a fork above it left with one
 * child is replaced by that child. Each step is one release store, so a reader sees the
 * trie before or after it, and the invariant "a node without key has two children" holds.
 */
static void strt_trie_delete(struct strtree *t, uint32_t e)
{
	const char *k = (const char *)strt_ent_key(t, e);
	uint32_t kbits = t->ent[e].len * 8, *link = &t->root, *plink = NULL, cur, par = 0;
	struct strt_node *n;

	while ((cur = *link) && t->node[cur].plen < kbits) {
		plink = link;
		par = cur;
		link = &t->node[cur].ch[strt_bit(k, t->node[cur].plen, false)];
	}
	BUG_ON(!cur || t->node[cur].ent != e);
	n = &t->node[cur];
	if (n->ch[0] && n->ch[1]) {
		HA_ATOMIC_STORE(&n->ent, 0);
		return;
	}
	HA_ATOMIC_STORE(link, n->ch[0] ? n->ch[0] : n->ch[1]);
	if (n->ch[0] || n->ch[1] || !par || t->node[par].ent)
		return;
	n = &t->node[par];
	HA_ATOMIC_STORE(plink, n->ch[0] ? n->ch[0] : n->ch[1]);
}

int strtree_delete(struct strtree *t, const char *key, size_t len)
{
	uint32_t h = strt_hash(t, key, len), e = strt_find(t, key, len, h), i;

	if (!e)
		return -1;
	for (i = h & (t->slot_cap - 1); t->slot[i].ent != e; i = (i + 1) & (t->slot_cap - 1))
		;
	HA_ATOMIC_STORE(&t->slot[i].ent, STRT_TOMB);
	if (t->flags & STRTREE_PREFIX)
		strt_trie_delete(t, e);
	HA_ATOMIC_STORE(&t->ent[e].data, NULL);
	t->live--;
	t->live_keys -= t->ent[e].len;
	return 0;
}

size_t strtree_mem_usage(const struct strtree *t)
{
	return sizeof(*t) + t->keys_cap + (size_t)t->ent_cap * sizeof(*t->ent) +
	       (size_t)t->slot_cap * sizeof(*t->slot) + (size_t)t->node_cap * sizeof(*t->node);
}
