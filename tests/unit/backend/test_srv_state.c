/* Unit tests of the server state file parser: the version line, comments, the fields that
 * are applied, bounds, and invalid lines skipped. */
#include <string.h>
#include <backend/srv_state.h>
#include "../test.h"

struct got {
	struct srvstate_rec r[4];
	int n;
};

static int collect(void *arg, const struct srvstate_rec *r)
{
	struct got *g = arg;

	if (g->n < 4)
		g->r[g->n++] = *r;
	return 0;
}

static bool eq(struct ist v, const char *s)
{
	return v.len == strlen(s) && !memcmp(v.ptr, s, v.len);
}

TEST(srvstate_parses_what_show_servers_state_writes)
{
	const char *f = "1\n# be_id be_name srv_id srv_name ...\n"
			"2 be 1 s1 127.0.0.1 0 1 1 1 0 1 0 0 0 0 0 0 - 26201 - 0 0 - - 0\n"
			"2 be 2 s2 ::1 2 0 3 1 1 1 0 2 0 0 0 0 - 26202 - 0 0 - - 0\r\n";
	struct got g = { .n = 0 };
	int bad;

	CHECK_INT(srvstate_parse(f, strlen(f), collect, &g, &bad), 0);
	CHECK_INT(bad, 0);
	CHECK_INT(g.n, 2);
	CHECK(eq(g.r[0].be_name, "be") && eq(g.r[0].srv_name, "s1"));
	CHECK_INT(g.r[0].admin_state, 1);
	CHECK_INT(g.r[0].op_state, 0);
	CHECK_INT(g.r[1].uweight, 3);
	CHECK_INT(g.r[1].iweight, 1);
	CHECK(eq(g.r[1].srv_addr, "::1"));
	CHECK_INT(g.r[1].line, 4);
	CHECK_INT(g.r[1].nfields, 25);
}

TEST(srvstate_rejects_other_versions)
{
	struct got g = { .n = 0 };
	int bad;

	CHECK_INT(srvstate_parse("2\n1 a 1 b c 2 0 1 1\n", 19, collect, &g, &bad), -1);
	CHECK_INT(srvstate_parse("", 0, collect, &g, &bad), -1);
	CHECK_INT(g.n, 0);
}

TEST(srvstate_skips_invalid_lines)
{
	const char *f = "1\n1 a 1 b c 2 0 300 1\n1 a 1 b c 4 0 1 1\n1 a x b c 2 0 1 1\n"
			"1 a 1 b\n1 a 1 b c 2 0 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n"
			"1 a 1 b c 2 0 256 0\n";
	struct got g = { .n = 0 };
	int bad;

	CHECK_INT(srvstate_parse(f, strlen(f), collect, &g, &bad), 0);
	CHECK_INT(bad, 5); /* weight 300, op 4, id x, too few, too many fields */
	CHECK_INT(g.n, 1);
	CHECK_INT(g.r[0].uweight, 256);
}
