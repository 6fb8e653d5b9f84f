/* Condition index: a run of rules whose conditions are plain ACL tests ("if acl", "if {
 * path_beg /x }", "if a || b": positive terms only) is compiled into one lookup per
 * distinct sample expression. Every pattern of every such condition goes into the group
 * of its expression and match method, tagged with the position of its rule; a request
 * then fetches each expression once and asks each group for the first position whose
 * pattern matches: exact strings through a hash, prefixes through a trie, networks through
 * a prefix tree, regexes through one combined regex first. A hundred rules that do not
 * match cost a few lookups instead of a hundred evaluations.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sample/acl.h>
#include <base/atomic.h>
#include <sample/cond_index.h>
#include <sample/iptree.h>
#include <sample/map_ref.h>
#include <sample/pattern.h>
#include <sample/regex.h>
#include <sample/sample.h>
#include <sample/strtree.h>

#define CI_NONE UINT_MAX

/* A pattern of a scanned method, with the position of its rule. */
struct ci_scan {
	const struct pattern *p;
	const struct pat_set *ps;
	unsigned int pos;
};

struct ci_group {
	const struct sample_expr *expr;
	uint8_t match;
	uint8_t icase;
	uint8_t type;	      /* sample type the method compares (pat_match_type) */
	struct strtree *str;  /* STR, BEG: position of the first rule per key */
	struct iptree *ip;    /* IP */
	struct ci_scan *scan; /* other methods, in position order */
	unsigned int nscan;
	unsigned int first_any; /* FOUND, BOOL: the first position testing this */
	struct regex *combined; /* REG: every regex of the group in one, or NULL */
	char *combined_src;
};

/* The groups of one sample expression, so that it is fetched once for all of them. */
struct ci_expr {
	const struct sample_expr *expr;
	unsigned int first; /* index of its first group in cond_index->groups */
	unsigned int ngroups;
};

struct cond_index {
	unsigned int n;
	unsigned int ngroups;
	struct ci_group *groups; /* sorted so that groups of one expression are adjacent */
	unsigned int nexprs;
	struct ci_expr *exprs;
	struct acl_cond **conds; /* the conditions, tested one by one once ACLs changed */
};

/* Set (once, never cleared) by the CLI or a rule (add-acl, del-acl) when it changes the
 * patterns of an ACL reference some index copied (MAP_REF_F_INDEXED, marked at build):
 * every index then falls back to testing the conditions in order. A change to a file no
 * index copied keeps the indexes. Relaxed: a request that still uses the index just sees
 * the change a little later. */
bool cond_index_acls_changed;

static bool ci_method_ok(int match)
{
	return match != PAT_MATCH_REGM && match < PAT_MATCH_NUM;
}

bool cond_indexable(const struct acl_cond *c)
{
	if (!c || c->pol != ACL_COND_IF)
		return false;
	for (const struct acl_suite *s = c->suites; s; s = s->next) {
		if (s->nterms != 1 || s->terms[0].neg)
			return false;
		for (const struct acl_expr *e = s->terms[0].acl->exprs; e; e = e->next)
			if (!ci_method_ok(e->pat.match))
				return false;
	}
	return true;
}

void cond_index_free(struct cond_index *ci)
{
	if (!ci)
		return;
	for (unsigned int i = 0; i < ci->ngroups; i++) {
		struct ci_group *g = &ci->groups[i];

		strtree_free(g->str);
		iptree_free(g->ip);
		free(g->scan);
		regex_free(g->combined);
		free(g->combined_src);
	}
	free(ci->groups);
	free(ci->exprs);
	free(ci->conds);
	free(ci);
}

/* Sorts the groups by expression (stable) and lists the distinct expressions. */
static int ci_sort_by_expr(struct cond_index *ci)
{
	struct ci_group *sorted = malloc(ci->ngroups * sizeof(*sorted) + 1);
	bool *done = calloc(ci->ngroups + 1, sizeof(*done));
	unsigned int o = 0;

	ci->exprs = calloc(ci->ngroups + 1, sizeof(*ci->exprs));
	if (!sorted || !done || !ci->exprs) {
		free(sorted);
		free(done);
		return -1;
	}
	for (unsigned int i = 0; i < ci->ngroups; i++) {
		struct ci_expr *x;

		if (done[i])
			continue;
		x = &ci->exprs[ci->nexprs++];
		x->expr = ci->groups[i].expr;
		x->first = o;
		for (unsigned int j = i; j < ci->ngroups; j++) {
			if (done[j] || !sample_expr_equal(ci->groups[j].expr, x->expr))
				continue;
			sorted[o++] = ci->groups[j];
			done[j] = true;
			x->ngroups++;
		}
	}
	free(ci->groups);
	free(done);
	ci->groups = sorted;
	return 0;
}

