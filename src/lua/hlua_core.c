/* The "core" table of every state: log levels and the log functions, time and waiting
 * (now, sleep, msleep, yield), the register_* functions scripts declare their actions,
 * services, fetches, converters, tasks, init functions and CLI commands with, and the
 * process variables (core.get_var/set_var). The other core functions (proxies, maps,
 * ACLs, addresses, strings, sockets, HTTP client) are added by hlua_ext_setup and the
 * files it calls.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <base/list.h>
#include <cfg/cfg.h>
#include <event/loop.h>
#include <log/log.h>
#include <proc/global-t.h>
#include <proxy/proxy-t.h>
#include <sample/sample.h>
#include <sample/vars.h>
#include <stream/action-t.h>

#include "hlua_int.h"

extern struct hlua_state *hlua_loading; /* hlua_cfg.c */

static const char *const log_names[8] = { "emerg",   "alert",  "crit", "err",
					  "warning", "notice", "info", "debug" };

/* Sends <msg> at <level> as core.log does: the loggers of the running context's proxy (the
 * global ones outside a stream), and stderr as tune.lua.log.stderr says. */
void hlua_send_log(struct proxy *px, int level, const char *msg)
{
	const struct list *ll = px ? &px->loggers : &global_loggers;
	bool logged = false;

	if (level < 0 || level > 7)
		level = 6;
	if (hlua_set.log_loggers && ll->next && !list_empty(ll)) {
		log_sendf(px, level, "%s", msg);
		logged = true;
	}
	if (hlua_set.log_stderr == 1 || (hlua_set.log_stderr == 2 && !logged)) {
		if (!global.quiet) {
			struct timeval tv;
			struct tm tm;

			gettimeofday(&tv, NULL);
			localtime_r(&tv.tv_sec, &tm);
			fprintf(stderr, "[%s] %03d/%02d%02d%02d (%d) : %s\n", log_names[level],
				tm.tm_yday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)getpid(), msg);
		}
	}
}

static struct proxy *cur_px(void)
{
	return hlua_cur ? hlua_cur->px : NULL;
}

static int l_log(lua_State *L)
{
	int level = (int)luaL_checkinteger(L, 1);
	const char *msg = luaL_checkstring(L, 2);

	if (level < 0 || level > 7)
		return luaL_argerror(L, 1, "invalid log level");
	hlua_send_log(cur_px(), level, msg);
	return 0;
}

static int log_at(lua_State *L, int level)
{
	hlua_send_log(cur_px(), level, luaL_checkstring(L, 1));
	return 0;
}

static int l_debug(lua_State *L)
{
	return log_at(L, 7);
}
static int l_info(lua_State *L)
{
	return log_at(L, 6);
}
static int l_warning(lua_State *L)
{
	return log_at(L, 4);
}
static int l_alert(lua_State *L)
{
	return log_at(L, 1);
}

/* core.now(): {sec=, usec=} of the wall clock */
static int l_now(lua_State *L)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	lua_createtable(L, 0, 2);
	lua_pushinteger(L, tv.tv_sec);
	lua_setfield(L, -2, "sec");
	lua_pushinteger(L, tv.tv_usec);
	lua_setfield(L, -2, "usec");
	return 1;
}

static int k_return0(lua_State *L, int status, lua_KContext kctx)
{
	return 0;
}

static int sleep_ms(lua_State *L, long long ms)
{
	if (ms < 0)
		ms = 0;
	if (!th_ctx) { /* before the loops run (init functions, file bodies): it blocks, as
			* in HAProxy, nothing is served yet */
		struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

		nanosleep(&ts, NULL);
		return 0;
	}
	return hlua_yield(L, now_ms() + (uint64_t)ms + (ms ? 0 : 1), false, k_return0, 0);
}

static int l_msleep(lua_State *L)
{
	return sleep_ms(L, luaL_checkinteger(L, 1));
}

static int l_sleep(lua_State *L)
{
	lua_Integer s = luaL_checkinteger(L, 1);

	return sleep_ms(L, s > 1000000 ? 1000000000LL : s * 1000);
}

static int l_yield(lua_State *L)
{
	return hlua_yield(L, 0, true, k_return0, 0);
}

