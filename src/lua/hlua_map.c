/* The Map and Regex classes, and core.add_acl/del_acl/set_map/del_map. A Map is a map file
 * loaded while the Lua files are (Map.new, as the map converters load theirs: one
 * reference per file, shared with the configuration, so "set map" and core.set_map reach
 * it); its lookups take no lock. A Regex is compiled by PCRE2 (sample/regex.c) and freed
 * with its Lua object. The core functions change the map and ACL files the configuration
 * or Map.new loaded, through the same code paths and writer lock as the runtime API's
 * "add acl", "del map"... (sample/map_ref.h), from any thread.
 */
#include <stdio.h>
#include <string.h>

#include <sample/map.h>
#include <sample/map_act.h>
#include <sample/map_ref.h>
#include <sample/pattern.h>
#include <sample/regex.h>
#include <sample/sample.h>

#include "hlua_int.h"

#define CLASS_MAP "Map"
#define CLASS_REGEX "Regex"

extern struct hlua_state *hlua_loading; /* hlua_cfg.c */

/* ---- Map ---- */

struct hlua_map {
	struct map_desc *map;
	uint8_t match; /* PAT_MATCH_* */
};

/* The match methods a Map may use, under HAProxy's names (Map._str...; the older names
 * without '_' too). Their values are the PAT_MATCH_* ones, which are HAProxy's. */
static const struct {
	const char *name;
	int match;
} map_methods[] = {
	{ "found", PAT_MATCH_FOUND }, { "bool", PAT_MATCH_BOOL }, { "int", PAT_MATCH_INT },
	{ "ip", PAT_MATCH_IP },	      { "bin", PAT_MATCH_BIN },	  { "len", PAT_MATCH_LEN },
	{ "str", PAT_MATCH_STR },     { "beg", PAT_MATCH_BEG },	  { "sub", PAT_MATCH_SUB },
	{ "dir", PAT_MATCH_DIR },     { "dom", PAT_MATCH_DOM },	  { "end", PAT_MATCH_END },
	{ "reg", PAT_MATCH_REG },     { "regm", PAT_MATCH_REGM },
};

static bool map_method_ok(lua_Integer m)
{
	return m == PAT_MATCH_STR || m == PAT_MATCH_BEG || m == PAT_MATCH_SUB ||
	       m == PAT_MATCH_DIR || m == PAT_MATCH_DOM || m == PAT_MATCH_END ||
	       m == PAT_MATCH_REG || m == PAT_MATCH_IP || m == PAT_MATCH_INT;
}

/* Map.new(file [, method]): only while the Lua files are loaded (the body of a file), as
 * HAProxy: loading a file is configuration work. The method defaults to Map._str. */
static int map_new(lua_State *L)
{
	const char *file = luaL_checkstring(L, 1);
	lua_Integer m = luaL_optinteger(L, 2, PAT_MATCH_STR);
	struct smp_parse_ctx pc = { .file = "lua", .line = 0 };
	const struct smp_parse_ctx *prev = smp_parse_cur;
	struct hlua_map *hm;
	lua_Debug ar;
	char err[512];

	if (m < 0 || m >= PAT_MATCH_NUM)
		return luaL_error(L, "'new' needs a valid match method.");
	if (!map_method_ok(m))
		return luaL_error(L, "'new' doesn't support this match mode.");
	if (!hlua_loading)
		return luaL_error(L, "'new': map: cannot load map at runtime.");
	hm = hlua_obj_new(L, CLASS_MAP, sizeof(*hm));
	/* "show map" says which Lua line loaded the file */
	if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
		pc.file = ar.short_src;
		pc.line = ar.currentline;
	}
	smp_parse_cur = &pc;
	hm->map = map_get(file, (int)m, SMP_T_STR, err, sizeof(err));
	smp_parse_cur = prev;
	if (!hm->map)
		return luaL_error(L, "'new': %s.", err);
	hm->match = (uint8_t)m;
	return 1;
}

