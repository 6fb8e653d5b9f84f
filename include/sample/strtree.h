/* TEMPORARY placeholder until the trees branch lands. */
#ifndef SAMPLE_STRTREE_H
#define SAMPLE_STRTREE_H
#include <stddef.h>
struct strtree;
#define STRTREE_ICASE 0x1
#define STRTREE_PREFIX 0x2
struct strtree *strtree_new(unsigned flags);
void strtree_free(struct strtree *t);
int strtree_insert(struct strtree *t, const char *key, size_t len, void *data, unsigned idx);
void *strtree_lookup(const struct strtree *t, const char *s, size_t len);
void *strtree_lookup_prefix(const struct strtree *t, const char *s, size_t len);
unsigned strtree_first_idx(const struct strtree *t, const char *s, size_t len);
unsigned strtree_first_idx_prefix(const struct strtree *t, const char *s, size_t len);
size_t strtree_count(const struct strtree *t);
#endif
