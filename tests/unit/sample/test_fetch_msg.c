/* Unit tests of the HTTP fetches over a parsed message (src/sample/fetch_http.c,
 * fetch_hdr.c): a request parsed by the H1 parser into a stream that only these fetches
 * look at, then expressions evaluated once (the last value, an occurrence) and walked as
 * an ACL walks them (every value, resumed through smp->it/it2), and conditions matching
 * one of several values. Values are HAProxy 2.6's for the same request.
 */
#include <stdlib.h>
#include <string.h>

#include <base/list.h>
#include <http/h1.h>
#include <sample/acl.h>
#include <sample/sample.h>
#include <stream/stream-t.h>

#include "../test.h"

#define TM_MAX_HDR 32

struct tm_req {
	struct stream *s; /* ends with a flexible array: allocated apart */
	struct h1_hdr hdr[TM_MAX_HDR];
	char raw[1024];
	struct smp_ctx ctx;
};

static void tm_free(struct tm_req *t)
{
	if (t)
		free(t->s);
	free(t);
}

/* Parses <raw> (LF line ends, sent as CRLF) as the request of a bare stream. */
static struct tm_req *tm_parse(const char *raw)
{
	struct tm_req *t = calloc(1, sizeof(*t));
	struct h1_limits lim = { .max_hdr_block = sizeof(t->raw), .max_hdr = TM_MAX_HDR };
	size_t n = 0;

	if (!t || !(t->s = calloc(1, sizeof(*t->s)))) {
		free(t);
		return NULL;
	}
	for (; *raw && n + 2 < sizeof(t->raw); raw++) {
		if (*raw == '\n')
			t->raw[n++] = '\r';
		t->raw[n++] = *raw;
	}
	t->s->req.hdr = t->hdr;
	t->s->req.max_hdr = TM_MAX_HDR;
	if (h1_parse_headers(t->raw, n, &t->s->req, false, &lim) <= 0) {
		tm_free(t);
		return NULL;
	}
	t->ctx.strm = t->s;
	t->ctx.opt = SMP_OPT_DIR_REQ | SMP_OPT_FINAL;
	return t;
}

/* The value of <expr> as text, "(none)" when not found. */
static const char *tm_eval(struct tm_req *t, const char *expr, char *out, size_t outsz)
{
	struct sample_expr *e;
	struct sample smp = { .ctx = &t->ctx };
	char err[256] = "";
	int n;

	e = sample_parse_expr(expr, NULL, NULL, err, sizeof(err));
	if (!e) {
		snprintf(out, outsz, "(error: %s)", err);
		return out;
	}
	if (!sample_process(e, &smp)) {
		snprintf(out, outsz, "(none)");
	} else {
		n = smp_to_text(&smp, out, outsz - 1);
		out[n < 0 ? 0 : n] = 0;
	}
	sample_expr_free(e);
	return out;
}

/* Every value <expr> gives to an ACL walking it, joined by '|'. */
static const char *tm_walk(struct tm_req *t, const char *expr, char *out, size_t outsz)
{
	struct sample_expr *e;
	struct sample smp = { .ctx = &t->ctx, .flags = SMP_F_ITER };
	char err[256] = "";
	size_t o = 0;

	e = sample_parse_expr(expr, NULL, NULL, err, sizeof(err));
	out[0] = 0;
	if (!e)
		return "(error)";
	for (int guard = 0; guard < 64 && sample_process(e, &smp); guard++) {
		int n;

		if (o && o < outsz - 1)
			out[o++] = '|';
		n = smp_to_text(&smp, out + o, outsz - o - 1);
		o += n < 0 ? 0 : (size_t)n;
		out[o] = 0;
		if (!(smp.flags & SMP_F_NOT_LAST))
			break;
		smp.flags = SMP_F_ITER;
	}
	sample_expr_free(e);
	return out;
}

static const char *tm_req_text = "GET /p/a?a=1&b=2;c=3&a=4 HTTP/1.1\n"
				 "Host: Example.com:80\n"
				 "X-N: 12, 1.5 , -3\n"
				 "X-N: 1 2, abc\n"
				 "X-IP: junk, 10.0.0.1:80, ::1\n"
				 "Cookie: a=1; b = 42x ; $p=9; n; q=\"x;y\"; a=2\n"
				 "Cookie: a=3,c=4\n"
				 "\n";

