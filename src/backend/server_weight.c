/* A server's weight at run time: the user weight (config, then srv_set_weight from the
 * runtime API or an agent), the effective weight the algorithms read (a fraction of it while
 * "slowstart" warms a server up that came back UP), and the hand-over to the backend's
 * algorithm (backend/lb_update.h). Also the "option allbackups" rule. Off the request path.
 */
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <backend/lb_load.h>
#include <backend/lb_update.h>
#include <backend/server.h>
#include <base/ev_report.h>
#include <log/log-t.h>
#include <event/loop.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>

void (*srv_observe_hook)(struct server *s, int status);
void (*srv_shutdown_hook)(struct server *s, bool backups);

#define SS_STEP_MIN_MS 1000 /* warm-up steps: slowstart / 20, at least one second (2.6) */

void srv_init_weights(struct server *s)
{
	s->iweight = s->weight;
	s->uweight = s->weight;
	s->maxconn_cfg = s->maxconn;
	if (s->flags & SRV_F_DISABLED) { /* "enable server" may end it: one way to be in maint */
		s->flags &= ~SRV_F_DISABLED;
		s->admin |= SRV_ADM_FMAINT | SRV_ADM_CMAINT;
		s->run_state = SRV_RS_DOWN;
	}
}

/* The algorithm of <s>'s backend (px->lb once built). */
static const struct lb_ops *srv_lb_ops(const struct server *s)
{
	return s->px->lb ? s->px->lb : lb_ops_for(s->px);
}

/* Publishes the effective weight of <s> from its user weight and warm-up at <now>.
 * Returns true while the server is still warming up. */
static bool srv_recalc_eweight(struct server *s, uint64_t now)
{
	int uw = HA_ATOMIC_LOAD_RLX(&s->uweight), w16 = 0;
	int maxc = HA_ATOMIC_LOAD_RLX(&s->maxconn_cfg);
	uint64_t start = HA_ATOMIC_LOAD_RLX(&s->ss_start);

	if (start && now < start + (uint64_t)s->slowstart) {
		/* from ~0 to 100 % of the weight in sixteenths, linearly over "slowstart";
		 * maxconn follows in whole percents, at least 1 (2.6) */
		uint64_t pct = 100 * (now - start) / (uint64_t)s->slowstart;

		w16 = (int)((uint64_t)uw * 16 * (now - start) / (uint64_t)s->slowstart);
		if (w16 < 1 && uw > 0)
			w16 = 1;
		if (maxc > 0 && (maxc = (int)((uint64_t)maxc * pct / 100)) < 1)
			maxc = 1;
	} else if (start) {
		HA_ATOMIC_STORE_RLX(&s->ss_start, 0);
		start = 0;
	}
	if (HA_ATOMIC_LOAD_RLX(&s->admin) & SRV_ADM_FDRAIN)
		uw = w16 = 0; /* drained: out of the farm, its user weight kept */
	HA_ATOMIC_STORE_RLX(&s->ss_w16, w16);
	HA_ATOMIC_STORE_RLX(&s->weight, w16 ? (w16 + 15) / 16 : uw);
	if (s->slowstart) /* else <maxconn> is written by its owners only (config, agent) */
		HA_ATOMIC_STORE_RLX(&s->maxconn, maxc);
	lb_load_weight_changed(s); /* leastconn/random keys, if the backend has them */
	return start != 0;
}

const char *srv_set_weight(struct server *s, int w, uint64_t now)
{
	if (w < 0 || w > 256)
		return "Weight must be between 0 and 256.\n";
	if (srv_lb_ops(s)->static_weights && w != 0 && w != s->iweight)
		return "Backend is using a static LB algorithm and only accepts weights '0%' and "
		       "'100%'.\n";
	HA_ATOMIC_STORE_RLX(&s->uweight, w);
	srv_recalc_eweight(s, now);
	lb_update(s->px);
	return NULL;
}

/* Time between two warm-up steps of <s>. */
static uint64_t srv_ss_period(const struct server *s)
{
	int step = s->slowstart / 20;

	return (uint64_t)(step > SS_STEP_MIN_MS ? step : SS_STEP_MIN_MS);
}

/* The end of a warm-up, as 2.6 reports it: "Server be/s is UP. N active and M backup
 * servers online. ..." (one write). */
static void srv_ss_notice_done(const struct server *s)
{
	int act = 0, bck = 0;

	for (const struct server *o = s->px->srv; o; o = o->next)
		if (!(o->flags & SRV_F_DISABLED) && srv_is_up(o))
			(o->flags & SRV_F_BACKUP) ? bck++ : act++;
	ev_report(s->px, LOG_LVL_NOTICE, EV_OUT_WARNING,
		  "Server %s/%s is UP. %d active and %d backup servers online. 0 sessions "
		  "requeued, 0 total in queue.",
		  s->px->id, s->id, act, bck);
}

/* One warm-up step of a server: next weight, next step until the ramp ends. */
static void srv_ss_step(struct timer *t)
{
	struct server *s = (struct server *)((char *)t - offsetof(struct server, ss_timer));
	uint64_t now = now_ms();

	if (srv_recalc_eweight(s, now))
		timer_set(t, now + srv_ss_period(s));
	else if (srv_is_up(s))
		srv_ss_notice_done(s);
	lb_update(s->px);
}

