/* The global keywords of task profiling: "profiling.tasks on|off|auto" and
 * "profiling.memory off" (memory profiling is not built: "on" is refused).
 */
#include <string.h>
#include <cfg/cfg.h>
#include <event/profiling.h>

/* Parses on|auto|off into PROF_*; returns -1 on anything else. "auto" is HAProxy's
 * "auto-on": each thread measures while its loop is slow. */
static int prof_cfg_mode(const char *word)
{
	if (!strcmp(word, "on"))
		return PROF_ON;
	if (!strcmp(word, "auto"))
		return PROF_AUTO_ON;
	if (!strcmp(word, "off"))
		return PROF_OFF;
	return -1;
}

static int prof_cfg_tasks(struct cfg_ctx *ctx)
{
	const char *word = ctx->nargs > 1 ? ctx->args[1] : "";
	int mode = prof_cfg_mode(word);

	if (mode < 0) {
		cfg_alert(ctx, "'%s' expects either 'on', 'auto', or 'off' but got '%s'.",
			  ctx->args[0], word);
		return -1;
	}
	if (ctx->nargs > 2) {
		cfg_alert(ctx, "'%s' cannot handle unexpected argument '%s'.", ctx->args[0],
			  ctx->args[2]);
		return -1;
	}
	prof_mode_set(mode);
	return 0;
}

static int prof_cfg_memory(struct cfg_ctx *ctx)
{
	const char *word = ctx->nargs > 1 ? ctx->args[1] : "";

	if (!strcmp(word, "on"))
		return cfg_not_supported(ctx, "memory profiling is not implemented");
	if (strcmp(word, "off") != 0) {
		cfg_alert(ctx, "'%s' expects either 'on' or 'off' but got '%s'.", ctx->args[0],
			  word);
		return -1;
	}
	if (ctx->nargs > 2) {
		cfg_alert(ctx, "'%s' cannot handle unexpected argument '%s'.", ctx->args[0],
			  ctx->args[2]);
		return -1;
	}
	return 0;
}

static const struct cfg_kw prof_cfg_kws[] = {
	{ "profiling.tasks", CFG_SEC_GLOBAL, prof_cfg_tasks },
	{ "profiling.memory", CFG_SEC_GLOBAL, prof_cfg_memory },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(prof_cfg_kws)
