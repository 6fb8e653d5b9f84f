/* Unit tests of the converters (conv.c, conv_num.c, conv_str.c, conv_codec.c, conv_hash.c):
 * each one through sample_parse_expr() and sample_process() on constant fetches (str(),
 * int(), bool()) with no stream, proc variables for the converters that read one, and the
 * parse-time refusals. Expectations are HAProxy 2.6's outputs, checked against Debian's
 * haproxy through "http-request return ... lf-string", except where a comment says why not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sample/sample.h>

#include "../test.h"
#include "smp_eval.h"

static const char *ev(const char *expr)
{
	return smp_eval_text(expr);
}

/* The output type of <expr>, or "?" */
static const char *ev_type(const char *expr)
{
	struct smp_ctx ctx = { 0 };
	struct sample smp = { .ctx = &ctx };
	struct sample_expr *e;
	const char *t = "?";
	char err[256];

	e = sample_parse_expr(expr, NULL, NULL, err, sizeof(err));
	if (e && sample_process(e, &smp))
		t = smp_type_name(smp.data.type);
	sample_expr_free(e);
	return t;
}

/* Fails unless <expr> is refused at parse time with a message containing <msg>. */
#define CHECK_PERR(expr, msg)                                          \
	do {                                                           \
		const char *_r = ev(expr);                             \
		if (strncmp(_r, "ERR: ", 5) || !strstr(_r, (msg)))     \
			test_fail(__FILE__, __LINE__,                  \
				  "%s gave \"%s\", expected an error " \
				  "with \"%s\"",                       \
				  (expr), _r, (msg));                  \
	} while (0)

/* ---- numbers ---- */

TEST(conv_arith_basic)
{
	CHECK_STR(ev("int(5),add(3)"), "8");
	CHECK_STR(ev("int(5),add(+3)"), "8");
	CHECK_STR(ev("int(5),add(-3)"), "2");
	CHECK_STR(ev("int(5),sub(-3)"), "8");
	CHECK_STR(ev("int(-5),add(-3)"), "-8"); /* 2.6 says LLONG_MAX: its bug #2216 */
	CHECK_STR(ev("int(-5),sub(3)"), "-8");
	CHECK_STR(ev("int(6),mul(-7)"), "-42");
	CHECK_STR(ev("int(7),div(-2)"), "-3");
	CHECK_STR(ev("int(-7),div(2)"), "-3");
	CHECK_STR(ev("int(-7),mod(2)"), "-1");
	CHECK_STR(ev("int(6),and(3)"), "2");
	CHECK_STR(ev("int(6),or(3)"), "7");
	CHECK_STR(ev("int(6),xor(3)"), "5");
	CHECK_STR(ev("int(6),cpl"), "-7");
	CHECK_STR(ev("int(6),neg"), "-6");
	CHECK_STR(ev("int(5),add()"), "5");
	CHECK_STR(ev("int(5),add(-)"), "5");
	CHECK_STR(ev_type("int(5),add(1)"), "sint");
}

TEST(conv_arith_saturates)
{
	CHECK_STR(ev("int(9223372036854775807),add(1)"), "9223372036854775807");
	CHECK_STR(ev("int(-9223372036854775807),sub(2)"), "-9223372036854775808");
	CHECK_STR(ev("int(5),sub(-9223372036854775808)"), "9223372036854775807");
	CHECK_STR(ev("int(3037000500),mul(3037000500)"), "9223372036854775807");
	CHECK_STR(ev("int(-3037000500),mul(3037000500)"), "-9223372036854775808");
	CHECK_STR(ev("int(-5),mul(-9223372036854775808)"), "9223372036854775807");
	CHECK_STR(ev("int(7),div(0)"), "9223372036854775807");
	CHECK_STR(ev("int(-7),div(0)"), "9223372036854775807");
	CHECK_STR(ev("int(7),mod(0)"), "0");
	CHECK_STR(ev("int(-9223372036854775808),neg"), "9223372036854775807");
	CHECK_STR(ev("int(-9223372036854775808),div(-1)"), "9223372036854775807");
	CHECK_STR(ev("int(-9223372036854775808),mul(-1)"), "9223372036854775807");
	CHECK_STR(ev("int(-9223372036854775808),mod(-1)"), "0");
	CHECK_STR(ev("int(-9223372036854775808),cpl"), "9223372036854775807");
	/* the operand saturates when read */
	CHECK_STR(ev("int(5),add(99999999999999999999)"), "9223372036854775807");
	CHECK_STR(ev("int(5),add(-99999999999999999999)"), "-9223372036854775803");
}

