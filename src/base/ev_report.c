/* Runtime event messages: the stderr line with HAProxy's prefix, written in one call, and
 * the same text handed to the log layer's hook. Owns no state but the hook; the buffers are
 * on the stack, so any thread may report.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <base/ev_report.h>
#include <proc/global-t.h>

void (*ev_log_hook)(const struct proxy *px, int level, const char *msg, size_t len);

static const char *const ev_prefix[] = {
	[EV_OUT_NONE] = "",
	[EV_OUT_NOTICE] = "[NOTICE]   ",
	[EV_OUT_WARNING] = "[WARNING]  ",
	[EV_OUT_ALERT] = "[ALERT]    ",
};

/* Prints <txt> (len bytes) with <out>'s prefix and a newline, in one write (lines of
 * several threads never interleave). */
static void ev_print(enum ev_out out, const char *txt, size_t len)
{
	char line[1100];
	int n;

	if (out == EV_OUT_NONE || global.quiet)
		return;
	n = snprintf(line, sizeof(line), "%s(%d) : %.*s\n", ev_prefix[out], (int)getpid(), (int)len,
		     txt);
	if (n <= 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	/* a lost stderr line is not worth retrying: the log copy carries it too */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

static size_t ev_format(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = vsnprintf(buf, size, fmt, ap);

	if (n < 0)
		return 0;
	return (size_t)n >= size ? size - 1 : (size_t)n;
}

void ev_report(const struct proxy *px, int level, enum ev_out out, const char *fmt, ...)
{
	char txt[1024];
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	len = ev_format(txt, sizeof(txt), fmt, ap);
	va_end(ap);
	ev_print(out, txt, len);
	if (px && ev_log_hook)
		ev_log_hook(px, level, txt, len);
}

void ev_report2(const struct proxy *px, int level, enum ev_out out, const char *logtxt,
		const char *fmt, ...)
{
	char txt[1024];
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	len = ev_format(txt, sizeof(txt), fmt, ap);
	va_end(ap);
	ev_print(out, txt, len);
	if (px && ev_log_hook)
		ev_log_hook(px, level, logtxt, strlen(logtxt));
}
