/* The runtime API sockets and sessions: binding the "stats socket" lines, accepting on
 * thread 0 (at most "stats maxconn" sessions), reading lines into a bounded input buffer,
 * running their ';'-separated commands one after the other through a bounded output
 * buffer (a handler that fills it is called again once the client has read), prompt and
 * one-shot modes, the "stats timeout" idle timer. Commands live in the modules that own
 * the data; the help and unknown-command texts are in cli_help.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <base/addr.h>
#include <base/atomic.h>
#include <base/buf.h>
#include <base/list.h>
#include <base/compiler.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <cli/cli.h>
#include <conn/listener_fds.h>
#include <event/loop.h>
#include <event/profiling.h>
#include "cli_int.h"

#define CLI_IN_SIZE  16384        /* longest line accepted, with its LF */
#define CLI_OUT_SIZE 16384        /* output kept for the client; handlers resume */

#define CLI_PL_SIZE  65536        /* a "<<" payload, its LFs and a NUL */

enum cli_mode {
	CLI_MODE_ONESHOT = 0,     /* run one line, then close ("prompt n") */
	CLI_MODE_INTER,           /* interactive without a prompt ("prompt i") */
	CLI_MODE_PROMPT,          /* interactive, "\n> " after each command ("prompt p") */
	CLI_MODE_TIMED,           /* interactive, "\n[d:hh:mm:ss]> " (uptime) ("prompt timed") */
};

struct cli_sess {
	struct fd_handler h;
	struct timer tmr;         /* "stats timeout": idle deadline */
	struct tasklet release;   /* deferred free (event/loop.h) */
	struct timer resume;      /* a handler returned CLI_YIELD: run it again in 1 ms (a
				   * timer, not a tasklet: the thread sleeps while others answer) */
	struct cli_bind *bind;
	struct buf in, out;       /* malloc'ed areas of CLI_IN_SIZE / CLI_OUT_SIZE */
	char line[CLI_IN_SIZE];   /* the line being run; commands are cut in place */
	size_t line_len, line_pos;
	bool line_busy;           /* commands of <line> remain to run */
	int lines_done;
	enum cli_mode mode;
	const struct cli_kw *kw;  /* running command, NULL if none */
	int (*fn)(struct cli_ctx *ctx);
	bool trailer;             /* the running command's trailer is still to write */
	struct cli_ctx ctx;
	char *args[CLI_MAX_ARGS + 1];
	bool rd_eof;
	bool rd_full;             /* reading stopped on a full input buffer, not on EAGAIN */
	bool closing;             /* close once <out> is flushed */
	int level;                /* CLI_LVL_*: the socket's, lowered by "operator"/"user" */
	int timeout_ms;           /* "stats timeout", changed by "set timeout cli" */
	bool discard;             /* dropping a line longer than the input buffer */
	bool pl_wait;             /* collecting the "<<" payload of <line> */
	bool plus;                /* a "+ " payload prompt is still to write */
	struct cli_payload pl;    /* area malloc'ed while a payload is pending */
	struct list by_cli;       /* in cli_sess_list ("show fd") */
};

#define CLI_SESS(c) container_of((c), struct cli_sess, ctx)

static int cli_nbsess;            /* thread 0 only */
static struct list cli_sess_list = LIST_HEAD_INIT(cli_sess_list); /* thread 0 only */
static unsigned long long cli_cum_sess; /* written by thread 0, read relaxed */
static bool cli_paused;           /* listeners removed from the poller at maxconn */
static bool cli_stopped;
static struct timespec cli_t0_mono; /* process start */
static long long cli_t0_wall;

__attribute__((constructor)) static void cli_record_start(void)
{
	clock_gettime(CLOCK_MONOTONIC, &cli_t0_mono);
	cli_t0_wall = (long long)time(NULL);
}

long long cli_start_time(void)
{
	return cli_t0_wall;
}

