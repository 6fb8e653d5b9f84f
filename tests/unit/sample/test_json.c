/* Unit tests for sample/json: json() escaping in each input mode over valid and invalid
 * UTF-8, and json_query() paths, value kinds, unescaping, numbers, the int output type,
 * streaming over invalid tails, depth limit and small buffers. Expected values are HAProxy
 * 2.6's converter outputs on the same inputs.
 */
#include <string.h>

#include <sample/json.h>
#include "../test.h"

static char jt_out[512];

static const char *jt_esc(const char *in, size_t len, enum json_enc enc)
{
	int n = json_escape(in, len, enc, jt_out, sizeof(jt_out) - 1);

	if (n < 0)
		return "(fail)";
	jt_out[n] = 0;
	return jt_out;
}

#define JT_ESC(s, enc) jt_esc((s), sizeof(s) - 1, (enc))

TEST(json_escape_ascii)
{
	CHECK_STR(JT_ESC("Very \"Ugly\" UA 1/2", JSON_ENC_ASCII), "Very \\\"Ugly\\\" UA 1\\/2");
	CHECK_STR(JT_ESC("\x01\t\n\r\b\f\x1f\x7f\\ <>&'", JSON_ENC_ASCII),
		  "\\u0001\\t\\n\\r\\b\\f\\u001f\\u007f\\\\ <>&'");
	CHECK_STR(JT_ESC("caf\xc3\xa9", JSON_ENC_ASCII), "caf\\u00c3\\u00a9");
	CHECK_STR(JT_ESC("a\x00z", JSON_ENC_ASCII), "a\\u0000z");
	CHECK_STR(JT_ESC("", JSON_ENC_ASCII), "");
}

TEST(json_escape_utf8_modes)
{
	static const struct {
		const char *in;
		const char *out[4]; /* utf8, utf8s, utf8p, utf8ps */
	} v[] = {
		{ "caf\xc3\xa9", { "caf\\u00e9", "caf\\u00e9", "caf\\u00e9", "caf\\u00e9" } },
		{ "\xe2\x82\xac", { "\\u20ac", "\\u20ac", "\\u20ac", "\\u20ac" } },
		{ "\xed\x9f\xbf", { "\\ud7ff", "\\ud7ff", "\\ud7ff", "\\ud7ff" } },
		{ "a\xc2\x80z", { "a\\u0080z", "a\\u0080z", "a\\u0080z", "a\\u0080z" } },
		/* above U+FFFF: cannot be written as \uxxxx */
		{ "a\xf0\x9f\x98\x80z", { "(fail)", "az", "(fail)", "az" } },
		{ "a\xf8\x88\x80\x80\x80z", { "(fail)", "az", "(fail)", "az" } },
		{ "a\x80z", { "(fail)", "az", "(fail)", "az" } },
		{ "a\xc3", { "(fail)", "a", "(fail)", "a" } },
		{ "a\xe2\x82z", { "(fail)", "az", "(fail)", "az" } },
		{ "\xe9t\xe9", { "(fail)", "t", "(fail)", "t" } },
		{ "a\xffz", { "(fail)", "az", "(fail)", "az" } },
		/* surrogates and U+FFFE/U+FFFF: invalid range */
		{ "a\xed\xa0\x80z", { "(fail)", "az", "(fail)", "az" } },
		{ "\xef\xbf\xbe", { "(fail)", "", "(fail)", "" } },
		{ "a\xf4\x90\x80\x80z", { "(fail)", "az", "(fail)", "az" } },
		/* overlong forms: fixed by the "p" modes */
		{ "a\xc0\xafz", { "(fail)", "az", "a\\/z", "a\\/z" } },
		{ "a\xe0\x80\xafz", { "(fail)", "az", "a\\/z", "a\\/z" } },
		{ "a\xf0\x80\x80\xafz", { "(fail)", "az", "a\\/z", "a\\/z" } },
		{ "\xc1\xbf", { "(fail)", "", "\\u007f", "\\u007f" } },
		/* overlong surrogate: still an invalid range */
		{ "\xf0\x8d\xa0\x80", { "(fail)", "", "(fail)", "" } },
	};
	static const enum json_enc modes[4] = { JSON_ENC_UTF8, JSON_ENC_UTF8S, JSON_ENC_UTF8P,
						JSON_ENC_UTF8PS };
	size_t i;
	int m;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		for (m = 0; m < 4; m++) {
			const char *got = jt_esc(v[i].in, strlen(v[i].in), modes[m]);

			if (strcmp(got, v[i].out[m]))
				test_fail(__FILE__, __LINE__,
					  "case %zu mode %d: \"%s\", expected \"%s\"", i, m, got,
					  v[i].out[m]);
		}
	}
}

