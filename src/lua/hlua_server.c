/* The Server class: a server's name, ids, state, load and statistics as the stats code
 * reads them (any thread), and its setters (weight, maxconn, address, drain, maintenance,
 * checks and agent), which run the runtime API's "set server" family on thread 0 through
 * hlua_admin_call(), so that they behave as an operator's commands do. A server deleted at
 * run time keeps its memory until exit: its object stays readable, and its setters answer
 * as the CLI does for a name that no longer exists.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <backend/server.h>
#include <base/atomic.h>
#include <dns/dns_addr.h>
#include <proxy/proxy-t.h>
#include <stats/stats.h>

#include "hlua_int.h"

#define CLASS_SERVER "Server"

struct hlua_server {
	struct server *s;
};

static struct server *srv_check(lua_State *L, int idx)
{
	return ((struct hlua_server *)luaL_checkudata(L, idx, CLASS_SERVER))->s;
}

void hlua_server_push(lua_State *L, struct server *s)
{
	struct hlua_server *o = hlua_obj_new(L, CLASS_SERVER, sizeof(*o));

	o->s = s;
}

/* ---- readers ---- */

static int l_srv_get_name(lua_State *L)
{
	lua_pushstring(L, srv_check(L, 1)->id);
	return 1;
}

static int l_srv_get_puid(lua_State *L)
{
	lua_pushinteger(L, srv_check(L, 1)->puid);
	return 1;
}

/* The revision of a dynamic server's id: ids are never reused by another server here. */
static int l_srv_get_rid(lua_State *L)
{
	srv_check(L, 1);
	lua_pushinteger(L, 0);
	return 1;
}

static int l_srv_is_draining(lua_State *L)
{
	lua_pushboolean(L, HA_ATOMIC_LOAD_RLX(&srv_check(L, 1)->admin) & SRV_ADM_FDRAIN);
	return 1;
}

static int l_srv_is_backup(lua_State *L)
{
	lua_pushboolean(L, srv_check(L, 1)->flags & SRV_F_BACKUP);
	return 1;
}

/* Added with "add server": it has no configuration line. */
static int l_srv_is_dynamic(lua_State *L)
{
	lua_pushboolean(L, !srv_check(L, 1)->file);
	return 1;
}

static int l_srv_get_cur_sess(lua_State *L)
{
	lua_pushinteger(L, HA_ATOMIC_LOAD_RLX(&srv_check(L, 1)->cur_conns));
	return 1;
}

static int l_srv_get_pend_conn(lua_State *L)
{
	lua_pushinteger(L, HA_ATOMIC_LOAD_RLX(&srv_check(L, 1)->queued));
	return 1;
}

static int l_srv_get_maxconn(lua_State *L)
{
	lua_pushinteger(L, HA_ATOMIC_LOAD_RLX(&srv_check(L, 1)->maxconn_cfg));
	return 1;
}

static int l_srv_get_weight(lua_State *L)
{
	lua_pushinteger(L, HA_ATOMIC_LOAD_RLX(&srv_check(L, 1)->uweight));
	return 1;
}

/* "IP:PORT" of the address connections go to now (IPv6 without brackets, as 2.6). */
static int l_srv_get_addr(lua_State *L)
{
	struct server *s = srv_check(L, 1);
	struct sockaddr_storage tmp;
	const struct sockaddr_storage *ss = dns_srv_shown_addr(s, &tmp);
	char ip[INET6_ADDRSTRLEN];
	int port;

	if (ss->ss_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, ip, sizeof(ip));
		port = ntohs(((const struct sockaddr_in *)ss)->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, ip, sizeof(ip));
		port = ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	} else {
		lua_pushstring(L, "<unknown>");
		return 1;
	}
	lua_pushfstring(L, "%s:%d", ip, port);
	return 1;
}

static int l_srv_get_stats(lua_State *L)
{
	struct server *s = srv_check(L, 1);
	struct stat_line l;

	stats_fill_srv(&l, s->px, s);
	hlua_push_stat_fields(L, &l, stat_cols, ST_NCOLS);
	return 1;
}