unsigned long long cli_uptime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)(ts.tv_sec - cli_t0_mono.tv_sec) * 1000ULL +
	       (unsigned long long)((ts.tv_nsec - cli_t0_mono.tv_nsec) / 1000000);
}

int cli_write(struct cli_ctx *ctx, const char *s, size_t len)
{
	if (len > UINT32_MAX)
		return -1;
	return b_putblk(ctx->out, s, (uint32_t)len);
}

int cli_printf(struct cli_ctx *ctx, const char *fmt, ...)
{
	struct buf *b = ctx->out;
	va_list ap;
	int n;

	b_realign(b);
	va_start(ap, fmt);
	n = vsnprintf(b_tail(b), b_room(b), fmt, ap);
	va_end(ap);
	if (n < 0 || (uint32_t)n >= b_room(b))
		return -1;        /* truncated: nothing counted as written */
	b->data += (uint32_t)n;
	return 0;
}

/* Built-in commands that act on the session. */
/* "prompt": toggles between one-shot and prompt modes; "prompt n|i|p|timed" (3.x forms)
 * choose one. Takes effect before this command's own trailer. */
static int cli_prompt_fn(struct cli_ctx *ctx)
{
	static const char *const names[] = { "n", "i", "p", "timed" };
	struct cli_sess *s = CLI_SESS(ctx);

	if (ctx->nargs < 2) {
		s->mode = s->mode == CLI_MODE_ONESHOT ? CLI_MODE_PROMPT : CLI_MODE_ONESHOT;
		return CLI_DONE;
	}
	for (int m = 0; m < 4; m++) {
		if (strcmp(ctx->args[1], names[m]) == 0) {
			s->mode = (enum cli_mode)m;
			return CLI_DONE;
		}
	}
	return cli_printf(ctx, "'prompt' only supports 'n', 'i', 'p' and 'timed'.\n") < 0
		       ? CLI_MORE
		       : CLI_DONE;
}

/* "operator", "user": lower the session's level (never raise it, as HAProxy). */
static int cli_lower_fn(struct cli_ctx *ctx)
{
	int want = ctx->args[0][0] == 'u' ? CLI_LVL_USER : CLI_LVL_OPER;
	struct cli_sess *s = CLI_SESS(ctx);

	if (want > s->level)
		return cli_printf(ctx, "Permission denied\n") < 0 ? CLI_MORE : CLI_DONE;
	s->level = want;
	return CLI_DONE;
}

/* "set timeout cli <delay>": this session's idle timeout, in seconds by default. */
static int cli_set_timeout_fn(struct cli_ctx *ctx)
{
	struct cli_sess *s = CLI_SESS(ctx);
	const char *msg = NULL;
	int ms = 0;

	if (ctx->nargs < 3 || strcmp(ctx->args[2], "cli") != 0)
		msg = "'set timeout' only supports 'cli'.\n";
	else if (ctx->nargs < 4 || !*ctx->args[3])
		msg = "Expects an integer value.\n";
	else if (parse_time_ms(ctx->args[3], 1000, &ms) || ms <= 0)
		msg = "Invalid timeout value.\n";
	if (msg)
		return cli_write(ctx, msg, strlen(msg)) < 0 ? CLI_MORE : CLI_DONE;
	s->timeout_ms = ms;
	timer_set(&s->tmr, tick_add(ms));
	return CLI_DONE;
}

/* The address of <b> as "show cli sockets" prints it: "unix@PATH", "abns@NAME",
 * "ipv4@A:P", "ipv6@[A]:P" or "fd@N". */