/* core.done([value]): ends the running function at once, as if it returned <value>: an
 * error object the runner recognises (hlua_ctx_run), which unwinds the coroutine. */
static int l_done(lua_State *L)
{
	struct hlua_ctx *ctx = hlua_ctx_of(L);

	if (!ctx)
		return luaL_error(L, "core.done() cannot end this context");
	ctx->done = 1;
	lua_settop(L, 1);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &hlua_done_key); /* the value it returns */
	lua_pushlightuserdata(L, &hlua_done_key);
	return lua_error(L);
}

/* ---- process variables ---- */

static int l_set_var(lua_State *L)
{
	size_t len;
	const char *name = luaL_checklstring(L, 1, &len);
	struct smp_ctx sctx = { 0 };
	struct var_desc d;
	struct sample smp = { 0 };
	char err[128];

	if (vars_parse_desc(name, &d, err, sizeof(err)) < 0 || d.scope != VS_PROC)
		return luaL_error(L, "core.set_var: '%s' is not a proc.* variable", name);
	if (hlua_to_sample(L, 2, &smp) < 0)
		return luaL_argerror(L, 2, "value has no sample form");
	smp.ctx = &sctx;
	vars_set(&sctx, &d, &smp);
	return 0;
}

static int l_unset_var(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	struct smp_ctx sctx = { 0 };
	struct var_desc d;

	if (vars_lookup_desc(name, strlen(name), &d) < 0 || d.scope != VS_PROC)
		return 0;
	vars_unset(&sctx, &d);
	return 0;
}

static int l_get_var(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	struct smp_ctx sctx = { 0 };
	struct sample smp = { 0 };
	struct var_desc d;

	smp.ctx = &sctx;
	if (vars_lookup_desc(name, strlen(name), &d) < 0 || d.scope != VS_PROC ||
	    !vars_get(&sctx, &d, &smp)) {
		lua_pushnil(L);
		return 1;
	}
	hlua_push_sample(L, &smp, false);
	return 1;
}

/* ---- registrations ---- */

/* The state being loaded, or an error when a register function is called at run time. */
static struct hlua_state *loading_state(lua_State *L, const char *fn)
{
	if (!hlua_loading)
		luaL_error(L, "%s: can only be called while the Lua files are loaded", fn);
	return hlua_loading;
}

/* Finds or creates the function <name> of <kind> and anchors the Lua function at <fidx>
 * for the loading state. Raises a Lua error on failure. */
static struct hlua_fn *register_fn(lua_State *L, int kind, const char *name, int fidx,
				   bool *created)
{
	struct hlua_state *st = hlua_loading;
	struct hlua_fn *fn = hlua_fn_find(kind, name);

	*created = false;
	if (!fn) {
		if (st->id > 1) /* other threads' states only repeat what state 1 declared */
			luaL_error(L, "'%s' was not registered by this file in thread 1", name);
		fn = calloc(1, sizeof(*fn));
		if (!fn || !(fn->name = strdup(name))) {
			free(fn);
			luaL_error(L, "out of memory");
		}
		fn->kind = kind;
		for (int i = 0; i < HLUA_STATES; i++)
			fn->ref[i] = LUA_NOREF;
		list_append(&hlua_fns, &fn->list);
		*created = true;
	} else if (fn->ref[st->id] != LUA_NOREF) {
		luaL_unref(L, LUA_REGISTRYINDEX, fn->ref[st->id]);
		fn->ref[st->id] = LUA_NOREF;
		if (st->id <= 1)
			ha_warning("Lua: the %s '%s' is registered again: the last one is kept.\n",
				   kind == HLUA_FN_ACTION    ? "action"
				   : kind == HLUA_FN_SERVICE ? "service"
				   : kind == HLUA_FN_FETCH   ? "sample fetch"
				   : kind == HLUA_FN_CONV    ? "converter"
							     : "CLI command",
				   name);
	}
	if (st->id != 0 && fn->ref[0] != LUA_NOREF)
		luaL_error(L, "'%s' is already registered by lua-load", name);
	if (st->id == 0 && fn->ref[1] != LUA_NOREF)
		luaL_error(L, "'%s' is already registered by lua-load-per-thread", name);
	lua_pushvalue(L, fidx);
	fn->ref[st->id] = luaL_ref(L, LUA_REGISTRYINDEX);
	return fn;
}