TEST(fetch_msg_single_values)
{
	struct tm_req *t = tm_parse(tm_req_text);
	char b[256];

	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_STR(tm_eval(t, "hdr(x-n)", b, sizeof(b)), "abc");
	CHECK_STR(tm_eval(t, "req.hdr(x-n,2)", b, sizeof(b)), "1.5");
	CHECK_STR(tm_eval(t, "req.hdr(x-n,-2)", b, sizeof(b)), "1 2");
	CHECK_STR(tm_eval(t, "req.hdr(x-n,9)", b, sizeof(b)), "(none)");
	CHECK_STR(tm_eval(t, "req.fhdr(x-n,1)", b, sizeof(b)), "12, 1.5 , -3");
	CHECK_STR(tm_eval(t, "req.hdr_cnt(x-n)", b, sizeof(b)), "5");
	CHECK_STR(tm_eval(t, "req.fhdr_cnt", b, sizeof(b)), "6");
	CHECK_STR(tm_eval(t, "req.hdr_val(x-n,2)", b, sizeof(b)), "85");
	CHECK_STR(tm_eval(t, "hdr_ip(x-ip)", b, sizeof(b)), "::1");
	CHECK_STR(tm_eval(t, "req.hdr_ip(x-ip,2)", b, sizeof(b)), "10.0.0.1");
	CHECK_STR(tm_eval(t, "req.hdr_names(;)", b, sizeof(b)), "host;x-n;x-n;x-ip;cookie;cookie");
	CHECK_STR(tm_eval(t, "cook(a)", b, sizeof(b)), "3");
	CHECK_STR(tm_eval(t, "cook", b, sizeof(b)), "1");
	CHECK_STR(tm_eval(t, "cook_cnt", b, sizeof(b)), "6");
	CHECK_STR(tm_eval(t, "cook_val(b)", b, sizeof(b)), "42");
	CHECK_STR(tm_eval(t, "url_param(a)", b, sizeof(b)), "1");
	CHECK_STR(tm_eval(t, "url_param(a,;)", b, sizeof(b)), "4");
	CHECK_STR(tm_eval(t, "base", b, sizeof(b)), "Example.com:80/p/a");
	CHECK_STR(tm_eval(t, "base32", b, sizeof(b)), "2611721983");
	CHECK_STR(tm_eval(t, "url32", b, sizeof(b)), "1148419101");
	CHECK_STR(tm_eval(t, "query", b, sizeof(b)), "a=1&b=2;c=3&a=4");
	CHECK_STR(tm_eval(t, "method", b, sizeof(b)), "GET");
	tm_free(t);
}

TEST(fetch_msg_acl_walks)
{
	struct tm_req *t = tm_parse(tm_req_text);
	char b[256];

	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_STR(tm_walk(t, "hdr(x-n)", b, sizeof(b)), "12|1.5|-3|1 2|abc");
	CHECK_STR(tm_walk(t, "req.fhdr(x-n)", b, sizeof(b)), "12, 1.5 , -3|1 2, abc");
	/* with an occurrence, one value */
	CHECK_STR(tm_walk(t, "hdr(x-n,2)", b, sizeof(b)), "1.5");
	CHECK_STR(tm_walk(t, "hdr_ip(x-ip)", b, sizeof(b)), "10.0.0.1|::1");
	CHECK_STR(tm_walk(t, "hdr_val(x-n)", b, sizeof(b)), "12|85|-3|-58|0");
	CHECK_STR(tm_walk(t, "cook(a)", b, sizeof(b)), "1|2|3");
	CHECK_STR(tm_walk(t, "cook", b, sizeof(b)), "1|42x|\"x;y\"|2|3|4");
	CHECK_STR(tm_walk(t, "url_param(a)", b, sizeof(b)), "1|4");
	CHECK_STR(tm_walk(t, "url_param", b, sizeof(b)), "1|2|3|4");
	CHECK_STR(tm_walk(t, "req.hdr(nope)", b, sizeof(b)), "");
	tm_free(t);
}

TEST(fetch_msg_conditions)
{
	struct tm_req *t = tm_parse(tm_req_text);
	struct smp_parse_ctx pc = { "t.cfg", 1, NULL, SMP_VAL_HRQ_HDR, "http-request" };
	struct list acls;
	char err[256];
	static const struct {
		const char *words[6];
		int n;
		bool want;
	} cases[] = {
		{ { "if", "{", "hdr(x-n)", "-m", "str", "}" }, 6, false },
		{ { "if", "{", "hdr(x-n)", "1.5", "}" }, 5, true },
		{ { "if", "{", "hdr_ip(x-ip)", "10.0.0.0/8", "}" }, 5, true },
		{ { "if", "{", "cook(a)", "2", "}" }, 5, true },
		{ { "if", "{", "cook_cnt(a)", "3", "}" }, 5, true },
		{ { "if", "{", "url_param(a)", "4", "}" }, 5, true },
		{ { "if", "{", "hdr_beg(host)", "example", "}" }, 5, false },
		{ { "if", "{", "hdr_beg(host)", "-i", "example", "}" }, 6, true },
		{ { "if", "{", "path_beg", "/p/", "}" }, 5, true },
	};

	CHECK(t != NULL);
	if (!t)
		return;
	list_init(&acls);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct acl_cond *c = acl_cond_parse((char **)cases[i].words, cases[i].n, &acls, &pc,
						    err, sizeof(err));

		CHECK(c != NULL);
		if (!c)
			continue;
		if (acl_cond_true(c, &t->ctx) != cases[i].want)
			test_fail(__FILE__, __LINE__, "case %zu: expected %d", i, cases[i].want);
		acl_cond_free(c);
	}
	tm_free(t);
}
