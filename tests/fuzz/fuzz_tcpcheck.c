// FUZZ_SRCS: src/check/tcpcheck.c src/sample/regex.c
// FUZZ_FLAGS: -DUSE_PCRE2 -DUSE_PCRE2_JIT -lpcre2-8
/* libFuzzer target for what rule-based checks read from servers (check/tcpcheck.c): the
 * expect matching of every kind (string, regex, binary, binary regex, min-recv, '!'), the
 * MySQL handshake and login reply parser, the LDAP bind response parser, the HTTP header
 * matcher of "http-check expect hdr|fhdr", the info
 * extraction and SMTP code, on every prefix of the input (a reply arriving in pieces),
 * with and without more to come. Findings are crashes, sanitizer reports, and views that
 * leave the input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check/tcpcheck.h>
#include <sample/regex.h>

static struct tcpchk_rule rules[5], hrules[3];
static char hex[2 * 4096 + 1];

static void fuzz_view(const char *buf, size_t len, struct ist v)
{
	if (!v.len)
		return;
	if ((v.ptr < buf || v.ptr + v.len > buf + len) && v.ptr[v.len - 1] == 0x7f)
		abort(); /* static texts never end with DEL: a view must lie in the input */
}

static void fuzz_verdict(const struct tcpchk_verdict *v)
{
	if (v->v != TCPCHK_V_MORE && v->v != TCPCHK_V_OK && v->v != TCPCHK_V_FAIL)
		abort();
}

static void fuzz_init(void)
{
	static const char *const pats[] = { "+PONG", "^2[0-9]{2}[ \r]", "0102", "^1[56]",
					    "^52000000[A-Z0-9]{2}000000(00|02|03|04)" };
	static const int kinds[] = { TCPCHK_EXP_STRING, TCPCHK_EXP_RSTRING, TCPCHK_EXP_BINARY,
				     TCPCHK_EXP_RBINARY, TCPCHK_EXP_RBINARY };
	static char bin[2] = { 1, 2 };
	char err[128];

	for (int i = 0; i < 5; i++) {
		rules[i].kind = kinds[i];
		rules[i].pattern = (char *)pats[i];
		rules[i].min_recv = i == 3 ? 5 : -1;
		rules[i].negate = i == 1;
		if (kinds[i] == TCPCHK_EXP_BINARY) {
			rules[i].bin = bin;
			rules[i].len = 2;
		}
		if (kinds[i] == TCPCHK_EXP_RSTRING || kinds[i] == TCPCHK_EXP_RBINARY)
			rules[i].re = regex_comp(pats[i], 0, err, sizeof(err));
	}
	hrules[0].hname = "x-foo"; /* name only */
	hrules[1].hname = "x-";	   /* name prefix, one of the values by regex */
	hrules[1].hname_m = TCPCHK_HM_BEG;
	hrules[1].hval = "^b.r$";
	hrules[1].hval_m = TCPCHK_HM_REG;
	hrules[1].hval_re = regex_comp(hrules[1].hval, 0, err, sizeof(err));
	hrules[2].hname = "o"; /* substring, the whole value's end */
	hrules[2].hname_m = TCPCHK_HM_SUB;
	hrules[2].hval = "bar";
	hrules[2].hval_m = TCPCHK_HM_END;
	hrules[2].hfull = true;
}

static void fuzz_one(const char *buf, size_t len, bool last)
{
	struct tcpchk_verdict v;

	for (int i = 0; i < 5; i++) {
		tcpchk_expect_eval(&rules[i], buf, len, last, NULL, 0, hex, &v);
		fuzz_verdict(&v);
	}
	tcpchk_mysql_eval(buf, len, last, false, &v);
	fuzz_verdict(&v);
	fuzz_view(buf, len, v.info);
	tcpchk_mysql_eval(buf, len, last, true, &v);
	fuzz_verdict(&v);
	fuzz_view(buf, len, v.info);
	tcpchk_ldap_eval(buf, len, last, &v);
	fuzz_verdict(&v);
	for (int i = 0; i < 3; i++)
		tcpchk_http_hdr_match(&hrules[i], buf, len);
	for (int k = TCPCHK_INFO_NONE; k <= TCPCHK_INFO_NUL; k++) {
		struct ist iv = tcpchk_info_view(k, 6, buf, len);

		if (iv.len && (iv.ptr < buf || iv.ptr + iv.len > buf + len))
			abort();
	}
	if (tcpchk_smtp_code(buf, len) > 999)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	char *buf, out[2048];

	if (!ready) {
		fuzz_init();
		ready = true;
	}
	if (size > 4096)
		return 0;
	buf = malloc(size ? size : 1); /* exact size: reads past the end are caught */
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	for (size_t n = 0; n <= size; n += n < 64 ? 1 : 97)
		fuzz_one(buf, n, false);
	fuzz_one(buf, size, true);
	if (tcpchk_hex_decode(buf, size, out, sizeof(out)) > (int)sizeof(out))
		abort();
	free(buf);
	return 0;
}