TEST(conv_arith_variables)
{
	CHECK_STR(ev("int(42),set-var(proc.conv_i)"), "42");
	CHECK_STR(ev("str(17),set-var(proc.conv_s)"), "17");
	CHECK_STR(ev("int(5),add(proc.conv_i)"), "47");
	CHECK_STR(ev("int(5),sub(proc.conv_s)"), "-12");
	CHECK_STR(ev("int(100),div(proc.conv_s)"), "5");
	/* a variable that is not set fails the converter */
	CHECK_STR(ev("int(5),add(proc.conv_unset)"), "<none>");
	/* no stream here: txn variables do not exist */
	CHECK_STR(ev("int(5),add(txn.conv_i)"), "<none>");
}

TEST(conv_arith_refused)
{
	CHECK_PERR("int(5),add(1 )", "expects an integer or a variable name");
	CHECK_PERR("int(5),add(0x10)", "expects an integer or a variable name");
	CHECK_PERR("int(5),add(--1)", "expects an integer or a variable name");
	CHECK_PERR("int(5),add(foo.bar)", "expects an integer or a variable name");
	CHECK_PERR("int(5),add(txn.)", "expects an integer or a variable name");
	CHECK_PERR("int(5),add(1,2)", "end of arguments expected");
}

TEST(conv_predicates)
{
	CHECK_STR(ev("int(6),not"), "0");
	CHECK_STR(ev("int(0),not"), "1");
	CHECK_STR(ev("int(6),bool"), "1");
	CHECK_STR(ev("int(0),bool"), "0");
	CHECK_STR(ev("int(7),odd"), "1");
	CHECK_STR(ev("int(-7),odd"), "1");
	CHECK_STR(ev("int(7),even"), "0");
	CHECK_STR(ev("int(-8),even"), "1");
	CHECK_STR(ev_type("int(7),odd"), "bool");
	CHECK_STR(ev("int(1),iif(yes,no)"), "yes");
	CHECK_STR(ev("int(0),iif(yes,no)"), "no");
	CHECK_STR(ev("bool(1),iif(,no)"), "");
	CHECK_STR(ev("str(1),iif(yes,no)"), "yes");
	CHECK_STR(ev("str(x),iif(yes,no)"), "no"); /* text without digits casts to 0 */
	CHECK_PERR("int(1),iif(yes)", "missing arguments");
}

TEST(conv_htonl)
{
	CHECK_STR(ev("int(258),htonl,hex"), "00000102");
	CHECK_STR(ev("int(-1),htonl,hex"), "FFFFFFFF");
	CHECK_STR(ev("int(4294967298),htonl,hex"), "00000002");
	CHECK_STR(ev_type("int(1),htonl"), "bin");
}

TEST(conv_ipmask)
{
	CHECK_STR(ev("str(10.1.2.3),ipmask(24)"), "10.1.2.0");
	CHECK_STR(ev("str(10.1.2.3),ipmask(255.255.0.0)"), "10.1.0.0");
	CHECK_STR(ev("str(10.1.2.3),ipmask(0)"), "0.0.0.0");
	CHECK_STR(ev("int(167837955),ipmask(8)"), "10.0.0.0");
	/* IPv6 needs mask6; an IPv4-mapped address is masked as IPv4 */
	CHECK_STR(ev("str(2001:db8::1),ipmask(24)"), "<none>");
	CHECK_STR(ev("str(2001:db8:1:2::1),ipmask(24,32)"), "2001:db8::");
	CHECK_STR(ev("str(2001:db8:1:2::1),ipmask(24,0)"), "::");
	CHECK_STR(ev("str(::ffff:10.1.2.3),ipmask(8)"), "10.0.0.0");
	CHECK_STR(ev("str(::ffff:10.1.2.3),ipmask(8,64)"), "10.0.0.0");
	CHECK_STR(ev("str(x),ipmask(8)"), "<none>");
	CHECK_PERR("str(1.2.3.4),ipmask(33)", "IPv4 mask");
	CHECK_PERR("str(::1),ipmask(8,129)", "IPv6 mask");
}