static const struct {
	const char *name;
	uint8_t from;
} act_kinds[] = {
	{ "http-req", ACT_F_HTTP_REQ },		{ "http-res", ACT_F_HTTP_RES },
	{ "http-after-res", ACT_F_HTTP_AFTER }, { "tcp-req", ACT_F_TCP_REQ_CNT },
	{ "tcp-res", ACT_F_TCP_RES_CNT },
};

/* core.register_action(name, {kinds...}, fn [, nargs]) */
static int l_register_action(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	lua_Integer nargs = luaL_optinteger(L, 4, 0);
	uint8_t from = 0;
	struct hlua_fn *fn;
	bool created;

	loading_state(L, "register_action");
	luaL_checktype(L, 2, LUA_TTABLE);
	luaL_checktype(L, 3, LUA_TFUNCTION);
	if (nargs < 0 || nargs > 64)
		return luaL_argerror(L, 4, "invalid number of arguments");
	for (lua_Integer i = 1;; i++) {
		const char *k;
		size_t j;

		if (lua_rawgeti(L, 2, i) == LUA_TNIL) {
			lua_pop(L, 1);
			break;
		}
		k = lua_tostring(L, -1);
		for (j = 0; k && j < sizeof(act_kinds) / sizeof(act_kinds[0]); j++)
			if (!strcmp(k, act_kinds[j].name))
				break;
		if (!k || j == sizeof(act_kinds) / sizeof(act_kinds[0]))
			return luaL_error(L,
					  "Lua action '%s': unknown action type '%s' (expects "
					  "http-req, http-res, http-after-res, tcp-req or "
					  "tcp-res)",
					  name, k ? k : "?");
		from |= act_kinds[j].from;
		lua_pop(L, 1);
	}
	if (!from)
		return luaL_error(L, "Lua action '%s': no action type given", name);
	fn = register_fn(L, HLUA_FN_ACTION, name, 3, &created);
	fn->act_from |= from;
	fn->nargs = (int)nargs;
	return 0;
}

/* The service hook (hlua_svc.c): makes lua.NAME known to use-service. */
int hlua_service_declare(struct hlua_fn *fn, char *err, size_t errsz);

/* core.register_service(name, "http"|"tcp", fn) */
static int l_register_service(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	const char *mode = luaL_checkstring(L, 2);
	struct hlua_fn *fn;
	bool created;
	char err[256];

	loading_state(L, "register_service");
	luaL_checktype(L, 3, LUA_TFUNCTION);
	if (strcmp(mode, "http") && strcmp(mode, "tcp"))
		return luaL_error(L, "Lua service '%s': mode must be 'http' or 'tcp', not '%s'",
				  name, mode);
	fn = register_fn(L, HLUA_FN_SERVICE, name, 3, &created);
	if (!created && fn->svc_tcp != !strcmp(mode, "tcp"))
		return luaL_error(L, "Lua service '%s' is registered again with another mode",
				  name);
	fn->svc_tcp = !strcmp(mode, "tcp");
	if (created && hlua_service_declare(fn, err, sizeof(err)) < 0)
		return luaL_error(L, "%s", err);
	return 0;
}

static int register_sample(lua_State *L, int kind, const char *what)
{
	const char *name = luaL_checkstring(L, 1);
	struct hlua_fn *fn;
	bool created;
	char err[256];
	int ret;

	loading_state(L, what);
	luaL_checktype(L, 2, LUA_TFUNCTION);
	fn = register_fn(L, kind, name, 2, &created);
	if (!created)
		return 0;
	ret = kind == HLUA_FN_FETCH ? hlua_fetch_register(fn, err, sizeof(err))
				    : hlua_conv_register(fn, err, sizeof(err));
	if (ret < 0)
		return luaL_error(L, "%s", err);
	return 0;
}

static int l_register_fetches(lua_State *L)
{
	return register_sample(L, HLUA_FN_FETCH, "register_fetches");
}

static int l_register_converters(lua_State *L)
{
	return register_sample(L, HLUA_FN_CONV, "register_converters");
}

