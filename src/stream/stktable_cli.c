/* Runtime API of stick tables: "show table [NAME [data.TYPE OP VALUE]... | [key K]]",
 * "clear table NAME [data.TYPE OP VALUE]... | [key K]" and "set table NAME key K
 * [data.TYPE VALUE]...", in HAProxy 2.6's words and layout. Thread 0 (the CLI's); entries
 * are read under their shard's lock, one line at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/buf.h>
#include <cli/cli.h>
#include <event/loop.h>
#include <stream/stktable.h>

#define STK_CLI_FILTERS 4
#define STK_LINE_MAX 8192

struct stk_filter {
	int dt;
	int op; /* 0 eq, 1 ne, 2 le, 3 lt, 4 ge, 5 gt */
	long long v;
};

struct stk_dump {
	struct cli_ctx *ctx;
	struct stktable *t;
	struct stk_filter f[STK_CLI_FILTERS];
	int nf;
	uint64_t now;
};

static int stk_cli_msg(struct cli_ctx *ctx, const char *msg)
{
	return cli_printf(ctx, "%s", msg) < 0 ? CLI_MORE : CLI_DONE;
}

/* Parses the filters after the table name: "data.TYPE OP VALUE"... or "key K". Returns 0,
 * 1 when a key was given (*key set), or -1 with the message written. */
static int stk_cli_filters(struct cli_ctx *ctx, struct stk_dump *d, int first, const char **key)
{
	static const char *const ops[] = { "eq", "ne", "le", "lt", "ge", "gt" };
	int i = first;

	*key = NULL;
	if (i < ctx->nargs && !strcmp(ctx->args[i], "key")) {
		if (i + 1 >= ctx->nargs) {
			cli_printf(ctx, "Key value expected\n");
			return -1;
		}
		*key = ctx->args[i + 1];
		return 1;
	}
	for (; i < ctx->nargs; i += 3) {
		const char *w = ctx->args[i];
		struct stk_filter *f = &d->f[d->nf];
		char *end;
		int op = -1;

		if (strncmp(w, "data.", 5) || d->nf >= STK_CLI_FILTERS) {
			cli_printf(ctx,
				   "Optional argument only supports \"data.<store_data_type>\" "
				   "<operator> <value> or key <key>\n");
			return -1;
		}
		f->dt = stk_dt_find(w + 5, strlen(w + 5));
		if (f->dt < 0 || d->t->data_ofs[f->dt] == STK_DT_NONE || d->t->data_nb[f->dt] > 1 ||
		    f->dt >= STK_DT_GPT) {
			cli_printf(ctx, "Filter entry #%d: Data type not stored in this table\n",
				   d->nf + 1);
			return -1;
		}
		for (int k = 0; i + 1 < ctx->nargs && k < 6; k++)
			if (!strcmp(ctx->args[i + 1], ops[k]))
				op = k;
		if (op < 0 || i + 2 >= ctx->nargs) {
			cli_printf(ctx,
				   "Filter entry #%d: Require and operator among \"eq\", \"ne\", "
				   "\"le\", \"ge\", \"lt\", \"gt\"\n",
				   d->nf + 1);
			return -1;
		}
		f->op = op;
		f->v = strtoll(ctx->args[i + 2], &end, 10);
		if (*end || !*ctx->args[i + 2]) {
			cli_printf(ctx,
				   "Filter entry #%d: Require a valid integer value to compare "
				   "against\n",
				   d->nf + 1);
			return -1;
		}
		d->nf++;
	}
	return 0;
}

static bool stk_filters_match(struct stk_dump *d, struct stksess *ts)
{
	for (int i = 0; i < d->nf; i++) {
		const struct stk_filter *f = &d->f[i];
		long long v = 0;

		stksess_get(d->t, ts, f->dt, 0, d->now, &v);
		switch (f->op) {
		case 0:
			if (!(v == f->v))
				return false;
			break;
		case 1:
			if (!(v != f->v))
				return false;
			break;
		case 2:
			if (!(v <= f->v))
				return false;
			break;
		case 3:
			if (!(v < f->v))
				return false;
			break;
		case 4:
			if (!(v >= f->v))
				return false;
			break;
		default:
			if (!(v > f->v))
				return false;
			break;
		}
	}
	return true;
}

/* One data type of an entry as "show table" prints it: " name=v", " name(P)=v", arrays
 * element by element ("gpc0=", "gpc0_rate(P)="). */
