/* Configuration of stick tables: the "stick-table" line of frontends, backends and listen
 * sections, the "stick on|match|store-request|store-response" rules of backends, the
 * resolver that turns table names of fetch and converter arguments into tables, the check
 * phase (tables of stick rules also store the server; entries are laid out), and the
 * refusal of "peers" sections. Single-threaded, config and check time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/parse.h>
#include <cfg/cfg.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <sample/acl.h>
#include <sample/arg.h>
#include <sample/sample.h>
#include <stream/action.h>
#include <stream/stktable.h>
#include <stream/stktable_act.h>

#define STK_DEF_KEYLEN 32 /* "len" of string and binary keys when not given */

/* ---- "store" lists ---- */

/* Splits "name(a,b)" into the name and its arguments (a NULL-terminated copy). */
static int stk_store_item(const char *it, size_t len, char *name, size_t nsz, char *args[2],
			  char *abuf, size_t asz)
{
	const char *par = memchr(it, '(', len);
	size_t nl = par ? (size_t)(par - it) : len;

	args[0] = args[1] = NULL;
	if (nl >= nsz)
		return -1;
	memcpy(name, it, nl);
	name[nl] = 0;
	if (!par)
		return 0;
	if (it[len - 1] != ')' || (size_t)(len - nl - 2) >= asz)
		return -1;
	memcpy(abuf, par + 1, len - nl - 2);
	abuf[len - nl - 2] = 0;
	args[0] = abuf;
	if ((args[1] = strchr(abuf, ',')))
		*args[1]++ = 0;
	return 0;
}

/* One element of a store list: "gpc0", "http_req_rate(10s)", "gpc_rate(3,10s)". */
static int stk_store_one(struct cfg_ctx *ctx, struct stktable *t, const char *it, size_t len)
{
	char name[64], abuf[64], *args[2];
	const char *per = NULL;
	long nb = 1;
	int dt, ms = 0;

	if (stk_store_item(it, len, name, sizeof(name), args, abuf, sizeof(abuf)) < 0 ||
	    (dt = stk_dt_find(name, strlen(name))) < 0) {
		cfg_alert(ctx, "stick-table: unknown store option '%.*s'.", (int)len, it);
		return -1;
	}
	switch (stk_dt_info[dt].arg) {
	case STK_ARG_NONE:
		if (args[0]) {
			cfg_alert(ctx, "stick-table: unexpected argument to store option '%s'.",
				  name);
			return -1;
		}
		break;
	case STK_ARG_PERIOD:
		per = args[0];
		break;
	default: /* arrays */
		if (!args[0] || (stk_dt_info[dt].arg == STK_ARG_NB_PERIOD && !args[1])) {
			cfg_alert(ctx, "stick-table: missing argument to store option '%s'.", name);
			return -1;
		}
		if (parse_long(args[0], 1, STK_MAX_ARRAY, &nb) < 0) {
			cfg_alert(ctx,
				  "stick-table: array size is out of allowed range (1-%d) for "
				  "store option '%s'.",
				  STK_MAX_ARRAY, name);
			return -1;
		}
		per = args[1];
		if (stk_dt_info[dt].arg == STK_ARG_NB)
			per = NULL;
		break;
	}
	if (stk_dt_info[dt].std == STK_STD_RATE) {
		if (!per || !*per) {
			cfg_alert(ctx, "stick-table: missing argument to store option '%s'.", name);
			return -1;
		}
		if (parse_time_ms(per, 1, &ms) || ms <= 0) {
			cfg_alert(ctx, "stick-table: error when processing store option '%s'.",
				  name);
			return -1;
		}
	}
	if (t->data_ofs[dt] != STK_DT_NONE)
		cfg_warn(ctx, "stick-table: store option '%s' already enabled, ignored.", name);
	else
		stktable_store(t, dt, (uint32_t)nb, (uint32_t)ms);
	return 0;
}

static int stk_store_list(struct cfg_ctx *ctx, struct stktable *t, const char *list)
{
	const char *p = list;

	while (*p) {
		const char *e = p;
		int depth = 0;

		for (; *e && (depth || *e != ','); e++)
			depth += *e == '(' ? 1 : *e == ')' ? -1 : 0;
		if (e > p && stk_store_one(ctx, t, p, (size_t)(e - p)) < 0)
			return -1;
		p = *e ? e + 1 : e;
	}
	return 0;
}

