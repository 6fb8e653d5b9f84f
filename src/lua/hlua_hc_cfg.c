/* The settings of the Lua HTTP client: the global keywords httpclient.ssl.verify,
 * httpclient.ssl.ca-file, httpclient.resolvers.id, httpclient.resolvers.prefer,
 * httpclient.resolvers.disabled and httpclient.timeout.connect, and the check that builds
 * the client's TLS context and finds its resolvers section. As HAProxy: by default the
 * client verifies servers against the system's CAs and resolves through the section
 * "default" (made from /etc/resolv.conf when not declared); when those defaults cannot be
 * had, HTTPS (or name resolution) is just not available, while an explicit setting that
 * fails is a configuration error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <cfg/cfg.h>
#include <dns/dns.h>
#include <lua/hlua.h>
#include <ssl/ssl.h>

#include "hlua_int.h"

struct hlua_hc_conf hlua_hc_conf = {
	.verify = -1,
	.prefer = AF_INET6,
	.timeout_connect = 5000,
};

static char *hc_res_file; /* where httpclient.resolvers.id was given */
static int hc_res_line;

static int hc_kw_verify(struct cfg_ctx *ctx)
{
	const char *v = ctx->nargs > 1 ? ctx->args[1] : "";

	if (strcmp(v, "none") && strcmp(v, "required")) {
		cfg_alert(ctx, "'%s' expects 'none' or 'required' as argument.", ctx->args[0]);
		return -1;
	}
	hlua_hc_conf.verify = !strcmp(v, "required");
	return 0;
}

static int hc_kw_ca_file(struct cfg_ctx *ctx)
{
	char err[256];
	SSL_CTX *c;

	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'%s' expects a file as argument.", ctx->args[0]);
		return -1;
	}
	/* loaded now, so that a file that cannot be used is reported with its line */
	c = ssl_client_ctx_new(true, ctx->args[1], err, sizeof(err));
	if (!c) {
		cfg_alert(ctx, "'%s' : %s.", ctx->args[0], err);
		return -1;
	}
	SSL_CTX_free(c);
	free(hlua_hc_conf.ca_file);
	hlua_hc_conf.ca_file = strdup(ctx->args[1]);
	if (!hlua_hc_conf.ca_file) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	return 0;
}

static int hc_kw_res_id(struct cfg_ctx *ctx)
{
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'%s' expects a resolvers section name as argument.", ctx->args[0]);
		return -1;
	}
	free(hlua_hc_conf.res_id);
	free(hc_res_file);
	hlua_hc_conf.res_id = strdup(ctx->args[1]);
	hc_res_file = strdup(ctx->file);
	hc_res_line = ctx->line;
	if (!hlua_hc_conf.res_id || !hc_res_file) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	return 0;
}

static int hc_kw_res_prefer(struct cfg_ctx *ctx)
{
	const char *v = ctx->nargs > 1 ? ctx->args[1] : "";

	if (strcmp(v, "ipv4") && strcmp(v, "ipv6")) {
		cfg_alert(ctx, "'%s' expects 'ipv4' or 'ipv6' as argument.", ctx->args[0]);
		return -1;
	}
	hlua_hc_conf.prefer = v[3] == '4' ? AF_INET : AF_INET6;
	return 0;
}

static int hc_kw_res_disabled(struct cfg_ctx *ctx)
{
	const char *v = ctx->nargs > 1 ? ctx->args[1] : "";

	if (strcmp(v, "on") && strcmp(v, "off")) {
		cfg_alert(ctx, "'%s' expects 'on' or 'off' as argument.", ctx->args[0]);
		return -1;
	}
	hlua_hc_conf.res_disabled = !strcmp(v, "on");
	return 0;
}

static int hc_kw_timeout_connect(struct cfg_ctx *ctx)
{
	int ms;

	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'%s' expects a timeout as argument.", ctx->args[0]);
		return -1;
	}
	if (cfg_parse_time_arg(ctx, ctx->args[1], &ms) < 0)
		return -1;
	if (ms <= 0) {
		cfg_alert(ctx, "'%s' expects a positive timeout.", ctx->args[0]);
		return -1;
	}
	hlua_hc_conf.timeout_connect = ms;
	return 0;
}

static const struct cfg_kw hc_cfg_kws[] = {
	{ "httpclient.ssl.verify", CFG_SEC_GLOBAL, hc_kw_verify },
	{ "httpclient.ssl.ca-file", CFG_SEC_GLOBAL, hc_kw_ca_file },
	{ "httpclient.resolvers.id", CFG_SEC_GLOBAL, hc_kw_res_id },
	{ "httpclient.resolvers.prefer", CFG_SEC_GLOBAL, hc_kw_res_prefer },
	{ "httpclient.resolvers.disabled", CFG_SEC_GLOBAL, hc_kw_res_disabled },
	{ "httpclient.timeout.connect", CFG_SEC_GLOBAL, hc_kw_timeout_connect },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(hc_cfg_kws);

int hlua_httpclient_check(void)
{
	bool explicit_tls = hlua_hc_conf.verify >= 0 || hlua_hc_conf.ca_file;
	struct dns_resolvers *r = NULL;
	char err[256];

	if (hlua_hc_conf.res_id) {
		r = dns_resolvers_find(hlua_hc_conf.res_id);
		if (!r) {
			ha_alert("config : parsing [%s:%d] : 'httpclient.resolvers.id' : can't "
				 "find resolvers section '%s'.\n",
				 hc_res_file, hc_res_line, hlua_hc_conf.res_id);
			return 1;
		}
	}
	if (!hlua_configured())
		return 0; /* no script: nothing uses the client */
	if (!r && !hlua_hc_conf.res_disabled)
		r = dns_resolvers_default(); /* made from /etc/resolv.conf when not declared */
	if (r && !hlua_hc_conf.res_disabled) {
		hlua_hc_conf.res = r;
		r->dreq_used = true; /* its nameservers are opened */
	}
	hlua_hc_conf.ctx = ssl_client_ctx_new(hlua_hc_conf.verify != 0, hlua_hc_conf.ca_file, err,
					      sizeof(err));
	if (!hlua_hc_conf.ctx && explicit_tls) {
		ha_alert("config : httpclient: cannot initialize TLS: %s.\n", err);
		return 1;
	}
	return 0; /* without the system's CAs, HTTPS is just not available (as HAProxy) */
}

void hlua_httpclient_deinit(void)
{
	SSL_CTX_free(hlua_hc_conf.ctx);
	hlua_hc_conf.ctx = NULL;
	free(hlua_hc_conf.ca_file);
	free(hlua_hc_conf.res_id);
	free(hc_res_file);
	hlua_hc_conf.ca_file = hlua_hc_conf.res_id = hc_res_file = NULL;
}
