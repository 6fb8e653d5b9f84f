/* Agent checks at run time: one per server with "agent-check", on the thread of the
 * server's health check (or dealt round-robin without one), driven by a timer every
 * "agent-inter". A run connects to the agent (agent-addr or the server's address, on
 * agent-port), sends "agent-send", reads one line and applies it as 2.6 does: a weight in
 * percent of the initial one, maxconn, ready/drain/maint, and up/down through the agent's
 * own rise/fall health (a server is UP only when both its check and its agent allow it).
 * Failing to reach the agent changes nothing. A run never blocks nor allocates.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <backend/lb_load.h>
#include <backend/server.h>
#include <base/atomic.h>
#include <base/ev_report.h>
#include <base/tinfo.h>
#include <check/agent.h>
#include <check/check-t.h>
#include <check/check_http.h>
#include <dns/dns_addr.h>
#include <log/log-t.h>
#include <event/loop.h>
#include <proc/global-t.h>
#include <proxy/proxy.h>
#include <stats/stat_text.h>

#define AGENT_BUFSIZE 1024 /* a longer line is judged on what fits */

#define AGENT_PH_IDLE 0
#define AGENT_PH_CONNECT 1
#define AGENT_PH_RECV 2

/* Everything but the settings is touched only by thread <tid>, except <health>, read by
 * agent_allows_up() on the same thread. */
struct agent {
	struct server *srv;
	int tid;
	int phase;	      /* AGENT_PH_* */
	int health;	      /* 0..rise+fall-1, up when >= rise (starts at rise, as checks) */
	struct timer timer;   /* next run, or the current run's deadline */
	struct fd_handler fh; /* fh.fd >= 0 while a run is in progress */
	uint64_t start_ms;
	size_t sent, rcvd;
	char buf[AGENT_BUFSIZE];
};

static int agent_interval(const struct server *s)
{
	return s->agent_inter > 0 ? s->agent_inter : s->inter > 0 ? s->inter : 2000;
}

static void agent_close(struct agent *a)
{
	if (a->fh.fd < 0)
		return;
	fd_unregister(&a->fh);
	close(a->fh.fd);
	a->fh.fd = -1;
}

/* Ends the run and arms the next one. */
static void agent_done(struct agent *a)
{
	agent_close(a);
	a->phase = AGENT_PH_IDLE;
	timer_set(&a->timer, now_ms() + (uint64_t)agent_interval(a->srv));
}

bool agent_allows_up(const struct server *s)
{
	if (HA_ATOMIC_LOAD_RLX(&s->admin) & SRV_ADM_FMAINT)
		return false;
	return !s->agent || (HA_ATOMIC_LOAD_RLX(&s->chk_adm) & SRV_CHK_AGENT_OFF) ||
	       s->agent->health >= s->rise;
}

/* Whether the server's health check lets it be UP (no check, or a check at rise). */
static bool agent_check_allows_up(const struct server *s)
{
	return !s->check || (HA_ATOMIC_LOAD_RLX(&s->chk_adm) & SRV_CHK_HEALTH_OFF) ||
	       HA_ATOMIC_LOAD_RLX(&s->check->health) >= s->rise;
}

/* "set server B/S agent up|down" (backend/srv_cli.c): the agent's health at its top or at
 * 0, and the server's state follows as after a transition. The agent's thread. */
static void agent_cli_force(struct server *s, bool up, uint64_t now)
{
	struct agent *a = s->agent;

	if (!a)
		return;
	a->health = up ? s->rise + s->fall - 1 : 0;
	HA_ATOMIC_STORE_RLX(&s->agent_health, a->health); /* "show stat" */
	if (!up)
		srv_set_state(s, SRV_RS_DOWN, "changed from CLI", now);
	else if (agent_check_allows_up(s) && agent_allows_up(s))
		srv_set_state(s, SRV_RS_UP, "changed from CLI", now);
}

static int agent_cli_tid(const struct server *s)
{
	return s->agent ? s->agent->tid : -1;
}

__attribute__((constructor)) static void agent_cli_register(void)
{
	srv_agent_tid_hook = agent_cli_tid;
	srv_agent_force_hook = agent_cli_force;
}

/* The up/down word of a reply: the agent's health moves like a check's; a transition
 * changes the server's state with 2.6's wording. */
