/* Lua services (core.register_service): each declared function becomes the service
 * "lua.NAME" of "http-request use-service" ("http" ones, through the AppletHTTP class:
 * hlua_applet_http.c) or of "tcp-request content use-service" in mode tcp ("tcp" ones,
 * AppletTCP: hlua_applet_tcp.c). This file owns what both share: the running service and
 * its coroutine (when it may run, how it is woken), the Lua objects and their common
 * methods (variables, priv, receive, getline), and the release. See hlua_applet.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/buf.h>
#include <base/pool.h>
#include <conn/connection.h>
#include <event/loop.h>
#include <stream/action.h>
#include <stream/service.h>
#include <stream/stream.h>

#include "hlua_applet.h"

DECLARE_POOL(pool_hlua_applet, "hlua_applet", sizeof(struct hlua_applet))

/* A declared service: the registered service and its Lua function. */
struct hlua_svc_decl {
	struct http_service svc; /* first: the stream hands us &svc */
	struct hlua_fn *fn;
	char *fname; /* "<lua.NAME>", as HAProxy names it in messages */
};

/* The user values of an applet object: its hidden TXN and the script's own fields, both
 * created on first use (most services need neither), then the fields of its kind. */
#define UV_TXN 1
#define UV_OWN 2
#define UV_FIELDS 3

/* ---- running ---- */

static void applet_wake(struct hlua_ctx *ctx)
{
	struct hlua_applet *a = ctx->owner;

	a->wait = APW_RUN;
	svc_wake(a->svc);
}

static void applet_tmr_cb(struct timer *t)
{
	struct hlua_applet *a = container_of(t, struct hlua_applet, tmr);

	a->wait = APW_RUN;
	svc_wake(a->svc);
}

struct hlua_applet *hlua_applet_new(struct svc_ctx *c, bool tcp, hlua_push_fn push)
{
	const struct hlua_svc_decl *d = (const struct hlua_svc_decl *)c->svc;
	struct hlua_applet *a = pool_alloc(&pool_hlua_applet);
	struct hlua_state *st;
	int ref;

	if (!a)
		return NULL;
	memset(a, 0, sizeof(*a));
	a->svc = c;
	a->fn = d->fn;
	a->tcp = tcp;
	a->obj_ref = LUA_NOREF;
	a->status = 200;
	a->ctx.tref = LUA_NOREF;
	a->tmr.cb = applet_tmr_cb;
	c->priv = a;
	st = hlua_fn_state(d->fn, &ref);
	if (!st) {
		snprintf(a->ctx.err, sizeof(a->ctx.err),
			 "not registered by this thread's Lua state");
		a->ctx.fname = d->fname;
		a->ctx.what = tcp ? "applet tcp" : "applet http";
		goto fail;
	}
	if (hlua_ctx_start(&a->ctx, st, ref, d->fname, tcp ? "applet tcp" : "applet http",
			   hlua_set.service_timeout, true, push, a) < 0)
		goto fail;
	a->ctx.owner = a;
	a->ctx.wake = applet_wake;
	a->ctx.px = c->px;
	return a;
fail:
	hlua_report_err(&a->ctx, c->px);
	a->failed = 1;
	return a;
}

/* Whether the coroutine may run now: what it waits for is there. */
static bool applet_runnable(struct hlua_applet *a)
{
	const char *p;
	size_t len;

	switch (a->wait) {
	case APW_RUN:
		return true;
	case APW_ROOM:
		return a->out && b_room(a->out);
	case APW_INPUT:
		return hlua_applet_in_peek(a, &p, &len) != 0;
	default:
		return false;
	}
}

int hlua_applet_run(struct hlua_applet *a)
{
	enum hlua_ret r;

	if (!applet_runnable(a))
		return -1;
	timer_del(&a->tmr); /* a wake-up came first: the date is over */
	a->wait = APW_OTHER;
	r = hlua_ctx_run(&a->ctx);
	if (r == HLUA_YIELD && a->wait == APW_OTHER && a->ctx.wake_ms)
		timer_set(&a->tmr, a->ctx.wake_ms);
	/* no client timeout while it waits for itself rather than the client */
	a->svc->busy = r == HLUA_YIELD && (a->wait == APW_OTHER || a->wait == APW_RUN);
	return r;
}

