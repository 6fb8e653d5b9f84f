/* Per-stream log lines (log/log_strm.c): the logging options and format keywords of
 * proxies, their check (inheritance from defaults, HAProxy's warnings), and the line
 * rendered and sent at the end of each stream (or at its response headers with logasap).
 */
#ifndef LOG_LOG_STRM_H
#define LOG_LOG_STRM_H

#include <stddef.h>
#include <log/log_strm-t.h>

struct stream;
struct smp_ctx;

/* Check phase, before rules_check_all (the formats' arguments are resolved with the
 * rules'): compiles the format of every frontend that logs. Returns the error count. */
int log_strm_check_all(void);

/* The PXL_* options in effect on <px> (its own over its defaults'). */
struct proxy;
uint32_t log_px_opts(const struct proxy *px);

/* Compiles <str> into <f> for a log line. 0, or -1 with a message in err. */
struct smp_parse_ctx;
int log_fmt_compile(struct logline_fmt *f, const char *str, const struct smp_parse_ctx *pc,
		    char *err, size_t errsz);
void log_fmt_free(struct logline_fmt *f);
/* Renders <f> for <ctx> into out[0..outsz) with HAProxy's separators; what does not fit is
 * cut. Returns the length. Loop thread. */
size_t log_fmt_render(const struct logline_fmt *f, const struct smp_ctx *ctx, char *out,
		      size_t outsz);

#endif
