/* Fetches that read no traffic: constants (always_true, always_false, str, int, bool,
 * ipv4, ipv6, bin, meth), the environment, the clock (date, date_us), random numbers and
 * UUIDs, the process's own facts (hostname, thread, stopping, nbproc, proc), wait_end,
 * and the stream facts HAProxy keeps for profiling, which have their default values here
 * (no task profiling; prio_class and prio_offset are in stream/prio_act.c).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <base/atomic.h>
#include <base/parse.h>
#include <base/tinfo.h>
#include <event/loop-t.h>
#include <proc/global-t.h>

#include "fetch_int.h"

static int smp_fetch_true(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	return smp_set_bool(smp, kw->private);
}

/* str(text), int(n), ipv4(a), ipv6(a), meth(m): the argument itself */
static int smp_fetch_const(const struct arg *args, struct sample *smp,
			   const struct sample_fetch *kw)
{
	smp->data.type = kw->out_type;
	switch (kw->out_type) {
	case SMP_T_STR:
	case SMP_T_BIN:
	case SMP_T_METH:
		smp->data.u.str = args[0].data.str;
		smp->flags |= SMP_F_CONST;
		break;
	case SMP_T_IPV4:
		smp->data.u.ipv4 = args[0].data.ipv4;
		break;
	case SMP_T_IPV6:
		smp->data.u.ipv6 = args[0].data.ipv6;
		break;
	default:
		smp->data.u.sint = args[0].data.sint;
		break;
	}
	return 1;
}

/* bool(text): "true" or "1" (checked at parse time) */
static int smp_fetch_const_bool(const struct arg *args, struct sample *smp,
				const struct sample_fetch *kw)
{
	const char *s = args[0].data.str.ptr;

	return smp_set_bool(smp, !strcasecmp(s, "true") || !strcmp(s, "1"));
}

static int val_bool(struct arg *args, void *private, char *err, size_t errsz)
{
	const char *s = args[0].data.str.ptr;

	if (!strcasecmp(s, "true") || !strcasecmp(s, "false") || !strcmp(s, "1") || !strcmp(s, "0"))
		return 0;
	snprintf(err, errsz, "Expects 'true', 'false', '0' or '1'");
	return -1;
}

/* bin(hex): the bytes are decoded once, in place in the argument. */
static int val_bin(struct arg *args, void *private, char *err, size_t errsz)
{
	char *s = (char *)args[0].data.str.ptr;
	size_t n = args[0].data.str.len;

	if (n % 2) {
		snprintf(err, errsz, "an even number of hex digit is expected");
		return -1;
	}
	for (size_t i = 0; i < n; i += 2) {
		int h = hex_digit_val(s[i]), l = hex_digit_val(s[i + 1]);

		if (h < 0 || l < 0) {
			snprintf(err, errsz, "an hex digit is expected (found '%c')",
				 h < 0 ? s[i] : s[i + 1]);
			return -1;
		}
		s[i / 2] = (char)(h * 16 + l);
	}
	args[0].data.str.len = n / 2;
	return 0;
}

/* meth(name): an HTTP token */
static int val_meth(struct arg *args, void *private, char *err, size_t errsz)
{
	struct ist m = args[0].data.str;

	if (!m.len) {
		snprintf(err, errsz, "missing method name");
		return -1;
	}
	for (size_t i = 0; i < m.len; i++) {
		unsigned char c = (unsigned char)m.ptr[i];

		if (c <= ' ' || c >= 127 || strchr("()<>@,;:\\\"/[]?={}", c)) {
			snprintf(err, errsz, "invalid method name '%s'", m.ptr);
			return -1;
		}
	}
	return 0;
}

/* env(NAME): the variable of the process environment */
static int smp_fetch_env(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	const char *v = getenv(args[0].data.str.ptr);

	return v ? smp_set_str(smp, ist_str(v)) : 0;
}

/* date([offset[,unit]]): the time since the epoch in s, ms or us, plus <offset> in that
 * unit; date_us: the microseconds of the current second */
