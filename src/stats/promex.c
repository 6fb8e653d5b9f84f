/* The Prometheus exporter: "http-request use-service prometheus-exporter". Parses the
 * query-string filters, then writes HAProxy 2.6's metrics (tables in promex_names.c) in
 * the Prometheus text format, metric by metric: HELP and TYPE before the first sample,
 * then one sample per object. A cursor (scope, metric, object) lets the body be produced
 * in pieces through one buffer, whatever the number of proxies and servers. Values come
 * from the stats data model (stats.h) only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backend/server-t.h>
#include <base/buf.h>
#include <base/ist.h>
#include <proxy/proxy-t.h>
#include <proxy/proxy.h>
#include <stats/promex.h>
#include <stats/stats.h>
#include <stream/service.h>
#include <stream/stream-t.h>
#include <stream/stktable-t.h>
#include <stream/stktable.h>

/* ---- values ---- */

static int pmx_put(struct buf *out, const char *s, size_t len)
{
	return b_putblk(out, s, (uint32_t)len);
}

static int pmx_puts(struct buf *out, const char *s)
{
	return pmx_put(out, s, strlen(s));
}

/* Writes the value of field <f> (see promex_fmt_int); unsigned values above INT64_MAX
 * are written as they are. Returns the length. */
static size_t pmx_fmt_field(char *dst, size_t size, const struct stat_field *f, bool seconds)
{
	int n;

	switch (f->type) {
	case SF_S32:
		return promex_fmt_int(dst, size, f->u.s32, false, seconds);
	case SF_U32:
		return promex_fmt_int(dst, size, f->u.u32, false, seconds);
	case SF_S64:
		return promex_fmt_int(dst, size, f->u.s64, false, seconds);
	case SF_U64:
		if (f->u.u64 <= INT64_MAX)
			return promex_fmt_int(dst, size, (int64_t)f->u.u64, false, seconds);
		n = seconds ? snprintf(dst, size, "%f", (double)f->u.u64 / 1000.0)
			    : snprintf(dst, size, "%" PRIu64, f->u.u64);
		return n < 0 ? 0 : ((size_t)n < size ? (size_t)n : size - 1);
	default: /* empty, or a string where a number is expected */
		return promex_fmt_int(dst, size, 0, true, false);
	}
}

/* The index of the field named <name> in <d> (<n> descriptors), or -1. */
static int pmx_field_idx(const struct stat_desc *d, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (d[i].name && strcmp(d[i].name, name) == 0)
			return i;
	return -1;
}

/* Server state of a "show stat" status text (DOWN UP MAINT DRAIN NOLB index). */
static int pmx_srv_state(const struct stat_field *status)
{
	const char *s = status->type == SF_STR && status->u.str ? status->u.str : "";

	if (strncmp(s, "MAINT", 5) == 0)
		return 2;
	if (strncmp(s, "DRAIN", 5) == 0)
		return 3;
	if (strncmp(s, "NOLB", 4) == 0)
		return 4;
	if (strncmp(s, "DOWN", 4) == 0)
		return 0;
	return 1; /* UP, "UP n/m" going down, "no check" */
}

/* Index of a check result text in promex_check_states, or -1 (no check, not run yet). */
static int pmx_check_state(const struct stat_field *f)
{
	const char *s = f->type == SF_STR && f->u.str ? f->u.str : "";

	if (s[0] == '*' && s[1] == ' ')
		s += 2; /* a check in progress */
	for (int i = 0; i < 16; i++)
		if (strcmp(s, promex_check_states[i]) == 0)
			return i;
	return -1;
}

/* ---- the writer ---- */

enum {
	PMX_GLOBAL = 0,
	PMX_FRONT,
	PMX_BACK,
	PMX_SERVER,
	PMX_STKTABLE,
	PMX_END,
};

/* Where the writer stands. Proxies and stick tables live as long as the process; a
 * server is found again by its position and id, since it may be deleted between two
 * pieces of the body. */
