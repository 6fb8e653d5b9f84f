/* The Lua runtime: the states (shared and per thread) with their memory accounting
 * (tune.lua.maxmem), the registry of functions scripts register, the coroutine runner
 * with its instruction-count hook (forced yields, run-time limits), error reports with
 * the script's file and line, and the helpers that define classes. See hlua_int.h.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <lualib.h>

#include <base/atomic.h>
#include <cfg/cfg.h>
#include <event/loop.h>
#include <log/log.h>
#include <proc/global-t.h>
#include <proxy/proxy-t.h>

#include "hlua_int.h"

struct hlua_settings hlua_set = {
	.forced_yield = 10000,
	.session_timeout = 4000,
	.service_timeout = 4000,
	.task_timeout = 0,
	.burst_timeout = 1000,
	.log_loggers = 1,
	.log_stderr = 2,
	.bool_smp_conv = 1,
	.openlibs = HLUA_LIB_ALL,
};

struct hlua_state *hlua_states[HLUA_STATES];
int hlua_nb_states;
bool hlua_per_thread_used;
struct list hlua_fns = LIST_HEAD_INIT(hlua_fns);
__thread struct hlua_ctx *hlua_cur;
/* When this thread last entered a state (for the hook's burst limit outside calls). */
__thread uint64_t hlua_enter_ns;
extern struct hlua_state *hlua_loading; /* hlua_cfg.c: the state whose files load */
char hlua_done_key;

/* The shared state is entered by any thread: one recursive lock serialises it, as
 * HAProxy's lua-load does (a Lua fetch called from a Lua action of the same state
 * re-enters it). Per-thread states never take it. */
static pthread_mutex_t hlua_shared_lock;
static uint64_t hlua_mem_total; /* all states, only kept when tune.lua.maxmem is set */

__attribute__((constructor)) static void hlua_lock_init(void)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	pthread_mutex_init(&hlua_shared_lock, &a);
	pthread_mutexattr_destroy(&a);
}

void hlua_lock(struct hlua_state *st)
{
	if (st->id == 0)
		pthread_mutex_lock(&hlua_shared_lock);
	hlua_enter_ns = hlua_now_ns();
}

void hlua_unlock(struct hlua_state *st)
{
	if (st->id == 0)
		pthread_mutex_unlock(&hlua_shared_lock);
}

uint64_t hlua_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- memory ---- */

static void *hlua_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	struct hlua_state *st = ud;
	size_t old = ptr ? osize : 0;
	void *p;

	if (!nsize) {
		free(ptr);
		st->mem -= old;
		if (hlua_set.maxmem)
			HA_ATOMIC_SUB(&hlua_mem_total, old);
		return NULL;
	}
	if (hlua_set.maxmem && nsize > old) {
		uint64_t total = HA_ATOMIC_ADD(&hlua_mem_total, nsize - old);

		if (total > hlua_set.maxmem) {
			HA_ATOMIC_SUB(&hlua_mem_total, nsize - old);
			return NULL; /* Lua raises "not enough memory" */
		}
	}
	p = realloc(ptr, nsize);
	if (!p) {
		if (hlua_set.maxmem && nsize > old)
			HA_ATOMIC_SUB(&hlua_mem_total, nsize - old);
		return NULL;
	}
	if (hlua_set.maxmem && nsize < old)
		HA_ATOMIC_SUB(&hlua_mem_total, old - nsize);
	st->mem += nsize - old;
	return p;
}

/* tune.lua.maxmem was given (while the configuration is read, before any thread runs):
 * the total is kept from now on, starting from what the states loaded so far hold, so
 * that freeing their memory later cannot take it below zero. */
void hlua_mem_recount(void)
{
	uint64_t sum = 0;

	for (int i = 0; i < HLUA_STATES; i++)
		if (hlua_states[i])
			sum += hlua_states[i]->mem;
	hlua_mem_total = sum;
}

/* ---- states ---- */

static int hlua_panic(lua_State *L)
{
	const char *msg = lua_tostring(L, -1);

	ha_alert("Lua: unprotected error: %s\n", msg ? msg : "(no message)");
	abort();
}

static const struct {
	const char *name;
	lua_CFunction open;
} hlua_libs[] = {
	{ LUA_GNAME, luaopen_base },	      { LUA_LOADLIBNAME, luaopen_package },
	{ LUA_COLIBNAME, luaopen_coroutine }, { LUA_TABLIBNAME, luaopen_table },
	{ LUA_IOLIBNAME, luaopen_io },	      { LUA_OSLIBNAME, luaopen_os },
	{ LUA_STRLIBNAME, luaopen_string },   { LUA_MATHLIBNAME, luaopen_math },
	{ LUA_UTF8LIBNAME, luaopen_utf8 },    { LUA_DBLIBNAME, luaopen_debug },
};

