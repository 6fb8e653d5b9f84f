/* The proxy sections ("defaults", "frontend", "backend", "listen") and their general
 * keywords: mode, timeouts (and the 1.x contimeout/clitimeout/srvtimeout), retries,
 * maxconn, backlog, default_backend, use_backend, monitor-uri, errorfile, log,
 * and the well-known keywords not implemented yet, refused with a reason. "option" lives in
 * proxy_option.c, "bind" in conn/bind_cfg.c, "server" in backend/server_cfg.c, "balance"
 * and "hash-type" in stream/lb_cfg.c and the http-request/http-response rules in
 * stream/http_act_cfg.c.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/parse.h>
#include <cfg/cfg.h>
#include <conn/bind_cfg.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>

/* Largest errorfile accepted: it must fit in one buffer (tune.bufsize default). */
#define ERRORFILE_MAX 16384

bool proxy_cfg_has_cap(struct cfg_ctx *ctx, uint32_t cap, const char *kw)
{
	const struct proxy *px = ctx->px;

	if (!px || (px->cap & (PR_CAP_DEF | cap)))
		return true;
	cfg_warn(ctx, "'%s' ignored because %s '%s' has no %s capability.", kw,
		 proxy_type_str(px), px->id, cap == PR_CAP_FE ? "frontend" : "backend");
	return false;
}

bool proxy_cfg_in_defaults(struct cfg_ctx *ctx, const char *kw)
{
	if (ctx->section != CFG_SEC_DEFAULTS)
		return false;
	cfg_alert(ctx, "'%s' not allowed in 'defaults' section.", kw);
	return true;
}

int proxy_cfg_max_args(struct cfg_ctx *ctx, int skip, int max)
{
	if (ctx->nargs - skip <= max)
		return 0;
	cfg_alert(ctx, "'%s' cannot handle unexpected argument '%s'.", ctx->args[0],
		  ctx->args[skip + max]);
	return -1;
}

int proxy_cfg_later(struct cfg_ctx *ctx, const char *what, const char *why)
{
	cfg_alert(ctx, "'%s' is not supported yet (%s)", what, why);
	return -1;
}

int proxy_cfg_time(struct cfg_ctx *ctx, const char *kw, const char *s, int *ms)
{
	const char *bad;
	int v = 0;

	bad = parse_time_ms(s, 1, &v);
	if (!bad) {
		*ms = v;
		return 0;
	}
	if (v == -1)
		cfg_alert(ctx, "timer overflow in argument '%s' to '%s', maximum value is "
			  "2147483647 ms (~24.8 days).", s, kw);
	else if (bad == s)
		cfg_alert(ctx, "'%s' expects <time> as argument, got '%s'.", kw, s);
	else
		cfg_alert(ctx, "unexpected character '%c' in '%s'", *bad, kw);
	return -1;
}

int proxy_cfg_int(struct cfg_ctx *ctx, const char *kw, const char *s, long min, long max,
		  long *out)
{
	if (parse_long(s, min, max, out) == 0)
		return 0;
	if (min == LONG_MIN && max == LONG_MAX)
		cfg_alert(ctx, "'%s' expects an integer argument, got '%s'.", kw, s);
	else
		cfg_alert(ctx, "'%s' expects an integer argument between %ld and %ld, got '%s'.", kw,
			  min, max, s);
	return -1;
}

/* Section names: HAProxy allows letters, digits and '-', '_', '.', ':'. */
static bool pxcfg_name_valid(struct cfg_ctx *ctx, const char *name)
{
	const char *p;

	for (p = name; *p; p++) {
		if (isalnum((unsigned char)*p) || strchr("-_.:", *p))
			continue;
		cfg_alert(ctx, "character '%c' is not permitted in '%s' name '%s'.", *p,
			  ctx->args[0], name);
		return false;
	}
	return true;
}

