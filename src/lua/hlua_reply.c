/* txn:reply(): the Reply class an action fills (status, reason, headers, body) and hands
 * to txn:done() to answer the client itself, and the writing of that answer into the
 * client's output buffer (hlua_reply_send, called by txn:done). A Reply is a plain Lua
 * table with the Reply metatable, as in HAProxy: scripts may also set its fields, or pass
 * txn:done() a table of their own.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <base/buf.h>
#include <conn/connection-t.h>
#include <http/h1-t.h>
#include <http/status.h>
#include <proxy/proxy-t.h>
#include <stream/stream.h>

#include "hlua_int.h"

#define CLASS_REPLY "Reply"

/* ---- the Reply class ---- */

/* Sets status and reason of the reply at 1 (the reason of the status when <reason> is
 * NULL). */
static void reply_set_status(lua_State *L, lua_Integer status, const char *reason)
{
	lua_pushinteger(L, status);
	lua_setfield(L, 1, "status");
	lua_pushstring(L, reason ? reason : http_reason((int)status));
	lua_setfield(L, 1, "reason");
}

/* Pushes the headers table of the reply at 1, creating it when missing. */
static void reply_headers(lua_State *L)
{
	if (lua_getfield(L, 1, "headers") == LUA_TTABLE)
		return;
	lua_pop(L, 1);
	lua_newtable(L);
	lua_pushvalue(L, -1);
	lua_setfield(L, 1, "headers");
}

/* reply:set_status(status [, reason]): true, or false for a status outside 100..599 */
static int reply_set_status_l(lua_State *L)
{
	lua_Integer status;
	const char *reason;

	luaL_checktype(L, 1, LUA_TTABLE);
	status = luaL_checkinteger(L, 2);
	reason = luaL_optstring(L, 3, NULL);
	if (status < 100 || status > 599) {
		lua_pushboolean(L, 0);
		return 1;
	}
	reply_set_status(L, status, reason);
	lua_pushboolean(L, 1);
	return 1;
}

/* reply:add_header(name, value): appends <value> to the values of <name> */
static int reply_add_header(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_checkstring(L, 2);
	luaL_checkstring(L, 3);
	reply_headers(L);
	lua_pushvalue(L, 2);
	if (lua_rawget(L, -2) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_pushvalue(L, 2);
		lua_pushvalue(L, -2);
		lua_rawset(L, -4);
	}
	lua_pushvalue(L, 3);
	lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
	lua_pushboolean(L, 1);
	return 1;
}

/* reply:del_header(name): forgets every value of <name> (the name as it was added) */
static int reply_del_header(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_checkstring(L, 2);
	reply_headers(L);
	lua_pushvalue(L, 2);
	lua_pushnil(L);
	lua_rawset(L, -3);
	lua_pushboolean(L, 1);
	return 1;
}

/* reply:set_body(body) */
static int reply_set_body(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_checkstring(L, 2);
	lua_settop(L, 2);
	lua_setfield(L, 1, "body");
	lua_pushboolean(L, 1);
	return 1;
}

static const luaL_Reg reply_methods[] = {
	{ "set_status", reply_set_status_l },
	{ "add_header", reply_add_header },
	{ "del_header", reply_del_header },
	{ "set_body", reply_set_body },
	{ NULL, NULL },
};

/* Sets the Reply metatable on the table at the top (made at the first txn:reply() of
 * the state). */
static void reply_set_class(lua_State *L)
{
	if (luaL_newmetatable(L, CLASS_REPLY)) {
		lua_newtable(L);
		luaL_setfuncs(L, reply_methods, 0);
		lua_setfield(L, -2, "__index");
	}
	lua_setmetatable(L, -2);
}

/* Copies the headers of the table at <src> ({name = {values...}}) into the reply at 1:
 * names that are strings with a list of strings or numbers; anything else is skipped. */
