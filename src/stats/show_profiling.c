/* Runtime API of task profiling: "show profiling", "set profiling" and "show tasks", in
 * HAProxy 2.6's layout (7-character times, name and count on 35 columns). The tables
 * are summed over the threads at read time; "show tasks" asks each thread, through its
 * inbox, for what its run list and timers hold at that moment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/atomic.h>
#include <base/time_fmt.h>
#include <base/tinfo.h>
#include <cli/cli.h>
#include <event/inbox.h>
#include <event/loop.h>
#include <event/profiling.h>
#include <proc/global-t.h>
#include <stats/prof_args.h>
#include <thread/thread-t.h>

#define PROF_NAME_MAX 128

static int nb_threads(void)
{
	return global.nbthread > 0 && global.nbthread <= MAX_THREADS ? global.nbthread : 1;
}

static const char *sp_mode_name(int mode)
{
	static const char *const names[] = { "off", "auto-off", "auto-on", "on" };

	return mode >= 0 && mode <= PROF_ON ? names[mode] : "off";
}

/* Adds thread <thr>'s table into <sum> (matched on the function). */
static void sp_add_thread(struct prof_entry *sum, struct prof_entry *tmp, int thr)
{
	if (!prof_snapshot(thr, tmp))
		return;
	for (int i = 0; i < PROF_SLOTS; i++) {
		struct prof_entry *d = NULL;

		if (!tmp[i].calls)
			continue;
		for (int j = 0; j < PROF_SLOTS; j++) {
			/* "other" (slot 0) is the only entry without a function */
			if ((sum[j].calls && sum[j].fn == tmp[i].fn) || (!sum[j].calls && !d)) {
				d = &sum[j];
				if (sum[j].calls)
					break;
			}
		}
		if (!d)
			continue; /* more than PROF_SLOTS functions over all threads */
		d->fn = tmp[i].fn;
		d->calls += tmp[i].calls;
		d->cpu_ns += tmp[i].cpu_ns;
		d->lat_ns += tmp[i].lat_ns;
		for (int b = 0; b < PROF_HIST; b++)
			d->hist[b] += tmp[i].hist[b];
	}
}

static int sp_cmp_calls(const void *a, const void *b)
{
	const struct prof_entry *x = a, *y = b;

	return x->calls > y->calls ? -1 : x->calls < y->calls;
}

static int sp_cmp_addr(const void *a, const void *b)
{
	const struct prof_entry *x = a, *y = b;
	uintptr_t ax = (uintptr_t)x->fn, ay = (uintptr_t)y->fn;

	if (!x->calls != !y->calls) /* empty entries last */
		return !x->calls - !y->calls;
	if (ax != ay)
		return ax > ay ? -1 : 1;
	return sp_cmp_calls(a, b);
}

static int sp_cmp_time(const void *a, const void *b)
{
	const struct prof_entry *x = a, *y = b;

	if (!x->calls != !y->calls)
		return !x->calls - !y->calls;
	if (x->cpu_ns != y->cpu_ns)
		return x->cpu_ns > y->cpu_ns ? -1 : 1;
	return x->calls < y->calls ? -1 : x->calls > y->calls;
}

static void sp_name(const struct prof_entry *e, bool other, char *out, size_t size)
{
	if (other || !e->fn)
		snprintf(out, size, "other");
	else
		prof_fn_name(e->fn, out, size);
}

/* "aggr": rows with the same name become one (rows are per function already; names
 * shared by several functions merge here). */
static void sp_aggregate(struct prof_entry *t, int n)
{
	char a[PROF_NAME_MAX], b[PROF_NAME_MAX];

	for (int i = 0; i < n; i++) {
		if (!t[i].calls)
			continue;
		sp_name(&t[i], !t[i].fn, a, sizeof(a));
		for (int j = i + 1; j < n; j++) {
			if (!t[j].calls)
				continue;
			sp_name(&t[j], !t[j].fn, b, sizeof(b));
			if (strcmp(a, b) != 0)
				continue;
			t[i].calls += t[j].calls;
			t[i].cpu_ns += t[j].cpu_ns;
			t[i].lat_ns += t[j].lat_ns;
			for (int h = 0; h < PROF_HIST; h++)
				t[i].hist[h] += t[j].hist[h];
			memset(&t[j], 0, sizeof(t[j]));
		}
	}
}

