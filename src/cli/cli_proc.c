/* Runtime API commands about the process itself: "show version", "show env", "show
 * threads", "show pools", "show startup-logs", and the process-wide limits "set maxconn
 * global" and "set rate-limit connections|sessions global". The limits are plain ints of
 * struct global read by every thread's accept path: they are written here with relaxed
 * atomic stores (read with relaxed loads there), then every paused listener is retried.
 */
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <base/atomic.h>
#include <base/parse.h>
#include <base/pool.h>
#include <cfg/cfg.h>
#include <cli/cli.h>
#include <conn/listener.h>
#include <conn/listener-t.h>
#include <proxy/proxy.h>
#include <event/loop.h>
#include <proc/global-t.h>
#include <proc/version.h>
#include <ssl/ssl.h>
#include <ssl/ssl_stats.h>
#include <stats/counters.h>
#include <thread/thread-t.h>
#include "cli_int.h"

extern char **environ;

static int cli_proc_msg(struct cli_ctx *ctx, const char *msg)
{
	return cli_write(ctx, msg, strlen(msg)) < 0 ? CLI_MORE : CLI_DONE;
}

static int cli_show_version(struct cli_ctx *ctx)
{
	return cli_printf(ctx, "%s\n", HAPROXY_COMPAT_VERSION) < 0 ? CLI_MORE : CLI_DONE;
}

/* "show env [NAME]": the environment, one VAR=value a line, resumable (n[0]: index). */
static int cli_show_env(struct cli_ctx *ctx)
{
	if (ctx->nargs > 2) {
		size_t len = strlen(ctx->args[2]);

		for (char **e = environ; e && *e; e++)
			if (strncmp(*e, ctx->args[2], len) == 0 && (*e)[len] == '=')
				return cli_printf(ctx, "%s\n", *e) < 0 ? CLI_MORE : CLI_DONE;
		return cli_proc_msg(ctx, "Variable not found\n");
	}
	for (; environ && environ[ctx->n[0]]; ctx->n[0]++)
		if (cli_printf(ctx, "%s\n", environ[ctx->n[0]]) < 0)
			return CLI_MORE;
	return CLI_DONE;
}

/* "show threads": one block per thread, the caller's marked with '*', as HAProxy's header
 * lines; the counters are the thread's own (stats/counters.h), read relaxed. */
static int cli_show_threads(struct cli_ctx *ctx)
{
	for (; ctx->n[0] < (uint64_t)global.nbthread; ctx->n[0]++) {
		int t = (int)ctx->n[0], g = 0;
		const struct thread_activity *a = &activity[t];
		struct thread_ctx *tc = HA_ATOMIC_LOAD(&ha_thread_ctx[t]);

		while (g + 1 < thread_cfg.ngroups && t >= thread_cfg.groups[g + 1].base)
			g++;
		if (cli_printf(ctx,
			       "%c Thread %-2d: act=%d loops=%llu conns=%u\n"
			       "      %d/%-4d  accepted=%llu accq_pushed=%llu streams=%llu "
			       "inbox_items=%llu wakeups=%llu\n",
			       t == (int)tid ? '*' : ' ', t + 1, tc != NULL,
			       (unsigned long long)HA_ATOMIC_LOAD_RLX(&a->loops),
			       tc ? HA_ATOMIC_LOAD_RLX(&tc->nb_conns) : 0U, g + 1,
			       t - thread_cfg.groups[g].base + 1,
			       (unsigned long long)HA_ATOMIC_LOAD_RLX(&a->accepted),
			       (unsigned long long)HA_ATOMIC_LOAD_RLX(&a->accq_pushed),
			       (unsigned long long)HA_ATOMIC_LOAD_RLX(&a->streams),
			       (unsigned long long)HA_ATOMIC_LOAD_RLX(&a->inbox_items),
			       (unsigned long long)HA_ATOMIC_LOAD_RLX(&a->wakeups)) < 0)
			return CLI_MORE;
	}
	return CLI_DONE;
}

/* "show pools": HAProxy's layout over the registry of base/pool.c (pool_stats()). Objects
 * idle in the threads' caches count as used, as HAProxy counts its thread caches. */
