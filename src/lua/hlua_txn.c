/* The TXN class (the exchange an action, fetch or converter runs for) with its Fetches
 * (txn.f, txn.sf) and Converters (txn.c, txn.sc) objects, and the conversions between
 * samples and Lua values. A TXN object only lives for one call: once the call is over its
 * stream pointer is cleared (hlua_txn_close), so a script that kept it gets an error, not
 * freed memory.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <proxy/proxy-t.h>
#include <sample/sample.h>
#include <sample/vars.h>
#include <stream/action.h>
#include <stream/stream.h>
#include <stream/stream_opts.h>

#include "hlua_int.h"

#define CLASS_TXN "TXN"
#define CLASS_FETCH "Fetches"
#define CLASS_CONV "Converters"

/* ---- samples <-> Lua ---- */

void hlua_push_sample(lua_State *L, const struct sample *smp, bool as_str)
{
	char buf[INET6_ADDRSTRLEN];

	switch (smp->data.type) {
	case SMP_T_BOOL:
		if (as_str)
			lua_pushstring(L, smp->data.u.sint ? "1" : "0");
		else if (!hlua_set.bool_smp_conv) /* pre-3.1-bug: HAProxy 2.6's integer */
			lua_pushinteger(L, smp->data.u.sint != 0);
		else
			lua_pushboolean(L, smp->data.u.sint != 0);
		break;
	case SMP_T_SINT:
		if (as_str)
			lua_pushfstring(L, "%I", (LUA_INTEGER)smp->data.u.sint);
		else
			lua_pushinteger(L, smp->data.u.sint);
		break;
	case SMP_T_IPV4:
		inet_ntop(AF_INET, &smp->data.u.ipv4, buf, sizeof(buf));
		lua_pushstring(L, buf);
		break;
	case SMP_T_IPV6:
		inet_ntop(AF_INET6, &smp->data.u.ipv6, buf, sizeof(buf));
		lua_pushstring(L, buf);
		break;
	case SMP_T_STR:
	case SMP_T_BIN:
	case SMP_T_METH:
		lua_pushlstring(L, smp->data.u.str.ptr ? smp->data.u.str.ptr : "",
				smp->data.u.str.len);
		break;
	default:
		if (as_str)
			lua_pushstring(L, "");
		else
			lua_pushnil(L);
		break;
	}
}

int hlua_to_sample(lua_State *L, int idx, struct sample *smp)
{
	size_t len;
	const char *s;

	memset(&smp->data, 0, sizeof(smp->data));
	smp->flags = 0;
	switch (lua_type(L, idx)) {
	case LUA_TBOOLEAN:
		smp->data.type = SMP_T_BOOL;
		smp->data.u.sint = lua_toboolean(L, idx);
		return 0;
	case LUA_TNUMBER: {
		lua_Number n;
		char *t;
		int k;

		k = 0;
		if (lua_isinteger(L, idx) || ((void)lua_tointegerx(L, idx, &k), k)) {
			/* an integral float (8/2) is the integer, as HAProxy gives it */
			smp->data.type = SMP_T_SINT;
			smp->data.u.sint = lua_tointeger(L, idx);
			return 0;
		}
		/* another float: its text, written here (lua_tolstring would allocate) */
		n = lua_tonumber(L, idx);
		t = smp_trash();
		if (!t)
			return -1;
		k = snprintf(t, smp_trash_size(), LUA_NUMBER_FMT, (LUAI_UACNUMBER)n);
		if (k < 0 || (size_t)k >= smp_trash_size())
			return -1;
		smp->flags = SMP_F_CONST;
		smp->data.type = SMP_T_STR;
		smp->data.u.str = ist2(t, (size_t)k);
		return 0;
	}
	case LUA_TSTRING:
		s = lua_tolstring(L, idx, &len);
		smp->flags = SMP_F_CONST; /* the Lua string's bytes */
		smp->data.type = SMP_T_STR;
		smp->data.u.str = ist2(s, len);
		return 0;
	default:
		return -1;
	}
}

/* ---- TXN ---- */

