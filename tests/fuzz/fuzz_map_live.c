// FUZZ_SRCS: src/sample/map_line.c src/sample/iptree.c src/sample/strtree.c src/base/array.c
/* libFuzzer target for run-time map changes: the input is first cut as a "<<" payload
 * (map_payload_next: every entry checked for HAProxy's cutting rules), then run as a program
 * of inserts, deletes and lookups on a string set and an IPv4 tree done the way the CLI
 * writer does them (in place while there is room, else into a copy), each lookup compared
 * with a brute-force scan of the keys present.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sample/iptree.h>
#include <sample/map_ref.h>
#include <sample/strtree.h>

#define FZ_MAX 256
#define FZ_KEY 12

struct fz_key {
	char s[FZ_KEY];
	size_t len;
	bool in;
};

struct fz_net {
	uint32_t a;
	int plen;
	bool in;
};

static struct fz_key fz_keys[FZ_MAX];
static struct fz_net fz_nets[FZ_MAX];
static size_t fz_nkeys, fz_nnets;

static void fz_check_payload(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *cur, *k, *v;
	int rc;

	if (!buf)
		return;
	memcpy(buf, data, size);
	buf[size] = '\0';
	cur = buf;
	while ((rc = map_payload_next(&cur, &k, &v)) != 0) {
		if (rc < 0)
			continue;
		if (!*k || strpbrk(k, " \t\r\n")) /* '#' after blanks is a key */
			abort();
		if (*v == ' ' || *v == '\t' ||
		    (*v && (v[strlen(v) - 1] == ' ' || v[strlen(v) - 1] == '\t')))
			abort();
		if (cur < buf || cur > buf + size)
			abort();
	}
	free(buf);
}

static unsigned char fz_fold(unsigned char c)
{
	return (unsigned char)(c - 'A') < 26 ? c | 0x20 : c;
}

static bool fz_eq(const char *a, const char *b, size_t n, bool icase)
{
	for (size_t i = 0; i < n; i++)
		if (icase ? fz_fold((unsigned char)a[i]) != fz_fold((unsigned char)b[i])
			  : a[i] != b[i])
			return false;
	return true;
}

/* The key equal to s[0..len) among those ever seen, or NULL. */
static struct fz_key *fz_find_key(const char *s, size_t len, bool icase)
{
	for (size_t i = 0; i < fz_nkeys; i++)
		if (fz_keys[i].len == len && fz_eq(fz_keys[i].s, s, len, icase))
			return &fz_keys[i];
	return NULL;
}

static void fz_str_lookup(const struct strtree *t, const char *s, size_t len, bool icase,
			  bool prefix)
{
	const struct fz_key *exact = NULL, *best = NULL;

	for (size_t i = 0; i < fz_nkeys; i++) {
		const struct fz_key *k = &fz_keys[i];

		if (!k->in)
			continue;
		if (k->len == len && fz_eq(k->s, s, len, icase))
			exact = k;
		if (k->len <= len && fz_eq(k->s, s, k->len, icase) && (!best || k->len > best->len))
			best = k;
	}
	if (strtree_lookup(t, s, len) != exact)
		abort();
	if (prefix && strtree_lookup_prefix(t, s, len) != best)
		abort();
}

static bool fz_net_has(const struct fz_net *n, uint32_t a)
{
	uint32_t m = n->plen ? ~0U << (32 - n->plen) : 0;

	return (a & m) == n->a;
}

static void fz_ip_lookup(const struct iptree *t, uint32_t a)
{
	const struct fz_net *best = NULL;
	struct in_addr ia = { htonl(a) };

	for (size_t i = 0; i < fz_nnets; i++)
		if (fz_nets[i].in && fz_net_has(&fz_nets[i], a) &&
		    (!best || fz_nets[i].plen > best->plen))
			best = &fz_nets[i];
	if (iptree_lookup4(t, ia) != best)
		abort();
}

static struct fz_net *fz_find_net(uint32_t a, int plen)
{
	for (size_t i = 0; i < fz_nnets; i++)
		if (fz_nets[i].a == a && fz_nets[i].plen == plen)
			return &fz_nets[i];
	if (fz_nnets == FZ_MAX)
		return NULL;
	fz_nets[fz_nnets].a = a;
	fz_nets[fz_nnets].plen = plen;
	fz_nets[fz_nnets].in = false;
	return &fz_nets[fz_nnets++];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned flags = size ? data[0] & (STRTREE_ICASE | STRTREE_PREFIX) : 0;
	bool icase = flags & STRTREE_ICASE, prefix = flags & STRTREE_PREFIX;
	struct strtree *t = strtree_new(flags), *nt;
	struct iptree *ip = iptree_new(), *nip;
	size_t i = 1, live = 0;

	fz_check_payload(data, size);
	fz_nkeys = fz_nnets = 0;
	if (!t || !ip)
		goto out;
	while (i + 2 <= size) {
		uint8_t op = data[i++] % 6, len = data[i++] % FZ_KEY;
		const char *s = (const char *)data + i;
		struct fz_key *k;
		struct fz_net *n;
		uint32_t a = 0;
		int plen;

		if (op < 3 && i + len > size)
			break;
		if (op >= 3 && i + 4 > size)
			break;
		if (op >= 3) {
			memcpy(&a, data + i, 4);
			i += 4;
			plen = len % 33;
			a &= plen ? ~0U << (32 - plen) : 0;
		}
		switch (op) {
		case 0: /* insert */
			k = fz_find_key(s, len, icase);
			if (k && k->in)
				break;
			if (!k) {
				if (fz_nkeys == FZ_MAX)
					break;
				k = &fz_keys[fz_nkeys++];
				memcpy(k->s, s, len);
				k->len = len;
			}
			if (!strtree_has_room(t, len)) {
				nt = strtree_copy(t, len);
				if (!nt)
					goto out;
				strtree_free(t);
				t = nt;
			}
			if (strtree_insert(t, s, len, k, 0) < 0)
				goto out;
			k->in = true;
			break;
		case 1: /* delete */
			k = fz_find_key(s, len, icase);
			if (strtree_delete(t, s, len) != (k && k->in ? 0 : -1))
				abort();
			if (k)
				k->in = false;
			break;
		case 2:
			fz_str_lookup(t, s, len, icase, prefix);
			break;
		case 3:
			n = fz_find_net(a, plen);
			if (!n || n->in)
				break;
			if (!iptree_has_room(ip)) {
				nip = iptree_copy(ip);
				if (!nip)
					goto out;
				iptree_free(ip);
				ip = nip;
			}
			if (iptree_insert4(ip, (struct in_addr){ htonl(a) }, plen, n, 0) < 0)
				goto out;
			n->in = true;
			break;
		case 4:
			n = fz_find_net(a, plen);
			if (iptree_delete4(ip, (struct in_addr){ htonl(a) }, plen) !=
			    (n && n->in ? 0 : -1))
				abort();
			if (n)
				n->in = false;
			break;
		case 5:
			fz_ip_lookup(ip, a);
			break;
		}
		if (op < 3)
			i += len;
	}
	for (size_t j = 0; j < fz_nkeys; j++)
		live += fz_keys[j].in;
	if (strtree_count(t) != live)
		abort();
out:
	strtree_free(t);
	iptree_free(ip);
	return 0;
}
