/* Per-stream log lines: the logging options (httplog, httpslog, tcplog, dontlognull,
 * dontlog-normal, log-separate-errors, logasap, log-health-checks) and the log-format,
 * log-format-sd and error-log-format keywords; their check (defaults inheritance, HAProxy
 * 2.6's warnings); the compiled line with HAProxy's separators; and the hook stream/ calls
 * at the end of each stream of a frontend that logs (or at its response headers with
 * logasap), which renders the line and hands it to log_send_px().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/atomic.h>
#include <cfg/cfg.h>
#include <conn/connection-t.h>
#include <log/log.h>
#include <log/log_strm.h>
#include <log/log_vars.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <sample/logfmt.h>
#include <sample/sample.h>
#include <stream/stream.h>

#define LOG_LINE_MAX 8192 /* rendered line; each logger cuts it to its "len" */

/* HAProxy 2.6's formats */
static const char fmt_http[] = "%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc "
			       "%ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r";
/* httpslog: the TLS fields are fetches (ssl/ssl_sample.c) and %sslv/%sslc (ssl/ssl_log.c) */
static const char fmt_https[] =
	"%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc "
	"%ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r %[fc_err]/%[ssl_fc_err,hex]/"
	"%[ssl_c_err]/%[ssl_c_ca_err]/%[ssl_fc_is_resumed] "
	"%[ssl_fc_sni]/%sslv/%sslc";
static const char fmt_clf[] =
	"%{+Q}o %{-Q}ci - - [%trg] %r %ST %B \"\" \"\" %cp %ms %ft %b %s "
	"%TR %Tw %Tc %Tr %Ta %tsc %ac %fc %bc %sc %rc %sq %bq %CC %CS %hrl %hsl";
static const char fmt_tcp[] = "%ci:%cp [%t] %ft %b/%s %Tw/%Tc/%Tt %B %ts "
			      "%ac/%fc/%bc/%sc/%rc %sq/%bq";

/* a frontend with log targets and no format: one line per request (per stream in 2.6,
 * created once its headers are in), at its start */
static const char fmt_connect[] = "Connect from %ci:%cp to %fi:%fp (%f/HTTP)";

static const char *const fmt_names[] = {
	[PXL_FMT_NONE] = "no log format",    [PXL_FMT_HTTP] = "option httplog",
	[PXL_FMT_HTTPS] = "option httpslog", [PXL_FMT_CLF] = "option httplog",
	[PXL_FMT_TCP] = "option tcplog",     [PXL_FMT_CUSTOM] = "log-format",
};

/* ---- configuration ---- */

static struct px_log *log_conf_get(struct proxy *px)
{
	if (!px->log_conf)
		px->log_conf = calloc(1, sizeof(*px->log_conf));
	return px->log_conf;
}

static int log_oom(struct cfg_ctx *ctx)
{
	cfg_alert(ctx, "out of memory.");
	return -1;
}

static int log_line_set(struct cfg_ctx *ctx, struct pxl_line *l, const char *str)
{
	char *s = str ? strdup(str) : NULL;
	char *f = strdup(ctx->file);

	if ((str && !s) || !f) {
		free(s);
		free(f);
		return log_oom(ctx);
	}
	free(l->str);
	free(l->file);
	l->str = s;
	l->file = f;
	l->line = ctx->line;
	return 0;
}

static bool log_backend_only(const struct proxy *px)
{
	return !(px->cap & (PR_CAP_FE | PR_CAP_DEF));
}

/* A format option or log-format: the last one given wins; defaults warn when one replaces
 * another, as HAProxy does. */
static int log_set_fmt(struct cfg_ctx *ctx, enum pxl_fmt fmt, const char *kw, const char *str)
{
	struct px_log *pl;

	if (log_backend_only(ctx->px)) {
		cfg_warn(ctx, "backend '%s' : '%s' directive is ignored in backends.", ctx->px->id,
			 kw);
		return 0;
	}
	pl = log_conf_get(ctx->px);
	if (!pl)
		return log_oom(ctx);
	if ((ctx->px->cap & PR_CAP_DEF) && pl->fmt_set && pl->fmt != PXL_FMT_NONE &&
	    fmt != PXL_FMT_NONE)
		cfg_warn(ctx, "'%s' overrides previous '%s' in 'defaults' section.", kw,
			 fmt_names[pl->fmt]);
	if (log_line_set(ctx, &pl->fmt_line, str) < 0)
		return -1;
	pl->fmt = (uint8_t)fmt;
	pl->fmt_set = true;
	return 0;
}