struct hlua_txn *hlua_txn_live(lua_State *L, struct hlua_txn *t)
{
	if (!t->s)
		luaL_error(L, "this txn object is no longer valid (its call is over)");
	if (t->owner && hlua_ctx_of(L) != t->owner)
		luaL_error(L, "this txn object belongs to another call");
	return t;
}

struct hlua_txn *hlua_txn_check(lua_State *L, int idx)
{
	return hlua_txn_live(L, luaL_checkudata(L, idx, CLASS_TXN));
}

static struct hlua_txn *sub_txn(lua_State *L, int idx, const char *cls)
{
	struct hlua_sub *sub = luaL_checkudata(L, idx, cls);

	return hlua_txn_live(L, sub->t);
}

struct hlua_txn *hlua_txn_push(lua_State *L, struct stream *s, struct proxy *px, int from,
			       bool can_reply)
{
	struct hlua_txn *t = hlua_obj_new(L, CLASS_TXN, sizeof(*t));
	void *st = NULL;

	lua_getallocf(L, &st); /* the state is the allocator's data (hlua.c) */
	t->st = st;
	t->ref = LUA_NOREF;
	t->owner = hlua_ctx_of(L); /* set before the push (hlua_start_cb) */
	t->s = s;
	t->px = px;
	t->from = (uint8_t)from;
	t->can_reply = can_reply;
	t->dir_res = !!(from & (ACT_F_HTTP_RES | ACT_F_HTTP_AFTER | ACT_F_TCP_RES_CNT));
	lua_newtable(L); /* cache of the sub-objects */
	lua_setiuservalue(L, -2, 1);
	lua_pushvalue(L, -1);
	t->ref = luaL_ref(L, LUA_REGISTRYINDEX);
	return t;
}

void hlua_txn_close(struct hlua_txn *t)
{
	struct hlua_state *st;

	if (!t)
		return;
	st = t->st;
	hlua_lock(st);
	t->s = NULL;
	luaL_unref(st->L, LUA_REGISTRYINDEX, t->ref); /* may be collected from now on */
	hlua_unlock(st);
}

static void txn_smp_ctx(const struct hlua_txn *t, struct smp_ctx *ctx)
{
	act_smp_ctx(ctx, t->s, t->px, t->from ? t->from : ACT_F_HTTP_REQ);
	if (!t->dir_res)
		ctx->opt &= ~SMP_OPT_DIR_RES;
}

/* Pushes a sub-object of class <cls> for txn at 1 (cached). */
static void push_sub(lua_State *L, const char *cls, const char *key, bool as_str)
{
	struct hlua_txn *t = luaL_checkudata(L, 1, CLASS_TXN);
	struct hlua_sub *sub;

	lua_getiuservalue(L, 1, 1);
	if (lua_getfield(L, -1, key) != LUA_TNIL)
		return;
	lua_pop(L, 1);
	sub = hlua_obj_new(L, cls, sizeof(*sub));
	sub->t = t;
	sub->as_str = as_str;
	lua_pushvalue(L, 1); /* the sub-object keeps its TXN alive */
	lua_setiuservalue(L, -2, 1);
	lua_pushvalue(L, -1);
	lua_setfield(L, -3, key);
}

/* __index of TXN: methods, then the sub-objects. */
static int txn_index(lua_State *L)
{
	const char *k = lua_tostring(L, 2);

	lua_pushvalue(L, 2);
	if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
		return 1;
	if (!k)
		return 1;
	if (!strcmp(k, "f"))
		push_sub(L, CLASS_FETCH, k, false);
	else if (!strcmp(k, "sf"))
		push_sub(L, CLASS_FETCH, k, true);
	else if (!strcmp(k, "c"))
		push_sub(L, CLASS_CONV, k, false);
	else if (!strcmp(k, "sc"))
		push_sub(L, CLASS_CONV, k, true);
	else if (!strcmp(k, "http")) {
		struct hlua_txn *t = luaL_checkudata(L, 1, CLASS_TXN);

		if (!t->s || t->s->fe->mode != PR_MODE_HTTP) {
			lua_pushnil(L);
			return 1;
		}
		push_sub(L, "HTTP", k, false);
	} else
		lua_pushnil(L);
	return 1;
}

