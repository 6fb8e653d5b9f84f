/* Runtime event messages (servers going up or down, a backend left without servers, a
 * proxy stopped): one call prints HAProxy's stderr line and sends the text to the proxy's
 * loggers through a hook the log layer sets (log/ sits above backend/ and dns/).
 */
#ifndef BASE_EV_REPORT_H
#define BASE_EV_REPORT_H

#include <stddef.h>

struct proxy;

/* The stderr prefix of an event: HAProxy's severity words, independent of the log level
 * (a server going DOWN is a "[WARNING]" on stderr and an "alert" in the logs). */
enum ev_out {
	EV_OUT_NONE = 0, /* logs only */
	EV_OUT_NOTICE,	 /* "[NOTICE]   (pid) : " */
	EV_OUT_WARNING,	 /* "[WARNING]  (pid) : " */
	EV_OUT_ALERT,	 /* "[ALERT]    (pid) : " */
};

/* Set by log/ at startup: sends <msg> (len bytes, no newline) at <level> to <px>'s
 * loggers (none: nothing). Any thread; never blocks. */
extern void (*ev_log_hook)(const struct proxy *px, int level, const char *msg, size_t len);

/* printf-like: prints "<prefix of out><text>\n" on stderr in one write (unless "quiet"),
 * then logs <text> at <level> (0..7) to <px>'s loggers. Any thread; the text is cut at
 * 1023 bytes. */
void ev_report(const struct proxy *px, int level, enum ev_out out, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* The same with a different text for the logs (<logtxt>, already formatted), as HAProxy
 * does for "backend 'be' has no server available!" (no quotes in the logs). */
void ev_report2(const struct proxy *px, int level, enum ev_out out, const char *logtxt,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
