// FUZZ_SRCS: src/sample/sample.c src/sample/arg.c src/sample/conv*.c src/sample/map.c
// FUZZ_SRCS: src/sample/pattern.c src/sample/strtree.c src/sample/iptree.c src/sample/regex.c
// FUZZ_SRCS: src/sample/vars.c src/sample/logfmt.c src/sample/fetch_misc.c src/sample/codec.c
// FUZZ_SRCS: src/sample/hash.c src/sample/json.c src/base/*.c src/cfg/cfg_msg.c
// FUZZ_SRCS: src/sample/map_line.c src/event/qsbr.c src/cfg/startup_logs.c
// FUZZ_SRCS: src/sample/protobuf.c src/sample/jwt.c
// FUZZ_FLAGS: -DUSE_PCRE2 -DUSE_PCRE2_JIT -DUSE_OPENSSL -lpcre2-8 -lssl -lcrypto -lpthread
/* libFuzzer target for sample expressions and converters: the input is parsed as an
 * expression ("fetch(args),conv(args)...") and as log-format strings (itself and "%[input]"),
 * where no traffic exists (as for the global set-var: fetches needing a stream are
 * refused), and what parses is evaluated on the constant fetches without a stream, twice,
 * the second time into a buffer of exactly the first result's size. Checks that results
 * fit where they claim to, that an evaluation without side effects gives the same text
 * twice, that refusals say why; crashes, leaks and undefined behaviour are left to the
 * sanitizers. Maps may be named from tests/fuzz/maps/; device and proc files are skipped
 * (reading them never ends).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proc/global-t.h>
#include <sample/logfmt.h>
#include <sample/map.h>
#include <sample/sample.h>
#include <sample/vars.h>

/* What the sample layer takes from the layers above it, outside the daemon. */
struct global global;
void (*conn_vars_release)(struct vars *v);
__thread struct thread_ctx *th_ctx; /* the event loop's (stopping fetch) */

struct proxy *proxy_find(const char *name, uint32_t cap)
{
	return NULL;
}

/* nbsrv's count (fetch_px.c): never reached, proxy_find() finds no backend here */
int fetch_be_usable(const struct proxy *be)
{
	return 0;
}

#define FZ_MAX_IN 4096

static char fz_out[1 << 16], fz_out2[1 << 16];

/* Evaluates <e> into <out>; the text length, or -1 when nothing was produced. */
static int fz_eval(const struct sample_expr *e, char *out, size_t outsz)
{
	struct smp_ctx ctx = { 0 };
	struct sample smp = { .ctx = &ctx };

	if (!sample_process(e, &smp))
		return -1;
	if (smp.data.type < SMP_T_BOOL || smp.data.type >= SMP_TYPES || smp.data.type == SMP_T_ADDR)
		abort(); /* a converter left a type that is not a value */
	return smp_to_text(&smp, out, outsz);
}

static void fz_expr(const char *s, bool pure)
{
	struct smp_parse_ctx pc = { "fuzz", 1, NULL, SMP_VAL_CFG, "fuzz" };
	struct sample_expr *e;
	char err[512];
	int n, n2;

	err[0] = '\0';
	e = sample_parse_expr(s, NULL, &pc, err, sizeof(err));
	if (!e) {
		if (!err[0])
			abort(); /* a refusal always says why */
		return;
	}
	n = fz_eval(e, fz_out, sizeof(fz_out));
	if (pure && n >= 0) {
		n2 = fz_eval(e, fz_out2, (size_t)n);
		if (n2 != n || memcmp(fz_out, fz_out2, (size_t)n))
			abort(); /* same expression, same input, another answer */
	}
	sample_expr_free(e);
}

static void fz_logfmt(const char *s)
{
	struct smp_parse_ctx pc = { "fuzz", 1, NULL, SMP_VAL_CFG, "fuzz" };
	struct smp_ctx ctx = { 0 };
	struct lf_expr lf;
	char err[512];
	int n;

	if (lf_compile(&lf, s, &pc, err, sizeof(err)) < 0)
		return;
	n = lf_render(&lf, &ctx, fz_out, sizeof(fz_out));
	if (n > (int)sizeof(fz_out))
		abort();
	if (n >= 0 && lf_is_const(&lf) && lf_text(&lf).len != (size_t)n)
		abort();
	lf_free(&lf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s, *wrapped;
	bool pure;

	if (size > FZ_MAX_IN)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (strstr(s, "/dev") || strstr(s, "/proc") || strstr(s, "/sys")) {
		free(s);
		return 0;
	}
	/* the same answer twice is expected unless the expression writes variables or reads
	 * the clock or a random source */
	pure = !strstr(s, "set-var") && !strstr(s, "unset-var") && !strstr(s, "rand") &&
	       !strstr(s, "uuid") && !strstr(s, "date") && !strstr(s, "now") && !strstr(s, "time");
	fz_expr(s, pure);
	fz_logfmt(s);
	wrapped = malloc(size + 4);
	if (wrapped) {
		snprintf(wrapped, size + 4, "%%[%s]", s);
		fz_logfmt(wrapped);
		free(wrapped);
	}
	/* nothing survives an input: maps, variables, queued names */
	map_deinit();
	vars_deinit();
	sample_deinit();
	free(s);
	return 0;
}
