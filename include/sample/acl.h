/* ACLs and conditions (acl.c): the "acl" keyword of proxies, anonymous "{ ... }" ACLs,
 * the predefined ACLs (TRUE, HTTP, METH_GET, LOCALHOST...), parsing of "if"/"unless"
 * conditions, and their evaluation over a smp_ctx (loop thread, no allocation).
 */
#ifndef SAMPLE_ACL_H
#define SAMPLE_ACL_H

#include <stdbool.h>
#include <stddef.h>
#include <base/list.h>
#include <sample/acl-t.h>
#include <sample/sample-t.h>

struct smp_parse_ctx;

/* Parses "CRITERION [FLAGS] [OPERATOR] VALUE..." from words args[0..nargs) into a new
 * acl_expr. Returns it, or NULL with a message in err. Config time. */
struct acl_expr *acl_parse_expr(char **args, int nargs, const struct smp_parse_ctx *pc, char *err,
				size_t errsz);
void acl_expr_free(struct acl_expr *e);

/* Adds a line to the named ACL of list <acls> (created on first use). 0 or -1. */
int acl_add_line(struct list *acls, const char *name, char **args, int nargs,
		 const struct smp_parse_ctx *pc, char *err, size_t errsz);
void acl_free_list(struct list *acls);

/* Parses a condition starting at args[0] ("if" or "unless") up to args[nargs-1], looking
 * up named ACLs in <acls> then the predefined ones. <where> (SMP_VAL_*) is checked against
 * what the ACLs need. Returns the condition, or NULL with a message in err. */
struct acl_cond *acl_cond_parse(char **args, int nargs, struct list *acls,
				const struct smp_parse_ctx *pc, char *err, size_t errsz);
void acl_cond_free(struct acl_cond *c);

/* Evaluates <c> where <ctx> says: ACL_TEST_PASS, _FAIL or _MISS (some ACL needs more
 * data and the answer could change). The policy (unless) is applied. */
enum acl_test_res acl_cond_exec(const struct acl_cond *c, const struct smp_ctx *ctx);

/* True when <c> holds; a MISS counts as false. */
static inline bool acl_cond_true(const struct acl_cond *c, const struct smp_ctx *ctx)
{
	return !c || acl_cond_exec(c, ctx) == ACL_TEST_PASS;
}

/* A fetch that refuses some string patterns of the ACLs using it registers a check,
 * called once the names in its arguments are resolved (http_auth_group: its groups).
 * Returns 0, or -1 with the reason in <err>. At startup (constructors). */
typedef int (*acl_pat_check_fn)(const struct arg *args, struct ist pat, char *err, size_t errsz);
void acl_register_pat_check(smp_fetch_fn fn, acl_pat_check_fn check);

/* Checks the string patterns of ACLs whose fetch refuses some (http_auth_group and its
 * groups), with an alert naming the file and line of each refused one. Config time, after
 * sample_resolve_args(). Returns the number of errors. */
int acl_check_patterns(void);

/* Frees the predefined ACLs that were compiled (at exit). */
void acl_deinit(void);

#endif
