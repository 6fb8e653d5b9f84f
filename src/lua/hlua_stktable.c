/* The StickTable class reached through Proxy.stktable: info() (type, sizes, stored data),
 * lookup(key) (one entry's data, its expiry and use count) and dump([filter]) (every
 * entry, or those whose data pass up to four comparisons, as "show table" filters them).
 * Entries are read under their shard's lock through the stick table API; nothing is
 * allocated under it: lookup copies one entry into a C structure, dump copies entries into
 * a bounded batch which is turned into Lua values once the lock is released.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <event/loop.h>
#include <sample/sample.h>
#include <stream/stktable.h>

#include "hlua_int.h"

#define CLASS_STKTABLE "StickTable"
#define STK_LUA_FILTERS 4	   /* as "show table" */
#define STK_LUA_SRVKEY 128	   /* server_key names are cut there */
#define STK_LUA_BATCH (128 * 1024) /* room for at least one entry of any table */

struct hlua_stktable {
	struct stktable *t; /* tables live until exit */
};

/* The data of one entry, copied under its lock. v[] follows the table's stored types in
 * their order (element 0 of arrays, as 2.6 shows them). */
struct stk_lua_rec {
	uint32_t klen;
	int32_t exp;
	uint32_t use;
	uint32_t pad;
	char srvkey[STK_LUA_SRVKEY]; /* only with server_key stored */
	long long v[STK_DT_TYPES];
};

struct stk_lua_filter {
	int dt;
	int op; /* 0 eq, 1 ne, 2 le, 3 lt, 4 ge, 5 gt */
	long long v;
};

/* A dump in progress: the batch being filled under the locks. */
struct stk_lua_dump {
	struct stktable *t;
	uint64_t now;
	struct stk_lua_filter f[STK_LUA_FILTERS];
	int nf;
	unsigned char *batch;
	size_t used;
};

static struct stktable *stk_check(lua_State *L, int idx)
{
	return ((struct hlua_stktable *)luaL_checkudata(L, idx, CLASS_STKTABLE))->t;
}

void hlua_stktable_push(lua_State *L, struct stktable *t)
{
	struct hlua_stktable *o = hlua_obj_new(L, CLASS_STKTABLE, sizeof(*o));

	o->t = t;
}

static uint64_t stk_now(void)
{
	return th_ctx ? now_ms() : 0;
}

/* ---- copying an entry (under its shard's lock: no allocation, no Lua) ---- */

/* Bytes of the record of an entry whose key has <klen> bytes. */
static size_t rec_size(uint32_t klen)
{
	return (sizeof(struct stk_lua_rec) + klen + 7) & ~(size_t)7;
}

static void rec_fill(const struct stktable *t, struct stksess *ts, uint64_t now,
		     struct stk_lua_rec *r, bool with_key)
{
	int n = 0;

	r->klen = with_key ? ts->klen : 0;
	r->exp = stksess_expires_in(t, ts, now);
	r->use = stksess_refs(ts);
	r->srvkey[0] = 0;
	for (int dt = 0; dt < STK_DT_TYPES; dt++) {
		if (t->data_ofs[dt] == STK_DT_NONE)
			continue;
		r->v[n] = 0;
		if (dt == STK_DT_SERVER_KEY) {
			const char **p = stksess_data(t, ts, dt, 0);

			snprintf(r->srvkey, sizeof(r->srvkey), "%s", p && *p ? *p : "-");
		} else {
			stksess_get(t, ts, dt, 0, now, &r->v[n]);
		}
		n++;
	}
	if (with_key)
		memcpy(r + 1, ts->kd, ts->klen);
}

/* ---- turning a record into Lua values ---- */

/* Pushes the data of <r> as a table name -> value. */
static void rec_push_data(lua_State *L, const struct stktable *t, const struct stk_lua_rec *r)
{
	int n = 0;

	lua_newtable(L);
	for (int dt = 0; dt < STK_DT_TYPES; dt++) {
		if (t->data_ofs[dt] == STK_DT_NONE)
			continue;
		if (dt == STK_DT_SERVER_KEY)
			lua_pushstring(L, r->srvkey);
		else
			lua_pushinteger(L, r->v[n]);
		lua_setfield(L, -2, stk_dt_info[dt].name);
		n++;
	}
}

/* Pushes the key of <r>: an address as text, an integer as a number, strings and binary
 * keys as their bytes. */
