/* Unit tests of the pure parts of health checks (src/check/check_http.c): the response
 * parser (status line, bounded and partial input, garbage), the expect matching and the
 * rise/fall state machine.
 */
#include <string.h>

#include <check/check_http.h>
#include <sample/regex.h>
#include "../test.h"

static int parse(const char *s, bool full, bool body, struct chk_http_rsp *r)
{
	return chk_http_parse(s, strlen(s), full, body, r);
}

TEST(check_http_status_line)
{
	struct chk_http_rsp r;

	CHECK_INT(parse("HTTP/1.1 200 OK\r\n", false, false, &r), CHK_P_DONE);
	CHECK_INT(r.status, 200);
	CHECK(ist_eq(r.reason, ist_str("OK")));
	CHECK_INT(parse("HTTP/1.0 503 Service Unavailable\r\nx: y\r\n", false, false, &r),
		  CHK_P_DONE);
	CHECK_INT(r.status, 503);
	CHECK(ist_eq(r.reason, ist_str("Service Unavailable")));
	CHECK_INT(parse("HTTP/1.1 404\n", false, false, &r), CHK_P_DONE);
	CHECK_INT(r.status, 404);
	CHECK_INT((int)r.reason.len, 0);
	/* incomplete, then the same bytes with nothing more to come */
	CHECK_INT(parse("HTTP/1.1 200 O", false, false, &r), CHK_P_MORE);
	CHECK_INT(parse("HTTP/1.1 200 O", true, false, &r), CHK_P_INVALID);
	CHECK_INT(parse("", false, false, &r), CHK_P_MORE);
	CHECK_INT(parse("", true, false, &r), CHK_P_INVALID);
}

TEST(check_http_garbage)
{
	static const char *const bad[] = {
		"garbage here\r\n\r\n",	   "HTTP/1.1 20 OK\r\n",  "HTTP/1.1 2000 OK\r\n",
		"HTTP/x.1 200 OK\r\n",	   "http/1.1 200 OK\r\n", "HTTP/1.1  200 OK\r\n",
		"HTTP/1.1 200 O\x01K\r\n", "HTTP/1.1\r\n",	  "\r\n",
		"SSH-2.0-OpenSSH\r\n",
	};
	struct chk_http_rsp r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_INT(parse(bad[i], false, false, &r), CHK_P_INVALID);
}

TEST(check_http_body)
{
	const char *rsp = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello, extra";
	struct chk_http_rsp r;

	CHECK_INT(parse(rsp, false, true, &r), CHK_P_DONE);
	CHECK(ist_eq(r.body, ist_str("hello")));
	CHECK_INT(parse("HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nhello", false, true, &r),
		  CHK_P_MORE);
	CHECK_INT(parse("HTTP/1.0 200 OK\r\n\r\nup and", false, true, &r), CHK_P_MORE);
	CHECK_INT(parse("HTTP/1.0 200 OK\r\n\r\nup and", true, true, &r), CHK_P_DONE);
	CHECK(ist_eq(r.body, ist_str("up and")));
	/* headers never ending within a full buffer: invalid */
	CHECK_INT(parse("HTTP/1.0 200 OK\r\nx: aaaaaaaa", true, true, &r), CHK_P_INVALID);
	CHECK_INT(parse("HTTP/1.0 200 OK\r\nContent-Length: x\r\n\r\nab", true, true, &r),
		  CHK_P_DONE);
}

TEST(check_expect_match)
{
	struct chk_http_rsp r = { .status = 200, .body = IST("server is up") };
	struct chk_expect e = { 0 };
	struct regex *re = regex_comp("^2", 0, NULL, 0);

	CHECK(chk_expect_match(&e, &r));
	r.status = 302;
	CHECK(chk_expect_match(&e, &r));
	r.status = 404;
	CHECK(!chk_expect_match(&e, &r));
	e.kind = CHK_EXP_STATUS;
	e.pattern = IST("200,404-405");
	CHECK(chk_expect_match(&e, &r));
	r.status = 500;
	CHECK(!chk_expect_match(&e, &r));
	e.negate = true;
	CHECK(chk_expect_match(&e, &r));
	e.negate = false;
	e.kind = CHK_EXP_STRING;
	e.pattern = IST("is up");
	CHECK(chk_expect_match(&e, &r));
	e.pattern = IST("is down");
	CHECK(!chk_expect_match(&e, &r));
#ifdef USE_PCRE2 /* the aarch64 check builds without PCRE2 */
	e.kind = CHK_EXP_RSTATUS;
	e.re = re;
	CHECK(!chk_expect_match(&e, &r));
	r.status = 204;
	CHECK(chk_expect_match(&e, &r));
#endif
	CHECK(chk_status_list_valid("200"));
	CHECK(chk_status_list_valid("200-299,304"));
	CHECK(!chk_status_list_valid("2xx"));
	CHECK(!chk_status_list_valid("300-200"));
	CHECK(!chk_status_list_valid("200,"));
	if (re)
		regex_free(re);
}

TEST(check_rise_fall)
{
	int h = 2; /* initial health: rise, so UP one failure from DOWN */

	CHECK_INT(chk_health_update(&h, 2, 3, false), CHK_T_DOWN);
	CHECK_INT(h, 0);
	CHECK_INT(chk_health_update(&h, 2, 3, false), CHK_T_NONE);
	CHECK_INT(chk_health_update(&h, 2, 3, true), CHK_T_NONE);
	CHECK_INT(chk_health_update(&h, 2, 3, false), CHK_T_NONE); /* rise counts in a row */
	CHECK_INT(chk_health_update(&h, 2, 3, true), CHK_T_NONE);
	CHECK_INT(chk_health_update(&h, 2, 3, true), CHK_T_UP);
	CHECK_INT(h, 4);
	CHECK_INT(chk_health_update(&h, 2, 3, false), CHK_T_NONE);
	CHECK_INT(chk_health_update(&h, 2, 3, false), CHK_T_NONE);
	CHECK_INT(chk_health_update(&h, 2, 3, true), CHK_T_NONE); /* back to full health */
	CHECK_INT(h, 4);
	CHECK_INT(chk_health_update(&h, 2, 3, false), CHK_T_NONE);
	CHECK_INT(chk_health_update(&h, 2, 3, false), CHK_T_NONE);
	CHECK_INT(chk_health_update(&h, 2, 3, false), CHK_T_DOWN); /* fall = 3 */
	h = 1;
	CHECK_INT(chk_health_update(&h, 1, 1, false), CHK_T_DOWN);
	CHECK_INT(chk_health_update(&h, 1, 1, true), CHK_T_UP);
}
