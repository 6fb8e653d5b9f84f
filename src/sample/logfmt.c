/* Log-format strings: compilation of "text %[expr] %{+Q}var %%" into nodes, and their
 * rendering. As HAProxy 2.6 does, a missing sample renders as nothing (or "-" where the
 * caller asks for mandatory values, in log lines), "+E" escapes '"', '\\' and ']' in
 * sample text, and "+Q"/"+X" apply to variables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfg/cfg.h>
#include <sample/logfmt.h>
#include <sample/sample.h>

static struct lf_tag_list *tag_lists;

void lf_register_tags(struct lf_tag_list *tl)
{
	tl->next = tag_lists;
	tag_lists = tl;
}

static const struct lf_tag *lf_find_tag(const char *s, size_t len)
{
	for (const struct lf_tag_list *l = tag_lists; l; l = l->next)
		for (const struct lf_tag *t = l->tags; t->name; t++)
			if (strlen(t->name) == len && !memcmp(t->name, s, len))
				return t;
	return NULL;
}

void lf_free(struct lf_expr *lf)
{
	for (int i = 0; i < lf->nb; i++) {
		free((char *)lf->nodes[i].text.ptr);
		sample_expr_free(lf->nodes[i].expr);
	}
	free(lf->nodes);
	lf->nodes = NULL;
	lf->nb = 0;
	lf->use = 0;
}

static int lf_fail(struct lf_expr *lf)
{
	lf_free(lf);
	return -1;
}

static struct lf_node *lf_add(struct lf_expr *lf, int type, char *err, size_t errsz)
{
	struct lf_node *n = realloc(lf->nodes, (size_t)(lf->nb + 1) * sizeof(*n));

	if (!n) {
		snprintf(err, errsz, "out of memory");
		return NULL;
	}
	lf->nodes = n;
	n = &n[lf->nb++];
	memset(n, 0, sizeof(*n));
	n->type = (uint8_t)type;
	return n;
}

/* Appends literal text, merging with a previous literal. */
static int lf_add_text(struct lf_expr *lf, const char *s, size_t len, char *err, size_t errsz)
{
	struct lf_node *n = lf->nb ? &lf->nodes[lf->nb - 1] : NULL;
	char *t;

	if (!len)
		return 0;
	if (!n || n->type != LF_TEXT) {
		n = lf_add(lf, LF_TEXT, err, errsz);
		if (!n)
			return -1;
	}
	t = realloc((char *)n->text.ptr, n->text.len + len + 1);
	if (!t) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	memcpy(t + n->text.len, s, len);
	t[n->text.len + len] = 0;
	n->text = ist2(t, n->text.len + len);
	return 0;
}

/* Parses "{+Q,-X,...}" at *p (after '%'); updates *flags. */
static int lf_parse_flags(const char **p, uint8_t *flags, char *err, size_t errsz)
{
	const char *s = *p + 1, *end = strchr(s, '}');

	if (!end) {
		snprintf(err, errsz, "missing '}' after '%%{'");
		return -1;
	}
	while (s < end) {
		size_t n = strcspn(s, ",}");
		uint8_t f = 0;

		if (n == 2 && (s[0] == '+' || s[0] == '-')) {
			f = s[1] == 'Q'	  ? LF_F_QUOTE
			    : s[1] == 'X' ? LF_F_HEX
			    : s[1] == 'E' ? LF_F_ESC
					  : 0;
		}
		if (!f) {
			snprintf(err, errsz, "unknown log-format flag '%.*s'", (int)n, s);
			return -1;
		}
		if (s[0] == '+')
			*flags |= f;
		else
			*flags &= (uint8_t)~f;
		s += n + (s[n] == ',');
	}
	*p = end + 1;
	return 0;
}

/* As HAProxy 2.6, a format of an http-* rule using a raw-byte fetch gets a startup warning
 * quoting the rest of the format from the fetch on (in any mode). */
static void lf_warn_l6(const struct sample_expr *e, const char *text,
		       const struct smp_parse_ctx *pc)
{
	if (pc && pc->where_name && !strncmp(pc->where_name, "http-", 5) &&
	    (e->fetch->use & (SMP_USE_L6REQ | SMP_USE_L6RES)))
		ha_warning("parsing [%s:%d] : L6 sample fetch <%s> ignored in HTTP log-format "
			   "string.\n",
			   pc->file, pc->line, text);
}

