/* Sending log messages (log/log.c): every proxy and the global section hold a list of
 * loggers; a message is the text only (no header, no newline), each logger adds the header
 * its format asks for, truncates to its "len" and sends it without blocking. A message
 * that cannot leave at once is dropped and counted (DroppedLogs).
 */
#ifndef LOG_LOG_H
#define LOG_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <base/ist.h>
#include <log/log-t.h>

struct proxy;
struct cfg_ctx;

extern struct list global_loggers; /* "log" lines of the global section */
extern char *global_log_tag;	   /* "log-tag" of the global section, else the program name */
extern bool global_log_hostname;   /* "log-send-hostname" given */
extern char *global_log_host;	   /* the host name it sends */

/* Sends <msg> (len bytes) at <level> to each logger of <loggers> that admits the level.
 * <tag>: the program name in the header (NULL: the global one); <sd>: structured data for
 * rfc5424 (empty: "-"). Any thread, or startup; never blocks, never allocates. */
void log_send(const struct list *loggers, int level, const char *tag, const char *msg, size_t len,
	      struct ist sd);

struct syslog_msg;
/* Relays a received syslog message (log-forward) to each logger of <loggers> that admits
 * its level: the header each format asks for is rebuilt from the message's fields (no
 * "format": the header the message came with). Never blocks, never allocates. */
void log_send_fields(const struct list *loggers, const struct syslog_msg *m);

/* The same for a proxy: its loggers and its log-tag. */
void log_send_px(const struct proxy *px, int level, const char *msg, size_t len, struct ist sd);

/* printf-like: formats into a thread-local buffer and sends to <px>'s loggers (the global
 * ones when px is NULL). For events (servers going up or down, proxies started...). */
void log_sendf(const struct proxy *px, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* True when <px> has at least one logger: the only test on the request path. */
bool log_px_enabled(const struct proxy *px);

/* Messages dropped since start, all threads (show info DroppedLogs). */
uint64_t log_dropped(void);

/* Config: parses one "log" line's arguments (args[0] is "log") into <list>; "log global"
 * is handled by the caller. Returns 0 or -1 after a config alert. */
int log_parse_line(struct cfg_ctx *ctx, struct list *list);
/* Copies every logger of <from> to the end of <to> (log global, defaults). 0 or -1. */
int log_list_dup(struct list *to, const struct list *from);
void log_list_free(struct list *list);

/* Names of levels ("emerg".."debug") and facilities ("kern".."local7"); -1 if unknown. */
int log_level_parse(const char *name);
int log_facility_parse(const char *name);
/* Header formats ("rfc3164".."raw"): enum log_fmt, -1 if unknown. */
int log_fmt_parse(const char *name);
extern const char *const log_level_names[8];

#endif