static int cli_show_pools(struct cli_ctx *ctx)
{
	unsigned long long bytes = 0, cached = 0, n = 0;
	const struct pool_head *p = ctx->p[0];
	struct pool_stats st;

	if (ctx->st == 0) {
		if (cli_printf(ctx, "Dumping pools usage. Use SIGQUIT to flush them.\n") < 0)
			return CLI_MORE;
		ctx->st = 1;
		p = pools;
	}
	for (; ctx->st == 1 && p; p = p->next) {
		pool_stats(p, &st);
		if (cli_printf(ctx,
			       "  - Pool %.11s (%zu bytes) : %lu allocated (%llu bytes), %lu used "
			       "(~%lu by thread caches), needed_avg %lu, %lu failures, 1 users, "
			       "@%p\n",
			       p->name, p->size, st.allocated,
			       (unsigned long long)st.allocated * p->size, st.allocated, st.cached,
			       st.used, st.failed, (const void *)p) < 0) {
			ctx->p[0] = p;
			return CLI_MORE;
		}
	}
	ctx->st = 2;
	for (p = pools; p; p = p->next, n++) {
		pool_stats(p, &st);
		bytes += (unsigned long long)st.allocated * p->size;
		cached += (unsigned long long)st.cached * p->size;
	}
	return cli_printf(ctx,
			  "Total: %llu pools, %llu bytes allocated, %llu used (~%llu by "
			  "thread caches).\n",
			  n, bytes, bytes, cached) < 0
		       ? CLI_MORE
		       : CLI_DONE;
}

/* "show startup-logs": what the configuration loading printed (cfg_startup_logs()). */
static int cli_show_startup_logs(struct cli_ctx *ctx)
{
	size_t len;
	const char *s = cfg_startup_logs(&len);

	for (; ctx->n[0] < len;) {
		size_t chunk = len - ctx->n[0] > 8192 ? 8192 : len - ctx->n[0];

		if (cli_write(ctx, s + ctx->n[0], chunk) < 0)
			return CLI_MORE;
		ctx->n[0] += chunk;
	}
	return CLI_DONE;
}

/* "show fd": what owns each listening socket of this process, by fd. */
static const char *cli_fd_listener(int fd, const char **fe)
{
	for (const struct cli_bind *b = cli_binds; b; b = b->next)
		if (b->h.fd == fd) {
			*fe = "GLOBAL";
			return "listener";
		}
	for (const struct proxy *px = proxies; px; px = px->next) {
		const struct bind_conf *bc;
		const struct listener *li;

		list_for_each_entry(bc, &px->binds, list) list_for_each_entry(
			li, &bc->listeners, list) for (int i = 0; i < li->nb_shards;
						       i++) if (li->shards[i].fd == fd)
		{
			*fe = px->id;
			return "listener";
		}
	}
	return NULL;
}

/* Writes "fam=... " and the ports/addresses of socket <fd> into dst. */
static void cli_fd_addrs(int fd, bool listening, char *dst, size_t sz)
{
	struct sockaddr_storage la, ra;
	socklen_t ll = sizeof(la), rl = sizeof(ra);
	char lh[INET6_ADDRSTRLEN] = "?", rh[INET6_ADDRSTRLEN] = "?";
	int lp = 0, rp = 0;

	memset(&la, 0, sizeof(la));
	memset(&ra, 0, sizeof(ra));
	if (getsockname(fd, (struct sockaddr *)&la, &ll) < 0 || la.ss_family == AF_UNIX) {
		snprintf(dst, sz, "fam=unix");
		return;
	}
	getpeername(fd, (struct sockaddr *)&ra, &rl);
	if (la.ss_family == AF_INET) {
		inet_ntop(AF_INET, &((struct sockaddr_in *)&la)->sin_addr, lh, sizeof(lh));
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ra)->sin_addr, rh, sizeof(rh));
		lp = ntohs(((struct sockaddr_in *)&la)->sin_port);
		rp = ntohs(((struct sockaddr_in *)&ra)->sin_port);
	} else {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&la)->sin6_addr, lh, sizeof(lh));
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ra)->sin6_addr, rh, sizeof(rh));
		lp = ntohs(((struct sockaddr_in6 *)&la)->sin6_port);
		rp = ntohs(((struct sockaddr_in6 *)&ra)->sin6_port);
	}
	if (listening)
		snprintf(dst, sz, "fam=%s lport=%d", la.ss_family == AF_INET ? "ipv4" : "ipv6", lp);
	else
		snprintf(dst, sz, "fam=%s laddr=%s:%d raddr=%s:%d",
			 la.ss_family == AF_INET ? "ipv4" : "ipv6", lh, lp, rh, rp);
}

