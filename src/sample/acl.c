/* ACLs: parsing of ACL lines (criterion, flags, patterns) with HAProxy's derived keywords
 * (path_beg = path with -m beg ...), named and anonymous ACLs, the predefined ACLs,
 * conditions ("if"/"unless", "!", "||"/"or", implicit AND) and their evaluation.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfg/cfg.h>
#include <proxy/proxy-t.h>
#include <proxy/proxy_cfg.h>
#include <sample/acl.h>
#include <sample/map_ref.h>
#include <sample/pattern.h>
#include <sample/sample.h>

/* HAProxy's ACL keywords derived from a fetch with a match method. */
struct acl_kw {
	const char *kw;
	const char *fetch;
	int match;
	unsigned pflags; /* PAT_SET_DOTVER: versions written MAJOR.MINOR */
};

/* clang-format off */
#define DERIV(base, fetch)                                                                  \
	{ base, fetch, PAT_MATCH_STR, 0 }, { base "_beg", fetch, PAT_MATCH_BEG, 0 },              \
		{ base "_dir", fetch, PAT_MATCH_DIR, 0 }, { base "_dom", fetch, PAT_MATCH_DOM, 0 }, \
		{ base "_end", fetch, PAT_MATCH_END, 0 }, { base "_len", fetch, PAT_MATCH_LEN, 0 }, \
		{ base "_reg", fetch, PAT_MATCH_REG, 0 }, { base "_sub", fetch, PAT_MATCH_SUB, 0 }
/* clang-format on */

static const struct acl_kw acl_kws[] = {
	DERIV("path", "path"),
	DERIV("url", "url"),
	DERIV("base", "base"),
	DERIV("hdr", "req.hdr"), /* the ACL keyword is request-only, the fetch is not */
	DERIV("shdr", "shdr"),
	DERIV("cook", "cook"),
	DERIV("scook", "scook"),
	DERIV("urlp", "urlp"),
	DERIV("req.ssl_sni", "req.ssl_sni"),
	{ "url_ip", "url_ip", PAT_MATCH_IP, 0 },
	{ "url_port", "url_port", PAT_MATCH_INT, 0 },
	{ "hdr_ip", "hdr_ip", PAT_MATCH_IP, 0 },
	{ "hdr_val", "hdr_val", PAT_MATCH_INT, 0 },
	{ "hdr_cnt", "hdr_cnt", PAT_MATCH_INT, 0 },
	{ "shdr_ip", "shdr_ip", PAT_MATCH_IP, 0 },
	{ "shdr_val", "shdr_val", PAT_MATCH_INT, 0 },
	{ "cook_val", "cook_val", PAT_MATCH_INT, 0 },
	{ "cook_cnt", "cook_cnt", PAT_MATCH_INT, 0 },
	{ "urlp_val", "urlp_val", PAT_MATCH_INT, 0 },
	{ "req.ssl_sni_end", "req.ssl_sni", PAT_MATCH_END, 0 },
	{ "req.ssl_ver", "req.ssl_ver", PAT_MATCH_INT, PAT_SET_DOTVER },
	{ "req_ssl_ver", "req_ssl_ver", PAT_MATCH_INT, PAT_SET_DOTVER },
	{ "ssl_fc_sni_end", "ssl_fc_sni", PAT_MATCH_END, 0 },
	{ "ssl_fc_sni_reg", "ssl_fc_sni", PAT_MATCH_REG, 0 },
	{ NULL, NULL, 0, 0 },
};

static const struct acl_kw *acl_find_kw(const char *s, size_t len)
{
	for (const struct acl_kw *k = acl_kws; k->kw; k++)
		if (strlen(k->kw) == len && !memcmp(k->kw, s, len))
			return k;
	return NULL;
}

/* The match method of a fetch used without a derived keyword nor "-m". */
static int acl_default_match(int out_type)
{
	switch (out_type) {
	case SMP_T_BOOL:
		return PAT_MATCH_BOOL;
	case SMP_T_SINT:
		return PAT_MATCH_INT;
	case SMP_T_ADDR:
	case SMP_T_IPV4:
	case SMP_T_IPV6:
		return PAT_MATCH_IP;
	case SMP_T_BIN:
		return PAT_MATCH_BIN;
	}
	return PAT_MATCH_STR;
}