static void reply_copy_headers(lua_State *L, int src)
{
	reply_headers(L);
	lua_pushnil(L);
	while (lua_next(L, src)) {
		if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TTABLE) {
			lua_Integer n = 0;

			lua_newtable(L);
			for (lua_Integer i = 1; lua_rawgeti(L, -2, i) != LUA_TNIL; i++) {
				if (lua_type(L, -1) == LUA_TNUMBER)
					lua_tostring(L, -1); /* its text, in place on the stack */
				if (lua_type(L, -1) == LUA_TSTRING)
					lua_rawseti(L, -2, ++n);
				else
					lua_pop(L, 1);
			}
			lua_pop(L, 1);	      /* the nil */
			lua_pushvalue(L, -3); /* name */
			lua_insert(L, -2);    /* name, new list */
			lua_rawset(L, -5);    /* headers[name] = list */
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
}

/* txn:reply([t]): a new Reply, status 200 and no header or body unless <t> gives them
 * (status, reason, headers, body). */
int hlua_txn_reply(lua_State *L)
{
	struct hlua_txn *t = hlua_txn_check(L, 1);
	lua_Integer status = 200;
	const char *reason = NULL;
	int isnum;

	if (t->s->fe->mode != PR_MODE_HTTP)
		return luaL_error(L, "txn object is not an HTTP transaction.");
	if (!lua_isnoneornil(L, 2))
		luaL_checktype(L, 2, LUA_TTABLE);
	lua_settop(L, 2);
	lua_createtable(L, 0, 4);
	reply_set_class(L);
	lua_replace(L, 1); /* the reply is at 1 from here on */
	lua_newtable(L);
	lua_setfield(L, 1, "headers");
	if (lua_istable(L, 2)) {
		lua_Integer st;

		lua_getfield(L, 2, "status");
		st = lua_tointegerx(L, -1, &isnum);
		if (isnum)
			status = st;
		if (lua_getfield(L, 2, "reason") == LUA_TSTRING)
			reason = lua_tostring(L, -1); /* stays on the stack while used */
		if (lua_getfield(L, 2, "body") == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER) {
			lua_tostring(L, -1);
			lua_setfield(L, 1, "body");
		} else {
			lua_pop(L, 1);
		}
		if (lua_getfield(L, 2, "headers") == LUA_TTABLE)
			reply_copy_headers(L, lua_gettop(L));
		lua_pop(L, 1);
	}
	reply_set_status(L, status, reason);
	lua_settop(L, 1);
	return 1;
}

/* ---- sending it (txn:done) ---- */

static bool is_tchar(unsigned char c)
{
	return c > 32 && c < 127 && !strchr("\"(),/:;<=>?@[\\]{}", c);
}

static bool name_ok(const char *n, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_tchar((unsigned char)n[i]))
			return false;
	return true;
}

/* A header value or reason: no CR, LF or NUL (they would end the line early). */
static bool text_ok(const char *v, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (v[i] == '\r' || v[i] == '\n' || v[i] == '\0')
			return false;
	return true;
}

static bool name_is(const char *n, size_t len, const char *lit)
{
	return strlen(lit) == len && !strncasecmp(n, lit, len);
}

/* The rendered response, in a scratch area as large as a buffer (a Lua userdata: a Lua
 * error while rendering leaves nothing behind); <over> once it did not fit. */
struct reply_out {
	char *p;
	size_t len, cap;
	bool over;
};

