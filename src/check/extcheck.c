/* External checks at run time: posix_spawn() of "external-check command" with the four
 * arguments and the HAPROXY_* environment 2.6 gives it, watched through a pidfd
 * registered in the check thread's loop (readable when the child exits), so the loop
 * never blocks. Exit code 0 is PROCOK, another PROCERR with the code; at the deadline
 * the child is killed and the run ends PROCTOUT once it is reaped.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <backend/server-t.h>
#include <base/atomic.h>
#include <base/list.h>
#include <check/check.h>
#include <check/extcheck.h>
#include <conn/listener-t.h>
#include <event/loop.h>
#include <proc/global-t.h>
#include <proxy/proxy.h>

extern char **environ;

/* Entries of the process's environment counted by extchk_mem_size() (config time, read
 * only afterwards): the bound of what a preserve-env run copies. */
static size_t extchk_env_n;

size_t extchk_mem_size(void)
{
	if (!extchk_preserve_env)
		return EXTCHK_MEM;
	if (!extchk_env_n)
		for (char **e = environ; e && *e; e++)
			extchk_env_n++;
	return EXTCHK_MEM + (extchk_env_n + 16) * sizeof(char *);
}

/* True if the "NAME=value" <e> names one of the variables of ev[0..k). */
static bool extchk_env_set(char *const *ev, int k, const char *e)
{
	size_t n = strcspn(e, "=");

	for (int i = 0; i < k; i++)
		if (!strncmp(ev[i], e, n) && ev[i][n] == '=')
			return true;
	return false;
}

/* preserve-env: the HAPROXY_* variables of ev[0..k) (PATH only when <path> is set) then
 * the process's other variables, in the room after EXTCHK_MEM. Returns the new envp. */
static char **extchk_env_keep(struct check *c, char **ev, int k, bool path)
{
	char **out = (char **)(c->ext_mem + EXTCHK_MEM);
	size_t n = 0, room = extchk_env_n + 15;
	int ours;

	for (int i = 0; i < k; i++)
		if (path || strncmp(ev[i], "PATH=", 5))
			out[n++] = ev[i];
	ours = (int)n;
	for (char **e = environ; e && *e && n < room; e++)
		if (!extchk_env_set(out, ours, *e))
			out[n++] = *e;
	out[n] = NULL;
	return out;
}

/* Address and port of <ss> as text ("" and 0 when not inet). */
static void extchk_addr(const struct sockaddr_storage *ss, char *a, size_t asz, int *port)
{
	*a = 0;
	*port = 0;
	if (ss->ss_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, a, (socklen_t)asz);
		*port = ntohs(((const struct sockaddr_in *)ss)->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, a,
			  (socklen_t)asz);
		*port = ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	}
}

/* Appends a NUL-terminated formatted string to the check's memory; returns it or NULL. */
static char *extchk_put(char *mem, size_t *off, size_t end, const char *fmt, const char *s, int n)
{
	int w = snprintf(mem + *off, end - *off, fmt, s, n);
	char *r = mem + *off;

	if (w < 0 || (size_t)w >= end - *off)
		return NULL;
	*off += (size_t)w + 1;
	return r;
}