/* Patterns of ACLs whose fetch checks them (acl_register_pat_check), checked by
 * acl_check_patterns() once the names in the fetch arguments are resolved. */
struct acl_pat_check {
	struct acl_pat_check *next;
	const struct acl_expr *e;
	char *file;
	char *px;   /* the proxy's name, for 2.6's message */
	char *name; /* the ACL's, NULL while unknown (anonymous: "") */
	int line;
	int match;     /* PAT_MATCH_* */
	bool explicit; /* "-m" given */
};

static struct acl_pat_check *pat_checks;

/* The fetches that check their ACL patterns (few: a short table). */
static struct {
	smp_fetch_fn fn;
	acl_pat_check_fn check;
} pat_checkers[4];
static unsigned int nb_pat_checkers;

void acl_register_pat_check(smp_fetch_fn fn, acl_pat_check_fn check)
{
	BUG_ON(nb_pat_checkers >= sizeof(pat_checkers) / sizeof(pat_checkers[0]));
	pat_checkers[nb_pat_checkers].fn = fn;
	pat_checkers[nb_pat_checkers++].check = check;
}

static acl_pat_check_fn acl_pat_checker(const struct sample_fetch *f)
{
	for (unsigned int i = 0; i < nb_pat_checkers; i++)
		if (pat_checkers[i].fn == f->fn)
			return pat_checkers[i].check;
	return NULL;
}

static void acl_pat_check_free(struct acl_pat_check *c)
{
	free(c->file);
	free(c->px);
	free(c->name);
	free(c);
}

static void acl_queue_pat_check(const struct acl_expr *e, const struct smp_parse_ctx *pc, int match,
				bool explicit)
{
	struct acl_pat_check *c = calloc(1, sizeof(*c));

	if (!c || !(c->file = strdup(pc && pc->file ? pc->file : "")) ||
	    !(c->px = strdup(pc && pc->px && pc->px->id ? pc->px->id : ""))) {
		if (c)
			free(c->file);
		free(c); /* out of memory at config time: the check is skipped */
		return;
	}
	c->e = e;
	c->line = pc ? pc->line : 0;
	c->match = match;
	c->explicit = explicit;
	c->next = pat_checks;
	pat_checks = c;
}

/* Names the ACL of <e>'s pending check (its line was just parsed). */
static void acl_pat_check_name(const struct acl_expr *e, const char *name)
{
	for (struct acl_pat_check *c = pat_checks; c; c = c->next)
		if (c->e == e && !c->name)
			c->name = strdup(name ? name : "");
}

/* 2.6's check of one pattern source of <c> (a file, or the line's own patterns): each
 * pattern must pass the fetch's check; a source without patterns in a list ("-m str"
 * and "-m beg" keep theirs in trees there, "-m found" has none) names no group. Returns
 * the errors printed. */
static int acl_check_ref(const struct acl_pat_check *c, const struct map_ref *r)
{
	const struct acl_expr *e = c->e;
	const char *fkw = e->smp->fetch->kw;
	bool listed = !(c->explicit && (c->match == PAT_MATCH_STR || c->match == PAT_MATCH_BEG)) &&
		      c->match != PAT_MATCH_FOUND && c->match != PAT_MATCH_BOOL;
	const char *acl = c->name ? c->name : "";
	int errs = 0, n = 0;
	char err[256];

	for (const struct map_elt *el = listed ? r->head : NULL; el; el = el->next) {
		if (el->gen != r->curr_ver)
			continue;
		n++;
		if (acl_pat_checker(e->smp->fetch)(e->smp->args, ist_str(el->key), err,
						   sizeof(err)) < 0) {
			ha_alert("parsing [%s:%d] : proxy %s: acl %s %s(): invalid group '%s'.\n",
				 c->file, c->line, c->px, acl, fkw, el->key);
			errs++;
		}
	}
	if (!n) {
		ha_alert("parsing [%s:%d] : proxy %s: acl %s %s(): no groups specified.\n", c->file,
			 c->line, c->px, acl, fkw);
		errs++;
	}
	return errs;
}

