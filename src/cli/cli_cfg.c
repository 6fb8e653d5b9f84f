/* The "stats" keyword of the global section: "stats socket ADDR [options]" (unix path with
 * mode/uid/gid/user/group/level, or an inet address), "stats timeout" and "stats maxconn".
 * Only records the settings; binding is done by cli.c. "stats" in proxies is not ours.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include <base/addr.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <proxy/proxy.h>
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
	snprintf(msg, sizeof(msg), "'%s' : unknown %s '%s'", opt, opt, v ? v : "");
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

/* Parses the options after the address, from args[i]. Returns 0 or -1 (alert printed). */
static int cli_parse_opts(struct cfg_ctx *ctx, struct cli_bind *b, int i)
{
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
				cfg_alert(ctx, "'stats socket' : 'expose-fd' only supports "
					  "'listeners'");
				return -1;
			}
			b->expose_fd = true;
			ret = 0;
		} else if (strcmp(opt, "process") == 0 ||
			 strcmp(opt, "severity-output") == 0) {
			cfg_alert(ctx, "'stats socket' : '%s' is not supported yet (a stats "
				  "socket is always served by the worker's thread 0).", opt);
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

/* The address of "stats socket": every form "bind" accepts for one address (inet with
 * an optional ipv4@/ipv6@ prefix or a host name, unix path, "fd@N", "fd@${NAME}") but a
 * port range. Returns 0 or -1 after an alert.
 */
static int cli_parse_addr(struct cfg_ctx *ctx, struct addr_res *res)
{
	const char *s;
	char err[320], buf[160];
	int rc;

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
		cfg_warn(ctx, "'stats bind-process' is obsolete and ignored (one process runs "
			 "threads).");
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