static int lf_parse_var(struct lf_expr *lf, const char **p, uint8_t flags,
			const struct smp_parse_ctx *pc, char *err, size_t errsz)
{
	const char *s = *p;
	const struct lf_tag *tag;
	struct lf_node *n;
	size_t len = 0;

	if (*s == '[') {
		const char *end = NULL;
		struct sample_expr *e = sample_parse_expr(s + 1, &end, pc, err, errsz);

		if (!e)
			return -1;
		n = lf_add(lf, LF_EXPR, err, errsz);
		if (!n) {
			sample_expr_free(e);
			return -1;
		}
		n->expr = e;
		n->flags = flags;
		lf->use |= e->fetch->use;
		lf_warn_l6(e, s + 1, pc);
		*p = end + 1;
		return 0;
	}
	while ((s[len] >= 'a' && s[len] <= 'z') || (s[len] >= 'A' && s[len] <= 'Z'))
		len++;
	if (!len) {
		snprintf(err, errsz,
			 "unexpected character '%c' after '%%'. If you wanted to emit "
			 "the '%%' character verbatim, you need to use '%%%%'",
			 *s ? *s : ' ');
		return -1;
	}
	tag = lf_find_tag(s, len);
	if (!tag) {
		snprintf(err, errsz,
			 "no such format variable '%.*s'. If you wanted to emit the "
			 "'%%' character verbatim, you need to use '%%%%'",
			 (int)len, s);
		return -1;
	}
	n = lf_add(lf, LF_TAG, err, errsz);
	if (!n)
		return -1;
	n->tag = tag;
	n->flags = flags;
	lf->use |= tag->use;
	*p = s + len;
	if (tag->expr) {
		/* a log variable is valid everywhere: it renders nothing where its data
		 * does not exist, as in HAProxy */
		struct smp_parse_ctx tpc = { pc ? pc->file : NULL, pc ? pc->line : 0,
					     pc ? pc->px : NULL, 0, NULL };

		n->expr = sample_parse_expr(tag->expr, NULL, &tpc, err, errsz);
		if (!n->expr)
			return -1;
	}
	return 0;
}

int lf_compile(struct lf_expr *lf, const char *str, const struct smp_parse_ctx *pc, char *err,
	       size_t errsz)
{
	const char *p = str;
	uint8_t dflt = 0; /* "%{...}o": the flags every following variable starts from */

	memset(lf, 0, sizeof(*lf));
	while (*p) {
		const char *pct = strchr(p, '%');
		uint8_t flags = dflt;

		if (!pct)
			return lf_add_text(lf, p, strlen(p), err, errsz) < 0 ? lf_fail(lf) : 0;
		if (lf_add_text(lf, p, (size_t)(pct - p), err, errsz) < 0)
			return lf_fail(lf);
		p = pct + 1;
		if (*p == '%') {
			if (lf_add_text(lf, "%", 1, err, errsz) < 0)
				return lf_fail(lf);
			p++;
			continue;
		}
		if (*p == '{' && lf_parse_flags(&p, &flags, err, errsz) < 0)
			return lf_fail(lf);
		if (p[0] == 'o' && !((p[1] | 0x20) >= 'a' && (p[1] | 0x20) <= 'z')) {
			dflt = flags; /* %o itself writes nothing */
			p++;
			continue;
		}
		if (lf_parse_var(lf, &p, flags, pc, err, errsz) < 0)
			return lf_fail(lf);
	}
	return 0;
}

bool lf_is_const(const struct lf_expr *lf)
{
	return lf->nb == 0 || (lf->nb == 1 && lf->nodes[0].type == LF_TEXT);
}

struct ist lf_text(const struct lf_expr *lf)
{
	return lf->nb ? lf->nodes[0].text : ist2("", 0);
}

/* lf_put() modes */
#define LF_PUT_RAW 0	/* literal text of the format */
#define LF_PUT_SAMPLE 1 /* a sample: control bytes become %XX, as HAProxy writes them */
#define LF_PUT_ESC 2	/* a sample under "+E": '"', '\\' and ']' are backslashed too */

static int lf_putc(char *out, size_t outsz, size_t *o, char c)
{
	if (*o >= outsz)
		return -1;
	out[(*o)++] = c;
	return 0;
}

/* Copies <s> into out[*o..outsz) per <mode>. A sample never carries a line break or
 * another control byte (TAB excepted) into the output: HAProxy writes them "%0A", which
 * also keeps a rendered header value on its line. */