/* ---- casts HAProxy does that converters show ---- */

TEST(conv_casts_seen_by_converters)
{
	/* integers become 8 bytes in network order when bytes are expected */
	CHECK_STR(ev("int(258),hex"), "0000000000000102");
	CHECK_STR(ev("int(-2),hex"), "FFFFFFFFFFFFFFFE");
	CHECK_STR(ev("bool(1),hex"), "0000000000000001");
	/* text to integer: sign and leading digits, 0 without any, saturating */
	CHECK_STR(ev("str(12abc),add(1)"), "13");
	CHECK_STR(ev("str(x),add(1)"), "1");
	CHECK_STR(ev("str( 5),add(1)"), "1");
	CHECK_STR(ev("str(+5),add(1)"), "6");
	CHECK_STR(ev("str(),add(1)"), "<none>");
	CHECK_STR(ev("str(99999999999999999999),add(0)"), "9223372036854775807");
	CHECK_STR(ev("str(-99999999999999999999),add(0)"), "-9223372036854775808");
}

/* ---- strings ---- */

TEST(conv_case_length_bytes)
{
	CHECK_STR(ev("str(aBc),lower"), "abc");
	CHECK_STR(ev("str(aBc),upper"), "ABC");
	CHECK_STR(ev("int(3),lower"), "3");
	CHECK_STR(ev("str(abc),length"), "3");
	CHECK_STR(ev("str(),length"), "0");
	CHECK_STR(ev_type("str(abc),length"), "sint");
	CHECK_STR(ev("str(abcdef),bytes(2)"), "cdef");
	CHECK_STR(ev("str(abcdef),bytes(2,3)"), "cde");
	CHECK_STR(ev("str(abcdef),bytes(6)"), "");
	CHECK_STR(ev("str(abcdef),bytes(10)"), "");
	CHECK_STR(ev("str(abcdef),bytes(-1)"), "");
	CHECK_STR(ev("str(abcdef),bytes(2,-1)"), "cdef");
	CHECK_STR(ev("str(abcdef),bytes(2,0)"), "");
	CHECK_STR(ev("str(abcdef),bytes(0,100)"), "abcdef");
	CHECK_STR(ev_type("str(abcdef),bytes(1)"), "bin");
	CHECK_PERR("str(abc),bytes", "missing arguments");
	CHECK_PERR("str(abc),bytes(x)", "integer");
}

TEST(conv_trims)
{
	CHECK_STR(ev("str(abc),ltrim(ab)"), "c");
	CHECK_STR(ev("str(abc),rtrim(cb)"), "a");
	CHECK_STR(ev("str(abc),ltrim(abc)"), "");
	CHECK_STR(ev("str(abc),ltrim()"), "abc");
	CHECK_STR(ev("str(  x  ),ltrim(' '),rtrim(' ')"), "x");
	CHECK_STR(ev("str(ab\r\ncd),cut_crlf"), "ab");
	CHECK_STR(ev("str(ab\ncd),cut_crlf"), "ab");
	CHECK_STR(ev("str(abcd),cut_crlf"), "abcd");
}

TEST(conv_regsub)
{
#ifndef USE_PCRE2 /* the aarch64 check builds without PCRE2 */
	return;
#endif
	CHECK_STR(ev("str(aAa),regsub(a,b)"), "bAa");
	CHECK_STR(ev("str(aAa),regsub(a,b,)"), "bAa");
	CHECK_STR(ev("str(aAa),regsub(a,b,g)"), "bAb");
	CHECK_STR(ev("str(aAa),regsub(a,b,gi)"), "bbb");
	CHECK_STR(ev("str(aAa),regsub(a,b,ig)"), "bbb");
	CHECK_STR(ev("str(xzxyz),regsub('x*y*',A,g)"), "AAzAAzA");
	CHECK_STR(ev("str(/a//b///c),regsub('/+','/',g)"), "/a/b/c");
	CHECK_STR(ev("str(foo12),regsub('(foo|bar)([0-9]+)?','\\2\\1')"), "12foo");
	CHECK_STR(ev("str(abc),regsub(z,y)"), "abc");
	CHECK_PERR("str(a),regsub(a,b,x)", "invalid regex flag 'x'");
	CHECK_PERR("str(a),regsub(,b)", "missing regex");
	CHECK_PERR("str(a),regsub('(',b)", "is invalid");
	CHECK_PERR("str(a),regsub(a,'\\x4')", "invalid escape");
	CHECK_PERR("str(a),regsub(a)", "missing arguments");
}

