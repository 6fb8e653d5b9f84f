/* The Proxy and Listener classes, core.proxies, core.frontends and core.backends (set in
 * every state once the configuration is checked: nil while the files load, as 2.6), and
 * core.get_info(). A Proxy's "servers" is a live view of its servers (servers added or
 * deleted at run time are seen); its statistics are the "show stat" fields, read as the
 * stats code reads them. The setters run the runtime API's commands (hlua_admin.c). The
 * Server class is in hlua_server.c.
 */
#include <stdio.h>
#include <string.h>

#include <backend/server.h>
#include <cfg/cfg.h>
#include <conn/listener-t.h>
#include <event/loop.h>
#include <proxy/proxy.h>
#include <stats/stats.h>

#include "hlua_int.h"

#define CLASS_PROXY "Proxy"
#define CLASS_SERVERS "hlua.Servers"
#define CLASS_LISTENER "Listener"

struct hlua_proxy {
	struct proxy *px; /* proxies live until exit */
};

struct hlua_listener {
	struct proxy *px;
	struct listener *li;
	int sid; /* its number in the proxy, from 1 */
};

/* ---- statistics ---- */

void hlua_push_stat_fields(lua_State *L, const struct stat_line *l, const struct stat_desc *d,
			   int n)
{
	lua_createtable(L, 0, n);
	for (int i = 0; i < n; i++) {
		const struct stat_field *f = &l->f[i];

		switch (f->type) {
		case SF_S32:
			lua_pushinteger(L, f->u.s32);
			break;
		case SF_U32:
			lua_pushinteger(L, f->u.u32);
			break;
		case SF_S64:
			lua_pushinteger(L, f->u.s64);
			break;
		case SF_U64:
			lua_pushinteger(L, (lua_Integer)f->u.u64);
			break;
		case SF_STR:
			lua_pushstring(L, f->u.str ? f->u.str : "");
			break;
		default:
			continue; /* empty: absent, as in 2.6 */
		}
		lua_setfield(L, -2, d[i].name);
	}
}

/* core.get_info(): the "show info" fields by name. */
static int l_get_info(lua_State *L)
{
	struct stat_line l;

	stats_fill_info(&l);
	hlua_push_stat_fields(L, &l, info_fields, INF_NFIELDS);
	return 1;
}

/* ---- Proxy ---- */

static struct proxy *proxy_check(lua_State *L, int idx)
{
	return ((struct hlua_proxy *)luaL_checkudata(L, idx, CLASS_PROXY))->px;
}

void hlua_proxy_push(lua_State *L, struct proxy *px)
{
	struct hlua_proxy *p = hlua_obj_new(L, CLASS_PROXY, sizeof(*p));

	p->px = px;
	lua_newtable(L); /* cache of servers, listeners, stktable */
	lua_setiuservalue(L, -2, 1);
}

/* A word naming <px> for a command ("disable frontend NAME"). */
static int proxy_cmd(lua_State *L, const char *w0, const char *w1)
{
	struct proxy *px = proxy_check(L, 1);
	const char *argv[3] = { w0, w1, px->id };

	return hlua_admin_call(L, HLUA_ADM_NONE, 3, argv);
}

/* pause(), resume(), stop(): "disable|enable|shutdown frontend"; nothing for a backend. */
static int l_px_pause(lua_State *L)
{
	if (!(proxy_check(L, 1)->cap & PR_CAP_FE))
		return 0;
	return proxy_cmd(L, "disable", "frontend");
}

static int l_px_resume(lua_State *L)
{
	if (!(proxy_check(L, 1)->cap & PR_CAP_FE))
		return 0;
	return proxy_cmd(L, "enable", "frontend");
}

static int l_px_stop(lua_State *L)
{
	if (!(proxy_check(L, 1)->cap & PR_CAP_FE))
		return 0;
	return proxy_cmd(L, "shutdown", "frontend");
}

/* shut_bcksess(): kills the streams of the backup servers (each thread its own). */
static int l_px_shut_bcksess(lua_State *L)
{
	struct proxy *px = proxy_check(L, 1);

	if ((px->cap & PR_CAP_BE) && px->srv && srv_shutdown_hook && th_ctx)
		srv_shutdown_hook(px->srv, true);
	return 0;
}

static int l_px_get_cap(lua_State *L)
{
	struct proxy *px = proxy_check(L, 1);

	lua_pushstring(L, (px->cap & (PR_CAP_FE | PR_CAP_BE)) == (PR_CAP_FE | PR_CAP_BE) ? "proxy"
			  : (px->cap & PR_CAP_FE) ? "frontend"
						  : "backend");
	return 1;
}

static int l_px_get_mode(lua_State *L)
{
	lua_pushstring(L, proxy_check(L, 1)->mode == PR_MODE_HTTP ? "http" : "tcp");
	return 1;
}

