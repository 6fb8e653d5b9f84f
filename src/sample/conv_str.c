/* Converters on strings and bytes: lower, upper, length, bytes, ltrim, rtrim, cut_crlf,
 * regsub, concat, add_item, strcmp, secure_memcmp, host_only, port_only and language.
 * Results are views into the input or written into a scratch chunk (smp_trash());
 * nothing is allocated at run time. Encoders, time formats and JSON are in conv_codec.c,
 * hashes in conv_hash.c.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/compiler.h>
#include <sample/arg.h>
#include <sample/conv.h>
#include <sample/regex.h>
#include <sample/sample.h>
#include <sample/vars.h>

/* ---- case, length, slices ---- */

static int conv_case(const struct arg *args, struct sample *smp, void *private)
{
	bool upper = CONV_PRIV_INT(private);
	char *p;

	if (!smp_make_rw(smp))
		return 0;
	p = (char *)smp->data.u.str.ptr;
	for (size_t i = 0; i < smp->data.u.str.len; i++)
		p[i] = (char)(upper ? toupper((unsigned char)p[i]) : tolower((unsigned char)p[i]));
	return 1;
}

static int conv_length(const struct arg *args, struct sample *smp, void *private)
{
	conv_set_sint(smp, SMP_T_SINT, (long long)smp->data.u.str.len);
	return 1;
}

/* bytes(offset[,length]): an offset at or past the end (or negative) gives nothing; a
 * negative length is ignored. */
static int conv_bytes(const struct arg *args, struct sample *smp, void *private)
{
	struct ist *s = &smp->data.u.str;
	long long off = args[0].data.sint;

	if (off < 0 || (unsigned long long)off >= s->len) {
		s->len = 0;
		return 1;
	}
	s->ptr += off;
	s->len -= (size_t)off;
	if (args[1].type == ARGT_SINT && args[1].data.sint >= 0 &&
	    (unsigned long long)args[1].data.sint < s->len)
		s->len = (size_t)args[1].data.sint;
	return 1;
}

/* ltrim(chars) / rtrim(chars): drop those bytes from one end */
static int conv_trim(const struct arg *args, struct sample *smp, void *private)
{
	struct ist *s = &smp->data.u.str;
	struct ist set = args[0].type == ARGT_STR ? args[0].data.str : ist2("", 0);
	bool right = CONV_PRIV_INT(private);

	if (right) {
		while (s->len && memchr(set.ptr, s->ptr[s->len - 1], set.len))
			s->len--;
	} else {
		while (s->len && memchr(set.ptr, *s->ptr, set.len))
			s->ptr++, s->len--;
	}
	return 1;
}

static int conv_cut_crlf(const struct arg *args, struct sample *smp, void *private)
{
	struct ist *s = &smp->data.u.str;

	for (size_t i = 0; i < s->len; i++) {
		if (s->ptr[i] == '\r' || s->ptr[i] == '\n') {
			s->len = i;
			break;
		}
	}
	return 1;
}

/* ---- regsub(regex,subst[,flags]) ---- */

#define REGSUB_GLOBAL 0x1

/* Compiles the regex with the flags of the third argument (which becomes an integer),
 * checks the replacement. */
static int conv_regsub_check(struct arg *args, void *private, char *err, size_t errsz)
{
	uint32_t rflags = 0;
	long long flags = 0;
	const char *bad;
	char rerr[192];
	struct regex *re;

	if (args[2].type == ARGT_STR) {
		for (const char *f = args[2].data.str.ptr; *f; f++) {
			if (*f == 'i') {
				rflags |= REGEX_ICASE;
			} else if (*f == 'g') {
				flags |= REGSUB_GLOBAL;
			} else {
				snprintf(err, errsz,
					 "invalid regex flag '%c', only 'i' and 'g' are "
					 "supported",
					 *f);
				return -1;
			}
		}
		arg_set_sint(&args[2], flags);
	}
	if (!args[0].data.str.len) {
		snprintf(err, errsz, "missing regex in argument 1 of 'regsub'");
		return -1;
	}
	bad = regex_subst_check(args[1].data.str.ptr);
	if (bad) {
		snprintf(err, errsz, "invalid escape at offset %d in replacement '%s'",
			 (int)(bad - args[1].data.str.ptr), args[1].data.str.ptr);
		return -1;
	}
	re = regex_comp(args[0].data.str.ptr, rflags, rerr, sizeof(rerr));
	if (!re) {
		snprintf(err, errsz, "regex '%s' is invalid: %s", args[0].data.str.ptr, rerr);
		return -1;
	}
	free((char *)args[0].data.str.ptr);
	args[0].type = ARGT_REG;
	args[0].owns = ARG_OWN_REG;
	args[0].data.reg = re;
	return 0;
}