TEST(conv_concat)
{
	CHECK_STR(ev("str(xyz),set-var(proc.conv_v)"), "xyz");
	CHECK_STR(ev("int(42),set-var(proc.conv_n)"), "42");
	CHECK_STR(ev("str(abc),concat(x,,y)"), "abcxy");
	CHECK_STR(ev("str(abc),concat(x)"), "abcx");
	CHECK_STR(ev("str(abc),concat"), "abc");
	CHECK_STR(ev("str(abc),concat()"), "abc");
	CHECK_STR(ev("str(abc),concat(<,proc.conv_v,>)"), "abc<xyz>");
	CHECK_STR(ev("str(abc),concat(<,proc.conv_n,>)"), "abc<42>");
	CHECK_STR(ev("str(abc),concat(<,proc.conv_none,>)"), "abc<>");
	CHECK_STR(ev("int(1),concat(x)"), "1x");
	CHECK_PERR("str(abc),concat(,nope,)", "failed to register variable name 'nope'");
	CHECK_PERR("str(abc),concat(1,2,3,4)", "end of arguments expected");
}

TEST(conv_concat_truncates)
{
	static char expr[4200], big[4001];
	const char *r;

	/* a result longer than a scratch chunk is cut to its size, not refused */
	memset(big, 'a', 4000);
	snprintf(expr, sizeof(expr), "str(%s),set-var(proc.conv_big),length", big);
	CHECK_STR(ev(expr), "4000");
	r = ev("str(x),concat(,proc.conv_big),concat(,proc.conv_big),concat(,proc.conv_big),"
	       "concat(,proc.conv_big),concat(,proc.conv_big),length");
	CHECK_INT(atoi(r), (long long)smp_trash_size());
}

TEST(conv_add_item)
{
	CHECK_STR(ev("str(xyz),set-var(proc.ai_v)"), "xyz");
	CHECK_STR(ev("str(),set-var(proc.ai_e)"), "");
	CHECK_STR(ev("str(abc),add_item(-,,sfx)"), "abc-sfx");
	CHECK_STR(ev("str(),add_item(-,,sfx)"), "sfx");
	CHECK_STR(ev("str(abc),add_item(-,proc.ai_v)"), "abc-xyz");
	CHECK_STR(ev("str(abc),add_item(-,proc.ai_e)"), "abc");
	CHECK_STR(ev("str(abc),add_item(-,proc.ai_e,s)"), "abc-s");
	CHECK_STR(ev("str(),add_item(-,proc.ai_v)"), "xyz");
	CHECK_STR(ev("str(abc),add_item(-,proc.ai_none)"), "abc");
	CHECK_STR(ev("str(abc),add_item(-,proc.ai_none,s)"), "abc-s");
	CHECK_STR(ev("str(abc),add_item(',',proc.ai_v,'(x)')"), "abc,xyz(x)");
	CHECK_PERR("str(abc),add_item(-)", "missing arguments");
	CHECK_PERR("str(abc),add_item(-,,)", "one of the optional arguments has to be nonempty");
}

TEST(conv_strcmp_secure_memcmp)
{
	CHECK_STR(ev("str(abc),set-var(proc.cmp_b)"), "abc");
	CHECK_STR(ev("int(42),set-var(proc.cmp_i)"), "42");
	CHECK_STR(ev("str(abc),strcmp(proc.cmp_b)"), "0");
	CHECK_STR(ev("str(abd),strcmp(proc.cmp_b)"), "1");
	CHECK_STR(ev("str(abZ),strcmp(proc.cmp_b)"), "-9");
	CHECK_STR(ev("str(ab),strcmp(proc.cmp_b)"), "-1");
	CHECK_STR(ev("str(abcd),strcmp(proc.cmp_b)"), "1");
	CHECK_STR(ev("str(abc),strcmp(proc.cmp_none)"), "<none>");
	CHECK_STR(ev("int(42),strcmp(proc.cmp_i)"), "0");
	CHECK_STR(ev("str(abc),secure_memcmp(proc.cmp_b)"), "1");
	CHECK_STR(ev("str(abd),secure_memcmp(proc.cmp_b)"), "0");
	CHECK_STR(ev("str(ab),secure_memcmp(proc.cmp_b)"), "0");
	CHECK_STR(ev("str(abc),secure_memcmp(proc.cmp_none)"), "<none>");
	/* the integer variable is compared as its 8 bytes */
	CHECK_STR(ev("str(42),secure_memcmp(proc.cmp_i)"), "0");
	CHECK_STR(ev("int(42),secure_memcmp(proc.cmp_i)"), "1");
	CHECK_STR(ev_type("str(abc),secure_memcmp(proc.cmp_b)"), "bool");
	CHECK_PERR("str(abc),strcmp(abc)", "variable name");
	CHECK_PERR("str(abc),secure_memcmp()", "variable name");
}