/* Checks the pattern sources of <c>: its files, then its own patterns, as 2.6 lists them. */
static int acl_check_one(const struct acl_pat_check *c)
{
	const struct map_ref *inl = NULL;
	struct map_ref none = { 0 };
	bool any = false;
	int errs = 0;

	if (c->e->smp->args && c->e->smp->args[0].unresolved)
		return 0;
	for (const struct map_ref *r = map_ref_first(); r; r = r->next) {
		for (int i = 0; i < r->nsets; i++) {
			if (r->sets[i].ps != &c->e->pat)
				continue;
			any = true;
			if (r->path)
				errs += acl_check_ref(c, r);
			else
				inl = r;
		}
	}
	if (inl || !any) /* no source at all: "no groups specified" */
		errs += acl_check_ref(c, inl ? inl : &none);
	return errs;
}

int acl_check_patterns(void)
{
	struct acl_pat_check *rev = NULL;
	int errs = 0;

	while (pat_checks) { /* config order */
		struct acl_pat_check *c = pat_checks;

		pat_checks = c->next;
		c->next = rev;
		rev = c;
	}
	while (rev) {
		struct acl_pat_check *c = rev;

		rev = c->next;
		errs += acl_check_one(c);
		acl_pat_check_free(c);
	}
	return errs;
}

void acl_expr_free(struct acl_expr *e)
{
	if (!e)
		return;
	for (struct acl_pat_check **pc = &pat_checks; *pc;) {
		struct acl_pat_check *c = *pc;

		if (c->e == e) {
			*pc = c->next;
			acl_pat_check_free(c);
		} else {
			pc = &c->next;
		}
	}
	sample_expr_free(e->smp);
	map_ref_detach(&e->pat);
	pat_set_free(&e->pat);
	free((char *)e->kw);
	free(e);
}

/* Output type of an expression: the last converter's, else the fetch's. */
static int expr_out_type(const struct sample_expr *x)
{
	for (int i = x->nconv - 1; i >= 0; i--)
		if (x->conv[i].conv->out_type != SMP_T_ANY)
			return x->conv[i].conv->out_type;
	return x->fetch->out_type;
}

/* Flags between the criterion and the patterns. Returns the index of the first pattern,
 * or -1. Files named by -f are loaded after the method is known: their indexes are kept
 * in <files>. */
#define ACL_F_MAPFILE 0x80 /* -M: the -f files are maps */

struct acl_flags {
	int match;	 /* -m, or -1 */
	unsigned pflags; /* PAT_SET_ICASE */
	int files[16];
	int nfiles;
};

static int acl_parse_flags(char **args, int nargs, int i, struct acl_flags *f, char *err,
			   size_t errsz)
{
	for (; i < nargs && args[i][0] == '-'; i++) {
		const char *w = args[i];

		if (!strcmp(w, "--"))
			return i + 1;
		if (!strcmp(w, "-i")) {
			f->pflags |= PAT_SET_ICASE;
		} else if (!strcmp(w, "-n")) {
			/* no DNS resolution of patterns: this proxy never resolves them */
		} else if (!strcmp(w, "-f")) {
			if (i + 1 >= nargs) {
				snprintf(err, errsz, "missing file name after '-f'");
				return -1;
			}
			if (f->nfiles >= (int)(sizeof(f->files) / sizeof(f->files[0]))) {
				snprintf(err, errsz, "too many '-f' files on one line");
				return -1;
			}
			f->files[f->nfiles++] = ++i;
		} else if (!strcmp(w, "-M")) {
			/* -f files are maps: the key is the first word of each line */
			f->pflags |= ACL_F_MAPFILE;
		} else if (!strcmp(w, "-m")) {
			if (i + 1 >= nargs || (f->match = pat_match_by_name(args[i + 1])) < 0 ||
			    f->match == PAT_MATCH_REGM) {
				if (i + 1 >= nargs)
					snprintf(err, errsz, "missing matching method after '-m'");
				else
					snprintf(err, errsz,
						 "unknown matching method '%s' when "
						 "parsing ACL expression",
						 args[i + 1]);
				return -1;
			}
			i++;
		} else if (!strcmp(w, "-u")) {
			if (i + 1 >= nargs) {
				snprintf(err, errsz, "missing unique id after '-u'");
				return -1;
			}
			i++;
		} else {
			snprintf(err, errsz,
				 "'%s' is not a valid ACL option. Please use '--' "
				 "before any pattern beginning with a '-'",
				 w);
			return -1;
		}
	}
	return i;
}

