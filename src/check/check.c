/* Health checks at run time: one non-blocking connect (and for HTTP checks one request
 * and a bounded read) per run, driven by a timer on the event loop of the thread that owns
 * the check. Results go through the rise/fall machine (check_http.c) and state changes
 * through srv_set_state(). A run never blocks and never allocates: each check has its
 * buffer from start. Owns struct check; the HTTP parts are pure and in check_http.c.
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

#include <backend/server.h>
#include <base/atomic.h>
#include <base/ev_report.h>
#include <base/tinfo.h>
#include <check/agent.h>
#include <check/check.h>
#include <check/check_pp.h>
#include <check/check_http.h>
#include <check/check_ssl.h>
#include <dns/dns_addr.h>
#include <check/extcheck.h>
#include <check/tcpcheck.h>
#include <event/loop.h>
#include <event/profiling.h>
#include <proc/global-t.h>
#include <log/log-t.h>
#include <proxy/proxy.h>
#include <stats/stat_text.h>

#define CHK_PH_IDLE 0
#define CHK_PH_CONNECT 1
#define CHK_PH_SEND 2
#define CHK_PH_RECV 3

#define CHK_BUFSIZE 16384 /* response bytes kept: beyond, the check is judged */

static const char *const chk_result_names[] = {
	[CHK_R_NONE] = "",	     [CHK_R_L4OK] = "L4OK",	  [CHK_R_L4CON] = "L4CON",
	[CHK_R_L4TOUT] = "L4TOUT",   [CHK_R_L7OK] = "L7OK",	  [CHK_R_L7OKC] = "L7OKC",
	[CHK_R_L7STS] = "L7STS",     [CHK_R_L7RSP] = "L7RSP",	  [CHK_R_L7TOUT] = "L7TOUT",
	[CHK_R_SOCKERR] = "SOCKERR", [CHK_R_L6OK] = "L6OK",	  [CHK_R_L6RSP] = "L6RSP",
	[CHK_R_L6TOUT] = "L6TOUT",   [CHK_R_PROCERR] = "PROCERR", [CHK_R_PROCTOUT] = "PROCTOUT",
	[CHK_R_PROCOK] = "PROCOK",
};

const char *chk_result_str(int r)
{
	if (r < 0 || r > CHK_R_PROCOK)
		return "";
	return chk_result_names[r];
}

/* The interval before the next run, from the server's state (inter, fastinter while
 * going up or down, downinter while down), with "spread-checks" randomness. */
static int chk_interval(const struct check *c)
{
	const struct server *s = c->srv;
	int max = s->rise + s->fall - 1, ms = s->inter;

	if (c->health == 0 && s->downinter)
		ms = s->downinter;
	else if (c->health != 0 && c->health != max && s->fastinter)
		ms = s->fastinter;
	if (global.spread_checks > 0 && ms > 1) {
		int span = ms * global.spread_checks / 100;

		if (span > 0)
			ms += (int)((unsigned int)rand() % (unsigned int)(2 * span + 1)) - span;
	}
	return ms > 0 ? ms : 1;
}

/* Bounds of a run: connecting takes at most min(timeout connect, inter) when "timeout
 * check" is set, else inter; the whole run takes at most inter, or connect + "timeout
 * check" when that is set (HAProxy 2.6's rule). */
void chk_deadlines(struct check *c, uint64_t now, uint64_t *conn, uint64_t *all)
{
	const struct server *s = c->srv;
	int tchk = s->px->timeout.check, tcon = s->px->timeout.connect, inter = s->inter;

	if (tchk) {
		int cto = tcon && tcon < inter ? tcon : inter;

		*conn = now + (uint64_t)cto;
		*all = *conn + (uint64_t)tchk;
	} else {
		*conn = *all = now + (uint64_t)inter;
	}
}

/* Ends the socket of the current run, if any. The check itself is never freed while the
 * loop runs, so a later event of the same batch only finds fh.fd == -1 and is skipped. */
void chk_close(struct check *c)
{
	if (c->fh.fd < 0)
		return;
	chk_ssl_close(c); /* TLS (check_ssl.c) */
	fd_unregister(&c->fh);
	close(c->fh.fd);
	c->fh.fd = -1;
}

/* True for the results that carry layer 5-7 data, the only ones whose notice shows
 * ", code: N" in 2.6 (an invalid response or a timeout does not, whatever the code). */