/* Builds the sorted table of threads [first, first + count) into <sum>. */
static void sp_build(struct prof_entry *sum, struct prof_entry *tmp, int first, int count,
		     uint32_t flags)
{
	memset(sum, 0, PROF_SLOTS * sizeof(*sum));
	for (int t = first; t < first + count; t++)
		sp_add_thread(sum, tmp, t);
	if (flags & SP_AGGR)
		sp_aggregate(sum, PROF_SLOTS);
	if (flags & SP_BYADDR)
		qsort(sum, PROF_SLOTS, sizeof(*sum), sp_cmp_addr);
	else if (flags & SP_BYTIME)
		qsort(sum, PROF_SLOTS, sizeof(*sum), sp_cmp_time);
	else
		qsort(sum, PROF_SLOTS, sizeof(*sum), sp_cmp_calls);
}

/* One row: name and calls on 35 columns, then "   " and a 7-character time per column. */
static int sp_row(struct cli_ctx *ctx, const struct prof_entry *e, uint32_t flags)
{
	char name[PROF_NAME_MAX], t[5][TIME_FMT_LEN + 1];
	int w;

	sp_name(e, !e->fn, name, sizeof(name));
	w = 35 - (int)strlen(name);
	time_fmt_short(t[0], e->cpu_ns);
	time_fmt_short(t[1], e->cpu_ns / e->calls);
	time_fmt_short(t[2], e->lat_ns);
	time_fmt_short(t[3], e->lat_ns / e->calls);
	time_fmt_short(t[4], prof_hist_pct(e->hist, 99));
	return cli_printf(ctx, "  %s%*llu   %s   %s   %s   %s%s%s\n", name, w < 1 ? 1 : w,
			  (unsigned long long)e->calls, t[0], t[1], t[2], t[3],
			  flags & SP_PCT ? "   " : "", flags & SP_PCT ? t[4] : "");
}

/* Prints the tables from group n[1], row n[0] on; returns CLI_DONE or CLI_MORE. */
static int sp_tables(struct cli_ctx *ctx, const struct sp_opts *o)
{
	int ngroups = o->flags & SP_BYGROUP && thread_cfg.ngroups > 0 ? thread_cfg.ngroups : 1;
	struct prof_entry *sum = malloc(2 * PROF_SLOTS * sizeof(*sum));
	int ret = CLI_DONE;

	if (!sum)
		return cli_printf(ctx, "Out of memory.\n") < 0 ? CLI_MORE : CLI_DONE;
	for (; ctx->n[1] < (uint64_t)ngroups; ctx->n[1]++, ctx->n[0] = 0) {
		int g = (int)ctx->n[1], first = 0, count = nb_threads();

		if (o->flags & SP_BYGROUP && thread_cfg.ngroups > 0) {
			first = thread_cfg.groups[g].base;
			count = thread_cfg.groups[g].count;
		}
		sp_build(sum, sum + PROF_SLOTS, first, count, o->flags);
		if (!ctx->n[0]) {
			int r = o->flags & SP_BYGROUP ? cli_printf(ctx,
								   "Tasks activity of thread group "
								   "%d (threads %d-%d):\n",
								   g + 1, first + 1, first + count)
						      : cli_printf(ctx, "Tasks activity:\n");

			if (r < 0 ||
			    cli_printf(ctx,
				       "  function                      calls   cpu_tot   cpu_avg"
				       "   lat_tot   lat_avg%s\n",
				       o->flags & SP_PCT ? "   lat_p99" : "") < 0) {
				ret = CLI_MORE;
				break;
			}
			ctx->n[0] = 1;
		}
		for (; ctx->n[0] - 1 < PROF_SLOTS; ctx->n[0]++) {
			const struct prof_entry *e = &sum[ctx->n[0] - 1];

			if (!e->calls || (o->maxcnt && ctx->n[0] > o->maxcnt))
				break;
			if (sp_row(ctx, e, o->flags) < 0) {
				ret = CLI_MORE;
				goto out;
			}
		}
	}
out:
	free(sum);
	return ret;
}

static int sp_show(struct cli_ctx *ctx)
{
	struct sp_opts o;

	if (sp_parse_args(ctx->args + 2, ctx->nargs - 2, &o) < 0)
		return cli_printf(ctx,
				  "Expects either 'all', 'status', 'tasks', 'memory', 'byaddr', "
				  "'bytime', 'aggr', 'bygroup', 'pct' or a max number of output "
				  "lines.\n") < 0
			       ? CLI_MORE
			       : CLI_DONE;
	if (ctx->st == 0) {
		if (o.flags & SP_STATUS &&
		    cli_printf(ctx,
			       "Per-task CPU profiling              : %-8s      "
			       "# set profiling tasks {on|auto|off}\n"
			       "Memory usage profiling              : %-8s      "
			       "# set profiling memory {on|off}\n",
			       sp_mode_name(prof_mode_get()), "off") < 0)
			return CLI_MORE;
		ctx->st = 1;
	}
	if (!(o.flags & SP_TASKS))
		return CLI_DONE;
	return sp_tables(ctx, &o);
}

