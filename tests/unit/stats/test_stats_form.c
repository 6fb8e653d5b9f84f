/* Unit tests of the stats page's client input parsers (stats/stats_form.c). */
#include <string.h>

#include <stats/stats_form.h>

#include "../test.h"

TEST(stats_opts_formats)
{
	struct stats_opts o;
	const char *in = ";csv;norefresh";

	stats_opts_parse(in, strlen(in), &o);
	CHECK_INT(o.fmt, STATS_OUT_CSV);
	CHECK_INT(o.norefresh, 1);
	CHECK_INT(o.up, 0);
	in = ";json;up";
	stats_opts_parse(in, strlen(in), &o);
	CHECK_INT(o.fmt, STATS_OUT_JSON);
	CHECK_INT(o.up, 1);
	in = ";json-schema";
	stats_opts_parse(in, strlen(in), &o);
	CHECK_INT(o.fmt, STATS_OUT_SCHEMA);
	in = ";st=DONE;up";
	stats_opts_parse(in, strlen(in), &o);
	CHECK_STR(o.st, "DONE");
	CHECK_INT(o.fmt, STATS_OUT_HTML);
	in = ";csvx;st=TOOLONG;up?scope=x";
	stats_opts_parse(in, strlen(in), &o);
	CHECK_INT(o.fmt, STATS_OUT_HTML);
	CHECK_STR(o.st, "");
	CHECK_INT(o.up, 1);
}

TEST(stats_form_post)
{
	char body[128] = "s=s1&s=web%202&action=drain&b=%233";
	struct stats_form f;

	CHECK_INT(stats_form_parse(body, strlen(body), &f), 0);
	CHECK_INT(f.nb_srv, 2);
	CHECK_STR(f.srv[0], "s1");
	CHECK_STR(f.srv[1], "web 2");
	CHECK_STR(f.action, "drain");
	CHECK_STR(f.backend, "#3");
}

TEST(stats_form_invalid)
{
	char a[64] = "s=s1&b=be1", b[64] = "action=&b=be1", c[64] = "%zz=&action=maint&b=x%2";
	struct stats_form f;

	CHECK_INT(stats_form_parse(a, strlen(a), &f), -1);
	CHECK_INT(stats_form_parse(b, strlen(b), &f), -1);
	CHECK_INT(stats_form_parse(c, strlen(c), &f), 0);
	CHECK_STR(f.backend, "x%2");
	CHECK_INT(f.nb_srv, 0);
}
