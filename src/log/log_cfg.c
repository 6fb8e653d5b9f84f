/* Configuration of log targets: "log" lines in global and proxy sections (target, len,
 * format, sample, facility, levels), "log global", "no log", "log-tag" and
 * "log-send-hostname", with HAProxy 2.6's messages; proxies copy their defaults' targets.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include <base/addr.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <log/log.h>
#include <log/ring.h>
#include <proxy/proxy-t.h>
#include <proxy/proxy.h>

static const char *const log_facilities[24] = {
	"kern",	  "user",   "mail",   "daemon", "auth",	  "syslog", "lpr",    "news",
	"uucp",	  "cron",   "auth2",  "ftp",	"ntp",	  "audit",  "alert",  "cron2",
	"local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7",
};

static const char *const log_fmt_names[] = {
	[LOG_FMT_RFC3164] = "rfc3164", [LOG_FMT_LOCAL] = "local", [LOG_FMT_RFC5424] = "rfc5424",
	[LOG_FMT_PRIO] = "priority",   [LOG_FMT_SHORT] = "short", [LOG_FMT_TIMED] = "timed",
	[LOG_FMT_ISO] = "iso",	       [LOG_FMT_RAW] = "raw",
};

int log_fmt_parse(const char *name)
{
	for (size_t f = 0; f < sizeof(log_fmt_names) / sizeof(log_fmt_names[0]); f++)
		if (strcmp(name, log_fmt_names[f]) == 0)
			return (int)f;
	return -1;
}

int log_level_parse(const char *name)
{
	for (int i = 0; i < 8; i++)
		if (strcmp(name, log_level_names[i]) == 0)
			return i;
	return -1;
}

int log_facility_parse(const char *name)
{
	for (int i = 0; i < 24; i++)
		if (strcmp(name, log_facilities[i]) == 0)
			return i;
	return -1;
}

static void logger_free(struct logger *lg)
{
	free(lg->smp_lo);
	free(lg->smp_hi);
	free(lg->conf_file);
	free(lg);
}

void log_list_free(struct list *list)
{
	struct logger *lg, *n;

	list_for_each_entry_safe(lg, n, list, list)
	{
		list_delete(&lg->list);
		logger_free(lg);
	}
}

static struct logger *logger_dup(const struct logger *from)
{
	struct logger *lg = malloc(sizeof(*lg));
	size_t sz = (size_t)from->smp_nb * sizeof(uint32_t);

	if (!lg)
		return NULL;
	*lg = *from;
	lg->smp_lo = lg->smp_hi = NULL;
	lg->conf_file = NULL;
	lg->smp_count = 0;
	if (sz && (!(lg->smp_lo = malloc(sz)) || !(lg->smp_hi = malloc(sz))))
		goto fail;
	if (sz) {
		memcpy(lg->smp_lo, from->smp_lo, sz);
		memcpy(lg->smp_hi, from->smp_hi, sz);
	}
	if (from->conf_file && !(lg->conf_file = strdup(from->conf_file)))
		goto fail;
	return lg;
fail:
	logger_free(lg);
	return NULL;
}

int log_list_dup(struct list *to, const struct list *from)
{
	const struct logger *lg;

	list_for_each_entry(lg, from, list)
	{
		struct logger *n = logger_dup(lg);

		if (!n)
			return -1;
		list_append(to, &n->list);
	}
	return 0;
}

/* "sample R1[,R2...]:S": ranges "N" or "N-M" (1-based) out of periods of S messages. */
static int log_parse_sample(struct cfg_ctx *ctx, struct logger *lg, const char *arg)
{
	const char *colon = strrchr(arg, ':');
	const char *p = arg;
	uint32_t maxhi = 0;
	char *end;
	long size;

	if (!colon || colon == arg) {
		cfg_alert(ctx, "log : invalid sample expression '%s' (expects '<ranges>:<size>')",
			  arg);
		return -1;
	}
	size = strtol(colon + 1, &end, 10);
	if (*end || colon[1] < '0' || colon[1] > '9' || size <= 0 || size > INT_MAX) {
		cfg_alert(ctx, "log : wrong sample size '%s' for sample range '%.*s'", colon + 1,
			  (int)(colon - arg), arg);
		return -1;
	}
	while (p < colon) {
		long lo, hi;
		uint32_t *nl, *nh;

		lo = strtol(p, &end, 10);
		hi = lo;
		if (end > p && *end == '-') {
			p = end + 1;
			hi = strtol(p, &end, 10);
		}
		if (end == p || lo <= 0 || hi < lo || hi > INT_MAX ||
		    (*end != ',' && end != colon)) {
			cfg_alert(ctx, "log : invalid range '%.*s' in sample expression '%s'",
				  (int)(colon - arg), arg, arg);
			return -1;
		}
		nl = realloc(lg->smp_lo, (size_t)(lg->smp_nb + 1) * sizeof(*nl));
		if (nl)
			lg->smp_lo = nl;
		nh = nl ? realloc(lg->smp_hi, (size_t)(lg->smp_nb + 1) * sizeof(*nh)) : NULL;
		if (!nh) {
			cfg_alert(ctx, "log : out of memory.");
			return -1;
		}
		lg->smp_hi = nh;
		lg->smp_lo[lg->smp_nb] = (uint32_t)lo;
		lg->smp_hi[lg->smp_nb] = (uint32_t)hi;
		lg->smp_nb++;
		if ((uint32_t)hi > maxhi)
			maxhi = (uint32_t)hi;
		p = *end == ',' ? end + 1 : end;
	}
	if ((uint32_t)size < maxhi) {
		cfg_alert(ctx,
			  "log : sample size %ld should be greater or equal to %u the maximum "
			  "of the high ranges limits",
			  size, maxhi);
		return -1;
	}
	lg->smp_period = (uint32_t)size;
	return 0;
}

