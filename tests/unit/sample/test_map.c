/* Unit tests of maps (map.c): reading files as HAProxy does (comments, blanks, values with
 * spaces, CRLF), one read per file, every match method and output type, defaults, and the
 * config errors naming the file and line. Expectations come from HAProxy 2.6.
 */
#include <stdio.h>
#include <string.h>

#include <sample/map.h>
#include <sample/pattern.h>
#include <sample/sample.h>

#include "../test.h"
#include "smp_eval.h"

static char mdir[64];

/* Evaluates <fmt> with "%s" replaced by the map directory; "<none>" when no sample,
 * "ERR: message" when refused at parse time. */
static const char *mev(const char *fmt)
{
	char expr[512];

	snprintf(expr, sizeof(expr), fmt, mdir, mdir);
	return smp_eval_text(expr);
}

static const char *mev_type(const char *fmt)
{
	char expr[512], err[256];
	struct smp_ctx ctx = { 0 };
	struct sample smp = { .ctx = &ctx };
	struct sample_expr *e;
	const char *t = "?";

	snprintf(expr, sizeof(expr), fmt, mdir);
	e = sample_parse_expr(expr, NULL, NULL, err, sizeof(err));
	if (e && sample_process(e, &smp))
		t = smp_type_name(smp.data.type);
	sample_expr_free(e);
	return t;
}

static void maps_setup(void)
{
	test_tmpdir(mdir, "map");
	test_write_file(mdir, "s.map",
			"# comment\n"
			"  key1   value one  \n"
			"key2\tv2\n"
			"#x notcomment\n"
			"  # indented\n"
			"key1 dup\n"
			"onlykey\n"
			"\n"
			"/api /api-be\n"
			"/api/v2 /v2-be\n"
			".example.com dom\n");
	test_write_file(mdir, "i.map", "10 ten\n20:30 twenty\n-5 neg\n");
	test_write_file(mdir, "ip.map",
			"10.0.0.0/8 ten\n10.1.0.0/16 ten-one\n2001:db8::/32 v6\n127.0.0.1 lo\n"
			"::ffff:192.168.0.0/112 mapped\n");
	test_write_file(mdir, "re.map",
			"^/user/([0-9]+)/(.*)$ uid=\\1,rest=\\2\n"
			"foo(bar)? f\\1x\n");
	test_write_file(mdir, "crlf.map", "k1 v1\r\nk2 v2 \r\n");
	test_write_file(mdir, "iv.map",
			"p +5\nm -3\ne\nw 99999999999999999999\n"
			"v -99999999999999999999\nn -\n");
	test_write_file(mdir, "ii.map", "10 100\n20:30 200\n");
	test_write_file(mdir, "ipv.map", "a 1.2.3.4\nb ::1\nc 010.001.002.003\n");
	test_write_file(mdir, "bad_int.map", "a 12\nb -3\n\n# c\nc x\n");
	test_write_file(mdir, "bad_ip.map", "a 1.2.3.4\nb 12\n");
	test_write_file(mdir, "bad_ip2.map", "a 1.2.3.256\n");
	test_write_file(mdir, "bad_key.map", "1 one\nx two\n");
	test_write_file(mdir, "bad_re.map", "ok v\n( v\n");
	test_write_file(mdir, "bad_regm.map", "(a) \\1\n(b) \\x4\n");
	test_write_file(mdir, "empty.map", "# nothing\n\n");
}

static void maps_teardown(void)
{
	map_deinit();
	test_rmdir(mdir);
}