static int conv_regsub(const struct arg *args, struct sample *smp, void *private)
{
	bool global = args[2].type == ARGT_SINT && (args[2].data.sint & REGSUB_GLOBAL);
	char *t = smp_trash();
	int n;

	if (!t)
		return 0;
	n = regex_subst(t, smp_trash_size(), args[0].data.reg, smp->data.u.str.ptr,
			smp->data.u.str.len, args[1].data.str.ptr, global);
	if (n < 0)
		return 0;
	conv_set_str(smp, SMP_T_STR, t, (size_t)n);
	return 1;
}

/* ---- concat, add_item ---- */

/* A string being built in a scratch chunk; what does not fit is dropped, as HAProxy
 * truncates such concatenations to its buffer size. */
struct sbuf {
	char *p;
	size_t len, size;
};

static void sbuf_add(struct sbuf *b, struct ist s)
{
	size_t n = MIN(s.len, b->size - b->len);

	memcpy(b->p + b->len, s.ptr, n);
	b->len += n;
}

static int sbuf_start(struct sbuf *b, const struct sample *smp)
{
	b->p = smp_trash();
	if (!b->p)
		return 0;
	b->len = 0;
	b->size = smp_trash_size();
	sbuf_add(b, smp->data.u.str);
	return 1;
}

static struct ist arg_str(const struct arg *a)
{
	return a->type == ARGT_STR ? a->data.str : ist2("", 0);
}

/* concat([start],[var],[end]) */
static int conv_concat(const struct arg *args, struct sample *smp, void *private)
{
	struct ist v;
	struct sbuf b;

	if (!sbuf_start(&b, smp))
		return 0;
	if (args) {
		sbuf_add(&b, arg_str(&args[0]));
		if (conv_var_str(&args[1], smp->ctx, &v))
			sbuf_add(&b, v);
		sbuf_add(&b, arg_str(&args[2]));
	}
	conv_set_str(smp, SMP_T_STR, b.p, b.len);
	return 1;
}

static int conv_concat_check(struct arg *args, void *private, char *err, size_t errsz)
{
	return args ? conv_arg_opt_var(&args[1], err, errsz) : 0;
}

/* add_item(delim,[var][,suffix]): the delimiter only goes between a non-empty input and
 * a non-empty item (the variable or the suffix). */
static int conv_add_item(const struct arg *args, struct sample *smp, void *private)
{
	struct ist v = ist2("", 0), sfx = arg_str(&args[2]);
	bool has_var = conv_var_str(&args[1], smp->ctx, &v);
	bool had_input = smp->data.u.str.len != 0;
	struct sbuf b;

	if (!sbuf_start(&b, smp))
		return 0;
	if (had_input && (v.len || sfx.len))
		sbuf_add(&b, arg_str(&args[0]));
	if (has_var)
		sbuf_add(&b, v);
	sbuf_add(&b, sfx);
	conv_set_str(smp, SMP_T_STR, b.p, b.len);
	return 1;
}

static int conv_add_item_check(struct arg *args, void *private, char *err, size_t errsz)
{
	if (args[1].type == ARGT_STR && !args[1].data.str.len &&
	    (args[2].type != ARGT_STR || !args[2].data.str.len)) {
		snprintf(err, errsz, "one of the optional arguments has to be nonempty");
		return -1;
	}
	return conv_arg_opt_var(&args[1], err, errsz);
}

/* ---- comparisons with a variable ---- */

/* strcmp(var): the difference of the first differing bytes (compared up to the shorter
 * length, stopping at a NUL as strncmp does), else -1/0/1 by length. A variable that is
 * not set fails. */
static int conv_strcmp(const struct arg *args, struct sample *smp, void *private)
{
	struct ist a = smp->data.u.str, b;
	size_t n;
	int r = 0;

	if (!conv_var_str(&args[0], smp->ctx, &b))
		return 0;
	n = MIN(a.len, b.len);
	for (size_t i = 0; i < n; i++) {
		r = (unsigned char)a.ptr[i] - (unsigned char)b.ptr[i];
		if (r || !a.ptr[i])
			break;
	}
	if (!r && a.len != b.len)
		r = a.len < b.len ? -1 : 1;
	conv_set_sint(smp, SMP_T_SINT, r);
	return 1;
}