static int parse_var(lua_State *L, int idx, struct var_desc *d, bool create)
{
	size_t len;
	const char *name = luaL_checklstring(L, idx, &len);
	char err[160];

	if (!create)
		return vars_lookup_desc(name, len, d);
	if (vars_parse_desc(name, d, err, sizeof(err)) < 0)
		return luaL_error(L, "%s", err);
	return 0;
}

/* txn:set_var(name, value [, ifexist]) */
static int txn_set_var(lua_State *L)
{
	struct hlua_txn *t = hlua_txn_check(L, 1);
	bool ifexist = lua_toboolean(L, 4);
	struct smp_ctx ctx;
	struct sample smp = { 0 };
	struct var_desc d;

	if (parse_var(L, 2, &d, !ifexist) < 0) {
		lua_pushboolean(L, 0);
		return 1;
	}
	if (hlua_to_sample(L, 3, &smp) < 0)
		return luaL_argerror(L, 3, "value has no sample form");
	txn_smp_ctx(t, &ctx);
	smp.ctx = &ctx;
	lua_pushboolean(L, vars_set(&ctx, &d, &smp) == 1);
	return 1;
}

static int txn_unset_var(lua_State *L)
{
	struct hlua_txn *t = hlua_txn_check(L, 1);
	struct smp_ctx ctx;
	struct var_desc d;

	if (parse_var(L, 2, &d, false) < 0) {
		lua_pushboolean(L, 0);
		return 1;
	}
	txn_smp_ctx(t, &ctx);
	vars_unset(&ctx, &d);
	lua_pushboolean(L, 1);
	return 1;
}

static int txn_get_var(lua_State *L)
{
	struct hlua_txn *t = hlua_txn_check(L, 1);
	struct smp_ctx ctx;
	struct sample smp = { 0 };
	struct var_desc d;

	txn_smp_ctx(t, &ctx);
	smp.ctx = &ctx;
	if (parse_var(L, 2, &d, false) < 0 || !vars_get(&ctx, &d, &smp)) {
		lua_pushnil(L);
		return 1;
	}
	hlua_push_sample(L, &smp, false);
	return 1;
}

/* txn:set_priv(v) / txn:get_priv(): one value per exchange and state */
static int txn_set_priv(lua_State *L)
{
	struct hlua_txn *t = hlua_txn_check(L, 1);
	struct hlua_strm *hs = hlua_strm_get(t->s);
	struct hlua_ctx *ctx = hlua_ctx_of(L);
	int id = ctx ? ctx->st->id : 0;

	if (!hs)
		return luaL_error(L, "out of memory");
	lua_settop(L, 2);
	if (hs->priv_ref[id] != LUA_NOREF)
		luaL_unref(L, LUA_REGISTRYINDEX, hs->priv_ref[id]);
	hs->priv_ref[id] = luaL_ref(L, LUA_REGISTRYINDEX);
	return 0;
}

static int txn_get_priv(lua_State *L)
{
	struct hlua_txn *t = hlua_txn_check(L, 1);
	struct hlua_strm *hs = hlua_strm_get(t->s);
	struct hlua_ctx *ctx = hlua_ctx_of(L);
	int id = ctx ? ctx->st->id : 0;

	if (!hs || hs->priv_ref[id] == LUA_NOREF)
		lua_pushnil(L);
	else
		lua_rawgeti(L, LUA_REGISTRYINDEX, hs->priv_ref[id]);
	return 1;
}

/* txn:done([reply]): ends the exchange; in an action, the reply (txn:reply(), or a table
 * of the same fields: hlua_reply.c) is sent, or without one the connection closes. */