/* Describes <fd> into dst; returns false for fds this process does not poll (the pollers
 * themselves, files, pipes). */
static bool cli_fd_describe(int fd, char *dst, size_t sz)
{
	char path[64], link[128], addrs[160];
	const char *fe = NULL, *kind;
	int type = 0;
	socklen_t tl = sizeof(type);
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	if (strcmp(link, "anon_inode:[eventfd]") == 0) {
		snprintf(dst, sz, "owner=inbox");
		return true;
	}
	if (strcmp(link, "anon_inode:[signalfd]") == 0) {
		snprintf(dst, sz, "owner=signals");
		return true;
	}
	if (strncmp(link, "socket:", 7) != 0)
		return false;
	kind = cli_fd_listener(fd, &fe);
	getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl);
	cli_fd_addrs(fd, kind != NULL, addrs, sizeof(addrs));
	if (kind)
		snprintf(dst, sz, "owner=listener l.st=RDY fe=%s %s", fe, addrs);
	else if (cli_is_session_fd(fd))
		snprintf(dst, sz, "owner=conn fe=GLOBAL %s", addrs);
	else
		snprintf(dst, sz, "owner=%s %s", type == SOCK_DGRAM ? "dgram" : "conn", addrs);
	return true;
}

#define CLI_FD_BATCH 128

/* One pass over /proc/self/fd: the (up to CLI_FD_BATCH) smallest fds >= <lo> (or only
 * <only> when >= 0), sorted into fds[]. Returns their number, or -1. */
static int cli_fd_batch(long lo, long only, int *fds)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir("/proc/self/fd");

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		long fd;
		int i;

		if (parse_long(de->d_name, 0, INT_MAX, &fd) < 0 || fd < lo || fd == dirfd(d) ||
		    (only >= 0 && fd != only))
			continue;
		if (n == CLI_FD_BATCH && fd > fds[n - 1])
			continue;
		i = n < CLI_FD_BATCH ? n++ : n - 1; /* the largest falls off a full batch */
		for (; i > 0 && fds[i - 1] > fd; i--)
			fds[i] = fds[i - 1];
		fds[i] = (int)fd;
	}
	closedir(d);
	return n;
}

/* "show fd [num]": one line per fd this process polls, in fd order; resumable (n[0]:
 * the next fd to show). Reads procfs only (no disk I/O). */
static int cli_show_fd(struct cli_ctx *ctx)
{
	long only = -1;
	int fds[CLI_FD_BATCH], n;
	char desc[320];

	if (ctx->nargs > 2 && parse_long(ctx->args[2], 0, INT_MAX, &only) < 0)
		return cli_proc_msg(ctx, "Expects a valid file descriptor number.\n");
	do {
		n = cli_fd_batch((long)ctx->n[0], only, fds);
		if (n < 0)
			return cli_proc_msg(ctx, "Cannot list file descriptors.\n");
		for (int i = 0; i < n; i++) {
			if (cli_fd_describe(fds[i], desc, sizeof(desc)) &&
			    cli_printf(ctx, "%7d : %s\n", fds[i], desc) < 0)
				return CLI_MORE;
			ctx->n[0] = (uint64_t)fds[i] + 1;
		}
	} while (n == CLI_FD_BATCH);
	return CLI_DONE;
}

/* Parses the value of a "set" command: 0 and <*v>, or -1 after writing the error line
 * (in <ctx->st>: 1 written, so that a CLI_MORE retry writes it again). */
static int cli_proc_value(struct cli_ctx *ctx, const char *s, long *v, const char **msg)
{
	if (!s || !*s) {
		*msg = "Expects an integer value.\n";
		return -1;
	}
	if (parse_long(s, LONG_MIN, LONG_MAX, v) < 0) {
		*msg = "Expects an integer value.\n";
		return -1;
	}
	return 0;
}

