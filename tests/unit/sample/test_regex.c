/* Unit tests of the regex layer (src/sample/regex.c): searches, anchors, case, captures,
 * compile errors, HAProxy's replacement syntax, the regsub substitution (empty matches
 * included, expectations from HAProxy 2.6 where it agrees), long inputs, threads, and each
 * case with JIT and with the interpreter. Without USE_PCRE2 only the refusal is tested.
 */
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <base/compiler.h>
#include <sample/regex.h>

#include "../test.h"

/* regex_expand() is pure and built either way. */
TEST(regex_expand_groups_and_escapes)
{
	static const struct regex_match m[3] = { { 0, 11 }, { 0, 3 }, { 4, 11 } };
	const char *subj = "bob example";
	char out[64];

	CHECK_INT(regex_expand(out, sizeof(out), "\\2-\\1", subj, m, 3), 11);
	CHECK_STR(out, "example-bob");
	CHECK_INT(regex_expand(out, sizeof(out), "<\\0>", subj, m, 3), 13);
	CHECK_STR(out, "<bob example>");
	CHECK_INT(regex_expand(out, sizeof(out), "\\x41\\x6a\\x2F", subj, m, 3), 3);
	CHECK_STR(out, "Aj/");
	CHECK_INT(regex_expand(out, sizeof(out), "\\q\\\\\\.", subj, m, 3), 3);
	CHECK_STR(out, "q\\.");
	/* a group beyond nmatch, or unset, expands to nothing */
	CHECK_INT(regex_expand(out, sizeof(out), "[\\9\\3]", subj, m, 3), 2);
	CHECK_STR(out, "[]");
	CHECK_INT(regex_expand(out, sizeof(out), "[\\1]", subj,
			       (struct regex_match[]){ { 0, 3 }, { -1, -1 } }, 2),
		  2);
	CHECK_STR(out, "[]");
	CHECK_INT(regex_expand(out, sizeof(out), "", subj, m, 3), 0);
	CHECK_STR(out, "");
	/* \x00 is a byte like any other */
	CHECK_INT(regex_expand(out, sizeof(out), "a\\x00b", subj, m, 3), 3);
	CHECK(!memcmp(out, "a\0b", 3));
}

TEST(regex_expand_malformed)
{
	static const struct regex_match m[1] = { { 0, 1 } };
	char out[16];

	CHECK_INT(regex_expand(out, sizeof(out), "ab\\", "x", m, 1), -1);
	CHECK_INT(regex_expand(out, sizeof(out), "\\x4", "x", m, 1), -1);
	CHECK_INT(regex_expand(out, sizeof(out), "\\xZZ", "x", m, 1), -1);
	CHECK_INT(regex_expand(out, sizeof(out), "\\x", "x", m, 1), -1);
	CHECK(regex_subst_check("a\\1\\x4F\\q\\\\") == NULL);
	CHECK(regex_subst_check("") == NULL);
	const char *bad = "ab\\";
	CHECK(regex_subst_check(bad) == bad + 2);
	bad = "a\\1\\x4g";
	CHECK(regex_subst_check(bad) == bad + 3);
	bad = "\\\\\\x";
	CHECK(regex_subst_check(bad) == bad + 2);
}

TEST(regex_expand_out_of_room)
{
	static const struct regex_match m[2] = { { 0, 5 }, { 0, 5 } };
	char out[8];

	memset(out, '#', sizeof(out));
	/* exactly the length: fits, not terminated */
	CHECK_INT(regex_expand(out, 5, "\\1", "hello", m, 2), 5);
	CHECK(!memcmp(out, "hello#", 6));
	CHECK_INT(regex_expand(out, 4, "\\1", "hello", m, 2), -1);
	CHECK_INT(regex_expand(out, 5, "\\1!", "hello", m, 2), -1);
	CHECK_INT(regex_expand(out, 5, "abcd\\x41\\x42", "hello", m, 2), -1);
	CHECK_INT(regex_expand(out, 5, "abcd\\.\\.", "hello", m, 2), -1);
	CHECK_INT(regex_expand(out, 0, "", "hello", m, 2), 0);
	CHECK_INT(regex_expand(out, 0, "a", "hello", m, 2), -1);
	CHECK_INT(regex_expand(NULL, 0, "", "hello", m, 2), 0);
}