static void rec_push_key(lua_State *L, const struct stktable *t, const struct stk_lua_rec *r)
{
	const unsigned char *k = (const unsigned char *)(r + 1);
	char ip[INET6_ADDRSTRLEN];
	int32_t i;

	switch (t->type) {
	case STK_KEY_IP:
		inet_ntop(AF_INET, k, ip, sizeof(ip));
		lua_pushstring(L, ip);
		break;
	case STK_KEY_IPV6:
		inet_ntop(AF_INET6, k, ip, sizeof(ip));
		lua_pushstring(L, ip);
		break;
	case STK_KEY_INT:
		memcpy(&i, k, sizeof(i));
		lua_pushinteger(L, i);
		break;
	default:
		lua_pushlstring(L, (const char *)k, r->klen);
		break;
	}
}

/* ---- info() ---- */

static int l_stk_info(lua_State *L)
{
	struct stktable *t = stk_check(L, 1);

	lua_newtable(L);
	lua_pushstring(L, stk_key_type_name(t->type));
	lua_setfield(L, -2, "type");
	/* 2.6 counts the string terminator in the length of string keys */
	lua_pushinteger(L, t->type == STK_KEY_STR ? t->key_size + 1 : t->key_size);
	lua_setfield(L, -2, "length");
	lua_pushinteger(L, t->size);
	lua_setfield(L, -2, "size");
	lua_pushinteger(L, stktable_used(t));
	lua_setfield(L, -2, "used");
	lua_pushboolean(L, t->nopurge);
	lua_setfield(L, -2, "nopurge");
	lua_pushinteger(L, t->expire);
	lua_setfield(L, -2, "expire");
	lua_newtable(L);
	for (int dt = 0; dt < STK_DT_TYPES; dt++) {
		if (t->data_ofs[dt] == STK_DT_NONE)
			continue;
		lua_pushinteger(L, stk_dt_info[dt].std == STK_STD_RATE
					   ? (lua_Integer)t->data_period[dt]
					   : -1);
		lua_setfield(L, -2, stk_dt_info[dt].name);
	}
	lua_setfield(L, -2, "data");
	return 1;
}

/* ---- lookup(key) ---- */

static int lookup_cb(void *arg, struct stktable *t, struct stksess *ts)
{
	rec_fill(t, ts, stk_now(), arg, false);
	return 1;
}

/* The key of <t> made from the string at <idx> (2.6 converts it as a string sample). */
static int stk_lua_key(lua_State *L, struct stktable *t, int idx, struct stk_key *k)
{
	size_t len;
	const char *s = luaL_checklstring(L, idx, &len);
	struct sample smp;

	memset(&smp, 0, sizeof(smp));
	smp.data.type = SMP_T_STR;
	smp.data.u.str = ist2(s, len);
	smp.flags = SMP_F_CONST;
	return stk_key_from_smp(t, &smp, k);
}

/* lookup(key): the entry's data plus "expire" (ms left) and "use", or nil. */
static int l_stk_lookup(lua_State *L)
{
	struct stktable *t = stk_check(L, 1);
	struct stk_lua_rec r;
	struct stk_key k;

	if (!stk_lua_key(L, t, 2, &k) || !stktable_with_key(t, &k, stk_now(), lookup_cb, &r)) {
		lua_pushnil(L);
		return 1;
	}
	rec_push_data(L, t, &r);
	lua_pushinteger(L, r.exp);
	lua_setfield(L, -2, "expire");
	lua_pushinteger(L, r.use);
	lua_setfield(L, -2, "use");
	return 1;
}

/* ---- dump([filter]) ---- */

static bool filters_match(const struct stk_lua_dump *d, struct stksess *ts)
{
	for (int i = 0; i < d->nf; i++) {
		const struct stk_lua_filter *f = &d->f[i];
		long long v = 0;
		bool ok;

		stksess_get(d->t, ts, f->dt, 0, d->now, &v);
		switch (f->op) {
		case 0:
			ok = v == f->v;
			break;
		case 1:
			ok = v != f->v;
			break;
		case 2:
			ok = v <= f->v;
			break;
		case 3:
			ok = v < f->v;
			break;
		case 4:
			ok = v >= f->v;
			break;
		default:
			ok = v > f->v;
			break;
		}
		if (!ok)
			return false;
	}
	return true;
}

/* Under the entry's lock: appends its record to the batch, or stops the walk there (-1)
 * when the batch is full. */
static int dump_cb(void *arg, struct stksess *ts)
{
	struct stk_lua_dump *d = arg;
	size_t sz = rec_size(ts->klen);

	if (!filters_match(d, ts))
		return 0;
	if (sz > STK_LUA_BATCH - d->used)
		return d->used ? -1 : 0; /* (cannot happen: a batch holds any entry) */
	rec_fill(d->t, ts, d->now, (struct stk_lua_rec *)(d->batch + d->used), true);
	d->used += sz;
	return 0;
}