/* Called by srv_set_state after <s> went from <old> to <st>: starts the warm-up of a server
 * coming back UP under "slowstart" (dynamic algorithms only, as 2.6), ends it when the
 * server leaves, and lets the algorithm rebuild its tables. Runs on the thread of the
 * server's check, which owns ss_timer. */
void srv_state_changed(struct server *s, int old, int st, uint64_t now)
{
	bool warm = s->slowstart && old == SRV_RS_DOWN && st == SRV_RS_UP &&
		    !srv_lb_ops(s)->static_weights;

	HA_ATOMIC_STORE_RLX(&s->ss_start, warm ? (now ? now : 1) : 0);
	srv_recalc_eweight(s, now);
	if (th_ctx && s->ss_timer.cb) /* armed by an earlier warm-up on this thread */
		timer_del(&s->ss_timer);
	if (srv_shutdown_hook && st == SRV_RS_DOWN && (s->on_marked & SRV_OM_DOWN_SHUT))
		srv_shutdown_hook(s, false);
	if (srv_shutdown_hook && st == SRV_RS_UP && (s->on_marked & SRV_OM_UP_SHUT_BCK) &&
	    !(s->flags & SRV_F_BACKUP))
		srv_shutdown_hook(s, true);
	if (warm && th_ctx) { /* no loop in unit tests: the weight is recomputed by callers */
		s->ss_timer.cb = srv_ss_step;
		timer_set(&s->ss_timer, now + srv_ss_period(s));
	}
	lb_update(s->px);
}

struct server *srv_first_backup(struct proxy *px)
{
	for (struct server *s = px->srv; s; s = s->next)
		if (srv_usable(s, true))
			return s;
	return NULL;
}

void srv_propagate_state(struct server *s, enum srv_run_state st, uint64_t now)
{
	char why[512];

	if (!s->trackers)
		return;
	snprintf(why, sizeof(why), "via %s/%s", s->px->id, s->id);
	for (struct server *t = s->trackers; t; t = t->tracknext)
		srv_set_state(t, st, why, now);
}

/* Servers of <px> taking new traffic: up, not disabled, weight > 0. */
static void srv_count_online(const struct proxy *px, int *act, int *bck)
{
	*act = *bck = 0;
	for (const struct server *o = px->srv; o; o = o->next)
		if (!(o->flags & SRV_F_DISABLED) && srv_is_up(o) && srv_weight(o) > 0)
			(o->flags & SRV_F_BACKUP) ? (*bck)++ : (*act)++;
}

void srv_set_drain(struct server *s, bool on, uint64_t now)
{
	int adm = HA_ATOMIC_LOAD_RLX(&s->admin), act, bck;

	if (!!(adm & SRV_ADM_FDRAIN) == on)
		return;
	HA_ATOMIC_STORE_RLX(&s->admin, on ? adm | SRV_ADM_FDRAIN : adm & ~SRV_ADM_FDRAIN);
	srv_recalc_eweight(s, now);
	lb_update(s->px);
	if (!on) {
		ev_report(s->px, LOG_LVL_NOTICE, EV_OUT_WARNING,
			  "Server %s/%s is UP (leaving forced drain).", s->px->id, s->id);
		return;
	}
	srv_count_online(s->px, &act, &bck);
	ev_report(s->px, LOG_LVL_NOTICE, EV_OUT_WARNING,
		  "Server %s/%s enters drain state. %d active and %d backup servers online. 0 "
		  "sessions requeued, 0 total in queue.",
		  s->px->id, s->id, act, bck);
}

void srv_set_maint(struct server *s, bool on, bool may_up, uint64_t now)
{
	int adm = HA_ATOMIC_LOAD_RLX(&s->admin), act, bck;

	if (!!(adm & SRV_ADM_FMAINT) == on)
		return;
	HA_ATOMIC_STORE_RLX(&s->admin, on ? adm | SRV_ADM_FMAINT : adm & ~SRV_ADM_FMAINT);
	if (on || may_up)
		srv_set_state(s, on ? SRV_RS_DOWN : SRV_RS_UP, NULL, now);
	srv_count_online(s->px, &act, &bck);
	if (on)
		ev_report(s->px, LOG_LVL_ALERT, EV_OUT_WARNING,
			  "Server %s/%s is going DOWN for maintenance. %d active and %d "
			  "backup servers left. %d sessions active, 0 requeued, 0 remaining in "
			  "queue.",
			  s->px->id, s->id, act, bck, HA_ATOMIC_LOAD_RLX(&s->cur_conns));
	else
		ev_report(s->px, may_up ? LOG_LVL_NOTICE : LOG_LVL_ALERT, EV_OUT_WARNING,
			  "Server %s/%s is %s (leaving forced maintenance).", s->px->id, s->id,
			  may_up ? "UP/READY" : "DOWN");
	if (on && !act && !bck)
		srv_report_no_server(s->px);
}