#ifdef USE_PCRE2

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

/* Both engines: the JIT (when built in) and the interpreter. */
static const uint32_t engines[] = { 0, REGEX_NOJIT };

static struct regex *comp(const char *pat, uint32_t flags)
{
	char err[256] = "";
	struct regex *re = regex_comp(pat, flags, err, sizeof(err));

	if (!re)
		test_fail(__FILE__, __LINE__, "regex_comp(\"%s\") failed: %s", pat, err);
	return re;
}

struct exec_case {
	const char *pat;
	uint32_t flags;
	const char *subj;
	size_t len; /* 0: strlen(subj) */
	bool match;
};

TEST(regex_exec_patterns)
{
	static const struct exec_case cases[] = {
		{ "abc", 0, "xxabcxx", 0, true },
		{ "abc", 0, "xxabxcx", 0, false },
		{ "^abc", 0, "abcd", 0, true },
		{ "^abc", 0, "xabc", 0, false },
		{ "abc$", 0, "xabc", 0, true },
		{ "abc$", 0, "abcx", 0, false },
		{ "abc$", 0, "abc\n", 0, true }, /* PCRE2's $ before a final newline */
		{ "^/api/v[0-9]+/", 0, "/api/v12/users", 0, true },
		{ "^/api/v[0-9]+/", 0, "/api/v/users", 0, false },
		{ "\\.(jpe?g|png|gif)$", 0, "/img/a.jpeg", 0, true },
		{ "\\.(jpe?g|png|gif)$", 0, "/img/a.jpeg?x", 0, false },
		{ "[[:digit:]]{3}", 0, "ab12c345", 0, true },
		{ "[[:digit:]]{3}", 0, "ab12c34", 0, false },
		{ "ABC", 0, "xabcx", 0, false },
		{ "ABC", REGEX_ICASE, "xabcx", 0, true },
		{ "(?i)ABC", 0, "xabcx", 0, true },
		{ "[a-c]+x", REGEX_ICASE, "ABCX", 0, true },
		{ "a.c", 0, "a\nc", 0, false }, /* . is not a newline */
		{ "a\\sc", 0, "a\nc", 0, true },
		{ "^$", 0, "", 0, true },
		{ "", 0, "", 0, true },
		{ "x*", 0, "", 0, true },
		{ "a", 0, "", 0, false },
		{ "\\bfoo\\b", 0, "a foo b", 0, true },
		{ "\\bfoo\\b", 0, "afoob", 0, false },
		{ "(?<=a)b", 0, "ab", 0, true },
		{ "(?<!a)b", 0, "ab", 0, false },
		{ "(a)\\1", 0, "xaax", 0, true },
		{ "^(a|b)*c$", 0, "ababababc", 0, true },
		{ "\\d+-\\d+", REGEX_NOSUB, "tel 12-34", 0, true },
		{ "host\\.example\\.(com|org)$", REGEX_ICASE | REGEX_NOSUB, "HOST.example.ORG", 0,
		  true },
		/* the length bounds the subject, not a NUL */
		{ "c$", 0, "abcdef", 3, true },
		{ "d", 0, "abcdef", 3, false },
		{ "a\\x00b$", 0, "xa\0b", 4, true },
		{ "^a.b$", 0, "a\0b", 3, true },
		/* bytes, not UTF-8: one byte of a multibyte character matches alone */
		{ "^\\xc3$", 0, "\xc3", 0, true },
		{ "^.$", 0, "\xc3\xa9", 0, false },
		{ "\\xff", 0, "a\xff", 0, true },
	};
	size_t i, e;

	for (e = 0; e < ARRAY_SIZE(engines); e++) {
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			const struct exec_case *c = &cases[i];
			struct regex *re = comp(c->pat, c->flags | engines[e]);
			size_t len = c->len ? c->len : strlen(c->subj);
			struct regex_match m[2];

			if (!re)
				continue;
			if (regex_exec(re, c->subj, len) != c->match)
				test_fail(__FILE__, __LINE__, "\"%s\" on \"%s\" (engine %zu): %d",
					  c->pat, c->subj, e, !c->match);
			CHECK_INT(regex_exec_match(re, c->subj, len, m, 2), c->match);
			CHECK_INT(regex_search(re, c->subj, len, m, 2), c->match);
			regex_free(re);
		}
	}
}

