/* The "server-template PREFIX NUM|LOW-HIGH FQDN[:PORT] [options]" keyword: declares the
 * servers PREFIX<LOW>..PREFIX<HIGH> (PREFIX1..PREFIXNUM) as "server" lines sharing the
 * name and options; with "resolvers", DNS gives each one a different address of the name
 * (dns_run.c) and the others stay in maintenance. Parse time only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <backend/server.h>
#include <cfg/cfg.h>

/* "N" (1..N) or "LOW-HIGH" into *lo, *hi. Returns 0 or -1. */
static int tmpl_range(const char *s, long *lo, long *hi)
{
	char *end;

	*lo = strtol(s, &end, 10);
	if (end == s || *lo < 1 || *lo > 65535)
		return -1;
	if (!*end) {
		*hi = *lo;
		*lo = 1;
		return 0;
	}
	if (*end != '-')
		return -1;
	s = end + 1;
	*hi = strtol(s, &end, 10);
	if (end == s || *end || *hi < *lo || *hi > 65535)
		return -1;
	return 0;
}

static int tmpl_kw_parse(struct cfg_ctx *ctx)
{
	char *args[CFG_MAX_ARGS + 1], name[320];
	struct cfg_ctx sctx = *ctx;
	long lo, hi;
	int rc = 0;

	if (ctx->nargs < 4 || !*ctx->args[1] || !*ctx->args[3]) {
		cfg_alert(ctx, "'server-template' expects <prefix> <nb | range> <addr>[:<port>] as "
			       "arguments.");
		return -1;
	}
	if (tmpl_range(ctx->args[2], &lo, &hi) < 0) {
		cfg_alert(ctx, "Wrong server-template number or range arg '%s'.", ctx->args[2]);
		return -1;
	}
	/* a "server" line per server: "server NAME FQDN options..." */
	args[0] = "server";
	args[1] = name;
	for (int i = 3; i < ctx->nargs; i++)
		args[i - 1] = ctx->args[i];
	args[ctx->nargs - 1] = NULL;
	sctx.args = args;
	sctx.nargs = ctx->nargs - 1;
	for (long n = lo; n <= hi && rc == 0; n++) {
		snprintf(name, sizeof(name), "%s%ld", ctx->args[1], n);
		rc = srv_kw_parse(&sctx);
	}
	return rc;
}

static const struct cfg_kw tmpl_kws[] = {
	{ "server-template", CFG_SEC_PROXIES, tmpl_kw_parse },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(tmpl_kws);