/* Section line: "defaults [NAME] [from DEF]", "frontend|backend NAME [from DEF]",
 * "listen NAME [ADDR[,ADDR...]] [from DEF]". Creates the proxy and makes it current. On a
 * bad line the proxy is still created (from the built-in defaults) so that the following
 * lines land somewhere sane; the error is reported and counted.
 */
static int pxcfg_section_begin(struct cfg_ctx *ctx, uint32_t cap)
{
	const char *name = NULL, *from = NULL, *addrs = NULL;
	struct proxy *defpx = NULL;
	int err = 0, i;

	for (i = 1; i < ctx->nargs; i++) {
		if (strcmp(ctx->args[i], "from") == 0 && i + 1 < ctx->nargs && !from) {
			from = ctx->args[++i];
		} else if (!name && !(cap & PR_CAP_DEF && from)) {
			name = ctx->args[i];
		} else if (!addrs && cap == (PR_CAP_FE | PR_CAP_BE)) {
			addrs = ctx->args[i];
		} else {
			cfg_alert(ctx, "'%s' cannot handle unexpected argument '%s'.", ctx->args[0],
				  ctx->args[i]);
			err = -1;
		}
	}
	if (!name && !(cap & PR_CAP_DEF)) {
		cfg_alert(ctx, "'%s' expects <name> as an argument.", ctx->args[0]);
		name = "";
		err = -1;
	} else if (name && !pxcfg_name_valid(ctx, name)) {
		err = -1;
	}
	if (from) {
		defpx = proxy_defaults_find(from);
		if (!defpx) {
			cfg_alert(ctx, "defaults section '%s' not found for %s '%s'.", from,
				  ctx->args[0], name ? name : "");
			err = -1;
		}
	} else if (!(cap & PR_CAP_DEF)) {
		defpx = proxy_defaults_last();
	}
	ctx->px = proxy_new(name, cap, ctx->file, ctx->line, defpx);
	if (!ctx->px) {
		cfg_alert(ctx, "out of memory while creating %s '%s'.", ctx->args[0], name ? name : "");
		return -1;
	}
	if (addrs && bind_cfg_add_addrs(ctx, ctx->px, addrs) < 0)
		err = -1;
	return err;
}

static int pxcfg_begin_defaults(struct cfg_ctx *ctx)
{
	return pxcfg_section_begin(ctx, PR_CAP_DEF);
}

static int pxcfg_begin_frontend(struct cfg_ctx *ctx)
{
	return pxcfg_section_begin(ctx, PR_CAP_FE);
}

static int pxcfg_begin_backend(struct cfg_ctx *ctx)
{
	return pxcfg_section_begin(ctx, PR_CAP_BE);
}

static int pxcfg_begin_listen(struct cfg_ctx *ctx)
{
	return pxcfg_section_begin(ctx, PR_CAP_FE | PR_CAP_BE);
}

static const struct cfg_section pxcfg_sections[] = {
	{ "defaults", CFG_SEC_DEFAULTS, pxcfg_begin_defaults },
	{ "frontend", CFG_SEC_FRONTEND, pxcfg_begin_frontend },
	{ "backend", CFG_SEC_BACKEND, pxcfg_begin_backend },
	{ "listen", CFG_SEC_LISTEN, pxcfg_begin_listen },
};

__attribute__((constructor)) static void pxcfg_register_sections(void)
{
	size_t i;

	for (i = 0; i < sizeof(pxcfg_sections) / sizeof(pxcfg_sections[0]); i++)
		cfg_register_section(&pxcfg_sections[i]);
}

/* mode http|tcp|health */
static int pxcfg_mode(struct cfg_ctx *ctx)
{
	const char *m = ctx->nargs > 1 ? ctx->args[1] : "";

	if (!ctx->px || proxy_cfg_max_args(ctx, 1, 1) < 0)
		return -1;
	if (strcmp(m, "http") == 0) {
		ctx->px->mode = PR_MODE_HTTP;
		return 0;
	}
	if (strcmp(m, "tcp") == 0) {
		ctx->px->mode = PR_MODE_TCP;
		return 0;
	}
	if (strcmp(m, "health") == 0) {
		cfg_alert(ctx, "'mode health' doesn't exist anymore. Please use "
			  "'http-request return status 200' instead.");
		return -1;
	}
	cfg_alert(ctx, "unknown proxy mode '%s'.", m);
	return -1;
}