TEST(regex_captures)
{
	size_t e;

	for (e = 0; e < ARRAY_SIZE(engines); e++) {
		struct regex_match m[REGEX_MAX_MATCH + 2];
		struct regex *re = comp("(\\w+)@(\\w+)\\.com", engines[e]);
		const char *s = "mail bob@example.com!";

		if (!re)
			return;
		CHECK(regex_exec_match(re, s, strlen(s), m, 4));
		CHECK_INT(m[0].so, 5);
		CHECK_INT(m[0].eo, 20);
		CHECK_INT(m[1].so, 5);
		CHECK_INT(m[1].eo, 8);
		CHECK_INT(m[2].so, 9);
		CHECK_INT(m[2].eo, 16);
		CHECK_INT(m[3].so, -1); /* beyond the pattern's groups */
		CHECK_INT(m[3].eo, -1);
		m[0].so = 99;
		CHECK(regex_exec_match(re, s, strlen(s), m, 0)); /* nmatch 0: nothing written */
		CHECK_INT(m[0].so, 99);
		CHECK(!regex_exec_match(re, "no mail", 7, m, 4));
		regex_free(re);

		/* a group that did not take part */
		re = comp("(a)|(b)", engines[e]);
		CHECK(re && regex_exec_match(re, "xb", 2, m, 3));
		CHECK_INT(m[0].so, 1);
		CHECK_INT(m[1].so, -1);
		CHECK_INT(m[1].eo, -1);
		CHECK_INT(m[2].so, 1);
		CHECK_INT(m[2].eo, 2);
		regex_free(re);

		/* more groups than pairs: \0..\9 are reported, the rest is -1 */
		re = comp("(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)(l)", engines[e]);
		CHECK(re && regex_exec_match(re, "abcdefghijkl", 12, m, REGEX_MAX_MATCH + 2));
		CHECK_INT(m[0].eo, 12);
		CHECK_INT(m[9].so, 8);
		CHECK_INT(m[9].eo, 9);
		CHECK_INT(m[10].so, -1);
		CHECK_INT(m[11].so, -1);
		regex_free(re);

		/* an empty group is set, not unset */
		re = comp("a(x*)b", engines[e]);
		CHECK(re && regex_exec_match(re, "ab", 2, m, 2));
		CHECK_INT(m[1].so, 1);
		CHECK_INT(m[1].eo, 1);
		regex_free(re);
	}
}

TEST(regex_nosub)
{
	struct regex_match m[2];
	char err[128];
	struct regex *re;

	/* as in HAProxy, plain groups do not capture, so a backreference has no group */
	CHECK(regex_comp("(a)\\1", REGEX_NOSUB, err, sizeof(err)) == NULL);
	CHECK_HAS(err, "reference to non-existent subpattern");
	re = comp("(a)b", REGEX_NOSUB);
	CHECK(re && regex_exec_match(re, "xab", 3, m, 2));
	CHECK_INT(m[0].so, 1);
	CHECK_INT(m[0].eo, 3);
	CHECK_INT(m[1].so, -1);
	regex_free(re);
	re = comp("(?<n>a)b", REGEX_NOSUB); /* named groups still capture */
	CHECK(re && regex_exec_match(re, "xab", 3, m, 2));
	CHECK_INT(m[1].so, 1);
	regex_free(re);
}