static void cli_bind_name(const struct cli_bind *b, char *dst, size_t sz)
{
	const struct sockaddr_un *un = (const void *)&b->addr;
	const struct sockaddr_in *in = (const void *)&b->addr;
	const struct sockaddr_in6 *in6 = (const void *)&b->addr;
	char ip[INET6_ADDRSTRLEN] = "";

	if (b->inherited_fd >= 0)
		snprintf(dst, sz, "fd@%d", b->inherited_fd);
	else if (b->addr.ss_family == AF_UNIX && un->sun_path[0])
		snprintf(dst, sz, "unix@%s", un->sun_path);
	else if (b->addr.ss_family == AF_UNIX)
		snprintf(dst, sz, "abns@%s", un->sun_path + 1);
	else if (b->addr.ss_family == AF_INET && inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip)))
		snprintf(dst, sz, "ipv4@%s:%u", ip, ntohs(in->sin_port));
	else if (inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip)))
		snprintf(dst, sz, "ipv6@[%s]:%u", ip, ntohs(in6->sin6_port));
	else
		snprintf(dst, sz, "%s", b->addr_str);
}

/* "show cli sockets": each "stats socket" with its level, as 2.6 prints them. */
static int cli_sockets_fn(struct cli_ctx *ctx)
{
	static const char *const names[] = { "", "user", "operator", "admin" };
	const struct cli_bind *b = ctx->p[0];
	char addr[160];

	if (ctx->st == 0) {
		if (cli_printf(ctx, "# socket lvl processes\n") < 0)
			return CLI_MORE;
		ctx->st = 1;
		b = cli_binds;
	}
	for (; b; b = b->next) {
		cli_bind_name(b, addr, sizeof(addr));
		if (cli_printf(ctx, "%s %s all\n", addr, names[b->level & 3]) < 0) {
			ctx->p[0] = b;
			return CLI_MORE;
		}
	}
	return CLI_DONE;
}

static int cli_quit_fn(struct cli_ctx *ctx)
{
	ctx->flags |= CLI_CTX_F_QUIT;
	return CLI_DONE;
}

static int cli_level_fn(struct cli_ctx *ctx)
{
	static const char *const names[] = { "", "user", "operator", "admin" };

	return cli_printf(ctx, "%s\n", names[ctx->level & 3]) < 0 ? CLI_MORE : CLI_DONE;
}

static int cli_denied_fn(struct cli_ctx *ctx)
{
	return cli_printf(ctx, "Permission denied\n") < 0 ? CLI_MORE : CLI_DONE;
}

