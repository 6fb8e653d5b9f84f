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

TEST(srvstate_port_and_header_comment)
{
	/* 2.6's header comment has 26 words: a comment all the same */
	const char *f = "1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state "
			"srv_uweight srv_iweight srv_time_since_last_change srv_check_status "
			"srv_check_result srv_check_health srv_check_state srv_agent_state "
			"bk_f_forced_id srv_f_forced_id srv_fqdn srv_port srvrecord srv_use_ssl "
			"srv_check_port srv_check_addr srv_agent_addr srv_agent_port\n"
			"  # indented\n"
			"3 be 1 s1 10.0.0.5 2 0 1 1 100 1 0 2 0 0 0 0 a.test 9001 - 0 0 - - 0\n"
			"3 be 2 s2 10.0.0.6 2 0 1 1\n"
			"3 be 3 s3 10.0.0.7 2 0 1 1 100 1 0 2 0 0 0 0 - 65536 - 0 0 - - 0\n";
	struct got g = { .n = 0 };
	int bad;

	CHECK_INT(srvstate_parse(f, strlen(f), collect, &g, &bad), 0);
	CHECK_INT(bad, 1); /* port 65536 */
	CHECK_INT(g.n, 2);
	CHECK_INT(g.r[0].port, 9001);
	CHECK(eq(g.r[0].srv_addr, "10.0.0.5"));
	CHECK_INT(g.r[1].port, -1); /* a short line has none */
}