static int l_srv_get_proxy(lua_State *L)
{
	hlua_proxy_push(L, srv_check(L, 1)->px);
	return 1;
}

/* tracking(): the server whose state this one follows ("track"), or nil. */
static int l_srv_tracking(lua_State *L)
{
	struct server *s = srv_check(L, 1);

	if (!s->track)
		lua_pushnil(L);
	else
		hlua_server_push(L, s->track);
	return 1;
}

/* get_trackers(): the servers that follow this one, as an array. */
static int l_srv_get_trackers(lua_State *L)
{
	struct server *s = srv_check(L, 1);
	lua_Integer i = 1;

	lua_newtable(L);
	for (struct server *t = s->trackers; t; t = t->tracknext) {
		hlua_server_push(L, t);
		lua_rawseti(L, -2, i++);
	}
	return 1;
}

/* ---- setters: the runtime API's commands ---- */

/* Runs "<w0> <w1> BE/SRV [w3 [w4 [w5 w6]]]" (NULL ends the words) for the server at 1. */
static int srv_cmd(lua_State *L, enum hlua_adm_ret ret, const char *w0, const char *w1,
		   const char *w3, const char *w4, const char *w5, const char *w6)
{
	struct server *s = srv_check(L, 1);
	const char *argv[7] = { w0, w1, NULL, w3, w4, w5, w6 };
	int argc = 3;

	lua_pushfstring(L, "%s/%s", s->px->id, s->id);
	argv[2] = lua_tostring(L, -1);
	while (argc < 7 && argv[argc])
		argc++;
	return hlua_admin_call(L, ret, argc, argv);
}

/* "set maxconn server B/S N": nil, or the error. */
static int l_srv_set_maxconn(lua_State *L)
{
	const char *v = luaL_checkstring(L, 2);
	struct server *s = srv_check(L, 1);
	const char *argv[5] = { "set", "maxconn", "server", NULL, v };

	lua_pushfstring(L, "%s/%s", s->px->id, s->id);
	argv[3] = lua_tostring(L, -1);
	return hlua_admin_call(L, HLUA_ADM_ERR, 5, argv);
}

/* "set server B/S weight W": nil, or the error. */
static int l_srv_set_weight(lua_State *L)
{
	const char *w = luaL_checkstring(L, 2);

	return srv_cmd(L, HLUA_ADM_ERR, "set", "server", "weight", w, NULL, NULL);
}

/* set_addr(addr [, port]): "set server B/S addr A [port P]"; the report of what changed,
 * or the error. */
static int l_srv_set_addr(lua_State *L)
{
	const char *a = luaL_checkstring(L, 2);
	const char *p = lua_isnoneornil(L, 3) ? NULL : luaL_checkstring(L, 3);

	return srv_cmd(L, HLUA_ADM_MSG, "set", "server", "addr", a, p ? "port" : NULL, p);
}

static int l_srv_shut_sess(lua_State *L)
{
	struct server *s = srv_check(L, 1);
	const char *argv[4] = { "shutdown", "sessions", "server", NULL };

	lua_pushfstring(L, "%s/%s", s->px->id, s->id);
	argv[3] = lua_tostring(L, -1);
	return hlua_admin_call(L, HLUA_ADM_NONE, 4, argv);
}

static int l_srv_set_drain(lua_State *L)
{
	return srv_cmd(L, HLUA_ADM_NONE, "set", "server", "state", "drain", NULL, NULL);
}

static int l_srv_set_maint(lua_State *L)
{
	return srv_cmd(L, HLUA_ADM_NONE, "set", "server", "state", "maint", NULL, NULL);
}

static int l_srv_set_ready(lua_State *L)
{
	return srv_cmd(L, HLUA_ADM_NONE, "set", "server", "state", "ready", NULL, NULL);
}

static int l_srv_check_enable(lua_State *L)
{
	return srv_cmd(L, HLUA_ADM_NONE, "enable", "health", NULL, NULL, NULL, NULL);
}

