/* Unit tests of ACL lines (derived keywords, flags, operators, pattern files), every match
 * method, conditions (if/unless, "!", "||"/"or", anonymous ACLs, predefined ACLs), and the
 * error messages of bad lines. Samples come from constant fetches and proc variables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/list.h>
#include <sample/acl.h>
#include <sample/pattern.h>
#include <sample/sample.h>
#include <sample/vars.h>
#include "../test.h"

/* Splits <line> on spaces into words (modified in place). */
static int split_words(char *line, char **w, int max)
{
	int n = 0;

	for (char *p = strtok(line, " "); p && n < max; p = strtok(NULL, " "))
		w[n++] = p;
	return n;
}

/* Result of the ACL line <line> ("criterion flags patterns") on no traffic. */
static int acl_line_result(const char *line, char *err, size_t errsz)
{
	struct smp_ctx ctx = { 0 };
	struct acl_expr *e;
	char buf[512], *w[32];
	struct list acls;
	char *cw[2] = { "if", "a" };
	struct acl_cond *c;
	int n, res;

	snprintf(buf, sizeof(buf), "%s", line);
	n = split_words(buf, w, 32);
	e = acl_parse_expr(w, n, NULL, err, errsz);
	if (!e)
		return -1;
	acl_expr_free(e);
	list_init(&acls);
	snprintf(buf, sizeof(buf), "%s", line);
	n = split_words(buf, w, 32);
	if (acl_add_line(&acls, "a", w, n, NULL, err, errsz) < 0)
		return -1;
	c = acl_cond_parse(cw, 2, &acls, NULL, err, errsz);
	res = c ? acl_cond_exec(c, &ctx) == ACL_TEST_PASS : -1;
	acl_cond_free(c);
	acl_free_list(&acls);
	return res;
}

#define ACL_IS(line, want)                                                       \
	do {                                                                     \
		char _err[256] = "";                                             \
		int _r = acl_line_result(line, _err, sizeof(_err));              \
		if (_r != (want))                                                \
			test_fail(__FILE__, __LINE__, "'%s' gave %d, expected %d (%s)", \
				  line, _r, want, _err);                         \
	} while (0)

TEST(acl_match_methods)
{
	ACL_IS("str(/api/users) -m beg /api /x", 1);
	ACL_IS("str(/api/users) -m beg /x", 0);
	ACL_IS("str(/api/users) -m end users", 1);
	ACL_IS("str(/api/users) -m sub pi/u", 1);
	ACL_IS("str(/api/users) -m dir users", 1);
	ACL_IS("str(/api/users) -m dir use", 0);
	ACL_IS("str(www.example.com) -m dom example", 1);
	ACL_IS("str(www.example.com) -m dom exam", 0);
	ACL_IS("str(www.example.com) -m dom example.com", 1);
	ACL_IS("str(abc) -m str abc", 1);
	ACL_IS("str(abc) -m str ABC", 0);
	ACL_IS("str(abc) -i -m str ABC", 1);
	ACL_IS("str(abc) -m len 3", 1);
	ACL_IS("str(abc) -m len 4:", 0);
#ifdef USE_PCRE2 /* the aarch64 check builds without PCRE2 */
	ACL_IS("str(abc) -m reg ^a.c$", 1);
	ACL_IS("str(ABC) -i -m reg ^a.c$", 1);
#endif
	ACL_IS("str(abc) -m found", 1);
	ACL_IS("str(10.1.2.3) -m ip 10.0.0.0/8", 1);
	ACL_IS("str(10.1.2.3) -m ip 192.168.0.0/16 ::1", 0);
	ACL_IS("str(::ffff:10.1.2.3) -m ip 10.0.0.0/8", 1);
	ACL_IS("str(ab) -m bin 6162", 1);
}

TEST(acl_integers_operators_ranges)
{
	ACL_IS("int(5) 5", 1);
	ACL_IS("int(5) 1:4 6:", 0);
	ACL_IS("int(5) 1:5", 1);
	ACL_IS("int(5) :5", 1);
	ACL_IS("int(5) gt 4", 1);
	ACL_IS("int(5) gt 5", 0);
	ACL_IS("int(5) ge 5", 1);
	ACL_IS("int(5) lt 5", 0);
	ACL_IS("int(5) le 5", 1);
	ACL_IS("int(5) eq 5", 1);
	ACL_IS("int(-3) lt 0", 1);
	ACL_IS("bool(1)", 1);
	ACL_IS("bool(0)", 0);
	ACL_IS("always_false", 0);
	ACL_IS("always_true", 1);
}

TEST(acl_errors)
{
	char err[256];

	CHECK_INT(acl_line_result("nosuch 1", err, sizeof(err)), -1);
	CHECK_HAS(err, "unknown fetch method 'nosuch'");
	CHECK_INT(acl_line_result("str(a) -m nope a", err, sizeof(err)), -1);
	CHECK_HAS(err, "unknown matching method 'nope' when parsing ACL expression");
	CHECK_INT(acl_line_result("str(a) -x a", err, sizeof(err)), -1);
	CHECK_HAS(err, "'-x' is not a valid ACL option");
	CHECK_INT(acl_line_result("int(1) gt", err, sizeof(err)), -1);
	CHECK_HAS(err, "missing value after operator 'gt'");
	CHECK_INT(acl_line_result("int(1) abc", err, sizeof(err)), -1);
	CHECK_HAS(err, "'abc' is not a number");
	CHECK_INT(acl_line_result("str(a) -m reg (", err, sizeof(err)), -1);
	CHECK_HAS(err, "regex '(' is invalid"); /* without PCRE2: "is invalid: not built in" */
	CHECK_INT(acl_line_result("str(a) -m ip 300.1.1.1", err, sizeof(err)), -1);
	CHECK_HAS(err, "not a valid IPv4 or IPv6 address");
	CHECK_INT(acl_line_result("str(a) -f /nonexistent/file", err, sizeof(err)), -1);
	CHECK_HAS(err, "failed to open pattern file </nonexistent/file>");
	CHECK_INT(acl_line_result("int(1 1", err, sizeof(err)), -1);
	CHECK_INT(acl_line_result("str(a) -- -i", err, sizeof(err)), 0); /* "-i" is a pattern */
}