static bool chk_has_code(int res)
{
	return res == CHK_R_L7OK || res == CHK_R_L7OKC || res == CHK_R_L7STS ||
	       res == CHK_R_PROCERR || res == CHK_R_PROCTOUT || res == CHK_R_PROCOK;
}

/* option log-health-checks: the result of a run that changed the health or the result's
 * kind, at notice, in 2.6's wording ("status: N/M UP|DRAIN|DOWN" is where the health now
 * stands on the way down or up). Loop thread of the check. */
static void chk_log_result(const struct check *c, int res, bool ok, const char *why, int health)
{
	const struct server *s = c->srv;
	bool up = health >= s->rise;
	const char *st = !up ? "DOWN" : HA_ATOMIC_LOAD_RLX(&s->uweight) ? "UP" : "DRAIN";

	ev_report(s->px, LOG_LVL_NOTICE, EV_OUT_WARNING,
		  "Health check for %sserver %s/%s %s%s, reason: %s, status: %d/%d %s.",
		  (s->flags & SRV_F_BACKUP) ? "backup " : "", s->px->id, s->id,
		  res == CHK_R_L7OKC ? "conditionally " : "", ok ? "succeeded" : "failed", why,
		  up ? health - s->rise + 1 : health, up ? s->fall : s->rise, st);
}

/* HAProxy's words for a check result (logs, "check_desc" of show stat). */
const char *chk_result_desc(int res)
{
	static const char *const desc[] = {
		[CHK_R_NONE] = "Initializing",
		[CHK_R_L4OK] = "Layer4 check passed",
		[CHK_R_L4CON] = "Layer4 connection problem",
		[CHK_R_L4TOUT] = "Layer4 timeout",
		[CHK_R_L7OK] = "Layer7 check passed",
		[CHK_R_L7OKC] = "Layer7 check conditionally passed",
		[CHK_R_L7STS] = "Layer7 wrong status",
		[CHK_R_L7RSP] = "Layer7 invalid response",
		[CHK_R_L7TOUT] = "Layer7 timeout",
		[CHK_R_SOCKERR] = "Socket error",
		[CHK_R_L6OK] = "Layer6 check passed",
		[CHK_R_L6RSP] = "Layer6 invalid response",
		[CHK_R_L6TOUT] = "Layer6 timeout",
		[CHK_R_PROCERR] = "External check error",
		[CHK_R_PROCTOUT] = "External check timeout",
		[CHK_R_PROCOK] = "External check passed",
	};

	return res >= 0 && res <= CHK_R_PROCOK && desc[res] ? desc[res] : "Unknown";
}

/* Ends the current run with <res>; <code> is the HTTP status (0 if none), <info> the
 * detail HAProxy prints after "info:" (NULL for none). Applies rise/fall, publishes the
 * result and a state change, and arms the next run. */
void chk_finish(struct check *c, int res, int code, const char *info)
{
	struct server *s = c->srv;
	uint64_t now = now_ms();
	int dur = (int)(now - c->start_ms), tr, health, old_health, old_res;
	bool ok = res == CHK_R_L4OK || res == CHK_R_L7OK || res == CHK_R_L7OKC ||
		  res == CHK_R_L6OK || res == CHK_R_PROCOK;
	char why[512], cbuf[32] = "", ibuf[320] = "";

	chk_close(c);
	c->phase = CHK_PH_IDLE;
	if (!ok && c->health > 0) /* 2.6 counts the failures of a check not yet at 0 */
		HA_ATOMIC_INC(&s->chk_fail);
	stats_text_set(s->chk_desc, sizeof(s->chk_desc), info); /* last_chk */
	old_res = HA_ATOMIC_LOAD_RLX(&s->check_status);
	HA_ATOMIC_STORE_RLX(&s->check_status, res);
	HA_ATOMIC_STORE_RLX(&s->check_code, code);
	HA_ATOMIC_STORE_RLX(&s->check_duration, dur);
	health = old_health = c->health;
	tr = chk_health_update(&health, s->rise, s->fall, ok);
	HA_ATOMIC_STORE_RLX(&c->health, health); /* "show stat" reads it from another thread */
	if ((code || c->ext || c->tcp) && chk_has_code(res))
		snprintf(cbuf, sizeof(cbuf), ", code: %d", code);
	if (info && *info)
		snprintf(ibuf, sizeof(ibuf), ", info: \"%s\"", info);
	snprintf(why, sizeof(why), "%s%s%s, check duration: %dms", chk_result_desc(res), cbuf, ibuf,
		 dur);
	if (unlikely(s->px->log_hchk)) {
		if (res != old_res || health != old_health)
			chk_log_result(c, res, ok, why, health);
		why[0] = '\0'; /* the state change then goes without its reason (2.6) */
	}
	if (tr == CHK_T_DOWN)
		srv_set_state(s, SRV_RS_DOWN, why, now);
	else if (ok && c->health >= s->rise && agent_allows_up(s)) /* agent: check/agent.c */
		srv_set_state(s, res == CHK_R_L7OKC ? SRV_RS_NOLB : SRV_RS_UP, why, now);
	timer_set(&c->timer, now + (uint64_t)chk_interval(c));
}

