/* The "global" section: defines `struct global` with its defaults, registers the section
 * and its keywords (process settings, threads into thread_cfg, tune.*, environment edits),
 * and refuses, with the reason, the HAProxy global keywords not implemented yet.
 * Applying the settings (daemon, limits, buffers, threads) is done by their owners.
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <base/compiler.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <proc/global-t.h>
#include <proc/privs.h>
#include <thread/thread_cfg.h>

struct global global = {
	.nbthread = 1,
	.tune_bufsize = 16384,
	.tune_maxrewrite = 1024,
	.tune_maxhdr = 101,
	.tune_maxpollevents = 200,
	.tune_maxaccept = 64,
	.tune_logurilen = 1024,
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

static int global_maxconnrate(struct cfg_ctx *ctx)
{
	long v;

	if (global_int(ctx, 0, INT_MAX, &v) < 0)
		return -1;
	global.maxconnrate = (int)v;
	return 0;
}

static int global_maxsessrate(struct cfg_ctx *ctx)
{
	long v;

	if (global_int(ctx, 0, INT_MAX, &v) < 0)
		return -1;
	global.maxsessrate = (int)v;
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

/* insecure-fork-wanted: external checks may run commands (check/extcheck.c). */
static int global_insecure_fork(struct cfg_ctx *ctx)
{
	if (ctx->nargs > 1) {
		cfg_alert(ctx, "'%s' takes no argument.", ctx->args[0]);
		return -1;
	}
	global.insecure_fork = true;
	return 0;
}

/* tune.chksize: gone since HAProxy 1.6 (checks read into a tune.bufsize buffer); refused
 * in 2.6's words. */
static int global_tune_chksize(struct cfg_ctx *ctx)
{
	cfg_alert(ctx, "option 'tune.chksize' is not supported any more (tune.bufsize is used "
		  "instead).");
	return -1;
}

/* maxpipes N, tune.pipesize SIZE: the pipes of "option splice-*" (stream/splice.c). */
static int global_maxpipes(struct cfg_ctx *ctx)
{
	long v;

	if (global_int(ctx, 0, INT_MAX, &v) < 0)
		return -1;
	global.maxpipes = (int)v;
	return 0;
}

static int global_nosplice(struct cfg_ctx *ctx)
{
	if (ctx->nargs > 1) {
		cfg_alert(ctx, "'%s' takes no argument.", ctx->args[0]);
		return -1;
	}
	global.nosplice = true;
	return 0;
}

static int global_pp2_never_local(struct cfg_ctx *ctx)
{
	if (ctx->nargs > 1) {
		cfg_alert(ctx, "'%s' takes no argument.", ctx->args[0]);
		return -1;
	}
	global.pp2_never_send_local = true;
	return 0;
}

