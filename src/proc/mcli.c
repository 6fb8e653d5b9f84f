/* The master CLI (-S): the master's listening sockets and sessions, run from its poll()
 * loop with non-blocking sockets and fixed buffers so that no client and no worker can
 * block it; the master's commands with HAProxy 2.6's outputs; "@<n>"/"@!<pid>" prefixes
 * forwarded to a worker through a fresh socketpair sent over that worker's link
 * (cli/cli_master.c serves the other end). Sockets survive a reload's re-exec.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <base/addr.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <proc/mcli.h>
#include <proc/mworker.h>
#include <proc/program.h>
#include <proc/version.h>

#define MCLI_ENV "HAPX_MCLI"	     /* "START:RELOADS:FAILED" */
#define MCLI_ENV_FDS "HAPX_MCLI_FDS" /* "FD,FD,..." listening sockets, -S order */
#define MCLI_IN_SIZE 16384
#define MCLI_OUT_SIZE 65536
#define MCLI_OUT_LOW (MCLI_OUT_SIZE / 2) /* a command runs only with this much room */

struct mcli_bind {
	struct sockaddr_storage addr;
	socklen_t len;
	int mode;  /* unix: chmod, -1 = umask */
	uid_t uid; /* (uid_t)-1 = unchanged */
	gid_t gid;
	int fd; /* listening, -1 before binding */
};

struct mcli_sess {
	int fd;	      /* client */
	int fwd;      /* forwarded command's socket to a worker, -1 if none */
	pid_t target; /* "@N"/"@!PID" alone: default target, 0 = master */
	bool prompt, rd_eof, closing, ran;
	size_t in_len, out_len, out_off, w_len, w_off;
	char in[MCLI_IN_SIZE];
	char w[MCLI_IN_SIZE + 1]; /* command line being written to the worker */
	char out[MCLI_OUT_SIZE];
};

static struct mcli_bind binds[MCLI_MAX_BINDS];
static int nbinds;
static bool binds_inherited; /* a re-executed master adopted its sockets */
static struct mcli_sess *sess[MCLI_MAX_SESS];
static long long m_start; /* the master's first start, kept across re-execs */
static int m_reloads, m_failed;

/* What each pollfd of the last mcli_poll_fill() is. */
static struct {
	int kind; /* 0 listener, 1 client, 2 forward */
	int idx;
} pmap[MCLI_MAX_POLLFDS];

static const char mcli_help_text[] =
	"The following commands are valid at this level:\n"
	"  @!<pid>                                 : send a command to the <pid> process\n"
	"  @<relative pid>                         : send a command to the <relative pid> "
	"process\n"
	"  @master                                 : send a command to the master process\n"
	"  reload                                  : reload haproxy\n"
	"  show cli level                          : display the level of the current CLI "
	"session\n"
	"  show proc                               : show processes status\n"
	"  show version                            : show version of the current process\n"
	"  help [<command>]                        : list matching or all commands\n"
	"  prompt                                  : toggle interactive mode with prompt\n"
	"  quit                                    : disconnect\n";

__attribute__((constructor)) static void mcli_record_start(void)
{
	m_start = (long long)time(NULL);
}

/* ---- -S parsing and binding ---- */

static int mcli_opt(struct mcli_bind *b, const char *opt, const char *v)
{
	long n;

	if (!v)
		goto out_bad;
	if (strcmp(opt, "mode") == 0) {
		char *end;

		n = strtol(v, &end, 8);
		if (!*v || *end || n < 0 || n > 07777)
			goto out_bad;
		b->mode = (int)n;
	} else if (strcmp(opt, "uid") == 0 || strcmp(opt, "gid") == 0) {
		if (parse_long(v, 0, 0x7fffffff, &n) < 0)
			goto out_bad;
		if (opt[0] == 'u')
			b->uid = (uid_t)n;
		else
			b->gid = (gid_t)n;
	} else if (strcmp(opt, "user") == 0) {
		struct passwd *pw = getpwnam(v);

		if (!pw)
			goto out_bad;
		b->uid = pw->pw_uid;
	} else if (strcmp(opt, "group") == 0) {
		struct group *gr = getgrnam(v);

		if (!gr)
			goto out_bad;
		b->gid = gr->gr_gid;
	} else if (strcmp(opt, "level") == 0) {
		if (strcmp(v, "admin") != 0 && strcmp(v, "operator") != 0 && strcmp(v, "user"))
			goto out_bad;
	} else {
		ha_alert("-S : unknown option '%s'.\n", opt);
		return -1;
	}
	return 0;
out_bad:
	ha_alert("-S : missing or invalid value for '%s'.\n", opt);
	return -1;
}