TEST(regex_comp_errors)
{
	static const struct {
		const char *pat, *msg;
	} cases[] = {
		{ "(ab", "missing closing parenthesis at offset 3" },
		{ "*a", "quantifier does not follow a repeatable item at offset 0" },
		{ "[z-a]", "range out of order in character class at offset 3" },
		{ "a{2,1}", "numbers out of order in {} quantifier at offset 5" },
		{ "ab)", "unmatched closing parenthesis at offset 2" },
		{ "[abc", "missing terminating ] for character class at offset 4" },
		{ "\\", "\\ at end of pattern at offset 1" },
		{ "(?<=a+)b", "lookbehind assertion is not fixed length at offset 0" },
	};
	char err[256], small[12];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		strcpy(err, "unset");
		CHECK(regex_comp(cases[i].pat, 0, err, sizeof(err)) == NULL);
		CHECK_STR(err, cases[i].msg);
	}
	/* truncated, still terminated; no buffer at all */
	memset(small, 'x', sizeof(small));
	CHECK(regex_comp("(ab", 0, small, sizeof(small)) == NULL);
	CHECK_STR(small, "missing clo");
	CHECK(regex_comp("(ab", 0, NULL, 0) == NULL);
	CHECK(regex_comp("(ab", REGEX_ICASE | REGEX_NOJIT, small, 0) == NULL);
}

TEST(regex_pattern_and_jit)
{
	struct regex *re = comp("^/static/.*\\.css$", REGEX_ICASE);
	struct regex *nj = comp("^/static/.*\\.css$", REGEX_NOJIT);
	uint32_t jit_avail = 0;

	if (!re || !nj)
		return;
	CHECK_STR(regex_pattern(re), "^/static/.*\\.css$");
	CHECK_STR(regex_pattern(nj), "^/static/.*\\.css$");
	CHECK(!regex_jit(nj));
#ifdef USE_PCRE2_JIT
	pcre2_config(PCRE2_CONFIG_JIT, &jit_avail);
#endif
	CHECK_INT(regex_jit(re), jit_avail != 0);
	regex_free(re);
	regex_free(nj);
	regex_free(NULL);
}

struct subst_case {
	const char *pat;
	uint32_t flags;
	const char *subst;
	bool global;
	const char *in, *out; /* out NULL: -1 expected */
};

/* Expectations checked against HAProxy 2.6's regsub unless marked. */
static const struct subst_case subst_cases[] = {
	/* the documentation's examples */
	{ "/+", 0, "/", true, "/////a///b/c/xzxyz/", "/a/b/c/xzxyz/" },
	{ "[?;&]*", 0, "", false, "??&;a=b&c", "a=b&c" },
	{ "(foo|bar)([0-9]+)?", REGEX_ICASE, "\\2\\1", false, "/FOO12/bar3", "/12FOO/bar3" },
	{ "(foo|bar)([0-9]+)?", REGEX_ICASE, "\\2\\1", true, "/FOO12/bar3", "/12FOO/3bar" },
	{ "(foo|bar)([0-9]+)?", 0, "\\2\\1", true, "/FOO12/bar3", "/FOO12/3bar" },
	{ "x", REGEX_ICASE, "-", true, "aXbxc", "a-b-c" },
	{ "b", 0, "-", false, "abcb", "a-cb" },
	{ "b", 0, "<\\0>", true, "abcb", "a<b>c<b>" },
	{ "(a)(z)?", 0, "<\\2\\1\\x41>", false, "abc", "<aA>bc" },
	{ "z", 0, "-", true, "abc", "abc" },
	{ "^/old/(.*)", 0, "/new/\\1", false, "/old/x/y", "/new/x/y" },
	{ "^(.*)$", 0, "\\1\\1", false, "ab", "abab" },
	/* empty matches: replaced, then the next byte is kept (HAProxy's rule) */
	{ "x*y*", 0, "A", true, "xzxyz", "AAzAAzA" },
	{ "()", 0, "x", true, "abc", "xaxbxcx" },
	{ "", 0, "x", true, "abc", "xaxbxcx" },
	{ "", 0, "x", false, "abc", "xabc" },
	{ "", 0, "x", true, "", "x" },
	{ "^", 0, "x", true, "abc", "xabc" },
	{ "a*?", 0, "x", true, "aaa", "xaxaxax" },
	{ "x*", 0, "-", true, "ax", "-a--" },
	/* ours: the search goes on in the whole input, so an empty match away from where
	 * the search started is replaced once (HAProxy 2.6: "abcxx", "ab--c") and
	 * lookbehinds see what precedes (HAProxy 2.6: "bxb")
	 */
	{ "$", 0, "x", true, "abc", "abcx" },
	{ "(?=c)", 0, "-", true, "abc", "ab-c" },
	{ "(?<=b)b", 0, "x", true, "bbb", "bxx" },
	{ "\\Ab", 0, "x", true, "bbb", "xbb" },
	{ "\\bb", 0, "x", true, "b bb", "x xb" },
	/* a malformed replacement fails */
	{ "b", 0, "\\", false, "abc", NULL },
	{ "b", 0, "\\xZ", true, "abc", NULL },
	{ "z", 0, "\\", false, "abc", "abc" }, /* no match, no expansion */
};

