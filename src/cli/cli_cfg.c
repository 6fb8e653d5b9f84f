/* The "stats" keyword of the global section: "stats socket ADDR [options]" (unix path with
 * mode/uid/gid/user/group/level, or an inet address), "stats timeout" and "stats maxconn".
 * Only records the settings; binding is done by cli.c. "stats" in proxies is not ours.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include <base/addr.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <proxy/proxy.h>
#include <thread/thread_cfg.h>
#include "cli_int.h"

struct cli_bind *cli_binds;
int cli_timeout_ms = 10000;
int cli_maxconn = 10;

/* Error text of an option, wrapped as HAProxy prints bind option errors. */
static int cli_opt_err(struct cfg_ctx *ctx, const char *msg)
{
	cfg_alert(ctx, "'stats socket' : '%s'", msg);
	return -1;
}

static int cli_opt_mode(struct cfg_ctx *ctx, struct cli_bind *b, const char *v)
{
	char *end, msg[160];
	long m;

	errno = 0;
	m = v ? strtol(v, &end, 8) : -1;
	if (!v || !*v || *end || errno || m < 0 || m > 07777) {
		snprintf(msg, sizeof(msg), "'mode' : missing or invalid mode '%s' (octal integer "
			 "expected)", v ? v : "");
		return cli_opt_err(ctx, msg);
	}
	b->mode = (int)m;
	return 0;
}

static int cli_opt_id(struct cfg_ctx *ctx, const char *opt, const char *v, long *out)
{
	char msg[160];

	if (!v || parse_long(v, 0, INT_MAX, out) < 0) {
		snprintf(msg, sizeof(msg), "'%s' : missing or invalid %s (integer expected)", opt,
			 strcmp(opt, "uid") == 0 ? "uid" : "gid");
		return cli_opt_err(ctx, msg);
	}
	return 0;
}

static int cli_opt_user(struct cfg_ctx *ctx, struct cli_bind *b, const char *opt,
			const char *v)
{
	char msg[200];

	if (v && strcmp(opt, "user") == 0) {
		struct passwd *pw = getpwnam(v);

		if (pw) {
			b->uid = pw->pw_uid;
			return 0;
		}
	} else if (v) {
		struct group *gr = getgrnam(v);

		if (gr) {
			b->gid = gr->gr_gid;
			return 0;
		}
	}
	snprintf(msg, sizeof(msg), "'%s' : unknown %s name '%s'", opt, opt, v ? v : "");
	return cli_opt_err(ctx, msg);
}

static int cli_opt_level(struct cfg_ctx *ctx, struct cli_bind *b, const char *v)
{
	char msg[160];

	if (v && strcmp(v, "user") == 0)
		b->level = CLI_LVL_USER;
	else if (v && strcmp(v, "operator") == 0)
		b->level = CLI_LVL_OPER;
	else if (v && strcmp(v, "admin") == 0)
		b->level = CLI_LVL_ADMIN;
	else {
		snprintf(msg, sizeof(msg), "'level' only supports 'user', 'operator', and 'admin' "
			 "(got '%s')", v ? v : "");
		return cli_opt_err(ctx, msg);
	}
	return 0;
}

/* A process set as 2.6 reads it with one process: "all", "odd", "1", "1-1", each with an
 * optional "/threads" part. Returns true when it names process 1 only.
 */
static bool cli_proc_set_ok(const char *v)
{
	size_t n = strcspn(v, "/");

	return (n == 3 && !strncmp(v, "all", 3)) || (n == 3 && !strncmp(v, "odd", 3)) ||
	       (n == 1 && v[0] == '1') || (n == 3 && !strncmp(v, "1-1", 3));
}

/* "process SET": deprecated in 2.6 and meaningless with one process: a warning. */
static int cli_opt_process(struct cfg_ctx *ctx, const char *v)
{
	char msg[200];

	if (!v || !cli_proc_set_ok(v)) {
		bool num = v && *v >= '0' && *v <= '9';

		snprintf(msg, sizeof(msg), "'process' : '%s' is not a valid number/range.%s",
			 v ? v : "", num ? " It supports numbers from 1 to 1." : "");
		return cli_opt_err(ctx, msg);
	}
	cfg_warn(ctx, "'stats socket' : 'process %s' on 'bind' lines is deprecated and will be "
		 "removed in 2.7.", v);
	return 0;
}