static int txn_done(lua_State *L)
{
	struct hlua_txn *t = hlua_txn_check(L, 1);
	struct hlua_strm *hs = hlua_strm_get(t->s);
	struct hlua_ctx *ctx = hlua_ctx_of(L);

	if (!t->can_reply || !hs || !ctx)
		return luaL_error(L, "txn:done() cannot be used here");
	if (!hs->done) /* a second call (the first caught by pcall) sends nothing more */
		hs->reply = (uint8_t)hlua_reply_send(L, t, 2);
	if (hs->reply) /* it waits in the output buffer: the script may not wait any more */
		ctx->yieldable = 0;
	hs->done = 1;
	ctx->done = 1;
	lua_pushnil(L);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &hlua_done_key);
	lua_pushlightuserdata(L, &hlua_done_key);
	return lua_error(L);
}

static int txn_set_loglevel(lua_State *L)
{
	struct hlua_txn *t = hlua_txn_check(L, 1);
	lua_Integer lvl = luaL_checkinteger(L, 2);

	if (lvl < 0 || lvl > 7)
		return luaL_argerror(L, 2, "invalid log level");
	t->s->log_level = (uint8_t)(lvl + 1);
	return 0;
}

/* txn:set_tos(v), txn:set_mark(v): as the set-tos and set-mark actions */
static int txn_set_tos(lua_State *L)
{
	struct hlua_txn *t = hlua_txn_check(L, 1);

	stream_set_tos(t->s, (int)luaL_checkinteger(L, 2));
	return 0;
}

static int txn_set_mark(lua_State *L)
{
	struct hlua_txn *t = hlua_txn_check(L, 1);

	stream_set_mark(t->s, (unsigned int)luaL_checkinteger(L, 2));
	return 0;
}

/* txn:set_priority_class(v), txn:set_priority_offset(v): as the actions, clamped */
static int txn_set_priority_class(lua_State *L)
{
	struct hlua_txn *t = hlua_txn_check(L, 1);

	stream_set_prio_class(t->s, (long long)luaL_checkinteger(L, 2));
	return 0;
}

static int txn_set_priority_offset(lua_State *L)
{
	struct hlua_txn *t = hlua_txn_check(L, 1);

	stream_set_prio_offset(t->s, (long long)luaL_checkinteger(L, 2));
	return 0;
}

static int txn_log(lua_State *L)
{
	struct hlua_txn *t = hlua_txn_check(L, 1);
	lua_Integer lvl = luaL_checkinteger(L, 2);

	if (lvl < 0 || lvl > 7)
		return luaL_argerror(L, 2, "invalid log level");
	hlua_send_log(t->px, (int)lvl, luaL_checkstring(L, 3));
	return 0;
}

static int txn_log_at(lua_State *L, int lvl)
{
	struct hlua_txn *t = hlua_txn_check(L, 1);

	hlua_send_log(t->px, lvl, luaL_checkstring(L, 2));
	return 0;
}

static int txn_debug(lua_State *L)
{
	return txn_log_at(L, 7);
}
static int txn_info(lua_State *L)
{
	return txn_log_at(L, 6);
}
static int txn_warning(lua_State *L)
{
	return txn_log_at(L, 4);
}
static int txn_alert(lua_State *L)
{
	return txn_log_at(L, 1);
}

/* Defined by hlua_reply.c: txn:reply([t]) and the Reply class. */
int hlua_txn_reply(lua_State *L);

static const luaL_Reg txn_methods[] = {
	{ "set_var", txn_set_var },
	{ "unset_var", txn_unset_var },
	{ "get_var", txn_get_var },
	{ "set_priv", txn_set_priv },
	{ "get_priv", txn_get_priv },
	{ "done", txn_done },
	{ "set_loglevel", txn_set_loglevel },
	{ "set_tos", txn_set_tos },
	{ "set_mark", txn_set_mark },
	{ "set_priority_class", txn_set_priority_class },
	{ "set_priority_offset", txn_set_priority_offset },
	{ "log", txn_log },
	{ "Debug", txn_debug },
	{ "Info", txn_info },
	{ "Warning", txn_warning },
	{ "Alert", txn_alert },
	{ "reply", hlua_txn_reply },
	{ NULL, NULL },
};

/* ---- Fetches ---- */

