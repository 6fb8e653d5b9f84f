/* Master-worker mode: the master process (single-threaded) forks the worker after the
 * listeners are bound, then waits in a poll() loop on a signalfd and on one readiness
 * pipe per new worker. Reload (SIGUSR2/SIGHUP): the master re-executes itself, passing
 * its workers (HAPX_MWORKER_KIDS) and its listening sockets (HAPX_LISTEN_FDS) in the
 * environment; the new image loads the config, forks a worker and soft-stops the old ones
 * once it is ready. A config that fails to load re-executes the master in wait mode
 * (HAPX_MWORKER_WAIT): no config, the old workers keep serving.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include <sys/socket.h>

#include <cfg/cfg.h>
#include <cli/cli.h>
#include <conn/listener_fds.h>
#include <proc/daemon.h>
#include <proc/global-t.h>
#include <proc/mcli.h>
#include <proc/mworker.h>
#include <proc/program.h>
#include <proc/sd_notify.h>
#include <time.h>

#define MW_ENV_KIDS "HAPX_MWORKER_KIDS"	    /* "PID:RELOADS:CURRENT:START:LINKFD,..." */
#define MW_ENV_REEXEC "HAPX_MWORKER_REEXEC" /* set in a re-executed master */
#define MW_ENV_WAIT "HAPX_MWORKER_WAIT"	    /* re-executed after a failed reload */
#define MW_MAX_KIDS 256
#define MW_READY_BYTE 'R'

bool mworker_mode;
int mworker_max_reloads = -1; /* "mworker-max-reloads", -1 = unlimited */

static struct mworker_proc kids[MW_MAX_KIDS];
static int nkids;
static char **mw_argv;
static char mw_exe[PATH_MAX];
static char *mw_lfds_saved; /* HAPX_LISTEN_FDS as received, for wait mode */
static bool mw_reexec, mw_loading, mw_stopping, mw_first_ready;
static int mw_worker_fd = -1; /* worker: write end of its readiness pipe */

static void mw_parse_kids(const char *s)
{
	while (s && *s && nkids < MW_MAX_KIDS) {
		int pid, rel, cur, link, n = 0;
		long long start;

		if (sscanf(s, "%d:%d:%d:%lld:%d%n", &pid, &rel, &cur, &start, &link, &n) != 5 ||
		    pid <= 0)
			return;
		if (link >= 0 && fcntl(link, F_SETFD, FD_CLOEXEC) < 0)
			link = -1;
		kids[nkids++] = (struct mworker_proc){ pid, rel, -1, cur != 0, start, link };
		s += n;
		if (*s == ',')
			s++;
	}
}

static int mw_clear_cloexec(int fd, int grp)
{
	return fcntl(fd, F_SETFD, 0) < 0 ? -1 : 0;
}

/* Re-executes the master image; returns only on failure. */
static void mw_exec(bool wait_mode)
{
	char buf[MW_MAX_KIDS * 32], lf[16384];
	size_t off = 0;

	buf[0] = '\0';
	for (int i = 0; i < nkids; i++) {
		int n = snprintf(buf + off, sizeof(buf) - off, "%s%d:%d:%d:%lld:%d", off ? "," : "",
				 (int)kids[i].pid, kids[i].reloads, kids[i].current, kids[i].start,
				 kids[i].link_fd);

		if (kids[i].link_fd >= 0)
			fcntl(kids[i].link_fd, F_SETFD, 0); /* kept across the exec */
		if (n < 0 || (size_t)n >= sizeof(buf) - off)
			break;
		off += (size_t)n;
	}
	setenv(MW_ENV_KIDS, buf, 1);
	mcli_export_env(); /* the master CLI's sockets and counters */
	program_export_env();
	if (!wait_mode && lfds_export(lf, sizeof(lf)) == 0 && cli_export_fds(lf, sizeof(lf)) == 0 &&
	    lf[0])
		setenv(LFDS_ENV, lf, 1);
	else if (mw_lfds_saved) {
		lfds_parse_env(mw_lfds_saved, mw_clear_cloexec);
		setenv(LFDS_ENV, mw_lfds_saved, 1);
	}
	setenv(MW_ENV_REEXEC, "1", 1);
	if (wait_mode)
		setenv(MW_ENV_WAIT, "1", 1);
	else
		unsetenv(MW_ENV_WAIT);
	fflush(NULL);
	execv(mw_exe, mw_argv);
	ha_alert("Cannot re-execute the master (%s): %s.\n", mw_exe, strerror(errno));
}

