/* Unit tests of the condition index: on random runs of rules with every indexable match
 * method (several expressions, case-insensitive sets, ORed ACL lines, shared patterns),
 * the first rule the index reports must be the first rule whose condition holds when
 * evaluated one by one, for many random values.
 */
#include <arpa/inet.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/list.h>
#include <sample/acl.h>
#include <sample/cond_index.h>
#include <sample/map_ref.h>
#include <sample/sample.h>
#include <sample/vars.h>
#include "../test.h"

#define NRULES 40

static unsigned int rnd_state = 12345;

static unsigned int rnd(unsigned int n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 8) % n;
}

static const char *const words[] = { "a", "ab", "abc", "b", "ba", "/x", "/x/y", "/x/y/z", "A",
				     "AB", "x.y", "y" };
#define NWORDS (sizeof(words) / sizeof(words[0]))

/* Writes a random ACL line over var(proc.s), var(proc.n) or var(proc.ip). */
static void rnd_acl(char *buf, size_t sz)
{
	static const char *const str_methods[] = { "str", "beg", "end", "sub", "dir", "dom",
						   "len", "found", "reg" };
#ifdef USE_PCRE2
	const unsigned int nmeth = 9;
#else
	const unsigned int nmeth = 8; /* the aarch64 check builds without PCRE2 */
#endif
	int kind = (int)rnd(3), n;

	if (kind == 0) {
		const char *m = str_methods[rnd(nmeth)];

		n = snprintf(buf, sz, "var(proc.s) %s-m %s", rnd(3) == 0 ? "-i " : "", m);
		if (!strcmp(m, "found"))
			return;
		for (unsigned int k = 0, cnt = 1 + rnd(3); k < cnt; k++) {
			if (!strcmp(m, "len"))
				n += snprintf(buf + n, sz - (size_t)n, " %u", rnd(5));
			else if (!strcmp(m, "reg"))
				n += snprintf(buf + n, sz - (size_t)n, " ^%s", words[rnd(NWORDS)]);
			else
				n += snprintf(buf + n, sz - (size_t)n, " %s", words[rnd(NWORDS)]);
		}
	} else if (kind == 1) {
		snprintf(buf, sz, "var(proc.n) %s %u", rnd(2) ? "gt" : "eq", rnd(6));
	} else {
		snprintf(buf, sz, "var(proc.ip) -m ip 10.%u.0.0/16 192.168.%u.%u", rnd(3), rnd(3),
			 rnd(4));
	}
}

static int split_words(char *line, char **w, int max)
{
	int n = 0;

	for (char *p = strtok(line, " "); p && n < max; p = strtok(NULL, " "))
		w[n++] = p;
	return n;
}

static void set_vars(const struct smp_ctx *ctx)
{
	struct var_desc d;
	struct sample smp = { .ctx = ctx };
	char err[64], ip[32];

	vars_parse_desc("proc.s", &d, err, sizeof(err));
	smp.data.type = SMP_T_STR;
	smp.data.u.str = ist_str(words[rnd(NWORDS)]);
	vars_set(ctx, &d, &smp);
	vars_parse_desc("proc.n", &d, err, sizeof(err));
	smp.data.type = SMP_T_SINT;
	smp.data.u.sint = rnd(7);
	vars_set(ctx, &d, &smp);
	vars_parse_desc("proc.ip", &d, err, sizeof(err));
	snprintf(ip, sizeof(ip), "%s.%u.%u.%u", rnd(2) ? "10" : "192", rnd(3) + (rnd(2) ? 0 : 166),
		 rnd(3), rnd(4));
	smp.data.type = SMP_T_IPV4;
	inet_pton(AF_INET, ip, &smp.data.u.ipv4);
	vars_set(ctx, &d, &smp);
}

