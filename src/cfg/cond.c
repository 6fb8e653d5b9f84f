/* Condition evaluator for "-cc EXPR" and ".if/.elif" (see cfg/cond.h): a small recursive
 * descent parser over the words joined with single spaces, as HAProxy does. Grammar:
 *   expr := and { "||" and } ; and := unary { "&&" unary } ; unary := "!" unary | term
 *   term := "(" expr ")" | integer | predicate "(" args ")"
 * Pure: works on the caller's words and facts, uses only its own stack.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfg/cond.h>

#define COND_MAX_EXPR  4096   /* joined expression, bytes */
#define COND_MAX_ARGS  2      /* arguments of one predicate */
#define COND_MAX_DEPTH 64     /* nesting of '(' and '!' */

struct cond_parser {
	const char *p;                    /* cursor in expr */
	const struct cond_facts *facts;
	char *err;
	size_t errsz;
	int depth;
	char expr[COND_MAX_EXPR];
	char argv[COND_MAX_ARGS][COND_MAX_EXPR];
};

enum cond_pred_id {
	COND_P_FEATURE = 0,
	COND_P_VER_ATLEAST,
	COND_P_VER_BEFORE,
	COND_P_STREQ,
	COND_P_STRNEQ,
	COND_P_DEFINED,
	COND_P_SSLVER_ATLEAST,
	COND_P_SSLVER_BEFORE,
	COND_P_SSLNAME_STARTS,
	COND_P_ENABLED,
};

struct cond_pred {
	const char *name;
	enum cond_pred_id id;
	int nargs;
};

static const struct cond_pred cond_preds[] = {
	{ "feature", COND_P_FEATURE, 1 },
	{ "version_atleast", COND_P_VER_ATLEAST, 1 },
	{ "version_before", COND_P_VER_BEFORE, 1 },
	{ "streq", COND_P_STREQ, 2 },
	{ "strneq", COND_P_STRNEQ, 2 },
	{ "defined", COND_P_DEFINED, 1 },
	{ "openssl_version_atleast", COND_P_SSLVER_ATLEAST, 1 },
	{ "openssl_version_before", COND_P_SSLVER_BEFORE, 1 },
	{ "ssllib_name_startswith", COND_P_SSLNAME_STARTS, 1 },
	{ "enabled", COND_P_ENABLED, 1 },
};