static void agent_apply_state(struct agent *a, const struct agent_reply *r, uint64_t now)
{
	struct server *s = a->srv;
	char why[512], desc[160] = "";
	int dur = (int)(now - a->start_ms), tr;

	tr = chk_health_update(&a->health, s->rise, s->fall, r->state == AGENT_ST_UP);
	HA_ATOMIC_STORE_RLX(&s->agent_health, a->health); /* "show stat" */
	if (r->desc.len)
		snprintf(desc, sizeof(desc), " (%.*s)",
			 (int)(r->desc.len > 128 ? 128 : r->desc.len), r->desc.ptr);
	snprintf(why, sizeof(why), "via agent : %.*s%s", /* last_agt */
		 (int)(r->word.len > 32 ? 32 : r->word.len), r->word.ptr, desc);
	stats_text_set(s->agt_desc, sizeof(s->agt_desc), why);
	HA_ATOMIC_STORE_RLX(&s->agent_status, r->state == AGENT_ST_UP ? CHK_R_L7OK : CHK_R_L7STS);
	HA_ATOMIC_STORE_RLX(&s->agent_duration, dur);
	snprintf(why, sizeof(why),
		 "%s, code: 0, info: \"via agent : %.*s%s\", check duration: %dms",
		 tr == CHK_T_DOWN ? "Layer7 wrong status" : "Layer7 check passed",
		 (int)(r->word.len > 32 ? 32 : r->word.len), r->word.ptr, desc, dur);
	if (tr == CHK_T_DOWN)
		srv_set_state(s, SRV_RS_DOWN, why, now);
	else if (tr == CHK_T_UP && agent_check_allows_up(s) && agent_allows_up(s))
		srv_set_state(s, SRV_RS_UP, why, now);
}

/* Applies the agent's line in the buffer. */
static void agent_apply(struct agent *a)
{
	struct server *s = a->srv;
	uint64_t now = now_ms();
	struct agent_reply r;

	agent_parse(a->buf, a->rcvd, &r);
	if (r.weight_pct >= 0) {
		long w = (long)s->iweight * r.weight_pct / 100;

		if (HA_ATOMIC_LOAD_RLX(&s->admin) & SRV_ADM_FDRAIN)
			ev_report(s->px, LOG_LVL_NOTICE, EV_OUT_WARNING,
				  "Server %s/%s remains in forced drain mode.", s->px->id, s->id);
		(void)srv_set_weight(s, w > 256 ? 256 : (int)w, now); /* static algos refuse it */
	}
	if (r.maxconn >= 0) {
		HA_ATOMIC_STORE_RLX(&s->maxconn_cfg, r.maxconn);
		if (!s->slowstart) { /* else the ramp below applies it */
			HA_ATOMIC_STORE_RLX(&s->maxconn, r.maxconn);
			lb_load_touch(s);
		} else
			(void)srv_set_weight(s, HA_ATOMIC_LOAD_RLX(&s->uweight), now);
	}
	if (r.admin == AGENT_ADM_READY) {
		srv_set_drain(s, false, now);
		srv_set_maint(s, false, agent_check_allows_up(s) && a->health >= s->rise, now);
	} else if (r.admin == AGENT_ADM_DRAIN) {
		srv_set_drain(s, true, now);
	} else if (r.admin == AGENT_ADM_MAINT) {
		srv_set_maint(s, true, false, now);
	}
	if (r.state != AGENT_ST_NONE)
		agent_apply_state(a, &r, now);
}