/* Listed by "help" after the registered commands, as HAProxy does (see cli_help.c). */
static const struct cli_kw cli_builtin_kws[] = {
	{ { "help" }, NULL, NULL, CLI_LVL_USER, cli_help_fn },
	{ { "prompt" }, NULL, NULL, CLI_LVL_USER, cli_prompt_fn },
	{ { "quit" }, NULL, NULL, CLI_LVL_USER, cli_quit_fn },
	{ { "show", "cli", "level" }, "show cli level",
	  "display the level of the current CLI session", CLI_LVL_USER, cli_level_fn },
	{ { "show", "cli", "sockets" }, "show cli sockets", "dump list of cli sockets",
	  CLI_LVL_USER, cli_sockets_fn },
	{ { "operator" }, "operator", "lower the level of the current CLI session to operator",
	  CLI_LVL_USER, cli_lower_fn },
	{ { "user" }, "user", "lower the level of the current CLI session to user", CLI_LVL_USER,
	  cli_lower_fn },
	{ { "set", "timeout" }, "set timeout [cli] <delay>",
	  "change a timeout setting", CLI_LVL_USER, cli_set_timeout_fn },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(cli_builtin_kws)

static void cli_arm_timer(struct cli_sess *s)
{
	timer_set(&s->tmr, tick_add(s->timeout_ms));
}

static void cli_listeners_poll(bool on)
{
	for (struct cli_bind *b = cli_binds; b; b = b->next) {
		if (b->h.fd < 0 || b->polled == on)
			continue;
		if (on && fd_register_listener(&b->h) == 0)
			b->polled = true;
		else if (!on) {
			fd_unregister(&b->h);
			b->polled = false;
		}
	}
}

static void cli_sess_release(struct tasklet *tl)
{
	struct cli_sess *s = container_of(tl, struct cli_sess, release);

	free(s->in.area);
	free(s->out.area);
	free(s->pl.area);
	free(s);
}

/* Closes the session now; its memory goes after the current batch of events. */
static void cli_sess_free(struct cli_sess *s)
{
	if (s->fn && s->ctx.release) /* a command interrupted: it lets go of its state */
		s->ctx.release(&s->ctx);
	timer_del(&s->tmr);
	timer_del(&s->resume);
	fd_unregister(&s->h);
	close(s->h.fd);
	s->h.fd = -1;
	loop_defer_release(&s->release, cli_sess_release);
	list_delete(&s->by_cli);
	cli_nbsess--;
	if (cli_paused && !cli_stopped && cli_nbsess < cli_maxconn) {
		cli_paused = false;
		cli_listeners_poll(true);
	}
}

/* Reads until EAGAIN, EOF or a full input buffer. Returns 0, or -1 on a socket error. */
static int cli_recv(struct cli_sess *s)
{
	while (!s->rd_eof) {
		ssize_t r;

		b_realign(&s->in);
		s->rd_full = !b_room(&s->in);
		if (s->rd_full)
			return 0;
		r = recv(s->h.fd, b_tail(&s->in), b_room(&s->in), 0);
		if (r > 0) {
			s->in.data += (uint32_t)r;
			cli_arm_timer(s);
		} else if (r == 0) {
			s->rd_eof = true;
		} else if (errno == EAGAIN || errno == EWOULDBLOCK) {
			return 0;
		} else if (errno != EINTR) {
			return -1;
		}
	}
	return 0;
}

/* Sends what <out> holds. Returns 0 (possibly partial), or -1 on a socket error. */
static int cli_send(struct cli_sess *s)
{
	while (s->out.data) {
		ssize_t w = send(s->h.fd, b_head(&s->out), s->out.data, MSG_NOSIGNAL);

		if (w > 0) {
			b_del(&s->out, (uint32_t)w);
			cli_arm_timer(s);
		} else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			return 0;
		} else if (w < 0 && errno == EINTR) {
			continue;
		} else {
			return -1;
		}
	}
	return 0;
}

/* Finds the next complete line at the head of <in>: returns its length without CR/LF and
 * sets <*eat> to the bytes to consume, or returns -1 when none is complete. A line longer
 * than the input buffer is dropped as it arrives (<discard>); when its end comes, -2 is
 * returned (after consuming it) so that the caller answers an error line.
 */
static long cli_peek_line(struct cli_sess *s, size_t *eat)
{
	char *lf = memchr(b_head(&s->in), '\n', s->in.data);
	size_t len;

	if (!lf) {
		if (s->in.data >= s->in.size) {
			s->discard = true; /* longer than the input buffer */
			b_del(&s->in, s->in.data);
		}
		return -1;
	}
	len = (size_t)(lf - b_head(&s->in));
	*eat = len + 1;
	if (s->discard) {
		s->discard = false;
		b_del(&s->in, (uint32_t)*eat);
		return -2;
	}
	if (len && b_head(&s->in)[len - 1] == '\r')
		len--;
	return (long)len;
}

static int cli_toolong_fn(struct cli_ctx *ctx)
{
	return cli_printf(ctx, "Command line too long (%d bytes max).\n", CLI_IN_SIZE - 1) < 0
		       ? CLI_MORE
		       : CLI_DONE;
}

static int cli_pl_toobig_fn(struct cli_ctx *ctx)
{
	return cli_printf(ctx, "Payload too large (%d bytes max), command not run.\n",
			  CLI_PL_SIZE - 1) < 0
		       ? CLI_MORE
		       : CLI_DONE;
}

/* Ends the current line: no command of it remains to run. */
static void cli_line_done(struct cli_sess *s)
{
	s->line_busy = false;
	s->lines_done++;
	free(s->pl.area);
	memset(&s->pl, 0, sizeof(s->pl));
}