/* Parses the filter table at 2 into <d>: {{"data_col", "op", value}, ...}. Returns NULL,
 * or 2.6's message (static, or written into <msg>). */
static const char *dump_filters(lua_State *L, struct stk_lua_dump *d, char *msg, size_t msgsz)
{
	static const char *const ops[] = { "eq", "ne", "le", "lt", "ge", "gt" };
	lua_Integer n;

	if (lua_isnoneornil(L, 2))
		return NULL;
	if (!lua_istable(L, 2))
		return "filter table expected";
	n = (lua_Integer)lua_rawlen(L, 2);
	if (n > STK_LUA_FILTERS)
		return "Filter table too large (len > 4)";
	for (lua_Integer i = 1; i <= n; i++) {
		struct stk_lua_filter *f = &d->f[d->nf];
		const char *col, *op;
		int isnum;

		if (lua_rawgeti(L, 2, i) != LUA_TTABLE || lua_rawlen(L, -1) != 3) {
			snprintf(
				msg, msgsz,
				"Filter table entry must be a triplet: {\"data_col\", \"op\", val} "
				"(entry #%d)",
				(int)i);
			lua_pop(L, 1);
			return msg;
		}
		lua_rawgeti(L, -1, 1);
		lua_rawgeti(L, -2, 2);
		lua_rawgeti(L, -3, 3);
		col = lua_tostring(L, -3);
		op = lua_tostring(L, -2);
		f->v = lua_tointegerx(L, -1, &isnum); /* not a number: 0, as 2.6 */
		f->dt = col ? stk_dt_find(col, strlen(col)) : -1;
		if (f->dt < 0 || d->t->data_ofs[f->dt] == STK_DT_NONE || f->dt >= STK_DT_GPT ||
		    f->dt == STK_DT_SERVER_KEY) {
			snprintf(msg, msgsz,
				 "Filter table data column not present in stick table (entry #%d)",
				 (int)i);
			lua_pop(L, 4);
			return msg;
		}
		for (f->op = 0; op && f->op < 6 && strcmp(op, ops[f->op]); f->op++)
			;
		lua_pop(L, 4);
		if (!op || f->op == 6) {
			snprintf(msg, msgsz, "Unknown operator in filter table (entry #%d)",
				 (int)i);
			return msg;
		}
		d->nf++;
	}
	return NULL;
}

/* dump([filter]): a table key -> data of every entry (that passes the filter); nil and
 * a message for a bad filter. */
static int l_stk_dump(lua_State *L)
{
	struct stk_lua_dump d;
	char msg[128];
	const char *err;
	uint64_t pos = 0;
	int more, res;

	memset(&d, 0, sizeof(d));
	d.t = stk_check(L, 1);
	d.now = stk_now();
	err = dump_filters(L, &d, msg, sizeof(msg));
	if (err) {
		lua_pushnil(L);
		lua_pushstring(L, err);
		return 2;
	}
	lua_newtable(L);
	res = lua_gettop(L);
	/* collected by the GC even if a Lua error (memory) cuts the dump short */
	d.batch = lua_newuserdatauv(L, STK_LUA_BATCH, 0);
	do {
		d.used = 0;
		more = stktable_walk(d.t, &pos, dump_cb, &d);
		for (size_t off = 0; off < d.used;) {
			const struct stk_lua_rec *r = (const void *)(d.batch + off);

			rec_push_key(L, d.t, r);
			rec_push_data(L, d.t, r);
			lua_settable(L, res);
			off += rec_size(r->klen);
		}
	} while (more);
	lua_settop(L, res);
	return 1;
}

static int l_stk_tostring(lua_State *L)
{
	lua_pushstring(L, "HAProxy class StickTable");
	return 1;
}

static const luaL_Reg stk_methods[] = {
	{ "info", l_stk_info },
	{ "lookup", l_stk_lookup },
	{ "dump", l_stk_dump },
	{ NULL, NULL },
};

void hlua_stktable_setup(lua_State *L)
{
	hlua_class_new(L, CLASS_STKTABLE, stk_methods, NULL, NULL);
	luaL_getmetatable(L, CLASS_STKTABLE);
	lua_pushcfunction(L, l_stk_tostring);
	lua_setfield(L, -2, "__tostring");
	lua_pop(L, 1);
}