/* The legacy counters and the arrays are two views of the same counters in HAProxy: a
 * table may not have both. */
static int stk_store_conflicts(struct cfg_ctx *ctx, const struct stktable *t)
{
	static const struct {
		int arr, a, b;
		const char *what;
	} c[] = {
		{ STK_DT_GPT, STK_DT_GPT0, STK_DT_GPT0,
		  "'gpt' and 'gpt0' in a same table is not "
		  "permitted as 'gpt' overrides 'gpt0'" },
		{ STK_DT_GPC, STK_DT_GPC0, STK_DT_GPC1,
		  "'gpc' and 'gpc[0/1]' in a same table is "
		  "not permitted as 'gpc' overrides 'gpc[0/1]'" },
		{ STK_DT_GPC_RATE, STK_DT_GPC0_RATE, STK_DT_GPC1_RATE,
		  "'gpc_rate' and "
		  "'gpc[0/1]_rate' in a same table is not permitted as 'gpc_rate' overrides "
		  "'gpc[0/1]_rate'" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		if (t->data_ofs[c[i].arr] != STK_DT_NONE &&
		    (t->data_ofs[c[i].a] != STK_DT_NONE || t->data_ofs[c[i].b] != STK_DT_NONE)) {
			cfg_alert(ctx, "stick-table: simultaneous usage of %s.", c[i].what);
			return -1;
		}
	}
	return 0;
}

/* ---- stick-table ---- */

static int stk_parse_type(struct cfg_ctx *ctx, struct stktable *t, int *i)
{
	static const char *const names[STK_KEY_TYPES] = { "ip", "ipv6", "integer", "string",
							  "binary" };
	const char *w = *i + 1 < ctx->nargs ? ctx->args[*i + 1] : "";
	long len = STK_DEF_KEYLEN;
	int type = -1;

	for (int k = 0; k < STK_KEY_TYPES; k++)
		if (!strcmp(w, names[k]))
			type = k;
	if (type < 0) {
		cfg_alert(ctx, "stick-table: unknown type '%s'.", w);
		return -1;
	}
	*i += 2;
	if ((type == STK_KEY_STR || type == STK_KEY_BIN) && *i < ctx->nargs &&
	    !strcmp(ctx->args[*i], "len")) {
		if (*i + 1 >= ctx->nargs ||
		    parse_long(ctx->args[*i + 1], 1, STK_MAX_KEYLEN, &len) < 0) {
			cfg_alert(ctx, "stick-table: invalid length '%s'.",
				  *i + 1 < ctx->nargs ? ctx->args[*i + 1] : "");
			return -1;
		}
		*i += 2;
	}
	t->type = (uint8_t)type;
	t->key_size = type == STK_KEY_IPV6			    ? 16
		      : (type == STK_KEY_IP || type == STK_KEY_INT) ? 4
								    : (uint32_t)len;
	return 0;
}

/* "size N" and "expire T": the value after the keyword, HAProxy's messages. */
static int stk_parse_num(struct cfg_ctx *ctx, int i, bool time, uint64_t *out)
{
	const char *v = i + 1 < ctx->nargs ? ctx->args[i + 1] : "";
	const char *bad;
	int ms = 0;

	if (!*v) {
		cfg_alert(ctx, "stick-table: missing argument after '%s'.", ctx->args[i]);
		return -1;
	}
	bad = time ? parse_time_ms(v, 1, &ms) : parse_size(v, out);
	if (bad || (time && ms < 0)) {
		cfg_alert(ctx, "stick-table: unexpected character '%c' in argument of '%s'.",
			  bad && *bad ? *bad : '?', ctx->args[i]);
		return -1;
	}
	if (time)
		*out = (uint64_t)ms;
	return 0;
}

static int stk_parse_args(struct cfg_ctx *ctx, struct stktable *t)
{
	bool has_type = false;
	uint64_t v;

	for (int i = 1; i < ctx->nargs;) {
		const char *w = ctx->args[i];

		if (!strcmp(w, "type")) {
			if (stk_parse_type(ctx, t, &i) < 0)
				return -1;
			has_type = true;
			continue;
		}
		if (!strcmp(w, "size") || !strcmp(w, "expire")) {
			if (stk_parse_num(ctx, i, w[0] == 'e', &v) < 0)
				return -1;
			if (w[0] == 'e')
				t->expire = (int)v;
			else
				t->size = v > INT32_MAX ? INT32_MAX : (uint32_t)v;
			i += 2;
		} else if (!strcmp(w, "nopurge")) {
			t->nopurge = 1;
			i++;
		} else if (!strcmp(w, "peers")) {
			return proxy_cfg_later(ctx, "stick-table peers",
					       "peers sections are not "
					       "supported yet");
		} else if (!strcmp(w, "srvkey")) {
			const char *k = i + 1 < ctx->nargs ? ctx->args[i + 1] : "";

			if (!strcmp(k, "addr"))
				return proxy_cfg_later(ctx, "stick-table srvkey addr",
						       "only 'srvkey name' is supported for now");
			if (strcmp(k, "name")) {
				cfg_alert(ctx, "stick-table : unknown server key type '%s'.", k);
				return -1;
			}
			i += 2;
		} else if (!strcmp(w, "store")) {
			if (i + 1 < ctx->nargs && stk_store_list(ctx, t, ctx->args[i + 1]) < 0)
				return -1;
			i += 2;
		} else {
			cfg_alert(ctx, "stick-table: unknown argument '%s'.", w);
			return -1;
		}
	}
	if (!has_type) {
		cfg_alert(ctx, "stick-table: missing type.");
		return -1;
	}
	if (!t->size) {
		cfg_alert(ctx, "stick-table: missing size.");
		return -1;
	}
	return stk_store_conflicts(ctx, t);
}

static int kw_stick_table(struct cfg_ctx *ctx)
{
	struct proxy *px = ctx->px;
	struct stktable *t, *other;

	if (!px)
		return -1;
	if (ctx->section == CFG_SEC_DEFAULTS) {
		cfg_alert(ctx, "'stick-table' is not supported in 'defaults' section.");
		return -1;
	}
	other = px->table ? px->table : stktable_find(px->id);
	if (other) {
		cfg_alert(ctx,
			  "stick-table name '%s' conflicts with table declared in %s '%s' at "
			  "%s:%d.",
			  px->id, proxy_type_str(other->px), other->px->id, other->file,
			  other->line);
		return -1;
	}
	t = stktable_new(px->id, ctx->file, ctx->line, px);
	if (!t) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	if (stk_parse_args(ctx, t) < 0) {
		stktable_free(t);
		return -1;
	}
	stktable_register(t);
	px->table = t;
	return 0;
}

/* ---- stick rules ---- */

static void stick_rule_free(struct stick_rule *r)
{
	sample_expr_free(r->expr);
	acl_cond_free(r->cond);
	free(r->table_name);
	free(r->file);
	free(r);
}

/* stick on|match|store-request|store-response PATTERN [table T] [if|unless COND] */
static int kw_stick(struct cfg_ctx *ctx)
{
	const char *how = ctx->nargs > 1 ? ctx->args[1] : "";
	bool rsp = !strcmp(how, "store-response");
	struct smp_parse_ctx pc = { ctx->file, ctx->line, ctx->px,
				    (rsp ? SMP_VAL_HRS_HDR : SMP_VAL_HRQ_HDR) | SMP_VAL_BE,
				    "stick" };
	struct stick_rule *r;
	char err[1024] = "";
	int pos = 3;

	if (!ctx->px || proxy_cfg_in_defaults(ctx, "stick"))
		return -1;
	if (!proxy_cfg_has_cap(ctx, PR_CAP_BE, "stick"))
		return 0;
	if (strcmp(how, "on") && strcmp(how, "match") && strcmp(how, "store-request") && !rsp) {
		cfg_alert(ctx, "'stick' expects 'on', 'match', or 'store'.");
		return -1;
	}
	if (ctx->nargs < 3 || act_is_cond_word(ctx->args[2]) || !strcmp(ctx->args[2], "table")) {
		cfg_alert(ctx, "'stick' expects a fetch method.");
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->file = strdup(ctx->file))) {
		free(r);
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	r->line = ctx->line;
	r->flags = !strcmp(how, "on")	   ? STK_RULE_MATCH | STK_RULE_STORE
		   : !strcmp(how, "match") ? STK_RULE_MATCH
					   : STK_RULE_STORE;
	r->expr = sample_parse_expr(ctx->args[2], NULL, &pc, err, sizeof(err));
	if (!r->expr)
		goto fail;
	if (pos < ctx->nargs && !strcmp(ctx->args[pos], "table")) {
		if (pos + 1 >= ctx->nargs) {
			snprintf(err, sizeof(err), "missing table name");
			goto fail;
		}
		if (!(r->table_name = strdup(ctx->args[pos + 1]))) {
			snprintf(err, sizeof(err), "out of memory");
			goto fail;
		}
		pos += 2;
	}
	if (pos < ctx->nargs) {
		if (!act_is_cond_word(ctx->args[pos])) {
			snprintf(err, sizeof(err), "unexpected argument '%s'", ctx->args[pos]);
			goto fail;
		}
		r->cond = acl_cond_parse(ctx->args + pos, ctx->nargs - pos, &ctx->px->acls, &pc,
					 err, sizeof(err));
		if (!r->cond)
			goto fail;
	}
	list_append(rsp ? &ctx->px->store_rules : &ctx->px->stick_rules, &r->list);
	stk_used = true;
	return 0;
fail:
	cfg_alert(ctx, "'stick %s': %s.", how, err);
	stick_rule_free(r);
	return -1;
}

void stick_rules_free(struct proxy *px)
{
	struct stick_rule *r, *n;
	struct stktable **pp;

	list_for_each_entry_safe(r, n, &px->stick_rules, list)
	{
		list_delete(&r->list);
		stick_rule_free(r);
	}
	list_for_each_entry_safe(r, n, &px->store_rules, list)
	{
		list_delete(&r->list);
		stick_rule_free(r);
	}
	for (pp = &stktables; px->table && *pp; pp = &(*pp)->next) {
		if (*pp == px->table) {
			*pp = px->table->next;
			stktable_free(px->table);
			break;
		}
	}
	px->table = NULL;
}

/* ---- check phase ---- */

/* The table a rule of <px> names, or <px>'s own for an empty or absent name. */
static struct stktable *stk_table_of(struct proxy *px, const char *name)
{
	return name && *name ? stktable_find(name) : px->table;
}

static int stick_rules_check(struct proxy *px, struct list *rules)
{
	struct stick_rule *r;
	int errs = 0;

	list_for_each_entry(r, rules, list)
	{
		r->t = stk_table_of(px, r->table_name);
		if (!r->t) {
			ha_alert("Proxy '%s': unable to find stick-table '%s'.\n", px->id,
				 r->table_name ? r->table_name : px->id);
			errs++;
			continue;
		}
		/* tables used for persistence store the server, as in HAProxy */
		if (r->t->data_ofs[STK_DT_SERVER_ID] == STK_DT_NONE)
			stktable_store(r->t, STK_DT_SERVER_ID, 1, 0);
		if (r->t->data_ofs[STK_DT_SERVER_KEY] == STK_DT_NONE)
			stktable_store(r->t, STK_DT_SERVER_KEY, 1, 0);
	}
	return errs;
}

int stktable_check_all(void)
{
	int errs = 0;

	for (struct proxy *px = proxies; px; px = px->next)
		errs += stick_rules_check(px, &px->stick_rules) +
			stick_rules_check(px, &px->store_rules);
	for (struct stktable *t = stktables; t; t = t->next) {
		if (!t->shards && stktable_init(t) < 0) {
			ha_alert("out of memory while preparing stick-table '%s'.\n", t->id);
			errs++;
		}
	}
	return errs;
}

/* ARGT_TAB arguments: a table name, "" for the proxy's own. */
static int stk_resolve_tab(struct arg *a, const char *name, struct proxy *px, char *err,
			   size_t errsz)
{
	struct stktable *t = px || *name ? stk_table_of(px, name) : NULL;

	if (!t) {
		snprintf(err, errsz, "unable to find table '%s'", *name ? name : px ? px->id : "");
		return -1;
	}
	a->data.t = t;
	return 0;
}

/* ---- peers sections ---- */

static int peers_begin(struct cfg_ctx *ctx)
{
	cfg_alert(ctx, "'peers' sections are not supported yet (they synchronize stick tables "
		       "between processes; declare the table with 'stick-table' in a backend).");
	return -1;
}

static const struct cfg_section peers_section = { "peers", 0, peers_begin };

static const struct cfg_kw stk_cfg_kws[] = {
	{ "stick-table", CFG_SEC_PROXIES, kw_stick_table },
	{ "stick", CFG_SEC_PROXIES, kw_stick },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(stk_cfg_kws);

__attribute__((constructor)) static void stk_cfg_init(void)
{
	cfg_register_section(&peers_section);
	arg_register_resolver(ARGT_TAB, stk_resolve_tab);
}
