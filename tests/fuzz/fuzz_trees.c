// FUZZ_SRCS: src/sample/iptree.c src/sample/strtree.c src/base/array.c
/* libFuzzer target for the match trees: the input is a program of inserts and lookups on
 * an IP tree and on two string sets (one with the prefix trie, one exact only; case folding
 * chosen by the first byte). Every lookup is compared with a brute-force scan of what was
 * inserted: longest match, first idx, the IPv4/IPv6 fallbacks, exact and prefix matches.
 */
#include <arpa/inet.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sample/iptree.h>
#include <sample/strtree.h>

#define FZ_MAX 512 /* entries of each kind, so that the scans stay cheap */
#define FZ_KEY 40

struct fz_in {
	const uint8_t *p;
	size_t left;
};

struct fz_net {
	bool v6;
	uint8_t a[16];
	int plen;
	unsigned idx;
};

struct fz_key {
	uint8_t s[FZ_KEY];
	size_t len;
	unsigned idx;
};

static struct fz_net fz_nets[FZ_MAX];
static struct fz_key fz_keys[FZ_MAX];
static size_t fz_nnets, fz_nkeys;

/* Next input byte, 0 past the end. */
static uint8_t fz_byte(struct fz_in *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

static void fz_bytes(struct fz_in *in, uint8_t *out, size_t n)
{
	while (n--)
		*out++ = fz_byte(in);
}

static bool fz_in_net(const uint8_t *a, const uint8_t *net, int plen)
{
	int i;

	for (i = 0; i < plen / 8; i++)
		if (a[i] != net[i])
			return false;
	return plen % 8 == 0 || !((a[i] ^ net[i]) & (0xff00 >> (plen % 8)));
}

/* An IPv6 address in one of the forms that matter: raw, ::ffff:x, ::x, 2002:x::. */
static void fz_addr6(struct fz_in *in, uint8_t *a)
{
	uint8_t form = fz_byte(in);

	memset(a, 0, 16);
	switch (form % 4) {
	case 0:
		fz_bytes(in, a, 16);
		break;
	case 1:
		a[10] = a[11] = 0xff;
		/* fall through */
	case 2:
		fz_bytes(in, a + 12, 4);
		break;
	default:
		a[0] = 0x20;
		a[1] = 0x02;
		fz_bytes(in, a + 2, form & 0x80 ? 14 : 4);
		break;
	}
}

/* Reference: record number + 1 of the longest network of family <v6> holding <a>. */
static size_t fz_ref_longest(bool v6, const uint8_t *a)
{
	size_t i, best = 0;

	for (i = 0; i < fz_nnets; i++)
		if (fz_nets[i].v6 == v6 && fz_in_net(a, fz_nets[i].a, fz_nets[i].plen) &&
		    (!best || fz_nets[i].plen > fz_nets[best - 1].plen))
			best = i + 1;
	return best;
}

static unsigned fz_ref_first(bool v6, const uint8_t *a)
{
	unsigned best = UINT_MAX;
	size_t i;

	for (i = 0; i < fz_nnets; i++)
		if (fz_nets[i].v6 == v6 && fz_in_net(a, fz_nets[i].a, fz_nets[i].plen) &&
		    fz_nets[i].idx < best)
			best = fz_nets[i].idx;
	return best;
}

static void fz_check_ip(const struct iptree *t, bool v6, const uint8_t *a)
{
	uint8_t other[16] = { [10] = 0xff, [11] = 0xff };
	static const uint8_t zero[12];
	bool has_other = true;
	unsigned first, f2;
	size_t ref;

	if (v6) {
		struct in6_addr a6;

		memcpy(&a6, a, 16);
		if (!memcmp(a, zero, 12) || !memcmp(a, other, 12))
			memcpy(other, a + 12, 4);
		else if (a[0] == 0x20 && a[1] == 0x02)
			memcpy(other, a + 2, 4);
		else
			has_other = false;
		ref = fz_ref_longest(true, a);
		if (!ref && has_other)
			ref = fz_ref_longest(false, other);
		if (iptree_lookup6(t, &a6) != (void *)ref)
			abort();
		first = fz_ref_first(true, a);
		f2 = has_other ? fz_ref_first(false, other) : UINT_MAX;
		if (iptree_first_idx6(t, &a6) != (f2 < first ? f2 : first))
			abort();
	} else {
		struct in_addr a4;

		memcpy(&a4, a, 4);
		memcpy(other + 12, a, 4);
		ref = fz_ref_longest(false, a);
		if (!ref)
			ref = fz_ref_longest(true, other);
		if (iptree_lookup4(t, a4) != (void *)ref)
			abort();
		first = fz_ref_first(false, a);
		f2 = fz_ref_first(true, other);
		if (iptree_first_idx4(t, a4) != (f2 < first ? f2 : first))
			abort();
	}
}

static void fz_insert_ip(struct iptree *t, bool v6, struct fz_in *in)
{
	struct fz_net *n = &fz_nets[fz_nnets];
	int bits = v6 ? 128 : 32, ret, i;

	memset(n, 0, sizeof(*n));
	n->v6 = v6;
	if (v6)
		fz_addr6(in, n->a);
	else
		fz_bytes(in, n->a, 4);
	n->plen = fz_byte(in) % (bits + 4); /* a few out of range */
	n->idx = fz_byte(in);
	if (v6) {
		struct in6_addr a6;

		memcpy(&a6, n->a, 16);
		ret = iptree_insert6(t, &a6, n->plen, (void *)(uintptr_t)(fz_nnets + 1), n->idx);
	} else {
		struct in_addr a4;

		memcpy(&a4, n->a, 4);
		ret = iptree_insert4(t, a4, n->plen, (void *)(uintptr_t)(fz_nnets + 1), n->idx);
	}
	if (n->plen > bits) {
		if (ret != -1)
			abort();
		return;
	}
	if (ret)
		abort();
	for (i = n->plen; i < bits; i++) /* the reference keeps the masked network */
		n->a[i / 8] &= (uint8_t) ~(0x80 >> (i % 8));
	fz_nnets++;
}

static unsigned char fz_fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static bool fz_key_eq(const uint8_t *a, const uint8_t *b, size_t len, bool icase)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (icase ? fz_fold(a[i]) != fz_fold(b[i]) : a[i] != b[i])
			return false;
	return true;
}

