/* The HTTP class (txn.http): reading and rewriting the request and response headers,
 * the request line and the response status from an action, with HAProxy's method
 * names. Values given by the script are copied into the stream's rewrite buffer (a Lua
 * string may be collected before the message is sent).
 */
#include <string.h>

#include <http/h1.h>
#include <sample/regex.h>
#include <stream/action.h>
#include <stream/http_rw.h>
#include <stream/stream.h>

#include "hlua_int.h"

#define CLASS_HTTP "HTTP"

static struct hlua_txn *http_txn(lua_State *L)
{
	struct hlua_sub *sub = luaL_checkudata(L, 1, CLASS_HTTP);

	return hlua_txn_live(L, sub->t);
}

/* The request (res false) or the response of the exchange; raises an error when the
 * response is asked for before there is one. */
static struct h1_msg *http_msg(lua_State *L, struct hlua_txn *t, bool res)
{
	if (!res)
		return &t->s->req;
	if (!t->dir_res)
		luaL_error(L, "the response is not available from a request action");
	return &t->s->rsp;
}

/* Copies <v> into the rewrite buffer; raises an error when it does not fit. */
static struct ist keep(lua_State *L, struct stream *s, const char *p, size_t len)
{
	size_t room;
	char *dst = stream_rw_tail(s, &room);

	if (!dst || len > room)
		luaL_error(L, "no room left to rewrite the message (tune.bufsize)");
	memcpy(dst, p, len);
	stream_rw_commit(s, len);
	return ist2(dst, len);
}

static struct ist check_name(lua_State *L, int idx)
{
	size_t len;
	const char *n = luaL_checklstring(L, idx, &len);

	if (!len)
		luaL_argerror(L, idx, "empty header name");
	for (size_t i = 0; i < len; i++)
		if (n[i] <= ' ' || n[i] == ':' || (unsigned char)n[i] >= 127)
			luaL_argerror(L, idx, "invalid header name");
	return ist2(n, len);
}

static struct ist check_value(lua_State *L, int idx)
{
	size_t len;
	const char *v = luaL_checklstring(L, idx, &len);

	if (!http_value_is_safe(ist2(v, len)))
		luaL_argerror(L, idx, "header value with CR, LF or NUL");
	return ist2(v, len);
}

/* {name = {[0] = v1, [1] = v2...}}, names in lower case */
static int get_headers(lua_State *L, bool res)
{
	struct hlua_txn *t = http_txn(L);
	struct h1_msg *m = http_msg(L, t, res);
	char lname[256];

	lua_newtable(L);
	for (uint16_t i = 0; i < m->nhdr; i++) {
		const struct h1_hdr *h = &m->hdr[i];
		size_t n = h->n.len < sizeof(lname) ? h->n.len : sizeof(lname) - 1;
		lua_Integer pos;

		if (h->skip)
			continue;
		for (size_t j = 0; j < n; j++) {
			char c = h->n.ptr[j];

			lname[j] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
		}
		lname[n] = 0;
		if (lua_getfield(L, -1, lname) != LUA_TTABLE) {
			lua_pop(L, 1);
			lua_newtable(L);
			lua_pushvalue(L, -1);
			lua_setfield(L, -3, lname);
			pos = 0; /* values are numbered from 0, as HAProxy does */
		} else {
			pos = (lua_Integer)lua_rawlen(L, -1) + 1;
		}
		lua_pushlstring(L, h->v.ptr, h->v.len);
		lua_rawseti(L, -2, pos);
		lua_pop(L, 1);
	}
	return 1;
}

static int add_header(lua_State *L, bool res, bool replace)
{
	struct hlua_txn *t = http_txn(L);
	struct h1_msg *m = http_msg(L, t, res);
	struct ist n = check_name(L, 2), v = check_value(L, 3);

	if (replace)
		http_hdr_del(m, n);
	n = keep(L, t->s, n.ptr, n.len);
	v = keep(L, t->s, v.ptr, v.len);
	if (http_hdr_add(t->s, m, n, v) < 0)
		return luaL_error(L, "too many headers");
	return 0;
}

static int del_header(lua_State *L, bool res)
{
	struct hlua_txn *t = http_txn(L);

	http_hdr_del(http_msg(L, t, res), check_name(L, 2));
	return 0;
}