TEST(map_file_format)
{
	maps_setup();
	/* leading and trailing blanks dropped, inner ones kept; first of duplicates wins */
	CHECK_STR(mev("str(key1),map(%s/s.map)"), "value one");
	CHECK_STR(mev("str(key2),map_str(%s/s.map)"), "v2");
	CHECK_STR(mev("str(onlykey),map(%s/s.map)"), "");
	/* '#' starts a comment only in the first column */
	CHECK_STR(mev("str(#x),map(%s/s.map)"), "<none>");
	CHECK_STR(mev("str(#),map(%s/s.map)"), "indented");
	CHECK_STR(mev("str(k1),map(%s/crlf.map)"), "v1");
	CHECK_STR(mev("str(k2),map(%s/crlf.map)"), "v2");
	CHECK_STR(mev("str(x),map(%s/empty.map,d)"), "d");
	CHECK_STR(mev_type("str(key2),map(%s/s.map)"), "str");
	maps_teardown();
}

TEST(map_loaded_once)
{
	unsigned int before;
	struct sample_expr *e[4];
	char expr[256], err[256];
	static const char *const fmts[4] = {
		"str(a),map(%s/s.map)",
		"str(a),map_str(%s/s.map)",
		"str(a),map_beg(%s/s.map)",
		"str(a),map_str_int(%s/iv.map)",
	};

	maps_setup();
	before = map_files_loaded();
	for (int i = 0; i < 4; i++) {
		snprintf(expr, sizeof(expr), fmts[i], mdir);
		e[i] = sample_parse_expr(expr, NULL, NULL, err, sizeof(err));
		CHECK(e[i] != NULL);
	}
	CHECK_INT(map_files_loaded() - before, 2);
	/* map and map_str are the same map */
	CHECK(e[0] && e[1] && e[0]->conv[0].args[0].data.map == e[1]->conv[0].args[0].data.map);
	CHECK(e[0] && e[2] && e[0]->conv[0].args[0].data.map != e[2]->conv[0].args[0].data.map);
	CHECK(e[0] && map_count(e[0]->conv[0].args[0].data.map) == 8);
	for (int i = 0; i < 4; i++)
		sample_expr_free(e[i]);
	maps_teardown();
}

TEST(map_match_methods)
{
#ifndef USE_PCRE2 /* these maps use map_reg; the aarch64 check builds without PCRE2 */
	return;
#endif
	maps_setup();
	CHECK_STR(mev("str(/api/v2/x),map_beg(%s/s.map)"), "/v2-be"); /* the longest */
	CHECK_STR(mev("str(/api/v3),map_beg(%s/s.map)"), "/api-be");
	CHECK_STR(mev("str(/ap),map_beg(%s/s.map)"), "<none>");
	CHECK_STR(mev("str(www.example.com),map_dom(%s/s.map)"), "dom");
	CHECK_STR(mev("str(wwwexample.com),map_dom(%s/s.map)"), "<none>");
	CHECK_STR(mev("str(a/api/b),map_dir(%s/s.map)"), "/api-be");
	CHECK_STR(mev("str(a/apix/b),map_dir(%s/s.map)"), "<none>");
	CHECK_STR(mev("str(xkey2y),map_sub(%s/s.map)"), "v2");
	CHECK_STR(mev("str(xxkey1),map_end(%s/s.map)"), "value one");
	CHECK_STR(mev("str(key1x),map_end(%s/s.map)"), "<none>");
	CHECK_STR(mev("str(KEY1),map(%s/s.map)"), "<none>");
	CHECK_STR(mev("str(xfoo),map_reg(%s/re.map)"), "f\\1x");
	CHECK_STR(mev("str(bar),map_reg(%s/re.map)"), "<none>");
	CHECK_STR(mev("str(/user/42/profile),map_regm(%s/re.map)"), "uid=42,rest=profile");
	CHECK_STR(mev("str(xfoobar),map_regm(%s/re.map)"), "fbarx");
	CHECK_STR(mev("str(xfoo),map_regm(%s/re.map)"), "fx"); /* an unset group is empty */
	maps_teardown();
}