/* One "timeout" name: where it is stored and which side it belongs to. */
struct pxcfg_timeout {
	const char *name;
	size_t offset;            /* in struct proxy_timeouts */
	uint32_t cap;
};

#define PXT(n, f, c) { n, offsetof(struct proxy_timeouts, f), c }
static const struct pxcfg_timeout pxcfg_timeouts[] = {
	PXT("client", client, PR_CAP_FE),
	PXT("server", server, PR_CAP_BE),
	PXT("connect", connect, PR_CAP_BE),
	PXT("http-request", http_request, PR_CAP_FE),
	PXT("http-keep-alive", http_keep_alive, PR_CAP_FE),
	PXT("queue", queue, PR_CAP_BE),
	PXT("tunnel", tunnel, PR_CAP_BE),
	PXT("tarpit", tarpit, PR_CAP_FE | PR_CAP_BE),
	PXT("client-fin", client_fin, PR_CAP_FE),
	PXT("client-hs", client_hs, PR_CAP_FE),
	PXT("server-fin", server_fin, PR_CAP_BE),
	PXT("check", check, PR_CAP_BE),
	{ NULL, 0, 0 },
};

static const struct pxcfg_timeout *pxcfg_timeout_find(const char *name)
{
	const struct pxcfg_timeout *t;

	for (t = pxcfg_timeouts; t->name; t++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

/* Sets timeout <t> from ctx->args[<arg>]; <kw> names the directive in messages. */
static int pxcfg_set_timeout(struct cfg_ctx *ctx, const struct pxcfg_timeout *t, int arg,
			     const char *kw)
{
	int ms;

	if (arg >= ctx->nargs || !*ctx->args[arg]) {
		cfg_alert(ctx, "'%s' expects an integer value (in milliseconds)", kw);
		return -1;
	}
	if (proxy_cfg_max_args(ctx, arg, 1) < 0 || proxy_cfg_time(ctx, kw, ctx->args[arg], &ms) < 0)
		return -1;
	if (!proxy_cfg_has_cap(ctx, t->cap, kw))
		return 0;
	*(int *)((char *)&ctx->px->timeout + t->offset) = ms;
	return 0;
}

/* timeout NAME VALUE */
static int pxcfg_timeout(struct cfg_ctx *ctx)
{
	const char *name = ctx->nargs > 1 ? ctx->args[1] : "";
	const struct pxcfg_timeout *t;
	char kw[64];

	if (!ctx->px)
		return -1;
	t = pxcfg_timeout_find(name);
	if (!t) {
		cfg_alert(ctx, "'timeout' supports 'client', 'server', 'connect', 'check', 'queue', "
			  "'http-keep-alive', 'http-request', 'tunnel', 'tarpit', 'client-fin' and "
			  "'server-fin' (got '%s')", name);
		return -1;
	}
	snprintf(kw, sizeof(kw), "timeout %s", name);
	return pxcfg_set_timeout(ctx, t, 2, kw);
}

/* contimeout/clitimeout/srvtimeout VALUE: HAProxy 1.x names, mapped with a warning. */
static int pxcfg_old_timeout(struct cfg_ctx *ctx)
{
	const char *name = !strcmp(ctx->args[0], "contimeout") ? "connect" :
			   !strcmp(ctx->args[0], "clitimeout") ? "client" : "server";

	if (!ctx->px)
		return -1;
	cfg_warn(ctx, "the '%s' directive is deprecated (removed in HAProxy 2.1); it is mapped "
		 "to 'timeout %s'. Please use 'timeout %s' instead.", ctx->args[0], name, name);
	return pxcfg_set_timeout(ctx, pxcfg_timeout_find(name), 1, ctx->args[0]);
}

/* Parses "KW N" with N in [min, max] into *out when the proxy has <cap>. */
static int pxcfg_int(struct cfg_ctx *ctx, uint32_t cap, long min, long max, int *out)
{
	long v;

	if (!ctx->px || cfg_need_args(ctx, 1) < 0 ||
	    cfg_parse_int_arg(ctx, ctx->args[1], min, max, &v) < 0)
		return -1;
	if (!proxy_cfg_has_cap(ctx, cap, ctx->args[0]))
		return 0;
	*out = (int)v;
	return 0;
}

static int pxcfg_retries(struct cfg_ctx *ctx)
{
	return pxcfg_int(ctx, PR_CAP_BE, 0, INT_MAX, ctx->px ? &ctx->px->retries : NULL);
}

static int pxcfg_maxconn(struct cfg_ctx *ctx)
{
	if (ctx->px && !(ctx->px->cap & (PR_CAP_DEF | PR_CAP_FE))) {
		cfg_warn(ctx, "'maxconn' ignored because %s '%s' has no frontend capability. "
			 "Maybe you want 'fullconn' instead ?", proxy_type_str(ctx->px),
			 ctx->px->id);
		return 0;
	}
	return pxcfg_int(ctx, PR_CAP_FE, 0, INT_MAX, ctx->px ? &ctx->px->maxconn : NULL);
}

/* rate-limit sessions <rate>: new sessions per second on this frontend. */
static int pxcfg_rate_limit(struct cfg_ctx *ctx)
{
	long v;

	if (!ctx->px)
		return -1;
	if (ctx->nargs != 3 || strcmp(ctx->args[1], "sessions") != 0) {
		cfg_alert(ctx, "'%s' expects 'sessions' followed by a rate per second.",
			  ctx->args[0]);
		return -1;
	}
	if (cfg_parse_int_arg(ctx, ctx->args[2], 0, INT_MAX, &v) < 0)
		return -1;
	if (!proxy_cfg_has_cap(ctx, PR_CAP_FE, ctx->args[0]))
		return 0;
	ctx->px->sess_rate_lim = (int)v;
	return 0;
}

static int pxcfg_backlog(struct cfg_ctx *ctx)
{
	return pxcfg_int(ctx, PR_CAP_FE, 0, INT_MAX, ctx->px ? &ctx->px->backlog : NULL);
}

static int pxcfg_default_backend(struct cfg_ctx *ctx)
{
	char *name;

	if (!ctx->px || !proxy_cfg_has_cap(ctx, PR_CAP_FE, "default_backend"))
		return ctx->px ? 0 : -1;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'default_backend' expects a backend name.");
		return -1;
	}
	if (proxy_cfg_max_args(ctx, 1, 1) < 0)
		return -1;
	name = strdup(ctx->args[1]);
	if (!name)
		return cfg_alert(ctx, "out of memory."), -1;
	free(ctx->px->defbe_name);
	ctx->px->defbe_name = name;
	return 0;
}

static int pxcfg_monitor_uri(struct cfg_ctx *ctx)
{
	if (!ctx->px || !proxy_cfg_has_cap(ctx, PR_CAP_FE, "monitor-uri"))
		return ctx->px ? 0 : -1;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'monitor-uri' expects an URI.");
		return -1;
	}
	if (proxy_cfg_max_args(ctx, 1, 1) < 0)
		return -1;
	if (proxy_ist_set(&ctx->px->monitor_uri, ctx->args[1]) < 0)
		return cfg_alert(ctx, "out of memory."), -1;
	return 0;
}

