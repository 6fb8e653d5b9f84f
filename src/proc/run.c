/* Running: one thread per configured thread, each with its own event loop, bound to its
 * CPUs (cpu-map) and to its thread group; signals (through a signalfd polled by thread 0)
 * and the two ways of stopping: SIGTERM/SIGINT stop every loop at once, SIGUSR1 stops
 * accepting and lets each thread end when its last connection is gone (bounded by
 * hard-stop-after, after "grace"). SIGTTOU/SIGTTIN pause and resume the listeners.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <backend/server-t.h>
#include <base/atomic.h>
#include <base/ev_report.h>
#include <base/pool.h>
#include <cfg/cfg.h>
#include <check/check.h>
#include <dns/dns.h>
#include <cli/cli.h>
#include <conn/listener.h>
#include <event/inbox.h>
#include <event/loop.h>
#include <log/log-t.h>
#include <log/logfwd.h>
#include <lua/hlua.h>
#include <log/ring.h>
#include <mux/h1.h>
#include <proc/global-t.h>
#include <proc/runtime.h>
#include <proxy/proxy.h>
#include <sample/regex.h>
#include <sample/sample.h>
#include <stats/counters.h>
#include <stats/stats.h>
#include <ssl/ssl.h>
#include <thread/thread-t.h>

static struct fd_handler sig_handler;     /* thread 0 only */
static struct timer hard_stop_timer;      /* thread 0 only */
static struct timer grace_timer;          /* thread 0 only */
static pthread_barrier_t start_barrier;
static void (*ready_cb)(void);
static int start_failed;                  /* a thread could not start its loop (atomic) */
static int threads_listening;             /* threads still polling listeners (atomic) */
static int soft_stop_requested;           /* atomic */
static int threads_running;               /* threads still in their loop (atomic) */
int runtime_stop_signal;                  /* SIGTERM/SIGINT that stopped the loops, or 0 */
static bool listeners_paused;             /* SIGTTOU state, written by thread 0 (atomic) */

/* Stop requests, one per thread, run by the target thread. */
static struct inbox_item stop_items[MAX_THREADS];
static struct inbox_item soft_items[MAX_THREADS];
static struct inbox_item pause_items[MAX_THREADS];  /* SIGTTOU/SIGTTIN, by thread 0 */

static int nb_threads(void)
{
	return global.nbthread > 0 ? global.nbthread : 1;
}

static void stop_item_run(struct inbox_item *it)
{
	th_ctx->stopped = true;
}

/* "Proxy NAME stopped (cumulated conns: FE: N, BE: M)." for each proxy, in config order, on
 * stderr and at warning in its logs, as 2.6 says it on a soft stop. */
static void soft_report_proxies(void)
{
	for (const struct proxy *px = proxies; px; px = px->next) {
		struct fe_counters fe = { 0 };
		struct be_counters be = { 0 };

		if (px->fe_cnt && (px->cap & PR_CAP_FE))
			fe_counters_sum(px->fe_cnt, &fe);
		if (px->be_cnt && (px->cap & PR_CAP_BE))
			be_counters_sum(px->be_cnt, &be);
		ev_report(px, LOG_LVL_WARNING, EV_OUT_WARNING,
			  "Proxy %s stopped (cumulated conns: FE: %llu, BE: %llu).", px->id,
			  (unsigned long long)fe.cum_conn, (unsigned long long)be.cum_sess);
	}
}

/* This thread stops accepting; the last one to do so closes the listening sockets. */
static void soft_item_run(struct inbox_item *it)
{
	if (th_ctx->stopping)
		return;
	th_ctx->stopping = true;
	if (tid == 0)
		cli_stop();
	listeners_thread_disable();
	if (HA_ATOMIC_SUB(&threads_listening, 1) == 0) {
		listeners_close_all();
		soft_report_proxies();
	}
}

static void broadcast(struct inbox_item *items, void (*fn)(struct inbox_item *))
{
	for (int t = 0; t < nb_threads(); t++) {
		items[t].fn = fn;
		if (t == (int)tid)
			fn(&items[t]);
		else
			inbox_push(t, &items[t]);
	}
}

/* SIGTTOU/SIGTTIN: each thread follows the process-wide state (a stopping one has no
 * registration left). The sockets changed before the broadcast.
 */
static void pause_item_run(struct inbox_item *it)
{
	if (th_ctx->stopping)
		return;
	if (HA_ATOMIC_LOAD(&listeners_paused))
		listeners_thread_pause();
	else
		listeners_thread_resume();
}

static void pause_signal(bool pause)
{
	if (HA_ATOMIC_LOAD(&soft_stop_requested) || HA_ATOMIC_LOAD(&listeners_paused) == pause)
		return;
	if (pause)
		listeners_pause_all();
	else
		listeners_resume_all();
	HA_ATOMIC_STORE(&listeners_paused, pause);
	broadcast(pause_items, pause_item_run);
}

static void hard_stop_cb(struct timer *t)
{
	broadcast(stop_items, stop_item_run);
}

/* The soft stop proper: "close-spread-time" counts from here. */
static void soft_stop_begin(void)
{
	HA_ATOMIC_STORE(&global.stop_start_ms, now_ms());
	broadcast(soft_items, soft_item_run);
}

static void grace_cb(struct timer *t)
{
	soft_stop_begin();
}

/* SIGUSR1 (or -sf from a new process): hard-stop-after counts from here; with "grace" the
 * listeners keep accepting that long first ("stopping" is already true), as HAProxy 2.6.
 */