/* tune.lua.openlibs names, in the order of hlua_libs (bit i). */
const char *const hlua_lib_names[10] = { "base", "package", "coroutine", "table", "io",
					 "os",	 "string",  "math",	 "utf8",  "debug" };

static void hlua_open_libs(lua_State *L)
{
	for (size_t i = 0; i < sizeof(hlua_libs) / sizeof(hlua_libs[0]); i++) {
		if (i != 0 && i != 2 && !(hlua_set.openlibs & (1u << i)))
			continue; /* base and coroutine are always there: the API needs them */
		luaL_requiref(L, hlua_libs[i].name, hlua_libs[i].open, 1);
		lua_pop(L, 1);
	}
}

/* Prepends lua-prepend-path entries to package.path/cpath. */
static void hlua_prepend_paths(lua_State *L)
{
	static const char *const field[2] = { "path", "cpath" };

	lua_getglobal(L, "package");
	if (!lua_istable(L, -1)) {
		lua_pop(L, 1);
		return;
	}
	for (int i = 0; i < 2; i++) {
		if (!hlua_set.prepend_path[i])
			continue;
		lua_getfield(L, -1, field[i]);
		lua_pushfstring(L, "%s;%s", hlua_set.prepend_path[i],
				lua_isstring(L, -1) ? lua_tostring(L, -1) : "");
		lua_setfield(L, -3, field[i]);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
}

static void hlua_hook(lua_State *L, lua_Debug *ar);

/* A script's __gc, run in a coroutine of its own: Lua runs finalizers with the hooks off,
 * so one that never returns would keep its thread for ever; in a coroutine the hook runs
 * again and ends it at the burst limit (its error is dropped, as Lua drops a finalizer's
 * errors). Upvalue 1: the script's function. */
static int hlua_gc_trampoline(lua_State *L)
{
	lua_State *co;
	int nres;

	if (!lua_checkstack(L, 3))
		return 0;
	co = lua_newthread(L);
	*(struct hlua_ctx **)lua_getextraspace(co) = NULL;
	lua_sethook(co, hlua_hook, LUA_MASKCOUNT, (int)hlua_set.forced_yield);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_pushvalue(L, 1);
	lua_xmove(L, co, 2);
	if (!hlua_cur)
		hlua_enter_ns = hlua_now_ns(); /* the burst limit counts from here */
	if (lua_resume(co, L, 1, &nres) == LUA_YIELD)
		lua_pop(co, nres); /* a finalizer that yields is simply not resumed */
	lua_pop(L, 1);
	return 0;
}

/* setmetatable(t, mt): a function __gc of <mt> runs through hlua_gc_trampoline. Upvalue
 * 1: Lua's setmetatable. */
static int hlua_setmetatable(lua_State *L)
{
	if (lua_type(L, 2) == LUA_TTABLE && lua_getfield(L, 2, "__gc") == LUA_TFUNCTION &&
	    lua_tocfunction(L, -1) != hlua_gc_trampoline) {
		lua_pushcclosure(L, hlua_gc_trampoline, 1);
		lua_setfield(L, 2, "__gc");
	} else {
		lua_pop(L, 1);
	}
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, lua_gettop(L) - 1, 1);
	return 1;
}

/* Protected: the libraries and the API of a new state (the integer id at 1). */
static int hlua_setup_cb(lua_State *L)
{
	int id = (int)lua_tointeger(L, 1);

	hlua_open_libs(L);
	lua_getglobal(L, "setmetatable");
	lua_pushcclosure(L, hlua_setmetatable, 1);
	lua_setglobal(L, "setmetatable");
	hlua_prepend_paths(L);
	hlua_core_setup(L, id);
	hlua_txn_setup(L);
	hlua_http_setup(L);
	hlua_ext_setup(L);
	return 0;
}

/* Creates state <id> with the libraries and the API. Returns it, or NULL. */
struct hlua_state *hlua_state_new(int id)
{
	struct hlua_state *st = calloc(1, sizeof(*st));

