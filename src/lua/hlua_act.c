/* Lua functions run by the stream: the "lua.NAME" actions of the http-request,
 * http-response, http-after-response, tcp-request content and tcp-response content rule
 * sets (yielding ones resume where they stopped), the "lua.NAME" sample fetches and
 * converters (never yielding: they run to completion or fail), and the stream's Lua data
 * (the running action, txn:set_priv values) freed with the stream.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/buf.h>
#include <base/pool.h>
#include <event/loop.h>
#include <proxy/proxy-t.h>
#include <sample/sample.h>
#include <stream/action.h>
#include <stream/stream.h>

#include "hlua_int.h"

DECLARE_POOL(pool_hlua_strm, "hlua_strm", sizeof(struct hlua_strm))

/* ---- the stream's Lua data ---- */

static void hlua_strm_free(struct stream *s)
{
	struct hlua_strm *hs = s->hlua;

	s->hlua = NULL;
	tasklet_cancel(&hs->wake);
	hlua_txn_close(hs->txn); /* a script that kept it gets an error, not the freed stream */
	hlua_ctx_end(&hs->act);
	for (int i = 0; i < hlua_nb_states; i++) {
		if (hs->priv_ref[i] == LUA_NOREF || !hlua_states[i])
			continue;
		hlua_lock(hlua_states[i]);
		luaL_unref(hlua_states[i]->L, LUA_REGISTRYINDEX, hs->priv_ref[i]);
		hlua_unlock(hlua_states[i]);
	}
	pool_free(&pool_hlua_strm, hs);
}

/* The wake of a yielded action: a tasklet runs its stream at the next loop turn, after
 * the I/O and timers of this one (a timer due now would run again in the same turn: a
 * script yielding by force would keep the thread). The rule then runs again. */
static void act_resume(struct tasklet *tl)
{
	stream_run(container_of(tl, struct hlua_strm, wake)->strm);
}

static void act_wake(struct hlua_ctx *ctx)
{
	struct hlua_strm *hs = ((struct stream *)ctx->owner)->hlua;

	hs->woken = 1;
	tasklet_wakeup(&hs->wake);
}

struct hlua_strm *hlua_strm_get(struct stream *s)
{
	struct hlua_strm *hs = s->hlua;

	if (hs)
		return hs;
	hs = pool_alloc(&pool_hlua_strm);
	if (!hs)
		return NULL;
	memset(hs, 0, sizeof(*hs));
	hs->act.tref = LUA_NOREF;
	hs->strm = s;
	tasklet_init(&hs->wake, act_resume);
	for (int i = 0; i < HLUA_STATES; i++)
		hs->priv_ref[i] = LUA_NOREF;
	s->hlua = hs;
	stream_hlua_free = hlua_strm_free;
	return hs;
}

/* ---- actions ---- */

struct act_args {
	struct stream *s;
	struct proxy *px;
	int from;
	char **words;
	struct hlua_txn **txn;
};

static int push_act_args(lua_State *T, void *arg)
{
	struct act_args *a = arg;
	int n = 1;

	*a->txn = hlua_txn_push(T, a->s, a->px, a->from,
				a->from & (ACT_F_HTTP_REQ | ACT_F_HTTP_RES | ACT_F_TCP_REQ_CNT |
					   ACT_F_TCP_RES_CNT));
	for (char **w = a->words; w && *w; w++, n++)
		lua_pushstring(T, *w);
	return n;
}

