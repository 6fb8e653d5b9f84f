/* Unit tests of the "show profiling" argument parser (stats/prof_args). */
#include <stats/prof_args.h>
#include "../test.h"

static int parse(const char *line, struct sp_opts *o)
{
	static char buf[256];
	char *args[16];
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *p = strtok(buf, " "); p && n < 16; p = strtok(NULL, " "))
		args[n++] = p;
	return sp_parse_args(args, n, o);
}

TEST(prof_args_parts_and_options)
{
	struct sp_opts o;

	CHECK_INT(parse("", &o), 0);
	CHECK_INT((int)o.flags, SP_STATUS | SP_TASKS);
	CHECK_INT(parse("status", &o), 0);
	CHECK_INT((int)o.flags, SP_STATUS);
	CHECK_INT(parse("tasks byaddr 12", &o), 0);
	CHECK_INT((int)o.flags, SP_TASKS | SP_BYADDR);
	CHECK_INT((int)o.maxcnt, 12);
	CHECK_INT(parse("memory", &o), 0);
	CHECK_INT((int)o.flags, 0);
	CHECK_INT(parse("all 1", &o), 0);
	CHECK_INT((int)o.flags, SP_STATUS | SP_TASKS);
	CHECK_INT((int)o.maxcnt, 1);
	CHECK_INT(parse("tasks bytime aggr bygroup pct", &o), 0);
	CHECK_INT((int)o.flags, SP_TASKS | SP_BYTIME | SP_AGGR | SP_BYGROUP | SP_PCT);
}

TEST(prof_args_errors)
{
	struct sp_opts o;

	CHECK_INT(parse("foo", &o), -1);
	CHECK_INT(parse("tasks 12x", &o), -1);
	CHECK_INT(parse("-1", &o), -1);
	CHECK_INT(parse("99999999999999999999999", &o), -1); /* overflow */
	CHECK_INT(parse("18446744073709551609", &o), 0);
	CHECK_INT(parse("TASKS", &o), -1);
}