void hlua_applet_release(struct svc_ctx *c)
{
	struct hlua_applet *a = c->priv;

	if (!a)
		return;
	c->priv = NULL;
	timer_del(&a->tmr);
	if (a->ctx.st) { /* the object is in the state: under its lock */
		hlua_lock(a->ctx.st);
		hlua_txn_close(a->txn);
		if (a->back)
			*a->back = NULL;
		if (a->obj_ref != LUA_NOREF)
			luaL_unref(a->ctx.st->L, LUA_REGISTRYINDEX, a->obj_ref);
		hlua_unlock(a->ctx.st);
	}
	hlua_ctx_end(&a->ctx);
	b_release(&a->head);
	pool_free(&pool_hlua_applet, a);
}

/* ---- input ---- */

/* The client's bytes of a TCP service, reading the socket when none are buffered. */
static int tcp_in_peek(struct hlua_applet *a, const char **p, size_t *len)
{
	struct conn *f = a->svc->strm->front;

	if (!f->ibuf.data)
		conn_recv(f);
	if (f->ibuf.data) {
		*p = b_head(&f->ibuf);
		*len = f->ibuf.data;
		return 1;
	}
	return (f->flags & (CO_FL_RD_EOF | CO_FL_ERROR)) ? 2 : 0;
}

int hlua_applet_in_peek(struct hlua_applet *a, const char **p, size_t *len)
{
	int r;

	if (a->tcp)
		return tcp_in_peek(a, p, len);
	r = svc_body_peek(a->svc, p, len);
	return r == SVC_BODY_END ? 2 : r;
}

void hlua_applet_in_take(struct hlua_applet *a, size_t n)
{
	if (a->tcp)
		b_del(&a->svc->strm->front->ibuf, (uint32_t)n);
	else
		svc_body_take(a->svc, n);
}

/* ---- the objects ---- */

struct applet_obj {
	struct hlua_applet *a; /* NULL once the service is released */
};

struct hlua_applet *hlua_applet_check(lua_State *L, int idx, const char *cls)
{
	struct applet_obj *o = cls ? luaL_checkudata(L, idx, cls) : NULL;

	if (!cls) {
		o = luaL_testudata(L, idx, CLASS_APPLET_HTTP);
		if (!o)
			o = luaL_checkudata(L, idx, CLASS_APPLET_TCP);
	}
	if (!o->a)
		luaL_error(L, "this applet object is no longer valid (its service is over)");
	/* a script may keep the object in a global of the shared state: only its own call,
	 * on its own thread, may use it */
	if (hlua_cur != &o->a->ctx)
		luaL_error(L, "this applet object belongs to another call");
	return o->a;
}

void hlua_applet_push_obj(lua_State *L, struct hlua_applet *a, const char *cls, int from,
			  int nfields)
{
	struct applet_obj *o = lua_newuserdatauv(L, sizeof(*o), UV_FIELDS + nfields);

	luaL_setmetatable(L, cls);
	o->a = a;
	a->back = &o->a;
	a->txn_from = (uint8_t)from;
	lua_pushvalue(L, -1);
	a->obj_ref = luaL_ref(L, LUA_REGISTRYINDEX);
}

/* Pushes the hidden TXN of the applet object at 1, created on first use. */
static void applet_txn(lua_State *L, struct hlua_applet *a)
{
	if (lua_getiuservalue(L, 1, UV_TXN) != LUA_TNIL)
		return;
	lua_pop(L, 1);
	a->txn = hlua_txn_push(L, a->svc->strm, a->svc->px, a->txn_from, false);
	lua_pushvalue(L, -1);
	lua_setiuservalue(L, 1, UV_TXN);
}

/* __index: the methods (upvalue 1), the kind's fields (upvalue 2 maps their names to their
 * slot; 0 for f, sf, c and sc, which are the TXN's), then the script's own fields. */