/* Loads a -f/-M file into the expression's set through the file's reference (shared with
 * other ACLs, and with maps under -M, so that "add acl" reaches all of them). Without a
 * config context (predefined ACLs) the file is read into the set only. */
static int acl_load_file(struct pat_set *ps, const char *path, bool map,
			 const struct smp_parse_ctx *pc, char *err, size_t errsz)
{
	unsigned flags = map ? MAP_REF_F_MAP : MAP_REF_F_ACLFILE;
	struct map_ref *r;
	char desc[1024];

	if (!pc || !pc->file) {
		if (!map)
			return pat_set_load_file(ps, path, err, errsz) < 0 ? -1 : 0;
		return pat_set_load_map_keys(ps, path, err, errsz) < 0 ? -1 : 0;
	}
	r = map_ref_find_path(path, flags);
	if (!r) {
		snprintf(desc, sizeof(desc),
			 "pattern loaded from file '%s' used by acl at file '%s' line %d", path,
			 pc->file, pc->line);
		r = map_ref_load_file(path, flags, desc, err, errsz);
		if (!r)
			return -1;
	}
	r->flags |= MAP_REF_F_ACL;
	return map_ref_attach(r, ps, -1, err, errsz);
}

/* The reference of the inline patterns of an ACL line, NULL without a config context. */
static struct map_ref *acl_inline_ref(const char *kw, const struct smp_parse_ctx *pc, int *fail)
{
	char desc[512];
	struct map_ref *r;

	*fail = 0;
	if (!pc || !pc->file)
		return NULL;
	snprintf(desc, sizeof(desc), "acl '%s' file '%s' line %d", kw, pc->file, pc->line);
	r = map_ref_new(NULL, MAP_REF_F_ACL, desc);
	*fail = !r;
	return r;
}

/* Builds "fetch(args),conv" from a derived keyword: "hdr_beg(host)" -> "hdr(host)". */
static char *acl_criterion_expr(const char *w, const struct acl_kw **kw)
{
	size_t n = strcspn(w, "(,");
	char *s;

	*kw = acl_find_kw(w, n);
	if (!*kw)
		return strdup(w);
	s = malloc(strlen((*kw)->fetch) + strlen(w + n) + 1);
	if (s)
		sprintf(s, "%s%s", (*kw)->fetch, w + n);
	return s;
}