static size_t stk_fmt_dt(const struct stktable *t, struct stksess *ts, int dt, uint64_t now,
			 char *out, size_t sz)
{
	const struct stk_dt_info *di = &stk_dt_info[dt];
	size_t o = 0;

	for (uint32_t i = 0; i < t->data_nb[dt] && o + 64 < sz; i++) {
		long long v = 0;
		char name[64];

		if (di->arg == STK_ARG_NB || di->arg == STK_ARG_NB_PERIOD)
			snprintf(name, sizeof(name), "%.3s%u%s", di->name, i,
				 dt == STK_DT_GPC_RATE ? "_rate" : "");
		else
			snprintf(name, sizeof(name), "%s", di->name);
		if (dt == STK_DT_SERVER_KEY) {
			const char **p = stksess_data(t, ts, dt, 0);

			o += (size_t)snprintf(out + o, sz - o, " %s=%s", name, *p ? *p : "-");
			continue;
		}
		stksess_get(t, ts, dt, i, now, &v);
		if (di->std == STK_STD_RATE)
			o += (size_t)snprintf(out + o, sz - o, " %s(%u)=%lld", name,
					      t->data_period[dt], v);
		else
			o += (size_t)snprintf(out + o, sz - o, " %s=%lld", name, v);
	}
	return o;
}

static int stk_show_entry(void *arg, struct stksess *ts)
{
	struct stk_dump *d = arg;
	struct stktable *t = d->t;
	char line[STK_LINE_MAX], key[1024];
	size_t o;

	if (!stk_filters_match(d, ts))
		return 0;
	stk_key_print(t, ts, key, sizeof(key));
	o = (size_t)snprintf(line, sizeof(line), "%p: key=%s use=%u exp=%d", (void *)ts, key,
			     stksess_refs(ts), stksess_expires_in(t, ts, d->now));
	for (int dt = 0; dt < STK_DT_TYPES && o < sizeof(line) - 2; dt++)
		if (t->data_ofs[dt] != STK_DT_NONE)
			o += stk_fmt_dt(t, ts, dt, d->now, line + o, sizeof(line) - 2 - o);
	line[o++] = '\n';
	if (cli_write(d->ctx, line, o) == 0)
		return 0;
	if (d->ctx->out->data)
		return -1; /* full: this entry again on the next call */
	/* longer than the whole output buffer: cut it */
	cli_write(d->ctx, line, MIN(o, (size_t)b_room(d->ctx->out)));
	return 0;
}

static int stk_show_key_cb(void *arg, struct stktable *t, struct stksess *ts)
{
	return stk_show_entry(arg, ts);
}

static int stk_cli_header(struct cli_ctx *ctx, const struct stktable *t)
{
	return cli_printf(ctx, "# table: %s, type: %s, size:%u, used:%d\n", t->id,
			  stk_key_type_name(t->type), t->size, stktable_used(t));
}

/* show table [NAME [filters]]. States: 0 start, 1 entries (p[0] table, n[0] cursor). */
static int stk_cli_show(struct cli_ctx *ctx)
{
	struct stk_dump d = { .ctx = ctx, .now = now_ms() };
	struct stk_key k;
	unsigned char kbuf[512];
	const char *key;
	int r;

	if (ctx->nargs < 3) {
		for (const struct stktable *t = ctx->p[0] ? ctx->p[0] : stktables; t; t = t->next) {
			ctx->p[0] = t;
			if (stk_cli_header(ctx, t) < 0)
				return CLI_MORE;
		}
		return CLI_DONE;
	}
	d.t = stktable_find(ctx->args[2]);
	if (!d.t)
		return stk_cli_msg(ctx, "No such table\n");
	r = stk_cli_filters(ctx, &d, 3, &key);
	if (r < 0)
		return CLI_DONE;
	if (ctx->st == 0) {
		if (stk_cli_header(ctx, d.t) < 0)
			return CLI_MORE;
		ctx->st = 1;
	}
	if (key) {
		if (stk_key_parse(d.t, key, &k, kbuf, sizeof(kbuf)) < 0)
			return stk_cli_msg(ctx, "Invalid key\n");
		stktable_with_key(d.t, &k, d.now, stk_show_key_cb, &d);
		return CLI_DONE;
	}
	return stktable_walk(d.t, &ctx->n[0], stk_show_entry, &d) ? CLI_MORE : CLI_DONE;
}

