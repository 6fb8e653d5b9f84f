/* The "global" section: defines `struct global` with its defaults, registers the section
 * and its keywords (process settings, tune.*, environment edits), and refuses, with the
 * reason, the HAProxy global keywords that later issues implement. Applying the settings
 * (daemon, limits, buffers) is done by their owners, not here.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <base/compiler.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <proc/global-t.h>

struct global global = {
	.nbthread = 1,
	.tune_bufsize = 16384,
	.tune_maxrewrite = 1024,
	.tune_maxhdr = 101,
	.tune_maxpollevents = 200,
	.tune_maxaccept = 64,
};

/* tune.maxrewrite as written; the effective value is capped at half of tune.bufsize
 * whichever of the two keywords comes last.
 */
static uint32_t global_maxrewrite_req = 1024;

extern char **environ;

static int global_begin(struct cfg_ctx *ctx)
{
	return 0;
}

static const struct cfg_section global_section = { "global", CFG_SEC_GLOBAL, global_begin };

static int global_flag(struct cfg_ctx *ctx, bool *flag)
{
	if (cfg_need_args(ctx, 0) < 0)
		return -1;
	*flag = true;
	return 0;
}

static int global_daemon(struct cfg_ctx *ctx)
{
	return global_flag(ctx, &global.daemon);
}

static int global_quiet(struct cfg_ctx *ctx)
{
	return global_flag(ctx, &global.quiet);
}

static int global_zero_warning(struct cfg_ctx *ctx)
{
	return global_flag(ctx, &global.warn_fatal);
}

static int global_h1_payload(struct cfg_ctx *ctx)
{
	return global_flag(ctx, &global.h1_accept_payload_any_method);
}

static int global_h1_keep_open(struct cfg_ctx *ctx)
{
	return global_flag(ctx, &global.h1_keep_open_on_insecure_te);
}

/* Parses the single integer argument of the keyword into *out. */
static int global_int(struct cfg_ctx *ctx, long min, long max, long *out)
{
	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	return cfg_parse_int_arg(ctx, ctx->args[1], min, max, out);
}

static int global_maxconn(struct cfg_ctx *ctx)
{
	long v;

	if (global_int(ctx, 0, INT_MAX, &v) < 0)
		return -1;
	global.maxconn = (int)v;
	return 0;
}

static int global_ulimit_n(struct cfg_ctx *ctx)
{
	long v;

	if (global_int(ctx, 0, INT_MAX, &v) < 0)
		return -1;
	global.ulimit_n = (int)v;
	return 0;
}

/* "pidfile" keeps the first value, so that "-p" (parsed before the file) wins. */
static int global_pidfile(struct cfg_ctx *ctx)
{
	char *p;

	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	if (global.pidfile) {
		cfg_warn(ctx, "'%s' already specified. Continuing.", ctx->args[0]);
		return 0;
	}
	p = strdup(ctx->args[1]);
	if (!p) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	global.pidfile = p;
	return 0;
}

static int global_hard_stop_after(struct cfg_ctx *ctx)
{
	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	return cfg_parse_time_arg(ctx, ctx->args[1], &global.hard_stop_after);
}

static void global_apply_maxrewrite(void)
{
	global.tune_maxrewrite = MIN(global_maxrewrite_req, global.tune_bufsize / 2);
}

static int global_tune_bufsize(struct cfg_ctx *ctx)
{
	long v;

	if (global_int(ctx, 1024, INT_MAX / 2, &v) < 0)
		return -1;
	global.tune_bufsize = (uint32_t)v;
	global_apply_maxrewrite();
	return 0;
}

static int global_tune_maxrewrite(struct cfg_ctx *ctx)
{
	long v;

	if (global_int(ctx, 0, INT_MAX / 2, &v) < 0)
		return -1;
	global_maxrewrite_req = (uint32_t)v;
	global_apply_maxrewrite();
	return 0;
}

static int global_tune_maxhdr(struct cfg_ctx *ctx)
{
	long v;

	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	if (parse_long(ctx->args[1], 1, 32767, &v) < 0) {
		cfg_alert(ctx, "'%s' expects a numeric value between 1 and 32767.", ctx->args[0]);
		return -1;
	}
	global.tune_maxhdr = (uint16_t)v;
	return 0;
}

static int global_tune_maxpollevents(struct cfg_ctx *ctx)
{
	long v;

	if (global_int(ctx, 1, INT_MAX, &v) < 0)
		return -1;
	global.tune_maxpollevents = (int)v;
	return 0;
}