static int smp_fetch_date(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	struct timespec ts;
	long long v;
	const char *unit = args && args[1].type == ARGT_STR ? args[1].data.str.ptr : "s";

	clock_gettime(CLOCK_REALTIME, &ts);
	if (kw->private) /* date_us */
		return smp_set_int(smp, ts.tv_nsec / 1000);
	v = ts.tv_sec;
	if (!strcmp(unit, "ms"))
		v = v * 1000 + ts.tv_nsec / 1000000;
	else if (!strcmp(unit, "us"))
		v = v * 1000000 + ts.tv_nsec / 1000;
	if (args && args[0].type == ARGT_SINT)
		v += args[0].data.sint;
	return smp_set_int(smp, v);
}

static int val_date(struct arg *args, void *private, char *err, size_t errsz)
{
	const char *u;

	if (!args || args[1].type != ARGT_STR)
		return 0;
	u = args[1].data.str.ptr;
	if (!strcmp(u, "s") || !strcmp(u, "ms") || !strcmp(u, "us"))
		return 0;
	snprintf(err, errsz, "expects 's', 'ms' or 'us', got '%s'", u);
	return -1;
}

/* A per-thread xorshift64* generator seeded from the clock and the thread: statistical
 * quality only, as HAProxy's rand and uuid. */
static __thread uint64_t prng_state;

static uint64_t prng_next(void)
{
	uint64_t x = prng_state;

	if (!x) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		x = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)tid << 56) ^
		    (uint64_t)(uintptr_t)&prng_state;
		x = x ? x : 0x9e3779b97f4a7c15ULL;
	}
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	prng_state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* rand([range]): a 32-bit random number, scaled to [0, range) with a range */
static int smp_fetch_rand(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	uint64_t r = prng_next() >> 32;

	if (args && args[0].type == ARGT_SINT)
		r = (r * (uint64_t)args[0].data.sint) >> 32;
	return smp_set_int(smp, (long long)r);
}

/* uuid([4]): a random (version 4) UUID */
static int smp_fetch_uuid(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	uint64_t a = prng_next(), b = prng_next();
	char *t = smp_trash();

	if (!t)
		return 0;
	snprintf(t, 37, "%08x-%04x-4%03x-%04x-%012llx", (unsigned)(a >> 32),
		 (unsigned)(a >> 16) & 0xffff, (unsigned)a & 0xfff,
		 (unsigned)(0x8000 | ((b >> 48) & 0x3fff)),
		 (unsigned long long)(b & 0xffffffffffffULL));
	smp_set_str(smp, ist2(t, 36));
	smp->flags &= ~SMP_F_CONST;
	return 1;
}

static int val_uuid(struct arg *args, void *private, char *err, size_t errsz)
{
	if (!args || args[0].type != ARGT_SINT || args[0].data.sint == 4)
		return 0;
	snprintf(err, errsz, "Unsupported UUID version: '%lld'", args[0].data.sint);
	return -1;
}

/* stopping: a graceful stop is in progress */
static int smp_fetch_stopping(const struct arg *args, struct sample *smp,
			      const struct sample_fetch *kw)
{
	return smp_set_bool(smp, (th_ctx && th_ctx->stopping) ||
					 HA_ATOMIC_LOAD_RLX(&global.stop_requested));
}

/* thread: the calling thread, from 0; nbproc and proc: 1, one process runs threads */
static int smp_fetch_thread(const struct arg *args, struct sample *smp,
			    const struct sample_fetch *kw)
{
	return smp_set_int(smp, kw->private ? 1 : (long long)tid);
}

static char host_name[256];
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

static void host_name_init(void)
{
	if (gethostname(host_name, sizeof(host_name) - 1) < 0)
		host_name[0] = 0;
}

/* hostname: the system's host name */
static int smp_fetch_hostname(const struct arg *args, struct sample *smp,
			      const struct sample_fetch *kw)
{
	pthread_once(&host_once, host_name_init);
	return smp_set_str(smp, ist_str(host_name));
}