/* clear table NAME [filters]: every unused entry matching (all without filter). */
static bool stk_clear_match(void *arg, struct stktable *t, struct stksess *ts)
{
	return stk_filters_match(arg, ts);
}

static int stk_cli_clear(struct cli_ctx *ctx)
{
	struct stk_dump d = { .ctx = ctx, .now = now_ms() };
	unsigned char kbuf[512];
	struct stk_key k;
	const char *key;
	int r;

	if (ctx->nargs < 3)
		return stk_cli_msg(ctx, "table name expected\n");
	d.t = stktable_find(ctx->args[2]);
	if (!d.t)
		return stk_cli_msg(ctx, "No such table\n");
	r = stk_cli_filters(ctx, &d, 3, &key);
	if (r < 0)
		return CLI_DONE;
	if (key) {
		if (stk_key_parse(d.t, key, &k, kbuf, sizeof(kbuf)) < 0)
			return stk_cli_msg(ctx, "Invalid key\n");
		if (stktable_remove_key(d.t, &k, d.now) < 0)
			return stk_cli_msg(ctx, "Entry is in use, cannot remove\n");
		return CLI_DONE;
	}
	if (!d.nf) {
		stktable_clear(d.t);
		return CLI_DONE;
	}
	stktable_remove_if(d.t, stk_clear_match, &d);
	return CLI_DONE;
}

/* set table NAME key K [data.TYPE VALUE]... */
static int stk_cli_set(struct cli_ctx *ctx)
{
	unsigned char kbuf[512];
	uint64_t now = now_ms();
	struct stktable *t;
	struct stksess *ts;
	struct stk_key k;
	int dts[32];
	long long vals[32];
	int n = 0;

	if (ctx->nargs < 3)
		return stk_cli_msg(ctx, "table name expected\n");
	t = stktable_find(ctx->args[2]);
	if (!t)
		return stk_cli_msg(ctx, "No such table\n");
	if (ctx->nargs < 5 || strcmp(ctx->args[3], "key"))
		return stk_cli_msg(ctx, "Key value expected\n");
	if (stk_key_parse(t, ctx->args[4], &k, kbuf, sizeof(kbuf)) < 0)
		return stk_cli_msg(ctx, "Invalid key\n");
	for (int i = 5; i < ctx->nargs && n < 32; i += 2, n++) {
		const char *w = ctx->args[i];
		char *end;

		if (strncmp(w, "data.", 5))
			return stk_cli_msg(ctx, "\"data.<type>\" followed by a value expected\n");
		dts[n] = stk_dt_find(w + 5, strlen(w + 5));
		if (dts[n] < 0)
			return stk_cli_msg(ctx, "Unknown data type\n");
		if (t->data_ofs[dts[n]] == STK_DT_NONE || dts[n] >= STK_DT_GPT ||
		    dts[n] == STK_DT_SERVER_KEY)
			return stk_cli_msg(ctx, "Data type not stored in this table\n");
		if (i + 1 >= ctx->nargs)
			return stk_cli_msg(ctx, "Require a valid integer value to store\n");
		vals[n] = strtoll(ctx->args[i + 1], &end, 10);
		if (*end || !*ctx->args[i + 1])
			return stk_cli_msg(ctx, "Require a valid integer value to store\n");
	}
	ts = stktable_get(t, &k, now);
	if (!ts)
		return stk_cli_msg(ctx, "Unable to allocate a new entry\n");
	stksess_lock(t, ts);
	for (int i = 0; i < n; i++)
		stksess_set(t, ts, dts[i], 0, vals[i], now);
	stksess_unlock(t, ts);
	stktable_release(t, ts, true, now);
	return CLI_DONE;
}

static const struct cli_kw stk_cli_kws[] = {
	{ { "show", "table" },
	  "show table [<table>] [<filter>]*",
	  "report table usage stats or dump this table's contents (filter: data/key)",
	  CLI_LVL_OPER,
	  stk_cli_show },
	{ { "clear", "table" },
	  "clear table <table> [<filter>]*",
	  "remove an entry from a table (filter: data/key)",
	  CLI_LVL_OPER,
	  stk_cli_clear },
	{ { "set", "table" },
	  "set table <table> key <k> [data.* <v>]*",
	  "update or create a table entry's data",
	  CLI_LVL_ADMIN,
	  stk_cli_set },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(stk_cli_kws)
