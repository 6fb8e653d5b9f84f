/* Unit tests for sample/codec: base64/base64url both ways, hex, hex2i, url_dec/url_enc,
 * be2dec/be2hex, field/word and the date converters. Expected values are HAProxy 2.6's
 * converter outputs on the same inputs; also round trips, invalid input and small buffers.
 */
#include <stdlib.h>
#include <string.h>

#include <sample/codec.h>
#include "../test.h"

static char ct_out[1024];

/* Runs an encoder/decoder on the string <in>; returns the output as a string or "(fail)". */
#define CT_RUN(fn, in) ct_str(fn((in), strlen(in), ct_out, sizeof(ct_out) - 1))

static const char *ct_str(int n)
{
	if (n < 0)
		return "(fail)";
	ct_out[n] = 0;
	return ct_out;
}

static const char *ct_hex(const char *p, int n)
{
	static char s[2 * sizeof(ct_out) + 1];
	int i;

	if (n < 0)
		return "(fail)";
	for (i = 0; i < n; i++)
		snprintf(s + 2 * i, 3, "%02X", (unsigned char)p[i]);
	s[2 * n] = 0;
	return s;
}

static const char *ct_b64dec(const char *in)
{
	return ct_hex(ct_out, codec_b64_dec(in, strlen(in), ct_out, sizeof(ct_out)));
}

static const char *ct_ub64dec(const char *in)
{
	return ct_hex(ct_out, codec_ub64_dec(in, strlen(in), ct_out, sizeof(ct_out)));
}

TEST(codec_base64_encode)
{
	CHECK_STR(CT_RUN(codec_b64_enc, ""), "");
	CHECK_STR(CT_RUN(codec_b64_enc, "abc"), "YWJj");
	CHECK_STR(CT_RUN(codec_b64_enc, "ab"), "YWI=");
	CHECK_STR(CT_RUN(codec_b64_enc, "a"), "YQ==");
	CHECK_STR(CT_RUN(codec_b64_enc, "\xab\xcd\xef\x01"), "q83vAQ==");
	CHECK_STR(CT_RUN(codec_b64_enc, "\xfb\xff\xbf"), "+/+/");
	CHECK_STR(CT_RUN(codec_ub64_enc, "\xfb\xff\xbf"), "-_-_");
	CHECK_STR(CT_RUN(codec_ub64_enc, "a"), "YQ");
	CHECK_STR(CT_RUN(codec_ub64_enc, "ab"), "YWI");
	CHECK_STR(CT_RUN(codec_ub64_enc, ""), "");
	/* out of room: exactly the size needed passes, one less fails */
	CHECK_INT(codec_b64_enc("ab", 2, ct_out, 4), 4);
	CHECK_INT(codec_b64_enc("ab", 2, ct_out, 3), -1);
	CHECK_INT(codec_ub64_enc("ab", 2, ct_out, 3), 3);
	CHECK_INT(codec_ub64_enc("ab", 2, ct_out, 2), -1);
}

TEST(codec_base64_decode_like_haproxy)
{
	CHECK_STR(ct_b64dec("YWJj"), "616263");
	CHECK_STR(ct_b64dec("YWI="), "6162");
	CHECK_STR(ct_b64dec("YQ=="), "61");
	CHECK_STR(ct_b64dec("YR=="), "61"); /* stray low bits ignored */
	CHECK_STR(ct_b64dec("YWJjZGVm"), "616263646566");
	CHECK_STR(ct_b64dec("+/+/"), "FBFFBF");
	CHECK_STR(ct_b64dec("YWJjYQ==YQ=="), "6162636161"); /* padding per quad */
	CHECK_STR(ct_b64dec("X==="), "");
	CHECK_STR(ct_b64dec("XYZ="), "5D86");
	CHECK_STR(ct_b64dec(""), "");
	CHECK_STR(ct_b64dec("YWI"), "(fail)");
	CHECK_STR(ct_b64dec("YQ="), "(fail)");
	CHECK_STR(ct_b64dec("===="), "(fail)");
	CHECK_STR(ct_b64dec("AA=A"), "(fail)");
	CHECK_STR(ct_b64dec("YW=j"), "(fail)");
	CHECK_STR(ct_b64dec("YW Jj"), "(fail)");
	CHECK_STR(ct_b64dec("YWJj\n"), "(fail)");
	CHECK_STR(ct_b64dec("-_-_"), "(fail)");
	CHECK_STR(ct_b64dec("YWJj===="), "(fail)");
	CHECK_INT(codec_b64_dec("YWJj", 4, ct_out, 3), 3);
	CHECK_INT(codec_b64_dec("YWJj", 4, ct_out, 2), -1);
	CHECK_INT(codec_b64_dec("YWI=", 4, ct_out, 2), 2);
}