static struct ci_group *ci_group_of(struct cond_index *ci, const struct acl_expr *e)
{
	uint8_t icase = !!(e->pat.flags & PAT_SET_ICASE);
	struct ci_group *g;

	for (unsigned int i = 0; i < ci->ngroups; i++) {
		g = &ci->groups[i];
		if (g->match == e->pat.match && g->icase == icase &&
		    sample_expr_equal(g->expr, e->smp))
			return g;
	}
	g = realloc(ci->groups, (ci->ngroups + 1) * sizeof(*g));
	if (!g)
		return NULL;
	ci->groups = g;
	g = &g[ci->ngroups++];
	memset(g, 0, sizeof(*g));
	g->expr = e->smp;
	g->match = e->pat.match;
	g->icase = icase;
	g->type = (uint8_t)pat_match_type(e->pat.match);
	g->first_any = CI_NONE;
	return g;
}

static int ci_add_scan(struct ci_group *g, const struct pattern *p, const struct pat_set *ps,
		       unsigned int pos)
{
	struct ci_scan *s = realloc(g->scan, (g->nscan + 1) * sizeof(*s));

	if (!s)
		return -1;
	g->scan = s;
	s[g->nscan++] = (struct ci_scan){ p, ps, pos };
	return 0;
}

static int ci_add_pattern(struct ci_group *g, const struct pat_set *ps, const struct pattern *p,
			  unsigned int pos)
{
	unsigned int tflags = g->icase ? STRTREE_ICASE : 0;

	switch (g->match) {
	case PAT_MATCH_STR:
	case PAT_MATCH_BEG:
		if (g->match == PAT_MATCH_BEG)
			tflags |= STRTREE_PREFIX;
		if (!g->str && !(g->str = strtree_new(tflags)))
			return -1;
		return strtree_insert(g->str, p->val.str.ptr, p->val.str.len, (void *)p, pos);
	case PAT_MATCH_IP:
		if (!g->ip && !(g->ip = iptree_new()))
			return -1;
		if (p->flags & PAT_F_V6)
			return iptree_insert6(g->ip, &p->val.v6.addr, p->val.v6.plen, (void *)p,
					      pos);
		return iptree_insert4(g->ip, p->val.v4.addr,
				      __builtin_popcount(p->val.v4.mask.s_addr), (void *)p, pos);
	}
	return ci_add_scan(g, p, ps, pos);
}

/* Every regex of <g> as one alternation, to reject a value with a single match call.
 * Patterns are wrapped in "(?:...)" so each keeps its own alternatives and inline
 * options; without captures, alternatives cannot interfere. Left NULL if it does not
 * compile. */
static void ci_combine_regexes(struct ci_group *g)
{
	size_t len = 1;
	char err[128], *s, *o;

	if (g->match != PAT_MATCH_REG || g->nscan < 2)
		return;
	for (unsigned int i = 0; i < g->nscan; i++)
		len += strlen(regex_pattern(g->scan[i].p->val.reg)) + 5;
	s = malloc(len);
	if (!s)
		return;
	o = s;
	for (unsigned int i = 0; i < g->nscan; i++)
		o += sprintf(o, "%s(?:%s)", i ? "|" : "", regex_pattern(g->scan[i].p->val.reg));
	g->combined = regex_comp(s, REGEX_NOSUB | (g->icase ? REGEX_ICASE : 0), err, sizeof(err));
	if (g->combined)
		g->combined_src = s;
	else
		free(s);
}

struct cond_index *cond_index_build(struct acl_cond *const *conds, unsigned int n)
{
	struct cond_index *ci = calloc(1, sizeof(*ci));

