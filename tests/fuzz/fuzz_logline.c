// FUZZ_SRCS: src/sample/sample.c src/sample/arg.c src/sample/conv*.c src/sample/map.c src/sample/pattern.c
// FUZZ_SRCS: src/sample/strtree.c src/sample/iptree.c src/sample/regex.c src/sample/vars.c
// FUZZ_SRCS: src/sample/logfmt.c src/sample/logfmt_tags.c src/sample/fetch_misc.c src/sample/codec.c
// FUZZ_SRCS: src/sample/hash.c src/sample/json.c src/base/*.c src/cfg/cfg_msg.c src/log/log_line.c
// FUZZ_SRCS: src/log/log_vars.c src/sample/map_line.c src/event/qsbr.c src/cfg/startup_logs.c
// FUZZ_SRCS: src/sample/protobuf.c src/sample/jwt.c
// FUZZ_FLAGS: -DUSE_PCRE2 -DUSE_PCRE2_JIT -DUSE_OPENSSL -lpcre2-8 -lssl -lcrypto -lpthread
/* libFuzzer target for log lines: the input is a log-format string ("%{+Q}o", separators,
 * the log variables, "%[expr]") compiled as a frontend's log line and rendered for a
 * made-up stream (timers, termination state, request line, captures) into a buffer of
 * every size up to the full line. Checks that a line never goes past its buffer and that a
 * cut line is a prefix of the full one; crashes, leaks and undefined behaviour are left to
 * the sanitizers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <conn/connection-t.h>
#include <log/log_strm.h>
#include <log/log_vars.h>
#include <proc/global-t.h>
#include <proxy/proxy-t.h>
#include <sample/logfmt.h>
#include <sample/map.h>
#include <sample/sample.h>
#include <sample/vars.h>
#include <stream/cookie.h>
#include <stream/http_capture.h>
#include <stream/stream-t.h>

/* The persistence cookie chars of %tsc come from stream/cookie.c, which this target does
 * not link: none here. */
void cookie_log_chars(const struct stream *s, char *out)
{
	(void)s;
	out[0] = out[1] = '-';
}

/* What the log and sample layers take from the layers above them, outside the daemon. */
struct global global;
void (*conn_vars_release)(struct vars *v);
__thread struct thread_ctx *th_ctx;
int actconn = 3;

struct proxy *proxy_find(const char *name, uint32_t cap)
{
	return NULL;
}

/* nbsrv's count (fetch_px.c): never reached, proxy_find() finds no backend here */
int fetch_be_usable(const struct proxy *be)
{
	return 0;
}

static const struct ist fz_caps[2][2] = { { IST("h\"1|"), IST("") }, { IST("#x"), IST("y") } };

unsigned http_capture_nb(const struct stream *s, bool res)
{
	return 2;
}

struct ist http_capture_get(const struct stream *s, bool res, unsigned idx)
{
	return idx < 2 ? fz_caps[res][idx] : ist2(NULL, 0);
}

struct ist http_capture_cookie(const struct stream *s, bool res)
{
	return res ? IST("") : IST("c=1\x01");
}

#define FZ_MAX_IN 4096
static char fz_out[16384], fz_cut[16384];
static struct stream fz_strm;
static struct conn fz_front;
static struct proxy fz_fe;

static void fz_stream(void)
{
	memset(&fz_strm, 0, sizeof(fz_strm));
	fz_fe.id = "fe";
	fz_strm.fe = &fz_fe;
	fz_strm.front = &fz_front;
	fz_strm.req_start = 1000;
	fz_strm.t_hdrs = 1001;
	fz_strm.t_conn = 1003;
	fz_strm.t_rsp = 1010;
	fz_strm.status = 502;
	fz_strm.term[0] = 'S';
	fz_strm.term[1] = 'H';
	fz_strm.retries = 3;
	fz_strm.redisp = 1;
	fz_strm.log_rline = IST("GET /a?b=%0A HTTP/1.1");
	fz_front.bytes_in = 77;
	fz_front.bytes_out = 1234567;
	log_rctx.strm = &fz_strm;
	log_rctx.end_ms = 1020;
	log_rctx.accept_wall_ms = 1700000000123ULL;
	log_rctx.logasap = false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smp_parse_ctx pc = { "fuzz", 1, NULL, SMP_VAL_LOG_END, "log-format" };
	struct smp_ctx ctx = { &fz_strm, &fz_front, &fz_fe, 0 };
	struct logline_fmt f;
	char err[512], *s;
	size_t n;

	if (size > FZ_MAX_IN)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	fz_stream();
	if (log_fmt_compile(&f, s, &pc, err, sizeof(err)) == 0) {
		/* %rt counts, and clock or random fetches change: the full render and the cuts
		 * differ there; skip the comparison */
		bool stable = !strstr(s, "rt") && !strstr(s, "date") && !strstr(s, "rand") &&
			      !strstr(s, "uuid") && !strstr(s, "now") && !strstr(s, "time");

		n = log_fmt_render(&f, &ctx, fz_out, sizeof(fz_out));
		if (n > sizeof(fz_out))
			abort();
		for (size_t cut = 0; cut <= n && cut < 64; cut++) {
			size_t m = log_fmt_render(&f, &ctx, fz_cut, cut);

			if (m > cut || (stable && memcmp(fz_cut, fz_out, m)))
				abort(); /* past the buffer, or not a prefix of the full line */
		}
		log_fmt_free(&f);
	} else if (!*err) {
		abort(); /* a refusal says why */
	}
	map_deinit();
	vars_deinit();
	sample_deinit();
	free(s);
	return 0;
}
