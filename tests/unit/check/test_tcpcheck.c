/* Unit tests of the pure parts of rule-based checks (src/check/tcpcheck.c): expect matching
 * of each kind with partial input, min-recv and negation, hex coding, and the protocol
 * reply parsers (MySQL handshake and login reply, LDAP bind response, info extraction).
 */
#include <string.h>

#include <check/tcpcheck.h>
#include <sample/regex.h>
#include "../test.h"

static void rule(struct tcpchk_rule *r, int kind, const char *pat)
{
	memset(r, 0, sizeof(*r));
	r->act = TCPCHK_ACT_EXPECT;
	r->kind = kind;
	r->pattern = (char *)pat;
	r->min_recv = -1;
	r->ok_status = CHK_R_L7OK;
	r->err_status = CHK_R_L7RSP;
}

static int eval(const struct tcpchk_rule *r, const char *s, bool last, struct tcpchk_verdict *v)
{
	static char hex[256];

	tcpchk_expect_eval(r, s, strlen(s), last, NULL, 0, hex, v);
	return v->v;
}

TEST(tcpcheck_expect_string)
{
	struct tcpchk_rule r;
	struct tcpchk_verdict v;

	rule(&r, TCPCHK_EXP_STRING, "+PONG");
	CHECK_INT(eval(&r, "", false, &v), TCPCHK_V_MORE);
	CHECK_INT(eval(&r, "+PO", false, &v), TCPCHK_V_MORE); /* shorter than the pattern */
	CHECK_INT(eval(&r, "xx+PONG\r\n", false, &v), TCPCHK_V_OK);
	CHECK_INT(eval(&r, "-ERR x\r\n", false, &v), TCPCHK_V_MORE); /* may still come */
	CHECK_INT(eval(&r, "-ERR x\r\n", true, &v), TCPCHK_V_FAIL);
	CHECK_INT(v.status, CHK_R_L7RSP);
	CHECK(!v.matched && !v.empty);
	CHECK_INT(eval(&r, "", true, &v), TCPCHK_V_FAIL);
	CHECK(v.empty);
	r.min_recv = 3; /* a minimum makes a mismatch conclusive */
	CHECK_INT(eval(&r, "-E", false, &v), TCPCHK_V_MORE);
	CHECK_INT(eval(&r, "-ERR", false, &v), TCPCHK_V_MORE); /* shorter than +PONG */
	CHECK_INT(eval(&r, "-ERR x", false, &v), TCPCHK_V_FAIL);
	r.min_recv = -1;
	r.negate = true;
	CHECK_INT(eval(&r, "+PONG", false, &v), TCPCHK_V_FAIL);
	CHECK(v.matched);
	CHECK_INT(eval(&r, "-ERR x", true, &v), TCPCHK_V_OK);
}

TEST(tcpcheck_expect_regex_and_binary)
{
	struct tcpchk_rule r;
	struct tcpchk_verdict v;
	char err[128], bin[2] = { 1, 2 };

#ifdef USE_PCRE2 /* without it regexes are refused at parse time: nothing to match */
	rule(&r, TCPCHK_EXP_RSTRING, "^2[0-9]{2} ");
	r.re = regex_comp(r.pattern, 0, err, sizeof(err));
	CHECK(r.re != NULL);
	CHECK_INT(eval(&r, "250 ok\r\n", false, &v), TCPCHK_V_OK);
	CHECK_INT(eval(&r, "550 no\r\n", true, &v), TCPCHK_V_FAIL);
	regex_free(r.re);

	rule(&r, TCPCHK_EXP_RBINARY, "^1[56]");
	r.re = regex_comp(r.pattern, 0, err, sizeof(err));
	r.min_recv = 5;
	CHECK_INT(eval(&r, "\x16\x03", false, &v), TCPCHK_V_MORE);
	CHECK_INT(eval(&r, "\x16\x03\x01\x01\x02", false, &v), TCPCHK_V_OK);
	CHECK_INT(eval(&r, "HTTP/1.0 400", false, &v), TCPCHK_V_FAIL);
	regex_free(r.re);
#else
	(void)err;
#endif

	rule(&r, TCPCHK_EXP_BINARY, "0102");
	r.bin = bin;
	r.len = 2;
	CHECK_INT(eval(&r, "\x05\x01\x02", false, &v), TCPCHK_V_OK);
	CHECK_INT(eval(&r, "\x05\x01", true, &v), TCPCHK_V_FAIL);
}

