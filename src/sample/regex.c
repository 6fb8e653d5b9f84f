/* PCRE2 regular expressions: compilation (JIT when built with USE_PCRE2_JIT) at config time,
 * unanchored searches with captures on per-thread match data, HAProxy's replacement syntax
 * (\0..\9, \xHH) and the regsub converter's substitution loop. Compiled regexes are never
 * written after regex_comp(), so all threads share them. Knows nothing of samples or ACLs:
 * the sample engine calls it.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/parse.h>
#include <base/compiler.h>
#include <sample/regex.h>

#ifdef USE_PCRE2
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#endif

/* An output buffer being filled: out[0..len) written of size (capped at INT_MAX so that
 * every length fits the int the API returns).
 */
struct rx_out {
	char *area;
	size_t size;
	size_t len;
};

static void rx_out_init(struct rx_out *o, char *out, size_t outsz)
{
	o->area = out;
	o->size = outsz > INT_MAX ? INT_MAX : outsz;
	o->len = 0;
}

/* Appends s[0..n); false if it does not fit (nothing is then written). */
static bool rx_put(struct rx_out *o, const char *s, size_t n)
{
	if (n > o->size - o->len)
		return false;
	if (n)
		memcpy(o->area + o->len, s, n);
	o->len += n;
	return true;
}

/* Terminates the output when a byte remains and returns its length. */
static int rx_finish(struct rx_out *o)
{
	if (o->len < o->size)
		o->area[o->len] = '\0';
	return (int)o->len;
}

/* Appends group <g> of the match (nothing if unset or out of m[0..nmatch)). */
static bool rx_put_group(struct rx_out *o, const char *subject, const struct regex_match *m,
			 int nmatch, int g)
{
	if (g >= nmatch || m[g].so < 0 || m[g].eo < m[g].so)
		return true;
	return rx_put(o, subject + m[g].so, (size_t)(m[g].eo - m[g].so));
}

/* Appends <fmt> expanded (see regex_expand()); 0, or -1 if it does not fit or is malformed. */
static int rx_expand(struct rx_out *o, const char *fmt, const char *subject,
		     const struct regex_match *m, int nmatch)
{
	const char *f = fmt;
	char c;

	while (*f) {
		size_t lit = strcspn(f, "\\");

		if (!rx_put(o, f, lit))
			return -1;
		f += lit;
		if (!*f)
			break;
		c = f[1];
		if (c >= '0' && c <= '9') {
			if (!rx_put_group(o, subject, m, nmatch, c - '0'))
				return -1;
			f += 2;
		} else if (c == 'x') {
			int hi = hex_digit_val(f[2]), lo = hi < 0 ? -1 : hex_digit_val(f[3]);

			if (lo < 0)
				return -1;
			c = (char)(hi << 4 | lo);
			if (!rx_put(o, &c, 1))
				return -1;
			f += 4;
		} else {
			if (!c || !rx_put(o, &c, 1))
				return -1;
			f += 2;
		}
	}
	return 0;
}

/* See sample/regex.h. */
int regex_expand(char *out, size_t outsz, const char *fmt, const char *subject,
		 const struct regex_match *m, int nmatch)
{
	struct rx_out o;

	rx_out_init(&o, out, outsz);
	if (rx_expand(&o, fmt, subject, m, nmatch) < 0)
		return -1;
	return rx_finish(&o);
}

/* See sample/regex.h. */
const char *regex_subst_check(const char *fmt)
{
	const char *f;

	for (f = fmt; (f = strchr(f, '\\')); f += 2) {
		if (!f[1])
			return f;
		if (f[1] == 'x') {
			if (hex_digit_val(f[2]) < 0 || hex_digit_val(f[3]) < 0)
				return f;
			f += 2;
		}
	}
	return NULL;
}

static void rx_err(char *err, size_t errsz, const char *msg)
{
	if (err && errsz)
		snprintf(err, errsz, "%s", msg);
}

#ifdef USE_PCRE2

