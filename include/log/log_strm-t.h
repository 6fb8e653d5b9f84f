/* Types of per-stream log lines (log/log_strm.c): what a proxy section declares about
 * them (options, format lines) and, on a frontend that logs, the compiled format. Built
 * at config time, read-only at run time.
 */
#ifndef LOG_LOG_STRM_T_H
#define LOG_LOG_STRM_T_H

#include <stdbool.h>
#include <stdint.h>
#include <base/ist.h>
#include <sample/logfmt-t.h>

/* px_log->opts, opts_set */
#define PXL_DONTLOGNULL 0x01	/* option dontlognull: no line for a stream without input */
#define PXL_DONTLOG_NORMAL 0x02 /* option dontlog-normal: lines of errors only */
#define PXL_SEP_ERRORS 0x04	/* option log-separate-errors: errors at level "err" */
#define PXL_LOGASAP 0x08	/* option logasap: the line goes at the response headers */
#define PXL_LOG_HCHK 0x10	/* option log-health-checks (backends) */

enum pxl_fmt {
	PXL_FMT_NONE = 0, /* no format: no stream line */
	PXL_FMT_HTTP,	  /* option httplog */
	PXL_FMT_HTTPS,	  /* option httpslog */
	PXL_FMT_CLF,	  /* option httplog clf */
	PXL_FMT_TCP,	  /* option tcplog */
	PXL_FMT_CUSTOM,	  /* log-format */
};

/* One piece of a compiled log line: literal text, a separator (a run of spaces, written
 * once and only after a value), or a variable/expression of the compiled lf_expr. */
struct log_item {
	uint8_t type;		    /* LOGI_* */
	uint8_t kind;		    /* enum log_tag_kind (log_vars.h) */
	uint8_t quote;		    /* +Q on a string */
	struct ist text;	    /* LOGI_TEXT: points into the lf_expr's node text */
	const struct lf_node *node; /* LOGI_NODE */
};

#define LOGI_TEXT 0
#define LOGI_SEP 1
#define LOGI_NODE 2

struct logline_fmt {
	struct lf_expr lf;
	int nb;
	struct log_item *items; /* owned */
};

/* A format line as declared (compiled on each frontend that uses it) */
struct pxl_line {
	char *str;  /* owned, NULL when not declared */
	char *file; /* owned */
	int line;
};

struct px_log {
	uint32_t opts;		  /* PXL_* given (or negated) in this section */
	uint32_t opts_set;	  /* PXL_* this section set either way */
	uint8_t fmt;		  /* enum pxl_fmt, when fmt_set */
	bool fmt_set;		  /* a format line/option was given in this section */
	struct pxl_line fmt_line; /* where the format was given; its text for log-format */
	struct pxl_line sd;	  /* log-format-sd */
	struct pxl_line err;	  /* error-log-format (kept: only TLS errors use it in 2.6) */

	/* a frontend that logs streams (check time) */
	uint32_t eff_opts; /* PXL_* with the defaults' */
	bool fast_http;	   /* the default httplog line: log_httplog_render() */
	struct logline_fmt line;
	struct logline_fmt sdfmt; /* nb == 0: none */
	bool connect_line;	  /* no format: "Connect from" at each request (<line>) */
	uint64_t nb_lines;	  /* %lc: lines sent so far (atomic: every thread logs; once per
				   * line, beside a sendmsg) */
};

#endif