TEST(codec_base64url_decode)
{
	CHECK_STR(ct_ub64dec("-_-_"), "FBFFBF");
	CHECK_STR(ct_ub64dec("YQ"), "61");
	CHECK_STR(ct_ub64dec("YWI"), "6162");
	CHECK_STR(ct_ub64dec("YWJj"), "616263");
	CHECK_STR(ct_ub64dec("ABCDEF"), "00108310");
	CHECK_STR(ct_ub64dec(""), "");
	CHECK_STR(ct_ub64dec("A"), "(fail)");
	CHECK_STR(ct_ub64dec("ABCDE"), "(fail)");
	CHECK_STR(ct_ub64dec("+/+/"), "(fail)");
	CHECK_STR(ct_ub64dec("YW Jj"), "(fail)");
	/* padding (HAProxy 2.6 would decode '=' as '_') */
	CHECK_STR(ct_ub64dec("YQ=="), "61");
	CHECK_STR(ct_ub64dec("YWI="), "6162");
	CHECK_STR(ct_ub64dec("YQ="), "(fail)");
	CHECK_STR(ct_ub64dec("===="), "(fail)");
	CHECK_INT(codec_ub64_dec("YWI", 3, ct_out, 2), 2);
	CHECK_INT(codec_ub64_dec("YWI", 3, ct_out, 1), -1);
}

TEST(codec_base64_round_trips)
{
	unsigned char in[300];
	char enc[512], dec[300];
	size_t n;
	int e, d;

	for (n = 0; n < sizeof(in); n++)
		in[n] = (unsigned char)(n * 37 + 11);
	for (n = 0; n <= sizeof(in); n += 1 + n / 16) {
		e = codec_b64_enc(in, n, enc, sizeof(enc));
		d = codec_b64_dec(enc, (size_t)e, dec, sizeof(dec));
		CHECK(e >= 0 && d == (int)n && !memcmp(dec, in, n));
		e = codec_ub64_enc(in, n, enc, sizeof(enc));
		d = codec_ub64_dec(enc, (size_t)e, dec, sizeof(dec));
		CHECK(e >= 0 && d == (int)n && !memcmp(dec, in, n));
		CHECK(!memchr(enc, '=', (size_t)e) && !memchr(enc, '+', (size_t)e));
	}
}

TEST(codec_hex_and_hex2i)
{
	int64_t v = 42;

	CHECK_STR(CT_RUN(codec_hex_enc, "\xab\xcd\xef"), "ABCDEF");
	CHECK_STR(CT_RUN(codec_hex_enc, ""), "");
	CHECK_INT(codec_hex_enc("ab", 2, ct_out, 3), -1);
	CHECK_INT(codec_hex2i("1A", 2, &v), 0);
	CHECK_INT(v, 26);
	CHECK_INT(codec_hex2i("1a", 2, &v), 0);
	CHECK_INT(v, 26);
	CHECK_INT(codec_hex2i("ffffffffffffffff", 16, &v), 0);
	CHECK_INT(v, -1);
	CHECK_INT(codec_hex2i("8000000000000000", 16, &v), 0);
	CHECK(v == INT64_MIN);
	CHECK_INT(codec_hex2i("10000000000000000", 17, &v), 0); /* wraps */
	CHECK_INT(v, 0);
	CHECK_INT(codec_hex2i("00000000000000000000001", 23, &v), 0);
	CHECK_INT(v, 1);
	CHECK_INT(codec_hex2i("", 0, &v), 0);
	CHECK_INT(v, 0);
	CHECK_INT(codec_hex2i("-1A", 3, &v), -1);
	CHECK_INT(codec_hex2i("1z", 2, &v), -1);
	CHECK_INT(codec_hex2i("0x10", 4, &v), -1);
	CHECK_INT(codec_hex2i(" 1", 2, &v), -1);
}