/* "set maxconn global N": N <= the maxconn the process started with (0 restores it). */
static int cli_set_maxconn_global(struct cli_ctx *ctx)
{
	static int hard_maxconn; /* thread 0 only: the limit before any change */
	const char *msg = NULL;
	long v;

	if (!hard_maxconn)
		hard_maxconn = HA_ATOMIC_LOAD_RLX(&global.maxconn);
	if (cli_proc_value(ctx, ctx->args[3], &v, &msg) < 0)
		return cli_proc_msg(ctx, msg);
	if (v < 0 || v > hard_maxconn)
		return cli_proc_msg(ctx, "Value out of range.\n");
	HA_ATOMIC_STORE_RLX(&global.maxconn, v ? (int)v : hard_maxconn);
	listeners_limits_changed();
	return CLI_DONE;
}

/* "set rate-limit connections|sessions global N": 0 removes the limit. */
static int cli_set_rate_limit(struct cli_ctx *ctx)
{
	const char *msg = NULL;
	int *dst = NULL;
	long v;

	if (ctx->nargs > 3 && strcmp(ctx->args[3], "global") == 0) {
		if (strcmp(ctx->args[2], "connections") == 0)
			dst = &global.maxconnrate;
		else if (strcmp(ctx->args[2], "sessions") == 0)
			dst = &global.maxsessrate;
		else if (strcmp(ctx->args[2], "ssl-sessions") == 0)
			dst = &ssl_set.maxsslrate; /* maxsslrate (ssl/ssl_stats.c) */
		else if (!strcmp(ctx->args[2], "http-compression"))
			return cli_proc_msg(ctx, "'set rate-limit http-compression' is "
						 "not supported yet (no compression).\n");
	}
	if (!dst)
		return cli_proc_msg(
			ctx,
			"'set rate-limit' only supports :\n"
			"   - 'connections global' to set the per-process maximum connection rate\n"
			"   - 'sessions global' to set the per-process maximum session rate\n"
			"   - 'ssl-sessions global' to set the per-process maximum SSL session "
			"rate\n"
			"   - 'http-compression global' to set the per-process maximum compression "
			"speed in kB/s\n");
	if (cli_proc_value(ctx, ctx->args[4], &v, &msg) < 0)
		return cli_proc_msg(ctx, msg);
	if (v < 0 || v > INT_MAX)
		return cli_proc_msg(ctx, "Value out of range.\n");
	HA_ATOMIC_STORE_RLX(dst, (int)v);
	ssl_stats_limits_changed();
	listeners_limits_changed();
	return CLI_DONE;
}

static const struct cli_kw cli_proc_kws[] = {
	{ { "show", "version" },
	  "show version",
	  "show version of the current process",
	  CLI_LVL_USER,
	  cli_show_version },
	{ { "show", "env" },
	  "show env [var]",
	  "dump environment variables known to the process",
	  CLI_LVL_OPER,
	  cli_show_env },
	{ { "show", "fd" },
	  "show fd [num]",
	  "dump list of file descriptors in use or a specific one",
	  CLI_LVL_OPER,
	  cli_show_fd },
	{ { "show", "threads" },
	  "show threads",
	  "show some threads debugging information",
	  CLI_LVL_USER,
	  cli_show_threads },
	{ { "show", "pools" },
	  "show pools",
	  "report information about the memory pools usage",
	  CLI_LVL_USER,
	  cli_show_pools },
	{ { "show", "startup-logs" },
	  "show startup-logs",
	  "report logs emitted during HAProxy startup",
	  CLI_LVL_OPER,
	  cli_show_startup_logs },
	{ { "set", "maxconn", "global" },
	  "set maxconn global <value>",
	  "change the per-process maxconn setting",
	  CLI_LVL_ADMIN,
	  cli_set_maxconn_global },
	{ { "set", "rate-limit" },
	  "set rate-limit <setting> <value>",
	  "change a rate limiting value",
	  CLI_LVL_ADMIN,
	  cli_set_rate_limit },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(cli_proc_kws)