/* rule->arg.gen.p[0]: the function; p[1]: the NULL-terminated words after the name */
static enum act_return hlua_action(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	struct hlua_fn *fn = r->arg.gen.p[0];
	struct hlua_strm *hs = hlua_strm_get(s);
	struct hlua_ctx *ctx;
	struct hlua_state *st;
	enum act_return ret = ACT_RET_CONT;
	int ref;

	if (!hs)
		return ACT_RET_ERR;
	ctx = &hs->act;
	if (!ctx->T) {
		struct act_args a = { s, px, from, r->arg.gen.p[1], &hs->txn };

		st = hlua_fn_state(fn, &ref);
		if (!st) {
			snprintf(ctx->err, sizeof(ctx->err),
				 "not registered by this thread's Lua state");
			ctx->fname = fn->name;
			ctx->what = "function";
			hlua_report_err(ctx, px);
			return ACT_RET_CONT;
		}
		hs->done = 0;
		hs->reply = 0;
		if (hlua_ctx_start(
			    ctx, st, ref, fn->name, "function", hlua_set.session_timeout,
			    !(from & ACT_F_HTTP_AFTER) && !(s->flags & SF_AFTER_LOCAL) &&
				    /* an HTTP response's tcp-response rules cannot wait */
				    !(from == ACT_F_TCP_RES_CNT && s->fe->mode == PR_MODE_HTTP),
			    push_act_args, &a) < 0) {
			hlua_txn_close(hs->txn);
			hs->txn = NULL;
			hlua_report_err(ctx, px);
			return ACT_RET_CONT;
		}
		ctx->owner = s;
		ctx->wake = act_wake;
		ctx->px = px;
	} else if (s->flags & SF_RULE_EXPIRED) {
		s->flags &= ~SF_RULE_EXPIRED; /* the date it waited for came */
	} else if (!hs->woken && (!ctx->wake_ms || ctx->wake_ms > now_ms())) {
		return ACT_RET_YIELD; /* run for client data: not what it waits for */
	}
	hs->woken = 0;
	switch (hlua_ctx_run(ctx)) {
	case HLUA_YIELD:
		if (ctx->wake_ms) {
			s->rule_exp = ctx->wake_ms;
			timer_set(&s->tmr, s->rule_exp);
		}
		return ACT_RET_YIELD;
	case HLUA_ERR:
		hlua_report_err(ctx, px);
		/* a txn:done() caught by pcall still ends the exchange */
		/* fall through */
	case HLUA_OK:
		if (hs->done) /* txn:done(): its reply was written (hlua_reply.c), or none */
			ret = hs->reply == HLUA_REPLY_SENT     ? ACT_RET_DONE
			      : hs->reply == HLUA_REPLY_FAILED ? ACT_RET_ERR
							       : ACT_RET_ABRT;
		break;
	}
	hlua_txn_close(hs->txn);
	hs->txn = NULL;
	hlua_ctx_end(ctx);
	if (s->rule_exp) {
		s->rule_exp = 0;
		timer_del(&s->tmr);
	}
	if ((ret == ACT_RET_ABRT && (from & (ACT_F_HTTP_REQ | ACT_F_HTTP_RES))) ||
	    ret == ACT_RET_DONE)
		stream_set_term(s, 'L'); /* HAProxy's txn:done(): the exchange ends here */
	else if (ret == ACT_RET_ERR)
		stream_set_term(s, 'P'); /* its reply did not fit: a 500 of the proxy */
	return ret;
}

static void hlua_action_release(struct act_rule *r)
{
	char **w = r->arg.gen.p[1];

	for (char **p = w; p && *p; p++)
		free(*p);
	free(w);
}

static int parse_lua_action(char **args, int *pos, int nargs, const struct act_parse *ap,
			    struct act_rule *r, char *err, size_t errsz)
{
	const char *name = args[*pos - 1] + 4;
	struct hlua_fn *fn = hlua_fn_find(HLUA_FN_ACTION, name);
	int n = 0, first = *pos;
	char **words;

	if (!fn) {
		snprintf(err, errsz, "Lua action '%s' not found", name);
		return -1;
	}
	if (!(fn->act_from & ap->from)) {
		snprintf(err, errsz, "Lua action '%s' is not registered for '%s'", name, ap->set);
		return -1;
	}
	while (*pos + n < nargs && !act_is_cond_word(args[*pos + n]))
		n++;
	if (n < fn->nargs) {
		snprintf(err, errsz, "Lua action '%s' expects %d argument(s), %d given", name,
			 fn->nargs, n);
		return -1;
	}
	words = calloc((size_t)n + 1, sizeof(*words));
	if (!words) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	r->arg.gen.p[0] = fn;
	r->arg.gen.p[1] = words;
	r->action = hlua_action;
	r->release = hlua_action_release;
	r->flags |= ACT_FL_ASYNC;
	for (int i = 0; i < n; i++) {
		words[i] = strdup(args[first + i]);
		if (!words[i]) {
			snprintf(err, errsz, "out of memory");
			return -1;
		}
	}
	*pos += n;
	return 0;
}

