/* Dynamic servers: "add server B/S ADDR [options]" and "del server B/S" with HAProxy 2.6's
 * answers. A new server is built as a "server" line is (no default-server), gets its
 * run-time state (counters per thread group, per-thread idle lists), starts in maintenance
 * and is published at the end of the backend's list with a release store; the LB tables
 * are rebuilt through lb_update. A deleted server is unlinked the same way, each thread
 * closes its idle connections to it, and its memory is kept until exit (a stream or a log
 * line may still name it). Thread 0 (the CLI's); not with leastconn and random yet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backend/lb_update.h>
#include <backend/server.h>
#include <backend/srv_limits.h>
#include <base/atomic.h>
#include <base/tinfo.h>
#include <cfg/cfg.h>
#include <cli/cli.h>
#include <event/inbox.h>
#include <mux/h1.h>
#include <proc/global-t.h>
#include <proxy/proxy.h>
#include <stats/counters.h>

/* Deleted servers, kept until exit (thread 0 only). */
struct srv_dyn_gone {
	struct srv_dyn_gone *next;
	struct server *s;
};

static struct srv_dyn_gone *srv_dyn_deleted;

/* Idle-connection purges posted to the threads and not run yet (atomic). */
static int srv_dyn_pending;

struct srv_purge {
	struct inbox_item it;
	struct server *s;
};

static int srv_dyn_msg(struct cli_ctx *ctx, const char *msg)
{
	return cli_write(ctx, msg, strlen(msg)) < 0 ? CLI_MORE : CLI_DONE;
}

/* Splits "backend/server" args[2] into <be> and a pointer to the server name. NULL when
 * either part is missing (2.6: "Require 'backend/server'."). */
static const char *srv_dyn_split(struct cli_ctx *ctx, char *be, size_t size)
{
	const char *arg = ctx->nargs > 2 ? ctx->args[2] : "";
	const char *slash = strchr(arg, '/');

	if (!slash || slash == arg || !slash[1] || (size_t)(slash - arg) >= size)
		return NULL;
	memcpy(be, arg, (size_t)(slash - arg));
	be[slash - arg] = '\0';
	return slash + 1;
}

static struct server *srv_dyn_find(struct proxy *px, const char *name)
{
	struct server *s;

	for (s = px->srv; s && strcmp(s->id, name); s = s->next)
		;
	return s;
}

/* The lowest id no server of <px> has. */
static int srv_dyn_free_id(const struct proxy *px)
{
	for (int id = 1;; id++) {
		const struct server *o;

		for (o = px->srv; o && o->puid != id; o = o->next)
			;
		if (!o)
			return id;
	}
}

/* What 2.6 refuses on a dynamic server, or what this one cannot run there yet: NULL when
 * <s> is acceptable, else the answer, written into <buf>. */
static const char *srv_dyn_refused(const struct server *s, char *buf, size_t size)
{
	const char *refused = s->cookie ? "cookie" : s->redir ? "redir" : NULL;
	const char *later = (s->flags & SRV_F_CHECK)	 ? "check"
			    : s->agent_enabled		 ? "agent-check"
			    : s->track_name		 ? "track"
			    : (s->flags & SRV_F_RESOLVE) ? "resolvers"
							 : NULL;

	if (refused)
		snprintf(buf, size, "'%s' option is not accepted for dynamic server\n", refused);
	else if (later)
		snprintf(buf, size, "'%s' is not supported yet on a dynamic server.\n", later);
	return refused || later ? buf : NULL;
}

/* The run-time state a server gets at start-up (backend_init, counters_alloc,
 * srv_limits_prepare), and 2.6's initial maintenance. 0 or -1 (memory). */
static int srv_dyn_prepare(struct proxy *px, struct server *s)
{
	bool disabled = s->flags & SRV_F_DISABLED;

	s->flags &= ~SRV_F_DISABLED;
	srv_init_weights(s);
	srv_limits_prepare_srv(px, s);
	s->admin = SRV_ADM_FMAINT | (disabled ? SRV_ADM_CMAINT : 0);
	s->run_state = SRV_RS_DOWN;
	s->cnt = counters_blocks_new(sizeof(struct be_counters));
	s->per_thr = aligned_alloc(CACHELINE, sizeof(*s->per_thr) * MAX_THREADS);
	if (!s->cnt || !s->per_thr)
		return -1;
	memset(s->per_thr, 0, sizeof(*s->per_thr) * MAX_THREADS);
	h1_back_init_server(s);
	return 0;
}

