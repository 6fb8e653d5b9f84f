/* IP network sets for ACL patterns and map_ip: longest-prefix match and "first rule that
 * matches" over IPv4 and IPv6 networks. Filled at config time, then read-only: lookups take
 * no lock and may run on every thread at once. A path-compressed binary trie per family
 * (nodes only where networks end or branches part, at most 2n-1, in one array linked by
 * 32-bit indices): a lookup visits at most 33 (IPv4) or 129 (IPv6) nodes, ~log2(n) on real
 * lists, and needs no rebuild after an insert; 100,000 IPv4 networks take about 4.6 MB.
 */
#ifndef SAMPLE_IPTREE_H
#define SAMPLE_IPTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <netinet/in.h>

struct iptree;

/* Returns an empty set, or NULL when out of memory. */
struct iptree *iptree_new(void);

/* Frees the set (NULL is fine); the data pointers belong to the caller and are not freed. */
void iptree_free(struct iptree *t);

/* Adds network <net>/<plen> (network byte order; host bits are ignored, as HAProxy masks
 * "10.1.2.3/8" to 10.0.0.0/8) carrying <data> and the caller's insertion number <idx>.
 * plen is 0..32 for IPv4, 0..128 for IPv6. A network already present keeps its first data
 * (HAProxy keeps the first line of a file) and the smaller of the two idx. Returns 0, or
 * -1 on allocation failure, an out-of-range plen or past 2^26 - 1 networks, leaving the
 * set unchanged. Config time only: never while lookups may run.
 */
int iptree_insert4(struct iptree *t, struct in_addr net, int plen, void *data, unsigned idx);
int iptree_insert6(struct iptree *t, const struct in6_addr *net, int plen, void *data,
		   unsigned idx);

/* Longest-prefix match, as HAProxy's map_ip and "-m ip" do it: an IPv4 address is looked
 * up among IPv4 networks first, then (as ::ffff:a.b.c.d) among IPv6 networks; an IPv6
 * address among IPv6 networks first, then, when it embeds an IPv4 address (::ffff:a.b.c.d,
 * the old compatible ::a.b.c.d, or 6to4 2002:AABB:CCDD::/48), that address among IPv4
 * networks. Returns the data of the network found, NULL if none.
 */
void *iptree_lookup4(const struct iptree *t, struct in_addr a);
void *iptree_lookup6(const struct iptree *t, const struct in6_addr *a);

/* Smallest idx among all networks containing <a>, in either family under the mapping of
 * iptree_lookup4/6 (a rule matches when any of its networks does). UINT_MAX if none.
 */
unsigned iptree_first_idx4(const struct iptree *t, struct in_addr a);
unsigned iptree_first_idx6(const struct iptree *t, const struct in6_addr *a);

/* Run time, one writer at a time, readers running (see strtree.h): iptree_has_room() says
 * if one more insert fits in place; else the writer inserts into iptree_copy() (NULL when
 * out of memory), publishes it and frees <t> once readers left it. data must not be NULL.
 */
bool iptree_has_room(const struct iptree *t);
struct iptree *iptree_copy(const struct iptree *t);

/* Removes network net/plen. Returns 0, or -1 when absent. Readers may run. */
int iptree_delete4(struct iptree *t, struct in_addr net, int plen);
int iptree_delete6(struct iptree *t, const struct in6_addr *net, int plen);

/* Where the data of network net/plen is kept, for a release store; NULL when absent. */
void **iptree_data_ref4(struct iptree *t, struct in_addr net, int plen);
void **iptree_data_ref6(struct iptree *t, const struct in6_addr *net, int plen);

/* Number of distinct networks in the set (both families). */
size_t iptree_count(const struct iptree *t);

/* Bytes the set holds in memory (its arrays at their allocated size). */
size_t iptree_mem_usage(const struct iptree *t);

#endif
