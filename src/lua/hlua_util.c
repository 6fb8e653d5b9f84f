/* core.concat (the Concat class), core.tokenize, core.parse_addr and core.match_addr (the
 * network objects they compare), and core.queue (the Queue class: a FIFO of Lua values
 * shared by the contexts of one state, with pop_wait for those that may yield). Nothing
 * here touches the proxy: these are helpers over Lua values, safe in every context.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <event/loop.h>

#include "hlua_int.h"

#define CLASS_CONCAT "Concat"
#define CLASS_ADDR "Addr"
#define CLASS_QUEUE "Queue"

/* ---- Concat ---- */

/* The bytes live in a Lua userdata (the object's user value), so that what a script
 * builds counts in tune.lua.maxmem and goes with the garbage collector; it doubles when
 * full, so add() is amortised O(length added). */
struct hlua_concat {
	size_t len, cap;
};

static int concat_new(lua_State *L)
{
	hlua_obj_new(L, CLASS_CONCAT, sizeof(struct hlua_concat));
	return 1;
}

/* concat:add(string): numbers are taken as their text, anything else is an error */
static int concat_add(lua_State *L)
{
	struct hlua_concat *c = hlua_obj_check(L, 1, CLASS_CONCAT);
	size_t len;
	const char *s;
	char *buf;

	if (lua_type(L, 2) != LUA_TSTRING && lua_type(L, 2) != LUA_TNUMBER)
		return luaL_typeerror(L, 2, "string");
	s = lua_tolstring(L, 2, &len);
	if (!len)
		return 0;
	if (len > ((size_t)-1) / 4 - c->len)
		return luaL_error(L, "concat: string too long");
	lua_getiuservalue(L, 1, 1);
	buf = lua_touserdata(L, -1);
	if (c->len + len > c->cap) {
		size_t cap = c->cap ? c->cap : 64;
		char *nb;

		while (cap < c->len + len)
			cap *= 2;
		nb = lua_newuserdatauv(L, cap, 0);
		if (c->len)
			memcpy(nb, buf, c->len);
		lua_setiuservalue(L, 1, 1);
		c->cap = cap;
		buf = nb;
	}
	memcpy(buf + c->len, s, len);
	c->len += len;
	return 0;
}

/* concat:dump(): what was added so far */
static int concat_dump(lua_State *L)
{
	struct hlua_concat *c = hlua_obj_check(L, 1, CLASS_CONCAT);
	const char *buf;

	lua_getiuservalue(L, 1, 1);
	buf = lua_touserdata(L, -1);
	lua_pushlstring(L, buf ? buf : "", buf ? c->len : 0);
	return 1;
}

static const luaL_Reg concat_methods[] = {
	{ "add", concat_add },
	{ "dump", concat_dump },
	{ NULL, NULL },
};

/* ---- tokenize ---- */

/* core.tokenize(str, separators [, noblank]): the pieces of <str> between any of the
 * separator bytes; empty pieces are kept unless <noblank> (a boolean) is true. */
static int l_tokenize(lua_State *L)
{
	size_t len, nsep;
	const char *s = luaL_checklstring(L, 1, &len);
	const char *sep = luaL_checklstring(L, 2, &nsep);
	bool noblank = false;
	size_t start = 0;
	lua_Integer n = 0;

	if (lua_gettop(L) >= 3) {
		luaL_checktype(L, 3, LUA_TBOOLEAN);
		noblank = lua_toboolean(L, 3);
	}
	lua_newtable(L);
	for (size_t i = 0; i <= len; i++) {
		if (i < len && !memchr(sep, s[i], nsep))
			continue;
		if (!noblank || i > start) {
			lua_pushlstring(L, s + start, i - start);
			lua_rawseti(L, -2, ++n);
		}
		start = i + 1;
	}
	return 1;
}

/* ---- networks ---- */

struct hlua_addr {
	int family; /* AF_INET, AF_INET6 */
	union {
		struct in_addr v4;
		struct in6_addr v6;
	} addr, mask;
};

/* A prefix length "0".."max" (digits only); -1 otherwise. */
static int parse_plen(const char *s, int max)
{
	int n = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		n = n * 10 + (*s - '0');
		if (n > max)
			return -1;
	}
	return n;
}

static void v6_mask(struct in6_addr *m, int plen)
{
	memset(m, 0, sizeof(*m));
	for (int i = 0; i < 16; i++, plen -= 8)
		m->s6_addr[i] = plen >= 8 ? 0xff : plen > 0 ? (uint8_t)(0xff << (8 - plen)) : 0;
}

