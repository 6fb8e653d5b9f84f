/* Runtime API commands written in Lua (core.register_cli): each registration adds a
 * command to the CLI's registry, listed by "help" with its usage text as 2.6 shows it, at
 * the user level. Running it calls the function, in a yieldable context on the CLI's
 * thread, with an applet object and every word of the command line (the keyword words
 * first, as 2.6 passes them). applet:send() writes to the session (waiting for the client
 * to read when the output is full), getline()/receive() read the command's "<<" payload.
 * A failure is reported on the CLI as one line, on stderr and in the global logs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/buf.h>
#include <base/compiler.h>
#include <cli/cli.h>
#include <event/loop.h>
#include <log/log.h>
#include <sample/vars.h>

#include "hlua_int.h"

#define CLASS_APPLET_CLI "hlua.AppletCLI"

/* One Lua command in the CLI's registry. */
struct hlua_cli_cmd {
	struct cli_kw_list list;
	struct cli_kw kw[2]; /* the command and the table's end */
	struct hlua_fn *fn;
	char *words; /* fn->name split into the keyword words */
	char *fname; /* "<lua.cli.W1.W2>" for messages, as 2.6 names it */
};

/* A run of a command, from its first call to CLI_DONE (or the end of the session). */
struct hlua_cli_run {
	struct hlua_ctx hc;
	struct hlua_cli_cmd *cmd;
	struct cli_ctx *cctx;
	struct hlua_cli_app *app; /* the script's applet object, closed at the end */
	int app_ref;		  /* registry reference keeping <app> alive meanwhile */
	size_t pl_off;		  /* what getline/receive consumed of the payload */
	uint8_t want_room;	  /* send() waits for room in the output */
	uint8_t err_pending;	  /* the error line is still to write */
};

/* The applet object: dead (run NULL) once its command ended. */
struct hlua_cli_app {
	struct hlua_cli_run *run;
};

static int hlua_cli_handler(struct cli_ctx *ctx);

/* ---- the applet object ---- */

/* The run of the applet at 1, if the running context is its command's; else an error. */
static struct hlua_cli_run *app_run(lua_State *L)
{
	struct hlua_cli_app *a = luaL_checkudata(L, 1, CLASS_APPLET_CLI);

	if (!a->run)
		luaL_error(L, "this applet object is no longer valid (its CLI command ended)");
	if (hlua_cur != &a->run->hc)
		luaL_error(L, "this applet object belongs to another CLI command");
	return a->run;
}

/* send(data) from offset <kctx>: what fits now, then waits for the client to read. */
static int app_send_k(lua_State *L, int status, lua_KContext kctx)
{
	struct hlua_cli_run *r = app_run(L);
	size_t len, off = (size_t)kctx, n;
	const char *s = luaL_checklstring(L, 2, &len);
	struct buf *out = r->cctx->out;

	b_realign(out);
	n = MIN(len - off, (size_t)b_room(out));
	if (n && cli_write(r->cctx, s + off, n) == 0)
		off += n;
	if (off >= len)
		return 0;
	r->want_room = 1;
	return hlua_yield(L, 0, false, app_send_k, (lua_KContext)off);
}

static int l_app_send(lua_State *L)
{
	return app_send_k(L, LUA_OK, 0);
}

/* The payload not read yet. */
static const char *app_payload(struct hlua_cli_run *r, size_t *len)
{
	const struct cli_ctx *c = r->cctx;

	if (!c->payload || r->pl_off >= c->payload_len) {
		*len = 0;
		return "";
	}
	*len = c->payload_len - r->pl_off;
	return c->payload + r->pl_off;
}

/* getline(): the next line of the payload with its LF, "" at its end. */
static int l_app_getline(lua_State *L)
{
	struct hlua_cli_run *r = app_run(L);
	size_t len;
	const char *p = app_payload(r, &len);
	const char *lf = memchr(p, '\n', len);

	if (lf)
		len = (size_t)(lf - p) + 1;
	lua_pushlstring(L, p, len);
	r->pl_off += len;
	return 1;
}

/* receive([size]): up to <size> bytes of the payload (all without), "" at its end. */
static int l_app_receive(lua_State *L)
{
	struct hlua_cli_run *r = app_run(L);
	lua_Integer want = luaL_optinteger(L, 2, -1);
	size_t len;
	const char *p = app_payload(r, &len);

	if (want >= 0 && (lua_Unsigned)want < len)
		len = (size_t)want;
	lua_pushlstring(L, p, len);
	r->pl_off += len;
	return 1;
}