	if (!st)
		return NULL;
	st->id = id;
	st->L = lua_newstate(hlua_alloc, st);
	if (!st->L) {
		free(st);
		return NULL;
	}
	lua_atpanic(st->L, hlua_panic);
	/* coroutines a script creates copy the main thread's extra space: no context */
	*(struct hlua_ctx **)lua_getextraspace(st->L) = NULL;
	lua_pushcfunction(st->L, hlua_setup_cb);
	lua_pushinteger(st->L, id);
	if (lua_pcall(st->L, 1, 0, 0) != LUA_OK) { /* tune.lua.maxmem too small... */
		ha_alert("Lua: cannot prepare a state: %s.\n", lua_type(st->L, -1) == LUA_TSTRING
								       ? lua_tostring(st->L, -1)
								       : "not enough memory");
		lua_close(st->L);
		free(st);
		return NULL;
	}
	/* the main thread runs the finalizers of collections started there: the hook bounds
	 * them too (a __gc that never returns) */
	lua_sethook(st->L, hlua_hook, LUA_MASKCOUNT, (int)hlua_set.forced_yield);
	hlua_states[id] = st;
	if (id >= hlua_nb_states)
		hlua_nb_states = id + 1;
	return st;
}

void hlua_state_free(struct hlua_state *st)
{
	if (!st)
		return;
	hlua_states[st->id] = NULL;
	lua_close(st->L);
	free(st);
}

/* ---- registered functions ---- */

struct hlua_fn *hlua_fn_find(int kind, const char *name)
{
	struct hlua_fn *fn;

	list_for_each_entry(fn, &hlua_fns,
			    list) if (fn->kind == kind && !strcmp(fn->name, name)) return fn;
	return NULL;
}

struct hlua_state *hlua_fn_state(const struct hlua_fn *fn, int *ref)
{
	int id = fn->ref[0] != LUA_NOREF ? 0 : (int)tid + 1;

	if (id >= HLUA_STATES || !hlua_states[id] || fn->ref[id] == LUA_NOREF)
		return NULL;
	*ref = fn->ref[id];
	return hlua_states[id];
}

/* ---- contexts ---- */

static void hlua_hook(lua_State *L, lua_Debug *ar);

struct hlua_start_args {
	struct hlua_ctx *ctx;
	int ref;
	hlua_push_fn push;
	void *arg;
};

/* Runs protected on the state's main thread: creates and anchors the coroutine, pushes
 * the function and the caller's arguments on it. A memory error anywhere here is caught
 * by the pcall instead of reaching the panic handler. */
static int hlua_start_cb(lua_State *L)
{
	struct hlua_start_args *a = lua_touserdata(L, 1);
	struct hlua_ctx *ctx = a->ctx;
	struct hlua_state *st = ctx->st;
	lua_State *T;
	int n;

	if (st->nspare) {
		st->nspare--;
		T = st->spare[st->nspare];
		ctx->T = T;
		ctx->tref = st->spare_ref[st->nspare];
	} else {
		T = lua_newthread(L);
		ctx->T = T;
		ctx->tref = luaL_ref(L, LUA_REGISTRYINDEX); /* pops the thread */
	}
	*(struct hlua_ctx **)lua_getextraspace(T) = ctx;
	luaL_checkstack(T, LUA_MINSTACK, NULL);
	lua_rawgeti(T, LUA_REGISTRYINDEX, a->ref);
	n = a->push ? a->push(T, a->arg) : 0;
	if (n < 0)
		return luaL_error(L, "%s", "cannot prepare the call");
	ctx->nargs = (uint8_t)n;
	return 0;
}

int hlua_ctx_start(struct hlua_ctx *ctx, struct hlua_state *st, int ref, const char *fname,
		   const char *what, uint32_t timeout_ms, bool yieldable, hlua_push_fn push,
		   void *arg)
{
	struct hlua_start_args a = { ctx, ref, push, arg };
	lua_State *L = st->L;
	int ret;

	ctx->st = st;
	ctx->T = NULL;
	ctx->tref = LUA_NOREF;
	ctx->fname = fname;
	ctx->what = what;
	ctx->run_ns = 0;
	ctx->timeout_ns = (uint64_t)timeout_ms * 1000000ull;
	ctx->wake_ms = 0;
	ctx->yieldable = yieldable;
	ctx->dead = 0;
	ctx->started = 0;
	ctx->nargs = 0;
	ctx->done = 0;
	ctx->err[0] = 0;
	hlua_lock(st);
	lua_pushcfunction(L, hlua_start_cb);
	lua_pushlightuserdata(L, &a);
	ret = lua_pcall(L, 1, 0, 0);
	if (ret != LUA_OK) {
		snprintf(ctx->err, sizeof(ctx->err), "[state-id %d] %s", st->id,
			 ret == LUA_ERRMEM		  ? "out of memory error"
			 : lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1)
							  : "cannot start");
		lua_pop(L, 1);
		if (ctx->tref != LUA_NOREF)
			luaL_unref(L, LUA_REGISTRYINDEX, ctx->tref);
		ctx->T = NULL;
		ctx->tref = LUA_NOREF;
		hlua_unlock(st);
		return -1;
	}
	hlua_unlock(st);
	return 0;
}