/* Runs <fn> as a command of its own (an error line about the input), with its trailer. */
static void cli_run_builtin(struct cli_sess *s, int (*fn)(struct cli_ctx *ctx))
{
	memset(&s->ctx, 0, sizeof(s->ctx));
	s->ctx.args = s->args;
	s->args[0] = NULL;
	s->ctx.level = s->level;
	s->ctx.out = &s->out;
	s->ctx.fd = -1;
	s->kw = NULL;
	s->fn = fn;
	s->trailer = true;
}

/* Takes the next line of <in>: a command line goes to <line> (line_busy set) unless it
 * announces a payload, whose lines are then collected into <pl> up to an empty line.
 * Returns true when there is something to run (line_busy or fn set), false when more
 * input is needed.
 */
static bool cli_take_line(struct cli_sess *s)
{
	size_t eat = 0;
	long len, cmd;

	while ((len = cli_peek_line(s, &eat)) != -1) {
		if (len == -2) {          /* the end of a line that was too long */
			if (s->pl_wait)
				s->pl.overflow = 1;
			else {
				s->lines_done++;
				cli_run_builtin(s, cli_toolong_fn);
				return true;
			}
			continue;
		}
		if (s->pl_wait) {
			int r = cli_payload_feed(&s->pl, b_head(&s->in), (size_t)len);

			b_del(&s->in, (uint32_t)eat);
			if (r == CLI_PL_MORE) {
				s->plus = true;
				return true;
			}
			s->pl_wait = false;
			if (!s->pl.overflow) {
				s->line_busy = true;
				return true;
			}
			cli_line_done(s);
			cli_run_builtin(s, cli_pl_toobig_fn);
			return true;
		}
		memcpy(s->line, b_head(&s->in), (size_t)len);
		b_del(&s->in, (uint32_t)eat);
		cmd = cli_payload_mark(s->line, (size_t)len);
		s->line_len = cmd >= 0 ? (size_t)cmd : (size_t)len;
		s->line[s->line_len] = '\0';
		s->line_pos = 0;
		if (cmd < 0) {
			s->line_busy = true;
			return true;
		}
		s->pl.area = malloc(CLI_PL_SIZE);
		s->pl.size = CLI_PL_SIZE;
		if (!s->pl.area) {
			s->closing = true;
			return false;
		}
		s->pl.area[0] = '\0';
		s->pl_wait = true;
		s->plus = true;
		return true;
	}
	return false;
}

/* Cuts the next command out of <line> and prepares its handler. The payload, if any, goes
 * to the last command of the line. */
static void cli_dispatch(struct cli_sess *s)
{
	size_t end = cli_next_cmd(s->line, s->line_pos, s->line_len);
	const struct cli_kw *kw;
	int n;

	s->line[end] = '\0';
	n = cli_tokenize(s->line + s->line_pos, s->args, CLI_MAX_ARGS);
	s->line_pos = end + 1;
	memset(&s->ctx, 0, sizeof(s->ctx));
	s->ctx.args = s->args;
	s->ctx.nargs = n;
	s->ctx.level = s->level;
	s->ctx.out = &s->out;
	s->ctx.fd = s->bind->expose_fd ? s->h.fd : -1;
	if (end >= s->line_len && s->pl.area) {
		s->ctx.payload = s->pl.area;
		s->ctx.payload_len = s->pl.len;
	}
	kw = n ? cli_kw_find(s->args, n) : NULL;
	s->kw = kw;
	if (!kw)
		s->fn = cli_unknown_fn;
	else if (kw->level > s->ctx.level)
		s->fn = cli_denied_fn;
	else
		s->fn = kw->fn;
	s->trailer = true;
}

/* Writes the trailer of a command in the session's mode. Returns 0 or -1 (no room). */
static int cli_put_trailer(struct cli_sess *s)
{
	unsigned long long up;
	char p[48];
	int n;

	switch (s->mode) {
	case CLI_MODE_PROMPT:
		return b_putblk(&s->out, "\n> ", 3);
	case CLI_MODE_TIMED:
		up = cli_uptime_ms() / 1000;
		n = snprintf(p, sizeof(p), "\n[%llu:%02llu:%02llu:%02llu]> ", up / 86400,
			     up / 3600 % 24, up / 60 % 60, up % 60);
		return b_putblk(&s->out, p, (uint32_t)n);
	default:
		return b_putblk(&s->out, "\n", 1);
	}
}

