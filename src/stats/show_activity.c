/* "show activity": per-thread activity counters in HAProxy 2.6's layout ("thread_id",
 * "date_now", then "name: total [ t1 t2 ... ]", or "name: value" with one thread), with
 * HAProxy's counter names in its order (0 for those this proxy does not count yet),
 * followed by this proxy's own per-thread counters.
 */
#include <stdio.h>
#include <stddef.h>
#include <string.h>
#include <sys/time.h>

#include <base/atomic.h>
#include <base/tinfo.h>
#include <cli/cli.h>
#include <event/profiling.h>
#include <proc/global-t.h>
#include <stats/counters.h>

#define ACT_NONE ((size_t)-1)     /* a counter that does not exist here: 0 */
#define ACT_LOOP_US ((size_t)-2)  /* avg_loop_us, from event/profiling */

struct act_row {
	const char *name;
	size_t off;               /* offset in struct thread_activity, or ACT_NONE */
};

#define ACT_FIELD(f) offsetof(struct thread_activity, f)

static const struct act_row act_rows[] = {
	{ "ctxsw", ACT_NONE }, { "tasksw", ACT_NONE }, { "empty_rq", ACT_NONE },
	{ "long_rq", ACT_NONE }, { "loops", ACT_FIELD(loops) }, { "wake_tasks", ACT_NONE },
	{ "wake_signal", ACT_NONE }, { "poll_io", ACT_NONE }, { "poll_exp", ACT_NONE },
	{ "poll_drop_fd", ACT_NONE }, { "poll_skip_fd", ACT_NONE }, { "conn_dead", ACT_NONE },
	{ "stream_calls", ACT_NONE }, { "pool_fail", ACT_NONE }, { "buf_wait", ACT_NONE },
	{ "cpust_ms_tot", ACT_NONE }, { "cpust_ms_1s", ACT_NONE }, { "cpust_ms_15s", ACT_NONE },
	{ "avg_loop_us", ACT_LOOP_US }, { "accepted", ACT_FIELD(accepted) },
	{ "accq_pushed", ACT_FIELD(accq_pushed) }, { "accq_full", ACT_NONE },
	{ "accq_ring", ACT_NONE }, { "fd_takeover", ACT_NONE },
	/* this proxy's own */
	{ "conns_served", ACT_FIELD(conns_served) }, { "streams", ACT_FIELD(streams) },
	{ "inbox_items", ACT_FIELD(inbox_items) }, { "inbox_wakeups", ACT_FIELD(wakeups) },
};

static uint64_t act_get(int thr, size_t off)
{
	if (off == ACT_NONE)
		return 0;
	if (off == ACT_LOOP_US)
		return prof_avg_loop_us(thr);
	return HA_ATOMIC_LOAD_RLX((const uint64_t *)((const char *)&activity[thr] + off));
}

/* Writes one row into b[0..size); returns its length or 0 if it does not fit. */
static size_t act_render_row(char *b, size_t size, const struct act_row *r, int nthr)
{
	uint64_t total = 0;
	size_t len;
	int n;

	for (int t = 0; t < nthr; t++)
		total += act_get(t, r->off);
	if (r->off == ACT_LOOP_US)
		total /= (uint64_t)nthr; /* an average: HAProxy shows the mean of the threads */
	n = snprintf(b, size, "%s: %llu", r->name, (unsigned long long)total);
	if (n < 0 || (size_t)n >= size)
		return 0;
	len = (size_t)n;
	if (nthr > 1) {
		n = snprintf(b + len, size - len, " [");
		len += (size_t)(n > 0 ? n : 0);
		for (int t = 0; t < nthr && len < size; t++) {
			n = snprintf(b + len, size - len, " %llu",
				     (unsigned long long)act_get(t, r->off));
			len += (size_t)(n > 0 ? n : 0);
		}
		if (len < size) {
			n = snprintf(b + len, size - len, " ]");
			len += (size_t)(n > 0 ? n : 0);
		}
	}
	if (len + 1 >= size)
		return 0;
	b[len++] = '\n';
	return len;
}

/* Rows are written one by one (n[0] is the next row) so that 64 threads fit. */
static int act_show(struct cli_ctx *ctx)
{
	int nthr = global.nbthread > 0 && global.nbthread <= MAX_THREADS ? global.nbthread : 1;
	char b[64 * 22 + 64];
	size_t len;

	if (ctx->st == 0) {
		struct timeval tv;

		gettimeofday(&tv, NULL);
		if (cli_printf(ctx, "thread_id: %u (1..%d)\ndate_now: %lld.%06ld\n", tid + 1, nthr,
			       (long long)tv.tv_sec, (long)tv.tv_usec) < 0)
			return CLI_MORE;
		ctx->st = 1;
	}
	for (; ctx->n[0] < sizeof(act_rows) / sizeof(act_rows[0]); ctx->n[0]++) {
		len = act_render_row(b, sizeof(b), &act_rows[ctx->n[0]], nthr);
		if (len && cli_write(ctx, b, len) < 0)
			return CLI_MORE;
	}
	return CLI_DONE;
}

static const struct cli_kw act_kws[] = {
	{ { "show", "activity" }, "show activity",
	  "show per-thread activity stats (for support/developers)", CLI_LVL_USER, act_show },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(act_kws)