/* Quotes the Lua value at <idx> as one argument of a sample keyword: "text" with \ and "
 * escaped. Returns -1 when it does not fit. */
static int put_arg(lua_State *L, int idx, char *out, size_t outsz, size_t *len)
{
	size_t n;
	const char *s;
	char num[32];

	if (lua_type(L, idx) == LUA_TNUMBER && lua_isinteger(L, idx)) {
		snprintf(num, sizeof(num), "%lld", (long long)lua_tointeger(L, idx));
		s = num;
		n = strlen(num);
	} else if (lua_type(L, idx) == LUA_TSTRING || lua_type(L, idx) == LUA_TNUMBER) {
		s = lua_tolstring(L, idx, &n);
	} else if (lua_type(L, idx) == LUA_TBOOLEAN) {
		s = lua_toboolean(L, idx) ? "1" : "0";
		n = 1;
	} else {
		return -2;
	}
	if (*len + 2 >= outsz)
		return -1;
	out[(*len)++] = '"';
	for (size_t i = 0; i < n; i++) {
		if (*len + 3 >= outsz)
			return -1;
		if (s[i] == '"' || s[i] == '\\')
			out[(*len)++] = '\\';
		out[(*len)++] = s[i];
	}
	out[(*len)++] = '"';
	out[*len] = 0;
	return 0;
}

/* Builds the argument list of a keyword from the Lua values at <first>..top. Returns the
 * array (NULL when none), or raises a Lua error. */
static struct arg *build_args(lua_State *L, int first, const char *kw, uint8_t arg_min,
			      const uint8_t *types, smp_val_fn val, void *priv)
{
	char text[2048];
	size_t len = 0;
	int top = lua_gettop(L), nb = 0;
	struct smp_parse_ctx pc = { .file = "lua", .line = 0 };
	struct arg *args;
	const char *p;
	char err[256];

	if (top < first) {
		if (arg_min)
			luaL_error(L, "'%s' expects at least %d argument(s)", kw, arg_min);
		return NULL;
	}
	text[len++] = '(';
	for (int i = first; i <= top; i++) {
		int r;

		if (i > first)
			text[len++] = ',';
		r = put_arg(L, i, text, sizeof(text) - 2, &len);
		if (r == -2)
			luaL_argerror(L, i, "string or number expected");
		if (r < 0)
			luaL_error(L, "'%s': arguments too long", kw);
	}
	text[len++] = ')';
	text[len] = 0;
	for (const uint8_t *t = types; *t != ARGT_STOP; t++)
		if (*t == ARGT_FE || *t == ARGT_BE || *t == ARGT_TAB || *t == ARGT_SRV ||
		    *t == ARGT_USR)
			luaL_error(L, "'%s' takes a name argument: not supported from Lua yet", kw);
	p = text;
	args = arg_parse_list(&p, arg_min, types, kw, &pc, &nb, err, sizeof(err));
	if (nb < 0)
		luaL_error(L, "'%s': %s", kw, err);
	if (val && val(args, priv, err, sizeof(err)) < 0) {
		arg_free_list(args);
		luaL_error(L, "'%s': %s", kw, err);
	}
	return args;
}

/* Pushes the result of a fetch or converter (<smp> NULL: none; "" for the string-safe
 * objects, else nil), then frees <args>. Returns 1 (one result). */
static int push_result(lua_State *L, const struct sample *smp, bool as_str, struct arg *args)
{
	if (smp)
		hlua_push_sample(L, smp, as_str);
	else if (as_str)
		lua_pushstring(L, "");
	else
		lua_pushnil(L);
	arg_free_list(args);
	return 1;
}

/* The upvalue: the fetch. Arguments: the Fetches object, then the keyword's. */
static int fetch_call(lua_State *L)
{
	const struct sample_fetch *f = lua_touserdata(L, lua_upvalueindex(1));
	struct hlua_sub *sub = luaL_checkudata(L, 1, CLASS_FETCH);
	struct hlua_txn *t = sub_txn(L, 1, CLASS_FETCH);
	struct smp_ctx ctx;
	struct sample smp = { 0 };
	struct arg *args;
	int ok;

	args = build_args(L, 2, f->kw, f->arg_min, f->arg_types, f->val, NULL);
	txn_smp_ctx(t, &ctx);
	smp.ctx = &ctx;
	ok = f->fn(args, &smp, f);
	/* the sample may point into the arguments: push before freeing them */
	return push_result(L, ok ? &smp : NULL, sub->as_str, args);
}