TEST(json_escape_limits)
{
	CHECK_INT(json_escape("ab", 2, JSON_ENC_ASCII, jt_out, 1), -1);
	CHECK_INT(json_escape("ab", 2, JSON_ENC_ASCII, jt_out, 2), 2);
	CHECK_INT(json_escape("\x01", 1, JSON_ENC_ASCII, jt_out, 5), -1);
	CHECK_INT(json_escape("\x01", 1, JSON_ENC_ASCII, jt_out, 6), 6);
	CHECK_INT(json_enc_parse("utf8ps"), JSON_ENC_UTF8PS);
	CHECK_INT(json_enc_parse("ascii"), JSON_ENC_ASCII);
	CHECK_INT(json_enc_parse("latin1"), -1);
}

static struct json_result jt_res;

/* Runs json_query; returns the text result, "(fail)", or for booleans and int numbers the
 * integer printed.
 */
static const char *jt_q(const char *doc, const char *path, unsigned int flags)
{
	int r = json_query(doc, strlen(doc), path, strlen(path), flags, jt_out, sizeof(jt_out) - 1,
			   &jt_res);

	if (r < 0)
		return "(fail)";
	if (jt_res.kind == JSON_K_TRUE || jt_res.kind == JSON_K_FALSE ||
	    (jt_res.kind == JSON_K_NUMBER && (flags & JSON_Q_INT))) {
		snprintf(jt_out, sizeof(jt_out), "%lld", (long long)jt_res.i);
		return jt_out;
	}
	jt_out[jt_res.len] = 0;
	return jt_out;
}

static const char jt_doc[] = "{\"a\":{\"b\":1,\"c\":[10,\"x\",{\"d\":true}]},\"f\":1.5,"
			     "\"n\":null,\"t\":true,\"fa\":false,\"my.key\":\"myvalue\","
			     "\"key with space\":7,\"s\":\"q\\\"w\\\\e\\n\\u0041\\u00e9\"}";