static const struct {
	const char *name;
	uint32_t bit;
} log_opt_bits[] = {
	{ "dontlognull", PXL_DONTLOGNULL },	   { "dontlog-normal", PXL_DONTLOG_NORMAL },
	{ "log-separate-errors", PXL_SEP_ERRORS }, { "logasap", PXL_LOGASAP },
	{ "log-health-checks", PXL_LOG_HCHK },
};

/* "[no] option NAME ..." for the logging options; args[a] is NAME. */
static int log_opt(struct cfg_ctx *ctx, int a, bool neg)
{
	const char *name = ctx->args[a];
	const char *arg = a + 1 < ctx->nargs ? ctx->args[a + 1] : NULL;
	struct px_log *pl;

	if (!strcmp(name, "httplog") || !strcmp(name, "httpslog") || !strcmp(name, "tcplog")) {
		enum pxl_fmt fmt = name[0] == 't'   ? PXL_FMT_TCP
				   : name[4] == 's' ? PXL_FMT_HTTPS
						    : PXL_FMT_HTTP;
		char kw[32];

		if (arg && fmt == PXL_FMT_HTTP && !strcmp(arg, "clf")) {
			fmt = PXL_FMT_CLF;
			arg = a + 2 < ctx->nargs ? ctx->args[a + 2] : NULL;
		}
		if (arg) {
			cfg_alert(ctx, "'option %s' %s.", name,
				  fmt == PXL_FMT_HTTP ? "only supports the 'clf' option"
						      : "does not take any argument");
			return -1;
		}
		snprintf(kw, sizeof(kw), "option %s", name);
		return log_set_fmt(ctx, neg ? PXL_FMT_NONE : fmt, kw, NULL);
	}
	if (arg) {
		cfg_alert(ctx, "'option %s' does not take any argument.", name);
		return -1;
	}
	for (size_t i = 0; i < sizeof(log_opt_bits) / sizeof(log_opt_bits[0]); i++) {
		if (strcmp(name, log_opt_bits[i].name) != 0)
			continue;
		pl = log_conf_get(ctx->px);
		if (!pl)
			return log_oom(ctx);
		pl->opts_set |= log_opt_bits[i].bit;
		if (neg)
			pl->opts &= ~log_opt_bits[i].bit;
		else
			pl->opts |= log_opt_bits[i].bit;
		return 0;
	}
	cfg_alert(ctx, "unknown option '%s'.", name);
	return -1;
}

static int log_kw_one_arg(struct cfg_ctx *ctx)
{
	if (ctx->nargs < 2) {
		cfg_alert(ctx, "'%s' expects a format string.", ctx->args[0]);
		return -1;
	}
	return proxy_cfg_max_args(ctx, 1, 1);
}

/* log-format FMT ("" : no line) */
static int log_kw_format(struct cfg_ctx *ctx)
{
	if (log_kw_one_arg(ctx) < 0)
		return -1;
	return log_set_fmt(ctx, *ctx->args[1] ? PXL_FMT_CUSTOM : PXL_FMT_NONE, "log-format",
			   ctx->args[1]);
}

/* log-format-sd FMT, error-log-format FMT */
static int log_kw_other(struct cfg_ctx *ctx)
{
	bool sd = !strcmp(ctx->args[0], "log-format-sd");
	struct px_log *pl;

	if (log_kw_one_arg(ctx) < 0)
		return -1;
	if (log_backend_only(ctx->px)) {
		cfg_warn(ctx, "backend '%s' : '%s' directive is ignored in backends.", ctx->px->id,
			 ctx->args[0]);
		return 0;
	}
	pl = log_conf_get(ctx->px);
	if (!pl)
		return log_oom(ctx);
	return log_line_set(ctx, sd ? &pl->sd : &pl->err, ctx->args[1]);
}

