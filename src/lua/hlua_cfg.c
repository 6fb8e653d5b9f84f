/* The Lua keywords of the global section (lua-load, lua-load-per-thread,
 * lua-prepend-path, tune.lua.*), the loading of script files into the states, the
 * check phase that builds the other threads' states, and the per-thread start and stop
 * of what scripts run on their own (tasks).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/parse.h>
#include <cfg/cfg.h>
#include <lua/hlua.h>
#include <proc/global-t.h>

#include "hlua_int.h"

struct hlua_state *hlua_state_new(int id);
void hlua_state_free(struct hlua_state *st);
extern const char *const hlua_lib_names[10];

/* A lua-load-per-thread line, loaded again into every other thread's state. */
struct hlua_file {
	struct hlua_file *next;
	char *path;
	char **args;
	int nargs;
	char *cfg_file; /* where it was given */
	int cfg_line;
};
static struct hlua_file *per_thread_files, **per_thread_tail = &per_thread_files;

/* The state being loaded, for core.register_* (hlua_core.c). */
struct hlua_state *hlua_loading;

static int hlua_msgh(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);

	luaL_traceback(L, L, msg ? msg : "(error object is not a string)", 1);
	return 1;
}

/* Loads and runs <path> with <args> in <st>. Returns 0, or -1 with a message in err. */
static int hlua_load_file(struct hlua_state *st, const char *path, char **args, int nargs,
			  char *err, size_t errsz)
{
	lua_State *L = st->L;
	struct hlua_state *prev = hlua_loading;
	int ret, base;

	hlua_lock(st);
	base = lua_gettop(L);
	hlua_loading = st;
	lua_pushcfunction(L, hlua_msgh);
	ret = luaL_loadfile(L, path);
	if (ret != LUA_OK) {
		snprintf(err, errsz, "error in Lua file '%s': %s", path,
			 lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "cannot load it");
		goto out;
	}
	if (!lua_checkstack(L, nargs + 2)) {
		snprintf(err, errsz, "too many arguments for '%s'", path);
		ret = -1;
		goto out;
	}
	for (int i = 0; i < nargs; i++)
		lua_pushstring(L, args[i]);
	ret = lua_pcall(L, nargs, 0, base + 1);
	if (ret != LUA_OK)
		snprintf(err, errsz, "lua runtime error in '%s': %s", path,
			 lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "unknown error");
out:
	lua_settop(L, base);
	hlua_loading = prev;
	hlua_unlock(st);
	return ret == LUA_OK ? 0 : -1;
}

static int hlua_cfg_load(struct cfg_ctx *ctx, bool per_thread)
{
	int id = per_thread ? 1 : 0;
	struct hlua_state *st = hlua_states[id];
	char err[1024];

	if (ctx->nargs < 2) {
		cfg_alert(ctx, "'%s' expects a file name as parameter.", ctx->args[0]);
		return -1;
	}
	if (!st && !(st = hlua_state_new(id))) {
		cfg_alert(ctx, "'%s' : cannot create a Lua state (out of memory).", ctx->args[0]);
		return -1;
	}
	if (per_thread) {
		struct hlua_file *f = calloc(1, sizeof(*f));
		int n = ctx->nargs - 2;

		if (!f || !(f->path = strdup(ctx->args[1])) ||
		    !(f->args = calloc((size_t)n + 1, sizeof(char *))) ||
		    !(f->cfg_file = strdup(ctx->file))) {
			if (f) {
				free(f->path);
				free(f->args);
				free(f);
			}
			cfg_alert(ctx, "out of memory.");
			return -1;
		}
		for (int i = 0; i < n; i++) {
			f->args[i] = strdup(ctx->args[i + 2]);
			if (!f->args[i]) {
				cfg_alert(ctx, "out of memory.");
				return -1; /* the process exits on this error */
			}
		}
		f->nargs = n;
		f->cfg_line = ctx->line;
		*per_thread_tail = f;
		per_thread_tail = &f->next;
		hlua_per_thread_used = true;
	}
	if (hlua_load_file(st, ctx->args[1], ctx->args + 2, ctx->nargs - 2, err, sizeof(err)) < 0) {
		cfg_alert(ctx, "%s", err);
		return -1;
	}
	return 0;
}

static int kw_lua_load(struct cfg_ctx *ctx)
{
	return hlua_cfg_load(ctx, false);
}

static int kw_lua_load_per_thread(struct cfg_ctx *ctx)
{
	return hlua_cfg_load(ctx, true);
}