/* secure_memcmp(var): true when the bytes equal the variable's (cast to bytes), in a time
 * that does not depend on where they differ. */
static int conv_secure_memcmp(const struct arg *args, struct sample *smp, void *private)
{
	struct sample tmp = { .ctx = smp->ctx };
	struct ist a = smp->data.u.str, b;
	volatile unsigned char acc = 0;

	if (!vars_get(smp->ctx, &args[0].data.var, &tmp) || !sample_cast(&tmp, SMP_T_BIN))
		return 0;
	b = tmp.data.u.str;
	if (a.len != b.len) {
		conv_set_sint(smp, SMP_T_BOOL, 0);
		return 1;
	}
	for (size_t i = 0; i < a.len; i++)
		acc |= (unsigned char)(a.ptr[i] ^ b.ptr[i]);
	conv_set_sint(smp, SMP_T_BOOL, acc == 0);
	return 1;
}

/* ---- Host header values ---- */

/* The port of a Host value: what follows the last ':' when no ']' comes after it. Sets
 * *colon to the ':' (or NULL when there is no port). */
static struct ist host_port(struct ist h, const char **colon)
{
	for (size_t i = h.len; i > 0; i--) {
		char c = h.ptr[i - 1];

		if (c == ']')
			break;
		if (c == ':') {
			*colon = h.ptr + i - 1;
			return ist2(h.ptr + i, h.len - i);
		}
	}
	*colon = NULL;
	return ist2("", 0);
}

/* host_only: the host without its port, in lower case */
static int conv_host_only(const struct arg *args, struct sample *smp, void *private)
{
	const char *colon;
	char *p;

	host_port(smp->data.u.str, &colon);
	if (colon)
		smp->data.u.str.len = (size_t)(colon - smp->data.u.str.ptr);
	if (!smp_make_rw(smp))
		return 0;
	p = (char *)smp->data.u.str.ptr;
	for (size_t i = 0; i < smp->data.u.str.len; i++)
		p[i] = (char)tolower((unsigned char)p[i]);
	return 1;
}

/* port_only: the port as an unsigned 32-bit number, 0 without one. Like HAProxy, every
 * byte counts as a digit (c - '0'), so garbage gives a number, not an error. */
static int conv_port_only(const struct arg *args, struct sample *smp, void *private)
{
	const char *colon;
	struct ist port = host_port(smp->data.u.str, &colon);
	uint32_t v = 0;

	for (size_t i = 0; i < port.len; i++)
		v = v * 10 + (uint32_t)(unsigned char)port.ptr[i] - (uint32_t)'0';
	conv_set_sint(smp, SMP_T_SINT, v);
	return 1;
}

/* ---- language(list[,default]) ---- */

/* A language range from the header matches a list entry when equal, or when it is the
 * entry followed by '-' and a variant ("en-US" matches "en"). Case-sensitive. */
static bool lang_match(struct ist range, struct ist tag)
{
	if (range.len < tag.len || memcmp(range.ptr, tag.ptr, tag.len))
		return false;
	return range.len == tag.len || range.ptr[tag.len] == '-';
}

/* The first entry of the ';'-separated <list> matching <range>, or an empty view. */
static struct ist lang_find(const char *list, struct ist range)
{
	const char *w = list;

	while (1) {
		const char *e = w + strcspn(w, ";");
		struct ist tag = ist2(w, (size_t)(e - w));

		if (lang_match(range, tag))
			return tag;
		if (!*e)
			return ist2(NULL, 0);
		w = e + 1;
	}
}

struct lang_cur {
	const char *p, *end;
};

static void lang_skip_sp(struct lang_cur *c)
{
	while (c->p < c->end && isspace((unsigned char)*c->p))
		c->p++;
}

/* Reads "1", "0.5", "0.125": a weight of 0..1000; anything after three decimals is
 * ignored; a value that does not start with a digit weighs 1000. */
static int lang_qvalue(struct lang_cur *c)
{
	int q, scale = 100;

	if (c->p >= c->end || !isdigit((unsigned char)*c->p))
		return 1000;
	q = (*c->p++ - '0') * 1000;
	if (c->p < c->end && *c->p == '.') {
		c->p++;
		while (scale && c->p < c->end && isdigit((unsigned char)*c->p)) {
			q += (*c->p++ - '0') * scale;
			scale /= 10;
		}
	}
	return MIN(q, 1000);
}

/* The weight after a language range: ";q=N" with optional spaces; a parameter that is not
 * q leaves the full weight; -1 when something else follows the range (the entry is
 * ignored). */
