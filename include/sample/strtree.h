/* String sets for ACL patterns and maps: exact match ("-m str", map_str) through a hash
 * table, and longest / first prefix match ("-m beg", map_beg) through a path-compressed
 * binary trie over the bits of the keys, built only for sets created with STRTREE_PREFIX.
 * Both optionally fold ASCII case ("-i"). Filled at config time, then read-only: lookups
 * take no lock and may run on every thread at once.
 */
#ifndef SAMPLE_STRTREE_H
#define SAMPLE_STRTREE_H

#include <stddef.h>

struct strtree;

/* strtree_new() flags */
#define STRTREE_ICASE 0x1  /* fold ASCII case of keys on insert and of strings on lookup */
#define STRTREE_PREFIX 0x2 /* also build the prefix trie (strtree_*_prefix() need it) */

/* Returns an empty set, or NULL when out of memory. */
struct strtree *strtree_new(unsigned flags);

/* Frees the set (NULL is fine); the data pointers belong to the caller and are not freed. */
void strtree_free(struct strtree *t);

/* Adds key[0..len) (any bytes, NUL included; copied) carrying <data> and the caller's
 * insertion number <idx>. A key already present keeps its first data (HAProxy keeps the
 * first line of a file) and the smaller of the two idx. Returns 0, or -1 on allocation
 * failure or a key of 512 MB or more, leaving the set unchanged. Config time only: never
 * while lookups may run.
 */
int strtree_insert(struct strtree *t, const char *key, size_t len, void *data, unsigned idx);

/* Exact match of s[0..len): the key's data, or NULL. */
void *strtree_lookup(const struct strtree *t, const char *s, size_t len);

/* Data of the longest key that is a prefix of s[0..len) (the empty key is a prefix of
 * everything), or NULL. The set must have been created with STRTREE_PREFIX.
 */
void *strtree_lookup_prefix(const struct strtree *t, const char *s, size_t len);

/* Exact match: idx of the key equal to s[0..len), UINT_MAX if none. */
unsigned strtree_first_idx(const struct strtree *t, const char *s, size_t len);

/* Smallest idx among all keys that are prefixes of s[0..len), UINT_MAX if none (a rule
 * matches when any of its keys does). The set must have been created with STRTREE_PREFIX.
 */
unsigned strtree_first_idx_prefix(const struct strtree *t, const char *s, size_t len);

/* Number of distinct keys in the set. */
size_t strtree_count(const struct strtree *t);

/* Bytes the set holds in memory (its arrays at their allocated size). */
size_t strtree_mem_usage(const struct strtree *t);

#endif