TEST(conv_host_port)
{
	CHECK_STR(ev("str(Www.Example.COM:8080),host_only"), "www.example.com");
	CHECK_STR(ev("str(Www.Example.COM:8080),port_only"), "8080");
	CHECK_STR(ev("str(Host),host_only"), "host");
	CHECK_STR(ev("str(Host),port_only"), "0");
	CHECK_STR(ev("str([::1]:80),host_only"), "[::1]");
	CHECK_STR(ev("str([::1]:80),port_only"), "80");
	CHECK_STR(ev("str([::1]),host_only"), "[::1]");
	CHECK_STR(ev("str([::1]),port_only"), "0");
	/* HAProxy's quirks, kept: the last colon wins, any byte counts as a digit */
	CHECK_STR(ev("str(::1),host_only"), ":");
	CHECK_STR(ev("str(::1),port_only"), "1");
	CHECK_STR(ev("str(host:),host_only"), "host");
	CHECK_STR(ev("str(host:),port_only"), "0");
	CHECK_STR(ev("str(:80),host_only"), "");
	CHECK_STR(ev("str(a:b]),host_only"), "a:b]");
	CHECK_STR(ev("str(a:b),port_only"), "50");
	CHECK_STR(ev("str(h:99999999999),port_only"), "1215752191");
	CHECK_STR(ev("str(h:-1),port_only"), "4294967267");
	CHECK_STR(ev_type("str(h:1),port_only"), "sint");
}

TEST(conv_language)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "en-US;q=0.8", "en" },
		{ "de", "d" },
		{ "EN", "d" },
		{ "en;q=0", "d" },
		{ "en;q=abc", "en" },
		{ "fr;q=0.5 , en;q=0.7", "en" },
		{ "fr;q=0.7,en;q=0.7", "fr" },
		{ "en;q=2,fr", "en" },
		{ "en x,fr;q=0.1", "fr" },
		{ "en;r=1;q=0.1,fr;q=0.5", "en" },
		{ "fr-CA;q=0.3,en;q=0.001", "fr" },
		{ "  ,fr;q=0.3", "fr" },
		{ "fr;q=0.3x,en;q=0.3", "fr" },
		{ "fr;q = 0.9,en;q=0.95", "en" },
		{ "fr;q=0.9999,en;q=0.999", "fr" },
		{ "fr;q=1.5,en", "fr" },
		{ "fr;q=0.5,en;q=0.", "fr" },
		{ "fr;q=0.5,en;Q=0.1", "en" },
		{ "de,fr;q=.5", "fr" },
		{ "fr ; q=0.2,en;q=0.1", "fr" },
		{ "en;q=0.2;q=0.9,fr;q=0.5", "fr" },
	};
	char expr[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(expr, sizeof(expr), "str('%s'),language(en;fr,d)", cases[i].in);
		CHECK_STR(ev(expr), cases[i].out);
	}
	CHECK_STR(ev("str(de),language(en;fr)"), "<none>");
	CHECK_STR(ev("str(de),language(en;fr,)"), "<none>");
	CHECK_STR(ev("str(en-us),language(en-US;en,d)"), "en");
	CHECK_STR(ev("str(en),language(en-US;fr,d)"), "d");
}

/* ---- encodings (conv_codec.c) ---- */