static void out_put(struct reply_out *o, const char *s, size_t n)
{
	if (!n)
		return;
	if (o->over || n > o->cap - o->len) {
		o->over = true;
		return;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

/* Writes the lines of header <name> (at -2) whose values are the list at -1, in lower
 * case as HAProxy sends them. content-length and transfer-encoding are the proxy's to
 * write; "connection" is not sent: a "close" in it sets *close. Raises an error for a
 * name or value that would break the message. Leaves the stack as it found it. */
static void put_header(lua_State *L, struct reply_out *o, bool *close)
{
	size_t nlen, vlen;
	const char *n = lua_tolstring(L, -2, &nlen);

	if (!name_ok(n, nlen))
		luaL_error(L, "txn:done: invalid header name '%s'", n);
	if (name_is(n, nlen, "content-length") || name_is(n, nlen, "transfer-encoding"))
		return;
	for (lua_Integer i = 1; lua_rawgeti(L, -1, i) != LUA_TNIL; i++) {
		const char *v;

		if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER) {
			lua_pop(L, 1);
			continue;
		}
		v = lua_tolstring(L, -1, &vlen);
		if (!text_ok(v, vlen))
			luaL_error(L, "txn:done: invalid value for header '%s'", n);
		if (name_is(n, nlen, "connection")) {
			for (size_t k = 0; k + 5 <= vlen; k++)
				if (!strncasecmp(v + k, "close", 5))
					*close = true;
		} else {
			for (size_t k = 0; k < nlen; k++) {
				char c = (char)(n[k] >= 'A' && n[k] <= 'Z' ? n[k] + 32 : n[k]);

				out_put(o, &c, 1);
			}
			out_put(o, ": ", 2);
			out_put(o, v, vlen);
			out_put(o, "\r\n", 2);
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1); /* the nil */
}

/* Renders the reply table at <idx> as an HTTP/1.1 response into <o>, with its status in
 * *status. Returns false for a status outside 100..599 (the exchange then ends without an
 * answer, as HAProxy's). */
static bool reply_render(lua_State *L, int idx, bool head, struct reply_out *o, int *status,
			 bool *close)
{
	const char *reason, *body = NULL;
	lua_Integer st = 200, v;
	size_t rlen, blen = 0;
	char line[64];
	int isnum, n;

	lua_getfield(L, idx, "status");
	v = lua_tointegerx(L, -1, &isnum);
	if (isnum)
		st = v;
	lua_pop(L, 1);
	if (st < 100 || st > 599)
		return false;
	*status = (int)st;
	if (lua_getfield(L, idx, "reason") != LUA_TSTRING) {
		lua_pop(L, 1);
		lua_pushstring(L, http_reason((int)st));
	}
	reason = lua_tolstring(L, -1, &rlen);
	if (!text_ok(reason, rlen))
		luaL_error(L, "txn:done: invalid reason");
	if (lua_getfield(L, idx, "body") == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER)
		body = lua_tolstring(L, -1, &blen);
	n = snprintf(line, sizeof(line), "HTTP/1.1 %d ", (int)st);
	out_put(o, line, (size_t)n);
	out_put(o, reason, rlen);
	out_put(o, "\r\n", 2);
	if (lua_getfield(L, idx, "headers") == LUA_TTABLE) {
		int h = lua_gettop(L);

		lua_pushnil(L);
		while (lua_next(L, h)) {
			if (lua_type(L, -2) == LUA_TSTRING && lua_type(L, -1) == LUA_TTABLE)
				put_header(L, o, close);
			lua_pop(L, 1);
		}
	}
	n = snprintf(line, sizeof(line), "content-length: %zu\r\n\r\n", blen);
	out_put(o, line, (size_t)n);
	if (!head)
		out_put(o, body, blen);
	lua_pop(L, 3); /* reason, body, headers */
	return true;
}

int hlua_reply_send(lua_State *L, struct hlua_txn *t, int idx)
{
	struct stream *s = t->s;
	struct buf *ob = &s->front->obuf;
	struct reply_out o = { 0 };
	bool close = false;
	int status, start;

	if (s->fe->mode != PR_MODE_HTTP || lua_type(L, idx) != LUA_TTABLE)
		return 0;
	o.cap = global_bufsize;
	o.p = lua_newuserdatauv(L, o.cap, 0);
	if (!reply_render(L, idx, !!(s->req.flags & H1_MF_METH_HEAD), &o, &status, &close))
		return 0;
	/* from here on, no Lua call that may fail: the output buffer is being written */
	if (s->flags & SF_RSP_HDRS_SENT)
		return 0; /* a response already went out: only closing is left */
	start = o.over ? -1 : stream_reply_start(s);
	if (start < 0 || o.len > b_room(ob)) {
		if (start >= 0)
			ob->data = (uint32_t)start;
		return HLUA_REPLY_FAILED;
	}
	memcpy(b_tail(ob), o.p, o.len);
	ob->data += (uint32_t)o.len;
	s->status = status;
	if (close || (s->back && !(s->flags & SF_REQ_DONE)))
		s->flags |= SF_FRONT_CLOSE; /* asked for, or the request body is unsynced */
	return HLUA_REPLY_SENT;
}
