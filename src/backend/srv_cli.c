/* Runtime API commands that administer servers ("set server", "set weight", "get weight",
 * "enable|disable server|health|agent", "set maxconn server", "shutdown sessions server"),
 * with HAProxy 2.6's answers. State changes go through the same functions as the health
 * checks (srv_set_state, srv_set_maint, srv_set_drain, srv_set_weight), run on the thread
 * of the server's check, which owns its timers; the CLI waits for them (CLI_YIELD).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <backend/server.h>
#include <backend/srv_cli_parse.h>
#include <backend/lb_load.h>
#include <backend/lb_update.h>
#include <base/atomic.h>
#include <base/ev_report.h>
#include <check/check-t.h>
#include <cli/cli.h>
#include <dns/dns-t.h>
#include <dns/dns_addr.h>
#include <event/inbox.h>
#include <event/loop.h>
#include <log/log-t.h>
#include <proxy/proxy.h>

/* What a posted change does (srv_op_apply). */
enum srv_op_kind {
	SRV_OP_READY = 0, /* leave drain and maintenance */
	SRV_OP_DRAIN,	  /* drain, out of maintenance */
	SRV_OP_MAINT,	  /* maintenance, out of drain */
	SRV_OP_ENABLE,	  /* "enable server": out of maintenance */
	SRV_OP_WEIGHT,	  /* user weight <arg> */
	SRV_OP_HEALTH,	  /* "set server health": <arg> is the enum srv_run_state */
	SRV_OP_AGENT,	  /* "set server agent": <arg> 1 up, 0 down */
	SRV_OP_CHK_ON,	  /* "enable|disable health|agent": <arg> is SRV_CHK_*_OFF */
	SRV_OP_CHK_OFF,
	SRV_OP_CHECK_ADDR, /* <ss> (family 0: unchanged), then <arg> as check port if > 0 */
	SRV_OP_AGENT_ADDR, /* same for the agent */
	SRV_OP_AGENT_SEND, /* <str> becomes agent-send (owned, freed there) */
};

/* A change handed to the thread that owns the server's checks; freed there. */
struct srv_op {
	struct inbox_item it;
	struct server *s;
	int kind;
	int arg;
	struct sockaddr_storage ss;
	char *str;
};

/* Changes posted and not applied yet, all CLI sessions (atomic): a session that posted one
 * answers once this is back to 0. */
static int srv_ops_pending;

int (*srv_agent_tid_hook)(const struct server *s);
void (*srv_addr_changed_hook)(struct server *s);
void (*srv_agent_force_hook)(struct server *s, bool up, uint64_t now);

/* The thread of the agent of <s>, or -1 without one. */
static int srv_agent_tid(const struct server *s)
{
	return s->agent && srv_agent_tid_hook ? srv_agent_tid_hook(s) : -1;
}

/* The thread that owns what <op> changes: the agent's for the agent's settings, the check's
 * for the rest (thread 0 without one). */
static int srv_owner_tid(const struct srv_op *op)
{
	const struct server *s = op->s;
	bool agent = op->kind == SRV_OP_AGENT || op->kind == SRV_OP_AGENT_ADDR ||
		     op->kind == SRV_OP_AGENT_SEND ||
		     ((op->kind == SRV_OP_CHK_ON || op->kind == SRV_OP_CHK_OFF) &&
		      op->arg == SRV_CHK_AGENT_OFF);
	int t = agent ? srv_agent_tid(s) : -1;

	return t >= 0 ? t : s->check ? s->check->tid : 0;
}

/* Leaving maintenance: the check starts again from "just UP" (2.6: "UP 1/3") and the
 * server comes UP unless what it tracks is down. The check's thread. */
static bool srv_leave_maint_up(struct server *s)
{
	if (s->check)
		HA_ATOMIC_STORE_RLX(&s->check->health, s->rise);
	return !s->track || srv_is_up(s->track);
}

/* Stops (<off>) or restarts the checks <which> (SRV_CHK_*_OFF) of <s>. Its state stays
 * what it was (2.6: a DOWN server stays DOWN, an UP one shows "no check"). */