static int l_srv_check_disable(lua_State *L)
{
	return srv_cmd(L, HLUA_ADM_NONE, "disable", "health", NULL, NULL, NULL, NULL);
}

static int l_srv_check_force_up(lua_State *L)
{
	return srv_cmd(L, HLUA_ADM_NONE, "set", "server", "health", "up", NULL, NULL);
}

static int l_srv_check_force_nolb(lua_State *L)
{
	return srv_cmd(L, HLUA_ADM_NONE, "set", "server", "health", "stopping", NULL, NULL);
}

static int l_srv_check_force_down(lua_State *L)
{
	return srv_cmd(L, HLUA_ADM_NONE, "set", "server", "health", "down", NULL, NULL);
}

static int l_srv_agent_enable(lua_State *L)
{
	return srv_cmd(L, HLUA_ADM_NONE, "enable", "agent", NULL, NULL, NULL, NULL);
}

static int l_srv_agent_disable(lua_State *L)
{
	return srv_cmd(L, HLUA_ADM_NONE, "disable", "agent", NULL, NULL, NULL, NULL);
}

static int l_srv_agent_force_up(lua_State *L)
{
	return srv_cmd(L, HLUA_ADM_NONE, "set", "server", "agent", "up", NULL, NULL);
}

static int l_srv_agent_force_down(lua_State *L)
{
	return srv_cmd(L, HLUA_ADM_NONE, "set", "server", "agent", "down", NULL, NULL);
}

static int l_srv_tostring(lua_State *L)
{
	lua_pushstring(L, "HAProxy class Server");
	return 1;
}

/* __index: methods, then the attributes name and puid. */
static int srv_index(lua_State *L)
{
	struct server *s = srv_check(L, 1);
	const char *k = lua_tostring(L, 2);

	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL || !k)
		return 1;
	if (!strcmp(k, "name"))
		lua_pushstring(L, s->id);
	else if (!strcmp(k, "puid"))
		lua_pushinteger(L, s->puid);
	else
		lua_pushnil(L);
	return 1;
}

static const luaL_Reg srv_methods[] = {
	{ "get_name", l_srv_get_name },
	{ "get_puid", l_srv_get_puid },
	{ "get_rid", l_srv_get_rid },
	{ "is_draining", l_srv_is_draining },
	{ "is_backup", l_srv_is_backup },
	{ "is_dynamic", l_srv_is_dynamic },
	{ "get_cur_sess", l_srv_get_cur_sess },
	{ "get_pend_conn", l_srv_get_pend_conn },
	{ "set_maxconn", l_srv_set_maxconn },
	{ "get_maxconn", l_srv_get_maxconn },
	{ "set_weight", l_srv_set_weight },
	{ "get_weight", l_srv_get_weight },
	{ "set_addr", l_srv_set_addr },
	{ "get_addr", l_srv_get_addr },
	{ "get_stats", l_srv_get_stats },
	{ "get_proxy", l_srv_get_proxy },
	{ "shut_sess", l_srv_shut_sess },
	{ "set_drain", l_srv_set_drain },
	{ "set_maint", l_srv_set_maint },
	{ "set_ready", l_srv_set_ready },
	{ "check_enable", l_srv_check_enable },
	{ "check_disable", l_srv_check_disable },
	{ "check_force_up", l_srv_check_force_up },
	{ "check_force_nolb", l_srv_check_force_nolb },
	{ "check_force_down", l_srv_check_force_down },
	{ "agent_enable", l_srv_agent_enable },
	{ "agent_disable", l_srv_agent_disable },
	{ "agent_force_up", l_srv_agent_force_up },
	{ "agent_force_down", l_srv_agent_force_down },
	{ "tracking", l_srv_tracking },
	{ "get_trackers", l_srv_get_trackers },
	{ NULL, NULL },
};

void hlua_server_setup(lua_State *L)
{
	hlua_class_new(L, CLASS_SERVER, srv_methods, srv_index, NULL);
	luaL_getmetatable(L, CLASS_SERVER);
	lua_pushcfunction(L, l_srv_tostring);
	lua_setfield(L, -2, "__tostring");
	lua_pop(L, 1);
}
