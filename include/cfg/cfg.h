/* Configuration file loading: reads files, tokenizes lines (cfg/lexer), evaluates .if
 * blocks (cfg/cond), dispatches lines to the section and keyword tables that modules
 * register. Diagnostics follow HAProxy's shape with file:line.
 */
#ifndef CFG_CFG_H
#define CFG_CFG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>

/* Section ids, also used as bits in cfg_kw.sections. */
#define CFG_SEC_GLOBAL   0x01
#define CFG_SEC_DEFAULTS 0x02
#define CFG_SEC_FRONTEND 0x04
#define CFG_SEC_BACKEND  0x08
#define CFG_SEC_LISTEN   0x10
#define CFG_SEC_USERLIST 0x20
#define CFG_SEC_HTTP_ERRORS 0x40
#define CFG_SEC_RESOLVERS 0x400   /* dns/dns_cfg.c */
#define CFG_SEC_RING     0x1000   /* log/ring_cfg.c */
#define CFG_SEC_LOGFWD   0x2000   /* log/logfwd_cfg.c (refused: not supported yet) */
#define CFG_SEC_PROXIES  (CFG_SEC_DEFAULTS | CFG_SEC_FRONTEND | CFG_SEC_BACKEND | CFG_SEC_LISTEN)

#define CFG_MAX_ARGS 64

struct proxy;

/* What a keyword parser sees. args[0] is the keyword; args[nargs] is NULL. */
struct cfg_ctx {
	const char *file;
	int line;
	char **args;
	int nargs;
	unsigned int section;     /* CFG_SEC_* of the current section */
	struct proxy *px;         /* current proxy, or defaults section; NULL in global */
};

/* A keyword parser returns 0 on success, -1 after printing an alert with cfg_alert(). */
struct cfg_kw {
	const char *name;
	unsigned int sections;    /* CFG_SEC_* bits where the keyword is valid */
	int (*parse)(struct cfg_ctx *ctx);
};

struct cfg_kw_list {
	struct cfg_kw_list *next;
	const struct cfg_kw *kws; /* terminated by an entry with name NULL */
};

/* Sections: "begin" is called on the section line (args[0] is the section name). */
struct cfg_section {
	const char *name;
	unsigned int id;          /* CFG_SEC_* */
	int (*begin)(struct cfg_ctx *ctx);
};

void cfg_register_keywords(struct cfg_kw_list *kwl);
void cfg_register_section(const struct cfg_section *sec);

/* Declares and registers a keyword table from a module. */
#define CFG_REGISTER_KEYWORDS(tbl)                                                 \
	static struct cfg_kw_list tbl##_list = { NULL, tbl };                      \
	__attribute__((constructor)) static void tbl##_register(void)              \
	{                                                                          \
		cfg_register_keywords(&tbl##_list);                                \
	}

/* "[ALERT]    (PID) : config : parsing [FILE:LINE] : MSG", counts an error. */
void cfg_alert(const struct cfg_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "[WARNING]  (PID) : config : parsing [FILE:LINE] : MSG", counts a warning. */
void cfg_warn(const struct cfg_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Same without a parsing location: "[ALERT]    (PID) : config : MSG" (check phase uses
 * "[ALERT]    (PID) : config : proxy 'x' : ..." style text in <fmt>). */
/* While set (the runtime API parsing a server line: backend/srv_dyn.c), the calling
 * thread's alerts go into this buffer (the last one kept) and warnings are dropped, instead
 * of stderr. */
extern __thread char *cfg_capture_buf;
extern __thread size_t cfg_capture_size;

void ha_alert(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ha_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ha_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Startup messages kept for "show startup-logs" (cfg/startup_logs.c): cfg_vemit() adds
 * each printed line; cfg_startup_logs_freeze() stops it once the process serves;
 * cfg_startup_logs() returns the text (not NUL-terminated) and its length. */
void cfg_startup_log_add(const char *line, size_t len);
void cfg_startup_logs_freeze(void);
const char *cfg_startup_logs(size_t *len);

extern int cfg_errors;    /* alerts printed so far */
/* True while the configuration is read and checked: messages carry "config : " then. */
extern bool cfg_phase;
extern int cfg_warnings;  /* warnings printed so far */

/* Loads one file or a directory (its *.cfg in sorted order). Returns 0 or -1 (errors were
 * printed; parsing continues after an error to report as many as possible).
 */
int cfg_load_path(const char *path);

/* Helpers for keyword parsers: each prints an alert naming the keyword on error. */
int cfg_need_args(struct cfg_ctx *ctx, int n);                 /* exactly n after keyword */
int cfg_parse_time_arg(struct cfg_ctx *ctx, const char *s, int *ms);
int cfg_parse_int_arg(struct cfg_ctx *ctx, const char *s, long min, long max, long *out);
/* Refuses a known keyword that is not implemented yet: "'%s' is not supported yet (...)". */
int cfg_not_supported(struct cfg_ctx *ctx, const char *why);

/* Classes of HAProxy words that cfg_known_why() knows. */
enum cfg_known_class {
	CFG_KNOWN_GLOBAL = 0,     /* keyword of the global section */
	CFG_KNOWN_PROXY,          /* keyword of defaults/frontend/backend/listen */
	CFG_KNOWN_OPTION,         /* "option NAME" */
	CFG_KNOWN_BIND,           /* "bind" option */
	CFG_KNOWN_SERVER,         /* "server" option */
};

/* Returns why HAProxy's <name> of class <cls> is not supported yet, or NULL when it is not
 * a HAProxy word this proxy knows about (then it is really unknown). Pure.
 */
const char *cfg_known_why(enum cfg_known_class cls, const char *name);

#endif