static void srv_op_checks(struct server *s, int which, bool off)
{
	int adm = HA_ATOMIC_LOAD_RLX(&s->chk_adm);

	HA_ATOMIC_STORE_RLX(&s->chk_adm, off ? adm | which : adm & ~which);
	if (!off && which == SRV_CHK_HEALTH_OFF && s->check) /* from where the state stands */
		HA_ATOMIC_STORE_RLX(&s->check->health, srv_is_up(s) ? s->rise : 0);
}

/* Sets the port of <ss> (AF_INET or AF_INET6) to <port>. */
static void srv_ss_set_port(struct sockaddr_storage *ss, int port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
}

/* Applies the settings of a check or agent address change. */
static void srv_op_chk_addr(struct srv_op *op)
{
	struct server *s = op->s;
	bool agent = op->kind == SRV_OP_AGENT_ADDR;

	if (op->ss.ss_family)
		*(agent ? &s->agent_addr : &s->check_addr) = op->ss;
	if (op->arg > 0)
		*(agent ? &s->agent_port : &s->check_port) = op->arg;
}

/* Applies one change. The owner thread of what it changes (srv_owner_tid). */
static void srv_op_apply(struct srv_op *op)
{
	struct server *s = op->s;
	uint64_t now = now_ms();

	switch (op->kind) {
	case SRV_OP_READY:
		srv_set_maint(s, false, srv_in_maint(s) && srv_leave_maint_up(s), now);
		srv_set_drain(s, false, now);
		break;
	case SRV_OP_DRAIN:
		srv_set_drain(s, true, now);
		srv_set_maint(s, false, srv_in_maint(s) && srv_leave_maint_up(s), now);
		break;
	case SRV_OP_MAINT:
		srv_set_maint(s, true, false, now);
		srv_set_drain(s, false, now);
		break;
	case SRV_OP_ENABLE:
		srv_set_maint(s, false, srv_in_maint(s) && srv_leave_maint_up(s), now);
		break;
	case SRV_OP_WEIGHT:
		if (HA_ATOMIC_LOAD_RLX(&s->admin) & SRV_ADM_FDRAIN)
			ev_report(s->px, LOG_LVL_NOTICE, EV_OUT_WARNING,
				  "Server %s/%s remains in forced drain mode.", s->px->id, s->id);
		srv_set_weight(s, op->arg, now); /* validated by the caller */
		break;
	case SRV_OP_HEALTH:
		if (s->check) /* the checks go on from there (rise/fall) */
			HA_ATOMIC_STORE_RLX(&s->check->health,
					    op->arg == SRV_RS_DOWN ? 0 : s->rise + s->fall - 1);
		srv_set_state(s, (enum srv_run_state)op->arg, "changed from CLI", now);
		break;
	case SRV_OP_AGENT:
		if (srv_agent_force_hook)
			srv_agent_force_hook(s, op->arg, now);
		break;
	case SRV_OP_CHK_ON:
	case SRV_OP_CHK_OFF:
		srv_op_checks(s, op->arg, op->kind == SRV_OP_CHK_OFF);
		break;
	case SRV_OP_CHECK_ADDR:
	case SRV_OP_AGENT_ADDR:
		srv_op_chk_addr(op);
		break;
	case SRV_OP_AGENT_SEND:
		free(s->agent_send); /* only read by the agent, on this thread */
		s->agent_send = op->str;
		op->str = NULL;
		break;
	}
}

static void srv_op_run(struct inbox_item *it)
{
	struct srv_op *op = (struct srv_op *)it;

	srv_op_apply(op);
	free(op->str);
	free(op);
	HA_ATOMIC_DEC(&srv_ops_pending);
}

/* A new change of <kind> on <s>, or NULL (out of memory). */
static struct srv_op *srv_op_new(struct server *s, int kind, int arg)
{
	struct srv_op *op = calloc(1, sizeof(*op));

	if (!op)
		return NULL;
	op->it.fn = srv_op_run;
	op->s = s;
	op->kind = kind;
	op->arg = arg;
	return op;
}

/* Runs <op> (NULL: out of memory) on the owner thread of what it changes: now when it is
 * this one, else through its inbox, and the command yields until it is applied
 * (srv_cli_wait). */