static int lang_weight(struct lang_cur *c)
{
	lang_skip_sp(c);
	if (c->p >= c->end || *c->p == ',')
		return 1000;
	if (*c->p != ';')
		return -1;
	c->p++;
	lang_skip_sp(c);
	if (c->p >= c->end || *c->p != 'q')
		return 1000;
	c->p++;
	lang_skip_sp(c);
	if (c->p >= c->end || *c->p != '=')
		return 1000;
	c->p++;
	lang_skip_sp(c);
	return lang_qvalue(c);
}

/* The entry of the list with the highest weight in an Accept-Language value; on a tie the
 * first in the header wins; weight 0 never wins. */
static int conv_language(const struct arg *args, struct sample *smp, void *private)
{
	struct lang_cur c = { smp->data.u.str.ptr, smp->data.u.str.ptr + smp->data.u.str.len };
	struct ist best = ist2("", 0);
	int best_q = 0;

	while (1) {
		const char *tok;
		struct ist tag;
		int q;

		lang_skip_sp(&c);
		tok = c.p;
		while (c.p < c.end && *c.p != ';' && *c.p != ',' && !isspace((unsigned char)*c.p))
			c.p++;
		tag = c.p > tok ? lang_find(args[0].data.str.ptr, ist2(tok, (size_t)(c.p - tok)))
				: ist2(NULL, 0);
		if (tag.ptr) {
			q = lang_weight(&c);
			if (q > best_q) {
				best = tag;
				best_q = q;
				if (q >= 1000)
					break;
			}
		}
		while (c.p < c.end && *c.p != ',')
			c.p++;
		if (c.p >= c.end)
			break;
		c.p++;
	}
	if (!best.len && args[1].type == ARGT_STR)
		best = args[1].data.str;
	if (!best.len)
		return 0;
	smp->data.u.str = best;
	smp->data.type = SMP_T_STR;
	smp->flags |= SMP_F_CONST;
	return 1;
}

static const struct sample_conv str_convs[] = {
	{ "lower", conv_case, 0, { 0 }, NULL, SMP_T_STR, SMP_T_STR, CONV_PRIV(0) },
	{ "upper", conv_case, 0, { 0 }, NULL, SMP_T_STR, SMP_T_STR, CONV_PRIV(1) },
	{ "length", conv_length, 0, { 0 }, NULL, SMP_T_STR, SMP_T_SINT, NULL },
	{ "bytes", conv_bytes, 1, { ARGT_SINT, ARGT_SINT }, NULL, SMP_T_BIN, SMP_T_BIN, NULL },
	{ "ltrim", conv_trim, 1, { ARGT_STR }, NULL, SMP_T_STR, SMP_T_STR, CONV_PRIV(0) },
	{ "rtrim", conv_trim, 1, { ARGT_STR }, NULL, SMP_T_STR, SMP_T_STR, CONV_PRIV(1) },
	{ "cut_crlf", conv_cut_crlf, 0, { 0 }, NULL, SMP_T_STR, SMP_T_STR, NULL },
	{ "regsub",
	  conv_regsub,
	  2,
	  { ARGT_REG, ARGT_STR, ARGT_STR },
	  conv_regsub_check,
	  SMP_T_STR,
	  SMP_T_STR,
	  NULL },
	{ "concat",
	  conv_concat,
	  0,
	  { ARGT_STR, ARGT_STR, ARGT_STR },
	  conv_concat_check,
	  SMP_T_STR,
	  SMP_T_STR,
	  NULL },
	{ "add_item",
	  conv_add_item,
	  2,
	  { ARGT_STR, ARGT_STR, ARGT_STR },
	  conv_add_item_check,
	  SMP_T_STR,
	  SMP_T_STR,
	  NULL },
	{ "strcmp", conv_strcmp, 1, { ARGT_VAR }, NULL, SMP_T_STR, SMP_T_SINT, NULL },
	{ "secure_memcmp", conv_secure_memcmp, 1, { ARGT_VAR }, NULL, SMP_T_BIN, SMP_T_BOOL, NULL },
	{ "host_only", conv_host_only, 0, { 0 }, NULL, SMP_T_STR, SMP_T_STR, NULL },
	{ "port_only", conv_port_only, 0, { 0 }, NULL, SMP_T_STR, SMP_T_SINT, NULL },
	{ "language", conv_language, 1, { ARGT_STR, ARGT_STR }, NULL, SMP_T_STR, SMP_T_STR, NULL },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, NULL },
};

SMP_REGISTER_CONVS(str_convs)
