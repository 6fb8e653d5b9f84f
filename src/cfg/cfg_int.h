/* Private to src/cfg: the message printer shared by the loader (cfg.c) and the public
 * diagnostics (cfg_msg.c).
 */
#ifndef CFG_CFG_INT_H
#define CFG_CFG_INT_H

#include <stdarg.h>

enum cfg_level {
	CFG_LVL_NOTICE = 0,
	CFG_LVL_WARNING,
	CFG_LVL_ALERT,
	CFG_LVL_SUMMARY,   /* printed as an alert, not counted: sums up errors already counted */
};

/* Prints "[LEVEL]  (PID) : config : [parsing [FILE:LINE]SEP]MSG" to stderr (no location when
 * <file> is NULL; <sep> is " : " for keyword messages, ": " for directives and lexer errors
 * as HAProxy prints them). Alerts count into cfg_errors, warnings into cfg_warnings; with
 * global.quiet only alerts print.
 */
void cfg_vemit(enum cfg_level lvl, const char *file, int line, const char *sep, const char *fmt,
	       va_list ap);
void cfg_emit(enum cfg_level lvl, const char *file, int line, const char *sep, const char *fmt,
	      ...) __attribute__((format(printf, 5, 6)));

#endif
