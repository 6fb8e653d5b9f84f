/* Health and agent checks of servers added and deleted at run time ("add server ... check",
 * "del server"): built on thread 0 before the server is published, on the threads the
 * startup spread would give them, armed and stopped on their own threads through their
 * inboxes. As 2.6, they start stopped ("enable health" / "enable agent" start them). The
 * check's memory lives as long as the server's (kept until exit once deleted).
 */
#include <stdlib.h>

#include <backend/server.h>
#include <base/atomic.h>
#include <base/tinfo.h>
#include <proc/global-t.h>
#include <check/agent.h>
#include <check/check.h>
#include <check/check_cfg.h>
#include <check/check_dyn.h>
#include <event/inbox.h>

/* Arms or stops posted and not run yet (atomic: decremented on the owners' threads). */
static int chk_dyn_pending;

struct chk_dyn_op {
	struct inbox_item it;
	struct server *s;
	bool stop;  /* else arm */
	bool agent; /* the agent, else the health check */
};

static void chk_dyn_run(struct inbox_item *it)
{
	struct chk_dyn_op *op = (struct chk_dyn_op *)it;

	if (op->agent)
		(op->stop ? agent_dyn_stop : agent_dyn_arm)(op->s);
	else
		(op->stop ? chk_dyn_stop : chk_dyn_arm)(op->s->check);
	free(op);
	HA_ATOMIC_DEC(&chk_dyn_pending);
}

static struct chk_dyn_op *chk_dyn_op_new(struct server *s, bool stop, bool agent)
{
	struct chk_dyn_op *op = calloc(1, sizeof(*op));

	if (op) {
		op->it.fn = chk_dyn_run;
		op->s = s;
		op->stop = stop;
		op->agent = agent;
	}
	return op;
}

/* Runs <op> on thread <t>: here, or posted to its inbox. */
static void chk_dyn_post(struct chk_dyn_op *op, int t)
{
	if (!op)
		return;
	HA_ATOMIC_INC(&chk_dyn_pending);
	if (t == (int)tid)
		chk_dyn_run(&op->it);
	else
		inbox_push(t, &op->it);
}

/* Arms (or stops) the check and the agent of <s>, both or neither: -1 (memory). */
static int chk_dyn_post_both(struct server *s, bool stop)
{
	struct chk_dyn_op *c = s->check ? chk_dyn_op_new(s, stop, false) : NULL;
	struct chk_dyn_op *a = s->agent ? chk_dyn_op_new(s, stop, true) : NULL;

	if ((s->check && !c) || (s->agent && !a)) {
		free(c);
		free(a);
		return -1;
	}
	chk_dyn_post(c, s->check ? s->check->tid : 0);
	chk_dyn_post(a, agent_dyn_tid(s));
	return 0;
}

int chk_dyn_prepare(struct proxy *px, struct server *s)
{
	int n = global.nbthread > 0 ? global.nbthread : 1;
	static int agent_thr; /* agents without a check: spread as well */

	if ((s->flags & SRV_F_CHECK) && check_cfg_check_dyn(px, s) < 0)
		return -1;
	if ((s->flags & SRV_F_CHECK) && chk_dyn_build(s) < 0)
		return -1;
	if (agent_dyn_build(s, agent_thr++ % n) < 0)
		return -1;
	/* 2.6: a dynamic server's checks wait for "enable health" / "enable agent" */
	s->chk_adm = SRV_CHK_HEALTH_OFF | SRV_CHK_AGENT_OFF;
	return 0;
}

int chk_dyn_start(struct server *s)
{
	return chk_dyn_post_both(s, false);
}

int chk_dyn_stop_all(struct server *s)
{
	return chk_dyn_post_both(s, true);
}

bool chk_dyn_busy(void)
{
	return HA_ATOMIC_LOAD(&chk_dyn_pending) != 0;
}

void chk_dyn_free(struct server *s)
{
	chk_free(s->check);
	s->check = NULL;
	free(s->agent);
	s->agent = NULL;
}