/* lua-prepend-path PATH [path|cpath] */
static int kw_lua_prepend_path(struct cfg_ctx *ctx)
{
	int which = 0;
	char *old, *val;

	if (ctx->nargs < 2 || ctx->nargs > 3) {
		cfg_alert(ctx, "'%s' expects a path and an optional type (path or cpath).",
			  ctx->args[0]);
		return -1;
	}
	if (ctx->nargs == 3) {
		if (!strcmp(ctx->args[2], "cpath"))
			which = 1;
		else if (strcmp(ctx->args[2], "path")) {
			cfg_alert(ctx, "'%s' : type must be 'path' or 'cpath', not '%s'.",
				  ctx->args[0], ctx->args[2]);
			return -1;
		}
	}
	if (hlua_states[0] || hlua_states[1])
		cfg_warn(ctx, "'%s' only applies to the Lua files loaded after it.", ctx->args[0]);
	old = hlua_set.prepend_path[which];
	if (old) {
		size_t n = strlen(ctx->args[1]) + strlen(old) + 2;

		val = malloc(n);
		if (val)
			snprintf(val, n, "%s;%s", ctx->args[1], old);
	} else {
		val = strdup(ctx->args[1]);
	}
	if (!val) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	free(old);
	hlua_set.prepend_path[which] = val;
	/* states already created see it too (their next require) */
	for (int i = 0; i < 2; i++) {
		lua_State *L = hlua_states[i] ? hlua_states[i]->L : NULL;

		if (!L)
			continue;
		lua_getglobal(L, "package");
		if (lua_istable(L, -1)) {
			lua_getfield(L, -1, which ? "cpath" : "path");
			lua_pushfstring(L, "%s;%s", ctx->args[1],
					lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
			lua_setfield(L, -3, which ? "cpath" : "path");
			lua_pop(L, 1);
		}
		lua_pop(L, 1);
	}
	return 0;
}

static int kw_need_one(struct cfg_ctx *ctx)
{
	if (ctx->nargs != 2) {
		cfg_alert(ctx, "'%s' expects one argument.", ctx->args[0]);
		return -1;
	}
	return 0;
}

static int kw_tune_timeout(struct cfg_ctx *ctx)
{
	const char *kw = ctx->args[0] + strlen("tune.lua.");
	uint32_t *dst = !strcmp(kw, "session-timeout")	 ? &hlua_set.session_timeout
			: !strcmp(kw, "service-timeout") ? &hlua_set.service_timeout
			: !strcmp(kw, "task-timeout")	 ? &hlua_set.task_timeout
							 : &hlua_set.burst_timeout;
	const char *end;
	int ms;

	if (kw_need_one(ctx) < 0)
		return -1;
	end = parse_time_ms(ctx->args[1], 1, &ms);
	if (end || ms < 0) {
		cfg_alert(ctx, "'%s' : invalid time value '%s'.", ctx->args[0], ctx->args[1]);
		return -1;
	}
	*dst = (uint32_t)ms;
	return 0;
}

static int kw_tune_forced_yield(struct cfg_ctx *ctx)
{
	long v;

	if (kw_need_one(ctx) < 0)
		return -1;
	if (parse_long(ctx->args[1], 1, 1000000000L, &v) < 0) {
		cfg_alert(ctx, "'%s' expects a positive number of instructions.", ctx->args[0]);
		return -1;
	}
	hlua_set.forced_yield = (uint32_t)v;
	return 0;
}

/* tune.lua.maxmem MB (megabytes, as HAProxy) */
static int kw_tune_maxmem(struct cfg_ctx *ctx)
{
	long v;

	if (kw_need_one(ctx) < 0)
		return -1;
	if (parse_long(ctx->args[1], 0, 1L << 30, &v) < 0) {
		cfg_alert(ctx, "'%s' expects a number of megabytes.", ctx->args[0]);
		return -1;
	}
	if (hlua_states[0] || hlua_states[1])
		cfg_warn(ctx,
			 "'%s' is given after a Lua file was loaded: the memory that file "
			 "took is not counted.",
			 ctx->args[0]);
	hlua_set.maxmem = (uint64_t)v * 1048576ull;
	return 0;
}

static int kw_tune_onoff(struct cfg_ctx *ctx, uint8_t *dst, bool allow_auto)
{
	if (kw_need_one(ctx) < 0)
		return -1;
	if (!strcmp(ctx->args[1], "on"))
		*dst = 1;
	else if (!strcmp(ctx->args[1], "off"))
		*dst = 0;
	else if (allow_auto && !strcmp(ctx->args[1], "auto"))
		*dst = 2;
	else {
		cfg_alert(ctx, "'%s' expects 'on'%s or 'off'.", ctx->args[0],
			  allow_auto ? ", 'auto'" : "");
		return -1;
	}
	return 0;
}

static int kw_tune_log_loggers(struct cfg_ctx *ctx)
{
	return kw_tune_onoff(ctx, &hlua_set.log_loggers, false);
}

static int kw_tune_log_stderr(struct cfg_ctx *ctx)
{
	return kw_tune_onoff(ctx, &hlua_set.log_stderr, true);
}

static int kw_tune_bool_conv(struct cfg_ctx *ctx)
{
	if (kw_need_one(ctx) < 0)
		return -1;
	if (!strcmp(ctx->args[1], "normal"))
		hlua_set.bool_smp_conv = 1;
	else if (!strcmp(ctx->args[1], "pre-3.1-bug"))
		hlua_set.bool_smp_conv = 0;
	else {
		cfg_alert(ctx, "'%s' expects 'normal' or 'pre-3.1-bug'.", ctx->args[0]);
		return -1;
	}
	return 0;
}

/* tune.lua.openlibs all | none | LIB[,LIB...] (base is always open) */
static int kw_tune_openlibs(struct cfg_ctx *ctx)
{
	uint32_t bits = 1;
	char *p, *save = NULL, *dup;

	if (kw_need_one(ctx) < 0)
		return -1;
	if (hlua_states[0] || hlua_states[1]) {
		cfg_alert(ctx, "'%s' must come before the first lua-load.", ctx->args[0]);
		return -1;
	}
	if (!strcmp(ctx->args[1], "all")) {
		hlua_set.openlibs = HLUA_LIB_ALL;
		return 0;
	}
	if (!strcmp(ctx->args[1], "none")) {
		hlua_set.openlibs = 1;
		return 0;
	}
	dup = strdup(ctx->args[1]);
	if (!dup) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	for (p = strtok_r(dup, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < 10 && strcmp(hlua_lib_names[i], p); i++)
			;
		if (i == 10) {
			cfg_alert(ctx,
				  "'%s' : unknown Lua library '%s' (expects all, none or a "
				  "list of base, package, coroutine, table, io, os, string, "
				  "math, utf8, debug).",
				  ctx->args[0], p);
			free(dup);
			return -1;
		}
		bits |= 1u << i;
	}
	free(dup);
	hlua_set.openlibs = bits;
	return 0;
}

static const struct cfg_kw hlua_cfg_kws[] = {
	{ "lua-load", CFG_SEC_GLOBAL, kw_lua_load },
	{ "lua-load-per-thread", CFG_SEC_GLOBAL, kw_lua_load_per_thread },
	{ "lua-prepend-path", CFG_SEC_GLOBAL, kw_lua_prepend_path },
	{ "tune.lua.forced-yield", CFG_SEC_GLOBAL, kw_tune_forced_yield },
	{ "tune.lua.maxmem", CFG_SEC_GLOBAL, kw_tune_maxmem },
	{ "tune.lua.session-timeout", CFG_SEC_GLOBAL, kw_tune_timeout },
	{ "tune.lua.service-timeout", CFG_SEC_GLOBAL, kw_tune_timeout },
	{ "tune.lua.task-timeout", CFG_SEC_GLOBAL, kw_tune_timeout },
	{ "tune.lua.burst-timeout", CFG_SEC_GLOBAL, kw_tune_timeout },
	{ "tune.lua.log.loggers", CFG_SEC_GLOBAL, kw_tune_log_loggers },
	{ "tune.lua.log.stderr", CFG_SEC_GLOBAL, kw_tune_log_stderr },
	{ "tune.lua.bool-sample-conversion", CFG_SEC_GLOBAL, kw_tune_bool_conv },
	{ "tune.lua.openlibs", CFG_SEC_GLOBAL, kw_tune_openlibs },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(hlua_cfg_kws);

bool hlua_configured(void)
{
	return hlua_states[0] || hlua_states[1];
}

int hlua_cfg_check(void)
{
	int errors = hlua_httpclient_check(), n = global.nbthread > 0 ? global.nbthread : 1;
	char err[1024];

	if (!hlua_per_thread_used)
		return errors;
	for (int t = 1; t < n && t < MAX_THREADS; t++) {
		struct hlua_state *st = hlua_states[t + 1];

		if (!st && !(st = hlua_state_new(t + 1))) {
			ha_alert("Lua: cannot create the state of thread %d (out of memory).\n",
				 t + 1);
			return errors + 1;
		}
		for (struct hlua_file *f = per_thread_files; f; f = f->next) {
			if (hlua_load_file(st, f->path, f->args, f->nargs, err, sizeof(err)) < 0) {
				ha_alert("config : parsing [%s:%d] : %s (thread %d).\n",
					 f->cfg_file, f->cfg_line, err, t + 1);
				errors++;
			}
		}
	}
	return errors;
}

int hlua_runtime_init(void)
{
	return hlua_init_run_all();
}

int hlua_thread_start(void)
{
	if (!hlua_configured())
		return 0;
	return hlua_tasks_thread_start();
}

void hlua_thread_stop(void)
{
	if (!hlua_configured())
		return;
	hlua_tasks_thread_stop();
}

void hlua_deinit(void)
{
	struct hlua_file *f;

	hlua_sock_teardown();
	for (int i = 0; i < HLUA_STATES; i++)
		hlua_state_free(hlua_states[i]);
	while ((f = per_thread_files)) {
		per_thread_files = f->next;
		for (int i = 0; i < f->nargs; i++)
			free(f->args[i]);
		free(f->args);
		free(f->path);
		free(f->cfg_file);
		free(f);
	}
	per_thread_tail = &per_thread_files;
	hlua_httpclient_deinit();
	for (int i = 0; i < 2; i++) {
		free(hlua_set.prepend_path[i]);
		hlua_set.prepend_path[i] = NULL;
	}
}