/* Looks the key at 2 up; pushes the value, or nothing and returns false. */
static bool map_do_lookup(lua_State *L)
{
	struct hlua_map *hm = hlua_obj_check(L, 1, CLASS_MAP);
	struct sample smp = { 0 };
	size_t len;
	const char *k;

	if (hm->match == PAT_MATCH_INT) {
		smp.data.type = SMP_T_SINT;
		smp.data.u.sint = luaL_checkinteger(L, 2);
	} else {
		k = luaL_checklstring(L, 2, &len);
		smp.data.type = SMP_T_STR;
		smp.data.u.str = ist2(k, len);
		smp.flags = SMP_F_CONST;
	}
	if (!hm->map || !map_lookup(hm->map, &smp) || smp.data.type != SMP_T_STR)
		return false;
	lua_pushlstring(L, smp.data.u.str.ptr ? smp.data.u.str.ptr : "", smp.data.u.str.len);
	return true;
}

/* map:lookup(key): the value, or nil */
static int map_lookup_l(lua_State *L)
{
	if (!map_do_lookup(L))
		lua_pushnil(L);
	return 1;
}

/* map:slookup(key): the value, or "" */
static int map_slookup_l(lua_State *L)
{
	if (!map_do_lookup(L))
		lua_pushstring(L, "");
	return 1;
}

static const luaL_Reg map_instance[] = {
	{ "lookup", map_lookup_l },
	{ "slookup", map_slookup_l },
	{ NULL, NULL },
};

/* The global Map: new, the methods (Map.lookup(map, key) works too) and the constants. */
static void map_global(lua_State *L)
{
	hlua_class_new(L, CLASS_MAP, map_instance, NULL, NULL);
	lua_newtable(L);
	luaL_setfuncs(L, map_instance, 0);
	lua_pushcfunction(L, map_new);
	lua_setfield(L, -2, "new");
	for (size_t i = 0; i < sizeof(map_methods) / sizeof(map_methods[0]); i++) {
		lua_pushinteger(L, map_methods[i].match);
		lua_setfield(L, -2, map_methods[i].name);
		lua_pushfstring(L, "_%s", map_methods[i].name);
		lua_pushinteger(L, map_methods[i].match);
		lua_rawset(L, -3);
	}
	lua_setglobal(L, "Map");
}

/* ---- Regex ---- */

struct hlua_regex {
	struct regex *re; /* NULL until compiled */
};

static int regex_gc(lua_State *L)
{
	struct hlua_regex *r = luaL_checkudata(L, 1, CLASS_REGEX);

	regex_free(r->re);
	r->re = NULL;
	return 0;
}

/* Regex.new(pattern, case_sensitive): true and the regex, or false and why. The object
 * is made first so that a compiled regex always has an owner that frees it. */
static int regex_new(lua_State *L)
{
	const char *pat = luaL_checkstring(L, 1);
	struct hlua_regex *r;
	char err[256], *at;

	luaL_checktype(L, 2, LUA_TBOOLEAN);
	r = hlua_obj_new(L, CLASS_REGEX, sizeof(*r));
	r->re = regex_comp(pat, lua_toboolean(L, 2) ? 0 : REGEX_ICASE, err, sizeof(err));
	if (!r->re) {
		lua_pushboolean(L, 0);
		at = strstr(err, " at offset ");
		if (at) {
			*at = 0;
			lua_pushfstring(L, "regex '%s' is invalid (error=%s, erroffset=%s)", pat,
					err, at + 11);
		} else {
			lua_pushfstring(L, "regex '%s' is invalid (error=%s)", pat, err);
		}
		return 2;
	}
	lua_pushboolean(L, 1);
	lua_insert(L, -2);
	return 2;
}

static struct hlua_regex *regex_check(lua_State *L)
{
	struct hlua_regex *r = luaL_checkudata(L, 1, CLASS_REGEX);

	if (!r->re)
		luaL_error(L, "this regex is not compiled");
	return r;
}

