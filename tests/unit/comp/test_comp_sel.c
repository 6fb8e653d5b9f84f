/* Unit tests of what compression reads in headers (comp/comp_sel.c), each case checked
 * against HAProxy 2.6 on the same header: Accept-Encoding choices with q-values, ties,
 * "*", quoted commas; the q-value reader; the Mozilla/4 rule; ETag forms; list headers
 * (Cache-Control: no-transform); Content-Type prefixes.
 */
#include <comp/comp.h>
#include <comp/comp_sel.h>
#include "../test.h"

#ifdef USE_ZLIB /* the algorithms of the choices need zlib */
/* "compression algo gzip deflate raw-deflate": HAProxy's list is raw-deflate, deflate,
 * gzip (each algorithm goes first). */
static const struct comp_algo *sel_list[3];

static void sel_init(void)
{
	sel_list[0] = comp_algo_find("raw-deflate");
	sel_list[1] = comp_algo_find("deflate");
	sel_list[2] = comp_algo_find("gzip");
}

/* The cfg_name of what <ae> chooses, or "-". */
static const char *sel(const char *ae)
{
	const struct comp_algo *best = NULL;
	int q = 0;

	sel_init();
	comp_ae_scan(ist_str(ae), sel_list, 3, &best, &q);
	return best ? best->cfg_name : "-";
}

TEST(comp_ae_choices_as_haproxy)
{
	CHECK_STR(sel("gzip"), "gzip");
	CHECK_STR(sel("GZIP"), "gzip");
	CHECK_STR(sel("deflate"), "raw-deflate"); /* the first "deflate" of the list */
	CHECK_STR(sel("*"), "raw-deflate");
	CHECK_STR(sel("br"), "-");
	CHECK_STR(sel("x-gzip"), "-");
	CHECK_STR(sel("gzipx"), "-");
	CHECK_STR(sel("\"gzip\""), "-");
	CHECK_STR(sel(""), "-");
	CHECK_STR(sel(" , , gzip"), "gzip");
	CHECK_STR(sel("gzip,"), "gzip");
	CHECK_STR(sel("gzip;q=0.5, deflate"), "raw-deflate");
	CHECK_STR(sel("deflate;q=0.5, gzip;q=0.5"), "raw-deflate"); /* a tie: the first */
	CHECK_STR(sel("gzip, deflate"), "gzip");
	CHECK_STR(sel("gzip;q=0"), "-");
	CHECK_STR(sel("gzip;q=0.000"), "-");
	CHECK_STR(sel("gzip;q=00.5"), "-");
	CHECK_STR(sel("*;q=0, gzip"), "gzip");
	CHECK_STR(sel("gzip;q=0, *"), "raw-deflate");
	CHECK_STR(sel("gzip ; q=0.5, deflate;q=0.4"), "gzip");
	CHECK_STR(sel("gzip;level=1;q=0.3, deflate;q=0.4"), "raw-deflate");
	CHECK_STR(sel("gzip;Q=0.3, deflate;q=0.4"), "gzip"); /* "Q=" is not a q-value */
	CHECK_STR(sel("gzip;q=, deflate;q=0.9"), "gzip");    /* unreadable: 1 */
	CHECK_STR(sel("gzip;q, deflate;q=0.9"), "gzip");
	CHECK_STR(sel("deflate;q=0.9, gzip;q"), "gzip");
	CHECK_STR(sel("deflate;q=0.9, gzip;q=0."), "raw-deflate");
	CHECK_STR(sel("deflate;q=0.5, gzip;q=1.5"), "gzip");
	CHECK_STR(sel("deflate;q=0.5, gzip;q=0.9999"), "gzip");
	CHECK_STR(sel("deflate;q=0.5, gzip;q=0.50001"), "raw-deflate");
	CHECK_STR(sel("deflate;q=0.5, gzip;q=.9"), "gzip");
	CHECK_STR(sel("deflate;q=0.5, gzip;q=abc"), "gzip");
	CHECK_STR(sel("deflate;q=0.5, gzip;q= 0.9"), "gzip");
	CHECK_STR(sel("gzip;q=0.9,deflate ;q=0.95"), "raw-deflate");
	CHECK_STR(sel("a;x=\"1,gzip\", deflate;q=0.4"), "raw-deflate");
	CHECK_STR(sel("gzip;q=0.5;q=0.9, deflate;q=0.7"), "raw-deflate");
	CHECK_STR(sel("gzip;foo;q=0.8, deflate;q=0.7"), "gzip");
	CHECK_STR(sel("gzip;q=0.8x, deflate;q=0.7"), "gzip");
}

TEST(comp_ae_best_carries_across_headers)
{
	const struct comp_algo *best = NULL;
	int q = 0;

	sel_init();
	comp_ae_scan(IST("gzip;q=0.2"), sel_list, 3, &best, &q);
	comp_ae_scan(IST("deflate;q=0.3"), sel_list, 3, &best, &q);
	CHECK(best == sel_list[0]);
	comp_ae_scan(IST("gzip;q=0.3"), sel_list, 3, &best, &q); /* not above 0.3 */
	CHECK(best == sel_list[0]);
	CHECK_INT(q, 300);
}