static int srv_cli_run(struct cli_ctx *ctx, struct srv_op *op)
{
	int owner;

	if (!op)
		return cli_printf(ctx, "Out of memory.\n") < 0 ? CLI_MORE : CLI_DONE;
	owner = srv_owner_tid(op);
	if (owner == (int)tid) {
		HA_ATOMIC_INC(&srv_ops_pending);
		srv_op_run(&op->it);
		return CLI_DONE;
	}
	HA_ATOMIC_INC(&srv_ops_pending);
	inbox_push(owner, &op->it);
	ctx->st = 1;
	return CLI_YIELD;
}

static int srv_cli_post(struct cli_ctx *ctx, struct server *s, int kind, int arg)
{
	return srv_cli_run(ctx, srv_op_new(s, kind, arg));
}

/* The second and later calls of a command that posted a change (ctx->st == 1). */
static int srv_cli_wait(struct cli_ctx *ctx)
{
	return HA_ATOMIC_LOAD(&srv_ops_pending) ? CLI_YIELD : CLI_DONE;
}

/* Writes <msg> as the whole answer. */
static int srv_cli_msg(struct cli_ctx *ctx, const char *msg)
{
	return cli_write(ctx, msg, strlen(msg)) < 0 ? CLI_MORE : CLI_DONE;
}

/* Finds "backend/server" <arg> (NULL: missing). NULL after writing 2.6's error into
 * *err. */
static struct server *srv_cli_find(const char *arg, bool any_be, const char **err)
{
	const char *slash = arg ? strchr(arg, '/') : NULL;
	struct proxy *px;
	struct server *s;
	char be[256];

	/* 2.6: an empty server name needs "backend/server"; an empty backend name too,
	 * except for "get weight" (<any_be>), which looks it up */
	if (!slash || !slash[1] || (slash == arg && !any_be) ||
	    (size_t)(slash - arg) >= sizeof(be)) {
		*err = "Require 'backend/server'.\n";
		return NULL;
	}
	memcpy(be, arg, (size_t)(slash - arg));
	be[slash - arg] = '\0';
	px = proxy_find(be, PR_CAP_BE);
	if (!px) {
		*err = "No such backend.\n";
		return NULL;
	}
	for (s = px->srv; s && strcmp(s->id, slash + 1); s = s->next)
		;
	if (!s)
		*err = "No such server.\n";
	return s;
}

/* Looks up args[<i>] for a command; on failure answers and returns NULL with *ret set. */
static struct server *srv_cli_lookup(struct cli_ctx *ctx, int i, int *ret)
{
	const char *err = NULL;
	struct server *s = srv_cli_find(i < ctx->nargs ? ctx->args[i] : NULL,
					!strcmp(ctx->args[0], "get"), &err);

	if (!s)
		*ret = srv_cli_msg(ctx, err);
	return s;
}

/* Sets the weight of <s> from <str> (NULL: missing), answering 2.6's errors. */
static int srv_cli_weight(struct cli_ctx *ctx, struct server *s, const char *str)
{
	const char *err = NULL;
	int w;

	if (!str || !*str)
		return srv_cli_msg(ctx, "Require <weight> or <weight%>.\n");
	w = srv_parse_weight(str, s->iweight, &err);
	if (w < 0)
		return srv_cli_msg(ctx, err);
	if (s->px->lb && s->px->lb->static_weights && w != 0 && w != s->iweight)
		return srv_cli_msg(ctx, "Backend is using a static LB algorithm and only "
					"accepts weights '0%' and '100%'.\n");
	return srv_cli_post(ctx, s, SRV_OP_WEIGHT, w);
}

/* set server <b>/<s> state ready|drain|maint */
static int srv_cli_set_state(struct cli_ctx *ctx, struct server *s, const char *v)
{
	if (!strcmp(v, "ready"))
		return srv_cli_post(ctx, s, SRV_OP_READY, 0);
	if (!strcmp(v, "drain"))
		return srv_cli_post(ctx, s, SRV_OP_DRAIN, 0);
	if (!strcmp(v, "maint"))
		return srv_cli_post(ctx, s, SRV_OP_MAINT, 0);
	return srv_cli_msg(ctx, "'set server <srv> state' expects 'ready', 'drain' and 'maint'.\n");
}

