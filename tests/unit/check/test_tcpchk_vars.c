/* Unit tests of check variables (src/check/tcpcheck_vars.c and the check scope of
 * src/sample/vars.c): check.* and sess.* live in the check being evaluated and nowhere
 * else, set/unset rules and status-code expressions, and the reset between runs.
 */
#include <string.h>

#include <backend/server-t.h>
#include <check/tcpcheck.h>
#include <proxy/proxy-t.h>
#include <sample/sample.h>
#include <sample/vars.h>
#include "../test.h"

static struct sample_expr *expr(const char *s)
{
	char err[256];
	struct sample_expr *e = sample_parse_expr(s, NULL, NULL, err, sizeof(err));

	if (!e)
		test_fail(__FILE__, __LINE__, "'%s': %s", s, err);
	return e;
}

TEST(tcpchk_vars_scope)
{
	struct smp_ctx ctx = { 0 };
	struct vars v[2] = { { 0 }, { 0 } };
	struct var_desc ck, ss;
	struct sample smp = { .ctx = &ctx }, got = { .ctx = &ctx };
	char err[256];

	CHECK(vars_parse_desc("check.u1", &ck, err, sizeof(err)) == 0);
	CHECK(vars_parse_desc("sess.u1", &ss, err, sizeof(err)) == 0);
	smp.data.type = SMP_T_SINT;
	smp.data.u.sint = 5;
	/* outside a check: no storage */
	CHECK_INT(vars_set(&ctx, &ck, &smp), 0);
	vars_check_cur = v;
	CHECK_INT(vars_set(&ctx, &ck, &smp), 1);
	smp.data.u.sint = 6;
	CHECK_INT(vars_set(&ctx, &ss, &smp), 1); /* no connection: the check's session */
	CHECK_INT(vars_get(&ctx, &ck, &got), 1);
	CHECK_INT(got.data.u.sint, 5);
	CHECK_INT(vars_get(&ctx, &ss, &got), 1);
	CHECK_INT(got.data.u.sint, 6);
	CHECK(v[0].head && v[1].head);
	vars_check_cur = NULL;
	CHECK_INT(vars_get(&ctx, &ck, &got), 0);
	vars_prune(&v[0]);
	vars_prune(&v[1]);
	CHECK(!v[0].head && !v[1].head);
}

TEST(tcpchk_vars_rules)
{
	struct proxy px;
	struct server srv;
	struct check c;
	struct tcpchk_rule r;
	struct smp_ctx ctx = { 0 };
	struct sample got = { .ctx = &ctx };
	char err[256];

	memset(&px, 0, sizeof(px));
	memset(&srv, 0, sizeof(srv));
	memset(&c, 0, sizeof(c));
	memset(&r, 0, sizeof(r));
	srv.px = &px;
	c.srv = &srv;
	r.act = TCPCHK_ACT_SETVAR;
	CHECK(vars_parse_desc("check.u2", &r.var, err, sizeof(err)) == 0);
	r.vexpr = expr("str(abc)");
	tcpchk_do_var(&c, &r);
	CHECK(vars_check_cur == NULL); /* visible only while the check evaluates */
	vars_check_cur = c.vars;
	CHECK_INT(vars_get(&ctx, &r.var, &got), 1);
	CHECK(got.data.type == SMP_T_STR && got.data.u.str.len == 3 &&
	      !memcmp(got.data.u.str.ptr, "abc", 3));
	vars_check_cur = NULL;

	/* status-code: the expression's integer, else the default */
	r.code_expr = expr("var(check.u2),length,add(40)");
	CHECK_INT(tcpchk_code(&c, &r, 7), 43);
	r.act = TCPCHK_ACT_UNSETVAR;
	tcpchk_do_var(&c, &r);
	CHECK_INT(tcpchk_code(&c, &r, 7), 7);
	CHECK(c.vars[0].head == NULL);

	/* a new run starts empty */
	r.act = TCPCHK_ACT_SETVAR;
	tcpchk_do_var(&c, &r);
	CHECK(c.vars[0].head != NULL);
	tcpchk_vars_reset(&c);
	CHECK(c.vars[0].head == NULL);
	tcpchk_var_clear(&r);
	CHECK(!r.vexpr && !r.code_expr);
}