TEST(acl_pattern_files)
{
	char dir[64], path[128], line[256];

	test_tmpdir(dir, "acl");
	test_write_file(dir, "nets", "# comment\n\n  10.0.0.0/8  \n192.168.1.0/24\n::1\n");
	test_write_file(dir, "words", "alpha\nBeta\n");
	test_write_file(dir, "map", "key1 value one\nkey2\tv2\n");
	snprintf(path, sizeof(path), "%s/nets", dir);
	snprintf(line, sizeof(line), "str(192.168.1.7) -m ip -f %s", path);
	ACL_IS(line, 1);
	snprintf(line, sizeof(line), "str(192.168.2.7) -m ip -f %s", path);
	ACL_IS(line, 0);
	snprintf(line, sizeof(line), "str(beta) -i -f %s/words", dir);
	ACL_IS(line, 1);
	snprintf(line, sizeof(line), "str(gamma) -f %s/words -f %s/map -M", dir, dir);
	ACL_IS(line, 0);
	snprintf(line, sizeof(line), "str(key2) -M -f %s/map", dir);
	ACL_IS(line, 1);
	test_write_file(dir, "bad", "10.0.0.0/8\nnot-an-ip\n");
	snprintf(line, sizeof(line), "str(1.2.3.4) -m ip -f %s/bad", dir);
	{
		char err[256];

		CHECK_INT(acl_line_result(line, err, sizeof(err)), -1);
		CHECK_HAS(err, "/bad:2: 'not-an-ip' is not a valid IPv4 or IPv6 address");
	}
	test_rmdir(dir);
}

/* Parses and runs the condition <text> with the ACLs a (true) and b, c (false). */
static int cond_result(const char *text, char *err, size_t errsz)
{
	char *t[] = { "always_true" }, *f[] = { "always_false" };
	struct smp_ctx ctx = { 0 };
	struct list acls;
	char buf[256], *w[32];
	struct acl_cond *c;
	int n, res;

	list_init(&acls);
	acl_add_line(&acls, "a", t, 1, NULL, err, errsz);
	acl_add_line(&acls, "b", f, 1, NULL, err, errsz);
	acl_add_line(&acls, "c", f, 1, NULL, err, errsz);
	acl_add_line(&acls, "c", t, 1, NULL, err, errsz); /* c = false OR true */
	snprintf(buf, sizeof(buf), "%s", text);
	n = split_words(buf, w, 32);
	c = acl_cond_parse(w, n, &acls, NULL, err, errsz);
	res = c ? acl_cond_exec(c, &ctx) == ACL_TEST_PASS : -1;
	acl_cond_free(c);
	acl_free_list(&acls);
	return res;
}

#define COND_IS(text, want)                                                      \
	do {                                                                     \
		char _err[256] = "";                                             \
		int _r = cond_result(text, _err, sizeof(_err));                  \
		if (_r != (want))                                                \
			test_fail(__FILE__, __LINE__, "'%s' gave %d, expected %d (%s)", \
				  text, _r, want, _err);                         \
	} while (0)

TEST(acl_conditions)
{
	char err[256];

	COND_IS("if a", 1);
	COND_IS("if b", 0);
	COND_IS("unless b", 1);
	COND_IS("if a b", 0);
	COND_IS("if a !b", 1);
	COND_IS("if ! b", 1);
	COND_IS("if b || a", 1);
	COND_IS("if b or a", 1);
	COND_IS("if b || b || a !b", 1);
	COND_IS("unless a || b", 0);
	COND_IS("if c", 1);
	COND_IS("if { str(x) -m str x }", 1);
	COND_IS("if { str(x) -m str y } || { always_true }", 1);
	COND_IS("if !{ always_true }", 0);
	COND_IS("if TRUE", 1);
	COND_IS("if FALSE", 0);
	COND_IS("unless FALSE TRUE", 1);
	CHECK_INT(cond_result("if nosuch", err, sizeof(err)), -1);
	CHECK_HAS(err, "no such ACL : 'nosuch'");
	CHECK_INT(cond_result("if { always_true", err, sizeof(err)), -1);
	CHECK_HAS(err, "missing '}'");
	CHECK_INT(cond_result("if || a", err, sizeof(err)), -1);
	CHECK_INT(cond_result("if", err, sizeof(err)), -1);
	CHECK_INT(cond_result("if a ||", err, sizeof(err)), -1);
}

TEST(acl_header_iteration)
{
	/* a multi-value fetch is walked by ACLs: checked through the condition index
	 * test on variables; here the iteration flag must not leak into expressions */
	struct smp_ctx ctx = { 0 };
	struct sample smp = { .ctx = &ctx };
	char err[128];
	struct sample_expr *e = sample_parse_expr("str(x)", NULL, NULL, err, sizeof(err));

	CHECK(e != NULL);
	if (!e)
		return;
	CHECK(sample_process(e, &smp));
	CHECK(!(smp.flags & SMP_F_NOT_LAST));
	sample_expr_free(e);
}