#endif /* USE_ZLIB */

TEST(comp_qvalue_reading)
{
	CHECK_INT(comp_qvalue(IST("1")), 1000);
	CHECK_INT(comp_qvalue(IST("0")), 0);
	CHECK_INT(comp_qvalue(IST("0.5")), 500);
	CHECK_INT(comp_qvalue(IST("0.123")), 123);
	CHECK_INT(comp_qvalue(IST("0.1239")), 123);
	CHECK_INT(comp_qvalue(IST("0.05")), 50);
	CHECK_INT(comp_qvalue(IST("2")), 1000);
	CHECK_INT(comp_qvalue(IST("9.999")), 1000);
	CHECK_INT(comp_qvalue(IST("")), 1000);
	CHECK_INT(comp_qvalue(IST("x")), 1000);
	CHECK_INT(comp_qvalue(IST("0x5")), 0);
	CHECK_INT(comp_qvalue(ist2("0.5", 2)), 0); /* bounded by the view */
}

TEST(comp_list_elements)
{
	/* quoted strings keep their commas, a backslash escapes inside them */
	struct ist v = IST(" a , \"b,c\" ,,\"d\\\",e\", f ");
	struct ist e;
	const char *want[] = { "a", "\"b,c\"", "", "\"d\\\",e\"", "f" };
	int n = 0;

	while (comp_list_next(&v, &e) && n < 6) {
		if (n < 5 && !ist_eq(e, ist_str(want[n])))
			test_fail(__FILE__, __LINE__, "element %d is '%.*s'", n, (int)e.len, e.ptr);
		n++;
	}
	CHECK_INT(n, 5);
}

TEST(comp_user_agent_rule)
{
	CHECK(!comp_ua_refused(IST("Mozilla/5.0 (X11)")));
	CHECK(!comp_ua_refused(IST("curl/8")));
	CHECK(comp_ua_refused(IST("Mozilla/4")));
	CHECK(comp_ua_refused(IST("Mozilla/4.0 (compatible; MSIE 5.0; Windows NT 5.1)")));
	CHECK(comp_ua_refused(IST("Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)")));
	CHECK(!comp_ua_refused(IST("Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1)")));
	CHECK(!comp_ua_refused(IST("Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 5.1)")));
}

TEST(comp_etag_forms)
{
	CHECK_INT(comp_etag_type(IST("\"abc\"")), COMP_ETAG_STRONG);
	CHECK_INT(comp_etag_type(IST("\"\"")), COMP_ETAG_STRONG);
	CHECK_INT(comp_etag_type(IST("\"a\",\"b\"")), COMP_ETAG_STRONG);
	CHECK_INT(comp_etag_type(IST("W/\"abc\"")), COMP_ETAG_WEAK);
	CHECK_INT(comp_etag_type(IST("W/\"")), COMP_ETAG_WEAK);
	CHECK_INT(comp_etag_type(IST("w/\"abc\"")), COMP_ETAG_INVALID);
	CHECK_INT(comp_etag_type(IST("W/abc")), COMP_ETAG_INVALID);
	CHECK_INT(comp_etag_type(IST("abc")), COMP_ETAG_INVALID);
	CHECK_INT(comp_etag_type(IST("\"abc")), COMP_ETAG_INVALID);
	CHECK_INT(comp_etag_type(IST("\"")), COMP_ETAG_INVALID);
	CHECK_INT(comp_etag_type(IST("")), COMP_ETAG_INVALID);
}

TEST(comp_cache_control_and_types)
{
	struct ist t[] = { IST("text/html"), IST("application/json") };

	CHECK(comp_list_has(IST("no-transform"), IST("no-transform")));
	CHECK(comp_list_has(IST("max-age=3, No-Transform"), IST("no-transform")));
	CHECK(comp_list_has(IST(",no-transform,"), IST("no-transform")));
	CHECK(!comp_list_has(IST("no-transformx"), IST("no-transform")));
	CHECK(!comp_list_has(IST("no-transform=1"), IST("no-transform")));
	CHECK(!comp_list_has(IST("x no-transform"), IST("no-transform")));
	CHECK(!comp_list_has(IST("\"no-transform\""), IST("no-transform")));
	CHECK(!comp_list_has(IST("a=\"x,no-transform\""), IST("no-transform")));
	CHECK(comp_type_match(IST("text/html; charset=utf-8"), t, 2));
	CHECK(comp_type_match(IST("TEXT/HTMLX"), t, 2));
	CHECK(comp_type_match(IST("application/json"), t, 2));
	CHECK(!comp_type_match(IST("text/plain"), t, 2));
	CHECK(!comp_type_match(IST("text/htm"), t, 2));
	CHECK(!comp_type_match(IST(""), t, 2));
}