TEST(regex_subst_cases)
{
	size_t i, e;
	char out[128];

	for (e = 0; e < ARRAY_SIZE(engines); e++) {
		for (i = 0; i < sizeof(subst_cases) / sizeof(subst_cases[0]); i++) {
			const struct subst_case *c = &subst_cases[i];
			struct regex *re = comp(c->pat, c->flags | engines[e]);
			int n;

			if (!re)
				continue;
			n = regex_subst(out, sizeof(out), re, c->in, strlen(c->in), c->subst,
					c->global);
			if (!c->out ? n != -1
				    : n < 0 || strcmp(out, c->out) || n != (int)strlen(c->out))
				test_fail(__FILE__, __LINE__,
					  "regsub(%s,%s%s) on \"%s\": %d \"%s\", expected \"%s\"",
					  c->pat, c->subst, c->global ? ",g" : "", c->in, n,
					  n < 0 ? "" : out, c->out ? c->out : "-1");
			regex_free(re);
		}
	}
}

/* Every result fits exactly in its length and fails with one byte less. */
TEST(regex_subst_out_of_room)
{
	size_t i, e;
	char out[128];

	for (e = 0; e < ARRAY_SIZE(engines); e++) {
		for (i = 0; i < sizeof(subst_cases) / sizeof(subst_cases[0]); i++) {
			const struct subst_case *c = &subst_cases[i];
			struct regex *re = comp(c->pat, c->flags | engines[e]);
			size_t len = c->out ? strlen(c->out) : 0;

			if (!re)
				continue;
			if (c->out) {
				memset(out, '#', sizeof(out));
				CHECK_INT(regex_subst(out, len, re, c->in, strlen(c->in), c->subst,
						      c->global),
					  len);
				CHECK(!memcmp(out, c->out, len) && out[len] == '#');
			}
			if (len)
				CHECK_INT(regex_subst(out, len - 1, re, c->in, strlen(c->in),
						      c->subst, c->global),
					  -1);
			regex_free(re);
		}
	}
}

TEST(regex_subst_empty_and_null_input)
{
	struct regex *re = comp("a", 0);
	char out[4];

	if (!re)
		return;
	CHECK_INT(regex_subst(out, sizeof(out), re, NULL, 0, "x", true), 0);
	CHECK_STR(out, "");
	CHECK_INT(regex_subst(out, 0, re, "", 0, "x", true), 0);
	CHECK(!regex_exec(re, NULL, 0));
	regex_free(re);
}

/* Inputs of a megabyte with one engine: a match at the end, a global substitution doubling
 * 100 kB, an empty-match global substitution over 100 kB, heavy backtracking, and a length
 * over INT_MAX refused.
 */
static void long_input(const char *s, size_t big, char *out, size_t mid, uint32_t engine)
{
	struct regex *re = comp("need(le)$", engine);
	struct regex *aa = comp("a", engine);
	struct regex *em = comp("b*", engine);
	struct regex *bt = comp("^(a|aa)+$", engine);
	struct regex_match m[2];
	size_t i;
	int n;

	if (!re || !aa || !em || !bt)
		goto out_free;
	CHECK(regex_exec_match(re, s, big, m, 2));
	CHECK_INT(m[0].so, big - 6);
	CHECK_INT(m[1].eo, big);
	CHECK(!regex_exec(re, s, big - 1));
	n = regex_subst(out, 2 * mid, aa, s, mid, "bb", true);
	CHECK_INT(n, 2 * mid);
	for (i = 0; n > 0 && i < (size_t)n && out[i] == 'b'; i++)
		;
	CHECK_INT(i, 2 * mid);
	CHECK_INT(regex_subst(out, 2 * mid - 1, aa, s, mid, "bb", true), -1);
	n = regex_subst(out, 3 * mid + 2, em, s, mid, "-", true);
	CHECK_INT(n, 2 * mid + 1);
	CHECK(n > 3 && !memcmp(out, "-a-a", 4) && out[n - 1] == '-');
	/* a match or a limit error (the JIT's stack), never a hang or a crash */
	CHECK(regex_search(bt, s, 30000, m, 1) != 0);
	CHECK_INT(regex_search(re, "needle", (size_t)INT_MAX + 1, m, 1), -1);
	CHECK(!regex_exec(re, "needle", (size_t)INT_MAX + 1));
out_free:
	regex_free(re);
	regex_free(aa);
	regex_free(em);
	regex_free(bt);
}