/* The target: "stdout", "stderr", "fd@N", a unix path ("/dev/log", "unix@PATH") or an
 * inet address with an optional port (514), "udp@", "udp4@", "udp6@", "ipv4@", "ipv6@"
 * prefixes. */
static int log_parse_target(struct cfg_ctx *ctx, struct logger *lg, const char *arg)
{
	struct addr_res res;
	char err[256], buf[512];
	const char *a = arg;
	int ret;

	lg->fd = -1;
	if (strcmp(arg, "stdout") == 0 || strcmp(arg, "stderr") == 0 ||
	    strncmp(arg, "fd@", 3) == 0) {
		long fd = arg[0] == 's' ? (arg[3] == 'o' ? 1 : 2) : -1;
		char *end;

		if (fd < 0) {
			fd = strtol(arg + 3, &end, 10);
			if (!arg[3] || *end || fd < 0 || fd > INT_MAX) {
				cfg_alert(ctx, "log : invalid file descriptor in '%s'", arg);
				return -1;
			}
		}
		lg->dst = LOG_DST_FD;
		lg->fd = (int)fd;
		return 0;
	}
	if (strncmp(arg, "ring@", 5) == 0) {
		lg->dst = LOG_DST_RING;
		lg->ring = ring_for_target(ctx, arg + 5);
		return lg->ring ? 0 : -1;
	}
	if (strncmp(arg, "tcp@", 4) == 0 || strncmp(arg, "tcp4@", 5) == 0 ||
	    strncmp(arg, "tcp6@", 5) == 0) {
		if (arg[3] != '@') {
			snprintf(buf, sizeof(buf), "ipv%c@%s", arg[3], arg + 5);
			a = buf;
		}
		lg->dst = LOG_DST_RING;
		lg->ring = ring_for_tcp_target(ctx, a);
		return lg->ring ? 0 : -1;
	}
	if (strncmp(arg, "unix@", 5) == 0)
		a = arg + 5;
	if (a[0] == '/') {
		struct sockaddr_un *un = (struct sockaddr_un *)&lg->addr;

		if (strlen(a) >= sizeof(un->sun_path)) {
			cfg_alert(ctx, "log : socket path '%s' too long", a);
			return -1;
		}
		un->sun_family = AF_UNIX;
		strcpy(un->sun_path, a);
		lg->addrlen = (socklen_t)sizeof(*un);
		lg->dst = LOG_DST_UNIX;
		return 0;
	}
	if (strncmp(a, "udp@", 4) == 0)
		a += 4;
	else if (strncmp(a, "udp4@", 5) == 0 || strncmp(a, "udp6@", 5) == 0) {
		snprintf(buf, sizeof(buf), "ipv%c@%s", a[3], a + 5);
		a = buf;
	}
	/* the port is optional: 514 */
	ret = addr_parse(a, ADDR_F_HOSTNAME | ADDR_F_PORT_MAP, &res, err, sizeof(err));
	if (ret == ADDR_HOSTNAME && addr_resolve(&res, err, sizeof(err)) < 0)
		ret = ADDR_ERR;
	if (ret == ADDR_ERR || (res.ss.ss_family != AF_INET && res.ss.ss_family != AF_INET6)) {
		cfg_alert(ctx, "log : invalid address: '%s' in '%s'", a, arg);
		return -1;
	}
	if (res.port_map && res.port_off) {
		cfg_alert(ctx, "log : invalid port in '%s'", arg);
		return -1;
	}
	lg->addr = res.ss;
	lg->addrlen = res.len;
	if (res.port_map) {
		if (lg->addr.ss_family == AF_INET)
			((struct sockaddr_in *)&lg->addr)->sin_port = htons(514);
		else
			((struct sockaddr_in6 *)&lg->addr)->sin6_port = htons(514);
	}
	lg->dst = LOG_DST_UDP;
	return 0;
}

