/* The AppletHTTP class and the "http" Lua services: the object a service function gets
 * (the request's method, path, qs, version, headers and length; set_status, add_header,
 * start_response, send; the common methods of hlua_svc.c), and the service callbacks that
 * run its coroutine for the stream: the response head once start_response is called (the
 * function may read the body or sleep first), then the body it sends. As HAProxy does,
 * the response is framed with the content-length the script set, else chunked (HTTP/1.1
 * clients) or ended by the close (HTTP/1.0 ones); an error before start_response is a 500,
 * after it the connection is cut.
 */
#include <stdio.h>
#include <string.h>

#include <base/buf.h>
#include <http/h1.h>
#include <stream/action.h>
#include <stream/service.h>
#include <stream/stream.h>

#include "hlua_applet.h"

/* ---- the object ---- */

/* The fields of an AppletHTTP, in the order of its user values. */
static const char *const http_fields[] = { "method", "path",	"qs", "version",
					   "length", "headers", NULL };

/* {name = {[0] = v1, [1] = v2...}}, names in lower case, as TXN's req_get_headers; the
 * Connection header is the proxy's (hop-by-hop): 2.6's applets do not see it either */
static void push_headers(lua_State *L, const struct h1_msg *m)
{
	char lname[256];

	lua_createtable(L, 0, m->nhdr);
	for (uint16_t i = 0; i < m->nhdr; i++) {
		const struct h1_hdr *h = &m->hdr[i];
		size_t n = h->n.len < sizeof(lname) ? h->n.len : sizeof(lname) - 1;
		lua_Integer pos;

		if (h->skip || h->id == H1_HDR_CONNECTION)
			continue;
		for (size_t j = 0; j < n; j++) {
			char c = h->n.ptr[j];

			lname[j] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
		}
		lname[n] = 0;
		if (lua_getfield(L, -1, lname) != LUA_TTABLE) {
			lua_pop(L, 1);
			lua_createtable(L, 0, 1);
			lua_pushvalue(L, -1);
			lua_setfield(L, -3, lname);
			pos = 0;
		} else {
			pos = (lua_Integer)lua_rawlen(L, -1) + 1;
		}
		lua_pushlstring(L, h->v.ptr, h->v.len);
		lua_rawseti(L, -2, pos);
		lua_pop(L, 1);
	}
}

static const luaL_Reg http_methods[];

/* Pushes the AppletHTTP object of a new service: the request is copied into its fields
 * (its headers leave the input buffer before the function may run again). */
static int push_http(lua_State *T, void *arg)
{
	struct hlua_applet *a = arg;
	const struct h1_msg *m = &a->svc->strm->req;
	struct ist pq = h1_uri_pathq(m->uri);
	const char *q = pq.len ? memchr(pq.ptr, '?', pq.len) : NULL;

	hlua_applet_class(T, CLASS_APPLET_HTTP, http_methods, http_fields);
	hlua_applet_push_obj(T, a, CLASS_APPLET_HTTP, ACT_F_HTTP_REQ, 6);
	lua_pushlstring(T, m->meth.ptr, m->meth.len);
	lua_setiuservalue(T, -2, 3);
	lua_pushlstring(T, pq.ptr ? pq.ptr : "", q ? (size_t)(q - pq.ptr) : pq.len);
	lua_setiuservalue(T, -2, 4);
	lua_pushlstring(T, q ? q + 1 : "", q ? (size_t)(pq.ptr + pq.len - q - 1) : 0);
	lua_setiuservalue(T, -2, 5);
	lua_pushstring(T, (m->flags & H1_MF_VER_11) ? "HTTP/1.1" : "HTTP/1.0");
	lua_setiuservalue(T, -2, 6);
	lua_pushinteger(T, (lua_Integer)svc_body_length(a->svc));
	lua_setiuservalue(T, -2, 7);
	push_headers(T, m);
	lua_setiuservalue(T, -2, 8);
	a->http10 = !(m->flags & H1_MF_VER_11);
	return 1;
}

/* applet:set_status(code [, reason]): ignored once the response started, or for a code
 * out of 100..599 (as HAProxy keeps its status then). */
static int http_set_status(lua_State *L)
{
	struct hlua_applet *a = hlua_applet_check(L, 1, CLASS_APPLET_HTTP);
	lua_Integer code = luaL_checkinteger(L, 2);
	size_t len = 0;
	const char *reason = luaL_optlstring(L, 3, NULL, &len);

	if (reason && !http_value_is_safe(ist2(reason, len)))
		return luaL_argerror(L, 3, "reason with CR, LF or NUL");
	if (a->head_ready || code < 100 || code > 599)
		return 0;
	a->status = (int)code;
	if (len >= sizeof(a->reason))
		len = sizeof(a->reason) - 1;
	memcpy(a->reason, reason ? reason : "", len);
	a->reason[len] = 0;
	return 0;
}

/* A content-length value: digits only, 0 or more; -1 when invalid. */
static int64_t parse_clen(const char *v, size_t len)
{
	uint64_t n = 0;

	if (!len || len > 18)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		n = n * 10 + (uint64_t)(v[i] - '0');
	}
	return (int64_t)n;
}

/* applet:add_header(name, value): names go in lower case; transfer-encoding is the
 * proxy's business (the body is framed for the client); content-length frames the body. */
