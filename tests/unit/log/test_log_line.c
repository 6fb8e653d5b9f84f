/* Unit tests of the per-stream log line: the log variables' presentation (timers, dates,
 * bytes, termination state, retries, request line), HAProxy's separators, +Q/+X and %o,
 * logasap's '+', and cutting a line that does not fit.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>

#include <conn/connection-t.h>
#include <log/log_strm.h>
#include <log/log_vars.h>
#include <proxy/proxy-t.h>
#include <sample/sample-t.h>
#include <stream/stream-t.h>
#include "../test.h"

static struct stream strm;
static struct conn front;
static struct proxy fe;

/* A stream of frontend "fe" whose request started at ms 1000 and ends at ms 1020. */
static void reset(void)
{
	memset(&strm, 0, sizeof(strm));
	memset(&front, 0, sizeof(front));
	memset(&fe, 0, sizeof(fe));
	fe.id = "fe";
	strm.fe = &fe;
	strm.front = &front;
	strm.req_start = 1000;
	log_rctx.strm = &strm;
	log_rctx.end_ms = 1020;
	log_rctx.accept_ms = log_rctx.req_ms = 1000;
	log_rctx.accept_wall_ms = log_rctx.req_wall_ms = 0;
	log_rctx.lc = 0;
	log_rctx.logasap = false;
}

static void line_is(const char *file, int line, const char *fmt, size_t outsz, const char *want)
{
	struct smp_ctx ctx = { &strm, &front, &fe, 0 };
	struct logline_fmt f;
	char out[512], err[256] = "";
	size_t n;

	if (log_fmt_compile(&f, fmt, NULL, err, sizeof(err)) < 0) {
		test_fail(file, line, "'%s' failed: %s", fmt, err);
		return;
	}
	n = log_fmt_render(&f, &ctx, out, outsz);
	if (n > outsz)
		test_fail(file, line, "'%s' wrote %zu bytes in %zu", fmt, n, outsz);
	else if (n != strlen(want) || memcmp(out, want, n))
		test_fail(file, line, "'%s' gave '%.*s', expected '%s'", fmt, (int)n, out, want);
	log_fmt_free(&f);
}

#define LINE_IS(fmt, want) line_is(__FILE__, __LINE__, fmt, 512, want)

TEST(log_line_timers)
{
	reset();
	LINE_IS("%TR/%Tw/%Tc/%Tr/%Ta %Tt %Tq %Th %Ti", "-1/-1/-1/-1/20 20 -1 0 0");
	strm.t_hdrs = 1002;
	strm.t_queue = 1003;
	strm.t_conn = 1005;
	strm.t_rsp = 1010;
	LINE_IS("%TR/%Tw/%Tc/%Tr/%Ta", "2/1/2/5/20");
	log_rctx.logasap = true;
	front.bytes_out = 123;
	LINE_IS("%Ta %Tt %B %TR", "+20 +20 +123 2");
}

/* A kept-alive connection idle for 300 ms before the request (2.6's %Ti, %Tq, %Tt, %Tu) */
TEST(log_line_idle_timers)
{
	reset();
	log_rctx.accept_ms = 700;
	strm.t_hdrs = 1002;
	LINE_IS("%Th %Ti %TR %Tq %Ta %Tt %Tu", "0 300 2 302 20 320 20");
	log_rctx.lc = 7;
	LINE_IS("%lc", "7");
}

TEST(log_line_fields)
{
	reset();
	strm.status = 200;
	front.bytes_out = 123;
	front.bytes_in = 45;
	strm.term[0] = 's';
	strm.term[1] = 'H';
	strm.retries = 2;
	LINE_IS("%ST %B %U %ts %tsc %rc", "200 123 45 sH sH-- 2");
	strm.redisp = 1;
	LINE_IS("%rc %{+X}B %{+X}ST", "+2 7B 200");
	reset();
	LINE_IS("%ts %tsc %ST", "-- ---- -1");
	LINE_IS("%b/%s %r", "fe/<NOSRV> <BADREQ>");
}

