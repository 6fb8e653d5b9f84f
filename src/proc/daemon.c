/* Daemon mode and pidfile: the launcher/child split of -D with a readiness pipe, the pidfile
 * written by the serving process and removed at clean exit, and the -sf/-st signals to old
 * processes. Runs during single-threaded startup (and at exit); owns no runtime state.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cfg/cfg.h>
#include <proc/daemon.h>

#define DAEMON_READY_BYTE 'R'

static int daemon_ready_fd = -1;    /* child: write end of the readiness pipe */
static int pidfile_fd = -1;	    /* opened by pidfile_open(), closed by pidfile_write() */
static char pidfile_path[PATH_MAX]; /* absolute path, empty when no pidfile was created */
static pid_t pidfile_owner;	    /* the process that wrote it: only it removes it */

/* Launcher side: blocks until the child reports readiness or dies, then exits. */
static void __attribute__((noreturn)) daemon_wait_child(pid_t child, int rfd)
{
	char c;
	ssize_t ret;
	int status;

	do {
		ret = read(rfd, &c, 1);
	} while (ret < 0 && errno == EINTR);
	if (ret == 1 && c == DAEMON_READY_BYTE)
		_exit(0);

	/* The pipe closed without the byte: the child exited. Report its status. */
	pidfile_remove();
	while (waitpid(child, &status, 0) < 0) {
		if (errno != EINTR)
			_exit(1);
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
		_exit(WEXITSTATUS(status));
	_exit(1);
}

/* Points <fd> to /dev/null. Returns 0 or -1. */
static int daemon_null_fd(int fd)
{
	int nfd = open("/dev/null", O_RDWR | O_CLOEXEC);
	int ret = 0;

	if (nfd < 0)
		return -1;
	if (nfd != fd && dup2(nfd, fd) < 0)
		ret = -1;
	if (nfd != fd)
		close(nfd);
	return ret;
}

int daemon_start(void)
{
	int pfd[2];
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		ha_alert("Cannot create the daemon readiness pipe: %s.\n", strerror(errno));
		return -1;
	}
	fflush(NULL); /* no buffered output may be printed twice */
	pid = fork();
	if (pid < 0) {
		ha_alert("Cannot fork the daemon: %s.\n", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid > 0) {
		close(pfd[1]);
		daemon_wait_child(pid, pfd[0]);
	}

	close(pfd[0]);
	daemon_ready_fd = pfd[1];
	setsid();
	if (chdir("/") < 0 || daemon_null_fd(STDIN_FILENO) < 0 ||
	    daemon_null_fd(STDOUT_FILENO) < 0) {
		ha_alert("Cannot detach the daemon: %s.\n", strerror(errno));
		return -1;
	}
	return 0;
}

void daemon_report_ready(bool keep_stderr)
{
	char c = DAEMON_READY_BYTE;
	ssize_t ret;

	if (daemon_ready_fd < 0)
		return;
	if (!keep_stderr) {
		fflush(stderr);
		/* stdin is /dev/null since daemon_start(): no open(), which a chroot (or a
		 * dropped privilege) might not allow any more */
		dup2(STDIN_FILENO, STDERR_FILENO);
	}
	do {
		ret = write(daemon_ready_fd, &c, 1);
	} while (ret < 0 && errno == EINTR);
	close(daemon_ready_fd);
	daemon_ready_fd = -1;
}

/* Stores <path> as an absolute path in pidfile_path. Returns 0 or -1 if it does not fit. */
static int pidfile_set_path(const char *path)
{
	char cwd[PATH_MAX];
	int n;

	if (path[0] == '/') {
		n = snprintf(pidfile_path, sizeof(pidfile_path), "%s", path);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return -1;
		n = snprintf(pidfile_path, sizeof(pidfile_path), "%s/%s", cwd, path);
	}
	if (n < 0 || (size_t)n >= sizeof(pidfile_path)) {
		pidfile_path[0] = '\0';
		return -1;
	}
	return 0;
}

int pidfile_open(const char *path)
{
	if (pidfile_set_path(path) < 0) {
		ha_alert("Cannot create pidfile %s: path too long.\n", path);
		return -1;
	}
	pidfile_fd = open(pidfile_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (pidfile_fd < 0) {
		ha_alert("Cannot create pidfile %s: %s.\n", path, strerror(errno));
		pidfile_path[0] = '\0';
		return -1;
	}
	pidfile_owner = getpid();
	return 0;
}

int pidfile_write(void)
{
	char buf[32];
	int len;

	if (pidfile_fd < 0)
		return 0;
	pidfile_owner = getpid();
	len = snprintf(buf, sizeof(buf), "%d\n", (int)pidfile_owner);
	if (write(pidfile_fd, buf, len) != len) {
		ha_alert("Cannot write pidfile %s: %s.\n", pidfile_path, strerror(errno));
		close(pidfile_fd);
		pidfile_fd = -1;
		return -1;
	}
	close(pidfile_fd);
	pidfile_fd = -1;
	return 0;
}

void pidfile_remove(void)
{
	if (!pidfile_path[0] || pidfile_owner != getpid())
		return;
	unlink(pidfile_path);
	pidfile_path[0] = '\0';
}

void pidfile_forget(void)
{
	pidfile_path[0] = '\0';
}

void daemon_signal_pids(const pid_t *pids, int nb, int sig)
{
	int i;

	for (i = 0; i < nb; i++) {
		if (kill(pids[i], sig) < 0 && errno != ESRCH)
			ha_warning("Cannot signal old process %d: %s.\n", (int)pids[i],
				   strerror(errno));
	}
}