int mcli_add_spec(const char *spec)
{
	struct mcli_bind *b = &binds[nbinds];
	char buf[512], err[256], *save = NULL, *tok, *val;
	struct addr_res res;

	if (binds_inherited)
		return 0; /* a re-executed master already holds its sockets */
	if (nbinds >= MCLI_MAX_BINDS || strlen(spec) >= sizeof(buf)) {
		ha_alert("-S : too many master CLI sockets or too long '%s'.\n", spec);
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", spec);
	tok = strtok_r(buf, ",", &save);
	if (!tok || addr_parse(tok, 0, &res, err, sizeof(err)) != ADDR_OK) {
		ha_alert("-S : %s\n", tok ? err : "missing address");
		return -1;
	}
	*b = (struct mcli_bind){ res.ss, res.len, -1, (uid_t)-1, (gid_t)-1, -1 };
	while ((tok = strtok_r(NULL, ",", &save))) {
		val = strtok_r(NULL, ",", &save);
		if (mcli_opt(b, tok, val) < 0)
			return -1;
	}
	nbinds++;
	return 0;
}

/* Unix sockets: bound under a temporary name, given their mode and owner, then renamed
 * over the path, so that a socket left by a previous run is replaced at once. */
static int mcli_bind_unix(struct mcli_bind *b, int fd)
{
	struct sockaddr_un tmp = *(struct sockaddr_un *)&b->addr;
	const char *path = ((struct sockaddr_un *)&b->addr)->sun_path;
	int n = snprintf(tmp.sun_path, sizeof(tmp.sun_path), "%s.%d.tmp", path, (int)getpid());

	if (n < 0 || (size_t)n >= sizeof(tmp.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	unlink(tmp.sun_path);
	if (bind(fd, (struct sockaddr *)&tmp, sizeof(tmp)) < 0)
		return -1;
	if ((b->mode >= 0 && chmod(tmp.sun_path, (mode_t)b->mode) < 0) ||
	    ((b->uid != (uid_t)-1 || b->gid != (gid_t)-1) &&
	     chown(tmp.sun_path, b->uid, b->gid) < 0) ||
	    listen(fd, MCLI_MAX_SESS) < 0 || rename(tmp.sun_path, path) < 0) {
		int e = errno;

		unlink(tmp.sun_path);
		errno = e;
		return -1;
	}
	return 0;
}

static int mcli_bind_one(struct mcli_bind *b)
{
	int one = 1, fd = socket(b->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	char a[160];

	if (fd < 0)
		goto out_alert;
	if (b->addr.ss_family == AF_UNIX) {
		if (mcli_bind_unix(b, fd) < 0)
			goto out_close;
	} else {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&b->addr, b->len) < 0 ||
		    listen(fd, MCLI_MAX_SESS) < 0)
			goto out_close;
	}
	b->fd = fd;
	return 0;
out_close:
	close(fd);
out_alert:
	ha_alert("Cannot bind the master CLI socket [%s]: %s.\n",
		 addr_to_str(&b->addr, a, sizeof(a)), strerror(errno));
	return -1;
}

/* HAPROXY_MASTER_CLI: "unix@PATH" / "ipv4@A:P" / "ipv6@[A]:P", the last -S first. */
static void mcli_export_names(void)
{
	char val[MCLI_MAX_BINDS * 128] = "", a[120];
	size_t off = 0;

	for (int i = nbinds - 1; i >= 0; i--) {
		int fam = binds[i].addr.ss_family;
		int n = snprintf(val + off, sizeof(val) - off, "%s%s@%s", off ? ";" : "",
				 fam == AF_UNIX	  ? "unix"
				 : fam == AF_INET ? "ipv4"
						  : "ipv6",
				 addr_to_str(&binds[i].addr, a, sizeof(a)));

		if (n < 0 || (size_t)n >= sizeof(val) - off)
			break;
		off += (size_t)n;
	}
	if (nbinds)
		setenv("HAPROXY_MASTER_CLI", val, 1);
}

void mcli_check(bool mworker)
{
	if (nbinds && !mworker)
		ha_warning("a master CLI socket was defined, but master-worker mode (-W) is not "
			   "enabled.\n");
}

int mcli_bind_all(bool mworker)
{
	if (!nbinds)
		return 0;
	if (!mworker)
		return 0; /* mcli_check() warned */
	for (int i = 0; i < nbinds; i++)
		if (binds[i].fd < 0 && mcli_bind_one(&binds[i]) < 0)
			return -1;
	if (!binds_inherited) /* else kept from the first image: a unix socket's kernel name
			       * is its temporary one */
		mcli_export_names();
	return 0;
}

/* ---- re-exec ---- */

void mcli_export_env(void)
{
	char v[64], fds[MCLI_MAX_BINDS * 12] = "";
	size_t off = 0;

	snprintf(v, sizeof(v), "%lld:%d:%d", m_start, m_reloads, m_failed);
	setenv(MCLI_ENV, v, 1);
	for (int i = 0; i < nbinds; i++) {
		int n;

		if (binds[i].fd < 0 || fcntl(binds[i].fd, F_SETFD, 0) < 0)
			continue;
		n = snprintf(fds + off, sizeof(fds) - off, "%s%d", off ? "," : "", binds[i].fd);
		if (n > 0 && (size_t)n < sizeof(fds) - off)
			off += (size_t)n;
	}
	setenv(MCLI_ENV_FDS, fds, 1);
}

void mcli_import_env(void)
{
	const char *s = getenv(MCLI_ENV);
	char *end;

	if (s)
		sscanf(s, "%lld:%d:%d", &m_start, &m_reloads, &m_failed);
	s = getenv(MCLI_ENV_FDS);
	while (s && *s && nbinds < MCLI_MAX_BINDS) {
		long fd = strtol(s, &end, 10);
		struct mcli_bind *b = &binds[nbinds];

		if (end == s || fd < 0 || fd > 0x7fffffff)
			break;
		*b = (struct mcli_bind){ .mode = -1, .uid = (uid_t)-1, .gid = (gid_t)-1 };
		b->len = sizeof(b->addr);
		if (fcntl((int)fd, F_SETFD, FD_CLOEXEC) == 0 &&
		    getsockname((int)fd, (struct sockaddr *)&b->addr, &b->len) == 0) {
			b->fd = (int)fd;
			nbinds++;
			binds_inherited = true;
		}
		s = *end == ',' ? end + 1 : end;
	}
	unsetenv(MCLI_ENV);
	unsetenv(MCLI_ENV_FDS);
}

void mcli_reloading(void)
{
	m_reloads++;
}

void mcli_reload_failed(void)
{
	m_failed++;
}

void mcli_close_in_child(void)
{
	for (int i = 0; i < nbinds; i++)
		if (binds[i].fd >= 0)
			close(binds[i].fd);
	for (int i = 0; i < MCLI_MAX_SESS; i++) {
		if (!sess[i])
			continue;
		close(sess[i]->fd);
		if (sess[i]->fwd >= 0)
			close(sess[i]->fwd);
		free(sess[i]);
		sess[i] = NULL;
	}
	nbinds = 0;
}

/* ---- output ---- */

/* Appends to the session's output; what does not fit is dropped (bounded buffer; a
 * command only runs with MCLI_OUT_LOW bytes free, more than any master answer). */
static void mcli_out(struct mcli_sess *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void mcli_out(struct mcli_sess *s, const char *fmt, ...)
{
	size_t room = sizeof(s->out) - s->out_len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s->out + s->out_len, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		s->out_len += (size_t)n < room ? (size_t)n : room - 1;
}

static void mcli_prompt(struct mcli_sess *s)
{
	if (!s->prompt)
		return;
	if (s->target)
		mcli_out(s, "%d> ", (int)s->target);
	else
		mcli_out(s, "master> ");
}

static void mcli_uptime(char *buf, size_t sz, long long since)
{
	long long up = (long long)time(NULL) - since;

	if (up < 0)
		up = 0;
	snprintf(buf, sz, "%dd%02dh%02dm%02ds", (int)(up / 86400), (int)(up / 3600 % 24),
		 (int)(up / 60 % 60), (int)(up % 60));
}

/* The "# programs" lines: the name in the type column, no version. */
static void mcli_show_programs(struct mcli_sess *s)
{
	const struct program_proc *p;
	char up[32];
	int n, old = 0;

	p = program_procs(&n);
	for (int pass = 0; pass < 2; pass++) {
		if (pass && old)
			mcli_out(s, "# old programs\n");
		for (int i = 0; i < n; i++) {
			if (p[i].current == (pass == 1)) {
				old += !p[i].current;
				continue;
			}
			mcli_uptime(up, sizeof(up), p[i].start);
			mcli_out(s, "%-15d %-15s %-15d %-15s %-15s\n", (int)p[i].pid, p[i].name,
				 p[i].reloads, up, "-");
		}
	}
}

/* "show proc", in 2.6's layout. */
static void mcli_show_proc(struct mcli_sess *s)
{
	const struct mworker_proc *k;
	char up[32], rel[40];
	int n, old = 0;

	k = mworker_procs(&n);
	mcli_out(s, "#%-14s %-15s %-15s %-15s %-15s\n", "<PID>", "<type>", "<reloads>", "<uptime>",
		 "<version>");
	mcli_uptime(up, sizeof(up), m_start);
	snprintf(rel, sizeof(rel), "%d [failed: %d]", m_reloads, m_failed);
	mcli_out(s, "%-15d %-15s %-15s %-15s %-15s\n", (int)getpid(), "master", rel, up,
		 HAPROXY_COMPAT_VERSION);
	mcli_out(s, "# workers\n");
	for (int i = 0; i < n; i++) {
		old += !k[i].current;
		if (!k[i].current)
			continue;
		mcli_uptime(up, sizeof(up), k[i].start);
		mcli_out(s, "%-15d %-15s %-15d %-15s %-15s\n", (int)k[i].pid, "worker",
			 k[i].reloads, up, HAPROXY_COMPAT_VERSION);
	}
	if (old)
		mcli_out(s, "# old workers\n");
	for (int i = 0; old && i < n; i++) {
		if (k[i].current)
			continue;
		mcli_uptime(up, sizeof(up), k[i].start);
		mcli_out(s, "%-15d %-15s %-15d %-15s %-15s\n", (int)k[i].pid, "worker",
			 k[i].reloads, up, HAPROXY_COMPAT_VERSION);
	}
	mcli_out(s, "# programs\n");
	mcli_show_programs(s);
}

/* ---- commands ---- */

static const struct mworker_proc *mcli_find_pid(pid_t pid)
{
	int n;
	const struct mworker_proc *k = mworker_procs(&n);

	for (int i = 0; i < n; i++)
		if (k[i].pid == pid)
			return &k[i];
	return NULL;
}

/* "@master" -> 0, "@1" -> the current worker, "@!PID" -> that worker; -1 if none. */
static pid_t mcli_prefix_pid(const char *p)
{
	const struct mworker_proc *k;
	long v;
	int n;

	if (strcmp(p, "@master") == 0)
		return 0;
	if (p[1] == '!') {
		if (parse_long(p + 2, 1, 0x7fffffff, &v) < 0 || !mcli_find_pid((pid_t)v))
			return -1;
		return (pid_t)v;
	}
	if (parse_long(p + 1, 1, 0x7fffffff, &v) < 0 || v != 1)
		return -1; /* one worker per load: only "@1", the current one */
	k = mworker_procs(&n);
	for (int i = 0; i < n; i++)
		if (k[i].current)
			return k[i].pid;
	return -1;
}

/* Sends a new socketpair's end to worker <pid> and queues <cmd>. 0, or -1 if unreachable. */
static int mcli_forward(struct mcli_sess *s, pid_t pid, const char *cmd)
{
	const struct mworker_proc *k = mcli_find_pid(pid);
	char byte = 0, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int sp[2];
	ssize_t r;

	if (!k || k->link_fd < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sp) < 0)
		return -1;
	memset(cbuf, 0, sizeof(cbuf));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &sp[1], sizeof(int));
	do
		r = sendmsg(k->link_fd, &msg, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	close(sp[1]);
	if (r != 1) {
		close(sp[0]);
		return -1;
	}
	s->fwd = sp[0];
	s->w_len = (size_t)snprintf(s->w, sizeof(s->w), "%s\n", cmd);
	if (s->w_len >= sizeof(s->w))
		s->w_len = sizeof(s->w) - 1;
	s->w_off = 0;
	return 0;
}

static void mcli_forward_or_fail(struct mcli_sess *s, pid_t pid, const char *cmd)
{
	if (mcli_forward(s, pid, cmd) == 0)
		return;
	mcli_out(s, "Can't connect to the target CLI!\n");
	mcli_prompt(s);
}

/* One master command (NUL-terminated, modified). Returns false on "quit". */
static bool mcli_run_cmd(struct mcli_sess *s, char *cmd)
{
	char *w[4] = { NULL }, *save = NULL;
	int n = 0;

	for (char *t = strtok_r(cmd, " \t", &save); t && n < 4; t = strtok_r(NULL, " \t", &save))
		w[n++] = t;
	if (!n)
		return true;
	if (strcmp(w[0], "quit") == 0) {
		mcli_prompt(s); /* 2.6 prints the prompt once more before closing */
		return false;
	}
	if (strcmp(w[0], "prompt") == 0) {
		s->prompt = !s->prompt;
		return true;
	}
	if (strcmp(w[0], "reload") == 0) {
		kill(getpid(), SIGUSR2); /* as the signal; the re-exec closes this session */
		s->closing = true;
		return false;
	}
	if (strcmp(w[0], "help") == 0)
		mcli_out(s, "%s", mcli_help_text);
	else if (n >= 2 && strcmp(w[0], "show") == 0 && strcmp(w[1], "proc") == 0)
		mcli_show_proc(s);
	else if (n >= 2 && strcmp(w[0], "show") == 0 && strcmp(w[1], "version") == 0)
		mcli_out(s, "%s\n", HAPROXY_COMPAT_VERSION);
	else if (n >= 3 && strcmp(w[0], "show") == 0 && strcmp(w[1], "cli") == 0 &&
		 strcmp(w[2], "level") == 0)
		mcli_out(s, "admin\n");
	else
		mcli_out(s,
			 "Unknown command, but maybe one of the following ones is a better "
			 "match:\n%s",
			 strchr(mcli_help_text, '\n') + 1);
	mcli_out(s, "\n");
	return true;
}

/* One line from the client: a prefix, a forwarded command, or ';'-separated master
 * commands. */
static void mcli_run_line(struct mcli_sess *s, char *line)
{
	char *p = line + strspn(line, " \t"), *rest, *save = NULL;
	pid_t to = s->target;

	if (*p == '@') {
		rest = p + strcspn(p, " \t");
		if (*rest)
			*rest++ = '\0';
		rest += strspn(rest, " \t");
		to = mcli_prefix_pid(p);
		if (to < 0) {
			mcli_out(s, "Can't find the target PID matching the prefix '%s'\n", p);
			mcli_prompt(s);
			return;
		}
		if (!*rest) { /* the prefix alone: the session's target from now on */
			s->target = to;
			mcli_prompt(s);
			return;
		}
		p = rest;
	}
	if (to) {
		mcli_forward_or_fail(s, to, p);
		return;
	}
	for (char *c = strtok_r(p, ";", &save); c; c = strtok_r(NULL, ";", &save))
		if (!mcli_run_cmd(s, c)) {
			if (!s->closing)
				s->closing = true; /* quit */
			return;
		}
	mcli_prompt(s);
}

/* Runs the client's complete lines while nothing is forwarded and output has room. */
static void mcli_work(struct mcli_sess *s)
{
	while (s->fwd < 0 && !s->closing && s->out_len - s->out_off < MCLI_OUT_LOW) {
		char *lf = memchr(s->in, '\n', s->in_len), line[MCLI_IN_SIZE];
		size_t len;

		if (!s->prompt && s->ran) {
			s->closing = true; /* one-shot: one line */
			return;
		}
		if (!lf) {
			if (s->rd_eof || s->in_len == sizeof(s->in))
				s->closing = true;
			return;
		}
		len = (size_t)(lf - s->in);
		memcpy(line, s->in, len);
		memmove(s->in, lf + 1, s->in_len - len - 1);
		s->in_len -= len + 1;
		if (len && line[len - 1] == '\r')
			len--;
		line[len] = '\0';
		if (s->out_off == s->out_len)
			s->out_off = s->out_len = 0;
		else if (s->out_off) {
			memmove(s->out, s->out + s->out_off, s->out_len - s->out_off);
			s->out_len -= s->out_off;
			s->out_off = 0;
		}
		s->ran = true;
		mcli_run_line(s, line);
	}
}

/* ---- I/O ---- */

static void mcli_sess_free(int i)
{
	struct mcli_sess *s = sess[i];

	close(s->fd);
	if (s->fwd >= 0)
		close(s->fwd);
	free(s);
	sess[i] = NULL;
}

static void mcli_accept(int lfd)
{
	for (int i = 0; i < MCLI_MAX_SESS; i++) {
		int fd;

		if (sess[i])
			continue;
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		sess[i] = calloc(1, sizeof(*sess[i]));
		if (!sess[i]) {
			close(fd);
			return;
		}
		sess[i]->fd = fd;
		sess[i]->fwd = -1;
	}
}

static bool mcli_read_client(struct mcli_sess *s)
{
	while (!s->rd_eof && s->in_len < sizeof(s->in)) {
		ssize_t r = recv(s->fd, s->in + s->in_len, sizeof(s->in) - s->in_len, 0);

		if (r > 0)
			s->in_len += (size_t)r;
		else if (r == 0)
			s->rd_eof = true;
		else
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
	}
	return true;
}

/* The worker's answer, relayed as is; at its end, the prompt. */
static void mcli_io_forward(struct mcli_sess *s, short ev)
{
	ssize_t r;

	while (s->w_off < s->w_len) {
		r = send(s->fwd, s->w + s->w_off, s->w_len - s->w_off, MSG_NOSIGNAL);
		if (r <= 0)
			break;
		s->w_off += (size_t)r;
	}
	while (s->out_len < sizeof(s->out)) {
		r = recv(s->fwd, s->out + s->out_len, sizeof(s->out) - s->out_len, 0);
		if (r > 0) {
			s->out_len += (size_t)r;
			continue;
		}
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return;
		close(s->fwd); /* end of the answer, or the worker died */
		s->fwd = -1;
		mcli_prompt(s);
		return;
	}
}

static bool mcli_send_client(struct mcli_sess *s)
{
	while (s->out_off < s->out_len) {
		ssize_t w = send(s->fd, s->out + s->out_off, s->out_len - s->out_off, MSG_NOSIGNAL);

		if (w > 0)
			s->out_off += (size_t)w;
		else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			break;
		else
			return false;
	}
	/* room for the rest of a long forwarded answer */
	if (s->out_off == s->out_len) {
		s->out_off = s->out_len = 0;
	} else if (s->out_off) {
		memmove(s->out, s->out + s->out_off, s->out_len - s->out_off);
		s->out_len -= s->out_off;
		s->out_off = 0;
	}
	return true;
}

int mcli_poll_fill(struct pollfd *pf, int max)
{
	int n = 0, free_slots = 0;

	for (int i = 0; i < MCLI_MAX_SESS; i++)
		free_slots += !sess[i];
	for (int i = 0; i < nbinds && free_slots && n < max; i++) {
		if (binds[i].fd < 0)
			continue;
		pf[n] = (struct pollfd){ .fd = binds[i].fd, .events = POLLIN };
		pmap[n].kind = 0;
		pmap[n++].idx = i;
	}
	for (int i = 0; i < MCLI_MAX_SESS && n + 2 <= max; i++) {
		struct mcli_sess *s = sess[i];

		if (!s)
			continue;
		pf[n] = (struct pollfd){ .fd = s->fd,
					 .events =
						 (short)((s->rd_eof || s->closing ? 0 : POLLIN) |
							 (s->out_off < s->out_len ? POLLOUT : 0)) };
		pmap[n].kind = 1;
		pmap[n++].idx = i;
		if (s->fwd < 0)
			continue;
		pf[n] = (struct pollfd){ .fd = s->fwd,
					 .events = (short)((s->w_off < s->w_len ? POLLOUT : 0) |
							   (s->out_len < sizeof(s->out) ? POLLIN
											: 0)) };
		pmap[n].kind = 2;
		pmap[n++].idx = i;
	}
	return n;
}

int mcli_poll_timeout(void)
{
	return -1; /* no timer: sessions wait for their client or worker */
}

void mcli_poll_done(const struct pollfd *pf, int n)
{
	for (int j = 0; j < n; j++) {
		int i = pmap[j].idx;

		if (!pf[j].revents)
			continue;
		if (pmap[j].kind == 0) {
			mcli_accept(pf[j].fd);
			continue;
		}
		if (!sess[i])
			continue;
		if (pmap[j].kind == 2 && sess[i]->fwd == pf[j].fd)
			mcli_io_forward(sess[i], pf[j].revents);
		else if (pmap[j].kind == 1 && !mcli_read_client(sess[i]))
			sess[i]->closing = true, sess[i]->out_len = sess[i]->out_off = 0;
	}
	for (int i = 0; i < MCLI_MAX_SESS; i++) {
		struct mcli_sess *s = sess[i];

		if (!s)
			continue;
		mcli_work(s);
		if (!mcli_send_client(s) || (s->closing && s->fwd < 0 && s->out_off == s->out_len))
			mcli_sess_free(i);
	}
}