static int global_tune_pipesize(struct cfg_ctx *ctx)
{
	long v;

	if (global_int(ctx, 0, 1 << 30, &v) < 0)
		return -1;
	global.tune_pipesize = (int)v;
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

/* Parses the integer argument of a thread keyword, in min..max, with HAProxy's message. */
static int global_thread_int(struct cfg_ctx *ctx, long min, long max, int *out)
{
	long v;

	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	if (parse_long(ctx->args[1], LONG_MIN, LONG_MAX, &v) < 0) {
		cfg_alert(ctx, "'%s' expects an integer argument, got '%s'.", ctx->args[0],
			  ctx->args[1]);
		return -1;
	}
	if (v < min || v > max) {
		cfg_alert(ctx, "'%s' value must be between %ld and %ld (was %ld).", ctx->args[0],
			  min, max, v);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* Parses a number in 1..max written in <str> (an argument of the keyword). */
static int global_thread_int_at(struct cfg_ctx *ctx, const char *str, long max, int *out)
{
	long v;

	if (parse_long(str, LONG_MIN, LONG_MAX, &v) < 0 || v < 1 || v > max) {
		cfg_alert(ctx, "'%s' : thread group number must be between 1 and %ld (was '%s').",
			  ctx->args[0], max, str);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* Replaces *<file> with a copy of the keyword's location. */
static int global_set_loc(struct cfg_ctx *ctx, char **file, int *line)
{
	char *f = strdup(ctx->file ? ctx->file : "");

	if (!f) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	free(*file);
	*file = f;
	*line = ctx->line;
	return 0;
}

/* nbthread N: the threads to start (checked and applied by thread_cfg_check()). */
static int global_nbthread(struct cfg_ctx *ctx)
{
	if (global_thread_int(ctx, 1, MAX_THREADS, &thread_cfg.nbthread) < 0)
		return -1;
	return global_set_loc(ctx, &thread_cfg.nbthread_file, &thread_cfg.nbthread_line);
}

static int global_thread_groups(struct cfg_ctx *ctx)
{
	if (global_thread_int(ctx, 1, MAX_TGROUPS, &thread_cfg.nbtgroups) < 0)
		return -1;
	return global_set_loc(ctx, &thread_cfg.nbtgroups_file, &thread_cfg.nbtgroups_line);
}

static int global_max_threads_per_group(struct cfg_ctx *ctx)
{
	return global_thread_int(ctx, 1, MAX_THREADS_PER_GROUP, &thread_cfg.max_per_group);
}

/* thread-group G RANGE...: absolute threads of group G; several lines accumulate. A thread
 * already in another group is an error here; the rest is checked once nbthread is known.
 */
static int global_thread_group(struct cfg_ctx *ctx)
{
	struct thread_set ts;
	uint64_t bits = 0;
	char err[256];
	int grp, g, i;

	if (ctx->nargs < 3) {
		cfg_alert(ctx, "'%s' expects a thread group number and at least one thread range.",
			  ctx->args[0]);
		return -1;
	}
	if (global_thread_int_at(ctx, ctx->args[1], MAX_TGROUPS, &grp) < 0)
		return -1;
	for (i = 2; i < ctx->nargs; i++) {
		if (thread_set_parse(ctx->args[i], &ts, err, sizeof(err)) < 0) {
			cfg_alert(ctx, "'%s %d' : %s", ctx->args[0], grp, err);
			return -1;
		}
		if (!ts.is_abs) {
			cfg_alert(ctx, "'%s %d' : '%s' : thread numbers are absolute here (no "
				  "'G/' prefix).", ctx->args[0], grp, ctx->args[i]);
			return -1;
		}
		bits |= ts.abs;
	}
	for (g = 0; g < MAX_TGROUPS; g++) {
		if (g != grp - 1 && (thread_cfg.assigned[g] & bits)) {
			cfg_alert(ctx, "'%s %d' : thread %d is already in thread group %d (at "
				  "[%s:%d]).", ctx->args[0], grp,
				  __builtin_ctzll(thread_cfg.assigned[g] & bits) + 1, g + 1,
				  thread_cfg.assigned_file[g], thread_cfg.assigned_line[g]);
			return -1;
		}
	}
	thread_cfg.assigned[grp - 1] |= bits;
	return global_set_loc(ctx, &thread_cfg.assigned_file[grp - 1],
			      &thread_cfg.assigned_line[grp - 1]);
}

/* cpu-map [auto:]G[/T] CPUS...: rules kept in config order, resolved at check time. */
static int global_cpu_map(struct cfg_ctx *ctx)
{
	struct cpu_map_rule *rule, **tail;
	char err[256];

	if (ctx->nargs < 2) {
		cfg_alert(ctx, "'%s' expects a thread group ('all', 'odd', 'even', a number from 1 "
			  "to %d or a range), optionally followed by '/' and threads, then a list "
			  "of CPU ranges.", ctx->args[0], MAX_TGROUPS);
		return -1;
	}
	rule = calloc(1, sizeof(*rule));
	if (!rule || global_set_loc(ctx, &rule->file, &rule->line) < 0) {
		if (!rule)
			cfg_alert(ctx, "out of memory.");
		free(rule);
		return -1;
	}
	if (cpu_map_parse(ctx->args[1], ctx->args + 2, ctx->nargs - 2, rule, err,
			  sizeof(err)) < 0) {
		cfg_alert(ctx, "cpu-map : %s", err);
		free(rule->file);
		free(rule);
		return -1;
	}
	for (tail = &thread_cfg.cpu_maps; *tail; tail = &(*tail)->next)
		;
	*tail = rule;
	return 0;
}

static int global_default_shards(struct cfg_ctx *ctx)
{
	char err[256];

	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	if (thread_shards_parse(ctx->args[1], &thread_cfg.default_shards, err,
				sizeof(err)) < 0) {
		cfg_alert(ctx, "'%s' : %s", ctx->args[0], err);
		return -1;
	}
	return 0;
}

/* "nbproc 1" is accepted (a warning) so that old configs load; HAProxy 2.6 refuses every
 * value, with the message given here for the others.
 */
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
	cfg_alert(ctx, "nbproc is not supported any more since HAProxy 2.5. Threads will "
		  "automatically be used on multi-processor machines if available.");
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

/* Keywords that select what this proxy does anyway (no splicing, no fork, no setuid
 * helper, memory trimming left to libc): accepted, no argument.
 */
static int global_noop_flag(struct cfg_ctx *ctx)
{
	return cfg_need_args(ctx, 0);
}

static int global_strict_limits(struct cfg_ctx *ctx)
{
	if (global_flag(ctx, &global.strict_limits) < 0)
		return -1;
	global.no_strict_limits = false;
	return 0;
}

/* "no KEYWORD" in global: the few keywords HAProxy 2.6 lets negate (those not built here
 * are refused with its message).
 */
static int global_no(struct cfg_ctx *ctx)
{
	const char *kw = ctx->nargs > 1 ? ctx->args[1] : "";

	if (ctx->nargs > 2) {
		cfg_alert(ctx, "'%s' cannot handle unexpected argument '%s'.", kw, ctx->args[2]);
		return -1;
	}
	if (strcmp(kw, "strict-limits") == 0) {
		global.strict_limits = false;
		global.no_strict_limits = true;
		return 0;
	}
	if (strcmp(kw, "set-dumpable") == 0) {
		proc_privs_set_dumpable(false);
		return 0;
	}
	cfg_alert(ctx, "negation/default currently supported only for options, log, busy-polling, "
		  "set-dumpable, strict-limits, insecure-fork-wanted and numa-cpu-mapping.");
	return -1;
}

/* Replaces *dst with a copy of args[1..] joined by spaces (HAProxy's "description"). */
static int global_join_args(struct cfg_ctx *ctx, char **dst)
{
	size_t len = 1;
	char *p;
	int i;

	if (ctx->nargs < 2) {
		cfg_alert(ctx, "'%s' expects a string argument.", ctx->args[0]);
		return -1;
	}
	for (i = 1; i < ctx->nargs; i++)
		len += strlen(ctx->args[i]) + 1;
	p = malloc(len);
	if (!p) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	p[0] = '\0';
	for (i = 1; i < ctx->nargs; i++) {
		if (i > 1)
			strcat(p, " ");
		strcat(p, ctx->args[i]);
	}
	free(*dst);
	*dst = p;
	return 0;
}

static int global_description(struct cfg_ctx *ctx)
{
	return global_join_args(ctx, &global.desc);
}

static int global_node(struct cfg_ctx *ctx)
{
	const char *p;

	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	for (p = ctx->args[1]; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' && *p != '_')
			break;
	if (!*ctx->args[1] || *p) {
		cfg_alert(ctx, "'node' requires valid node name - non-empty string with digits(0-9), "
			  "letters(A-Z, a-z), dot(.), hyphen(-) or underscode(_).");
		return -1;
	}
	return global_join_args(ctx, &global.node);
}

/* "grace TIME": after SIGUSR1, "stopping" is true but listeners accept for TIME more. */
static int global_grace(struct cfg_ctx *ctx)
{
	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	return cfg_parse_time_arg(ctx, ctx->args[1], &global.grace);
}

/* "close-spread-time TIME|infinite": see event/stop.h. */
static int global_close_spread_time(struct cfg_ctx *ctx)
{
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'%s' expects <time> as argument.", ctx->args[0]);
		return -1;
	}
	if (strcmp(ctx->args[1], "infinite") == 0) {
		global.close_spread_time = -1;
		return 0;
	}
	return cfg_parse_time_arg(ctx, ctx->args[1], &global.close_spread_time);
}

/* "localpeer NAME": as -L (which wins): exported as HAPROXY_LOCALPEER for the next lines. */
static int global_localpeer(struct cfg_ctx *ctx)
{
	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	if (global.localpeer_cli) {
		cfg_warn(ctx, "'%s' ignored since it is already set by using the '-L' command line "
			 "argument.", ctx->args[0]);
		return 0;
	}
	if (!*ctx->args[1]) {
		cfg_alert(ctx, "'%s' expects a name as an argument.", ctx->args[0]);
		return -1;
	}
	if (setenv("HAPROXY_LOCALPEER", ctx->args[1], 1) != 0) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	return 0;
}

static int global_spread_checks(struct cfg_ctx *ctx)
{
	long v;

	if (global_int(ctx, 0, 50, &v) < 0)
		return -1;
	global.spread_checks = (int)v;
	return 0;
}

static int global_max_spread_checks(struct cfg_ctx *ctx)
{
	if (cfg_need_args(ctx, 1) < 0)
		return -1;
	return cfg_parse_time_arg(ctx, ctx->args[1], &global.max_spread_checks);
}

static int global_tune_logurilen(struct cfg_ctx *ctx)
{
	long v;

	if (global_int(ctx, 1, 65535, &v) < 0)
		return -1;
	global.tune_logurilen = (int)v;
	return 0;
}

static int global_tune_cookielen(struct cfg_ctx *ctx)
{
	long v;

	if (global_int(ctx, 0, 65535, &v) < 0)
		return -1;
	global.tune_cookielen = (int)v;
	return 0;
}

/* Names ending in '*' match every keyword with that prefix (see cfg_find_kw()). */
static const struct cfg_kw global_kws[] = {
	{ "daemon", CFG_SEC_GLOBAL, global_daemon },
	{ "maxconn", CFG_SEC_GLOBAL, global_maxconn },
	{ "maxconnrate", CFG_SEC_GLOBAL, global_maxconnrate },
	{ "maxsessrate", CFG_SEC_GLOBAL, global_maxsessrate },
	{ "pidfile", CFG_SEC_GLOBAL, global_pidfile },
	{ "ulimit-n", CFG_SEC_GLOBAL, global_ulimit_n },
	{ "hard-stop-after", CFG_SEC_GLOBAL, global_hard_stop_after },
	{ "quiet", CFG_SEC_GLOBAL, global_quiet },
	{ "zero-warning", CFG_SEC_GLOBAL, global_zero_warning },
	{ "tune.bufsize", CFG_SEC_GLOBAL, global_tune_bufsize },
	{ "tune.maxrewrite", CFG_SEC_GLOBAL, global_tune_maxrewrite },
	{ "maxpipes", CFG_SEC_GLOBAL, global_maxpipes },
	{ "tune.pipesize", CFG_SEC_GLOBAL, global_tune_pipesize },
	{ "tune.chksize", CFG_SEC_GLOBAL, global_tune_chksize },
	{ "tune.http.maxhdr", CFG_SEC_GLOBAL, global_tune_maxhdr },
	{ "tune.maxpollevents", CFG_SEC_GLOBAL, global_tune_maxpollevents },
	{ "tune.maxaccept", CFG_SEC_GLOBAL, global_tune_maxaccept },
	{ "h1-accept-payload-with-any-method", CFG_SEC_GLOBAL, global_h1_payload },
	{ "h1-do-not-close-on-insecure-transfer-encoding", CFG_SEC_GLOBAL, global_h1_keep_open },
	{ "nbthread", CFG_SEC_GLOBAL, global_nbthread },
	{ "nbproc", CFG_SEC_GLOBAL, global_nbproc },
	{ "thread-groups", CFG_SEC_GLOBAL, global_thread_groups },
	{ "max-threads-per-group", CFG_SEC_GLOBAL, global_max_threads_per_group },
	{ "thread-group", CFG_SEC_GLOBAL, global_thread_group },
	{ "cpu-map", CFG_SEC_GLOBAL, global_cpu_map },
	{ "tune.listener.default-shards", CFG_SEC_GLOBAL, global_default_shards },
	{ "setenv", CFG_SEC_GLOBAL, global_setenv },
	{ "presetenv", CFG_SEC_GLOBAL, global_setenv },
	{ "unsetenv", CFG_SEC_GLOBAL, global_unsetenv },
	{ "resetenv", CFG_SEC_GLOBAL, global_resetenv },
	{ "description", CFG_SEC_GLOBAL, global_description },
	{ "node", CFG_SEC_GLOBAL, global_node },
	{ "grace", CFG_SEC_GLOBAL, global_grace },
	{ "close-spread-time", CFG_SEC_GLOBAL, global_close_spread_time },
	{ "localpeer", CFG_SEC_GLOBAL, global_localpeer },
	{ "spread-checks", CFG_SEC_GLOBAL, global_spread_checks },
	{ "max-spread-checks", CFG_SEC_GLOBAL, global_max_spread_checks },
	{ "tune.http.logurilen", CFG_SEC_GLOBAL, global_tune_logurilen },
	{ "tune.http.cookielen", CFG_SEC_GLOBAL, global_tune_cookielen },
	{ "strict-limits", CFG_SEC_GLOBAL, global_strict_limits },
	{ "no", CFG_SEC_GLOBAL, global_no },
	{ "nosplice", CFG_SEC_GLOBAL, global_nosplice },
	{ "pp2-never-send-local", CFG_SEC_GLOBAL, global_pp2_never_local },
	{ "nogetaddrinfo", CFG_SEC_GLOBAL, global_noop_flag },
	{ "insecure-fork-wanted", CFG_SEC_GLOBAL, global_insecure_fork },
	{ "insecure-setuid-wanted", CFG_SEC_GLOBAL, global_noop_flag },
	{ "no-memory-trimming", CFG_SEC_GLOBAL, global_noop_flag },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(global_kws)

__attribute__((constructor)) static void global_register_section(void)
{
	cfg_register_section(&global_section);
}
