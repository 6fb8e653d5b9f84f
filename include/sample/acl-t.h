/* Types of ACLs and conditions: a named ACL is the OR of its lines, each line a sample
 * expression with the patterns it is compared with; a condition ("if"/"unless") is an OR
 * of suites, each suite an AND of (possibly negated) ACLs. Built at config time,
 * read-only at run time.
 */
#ifndef SAMPLE_ACL_T_H
#define SAMPLE_ACL_T_H

#include <stdint.h>
#include <base/list.h>
#include <sample/pattern-t.h>

struct sample_expr;

/* Result of a test: a match, no match, or "cannot tell yet" (more data may come). */
enum acl_test_res {
	ACL_TEST_FAIL = 0,
	ACL_TEST_MISS = 1,
	ACL_TEST_PASS = 3,
};

/* One "acl" line: CRITERION [FLAGS] PATTERNS... */
struct acl_expr {
	struct acl_expr *next;
	struct sample_expr *smp;
	struct pat_set pat;
	const char *kw; /* criterion as written, for messages (owned) */
};

struct acl {
	struct list list;	/* member of proxy->acls, or of the anonymous list */
	char *name;		/* NULL for an anonymous "{ ... }" ACL */
	struct acl_expr *exprs; /* OR of the lines of this name, config order */
	struct acl_expr **tail;
	uint32_t use; /* SMP_USE_* of every expression, ORed */
};

struct acl_term {
	struct acl *acl;
	uint8_t neg; /* "!acl" */
};

struct acl_suite {
	struct acl_suite *next; /* OR */
	int nterms;
	struct acl_term terms[]; /* AND */
};

#define ACL_COND_IF 0
#define ACL_COND_UNLESS 1

struct acl_cond {
	struct acl_suite *suites;
	uint8_t pol;  /* ACL_COND_IF / UNLESS */
	uint32_t use; /* SMP_USE_* of every ACL involved */
	char *file;
	int line;
};

#endif