/* req_rep_header(name, regex, replace): HAProxy's replace-header */
static int rep_header(lua_State *L, bool res, bool value_mode)
{
	struct hlua_txn *t = http_txn(L);
	struct h1_msg *m = http_msg(L, t, res);
	struct ist n = check_name(L, 2);
	const char *pat = luaL_checkstring(L, 3), *repl = luaL_checkstring(L, 4);
	struct regex *re;
	char err[256];
	int ret;

	if (regex_subst_check(repl))
		return luaL_argerror(L, 4, "malformed escape in the replacement");
	re = regex_comp(pat, 0, err, sizeof(err));
	if (!re)
		return luaL_error(L, "invalid regex '%s': %s", pat, err);
	ret = http_hdr_replace(t->s, m, n, re, repl, value_mode);
	regex_free(re);
	if (ret < 0)
		return luaL_error(L, "cannot rewrite the header '%s'", lua_tostring(L, 2));
	return 0;
}

static int req_get_headers(lua_State *L)
{
	return get_headers(L, false);
}
static int res_get_headers(lua_State *L)
{
	return get_headers(L, true);
}
static int req_add_header(lua_State *L)
{
	return add_header(L, false, false);
}
static int res_add_header(lua_State *L)
{
	return add_header(L, true, false);
}
static int req_set_header(lua_State *L)
{
	return add_header(L, false, true);
}
static int res_set_header(lua_State *L)
{
	return add_header(L, true, true);
}
static int req_del_header(lua_State *L)
{
	return del_header(L, false);
}
static int res_del_header(lua_State *L)
{
	return del_header(L, true);
}
static int req_rep_header(lua_State *L)
{
	return rep_header(L, false, false);
}
static int res_rep_header(lua_State *L)
{
	return rep_header(L, true, false);
}
static int req_rep_value(lua_State *L)
{
	return rep_header(L, false, true);
}
static int res_rep_value(lua_State *L)
{
	return rep_header(L, true, true);
}

static int set_line(lua_State *L, int part)
{
	struct hlua_txn *t = http_txn(L);
	size_t len;
	const char *v = luaL_checklstring(L, 2, &len);

	if (t->dir_res)
		return luaL_error(L, "the request line cannot change from a response action");
	/* as HAProxy: true when it was set, false when the value was refused */
	lua_pushboolean(L, http_req_set_line_part(t->s, part, ist2(v, len)) == 0);
	return 1;
}

static int req_set_method(lua_State *L)
{
	return set_line(L, HTTP_LINE_METHOD);
}
static int req_set_path(lua_State *L)
{
	return set_line(L, HTTP_LINE_PATH);
}
static int req_set_query(lua_State *L)
{
	return set_line(L, HTTP_LINE_QUERY);
}
static int req_set_uri(lua_State *L)
{
	return set_line(L, HTTP_LINE_URI);
}

/* res_set_status(status [, reason]) */
static int res_set_status(lua_State *L)
{
	struct hlua_txn *t = http_txn(L);
	lua_Integer st = luaL_checkinteger(L, 2);
	size_t len = 0;
	const char *reason = luaL_optlstring(L, 3, NULL, &len);

	if (!t->dir_res)
		return luaL_error(L, "the status can only be set from a response action");
	if (st < 100 || st > 999)
		return luaL_argerror(L, 2, "status must be between 100 and 999");
	if (reason && !http_value_is_safe(ist2(reason, len)))
		return luaL_argerror(L, 3, "reason with CR, LF or NUL");
	t->s->rsp.status = (int)st;
	t->s->rsp.reason = reason ? keep(L, t->s, reason, len) : ist2(NULL, 0);
	return 0;
}

static const luaL_Reg http_methods[] = {
	{ "req_get_headers", req_get_headers }, { "res_get_headers", res_get_headers },
	{ "req_add_header", req_add_header },	{ "res_add_header", res_add_header },
	{ "req_set_header", req_set_header },	{ "res_set_header", res_set_header },
	{ "req_del_header", req_del_header },	{ "res_del_header", res_del_header },
	{ "req_rep_header", req_rep_header },	{ "res_rep_header", res_rep_header },
	{ "req_rep_value", req_rep_value },	{ "res_rep_value", res_rep_value },
	{ "req_set_method", req_set_method },	{ "req_set_path", req_set_path },
	{ "req_set_query", req_set_query },	{ "req_set_uri", req_set_uri },
	{ "res_set_status", res_set_status },	{ NULL, NULL },
};

void hlua_http_setup(lua_State *L)
{
	hlua_class_new(L, CLASS_HTTP, http_methods, NULL, NULL);
}