TEST(tcpcheck_hex)
{
	char out[8], dump[17];

	CHECK_INT(tcpchk_hex_decode("00ff41", 6, out, sizeof(out)), 3);
	CHECK(!memcmp(out,
		      "\x00\xff"
		      "A",
		      3));
	CHECK_INT(tcpchk_hex_decode("0", 1, out, sizeof(out)), -1);
	CHECK_INT(tcpchk_hex_decode("0g", 2, out, sizeof(out)), -1);
	CHECK_INT(tcpchk_hex_decode("", 0, out, sizeof(out)), -1);
	CHECK_INT(tcpchk_hex_decode("000000000000000000", 18, out, sizeof(out)), -1);
	tcpchk_hex_dump("\x00\xab\x16", 3, dump);
	CHECK(!strcmp(dump, "00AB16"));
}

static size_t pkt(char *out, int seq, const char *p, size_t n)
{
	out[0] = (char)n, out[1] = 0, out[2] = 0, out[3] = (char)seq;
	memcpy(out + 4, p, n);
	return n + 4;
}

TEST(tcpcheck_mysql)
{
	static const char hs[] = "\x0a"
				 "8.0.1\0"
				 "\x01\x00\x00\x00"
				 "abcdefgh";
	static const char denied[] = "\xff\x15\x04#28000Access denied";
	char buf[256];
	size_t n = pkt(buf, 0, hs, sizeof(hs) - 1), m;
	struct tcpchk_verdict v;

	tcpchk_mysql_eval(buf, 3, false, false, &v);
	CHECK_INT(v.v, TCPCHK_V_MORE);
	tcpchk_mysql_eval(buf, n - 1, false, false, &v);
	CHECK_INT(v.v, TCPCHK_V_MORE);
	tcpchk_mysql_eval(buf, n - 1, true, false, &v);
	CHECK_INT(v.v, TCPCHK_V_FAIL);
	CHECK_INT(v.status, CHK_R_L7RSP);
	tcpchk_mysql_eval(buf, n, false, false, &v);
	CHECK_INT(v.v, TCPCHK_V_OK);
	CHECK(ist_eq(v.info, ist_str("8.0.1")));
	tcpchk_mysql_eval(buf, n, false, true, &v); /* the login reply is still to come */
	CHECK_INT(v.v, TCPCHK_V_MORE);
	m = n + pkt(buf + n, 2, "\x00\x00\x00\x02\x00", 5);
	tcpchk_mysql_eval(buf, m, false, true, &v);
	CHECK_INT(v.v, TCPCHK_V_OK);
	m = n + pkt(buf + n, 2, denied, sizeof(denied) - 1);
	tcpchk_mysql_eval(buf, m, false, true, &v);
	CHECK_INT(v.v, TCPCHK_V_FAIL);
	CHECK_INT(v.status, CHK_R_L7STS);
	CHECK_INT(v.code, 1045);
	CHECK(ist_eq(v.info, ist_str("#28000Access denied")));
	n = pkt(buf, 0, "\xff\x10\x04Too many", 11); /* refused at the handshake */
	tcpchk_mysql_eval(buf, n, false, false, &v);
	CHECK_INT(v.v, TCPCHK_V_FAIL);
	CHECK_INT(v.code, 1040);
	tcpchk_mysql_eval("HTTP/1.0 400 Bad\r\n\r\n", 20, true, false, &v);
	CHECK_INT(v.v, TCPCHK_V_FAIL);
}