static const char *ct_urldec(const char *in, bool form)
{
	return ct_hex(ct_out, codec_url_dec(in, strlen(in), ct_out, sizeof(ct_out), form));
}

TEST(codec_url_decode)
{
	char buf[16];

	CHECK_STR(ct_urldec("%41", false), "41");
	CHECK_STR(ct_urldec("a+b", false), "612B62");
	CHECK_STR(ct_urldec("a+b", true), "612062");
	CHECK_STR(ct_urldec("a+b?c+d", false), "612B623F632064");
	CHECK_STR(ct_urldec("%3F+a", false), "3F2B61"); /* a decoded '?' does not count */
	CHECK_STR(ct_urldec("%3F+a", true), "3F2061");
	CHECK_STR(ct_urldec("%00x", false), "0078");
	CHECK_STR(ct_urldec("%C3%A9", false), "C3A9");
	CHECK_STR(ct_urldec("x%3fa+b", true), "783F612062");
	CHECK_STR(ct_urldec("%4", false), "(fail)");
	CHECK_STR(ct_urldec("%zz", false), "(fail)");
	CHECK_STR(ct_urldec("%4g", false), "(fail)");
	CHECK_STR(ct_urldec("abc%", false), "(fail)");
	CHECK_STR(ct_urldec("%%41", false), "(fail)");
	CHECK_INT(codec_url_dec("a%41b", 5, ct_out, 2, false), -1);
	CHECK_INT(codec_url_dec("a%41b", 5, ct_out, 3, false), 3);
	/* in place */
	strcpy(buf, "x%20y+z");
	CHECK_INT(codec_url_dec(buf, 7, buf, sizeof(buf), true), 5);
	CHECK(!memcmp(buf, "x y z", 5));
}

TEST(codec_url_encode)
{
	unsigned char all[255];
	char out[1024];
	int i, n;

	for (i = 0; i < 255; i++)
		all[i] = (unsigned char)(i + 1);
	n = codec_url_enc((const char *)all, 127, out, sizeof(out));
	CHECK_INT(n, 249);
	out[n > 0 ? n : 0] = 0;
	CHECK_STR(out, "%01%02%03%04%05%06%07%08%09%0A%0B%0C%0D%0E%0F%10%11%12%13%14%15%16%17"
		       "%18%19%1A%1B%1C%1D%1E%1F%20%21%22%23%24%25%26%27%28%29%2A%2B%2C-.%2F0123"
		       "456789%3A%3B%3C%3D%3E%3F%40ABCDEFGHIJKLMNOPQRSTUVWXYZ%5B%5C%5D%5E_%60abcd"
		       "efghijklmnopqrstuvwxyz%7B%7C%7D~%7F");
	CHECK_INT(codec_url_enc((const char *)all, 255, out, sizeof(out)), 633);
	CHECK_STR(CT_RUN(codec_url_enc, "a b"), "a%20b");
	CHECK_INT(codec_url_enc("a b", 3, out, 4), -1);
	CHECK_INT(codec_url_enc("a b", 3, out, 5), 5);
	CHECK_INT(codec_url_enc("\xe9", 1, out, 2), -1);
}

static const char *ct_be2dec(const char *hex, const char *sep, int chunk, bool trunc)
{
	unsigned char bin[32];
	size_t n = strlen(hex) / 2, i;

	for (i = 0; i < n; i++)
		bin[i] = (unsigned char)strtoul((char[3]){ hex[2 * i], hex[2 * i + 1], 0 }, NULL,
						16);
	return ct_str(
		codec_be2dec(bin, n, sep, strlen(sep), chunk, trunc, ct_out, sizeof(ct_out) - 1));
}

static const char *ct_be2hex(const char *hex, const char *sep, int chunk, bool trunc)
{
	unsigned char bin[32];
	size_t n = strlen(hex) / 2, i;

	for (i = 0; i < n; i++)
		bin[i] = (unsigned char)strtoul((char[3]){ hex[2 * i], hex[2 * i + 1], 0 }, NULL,
						16);
	return ct_str(
		codec_be2hex(bin, n, sep, strlen(sep), chunk, trunc, ct_out, sizeof(ct_out) - 1));
}

