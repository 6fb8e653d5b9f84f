/* Configuration of external checks: global "external-check", proxy "external-check
 * command|path" and "option external-check" (through tcpcheck_cfg.c's option hook), and
 * the check-time pass that requires the global switch and a command and warns without
 * "insecure-fork-wanted", in 2.6's words. Parse/check time only.
 */
#include <stdlib.h>
#include <string.h>

#include <cfg/cfg.h>
#include <check/extcheck.h>
#include <check/extcheck_cfg.h>
#include <check/tcpcheck-t.h>
#include <proc/global-t.h>
#include <proxy/proxy.h>

bool extchk_preserve_env;

/* Makes the proxy's command and path its own (copies of its defaults') before a write. */
static int extchk_own(struct cfg_ctx *ctx)
{
	struct proxy *px = ctx->px;
	char *cmd, *path;

	if (px->extchk_own)
		return 0;
	cmd = px->extchk_cmd ? strdup(px->extchk_cmd) : NULL;
	path = px->extchk_path ? strdup(px->extchk_path) : NULL;
	if ((px->extchk_cmd && !cmd) || (px->extchk_path && !path)) {
		free(cmd);
		free(path);
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	px->extchk_cmd = cmd;
	px->extchk_path = path;
	px->extchk_own = true;
	return 0;
}

/* global: external-check; proxies: external-check command CMD | path PATH */
static int extchk_kw(struct cfg_ctx *ctx)
{
	char **dst, *v;

	if (ctx->section == CFG_SEC_GLOBAL) {
		if (ctx->nargs == 2 && !strcmp(ctx->args[1], "preserve-env"))
			extchk_preserve_env = true;
		else if (ctx->nargs > 1) {
			cfg_alert(ctx,
				  "'external-check' only supports 'preserve-env' as an argument, "
				  "found '%s'.",
				  ctx->args[1]);
			return -1;
		}
		global.external_check = 1;
		return 0;
	}
	if (ctx->nargs != 3 || (strcmp(ctx->args[1], "command") && strcmp(ctx->args[1], "path"))) {
		cfg_alert(ctx, "'external-check' expects 'command <cmd>' or 'path <path>'.");
		return -1;
	}
	if (extchk_own(ctx) < 0)
		return -1;
	dst = !strcmp(ctx->args[1], "command") ? &ctx->px->extchk_cmd : &ctx->px->extchk_path;
	v = strdup(ctx->args[2]);
	if (!v) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	free(*dst);
	*dst = v;
	return 0;
}

int extchk_cfg_check(struct proxy *px)
{
	if (px->tcpchk_kind != TCPCHK_K_EXT)
		return 0;
	if (!global.external_check) {
		ha_alert("Proxy '%s' : 'option external-check' unable to find required "
			 "'global.external-check'.\n",
			 px->id);
		return 1;
	}
	if (!px->extchk_cmd) {
		ha_alert("Proxy '%s' : 'option external-check' unable to find required "
			 "'external-check command'.\n",
			 px->id);
		return 1;
	}
	if (!global.insecure_fork)
		ha_warning("Proxy '%s' : 'insecure-fork-wanted' not enabled in the global section, "
			   "'option external-check' will likely fail.\n",
			   px->id);
	return 0;
}

void extchk_cfg_free(struct proxy *px)
{
	if (px->extchk_own) {
		free(px->extchk_cmd);
		free(px->extchk_path);
	}
	px->extchk_cmd = px->extchk_path = NULL;
	px->extchk_own = false;
}

static const struct cfg_kw extchk_kws[] = {
	{ "external-check", CFG_SEC_GLOBAL | CFG_SEC_PROXIES, extchk_kw },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(extchk_kws);
