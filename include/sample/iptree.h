/* TEMPORARY placeholder until the trees branch lands. */
#ifndef SAMPLE_IPTREE_H
#define SAMPLE_IPTREE_H
#include <stddef.h>
#include <netinet/in.h>
struct iptree;
struct iptree *iptree_new(void);
void iptree_free(struct iptree *t);
int iptree_insert4(struct iptree *t, struct in_addr net, int plen, void *data, unsigned idx);
int iptree_insert6(struct iptree *t, const struct in6_addr *net, int plen, void *data, unsigned idx);
void *iptree_lookup4(const struct iptree *t, struct in_addr a);
void *iptree_lookup6(const struct iptree *t, const struct in6_addr *a);
unsigned iptree_first_idx4(const struct iptree *t, struct in_addr a);
unsigned iptree_first_idx6(const struct iptree *t, const struct in6_addr *a);
size_t iptree_count(const struct iptree *t);
#endif