TEST(conv_base64_hex)
{
	CHECK_STR(ev("str(ab),base64"), "YWI=");
	CHECK_STR(ev("str(abc),base64"), "YWJj");
	CHECK_STR(ev("str(),base64"), "");
	CHECK_STR(ev("str(YWI=),b64dec"), "ab");
	CHECK_STR(ev("str(YWI),b64dec"), "<none>");
	CHECK_STR(ev("str(YQ==YQ==),b64dec"), "aa");
	CHECK_STR(ev("str(Y@==),b64dec"), "<none>");
	CHECK_STR(ev_type("str(YWI=),b64dec"), "bin");
	CHECK_STR(ev("str(ab?),ub64enc"), "YWI_");
	CHECK_STR(ev("str(YWI_),ub64dec"), "ab?");
	CHECK_STR(ev("str(YWI),ub64dec"), "ab");
	CHECK_STR(ev("str(ab),hex"), "6162");
	CHECK_STR(ev("str(ff),hex2i"), "255");
	CHECK_STR(ev("str(FFFFFFFFFFFFFFFF),hex2i"), "-1");
	CHECK_STR(ev("str(xx),hex2i"), "<none>");
	CHECK_STR(ev("str(),hex2i"), "0");
	CHECK_STR(ev("str(abcdefg),be2dec(:,2)"), "24930:25444:25958:103");
	CHECK_STR(ev("str(abcdefg),be2dec(-,2,1)"), "24930-25444-25958");
	CHECK_STR(ev("str(abcdefg),be2dec(,2,1)"), "249302544425958");
	CHECK_STR(ev("str(abcdefg),be2hex"), "61626364656667");
	CHECK_STR(ev("str(abcdefg),be2hex(:,2)"), "6162:6364:6566:67");
	CHECK_STR(ev("str(abcdefgh),be2hex(,3,1)"), "616263646566");
	CHECK_STR(ev("str(abcdefg),be2hex(--,2,1)"), "6162--6364--6566");
	CHECK_PERR("str(a),be2dec(:,9)", "chunk_size out of [1..8] range (9)");
	CHECK_PERR("str(a),be2dec(:,0)", "chunk_size out of [1..8] range (0)");
	CHECK_PERR("str(a),be2hex(:)", "chunk_size needs to be positive (0)");
	CHECK_PERR("str(a),be2hex(:,-1)", "chunk_size needs to be positive (-1)");
}

TEST(conv_url)
{
	CHECK_STR(ev("str(a%20b+c),url_dec"), "a b+c");
	CHECK_STR(ev("str(a%20b+c),url_dec(1)"), "a b c");
	CHECK_STR(ev("str(a?b+c),url_dec"), "a?b c");
	CHECK_STR(ev("str(a%2),url_dec"), "<none>");
	CHECK_STR(ev("str('a b&c=d/\xc3\xa9'),url_enc"), "a%20b%26c%3Dd%2F%C3%A9");
	CHECK_STR(ev("str('a b'),url_enc(query)"), "a%20b");
	CHECK_PERR("str(a),url_enc(x)", "Unexpected encode type. Allowed value is 'query'");
	CHECK_PERR("str(a),url_dec(x)", "integer");
}

TEST(conv_field_word)
{
	CHECK_STR(ev("str(f1_f2_f3__f5),field(5,_)"), "f5");
	CHECK_STR(ev("str(f1_f2_f3__f5),field(2,_,0)"), "f2_f3__f5");
	CHECK_STR(ev("str(f1_f2_f3__f5),field(2,_,2)"), "f2_f3");
	CHECK_STR(ev("str(f1_f2_f3__f5),field(-2,_,3)"), "f2_f3_");
	CHECK_STR(ev("str(f1_f2_f3__f5),field(-3,_,0)"), "f1_f2_f3");
	CHECK_STR(ev("str(f1_f2_f3__f5),field(4,_)"), "");
	CHECK_STR(ev("str(f1_f2_f3__f5),field(9,_)"), "<none>");
	CHECK_STR(ev("str(a.b:c),field(3,.:)"), "c");
	CHECK_STR(ev("str(f1_f2_f3__f5),word(4,_)"), "f5");
	CHECK_STR(ev("str(f1_f2_f3__f5),word(9,_)"), "");
	CHECK_STR(ev("str(f1_f2_f3__f5),word(-1,_,0)"), "f1_f2_f3__f5");
	CHECK_STR(ev("int(0),field(1,.)"), "0");
	CHECK_PERR("str(a),field(0,.)", "Unexpected value 0 for index");
	CHECK_PERR("str(a),field(1,)", "Empty separators list");
	CHECK_PERR("str(a),word(0,.)", "Unexpected value 0 for index");
	CHECK_PERR("str(a),word(1,)", "Empty separators list");
}

