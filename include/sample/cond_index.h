/* Condition index (cond_index.c): many rules with plain ACL conditions compiled into one
 * lookup per sample expression. Built at config time, read-only at run time.
 */
#ifndef SAMPLE_COND_INDEX_H
#define SAMPLE_COND_INDEX_H

#include <stdbool.h>
#include <sample/acl-t.h>
#include <sample/sample-t.h>

struct cond_index;

/* True when <c> can go into an index: "if" with positive ACL terms ORed, any match method
 * but regm. Such a condition holds exactly when one of its patterns matches. */
bool cond_indexable(const struct acl_cond *c);
/* Builds the index of conds[0..n) (each indexable); NULL on allocation failure. */
struct cond_index *cond_index_build(struct acl_cond *const *conds, unsigned int n);
void cond_index_free(struct cond_index *ci);
/* Set when the patterns of an ACL an index copied change (CLI, add-acl/del-acl rules):
 * indexes then test conditions in order. */
extern bool cond_index_acls_changed;
/* The first position whose condition holds where <ctx> says, or UINT_MAX when none does.
 * Loop thread; no allocation. */
unsigned int cond_index_first(const struct cond_index *ci, const struct smp_ctx *ctx);

#endif