static int sp_set(struct cli_ctx *ctx)
{
	const char *what = ctx->nargs > 2 ? ctx->args[2] : "";
	const char *val = ctx->nargs > 3 ? ctx->args[3] : "";
	int msg;

	if (!strcmp(what, "memory"))
		msg = cli_printf(ctx, "Memory profiling not compiled in.\n");
	else if (strcmp(what, "tasks") != 0)
		msg = cli_printf(ctx, "Expects either 'tasks' or 'memory'.\n");
	else if (!strcmp(val, "on"))
		return prof_mode_set(PROF_ON), CLI_DONE;
	else if (!strcmp(val, "auto"))
		return prof_mode_set(PROF_AUTO_ON), CLI_DONE;
	else if (!strcmp(val, "off"))
		return prof_mode_set(PROF_OFF), CLI_DONE;
	else
		msg = cli_printf(ctx, "Expects 'on', 'auto', or 'off'.\n");
	return msg < 0 ? CLI_MORE : CLI_DONE;
}

/* "show tasks": each thread copies what its run list and due timers hold. */
#define ST_MAX 64	/* distinct functions kept per thread */
#define ST_WAIT_MS 1000 /* a thread that has not answered by then is left out */

struct st_entry {
	void (*fn)(void);
	uint32_t n;
	uint64_t lat;
};

/* Written by thread <t> when it runs its item, read by the CLI thread once <done> holds
 * the generation it asked for (release/acquire). The CLI thread starts a generation only
 * when the previous one is complete, so a table is never written while it is read. */
static struct st_snap {
	struct inbox_item it;
	int pending;   /* pushed and not run yet (atomic) */
	uint32_t done; /* generation of <e> (atomic) */
	int nb;
	struct st_entry e[ST_MAX];
} ALIGNED_CL st_snaps[MAX_THREADS];
static uint32_t st_gen; /* written by the CLI thread, read by the items */

static void st_note(struct st_snap *s, void (*fn)(void), uint64_t lat)
{
	int i;

	for (i = 0; i < s->nb && s->e[i].fn != fn; i++)
		;
	if (i == s->nb) {
		if (s->nb == ST_MAX)
			i = ST_MAX - 1; /* the last row takes the rest */
		else
			s->e[s->nb++] = (struct st_entry){ fn, 0, 0 };
	}
	s->e[i].n++;
	s->e[i].lat += lat;
}

/* Runs on the thread the snapshot belongs to. */
static void st_take(struct st_snap *s)
{
	struct thread_ctx *tc = th_ctx;
	uint64_t now = prof_now_ns();
	struct list *l;

	s->nb = 0;
	for (l = tc->tasklets.next; l != &tc->tasklets; l = l->next) {
		struct tasklet *tl = list_elem(l, struct tasklet, list);

		st_note(s, (void (*)(void))tl->process,
			tl->wake_date && now > tl->wake_date ? now - tl->wake_date : 0);
	}
	for (uint32_t i = 0; i < tc->heap_len; i++) {
		struct timer *t = tc->heap[i];

		if (t->expire && t->expire <= tc->now_ms) /* due, not run yet */
			st_note(s, (void (*)(void))t->cb,
				now > t->expire * 1000000 ? now - t->expire * 1000000 : 0);
	}
	HA_ATOMIC_STORE(&s->pending, 0);
	HA_ATOMIC_STORE(&s->done, HA_ATOMIC_LOAD(&st_gen));
}

static void st_item(struct inbox_item *it)
{
	st_take(container_of(it, struct st_snap, it));
}

static bool st_all_done(uint32_t gen)
{
	for (int t = 0; t < nb_threads(); t++)
		if (HA_ATOMIC_LOAD(&ha_thread_ctx[t]) && HA_ATOMIC_LOAD(&st_snaps[t].done) != gen)
			return false;
	return true;
}

/* The threads' snapshots of one generation summed, by count (CLI thread only: every CLI
 * session runs there, so sessions share it without locking). */
static struct st_entry st_sum[ST_MAX * 2];
static int st_sum_nb;
static uint64_t st_sum_total;

/* Sums the snapshots of generation <gen>; called in the same handler call that found
 * them complete, so no thread is writing them. */