/* Frees a server that was never published, or one deleted (at exit). */
static void srv_dyn_free(struct server *s)
{
	free(s->cnt);
	free(s->per_thr);
	srv_cfg_free(s);
}

static void __attribute__((destructor)) srv_dyn_exit(void)
{
	while (srv_dyn_deleted) {
		struct srv_dyn_gone *g = srv_dyn_deleted;

		srv_dyn_deleted = g->next;
		srv_dyn_free(g->s);
		free(g);
	}
}

/* Builds the server of args[3..] named <name> for <px>. NULL after writing the answer
 * into <err> (2.6's words when it has them). */
static struct server *srv_dyn_build(struct cli_ctx *ctx, struct proxy *px, const char *name,
				    char *err, size_t size)
{
	char *args[CLI_MAX_ARGS + 1];
	struct cfg_ctx cctx = { .file = NULL, .line = 0, .px = px };
	struct server *s;
	const char *why;
	int n = 0;

	args[n++] = "server";
	args[n++] = (char *)name;
	for (int i = 3; i < ctx->nargs && n < CLI_MAX_ARGS; i++)
		args[n++] = ctx->args[i];
	args[n] = NULL;
	cctx.args = args;
	cctx.nargs = n;
	err[0] = '\0';
	cfg_capture_buf = err; /* the parsers' alerts become the answer */
	cfg_capture_size = size;
	s = srv_build_dynamic(&cctx);
	cfg_capture_buf = NULL;
	if (!s) {
		size_t l = strlen(err);
		/* "'server be/s' : msg" on stderr, "msg" in the answer */
		const char *p = !strncmp(err, "'server ", 8) ? strstr(err, "' : ") : NULL;

		if (p)
			memmove(err, p + 4, l - (size_t)(p + 4 - err) + 1);
		l = strlen(err);
		if (l + 1 < size && (!l || err[l - 1] != '\n'))
			memcpy(err + l, "\n", 2);
		return NULL;
	}
	why = srv_dyn_refused(s, err, size);
	if (why) {
		srv_cfg_free(s);
		return NULL;
	}
	return s;
}

/* add server <b>/<s> <addr> [options] */
static int srv_dyn_add(struct cli_ctx *ctx)
{
	char be[256], err[512];
	struct server *s, **tail;
	const struct server *o;
	const char *name;
	struct proxy *px;

	name = srv_dyn_split(ctx, be, sizeof(be));
	if (!name)
		return srv_dyn_msg(ctx, "Require 'backend/server'.");
	px = proxy_find(be, PR_CAP_BE);
	if (!px)
		return srv_dyn_msg(ctx, "No such backend.");
	if (px->lb && px->lb->static_weights)
		return srv_dyn_msg(ctx, "Backend must use a dynamic load balancing to support "
					"dynamic servers.");
	if (px->lbalgo == LB_ALGO_LEASTCONN || px->lbalgo == LB_ALGO_RANDOM)
		return srv_dyn_msg(ctx, "Dynamic servers are not supported yet with 'balance "
					"leastconn' and 'balance random'.\n");
	if (srv_dyn_find(px, name))
		return srv_dyn_msg(ctx, "Already exists a server with the same name in backend.\n");
	if (ctx->nargs < 4 || !*ctx->args[3])
		return srv_dyn_msg(ctx,
				   "'server' expects <name> and <addr>[:<port>] as arguments.\n");
	s = srv_dyn_build(ctx, px, name, err, sizeof(err));
	if (!s) {
		ha_alert("CLI : 'server %s/%s' : %.*s\n", px->id, name, (int)strcspn(err, "\n"),
			 err);
		return srv_dyn_msg(ctx, err);
	}
	if (s->flags & SRV_F_FIXED_ID) {
		for (o = px->srv; o && o->puid != s->puid; o = o->next)
			;
		if (o) {
			snprintf(err, sizeof(err),
				 "'id' : custom id %d already used at %s:%d ('server %s').\n",
				 s->puid, o->file ? o->file : "(null)", o->line, o->id);
			srv_cfg_free(s);
			return srv_dyn_msg(ctx, err);
		}
	} else {
		s->puid = srv_dyn_free_id(px);
	}
	if (srv_dyn_prepare(px, s) < 0) {
		srv_dyn_free(s);
		return srv_dyn_msg(ctx, "Out of memory.\n");
	}
	/* published fully built: readers walking px->srv on other threads see it or not */
	for (tail = &px->srv; *tail; tail = &(*tail)->next)
		;
	HA_ATOMIC_STORE(tail, s);
	px->srv_count++;
	lb_update(px);
	ha_notice("CLI : 'server %s/%s' : New server registered.\n", px->id, s->id);
	return srv_dyn_msg(ctx, "New server registered.\n");
}