TEST(codec_be2dec_be2hex)
{
	CHECK_STR(ct_be2dec("01020304050607", ":", 2, false), "258:772:1286:7");
	CHECK_STR(ct_be2dec("01020304050607", "-", 2, true), "258-772-1286");
	CHECK_STR(ct_be2dec("01020304050607", "", 2, true), "2587721286");
	CHECK_STR(ct_be2dec("7f000001", ".", 1, false), "127.0.0.1");
	CHECK_STR(ct_be2dec("01020304050607", ":", 8, false), "283686952306183");
	CHECK_STR(ct_be2dec("01020304050607", ":", 8, true), "");
	CHECK_STR(ct_be2dec("ffffffffffffffff", ":", 8, false), "18446744073709551615");
	CHECK_STR(ct_be2dec("ffffffffffffffff01", "::", 8, false), "18446744073709551615::1");
	CHECK_STR(ct_be2dec("01020304050607", "ab", 3, false), "66051ab263430ab7");
	CHECK_STR(ct_be2dec("", ":", 2, false), "");
	CHECK_STR(ct_be2dec("01", ":", 0, false), "(fail)");
	CHECK_STR(ct_be2dec("01", ":", 9, false), "(fail)");
	CHECK_STR(ct_be2hex("01020304050607", "", 0, false), "01020304050607");
	CHECK_STR(ct_be2hex("01020304050607", ":", 2, false), "0102:0304:0506:07");
	CHECK_STR(ct_be2hex("01020304050607", "--", 2, true), "0102--0304--0506");
	CHECK_STR(ct_be2hex("0102030405060708", "", 3, true), "010203040506");
	CHECK_STR(ct_be2hex("abcdef", "", 0, false), "ABCDEF");
	CHECK_STR(ct_be2hex("abcdef", ":", 1, false), "AB:CD:EF");
	CHECK_STR(ct_be2hex("abcdef", ":", 5, true), "");
	CHECK_STR(ct_be2hex("abcdef", ":", 3, true), "ABCDEF");
	CHECK_STR(ct_be2hex("01", "", 9, false), "01");
	CHECK_INT(codec_be2hex("\x01\x02", 2, ":", 1, 1, false, ct_out, 4), -1);
	CHECK_INT(codec_be2hex("\x01\x02", 2, ":", 1, 1, false, ct_out, 5), 5);
	CHECK_INT(codec_be2dec("\x01\x02", 2, ":", 1, 1, false, ct_out, 2), -1);
	CHECK_INT(codec_be2dec("\x01\x02", 2, ":", 1, 1, false, ct_out, 3), 3);
}

/* field()/word() on <in> as a string, "(fail)" when the converter fails. */
static const char *ct_fw(bool word, const char *in, long idx, const char *d, long count)
{
	size_t off, len;
	int r = word ? codec_word(in, strlen(in), idx, d, strlen(d), count, &off, &len)
		     : codec_field(in, strlen(in), idx, d, strlen(d), count, &off, &len);

	if (r < 0)
		return "(fail)";
	memcpy(ct_out, in + off, len);
	ct_out[len] = 0;
	return ct_out;
}