/* Checks that msg[0..len) looks like a complete HTTP/1 response head: a status line and
 * "name: value" header lines up to an empty line. Returns -1 or the offset of the error.
 */
static long pxcfg_errorfile_check(const char *msg, size_t len)
{
	size_t pos = 0, eol;
	const char *nl;

	if (len < 12 || memcmp(msg, "HTTP/1.", 7) != 0 || !isdigit((unsigned char)msg[9]) ||
	    !isdigit((unsigned char)msg[10]) || !isdigit((unsigned char)msg[11]))
		return 0;
	for (;;) {
		nl = memchr(msg + pos, '\n', len - pos);
		if (!nl)
			return (long)pos;
		eol = nl - msg;
		if (eol > pos && msg[eol - 1] == '\r')
			eol--;
		if (eol == pos)
			return -1; /* empty line: end of headers */
		if (pos && !memchr(msg + pos, ':', eol - pos))
			return (long)pos;
		pos = nl - msg + 1;
	}
}

/* Reads <path> into a new buffer (*len bytes). Returns it, or NULL with errno set. */
static char *pxcfg_read_file(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;

	if (!f)
		return NULL;
	buf = malloc(max + 1);
	if (!buf) {
		fclose(f);
		errno = ENOMEM;
		return NULL;
	}
	*len = fread(buf, 1, max + 1, f);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	return buf;
}