TEST(map_int_and_ip_keys)
{
	maps_setup();
	CHECK_STR(mev("int(10),map_int(%s/i.map)"), "ten");
	CHECK_STR(mev("int(25),map_int(%s/i.map)"), "twenty");
	CHECK_STR(mev("int(30),map_int(%s/i.map)"), "twenty");
	CHECK_STR(mev("int(31),map_int(%s/i.map)"), "<none>");
	CHECK_STR(mev("int(-5),map_int(%s/i.map)"), "neg");
	CHECK_STR(mev("str(25),map_int(%s/i.map)"), "twenty");
	CHECK_STR(mev("str(10.1.2.3),map_ip(%s/ip.map)"), "ten-one"); /* the finest network */
	CHECK_STR(mev("str(10.2.2.3),map_ip(%s/ip.map)"), "ten");
	CHECK_STR(mev("str(11.2.2.3),map_ip(%s/ip.map)"), "<none>");
	CHECK_STR(mev("str(127.0.0.1),map_ip(%s/ip.map)"), "lo");
	CHECK_STR(mev("str(2001:db8::5),map_ip(%s/ip.map)"), "v6");
	/* IPv4 in IPv6 (mapped, compatible, 6to4) finds IPv4 networks and the reverse */
	CHECK_STR(mev("str(::ffff:10.1.2.3),map_ip(%s/ip.map)"), "ten-one");
	CHECK_STR(mev("str(::10.1.2.3),map_ip(%s/ip.map)"), "ten-one");
	CHECK_STR(mev("str(2002:0a01:0203::1),map_ip(%s/ip.map)"), "ten-one");
	CHECK_STR(mev("str(192.168.3.4),map_ip(%s/ip.map)"), "mapped");
	CHECK_STR(mev("str(::ffff:192.168.3.4),map_ip(%s/ip.map)"), "mapped");
	CHECK_STR(mev("str(x),map_ip(%s/ip.map,d)"), "<none>"); /* the cast fails first */
	maps_teardown();
}

TEST(map_output_types)
{
	maps_setup();
	CHECK_STR(mev("str(p),map_str_int(%s/iv.map)"), "5");
	CHECK_STR(mev("str(m),map_str_int(%s/iv.map)"), "-3");
	CHECK_STR(mev("str(e),map_str_int(%s/iv.map)"), "0");
	CHECK_STR(mev("str(w),map_str_int(%s/iv.map)"), "9223372036854775807");
	CHECK_STR(mev("str(v),map_str_int(%s/iv.map)"), "-9223372036854775808");
	CHECK_STR(mev("str(n),map_str_int(%s/iv.map)"), "0");
	CHECK_STR(mev_type("str(p),map_str_int(%s/iv.map)"), "sint");
	CHECK_STR(mev("str(p),map_str_int(%s/iv.map),add(1)"), "6");
	CHECK_STR(mev("str(a),map_str_ip(%s/ipv.map)"), "1.2.3.4");
	CHECK_STR(mev("str(b),map_str_ip(%s/ipv.map)"), "::1");
	CHECK_STR(mev("str(c),map_str_ip(%s/ipv.map)"), "10.1.2.3");
	CHECK_STR(mev_type("str(a),map_str_ip(%s/ipv.map)"), "ipv4");
	CHECK_STR(mev_type("str(b),map_str_ip(%s/ipv.map)"), "ipv6");
	CHECK_STR(mev("str(a),map_str_ip(%s/ipv.map),ipmask(8)"), "1.0.0.0");
	CHECK_STR(mev("int(10),map_int_int(%s/ii.map,7)"), "100");
	CHECK_STR(mev("int(11),map_int_int(%s/ii.map,7)"), "7");
	CHECK_STR(mev("str(x),map_beg_ip(%s/ipv.map,::2)"), "::2");
	maps_teardown();
}