	if (!ci)
		return NULL;
	ci->n = n;
	ci->conds = malloc(n * sizeof(*ci->conds));
	if (!ci->conds)
		goto fail;
	memcpy(ci->conds, conds, n * sizeof(*ci->conds));
	for (unsigned int pos = 0; pos < n; pos++) {
		for (const struct acl_suite *s = conds[pos]->suites; s; s = s->next) {
			for (const struct acl_expr *e = s->terms[0].acl->exprs; e; e = e->next) {
				struct ci_group *g = ci_group_of(ci, e);

				if (!g)
					goto fail;
				if (e->pat.match == PAT_MATCH_FOUND ||
				    e->pat.match == PAT_MATCH_BOOL) {
					if (g->first_any == CI_NONE)
						g->first_any = pos;
					continue;
				}
				for (const struct pattern *p = e->pat.head; p; p = p->next)
					if (ci_add_pattern(g, &e->pat, p, pos) < 0)
						goto fail;
				map_ref_mark_indexed(&e->pat);
			}
		}
	}
	for (unsigned int i = 0; i < ci->ngroups; i++)
		ci_combine_regexes(&ci->groups[i]);
	if (ci_sort_by_expr(ci) < 0)
		goto fail;
	return ci;
fail:
	cond_index_free(ci);
	return NULL;
}

/* The first position of <g> matched by the value in <smp>, or CI_NONE. */
static unsigned int ci_group_match(const struct ci_group *g, struct sample *smp)
{
	if (g->match == PAT_MATCH_FOUND)
		return g->first_any;
	if (smp->data.type != g->type &&
	    !(g->type == SMP_T_ADDR &&
	      (smp->data.type == SMP_T_IPV4 || smp->data.type == SMP_T_IPV6)) &&
	    !sample_cast(smp, g->type))
		return CI_NONE;
	switch (g->match) {
	case PAT_MATCH_BOOL:
		return smp->data.u.sint ? g->first_any : CI_NONE;
	case PAT_MATCH_STR:
		return g->str ? strtree_first_idx(g->str, smp->data.u.str.ptr, smp->data.u.str.len)
			      : CI_NONE;
	case PAT_MATCH_BEG:
		return g->str ? strtree_first_idx_prefix(g->str, smp->data.u.str.ptr,
							 smp->data.u.str.len)
			      : CI_NONE;
	case PAT_MATCH_IP:
		if (!g->ip)
			return CI_NONE;
		if (smp->data.type == SMP_T_IPV4)
			return iptree_first_idx4(g->ip, smp->data.u.ipv4);
		return iptree_first_idx6(g->ip, &smp->data.u.ipv6);
	case PAT_MATCH_REG:
		if (g->combined &&
		    !regex_exec(g->combined, smp->data.u.str.ptr, smp->data.u.str.len))
			return CI_NONE;
		break;
	}
	for (unsigned int i = 0; i < g->nscan; i++)
		if (pat_test_one(g->scan[i].ps, g->scan[i].p, smp))
			return g->scan[i].pos;
	return CI_NONE;
}

/* sample_process() without the call when there is no converter, the usual case. */
static inline int ci_fetch(const struct sample_expr *e, struct sample *smp)
{
	return e->nconv ? sample_process(e, smp) : e->fetch->fn(e->args, smp, e->fetch);
}

unsigned int cond_index_first(const struct cond_index *ci, const struct smp_ctx *ctx)
{
	unsigned int best = CI_NONE;

	if (unlikely(HA_ATOMIC_LOAD_RLX(&cond_index_acls_changed))) {
		for (unsigned int pos = 0; pos < ci->n; pos++)
			if (acl_cond_true(ci->conds[pos], ctx))
				return pos;
		return best;
	}
	for (unsigned int i = 0; i < ci->nexprs; i++) {
		const struct ci_expr *x = &ci->exprs[i];
		struct sample smp, tmp;

		smp.ctx = ctx;
		smp.flags = SMP_F_ITER;
		smp.it = smp.it2 = 0;
		while (ci_fetch(x->expr, &smp)) {
			for (unsigned int g = 0; g < x->ngroups; g++) {
				const struct ci_group *grp = &ci->groups[x->first + g];
				struct sample *v = &smp;
				unsigned int pos;

				/* each method casts the value its own way: a copy when several
				 * share it and this one casts */
				if (x->ngroups > 1 && smp.data.type != grp->type) {
					tmp = smp;
					v = &tmp;
				}
				pos = ci_group_match(grp, v);
				if (pos < best)
					best = pos;
			}
			if (!(smp.flags & SMP_F_NOT_LAST) || best == 0)
				break;
			smp.flags = SMP_F_ITER;
		}
		if (best == 0)
			break;
	}
	return best;
}