/* Runs as much of the session's work as the output buffer allows. Returns true when it
 * stopped on a full output buffer with work left.
 */
static bool cli_exec(struct cli_sess *s)
{
	while (!s->closing) {
		if (s->fn) {
			int ret = s->fn(&s->ctx);

			if (ret == CLI_YIELD) {
				timer_set(&s->resume, tick_add(1));
				return false;
			}
			if (ret == CLI_MORE) {
				if (!s->out.data)    /* a line larger than the buffer */
					s->closing = true;
				return !s->closing;
			}
			s->fn = NULL;
			if (s->ctx.flags & CLI_CTX_F_QUIT) {
				s->closing = true;
				return false;
			}
			if (s->ctx.flags & CLI_CTX_F_PROMPT)
				s->mode = s->mode == CLI_MODE_ONESHOT ? CLI_MODE_PROMPT
								      : CLI_MODE_ONESHOT;
		}
		if (s->trailer) {
			if (cli_put_trailer(s) < 0)
				return true;
			s->trailer = false;
		}
		if (s->plus) {
			/* "+ " while a payload is pending, in the prompt modes only */
			if (s->mode >= CLI_MODE_PROMPT && b_putblk(&s->out, "+ ", 2) < 0)
				return true;
			s->plus = false;
		}
		if (s->line_busy && s->line_pos <= s->line_len) {
			cli_dispatch(s);
			continue;
		}
		if (s->line_busy)
			cli_line_done(s);
		/* one-shot: as 2.6, the lines already received run, then the session ends */
		if (s->mode == CLI_MODE_ONESHOT && s->lines_done && !s->pl_wait &&
		    !memchr(b_head(&s->in), '\n', s->in.data)) {
			s->closing = true;
			return false;
		}
		if (!cli_take_line(s)) {
			if (s->rd_eof)
				s->closing = true;
			return false;
		}
	}
	return false;
}

/* Runs the session until it waits for the client; closes it when done or on error. */
static void cli_sess_run(struct cli_sess *s)
{
	bool blocked;

	/* Edge-triggered: loop until the socket itself makes us wait (EAGAIN on send, or on
	 * receive with room left), since no new event would come otherwise. */
	do {
		if (cli_recv(s) < 0)
			goto out_close;
		blocked = cli_exec(s);
		if (cli_send(s) < 0)
			goto out_close;
	} while (!s->out.data && !s->closing &&
		 (blocked || (s->rd_full && s->in.data < s->in.size)));
	if (s->closing && !s->out.data)
		goto out_close;
	return;
out_close:
	cli_sess_free(s);
}

static void cli_sess_resume(struct timer *t)
{
	cli_sess_run(container_of(t, struct cli_sess, resume));
}

static void cli_sess_iocb(struct fd_handler *h, uint32_t events)
{
	cli_sess_run(container_of(h, struct cli_sess, h));
}

static void cli_sess_expire(struct timer *t)
{
	cli_sess_free(container_of(t, struct cli_sess, tmr));
}

static struct cli_sess *cli_sess_new(struct cli_bind *b, int fd)
{
	struct cli_sess *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->in.area = malloc(CLI_IN_SIZE);
	s->out.area = malloc(CLI_OUT_SIZE);
	if (!s->in.area || !s->out.area) {
		free(s->in.area);
		free(s->out.area);
		free(s);
		return NULL;
	}
	s->in.size = CLI_IN_SIZE - 1; /* room for the NUL that ends a full line */
	s->out.size = CLI_OUT_SIZE;
	s->bind = b;
	s->level = b->level;
	s->timeout_ms = cli_timeout_ms;
	s->h.fd = fd;
	s->h.iocb = cli_sess_iocb;
	s->tmr.cb = cli_sess_expire;
	tasklet_init(&s->release, NULL);
	s->resume.cb = cli_sess_resume;
	return s;
}

