/* replace-header and replace-value: every occurrence of a header whose value (whole, or
 * each comma-separated element for replace-value, quoted strings kept whole) matches the
 * regex gets that value replaced by the format, rendered then expanded with the match's
 * \N references. The separators between elements are kept as they were.
 */
#include <stdio.h>
#include <string.h>

#include <sample/logfmt.h>
#include <sample/regex.h>
#include <sample/sample.h>
#include <stream/action.h>
#include <stream/http_rw.h>
#include <stream/stream.h>

/* The end of the element of a comma-separated value starting at <p>: the next ',' outside
 * a quoted string, or <e>. */
static const char *elem_end(const char *p, const char *e)
{
	bool quoted = false;

	for (; p < e; p++) {
		if (quoted && *p == '\\' && p + 1 < e)
			p++;
		else if (*p == '"')
			quoted = !quoted;
		else if (!quoted && *p == ',')
			return p;
	}
	return e;
}

/* Appends the expansion of <fmt> for the match <rm> of <subject>; false when it does not
 * fit. */
static bool put_expand(struct rw_build *b, const char *fmt, const char *subject,
		       const struct regex_match *rm)
{
	int n;

	if (!b->ok)
		return false;
	n = regex_expand(b->p + b->len, b->room - b->len, fmt, subject, rm, REGEX_MAX_MATCH);
	if (n < 0)
		return b->ok = false;
	b->len += (size_t)n;
	return true;
}

/* Rewrites value <v> element by element into <b>; *hit tells whether one matched. */
static void replace_elems(const struct regex *re, struct ist v, const char *fmt, struct rw_build *b,
			  bool *hit)
{
	const char *p = v.ptr, *e = v.ptr + v.len;

	while (p <= e) {
		const char *end = elem_end(p, e), *s = p, *t = end;
		struct regex_match rm[REGEX_MAX_MATCH];

		while (s < t && (*s == ' ' || *s == '\t'))
			s++;
		while (t > s && (t[-1] == ' ' || t[-1] == '\t'))
			t--;
		if (regex_exec_match(re, s, (size_t)(t - s), rm, REGEX_MAX_MATCH)) {
			/* a replaced element loses the blanks around it, as in HAProxy */
			*hit = true;
			put_expand(b, fmt, s, rm);
		} else {
			rwb_put(b, ist2(p, (size_t)(end - p)));
		}
		if (end >= e)
			break;
		rwb_put(b, IST(","));
		p = end + 1;
	}
}

/* Replaces the values (or value elements) of the headers <name> of <m> that <re> matches
 * with <fmt> expanded; <fmt> is NULL until the first match, then <get_fmt> gives it.
 * 0, or -1 when a value cannot be built. */
static int replace_hdr(struct stream *s, struct h1_msg *m, struct ist name, const struct regex *re,
		       bool value_mode, const char *(*get_fmt)(void *arg), void *arg)
{
	const char *fmt = NULL;

	for (uint16_t i = 0; i < m->nhdr; i++) {
		struct h1_hdr *h = &m->hdr[i];
		struct regex_match rm[REGEX_MAX_MATCH];
		struct rw_build b;
		struct ist out;
		bool hit = false;

		if (h->skip || !ist_ieq(h->n, name))
			continue;
		if (!value_mode && !regex_exec_match(re, h->v.ptr, h->v.len, rm, REGEX_MAX_MATCH))
			continue;
		if (!fmt && !(fmt = get_fmt(arg))) /* once, at the first header that may change */
			return -1;
		rwb_begin(&b, s);
		if (value_mode) {
			replace_elems(re, h->v, fmt, &b, &hit);
			if (!hit)
				continue;
		} else {
			put_expand(&b, fmt, h->v.ptr, rm);
		}
		if (!b.ok || !http_value_is_safe(rwb_tail(&b, 0)) || !rwb_end(&b, s, &out))
			return -1;
		h->v = out;
		h->folded = 0;
	}
	return 0;
}

struct rule_fmt {
	struct act_rule *r;
	struct proxy *px;
	struct stream *s;
	int from;
};

/* The rule's format rendered into a scratch chunk, NUL-terminated. */
static const char *rule_fmt(void *arg)
{
	struct rule_fmt *rf = arg;
	struct smp_ctx ctx;
	char *fmt = smp_trash();
	int n;

	act_smp_ctx(&ctx, rf->s, rf->px, rf->from);
	n = fmt ? lf_render(&rf->r->arg.hdr.fmt, &ctx, fmt, smp_trash_size() - 1) : -1;
	if (n < 0)
		return NULL;
	fmt[n] = 0;
	return fmt;
}

static enum act_return act_replace_hdr(struct act_rule *r, struct proxy *px, struct stream *s,
				       int from)
{
	struct rule_fmt rf = { r, px, s, from };

	return replace_hdr(s, act_msg(s, from), r->arg.hdr.name, r->arg.hdr.re, r->arg.hdr.match,
			   rule_fmt, &rf) < 0
		       ? ACT_RET_ERR
		       : ACT_RET_CONT;
}

static const char *lit_fmt(void *arg)
{
	return arg;
}

int http_hdr_replace(struct stream *s, struct h1_msg *m, struct ist name, const struct regex *re,
		     const char *repl, bool value_mode)
{
	return replace_hdr(s, m, name, re, value_mode, lit_fmt, (void *)repl);
}

static void act_replace_hdr_release(struct act_rule *r)
{
	free((char *)r->arg.hdr.name.ptr);
	lf_free(&r->arg.hdr.fmt);
	regex_free(r->arg.hdr.re);
}

/* replace-header|replace-value NAME REGEX FMT */
static int parse_replace_hdr(char **args, int *pos, int nargs, const struct act_parse *ap,
			     struct act_rule *r, char *err, size_t errsz)
{
	const char *name = act_next_word(args, pos, nargs);
	const char *re = name ? act_next_word(args, pos, nargs) : NULL;
	const char *fmt = re ? act_next_word(args, pos, nargs) : NULL;
	char rerr[256];

	if (!fmt || act_next_word(args, pos, nargs)) {
		snprintf(err, errsz, "expects exactly 3 arguments");
		return -1;
	}
	r->action = act_replace_hdr;
	r->release = act_replace_hdr_release;
	r->flags |= ACT_FL_REWRITE;
	r->arg.hdr.match = !strcmp(r->kw, "replace-value");
	if (act_check_hdr_name(name, false, err, errsz) < 0 ||
	    act_set_name(&r->arg.hdr.name, name, err, errsz) < 0)
		return -1;
	r->arg.hdr.re = regex_comp(re, 0, rerr, sizeof(rerr));
	if (!r->arg.hdr.re) {
		snprintf(err, errsz, "regex '%s' is invalid (%s)", re, rerr);
		return -1;
	}
	if (regex_subst_check(fmt)) {
		snprintf(err, errsz, "invalid escape sequence in replacement '%s'", fmt);
		return -1;
	}
	return act_parse_fmt(&r->arg.hdr.fmt, fmt, ap, err, errsz);
}

static const struct action_kw http_act_hdr_kws[] = {
	{ "replace-header", ACT_F_HTTP_ANY, 0, parse_replace_hdr },
	{ "replace-value", ACT_F_HTTP_ANY, 0, parse_replace_hdr },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(http_act_hdr_kws);