/* "thread SET": checked as "bind ... thread" is; the runtime API is served by thread 0
 * whatever the set names (its sessions are few and short). */
static int cli_opt_thread(struct cfg_ctx *ctx, const char *v)
{
	struct thread_set ts;
	char err[256], msg[320];

	if (!v || thread_set_parse(v, &ts, err, sizeof(err)) < 0) {
		snprintf(msg, sizeof(msg), "'%s' : '%s' is not a valid number/range.", v ? v : "",
			 v ? v : "");
		return cli_opt_err(ctx, msg);
	}
	return 0;
}

/* Parses the options after the address, from args[i]. Returns 0 or -1 (alert printed). */
static int cli_parse_opts(struct cfg_ctx *ctx, struct cli_bind *b, int i)
{
	char msg[200];
	long v;

	for (; i < ctx->nargs; i += 2) {
		const char *opt = ctx->args[i], *val = ctx->args[i + 1];
		int ret;

		if (strcmp(opt, "mode") == 0)
			ret = cli_opt_mode(ctx, b, val);
		else if (strcmp(opt, "uid") == 0 || strcmp(opt, "gid") == 0) {
			ret = cli_opt_id(ctx, opt, val, &v);
			if (!ret && opt[0] == 'u')
				b->uid = (uid_t)v;
			else if (!ret)
				b->gid = (gid_t)v;
		} else if (strcmp(opt, "user") == 0 || strcmp(opt, "group") == 0)
			ret = cli_opt_user(ctx, b, opt, val);
		else if (strcmp(opt, "level") == 0)
			ret = cli_opt_level(ctx, b, val);
		else if (strcmp(opt, "expose-fd") == 0) {
			if (!val || strcmp(val, "listeners") != 0) {
				snprintf(msg, sizeof(msg), "'expose-fd' only supports 'listeners' "
					 "(got '%s')", val ? val : "");
				return cli_opt_err(ctx, msg);
			}
			b->expose_fd = true;
			ret = 0;
		} else if (strcmp(opt, "process") == 0) {
			ret = cli_opt_process(ctx, val);
		} else if (strcmp(opt, "thread") == 0) {
			ret = cli_opt_thread(ctx, val);
		} else if (strcmp(opt, "severity-output") == 0) {
			cfg_alert(ctx, "'stats socket' : 'severity-output' is not supported yet "
				  "(answers carry no severity prefix).");
			return -1;
		} else {
			cfg_alert(ctx, "'stats socket' : unknown keyword '%s'.", opt);
			return -1;
		}
		if (ret < 0)
			return -1;
	}
	return 0;
}

/* "abns@NAME": a unix socket in Linux's abstract namespace. As HAProxy, the address is
 * the whole sun_path (the name padded with NULs): clients must connect with the same
 * padded length. Returns 0 or -1 after an alert.
 */
static int cli_parse_abns(struct cfg_ctx *ctx, const char *name, struct addr_res *res)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&res->ss;
	size_t len = strlen(name);

	memset(res, 0, sizeof(*res));
	res->fd = -1;
	if (!len || len >= sizeof(un->sun_path)) {
		cfg_alert(ctx, "'stats socket' : abstract socket name '%s' is empty or too long "
			  "(%zu bytes max).", name, sizeof(un->sun_path) - 1);
		return -1;
	}
	un->sun_family = AF_UNIX;
	memcpy(un->sun_path + 1, name, len);
	res->len = sizeof(*un);
	return 0;
}

/* The address of "stats socket": every form "bind" accepts for one address (inet with
 * an optional ipv4@/ipv6@ prefix or a host name, unix path, "fd@N", "fd@${NAME}") but a
 * port range. Returns 0 or -1 after an alert.
 */
static int cli_parse_addr(struct cfg_ctx *ctx, struct addr_res *res)
{
	const char *s;
	char err[320], buf[160];
	int rc;

	if (strncmp(ctx->args[2], "abns@", 5) == 0)
		return cli_parse_abns(ctx, ctx->args[2] + 5, res);
	s = addr_expand_fd_env(ctx->args[2], buf, sizeof(buf));
	if (!s) {
		cfg_alert(ctx, "'stats socket' : '%s': environment variable not set or invalid.",
			  ctx->args[2]);
		return -1;
	}
	rc = addr_parse(s, ADDR_F_FD | ADDR_F_HOSTNAME, res, err, sizeof(err));
	if (rc == ADDR_HOSTNAME && addr_resolve(res, err, sizeof(err)) < 0)
		rc = ADDR_ERR;
	if (rc == ADDR_ERR) {
		cfg_alert(ctx, "'stats socket' : %s", err);
		return -1;
	}
	if (res->fd >= 0 && fcntl(res->fd, F_GETFD) < 0) {
		cfg_alert(ctx, "'stats socket' : cannot use file descriptor '%d' : %s.", res->fd,
			  strerror(errno));
		return -1;
	}
	return 0;
}