int log_parse_line(struct cfg_ctx *ctx, struct list *list)
{
	struct logger *lg;
	int i = 2, v;

	if (ctx->nargs < 3) {
		cfg_alert(ctx, "log : expects <address> and <facility>  as arguments");
		return -1;
	}
	lg = calloc(1, sizeof(*lg));
	if (!lg || !(lg->conf_file = strdup(ctx->file))) {
		cfg_alert(ctx, "log : out of memory.");
		goto fail;
	}
	lg->conf_line = ctx->line;
	lg->level = LOG_LVL_DEBUG;
	lg->minlevel = LOG_LVL_EMERG;
	lg->maxlen = 1024;
	if (log_parse_target(ctx, lg, ctx->args[1]) < 0)
		goto fail;
	while (i + 1 < ctx->nargs) {
		const char *kw = ctx->args[i], *arg = ctx->args[i + 1];

		if (strcmp(kw, "len") == 0) {
			char *end;
			long len = strtol(arg, &end, 10);

			if (*end || !*arg || len < 80 || len > 65535) {
				cfg_alert(ctx,
					  "log : invalid log length '%s', must be between 80 and "
					  "65535",
					  arg);
				goto fail;
			}
			lg->maxlen = (int)len;
		} else if (strcmp(kw, "format") == 0) {
			size_t f;

			for (f = 0; f < sizeof(log_fmt_names) / sizeof(log_fmt_names[0]); f++)
				if (strcmp(arg, log_fmt_names[f]) == 0)
					break;
			if (f == sizeof(log_fmt_names) / sizeof(log_fmt_names[0])) {
				cfg_alert(ctx, "log : unknown log format '%s'", arg);
				goto fail;
			}
			lg->fmt = (enum log_fmt)f;
			lg->explicit_fmt = true;
		} else if (strcmp(kw, "sample") == 0) {
			if (lg->smp_period) {
				cfg_alert(ctx, "log : 'sample' given twice");
				goto fail;
			}
			if (log_parse_sample(ctx, lg, arg) < 0)
				goto fail;
		} else {
			break;
		}
		i += 2;
	}
	if (i >= ctx->nargs) {
		cfg_alert(ctx, "log : expects <address> and <facility>  as arguments");
		goto fail;
	}
	v = log_facility_parse(ctx->args[i]);
	if (v < 0) {
		cfg_alert(ctx, "log : unknown log facility '%s'", ctx->args[i]);
		goto fail;
	}
	lg->facility = v;
	if (++i < ctx->nargs) {
		v = log_level_parse(ctx->args[i]);
		if (v < 0) {
			cfg_alert(ctx, "log : unknown optional log level '%s'", ctx->args[i]);
			goto fail;
		}
		lg->level = v;
	}
	if (++i < ctx->nargs) {
		v = log_level_parse(ctx->args[i]);
		if (v < 0) {
			cfg_alert(ctx, "log : unknown optional minimum log level '%s'",
				  ctx->args[i]);
			goto fail;
		}
		lg->minlevel = v;
	}
	if (++i < ctx->nargs) {
		cfg_alert(ctx, "log : cannot handle unexpected argument '%s'", ctx->args[i]);
		goto fail;
	}
	/* messages to a file descriptor never block the loop: drops are counted instead */
	if (lg->dst == LOG_DST_FD) {
		int fl = fcntl(lg->fd, F_GETFL);

		if (fl < 0) {
			cfg_alert(ctx, "log : file descriptor %d is not open", lg->fd);
			goto fail;
		}
		if (!(fl & O_NONBLOCK))
			fcntl(lg->fd, F_SETFL, fl | O_NONBLOCK);
	}
	list_append(list, &lg->list);
	return 0;
fail:
	if (lg)
		logger_free(lg);
	return -1;
}