/* Builds argv (4 arguments) and envp in c->ext_mem. Returns 0 or -1 (does not fit). */
static int extchk_build(struct check *c, char ***argv, char ***envp)
{
	const struct server *s = c->srv;
	const struct proxy *px = s->px, *p;
	char **av = (char **)c->ext_mem, **ev = av + 6, pa[64] = "NOT_USED", sa[64], num[16];
	size_t off = 32 * sizeof(char *), end = EXTCHK_MEM;
	int pport = 0, sport, pid = 1, k = 0;
	const struct bind_conf *bc;

	for (p = proxies; p && p != px; p = p->next)
		pid++;
	list_for_each_entry(bc, &px->binds, list)
	{
		const struct listener *li;

		list_for_each_entry(li, &bc->listeners, list)
		{
			extchk_addr(&li->addr, pa, sizeof(pa), &pport);
			goto found;
		}
	}
found:
	extchk_addr(&s->addr, sa, sizeof(sa), &sport);
	av[0] = (char *)px->extchk_cmd;
	av[1] = extchk_put(c->ext_mem, &off, end, "%s", pa, 0);
	snprintf(num, sizeof(num), "%d", pport);
	av[2] = extchk_put(c->ext_mem, &off, end, "%s", pport ? num : "NOT_USED", 0);
	av[3] = extchk_put(c->ext_mem, &off, end, "%s", sa, 0);
	av[4] = extchk_put(c->ext_mem, &off, end, "%s%.0d", "", sport);
	av[5] = NULL;
	ev[k++] = extchk_put(c->ext_mem, &off, end, "HAPROXY_PROXY_ADDR=%s", pa, 0);
	ev[k++] = extchk_put(c->ext_mem, &off, end, "HAPROXY_PROXY_ID=%s%d", "", pid);
	ev[k++] = extchk_put(c->ext_mem, &off, end, "HAPROXY_PROXY_NAME=%s", px->id, 0);
	ev[k++] = extchk_put(c->ext_mem, &off, end, "HAPROXY_PROXY_PORT=%s", av[2], 0);
	ev[k++] = extchk_put(c->ext_mem, &off, end, "HAPROXY_SERVER_ADDR=%s", sa, 0);
	ev[k++] = extchk_put(c->ext_mem, &off, end, "HAPROXY_SERVER_CURCONN=%s%d", "",
			     HA_ATOMIC_LOAD_RLX(&s->cur_conns));
	ev[k++] = extchk_put(c->ext_mem, &off, end, "HAPROXY_SERVER_ID=%s%d", "", s->puid);
	ev[k++] = extchk_put(c->ext_mem, &off, end, "HAPROXY_SERVER_MAXCONN=%s%d", "", s->maxconn);
	ev[k++] = extchk_put(c->ext_mem, &off, end, "HAPROXY_SERVER_NAME=%s", s->id, 0);
	ev[k++] = extchk_put(c->ext_mem, &off, end, "HAPROXY_SERVER_PORT=%s", av[4], 0);
	ev[k++] = extchk_put(c->ext_mem, &off, end, "HAPROXY_SERVER_PROTO=%s", "h1", 0);
	ev[k++] = extchk_put(c->ext_mem, &off, end, "HAPROXY_SERVER_SSL=%s", "0", 0);
	ev[k++] = extchk_put(c->ext_mem, &off, end, "PATH=%s",
			     px->extchk_path ? px->extchk_path : "", 0);
	ev[k] = NULL;
	for (int i = 1; i < 5; i++)
		if (!av[i])
			return -1;
	for (int i = 0; i < k; i++)
		if (!ev[i])
			return -1;
	*argv = av;
	*envp = extchk_preserve_env ? extchk_env_keep(c, ev, k, px->extchk_path != NULL) : ev;
	return 0;
}

void extchk_start(struct check *c)
{
	char **argv, **envp;
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc, fd;

	c->ext_killed = false;
	if (!global.insecure_fork) { /* as 2.6 with fork prevention: the check fails */
		chk_finish(c, CHK_R_PROCERR, 0,
			   "fork() prevented: 'insecure-fork-wanted' is not set");
		return;
	}
	if (extchk_build(c, &argv, &envp) < 0) {
		chk_finish(c, CHK_R_PROCERR, 0, "arguments too long");
		return;
	}
	if (posix_spawn_file_actions_init(&fa) != 0) {
		chk_finish(c, CHK_R_PROCERR, 0, "out of memory");
		return;
	}
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		chk_finish(c, CHK_R_PROCERR, 0, strerror(rc));
		return;
	}
	c->ext_pid = pid;
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd >= 0)
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	c->fh.fd = fd;
	if (fd < 0 || fd_register(&c->fh) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		c->fh.fd = -1;
		extchk_stop(c);
		chk_finish(c, CHK_R_PROCERR, 0, strerror(e));
		return;
	}
	c->phase = 3; /* running (check.c's timer only tests for idle) */
	c->timer.expire = 0;
	timer_set(&c->timer, c->start_ms + (uint64_t)c->srv->inter);
}

void extchk_io(struct check *c)
{
	int status = 0;
	pid_t r = c->ext_pid ? waitpid(c->ext_pid, &status, WNOHANG) : -1;

	if (r == 0)
		return; /* not yet */
	c->ext_pid = 0;
	if (c->ext_killed)
		chk_finish(c, CHK_R_PROCTOUT, 0, NULL);
	else if (r < 0)
		chk_finish(c, CHK_R_PROCERR, 0, strerror(errno));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		chk_finish(c, CHK_R_PROCOK, 0, NULL);
	else
		chk_finish(c, CHK_R_PROCERR, WIFEXITED(status) ? WEXITSTATUS(status) : 0, NULL);
}

void extchk_timeout(struct check *c)
{
	if (!c->ext_pid || c->ext_killed) { /* a child that does not die: give up on it */
		extchk_stop(c);
		chk_finish(c, CHK_R_PROCTOUT, 0, NULL);
		return;
	}
	kill(c->ext_pid, SIGKILL);
	c->ext_killed = true;
	timer_set(&c->timer, now_ms() + 1000); /* reaped through the pidfd before that */
}

void extchk_stop(struct check *c)
{
	if (!c->ext || !c->ext_pid)
		return;
	kill(c->ext_pid, SIGKILL);
	waitpid(c->ext_pid, NULL, 0); /* SIGKILL: prompt */
	c->ext_pid = 0;
}