TEST(conv_dates)
{
	CHECK_STR(ev("int(0),utime('%Y-%m-%d %H:%M:%S')"), "1970-01-01 00:00:00");
	CHECK_STR(ev("int(86400),utime(%Y-%m-%d,3600)"), "1970-01-02");
	CHECK_STR(ev("int(0),utime(%Y,86400000)"), "1972");
	CHECK_STR(ev("int(0),utime()"), "");
	CHECK_STR(ev("int(43200),ltime(%Y)"), "1970");
	CHECK_STR(ev("int(1700000000),http_date"), "Tue, 14 Nov 2023 22:13:20 GMT");
	CHECK_STR(ev("int(1700000000),http_date(3600)"), "Tue, 14 Nov 2023 23:13:20 GMT");
	CHECK_STR(ev("int(1700000000005),http_date(0,ms)"), "Tue, 14 Nov 2023 22:13:20.5 GMT");
	CHECK_STR(ev("int(1700000000000005),http_date(0,us)"), "Tue, 14 Nov 2023 22:13:20.5 GMT");
	CHECK_STR(ev("int(1700000000),http_date(0,s)"), "Tue, 14 Nov 2023 22:13:20 GMT");
	CHECK_PERR("int(1),http_date(0,xs)", "expects 's', 'ms' or 'us', got 'xs'");
}

TEST(conv_json)
{
	CHECK_STR(ev("str('a\"b/c\\d'),json"), "a\\\"b\\/c\\\\d");
	CHECK_STR(ev("str('\xc3\xa9'),json(utf8)"), "\\u00e9");
	CHECK_STR(ev("str('\xc3\xa9'),json"), "\\u00c3\\u00a9");
	CHECK_STR(ev("str('\xc3\xa9'),json(ascii)"), "\\u00c3\\u00a9");
	CHECK_STR(ev("str('\xc3'),json(utf8)"), "<none>");
	CHECK_STR(ev("str('a\xc3'),json(utf8s)"), "a");
	CHECK_PERR("str(a),json(x)", "Unexpected input code type");
}

TEST(conv_json_query)
{
	CHECK_STR(ev("str('{\"a\":4}'),json_query('$.a')"), "4");
	CHECK_STR(ev_type("str('{\"a\":4}'),json_query('$.a')"), "str");
	CHECK_STR(ev("str('{\"a\":4}'),json_query('$.a',int),add(1)"), "5");
	CHECK_STR(ev_type("str('{\"a\":4}'),json_query('$.a',int)"), "sint");
	CHECK_STR(ev("str('{\"a\":\"x\\u0041\"}'),json_query('$.a')"), "xA");
	CHECK_STR(ev("str('{\"a\":true}'),json_query('$.a')"), "1");
	CHECK_STR(ev_type("str('{\"a\":true}'),json_query('$.a')"), "bool");
	CHECK_STR(ev("str('{\"a\":null}'),json_query('$.a')"), "<none>");
	CHECK_STR(ev("str('{\"a\":1.5}'),json_query('$.a')"), "1.5");
	CHECK_STR(ev("str('{\"a\":1.5}'),json_query('$.a',int)"), "1");
	CHECK_STR(ev("str('{\"a\":9007199254740993}'),json_query('$.a')"), "9.0072e+15");
	CHECK_STR(ev("str('{\"a\":[10,20,{\"b\":\"deep\"}]}'),json_query('$.a[2].b')"), "deep");
	CHECK_STR(ev("str('{\"my.key\":\"v\"}'),json_query('$.my\\.key')"), "v");
	CHECK_STR(ev("str(garbage),json_query('$.a')"), "<none>");
	CHECK_STR(ev("str('{}'),json_query(x)"), "<none>");
	CHECK_PERR("str(a),json_query('$.a',str)", "output_type only supports \"int\"");
}

/* ---- hashes (conv_hash.c) ---- */