static int http_add_header(lua_State *L)
{
	struct hlua_applet *a = hlua_applet_check(L, 1, CLASS_APPLET_HTTP);
	size_t nl, vl;
	const char *n = luaL_checklstring(L, 2, &nl), *v = luaL_checklstring(L, 3, &vl);
	struct buf *h = &a->head;

	if (!nl)
		return luaL_argerror(L, 2, "empty header name");
	for (size_t i = 0; i < nl; i++)
		if (n[i] <= ' ' || n[i] == ':' || (unsigned char)n[i] >= 127)
			return luaL_argerror(L, 2, "invalid header name");
	if (!http_value_is_safe(ist2(v, vl)))
		return luaL_argerror(L, 3, "header value with CR, LF or NUL");
	if (a->head_ready || h1_ieq(ist2(n, nl), IST("transfer-encoding")))
		return 0;
	if (h1_ieq(ist2(n, nl), IST("content-length"))) {
		int64_t cl = parse_clen(v, vl);

		if (cl < 0 || (a->clen_set && (uint64_t)cl != a->clen_left))
			return luaL_argerror(L, 3, "invalid content-length");
		a->clen_set = 1;
		a->clen_left = (uint64_t)cl;
	}
	if (b_get(h) < 0)
		return luaL_error(L, "out of memory");
	if (b_room(h) < nl + vl + 4)
		return luaL_error(L, "the response headers are too large (tune.bufsize)");
	for (size_t i = 0; i < nl; i++)
		b_tail(h)[i] = (n[i] >= 'A' && n[i] <= 'Z') ? (char)(n[i] + 32) : n[i];
	h->data += (uint32_t)nl;
	memcpy(b_tail(h), ": ", 2);
	memcpy(b_tail(h) + 2, v, vl);
	memcpy(b_tail(h) + 2 + vl, "\r\n", 2);
	h->data += (uint32_t)(vl + 4);
	return 0;
}

static int k_return0(lua_State *L, int status, lua_KContext k)
{
	return 0;
}

/* applet:start_response(): the head is known; the coroutine yields so that the stream
 * writes it, and goes on with the body when the stream asks for it. */
static int http_start_response(lua_State *L)
{
	struct hlua_applet *a = hlua_applet_check(L, 1, CLASS_APPLET_HTTP);

	if (a->head_ready)
		return 0;
	a->head_ready = 1;
	a->discard = a->status < 200 || a->status == 204 || a->status == 304;
	a->wait = APW_RUN;
	return hlua_yield(L, 0, false, k_return0, 0);
}

/* applet:send(data) */
static int http_send(lua_State *L)
{
	struct hlua_applet *a = hlua_applet_check(L, 1, CLASS_APPLET_HTTP);
	size_t len;

	luaL_checklstring(L, 2, &len);
	if (!a->head_ready)
		return luaL_error(L, "'send': start_response() must be called before sending data");
	if (a->discard)
		return 0;
	if (a->clen_set) {
		if (len > a->clen_left) { /* cut at the length announced */
			len = (size_t)a->clen_left;
			a->cut = 1;
		}
		a->clen_left -= len;
	}
	lua_settop(L, 2);
	lua_pushinteger(L, (lua_Integer)len);
	return hlua_applet_send_k(L, LUA_OK, 0);
}

static const luaL_Reg http_methods[] = {
	{ "set_status", http_set_status },
	{ "add_header", http_add_header },
	{ "start_response", http_start_response },
	{ "send", http_send },
	{ NULL, NULL },
};

/* ---- the service ---- */

/* Hands the head the script built to the stream. 0, or -1 when it does not fit. */
static int http_head_out(struct hlua_applet *a, struct svc_ctx *c, struct buf *hdrs)
{
	if (a->head.data && svc_write(hdrs, b_head(&a->head), a->head.data) < 0)
		return -1;
	b_release(&a->head);
	c->status = a->status;
	c->reason = a->reason[0] ? a->reason : NULL;
	c->http10 = a->http10;
	c->head_framing = 1;
	c->framed = a->clen_set || a->discard;
	c->chunked = !a->http10;
	return 0;
}

int hlua_applet_http_start(struct svc_ctx *c, struct buf *hdrs)
{
	struct hlua_applet *a = c->priv;
	bool first = !a;
	int r;

	if (first && !(a = hlua_applet_new(c, false, push_http)))
		return -1;
	if (a->failed)
		return first ? SVC_WAIT : -1;
	r = hlua_applet_run(a);
	if (r < 0 || (r == HLUA_YIELD && !a->head_ready))
		return SVC_WAIT;
	if (r == HLUA_YIELD)
		return http_head_out(a, c, hdrs);
	if (r == HLUA_ERR && !a->in_failed)
		hlua_report_err(&a->ctx, c->px);
	/* an error, or the end without a response: a 500, once the action is over (it is not
	 * a failed rewrite) */
	if (first) {
		a->failed = 1;
		return SVC_WAIT;
	}
	return -1;
}

int hlua_applet_http_dump(struct svc_ctx *c, struct buf *out)
{
	struct hlua_applet *a = c->priv;
	int r;

	a->out = out;
	r = hlua_applet_run(a);
	a->out = NULL;
	if (r < 0 || r == HLUA_YIELD)
		return SVC_WAIT;
	if (r == HLUA_ERR) {
		if (!a->in_failed)
			hlua_report_err(&a->ctx, c->px);
		return SVC_ERR;
	}
	if (a->cut || (a->clen_set && a->clen_left))
		c->strm->flags |= SF_FRONT_CLOSE; /* the body is not what its length said */
	return SVC_DONE;
}