static void soft_stop_start(void)
{
	if (HA_ATOMIC_XCHG(&soft_stop_requested, 1))
		return;
	HA_ATOMIC_STORE(&global.stop_requested, 1);
	if (global.hard_stop_after) {
		hard_stop_timer.cb = hard_stop_cb;
		timer_set(&hard_stop_timer, tick_add(global.hard_stop_after));
	}
	if (global.grace) {
		grace_timer.cb = grace_cb;
		timer_set(&grace_timer, tick_add(global.grace));
		return;
	}
	soft_stop_begin();
}

static void sig_iocb(struct fd_handler *h, uint32_t events)
{
	struct signalfd_siginfo si;

	while (read(h->fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			HA_ATOMIC_STORE(&runtime_stop_signal, (int)si.ssi_signo);
			broadcast(stop_items, stop_item_run);
			break;
		case SIGUSR1:
			soft_stop_start();
			break;
		case SIGTTOU:
			pause_signal(true);
			break;
		case SIGTTIN:
			pause_signal(false);
			break;
		default:
			break;
		}
	}
}

/* Blocks the handled signals in every thread (threads inherit the mask). */
static int signals_block(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGUSR1);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGTTOU);
	sigaddset(set, SIGTTIN);
	signal(SIGPIPE, SIG_IGN);
	return pthread_sigmask(SIG_BLOCK, set, NULL);
}

static int signals_listen(const sigset_t *set)
{
	sig_handler.fd = signalfd(-1, set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sig_handler.fd < 0)
		return -1;
	sig_handler.iocb = sig_iocb;
	return fd_register_listener(&sig_handler);
}

/* Graceful stop: idle connections are closed as they appear; a thread ends when it owns
 * no connection and no thread accepts any more (so none can be handed to it). */
static bool stop_check(void)
{
	h1_front_close_idle();
	for (struct proxy *px = proxies; px; px = px->next)
		for (struct server *srv = px->srv; srv; srv = srv->next)
			h1_back_close_idle(srv);
	if (th_ctx->nb_conns || HA_ATOMIC_LOAD(&threads_listening))
		return false;
	/* a connection handed over by another thread may still be on its way */
	if (HA_ATOMIC_LOAD(&th_ctx->sh.load) || HA_ATOMIC_LOAD(&th_ctx->sh.inbox_head))
		return false;
	/* thread 0 reads the signals and runs hard-stop-after: it leaves last */
	return tid != 0 || HA_ATOMIC_LOAD(&threads_running) == 1;
}

static void thread_set_identity(int t)
{
	tid = (unsigned int)t;
	tgid = 1;
	for (int g = 0; g < thread_cfg.ngroups; g++)
		if (t >= thread_cfg.groups[g].base &&
		    t < thread_cfg.groups[g].base + thread_cfg.groups[g].count)
			tgid = (unsigned int)g + 1;
	if (thread_cfg.has_cpus[t])
		pthread_setaffinity_np(pthread_self(), sizeof(cpu_set_t), &thread_cfg.cpus[t]);
}

static int thread_start_loop(const sigset_t *set)
{
	if (loop_init_thread() < 0 || inbox_init() < 0 || smp_trash_init_thread() < 0 ||
	    regex_thread_init() < 0)
		return -1;
	if (tid == 0 && (signals_listen(set) < 0 || cli_start() < 0 || dns_thread_start() < 0 ||
			 ring_thread_start() < 0 || logfwd_thread_start() < 0 ||
			 stats_rates_start() < 0))
		return -1;
	if (listeners_enable_thread() < 0 || hlua_thread_start() < 0)
		return -1;
	checks_thread_start();
	return 0;
}

static void *thread_main(void *arg)
{
	int t = (int)(intptr_t)arg;
	sigset_t set;

	thread_set_identity(t);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTTOU);
	sigaddset(&set, SIGTTIN);
	if (thread_start_loop(&set) < 0) {
		ha_alert("thread %d: cannot start its event loop: %s\n", t + 1, strerror(errno));
		HA_ATOMIC_STORE(&start_failed, 1);
	}
	pthread_barrier_wait(&start_barrier);
	if (HA_ATOMIC_LOAD(&start_failed))
		return NULL;
	if (t == 0 && ready_cb)
		ready_cb();
	loop_run(stop_check);
	HA_ATOMIC_DEC(&threads_running);
	if (t == 0) {
		cli_stop();
		dns_thread_stop();
		ring_thread_stop();
		logfwd_thread_stop();
		stats_rates_stop();
	}
	hlua_thread_stop();
	h1_release_all();
	checks_thread_stop();
	listeners_thread_disable();
	loop_release_deferred();
	smp_trash_deinit_thread();
	ssl_mem_thread_release();
	regex_thread_release();
	pool_flush_thread();
	return NULL;
}

int runtime_run(void (*ready)(void))
{
	int n = nb_threads(), started = 1;
	pthread_t th[MAX_THREADS];
	sigset_t set;

	if (signals_block(&set) != 0 || pthread_barrier_init(&start_barrier, NULL, (unsigned)n)) {
		ha_alert("cannot prepare the threads: %s\n", strerror(errno));
		return 1;
	}
	ready_cb = ready;
	threads_listening = n;
	threads_running = n;
	for (; started < n; started++) {
		if (pthread_create(&th[started], NULL, thread_main, (void *)(intptr_t)started)) {
			ha_alert("cannot create thread %d: %s\n", started + 1, strerror(errno));
			exit(1); /* the started threads wait on the barrier forever */
		}
	}
	thread_main((void *)0);
	for (int t = 1; t < n; t++)
		pthread_join(th[t], NULL);
	listeners_close_all();
	pthread_barrier_destroy(&start_barrier);
	return HA_ATOMIC_LOAD(&start_failed) ? 1 : 0;
}