/* "ADDR[/LEN]" or "IPv4/DOTTED-MASK" into <a>; 0, or -1 when it is not one. Addresses
 * are not resolved: a host name is not an address here. */
static int addr_parse(const char *str, size_t len, struct hlua_addr *a)
{
	char buf[INET6_ADDRSTRLEN + 1 + INET6_ADDRSTRLEN];
	char *slash;
	int plen;

	if (len >= sizeof(buf) || memchr(str, 0, len))
		return -1;
	memcpy(buf, str, len);
	buf[len] = 0;
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = 0;
	if (inet_pton(AF_INET, buf, &a->addr.v4) == 1) {
		a->family = AF_INET;
		if (slash && strchr(slash, '.'))
			return inet_pton(AF_INET, slash, &a->mask.v4) == 1 ? 0 : -1;
		plen = slash ? parse_plen(slash, 32) : 32;
		if (plen < 0)
			return -1;
		a->mask.v4.s_addr = plen ? htonl(0xffffffffu << (32 - plen)) : 0;
		return 0;
	}
	if (inet_pton(AF_INET6, buf, &a->addr.v6) == 1) {
		a->family = AF_INET6;
		plen = slash ? parse_plen(slash, 128) : 128;
		if (plen < 0)
			return -1;
		v6_mask(&a->mask.v6, plen);
		return 0;
	}
	return -1;
}

/* core.parse_addr(str): a network object for core.match_addr, or nil */
static int l_parse_addr(lua_State *L)
{
	size_t len;
	const char *s = luaL_checklstring(L, 1, &len);
	struct hlua_addr a = { 0 };

	if (addr_parse(s, len, &a) < 0) {
		lua_pushnil(L);
		return 1;
	}
	*(struct hlua_addr *)hlua_obj_new(L, CLASS_ADDR, sizeof(a)) = a;
	return 1;
}

/* core.match_addr(a, b): true when each address, under the other's mask, is the other's
 * network (so "127.0.0.1/32" matches "127.0.0.0/8", whatever the order); false for
 * networks of different families, or anything that is not from core.parse_addr. */
static int l_match_addr(lua_State *L)
{
	const struct hlua_addr *a = luaL_testudata(L, 1, CLASS_ADDR);
	const struct hlua_addr *b = luaL_testudata(L, 2, CLASS_ADDR);
	bool ok = a && b && a->family == b->family;

	if (ok && a->family == AF_INET) {
		ok = (a->addr.v4.s_addr & b->mask.v4.s_addr) ==
		     (b->addr.v4.s_addr & a->mask.v4.s_addr);
	} else if (ok) {
		for (int i = 0; ok && i < 16; i++)
			ok = (a->addr.v6.s6_addr[i] & b->mask.v6.s6_addr[i]) ==
			     (b->addr.v6.s6_addr[i] & a->mask.v6.s6_addr[i]);
	}
	lua_pushboolean(L, ok);
	return 1;
}

/* ---- Queue ---- */

/* Items sit in the object's first user value (a table indexed head..tail-1); the
 * coroutines waiting in pop_wait in its second (weak keys: coroutine -> thread number).
 * Every access happens under the state's own serialisation (the shared state's lock, or
 * the one thread of a per-thread state), so the queue needs no lock of its own. */
struct hlua_queue {
	lua_Integer head, tail;
};

/* A waiter of the shared state on another thread is not woken by a push (its context may
 * only be touched by its thread): it looks again this often. */
#define QUEUE_POLL_MS 10

static int queue_new(lua_State *L)
{
	struct hlua_queue *q = lua_newuserdatauv(L, sizeof(*q), 2);

	q->head = q->tail = 0;
	luaL_setmetatable(L, CLASS_QUEUE);
	lua_newtable(L);
	lua_setiuservalue(L, -2, 1);
	lua_newtable(L); /* the waiters, which do not keep a coroutine alive */
	lua_createtable(L, 0, 1);
	lua_pushliteral(L, "k");
	lua_setfield(L, -2, "__mode");
	lua_setmetatable(L, -2);
	lua_setiuservalue(L, -2, 2);
	return 1;
}

static int queue_size(lua_State *L)
{
	struct hlua_queue *q = hlua_obj_check(L, 1, CLASS_QUEUE);

	lua_pushinteger(L, q->tail - q->head);
	return 1;
}

/* Wakes the waiters of the queue at 1 that run on this thread; forgets those whose
 * context is over. */