static const struct cfg_kw log_strm_kws[] = {
	{ "log-format", CFG_SEC_PROXIES, log_kw_format },
	{ "log-format-sd", CFG_SEC_PROXIES, log_kw_other },
	{ "error-log-format", CFG_SEC_PROXIES, log_kw_other },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(log_strm_kws);

/* ---- check ---- */

/* The section <px> inherits its format from: itself or its defaults chain; NULL if none */
static const struct px_log *log_fmt_owner(const struct proxy *px)
{
	for (; px; px = px->defpx)
		if (px->log_conf && px->log_conf->fmt_set)
			return px->log_conf;
	return NULL;
}

static const struct pxl_line *log_sd_owner(const struct proxy *px)
{
	for (; px; px = px->defpx)
		if (px->log_conf && px->log_conf->sd.str)
			return &px->log_conf->sd;
	return NULL;
}

static uint32_t log_opts_of(const struct proxy *px)
{
	uint32_t known = 0, opts = 0;

	for (; px; px = px->defpx) {
		const struct px_log *pl = px->log_conf;

		if (!pl)
			continue;
		opts |= pl->opts & pl->opts_set & ~known;
		known |= pl->opts_set;
	}
	return opts;
}

uint32_t log_px_opts(const struct proxy *px)
{
	return log_opts_of(px);
}

static int log_compile(struct proxy *px, struct logline_fmt *f, const char *str, const char *file,
		       int line)
{
	struct smp_parse_ctx pc = { file, line, px, SMP_VAL_LOG_END, "log-format" };
	char err[256];

	if (log_fmt_compile(f, str, &pc, err, sizeof(err)) == 0)
		return 0;
	ha_alert("Parsing [%s:%d]: failed to parse log-format : %s.", file, line, err);
	return 1;
}

static void log_strm_hook(struct stream *s, int ev);

/* A frontend without a format logs "Connect from" when it has log targets (HTTP mode:
 * TCP is refused for now). */
static int log_connect_check(struct proxy *px)
{
	struct px_log *pl;

	if (list_empty(&px->loggers) || px->mode != PR_MODE_HTTP)
		return 0;
	pl = log_conf_get(px);
	if (!pl) {
		ha_alert("out of memory.");
		return 1;
	}
	if (log_compile(px, &pl->line, fmt_connect, px->file ? px->file : "", px->line))
		return 1;
	pl->connect_line = true;
	px->strm_log = pl;
	stream_log_hook = log_strm_hook;
	return 0;
}

static int log_strm_check_px(struct proxy *px)
{
	const struct px_log *own = log_fmt_owner(px);
	const struct pxl_line *sd;
	enum pxl_fmt fmt = own ? (enum pxl_fmt)own->fmt : PXL_FMT_NONE;
	const char *str;
	struct px_log *pl;

	if (fmt == PXL_FMT_NONE)
		return log_connect_check(px);
	if (px->mode != PR_MODE_HTTP && fmt != PXL_FMT_TCP && fmt != PXL_FMT_CUSTOM) {
		ha_warning("parsing [%s:%d] : '%s' not usable with frontend '%s' (needs 'mode "
			   "http'). Falling back to 'option tcplog'.",
			   own->fmt_line.file, own->fmt_line.line, fmt_names[fmt], px->id);
		fmt = PXL_FMT_TCP;
	}
	if (list_empty(&px->loggers)) {
		ha_warning("log format ignored for frontend '%s' since it has no log address.",
			   px->id);
		return 0;
	}
	pl = log_conf_get(px);
	if (!pl) {
		ha_alert("out of memory.");
		return 1;
	}
	str = fmt == PXL_FMT_HTTP    ? fmt_http
	      : fmt == PXL_FMT_HTTPS ? fmt_https
	      : fmt == PXL_FMT_CLF   ? fmt_clf
	      : fmt == PXL_FMT_TCP   ? fmt_tcp
				     : own->fmt_line.str;
	if (log_compile(px, &pl->line, str, own->fmt_line.file, own->fmt_line.line))
		return 1;
	sd = log_sd_owner(px);
	if (sd && log_compile(px, &pl->sdfmt, sd->str, sd->file, sd->line))
		return 1;
	pl->eff_opts = log_opts_of(px);
	pl->fast_http = fmt == PXL_FMT_HTTP;
	px->strm_log = pl;
	stream_log_hook = log_strm_hook;
	return 0;
}

int log_strm_check_all(void)
{
	int errs = 0;

	for (struct proxy *px = proxies; px; px = px->next) {
		if (px->cap & PR_CAP_FE)
			errs += log_strm_check_px(px);
		if (px->cap & PR_CAP_BE)
			px->log_hchk = (log_opts_of(px) & PXL_LOG_HCHK) != 0;
	}
	return errs;
}

static void log_line_free(struct pxl_line *l)
{
	free(l->str);
	free(l->file);
}

static void log_strm_free(struct proxy *px)
{
	struct px_log *pl = px->log_conf;

	if (!pl)
		return;
	log_line_free(&pl->fmt_line);
	log_line_free(&pl->sd);
	log_line_free(&pl->err);
	log_fmt_free(&pl->line);
	log_fmt_free(&pl->sdfmt);
	free(pl);
	px->log_conf = NULL;
	px->strm_log = NULL;
}

__attribute__((constructor)) static void log_strm_init(void)
{
	proxy_logopt_hook = log_opt;
	proxy_strm_log_free_hook = log_strm_free;
}

/* ---- run time ---- */

/* HAProxy's "not normal" stream: ended by anything but a normal or local end, retried
 * or redispatched, or answered with a 5xx. */
static bool log_strm_is_err(const struct stream *s)
{
	int st = s->status ? s->status : s->rsp.status;

	return (s->term[0] && s->term[0] != 'L') || s->redisp || s->retries || st >= 500;
}

static _Thread_local char log_buf[LOG_LINE_MAX];
static _Thread_local char log_sd_buf[LOG_LINE_MAX / 4];

#define LOG_URI_MAX 1024 /* bytes of the target kept for %r (tune.http.logurilen) */

/* Keeps the request line for %r in the stream's rewrite buffer (the request's own bytes
 * leave with it). Nothing when memory is short: %r then shows what remains. */
static void log_keep_reqline(struct stream *s)
{
	struct ist m = s->req.meth, u = s->req.uri;
	size_t room, n;
	char *p;

	if (u.len > LOG_URI_MAX)
		u.len = LOG_URI_MAX;
	p = stream_rw_tail(s, &room);
	n = m.len + 1 + u.len + 9;
	if (!p || room < n)
		return;
	memcpy(p, m.ptr, m.len);
	p[m.len] = ' ';
	memcpy(p + m.len + 1, u.ptr, u.len);
	memcpy(p + m.len + 1 + u.len, (s->req.flags & H1_MF_VER_11) ? " HTTP/1.1" : " HTTP/1.0", 9);
	stream_rw_commit(s, n);
	s->log_rline = ist2(p, n);
}

/* The stream's line, at its end or at its response headers under logasap; once per
 * stream. Loop thread. */
static void log_strm_hook(struct stream *s, int ev)
{
	bool at_end = ev == STRM_LOG_EV_END;

	const struct px_log *pl = s->fe->strm_log;
	struct smp_ctx ctx = { s, s->front, s->fe, SMP_OPT_DIR_RES | SMP_OPT_FINAL };
	struct ist sd = ist2("", 0);
	bool err;
	int level;
	size_t len;

	log_stream_number(s);
	if (unlikely(pl->connect_line)) {
		if (ev == STRM_LOG_EV_REQ) {
			len = log_fmt_render(&pl->line, &ctx, log_buf, sizeof(log_buf));
			log_send_px(s->fe, LOG_LVL_INFO, log_buf, len, sd);
		}
		return;
	}
	if (ev == STRM_LOG_EV_REQ) {
		log_keep_reqline(s);
		return;
	}
	if (s->flags & SF_LOGGED)
		return;
	if (!at_end && !(pl->eff_opts & PXL_LOGASAP))
		return;
	s->flags |= SF_LOGGED;
	if (s->log_level == STRM_LOG_SILENT)
		return;
	if ((pl->eff_opts & PXL_DONTLOGNULL) && !s->front->bytes_in)
		return;
	err = log_strm_is_err(s);
	if (!err && (pl->eff_opts & PXL_DONTLOG_NORMAL))
		return;
	level = err && (pl->eff_opts & PXL_SEP_ERRORS) ? LOG_LVL_ERR : LOG_LVL_INFO;
	if (s->log_level != STRM_LOG_UNSET)
		level = s->log_level - 1;
	log_rctx_set(s, !at_end);
	log_rctx.lc = HA_ATOMIC_FETCH_ADD(&s->fe->strm_log->nb_lines, 1);
	len = pl->fast_http ? log_httplog_render(&ctx, log_buf, sizeof(log_buf)) : SIZE_MAX;
	if (len == SIZE_MAX)
		len = log_fmt_render(&pl->line, &ctx, log_buf, sizeof(log_buf));
	if (pl->sdfmt.nb)
		sd = ist2(log_sd_buf,
			  log_fmt_render(&pl->sdfmt, &ctx, log_sd_buf, sizeof(log_sd_buf)));
	log_rctx.strm = NULL;
	log_send_px(s->fe, level, log_buf, len, sd);
}
