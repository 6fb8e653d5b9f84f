/* Unit tests for cfg/cond.c: operators, precedence, integers, predicates, version
 * comparison and errors, with facts built here (not the binary's).
 */
#include <string.h>

#include <cfg/cond.h>
#include "../test.h"

static bool cond_test_defined(const char *name)
{
	return strcmp(name, "HOME") == 0;
}

static bool cond_test_enabled(const char *name)
{
	return strcmp(name, "EPOLL") == 0;
}

static const struct cond_facts cond_test_facts = {
	.version = "3.2.0",
	.features = "EPOLL +THREAD OPENSSL -LUA",
	.ssl_version = "3.0.19",
	.ssl_name = "OpenSSL",
	.defined = cond_test_defined,
	.enabled = cond_test_enabled,
};

static char cond_err[256];

/* Evaluates the words of <s> split on spaces (as the lexer would give them). */
static int ce(const char *s)
{
	char buf[512], *args[64], *p;
	int n = 0;

	strncpy(buf, s, sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	for (p = strtok(buf, " "); p && n < 64; p = strtok(NULL, " "))
		args[n++] = p;
	return cond_eval(args, n, &cond_test_facts, cond_err, sizeof(cond_err));
}

TEST(cond_integers_and_empty)
{
	CHECK_INT(ce("1"), 1);
	CHECK_INT(ce("0"), 0);
	CHECK_INT(ce("-1"), 1);
	CHECK_INT(ce("0x10"), 1);
	CHECK_INT(ce(""), 0);
	CHECK_INT(ce("1a"), -1);
	CHECK_INT(ce("abc"), -1);
	CHECK_INT(ce("1 1"), -1);
	CHECK(strstr(cond_err, "unexpected character '1'") != NULL);
	{
		char *empty[] = { "" };

		CHECK_INT(cond_eval(empty, 1, &cond_test_facts, cond_err, sizeof(cond_err)), 0);
		CHECK_INT(cond_eval(empty, 0, NULL, NULL, 0), 0);
	}
}

TEST(cond_operators)
{
	CHECK_INT(ce("!0"), 1);
	CHECK_INT(ce("!!0"), 0);
	CHECK_INT(ce("! 1"), 0);
	CHECK_INT(ce("!(0)"), 1);
	CHECK_INT(ce("1&&1"), 1);
	CHECK_INT(ce("1 && 0"), 0);
	CHECK_INT(ce("0 || 1"), 1);
	CHECK_INT(ce("(1) && (0)"), 0);
	/* && binds tighter than || */
	CHECK_INT(ce("1 || 0 && 0"), 1);
	CHECK_INT(ce("0 && 1 || 1"), 1);
	CHECK_INT(ce("0 && (1 || 1)"), 0);
	CHECK_INT(ce("!0 && !(0||1)"), 0);
	CHECK_INT(ce("((((1))))"), 1);
	/* every operand is checked, even after the result is known */
	CHECK_INT(ce("1 || foo(1)"), -1);
	CHECK_INT(ce("!"), -1);
	CHECK_INT(ce("()"), -1);
	CHECK_INT(ce("1 &&"), -1);
	CHECK_INT(ce("(1"), -1);
	CHECK(strstr(cond_err, "expected ')'") != NULL);
	CHECK_INT(ce("1)"), -1);
}

TEST(cond_predicates)
{
	CHECK_INT(ce("feature(OPENSSL)"), 1);
	CHECK_INT(ce("feature(THREAD)"), 1);
	CHECK_INT(ce("feature(OPENSS)"), 0);
	CHECK_INT(ce("feature(LUA)"), 0);
	CHECK_INT(ce("!feature(LUA)"), 1);
	CHECK_INT(ce("defined(HOME)"), 1);
	CHECK_INT(ce("defined(NOPE)"), 0);
	CHECK_INT(ce("defined()"), 0);
	CHECK_INT(ce("streq(a,a)"), 1);
	CHECK_INT(ce("streq(a, a)"), 0);   /* spaces are part of the argument */
	CHECK_INT(ce("streq(\"a\",a)"), 1);
	CHECK_INT(ce("streq('a b',a\\ b)"), 1);
	CHECK_INT(ce("streq(a b,a b)"), 1);  /* words are joined with one space */
	CHECK_INT(ce("streq(,)"), 1);
	CHECK_INT(ce("strneq(a,b)"), 1);
	CHECK_INT(ce("strneq(a,a)"), 0);
	CHECK_INT(ce("version_atleast(3.2)"), 1);
	CHECK_INT(ce("version_atleast(3.2.1)"), 0);
	CHECK_INT(ce("version_atleast(2.4-dev19)"), 1);
	CHECK_INT(ce("version_before(3.2.1)"), 1);
	CHECK_INT(ce("version_before(3.2.0)"), 0);
	CHECK_INT(ce("openssl_version_atleast(3.0.0)"), 1);
	CHECK_INT(ce("openssl_version_before(1.1.1)"), 0);
	CHECK_INT(ce("ssllib_name_startswith(Open)"), 1);
	CHECK_INT(ce("ssllib_name_startswith(Boring)"), 0);
	CHECK_INT(ce("enabled(EPOLL)"), 1);
	CHECK_INT(ce("enabled(POLL)"), 0);
	CHECK_INT(ce("feature(OPENSSL) && (streq(x,yes) || defined(HOME))"), 1);
}

TEST(cond_predicate_errors)
{
	CHECK_INT(ce("foo(1)"), -1);
	CHECK(strstr(cond_err, "unknown predicate 'foo'") != NULL);
	CHECK_INT(ce("feature (OPENSSL)"), -1);
	CHECK_INT(ce("feature"), -1);
	CHECK_INT(ce("streq(a)"), -1);
	CHECK(strstr(cond_err, "missing arguments (got 1/2)") != NULL);
	CHECK_INT(ce("streq(a,b,c)"), -1);
	CHECK_INT(ce("feature(LUA"), -1);
	CHECK_INT(ce("streq(a\"b,a\"b)"), -1);
	CHECK_INT(ce("streq(a\\,b,a\\,b)"), -1);
	/* no facts: predicates about the build are false, string ones still work */
	{
		char *a[] = { "feature(OPENSSL)||streq(x,x)" };

		CHECK_INT(cond_eval(a, 1, NULL, cond_err, sizeof(cond_err)), 1);
	}
}

TEST(cond_nesting_limit)
{
	char buf[512];
	char *a[] = { buf };

	memset(buf, '!', 300);
	buf[300] = '1';
	buf[301] = '\0';
	CHECK_INT(cond_eval(a, 1, &cond_test_facts, cond_err, sizeof(cond_err)), -1);
	memset(buf, '(', 300);
	buf[300] = '\0';
	CHECK_INT(cond_eval(a, 1, &cond_test_facts, cond_err, sizeof(cond_err)), -1);
}

TEST(cond_version_compare)
{
	CHECK(cond_version_cmp("2.4.1", "2.4.1") == 0);
	CHECK(cond_version_cmp("2.4", "2.4.0") == 0);
	CHECK(cond_version_cmp("2.4.1", "2.4") > 0);
	CHECK(cond_version_cmp("2.4-dev3", "2.4") < 0);
	CHECK(cond_version_cmp("2.4-dev3", "2.4-dev19") < 0);
	CHECK(cond_version_cmp("2.4-rc1", "2.4-dev19") > 0);
	CHECK(cond_version_cmp("2.4-pre1", "2.4-rc1") < 0);
	CHECK(cond_version_cmp("2.10", "2.9") > 0);
	CHECK(cond_version_cmp("3.0", "2.99.99") > 0);
	CHECK(cond_version_cmp("2.6.12-1+deb12u4", "2.6.12") > 0);
	CHECK(cond_version_cmp(NULL, "0") == 0);
}
