/* String sets for ACL patterns and maps: exact match ("-m str", map_str) through a hash
 * table, and longest / first prefix match ("-m beg", map_beg) through a path-compressed
 * binary trie over the bits of the keys, built only for sets created with STRTREE_PREFIX.
 * Both optionally fold ASCII case ("-i"). Filled at config time; at run time one writer
 * (the CLI changing a map) may insert and delete while lookups run on every thread without
 * a lock (see strtree_has_room). Lookups take no lock and allocate nothing.
 */
#ifndef SAMPLE_STRTREE_H
#define SAMPLE_STRTREE_H

#include <stdbool.h>
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

/* Run time, one writer at a time, readers running: an insert that fits changes the set in
 * place and readers see it before or after, never half-done. strtree_has_room() says if an
 * insert of a key of <len> bytes fits; when it does not, the writer makes a larger copy with
 * strtree_copy() (NULL when out of memory), inserts there, publishes the copy instead of
 * <t> and frees <t> once every reader has left it. data must not be NULL.
 */
bool strtree_has_room(const struct strtree *t, size_t len);
struct strtree *strtree_copy(const struct strtree *t, size_t len);

/* Removes key[0..len). Returns 0, or -1 when absent. Readers may run (memory is kept). */
int strtree_delete(struct strtree *t, const char *key, size_t len);

/* Where the data of key[0..len) is kept, for a writer to change it with a release store
 * (readers may run); NULL when absent. */
void **strtree_data_ref(struct strtree *t, const char *key, size_t len);

/* Number of distinct keys in the set. */
size_t strtree_count(const struct strtree *t);

/* Bytes the set holds in memory (its arrays at their allocated size). */
size_t strtree_mem_usage(const struct strtree *t);

#endif