struct regex {
	pcre2_code *code; /* read-only once compiled */
	bool jit;	  /* JIT code available: matched by pcre2_jit_match() */
	uint32_t minlen;  /* no subject shorter than this can match (PCRE2's own bound) */
	char pattern[];	  /* the source text */
};

/* This thread's match data: REGEX_MAX_MATCH pairs, created at the first search. */
static __thread pcre2_match_data *rx_md;

/* See sample/regex.h. */
int regex_thread_init(void)
{
	if (!rx_md)
		rx_md = pcre2_match_data_create(REGEX_MAX_MATCH, NULL);
	return rx_md ? 0 : -1;
}

/* See sample/regex.h. */
void regex_thread_release(void)
{
	pcre2_match_data_free(rx_md);
	rx_md = NULL;
}

/* Puts PCRE2's message for <code> at <off> into err[0..errsz). */
static void rx_comp_err(char *err, size_t errsz, int code, PCRE2_SIZE off)
{
	PCRE2_UCHAR msg[256];

	if (!err || !errsz)
		return;
	if (pcre2_get_error_message(code, msg, sizeof(msg)) == PCRE2_ERROR_BADDATA)
		snprintf((char *)msg, sizeof(msg), "PCRE2 error %d", code);
	snprintf(err, errsz, "%s at offset %zu", (const char *)msg, (size_t)off);
}

/* See sample/regex.h. */
struct regex *regex_comp(const char *pattern, uint32_t flags, char *err, size_t errsz)
{
	size_t plen = strlen(pattern);
	uint32_t opts = 0;
	struct regex *re;
	PCRE2_SIZE off;
	int code;

	if (flags & REGEX_ICASE)
		opts |= PCRE2_CASELESS;
	if (flags & REGEX_NOSUB)
		opts |= PCRE2_NO_AUTO_CAPTURE;
	re = malloc(sizeof(*re) + plen + 1);
	if (!re) {
		rx_err(err, errsz, "out of memory");
		return NULL;
	}
	memcpy(re->pattern, pattern, plen + 1);
	re->jit = false;
	re->minlen = 0;
	re->code = pcre2_compile((PCRE2_SPTR)pattern, plen, opts, &code, &off, NULL);
	if (!re->code) {
		rx_comp_err(err, errsz, code, off);
		free(re);
		return NULL;
	}
	/* a search on a shorter subject is answered without calling PCRE2 (a hundred
	 * instructions saved per call: many rule conditions see short paths) */
	if (pcre2_pattern_info(re->code, PCRE2_INFO_MINLENGTH, &re->minlen) != 0)
		re->minlen = 0;
#ifdef USE_PCRE2_JIT
	/* A JIT failure (no executable memory, unsupported) leaves the interpreter, which
	 * gives the same results.
	 */
	if (!(flags & REGEX_NOJIT) && pcre2_jit_compile(re->code, PCRE2_JIT_COMPLETE) == 0)
		re->jit = true;
#endif
	return re;
}

/* See sample/regex.h. */
void regex_free(struct regex *re)
{
	if (!re)
		return;
	pcre2_code_free(re->code);
	free(re);
}

/* See sample/regex.h. */
const char *regex_pattern(const struct regex *re)
{
	return re->pattern;
}

/* See sample/regex.h. */
bool regex_jit(const struct regex *re)
{
	return re->jit;
}

/* Runs <re> on s[0..len) from <start> with this thread's match data. Returns the number of
 * ovector pairs set (>= 1, REGEX_MAX_MATCH when the pattern has more groups), 0 if no
 * match, -1 on an error.
 */
static int rx_run(const struct regex *re, const char *s, size_t len, size_t start)
{
	int rc;

	if (unlikely(!rx_md) && regex_thread_init() < 0)
		return -1;
	if (unlikely(len > INT_MAX))
		return -1;
	if (!s)
		s = ""; /* PCRE2 refuses a NULL subject even when empty */
#ifdef USE_PCRE2_JIT
	if (re->jit)
		rc = pcre2_jit_match(re->code, (PCRE2_SPTR)s, len, start, 0, rx_md, NULL);
	else
#endif
		rc = pcre2_match(re->code, (PCRE2_SPTR)s, len, start, 0, rx_md, NULL);
	if (rc == 0)
		return REGEX_MAX_MATCH; /* more groups than pairs: all pairs are set */
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	return rc > 0 ? rc : -1;
}