/* Reads what the socket has; applies the line once complete, closed or too long. */
static void agent_recv(struct agent *a)
{
	for (;;) {
		ssize_t n = recv(a->fh.fd, a->buf + a->rcvd, sizeof(a->buf) - a->rcvd, 0);

		if (n > 0) {
			a->rcvd += (size_t)n;
			if (agent_line_len(a->buf, a->rcvd) >= 0 || a->rcvd == sizeof(a->buf))
				break;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return; /* more to come */
		if (n < 0)
			a->rcvd = 0; /* an error: nothing to apply */
		break;
	}
	if (a->rcvd)
		agent_apply(a);
	agent_done(a);
}

/* Sends "agent-send" once connected (a short string: one send, the rest dropped if the
 * socket cannot take it at once). */
static void agent_send(struct agent *a)
{
	const char *msg = a->srv->agent_send;
	size_t len = msg ? strlen(msg) : 0;

	if (len && send(a->fh.fd, msg, len, MSG_NOSIGNAL) < 0 && errno != EAGAIN) {
		agent_done(a);
		return;
	}
	a->phase = AGENT_PH_RECV;
}

static void agent_iocb(struct fd_handler *h, uint32_t events)
{
	struct agent *a = (struct agent *)((char *)h - offsetof(struct agent, fh));
	socklen_t len = sizeof(int);
	int err = 0;

	if (a->phase == AGENT_PH_CONNECT) {
		if (getsockopt(h->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err) {
			agent_done(a); /* an unreachable agent changes nothing (2.6) */
			return;
		}
		if (!(events & EPOLLOUT))
			return;
		agent_send(a);
		if (a->phase != AGENT_PH_RECV)
			return;
	}
	if (a->phase == AGENT_PH_RECV)
		agent_recv(a);
}

/* Where the agent listens. */
static socklen_t agent_target(const struct server *s, struct sockaddr_storage *ss)
{
	uint16_t port = htons((uint16_t)s->agent_port);
	struct sockaddr_storage dyn; /* "set server addr" */

	*ss = s->agent_addr.ss_family ? s->agent_addr : *dns_srv_shown_addr(s, &dyn);
	if (ss->ss_family == AF_INET) {
		((struct sockaddr_in *)ss)->sin_port = port;
		return sizeof(struct sockaddr_in);
	}
	if (ss->ss_family == AF_INET6) {
		((struct sockaddr_in6 *)ss)->sin6_port = port;
		return sizeof(struct sockaddr_in6);
	}
	return 0; /* a unix socket server without agent-addr: no agent to reach */
}

/* Starts a run; the timer becomes its deadline ("timeout check" after the connect
 * timeout when set, else the agent interval). */
static void agent_start(struct agent *a)
{
	const struct proxy *px = a->srv->px;
	struct sockaddr_storage ss;
	socklen_t sl = agent_target(a->srv, &ss);
	int fd, one = 1, tmo = agent_interval(a->srv);

	a->start_ms = now_ms();
	a->sent = a->rcvd = 0;
	if (px->timeout.check)
		tmo = (px->timeout.connect ? px->timeout.connect : tmo) + px->timeout.check;
	if (!sl) {
		agent_done(a);
		return;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		agent_done(a);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	a->fh.fd = fd;
	a->fh.iocb = agent_iocb;
	a->phase = AGENT_PH_CONNECT;
	if ((connect(fd, (struct sockaddr *)&ss, sl) < 0 && errno != EINPROGRESS) ||
	    fd_register(&a->fh) < 0) {
		agent_done(a);
		return;
	}
	timer_set(&a->timer, a->start_ms + (uint64_t)tmo);
}

/* Timer: starts a run, or ends the current one at its deadline (what was read counts). */
static void agent_timer_cb(struct timer *t)
{
	struct agent *a = (struct agent *)((char *)t - offsetof(struct agent, timer));

	if (a->phase == AGENT_PH_IDLE) {
		if (HA_ATOMIC_LOAD_RLX(&a->srv->chk_adm) & SRV_CHK_AGENT_OFF) { /* runtime API */
			timer_set(&a->timer, now_ms() + (uint64_t)agent_interval(a->srv));
			return;
		}
		agent_start(a);
		return;
	}
	if (a->rcvd)
		agent_apply(a);
	agent_done(a);
}

/* The agent of <s> on thread <thr> (when <s> has no check). 0, or -1 (memory). */
static int agent_build(struct server *s, int thr)
{
	const struct server *r;
	struct agent *a = calloc(1, sizeof(*a));

	if (!a)
		return -1;
	/* a tracking server's state changes on its tracked server's check thread:
	 * its agent goes there too, so one thread writes its state */
	for (r = s; r->track; r = r->track)
		;
	a->srv = s;
	a->tid = r->check ? r->check->tid : thr;
	a->health = s->rise;
	HA_ATOMIC_STORE_RLX(&s->agent_health, a->health); /* "show stat", before the first run */
	a->fh.fd = -1;
	a->timer.cb = agent_timer_cb;
	s->agent = a;
	return 0;
}

int agents_prepare(void)
{
	int thr = 0, n = global.nbthread > 0 ? global.nbthread : 1;

	for (struct proxy *px = proxies; px; px = px->next) {
		for (struct server *s = px->srv; s; s = s->next) {
			if (!s->agent_enabled || !s->agent_port || s->agent)
				continue;
			if (agent_build(s, thr++ % n) < 0)
				return -1;
		}
	}
	return 0;
}

int agent_dyn_build(struct server *s, int thr)
{
	return s->agent_enabled && s->agent_port ? agent_build(s, thr) : 0;
}

int agent_dyn_tid(const struct server *s)
{
	return s->agent ? s->agent->tid : -1;
}

void agent_dyn_arm(struct server *s)
{
	timer_set(&s->agent->timer, now_ms() + 1);
}

void agent_dyn_stop(struct server *s)
{
	agent_close(s->agent);
	timer_del(&s->agent->timer);
}

void agents_thread_start(void)
{
	for (struct proxy *px = proxies; px; px = px->next)
		for (struct server *s = px->srv; s; s = s->next)
			if (s->agent && s->agent->tid == (int)tid)
				timer_set(&s->agent->timer, now_ms() + 1);
}

void agents_thread_stop(void)
{
	for (struct proxy *px = proxies; px; px = px->next) {
		for (struct server *s = px->srv; s; s = s->next) {
			if (!s->agent || s->agent->tid != (int)tid)
				continue;
			agent_close(s->agent);
			timer_del(&s->agent->timer);
		}
	}
}

void agents_release(void)
{
	for (struct proxy *px = proxies; px; px = px->next) {
		for (struct server *s = px->srv; s; s = s->next) {
			free(s->agent);
			s->agent = NULL;
		}
	}
}
