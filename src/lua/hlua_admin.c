/* Runtime API commands run for scripts: the setters of the Proxy and Server classes
 * (Server.set_weight, set_maint, check_enable, Proxy.pause...) run the very handlers the
 * CLI runs ("set server", "disable frontend"...), on thread 0 where they belong, so that a
 * script changes a server exactly as an operator does, with the same checks, messages and
 * thread rules. A script on another thread hands its command to thread 0 and, where it may
 * yield, waits for the end of it (including what the command posted to the threads of the
 * server's checks); elsewhere the command runs on its own and the script goes on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/atomic.h>
#include <base/buf.h>
#include <base/compiler.h>
#include <cli/cli.h>
#include <event/inbox.h>
#include <event/loop.h>

#include "hlua_int.h"

#define CLASS_ADM "hlua.AdminJob"
#define ADM_MAX_ARGS 8
#define ADM_AREA 512	  /* the words of a command */
#define ADM_OUT 1024	  /* what a command answers (cut beyond) */
#define ADM_WAIT_MS 10000 /* a script stops waiting after this long (thread 0 stopped) */

/* One command run for a script. Shared by thread 0 (which runs it) and the script (which
 * reads its answer): each holds a reference; the last one frees it. */
struct hlua_adm_job {
	struct inbox_item it; /* handed to thread 0 */
	struct timer tmr;     /* thread 0: runs a command that answered CLI_YIELD again */
	const struct cli_kw *kw;
	struct cli_ctx ctx;
	struct buf out;
	char *args[ADM_MAX_ARGS + 1];
	char area[ADM_AREA];
	char outbuf[ADM_OUT];
	uint64_t start; /* script side: when it began waiting (its thread's clock) */
	int done;	/* atomic: the command ended, <out> is complete (release) */
	int refs;	/* atomic */
};

/* The script's handle on a job: a userdata on the calling function's stack, so that a
 * script abandoned while it waits (its stream ended) lets go of the job when collected. */
struct hlua_adm_ref {
	struct hlua_adm_job *job;
};

static void adm_unref(struct hlua_adm_job *j)
{
	if (HA_ATOMIC_SUB(&j->refs, 1) == 0)
		free(j);
}

/* Thread 0: runs the command once more; ends it unless it waits for other threads. */
static void adm_step(struct hlua_adm_job *j)
{
	int r = j->kw->fn(&j->ctx);

	if (r == CLI_YIELD) {
		timer_set(&j->tmr, tick_add(1));
		return;
	}
	/* CLI_DONE, or CLI_MORE: a longer answer than ADM_OUT, cut there */
	if (r == CLI_MORE && j->ctx.release)
		j->ctx.release(&j->ctx);
	HA_ATOMIC_STORE(&j->done, 1);
	adm_unref(j);
}

static void adm_it_run(struct inbox_item *it)
{
	adm_step(container_of(it, struct hlua_adm_job, it));
}

static void adm_tmr_cb(struct timer *t)
{
	adm_step(container_of(t, struct hlua_adm_job, tmr));
}

static int adm_gc(lua_State *L)
{
	struct hlua_adm_ref *ref = luaL_checkudata(L, 1, CLASS_ADM);

	if (ref->job)
		adm_unref(ref->job);
	ref->job = NULL;
	return 0;
}

/* Pushes what the script gets from the finished job, releases the script's reference. */
static int adm_results(lua_State *L, struct hlua_adm_ref *ref, enum hlua_adm_ret ret)
{
	static const char from_cli[] = "stats socket command";
	struct hlua_adm_job *j = ref->job;
	const char *p = j->out.area + j->out.head, *hit;
	size_t len = j->out.data;
	luaL_Buffer b;
	int n = 0;

	while (len && (p[len - 1] == '\n' || p[len - 1] == '\r'))
		len--;
	if (ret != HLUA_ADM_NONE) {
		if (!len) {
			lua_pushnil(L);
		} else {
			luaL_buffinit(L, &b);
			while (len >= sizeof(from_cli) - 1 &&
			       (hit = memmem(p, len, from_cli, sizeof(from_cli) - 1))) {
				luaL_addlstring(&b, p, (size_t)(hit - p));
				luaL_addstring(&b, "Lua script");
				len -= (size_t)(hit - p) + sizeof(from_cli) - 1;
				p = hit + sizeof(from_cli) - 1;
			}
			luaL_addlstring(&b, p, len);
			luaL_pushresult(&b);
		}
		n = 1;
	}
	ref->job = NULL;
	adm_unref(j);
	return n;
}