/* Status codes an errorfile may replace: the pages HAProxy has. */
static const int pxcfg_err_codes[] = { 200, 400, 401, 403, 404, 405, 407, 408, 410, 413, 425,
				       429, 500, 501, 502, 503, 504, 0 };

bool proxy_cfg_err_code_ok(long code)
{
	for (int i = 0; pxcfg_err_codes[i]; i++)
		if (pxcfg_err_codes[i] == code)
			return true;
	return false;
}

int proxy_cfg_read_errorfile(struct cfg_ctx *ctx, const char *kw, const char *code_s,
			     const char *path, int *status, char **out, size_t *outlen)
{
	size_t len;
	long off;
	char *msg;
	long code;

	if (parse_long(code_s, 0, 999, &code) < 0)
		code = 0;
	if (!proxy_cfg_err_code_ok(code)) {
		cfg_alert(ctx, "%s : status code '%s' not handled.", kw, code_s);
		return -1;
	}
	msg = pxcfg_read_file(path, ERRORFILE_MAX, &len);
	if (!msg) {
		cfg_alert(ctx, "%s : error opening file '%s' (%s).", kw, path, strerror(errno));
		return -1;
	}
	if (len > ERRORFILE_MAX) {
		cfg_alert(ctx, "%s : '%s': file too large (max %d bytes).", kw, path,
			  ERRORFILE_MAX);
		free(msg);
		return -1;
	}
	/* an empty file (/dev/null) means: close without an answer, as in HAProxy */
	off = len ? pxcfg_errorfile_check(msg, len) : -1;
	if (off >= 0) {
		cfg_alert(ctx, "%s : '%s': unable to parse headers (error offset: %ld); it "
			  "must hold a complete HTTP response.", kw, path, off);
		free(msg);
		return -1;
	}
	*status = (int)code;
	*out = msg;
	*outlen = len;
	return 0;
}

/* errorfile CODE FILE */
static int pxcfg_errorfile(struct cfg_ctx *ctx)
{
	size_t len;
	char *msg;
	int code, i;

	if (!ctx->px)
		return -1;
	if (ctx->nargs < 3) {
		cfg_alert(ctx, "errorfile : expects <status_code> and <file> as arguments.");
		return -1;
	}
	if (proxy_cfg_max_args(ctx, 1, 2) < 0)
		return -1;
	if (proxy_cfg_read_errorfile(ctx, "errorfile", ctx->args[1], ctx->args[2], &code, &msg,
				     &len) < 0)
		return -1;
	i = proxy_set_errorfile(ctx->px, code, msg, len);
	free(msg);
	if (i < 0)
		return cfg_alert(ctx, "out of memory."), -1;
	return 0;
}