static int l_register_task(lua_State *L)
{
	struct hlua_state *st = loading_state(L, "register_task");

	luaL_checktype(L, 1, LUA_TFUNCTION);
	if (hlua_task_add(L, 1, st->id) < 0)
		return luaL_error(L, "out of memory");
	return 0;
}

static int l_register_init(lua_State *L)
{
	struct hlua_state *st = loading_state(L, "register_init");

	luaL_checktype(L, 1, LUA_TFUNCTION);
	if (hlua_init_add(L, 1, st->id) < 0)
		return luaL_error(L, "out of memory");
	return 0;
}

/* The CLI hook (hlua_cli.c): makes the command known to the runtime API. */
int hlua_cli_declare(struct hlua_fn *fn, char *err, size_t errsz);

/* core.register_cli({words...}, help, fn) */
static int l_register_cli(lua_State *L)
{
	const char *help = luaL_checkstring(L, 2);
	char name[256] = "", err[256];
	size_t len = 0, n = 0;
	struct hlua_fn *fn;
	bool created;

	loading_state(L, "register_cli");
	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_checktype(L, 3, LUA_TFUNCTION);
	for (lua_Integer i = 1; i <= 5; i++) {
		const char *w;
		int k;

		if (lua_rawgeti(L, 1, i) == LUA_TNIL) {
			lua_pop(L, 1);
			break;
		}
		w = lua_tostring(L, -1);
		if (!w || !*w || strchr(w, ' '))
			return luaL_error(L, "register_cli: invalid keyword word");
		k = snprintf(name + len, sizeof(name) - len, "%s%s", len ? " " : "", w);
		if (k < 0 || (size_t)k >= sizeof(name) - len)
			return luaL_error(L, "register_cli: keyword too long");
		len += (size_t)k;
		n++;
		lua_pop(L, 1);
	}
	if (!n)
		return luaL_error(L, "register_cli: the keyword needs at least one word");
	if (lua_rawgeti(L, 1, 6) != LUA_TNIL) /* as 2.6: not silently cut */
		return luaL_argerror(L, 1,
				     "1st argument must be a table with a maximum of 5 entries");
	lua_pop(L, 1);
	fn = register_fn(L, HLUA_FN_CLI, name, 3, &created);
	if (!created)
		return 0;
	fn->help = strdup(help);
	if (!fn->help)
		return luaL_error(L, "out of memory");
	if (hlua_cli_declare(fn, err, sizeof(err)) < 0)
		return luaL_error(L, "%s", err);
	return 0;
}

static int l_register_filter(lua_State *L)
{
	return luaL_error(L, "core.register_filter: Lua filters are not supported yet");
}

static int l_disable_legacy_mailers(lua_State *L)
{
	return 0; /* there are no legacy mailers here: nothing to disable */
}

static const luaL_Reg core_fns[] = {
	{ "log", l_log },
	{ "Debug", l_debug },
	{ "Info", l_info },
	{ "Warning", l_warning },
	{ "Alert", l_alert },
	{ "now", l_now },
	{ "sleep", l_sleep },
	{ "msleep", l_msleep },
	{ "yield", l_yield },
	{ "done", l_done },
	{ "set_var", l_set_var },
	{ "unset_var", l_unset_var },
	{ "get_var", l_get_var },
	{ "register_action", l_register_action },
	{ "register_service", l_register_service },
	{ "register_fetches", l_register_fetches },
	{ "register_converters", l_register_converters },
	{ "register_task", l_register_task },
	{ "register_init", l_register_init },
	{ "register_cli", l_register_cli },
	{ "register_filter", l_register_filter },
	{ "disable_legacy_mailers", l_disable_legacy_mailers },
	{ NULL, NULL },
};

void hlua_core_setup(lua_State *L, int id)
{
	lua_newtable(L);
	luaL_setfuncs(L, core_fns, 0);
	for (int i = 0; i < 8; i++) {
		lua_pushinteger(L, i);
		lua_setfield(L, -2, log_names[i]);
	}
	/* core.thread: 0 in the shared state, the thread's number (from 1) in its own */
	lua_pushinteger(L, id);
	lua_setfield(L, -2, "thread");
	lua_setglobal(L, "core");
}