TEST(tcpcheck_ldap)
{
	static const unsigned char ok[] = { 0x30, 0x0c, 2, 1, 1, 0x61, 7, 0x0a, 1, 0, 4, 0, 4, 0 };
	static const unsigned char lng[] = { 0x30, 0x84, 0,    0, 0,	0x0c, 2, 1,
					     1,	   0x61, 0x81, 7, 0x0a, 1,    49 };
	struct tcpchk_verdict v;

	tcpchk_ldap_eval((const char *)ok, 5, false, &v);
	CHECK_INT(v.v, TCPCHK_V_MORE);
	tcpchk_ldap_eval((const char *)ok, sizeof(ok), false, &v);
	CHECK_INT(v.v, TCPCHK_V_OK);
	tcpchk_ldap_eval((const char *)lng, sizeof(lng), false, &v);
	CHECK_INT(v.v, TCPCHK_V_FAIL);
	CHECK_INT(v.status, CHK_R_L7STS);
	CHECK_INT(v.code, 49);
	tcpchk_ldap_eval("HTTP/1.0", 8, false, &v);
	CHECK_INT(v.v, TCPCHK_V_FAIL);
	CHECK(ist_eq(v.info, ist_str("Not LDAPv3 protocol")));
	tcpchk_ldap_eval((const char *)ok, 5, true, &v);
	CHECK_INT(v.v, TCPCHK_V_FAIL);
	CHECK_INT(v.status, CHK_R_L7RSP);
}

TEST(tcpcheck_info)
{
	static const char pg[] = "E\0\0\0\x10SFATAL\0C28000\0";
	struct ist i;

	i = tcpchk_info_view(TCPCHK_INFO_LINE, 0, "-ERR x\r\nmore", 12);
	CHECK(ist_eq(i, ist_str("-ERR x")));
	i = tcpchk_info_view(TCPCHK_INFO_SMTP, 0, "550   go away\r\n", 15);
	CHECK(ist_eq(i, ist_str("go away")));
	i = tcpchk_info_view(TCPCHK_INFO_SMTP, 0, "55", 2);
	CHECK_INT((int)i.len, 0);
	i = tcpchk_info_view(TCPCHK_INFO_NUL, 6, pg, sizeof(pg) - 1);
	CHECK(ist_eq(i, ist_str("FATAL")));
	i = tcpchk_info_view(TCPCHK_INFO_NUL, 6, pg, 3);
	CHECK_INT((int)i.len, 0);
	CHECK_INT(tcpchk_smtp_code("250 ok", 6), 250);
	CHECK_INT(tcpchk_smtp_code("25", 2), 0);
	CHECK_INT(tcpchk_smtp_code("abc", 3), 0);
}

TEST(tcpcheck_http_hdr)
{
	static const char rsp[] = "HTTP/1.1 200 OK\r\nX-Foo: a, bar\r\nServer: nginx/1.22\r\n\r\n"
				  "X-Body: no\r\n";
	struct tcpchk_rule r;
	char err[64];

	rule(&r, TCPCHK_EXP_HTTP_HDR, NULL);
	r.hname = "x-foo";
	CHECK(tcpchk_http_hdr_match(&r, rsp, sizeof(rsp) - 1));
	r.hval = "bar";
	CHECK(tcpchk_http_hdr_match(&r, rsp, sizeof(rsp) - 1)); /* one of the values */
	r.hfull = true;
	CHECK(!tcpchk_http_hdr_match(&r, rsp, sizeof(rsp) - 1)); /* fhdr: the whole value */
	r.hval = "a, bar";
	CHECK(tcpchk_http_hdr_match(&r, rsp, sizeof(rsp) - 1));
	r.hfull = false;
	r.hname = "x-body"; /* not a header: after the blank line */
	r.hval = NULL;
	CHECK(!tcpchk_http_hdr_match(&r, rsp, sizeof(rsp) - 1));
#ifdef USE_PCRE2
	r.hname = "serv";
	r.hname_m = TCPCHK_HM_BEG;
	r.hval = "^nginx/";
	r.hval_m = TCPCHK_HM_REG;
	r.hval_re = regex_comp(r.hval, 0, err, sizeof(err));
	CHECK(tcpchk_http_hdr_match(&r, rsp, sizeof(rsp) - 1));
	CHECK(!tcpchk_http_hdr_match(&r, rsp, 30)); /* cut before the header */
	regex_free(r.hval_re);
#else
	(void)err;
#endif
}
