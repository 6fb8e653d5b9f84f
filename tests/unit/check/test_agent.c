/* Unit tests of the agent-check reply parser: each word HAProxy 2.6 knows, combinations,
 * separators, case, descriptions after '#', unknown and malformed words ignored. */
#include <string.h>
#include <check/agent.h>
#include "../test.h"

static struct agent_reply parse(const char *s)
{
	struct agent_reply r;

	agent_parse(s, strlen(s), &r);
	return r;
}

TEST(agent_parse_words)
{
	struct agent_reply r = parse("75%\n");

	CHECK_INT(r.weight_pct, 75);
	CHECK_INT(r.state, AGENT_ST_NONE);
	CHECK_INT(r.maxconn, -1);
	r = parse("up\n");
	CHECK_INT(r.state, AGENT_ST_UP);
	CHECK_INT((int)r.word.len, 2);
	CHECK_INT(parse("down").state, AGENT_ST_DOWN);
	CHECK_INT(parse("fail\r\n").state, AGENT_ST_DOWN);
	CHECK_INT(parse("STOPPED\n").state, AGENT_ST_DOWN);
	CHECK_INT(parse("ready").admin, AGENT_ADM_READY);
	CHECK_INT(parse("Drain").admin, AGENT_ADM_DRAIN);
	CHECK_INT(parse("maint").admin, AGENT_ADM_MAINT);
	CHECK_INT(parse("maxconn:30").maxconn, 30);
	CHECK_INT(parse("0%").weight_pct, 0);
	CHECK_INT(parse("300%").weight_pct, 300);
}

TEST(agent_parse_combinations)
{
	struct agent_reply r = parse("maxconn:1 25%,drain\tup\n");

	CHECK_INT(r.maxconn, 1);
	CHECK_INT(r.weight_pct, 25);
	CHECK_INT(r.admin, AGENT_ADM_DRAIN);
	CHECK_INT(r.state, AGENT_ST_UP);
	r = parse("up down\n"); /* the last state word wins */
	CHECK_INT(r.state, AGENT_ST_DOWN);
	r = parse("ready,up 100%\nmaint\n"); /* only the first line counts */
	CHECK_INT(r.admin, AGENT_ADM_READY);
	CHECK_INT(r.weight_pct, 100);
}

TEST(agent_parse_description)
{
	struct agent_reply r = parse("fail #broken disk\n");

	CHECK_INT(r.state, AGENT_ST_DOWN);
	CHECK(r.desc.len == 11 && !memcmp(r.desc.ptr, "broken disk", 11));
	r = parse("down#x y\n"); /* "down#x" is one unknown word, as 2.6 */
	CHECK_INT(r.state, AGENT_ST_NONE);
	r = parse("# 50% up\n");
	CHECK_INT(r.weight_pct, -1);
	CHECK_INT(r.state, AGENT_ST_NONE);
}

TEST(agent_parse_ignores_junk)
{
	struct agent_reply r = parse("foo 7x% %, maxconn: maxconn:x -5% 1.5%\n");

	CHECK_INT(r.weight_pct, -1);
	CHECK_INT(r.maxconn, -1);
	CHECK_INT(r.state, AGENT_ST_NONE);
	CHECK_INT(r.admin, AGENT_ADM_NONE);
	r = parse("");
	CHECK_INT(r.state, AGENT_ST_NONE);
	CHECK_INT(parse("99999999999999999999%").weight_pct, 1000000);
	CHECK_INT(agent_line_len("up", 2), -1);
	CHECK_INT(agent_line_len("up\r\n", 4), 2);
}