__attribute__((format(printf, 2, 3))) static int cond_fail(struct cond_parser *cp,
							    const char *fmt, ...)
{
	va_list ap;

	if (cp->err && cp->errsz) {
		va_start(ap, fmt);
		vsnprintf(cp->err, cp->errsz, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static void cond_skip_spaces(struct cond_parser *cp)
{
	while (*cp->p == ' ' || *cp->p == '\t')
		cp->p++;
}

/* Version as components, then a suffix rank: -dev < -pre < -rc < release < anything else. */
struct cond_ver {
	long comp[4];
	int rank;
	long sub;
};

static long cond_ver_num(const char **s)
{
	long v = 0;

	while (isdigit((unsigned char)**s)) {
		if (v < 100000000)
			v = v * 10 + (**s - '0');
		(*s)++;
	}
	return v;
}

static void cond_ver_parse(const char *s, struct cond_ver *v)
{
	int k;

	memset(v, 0, sizeof(*v));
	v->rank = 3;
	if (!s)
		return;
	for (k = 0; k < 4 && isdigit((unsigned char)*s); k++) {
		v->comp[k] = cond_ver_num(&s);
		if (*s != '.')
			break;
		s++;
	}
	if (*s != '-')
		return;
	s++;
	if (strncmp(s, "dev", 3) == 0) {
		v->rank = 0;
		s += 3;
	} else if (strncmp(s, "pre", 3) == 0) {
		v->rank = 1;
		s += 3;
	} else if (strncmp(s, "rc", 2) == 0) {
		v->rank = 2;
		s += 2;
	} else {
		v->rank = 4;
	}
	v->sub = cond_ver_num(&s);
}

/* See cfg/cond.h. Missing components count as zero, so "2.4" == "2.4.0". */
int cond_version_cmp(const char *a, const char *b)
{
	struct cond_ver va, vb;
	int k;

	cond_ver_parse(a, &va);
	cond_ver_parse(b, &vb);
	for (k = 0; k < 4; k++) {
		if (va.comp[k] != vb.comp[k])
			return va.comp[k] < vb.comp[k] ? -1 : 1;
	}
	if (va.rank != vb.rank)
		return va.rank < vb.rank ? -1 : 1;
	if (va.sub != vb.sub)
		return va.sub < vb.sub ? -1 : 1;
	return 0;
}

/* True if <name> appears in the space-separated list <list> (a '+' prefix is allowed, a
 * '-' prefix means absent, as in "-vv" output).
 */
static bool cond_list_has(const char *list, const char *name)
{
	size_t nlen = strlen(name), wlen;
	const char *w;

	if (!list || !nlen)
		return false;
	while (*list) {
		while (*list == ' ')
			list++;
		w = list;
		while (*list && *list != ' ')
			list++;
		wlen = (size_t)(list - w);
		if (wlen && *w == '+') {
			w++;
			wlen--;
		}
		if (wlen == nlen && memcmp(w, name, nlen) == 0)
			return true;
	}
	return false;
}

static int cond_pred_eval(struct cond_parser *cp, const struct cond_pred *pr)
{
	const struct cond_facts *f = cp->facts;
	const char *a = cp->argv[0], *b = cp->argv[1];

	switch (pr->id) {
	case COND_P_FEATURE:
		return f && cond_list_has(f->features, a);
	case COND_P_VER_ATLEAST:
		return f && f->version && cond_version_cmp(f->version, a) >= 0;
	case COND_P_VER_BEFORE:
		return f && f->version && cond_version_cmp(f->version, a) < 0;
	case COND_P_STREQ:
		return strcmp(a, b) == 0;
	case COND_P_STRNEQ:
		return strcmp(a, b) != 0;
	case COND_P_DEFINED:
		return f && f->defined && *a && f->defined(a);
	case COND_P_SSLVER_ATLEAST:
		return f && f->ssl_version && cond_version_cmp(f->ssl_version, a) >= 0;
	case COND_P_SSLVER_BEFORE:
		return f && f->ssl_version && cond_version_cmp(f->ssl_version, a) < 0;
	case COND_P_SSLNAME_STARTS:
		return f && f->ssl_name && strncmp(f->ssl_name, a, strlen(a)) == 0;
	case COND_P_ENABLED:
		return f && f->enabled && f->enabled(a);
	}
	return cond_fail(cp, "internal error: unhandled predicate '%s'", pr->name);
}

/* Reads one predicate argument into <dst> (quotes and \\ \" \' \<space> resolved), up to an
 * unquoted ',' or ')'. Returns 0 or -1.
 */
static int cond_read_arg(struct cond_parser *cp, char *dst, const char *pname, int argn)
{
	size_t o = 0;
	char q = 0, c;

	while ((c = *cp->p) && (q || (c != ',' && c != ')'))) {
		cp->p++;
		if (q && c == q) {
			q = 0;
			continue;
		}
		if (!q && (c == '"' || c == '\'')) {
			q = c;
			continue;
		}
		if (c == '\\' && q != '\'' && *cp->p && strchr("\\\"' \t", *cp->p))
			c = *cp->p++;
		if (o + 1 >= COND_MAX_EXPR)
			return cond_fail(cp, "argument %d of predicate '%s' is too long", argn, pname);
		dst[o++] = c;
	}
	dst[o] = '\0';
	if (q)
		return cond_fail(cp, "unmatched quote in argument %d of predicate '%s'", argn, pname);
	return 0;
}

/* Parses "(arg[,arg])" after a predicate name and evaluates it. */
static int cond_predicate(struct cond_parser *cp, const struct cond_pred *pr)
{
	int n = 0;

	cp->p++; /* '(' */
	cp->argv[1][0] = '\0';
	while (1) {
		if (cond_read_arg(cp, cp->argv[n], pr->name, n + 1) < 0)
			return -1;
		n++;
		if (*cp->p == ')') {
			cp->p++;
			break;
		}
		if (!*cp->p)
			return cond_fail(cp, "expected ')' in argument %d of predicate '%s' used in "
					 "conditional expression", n, pr->name);
		/* ',' */
		if (n >= pr->nargs)
			return cond_fail(cp, "expected ')' before '%s' in argument %d of predicate "
					 "'%s' used in conditional expression", cp->p, n, pr->name);
		cp->p++;
	}
	if (n < pr->nargs)
		return cond_fail(cp, "missing arguments (got %d/%d) in predicate '%s' used in "
				 "conditional expression", n, pr->nargs, pr->name);
	return cond_pred_eval(cp, pr);
}

static bool cond_is_end(char c)
{
	return c == '\0' || c == ' ' || c == '\t' || c == ')' || c == '&' || c == '|';
}

static int cond_expr(struct cond_parser *cp);

/* term := "(" expr ")" | integer | predicate "(" args ")" */
static int cond_term(struct cond_parser *cp)
{
	const char *start = cp->p, *name;
	char *end;
	size_t nlen, k;
	long long v;
	int r;

	if (*cp->p == '(') {
		cp->p++;
		r = cond_expr(cp);
		if (r < 0)
			return r;
		cond_skip_spaces(cp);
		if (*cp->p != ')')
			return cond_fail(cp, "expected ')' after conditional expression '%s'", start);
		cp->p++;
		return r;
	}
	if (isdigit((unsigned char)*cp->p) ||
	    ((*cp->p == '-' || *cp->p == '+') && isdigit((unsigned char)cp->p[1]))) {
		errno = 0;
		v = strtoll(cp->p, &end, 0);
		if (errno || !cond_is_end(*end))
			return cond_fail(cp, "unparsable conditional expression '%s'", start);
		cp->p = end;
		return v != 0;
	}
	name = cp->p;
	while (isalnum((unsigned char)*cp->p) || *cp->p == '_')
		cp->p++;
	nlen = (size_t)(cp->p - name);
	if (!nlen || *cp->p != '(')
		return cond_fail(cp, "unparsable conditional expression '%s'", start);
	for (k = 0; k < sizeof(cond_preds) / sizeof(cond_preds[0]); k++) {
		if (strlen(cond_preds[k].name) == nlen && memcmp(cond_preds[k].name, name, nlen) == 0)
			return cond_predicate(cp, &cond_preds[k]);
	}
	return cond_fail(cp, "unknown predicate '%.*s' in conditional expression '%s'",
			 (int)nlen, name, start);
}

/* unary := "!" unary | term */
static int cond_unary(struct cond_parser *cp)
{
	int r;

	cond_skip_spaces(cp);
	if (++cp->depth > COND_MAX_DEPTH)
		return cond_fail(cp, "conditional expression nested too deeply");
	if (*cp->p == '!') {
		cp->p++;
		r = cond_unary(cp);
		if (r >= 0)
			r = !r;
	} else {
		r = cond_term(cp);
	}
	cp->depth--;
	return r;
}

/* and := unary { "&&" unary }; every operand is parsed (and checked) even when the result
 * is already known.
 */
static int cond_and(struct cond_parser *cp)
{
	int v, r;

	v = cond_unary(cp);
	while (v >= 0) {
		cond_skip_spaces(cp);
		if (cp->p[0] != '&' || cp->p[1] != '&')
			break;
		cp->p += 2;
		r = cond_unary(cp);
		if (r < 0)
			return r;
		v = v && r;
	}
	return v;
}

/* expr := and { "||" and } */
static int cond_expr(struct cond_parser *cp)
{
	int v, r;

	v = cond_and(cp);
	while (v >= 0) {
		cond_skip_spaces(cp);
		if (cp->p[0] != '|' || cp->p[1] != '|')
			break;
		cp->p += 2;
		r = cond_and(cp);
		if (r < 0)
			return r;
		v = v || r;
	}
	return v;
}

/* See cfg/cond.h. */
int cond_eval(char *const *args, int nargs, const struct cond_facts *facts, char *err,
	      size_t errsz)
{
	struct cond_parser cp;
	size_t o = 0, l;
	int i, r;

	cp.facts = facts;
	cp.err = err;
	cp.errsz = errsz;
	cp.depth = 0;
	if (err && errsz)
		err[0] = '\0';
	for (i = 0; i < nargs; i++) {
		l = strlen(args[i]);
		if (o + l + 2 > sizeof(cp.expr))
			return cond_fail(&cp, "conditional expression too long");
		if (i)
			cp.expr[o++] = ' ';
		memcpy(cp.expr + o, args[i], l);
		o += l;
	}
	cp.expr[o] = '\0';
	cp.p = cp.expr;
	cond_skip_spaces(&cp);
	if (!*cp.p)
		return 0;
	r = cond_expr(&cp);
	if (r < 0)
		return r;
	cond_skip_spaces(&cp);
	if (*cp.p)
		return cond_fail(&cp, "unexpected character '%c' at the end of conditional "
				 "expression '%s'", *cp.p, cp.expr);
	return r;
}