/* Servers of the tier <backup> that take traffic (the "act" and "bck" of show stat). */
static int px_count_srv(lua_State *L, bool backup)
{
	struct proxy *px = proxy_check(L, 1);
	int n = 0;

	for (const struct server *s = px->srv; s; s = s->next)
		n += srv_usable(s, backup);
	lua_pushinteger(L, n);
	return 1;
}

static int l_px_get_srv_act(lua_State *L)
{
	return px_count_srv(L, false);
}

static int l_px_get_srv_bck(lua_State *L)
{
	return px_count_srv(L, true);
}

/* get_stats(): the backend line of a proxy that has one, else its frontend line. */
static int l_px_get_stats(lua_State *L)
{
	struct proxy *px = proxy_check(L, 1);
	struct stat_line l;

	if (px->cap & PR_CAP_BE)
		stats_fill_be(&l, px);
	else
		stats_fill_fe(&l, px);
	hlua_push_stat_fields(L, &l, stat_cols, ST_NCOLS);
	return 1;
}

static int l_px_get_mailers(lua_State *L)
{
	return luaL_error(L, "Proxy.get_mailers: mailers are not supported yet");
}

static int l_px_tostring(lua_State *L)
{
	lua_pushstring(L, "HAProxy class Proxy");
	return 1;
}

/* A table of the listeners of <px> by name ("sock-N" when the bind has none). */
static void px_push_listeners(lua_State *L, struct proxy *px)
{
	struct bind_conf *bc;
	struct listener *li;
	int sid = 0;

	lua_newtable(L);
	list_for_each_entry(bc, &px->binds, list) list_for_each_entry(li, &bc->listeners, list)
	{
		struct hlua_listener *o;

		sid++;
		if (li->name)
			lua_pushstring(L, li->name);
		else
			lua_pushfstring(L, "sock-%d", sid);
		o = hlua_obj_new(L, CLASS_LISTENER, sizeof(*o));
		o->px = px;
		o->li = li;
		o->sid = sid;
		lua_settable(L, -3);
	}
}

/* A live view of the servers of <px>. */
static void px_push_servers(lua_State *L, struct proxy *px)
{
	struct hlua_proxy *v = hlua_obj_new(L, CLASS_SERVERS, sizeof(*v));

	v->px = px;
}

/* __index of Proxy: methods, then name, uuid, servers, listeners, stktable. */
static int px_index(lua_State *L)
{
	struct proxy *px = proxy_check(L, 1);
	const char *k = lua_tostring(L, 2);

	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL || !k)
		return 1;
	if (!strcmp(k, "name")) {
		lua_pushstring(L, px->id);
		return 1;
	}
	if (!strcmp(k, "uuid")) {
		lua_pushinteger(L, stat_proxy_iid(px));
		return 1;
	}
	if (strcmp(k, "servers") && strcmp(k, "listeners") && strcmp(k, "stktable")) {
		lua_pushnil(L);
		return 1;
	}
	lua_getiuservalue(L, 1, 1);
	if (lua_getfield(L, -1, k) != LUA_TNIL)
		return 1;
	lua_pop(L, 1);
	if (k[0] == 's' && k[1] == 'e')
		px_push_servers(L, px);
	else if (k[0] == 'l')
		px_push_listeners(L, px);
	else if (px->table)
		hlua_stktable_push(L, px->table);
	else
		lua_pushnil(L); /* no table (cached as such: nothing to store) */
	lua_pushvalue(L, -1);
	lua_setfield(L, -3, k);
	return 1;
}

static const luaL_Reg px_methods[] = {
	{ "pause", l_px_pause },
	{ "resume", l_px_resume },
	{ "stop", l_px_stop },
	{ "shut_bcksess", l_px_shut_bcksess },
	{ "get_cap", l_px_get_cap },
	{ "get_mode", l_px_get_mode },
	{ "get_srv_act", l_px_get_srv_act },
	{ "get_srv_bck", l_px_get_srv_bck },
	{ "get_stats", l_px_get_stats },
	{ "get_mailers", l_px_get_mailers },
	{ NULL, NULL },
};

/* ---- the servers of a proxy (Proxy.servers) ---- */

static struct proxy *servers_check(lua_State *L, int idx)
{
	return ((struct hlua_proxy *)luaL_checkudata(L, idx, CLASS_SERVERS))->px;
}

/* servers[name]: the server of that name now, or nil. */
static int servers_index(lua_State *L)
{
	struct proxy *px = servers_check(L, 1);
	const char *k = lua_tostring(L, 2);

	for (struct server *s = k ? px->srv : NULL; s; s = s->next) {
		if (!strcmp(s->id, k)) {
			hlua_server_push(L, s);
			return 1;
		}
	}
	lua_pushnil(L);
	return 1;
}