static int cli_cfg_socket(struct cfg_ctx *ctx)
{
	struct cli_bind *b, **tail;
	struct addr_res res;

	if (ctx->nargs < 3) {
		cfg_alert(ctx, "'stats socket' in global section expects an address or a path to "
			  "a UNIX socket");
		return -1;
	}
	if (cli_parse_addr(ctx, &res) < 0)
		return -1;
	b = calloc(1, sizeof(*b));
	if (!b || !(b->addr_str = strdup(ctx->args[2])) ||
	    !(b->file = strdup(ctx->file ? ctx->file : "")))
		goto out_oom;
	b->line = ctx->line;
	b->addr = res.ss;
	b->addrlen = res.len;
	b->inherited_fd = res.fd;
	b->mode = -1;
	b->uid = (uid_t)-1;
	b->gid = (gid_t)-1;
	b->level = CLI_LVL_OPER;
	b->h.fd = -1;
	if (cli_parse_opts(ctx, b, 3) < 0)
		goto out_free;
	for (tail = &cli_binds; *tail; tail = &(*tail)->next)
		;
	*tail = b;
	return 0;
out_oom:
	cfg_alert(ctx, "out of memory.");
out_free:
	if (b) {
		free(b->addr_str);
		free(b->file);
	}
	free(b);
	return -1;
}

static int cli_cfg_timeout(struct cfg_ctx *ctx)
{
	const char *v = ctx->nargs > 2 ? ctx->args[2] : "";
	const char *bad;
	int ms = 0;

	bad = *v ? parse_time_ms(v, 1, &ms) : v;
	if (bad) {
		cfg_alert(ctx, "'stats timeout' : unexpected character '%c'", *bad);
		return -1;
	}
	if (ms <= 0) {
		cfg_alert(ctx, "'stats timeout' expects a positive value");
		return -1;
	}
	cli_timeout_ms = ms;
	return 0;
}

static int cli_cfg_maxconn(struct cfg_ctx *ctx)
{
	long v;

	if (ctx->nargs < 3 || parse_long(ctx->args[2], 1, INT_MAX, &v) < 0) {
		cfg_alert(ctx, "'stats maxconn' expects a positive value");
		return -1;
	}
	cli_maxconn = (int)v;
	return 0;
}

static int cli_cfg_stats(struct cfg_ctx *ctx)
{
	const char *sub = ctx->nargs > 1 ? ctx->args[1] : "";

	/* HAProxy creates its runtime API proxy here: it takes proxy id 1 */
	if (!strcmp(sub, "socket") || !strcmp(sub, "timeout") || !strcmp(sub, "maxconn"))
		proxy_first_id = 2;
	if (strcmp(sub, "socket") == 0)
		return cli_cfg_socket(ctx);
	if (strcmp(sub, "timeout") == 0)
		return cli_cfg_timeout(ctx);
	if (strcmp(sub, "maxconn") == 0)
		return cli_cfg_maxconn(ctx);
	if (strcmp(sub, "bind-process") == 0) {
		/* one process: "all", "odd", "1" are what 2.6 accepts, silently */
		if (ctx->nargs < 3 || !cli_proc_set_ok(ctx->args[2])) {
			const char *v = ctx->nargs > 2 ? ctx->args[2] : "";

			cfg_alert(ctx, "'stats bind-process' : '%s' is not a valid number/range.%s", v,
				  *v >= '0' && *v <= '9' ? " It supports numbers from 1 to 1." : "");
			return -1;
		}
		return 0;
	}
	cfg_alert(ctx, "'stats' only supports 'socket', 'maxconn', 'bind-process' and "
		  "'timeout' (got '%s')", sub);
	return -1;
}

static const struct cfg_kw cli_cfg_kws[] = {
	{ "stats", CFG_SEC_GLOBAL, cli_cfg_stats },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(cli_cfg_kws)