/* regex:exec(str): true when the regex matches somewhere in str */
static int regex_exec_l(lua_State *L)
{
	struct hlua_regex *r = regex_check(L);
	size_t len;
	const char *s = luaL_checklstring(L, 2, &len);

	lua_pushboolean(L, regex_exec(r->re, s, len));
	return 1;
}

/* regex:match(str): true and {whole match, group 1, ...} up to the first group that did
 * not take part, or false and {}. Groups beyond \9 are not reported. */
static int regex_match_l(lua_State *L)
{
	struct hlua_regex *r = regex_check(L);
	struct regex_match m[REGEX_MAX_MATCH];
	size_t len;
	const char *s = luaL_checklstring(L, 2, &len);
	bool ok = regex_exec_match(r->re, s, len, m, REGEX_MAX_MATCH);

	lua_pushboolean(L, ok);
	lua_newtable(L);
	for (int i = 0; ok && i < REGEX_MAX_MATCH && m[i].so >= 0; i++) {
		lua_pushlstring(L, s + m[i].so, (size_t)(m[i].eo - m[i].so));
		lua_rawseti(L, -2, i + 1);
	}
	return 2;
}

static const luaL_Reg regex_instance[] = {
	{ "exec", regex_exec_l },
	{ "match", regex_match_l },
	{ NULL, NULL },
};

static void regex_global(lua_State *L)
{
	hlua_class_new(L, CLASS_REGEX, regex_instance, NULL, regex_gc);
	lua_newtable(L);
	luaL_setfuncs(L, regex_instance, 0);
	lua_pushcfunction(L, regex_new);
	lua_setfield(L, -2, "new");
	lua_setglobal(L, "Regex");
}

/* ---- core.add_acl, del_acl, set_map, del_map ---- */

/* The reference of file <name> (a map's or an ACL's: HAProxy finds either by its file
 * name), or raises "'fn': unknown <kind> file". */
static struct map_ref *ref_check(lua_State *L, const char *fn, const char *kind)
{
	const char *name = luaL_checkstring(L, 1);
	struct map_ref *r = map_ref_find_path(name, MAP_REF_F_MAP | MAP_REF_F_ACL);

	luaL_checkstring(L, 2);
	if (!r)
		luaL_error(L, "'%s': unknown %s file '%s'", fn, kind, name);
	return r;
}

/* core.add_acl(file, key): adds the pattern unless it is there already. A pattern one of
 * the file's users cannot take (not an address for an IP ACL...) is ignored, as HAProxy
 * does. Each change is the rules' one (map_act.h): no Lua call raises in between. */
static int l_add_acl(lua_State *L)
{
	struct map_ref *r = ref_check(L, "add_acl", "acl");

	map_act_add_acl(r, lua_tostring(L, 2));
	return 0;
}

/* core.del_acl(file, key) */
static int l_del_acl(lua_State *L)
{
	struct map_ref *r = ref_check(L, "del_acl", "acl");

	map_act_del(r, lua_tostring(L, 2));
	return 0;
}

/* core.del_map(file, key) */
static int l_del_map(lua_State *L)
{
	struct map_ref *r = ref_check(L, "del_map", "map");

	map_act_del(r, lua_tostring(L, 2));
	return 0;
}

/* core.set_map(file, key, value): the value of every entry of <key>, or a new entry. A
 * value one of the file's maps cannot take (not a number for map_str_int...) is ignored,
 * as HAProxy does. */
static int l_set_map(lua_State *L)
{
	struct map_ref *r = ref_check(L, "set_map", "map");
	const char *value = luaL_checkstring(L, 3);

	map_act_set(r, lua_tostring(L, 2), value);
	return 0;
}

static const luaL_Reg core_map_fns[] = {
	{ "add_acl", l_add_acl }, { "del_acl", l_del_acl }, { "set_map", l_set_map },
	{ "del_map", l_del_map }, { NULL, NULL },
};

void hlua_map_setup(lua_State *L)
{
	map_global(L);
	regex_global(L);
	lua_getglobal(L, "core");
	luaL_setfuncs(L, core_map_fns, 0);
	lua_pop(L, 1);
}