TEST(codec_field)
{
	const char *s = "f1_f2_f3__f5";

	/* the documentation's examples */
	CHECK_STR(ct_fw(false, s, 5, "_", 1), "f5");
	CHECK_STR(ct_fw(false, s, 2, "_", 0), "f2_f3__f5");
	CHECK_STR(ct_fw(false, s, 2, "_", 2), "f2_f3");
	CHECK_STR(ct_fw(false, s, -2, "_", 3), "f2_f3_");
	CHECK_STR(ct_fw(false, s, -3, "_", 0), "f1_f2_f3");
	/* more, checked against HAProxy 2.6 */
	CHECK_STR(ct_fw(false, s, -1, "_", 0), s);
	CHECK_STR(ct_fw(false, s, -2, "_", 1), "");
	CHECK_STR(ct_fw(false, s, -4, "_", 3), "f1_f2");
	CHECK_STR(ct_fw(false, s, -5, "_", 3), "f1");
	CHECK_STR(ct_fw(false, s, 4, "_", 1), "");
	CHECK_STR(ct_fw(false, s, 6, "_", 1), "(fail)");
	CHECK_STR(ct_fw(false, s, -6, "_", 1), "(fail)");
	CHECK_STR(ct_fw(false, "_a__b_", 4, "_", 3), "b_");
	CHECK_STR(ct_fw(false, "_a__b_", -1, "_", 3), "_b_");
	CHECK_STR(ct_fw(false, "_a__b_", 1, "_", 1), "");
	CHECK_STR(ct_fw(false, "", 1, "_", 1), "");
	CHECK_STR(ct_fw(false, "", 2, "_", 1), "(fail)");
	CHECK_STR(ct_fw(false, "abc", -2, "_", 1), "(fail)");
	CHECK_STR(ct_fw(false, "a/b_c//d", 3, "_/", 2), "c/");
	CHECK_STR(ct_fw(false, "a_b_c_d", 2, "_", -1), "b_c_d");
	CHECK_STR(ct_fw(false, "a_b_c_d", -2, "_", -1), "a_b_c");
	CHECK_STR(ct_fw(false, "a", 0, "_", 1), "(fail)");
	CHECK_STR(ct_fw(false, "a", 1, "", 1), "(fail)");
	CHECK_STR(ct_fw(false, "a_b", 9000000000000000000L, "_", 1), "(fail)");
	CHECK_STR(ct_fw(false, "a_b", -9000000000000000000L, "_", 1), "(fail)");
}

TEST(codec_word)
{
	const char *s = "f1_f2_f3__f5";

	CHECK_STR(ct_fw(true, s, 4, "_", 1), "f5");
	CHECK_STR(ct_fw(true, s, 2, "_", 0), "f2_f3__f5");
	CHECK_STR(ct_fw(true, s, 3, "_", 2), "f3__f5");
	CHECK_STR(ct_fw(true, s, -2, "_", 3), "f1_f2_f3");
	CHECK_STR(ct_fw(true, s, -3, "_", 0), "f1_f2");
	CHECK_STR(ct_fw(true, "/f1/f2/f3/f4", 1, "/", 1), "f1");
	CHECK_STR(ct_fw(true, "_a__b_", 1, "_", 0), "a__b_");
	CHECK_STR(ct_fw(true, "_a__b_", -1, "_", 0), "_a__b");
	CHECK_STR(ct_fw(true, "_a__b_", 2, "_", 2), "b_");
	CHECK_STR(ct_fw(true, "_a__b_", 1, "_", 2), "a__b");
	CHECK_STR(ct_fw(true, "_a__b_", -1, "_", 3), "_a__b");
	CHECK_STR(ct_fw(true, "_a__b_", 3, "_", 1), ""); /* missing: empty, not a failure */
	CHECK_STR(ct_fw(true, "_a__b_", -3, "_", 1), "");
	CHECK_STR(ct_fw(true, "__", 1, "_", 1), "");
	CHECK_STR(ct_fw(true, "", -1, "_", 1), "");
	CHECK_STR(ct_fw(true, "a_b_c_d", 2, "_", -1), "b_c_d");
	CHECK_STR(ct_fw(true, "a_b_c_d", -2, "_", -1), "a_b_c");
	CHECK_STR(ct_fw(true, "a", 0, "_", 1), "(fail)");
}

TEST(codec_utime_ltime)
{
	char out[64];

	CHECK_INT(codec_strftime(1700000000, 0, true, "%Y-%m-%d %H:%M:%S", out, sizeof(out)), 19);
	CHECK_STR(out, "2023-11-14 22:13:20");
	codec_strftime(1700000000, 3600, true, "%Y-%m-%d %H:%M:%S", out, sizeof(out));
	CHECK_STR(out, "2023-11-14 23:13:20");
	codec_strftime(1700000000, -86400, true, "%Y-%m-%d %H:%M:%S", out, sizeof(out));
	CHECK_STR(out, "2023-11-13 22:13:20");
	/* negative dates are masked to 55 bits, then the offset is added */
	codec_strftime(-1, 0, true, "%Y-%m-%d %H:%M:%S", out, sizeof(out));
	CHECK_STR(out, "1141709097-06-13 06:26:07");
	codec_strftime(-1, 1, true, "%Y-%m-%d %H:%M:%S", out, sizeof(out));
	CHECK_STR(out, "1141709097-06-13 06:26:08");
	codec_strftime(5, -10, true, "%Y", out, sizeof(out));
	CHECK_STR(out, "1969");
	codec_strftime(-9223372036854775807LL, 0, true, "%Y", out, sizeof(out));
	CHECK_STR(out, "1970");
	codec_strftime(1700000000, 0, true, "%s", out, sizeof(out));
	CHECK_STR(out, "1700000000");
	CHECK_INT(codec_strftime(1700000000, 0, true, "%Y-%m-%d", out, 10), 0); /* no room */
	CHECK_INT(codec_strftime(1700000000, 0, false, "%Y", out, sizeof(out)), 4);
}

