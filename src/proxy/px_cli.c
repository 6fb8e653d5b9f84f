/* Runtime API commands on frontends: "disable|enable frontend" (its sockets stop and start
 * listening again, as SIGTTOU/SIGTTIN do for all), "shutdown frontend" (for good) and
 * "set maxconn frontend", with HAProxy 2.6's answers and notices. Thread 0 (the CLI's).
 */
#include <stdlib.h>
#include <string.h>

#include <base/atomic.h>
#include <base/ev_report.h>
#include <proc/global-t.h>
#include <base/list.h>
#include <cli/cli.h>
#include <conn/listener.h>
#include <log/log-t.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <stats/counters.h>

/* Writes <msg> as the whole answer. */
static int px_cli_msg(struct cli_ctx *ctx, const char *msg)
{
	return cli_write(ctx, msg, strlen(msg)) < 0 ? CLI_MORE : CLI_DONE;
}

/* The frontend named by args[2], or NULL after answering 2.6's error (*ret). */
static struct proxy *px_cli_frontend(struct cli_ctx *ctx, int *ret)
{
	struct proxy *px;

	if (ctx->nargs < 3 || !*ctx->args[2]) {
		*ret = px_cli_msg(ctx, "A frontend name is expected.\n");
		return NULL;
	}
	px = proxy_find(ctx->args[2], PR_CAP_FE);
	if (!px)
		*ret = px_cli_msg(ctx, "No such frontend.\n");
	return px;
}

/* The backlog <li> listens with again (as at start: bind, frontend, maxconn, global). */
static int px_cli_backlog(const struct proxy *px, const struct bind_conf *bc)
{
	int mc = HA_ATOMIC_LOAD_RLX(&px->maxconn);

	return bc->backlog ? bc->backlog : px->backlog ? px->backlog : mc ? mc : global.maxconn;
}

/* Stops (<on>) or restarts the listening of every socket of <px>. A thread whose accept
 * fails on a socket that stopped listening pauses its registration and retries (listener.c). */
static void px_cli_pause(struct proxy *px, bool on)
{
	struct bind_conf *bc;
	struct listener *li;

	list_for_each_entry(bc, &px->binds, list) list_for_each_entry(li, &bc->listeners, list)
	{
		if (on)
			listener_pause_sock(li);
		else
			listener_resume_sock(li, px_cli_backlog(px, bc));
	}
}

/* disable|enable frontend <frontend> */
static int px_cli_endis(struct cli_ctx *ctx)
{
	bool dis = ctx->args[0][0] == 'd';
	struct proxy *px;
	int ret, st;

	px = px_cli_frontend(ctx, &ret);
	if (!px)
		return ret;
	st = HA_ATOMIC_LOAD_RLX(&px->adm_state);
	if (st & PX_ADM_STOPPED)
		return px_cli_msg(ctx, dis ? "Frontend was previously shut down, cannot disable.\n"
					   : "Frontend was previously shut down, cannot enable.\n");
	if (!!(st & PX_ADM_PAUSED) == dis)
		return px_cli_msg(ctx, dis ? "All sockets are already disabled.\n"
					   : "All sockets are already enabled.\n");
	px_cli_pause(px, dis);
	HA_ATOMIC_STORE_RLX(&px->adm_state, dis ? st | PX_ADM_PAUSED : st & ~PX_ADM_PAUSED);
	ev_report(px, LOG_LVL_WARNING, EV_OUT_WARNING, "%s %s %s.", dis ? "Paused" : "Resumed",
		  proxy_type_str(px), px->id);
	return CLI_DONE;
}

/* shutdown frontend <frontend> */
static int px_cli_shutdown(struct cli_ctx *ctx)
{
	unsigned long long fe = 0, be = 0;
	struct proxy *px;
	int ret, st;

	px = px_cli_frontend(ctx, &ret);
	if (!px)
		return ret;
	st = HA_ATOMIC_LOAD_RLX(&px->adm_state);
	if (st & PX_ADM_STOPPED)
		return CLI_DONE;
	if (!(st & PX_ADM_PAUSED))
		px_cli_pause(px, true);
	HA_ATOMIC_STORE_RLX(&px->adm_state, st | PX_ADM_STOPPED);
	if (px->fe_cnt) {
		struct fe_counters c;

		fe_counters_sum(px->fe_cnt, &c);
		fe = c.cum_conn;
	}
	if (px->be_cnt) {
		struct be_counters c;

		be_counters_sum(px->be_cnt, &c);
		be = c.cum_sess;
	}
	ev_report(px, LOG_LVL_WARNING, EV_OUT_WARNING,
		  "Proxy %s stopped (cumulated conns: FE: %llu, BE: %llu).", px->id, fe, be);
	return CLI_DONE;
}

/* set maxconn frontend <frontend> <value> */
static int px_cli_set_maxconn(struct cli_ctx *ctx)
{
	struct proxy *px;
	int ret, v;

	ctx->args += 1; /* args[2] is the frontend, as for the others */
	ctx->nargs -= 1;
	px = px_cli_frontend(ctx, &ret);
	ctx->args -= 1;
	ctx->nargs += 1;
	if (!px)
		return ret;
	if (ctx->nargs < 5 || !*ctx->args[4])
		return px_cli_msg(ctx, "Integer value expected.\n");
	v = atoi(ctx->args[4]); /* 2.6: "abc" is 0 */
	if (v < 0)
		return px_cli_msg(ctx, "Value out of range.\n");
	HA_ATOMIC_STORE_RLX(&px->maxconn, v); /* read by listener_full() on every thread */
	return CLI_DONE;
}

static const struct cli_kw px_cli_kws[] = {
	{ { "disable", "frontend", NULL },
	  "disable frontend <frontend>",
	  "temporarily disable specific frontend",
	  CLI_LVL_ADMIN,
	  px_cli_endis },
	{ { "enable", "frontend", NULL },
	  "enable frontend <frontend>",
	  "re-enable specific frontend",
	  CLI_LVL_ADMIN,
	  px_cli_endis },
	{ { "shutdown", "frontend", NULL },
	  "shutdown frontend <frontend>",
	  "stop a specific frontend",
	  CLI_LVL_ADMIN,
	  px_cli_shutdown },
	{ { "set", "maxconn", "frontend", NULL },
	  "set maxconn frontend <frontend> <value>",
	  "change a frontend's maxconn setting",
	  CLI_LVL_ADMIN,
	  px_cli_set_maxconn },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(px_cli_kws)