/* An exit while a re-executed master loads its config: back to the old workers. */
static void mw_atexit(void)
{
	if (!mw_loading)
		return;
	mw_loading = false;
	cfg_phase = false;
	ha_warning("Loading failure!\n"); /* as 2.6; then wait mode, silently */
	mcli_reload_failed();
	sd_notify_send("READY=1\nSTATUS=Reload failed: the new configuration did not load; "
		       "the previous worker keeps serving.\n");
	mw_exec(true);
}

static void __attribute__((noreturn)) mw_loop(void);

void mworker_init(int argc, char **argv)
{
	const char *s;
	ssize_t n;

	mw_argv = argv;
	for (int i = 1; i < argc; i++) /* wait mode does not parse the command line */
		if (strcmp(argv[i], "-Ws") == 0)
			sd_notify_mode = true;
	n = readlink("/proc/self/exe", mw_exe, sizeof(mw_exe) - 1);
	if (n <= 0)
		snprintf(mw_exe, sizeof(mw_exe), "%s", argv[0]);
	else
		mw_exe[n] = '\0';
	if (!getenv(MW_ENV_REEXEC))
		return;
	mw_reexec = true;
	mworker_mode = true;
	unsetenv(MW_ENV_REEXEC);
	mw_parse_kids(getenv(MW_ENV_KIDS));
	unsetenv(MW_ENV_KIDS);
	mcli_import_env();
	program_import_env();
	s = getenv(LFDS_ENV);
	if (s && !(mw_lfds_saved = strdup(s)))
		ha_alert("Out of memory.\n");
	if (getenv(MW_ENV_WAIT)) {
		unsetenv(MW_ENV_WAIT);
		unsetenv(LFDS_ENV);
		mw_first_ready = true;
		mw_loop();
	}
	mw_loading = true;
	atexit(mw_atexit);
}

const struct mworker_proc *mworker_procs(int *n)
{
	*n = nkids;
	return kids;
}

bool mworker_reexec(void)
{
	return mw_reexec;
}

void mworker_loading_done(void)
{
	mw_loading = false;
}

static void mw_status(int st, int *code, const char **what)
{
	if (WIFEXITED(st)) {
		*code = WEXITSTATUS(st);
		*what = "Exit";
	} else {
		*code = 128 + WTERMSIG(st);
		*what = strsignal(WTERMSIG(st));
	}
}

static void mw_signal_all(int sig, bool old_only)
{
	program_signal(sig, old_only);
	for (int i = 0; i < nkids; i++)
		if (!old_only || !kids[i].current)
			kill(kids[i].pid, sig);
}

/* A new worker reported ready: soft-stop the old ones. */
static void mw_worker_ready(struct mworker_proc *k)
{
	close(k->ready_fd);
	k->ready_fd = -1;
	if (!mw_first_ready) {
		mw_first_ready = true;
		daemon_report_ready(global.debug);
		sd_notifyf("READY=1\nMAINPID=%d\nSTATUS=Ready.\n", (int)getpid());
	}
	program_signal(SIGUSR1, true); /* as 2.6: old programs get what old workers get */
	for (int i = 0; i < nkids; i++) {
		if (kids[i].current)
			continue;
		if (mworker_max_reloads >= 0 && kids[i].reloads > mworker_max_reloads)
			kill(kids[i].pid, SIGTERM);
		else
			kill(kids[i].pid, SIGUSR1);
	}
}