TEST(cond_index_matches_sequential_evaluation)
{
	struct smp_ctx ctx = { 0 };
	char err[256], line[256], name[16], *w[32];

	for (int round = 0; round < 30; round++) {
		struct acl_cond *conds[NRULES];
		struct cond_index *ci;
		struct list acls;
		int n;

		list_init(&acls);
		for (int r = 0; r < NRULES; r++) {
			/* one or two ACL lines per name, one or two names ORed per rule */
			char *cw[4] = { "if", name, "||", NULL };
			char name2[16];

			snprintf(name, sizeof(name), "r%d", r);
			for (unsigned int l = 0, nl = 1 + rnd(2); l < nl; l++) {
				rnd_acl(line, sizeof(line));
				n = split_words(line, w, 32);
				if (acl_add_line(&acls, name, w, n, NULL, err, sizeof(err)) < 0)
					test_fail(__FILE__, __LINE__, "%s: %s", line, err);
			}
			snprintf(name2, sizeof(name2), "r%d", r ? (int)rnd((unsigned)r) : 0);
			cw[3] = name2;
			conds[r] = acl_cond_parse(cw, rnd(2) ? 4 : 2, &acls, NULL, err, sizeof(err));
			CHECK(conds[r] && cond_indexable(conds[r]));
			if (!conds[r]) { /* reported: stop before using it */
				for (int k = 0; k < r; k++)
					acl_cond_free(conds[k]);
				acl_free_list(&acls);
				return;
			}
		}
		ci = cond_index_build(conds, NRULES);
		CHECK(ci != NULL);
		for (int v = 0; ci && v < 200; v++) {
			unsigned int want = UINT_MAX, got;

			set_vars(&ctx);
			for (int r = 0; r < NRULES && want == UINT_MAX; r++)
				if (acl_cond_exec(conds[r], &ctx) == ACL_TEST_PASS)
					want = (unsigned int)r;
			got = cond_index_first(ci, &ctx);
			if (got != want) {
				test_fail(__FILE__, __LINE__, "round %d value %d: index says %u, "
					  "rules say %u", round, v, got, want);
				break;
			}
		}
		cond_index_free(ci);
		for (int r = 0; r < NRULES; r++)
			acl_cond_free(conds[r]);
		acl_free_list(&acls);
	}
	vars_deinit();
}

TEST(cond_index_refuses_what_it_cannot_index)
{
	char *t[] = { "always_true" };
	char *c1[] = { "unless", "a" }, *c2[] = { "if", "!a" }, *c3[] = { "if", "a", "a" };
	char err[128];
	struct acl_cond *c;
	struct list acls;

	list_init(&acls);
	acl_add_line(&acls, "a", t, 1, NULL, err, sizeof(err));
	c = acl_cond_parse(c1, 2, &acls, NULL, err, sizeof(err));
	CHECK(c && !cond_indexable(c));
	acl_cond_free(c);
	c = acl_cond_parse(c2, 2, &acls, NULL, err, sizeof(err));
	CHECK(c && !cond_indexable(c));
	acl_cond_free(c);
	c = acl_cond_parse(c3, 3, &acls, NULL, err, sizeof(err));
	CHECK(c && !cond_indexable(c)); /* an AND */
	acl_cond_free(c);
	CHECK(!cond_indexable(NULL));
	acl_free_list(&acls);
}

/* The pattern reference of the first line of ACL <name> in <acls>, or NULL. */
static struct map_ref *ref_of(struct list *acls, const char *name)
{
	struct acl *a;

	list_for_each_entry(a, acls, list)
	{
		if (strcmp(a->name, name) != 0)
			continue;
		for (struct map_ref *r = map_ref_first(); r; r = r->next)
			for (int i = 0; i < r->nsets; i++)
				if (r->sets[i].ps == &a->exprs->pat)
					return r;
	}
	return NULL;
}

/* Only the references an index copied are marked: a change to another ACL (add-acl on an
 * unrelated file) must not make every index fall back. */
TEST(cond_index_marks_only_the_references_it_copies)
{
	char *la[] = { "var(proc.s)", "-m", "str", "x" }, *lb[] = { "var(proc.s)", "-m", "str", "y" };
	char *ca[] = { "if", "a" }, *cb[] = { "if", "b" };
	struct acl_cond *conds[2], *other;
	struct map_ref *ra, *rb;
	struct cond_index *ci;
	struct smp_parse_ctx pc = { .file = "t.cfg", .line = 1 }; /* inline patterns get refs */
	struct list acls;
	char err[128];

	list_init(&acls);
	CHECK(acl_add_line(&acls, "a", la, 4, &pc, err, sizeof(err)) == 0);
	CHECK(acl_add_line(&acls, "b", lb, 4, &pc, err, sizeof(err)) == 0);
	conds[0] = acl_cond_parse(ca, 2, &acls, NULL, err, sizeof(err));
	conds[1] = acl_cond_parse(ca, 2, &acls, NULL, err, sizeof(err));
	other = acl_cond_parse(cb, 2, &acls, NULL, err, sizeof(err));
	ra = ref_of(&acls, "a");
	rb = ref_of(&acls, "b");
	CHECK(ra && rb && ra != rb);
	ci = cond_index_build(conds, 2);
	CHECK(ci != NULL);
	if (ra && rb) {
		CHECK(ra->flags & MAP_REF_F_INDEXED);
		CHECK(!(rb->flags & MAP_REF_F_INDEXED));
	}
	cond_index_free(ci);
	acl_cond_free(conds[0]);
	acl_cond_free(conds[1]);
	acl_cond_free(other);
	acl_free_list(&acls);
}