TEST(regex_long_input)
{
	size_t big = 1 << 20, mid = 100000, e;
	char *s = malloc(big), *out = malloc(3 * mid + 2);

	if (!s || !out) {
		test_fail(__FILE__, __LINE__, "malloc");
	} else {
		memset(s, 'a', big);
		memcpy(s + big - 6, "needle", 6);
		for (e = 0; e < ARRAY_SIZE(engines); e++)
			long_input(s, big, out, mid, engines[e]);
	}
	free(s);
	free(out);
}

struct thr_arg {
	const struct regex *re[2];
	int bad;
};

static void *thr_run(void *p)
{
	struct thr_arg *a = p;
	struct regex_match m[3];
	char out[64];
	int i;

	for (i = 0; i < 20000; i++) {
		const char *s = (i & 1) ? "GET /api/v2/users" : "GET /index.html";
		bool want = i & 1;

		if (regex_exec_match(a->re[i & 1 ? 0 : 1], s, strlen(s), m, 3) != true)
			a->bad++;
		if (regex_exec(a->re[0], s, strlen(s)) != want)
			a->bad++;
		if (want && (m[1].so != 10 || m[1].eo != 11))
			a->bad++;
		if (want && (regex_subst(out, sizeof(out), a->re[0], s, strlen(s), "/api/v\\1-\\2",
					 false) != 17 ||
			     strcmp(out, "GET /api/v2-users")))
			a->bad++;
	}
	regex_thread_release();
	return NULL;
}

/* Shared regexes, one match data per thread, each released at the thread's end (ASan's
 * leak check would see one that is not).
 */
TEST(regex_threads)
{
	struct thr_arg args[4];
	pthread_t th[4];
	struct regex *re = comp("/api/v([0-9])/(\\w+)", 0);
	struct regex *ix = comp("/(index)\\.(html)", REGEX_NOJIT);
	int i;

	if (!re || !ix)
		goto out;
	for (i = 0; i < 4; i++) {
		args[i] = (struct thr_arg){ { re, ix }, 0 };
		CHECK_INT(pthread_create(&th[i], NULL, thr_run, &args[i]), 0);
	}
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CHECK_INT(args[i].bad, 0);
	}
out:
	regex_free(re);
	regex_free(ix);
}

TEST(regex_thread_data)
{
	struct regex *re = comp("b", 0);

	CHECK_INT(regex_thread_init(), 0);
	CHECK_INT(regex_thread_init(), 0); /* idempotent */
	regex_thread_release();
	regex_thread_release();
	CHECK(re && regex_exec(re, "abc", 3)); /* created again on use */
	regex_thread_release();
	regex_free(re);
}

#else /* !USE_PCRE2 */

TEST(regex_not_built_in)
{
	struct regex_match m[1];
	char err[128], out[8];

	CHECK(regex_comp("abc", 0, err, sizeof(err)) == NULL);
	CHECK_STR(err, "regex support is not built in (USE_PCRE2=0)");
	CHECK(!regex_exec(NULL, "abc", 3));
	CHECK_INT(regex_search(NULL, "abc", 3, m, 1), -1);
	CHECK_INT(regex_subst(out, sizeof(out), NULL, "abc", 3, "x", true), -1);
	CHECK_INT(regex_thread_init(), 0);
	regex_thread_release();
	regex_free(NULL);
}

#endif /* USE_PCRE2 */
