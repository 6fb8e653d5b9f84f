/* TEMPORARY brute-force stand-ins for the regex and trees branches (deleted at merge). */
#include <arpa/inet.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sample/iptree.h>
#include <sample/strtree.h>

struct sent { char *k; size_t l; void *d; unsigned idx; };
struct strtree { unsigned flags; struct sent *e; size_t n; };
struct strtree *strtree_new(unsigned flags) { struct strtree *t = calloc(1, sizeof(*t)); if (t) t->flags = flags; return t; }
void strtree_free(struct strtree *t) { if (!t) return; for (size_t i = 0; i < t->n; i++) free(t->e[i].k); free(t->e); free(t); }
int strtree_insert(struct strtree *t, const char *key, size_t len, void *data, unsigned idx)
{
	struct sent *e = realloc(t->e, (t->n + 1) * sizeof(*e));
	if (!e) return -1;
	t->e = e;
	e[t->n].k = malloc(len + 1);
	if (!e[t->n].k) return -1;
	memcpy(e[t->n].k, key, len);
	e[t->n].l = len; e[t->n].d = data; e[t->n].idx = idx; t->n++;
	return 0;
}
static bool eqn(const struct strtree *t, const char *a, const char *b, size_t n)
{ return (t->flags & STRTREE_ICASE) ? !strncasecmp(a, b, n) : !memcmp(a, b, n); }
void *strtree_lookup(const struct strtree *t, const char *s, size_t len)
{ for (size_t i = 0; i < t->n; i++) if (t->e[i].l == len && eqn(t, t->e[i].k, s, len)) return t->e[i].d; return NULL; }
void *strtree_lookup_prefix(const struct strtree *t, const char *s, size_t len)
{ struct sent *b = NULL; for (size_t i = 0; i < t->n; i++) if (t->e[i].l <= len && eqn(t, t->e[i].k, s, t->e[i].l) && (!b || t->e[i].l > b->l)) b = &t->e[i]; return b ? b->d : NULL; }
unsigned strtree_first_idx(const struct strtree *t, const char *s, size_t len) { (void)t; (void)s; (void)len; return UINT_MAX; }
unsigned strtree_first_idx_prefix(const struct strtree *t, const char *s, size_t len) { (void)t; (void)s; (void)len; return UINT_MAX; }
size_t strtree_count(const struct strtree *t) { return t->n; }

struct ient { int v6; unsigned char a[16]; int plen; void *d; };
struct iptree { struct ient *e; size_t n; };
struct iptree *iptree_new(void) { return calloc(1, sizeof(struct iptree)); }
void iptree_free(struct iptree *t) { if (t) { free(t->e); free(t); } }
static int iadd(struct iptree *t, int v6, const void *a, int plen, void *d)
{ struct ient *e = realloc(t->e, (t->n + 1) * sizeof(*e)); if (!e) return -1; t->e = e; e += t->n++; memset(e, 0, sizeof(*e)); e->v6 = v6; memcpy(e->a, a, v6 ? 16 : 4); e->plen = plen; e->d = d; return 0; }
int iptree_insert4(struct iptree *t, struct in_addr net, int plen, void *data, unsigned idx) { (void)idx; return iadd(t, 0, &net, plen, data); }
int iptree_insert6(struct iptree *t, const struct in6_addr *net, int plen, void *data, unsigned idx) { (void)idx; return iadd(t, 1, net, plen, data); }
static bool pfx(const unsigned char *a, const unsigned char *b, int plen)
{ for (int i = 0; i < plen; i++) if (((a[i / 8] ^ b[i / 8]) >> (7 - i % 8)) & 1) return false; return true; }
static void *ilook(const struct iptree *t, int v6, const void *a)
{ struct ient *b = NULL; for (size_t i = 0; i < t->n; i++) if (t->e[i].v6 == v6 && pfx(t->e[i].a, a, t->e[i].plen) && (!b || t->e[i].plen > b->plen)) b = &t->e[i]; return b ? b->d : NULL; }
void *iptree_lookup4(const struct iptree *t, struct in_addr a) { return ilook(t, 0, &a); }
void *iptree_lookup6(const struct iptree *t, const struct in6_addr *a) { return ilook(t, 1, a); }
unsigned iptree_first_idx4(const struct iptree *t, struct in_addr a) { (void)t; (void)a; return UINT_MAX; }
unsigned iptree_first_idx6(const struct iptree *t, const struct in6_addr *a) { (void)t; (void)a; return UINT_MAX; }
size_t iptree_count(const struct iptree *t) { return t->n; }