struct promex_cursor {
	int flags;		   /* from promex_parse_query() */
	int scope;		   /* PMX_* being written */
	size_t m;		   /* metric of the scope's table being written */
	int hdr;		   /* its HELP and TYPE are written */
	int field;		   /* its field index, -1 when the model has none */
	const struct proxy *px;	   /* next proxy to write, NULL: the first */
	int srv_pos;		   /* next server of <px>: its position in the list... */
	int srv_puid;		   /* ... and its id, 0 for the first */
	const struct stktable *st; /* next stick table, NULL: the first */
	int started;		   /* <px>/<st> are set for the current metric */
};

static const struct promex_metric *pmx_table(int scope, size_t *n)
{
	switch (scope) {
	case PMX_GLOBAL:
		*n = promex_process_nmetrics;
		return promex_process_metrics;
	case PMX_FRONT:
		*n = promex_frontend_nmetrics;
		return promex_frontend_metrics;
	case PMX_BACK:
		*n = promex_backend_nmetrics;
		return promex_backend_metrics;
	case PMX_SERVER:
		*n = promex_server_nmetrics;
		return promex_server_metrics;
	case PMX_STKTABLE:
		*n = promex_sticktable_nmetrics;
		return promex_sticktable_metrics;
	default:
		*n = 0;
		return NULL;
	}
}

static int pmx_scope_flag(int scope)
{
	static const int f[] = { PROMEX_SC_GLOBAL, PROMEX_SC_FRONT, PROMEX_SC_BACK,
				 PROMEX_SC_SERVER, PROMEX_SC_STKTABLE };

	return scope < PMX_END ? f[scope] : 0;
}

static int pmx_header(struct buf *out, const struct promex_metric *m)
{
	return pmx_puts(out, "# HELP haproxy_") || pmx_puts(out, m->name) || pmx_puts(out, " ") ||
	       pmx_puts(out, m->help) || pmx_puts(out, "\n# TYPE haproxy_") ||
	       pmx_puts(out, m->name) ||
	       pmx_puts(out, m->type == PROMEX_COUNTER ? " counter\n" : " gauge\n");
}

/* Labels of the object a sample describes. */
struct pmx_obj {
	const char *px;	     /* proxy="" (NULL: none) */
	const char *srv;     /* server="" */
	const char *st_name; /* sticktable name="" type="" */
	const char *st_type;
};

/* One sample line: haproxy_NAME{labels[,extra="val"]} VALUE. Returns 0 or -1. */
static int pmx_sample(struct buf *out, const struct promex_metric *m, const struct pmx_obj *o,
		      const char *extra, const char *extra_val, const char *value)
{
	int first = 1;

	if (pmx_puts(out, "haproxy_") || pmx_puts(out, m->name))
		return -1;
#define PMX_LABEL(k, v)                                                         \
	do {                                                                    \
		if (v) {                                                        \
			if (pmx_puts(out, first ? "{" k "=\"" : "," k "=\"") || \
			    promex_put_label(out, (v)) || pmx_puts(out, "\""))  \
				return -1;                                      \
			first = 0;                                              \
		}                                                               \
	} while (0)
	PMX_LABEL("proxy", o->px);
	PMX_LABEL("server", o->srv);
	PMX_LABEL("name", o->st_name);
	PMX_LABEL("type", o->st_type);
#undef PMX_LABEL
	if (extra &&
	    (pmx_puts(out, first ? "{" : ",") || pmx_puts(out, extra) || pmx_puts(out, "=\"") ||
	     promex_put_label(out, extra_val) || pmx_puts(out, "\"")))
		return -1;
	if (!first || extra) {
		if (pmx_puts(out, "}"))
			return -1;
	}
	return pmx_puts(out, " ") || pmx_puts(out, value) || pmx_puts(out, "\n");
}

/* Counts the servers of backend <px> per state (<check>: per last check result). */
static void pmx_count_servers(const struct proxy *px, bool check, unsigned int *cnt)
{
	struct stat_line l;

	for (const struct server *sv = px->srv; sv; sv = sv->next) {
		int i;

		stats_fill_srv(&l, px, sv);
		i = check ? ((sv->flags & SRV_F_CHECK) ? pmx_check_state(&l.f[ST_check_status])
						       : -1)
			  : pmx_srv_state(&l.f[ST_status]);
		if (i >= 0)
			cnt[i]++;
	}
}