/* set server <b>/<s> health up|stopping|down */
static int srv_cli_set_health(struct cli_ctx *ctx, struct server *s, const char *v)
{
	int st;

	if (s->track)
		return srv_cli_msg(ctx, "cannot change health on a tracking server.\n");
	if (!strcmp(v, "up"))
		st = SRV_RS_UP;
	else if (!strcmp(v, "stopping"))
		st = SRV_RS_NOLB;
	else if (!strcmp(v, "down"))
		st = SRV_RS_DOWN;
	else
		return srv_cli_msg(
			ctx, "'set server <srv> health' expects 'up', 'stopping', or 'down'.\n");
	return srv_cli_post(ctx, s, SRV_OP_HEALTH, st);
}

/* The checks of <s> that run: health checks, agent checks. */
static bool srv_health_on(const struct server *s)
{
	return s->check && !(HA_ATOMIC_LOAD_RLX(&s->chk_adm) & SRV_CHK_HEALTH_OFF);
}

static bool srv_agent_on(const struct server *s)
{
	return s->agent && !(HA_ATOMIC_LOAD_RLX(&s->chk_adm) & SRV_CHK_AGENT_OFF);
}

/* set server <b>/<s> agent up|down */
static int srv_cli_set_agent(struct cli_ctx *ctx, struct server *s, const char *v)
{
	if (!srv_agent_on(s))
		return srv_cli_msg(ctx, "agent checks are not enabled on this server.\n");
	if (strcmp(v, "up") && strcmp(v, "down"))
		return srv_cli_msg(ctx, "'set server <srv> agent' expects 'up' or 'down'.\n");
	return srv_cli_post(ctx, s, SRV_OP_AGENT, v[0] == 'u');
}

/* set server <b>/<s> check-port|agent-port <port> */
static int srv_cli_set_chk_port(struct cli_ctx *ctx, struct server *s, bool agent)
{
	const char *err = NULL;
	struct srv_op *op;
	int port;

	if (ctx->nargs < 5)
		return srv_cli_msg(ctx, agent ? "set server <b>/<s> agent-port requires a port.\n"
					      : "set server <b>/<s> check-port requires a port.\n");
	if (!(agent ? srv_agent_on(s) : srv_health_on(s)))
		return srv_cli_msg(ctx, agent ? "agent checks are not enabled on this server"
					      : "health checks are not enabled on this server");
	port = srv_parse_port(ctx->args[4], &err);
	if (port < 0)
		return srv_cli_msg(ctx, err);
	op = srv_op_new(s, agent ? SRV_OP_AGENT_ADDR : SRV_OP_CHECK_ADDR, port);
	return srv_cli_run(ctx, op);
}

/* set server <b>/<s> check-addr|agent-addr <ip> [port <port>] */
static int srv_cli_set_chk_addr(struct cli_ctx *ctx, struct server *s, bool agent)
{
	struct sockaddr_storage ss;
	const char *err = NULL;
	struct srv_op *op;
	int port = 0;

	if (ctx->nargs < 5)
		return srv_cli_msg(ctx, agent ? "set server <b>/<s> agent-addr requires an address "
						"and optionally a port.\n"
					      : "set server <b>/<s> check-addr requires an address "
						"and optionally a port.\n");
	if (!(agent ? srv_agent_on(s) : srv_health_on(s)))
		return srv_cli_msg(ctx, agent ? "agent checks are not enabled on this server"
					      : "health checks are not enabled on this server");
	if (!srv_parse_ip(ctx->args[4], &ss))
		return cli_printf(ctx, "invalid addr '%s'", ctx->args[4]) < 0 ? CLI_MORE : CLI_DONE;
	if (ctx->nargs > 5 && !strcmp(ctx->args[5], "port")) {
		port = srv_parse_port(ctx->nargs > 6 ? ctx->args[6] : "", &err);
		if (port < 0)
			return srv_cli_msg(ctx, err);
	}
	op = srv_op_new(s, agent ? SRV_OP_AGENT_ADDR : SRV_OP_CHECK_ADDR, port);
	if (op)
		op->ss = ss;
	return srv_cli_run(ctx, op);
}

/* set server <b>/<s> agent-send <string> */
static int srv_cli_set_agent_send(struct cli_ctx *ctx, struct server *s)
{
	struct srv_op *op;

	if (!srv_agent_on(s))
		return srv_cli_msg(ctx, "agent checks are not enabled on this server.\n");
	op = srv_op_new(s, SRV_OP_AGENT_SEND, 0);
	if (op && !(op->str = strdup(ctx->nargs > 4 ? ctx->args[4] : ""))) {
		free(op);
		op = NULL;
	}
	return srv_cli_run(ctx, op);
}

