/* A server's run state (UP, DOWN, NOLB): the one function that changes it, used by health
 * checks and later by the runtime API. It publishes the state with an atomic store (read
 * by srv_usable() on every thread), keeps the counters "show stat" reports, and prints
 * HAProxy's notices (stderr and the backend's logs, base/ev_report.h).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <backend/lb_load.h>
#include <base/ev_report.h>
#include <log/log-t.h>
#include <backend/server.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>

/* Servers of <px> usable for new traffic: active in *act, backup in *bck. */
static void srv_count_usable(const struct proxy *px, int *act, int *bck)
{
	*act = *bck = 0;
	for (const struct server *s = px->srv; s; s = s->next) {
		if ((s->flags & SRV_F_DISABLED) || !srv_is_up(s))
			continue;
		if (s->flags & SRV_F_BACKUP)
			(*bck)++;
		else
			(*act)++;
	}
}

/* Stores <st> over <old> and makes everything that depends on the state follow: the
 * counters and times of "show stat", the leastconn/random load keys, slowstart and the LB
 * tables. Shared by srv_set_state() and srv_set_dns_maint(). */
static void srv_state_store(struct server *s, int old, int st, uint64_t now)
{
	uint64_t last = HA_ATOMIC_LOAD_RLX(&s->last_change);

	if (old == SRV_RS_DOWN && last <= now)
		HA_ATOMIC_ADD(&s->down_time, now - last);
	if (st == SRV_RS_DOWN)
		HA_ATOMIC_INC(&s->chk_down);
	HA_ATOMIC_STORE_RLX(&s->last_change, now ? now : 1);
	HA_ATOMIC_STORE(&s->run_state, st);
	lb_load_touch(s);
	srv_state_changed(s, old, st, now); /* slowstart, LB tables (server_weight.c) */
}

void srv_set_dns_maint(struct server *s, bool on, enum srv_run_state after, uint64_t now)
{
	int old = HA_ATOMIC_LOAD_RLX(&s->run_state);

	if (on != (old != SRV_RS_RMAINT))
		return; /* already there */
	srv_state_store(s, old, on ? SRV_RS_RMAINT : (int)after, now);
}

void srv_report_no_server(const struct proxy *px)
{
	char logtxt[512];

	/* quoted on stderr, not in the logs (2.6) */
	snprintf(logtxt, sizeof(logtxt), "%s %s has no server available!", proxy_type_str(px),
		 px->id);
	ev_report2(px, LOG_LVL_EMERG, EV_OUT_ALERT, logtxt, "%s '%s' has no server available!",
		   proxy_type_str(px), px->id);
}

void srv_set_state(struct server *s, enum srv_run_state st, const char *why, uint64_t now)
{
	int old = HA_ATOMIC_LOAD_RLX(&s->run_state), act, bck;
	const char *sep;

	if (old == (int)st || old == SRV_RS_RMAINT) /* dns/ owns the way out of RMAINT */
		return;
	srv_state_store(s, old, (int)st, now);
	srv_count_usable(s->px, &act, &bck);
	if (!why) /* the caller prints its own notice (maintenance) */
		goto out;
	/* a tracking server's <why> is "via be/srv", printed as such (2.6) */
	sep = !*why				   ? ""
	      : !strncmp(why, "via ", 4)	   ? " "
	      : !strncmp(why, "changed from ", 13) ? ", " /* runtime API (2.6) */
						   : ", reason: ";
	/* "": option log-health-checks logged the reason on its own line (check.c) */
	if (st == SRV_RS_UP)
		ev_report(s->px, LOG_LVL_NOTICE, EV_OUT_WARNING,
			  "Server %s/%s is UP%s%s. %d active and %d backup servers online. 0 "
			  "sessions "
			  "requeued, 0 total in queue.",
			  s->px->id, s->id, sep, why, act, bck);
	else
		ev_report(
			s->px, st == SRV_RS_DOWN ? LOG_LVL_ALERT : LOG_LVL_NOTICE, EV_OUT_WARNING,
			"Server %s/%s is %s%s%s. %d active and %d backup servers left. %d sessions "
			"active, 0 requeued, 0 remaining in queue.",
			s->px->id, s->id, st == SRV_RS_DOWN ? "DOWN" : "stopping", sep, why, act,
			bck, HA_ATOMIC_LOAD_RLX(&s->cur_conns));
	if (st != SRV_RS_UP && !act && !bck)
		srv_report_no_server(s->px);
out:
	srv_propagate_state(s, st, now); /* servers tracking this one (server_weight.c) */
}