static const char *ct_http_date(int64_t d, int64_t off, enum codec_time_unit u)
{
	return ct_str(codec_http_date(d, off, u, ct_out, sizeof(ct_out)));
}

TEST(codec_http_date)
{
	CHECK_STR(ct_http_date(1700000000, 0, CODEC_UNIT_S), "Tue, 14 Nov 2023 22:13:20 GMT");
	CHECK_STR(ct_http_date(1700000000, 3600, CODEC_UNIT_S), "Tue, 14 Nov 2023 23:13:20 GMT");
	CHECK_STR(ct_http_date(1700000000, -3600, CODEC_UNIT_S), "Tue, 14 Nov 2023 21:13:20 GMT");
	CHECK_STR(ct_http_date(0, 0, CODEC_UNIT_S), "Thu, 01 Jan 1970 00:00:00 GMT");
	CHECK_STR(ct_http_date(1788221889, 0, CODEC_UNIT_S), "Tue, 01 Sep 2026 00:18:09 GMT");
	CHECK_STR(ct_http_date(253402300800LL, 0, CODEC_UNIT_S), "Sat, 01 Jan 10000 00:00:00 GMT");
	CHECK_STR(ct_http_date(-1, 0, CODEC_UNIT_S), "Sun, 13 Jun 1141709097 06:26:07 GMT");
	CHECK_STR(ct_http_date(36028797018963967LL, 1, CODEC_UNIT_S),
		  "Thu, 01 Jan 1970 00:00:00 GMT"); /* offset added before the mask */
	CHECK_STR(ct_http_date(1700000000123LL, 0, CODEC_UNIT_MS),
		  "Tue, 14 Nov 2023 22:13:20.123 GMT");
	CHECK_STR(ct_http_date(1700000000999LL, 1000, CODEC_UNIT_MS),
		  "Tue, 14 Nov 2023 22:13:21.999 GMT");
	CHECK_STR(ct_http_date(1700000000005LL, 0, CODEC_UNIT_MS),
		  "Tue, 14 Nov 2023 22:13:20.5 GMT");
	CHECK_STR(ct_http_date(1700000000050LL, 0, CODEC_UNIT_MS),
		  "Tue, 14 Nov 2023 22:13:20.50 GMT");
	CHECK_STR(ct_http_date(1700000000123456LL, 0, CODEC_UNIT_US),
		  "Tue, 14 Nov 2023 22:13:20.123456 GMT");
	CHECK_STR(ct_http_date(1700000000000000LL, 0, CODEC_UNIT_US),
		  "Tue, 14 Nov 2023 22:13:20.0 GMT");
	CHECK_STR(ct_http_date(-1500, 0, CODEC_UNIT_MS),
		  "Sun, 13 Jun 1141709097 06:26:07.-500 GMT");
	CHECK_STR(ct_http_date(-5, 0, CODEC_UNIT_US), "Thu, 01 Jan 1970 00:00:00.-5 GMT");
	CHECK_INT(codec_http_date(0, 0, CODEC_UNIT_S, ct_out, 29), -1);
	CHECK_INT(codec_http_date(0, 0, CODEC_UNIT_S, ct_out, 30), 29);
	CHECK_INT(codec_time_unit_parse("ms"), CODEC_UNIT_MS);
	CHECK_INT(codec_time_unit_parse("us"), CODEC_UNIT_US);
	CHECK_INT(codec_time_unit_parse("s"), CODEC_UNIT_S);
	CHECK_INT(codec_time_unit_parse("ns"), -1);
}