/* http-reuse never|safe|aggressive|always: which requests may use an idle server
 * connection (stream.c, stream_may_reuse). */
static int pxcfg_http_reuse(struct cfg_ctx *ctx)
{
	static const char *const modes[] = {
		[PR_REUSE_SAFE] = "safe", [PR_REUSE_NEVER] = "never",
		[PR_REUSE_AGGR] = "aggressive", [PR_REUSE_ALWAYS] = "always",
	};

	if (!ctx->px || cfg_need_args(ctx, 1) < 0)
		return -1;
	if (!proxy_cfg_has_cap(ctx, PR_CAP_BE, "http-reuse"))
		return 0;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (!strcmp(ctx->args[1], modes[i])) {
			ctx->px->http_reuse = (uint8_t)i;
			return 0;
		}
	}
	cfg_alert(ctx, "'http-reuse' only supports 'never', 'safe', 'aggressive', 'always'");
	return -1;
}

/* "description" is informative only. */
static int pxcfg_description(struct cfg_ctx *ctx)
{
	return 0;
}

/* HAProxy keywords not implemented yet, each with the reason given to the user. */
struct pxcfg_later {
	const char *name;
	const char *why;
};

static const struct pxcfg_later pxcfg_later_kws[] = {
	{ "acl", "ACLs need the ACL engine, which is not implemented yet" },
	{ "email-alert", "email alerts are not implemented yet" },
	{ "monitor-net", "monitor-net was removed in HAProxy 2.0; use 'monitor-uri'" },
	{ "bind-process", "nbproc was removed in HAProxy 2.5; use 'thread' on 'bind' lines" },
	{ "id", "numeric proxy ids are not implemented yet" },
	{ "disabled", "disabled proxies are not implemented yet" },
	{ "enabled", "disabled proxies are not implemented yet" },
	{ "max-keep-alive-queue", "max-keep-alive-queue is not implemented yet" },
	{ "guid", "guids are not implemented yet" },
	{ "appsession", "removed in HAProxy 1.6; use 'cookie'" },
	{ NULL, NULL },
};

static int pxcfg_later(struct cfg_ctx *ctx)
{
	const struct pxcfg_later *l;

	for (l = pxcfg_later_kws; l->name; l++)
		if (strcmp(l->name, ctx->args[0]) == 0)
			return cfg_not_supported(ctx, l->why);
	return cfg_not_supported(ctx, "it is not implemented yet");
}

#define PXS CFG_SEC_PROXIES
static const struct cfg_kw pxcfg_kws[] = {
	{ "mode", PXS, pxcfg_mode },
	{ "timeout", PXS, pxcfg_timeout },
	{ "contimeout", PXS, pxcfg_old_timeout },
	{ "clitimeout", PXS, pxcfg_old_timeout },
	{ "srvtimeout", PXS, pxcfg_old_timeout },
	{ "retries", PXS, pxcfg_retries },
	{ "maxconn", PXS, pxcfg_maxconn },
	{ "backlog", PXS, pxcfg_backlog },
	{ "default_backend", PXS, pxcfg_default_backend },
	{ "monitor-uri", PXS, pxcfg_monitor_uri },
	{ "errorfile", PXS, pxcfg_errorfile },
	{ "http-reuse", PXS, pxcfg_http_reuse },
	{ "description", PXS, pxcfg_description },
	{ "acl", PXS, pxcfg_later },
	{ "email-alert", PXS, pxcfg_later },
	{ "monitor-net", PXS, pxcfg_later },
	{ "rate-limit", PXS, pxcfg_rate_limit },
	{ "bind-process", PXS, pxcfg_later },
	{ "id", PXS, pxcfg_later },
	{ "disabled", PXS, pxcfg_later },
	{ "enabled", PXS, pxcfg_later },
	{ "max-keep-alive-queue", PXS, pxcfg_later },
	{ "guid", PXS, pxcfg_later },
	{ "appsession", PXS, pxcfg_later },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(pxcfg_kws);