static void st_merge(uint32_t gen)
{
	st_sum_nb = 0;
	st_sum_total = 0;
	for (int t = 0; t < nb_threads(); t++) {
		const struct st_snap *s = &st_snaps[t];

		if (HA_ATOMIC_LOAD(&s->done) != gen)
			continue;
		for (int i = 0; i < s->nb; i++) {
			int j;

			for (j = 0; j < st_sum_nb && st_sum[j].fn != s->e[i].fn; j++)
				;
			if (j == st_sum_nb) {
				if (st_sum_nb == ST_MAX * 2)
					j = st_sum_nb - 1;
				else
					st_sum[st_sum_nb++] = (struct st_entry){ s->e[i].fn, 0, 0 };
			}
			st_sum[j].n += s->e[i].n;
			st_sum[j].lat += s->e[i].lat;
			st_sum_total += s->e[i].n;
		}
	}
	for (int i = 1; i < st_sum_nb; i++) /* by count, descending (a few entries) */
		for (int j = i; j > 0 && st_sum[j].n > st_sum[j - 1].n; j--) {
			struct st_entry x = st_sum[j];

			st_sum[j] = st_sum[j - 1];
			st_sum[j - 1] = x;
		}
}

/* Prints st_sum from row n[1] on (st 2: header first). */
static int st_print(struct cli_ctx *ctx)
{
	char name[PROF_NAME_MAX], lt[TIME_FMT_LEN + 1], la[TIME_FMT_LEN + 1];

	if (ctx->st == 2) {
		if (cli_printf(
			    ctx,
			    "Running tasks: %d (%d threads)\n"
			    "  function                     places     %%    lat_tot   lat_avg\n",
			    (int)st_sum_total, nb_threads()) < 0)
			return CLI_MORE;
		ctx->st = 3;
		ctx->n[1] = 0;
	}
	for (; ctx->n[1] < (uint64_t)st_sum_nb; ctx->n[1]++) {
		const struct st_entry *e = &st_sum[ctx->n[1]];
		int w;

		prof_fn_name(e->fn, name, sizeof(name));
		w = 35 - (int)strlen(name);
		if (cli_printf(ctx, "  %s%*llu  %3d.%1d   %s   %s\n", name, w < 1 ? 1 : w,
			       (unsigned long long)e->n, (int)(100 * e->n / st_sum_total),
			       (int)(1000 * e->n / st_sum_total % 10), time_fmt_short(lt, e->lat),
			       time_fmt_short(la, e->lat / e->n)) < 0)
			return CLI_MORE;
	}
	return CLI_DONE;
}

/* State: st 0 asks the threads, st 1 waits for them (n[0]: generation, n[1]: start), st
 * 2 and 3 print. */
static int st_show(struct cli_ctx *ctx)
{
	if (ctx->st == 0) {
		bool busy = !st_all_done(st_gen);

		if (!busy) { /* else join the generation in progress */
			HA_ATOMIC_STORE(&st_gen, st_gen + 1);
			for (int t = 0; t < nb_threads(); t++) {
				if (!HA_ATOMIC_LOAD(&ha_thread_ctx[t]))
					continue;
				if ((unsigned int)t == tid)
					st_take(&st_snaps[t]);
				else if (!HA_ATOMIC_XCHG(&st_snaps[t].pending, 1)) {
					st_snaps[t].it.fn = st_item;
					inbox_push(t, &st_snaps[t].it);
				}
			}
		}
		ctx->n[0] = st_gen;
		ctx->n[1] = now_ms();
		ctx->st = 1;
	}
	if (ctx->st == 1) {
		if (!st_all_done((uint32_t)ctx->n[0]) && now_ms() - ctx->n[1] < ST_WAIT_MS)
			return CLI_YIELD;
		st_merge((uint32_t)ctx->n[0]);
		ctx->st = 2;
	}
	return st_print(ctx);
}

static const struct cli_kw sp_kws[] = {
	{ { "show", "profiling" },
	  "show profiling [<what>|<#lines>|byaddr]*",
	  "show profiling state (all,status,tasks,memory)",
	  CLI_LVL_ADMIN,
	  sp_show },
	{ { "set", "profiling" },
	  "set profiling <what> {auto|on|off}",
	  "enable/disable resource profiling (tasks,memory)",
	  CLI_LVL_ADMIN,
	  sp_set },
	{ { "show", "tasks" }, "show tasks", "show running tasks", CLI_LVL_USER, st_show },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(sp_kws)

/* names in "show profiling" (event/profiling.h) */
PROF_NAME(st_item, "show_tasks_snapshot")
