// FUZZ_SRCS: src/sample/regex.c
// FUZZ_FLAGS: -DUSE_PCRE2 -DUSE_PCRE2_JIT -lpcre2-8
/* libFuzzer target for the regex layer: the input's first line is compiled as a pattern
 * (plain, and case-insensitive without captures; each with JIT and with the interpreter),
 * its second line is a replacement string, the rest the subject, searched and substituted
 * (first match and global). Checks that both engines agree, that offsets stay in the
 * subject, that a substitution equals its own definition, fits exactly its length and fails
 * with a byte less; crashes and sanitizer reports are the other findings.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sample/regex.h>

#define FZ_OUTSZ 65536

static char fz_out[FZ_OUTSZ], fz_out2[FZ_OUTSZ], fz_ref[FZ_OUTSZ];

/* Splits the next line off data[*off..size) into a NUL-terminated copy (NULL if no room). */
static char *fz_line(const uint8_t *data, size_t size, size_t *off)
{
	const uint8_t *nl = memchr(data + *off, '\n', size - *off);
	size_t n = nl ? (size_t)(nl - (data + *off)) : size - *off;
	char *s = malloc(n + 1);

	if (!s)
		return NULL;
	memcpy(s, data + *off, n);
	s[n] = '\0';
	*off += n + (nl != NULL);
	return s;
}

/* Offsets of a match lie in the subject, the whole match is set. */
static void fz_check_match(const struct regex_match *m, int nmatch, size_t len)
{
	int i;

	if (m[0].so < 0)
		abort();
	for (i = 0; i < nmatch; i++) {
		if (m[i].so == -1 && m[i].eo == -1)
			continue;
		if (m[i].so < 0 || m[i].so > m[i].eo || (size_t)m[i].eo > len)
			abort();
	}
}

/* The first-match substitution by its definition: before, expansion, after. */
static int fz_subst_ref(const char *in, size_t len, const char *subst, const struct regex_match *m)
{
	int n = regex_expand(fz_ref + m[0].so, FZ_OUTSZ - (size_t)m[0].so, subst, in, m,
			     REGEX_MAX_MATCH);
	size_t rest = len - (size_t)m[0].eo;

	if (n < 0 || (size_t)m[0].so + (size_t)n + rest > FZ_OUTSZ)
		return -1;
	memcpy(fz_ref, in, (size_t)m[0].so);
	memcpy(fz_ref + m[0].so + n, in + m[0].eo, rest);
	return m[0].so + n + (int)rest;
}

/* Substitutes with <re>; returns the length (or -1) after checking it against the exact
 * and one-byte-short buffers, and for a first match against its definition.
 */
static int fz_subst(const struct regex *re, const char *in, size_t len, const char *subst,
		    bool global, int found, const struct regex_match *m)
{
	int n = regex_subst(fz_out, FZ_OUTSZ, re, in, len, subst, global);

	if (n < 0)
		return n;
	if (found == 0 && ((size_t)n != len || memcmp(fz_out, in, len)))
		abort(); /* no match: the input as it is */
	if (found == 1 && !global) {
		int r = fz_subst_ref(in, len, subst, m);

		if (r != n || memcmp(fz_ref, fz_out, (size_t)n))
			abort();
	}
	if (regex_subst(fz_out2, (size_t)n, re, in, len, subst, global) != n ||
	    memcmp(fz_out, fz_out2, (size_t)n))
		abort();
	if (n > 0 && regex_subst(fz_out2, (size_t)n - 1, re, in, len, subst, global) != -1)
		abort();
	return n;
}

/* Runs the checks with one pattern compiled with <flags> by both engines. */
static void fz_one(const char *pat, uint32_t flags, const char *subst, const char *in, size_t len)
{
	char err[2][128];
	struct regex *re[2];
	struct regex_match m[2][REGEX_MAX_MATCH];
	int found[2], sub[2][2], e, g;

	re[0] = regex_comp(pat, flags, err[0], sizeof(err[0]));
	re[1] = regex_comp(pat, flags | REGEX_NOJIT, err[1], sizeof(err[1]));
	if (!re[0] != !re[1])
		abort();
	if (!re[0]) {
		if (!err[0][0] || strcmp(err[0], err[1]))
			abort();
		return;
	}
	if (strcmp(regex_pattern(re[0]), pat) || regex_jit(re[1]))
		abort();
	for (e = 0; e < 2; e++) {
		found[e] = regex_search(re[e], in, len, m[e], REGEX_MAX_MATCH);
		if (regex_exec(re[e], in, len) != (found[e] == 1))
			abort();
		if (found[e] == 1)
			fz_check_match(m[e], REGEX_MAX_MATCH, len);
		for (g = 0; g < 2; g++)
			sub[e][g] = fz_subst(re[e], in, len, subst, g, found[e], m[e]);
	}
	/* engines agree when neither hit a limit of its own */
	if (found[0] >= 0 && found[1] >= 0 &&
	    (found[0] != found[1] || (found[0] == 1 && memcmp(m[0], m[1], sizeof(m[0])))))
		abort();
	for (g = 0; g < 2; g++) {
		if (sub[0][g] >= 0 && sub[1][g] >= 0 && sub[0][g] != sub[1][g])
			abort();
	}
	regex_free(re[0]);
	regex_free(re[1]);
}

/* A well-formed replacement never fails to expand into room enough for it. */
static void fz_expand(const char *subst, const char *in, size_t len)
{
	static const struct regex_match m[REGEX_MAX_MATCH] = { { 0, 0 }, { -1, -1 } };
	struct regex_match mm[REGEX_MAX_MATCH];
	size_t i;
	int n;

	for (i = 0; i < REGEX_MAX_MATCH; i++)
		mm[i] = len ? (struct regex_match){ (int)(i % len), (int)len } : m[i > 0];
	n = regex_expand(fz_out, FZ_OUTSZ, subst, in, mm, REGEX_MAX_MATCH);
	if (regex_subst_check(subst) ? n != -1 : n < 0 && strlen(subst) * (len + 1) < FZ_OUTSZ)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t off = 0;
	char *pat = fz_line(data, size, &off);
	char *subst = fz_line(data, size, &off);
	const char *in = (const char *)data + off;
	size_t len = size - off;

	if (pat && subst) {
		fz_one(pat, 0, subst, in, len);
		fz_one(pat, REGEX_ICASE | REGEX_NOSUB, subst, in, len);
		fz_expand(subst, in, len);
	}
	free(pat);
	free(subst);
	return 0;
}
