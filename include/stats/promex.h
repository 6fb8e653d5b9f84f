/* The Prometheus exporter ("http-request use-service prometheus-exporter"): HAProxy 2.6's
 * metric tables (stats/promex_names.c), the query-string filters and the text-format
 * writer (stats/promex.c). The writer is a cursor over scopes, metrics and objects that
 * appends whole lines to a buffer and resumes where it stopped, so that any number of
 * proxies and servers is exported through one buffer.
 */
#ifndef STATS_PROMEX_H
#define STATS_PROMEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <base/buf-t.h>

enum promex_type {
	PROMEX_GAUGE = 0,
	PROMEX_COUNTER,
};

/* How the samples of a metric are written. */
enum promex_kind {
	PROMEX_K_VALUE = 0, /* the field's value, NaN when empty */
	PROMEX_K_SECONDS,   /* a field in milliseconds, written in seconds ("%f") */
	PROMEX_K_BUILD,	    /* build_info{version="..."} 1 */
	PROMEX_K_PX_STATE,  /* status of a frontend/backend: state="DOWN"|"UP" */
	PROMEX_K_SRV_STATE, /* status of a server: DOWN UP MAINT DRAIN NOLB */
	PROMEX_K_CODE,	    /* one status class of http_responses_total: code="1xx"... */
	PROMEX_K_AGG_STATE, /* backend: number of servers in each server state */
	PROMEX_K_AGG_CHECK, /* backend: number of servers per last check result */
	PROMEX_K_CHECK,	    /* server: its last check result among the check states */
};

#define PROMEX_F_HTTP 0x01  /* only for proxies in mode http */
#define PROMEX_F_CHECK 0x02 /* only for servers with a health check */
#define PROMEX_F_NOHDR 0x04 /* continues the previous metric: no HELP/TYPE lines */
#define PROMEX_F_ZERO 0x08  /* an empty field is 0, not NaN */
#define PROMEX_F_SKIP 0x10  /* an empty field gives no sample (no check completed yet) */

/* One exported metric: "haproxy_<name>", the stats field (CSV column, or "show info"
 * field for the process scope) it reads, its HELP text and TYPE, as HAProxy 2.6 has them. */
struct promex_metric {
	const char *name;
	const char *field;
	const char *help;
	const char *code; /* PROMEX_K_CODE: the code label, else NULL */
	uint8_t type;	  /* enum promex_type */
	uint8_t kind;	  /* enum promex_kind */
	uint8_t flags;	  /* PROMEX_F_* */
};

extern const struct promex_metric promex_process_metrics[];
extern const size_t promex_process_nmetrics;
extern const struct promex_metric promex_frontend_metrics[];
extern const size_t promex_frontend_nmetrics;
extern const struct promex_metric promex_backend_metrics[];
extern const size_t promex_backend_nmetrics;
extern const struct promex_metric promex_server_metrics[];
extern const size_t promex_server_nmetrics;
extern const struct promex_metric promex_sticktable_metrics[];
extern const size_t promex_sticktable_nmetrics;

/* Labels of the state metrics, in HAProxy's order. */
extern const char *const promex_srv_states[5];	  /* DOWN UP MAINT DRAIN NOLB */
extern const char *const promex_check_states[16]; /* HANA SOCKERR L4OK ... PROCOK */

/* Query-string flags: the scopes to export and the filters. */
#define PROMEX_SC_GLOBAL 0x0001
#define PROMEX_SC_FRONT 0x0002
#define PROMEX_SC_BACK 0x0004
#define PROMEX_SC_SERVER 0x0008
#define PROMEX_SC_LISTENER 0x0010 /* accepted; 2.6 exports no listener metric */
#define PROMEX_SC_STKTABLE 0x0020
#define PROMEX_SC_ALL 0x003f
#define PROMEX_FL_NO_MAINT 0x0100 /* "no-maint": skip servers in maintenance */

/* Parses the query string <q> (<len> bytes, without the '?', up to an eventual '#') as
 * HAProxy 2.6 does: '&'-separated "name[=value]" pairs, percent-decoded; "scope=X" (X in
 * global, frontend, backend, server, listener, sticktable, '*'; empty: none) replaces the
 * default of every scope by the union of the scopes named; "no-maint"; other names are
 * ignored. Pure. Returns the flags, or -1 for a bad or missing scope value (a 400). */
int promex_parse_query(const char *q, size_t len);

/* The writer's cursor: promex_cursor_new() (NULL when out of memory) with the flags of
 * promex_parse_query(), then promex_dump() until it returns 1, then promex_cursor_free().
 * promex_dump() appends whole lines to <out> while they fit and returns 0 when more is
 * to come (call again once <out> has room), 1 when everything is written. Any thread;
 * values are read from the stats model (stats.h) at the time each object is written. */
struct promex_cursor;
struct promex_cursor *promex_cursor_new(int flags);
void promex_cursor_free(struct promex_cursor *c);
int promex_dump(struct promex_cursor *c, struct buf *out);

/* Writes the value of a sample (<v> with the kind's conversion) into <dst>: an integer,
 * a "%f" number of seconds, or "NaN" when <empty>. Returns the length. Pure. */
size_t promex_fmt_int(char *dst, size_t size, int64_t v, bool empty, bool seconds);

/* Appends <s> to <out> as a label value (backslash, double quote and newline escaped).
 * Returns 0, or -1 when it does not fit (<out> is then left partly written: callers
 * roll back the whole line). */
int promex_put_label(struct buf *out, const char *s);

#endif
