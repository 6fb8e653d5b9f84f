/* Lua code that runs on its own: the functions of core.register_task (started on each
 * thread's loop: those of the shared state on thread 1 only, those of a per-thread state
 * on its thread; they may sleep and yield for ever, within tune.lua.task-timeout of Lua
 * run time) and of core.register_init (run once before the threads start).
 */
#include <stdlib.h>
#include <string.h>

#include <event/loop.h>
#include <proc/global-t.h>

#include "hlua_int.h"

/* A function given to register_task or register_init, in the state that loaded it. */
struct hlua_decl {
	struct hlua_decl *next;
	int state_id;
	int ref;
};
static struct hlua_decl *task_decls, *init_decls;

/* A running task. */
struct hlua_task {
	struct list list; /* in this thread's tasks */
	struct hlua_ctx ctx;
	struct timer tmr;
	struct tasklet tl;
};
static __thread struct list th_tasks;

static int decl_add(struct hlua_decl **head, lua_State *L, int fidx, int state_id)
{
	struct hlua_decl *d = calloc(1, sizeof(*d)), **tail = head;

	if (!d)
		return -1;
	lua_pushvalue(L, fidx);
	d->ref = luaL_ref(L, LUA_REGISTRYINDEX);
	d->state_id = state_id;
	while (*tail)
		tail = &(*tail)->next;
	*tail = d;
	return 0;
}

int hlua_task_add(lua_State *L, int fidx, int state_id)
{
	return decl_add(&task_decls, L, fidx, state_id);
}

int hlua_init_add(lua_State *L, int fidx, int state_id)
{
	return decl_add(&init_decls, L, fidx, state_id);
}

/* Init functions run in the state that declared them; a per-thread file's are declared
 * by each thread's state: run once, in state 1's, as HAProxy runs them once. */
int hlua_init_run_all(void)
{
	for (struct hlua_decl *d = init_decls; d; d = d->next) {
		struct hlua_ctx ctx;
		enum hlua_ret r;

		if (d->state_id > 1 || !hlua_states[d->state_id])
			continue;
		if (hlua_ctx_start(&ctx, hlua_states[d->state_id], d->ref, "init", "function",
				   hlua_set.session_timeout, false, NULL, NULL) < 0) {
			hlua_report_err(&ctx, NULL);
			return -1;
		}
		ctx.px = NULL;
		ctx.wake = NULL;
		r = hlua_ctx_run(&ctx);
		if (r != HLUA_OK) {
			if (r == HLUA_YIELD)
				snprintf(ctx.err, sizeof(ctx.err),
					 "[state-id %d] yield not allowed", d->state_id);
			hlua_report_err(&ctx, NULL);
			hlua_ctx_end(&ctx);
			return -1;
		}
		hlua_ctx_end(&ctx);
	}
	return 0;
}

static void task_free(struct hlua_task *t)
{
	list_delete(&t->list);
	timer_del(&t->tmr);
	tasklet_cancel(&t->tl);
	hlua_ctx_end(&t->ctx);
	free(t);
}

static void task_run(struct tasklet *tl)
{
	struct hlua_task *t = container_of(tl, struct hlua_task, tl);

	switch (hlua_ctx_run(&t->ctx)) {
	case HLUA_YIELD:
		if (t->ctx.wake_ms)
			timer_set(&t->tmr, t->ctx.wake_ms);
		return; /* else woken by what it waits for (next turn, a socket) */
	case HLUA_ERR:
		hlua_report_err(&t->ctx, NULL);
		break;
	case HLUA_OK:
		break;
	}
	task_free(t);
}

static void task_tmr_cb(struct timer *tm)
{
	struct hlua_task *t = container_of(tm, struct hlua_task, tmr);

	if (t->tmr.expire && t->tmr.expire > now_ms()) {
		timer_set(&t->tmr, t->tmr.expire);
		return;
	}
	t->tmr.expire = 0;
	task_run(&t->tl);
}

static void task_wake(struct hlua_ctx *ctx)
{
	struct hlua_task *t = ctx->owner;

	tasklet_wakeup(&t->tl);
}

static int task_start(struct hlua_decl *d, struct hlua_state *st)
{
	struct hlua_task *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	list_append(&th_tasks, &t->list);
	tasklet_init(&t->tl, task_run);
	t->tmr.cb = task_tmr_cb;
	if (hlua_ctx_start(&t->ctx, st, d->ref, "task", "task", hlua_set.task_timeout, true, NULL,
			   NULL) < 0) {
		hlua_report_err(&t->ctx, NULL);
		list_delete(&t->list);
		free(t);
		return 0; /* reported; the others still run */
	}
	t->ctx.owner = t;
	t->ctx.wake = task_wake;
	t->ctx.px = NULL;
	tasklet_wakeup(&t->tl);
	return 0;
}

int hlua_tasks_thread_start(void)
{
	list_init(&th_tasks);
	for (struct hlua_decl *d = task_decls; d; d = d->next) {
		if (d->state_id == 0) {
			if (tid == 0 && task_start(d, hlua_states[0]) < 0)
				return -1;
		} else if (d->state_id == 1) {
			/* a per-thread file's task: each thread runs its own state's copy, which
			 * that state declared in the same order: the n-th of state 1 is the
			 * n-th of this thread's */
			struct hlua_state *st = hlua_states[tid + 1];
			int n = 0;

			for (struct hlua_decl *e = task_decls; e != d; e = e->next)
				n += e->state_id == 1;
			for (struct hlua_decl *e = task_decls; st && e; e = e->next) {
				if (e->state_id != (int)tid + 1 || n--)
					continue;
				if (task_start(e, st) < 0)
					return -1;
				break;
			}
		}
	}
	return 0;
}

void hlua_tasks_thread_stop(void)
{
	while (th_tasks.next && !list_empty(&th_tasks))
		task_free(container_of(th_tasks.next, struct hlua_task, list));
}