int cli_sess_adopt(struct cli_bind *b, int fd)
{
	struct cli_sess *s = cli_sess_new(b, fd);

	if (!s || fd_register(&s->h) < 0) {
		if (s) {
			free(s->in.area);
			free(s->out.area);
			free(s);
		}
		return -1;
	}
	cli_nbsess++;
	list_append(&cli_sess_list, &s->by_cli);
	HA_ATOMIC_STORE_RLX(&cli_cum_sess, cli_cum_sess + 1);
	cli_arm_timer(s);
	cli_sess_run(s);
	return 0;
}

static void cli_accept_iocb(struct fd_handler *h, uint32_t events)
{
	struct cli_bind *b = container_of(h, struct cli_bind, h);

	while (cli_nbsess < cli_maxconn) {
		struct cli_sess *s;
		int fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return;
		s = cli_sess_new(b, fd);
		if (!s || fd_register(&s->h) < 0) {
			if (s) {
				free(s->in.area);
				free(s->out.area);
				free(s);
			}
			close(fd);
			continue;
		}
		cli_nbsess++;
		list_append(&cli_sess_list, &s->by_cli);
		HA_ATOMIC_STORE_RLX(&cli_cum_sess, cli_cum_sess + 1);
		cli_arm_timer(s);
		cli_sess_run(s);
	}
	cli_paused = true;        /* at maxconn: clients wait in the backlog */
	cli_listeners_poll(false);
}

bool cli_is_session_fd(int fd)
{
	struct cli_sess *s;

	list_for_each_entry(s, &cli_sess_list, by_cli)
		if (s->h.fd == fd)
			return true;
	return false;
}

int cli_sessions(void)
{
	return cli_nbsess;
}

int cli_listeners(void)
{
	int n = 0;

	for (struct cli_bind *b = cli_binds; b; b = b->next)
		n += b->h.fd >= 0;
	return n;
}

int cli_configured(void)
{
	int n = 0;

	for (struct cli_bind *b = cli_binds; b; b = b->next)
		n++;
	return n;
}

unsigned long long cli_cum_sessions(void)
{
	return HA_ATOMIC_LOAD_RLX(&cli_cum_sess);
}

/* Unix sockets are bound under a temporary name, given their mode and owner, then
 * renamed over the path, so that a socket left by a previous process is replaced at once.
 */
static int cli_bind_unix(struct cli_bind *b, int fd, char *err, size_t errsz)
{
	struct sockaddr_un tmp = *(struct sockaddr_un *)&b->addr;
	const char *path = ((struct sockaddr_un *)&b->addr)->sun_path;
	int n = snprintf(tmp.sun_path, sizeof(tmp.sun_path), "%s.%d.tmp", path, (int)getpid());

	if (n < 0 || (size_t)n >= sizeof(tmp.sun_path)) {
		snprintf(err, errsz, "path too long");
		return -1;
	}
	unlink(tmp.sun_path);
	if (bind(fd, (struct sockaddr *)&tmp, sizeof(tmp)) < 0)
		goto out_err;
	if ((b->mode >= 0 && chmod(tmp.sun_path, (mode_t)b->mode) < 0) ||
	    ((b->uid != (uid_t)-1 || b->gid != (gid_t)-1) &&
	     chown(tmp.sun_path, b->uid, b->gid) < 0) ||
	    listen(fd, cli_maxconn) < 0 || rename(tmp.sun_path, path) < 0) {
		unlink(tmp.sun_path);
		goto out_err;
	}
	return 0;
out_err:
	snprintf(err, errsz, "%s", strerror(errno));
	return -1;
}