static int mw_exit_code;

static void mw_reap(void)
{
	int st;
	pid_t pid;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		int code, i;
		const char *what;

		for (i = 0; i < nkids && kids[i].pid != pid; i++)
			;
		mw_status(st, &code, &what);
		if (i == nkids) {
			program_reaped(pid, code, what);
			continue; /* not a worker */
		}
		if (kids[i].current) {
			if (code == 0)
				ha_warning("Current worker (%d) exited with code %d (%s)\n",
					   (int)pid, code, what);
			else
				ha_alert("Current worker (%d) exited with code %d (%s)\n", (int)pid,
					 code, what);
			if (!mw_stopping) {
				ha_alert("exit-on-failure: killing every processes with SIGTERM\n");
				mw_signal_all(SIGTERM, true);
				program_signal(SIGTERM, false);
				mw_stopping = true;
				mw_exit_code = code;
			}
		} else {
			ha_warning("Former worker (%d) exited with code %d (%s)\n", (int)pid, code,
				   what);
		}
		if (kids[i].ready_fd >= 0)
			close(kids[i].ready_fd);
		if (kids[i].link_fd >= 0)
			close(kids[i].link_fd);
		kids[i] = kids[--nkids];
	}
}

static void mw_notify_reloading(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	sd_notifyf("RELOADING=1\nMONOTONIC_USEC=%llu\n",
		   (unsigned long long)ts.tv_sec * 1000000ULL +
			   (unsigned long long)ts.tv_nsec / 1000);
}

static void __attribute__((noreturn)) mw_loop(void)
{
	struct pollfd pf[MW_MAX_KIDS + 1 + MCLI_MAX_POLLFDS];
	sigset_t set;
	int sfd;

	cfg_phase = false; /* messages no longer about the config */
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		ha_alert("master: cannot create its signalfd: %s.\n", strerror(errno));
		exit(1);
	}
	mw_reap(); /* children that ended while the image was changing */
	for (;;) {
		struct signalfd_siginfo si;
		int n = 0, nready;

		if (!nkids && !program_count()) {
			ha_warning("All workers exited. Exiting... (%d)\n", mw_exit_code);
			pidfile_remove();
			exit(mw_exit_code);
		}
		pf[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		for (int i = 0; i < nkids; i++)
			if (kids[i].ready_fd >= 0)
				pf[n++] =
					(struct pollfd){ .fd = kids[i].ready_fd, .events = POLLIN };
		nready = n;
		n += mcli_poll_fill(pf + n, MCLI_MAX_POLLFDS);
		if (poll(pf, (nfds_t)n, mcli_poll_timeout()) < 0 && errno != EINTR)
			exit(1);
		mcli_poll_done(pf + nready, n - nready);
		n = nready;
		for (int i = 0; i < nkids; i++) {
			char c;

			if (kids[i].ready_fd < 0)
				continue;
			for (int j = 1; j < n; j++) {
				if (pf[j].fd != kids[i].ready_fd || !pf[j].revents)
					continue;
				if (read(kids[i].ready_fd, &c, 1) == 1 && c == MW_READY_BYTE)
					mw_worker_ready(&kids[i]);
				else {
					close(kids[i].ready_fd);
					kids[i].ready_fd = -1;
				}
			}
		}
		while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			switch (si.ssi_signo) {
			case SIGCHLD:
				mw_reap();
				break;
			case SIGTERM:
			case SIGINT:
			case SIGUSR1:
				ha_warning("Exiting Master process...\n");
				sd_notify_send("STOPPING=1\n");
				mw_stopping = true;
				mw_signal_all((int)si.ssi_signo, false);
				break;
			case SIGUSR2:
			case SIGHUP:
				if (mw_stopping)
					break;
				ha_notice("Reloading HAProxy\n");
				mw_notify_reloading();
				mcli_reloading();
				program_reloading();
				for (int i = 0; i < nkids; i++)
					kids[i].reloads++; /* failed reloads count too, as 2.6 */
				close(sfd);
				mw_exec(false);
				sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
				if (sfd < 0)
					exit(1);
				break;
			default:
				break;
			}
		}
	}
}

