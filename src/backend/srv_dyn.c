/* Dynamic servers: "add server B/S ADDR [options]" and "del server B/S" with HAProxy 2.6's
 * answers. A new server is built as a "server" line is (no default-server), gets its
 * run-time state (counters per thread group, per-thread idle lists), starts in maintenance
 * and is published at the end of the backend's list with a release store; the LB tables
 * are rebuilt through lb_update. A deleted server is unlinked the same way, each thread
 * closes its idle connections to it, and its memory is kept until exit (a stream or a log
 * line may still name it). Checks and agents start stopped, as 2.6 ("enable health"),
 * and "del server" waits until their threads stopped them. leastconn and random get new
 * key tables (lb_load.c), whose keys are rewritten once a grace period has passed. Thread
 * 0 (the CLI's).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backend/lb_load.h>
#include <backend/lb_update.h>
#include <backend/server.h>
#include <backend/srv_limits.h>
#include <base/atomic.h>
#include <base/tinfo.h>
#include <cfg/cfg.h>
#include <check/check_dyn.h>
#include <cli/cli.h>
#include <event/qsbr.h>
#include <event/inbox.h>
#include <mux/h1.h>
#include <proc/global-t.h>
#include <proxy/proxy.h>
#include <ssl/ssl.h>
#include <stats/counters.h>

/* Deleted servers, kept until exit (thread 0 only). */
struct srv_dyn_gone {
	struct srv_dyn_gone *next;
	struct server *s;
};

static struct srv_dyn_gone *srv_dyn_deleted;

/* Taken after the last key table of leastconn/random was replaced: once passed, no thread
 * writes into an old table any more and the keys are rewritten (thread 0). A later
 * snapshot covers an earlier one, so one is enough for every session waiting. */
static struct qs_snap srv_dyn_snap;

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
	const char *later = s->track_name		 ? "track"
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
	if (px->lb_load) /* its key comes with the rebuild after it is published */
		lb_load_prepare_srv(s);
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
	chk_dyn_free(s);
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

/* A captured alert <err> made an answer: "'server be/s' : msg" on stderr, "msg\n" here. */
static void srv_dyn_answer(char *err, size_t size)
{
	size_t l = strlen(err);
	const char *p = !strncmp(err, "'server ", 8) ? strstr(err, "' : ") : NULL;

	if (p)
		memmove(err, p + 4, l - (size_t)(p + 4 - err) + 1);
	l = strlen(err);
	if (l + 1 < size && (!l || err[l - 1] != '\n'))
		memcpy(err + l, "\n", 2);
}

/* The checks of <s> (check_dyn.c), their alerts captured into <err>: 0 or -1. */
static int srv_dyn_checks(struct proxy *px, struct server *s, char *err, size_t size)
{
	int rc;

	if (!(s->flags & SRV_F_CHECK) && !s->agent_enabled)
		return 0;
	err[0] = '\0';
	cfg_capture_buf = err;
	cfg_capture_size = size;
	rc = chk_dyn_prepare(px, s);
	cfg_capture_buf = NULL;
	if (rc < 0 && !err[0])
		snprintf(err, size, "Out of memory.");
	if (rc < 0)
		srv_dyn_answer(err, size);
	return rc;
}

/* Publishes <s> at the end of <px>'s list, with its keys and its checks armed; on failure
 * (memory) unpublishes it into <g> (a reader may hold it: kept until exit). 0 or -1. */
static int srv_dyn_publish(struct proxy *px, struct server *s, struct srv_dyn_gone *g)
{
	struct server **tail;

	/* published fully built: readers walking px->srv on other threads see it or not */
	for (tail = &px->srv; *tail; tail = &(*tail)->next)
		;
	HA_ATOMIC_STORE(tail, s);
	px->srv_count++;
	lb_update(px);
	if ((!px->lb_load || lb_load_rebuild(px) == 0) && chk_dyn_start(s) == 0)
		return 0;
	HA_ATOMIC_STORE(tail, NULL);
	px->srv_count--;
	lb_update(px);
	if (px->lb_load && lb_load_rebuild(px) == 0)
		lb_load_forget(s);
	g->s = s;
	g->next = srv_dyn_deleted;
	srv_dyn_deleted = g;
	return -1;
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
		srv_dyn_answer(err, size);
		return NULL;
	}
	why = srv_dyn_refused(s, err, size);
	if (why) {
		srv_cfg_free(s);
		return NULL;
	}
	if (s->ssl) { /* its TLS context (ssl/ssl_srv_cfg.c), its alert as the answer */
		cfg_capture_buf = err;
		cfg_capture_size = size;
		n = ssl_srv_check(s);
		cfg_capture_buf = NULL;
		if (n) {
			srv_dyn_answer(err, size);
			srv_cfg_free(s);
			return NULL;
		}
	}
	return s;
}