/* Judges the response in the buffer; <full>: no more can come. Returns false while more
 * is needed. */
static bool chk_judge(struct check *c, bool full)
{
	const struct chk_expect *e = &c->http->exp;
	bool need_body = e->kind == CHK_EXP_STRING || e->kind == CHK_EXP_RSTRING;
	struct chk_http_rsp rsp;
	char reason[256];
	int rc;

	rc = chk_http_parse(c->buf, c->rcvd, full, need_body, &rsp);
	if (rc == CHK_P_MORE)
		return false;
	if (rc == CHK_P_INVALID) {
		chk_finish(c, CHK_R_L7RSP, 0, NULL);
		return true;
	}
	snprintf(reason, sizeof(reason), "%.*s", (int)rsp.reason.len, rsp.reason.ptr);
	if (e->disable_on_404 && rsp.status == 404 && c->health >= c->srv->rise)
		chk_finish(c, CHK_R_L7OKC, 404, reason);
	else if (chk_expect_match(e, &rsp))
		chk_finish(c, CHK_R_L7OK, rsp.status, NULL);
	else if (need_body)
		chk_finish(c, CHK_R_L7RSP, rsp.status, "HTTP content check did not match");
	else
		chk_finish(c, CHK_R_L7STS, rsp.status, reason);
	return true;
}

/* Reads what the socket has; judges the response when complete, closed or too long. */
static void chk_recv(struct check *c)
{
	for (;;) {
		ssize_t n = chk_xrecv(c, c->buf + c->rcvd, c->bufsize - c->rcvd);

		if (n > 0) {
			c->rcvd += (size_t)n;
			if (c->rcvd == c->bufsize) {
				chk_judge(c, true);
				return;
			}
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		if (n < 0 && c->rcvd == 0) {
			chk_finish(c, CHK_R_L7RSP, 0, strerror(errno));
			return;
		}
		chk_judge(c, true); /* closed (or reset after some data) */
		return;
	}
	chk_judge(c, false);
}

static void chk_send(struct check *c)
{
	while (c->sent < c->http->req_len) {
		ssize_t n = chk_xsend(c, c->http->req + c->sent, c->http->req_len - c->sent);

		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			chk_finish(c, CHK_R_SOCKERR, 0, n < 0 ? strerror(errno) : NULL);
			return;
		}
		c->sent += (size_t)n;
	}
	c->phase = CHK_PH_RECV;
	chk_recv(c);
}