/* Writes the samples of metric <m> for one object whose fields are in <l> (NULL for a
 * stick table: <stv> is its value). Returns 0 or -1 (no room). */
static int pmx_samples(struct buf *out, const struct promex_metric *m, int field,
		       const struct pmx_obj *o, const struct stat_line *l, const struct proxy *px,
		       int64_t stv)
{
	static const struct stat_field none = { .type = SF_EMPTY };
	const struct stat_field *f = l && field >= 0 ? &l->f[field] : &none;
	unsigned int cnt[16] = { 0 };
	char v[48];
	int cur;

	if ((m->flags & PROMEX_F_SKIP) && f->type == SF_EMPTY)
		return 0;
	switch (m->kind) {
	case PROMEX_K_BUILD:
		return pmx_sample(out, m, o, "version",
				  f->type == SF_STR && f->u.str ? f->u.str : "", "1");
	case PROMEX_K_PX_STATE:
		cur = f->type == SF_STR && f->u.str &&
		      (strcmp(f->u.str, "UP") == 0 || strcmp(f->u.str, "OPEN") == 0);
		return pmx_sample(out, m, o, "state", "DOWN", cur ? "0" : "1") ||
		       pmx_sample(out, m, o, "state", "UP", cur ? "1" : "0");
	case PROMEX_K_SRV_STATE:
		cur = pmx_srv_state(f);
		for (int i = 0; i < 5; i++)
			if (pmx_sample(out, m, o, "state", promex_srv_states[i],
				       i == cur ? "1" : "0"))
				return -1;
		return 0;
	case PROMEX_K_CHECK:
		cur = pmx_check_state(f);
		for (int i = 0; i < 16; i++)
			if (pmx_sample(out, m, o, "state", promex_check_states[i],
				       i == cur ? "1" : "0"))
				return -1;
		return 0;
	case PROMEX_K_AGG_STATE:
	case PROMEX_K_AGG_CHECK: {
		int n = m->kind == PROMEX_K_AGG_STATE ? 5 : 16;

		if (!px->srv)
			return 0; /* no sample for a backend without servers */
		pmx_count_servers(px, m->kind == PROMEX_K_AGG_CHECK, cnt);
		for (int i = 0; i < n; i++) {
			snprintf(v, sizeof(v), "%u", cnt[i]);
			if (pmx_sample(out, m, o, "state",
				       n == 5 ? promex_srv_states[i] : promex_check_states[i], v))
				return -1;
		}
		return 0;
	}
	case PROMEX_K_CODE:
		pmx_fmt_field(v, sizeof(v), f, false);
		return pmx_sample(out, m, o, "code", m->code, v);
	default:
		if (l && f->type == SF_EMPTY && (m->flags & PROMEX_F_ZERO))
			promex_fmt_int(v, sizeof(v), 0, false, false);
		else if (l)
			pmx_fmt_field(v, sizeof(v), f, m->kind == PROMEX_K_SECONDS);
		else
			promex_fmt_int(v, sizeof(v), stv, false, false);
		return pmx_sample(out, m, o, NULL, NULL, v);
	}
}

/* Writes metric <m> for one object, with HELP and TYPE before its first sample: all or
 * nothing. Returns 0, or -1 when it does not fit (the buffer is as it was). */
static int pmx_emit(struct promex_cursor *c, struct buf *out, const struct promex_metric *m,
		    const struct pmx_obj *o, const struct stat_line *l, const struct proxy *px,
		    int64_t stv)
{
	uint32_t mark = out->data, body;

	if (!c->hdr && pmx_header(out, m))
		goto full;
	body = out->data;
	if (pmx_samples(out, m, c->field, o, l, px, stv))
		goto full;
	if (out->data == body)
		out->data = mark; /* no sample for this object: no header either */
	else
		c->hdr = 1;
	return 0;
full:
	out->data = mark;
	return mark ? -1 : 0; /* that never fits (names of kilobytes): skip the object */
}