TEST(json_query_paths)
{
	CHECK_STR(jt_q(jt_doc, "$.a.b", 0), "1");
	CHECK_INT(jt_res.kind, JSON_K_NUMBER);
	CHECK_STR(jt_q(jt_doc, "$.a.c[0]", 0), "10");
	CHECK_STR(jt_q(jt_doc, "$.a.c[1]", 0), "x");
	CHECK_INT(jt_res.kind, JSON_K_STRING);
	CHECK_STR(jt_q(jt_doc, "$.a.c[2].d", 0), "1");
	CHECK_INT(jt_res.kind, JSON_K_TRUE);
	CHECK_STR(jt_q(jt_doc, "$.fa", 0), "0");
	CHECK_INT(jt_res.kind, JSON_K_FALSE);
	CHECK_STR(jt_q(jt_doc, "$.my\\.key", 0), "myvalue");
	CHECK_STR(jt_q(jt_doc, "$.key with space", 0), "7");
	CHECK_STR(jt_q(jt_doc, "$['key with space']", 0), "7"); /* extension */
	CHECK_STR(jt_q(jt_doc, "$[\"my.key\"]", 0), "myvalue");
	CHECK_STR(jt_q(jt_doc, "$.s", 0), "q\"w\\e\nA\xe9");
	CHECK_STR(jt_q(jt_doc, "$.a.c[3]", 0), "(fail)");
	CHECK_STR(jt_q(jt_doc, "$.zz", 0), "(fail)");
	CHECK_STR(jt_q(jt_doc, "$.a.zz", 0), "(fail)");
	CHECK_STR(jt_q(jt_doc, "$.f.x", 0), "(fail)");
	CHECK_STR(jt_q(jt_doc, "$.a[0]", 0), "(fail)");
	CHECK_STR(jt_q(jt_doc, "$.b", 0), "(fail)"); /* a nested key is not a top-level one */
	/* null, objects and arrays: described, HAProxy 2.6's converter fails on them */
	CHECK_STR(jt_q(jt_doc, "$.n", 0), "");
	CHECK_INT(jt_res.kind, JSON_K_NULL);
	CHECK_STR(jt_q(jt_doc, "$.a.c", 0), "[10,\"x\",{\"d\":true}]");
	CHECK_INT(jt_res.kind, JSON_K_ARRAY);
	CHECK_STR(jt_q(jt_doc, "$.a.c[2]", 0), "{\"d\":true}");
	CHECK_INT(jt_res.kind, JSON_K_OBJECT);
	CHECK_STR(jt_q("[1,[2,3],{\"k\":\"v\"}]", "$[1][1]", 0), "3");
	CHECK_STR(jt_q("[1,[2,3],{\"k\":\"v\"}]", "$[2].k", 0), "v");
	CHECK_STR(jt_q("[5,6,7,8,9,10,11,12,13,14,15,16]", "$[10]", 0), "15");
	CHECK_STR(jt_q("[5,6,7]", "$[01]", 0), "6");
	CHECK_STR(jt_q("\"str\"", "$", 0), "str");
	CHECK_STR(jt_q("{\"\":5}", "$.", 0), "5");
	CHECK_STR(jt_q("{\"a\":1,\"a\":2}", "$.a", 0), "1");
	CHECK_STR(jt_q("{\"a\":[{\"z\":5}],\"z\":1}", "$.a[0].z", 0), "5");
	CHECK_STR(jt_q("{ \"a\" : [ 1 , 2 ] , \"b\" : { \"c\" : \"d\" } }", "$.b.c", 0), "d");
	/* invalid paths */
	CHECK_STR(jt_q(jt_doc, "a.b", 0), "(fail)");
	CHECK_STR(jt_q(jt_doc, "", 0), "(fail)");
	CHECK_STR(jt_q("[1,2]", "$[1", 0), "(fail)");
	CHECK_STR(jt_q("[1,2]", "$[ 1]", 0), "(fail)");
	CHECK_STR(jt_q("[1,2]", "$[-1]", 0), "(fail)");
	CHECK_STR(jt_q("[1,2]", "$..a", 0), "(fail)");
	CHECK_STR(jt_q("{\"a\":1}", "$.a\\", 0), "(fail)");
}

TEST(json_query_strings)
{
	CHECK_STR(jt_q("{\"k\":\"a\\bb\"}", "$.k", 0), "a\bb");
	CHECK_STR(jt_q("{\"k\":\"a\\u004Ab\"}", "$.k", 0), "aJb");
	CHECK_STR(jt_q("{\"k\":\"\\u00ff\"}", "$.k", 0), "\xff");
	CHECK_STR(jt_q("{\"k\":\"a\tb\"}", "$.k", 0), "a\tb"); /* raw control bytes pass */
	CHECK_STR(jt_q("{\"k\":\"\"}", "$.k", 0), "");
	CHECK_STR(jt_q("{\"k\":\"a\\/b\"}", "$.k", 0), "(fail)"); /* as mjson */
	CHECK_STR(jt_q("{\"k\":\"\\u20ac\"}", "$.k", 0), "(fail)");
	CHECK_STR(jt_q("{\"k\":\"\\x41\"}", "$.k", 0), "(fail)");
	CHECK_STR(jt_q("{\"k\":\"\\u00\"}", "$.k", 0), "(fail)");
	/* a string value, even with the int output type */
	CHECK_STR(jt_q("{\"k\":\"12\"}", "$.k", JSON_Q_INT), "12");
	CHECK_INT(jt_res.kind, JSON_K_STRING);
	/* a NUL byte from \u0000 is kept */
	CHECK_INT(json_query("{\"k\":\"a\\u0000b\"}", 16, "$.k", 3, 0, jt_out, 8, &jt_res), 0);
	CHECK_INT(jt_res.len, 3);
	CHECK(!memcmp(jt_out, "a\0b", 3));
}