/* "fd@N": adopts a listening socket received from the parent. Returns 0 or -1 (err set). */
static int cli_adopt_fd(struct cli_bind *b, char *err, size_t errsz)
{
	int fd = b->inherited_fd, acc = 0;
	socklen_t l = sizeof(acc);

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l) < 0 || !acc) {
		snprintf(err, errsz, "fd@%d is not a listening socket", fd);
		return -1;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		snprintf(err, errsz, "fd@%d: %s", fd, strerror(errno));
		return -1;
	}
	b->h.fd = fd;
	b->h.iocb = cli_accept_iocb;
	return 0;
}

static int cli_bind_one(struct cli_bind *b)
{
	int fam = b->addr.ss_family, one = 1, ret;
	char err[256] = "";
	int fd;

	if (b->inherited_fd >= 0) {
		if (cli_adopt_fd(b, err, sizeof(err)) == 0)
			return 0;
		goto out_alert;
	}
	/* an inet socket a previous master image passed through its re-exec: the old worker
	 * still holds it, so binding again would fail */
	if (fam != AF_UNIX && (fd = lfds_take(&b->addr, b->addrlen, false, 0)) >= 0 &&
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 &&
	    fcntl(fd, F_SETFD, FD_CLOEXEC) == 0) {
		b->h.fd = fd;
		b->h.iocb = cli_accept_iocb;
		return 0;
	}
	fd = socket(fam, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, sizeof(err), "%s", strerror(errno));
		goto out_alert;
	}
	if (fam == AF_UNIX && ((struct sockaddr_un *)&b->addr)->sun_path[0]) {
		ret = cli_bind_unix(b, fd, err, sizeof(err));
	} else {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		ret = bind(fd, (struct sockaddr *)&b->addr, b->addrlen) < 0 ||
		      listen(fd, cli_maxconn) < 0 ? -1 : 0;
		if (ret < 0)
			snprintf(err, sizeof(err), "%s", strerror(errno));
	}
	if (ret == 0) {
		b->h.fd = fd;
		b->h.iocb = cli_accept_iocb;
		return 0;
	}
	close(fd);
out_alert:
	ha_alert("Binding [%s:%d] for frontend GLOBAL: cannot bind socket (%s) for [%s]\n",
		 b->file, b->line, err, b->addr_str);
	return -1;
}

int cli_bind_all(void)
{
	int errors = 0;

	for (struct cli_bind *b = cli_binds; b; b = b->next)
		if (b->h.fd < 0)
			errors += cli_bind_one(b) < 0;
	return errors ? -1 : 0;
}

int cli_export_fds(char *out, size_t outsz)
{
	size_t off = strlen(out);

	for (struct cli_bind *b = cli_binds; b; b = b->next) {
		int n;

		if (b->h.fd < 0 || b->addr.ss_family == AF_UNIX)
			continue;
		n = snprintf(out + off, outsz - off, "%s%d:0", off ? "," : "", b->h.fd);
		if (n < 0 || (size_t)n >= outsz - off)
			return -1;
		if (fcntl(b->h.fd, F_SETFD, 0) < 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

int cli_start(void)
{
	cfg_startup_logs_freeze(); /* "show startup-logs": startup ends here */
	cli_stopped = false;
	cli_listeners_poll(true);
	if (cli_master_link_start() < 0) /* master-worker: the master CLI's link */
		return -1;
	for (struct cli_bind *b = cli_binds; b; b = b->next)
		if (b->h.fd >= 0 && !b->polled)
			return -1;
	return 0;
}

void cli_stop(void)
{
	cli_stopped = true;
	cli_listeners_poll(false);
	for (struct cli_bind *b = cli_binds; b; b = b->next) {
		if (b->h.fd >= 0)
			close(b->h.fd);
		b->h.fd = -1;
	}
}

/* names in "show profiling" (event/profiling.h) */
PROF_NAME(cli_sess_iocb, "cli_io_handler")
PROF_NAME(cli_sess_resume, "cli_io_handler_resume")
PROF_NAME(cli_accept_iocb, "cli_listener_accept")