static void srv_dyn_purge_run(struct inbox_item *it)
{
	struct srv_purge *p = (struct srv_purge *)it;

	h1_back_close_idle(p->s); /* this thread's idle connections to it */
	free(p);
	HA_ATOMIC_DEC(&srv_dyn_pending);
}

/* Each thread closes its idle connections to <s>. */
static void srv_dyn_purge_all(struct server *s)
{
	int n = global.nbthread > 0 ? global.nbthread : 1;

	for (int t = 0; t < n; t++) {
		struct srv_purge *p = calloc(1, sizeof(*p));

		if (!p)
			continue; /* its idle connections expire (pool-purge-delay) */
		p->it.fn = srv_dyn_purge_run;
		p->s = s;
		HA_ATOMIC_INC(&srv_dyn_pending);
		if (t == (int)tid)
			srv_dyn_purge_run(&p->it);
		else
			inbox_push(t, &p->it);
	}
}

/* del server <b>/<s> */
static int srv_dyn_del(struct cli_ctx *ctx)
{
	struct server *s, **prev;
	struct srv_dyn_gone *g;
	const char *name;
	struct proxy *px;
	char be[256];

	if (ctx->st) /* waiting for the purges */
		return HA_ATOMIC_LOAD(&srv_dyn_pending) ? CLI_YIELD
							: srv_dyn_msg(ctx, "Server deleted.");
	name = srv_dyn_split(ctx, be, sizeof(be));
	if (!name)
		return srv_dyn_msg(ctx, "Require 'backend/server'.");
	px = proxy_find(be, PR_CAP_BE);
	if (!px)
		return srv_dyn_msg(ctx, "No such backend.");
	for (prev = &px->srv; *prev && strcmp((*prev)->id, name); prev = &(*prev)->next)
		;
	s = *prev;
	if (!s)
		return srv_dyn_msg(ctx, "No such server.");
	if (!srv_in_maint(s))
		return srv_dyn_msg(ctx, "Only servers in maintenance mode can be deleted.");
	if (s->flags & SRV_F_NON_PURGEABLE)
		return srv_dyn_msg(ctx, "This server cannot be removed at runtime due to other "
					"configuration elements pointing to it.");
	if (s->trackers || s->track)
		return srv_dyn_msg(ctx, "Deleting a server that tracks or is tracked by another "
					"one is not supported yet.\n");
	if (s->check || s->agent)
		return srv_dyn_msg(ctx, "Deleting a server with health or agent checks is not "
					"supported yet.\n");
	if (HA_ATOMIC_LOAD(&s->cur_conns) || HA_ATOMIC_LOAD(&s->queued))
		return srv_dyn_msg(ctx, "Server still has connections attached to it, cannot "
					"remove it.");
	g = calloc(1, sizeof(*g));
	if (!g)
		return srv_dyn_msg(ctx, "Out of memory.\n");
	/* unlinked: a thread walking the list through <s> goes on to s->next */
	HA_ATOMIC_STORE(prev, s->next);
	px->srv_count--;
	lb_update(px);
	g->s = s;
	g->next = srv_dyn_deleted;
	srv_dyn_deleted = g;
	ha_notice("CLI : Server deleted.\n");
	srv_dyn_purge_all(s);
	ctx->st = 1;
	return CLI_YIELD;
}

static const struct cli_kw srv_dyn_kws[] = {
	{ { "add", "server", NULL },
	  "add server <bk>/<srv>",
	  "create a new server",
	  CLI_LVL_ADMIN,
	  srv_dyn_add },
	{ { "del", "server", NULL },
	  "del server <bk>/<srv>",
	  "remove a dynamically added server",
	  CLI_LVL_ADMIN,
	  srv_dyn_del },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(srv_dyn_kws)