/* tune.maxaccept: -1 means no limit, as in HAProxy. */
static int global_tune_maxaccept(struct cfg_ctx *ctx)
{
	long v;

	if (global_int(ctx, -1, INT_MAX, &v) < 0)
		return -1;
	global.tune_maxaccept = (int)v;
	return 0;
}

static int global_nbthread(struct cfg_ctx *ctx)
{
	long v;

	if (global_int(ctx, 1, 4096, &v) < 0)
		return -1;
	if (v > 1)
		return cfg_not_supported(ctx, "multi-threading comes with issue #3");
	global.nbthread = 1;
	return 0;
}

static int global_nbproc(struct cfg_ctx *ctx)
{
	long v;

	if (global_int(ctx, 1, INT_MAX, &v) < 0)
		return -1;
	if (v == 1) {
		cfg_warn(ctx, "'nbproc' is obsolete and ignored (HAProxy 2.5 removed it; a single "
			 "process runs threads).");
		return 0;
	}
	cfg_alert(ctx, "'nbproc' is not supported (HAProxy 2.5 removed it); use 'nbthread' "
		  "instead.");
	return -1;
}

/* setenv/presetenv NAME VALUE: later "${NAME}" expansions see the value. */
static int global_setenv(struct cfg_ctx *ctx)
{
	int overwrite = strcmp(ctx->args[0], "setenv") == 0;

	if (ctx->nargs != 3) {
		cfg_alert(ctx, "'%s' expects a name and a value.", ctx->args[0]);
		return -1;
	}
	if (!*ctx->args[1] || strchr(ctx->args[1], '=')) {
		cfg_alert(ctx, "'%s': invalid variable name '%s'.", ctx->args[0], ctx->args[1]);
		return -1;
	}
	if (setenv(ctx->args[1], ctx->args[2], overwrite) != 0) {
		cfg_alert(ctx, "'%s': failed to set '%s'.", ctx->args[0], ctx->args[1]);
		return -1;
	}
	return 0;
}

static int global_unsetenv(struct cfg_ctx *ctx)
{
	int i;

	if (ctx->nargs < 2) {
		cfg_alert(ctx, "'%s' expects at least one variable name.", ctx->args[0]);
		return -1;
	}
	for (i = 1; i < ctx->nargs; i++) {
		if (!*ctx->args[i] || strchr(ctx->args[i], '=') || unsetenv(ctx->args[i]) != 0) {
			cfg_alert(ctx, "'%s': cannot remove '%s'.", ctx->args[0], ctx->args[i]);
			return -1;
		}
	}
	return 0;
}

static bool global_env_kept(struct cfg_ctx *ctx, const char *entry, size_t nlen)
{
	int i;

	for (i = 1; i < ctx->nargs; i++) {
		if (strlen(ctx->args[i]) == nlen && memcmp(ctx->args[i], entry, nlen) == 0)
			return true;
	}
	return false;
}

/* resetenv [NAME...]: removes every environment variable except the listed ones. */
static int global_resetenv(struct cfg_ctx *ctx)
{
	char **e, *name;
	size_t nlen;
	bool again = true;

	while (again) {
		again = false;
		for (e = environ; e && *e; e++) {
			nlen = strcspn(*e, "=");
			if (global_env_kept(ctx, *e, nlen))
				continue;
			name = strndup(*e, nlen);
			if (!name) {
				cfg_alert(ctx, "out of memory.");
				return -1;
			}
			unsetenv(name);
			free(name);
			again = true;   /* environ changed under us: rescan */
			break;
		}
	}
	return 0;
}

/* Logging comes in a later issue. Refusing "log" would make nearly every existing config
 * unusable for a feature that does not change what clients see, so it is accepted with a
 * warning that it has no effect (as "log" in proxies). */
static int global_warn_log(struct cfg_ctx *ctx)
{
	cfg_warn(ctx, "logging is not supported yet: '%s' has no effect.", ctx->args[0]);
	return 0;
}

static int global_refuse_priv(struct cfg_ctx *ctx)
{
	return cfg_not_supported(ctx, "privilege dropping comes in a later issue");
}

static int global_refuse_stats(struct cfg_ctx *ctx)
{
	return cfg_not_supported(ctx, "the runtime API comes in a later issue");
}

static int global_refuse_threads(struct cfg_ctx *ctx)
{
	return cfg_not_supported(ctx, "multi-threading comes with issue #3");
}

