/* Configuration of "log-forward NAME" sections: dgram-bind, bind, log, maxconn, backlog,
 * timeout client (HAProxy 2.6's defaults and error words), and the check that warns about
 * a section without receivers. The receivers and the relaying are log/logfwd.c.
 */
#include <stdlib.h>
#include <string.h>

#include <base/addr.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <log/log.h>
#include <log/logfwd.h>
#include <log/ring.h>

static struct logfwd *lf_cur; /* the section being parsed, NULL after a bad section line */

static int lf_oom(struct cfg_ctx *ctx)
{
	cfg_alert(ctx, "out of memory.");
	return -1;
}

static int lf_begin(struct cfg_ctx *ctx)
{
	struct logfwd *lf, **tail;

	lf_cur = NULL;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "missing name for ip-forward section."); /* 2.6's words */
		return -1;
	}
	for (tail = &logfwds; *tail; tail = &(*tail)->next) {
		if (strcmp((*tail)->id, ctx->args[1]) == 0) {
			cfg_alert(
				ctx,
				"log-forward section '%s' has the same name as another log-forward "
				"section declared at %s:%d.",
				ctx->args[1], (*tail)->conf_file, (*tail)->conf_line);
			return -1;
		}
	}
	lf = calloc(1, sizeof(*lf));
	if (!lf || !(lf->id = strdup(ctx->args[1])) || !(lf->conf_file = strdup(ctx->file))) {
		if (lf)
			free(lf->id);
		free(lf);
		return lf_oom(ctx);
	}
	list_init(&lf->loggers);
	lf->conf_line = ctx->line;
	lf->maxconn = 10; /* 2.6's default for log-forward */
	*tail = lf;
	lf_cur = lf;
	return 0;
}

static const struct cfg_section logfwd_section = { "log-forward", CFG_SEC_LOGFWD, lf_begin };

__attribute__((constructor)) static void logfwd_register_section(void)
{
	cfg_register_section(&logfwd_section);
}

/* "dgram-bind ADDR:PORT" and "bind ADDR:PORT": IPv4 or IPv6, one address each. */
static int lf_kw_bind(struct cfg_ctx *ctx)
{
	int stream = ctx->args[0][0] == 'b';
	struct logfwd_rx *rx, **tail;
	struct addr_res res;
	char err[256];
	int ret;

	if (!lf_cur)
		return 0;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx,
			  "'%s' expects {<path>|[addr1]:port1[-end1]}{,[addr]:port[-end]}... "
			  "as arguments.",
			  ctx->args[0]);
		return -1;
	}
	if (ctx->nargs > 2) {
		if (stream)
			cfg_alert(ctx, "'bind %s' in section 'log-forward': unknown keyword '%s'.",
				  ctx->args[1], ctx->args[2]);
		else
			cfg_alert(ctx, "unknown keyword '%s' in 'log-forward' section.",
				  ctx->args[2]);
		return -1;
	}
	ret = addr_parse(ctx->args[1], ADDR_F_HOSTNAME, &res, err, sizeof(err));
	if (ret == ADDR_HOSTNAME && addr_resolve(&res, err, sizeof(err)) < 0) {
		cfg_alert(ctx, "'%s %s' : invalid address: '%s' in '%s'", ctx->args[0],
			  ctx->args[1], res.host, ctx->args[1]);
		return -1;
	}
	if (ret == ADDR_ERR) {
		cfg_alert(ctx, "'%s %s' : %s", ctx->args[0], ctx->args[1], err);
		return -1;
	}
	if (res.ss.ss_family != AF_INET && res.ss.ss_family != AF_INET6) {
		cfg_alert(ctx,
			  "'%s %s' : only IPv4 and IPv6 addresses are supported in a "
			  "log-forward section.",
			  ctx->args[0], ctx->args[1]);
		return -1;
	}
	rx = calloc(1, sizeof(*rx));
	if (!rx || !(rx->conf_file = strdup(ctx->file))) {
		free(rx);
		return lf_oom(ctx);
	}
	rx->lf = lf_cur;
	rx->addr = res.ss;
	rx->addrlen = res.len;
	rx->stream = stream;
	rx->h.fd = -1;
	rx->conf_line = ctx->line;
	for (tail = &lf_cur->rxs; *tail; tail = &(*tail)->next)
		;
	*tail = rx;
	return 0;
}