static int applet_index(lua_State *L)
{
	lua_Integer slot;

	lua_settop(L, 2);
	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
		return 1;
	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(2)) == LUA_TNUMBER) {
		slot = lua_tointeger(L, -1);
		if (slot) {
			lua_getiuservalue(L, 1, (int)slot);
			return 1;
		}
		applet_txn(L, hlua_applet_check(L, 1, NULL));
		lua_pushvalue(L, 2);
		lua_gettable(L, -2); /* the TXN's own Fetches or Converters */
		return 1;
	}
	if (lua_getiuservalue(L, 1, UV_OWN) != LUA_TTABLE)
		return 0;
	lua_pushvalue(L, 2);
	lua_rawget(L, -2);
	return 1;
}

/* __newindex: a script's own fields go to a table of their own. */
static int applet_newindex(lua_State *L)
{
	lua_settop(L, 3);
	if (lua_getiuservalue(L, 1, UV_OWN) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_pushvalue(L, -1);
		lua_setiuservalue(L, 1, UV_OWN);
	}
	lua_pushvalue(L, 2);
	lua_pushvalue(L, 3);
	lua_rawset(L, -3);
	return 0;
}

/* The methods the TXN has too (upvalue: the name): called on the hidden TXN. */
static int applet_fwd(lua_State *L)
{
	const char *name = lua_tostring(L, lua_upvalueindex(1));
	struct hlua_applet *a = hlua_applet_check(L, 1, NULL);
	int n = lua_gettop(L);

	applet_txn(L, a);
	lua_getfield(L, n + 1, name);
	lua_pushvalue(L, n + 1);
	for (int i = 2; i <= n; i++)
		lua_pushvalue(L, i);
	lua_call(L, n, LUA_MULTRET);
	return lua_gettop(L) - (n + 1);
}

/* receive([size]) and getline(): the input read so far waits on the stack, in pieces
 * joined every so often (a body may arrive in many pieces). <k>: bytes still wanted, -1
 * for everything up to the end, -2 for a line. */
#define IN_ALL (-1)
#define IN_LINE (-2)
#define IN_PIECES 32

static int in_read_k(lua_State *L, int status, lua_KContext k)
{
	struct hlua_applet *a = hlua_applet_check(L, 1, NULL);
	lua_Integer want = (lua_Integer)k;

	while (want) {
		const char *p, *nl = NULL;
		size_t len, n;
		int r = hlua_applet_in_peek(a, &p, &len);

		if (r < 0) {
			a->in_failed = 1;
			return luaL_error(L, "the request body is invalid or the client left");
		}
		if (r == 2)
			break;
		if (r == 0) {
			a->wait = APW_INPUT;
			return hlua_yield(L, 0, false, in_read_k, (lua_KContext)want);
		}
		n = len;
		if (want == IN_LINE && (nl = memchr(p, '\n', len)))
			n = (size_t)(nl - p) + 1;
		else if (want > 0 && (lua_Integer)n > want)
			n = (size_t)want;
		if (lua_gettop(L) > IN_PIECES)
			lua_concat(L, lua_gettop(L) - 1);
		luaL_checkstack(L, 2, "applet input");
		lua_pushlstring(L, p, n);
		hlua_applet_in_take(a, n); /* <p> may move */
		if (want > 0)
			want -= (lua_Integer)n;
		if (nl)
			break; /* the end of the line */
	}
	lua_concat(L, lua_gettop(L) - 1); /* "" when nothing was read */
	return 1;
}

/* send(data): copies into the output the dump gives, waiting for room as it needs; the
 * stack holds the applet, the data and how many of its bytes go out. */
int hlua_applet_send_k(lua_State *L, int status, lua_KContext k)
{
	struct hlua_applet *a = hlua_applet_check(L, 1, NULL);
	const char *d = lua_tostring(L, 2);
	size_t len = (size_t)lua_tointeger(L, 3), off = (size_t)k;

	while (off < len) {
		size_t room = a->out ? b_room(a->out) : 0, n = len - off;

		if (!room) {
			a->wait = APW_ROOM;
			return hlua_yield(L, 0, false, hlua_applet_send_k, (lua_KContext)off);
		}
		if (n > room)
			n = room;
		memcpy(b_tail(a->out), d + off, n);
		a->out->data += (uint32_t)n;
		off += n;
	}
	return 0;
}