/* The IP (text) and port of <ss> (AF_INET or AF_INET6). */
static void srv_ss_text(const struct sockaddr_storage *ss, char *ip, size_t n, int *port)
{
	const struct sockaddr_in *in4 = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

	snprintf(ip, n, "-");
	*port = 0;
	if (ss->ss_family == AF_INET) {
		inet_ntop(AF_INET, &in4->sin_addr, ip, (socklen_t)n);
		*port = ntohs(in4->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &in6->sin6_addr, ip, (socklen_t)n);
		*port = ntohs(in6->sin6_port);
	}
}

/* Same family and IP (ports aside). */
static bool srv_ss_same_ip(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return !memcmp(&((const struct sockaddr_in *)a)->sin_addr,
			       &((const struct sockaddr_in *)b)->sin_addr, sizeof(struct in_addr));
	return a->ss_family == AF_INET6 &&
	       !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
}

/* Publishes <ss> as the address every thread connects <s> to (and its checks and agent
 * unless they have their own). Thread 0: the CLI's, which is also the DNS thread, the other
 * writer of a resolved server's address. Returns 0 or -1 (out of memory). */
static int srv_addr_publish(struct server *s, const struct sockaddr_storage *ss)
{
	struct dns_addr_pub *p = s->rt_addr;

	if (s->flags & SRV_F_RESOLVE) { /* until DNS answers otherwise, as 2.6 */
		s->dns->cur = *ss;
		dns_addr_publish(&s->dns->pub, ss);
		return 0;
	}
	if (p) {
		dns_addr_publish(p, ss);
		return 0;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return -1;
	dns_addr_publish(p, ss);
	HA_ATOMIC_STORE(&s->rt_addr, p); /* release: readers see it filled */
	return 0;
}

/* set server <b>/<s> addr <ip> [port <port>]: 2.6's report of what changed. */
static int srv_cli_set_addr(struct cli_ctx *ctx, struct server *s)
{
	char oip[INET6_ADDRSTRLEN], nip[INET6_ADDRSTRLEN], am[160], pm[160];
	const struct sockaddr_storage *cur;
	struct sockaddr_storage tmp, ss;
	int oport, nport, port = -1;
	bool same;

	if (ctx->nargs < 5)
		return srv_cli_msg(ctx,
				   "set server <b>/<s> addr requires an address and optionally "
				   "a port.\n");
	if (!srv_parse_ip(ctx->args[4], &ss))
		return cli_printf(ctx, "Invalid addr '%s' by 'stats socket command'\n",
				  ctx->args[4]) < 0
			       ? CLI_MORE
			       : CLI_DONE;
	cur = dns_srv_shown_addr(s, &tmp);
	srv_ss_text(cur, oip, sizeof(oip), &oport);
	srv_ss_text(&ss, nip, sizeof(nip), &nport);
	same = srv_ss_same_ip(cur, &ss);
	snprintf(am, sizeof(am),
		 same ? "no need to change the addr" : "IP changed from '%s' to '%s'", oip, nip);
	pm[0] = '\0';
	if (ctx->nargs > 5 && !strcmp(ctx->args[5], "port")) {
		const char *ps = ctx->nargs > 6 ? ctx->args[6] : "";
		char *end;
		long v;

		errno = 0;
		v = strtol(ps, &end, 10);
		if (end == ps || *end || errno || v < 0 || v > 65535)
			snprintf(pm, sizeof(pm), ", problem converting port '%.64s' to an int", ps);
		else if (s->flags & SRV_F_PORT_MAP)
			snprintf(pm, sizeof(pm),
				 ", can't change the port of a server using port mapping");
		else if (v == oport)
			snprintf(pm, sizeof(pm), ", no need to change the port");
		else {
			port = (int)v;
			snprintf(pm, sizeof(pm), ", port changed from '%d' to '%d'", oport, port);
		}
	}
	srv_ss_set_port(&ss, port >= 0 ? port : oport);
	if ((!same || port >= 0) && srv_addr_publish(s, &ss) < 0)
		return srv_cli_msg(ctx, "Out of memory.\n");
	if ((!same || port >= 0) && srv_addr_changed_hook)
		srv_addr_changed_hook(s);
	return cli_printf(ctx, "%s%s by 'stats socket command'\n", am, pm) < 0 ? CLI_MORE
									       : CLI_DONE;
}

static int srv_cli_set_server(struct cli_ctx *ctx)
{
	const char *what = ctx->nargs > 3 ? ctx->args[3] : "";
	const char *v = ctx->nargs > 4 ? ctx->args[4] : "";
	struct server *s;
	int ret;

	if (ctx->st)
		return srv_cli_wait(ctx);
	s = srv_cli_lookup(ctx, 2, &ret);
	if (!s)
		return ret;
	if (!strcmp(what, "state"))
		return srv_cli_set_state(ctx, s, v);
	if (!strcmp(what, "weight"))
		return srv_cli_weight(ctx, s, ctx->nargs > 4 ? v : NULL);
	if (!strcmp(what, "health"))
		return srv_cli_set_health(ctx, s, v);
	if (!strcmp(what, "agent"))
		return srv_cli_set_agent(ctx, s, v);
	if (!strcmp(what, "addr"))
		return srv_cli_set_addr(ctx, s);
	if (!strcmp(what, "check-port") || !strcmp(what, "agent-port"))
		return srv_cli_set_chk_port(ctx, s, what[0] == 'a');
	if (!strcmp(what, "check-addr") || !strcmp(what, "agent-addr"))
		return srv_cli_set_chk_addr(ctx, s, what[0] == 'a');
	if (!strcmp(what, "agent-send"))
		return srv_cli_set_agent_send(ctx, s);
	if (!strcmp(what, "fqdn") || !strcmp(what, "ssl"))
		return cli_printf(ctx, "'set server <srv> %s' is not supported yet.\n", what) < 0
			       ? CLI_MORE
			       : CLI_DONE;
	return srv_cli_msg(ctx,
			   "usage: set server <backend>/<server> addr | agent | agent-addr | "
			   "agent-port | agent-send | check-addr | check-port | fqdn | health | "
			   "ssl | state | weight\n");
}

/* set weight <b>/<s> <weight>[%] */
static int srv_cli_set_weight(struct cli_ctx *ctx)
{
	struct server *s;
	int ret;

	if (ctx->st)
		return srv_cli_wait(ctx);
	s = srv_cli_lookup(ctx, 2, &ret);
	if (!s)
		return ret;
	return srv_cli_weight(ctx, s, ctx->nargs > 3 ? ctx->args[3] : NULL);
}

/* get weight <b>/<s> */
static int srv_cli_get_weight(struct cli_ctx *ctx)
{
	struct server *s;
	int ret;

	s = srv_cli_lookup(ctx, 2, &ret);
	if (!s)
		return ret;
	return cli_printf(ctx, "%d (initial %d)\n", HA_ATOMIC_LOAD_RLX(&s->uweight), s->iweight) < 0
		       ? CLI_MORE
		       : CLI_DONE;
}

/* enable|disable server <b>/<s> */
static int srv_cli_endis_server(struct cli_ctx *ctx)
{
	struct server *s;
	int ret;

	if (ctx->st)
		return srv_cli_wait(ctx);
	s = srv_cli_lookup(ctx, 2, &ret);
	if (!s)
		return ret;
	return srv_cli_post(ctx, s, ctx->args[0][0] == 'e' ? SRV_OP_ENABLE : SRV_OP_MAINT, 0);
}

/* enable|disable health|agent <b>/<s> */
static int srv_cli_endis_check(struct cli_ctx *ctx)
{
	bool on = ctx->args[0][0] == 'e', agent = ctx->args[1][0] == 'a';
	struct server *s;
	int ret;

	if (ctx->st)
		return srv_cli_wait(ctx);
	s = srv_cli_lookup(ctx, 2, &ret);
	if (!s)
		return ret;
	if (!(agent ? (void *)s->agent : (void *)s->check)) /* 2.6: disabling it is silent */
		return !on     ? CLI_DONE
		       : agent ? srv_cli_msg(ctx, "Agent was not configured on this server, "
						  "cannot enable.\n")
			       : srv_cli_msg(ctx, "Health check was not configured on this server, "
						  "cannot enable.\n");
	return srv_cli_post(ctx, s, on ? SRV_OP_CHK_ON : SRV_OP_CHK_OFF,
			    agent ? SRV_CHK_AGENT_OFF : SRV_CHK_HEALTH_OFF);
}

/* set maxconn server <b>/<s> <maxconn> */
static int srv_cli_set_maxconn(struct cli_ctx *ctx)
{
	struct server *s;
	char *end;
	long v;
	int ret;

	s = srv_cli_lookup(ctx, 3, &ret);
	if (!s)
		return ret;
	if (ctx->nargs < 5)
		return srv_cli_msg(ctx, "Require <maxconn>.\n");
	errno = 0;
	v = strtol(ctx->args[4], &end, 10);
	if (end == ctx->args[4])
		return srv_cli_msg(ctx, "maxconn string empty or preceded by garbage");
	if (*end)
		return srv_cli_msg(ctx, "Trailing garbage in maxconn string");
	if (v < 0 || v > 0x7fffffff || errno)
		return srv_cli_msg(ctx, "Value out of range.\n");
	/* read by srv_full() on every thread; slowstart ramps <maxconn> up to maxconn_cfg */
	HA_ATOMIC_STORE_RLX(&s->maxconn_cfg, (int)v);
	if (!HA_ATOMIC_LOAD_RLX(&s->ss_start)) {
		HA_ATOMIC_STORE_RLX(&s->maxconn, (int)v);
		lb_load_touch(s); /* leastconn/random keys */
	}
	return CLI_DONE;
}

/* shutdown sessions server <b>/<s> */
static int srv_cli_shutdown_sess(struct cli_ctx *ctx)
{
	struct server *s;
	int ret;

	s = srv_cli_lookup(ctx, 3, &ret);
	if (!s)
		return ret;
	if (srv_shutdown_hook) /* each thread kills its own streams */
		srv_shutdown_hook(s, false);
	return CLI_DONE;
}

static const struct cli_kw srv_cli_kws[] = {
	{ { "set", "server", NULL },
	  "set server <bk>/<srv> [opts]",
	  "change a server's state, weight, address or ssl",
	  CLI_LVL_ADMIN,
	  srv_cli_set_server },
	{ { "set", "weight", NULL },
	  "set weight <bk>/<srv>  (DEPRECATED)",
	  "change a server's weight (use 'set server' instead)",
	  CLI_LVL_ADMIN,
	  srv_cli_set_weight },
	{ { "get", "weight", NULL },
	  "get weight <bk>/<srv>",
	  "report a server's current weight",
	  CLI_LVL_USER,
	  srv_cli_get_weight },
	{ { "enable", "server", NULL },
	  "enable server  (DEPRECATED)",
	  "enable a disabled server (use 'set server' instead)",
	  CLI_LVL_ADMIN,
	  srv_cli_endis_server },
	{ { "disable", "server", NULL },
	  "disable server (DEPRECATED)",
	  "disable a server for maintenance (use 'set server' instead)",
	  CLI_LVL_ADMIN,
	  srv_cli_endis_server },
	{ { "enable", "health", NULL },
	  "enable health",
	  "enable health checks",
	  CLI_LVL_ADMIN,
	  srv_cli_endis_check },
	{ { "disable", "health", NULL },
	  "disable health",
	  "disable health checks",
	  CLI_LVL_ADMIN,
	  srv_cli_endis_check },
	{ { "enable", "agent", NULL },
	  "enable agent",
	  "enable agent checks",
	  CLI_LVL_ADMIN,
	  srv_cli_endis_check },
	{ { "disable", "agent", NULL },
	  "disable agent",
	  "disable agent checks",
	  CLI_LVL_ADMIN,
	  srv_cli_endis_check },
	{ { "set", "maxconn", "server", NULL },
	  "set maxconn server <bk>/<srv>",
	  "change a server's maxconn setting",
	  CLI_LVL_ADMIN,
	  srv_cli_set_maxconn },
	{ { "shutdown", "sessions", "server", NULL },
	  "shutdown sessions server <bk>/<srv>",
	  "kill sessions on a server",
	  CLI_LVL_ADMIN,
	  srv_cli_shutdown_sess },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(srv_cli_kws)