static int l_app_set_priv(lua_State *L)
{
	app_run(L);
	lua_settop(L, 2);
	lua_setiuservalue(L, 1, 1);
	return 0;
}

static int l_app_get_priv(lua_State *L)
{
	app_run(L);
	lua_getiuservalue(L, 1, 1);
	return 1;
}

/* Variables: a command has no stream, only the process ones (proc.*) exist for it. */
static void app_var_desc(lua_State *L, struct var_desc *d)
{
	const char *name = luaL_checkstring(L, 2);
	char err[128];

	if (vars_parse_desc(name, d, err, sizeof(err)) < 0)
		luaL_error(L, "invalid variable name '%s': %s", name, err);
	if (d->scope != VS_PROC)
		luaL_error(L, "'%s': a CLI command only has proc.* variables", name);
}

static int l_app_set_var(lua_State *L)
{
	struct smp_ctx sctx = { 0 };
	struct sample smp = { 0 };
	struct var_desc d;

	app_run(L);
	app_var_desc(L, &d);
	if (hlua_to_sample(L, 3, &smp) < 0)
		return luaL_argerror(L, 3, "value has no sample form");
	smp.ctx = &sctx;
	vars_set(&sctx, &d, &smp);
	return 0;
}

static int l_app_get_var(lua_State *L)
{
	struct smp_ctx sctx = { 0 };
	struct sample smp = { 0 };
	struct var_desc d;

	app_run(L);
	app_var_desc(L, &d);
	smp.ctx = &sctx;
	if (!vars_get(&sctx, &d, &smp))
		lua_pushnil(L);
	else
		hlua_push_sample(L, &smp, false);
	return 1;
}

static int l_app_unset_var(lua_State *L)
{
	struct smp_ctx sctx = { 0 };
	struct var_desc d;

	app_run(L);
	app_var_desc(L, &d);
	vars_unset(&sctx, &d);
	return 0;
}

static int l_app_tostring(lua_State *L)
{
	lua_pushstring(L, "HAProxy class AppletTCP");
	return 1;
}

static const luaL_Reg app_methods[] = {
	{ "send", l_app_send },
	{ "getline", l_app_getline },
	{ "receive", l_app_receive },
	{ "set_priv", l_app_set_priv },
	{ "get_priv", l_app_get_priv },
	{ "set_var", l_app_set_var },
	{ "get_var", l_app_get_var },
	{ "unset_var", l_app_unset_var },
	{ NULL, NULL },
};

/* ---- running a command ---- */

/* Pushes the applet and the words of the command line. */
static int push_cli_args(lua_State *T, void *arg)
{
	struct hlua_cli_run *r = arg;
	struct hlua_cli_app *a;

	luaL_checkstack(T, r->cctx->nargs + 2, "too many words");
	a = hlua_obj_new(T, CLASS_APPLET_CLI, sizeof(*a));
	a->run = r;
	/* the script may drop its last reference: the registry keeps it until the end */
	lua_pushvalue(T, -1);
	r->app_ref = luaL_ref(T, LUA_REGISTRYINDEX);
	r->app = a;
	for (int i = 0; i < r->cctx->nargs; i++)
		lua_pushstring(T, r->cctx->args[i]);
	return 1 + r->cctx->nargs;
}

/* Ends a run: the applet object dies, the coroutine is released. */
static void cli_run_end(struct cli_ctx *ctx)
{
	struct hlua_cli_run *r = (struct hlua_cli_run *)(uintptr_t)ctx->p[0];

	if (!r)
		return;
	if (r->app) {
		r->app->run = NULL;
		hlua_lock(r->hc.st);
		luaL_unref(r->hc.st->L, LUA_REGISTRYINDEX, r->app_ref);
		hlua_unlock(r->hc.st);
	}
	hlua_ctx_end(&r->hc);
	free(r);
	ctx->p[0] = NULL;
	ctx->release = NULL;
}

/* Reports the failure of a run: stderr, the global logs, then the CLI line (pending
 * until it fits). */
static void cli_run_failed(struct hlua_cli_run *r)
{
	hlua_report_err(&r->hc, NULL);
	r->err_pending = 1;
}

/* Starts a run of the command of <ctx>. Returns it, or NULL after answering. */
static struct hlua_cli_run *cli_run_start(struct cli_ctx *ctx)
{
	const struct cli_kw *kw = cli_kw_find(ctx->args, ctx->nargs);
	struct hlua_cli_cmd *cmd;
	struct hlua_cli_run *r;
	struct hlua_state *st;
	int ref;