static int applet_receive(lua_State *L)
{
	lua_Integer size = luaL_optinteger(L, 2, IN_ALL);

	hlua_applet_check(L, 1, NULL);
	lua_settop(L, 1);
	if (size == 0) {
		lua_pushliteral(L, "");
		return 1;
	}
	return in_read_k(L, LUA_OK, (lua_KContext)(size < 0 ? IN_ALL : size));
}

static int applet_getline(lua_State *L)
{
	hlua_applet_check(L, 1, NULL);
	lua_settop(L, 1);
	return in_read_k(L, LUA_OK, (lua_KContext)IN_LINE);
}

const luaL_Reg hlua_applet_methods[] = {
	{ "receive", applet_receive },
	{ "getline", applet_getline },
	{ NULL, NULL },
};

/* The methods forwarded to the TXN. */
static const char *const applet_fwd_names[] = { "set_var", "get_var", "unset_var", "set_priv",
						"get_priv" };

void hlua_applet_class(lua_State *L, const char *cls, const luaL_Reg *methods,
		       const char *const *fields)
{
	static const char *const txn_subs[] = { "f", "sf", "c", "sc" };

	if (luaL_getmetatable(L, cls) != LUA_TNIL) {
		lua_pop(L, 1);
		return;
	}
	lua_pop(L, 1);
	luaL_newmetatable(L, cls);
	lua_newtable(L); /* the methods */
	luaL_setfuncs(L, hlua_applet_methods, 0);
	luaL_setfuncs(L, methods, 0);
	for (size_t i = 0; i < sizeof(applet_fwd_names) / sizeof(applet_fwd_names[0]); i++) {
		lua_pushstring(L, applet_fwd_names[i]);
		lua_pushcclosure(L, applet_fwd, 1);
		lua_setfield(L, -2, applet_fwd_names[i]);
	}
	lua_newtable(L); /* field name -> slot */
	for (int i = 0; fields && fields[i]; i++) {
		lua_pushinteger(L, UV_FIELDS + i);
		lua_setfield(L, -2, fields[i]);
	}
	for (size_t i = 0; i < sizeof(txn_subs) / sizeof(txn_subs[0]); i++) {
		lua_pushinteger(L, 0);
		lua_setfield(L, -2, txn_subs[i]);
	}
	lua_pushcclosure(L, applet_index, 2);
	lua_setfield(L, -2, "__index");
	lua_pushcfunction(L, applet_newindex);
	lua_setfield(L, -2, "__newindex");
	lua_pushstring(L, cls);
	lua_setfield(L, -2, "__name");
	lua_pop(L, 1);
}

/* ---- declaration ---- */

static void svc_release_cb(struct svc_ctx *c)
{
	hlua_applet_release(c);
}

int hlua_service_declare(struct hlua_fn *fn, char *err, size_t errsz)
{
	struct hlua_svc_decl *d = calloc(1, sizeof(*d));
	size_t n = strlen(fn->name) + 7;
	char *name = malloc(n), *fname = malloc(n);

	if (!d || !name || !fname) {
		free(d);
		free(name);
		free(fname);
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	snprintf(name, n, "lua.%s", fn->name);
	snprintf(fname, n, "<lua.%s>", fn->name);
	d->fn = fn;
	d->fname = fname;
	d->svc.name = name;
	d->svc.log_name = fname;
	d->svc.tcp = fn->svc_tcp;
	d->svc.start = fn->svc_tcp ? hlua_applet_tcp_start : hlua_applet_http_start;
	d->svc.dump = fn->svc_tcp ? hlua_applet_tcp_dump : hlua_applet_http_dump;
	d->svc.release = svc_release_cb;
	fn->priv = d;
	service_register(&d->svc);
	return 0;
}
