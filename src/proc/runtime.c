/* From a checked configuration to bound listeners: runtime state of proxies, servers and
 * counters, the fd limit and maxconn, binding. Threads, signals and stops are in run.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <backend/backend.h>
#include <backend/srv_limits.h>
#include <backend/server-t.h>
#include <base/addr.h>
#include <base/buf.h>
#include <base/pool.h>
#include <cfg/cfg.h>
#include <check/check.h>
#include <cli/cli.h>
#include <conn/listener.h>
#include <event/loop.h>
#include <mux/h1.h>
#include <proc/global-t.h>
#include <proc/runtime.h>
#include <proxy/proxy.h>
#include <stats/counters.h>
#include <stream/stream.h>
#include <thread/thread-t.h>

#define FD_RESERVE 100 /* fds kept for listeners, logs, epoll, pipes */

/* The fds HAProxy 2.6 sets aside before deriving maxconn from the fd limit: 20, one per
 * listener, health check and agent check, and three per thread (its poller and its
 * wake-up pipe). */
static rlim_t runtime_fd_reserve(void)
{
	rlim_t n = 20 + 3 * (rlim_t)(global.nbthread > 0 ? global.nbthread : 1);

	for (struct proxy *px = proxies; px; px = px->next) {
		struct bind_conf *bc;
		struct listener *li;

		list_for_each_entry(bc, &px->binds, list)
			list_for_each_entry(li, &bc->listeners, list) n++;
		for (struct server *s = px->srv; s; s = s->next)
			n += !!(s->flags & SRV_F_CHECK) + !!s->agent;
	}
	return n + (rlim_t)cli_configured();
}

/* Raises RLIMIT_NOFILE to fit maxconn (two fds per proxied connection) and derives a
 * default maxconn from the limit when none was set, as HAProxy does. Returns 0, or -1
 * after an alert when the limit cannot be raised that far. */
static int runtime_set_limits(void)
{
	struct rlimit rl;
	rlim_t want, rsv = FD_RESERVE;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -1;
	if (!global.maxconn) {
		rlim_t avail = (global.ulimit_n ? (rlim_t)global.ulimit_n : rl.rlim_max);

		if (avail == RLIM_INFINITY || avail > 2000000)
			avail = 2000000;
		rsv = runtime_fd_reserve();
		global.maxconn = avail > 2 * rsv ? (int)((avail - rsv) / 2) : 100;
		if (global.maxconn > 100000)
			global.maxconn = 100000;
	}
	want = global.ulimit_n ? (rlim_t)global.ulimit_n : (rlim_t)global.maxconn * 2 + rsv;
	if (want > rl.rlim_cur) {
		rl.rlim_cur = want;
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want)
			rl.rlim_max = want;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
			struct rlimit cur;

			/* As HAProxy (strict limits by default): a maxconn that cannot be
			 * served would fail at the worst moment, under load. */
			getrlimit(RLIMIT_NOFILE, &cur);
			if (global.no_strict_limits) { /* take what the hard limit allows */
				ha_warning("[%s.main()] Cannot raise FD limit to %llu, limit is "
					   "%llu.\n", program_invocation_name,
					   (unsigned long long)want, (unsigned long long)cur.rlim_cur);
				cur.rlim_cur = cur.rlim_max;
				setrlimit(RLIMIT_NOFILE, &cur);
				return 0;
			}
			ha_alert("[%s.main()] Cannot raise FD limit to %llu, limit is %llu.\n",
				 program_invocation_name, (unsigned long long)want,
				 (unsigned long long)cur.rlim_cur);
			return -1;
		}
	}
	return 0;
}

int runtime_prepare(void)
{
	struct proxy *px;

	cfg_phase = false;
	if (global.nbthread < 1)
		global.nbthread = 1;
	if (thread_cfg.ngroups < 1) { /* no thread check ran (e.g. embedded use): one group */
		thread_cfg.ngroups = 1;
		thread_cfg.groups[0].base = 0;
		thread_cfg.groups[0].count = (uint16_t)global.nbthread;
	}
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
	if (counters_alloc(thread_cfg.ngroups > 0 ? thread_cfg.ngroups : 1) < 0) {
		ha_alert("out of memory while allocating counters.\n");
		return -1;
	}
	if (checks_prepare() < 0) {
		ha_alert("out of memory while preparing the health checks.\n");
		return -1;
	}
	if (runtime_set_limits() < 0)
		return -1;
	srv_limits_prepare(); /* reads global.maxconn */
	return 0;
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

static int listener_backlog(const struct proxy *px, const struct bind_conf *bc)
{
	return bc->backlog ? bc->backlog : px->backlog ? px->backlog :
	       px->maxconn ? px->maxconn : global.maxconn;
}

static int listener_bind_one(struct proxy *px, struct bind_conf *bc, struct listener *li)
{
	char err[256], addr[160];
	int backlog = listener_backlog(px, bc);

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

static int listener_close_one(struct proxy *px, struct bind_conf *bc, struct listener *li)
{
	listener_close(li);
	return 0;
}

static int listener_enable_one(struct proxy *px, struct bind_conf *bc, struct listener *li)
{
	return listener_enable(li);
}

void listeners_close_all(void)
{
	foreach_listener(listener_close_one);
}

static int listener_pause_one(struct proxy *px, struct bind_conf *bc, struct listener *li)
{
	listener_pause_sock(li);
	return 0;
}

static int listener_resume_one(struct proxy *px, struct bind_conf *bc, struct listener *li)
{
	listener_resume_sock(li, listener_backlog(px, bc));
	return 0;
}

void listeners_pause_all(void)
{
	listeners_set_paused(true);
	foreach_listener(listener_pause_one);
}

void listeners_resume_all(void)
{
	foreach_listener(listener_resume_one);
	listeners_set_paused(false);
}

int listeners_enable_thread(void)
{
	return foreach_listener(listener_enable_one) ? -1 : 0;
}