	if (!kw || kw->fn != hlua_cli_handler)
		return NULL; /* cannot happen: the CLI found this handler from the words */
	cmd = container_of(kw, struct hlua_cli_cmd, kw[0]);
	st = hlua_fn_state(cmd->fn, &ref);
	if (!st) {
		cli_printf(ctx, "Lua cli '%s': not registered by this thread's Lua state.\n",
			   cmd->fname);
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		cli_printf(ctx, "Out of memory.\n");
		return NULL;
	}
	r->cmd = cmd;
	r->cctx = ctx;
	ctx->p[0] = r;
	ctx->release = cli_run_end;
	if (hlua_ctx_start(&r->hc, st, ref, cmd->fname, "cli", hlua_set.session_timeout, true,
			   push_cli_args, r) < 0) {
		cli_run_failed(r);
		return r;
	}
	r->hc.owner = r;
	r->hc.wake = NULL; /* the CLI calls a yielded command again in 1 ms */
	r->hc.px = NULL;
	return r;
}

static int hlua_cli_handler(struct cli_ctx *ctx)
{
	struct hlua_cli_run *r = (struct hlua_cli_run *)(uintptr_t)ctx->p[0];

	if (!r && !(r = cli_run_start(ctx)))
		return CLI_DONE;
	if (!r->err_pending) {
		enum hlua_ret ret;
		uint64_t until;

		if (r->hc.wake_ms && r->hc.wake_ms > now_ms())
			return CLI_YIELD;	 /* sleeping */
		until = hlua_now_ns() + 1000000; /* 1 ms of this turn at most */

		/* the CLI calls a yielded command again 1 ms later: forced yields (nothing
		 * awaited) go on at once for up to 1 ms, so a long command is not slowed down
		 * by that timer, and the thread still serves the rest every millisecond */
		do {
			r->want_room = 0;
			ret = hlua_ctx_run(&r->hc);
		} while (ret == HLUA_YIELD && r->hc.forced && !r->want_room &&
			 hlua_now_ns() < until);
		switch (ret) {
		case HLUA_YIELD:
			return r->want_room ? CLI_MORE : CLI_YIELD;
		case HLUA_OK:
			cli_run_end(ctx);
			return CLI_DONE;
		case HLUA_ERR:
			cli_run_failed(r);
			break;
		}
	}
	if (cli_printf(ctx, "Lua cli '%s': %s.\n", r->hc.fname, r->hc.err) < 0 && ctx->out->data)
		return CLI_MORE;
	cli_run_end(ctx);
	return CLI_DONE;
}

/* ---- registration ---- */

int hlua_cli_declare(struct hlua_fn *fn, char *err, size_t errsz)
{
	struct hlua_cli_cmd *cmd = calloc(1, sizeof(*cmd));
	const struct cli_kw *other;
	char *save = NULL, *w;
	size_t flen = strlen(fn->name) + 16;
	int n = 0;

	if (!cmd || !(cmd->words = strdup(fn->name)) || !(cmd->fname = malloc(flen)))
		goto out_nomem;
	snprintf(cmd->fname, flen, "<lua.cli");
	for (w = strtok_r(cmd->words, " ", &save); w && n < CLI_MAX_WORDS;
	     w = strtok_r(NULL, " ", &save)) {
		cmd->kw[0].words[n++] = w;
		strcat(cmd->fname, ".");
		strcat(cmd->fname, w);
	}
	strcat(cmd->fname, ">");
	other = cli_kw_find((char **)cmd->kw[0].words, n);
	if (other && other->words[n - 1] && (n == CLI_MAX_WORDS || !other->words[n]) &&
	    other->fn != hlua_cli_handler) {
		snprintf(err, errsz, "register_cli: '%s' is already a runtime API command",
			 fn->name);
		goto out_free;
	}
	cmd->kw[0].usage = fn->help; /* 2.6 lists the help text alone */
	cmd->kw[0].help = NULL;
	cmd->kw[0].level = CLI_LVL_USER;
	cmd->kw[0].fn = hlua_cli_handler;
	cmd->list.kws = cmd->kw;
	cmd->fn = fn;
	fn->priv = cmd;
	cli_register_kws(&cmd->list);
	return 0;
out_nomem:
	snprintf(err, errsz, "out of memory");
out_free:
	if (cmd) {
		free(cmd->words);
		free(cmd->fname);
	}
	free(cmd);
	return -1;
}

void hlua_cli_setup(lua_State *L)
{
	hlua_class_new(L, CLASS_APPLET_CLI, app_methods, NULL, NULL);
	luaL_getmetatable(L, CLASS_APPLET_CLI);
	lua_pushcfunction(L, l_app_tostring);
	lua_setfield(L, -2, "__tostring");
	lua_pop(L, 1);
}