static const struct action_kw hlua_act_kws[] = {
	{ "lua.",
	  ACT_F_HTTP_REQ | ACT_F_HTTP_RES | ACT_F_HTTP_AFTER | ACT_F_TCP_REQ_CNT |
		  ACT_F_TCP_RES_CNT,
	  1, parse_lua_action },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(hlua_act_kws);

/* ---- fetches and converters ---- */

/* Converts the function's result at the top of <T> into <smp>, strings copied into a
 * scratch chunk (the Lua string goes away with the coroutine). 1, or 0 when a string does
 * not fit. */
static int result_to_sample(lua_State *T, struct sample *smp)
{
	struct sample tmp;
	char *buf;

	if (lua_gettop(T) < 1 || hlua_to_sample(T, -1, &tmp) < 0) {
		/* nil, a table, a function...: the boolean false, as HAProxy gives */
		smp->data.type = SMP_T_BOOL;
		smp->data.u.sint = 0;
		smp->flags &= ~SMP_F_CONST;
		return 1;
	}
	smp->data = tmp.data;
	smp->flags &= ~SMP_F_CONST;
	if (tmp.data.type != SMP_T_STR)
		return 1;
	buf = smp_trash();
	if (!buf || tmp.data.u.str.len > smp_trash_size())
		return 0;
	memcpy(buf, tmp.data.u.str.ptr, tmp.data.u.str.len);
	smp->data.u.str = ist2(buf, tmp.data.u.str.len);
	return 1;
}

struct smp_args {
	struct stream *s;
	struct proxy *px;
	int from;
	const struct arg *args;
	const struct sample *in; /* converters: the input sample */
	struct hlua_txn **txn;
};

static int push_smp_args(lua_State *T, void *arg)
{
	struct smp_args *a = arg;
	int n = 0;

	if (a->in) {
		hlua_push_sample(T, a->in, false);
		n++;
	} else {
		*a->txn = hlua_txn_push(T, a->s, a->px, a->from, false);
		n++;
	}
	for (const struct arg *g = a->args; g && g->type != ARGT_STOP; g++, n++) {
		if (g->type == ARGT_SINT)
			lua_pushinteger(T, g->data.sint);
		else if (g->type == ARGT_STR)
			lua_pushlstring(T, g->data.str.ptr, g->data.str.len);
		else
			lua_pushnil(T);
	}
	return n;
}

/* Runs <fn> for a fetch (in == NULL) or a converter; fills smp. */
static int run_smp_fn(struct hlua_fn *fn, const struct arg *args, struct sample *smp,
		      const struct sample *in)
{
	const struct smp_ctx *sctx = smp->ctx;
	struct stream *s = sctx ? sctx->strm : NULL;
	struct proxy *px = sctx ? sctx->px : NULL;
	struct hlua_txn *txn = NULL;
	struct smp_args a = {
		s,    px, sctx && (sctx->opt & SMP_OPT_DIR_RES) ? ACT_F_HTTP_RES : ACT_F_HTTP_REQ,
		args, in, &txn
	};
	struct hlua_ctx ctx;
	struct hlua_state *st;
	int ref, ok = 0;

	if (!in && !s)
		return 0; /* a fetch needs the exchange (its txn) */
	st = hlua_fn_state(fn, &ref);
	if (!st)
		return 0;
	if (hlua_ctx_start(&ctx, st, ref, fn->name, in ? "converter" : "sample-fetch",
			   hlua_set.session_timeout, false, push_smp_args, &a) < 0) {
		hlua_txn_close(txn);
		hlua_report_err(&ctx, px);
		return 0;
	}
	ctx.px = px;
	ctx.owner = NULL;
	ctx.wake = NULL;
	switch (hlua_ctx_run(&ctx)) {
	case HLUA_OK:
		hlua_lock(st); /* T's stack: see hlua_ctx_run */
		ok = result_to_sample(ctx.T, smp);
		hlua_unlock(st);
		break;
	case HLUA_YIELD: /* cannot happen: the context is not yieldable */
		snprintf(ctx.err, sizeof(ctx.err), "[state-id %d] yield not allowed", st->id);
		/* fall through */
	case HLUA_ERR:
		hlua_report_err(&ctx, px);
		break;
	}
	hlua_txn_close(txn);
	hlua_ctx_end(&ctx);
	return ok;
}

static int smp_fetch_lua(const struct arg *args, struct sample *smp, const struct sample_fetch *kw)
{
	struct hlua_fn *fn;
	int i = 0;

	list_for_each_entry(fn, &hlua_fns, list)
	{
		if (fn->kind == HLUA_FN_FETCH && i++ == kw->private)
			return run_smp_fn(fn, args, smp, NULL);
	}
	return 0;
}

static int smp_conv_lua(const struct arg *args, struct sample *smp, void *private)
{
	struct sample in = *smp;

	return run_smp_fn(private, args, smp, &in);
}

static char *lua_kw_name(const struct hlua_fn *fn)
{
	size_t n = strlen(fn->name) + 5;
	char *kw = malloc(n);

	if (kw)
		snprintf(kw, n, "lua.%s", fn->name);
	return kw;
}

int hlua_fetch_register(struct hlua_fn *fn, char *err, size_t errsz)
{
	struct sample_fetch_kw_list *kl = calloc(1, sizeof(*kl));
	struct sample_fetch *f = calloc(2, sizeof(*f));
	struct hlua_fn *it;
	int idx = 0;

	list_for_each_entry(it, &hlua_fns, list)
	{
		if (it == fn)
			break;
		if (it->kind == HLUA_FN_FETCH)
			idx++;
	}
	if (!kl || !f || !(f->kw = lua_kw_name(fn))) {
		free(kl);
		free(f);
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	f->fn = smp_fetch_lua;
	f->arg_min = 0;
	for (int i = 0; i < SMP_MAX_ARGS; i++)
		f->arg_types[i] = ARGT_STR;
	f->out_type = SMP_T_STR;
	f->use = SMP_USE_INTRN;
	f->private = idx;
	kl->kws = f;
	fn->priv = kl;
	sample_register_fetches(kl);
	return 0;
}

int hlua_conv_register(struct hlua_fn *fn, char *err, size_t errsz)
{
	struct sample_conv_kw_list *kl = calloc(1, sizeof(*kl));
	struct sample_conv *c = calloc(2, sizeof(*c));

	if (!kl || !c || !(c->kw = lua_kw_name(fn))) {
		free(kl);
		free(c);
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	c->fn = smp_conv_lua;
	c->arg_min = 0;
	for (int i = 0; i < SMP_MAX_ARGS; i++)
		c->arg_types[i] = ARGT_STR;
	c->in_type = SMP_T_STR;
	c->out_type = SMP_T_STR;
	c->private = fn;
	kl->kws = c;
	fn->priv = kl;
	sample_register_convs(kl);
	return 0;
}