int mworker_start(void)
{
	int pfd[2], link[2];
	pid_t pid;

	if (nkids >= MW_MAX_KIDS || pipe2(pfd, O_CLOEXEC) < 0) {
		ha_alert("Cannot fork the worker: too many workers or no pipe.\n");
		return -1;
	}
	program_start_all(); /* before the worker, as 2.6 */
	/* the master CLI's link to this worker, created before the fork */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, link) < 0) {
		ha_alert("Cannot fork the worker: no socketpair: %s.\n", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ha_alert("Cannot fork the worker: %s.\n", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		close(link[0]);
		close(link[1]);
		return -1;
	}
	if (pid == 0) {
		sigset_t none;

		mw_loading = false;
		close(pfd[0]);
		mw_worker_fd = pfd[1];
		close(link[0]);
		for (int i = 0; i < nkids; i++) /* the master's ends of other links */
			if (kids[i].link_fd >= 0)
				close(kids[i].link_fd);
		mcli_close_in_child();
		fcntl(link[1], F_SETFL, O_NONBLOCK);
		cli_master_link_set(link[1]);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		prctl(PR_SET_PDEATHSIG, SIGTERM); /* the master is gone: stop */
		setenv("HAPROXY_MWORKER", "1", 1);
		unsetenv("NOTIFY_SOCKET"); /* only the master talks to systemd */
		return 0;
	}
	close(pfd[1]);
	close(link[1]);
	fcntl(link[0], F_SETFL, O_NONBLOCK);
	mw_loading = false;
	for (int i = 0; i < nkids; i++)
		kids[i].current = false;
	kids[nkids++] =
		(struct mworker_proc){ pid, 0, pfd[0], true, (long long)time(NULL), link[0] };
	ha_notice("New worker (%d) forked\n", (int)pid);
	ha_notice("Loading success.\n");
	lfds_close_unclaimed();
	mw_loop();
}

bool mworker_worker_ready(void)
{
	char c = MW_READY_BYTE;

	if (mw_worker_fd < 0)
		return false;
	if (write(mw_worker_fd, &c, 1) != 1)
		ha_warning("Cannot tell the master this worker is ready: %s.\n", strerror(errno));
	close(mw_worker_fd);
	mw_worker_fd = -1;
	if (global.daemon && !global.debug) { /* as the master does: detach from the launcher */
		int nfd = open("/dev/null", O_WRONLY | O_CLOEXEC);

		fflush(stderr);
		if (nfd >= 0) {
			dup2(nfd, STDERR_FILENO);
			close(nfd);
		}
	}
	return true;
}

/* ---- configuration ---- */

static int mw_cfg_master_worker(struct cfg_ctx *ctx)
{
	if (ctx->nargs > 1 && strcmp(ctx->args[1], "no-exit-on-failure") == 0) {
		cfg_alert(ctx, "'master-worker no-exit-on-failure' is not supported yet (a worker "
			       "that dies always stops the master).");
		return -1;
	}
	if (ctx->nargs > 1) {
		cfg_alert(ctx, "'master-worker' only supports 'no-exit-on-failure' option.");
		return -1;
	}
	mworker_mode = true;
	return 0;
}

static int mw_cfg_max_reloads(struct cfg_ctx *ctx)
{
	long v;

	if (cfg_need_args(ctx, 1) < 0 || cfg_parse_int_arg(ctx, ctx->args[1], 0, INT_MAX, &v) < 0)
		return -1;
	mworker_max_reloads = (int)v;
	return 0;
}

static const struct cfg_kw mw_cfg_kws[] = {
	{ "master-worker", CFG_SEC_GLOBAL, mw_cfg_master_worker },
	{ "mworker-max-reloads", CFG_SEC_GLOBAL, mw_cfg_max_reloads },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(mw_cfg_kws)