static void fz_check_str(const struct strtree *pt, const struct strtree *xt, bool icase,
			 const uint8_t *s, size_t len)
{
	size_t i, exact = 0, longest = 0;
	unsigned fx = UINT_MAX, fp = UINT_MAX;
	const char *cs = (const char *)s;

	for (i = 0; i < fz_nkeys; i++) {
		const struct fz_key *k = &fz_keys[i];

		if (k->len > len || !fz_key_eq(k->s, s, k->len, icase))
			continue;
		fp = k->idx < fp ? k->idx : fp;
		if (!longest || k->len > fz_keys[longest - 1].len)
			longest = i + 1;
		if (k->len == len) {
			exact = exact ? exact : i + 1;
			fx = k->idx < fx ? k->idx : fx;
		}
	}
	if (strtree_lookup(pt, cs, len) != (void *)exact ||
	    strtree_lookup(xt, cs, len) != (void *)exact || strtree_first_idx(pt, cs, len) != fx ||
	    strtree_first_idx(xt, cs, len) != fx ||
	    strtree_lookup_prefix(pt, cs, len) != (void *)longest ||
	    strtree_first_idx_prefix(pt, cs, len) != fp)
		abort();
}

static void fz_insert_str(struct strtree *pt, struct strtree *xt, struct fz_in *in)
{
	struct fz_key *k = &fz_keys[fz_nkeys];
	void *d = (void *)(uintptr_t)(fz_nkeys + 1);

	k->len = fz_byte(in) % FZ_KEY;
	fz_bytes(in, k->s, k->len);
	k->idx = fz_byte(in);
	if (strtree_insert(pt, (const char *)k->s, k->len, d, k->idx) ||
	    strtree_insert(xt, (const char *)k->s, k->len, d, k->idx))
		abort();
	fz_nkeys++;
}

/* A string made of an inserted key (by index byte) and a suffix, or of raw bytes. */
static size_t fz_string(struct fz_in *in, uint8_t *s)
{
	uint8_t how = fz_byte(in);
	size_t len = 0, more;

	if (how & 1 && fz_nkeys) {
		const struct fz_key *k = &fz_keys[fz_byte(in) % fz_nkeys];

		memcpy(s, k->s, k->len);
		len = k->len;
		if (how & 2 && len)
			s[fz_byte(in) % len] ^= 0x20;
	}
	more = fz_byte(in) % FZ_KEY;
	fz_bytes(in, s + len, more);
	return len + more;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	uint8_t mode = fz_byte(&in), a[16], s[2 * FZ_KEY];
	bool icase = mode & 1;
	unsigned sflags = icase ? STRTREE_ICASE : 0;
	struct iptree *t = iptree_new();
	struct strtree *pt = strtree_new(sflags | STRTREE_PREFIX), *xt = strtree_new(sflags);
	size_t len;

	if (!t || !pt || !xt)
		abort();
	fz_nnets = fz_nkeys = 0;
	while (in.left) {
		uint8_t op = fz_byte(&in);

		switch (op % 8) {
		case 0:
		case 1:
			if (fz_nnets < FZ_MAX)
				fz_insert_ip(t, op % 2, &in);
			break;
		case 2:
			fz_bytes(&in, a, 4);
			fz_check_ip(t, false, a);
			break;
		case 3:
			fz_addr6(&in, a);
			fz_check_ip(t, true, a);
			break;
		case 4: /* an address inside an inserted network */
			if (!fz_nnets)
				break;
			{
				const struct fz_net *n = &fz_nets[fz_byte(&in) % fz_nnets];
				uint8_t host[16];
				int i;

				fz_bytes(&in, host, n->v6 ? 16 : 4);
				memcpy(a, n->a, 16);
				for (i = n->plen; i < (n->v6 ? 128 : 32); i++)
					a[i / 8] |= host[i / 8] & (0x80 >> (i % 8));
				fz_check_ip(t, n->v6, a);
			}
			break;
		case 5:
			if (fz_nkeys < FZ_MAX)
				fz_insert_str(pt, xt, &in);
			break;
		default:
			len = fz_string(&in, s);
			fz_check_str(pt, xt, icase, s, len);
			break;
		}
	}
	if (iptree_count(t) > fz_nnets || strtree_count(pt) > fz_nkeys ||
	    strtree_count(pt) != strtree_count(xt))
		abort();
	iptree_free(t);
	strtree_free(pt);
	strtree_free(xt);
	return 0;
}