static void chk_iocb(struct fd_handler *h, uint32_t events)
{
	struct check *c = (struct check *)((char *)h - offsetof(struct check, fh));
	int err = 0;
	socklen_t len = sizeof(err);

	if (c->tcp) { /* rule-based check (tcpcheck_run.c) */
		tcpchk_io(c, events);
		return;
	}
	if (c->ext) { /* external check (extcheck.c) */
		extchk_io(c);
		return;
	}
	if (c->phase == CHK_PH_CONNECT) {
		if (getsockopt(h->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			err = errno;
		if (err) {
			chk_finish(c, CHK_R_L4CON, 0, strerror(err));
			return;
		}
		if (!(events & EPOLLOUT))
			return;
		if (unlikely(c->srv->pp_opts) && chk_pp_wanted(c->srv) && chk_pp_send(c) < 0)
			return; /* check-send-proxy: the PROXY header before all (check_pp.c) */
		c->ssl_hs = chk_ssl_wanted(c); /* TLS first (check_ssl.c) */
		c->phase = CHK_PH_SEND;
		if (!c->http && !c->ssl_hs) {
			chk_finish(c, CHK_R_L4OK, 0, NULL);
			return;
		}
	}
	if (unlikely(c->ssl_hs)) {
		if (chk_ssl_handshake(c) <= 0)
			return;
		if (!c->http) {
			chk_finish(c, CHK_R_L6OK, 0, NULL);
			return;
		}
	}
	if (c->phase == CHK_PH_SEND)
		chk_send(c);
	else if (c->phase == CHK_PH_RECV)
		chk_recv(c);
}

/* The address a run connects to: "addr" and "port" over the server's. */
socklen_t chk_target(const struct server *s, struct sockaddr_storage *ss)
{
	struct sockaddr_storage dyn;
	const struct sockaddr_storage *sa = dns_srv_shown_addr(s, &dyn); /* DNS's, if any */
	uint16_t port = 0;

	if (sa->ss_family == AF_INET)
		port = ((const struct sockaddr_in *)sa)->sin_port;
	else if (sa->ss_family == AF_INET6)
		port = ((const struct sockaddr_in6 *)sa)->sin6_port;
	if (s->check_port)
		port = htons((uint16_t)s->check_port);
	*ss = s->check_addr.ss_family ? s->check_addr : *sa;
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = port;
	else if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = port;
	if (ss->ss_family == AF_INET)
		return sizeof(struct sockaddr_in);
	if (ss->ss_family == AF_INET6)
		return sizeof(struct sockaddr_in6);
	return s->addrlen;
}

/* Starts a run: a non-blocking connect; the timer becomes the run's deadline. */
static void chk_start(struct check *c)
{
	struct sockaddr_storage ss;
	socklen_t sl = chk_target(c->srv, &ss);
	uint64_t all;
	int fd, one = 1;

	c->start_ms = now_ms();
	c->sent = c->rcvd = 0;
	chk_deadlines(c, c->start_ms, &c->conn_deadline, &all);
	if (c->tcp || c->ext) { /* rule-based (tcpcheck_run.c) or external (extcheck.c) */
		c->fh.iocb = chk_iocb;
		if (c->ext)
			extchk_start(c);
		else
			tcpchk_start(c);
		return;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		chk_finish(c, CHK_R_SOCKERR, 0, strerror(errno));
		return;
	}
	if (ss.ss_family != AF_UNIX)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->fh.fd = fd;
	c->fh.iocb = chk_iocb;
	c->phase = CHK_PH_CONNECT;
	if (connect(fd, (struct sockaddr *)&ss, sl) < 0 && errno != EINPROGRESS) {
		chk_finish(c, CHK_R_L4CON, 0, strerror(errno));
		return;
	}
	if (fd_register(&c->fh) < 0) {
		chk_finish(c, CHK_R_SOCKERR, 0, strerror(errno));
		return;
	}
	c->timer.expire = 0;
	timer_set(&c->timer, c->conn_deadline < all ? c->conn_deadline : all);
	c->conn_deadline = all; /* from here: the whole run's deadline */
}

/* Timer: starts a run, or ends the current one on its deadline. */
static void chk_timer_cb(struct timer *t)
{
	struct check *c = (struct check *)((char *)t - offsetof(struct check, timer));

	if (c->phase == CHK_PH_IDLE) {
		if (HA_ATOMIC_LOAD_RLX(&c->srv->chk_adm) & SRV_CHK_HEALTH_OFF) { /* runtime API */
			timer_set(&c->timer, now_ms() + (uint64_t)chk_interval(c));
			return;
		}
		chk_start(c);
		return;
	}
	if (c->tcp) { /* rule-based check (tcpcheck_run.c) */
		tcpchk_timeout(c);
		return;
	}
	if (c->ext) { /* external check (extcheck.c) */
		extchk_timeout(c);
		return;
	}
	if (c->phase == CHK_PH_CONNECT) {
		chk_finish(c, CHK_R_L4TOUT, 0, NULL);
		return;
	}
	if (now_ms() < c->conn_deadline) { /* connected in time: the rest of the run */
		timer_set(&c->timer, c->conn_deadline);
		return;
	}
	if (unlikely(c->ssl_hs)) {
		chk_ssl_timeout(c);
		return;
	}
	chk_finish(c, CHK_R_L7TOUT, 0, NULL);
}

/* Builds the check of <s>, the <k>th of <n> checks of its backend. */
static int chk_build(struct server *s, int k, int n, int thr)
{
	struct check *c = calloc(1, sizeof(*c));

	if (!c)
		return -1;
	c->tcp = tcpchk_proxy_rules(s->px);
	c->ext = s->px->tcpchk_kind == TCPCHK_K_EXT;
	if (c->ext && !(c->ext_mem = malloc(extchk_mem_size()))) {
		free(c);
		return -1;
	}
	c->bufsize = !c->tcp ? CHK_BUFSIZE : global.tune_bufsize;
	c->buf = s->px->chk || c->tcp ? malloc(c->bufsize) : NULL;
	c->sbuf = c->tcp ? malloc(c->bufsize) : NULL; /* rendered sends, hex dumps */
	c->hex = c->tcp ? malloc(2 * c->bufsize + 1) : NULL;
	if ((s->px->chk || c->tcp) && !c->buf) {
		free(c);
		return -1;
	}
	if (c->tcp && (!c->sbuf || !c->hex)) {
		free(c->buf);
		free(c->sbuf);
		free(c->hex);
		free(c);
		return -1;
	}
	c->srv = s;
	c->http = s->px->chk;
	c->tid = thr % (global.nbthread > 0 ? global.nbthread : 1);
	c->first_ms = (int)((long long)s->inter * k / (n ? n : 1));
	c->health = s->rise; /* HAProxy starts servers UP, one failure from DOWN */
	c->fh.fd = -1;
	c->timer.cb = chk_timer_cb;
	s->check = c;
	return 0;
}

/* Next thread a check goes to: startup checks in config order, then dynamic servers'. */
static int chk_next_thr;

int checks_prepare(void)
{
	int thr = 0;

	for (struct proxy *px = proxies; px; px = px->next) {
		int n = 0, k = 0;

		for (struct server *s = px->srv; s; s = s->next)
			n += !!(s->flags & SRV_F_CHECK);
		for (struct server *s = px->srv; s; s = s->next) {
			if (!(s->flags & SRV_F_CHECK) || s->check)
				continue;
			if (chk_build(s, k++, n, thr++) < 0)
				return -1;
		}
	}
	chk_next_thr = thr;
	return agents_prepare(); /* agents go on their server's check thread */
}

int chk_dyn_build(struct server *s)
{
	int n = global.nbthread > 0 ? global.nbthread : 1;

	return chk_build(s, 0, 1, chk_next_thr++ % n);
}

void chk_dyn_arm(struct check *c)
{
	timer_set(&c->timer, now_ms() + 1 + (uint64_t)c->first_ms);
}

void chk_dyn_stop(struct check *c)
{
	extchk_stop(c);
	chk_close(c);
	tcpchk_vars_reset(c);
	timer_del(&c->timer);
}

void chk_free(struct check *c)
{
	if (!c)
		return;
	free(c->buf);
	free(c->sbuf);
	free(c->hex);
	free(c->ext_mem);
	free(c);
}

void checks_thread_start(void)
{
	for (struct proxy *px = proxies; px; px = px->next)
		for (struct server *s = px->srv; s; s = s->next)
			if (s->check && s->check->tid == (int)tid)
				timer_set(&s->check->timer,
					  now_ms() + 1 + (uint64_t)s->check->first_ms);
	agents_thread_start();
}

void checks_thread_stop(void)
{
	for (struct proxy *px = proxies; px; px = px->next) {
		for (struct server *s = px->srv; s; s = s->next) {
			if (!s->check || s->check->tid != (int)tid)
				continue;
			extchk_stop(s->check);
			chk_close(s->check);
			tcpchk_vars_reset(s->check); /* check.* of the last run */
			timer_del(&s->check->timer);
		}
	}
	agents_thread_stop();
}

void checks_release(void)
{
	for (struct proxy *px = proxies; px; px = px->next) {
		for (struct server *s = px->srv; s; s = s->next) {
			chk_free(s->check);
			s->check = NULL;
		}
	}
	agents_release();
}

/* names in "show profiling" (event/profiling.h) */
PROF_NAME(chk_iocb, "srv_chk_io_cb")
PROF_NAME(chk_timer_cb, "process_chk")