/* Copies the <pairs> ovector pairs of the last match into m[0..nmatch), -1 beyond. */
static void rx_fill(struct regex_match *m, int nmatch, int pairs)
{
	const PCRE2_SIZE *ov = pcre2_get_ovector_pointer(rx_md);
	int i;

	for (i = 0; i < nmatch; i++) {
		if (i < pairs && ov[2 * i] != PCRE2_UNSET) {
			m[i].so = (int)ov[2 * i];
			m[i].eo = (int)ov[2 * i + 1];
		} else {
			m[i].so = m[i].eo = -1;
		}
	}
}

/* See sample/regex.h. */
int regex_search(const struct regex *re, const char *s, size_t len, struct regex_match *m,
		 int nmatch)
{
	int pairs = rx_run(re, s, len, 0);

	if (pairs <= 0)
		return pairs;
	rx_fill(m, nmatch, pairs);
	return 1;
}

/* See sample/regex.h. */
bool regex_exec(const struct regex *re, const char *s, size_t len)
{
	if (len < re->minlen)
		return false;
	return rx_run(re, s, len, 0) > 0;
}

/* See sample/regex.h. */
bool regex_exec_match(const struct regex *re, const char *s, size_t len, struct regex_match *m,
		      int nmatch)
{
	return regex_search(re, s, len, m, nmatch) > 0;
}

/* See sample/regex.h. <pos> is where the next search starts; the input before it is
 * already in the output.
 */
int regex_subst(char *out, size_t outsz, const struct regex *re, const char *in, size_t len,
		const char *subst, bool global)
{
	struct regex_match m[REGEX_MAX_MATCH];
	size_t pos = 0, so, eo;
	struct rx_out o;
	int pairs;

	if (!in)
		in = ""; /* only when len is 0 */
	rx_out_init(&o, out, outsz);
	while ((pairs = rx_run(re, in, len, pos)) > 0) {
		rx_fill(m, REGEX_MAX_MATCH, pairs);
		so = (size_t)m[0].so;
		eo = (size_t)m[0].eo;
		if (m[0].so < 0 || so < pos || eo < so || eo > len)
			return -1; /* cannot happen without \K in a lookaround (refused) */
		if (!rx_put(&o, in + pos, so - pos) ||
		    rx_expand(&o, subst, in, m, REGEX_MAX_MATCH) < 0)
			return -1;
		pos = eo;
		if (so == eo) {
			/* An empty match keeps the byte after it, or ends at the end. */
			if (eo == len)
				break;
			if (!rx_put(&o, in + eo, 1))
				return -1;
			pos = eo + 1;
		}
		if (!global)
			break;
	}
	if (pairs < 0 || !rx_put(&o, in + pos, len - pos))
		return -1;
	return rx_finish(&o);
}

#else /* !USE_PCRE2 */

/* See sample/regex.h: without PCRE2 no regex exists, so the rest is never reached. */
struct regex *regex_comp(const char *pattern, uint32_t flags, char *err, size_t errsz)
{
	rx_err(err, errsz, "regex support is not built in (USE_PCRE2=0)");
	return NULL;
}

void regex_free(struct regex *re)
{
}

const char *regex_pattern(const struct regex *re)
{
	return "";
}

bool regex_jit(const struct regex *re)
{
	return false;
}

int regex_search(const struct regex *re, const char *s, size_t len, struct regex_match *m,
		 int nmatch)
{
	return -1;
}

bool regex_exec(const struct regex *re, const char *s, size_t len)
{
	return false;
}

bool regex_exec_match(const struct regex *re, const char *s, size_t len, struct regex_match *m,
		      int nmatch)
{
	return false;
}

int regex_subst(char *out, size_t outsz, const struct regex *re, const char *in, size_t len,
		const char *subst, bool global)
{
	return -1;
}

int regex_thread_init(void)
{
	return 0;
}

void regex_thread_release(void)
{
}

#endif /* USE_PCRE2 */