TEST(log_line_request)
{
	reset();
	strm.t_hdrs = 1001;
	strm.log_rline = IST("GET /a?b=1 HTTP/1.1");
	strm.req.flags = H1_MF_VER_11;
	LINE_IS("%{+Q}r %HU %HP %HQ %HV", "\"GET /a?b=1 HTTP/1.1\" /a?b=1 /a ?b=1 HTTP/1.1");
	strm.log_rline = IST("GET / HTTP/1.1");
	LINE_IS("%HQ|%HP", "-|/");
}

TEST(log_line_separators_and_quotes)
{
	reset();
	/* a variable that writes nothing leaves no double space */
	LINE_IS("a %hr %hs b", "a b");
	LINE_IS("  %hr  x  ", "x ");
	LINE_IS("%{+Q}o %b %ST %{-Q}b %CC", "\"fe\" -1 fe \"\"");
	LINE_IS("%CC %{+Q}CS", "- \"\"");
	LINE_IS("text%%  y", "text% y");
}

TEST(log_line_dates)
{
	reset();
	log_rctx.accept_wall_ms = 86400 * 1000ULL + 61 * 1000 + 7;
	log_rctx.req_wall_ms = log_rctx.accept_wall_ms + 2000; /* %tr: 2 s later */
	LINE_IS("%Ts %ms %{+X}Ts %trg", "86461 007 151BD 02/Jan/1970:00:01:03 +0000");
	LINE_IS("%T", "02/Jan/1970:00:01:01 +0000");
}

TEST(log_line_cut)
{
	char fmt[] = "%b %b %b %b %b %b %b %b";

	reset();
	line_is(__FILE__, __LINE__, fmt, 9, "fe fe fe ");
	line_is(__FILE__, __LINE__, "%{+Q}b", 3, "");
	line_is(__FILE__, __LINE__, "%ST", 1, "");
	line_is(__FILE__, __LINE__, "abc", 0, "");
}

/* The direct httplog writer gives the compiled format's text, and fails rather than cut */
static void httplog_same(const char *file, int line)
{
	static const char fmt[] = "%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc "
				  "%ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r";
	struct smp_ctx ctx = { &strm, &front, &fe, 0 };
	struct logline_fmt f;
	char a[512], b[512], err[256];
	size_t na, nb;

	if (log_fmt_compile(&f, fmt, NULL, err, sizeof(err)) < 0) {
		test_fail(file, line, "httplog format: %s", err);
		return;
	}
	na = log_fmt_render(&f, &ctx, a, sizeof(a));
	nb = log_httplog_render(&ctx, b, sizeof(b));
	if (na != nb || memcmp(a, b, na))
		test_fail(file, line, "httplog: compiled '%.*s', direct '%.*s'", (int)na, a,
			  nb == SIZE_MAX ? 0 : (int)nb, b);
	for (size_t cut = 0; cut < na; cut++)
		if (log_httplog_render(&ctx, b, cut) != SIZE_MAX)
			test_fail(file, line, "httplog: wrote a line in %zu bytes of %zu", cut, na);
	log_fmt_free(&f);
}

TEST(log_line_httplog_direct)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&front.peer;

	reset();
	httplog_same(__FILE__, __LINE__);
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(0x7f000001);
	sin->sin_port = htons(40958);
	strm.t_hdrs = 1001;
	strm.t_conn = 1003;
	strm.t_rsp = 1010;
	strm.status = 200;
	strm.log_rline = IST("GET /x HTTP/1.1");
	front.bytes_out = 500;
	httplog_same(__FILE__, __LINE__);
	strm.term[0] = 'S';
	strm.term[1] = 'C';
	strm.retries = 3;
	strm.redisp = 1;
	httplog_same(__FILE__, __LINE__);
}
