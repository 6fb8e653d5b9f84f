/* Startup diagnostics in HAProxy's shape ("[ALERT]    (PID) : config : parsing [f:l] : msg")
 * and the argument helpers keyword parsers share (arity, times, integers, "not supported
 * yet"). Owns cfg_errors/cfg_warnings. Does not read files (cfg.c does).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <base/parse.h>
#include <cfg/cfg.h>
#include <proc/global-t.h>

#include "cfg_int.h"

int cfg_errors;
int cfg_warnings;
bool cfg_phase = true;

static const char *const cfg_level_tag[] = {
	[CFG_LVL_NOTICE] = "[NOTICE]   ",
	[CFG_LVL_WARNING] = "[WARNING]  ",
	[CFG_LVL_ALERT] = "[ALERT]    ",
	[CFG_LVL_SUMMARY] = "[ALERT]    ",
};

/* Keeps a copy of a printed message for "show startup-logs". */
static void cfg_startup_log_line(enum cfg_level lvl, const char *loc, const char *msg)
{
	char line[4800];
	int n = snprintf(line, sizeof(line), "%s(%d) : %s%s%s\n", cfg_level_tag[lvl],
			 (int)getpid(), cfg_phase ? "config : " : "", loc, msg);

	if (n > 0)
		cfg_startup_log_add(line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* See cfg_int.h. Counts alerts and warnings even when quiet; only alerts always print. */
__thread char *cfg_capture_buf;
__thread size_t cfg_capture_size;

void cfg_vemit(enum cfg_level lvl, const char *file, int line, const char *sep, const char *fmt,
	       va_list ap)
{
	char msg[4096], loc[512] = "";
	size_t len;

	if (cfg_capture_buf) { /* the runtime API answers with the last alert instead */
		if (lvl != CFG_LVL_ALERT)
			return;
		vsnprintf(cfg_capture_buf, cfg_capture_size, fmt, ap);
		return;
	}
	if (lvl == CFG_LVL_ALERT)
		cfg_errors++;
	else if (lvl == CFG_LVL_WARNING)
		cfg_warnings++;
	if (lvl != CFG_LVL_ALERT && lvl != CFG_LVL_SUMMARY && global.quiet)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	len = strlen(msg);
	while (len && msg[len - 1] == '\n')
		msg[--len] = '\0';
	if (file)
		snprintf(loc, sizeof(loc), "parsing [%s:%d]%s", file, line, sep);
	fprintf(stderr, "%s(%d) : %s%s%s\n", cfg_level_tag[lvl], (int)getpid(),
		cfg_phase ? "config : " : "", loc, msg);
	cfg_startup_log_line(lvl, loc, msg); /* for "show startup-logs" */
}

void cfg_emit(enum cfg_level lvl, const char *file, int line, const char *sep, const char *fmt,
	      ...)
{
	va_list ap;

	va_start(ap, fmt);
	cfg_vemit(lvl, file, line, sep, fmt, ap);
	va_end(ap);
}

void cfg_alert(const struct cfg_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cfg_vemit(CFG_LVL_ALERT, ctx ? ctx->file : NULL, ctx ? ctx->line : 0, " : ", fmt, ap);
	va_end(ap);
}

void cfg_warn(const struct cfg_ctx *ctx, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cfg_vemit(CFG_LVL_WARNING, ctx ? ctx->file : NULL, ctx ? ctx->line : 0, " : ", fmt, ap);
	va_end(ap);
}

void ha_alert(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cfg_vemit(CFG_LVL_ALERT, NULL, 0, "", fmt, ap);
	va_end(ap);
}

void ha_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cfg_vemit(CFG_LVL_WARNING, NULL, 0, "", fmt, ap);
	va_end(ap);
}

void ha_notice(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cfg_vemit(CFG_LVL_NOTICE, NULL, 0, "", fmt, ap);
	va_end(ap);
}

/* See cfg/cfg.h: exactly <n> arguments after the keyword. */
int cfg_need_args(struct cfg_ctx *ctx, int n)
{
	int have = ctx->nargs - 1;

	if (have > n) {
		cfg_alert(ctx, "'%s' cannot handle unexpected argument '%s'.", ctx->args[0],
			  ctx->args[n + 1]);
		return -1;
	}
	if (have < n) {
		cfg_alert(ctx, "'%s' expects %d argument%s (got %d).", ctx->args[0], n,
			  n > 1 ? "s" : "", have);
		return -1;
	}
	return 0;
}

/* See cfg/cfg.h: a time with units, default milliseconds, into *ms. */
int cfg_parse_time_arg(struct cfg_ctx *ctx, const char *s, int *ms)
{
	const char *bad;
	int v = 0;

	if (!s || !*s) {
		cfg_alert(ctx, "'%s' expects <time> as argument.", ctx->args[0]);
		return -1;
	}
	bad = parse_time_ms(s, 1, &v);
	if (!bad) {
		*ms = v;
		return 0;
	}
	if (v == -1)
		cfg_alert(ctx, "timer overflow in argument '%s' to '%s', maximum value is "
			  "2147483647 ms (~24.8 days).", s, ctx->args[0]);
	else if (bad == s)
		cfg_alert(ctx, "'%s' expects <time> as argument, got '%s'.", ctx->args[0], s);
	else
		cfg_alert(ctx, "unexpected character '%c' in argument to '%s'.", *bad,
			  ctx->args[0]);
	return -1;
}

/* See cfg/cfg.h: a decimal integer in [min, max] into *out. */
int cfg_parse_int_arg(struct cfg_ctx *ctx, const char *s, long min, long max, long *out)
{
	if (s && parse_long(s, min, max, out) == 0)
		return 0;
	cfg_alert(ctx, "'%s' expects an integer argument between %ld and %ld, got '%s'.",
		  ctx->args[0], min, max, s ? s : "");
	return -1;
}

/* See cfg/cfg.h. */
int cfg_not_supported(struct cfg_ctx *ctx, const char *why)
{
	cfg_alert(ctx, "'%s' is not supported yet (%s)", ctx->args[0], why);
	return -1;
}