static int lf_kw_int(struct cfg_ctx *ctx)
{
	long v;

	if (!lf_cur)
		return 0;
	if (ctx->nargs < 2 || parse_long(ctx->args[1], 1, 1000000, &v) < 0) {
		cfg_alert(ctx, "'%s' expects an integer argument.", ctx->args[0]);
		return -1;
	}
	if (ctx->args[0][0] == 'm')
		lf_cur->maxconn = (int)v;
	else
		lf_cur->backlog = (int)v;
	return 0;
}

static int lf_kw_timeout(struct cfg_ctx *ctx)
{
	const char *err;
	int ms;

	if (!lf_cur)
		return 0;
	if (ctx->nargs < 2 || strcmp(ctx->args[1], "client") != 0) {
		cfg_alert(ctx, "unknown keyword 'timeout %s' in log-forward section.",
			  ctx->nargs >= 2 ? ctx->args[1] : "");
		return -1;
	}
	if (ctx->nargs < 3 || !*ctx->args[2]) {
		cfg_alert(ctx, "missing timeout client value.");
		return -1;
	}
	err = parse_time_ms(ctx->args[2], 1, &ms);
	if (err || ms < 0) {
		cfg_alert(ctx, "'timeout client' : invalid value '%s'.", ctx->args[2]);
		return -1;
	}
	lf_cur->tmo_client = ms;
	return 0;
}

static int lf_kw_log(struct cfg_ctx *ctx)
{
	if (!lf_cur)
		return 0;
	if (ctx->nargs == 2 && strcmp(ctx->args[1], "global") == 0) {
		if (log_list_dup(&lf_cur->loggers, &global_loggers) < 0)
			return lf_oom(ctx);
		return 0;
	}
	return log_parse_line(ctx, &lf_cur->loggers);
}

static const struct cfg_kw logfwd_kws[] = {
	{ "dgram-bind", CFG_SEC_LOGFWD, lf_kw_bind },
	{ "bind", CFG_SEC_LOGFWD, lf_kw_bind },
	{ "maxconn", CFG_SEC_LOGFWD, lf_kw_int },
	{ "backlog", CFG_SEC_LOGFWD, lf_kw_int },
	{ "timeout", CFG_SEC_LOGFWD, lf_kw_timeout },
	{ "log", CFG_SEC_LOGFWD, lf_kw_log },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(logfwd_kws);

int logfwd_cfg_check(void)
{
	struct logger *lg;
	int errs = 0;

	for (struct logfwd *lf = logfwds; lf; lf = lf->next) {
		if (!lf->rxs)
			ha_warning("frontend '%s' has no 'bind' directive. Please declare it as a "
				   "backend if this was intended.\n",
				   lf->id);
		list_for_each_entry(lg, &lf->loggers, list)
		{
			if (lg->dst != LOG_DST_RING || lg->ring->declared)
				continue;
			ha_alert("log server declared in log-forward section '%s' in file '%s' at "
				 "line %d uses unknown ring named '%s'.\n",
				 lf->id, lg->conf_file, lg->conf_line, lg->ring->id);
			errs++;
		}
		list_for_each_entry(lg, &lf->loggers, list)
		{
			if (lg->dst != LOG_DST_RING || !lg->ring->declared)
				continue;
			/* as ring_cfg_check() does for the proxies' loggers (it runs after) */
			if (lg->ring->implicit) {
				lg->ring->fmt = lg->fmt;
				lg->ring->explicit_fmt = lg->explicit_fmt;
				lg->ring->maxlen = lg->maxlen;
			} else {
				lg->fmt = lg->ring->fmt;
				lg->explicit_fmt = lg->ring->explicit_fmt;
				lg->maxlen = lg->ring->maxlen + 1;
			}
		}
	}
	return errs;
}

void logfwd_release(void)
{
	while (logfwds) {
		struct logfwd *lf = logfwds;

		logfwds = lf->next;
		while (lf->rxs) {
			struct logfwd_rx *rx = lf->rxs;

			lf->rxs = rx->next;
			free(rx->conf_file);
			free(rx);
		}
		log_list_free(&lf->loggers);
		free(lf->conf_file);
		free(lf->id);
		free(lf);
	}
	lf_cur = NULL;
}