/* The keyword named <k> in Lua, where dots are underscores: "req_hdr" is req.hdr,
 * "ssl_fc" stays ssl_fc. Tries the name as given, every '_' as '.', then each single
 * '_' as '.'. NULL when none exists. */
static const void *find_kw(const char *k, const void *(*find)(const char *kw, size_t len))
{
	size_t n = strlen(k);
	const void *kw = find(k, n);
	char name[128];

	if (kw || n >= sizeof(name))
		return kw;
	for (size_t i = 0; i <= n; i++)
		name[i] = k[i] == '_' ? '.' : k[i];
	kw = find(name, n);
	for (size_t i = 0; !kw && i < n; i++) {
		if (k[i] != '_')
			continue;
		memcpy(name, k, n + 1);
		name[i] = '.';
		kw = find(name, n);
	}
	return kw;
}

static const void *find_fetch(const char *kw, size_t len)
{
	return sample_find_fetch(kw, len);
}

static const void *find_conv(const char *kw, size_t len)
{
	return sample_find_conv(kw, len);
}

/* __index of Fetches and Converters: the keyword's C closure, made once per name and
 * kept in the class's method table (upvalue 1), so later calls find it there. */
static int kw_index(lua_State *L, const void *(*find)(const char *, size_t), lua_CFunction call)
{
	const void *kw;

	lua_settop(L, 2);
	lua_pushvalue(L, 2);
	if (lua_type(L, 2) == LUA_TSTRING && lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
		return 1; /* made by an earlier call */
	lua_settop(L, 2);
	kw = find_kw(luaL_checkstring(L, 2), find);
	if (!kw) {
		lua_pushnil(L);
		return 1;
	}
	lua_pushlightuserdata(L, (void *)kw);
	lua_pushcclosure(L, call, 1);
	lua_pushvalue(L, 2);
	lua_pushvalue(L, -2);
	lua_rawset(L, lua_upvalueindex(1));
	return 1;
}

static int fetch_index(lua_State *L)
{
	return kw_index(L, find_fetch, fetch_call);
}

static int conv_call(lua_State *L);

/* ---- Converters ---- */

static int conv_call(lua_State *L)
{
	const struct sample_conv *c = lua_touserdata(L, lua_upvalueindex(1));
	struct hlua_sub *sub = luaL_checkudata(L, 1, CLASS_CONV);
	struct hlua_txn *t = sub_txn(L, 1, CLASS_CONV);
	struct smp_ctx ctx;
	struct sample smp = { 0 };
	struct arg *args;
	int ok;

	if (hlua_to_sample(L, 2, &smp) < 0)
		return luaL_argerror(L, 2, "string or number expected");
	args = build_args(L, 3, c->kw, c->arg_min, c->arg_types, c->val, c->private);
	txn_smp_ctx(t, &ctx);
	smp.ctx = &ctx;
	ok = c->in_type == SMP_T_ANY || sample_cast(&smp, c->in_type);
	/* a converter writes into its input: give it a copy of a Lua string */
	ok = ok && smp_make_rw(&smp);
	ok = ok && c->fn(args, &smp, c->private);
	return push_result(L, ok ? &smp : NULL, sub->as_str, args);
}

static int conv_index(lua_State *L)
{
	return kw_index(L, find_conv, conv_call);
}

void hlua_txn_setup(lua_State *L)
{
	hlua_class_new(L, CLASS_TXN, txn_methods, txn_index, NULL);
	hlua_class_new(L, CLASS_FETCH, NULL, fetch_index, NULL);
	hlua_class_new(L, CLASS_CONV, NULL, conv_index, NULL);
}