/* wait_end: true once no more data is awaited (the inspect delay is over); until then
 * not found, and asked again */
static int smp_fetch_wait_end(const struct arg *args, struct sample *smp,
			      const struct sample_fetch *kw)
{
	if (!(smp->ctx->opt & SMP_OPT_FINAL)) {
		smp->flags |= SMP_F_MAY_CHANGE;
		return 0;
	}
	return smp_set_bool(smp, true);
}

/* cpu_calls (1), cpu_ns_* and lat_ns_* (0: HAProxy's values without task profiling) */
static int smp_fetch_stream_int(const struct arg *args, struct sample *smp,
				const struct sample_fetch *kw)
{
	if (!smp->ctx->strm)
		return 0;
	return smp_set_int(smp, kw->private);
}

/* clang-format off */
#define INT SMP_USE_INTRN
#define STRM(kw, v) { kw, smp_fetch_stream_int, 0, { 0 }, NULL, SMP_T_SINT, INT, v }

static const struct sample_fetch misc_fetches[] = {
	{ "always_true", smp_fetch_true, 0, { 0 }, NULL, SMP_T_BOOL, INT, 1 },
	{ "always_false", smp_fetch_true, 0, { 0 }, NULL, SMP_T_BOOL, INT, 0 },
	{ "str", smp_fetch_const, 1, { ARGT_STR }, NULL, SMP_T_STR, INT, 0 },
	{ "int", smp_fetch_const, 1, { ARGT_SINT }, NULL, SMP_T_SINT, INT, 0 },
	{ "bool", smp_fetch_const_bool, 1, { ARGT_STR }, val_bool, SMP_T_BOOL, INT, 0 },
	{ "ipv4", smp_fetch_const, 1, { ARGT_IPV4 }, NULL, SMP_T_IPV4, INT, 0 },
	{ "ipv6", smp_fetch_const, 1, { ARGT_IPV6 }, NULL, SMP_T_IPV6, INT, 0 },
	{ "bin", smp_fetch_const, 1, { ARGT_STR }, val_bin, SMP_T_BIN, INT, 0 },
	{ "meth", smp_fetch_const, 1, { ARGT_STR }, val_meth, SMP_T_METH, INT, 0 },
	{ "env", smp_fetch_env, 1, { ARGT_STR }, NULL, SMP_T_STR, INT, 0 },
	{ "date", smp_fetch_date, 0, { ARGT_SINT, ARGT_STR }, val_date, SMP_T_SINT, INT, 0 },
	{ "date_us", smp_fetch_date, 0, { 0 }, NULL, SMP_T_SINT, INT, 1 },
	{ "rand", smp_fetch_rand, 0, { ARGT_SINT }, NULL, SMP_T_SINT, INT, 0 },
	{ "uuid", smp_fetch_uuid, 0, { ARGT_SINT }, val_uuid, SMP_T_STR, INT, 0 },
	{ "stopping", smp_fetch_stopping, 0, { 0 }, NULL, SMP_T_BOOL, INT, 0 },
	{ "thread", smp_fetch_thread, 0, { 0 }, NULL, SMP_T_SINT, INT, 0 },
	{ "nbproc", smp_fetch_thread, 0, { 0 }, NULL, SMP_T_SINT, INT, 1 },
	{ "proc", smp_fetch_thread, 0, { 0 }, NULL, SMP_T_SINT, INT, 1 },
	{ "hostname", smp_fetch_hostname, 0, { 0 }, NULL, SMP_T_STR, INT, 0 },
	{ "wait_end", smp_fetch_wait_end, 0, { 0 }, NULL, SMP_T_BOOL, INT, 0 },
	STRM("cpu_calls", 1),
	STRM("cpu_ns_avg", 0),
	STRM("cpu_ns_tot", 0),
	STRM("lat_ns_avg", 0),
	STRM("lat_ns_tot", 0),
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

SMP_REGISTER_FETCHES(misc_fetches)
/* clang-format on */
