// FUZZ_SRCS: src/check/check_http.c src/sample/regex.c
// FUZZ_FLAGS: -DUSE_PCRE2 -DUSE_PCRE2_JIT -lpcre2-8
/* libFuzzer target for the health-check response parser and the expect matching
 * (check/check_http.c), which read what a server sends. The input is parsed at every
 * prefix length worth trying (a response arriving in pieces), complete or not, with and
 * without the body; a DONE result is matched against each kind of expect. Findings are
 * crashes, sanitizer reports, and views that leave the input.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <check/check_http.h>
#include <sample/regex.h>

static struct regex *re;

static void fuzz_views(const char *buf, size_t len, const struct chk_http_rsp *r)
{
	if (r->status < 0 || r->status > 999)
		abort();
	if (r->reason.ptr < buf || r->reason.ptr + r->reason.len > buf + len)
		abort();
	if (r->body.ptr < buf || r->body.ptr + r->body.len > buf + len)
		abort();
}

static void fuzz_match(const struct chk_http_rsp *r)
{
	struct chk_expect e = { 0 };

	chk_expect_match(&e, r);
	e.kind = CHK_EXP_STATUS;
	e.pattern = ist2("200-299,404", 11);
	chk_expect_match(&e, r);
	e.kind = CHK_EXP_STRING;
	e.negate = true;
	e.pattern = ist2("OK", 2);
	chk_expect_match(&e, r);
	e.kind = CHK_EXP_RSTRING;
	e.re = re;
	chk_expect_match(&e, r);
	e.kind = CHK_EXP_RSTATUS;
	chk_expect_match(&e, r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cuts[] = { size, size / 2, size ? size - 1 : 0 };
	struct chk_http_rsp r;

	if (!re)
		re = regex_comp("^[0-9a-z]+$", 0, NULL, 0);
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		/* exact-size heap copy: the sanitizer sees any read beyond the input */
		char *buf = malloc(cuts[i] ? cuts[i] : 1);

		if (!buf)
			return 0;
		memcpy(buf, data, cuts[i]);
		for (int full = 0; full < 2; full++) {
			for (int body = 0; body < 2; body++) {
				memset(&r, 0, sizeof(r));
				if (chk_http_parse(buf, cuts[i], full, body, &r) == CHK_P_DONE) {
					fuzz_views(buf, cuts[i], &r);
					fuzz_match(&r);
				}
			}
		}
		chk_status_list_valid(buf[0] ? "200" : "2x");
		free(buf);
	}
	return 0;
}
