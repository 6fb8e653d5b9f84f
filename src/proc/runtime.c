/* From a checked configuration to running loops: runtime state of proxies and servers,
 * fd limit and maxconn, binding, signals, and the loop of the (single, until issue #3)
 * thread with graceful and immediate stops.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <backend/backend.h>
#include <backend/server-t.h>
#include <base/addr.h>
#include <base/buf.h>
#include <base/pool.h>
#include <cfg/cfg.h>
#include <conn/listener.h>
#include <event/loop.h>
#include <mux/h1.h>
#include <proc/global-t.h>
#include <proc/runtime.h>
#include <proxy/proxy.h>
#include <stream/stream.h>

#define FD_RESERVE 100 /* fds kept for listeners, logs, epoll, pipes */

static struct fd_handler sig_handler;
static bool graceful_pending;
static struct timer hard_stop_timer;

/* hard-stop-after expired during a graceful stop: end now, whatever is in flight. */
static void hard_stop_cb(struct timer *t)
{
	th_ctx->stopped = true;
}

/* Raises RLIMIT_NOFILE to fit maxconn (two fds per proxied connection) and derives a
 * default maxconn from the limit when none was set, as HAProxy does. */
static int runtime_set_limits(void)
{
	struct rlimit rl;
	rlim_t want;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -1;
	if (!global.maxconn) {
		rlim_t avail = (global.ulimit_n ? (rlim_t)global.ulimit_n : rl.rlim_max);

		if (avail == RLIM_INFINITY || avail > 2000000)
			avail = 2000000;
		global.maxconn = avail > 2 * FD_RESERVE ? (int)((avail - FD_RESERVE) / 2) : 100;
		if (global.maxconn > 100000)
			global.maxconn = 100000;
	}
	want = global.ulimit_n ? (rlim_t)global.ulimit_n : (rlim_t)global.maxconn * 2 + FD_RESERVE;
	if (want > rl.rlim_cur) {
		rl.rlim_cur = want;
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
			rl.rlim_max = want;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
			struct rlimit cur;

			getrlimit(RLIMIT_NOFILE, &cur);
			ha_warning("[%s.main()] Cannot raise FD limit to %llu, limit is %llu.\n",
				   "haproxy", (unsigned long long)want,
				   (unsigned long long)cur.rlim_cur);
			if (cur.rlim_cur > 2 * FD_RESERVE)
				global.maxconn = MIN(global.maxconn,
						     (int)((cur.rlim_cur - FD_RESERVE) / 2));
		}
	}
	return 0;
}

int runtime_prepare(void)
{
	struct proxy *px;

	cfg_phase = false;
	if (global.tune_maxrewrite >= global.tune_bufsize / 2)
		global.tune_maxrewrite = global.tune_bufsize / 2;
	buf_pool_setup(global.tune_bufsize);
	stream_init_runtime();
	for (px = proxies; px; px = px->next) {
		if (backend_init(px) < 0) {
			ha_alert("out of memory while preparing proxy '%s'.\n", px->id);
			return -1;
		}
	}
	return runtime_set_limits();
}

/* Calls <fn> on every listener of every frontend; returns the number of failures. */
static int foreach_listener(int (*fn)(struct proxy *px, struct bind_conf *bc,
				     struct listener *li))
{
	struct proxy *px;
	struct bind_conf *bc;
	struct listener *li;
	int errors = 0;

	for (px = proxies; px; px = px->next) {
		if (!(px->cap & PR_CAP_FE))
			continue;
		list_for_each_entry(bc, &px->binds, list)
			list_for_each_entry(li, &bc->listeners, list)
				errors += fn(px, bc, li) < 0;
	}
	return errors;
}

static int listener_bind_one(struct proxy *px, struct bind_conf *bc, struct listener *li)
{
	char err[256], addr[160];
	int backlog = bc->backlog ? bc->backlog : px->backlog ? px->backlog :
		      px->maxconn ? px->maxconn : global.maxconn;

	li->accept = h1_front_accept;
	if (listener_bind(li, backlog, err, sizeof(err)) == 0)
		return 0;
	ha_alert("Binding [%s:%d] for frontend %s: cannot bind socket (%s) for [%s]\n", bc->file,
		 bc->line, px->id, err, addr_to_str(&li->addr, addr, sizeof(addr)));
	return -1;
}

int listeners_bind_all(void)
{
	if (!foreach_listener(listener_bind_one))
		return 0;
	ha_alert("[%s.main()] Some protocols failed to start their listeners! Exiting.\n",
		 "haproxy");
	return -1;
}

static int listener_stop_one(struct proxy *px, struct bind_conf *bc, struct listener *li)
{
	listener_stop(li);
	return 0;
}

static int listener_enable_one(struct proxy *px, struct bind_conf *bc, struct listener *li)
{
	return listener_enable(li);
}

static void listeners_stop_all(void)
{
	foreach_listener(listener_stop_one);
}

static int listeners_enable_all(void)
{
	return foreach_listener(listener_enable_one) ? -1 : 0;
}

/* Signals arrive through a signalfd polled by the loop: SIGTERM/SIGINT stop at once,
 * SIGUSR1 stops gracefully (no new connections, in-flight exchanges finish). */
static void sig_iocb(struct fd_handler *h, uint32_t events)
{
	struct signalfd_siginfo si;

	while (read(h->fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			th_ctx->stopped = true;
			break;
		case SIGUSR1:
			if (!th_ctx->stopping) {
				th_ctx->stopping = true;
				graceful_pending = true;
				if (global.hard_stop_after) {
					hard_stop_timer.cb = hard_stop_cb;
					timer_set(&hard_stop_timer, tick_add(global.hard_stop_after));
				}
			}
			break;
		default:
			break;
		}
	}
}

static int signals_init(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -1;
	signal(SIGPIPE, SIG_IGN);
	sig_handler.fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sig_handler.fd < 0)
		return -1;
	sig_handler.iocb = sig_iocb;
	return fd_register_listener(&sig_handler);
}

/* Graceful stop: once listeners are closed, the loop ends when no connection is left. */
static bool stop_check(void)
{
	struct proxy *px;

	if (graceful_pending) {
		graceful_pending = false;
		listeners_stop_all();
	}
	/* nothing waits on idle connections: close them as they appear */
	h1_front_close_idle();
	for (px = proxies; px; px = px->next)
		for (struct server *srv = px->srv; srv; srv = srv->next)
			h1_back_close_idle(srv);
	return th_ctx->nb_conns == 0;
}

int runtime_run(void (*ready)(void))
{
	if (loop_init_thread() < 0 || signals_init() < 0 || listeners_enable_all() < 0) {
		ha_alert("cannot start the event loop: %s\n", strerror(errno));
		return 1;
	}
	if (ready)
		ready();
	loop_run(stop_check);
	listeners_stop_all();
	pool_flush_thread();
	loop_deinit_thread();
	return 0;
}
