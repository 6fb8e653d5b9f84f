/* The Lua keywords of a build without Lua (make USE_LUA=0), the only file of src/lua/
 * built then: each keyword is refused with its file:line and the reason, so that a
 * configuration written for a build with Lua fails clearly rather than with "unknown
 * keyword". The lua.NAME actions, services, fetches and converters need no refusal of
 * their own: without a lua-load line nothing registers them.
 */
#include <cfg/cfg.h>

static int kw_lua_none(struct cfg_ctx *ctx)
{
	cfg_alert(ctx, "'%s' : Lua support is not built in (this binary was built with USE_LUA=0).",
		  ctx->args[0]);
	return -1;
}

static const struct cfg_kw hlua_none_kws[] = {
	{ "lua-load", CFG_SEC_GLOBAL, kw_lua_none },
	{ "lua-load-per-thread", CFG_SEC_GLOBAL, kw_lua_none },
	{ "lua-prepend-path", CFG_SEC_GLOBAL, kw_lua_none },
	{ "tune.lua.forced-yield", CFG_SEC_GLOBAL, kw_lua_none },
	{ "tune.lua.maxmem", CFG_SEC_GLOBAL, kw_lua_none },
	{ "tune.lua.session-timeout", CFG_SEC_GLOBAL, kw_lua_none },
	{ "tune.lua.service-timeout", CFG_SEC_GLOBAL, kw_lua_none },
	{ "tune.lua.task-timeout", CFG_SEC_GLOBAL, kw_lua_none },
	{ "tune.lua.burst-timeout", CFG_SEC_GLOBAL, kw_lua_none },
	{ "tune.lua.log.loggers", CFG_SEC_GLOBAL, kw_lua_none },
	{ "tune.lua.log.stderr", CFG_SEC_GLOBAL, kw_lua_none },
	{ "tune.lua.bool-sample-conversion", CFG_SEC_GLOBAL, kw_lua_none },
	{ "tune.lua.openlibs", CFG_SEC_GLOBAL, kw_lua_none },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(hlua_none_kws);
