/* The "retry-on" keyword of backends: which failures send a request to a server again
 * (proxy->retry_on, PR_RE_*). The retries themselves are the stream's (stream/stream.c,
 * stream/http_ana.c); this file only parses.
 */
#include <string.h>

#include <cfg/cfg.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>

struct retry_kw {
	const char *name;
	uint32_t bits;
};

static const struct retry_kw retry_kws[] = {
	{ "conn-failure", PR_RE_CONN_FAILED },
	{ "empty-response", PR_RE_DISCONNECTED },
	{ "junk-response", PR_RE_JUNK_REQUEST },
	{ "response-timeout", PR_RE_TIMEOUT },
	{ "0rtt-rejected", PR_RE_EARLY_ERROR },
	{ "404", PR_RE_404 },
	{ "408", PR_RE_408 },
	{ "425", PR_RE_425 },
	{ "500", PR_RE_500 },
	{ "501", PR_RE_501 },
	{ "502", PR_RE_502 },
	{ "503", PR_RE_503 },
	{ "504", PR_RE_504 },
	{ "all-retryable-errors", PR_RE_CONN_FAILED | PR_RE_DISCONNECTED | PR_RE_JUNK_REQUEST |
					  PR_RE_TIMEOUT | PR_RE_EARLY_ERROR | PR_RE_500 |
					  PR_RE_502 | PR_RE_503 | PR_RE_504 },
	{ NULL, 0 },
};

/* retry-on KW...: HAProxy's words and messages; "none" only alone. */
static int retry_cfg_retry_on(struct cfg_ctx *ctx)
{
	uint32_t bits = 0;

	if (!ctx->px)
		return -1;
	if (ctx->section == CFG_SEC_FRONTEND) {
		cfg_alert(ctx, "'%s' only available in backend or listen section", ctx->args[0]);
		return -1;
	}
	if (ctx->nargs < 2) {
		cfg_alert(ctx, "'%s' needs at least one keyword to specify when to retry",
			  ctx->args[0]);
		return -1;
	}
	for (int i = 1; i < ctx->nargs; i++) {
		const struct retry_kw *k;

		if (!strcmp(ctx->args[i], "none")) {
			if (ctx->nargs != 2) {
				cfg_alert(ctx, "'%s' 'none' keyworld only usable alone",
					  ctx->args[0]);
				return -1;
			}
			continue;
		}
		for (k = retry_kws; k->name && strcmp(k->name, ctx->args[i]); k++)
			;
		if (!k->name) {
			cfg_alert(ctx, "'%s': unknown keyword '%s'", ctx->args[0], ctx->args[i]);
			return -1;
		}
		bits |= k->bits;
	}
	ctx->px->retry_on = bits;
	return 0;
}

static const struct cfg_kw retry_cfg_kws[] = {
	{ "retry-on", CFG_SEC_PROXIES, retry_cfg_retry_on },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(retry_cfg_kws)