TEST(map_defaults)
{
#ifndef USE_PCRE2 /* these maps use map_reg; the aarch64 check builds without PCRE2 */
	return;
#endif
	maps_setup();
	CHECK_STR(mev("str(nokey),map(%s/s.map,def)"), "def");
	CHECK_STR(mev("str(nokey),map(%s/s.map)"), "<none>");
	CHECK_STR(mev("str(nokey),map(%s/s.map,)"), "");
	CHECK_STR(mev("str(z),map_str_int(%s/iv.map,+7)"), "7");
	CHECK_STR(mev("str(z),map_str_int(%s/iv.map,)"), "0");
	CHECK_STR(mev_type("str(z),map_str_int(%s/iv.map,-2)"), "sint");
	CHECK_STR(mev("str(z),map_str_ip(%s/ipv.map,::2)"), "::2");
	CHECK_STR(mev("str(z),map_str_ip(%s/ipv.map,010.0.0.1)"), "10.0.0.1");
	CHECK_STR(mev_type("str(z),map_str_ip(%s/ipv.map,1.1.1.1)"), "ipv4");
	CHECK_STR(mev("str(nope),map_regm(%s/re.map,'d\\1')"), "d\\1");
	maps_teardown();
}

/* <msg> with "%s" replaced by the map directory. */
static const char *with_dir(const char *msg)
{
	static char m[256];

	snprintf(m, sizeof(m), msg, mdir);
	return m;
}

/* Fails unless evaluating <fmt> is refused with a message containing <msg> (with "%s" in
 * msg replaced by the map directory). */
#define CHECK_MERR(fmt, msg)                                           \
	do {                                                           \
		const char *_r = mev(fmt), *_m = with_dir(msg);        \
		if (strncmp(_r, "ERR: ", 5) || !strstr(_r, _m))        \
			test_fail(__FILE__, __LINE__,                  \
				  "%s gave \"%s\", expected an error " \
				  "with \"%s\"",                       \
				  (fmt), _r, _m);                      \
	} while (0)

TEST(map_errors_name_file_and_line)
{
#ifndef USE_PCRE2 /* these maps use map_reg; the aarch64 check builds without PCRE2 */
	return;
#endif
	maps_setup();
	CHECK_MERR("str(a),map(%s/nonexistent.map)", "failed to open pattern file <%s/nonexistent");
	CHECK_MERR("str(a),map_str_int(%s/bad_int.map)",
		   "unable to parse 'x' at line 5 of file '%s/bad_int.map'");
	CHECK_MERR("str(a),map_str_int(%s/ipv.map)",
		   "unable to parse '1.2.3.4' at line 1 of file '%s/ipv.map'");
	CHECK_MERR("str(a),map_str_ip(%s/bad_ip.map)",
		   "unable to parse '12' at line 2 of file '%s/bad_ip.map'");
	CHECK_MERR("str(a),map_str_ip(%s/bad_ip2.map)", "unable to parse '1.2.3.256' at line 1");
	CHECK_MERR("int(1),map_int(%s/bad_key.map)", "at line 2 of file '%s/bad_key.map'");
	CHECK_MERR("str(1),map_ip(%s/bad_key.map)", "at line 1 of file '%s/bad_key.map'");
	CHECK_MERR("str(a),map_reg(%s/bad_re.map)", "at line 2 of file '%s/bad_re.map'");
	CHECK_MERR("str(a),map_regm(%s/bad_regm.map)", "at line 2 of file '%s/bad_regm.map'");
	CHECK_MERR("str(a),map_str_int(%s/iv.map,abc)",
		   "failed to parse 'abc' as type 'integer' at position 2");
	CHECK_MERR("str(a),map_str_ip(%s/ipv.map,x)", "map: cannot parse default ip <x>");
	CHECK_MERR("str(a),map_str_ip(%s/ipv.map,5)", "map: cannot parse default ip <5>");
	CHECK_MERR("str(a),map()", "failed to open pattern file <>");
	CHECK_MERR("str(a),map", "missing arguments");
	/* the same file still serves the methods and types it is valid for */
	CHECK_STR(mev("str(c),map(%s/bad_int.map)"), "x");
	maps_teardown();
}
