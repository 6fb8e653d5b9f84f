/* The stats data model (stats-t.h): descriptors of the "show stat" columns and of the
 * "show info" fields, fillers producing one line of typed fields per frontend, backend,
 * server or for the process, and the writers rendering a line (CSV, typed, JSON, desc).
 * Fillers read the per-group counter blocks and atomics: any thread may call them.
 * Writers are pure: they append to a caller's buffer and return the new length, or
 * (size_t)-1 when the text does not fit (nothing counted as written).
 */
#ifndef STATS_STATS_H
#define STATS_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stats/stats-t.h>

struct proxy;
struct server;
struct listener;

extern const struct stat_desc stat_cols[ST_NCOLS];
extern const struct stat_desc info_fields[INF_NFIELDS];

/* ---- building lines (stat_fields.c) ---- */

/* Empties every field of <l> and its string storage. */
void stat_line_reset(struct stat_line *l);

/* Sets field <i> of <l> to a number, with the type and tags of descriptor <d>[i]. */
void stat_set_num(struct stat_line *l, const struct stat_desc *d, int i, int64_t v);

/* Sets field <i> of <l> to string <s>, which must outlive the line (static or config
 * text); stat_set_fmt() copies a formatted string into the line's storage instead (an
 * empty string when the storage is full). */
void stat_set_str(struct stat_line *l, const struct stat_desc *d, int i, const char *s);
void stat_set_fmt(struct stat_line *l, const struct stat_desc *d, int i, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Shorthands for "show stat" columns. */
#define STAT_NUM(l, col, v) stat_set_num((l), stat_cols, (col), (int64_t)(v))
#define STAT_STR(l, col, s) stat_set_str((l), stat_cols, (col), (s))

/* Replaces the tags of a field already set (HAProxy tags a few columns differently on
 * backend lines). */
void stat_set_tags(struct stat_line *l, int i, const char *tags);

/* A field's value as an unsigned number (strings and empty fields give 0). */
uint64_t stat_field_u64(const struct stat_field *f);

/* ---- filling lines (stat_proxy.c, stat_info.c) ---- */

/* iid of proxy <px> as HAProxy numbers proxies when a stats socket exists. */
int stat_proxy_iid(const struct proxy *px);

/* Fill <l> for the frontend side of <px>, its backend side, or server <srv> of <px>. */
void stats_fill_fe(struct stat_line *l, const struct proxy *px);
void stats_fill_be(struct stat_line *l, const struct proxy *px);
void stats_fill_srv(struct stat_line *l, const struct proxy *px, const struct server *srv);

/* True when server <srv> is usable (not in maintenance, UP). */
bool stats_srv_is_up(const struct server *srv);

/* Fills <l> with the "show info" fields of the process. */
void stats_fill_info(struct stat_line *l);

/* ---- rate maxima (stat_rates.c) ---- */

/* Thread 0: starts (0 or -1) and stops the timer sampling the rate maxima. */
int stats_rates_start(void);
void stats_rates_stop(void);

/* Raises the sampled maxima to the rates at <now> (ms); the timer's work, for tests. */
void stats_rates_sample(uint64_t now);

/* ---- writers (stat_out.c) ---- */

/* Output formats. */
enum stat_fmt {
	STAT_FMT_CSV = 0,
	STAT_FMT_TYPED,
	STAT_FMT_JSON,
};

/* "show stat": the CSV header line; one line as CSV (<desc> is ignored, as HAProxy
 * does); one field of a line as typed ("F.iid.sid.pos.name.1:tags:type:value", with the
 * description when <desc>) or JSON (an object; <first> omits the leading comma). Fields
 * of type SF_EMPTY write nothing in typed and JSON formats. */
size_t stat_out_csv_header(char *b, size_t len, size_t size);
size_t stat_out_csv_line(char *b, size_t len, size_t size, const struct stat_line *l);
size_t stat_out_typed_field(char *b, size_t len, size_t size, const struct stat_line *l, int i,
			    bool desc);
size_t stat_out_json_field(char *b, size_t len, size_t size, const struct stat_line *l, int i,
			   bool first);

/* "show info": one field as "Name: value" (with ":"desc"" when <desc>), typed
 * ("pos.Name.1:tags:type:value") or JSON (an object, <first> as above). */
size_t info_out_plain_field(char *b, size_t len, size_t size, const struct stat_line *l, int i,
			    bool desc);
size_t info_out_typed_field(char *b, size_t len, size_t size, const struct stat_line *l, int i,
			    bool desc);
size_t info_out_json_field(char *b, size_t len, size_t size, const struct stat_line *l, int i,
			   bool first);

/* Copies <s> to <b>: its length, or -1 when it does not fit. */
size_t stat_out_str(char *b, size_t size, const char *s);

/* A field's value alone as CSV writes it (empty for SF_EMPTY): for HTML and Prometheus. */
size_t stat_out_value(char *b, size_t len, size_t size, const struct stat_field *f);

/* The JSON schema of "show info json" and "show stat json" ("show schema json"). */
extern const char stat_json_schema[];

#endif