/* After a key table of the backend ctx->p[0] was replaced: waits for the grace period,
 * then rewrites its keys and answers <msg>. */
static int srv_dyn_settle(struct cli_ctx *ctx, const char *msg)
{
	struct proxy *px = (struct proxy *)ctx->p[0]; /* proxies live until exit */

	if (!qs_passed(&srv_dyn_snap))
		return CLI_YIELD;
	if (px)
		lb_load_refresh(px);
	return srv_dyn_msg(ctx, msg);
}

/* add server <b>/<s> <addr> [options] */
static int srv_dyn_add(struct cli_ctx *ctx)
{
	char be[256], err[512];
	struct srv_dyn_gone *g;
	const struct server *o;
	struct server *s;
	const char *name;
	struct proxy *px;

	if (ctx->st) /* waiting for the key tables' grace period */
		return srv_dyn_settle(ctx, "New server registered.\n");
	name = srv_dyn_split(ctx, be, sizeof(be));
	if (!name)
		return srv_dyn_msg(ctx, "Require 'backend/server'.");
	px = proxy_find(be, PR_CAP_BE);
	if (!px)
		return srv_dyn_msg(ctx, "No such backend.");
	if (px->lb && px->lb->static_weights)
		return srv_dyn_msg(ctx, "Backend must use a dynamic load balancing to support "
					"dynamic servers.");
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
	g = calloc(1, sizeof(*g));
	if (!g || srv_dyn_prepare(px, s) < 0) {
		free(g);
		srv_dyn_free(s);
		return srv_dyn_msg(ctx, "Out of memory.\n");
	}
	if (srv_dyn_checks(px, s, err, sizeof(err)) < 0) {
		ha_alert("CLI : 'server %s/%s' : %.*s\n", px->id, name, (int)strcspn(err, "\n"),
			 err);
		free(g);
		srv_dyn_free(s);
		return srv_dyn_msg(ctx, err);
	}
	if (srv_dyn_publish(px, s, g) < 0)
		return srv_dyn_msg(ctx, "Out of memory.\n");
	free(g);
	ha_notice("CLI : 'server %s/%s' : New server registered.\n", px->id, s->id);
	if (!px->lb_load)
		return srv_dyn_msg(ctx, "New server registered.\n");
	qs_snapshot(&srv_dyn_snap);
	ctx->p[0] = px;
	ctx->st = 2;
	return CLI_YIELD;
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

	if (ctx->st) /* waiting for the purges, the checks' stops, the grace period */
		return HA_ATOMIC_LOAD(&srv_dyn_pending) || chk_dyn_busy()
			       ? CLI_YIELD
			       : srv_dyn_settle(ctx, "Server deleted.");
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
	if (HA_ATOMIC_LOAD(&s->cur_conns) || HA_ATOMIC_LOAD(&s->queued))
		return srv_dyn_msg(ctx, "Server still has connections attached to it, cannot "
					"remove it.");
	g = calloc(1, sizeof(*g));
	if (!g || chk_dyn_stop_all(s) < 0) {
		free(g);
		return srv_dyn_msg(ctx, "Out of memory.\n");
	}
	/* unlinked: a thread walking the list through <s> goes on to s->next */
	HA_ATOMIC_STORE(prev, s->next);
	px->srv_count--;
	lb_update(px);
	if (px->lb_load && lb_load_rebuild(px) == 0) /* else its key stays, NONE (maint) */
		lb_load_forget(s);
	qs_snapshot(&srv_dyn_snap);
	g->s = s;
	g->next = srv_dyn_deleted;
	srv_dyn_deleted = g;
	ha_notice("CLI : Server deleted.\n");
	srv_dyn_purge_all(s);
	ctx->p[0] = px->lb_load ? px : NULL;
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