TEST(json_query_numbers)
{
	static const struct {
		const char *val, *dbl, *i;
	} v[] = {
		{ "4", "4", "4" },
		{ "1.5", "1.5", "1" },
		{ "-12", "-12", "-12" },
		{ "1e3", "1000", "1" },
		{ "2.5E+2", "250", "2" },
		{ "-0", "-0", "0" },
		{ "-1.25e-2", "-0.0125", "-1" },
		{ "1234567", "1.23457e+06", "1234567" },
		{ "123456.5", "123456", "123456" },
		{ "0.000012345", "1.2345e-05", "0" },
		{ "0.30000000000000004", "0.3", "0" },
		{ "1e400", "inf", "1" },
		{ "1e-400", "0", "1" },
		{ "1e-+5", "1e-05", "1" },
		{ "-.5", "-0.5", "0" },
		{ "010", "10", "8" },
		{ "01", "1", "1" },
		{ "1e", "1", "1" },
		{ "9007199254740991", "9.0072e+15", "9007199254740991" },
		{ "-9007199254740991", "-9.0072e+15", "-9007199254740991" },
		{ "9007199254740992", "9.0072e+15", "(fail)" },
		{ "-9007199254740992", "-9.0072e+15", "(fail)" },
		{ "9223372036854775807", "9.22337e+18", "(fail)" },
		{ "12345678901234567890", "1.23457e+19", "(fail)" },
	};
	char doc[128];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const char *got;

		snprintf(doc, sizeof(doc), "{\"k\":%s,\"z\":1}", v[i].val);
		got = jt_q(doc, "$.k", 0);
		if (strcmp(got, v[i].dbl))
			test_fail(__FILE__, __LINE__, "%s: \"%s\", expected \"%s\"", v[i].val, got,
				  v[i].dbl);
		got = jt_q(doc, "$.k", JSON_Q_INT);
		if (strcmp(got, v[i].i))
			test_fail(__FILE__, __LINE__, "%s as int: \"%s\", expected \"%s\"",
				  v[i].val, got, v[i].i);
		got = jt_q(doc, "$.z", 0);
		if (strcmp(got, "1"))
			test_fail(__FILE__, __LINE__, "%s then z: \"%s\"", v[i].val, got);
	}
}

TEST(json_query_streaming_and_malformed)
{
	/* values are returned before invalid or missing tails, as mjson does */
	CHECK_STR(jt_q("{\"a\":1,", "$.a", 0), "1");
	CHECK_STR(jt_q("{\"s\":\"abc\"", "$.s", 0), "abc");
	CHECK_STR(jt_q("{\"a\":[1,2,3]} trailing", "$.a[1]", 0), "2");
	CHECK_STR(jt_q("  {\"x\":\"y\"}", "$.x", 0), "y");
	CHECK_STR(jt_q("{\"k\":truex,\"z\":1}", "$.k", 0), "1");
	CHECK_STR(jt_q("{\"k\":truex,\"z\":1}", "$.z", 0), "(fail)");
	/* "1." and "-" report a value, then the parse fails on the same byte */
	CHECK_STR(jt_q("{\"k\":1.,\"z\":1}", "$.k", 0), "1");
	CHECK_STR(jt_q("{\"k\":1.,\"z\":1}", "$.z", 0), "(fail)");
	CHECK_STR(jt_q("{\"k\":-,\"z\":1}", "$.k", JSON_Q_INT), "0");
	CHECK_STR(jt_q("{\"k\":-,\"z\":1}", "$.z", 0), "(fail)");
	/* the int conversion reads as strtoll(, 0) past mjson's token */
	CHECK_STR(jt_q("{\"k\":0x10,\"z\":1}", "$.k", JSON_Q_INT), "16");
	CHECK_STR(jt_q("{\"k\":0x10,\"z\":1}", "$.k", 0), "0");
	CHECK_STR(jt_q("{\"k\":-0x10,\"z\":1}", "$.k", JSON_Q_INT), "-16");
	CHECK_STR(jt_q("{\"k\":0x10,\"z\":1}", "$.z", 0), "(fail)");
	/* trailing commas are accepted */
	CHECK_STR(jt_q("{\"k\":[1,],\"z\":1}", "$.z", 0), "1");
	CHECK_STR(jt_q("{\"k\":{\"a\":1,},\"z\":1}", "$.z", 0), "1");
	CHECK_STR(jt_q("[1,]", "$[1]", 0), "(fail)");
	/* invalid before the value */
	CHECK_STR(jt_q("{\"k\":.5,\"z\":1}", "$.z", 0), "(fail)");
	CHECK_STR(jt_q("{\"k\":+1,\"z\":1}", "$.z", 0), "(fail)");
	CHECK_STR(jt_q("{\"k\":tru,\"z\":1}", "$.z", 0), "(fail)");
	CHECK_STR(jt_q("{\"a\":1]", "$.b", 0), "(fail)");
	CHECK_STR(jt_q("{\"a\" 1}", "$.a", 0), "(fail)");
	CHECK_STR(jt_q("{1:1}", "$.a", 0), "(fail)");
	CHECK_STR(jt_q("", "$", 0), "(fail)");
	CHECK_STR(jt_q("}", "$", 0), "(fail)");
	CHECK_INT(json_query("{\"k\":\"a\0b\",\"z\":1}", 16, "$.z", 3, 0, jt_out, 8, &jt_res), -1);
	/* a key with an escaped quote is compared raw */
	CHECK_STR(jt_q("{\"a\\\"b\":3,\"z\":1}", "$.z", 0), "1");
	CHECK_STR(jt_q("{\"a\\\"b\":3,\"z\":1}", "$.a\\\"b", 0), "(fail)");
}