struct hlua_ctx *hlua_ctx_of(lua_State *L)
{
	struct hlua_ctx *ctx = *(struct hlua_ctx **)lua_getextraspace(L);

	/* a coroutine the script created has none: it runs for the innermost context */
	return ctx ? ctx : hlua_cur;
}

/* Appends to <out> the first Lua frames of <T> ("from FILE:LINE: in function ..."),
 * which locate an error in the script. */
static void hlua_traceback(lua_State *T, char *out, size_t outsz)
{
	lua_Debug ar;
	size_t len = strlen(out);
	int lvl, shown = 0;

	for (lvl = 0; shown < 3 && lua_getstack(T, lvl, &ar); lvl++) {
		int n;

		if (!lua_getinfo(T, "Sln", &ar))
			break;
		if (*ar.what == 'C')
			n = snprintf(out + len, outsz - len, "%s[C]: in %s '%s'",
				     shown ? ", " : " from ",
				     ar.namewhat && *ar.namewhat ? ar.namewhat : "function",
				     ar.name ? ar.name : "?");
		else
			n = snprintf(out + len, outsz - len, "%s%s:%d: in function line %d",
				     shown ? ", " : " from ", ar.short_src, ar.currentline,
				     ar.linedefined);
		if (n < 0 || (size_t)n >= outsz - len)
			break;
		len += (size_t)n;
		shown++;
	}
}

static void hlua_set_err(struct hlua_ctx *ctx, int status)
{
	const char *msg = lua_type(ctx->T, -1) == LUA_TSTRING ? lua_tostring(ctx->T, -1) : NULL;
	const char *kind = status == LUA_ERRMEM ? "out of memory error" : "runtime error";

	if (ctx->dead == 2)
		kind = "execution timeout";
	else if (ctx->dead == 3)
		kind = "burst timeout";
	if (ctx->dead >= 2) {
		snprintf(ctx->err, sizeof(ctx->err), "[state-id %d] %s", ctx->st->id, kind);
	} else {
		snprintf(ctx->err, sizeof(ctx->err), "[state-id %d] %s: %s", ctx->st->id, kind,
			 msg ? msg
			     : (status == LUA_ERRMEM ? "not enough memory" : "unknown error"));
	}
	hlua_traceback(ctx->T, ctx->err, sizeof(ctx->err));
}

enum hlua_ret hlua_ctx_run(struct hlua_ctx *ctx)
{
	struct hlua_ctx *prev = hlua_cur;
	lua_State *T = ctx->T;
	int nres = 0, status, nargs;
	enum hlua_ret ret = HLUA_ERR;
	uint64_t end;

	hlua_lock(ctx->st);
	nargs = ctx->started ? 0 : ctx->nargs;
	ctx->started = 1;
	ctx->wake_ms = 0;
	ctx->forced = 0;
	hlua_cur = ctx;
	lua_sethook(T, hlua_hook, LUA_MASKCOUNT, ctx->dead ? 1 : (int)hlua_set.forced_yield);
	ctx->burst_ns = hlua_now_ns();
	status = lua_resume(T, NULL, nargs, &nres);
	end = hlua_now_ns();
	ctx->run_ns += end - ctx->burst_ns;
	hlua_cur = prev;
	/* the stack of T is only touched under the lock: another thread running in the
	 * shared state may collect or allocate meanwhile */
	if (status == LUA_YIELD) {
		lua_pop(T, nres); /* what a yield passes is of no use here */
		ret = HLUA_YIELD;
	} else if (status == LUA_OK) {
		ret = HLUA_OK;
	} else if (ctx->done && lua_touserdata(T, -1) == &hlua_done_key) {
		/* core.done(value): the function's result is that value */
		lua_settop(T, 0);
		lua_rawgetp(T, LUA_REGISTRYINDEX, &hlua_done_key);
		lua_pushnil(T);
		lua_rawsetp(T, LUA_REGISTRYINDEX, &hlua_done_key);
		ret = HLUA_OK;
	} else {
		hlua_set_err(ctx, status);
	}
	hlua_unlock(ctx->st);
	return ret;
}

int hlua_ctx_nres(const struct hlua_ctx *ctx)
{
	return lua_gettop(ctx->T);
}