struct acl_expr *acl_parse_expr(char **args, int nargs, const struct smp_parse_ctx *pc, char *err,
				size_t errsz)
{
	struct acl_flags f = { .match = -1 };
	const struct acl_kw *kw;
	struct map_ref *ref;
	struct acl_expr *e;
	int rfail;
	char *text;
	int i, op = PAT_OP_NONE, match;

	if (nargs < 1) {
		snprintf(err, errsz, "missing ACL criterion");
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	text = acl_criterion_expr(args[0], &kw);
	if (!e || !text || !(e->kw = strdup(args[0]))) {
		snprintf(err, errsz, "out of memory");
		goto fail;
	}
	pat_set_init(&e->pat, PAT_MATCH_STR, 0);
	e->smp = sample_parse_expr(text, NULL, pc, err, errsz);
	if (!e->smp)
		goto fail;
	i = acl_parse_flags(args, nargs, 1, &f, err, errsz);
	if (i < 0)
		goto fail;
	match = f.match >= 0 ? f.match : kw ? kw->match : acl_default_match(expr_out_type(e->smp));
	pat_set_init(&e->pat, match,
		     (f.pflags & PAT_SET_ICASE) | (f.match < 0 && kw ? kw->pflags : 0));
	if (pat_match_type(match) != SMP_T_ANY &&
	    !sample_can_cast(expr_out_type(e->smp), pat_match_type(match))) {
		snprintf(err, errsz, "match method '%s' cannot compare a sample of type '%s'",
			 pat_match_name(match), smp_type_name(expr_out_type(e->smp)));
		goto fail;
	}
	for (int k = 0; k < f.nfiles; k++)
		if (acl_load_file(&e->pat, args[f.files[k]], f.pflags & ACL_F_MAPFILE, pc, err,
				  errsz) < 0)
			goto fail;
	ref = acl_inline_ref(args[0], pc, &rfail);
	if (rfail) {
		snprintf(err, errsz, "out of memory");
		goto fail;
	}
	for (; i < nargs; i++) {
		int word_op = PAT_OP_NONE;

		if ((match == PAT_MATCH_INT || match == PAT_MATCH_LEN) &&
		    (word_op = pat_int_op_by_name(args[i])) != PAT_OP_NONE) {
			op = word_op;
			if (i + 1 >= nargs) {
				snprintf(err, errsz, "missing value after operator '%s'", args[i]);
				goto fail;
			}
			continue;
		}
		if (ref && !map_ref_append(ref, args[i], NULL, op, 0)) {
			snprintf(err, errsz, "out of memory");
			goto fail;
		}
		if (!ref && pat_set_add(&e->pat, args[i], op, NULL, err, errsz) < 0)
			goto fail;
	}
	if (ref && map_ref_attach(ref, &e->pat, -1, err, errsz) < 0)
		goto fail;
	if (acl_pat_checker(e->smp->fetch))
		acl_queue_pat_check(e, pc, match, f.match >= 0);
	free(text);
	return e;
fail:
	free(text);
	acl_expr_free(e);
	return NULL;
}

static struct acl *acl_find(struct list *acls, const char *name)
{
	struct acl *a;

	if (!acls)
		return NULL;
	list_for_each_entry(a, acls, list) if (a->name && !strcmp(a->name, name)) return a;
	return NULL;
}

static void acl_free(struct acl *a)
{
	struct acl_expr *e, *n;

	for (e = a->exprs; e; e = n) {
		n = e->next;
		acl_expr_free(e);
	}
	free(a->name);
	free(a);
}

static struct acl *acl_new(const char *name)
{
	struct acl *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	if (name && !(a->name = strdup(name))) {
		free(a);
		return NULL;
	}
	a->tail = &a->exprs;
	list_init(&a->list);
	return a;
}

static void acl_append(struct acl *a, struct acl_expr *e)
{
	*a->tail = e;
	a->tail = &e->next;
	a->use |= e->smp->fetch->use;
}

int acl_add_line(struct list *acls, const char *name, char **args, int nargs,
		 const struct smp_parse_ctx *pc, char *err, size_t errsz)
{
	struct acl *a = acl_find(acls, name);
	struct acl_expr *e = acl_parse_expr(args, nargs, pc, err, errsz);

	if (!e)
		return -1;
	acl_pat_check_name(e, name);
	if (!a) {
		a = acl_new(name);
		if (!a) {
			acl_expr_free(e);
			snprintf(err, errsz, "out of memory");
			return -1;
		}
		list_append(acls, &a->list);
	}
	acl_append(a, e);
	return 0;
}

void acl_free_list(struct list *acls)
{
	struct acl *a, *n;

	list_for_each_entry_safe(a, n, acls, list)
	{
		list_delete(&a->list);
		acl_free(a);
	}
}

/* ---- predefined ACLs ---- */

struct acl_predef {
	const char *name;
	const char *words[6];
};

static const struct acl_predef acl_predefs[] = {
	{ "FALSE", { "always_false" } },
	{ "HTTP", { "req.proto_http" } },
	{ "HTTP_1.0", { "req.ver", "1.0" } },
	{ "HTTP_1.1", { "req.ver", "1.1" } },
	{ "HTTP_2.0", { "req.ver", "2.0" } },
	{ "HTTP_3.0", { "req.ver", "3.0" } },
	{ "HTTP_CONTENT", { "req.hdr_val(content-length)", "gt", "0" } },
	{ "HTTP_URL_ABS", { "url_reg", "^[^/:]*://" } },
	{ "HTTP_URL_SLASH", { "url_beg", "/" } },
	{ "HTTP_URL_STAR", { "url", "*" } },
	{ "LOCALHOST", { "src", "127.0.0.1/8", "::1" } },
	{ "METH_CONNECT", { "method", "CONNECT" } },
	{ "METH_DELETE", { "method", "DELETE" } },
	{ "METH_GET", { "method", "GET", "HEAD" } },
	{ "METH_HEAD", { "method", "HEAD" } },
	{ "METH_OPTIONS", { "method", "OPTIONS" } },
	{ "METH_POST", { "method", "POST" } },
	{ "METH_PUT", { "method", "PUT" } },
	{ "METH_TRACE", { "method", "TRACE" } },
	{ "RDP_COOKIE", { "req.rdp_cookie_cnt", "gt", "0" } },
	{ "REQ_CONTENT", { "req.len", "gt", "0" } },
	{ "TRUE", { "always_true" } },
	{ "WAIT_END", { "wait_end" } },
};

#define NB_PREDEF (sizeof(acl_predefs) / sizeof(acl_predefs[0]))
static struct acl *predef_acls[NB_PREDEF];

static struct acl *acl_predef(const char *name, char *err, size_t errsz)
{
	for (size_t i = 0; i < NB_PREDEF; i++) {
		const struct acl_predef *p = &acl_predefs[i];
		char *words[6];
		struct acl_expr *e;
		int n = 0;

		if (strcmp(p->name, name))
			continue;
		if (predef_acls[i])
			return predef_acls[i];
		while (n < 6 && p->words[n]) {
			words[n] = (char *)p->words[n];
			n++;
		}
		e = acl_parse_expr(words, n, NULL, err, errsz);
		if (!e)
			return NULL;
		predef_acls[i] = acl_new(p->name);
		if (!predef_acls[i]) {
			acl_expr_free(e);
			return NULL;
		}
		acl_append(predef_acls[i], e);
		return predef_acls[i];
	}
	return NULL;
}

void acl_deinit(void)
{
	while (pat_checks) {
		struct acl_pat_check *c = pat_checks;

		pat_checks = c->next;
		acl_pat_check_free(c);
	}
	for (size_t i = 0; i < NB_PREDEF; i++) {
		if (predef_acls[i])
			acl_free(predef_acls[i]);
		predef_acls[i] = NULL;
	}
}

/* ---- conditions ---- */

void acl_cond_free(struct acl_cond *c)
{
	struct acl_suite *s, *n;

	if (!c)
		return;
	for (s = c->suites; s; s = n) {
		n = s->next;
		for (int i = 0; i < s->nterms; i++)
			if (!s->terms[i].acl->name) /* anonymous: owned by the term */
				acl_free(s->terms[i].acl);
		free(s);
	}
	free(c->file);
	free(c);
}

static struct acl_suite *suite_add_term(struct acl_suite *s, struct acl *a, bool neg)
{
	int n = s ? s->nterms : 0;
	struct acl_suite *ns = realloc(s, sizeof(*s) + (size_t)(n + 1) * sizeof(s->terms[0]));

	if (!ns)
		return NULL;
	if (!s) {
		ns->next = NULL;
		ns->nterms = 0;
	}
	ns->terms[ns->nterms].acl = a;
	ns->terms[ns->nterms].neg = neg;
	ns->nterms++;
	return ns;
}

/* Parses an anonymous "{ ... }" ACL starting at args[*i] == "{". */
static struct acl *acl_parse_anon(char **args, int nargs, int *i, const struct smp_parse_ctx *pc,
				  char *err, size_t errsz)
{
	int start = *i + 1, end = start;
	struct smp_parse_ctx epc;
	struct acl_expr *e;
	struct acl *a;

	while (end < nargs && strcmp(args[end], "}"))
		end++;
	if (end >= nargs) {
		snprintf(err, errsz, "missing '}' after the anonymous ACL");
		return NULL;
	}
	/* where the fetches may run is checked for the whole ACL (a warning), not here */
	if (pc) {
		epc = *pc;
		epc.where = 0;
	}
	e = acl_parse_expr(args + start, end - start, pc ? &epc : NULL, err, errsz);
	if (!e)
		return NULL;
	a = acl_new(NULL);
	if (!a) {
		acl_expr_free(e);
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	acl_append(a, e);
	*i = end;
	return a;
}

/* Appends the finished suite <s> to <c>. */
static void cond_end_suite(struct acl_cond *c, struct acl_suite ***tail, struct acl_suite *s)
{
	**tail = s;
	*tail = &s->next;
}

/* "frontend http-request header rule", as HAProxy names where a rule runs. */
static void rule_place(const struct smp_parse_ctx *pc, char *buf, size_t sz)
{
	const char *set = pc->where_name ? pc->where_name : "";

	snprintf(buf, sz, "%s %s%s", pc->px ? proxy_type_str(pc->px) : "proxy", set,
		 !strncmp(set, "http-", 5) ? " header rule" : " rule");
}

/* HAProxy warns (and the condition never holds) when an ACL needs information that does
 * not exist where the rule runs. */
static void cond_check_use(const struct acl *a, const struct smp_parse_ctx *pc)
{
	const struct acl_expr *bad = NULL;
	char why[128], place[128];
	int nbad = 0, n = 0;

	if (!pc || !pc->where || sample_check_use(a->use, pc->where, why, sizeof(why)) == 0)
		return;
	for (const struct acl_expr *e = a->exprs; e; e = e->next, n++) {
		if (sample_check_use(e->smp->fetch->use, pc->where, why, sizeof(why)) == 0)
			continue;
		if (!bad)
			bad = e;
		nbad++;
	}
	if (!bad)
		return;
	rule_place(pc, place, sizeof(place));
	if (!a->name)
		ha_warning("parsing [%s:%d] : anonymous acl will never match because it uses "
			   "keyword '%s' which is incompatible with '%s'\n",
			   pc->file, pc->line, bad->smp->fetch->kw, place);
	else if (nbad == n)
		ha_warning("parsing [%s:%d] : acl '%s' will never match because it only involves "
			   "keywords that are incompatible with '%s'\n",
			   pc->file, pc->line, a->name, place);
	else
		ha_warning("parsing [%s:%d] : acl '%s' involves keyword '%s' which is incompatible "
			   "with '%s'\n",
			   pc->file, pc->line, a->name, bad->smp->fetch->kw, place);
}

struct acl_cond *acl_cond_parse(char **args, int nargs, struct list *acls,
				const struct smp_parse_ctx *pc, char *err, size_t errsz)
{
	struct acl_cond *c = calloc(1, sizeof(*c));
	struct acl_suite *s = NULL, **tail;
	bool neg = false;
	int i;

	if (!c) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	tail = &c->suites;
	c->pol = !strcmp(args[0], "unless") ? ACL_COND_UNLESS : ACL_COND_IF;
	c->line = pc ? pc->line : 0;
	if (pc && pc->file && !(c->file = strdup(pc->file)))
		goto oom;
	if (nargs < 2) {
		snprintf(err, errsz, "missing condition after '%s'", args[0]);
		goto fail;
	}
	for (i = 1; i < nargs; i++) {
		const char *w = args[i];
		struct acl *a;
		struct acl_suite *ns;

		if (!strcmp(w, "||") || !strcmp(w, "or")) {
			if (!s || neg) {
				snprintf(err, errsz, "'%s' must follow an ACL", w);
				goto fail;
			}
			cond_end_suite(c, &tail, s);
			s = NULL;
			continue;
		}
		while (*w == '!') {
			neg = !neg;
			w++;
		}
		if (!*w)
			continue;
		if (!strcmp(w, "{")) {
			a = acl_parse_anon(args, nargs, &i, pc, err, errsz);
			if (!a)
				goto fail;
		} else {
			a = acl_find(acls, w);
			if (!a) {
				err[0] = 0;
				a = acl_predef(w, err, errsz);
			}
			if (!a) {
				if (!err[0]) /* else a predefined ACL that could not be built says
						why */
					snprintf(err, errsz, "no such ACL : '%s'", w);
				goto fail;
			}
		}
		cond_check_use(a, pc);
		ns = suite_add_term(s, a, neg);
		if (!ns) {
			if (!a->name)
				acl_free(a);
			goto oom;
		}
		s = ns;
		c->use |= a->use;
		neg = false;
	}
	if (!s) {
		snprintf(err, errsz, "condition ends after '%s'", args[nargs - 1]);
		goto fail;
	}
	cond_end_suite(c, &tail, s);
	return c;
oom:
	snprintf(err, errsz, "out of memory");
fail:
	if (s)
		cond_end_suite(c, &tail, s);
	acl_cond_free(c);
	return NULL;
}

/* ---- evaluation ---- */

static enum acl_test_res acl_expr_exec(const struct acl_expr *e, const struct smp_ctx *ctx)
{
	struct sample smp;

	smp.ctx = ctx;
	smp.flags = SMP_F_ITER;
	smp.it = smp.it2 = 0;
	while (1) {
		if (!sample_process(e->smp, &smp)) {
			if ((smp.flags & SMP_F_MAY_CHANGE) && !(ctx->opt & SMP_OPT_FINAL))
				return ACL_TEST_MISS;
			return ACL_TEST_FAIL;
		}
		if (pat_match(&e->pat, &smp))
			return ACL_TEST_PASS;
		if (!(smp.flags & SMP_F_NOT_LAST)) {
			/* no match yet on data that may still grow (req.len...): ask again */
			if ((smp.flags & SMP_F_MAY_CHANGE) && !(ctx->opt & SMP_OPT_FINAL))
				return ACL_TEST_MISS;
			return ACL_TEST_FAIL;
		}
		smp.flags = SMP_F_ITER;
	}
}

static enum acl_test_res acl_exec(const struct acl *a, const struct smp_ctx *ctx)
{
	enum acl_test_res res = ACL_TEST_FAIL;

	for (const struct acl_expr *e = a->exprs; e; e = e->next) {
		enum acl_test_res r = acl_expr_exec(e, ctx);

		if (r == ACL_TEST_PASS)
			return r;
		if (r == ACL_TEST_MISS)
			res = ACL_TEST_MISS;
	}
	return res;
}

static enum acl_test_res acl_neg(enum acl_test_res r)
{
	return r == ACL_TEST_MISS ? r : r == ACL_TEST_PASS ? ACL_TEST_FAIL : ACL_TEST_PASS;
}

enum acl_test_res acl_cond_exec(const struct acl_cond *c, const struct smp_ctx *ctx)
{
	enum acl_test_res res = ACL_TEST_FAIL;

	for (const struct acl_suite *s = c->suites; s; s = s->next) {
		enum acl_test_res sr = ACL_TEST_PASS;

		for (int i = 0; i < s->nterms; i++) {
			enum acl_test_res r = acl_exec(s->terms[i].acl, ctx);

			if (s->terms[i].neg)
				r = acl_neg(r);
			if (r == ACL_TEST_FAIL) {
				sr = ACL_TEST_FAIL;
				break;
			}
			if (r == ACL_TEST_MISS)
				sr = ACL_TEST_MISS;
		}
		if (sr == ACL_TEST_PASS) {
			res = ACL_TEST_PASS;
			break;
		}
		if (sr == ACL_TEST_MISS)
			res = ACL_TEST_MISS;
	}
	return c->pol == ACL_COND_UNLESS ? acl_neg(res) : res;
}
