/* The AppletTCP class and the "tcp" Lua services: the object a service function gets on a
 * connection of a mode tcp proxy ("tcp-request content use-service lua.NAME"): send, and
 * the common methods of hlua_svc.c (receive, getline, variables, priv, f, sf, c, sc); and
 * the service callbacks that run its coroutine. The connection closes once the function
 * returns (after what it sent); an error cuts it.
 */
#include <stream/action.h>
#include <stream/service.h>

#include "hlua_applet.h"

/* applet:send(data) */
static int tcp_send(lua_State *L)
{
	size_t len;

	hlua_applet_check(L, 1, CLASS_APPLET_TCP);
	luaL_checklstring(L, 2, &len);
	lua_settop(L, 2);
	lua_pushinteger(L, (lua_Integer)len);
	return hlua_applet_send_k(L, LUA_OK, 0);
}

static const luaL_Reg tcp_methods[] = {
	{ "send", tcp_send },
	{ NULL, NULL },
};

static int push_tcp(lua_State *T, void *arg)
{
	hlua_applet_class(T, CLASS_APPLET_TCP, tcp_methods, NULL);
	hlua_applet_push_obj(T, arg, CLASS_APPLET_TCP, ACT_F_TCP_REQ_CNT, 0);
	return 1;
}

/* The coroutine first runs from the stream's first dump, right after the rule. */
int hlua_applet_tcp_start(struct svc_ctx *c, struct buf *hdrs)
{
	struct hlua_applet *a = hlua_applet_new(c, true, push_tcp);

	if (!a || a->failed)
		return -1;
	a->wait = APW_RUN;
	return 0;
}

int hlua_applet_tcp_dump(struct svc_ctx *c, struct buf *out)
{
	struct hlua_applet *a = c->priv;
	int r;

	a->out = out;
	r = hlua_applet_run(a);
	a->out = NULL;
	if (r < 0 || r == HLUA_YIELD)
		return SVC_WAIT;
	if (r == HLUA_ERR) {
		hlua_report_err(&a->ctx, c->px);
		return SVC_ERR;
	}
	return SVC_DONE;
}