TEST(conv_hashes)
{
	CHECK_STR(ev("str(a),crc32"), "3904355907");
	CHECK_STR(ev("str(a),crc32(1)"), "1288200982");
	CHECK_STR(ev("str(a),crc32(2)"), "1288200982");
	CHECK_STR(ev("str(a),crc32c"), "3251651376");
	CHECK_STR(ev("str(a),djb2"), "177670");
	CHECK_STR(ev("str(a),sdbm"), "97");
	CHECK_STR(ev("str(a),wt6"), "1900802597");
	CHECK_STR(ev("str(a),wt6(1)"), "1986649387");
	CHECK_STR(ev("str(a),xxh32"), "1426945110");
	CHECK_STR(ev("str(a),xxh32(-1)"), "3443684653");
	CHECK_STR(ev("str(a),xxh64"), "-3292477735350538661");
	CHECK_STR(ev("str(a),xxh64(1)"), "-2395144786285869370");
	CHECK_STR(ev("str(a),xxh3"), "-1817709641818812897");
	CHECK_STR(ev("str(a),xxh3(5)"), "2854901637758732422");
	CHECK_STR(ev("int(1),crc32"), "304476159"); /* the integer's 8 bytes */
	CHECK_STR(ev_type("str(a),crc32"), "sint");
}

TEST(conv_digests)
{
#ifndef USE_OPENSSL /* the aarch64 check builds without OpenSSL */
	return;
#endif
	CHECK_STR(ev("str(a),sha1,hex"), "86F7E437FAA5A7FCE15D1DDCB9EAEAEA377667B8");
	CHECK_STR(ev("str(a),sha2,hex"),
		  "CA978112CA1BBDCAFAC231B39A23DC4DA786EFF8147C4E72B9807785AFEE48BB");
	CHECK_STR(ev("str(a),sha2(224),hex"),
		  "ABD37534C7D9A2EFB9465DE931CD7055FFDB8879563AE98078D6D6D5");
	CHECK_STR(ev("str(a),sha2(512),hex"),
		  "1F40FC92DA241694750979EE6CF582F2D5D7D28E18335DE05ABC54D0560E0F53"
		  "02860C652BF08D560252AA5E74210546F369FBBBCE8C12CFC7957B2652FE9A75");
	CHECK_STR(ev("str(a),digest(md5),hex"), "0CC175B9C0F1B6A831C399E269772661");
	CHECK_STR(ev_type("str(a),sha1"), "bin");
	CHECK_PERR("str(a),sha2(100)", "Unsupported number of bits: '100'");
	CHECK_PERR("str(a),digest(nope)", "algorithm must be a valid OpenSSL message digest name");
}

TEST(conv_hmac)
{
#ifndef USE_OPENSSL /* the aarch64 check builds without OpenSSL */
	return;
#endif
	static const char *const mac =
		"780C3DB4CE3DE5B9E55816FBA98F590631D96C075271B26976238D5F4444219B";

	CHECK_STR(ev("str(a2V5),set-var(proc.hm_k)"), "a2V5");
	CHECK_STR(ev("str(@@),set-var(proc.hm_bad)"), "@@");
	CHECK_STR(ev("str(a),hmac(sha256,a2V5),hex"), mac);
	CHECK_STR(ev("str(a),hmac(sha256,proc.hm_k),hex"), mac);
	CHECK_STR(ev("str(a),hmac(sha256,proc.hm_bad),hex"), "<none>");
	CHECK_STR(ev("str(a),hmac(sha256,proc.hm_none),hex"), "<none>");
	CHECK_STR(ev("str(a),hmac(sha256,),length"), "32"); /* an empty key */
	CHECK_PERR("str(a),hmac(nope,a2V5)", "algorithm must be a valid OpenSSL");
	CHECK_PERR("str(a),hmac(sha256,@@@)", "failed to parse key : argument needs to be base64");
}

TEST(conv_unsupported_named)
{
	CHECK_PERR("str(a),51d.single(x)",
		   "converter '51d.single' needs a device-detection "
		   "library this proxy does not build with (not supported)");
	CHECK_PERR("str(a),da-csv-conv(x)", "converter 'da-csv-conv' needs a device-detection");
	CHECK_PERR("str(a),nope", "unknown converter 'nope'");
}

/* found by fuzz_expr: an empty optional argument at the end of the input */
TEST(conv_unclosed_arguments)
{
	CHECK_PERR("str(a),crc32(", "missing closing ')'");
	CHECK_PERR("str(a),bytes(1,", "missing closing ')'");
	CHECK_PERR("str(a),be2hex(,,1)", "missing closing ')'");
	CHECK_STR(ev("str(abc),bytes(1,)"), "bc");
	CHECK_STR(ev("str(a),crc32()"), "3904355907");
}