static int lf_put(char *out, size_t outsz, size_t *o, struct ist s, int mode)
{
	static const char hex[] = "0123456789ABCDEF";

	if (mode == LF_PUT_RAW) {
		if (s.len > outsz - *o)
			return -1;
		memcpy(out + *o, s.ptr, s.len);
		*o += s.len;
		return 0;
	}
	for (size_t i = 0; i < s.len; i++) {
		unsigned char c = (unsigned char)s.ptr[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			if (lf_putc(out, outsz, o, '%') < 0 ||
			    lf_putc(out, outsz, o, hex[c >> 4]) < 0 ||
			    lf_putc(out, outsz, o, hex[c & 15]) < 0)
				return -1;
			continue;
		}
		if (mode == LF_PUT_ESC && (c == '"' || c == '\\' || c == ']') &&
		    lf_putc(out, outsz, o, '\\') < 0)
			return -1;
		if (lf_putc(out, outsz, o, (char)c) < 0)
			return -1;
	}
	return 0;
}

static int lf_render_expr(const struct lf_node *n, const struct smp_ctx *ctx, char *out,
			  size_t outsz, size_t *o)
{
	struct sample smp = { .ctx = ctx };

	if (!sample_process(n->expr, &smp) || !sample_cast(&smp, SMP_T_STR)) {
		if (!(n->flags & LF_F_MANDATORY))
			return 0;
		return lf_put(out, outsz, o, IST("-"), LF_PUT_RAW);
	}
	return lf_put(out, outsz, o, smp.data.u.str,
		      (n->flags & LF_F_ESC) ? LF_PUT_ESC : LF_PUT_SAMPLE);
}

/* An expression tag: "%[expr]" with the tag's prefix, "missing" text, and "+X" for
 * integers. Returns the length written at out, or -1. */
static int lf_tag_expr(const struct lf_node *n, const struct smp_ctx *ctx, char *out, size_t outsz)
{
	const struct lf_tag *t = n->tag;
	struct sample smp = { .ctx = ctx };
	size_t o = 0;

	if (!sample_process(n->expr, &smp)) {
		if (!t->missing)
			return 0;
		return lf_put(out, outsz, &o, ist_str(t->missing), LF_PUT_RAW) < 0 ? -1 : (int)o;
	}
	if ((n->flags & LF_F_HEX) && (smp.data.type == SMP_T_SINT || smp.data.type == SMP_T_BOOL)) {
		int w = snprintf(out, outsz, "%llX", (unsigned long long)smp.data.u.sint);

		return w < 0 || (size_t)w >= outsz ? -1 : w;
	}
	if (!sample_cast(&smp, SMP_T_STR))
		return 0;
	if (t->prefix && smp.data.u.str.len &&
	    lf_put(out, outsz, &o, ist_str(t->prefix), LF_PUT_RAW) < 0)
		return -1;
	if (lf_put(out, outsz, &o, smp.data.u.str,
		   (n->flags & LF_F_ESC) ? LF_PUT_ESC : LF_PUT_SAMPLE) < 0)
		return -1;
	return (int)o;
}

static int lf_render_tag(const struct lf_node *n, const struct smp_ctx *ctx, char *out,
			 size_t outsz, size_t *o)
{
	size_t start = *o;
	bool q = n->flags & LF_F_QUOTE;
	int len;

	if (q) {
		if (*o >= outsz)
			return -1;
		out[(*o)++] = '"';
	}
	if (n->expr)
		len = lf_tag_expr(n, ctx, out + *o, outsz - *o);
	else
		len = n->tag->render(out + *o, outsz - *o, ctx, n->flags);
	if (len < 0)
		return -1;
	*o += (size_t)len;
	if (!len && (n->flags & LF_F_MANDATORY)) {
		*o = start;
		return lf_put(out, outsz, o, IST("-"), LF_PUT_RAW);
	}
	if (q) {
		if (*o >= outsz)
			return -1;
		out[(*o)++] = '"';
	}
	return 0;
}

int lf_render(const struct lf_expr *lf, const struct smp_ctx *ctx, char *out, size_t outsz)
{
	size_t o = 0;
	int rc = 0;

	for (int i = 0; i < lf->nb && rc == 0; i++) {
		const struct lf_node *n = &lf->nodes[i];

		if (n->type == LF_TEXT)
			rc = lf_put(out, outsz, &o, n->text, LF_PUT_RAW);
		else if (n->type == LF_EXPR)
			rc = lf_render_expr(n, ctx, out, outsz, &o);
		else
			rc = lf_render_tag(n, ctx, out, outsz, &o);
	}
	return rc < 0 ? -1 : (int)o;
}