static void queue_wake(lua_State *L)
{
	if (lua_getiuservalue(L, 1, 2) != LUA_TTABLE) {
		lua_pop(L, 1);
		return;
	}
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		lua_State *T = lua_tothread(L, -2);
		struct hlua_ctx *ctx = T ? hlua_ctx_of(T) : NULL;

		if (!ctx) {
			lua_pushvalue(L, -2);
			lua_pushnil(L);
			lua_rawset(L, -5); /* clearing a field during the traversal is allowed */
		} else if (lua_tointeger(L, -1) == (lua_Integer)tid && ctx->wake) {
			ctx->wake(ctx);
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
}

/* queue:push(item): true; nil cannot be queued */
static int queue_push(lua_State *L)
{
	struct hlua_queue *q = hlua_obj_check(L, 1, CLASS_QUEUE);

	luaL_checkany(L, 2);
	if (lua_isnil(L, 2))
		return luaL_argerror(L, 2, "nil cannot be queued");
	lua_getiuservalue(L, 1, 1);
	lua_pushvalue(L, 2);
	lua_rawseti(L, -2, q->tail);
	q->tail++;
	lua_pop(L, 1);
	queue_wake(L);
	lua_pushboolean(L, 1);
	return 1;
}

/* Pushes the first item (removed from the queue at 1), or nil. */
static int queue_take(lua_State *L, struct hlua_queue *q)
{
	if (q->head == q->tail) {
		lua_pushnil(L);
		return 1;
	}
	lua_getiuservalue(L, 1, 1);
	lua_rawgeti(L, -1, q->head);
	lua_pushnil(L);
	lua_rawseti(L, -3, q->head);
	q->head++;
	lua_remove(L, -2);
	return 1;
}

/* queue:pop(): the first item, or nil when the queue is empty */
static int queue_pop(lua_State *L)
{
	return queue_take(L, hlua_obj_check(L, 1, CLASS_QUEUE));
}

static int queue_pop_wait_k(lua_State *L, int status, lua_KContext kctx);

/* Registers the running coroutine as a waiter of the queue at 1 and yields until a push
 * of this thread wakes it (or, in the shared state, for QUEUE_POLL_MS at most). */
static int queue_wait(lua_State *L)
{
	struct hlua_ctx *ctx = hlua_ctx_of(L);

	if (!ctx || !ctx->yieldable || !lua_isyieldable(L))
		return luaL_error(L, "pop_wait: cannot wait from this context (not yieldable)");
	lua_getiuservalue(L, 1, 2);
	lua_pushthread(L);
	lua_pushinteger(L, (lua_Integer)tid);
	lua_rawset(L, -3);
	lua_pop(L, 1);
	return hlua_yield(L, ctx->st->id == 0 ? now_ms() + QUEUE_POLL_MS : 0, false,
			  queue_pop_wait_k, 0);
}

static int queue_pop_wait_k(lua_State *L, int status, lua_KContext kctx)
{
	struct hlua_queue *q = hlua_obj_check(L, 1, CLASS_QUEUE);

	lua_getiuservalue(L, 1, 2);
	lua_pushthread(L);
	lua_pushnil(L);
	lua_rawset(L, -3);
	lua_pop(L, 1);
	if (q->head == q->tail)
		return queue_wait(L);
	return queue_take(L, q);
}

/* queue:pop_wait(): the first item, waiting for one when the queue is empty (contexts
 * that may yield only: tasks, actions, services) */
static int queue_pop_wait(lua_State *L)
{
	struct hlua_queue *q = hlua_obj_check(L, 1, CLASS_QUEUE);

	lua_settop(L, 1);
	if (q->head != q->tail)
		return queue_take(L, q);
	return queue_wait(L);
}

static const luaL_Reg queue_methods[] = {
	{ "size", queue_size },		{ "push", queue_push }, { "pop", queue_pop },
	{ "pop_wait", queue_pop_wait }, { NULL, NULL },
};

static const luaL_Reg core_util_fns[] = {
	{ "concat", concat_new },	{ "tokenize", l_tokenize }, { "parse_addr", l_parse_addr },
	{ "match_addr", l_match_addr }, { "queue", queue_new },	    { NULL, NULL },
};

void hlua_util_setup(lua_State *L)
{
	hlua_class_new(L, CLASS_CONCAT, concat_methods, NULL, NULL);
	hlua_class_new(L, CLASS_ADDR, NULL, NULL, NULL);
	hlua_class_new(L, CLASS_QUEUE, queue_methods, NULL, NULL);
	lua_getglobal(L, "core");
	luaL_setfuncs(L, core_util_fns, 0);
	lua_pop(L, 1);
}