void hlua_ctx_end(struct hlua_ctx *ctx)
{
	if (!ctx->T)
		return;
	hlua_lock(ctx->st);
	lua_settop(ctx->T, 0);
	*(struct hlua_ctx **)lua_getextraspace(ctx->T) = NULL;
	if (ctx->st->nspare < HLUA_SPARE_THREADS && lua_resetthread(ctx->T) == LUA_OK) {
		ctx->st->spare[ctx->st->nspare] = ctx->T;
		ctx->st->spare_ref[ctx->st->nspare] = ctx->tref;
		ctx->st->nspare++;
	} else {
		luaL_unref(ctx->st->L, LUA_REGISTRYINDEX, ctx->tref);
	}
	hlua_unlock(ctx->st);
	ctx->T = NULL;
	ctx->tref = LUA_NOREF;
	hlua_sock_ctx_end(ctx); /* hlua_sockio.c: its sockets forget it */
}

/* Every tune.lua.forced-yield instructions: enforces the run-time limits, and yields a
 * yieldable context so that the loop serves other work before going on. */
static void hlua_hook(lua_State *L, lua_Debug *ar)
{
	struct hlua_ctx *ctx = hlua_ctx_of(L);
	uint64_t now, burst;

	if (!ctx) {
		/* a finalizer run by a collection outside any call (creating a coroutine,
		 * a collection asked by C code): only the burst limit, not while loading */
		if (!hlua_loading && hlua_enter_ns && hlua_set.burst_timeout &&
		    hlua_now_ns() - hlua_enter_ns > (uint64_t)hlua_set.burst_timeout * 1000000ull)
			luaL_error(L, "burst timeout");
		return;
	}
	if (ctx->dead) {
		lua_sethook(L, hlua_hook, LUA_MASKCOUNT, 1); /* even inside a pcall */
		luaL_error(L, "execution timeout");
	}
	now = hlua_now_ns();
	burst = now - ctx->burst_ns;
	if (ctx->timeout_ns && ctx->run_ns + burst > ctx->timeout_ns) {
		ctx->dead = 2;
		lua_sethook(L, hlua_hook, LUA_MASKCOUNT, 1);
		luaL_error(L, "execution timeout");
	}
	if (ctx->yieldable && L == ctx->T && lua_isyieldable(L)) {
		ctx->wake_ms = 0;
		ctx->forced = 1;
		if (ctx->wake)
			ctx->wake(ctx); /* next turn */
		lua_yield(L, 0);
		return;
	}
	if (hlua_set.burst_timeout && burst > (uint64_t)hlua_set.burst_timeout * 1000000ull &&
	    (!ctx->yieldable || L != ctx->T)) {
		ctx->dead = 3;
		lua_sethook(L, hlua_hook, LUA_MASKCOUNT, 1);
		luaL_error(L, "burst timeout");
	}
}

int hlua_yield(lua_State *L, uint64_t wake_ms, bool next_turn, lua_KFunction k, lua_KContext kctx)
{
	struct hlua_ctx *ctx = hlua_ctx_of(L);

	if (!ctx || !ctx->yieldable || !lua_isyieldable(L))
		return luaL_error(L, "cannot yield from this context");
	if (L != ctx->T) /* a script's own coroutine: back to the script that resumed it */
		return lua_yieldk(L, 0, kctx, k);
	ctx->wake_ms = wake_ms;
	if (next_turn && ctx->wake)
		ctx->wake(ctx);
	return lua_yieldk(L, 0, kctx, k);
}

void hlua_report_err(const struct hlua_ctx *ctx, struct proxy *px)
{
	if (!global.quiet)
		ha_alert("Lua %s '%s': %s.\n", ctx->what, ctx->fname, ctx->err);
	log_sendf(px, 3 /* err */, "Lua %s '%s': %s.", ctx->what, ctx->fname, ctx->err);
}

/* ---- classes ---- */

void hlua_class_new(lua_State *L, const char *name, const luaL_Reg *methods, lua_CFunction index,
		    lua_CFunction gc)
{
	luaL_newmetatable(L, name);
	lua_newtable(L);
	if (methods)
		luaL_setfuncs(L, methods, 0);
	if (index) {
		lua_pushcclosure(L, index, 1);
	}
	lua_setfield(L, -2, "__index");
	if (gc) {
		lua_pushcfunction(L, gc);
		lua_setfield(L, -2, "__gc");
	}
	lua_pushstring(L, name);
	lua_setfield(L, -2, "__name");
	lua_pop(L, 1);
}

void *hlua_obj_new(lua_State *L, const char *name, size_t size)
{
	void *p = lua_newuserdatauv(L, size, 1);

	memset(p, 0, size);
	luaL_setmetatable(L, name);
	return p;
}

void *hlua_obj_check(lua_State *L, int idx, const char *name)
{
	return luaL_checkudata(L, idx, name);
}