static int servers_len(lua_State *L)
{
	struct proxy *px = servers_check(L, 1);
	int n = 0;

	for (const struct server *s = px->srv; s; s = s->next)
		n++;
	lua_pushinteger(L, n);
	return 1;
}

/* next() over the snapshot table of servers_pairs. */
static int servers_next(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 2);
	if (lua_next(L, 1))
		return 2;
	lua_pushnil(L);
	return 1;
}

/* pairs(servers): over a snapshot table name -> Server of the servers there now. */
static int servers_pairs(lua_State *L)
{
	struct proxy *px = servers_check(L, 1);

	lua_pushcfunction(L, servers_next);
	lua_newtable(L);
	for (struct server *s = px->srv; s; s = s->next) {
		hlua_server_push(L, s);
		lua_setfield(L, -2, s->id);
	}
	lua_pushnil(L);
	return 3;
}

static int servers_newindex(lua_State *L)
{
	return luaL_error(L, "the servers of a proxy cannot be assigned");
}

/* ---- Listener ---- */

static int l_li_get_stats(lua_State *L)
{
	struct hlua_listener *o = luaL_checkudata(L, 1, CLASS_LISTENER);
	struct stat_line l;

	stats_fill_li(&l, o->px, o->li, o->sid);
	hlua_push_stat_fields(L, &l, stat_cols, ST_NCOLS);
	return 1;
}

static int l_li_tostring(lua_State *L)
{
	lua_pushstring(L, "HAProxy class Listener");
	return 1;
}

static const luaL_Reg li_methods[] = {
	{ "get_stats", l_li_get_stats },
	{ NULL, NULL },
};

/* ---- core.proxies, core.frontends, core.backends ---- */

/* Runs protected: the three tables into the core table. */
static int publish_cb(lua_State *L)
{
	if (lua_getglobal(L, "core") != LUA_TTABLE)
		return 0; /* a script replaced it: nothing to publish into */
	lua_newtable(L);  /* proxies */
	lua_newtable(L);  /* frontends */
	lua_newtable(L);  /* backends */
	for (struct proxy *px = proxies; px; px = px->next) {
		hlua_proxy_push(L, px);
		lua_pushvalue(L, -1);
		lua_setfield(L, -5, px->id);
		if (px->cap & PR_CAP_FE) {
			lua_pushvalue(L, -1);
			lua_setfield(L, -4, px->id);
		}
		if (px->cap & PR_CAP_BE) {
			lua_pushvalue(L, -1);
			lua_setfield(L, -3, px->id);
		}
		lua_pop(L, 1);
	}
	lua_setfield(L, -4, "backends");
	lua_setfield(L, -3, "frontends");
	lua_setfield(L, -2, "proxies");
	return 0;
}

int hlua_proxy_publish_all(void)
{
	for (int i = 0; i < HLUA_STATES; i++) {
		struct hlua_state *st = hlua_states[i];
		int ret;

		if (!st)
			continue;
		hlua_lock(st);
		lua_pushcfunction(st->L, publish_cb);
		ret = lua_pcall(st->L, 0, 0, 0);
		if (ret != LUA_OK)
			lua_pop(st->L, 1);
		hlua_unlock(st);
		if (ret != LUA_OK) {
			ha_alert("Lua: cannot publish the proxies (out of memory).\n");
			return -1;
		}
	}
	return 0;
}

/* ---- setup ---- */

/* Adds a __tostring to the metatable <name>. */
static void class_tostring(lua_State *L, const char *name, lua_CFunction fn)
{
	luaL_getmetatable(L, name);
	lua_pushcfunction(L, fn);
	lua_setfield(L, -2, "__tostring");
	lua_pop(L, 1);
}

void hlua_proxy_setup(lua_State *L)
{
	static const luaL_Reg servers_meta[] = {
		{ "__index", servers_index },
		{ "__len", servers_len },
		{ "__pairs", servers_pairs },
		{ "__newindex", servers_newindex },
		{ NULL, NULL },
	};

	hlua_class_new(L, CLASS_PROXY, px_methods, px_index, NULL);
	class_tostring(L, CLASS_PROXY, l_px_tostring);
	hlua_class_new(L, CLASS_LISTENER, li_methods, NULL, NULL);
	class_tostring(L, CLASS_LISTENER, l_li_tostring);
	luaL_newmetatable(L, CLASS_SERVERS);
	luaL_setfuncs(L, servers_meta, 0);
	lua_pop(L, 1);
	hlua_server_setup(L);
	hlua_admin_setup(L);
	hlua_cli_setup(L);
	if (lua_getglobal(L, "core") == LUA_TTABLE) {
		lua_pushcfunction(L, l_get_info);
		lua_setfield(L, -2, "get_info");
	}
	lua_pop(L, 1);
}