static int global_refuse_tls(struct cfg_ctx *ctx)
{
	return cfg_not_supported(ctx, "TLS comes in a later issue");
}

static int global_refuse_lua(struct cfg_ctx *ctx)
{
	return cfg_not_supported(ctx, "Lua comes in a later issue");
}

static int global_refuse_mworker(struct cfg_ctx *ctx)
{
	return cfg_not_supported(ctx, "master-worker mode comes in a later issue");
}

/* Names ending in '*' match every keyword with that prefix (see cfg_find_kw()). */
static const struct cfg_kw global_kws[] = {
	{ "daemon", CFG_SEC_GLOBAL, global_daemon },
	{ "maxconn", CFG_SEC_GLOBAL, global_maxconn },
	{ "pidfile", CFG_SEC_GLOBAL, global_pidfile },
	{ "ulimit-n", CFG_SEC_GLOBAL, global_ulimit_n },
	{ "hard-stop-after", CFG_SEC_GLOBAL, global_hard_stop_after },
	{ "quiet", CFG_SEC_GLOBAL, global_quiet },
	{ "zero-warning", CFG_SEC_GLOBAL, global_zero_warning },
	{ "tune.bufsize", CFG_SEC_GLOBAL, global_tune_bufsize },
	{ "tune.maxrewrite", CFG_SEC_GLOBAL, global_tune_maxrewrite },
	{ "tune.http.maxhdr", CFG_SEC_GLOBAL, global_tune_maxhdr },
	{ "tune.maxpollevents", CFG_SEC_GLOBAL, global_tune_maxpollevents },
	{ "tune.maxaccept", CFG_SEC_GLOBAL, global_tune_maxaccept },
	{ "h1-accept-payload-with-any-method", CFG_SEC_GLOBAL, global_h1_payload },
	{ "h1-do-not-close-on-insecure-transfer-encoding", CFG_SEC_GLOBAL, global_h1_keep_open },
	{ "nbthread", CFG_SEC_GLOBAL, global_nbthread },
	{ "nbproc", CFG_SEC_GLOBAL, global_nbproc },
	{ "setenv", CFG_SEC_GLOBAL, global_setenv },
	{ "presetenv", CFG_SEC_GLOBAL, global_setenv },
	{ "unsetenv", CFG_SEC_GLOBAL, global_unsetenv },
	{ "resetenv", CFG_SEC_GLOBAL, global_resetenv },
	{ "log", CFG_SEC_GLOBAL, global_warn_log },
	{ "log-send-hostname", CFG_SEC_GLOBAL, global_warn_log },
	{ "log-tag", CFG_SEC_GLOBAL, global_warn_log },
	{ "user", CFG_SEC_GLOBAL, global_refuse_priv },
	{ "group", CFG_SEC_GLOBAL, global_refuse_priv },
	{ "uid", CFG_SEC_GLOBAL, global_refuse_priv },
	{ "gid", CFG_SEC_GLOBAL, global_refuse_priv },
	{ "chroot", CFG_SEC_GLOBAL, global_refuse_priv },
	{ "stats", CFG_SEC_GLOBAL, global_refuse_stats },
	{ "cpu-map", CFG_SEC_GLOBAL, global_refuse_threads },
	{ "thread-groups", CFG_SEC_GLOBAL, global_refuse_threads },
	{ "max-threads-per-group", CFG_SEC_GLOBAL, global_refuse_threads },
	{ "ssl-default-bind-*", CFG_SEC_GLOBAL, global_refuse_tls },
	{ "ssl-default-server-*", CFG_SEC_GLOBAL, global_refuse_tls },
	{ "ssl-server-verify", CFG_SEC_GLOBAL, global_refuse_tls },
	{ "tune.ssl.*", CFG_SEC_GLOBAL, global_refuse_tls },
	{ "ca-base", CFG_SEC_GLOBAL, global_refuse_tls },
	{ "crt-base", CFG_SEC_GLOBAL, global_refuse_tls },
	{ "lua-load", CFG_SEC_GLOBAL, global_refuse_lua },
	{ "lua-prepend-path", CFG_SEC_GLOBAL, global_refuse_lua },
	{ "master-worker", CFG_SEC_GLOBAL, global_refuse_mworker },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(global_kws)

__attribute__((constructor)) static void global_register_section(void)
{
	cfg_register_section(&global_section);
}