TEST(json_query_depth_and_room)
{
	char doc[128];
	int i, n = 0;

	/* 20 levels pass, 21 fail */
	n += snprintf(doc + n, sizeof(doc) - n, "{\"k\":");
	for (i = 0; i < 19; i++)
		doc[n++] = '[';
	doc[n++] = '1';
	for (i = 0; i < 19; i++)
		doc[n++] = ']';
	snprintf(doc + n, sizeof(doc) - n, ",\"z\":1}");
	CHECK_STR(jt_q(doc, "$.z", 0), "1");
	CHECK_STR(jt_q(doc, "$.k[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]", 0),
		  "1");
	n = snprintf(doc, sizeof(doc), "{\"k\":");
	for (i = 0; i < 20; i++)
		doc[n++] = '[';
	doc[n++] = '1';
	for (i = 0; i < 20; i++)
		doc[n++] = ']';
	snprintf(doc + n, sizeof(doc) - n, ",\"z\":1}");
	CHECK_STR(jt_q(doc, "$.z", 0), "(fail)");
	/* out of room: strings, numbers and raw containers */
	CHECK_INT(json_query("{\"k\":\"abc\"}", 11, "$.k", 3, 0, jt_out, 2, &jt_res), -1);
	CHECK_INT(json_query("{\"k\":\"abc\"}", 11, "$.k", 3, 0, jt_out, 3, &jt_res), 0);
	CHECK_INT(json_query("{\"k\":1.5}", 9, "$.k", 3, 0, jt_out, 3, &jt_res), -1);
	CHECK_INT(json_query("{\"k\":1.5}", 9, "$.k", 3, 0, jt_out, 4, &jt_res), 0);
	CHECK_INT(json_query("{\"k\":[1]}", 9, "$.k", 3, 0, jt_out, 2, &jt_res), -1);
	CHECK_INT(json_query("{\"k\":[1]}", 9, "$.k", 3, 0, jt_out, 3, &jt_res), 0);
	CHECK_INT(json_query("{\"k\":true}", 10, "$.k", 3, 0, NULL, 0, &jt_res), 0);
	CHECK_INT(jt_res.i, 1);
	/* the length bounds every read, even inside a token */
	CHECK_INT(json_query("{\"k\":\"abc\"}", 8, "$.k", 3, 0, jt_out, 8, &jt_res), -1);
	CHECK_INT(json_query("{\"k\":true}", 8, "$.k", 3, 0, jt_out, 8, &jt_res), -1);
	CHECK_STR(jt_q("{\"k\":12", "$.k", 0), "12");
	CHECK_INT(json_query("{\"k\":123}", 7, "$.k", 3, JSON_Q_INT, jt_out, 8, &jt_res), 0);
	CHECK_INT(jt_res.i, 12);
}