static bool pmx_px_in_scope(const struct proxy *px, int scope, const struct promex_metric *m)
{
	if (!(px->cap & (scope == PMX_FRONT ? PR_CAP_FE : PR_CAP_BE)))
		return false;
	return !(m->flags & PROMEX_F_HTTP) || px->mode == PR_MODE_HTTP;
}

/* The server at position <pos> of <px> if its id is still <puid>, else the first one
 * after position <pos> (a server was deleted). */
static const struct server *pmx_find_srv(const struct proxy *px, int pos, int puid)
{
	const struct server *sv = px->srv;

	for (int i = 0; sv && i < pos; i++)
		sv = sv->next;
	if (!sv || sv->puid == puid)
		return sv;
	for (const struct server *s = px->srv; s; s = s->next)
		if (s->puid == puid)
			return s;
	return sv;
}

/* Frontends and backends of metric <m>. Returns 0 when done, -1 for no room. */
static int pmx_dump_px(struct promex_cursor *c, struct buf *out, const struct promex_metric *m)
{
	struct stat_line l;

	if (!c->started) {
		c->px = proxies;
		c->started = 1;
	}
	for (; c->px; c->px = c->px->next) {
		struct pmx_obj o = { .px = c->px->id };

		if (!pmx_px_in_scope(c->px, c->scope, m))
			continue;
		if (c->scope == PMX_FRONT)
			stats_fill_fe(&l, c->px);
		else
			stats_fill_be(&l, c->px);
		if (pmx_emit(c, out, m, &o, &l, c->px, 0))
			return -1;
	}
	return 0;
}

/* Servers of metric <m>. Returns 0 when done, -1 for no room. */
static int pmx_dump_srv(struct promex_cursor *c, struct buf *out, const struct promex_metric *m)
{
	struct stat_line l;

	if (!c->started) {
		c->px = proxies;
		c->srv_pos = c->srv_puid = 0;
		c->started = 1;
	}
	for (; c->px; c->px = c->px->next, c->srv_pos = c->srv_puid = 0) {
		const struct server *sv;

		if (!pmx_px_in_scope(c->px, PMX_BACK, m))
			continue;
		sv = c->srv_puid ? pmx_find_srv(c->px, c->srv_pos, c->srv_puid) : c->px->srv;
		for (; sv; sv = sv->next, c->srv_pos++) {
			struct pmx_obj o = { .px = c->px->id, .srv = sv->id };

			c->srv_puid = sv->puid;
			if ((m->flags & PROMEX_F_CHECK) && !(sv->flags & SRV_F_CHECK))
				continue;
			stats_fill_srv(&l, c->px, sv);
			if ((c->flags & PROMEX_FL_NO_MAINT) && pmx_srv_state(&l.f[ST_status]) == 2)
				continue;
			if (pmx_emit(c, out, m, &o, &l, c->px, 0))
				return -1;
		}
	}
	return 0;
}

/* Stick tables of metric <m>. Returns 0 when done, -1 for no room. */
static int pmx_dump_st(struct promex_cursor *c, struct buf *out, const struct promex_metric *m)
{
	if (!c->started) {
		c->st = stktables;
		c->started = 1;
	}
	for (; c->st; c->st = c->st->next) {
		struct pmx_obj o = { .st_name = c->st->id,
				     .st_type = stk_key_type_name(c->st->type) };
		int64_t v = strcmp(m->field, "size") == 0
				    ? (int64_t)c->st->size
				    : (int64_t)__atomic_load_n(&c->st->current, __ATOMIC_RELAXED);

		if (pmx_emit(c, out, m, &o, NULL, NULL, v))
			return -1;
	}
	return 0;
}

/* Process metric <m> from the "show info" line <info>. */
static int pmx_dump_global(struct promex_cursor *c, struct buf *out, const struct promex_metric *m,
			   const struct stat_line *info)
{
	struct pmx_obj o = { 0 };

	return pmx_emit(c, out, m, &o, info, NULL, 0);
}

