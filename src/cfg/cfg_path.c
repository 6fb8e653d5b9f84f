/* The global "default-path" keyword and the working directory during parsing: each file
 * starts in the directory haproxy was started in, then moves to the one its mode names
 * ("config", "parent", "origin DIR"); the mode carries over to the next files. Once every
 * file is parsed the starting directory is restored, so that files read later (the
 * server-state file) are relative to it, as HAProxy does. Startup only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cfg/cfg.h>
#include <cfg/cfg_path.h>

enum cfg_path_mode {
	CFG_PATH_CURRENT = 0,
	CFG_PATH_CONFIG,
	CFG_PATH_PARENT,
	CFG_PATH_ORIGIN,
};

static struct {
	enum cfg_path_mode mode;
	char *origin;	 /* absolute: "origin DIR" as resolved when the keyword was read */
	char *start_cwd; /* the directory haproxy was started in, on first use */
} cfg_path;

static int cfg_path_start(void)
{
	if (cfg_path.start_cwd)
		return 0;
	cfg_path.start_cwd = getcwd(NULL, 0);
	if (!cfg_path.start_cwd) {
		ha_alert("Cannot get the current directory: %s.\n", strerror(errno));
		return -1;
	}
	return 0;
}

int cfg_path_reset(void)
{
	if (cfg_path_start() < 0)
		return -1;
	if (chdir(cfg_path.start_cwd) < 0) {
		ha_alert("Impossible to get back to directory '%s': %s.\n", cfg_path.start_cwd,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* chdir() to the directory of <file> ("config"), or its parent: the text before the last
 * '/', or "." when there is none; relative to the starting directory (the current one).
 */
static int cfg_path_file_dir(const char *file, bool parent)
{
	const char *slash = strrchr(file, '/');
	size_t len = slash ? (size_t)(slash - file) : 1;
	char *dir = malloc(len + 4);
	int ret;

	if (!dir)
		return -1;
	if (!slash)
		memcpy(dir, ".", 2);
	else if (len == 0)
		memcpy(dir, "/", 2);
	else {
		memcpy(dir, file, len);
		dir[len] = '\0';
	}
	if (parent)
		strcat(dir, "/..");
	ret = chdir(dir);
	free(dir);
	return ret;
}

static const char *const cfg_path_names[] = { "current", "config", "parent", "origin" };

/* chdir() as the mode says for <file> (NULL: the keyword's own file, already current). */
static int cfg_path_apply(const char *file)
{
	switch (cfg_path.mode) {
	case CFG_PATH_CURRENT:
		return chdir(cfg_path.start_cwd);
	case CFG_PATH_CONFIG:
	case CFG_PATH_PARENT:
		if (chdir(cfg_path.start_cwd) < 0)
			return -1;
		return cfg_path_file_dir(file, cfg_path.mode == CFG_PATH_PARENT);
	case CFG_PATH_ORIGIN:
		return chdir(cfg_path.origin);
	}
	return -1;
}

int cfg_path_enter_file(const char *path)
{
	if (cfg_path_start() < 0)
		return -1;
	if (cfg_path_apply(path) < 0) {
		ha_alert("parsing [%s] : couldn't set 'default-path' to %s: %s.\n", path,
			 cfg_path_names[cfg_path.mode], strerror(errno));
		return -1;
	}
	return 0;
}

/* default-path current|config|parent|origin DIR (words after those are ignored, as
 * HAProxy). "origin DIR" is taken relative to the current directory, then kept absolute.
 */
static int cfg_path_kw(struct cfg_ctx *ctx)
{
	const char *m = ctx->nargs > 1 ? ctx->args[1] : "";
	enum cfg_path_mode mode;
	int i;

	for (i = 0; i < 4 && strcmp(m, cfg_path_names[i]) != 0; i++)
		;
	if (i == 4) {
		cfg_alert(ctx,
			  "%s default-path mode '%s' for '%s', supported modes include "
			  "'current', 'config', 'parent', and 'origin'.",
			  *m ? "unsupported" : "missing", m, ctx->args[0]);
		return -1;
	}
	mode = (enum cfg_path_mode)i;
	if (mode == CFG_PATH_ORIGIN && (ctx->nargs < 3 || !*ctx->args[2])) {
		cfg_alert(ctx, "'%s %s' expects a directory as an argument.", ctx->args[0], m);
		return -1;
	}
	if (cfg_path_start() < 0)
		return -1;
	if (mode == CFG_PATH_ORIGIN) {
		char *abs;

		if (chdir(ctx->args[2]) < 0 || !(abs = getcwd(NULL, 0))) {
			int e = errno;

			cfg_alert(ctx,
				  "couldn't set '%s' to origin '%s': Impossible to get back to "
				  "directory '%s': %s.",
				  ctx->args[0], ctx->args[2], cfg_path.start_cwd, strerror(e));
			return -1;
		}
		free(cfg_path.origin);
		cfg_path.origin = abs;
	}
	cfg_path.mode = mode;
	if (cfg_path_apply(ctx->file) < 0) {
		cfg_alert(ctx, "couldn't set '%s' to %s: %s.", ctx->args[0], m, strerror(errno));
		return -1;
	}
	return 0;
}

__attribute__((destructor)) static void cfg_path_release(void)
{
	free(cfg_path.origin);
	free(cfg_path.start_cwd);
}

static const struct cfg_kw cfg_path_kws[] = {
	{ "default-path", CFG_SEC_GLOBAL, cfg_path_kw },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(cfg_path_kws)
