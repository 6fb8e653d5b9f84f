/* Unit tests of log-format strings (compilation, rendering, flags, errors) and of
 * variables (scopes, types, overwrite, unset, size limits).
 */
#include <string.h>

#include <sample/logfmt.h>
#include <sample/sample.h>
#include <sample/vars.h>
#include "../test.h"

/* Renders <fmt> on no traffic into out; returns the length or -1 (err set). */
static int render(const char *fmt, char *out, size_t outsz, char *err, size_t errsz)
{
	struct smp_ctx ctx = { 0 };
	struct lf_expr lf;
	int n;

	if (lf_compile(&lf, fmt, NULL, err, errsz) < 0)
		return -1;
	n = lf_render(&lf, &ctx, out, outsz - 1);
	if (n >= 0)
		out[n] = 0;
	lf_free(&lf);
	return n;
}

#define LF_IS(fmt, want)                                                         \
	do {                                                                     \
		char _o[256], _e[256] = "";                                      \
		if (render(fmt, _o, sizeof(_o), _e, sizeof(_e)) < 0)             \
			test_fail(__FILE__, __LINE__, "'%s' failed: %s", fmt, _e); \
		else if (strcmp(_o, want))                                       \
			test_fail(__FILE__, __LINE__, "'%s' gave '%s', expected '%s'", \
				  fmt, _o, want);                                \
	} while (0)

TEST(logfmt_render)
{
	LF_IS("plain text", "plain text");
	LF_IS("100%%", "100%");
	LF_IS("%%[x]", "%[x]");
	LF_IS("a=%[str(x)] b=%[int(42)]", "a=x b=42");
	LF_IS("%[str(a\\\"b\\\\c])]", "a\"b\\c]");
	LF_IS("%{+E}[str(a\\\"b\\\\c])]", "a\\\"b\\\\c\\]");
	LF_IS("[%[var(txn.none)]]", "[]");
	LF_IS("%[bool(1)]%[always_false]", "10");
	LF_IS("", "");
	/* control bytes of samples are written %XX (TAB and bytes >= 0x80 as they are) */
	LF_IS("%[str(a%0D%0Ab%09c%7F%C3%A9),url_dec]", "a%0D%0Ab\tc%7F\xc3\xa9");
	LF_IS("lit\t%[str(%01),url_dec]", "lit\t%01");
}

TEST(logfmt_const_and_errors)
{
	struct lf_expr lf;
	char err[256], out[8];

	CHECK(lf_compile(&lf, "just text %%", NULL, err, sizeof(err)) == 0);
	CHECK(lf_is_const(&lf));
	CHECK(ist_eq(lf_text(&lf), IST("just text %")));
	lf_free(&lf);
	CHECK(lf_compile(&lf, "x %[str(y)]", NULL, err, sizeof(err)) == 0);
	CHECK(!lf_is_const(&lf));
	lf_free(&lf);
	CHECK_INT(render("%[str(x)", out, sizeof(out), err, sizeof(err)), -1);
	CHECK_HAS(err, "missing ']'");
	CHECK_INT(render("%[nosuch]", out, sizeof(out), err, sizeof(err)), -1);
	CHECK_HAS(err, "unknown fetch method 'nosuch'");
	CHECK_INT(render("%zz", out, sizeof(out), err, sizeof(err)), -1);
	CHECK_HAS(err, "no such format variable 'zz'");
	CHECK_INT(render("50% off", out, sizeof(out), err, sizeof(err)), -1);
	CHECK_HAS(err, "unexpected character ' ' after '%'");
	CHECK_INT(render("%{+Z}[str(a)]", out, sizeof(out), err, sizeof(err)), -1);
	CHECK_HAS(err, "unknown log-format flag '+Z'");
	LF_IS("%[str(a)],x]", "a,x]"); /* text after the expression's ']' */
	/* output that does not fit fails instead of truncating */
	CHECK_INT(render("%[str(0123456789)]", out, sizeof(out), err, sizeof(err)), -1);
}

TEST(vars_scopes_and_types)
{
	struct smp_ctx ctx = { 0 };
	struct var_desc d, t;
	struct sample smp = { .ctx = &ctx }, got = { .ctx = &ctx };
	char err[256], big[200];

	CHECK(vars_parse_desc("proc.x", &d, err, sizeof(err)) == 0);
	CHECK(vars_parse_desc("txn.x", &t, err, sizeof(err)) == 0);
	CHECK(d.id == t.id && d.scope == VS_PROC && t.scope == VS_TXN);
	CHECK(vars_parse_desc("nope.x", &d, err, sizeof(err)) < 0);
	CHECK_HAS(err, "must be prefixed by its scope");
	CHECK(vars_parse_desc("txn.a-b", &d, err, sizeof(err)) < 0);
	CHECK(vars_parse_desc("proc.x", &d, err, sizeof(err)) == 0);

	/* no stream: txn variables have no storage */
	smp.data.type = SMP_T_SINT;
	smp.data.u.sint = 7;
	CHECK_INT(vars_set(&ctx, &t, &smp), 0);
	CHECK_INT(vars_get(&ctx, &t, &got), 0);

	CHECK_INT(vars_set(&ctx, &d, &smp), 1);
	CHECK_INT(vars_get(&ctx, &d, &got), 1);
	CHECK_INT(got.data.type, SMP_T_SINT);
	CHECK_INT(got.data.u.sint, 7);
	memset(big, 'z', sizeof(big));
	smp.data.type = SMP_T_STR;
	smp.data.u.str = ist2(big, sizeof(big)); /* longer than an entry holds inline */
	CHECK_INT(vars_set(&ctx, &d, &smp), 1);
	CHECK_INT(vars_get(&ctx, &d, &got), 1);
	CHECK(got.data.type == SMP_T_STR && got.data.u.str.len == sizeof(big));
	smp.data.u.str = IST("short");
	CHECK_INT(vars_set(&ctx, &d, &smp), 1);
	CHECK_INT(vars_get(&ctx, &d, &got), 1);
	CHECK(ist_eq(got.data.u.str, IST("short")));
	vars_max_size[VS_PROC] = 10;
	smp.data.u.str = IST("much too long for the limit");
	CHECK_INT(vars_set(&ctx, &d, &smp), 0);
	vars_max_size[VS_PROC] = 0;
	vars_unset(&ctx, &d);
	CHECK_INT(vars_get(&ctx, &d, &got), 0);
	{
		struct var_desc lk;

		CHECK(vars_lookup_desc("proc.x", 6, &lk) == 0 && lk.id == d.id);
		CHECK(vars_lookup_desc("proc.unknown", 12, &lk) < 0);
	}
	vars_deinit();
}