/* Moves the cursor to the next metric (or scope). */
static void pmx_next_metric(struct promex_cursor *c, const struct promex_metric *tbl, size_t n)
{
	c->m++;
	c->started = 0;
	if (c->m < n && (tbl[c->m].flags & PROMEX_F_NOHDR))
		return; /* same metric name: HELP and TYPE only once */
	c->hdr = 0;
	if (c->m >= n) {
		c->m = 0;
		c->scope++;
	}
}

struct promex_cursor *promex_cursor_new(int flags)
{
	struct promex_cursor *c = calloc(1, sizeof(*c));

	if (c)
		c->flags = flags;
	return c;
}

void promex_cursor_free(struct promex_cursor *c)
{
	free(c);
}

int promex_dump(struct promex_cursor *c, struct buf *out)
{
	struct stat_line info;
	bool have_info = false;

	while (c->scope < PMX_END) {
		size_t n;
		const struct promex_metric *tbl = pmx_table(c->scope, &n), *m;
		int ret;

		if (!(c->flags & pmx_scope_flag(c->scope)) || c->m >= n) {
			c->scope++;
			c->m = 0;
			c->hdr = 0;
			c->started = 0;
			continue;
		}
		m = &tbl[c->m];
		if (!c->started)
			c->field = c->scope == PMX_GLOBAL
					   ? pmx_field_idx(info_fields, INF_NFIELDS, m->field)
					   : pmx_field_idx(stat_cols, ST_NCOLS, m->field);
		switch (c->scope) {
		case PMX_GLOBAL:
			if (!have_info) {
				stats_fill_info(&info);
				have_info = true;
			}
			ret = pmx_dump_global(c, out, m, &info);
			break;
		case PMX_FRONT:
		case PMX_BACK:
			ret = pmx_dump_px(c, out, m);
			break;
		case PMX_SERVER:
			ret = pmx_dump_srv(c, out, m);
			break;
		default:
			ret = pmx_dump_st(c, out, m);
			break;
		}
		if (ret < 0)
			return 0;
		pmx_next_metric(c, tbl, n);
	}
	return 1;
}

/* ---- the service ---- */

/* The query string of the request target <uri> (after '?', before '#'), or an empty view. */
static struct ist pmx_query(struct ist uri)
{
	const char *q = memchr(uri.ptr, '?', uri.len), *end;

	if (!q)
		return ist2(uri.ptr + uri.len, 0);
	q++;
	end = memchr(q, '#', (size_t)(uri.ptr + uri.len - q));
	return ist2(q, (size_t)((end ? end : uri.ptr + uri.len) - q));
}

/* HAProxy's answer to a bad scope: its 400 page. */
static const char pmx_400[] = "<html><body><h1>400 Bad request</h1>\n"
			      "Your browser sent an invalid request.\n"
			      "</body></html>\n";

/* Reads the filters; a bad one gets the 400 page, else the metrics follow. Loop thread. */
static int pmx_start(struct svc_ctx *ctx, struct buf *hdrs)
{
	struct ist q = pmx_query(ctx->strm->req.uri);
	int flags = promex_parse_query(q.ptr, q.len);

	if (flags < 0) {
		ctx->status = 400;
		ctx->st = -1; /* dump writes the page */
		return svc_printf(hdrs, "cache-control: no-cache\r\ncontent-type: text/html\r\n");
	}
	ctx->priv = promex_cursor_new(flags);
	if (!ctx->priv)
		return -1;
	return svc_printf(hdrs,
			  "cache-control: no-cache\r\ncontent-type: text/plain; version=0.0.4\r\n");
}

static int pmx_dump_svc(struct svc_ctx *ctx, struct buf *out)
{
	if (ctx->st < 0)
		return svc_write(out, pmx_400, sizeof(pmx_400) - 1) < 0 ? SVC_MORE : SVC_DONE;
	return promex_dump(ctx->priv, out) ? SVC_DONE : SVC_MORE;
}

static void pmx_release(struct svc_ctx *ctx)
{
	promex_cursor_free(ctx->priv);
	ctx->priv = NULL;
}

static struct http_service promex_service = {
	.name = "prometheus-exporter",
	.start = pmx_start,
	.dump = pmx_dump_svc,
	.release = pmx_release,
};

SERVICE_REGISTER(promex_service);