/* Continuation of a script waiting for its job. <kctx>: the return mode, and the stack
 * index of the handle above the low 4 bits. */
static int adm_k(lua_State *L, int status, lua_KContext kctx)
{
	struct hlua_adm_ref *ref = luaL_checkudata(L, (int)(kctx >> 4), CLASS_ADM);
	enum hlua_adm_ret ret = (enum hlua_adm_ret)(kctx & 0xf);

	if (HA_ATOMIC_LOAD(&ref->job->done))
		return adm_results(L, ref, ret);
	if (now_ms() - ref->job->start > ADM_WAIT_MS) {
		/* thread 0 does not answer (stopping): go on without the answer */
		adm_unref(ref->job);
		ref->job = NULL;
		return ret == HLUA_ADM_NONE ? 0 : (lua_pushnil(L), 1);
	}
	return hlua_yield(L, now_ms() + 1, false, adm_k, kctx);
}

/* Copies <argv> into the job's words. Returns 0, or -1 when they do not fit. */
static int adm_set_args(struct hlua_adm_job *j, int argc, const char *const *argv)
{
	size_t used = 0;

	if (argc < 1 || argc > ADM_MAX_ARGS)
		return -1;
	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]) + 1;

		if (n > sizeof(j->area) - used)
			return -1;
		memcpy(j->area + used, argv[i], n);
		j->args[i] = j->area + used;
		used += n;
	}
	j->args[argc] = NULL;
	return 0;
}

int hlua_admin_call(lua_State *L, enum hlua_adm_ret ret, int argc, const char *const *argv)
{
	struct hlua_ctx *hc = hlua_ctx_of(L);
	struct hlua_adm_ref *ref;
	struct hlua_adm_job *j;
	int idx;

	if (!th_ctx)
		return luaL_error(L, "'%s %s' cannot run before the proxy runs (init context)",
				  argv[0], argc > 1 ? argv[1] : "");
	ref = lua_newuserdatauv(L, sizeof(*ref), 0);
	ref->job = NULL;
	luaL_setmetatable(L, CLASS_ADM);
	idx = lua_gettop(L);
	j = calloc(1, sizeof(*j));
	if (!j)
		return luaL_error(L, "out of memory");
	j->refs = 1;
	ref->job = j;
	if (adm_set_args(j, argc, argv) < 0)
		return luaL_error(L, "'%s': arguments too long", argv[0]);
	j->kw = cli_kw_find(j->args, argc);
	if (!j->kw)
		return luaL_error(L, "'%s %s': no such runtime API command", argv[0],
				  argc > 1 ? argv[1] : "");
	j->ctx.args = j->args;
	j->ctx.nargs = argc;
	j->ctx.level = CLI_LVL_ADMIN;
	j->ctx.out = &j->out;
	j->ctx.fd = -1;
	j->out.area = j->outbuf;
	j->out.size = sizeof(j->outbuf);
	j->it.fn = adm_it_run;
	j->tmr.cb = adm_tmr_cb;
	j->start = now_ms();
	j->refs = 2; /* thread 0's, released when the command ends */
	if (tid == 0)
		adm_step(j);
	else
		inbox_push(0, &j->it);
	if (HA_ATOMIC_LOAD(&j->done))
		return adm_results(L, ref, ret);
	if (!hc || !hc->yieldable || !lua_isyieldable(L))
		return ret == HLUA_ADM_NONE ? 0 : (lua_pushnil(L), 1);
	return hlua_yield(L, now_ms() + 1, false, adm_k, ((lua_KContext)idx << 4) | ret);
}

/* Called by hlua_proxy_setup: the class of the handles. */
void hlua_admin_setup(lua_State *L)
{
	hlua_class_new(L, CLASS_ADM, NULL, NULL, adm_gc);
}