static int log_cfg_global_log(struct cfg_ctx *ctx)
{
	if (ctx->nargs > 1 && strcmp(ctx->args[1], "global") == 0) {
		cfg_alert(ctx, "log : 'global' is not supported for a global syslog server");
		return -1;
	}
	return log_parse_line(ctx, &global_loggers);
}

/* "log global" copies the global targets as they are now (the global section comes
 * first in practice, as HAProxy expects); "log ..." adds one. */
static int log_cfg_px_log(struct cfg_ctx *ctx)
{
	struct proxy *px = ctx->px;

	if (ctx->nargs == 2 && strcmp(ctx->args[1], "global") == 0) {
		if (log_list_dup(&px->loggers, &global_loggers) < 0) {
			cfg_alert(ctx, "log : out of memory.");
			return -1;
		}
		return 0;
	}
	return log_parse_line(ctx, &px->loggers);
}

static int log_cfg_tag(struct cfg_ctx *ctx)
{
	char **dst = ctx->px ? &ctx->px->log_tag : &global_log_tag;
	char *t;

	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'%s' expects a tag for use in syslog.", ctx->args[0]);
		return -1;
	}
	t = strdup(ctx->args[1]);
	if (!t) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	free(*dst);
	*dst = t;
	return 0;
}

/* log-send-hostname [NAME]: the system's host name when none is given */
static int log_cfg_send_hostname(struct cfg_ctx *ctx)
{
	char host[256];
	char *h;

	if (ctx->nargs > 1) {
		h = strdup(ctx->args[1]);
	} else {
		if (gethostname(host, sizeof(host)) < 0)
			host[0] = '\0';
		host[sizeof(host) - 1] = '\0';
		h = strdup(host);
	}
	if (!h) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	free(global_log_host);
	global_log_host = h;
	global_log_hostname = true;
	return 0;
}

static int log_px_inherit(struct proxy *px, const struct proxy *def)
{
	if (def->log_tag && !(px->log_tag = strdup(def->log_tag)))
		return -1;
	return log_list_dup(&px->loggers, &def->loggers);
}

static void log_px_free(struct proxy *px)
{
	log_list_free(&px->loggers);
	free(px->log_tag);
	px->log_tag = NULL;
}

static void log_px_no_log(struct proxy *px)
{
	log_list_free(&px->loggers);
}

__attribute__((constructor)) static void log_cfg_hooks(void)
{
	proxy_log_inherit_hook = log_px_inherit;
	proxy_log_free_hook = log_px_free;
	proxy_no_log_hook = log_px_no_log;
}

static const struct cfg_kw log_cfg_kws[] = {
	{ "log", CFG_SEC_GLOBAL, log_cfg_global_log },
	{ "log", CFG_SEC_PROXIES, log_cfg_px_log },
	{ "log-tag", CFG_SEC_GLOBAL | CFG_SEC_PROXIES, log_cfg_tag },
	{ "log-send-hostname", CFG_SEC_GLOBAL, log_cfg_send_hostname },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(log_cfg_kws);
