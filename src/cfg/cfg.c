/* Configuration loading: reads files (or a directory's *.cfg in sorted order) line by line,
 * tokenizes each line (cfg/lexer.c), runs the .if/.elif/.else/.endif and .notice/.warning/
 * .alert/.diag directives (conditions by cfg/cond.c), and dispatches the other lines to the
 * sections and keyword tables modules register. Keyword semantics belong to those modules.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cfg/cfg.h>
#include <cfg/cfg_path.h>
#include <cfg/cond.h>
#include <cfg/lexer.h>
#include <proc/version.h>

#include "cfg_int.h"

#define CFG_MAX_LINE     65536  /* longest accepted line, bytes */
#define CFG_MAX_NESTING  64     /* .if levels */
#define CFG_MAX_SECTIONS 32

static struct cfg_kw_list *cfg_kw_lists;
static const struct cfg_section *cfg_sections[CFG_MAX_SECTIONS];
static int cfg_nsections;

/* One .if level. <active>: lines are processed (parents included); <taken>: a branch of
 * this level was chosen already (or the parent is inactive), so later ones are skipped.
 */
struct cfg_cond_level {
	int line;
	bool active;
	bool taken;
	bool seen_else;
};

/* Parsing state of one file. A file starts out of any section and ends the section it
 * opened.
 */
struct cfg_file_state {
	const char *file;
	int line;
	struct cfg_ctx ctx;                 /* carries section and px between lines */
	const struct cfg_section *sec;
	bool sec_broken;                    /* begin() failed: skip the section's keywords */
	int depth;
	struct cfg_cond_level levels[CFG_MAX_NESTING];
	char linenum[16];                   /* ".LINE" */
	char *out;                          /* tokenizer output */
	size_t outsz;
};

void cfg_register_keywords(struct cfg_kw_list *kwl)
{
	kwl->next = cfg_kw_lists;
	cfg_kw_lists = kwl;
}

/* Registration happens from constructors, before main(): a full table is a build bug. */
void cfg_register_section(const struct cfg_section *sec)
{
	if (cfg_nsections >= CFG_MAX_SECTIONS) {
		fprintf(stderr, "BUG: too many configuration sections (max %d)\n",
			CFG_MAX_SECTIONS);
		abort();
	}
	cfg_sections[cfg_nsections++] = sec;
}

static const struct cfg_section *cfg_find_section(const char *name)
{
	int i;

	for (i = 0; i < cfg_nsections; i++) {
		if (strcmp(cfg_sections[i]->name, name) == 0)
			return cfg_sections[i];
	}
	return NULL;
}

/* Finds the keyword <name> valid in section <sec>: exact names first, then entries whose
 * name ends in '*', which match any word starting with what precedes the '*'.
 */
static const struct cfg_kw *cfg_find_kw(const char *name, unsigned int sec)
{
	const struct cfg_kw_list *l;
	const struct cfg_kw *kw;
	size_t n;

	for (l = cfg_kw_lists; l; l = l->next) {
		for (kw = l->kws; kw->name; kw++) {
			if ((kw->sections & sec) && strcmp(kw->name, name) == 0)
				return kw;
		}
	}
	for (l = cfg_kw_lists; l; l = l->next) {
		for (kw = l->kws; kw->name; kw++) {
			n = strlen(kw->name);
			if ((kw->sections & sec) && n && kw->name[n - 1] == '*' &&
			    strncmp(kw->name, name, n - 1) == 0)
				return kw;
		}
	}
	return NULL;
}

/* Environment for the tokenizer: getenv() plus the ".FILE", ".LINE" and ".SECTION"
 * pseudo-variables.
 */
static const char *cfg_env_lookup(const char *name, void *arg)
{
	struct cfg_file_state *st = arg;

	if (name[0] != '.')
		return getenv(name);
	if (strcmp(name, ".FILE") == 0)
		return st->file;
	if (strcmp(name, ".LINE") == 0) {
		snprintf(st->linenum, sizeof(st->linenum), "%d", st->line);
		return st->linenum;
	}
	if (strcmp(name, ".SECTION") == 0)
		return st->sec ? st->sec->name : "";
	return NULL;
}

static bool cfg_active(const struct cfg_file_state *st)
{
	return st->depth == 0 || st->levels[st->depth - 1].active;
}

/* Directive-style alert: "parsing [file:line]: msg" (no space before the colon). */
#define cfg_dalert(st, ...) cfg_emit(CFG_LVL_ALERT, (st)->file, (st)->line, ": ", __VA_ARGS__)

/* Evaluates the condition of .if/.elif; an error is reported and counts as false. */
static bool cfg_cond(struct cfg_file_state *st, struct cfg_tokens *tok)
{
	char err[512];
	int r;

	r = cond_eval(tok->args + 1, tok->nargs - 1, version_cond_facts(), err, sizeof(err));
	if (r < 0) {
		cfg_dalert(st, "%s in '%s'.", err, tok->args[0]);
		return false;
	}
	return r > 0;
}

static void cfg_dir_if(struct cfg_file_state *st, struct cfg_tokens *tok)
{
	struct cfg_cond_level *lvl;
	bool parent = cfg_active(st);

	if (st->depth >= CFG_MAX_NESTING) {
		cfg_dalert(st, "too many nested '.if', max level is %d.", CFG_MAX_NESTING);
		return;
	}
	lvl = &st->levels[st->depth++];
	lvl->line = st->line;
	lvl->seen_else = false;
	lvl->active = parent && cfg_cond(st, tok);
	lvl->taken = !parent || lvl->active;
}

static void cfg_dir_elif(struct cfg_file_state *st, struct cfg_tokens *tok)
{
	struct cfg_cond_level *lvl;

	if (!st->depth) {
		cfg_dalert(st, "lone '.elif' with no matching '.if'.");
		return;
	}
	lvl = &st->levels[st->depth - 1];
	if (lvl->seen_else) {
		cfg_dalert(st, "'.elif' after '.else' is not permitted.");
		lvl->active = false;
		return;
	}
	if (lvl->taken) {
		lvl->active = false;
		return;
	}
	lvl->active = cfg_cond(st, tok);
	lvl->taken = lvl->active;
}

static void cfg_dir_else(struct cfg_file_state *st)
{
	struct cfg_cond_level *lvl;

	if (!st->depth) {
		cfg_dalert(st, "lone '.else' with no matching '.if'.");
		return;
	}
	lvl = &st->levels[st->depth - 1];
	if (lvl->seen_else) {
		cfg_dalert(st, "'.else' after '.else' is not permitted.");
		lvl->active = false;
		return;
	}
	lvl->seen_else = true;
	lvl->active = !lvl->taken;
	lvl->taken = true;
}

/* .notice/.warning/.alert/.diag "message" (an alert counts as an error). */
static void cfg_dir_message(struct cfg_file_state *st, struct cfg_tokens *tok)
{
	const char *msg = tok->nargs > 1 ? tok->args[1] : "";

	if (tok->nargs > 2) {
		cfg_dalert(st, "Unexpected argument '%s' for '%s'. Use quotes if the message "
			   "should contain spaces.", tok->args[2], tok->args[0]);
		return;
	}
	if (strcmp(tok->args[0], ".notice") == 0)
		cfg_emit(CFG_LVL_NOTICE, st->file, st->line, ": ", "'%s'.", msg);
	else if (strcmp(tok->args[0], ".warning") == 0)
		cfg_emit(CFG_LVL_WARNING, st->file, st->line, ": ", "'%s'.", msg);
	else if (strcmp(tok->args[0], ".alert") == 0)
		cfg_emit(CFG_LVL_ALERT, st->file, st->line, ": ", "'%s'.", msg);
	/* .diag: only shown in diagnostic mode, which we do not have */
}

/* Handles a line starting with a conditional directive; returns false if it is not one. */
static bool cfg_directive(struct cfg_file_state *st, struct cfg_tokens *tok)
{
	const char *w = tok->args[0];

	if (strcmp(w, ".if") == 0)
		cfg_dir_if(st, tok);
	else if (strcmp(w, ".elif") == 0)
		cfg_dir_elif(st, tok);
	else if (strcmp(w, ".else") == 0)
		cfg_dir_else(st);
	else if (strcmp(w, ".endif") == 0) {
		if (st->depth)
			st->depth--;
		else
			cfg_dalert(st, "lone '.endif' with no matching '.if'.");
	} else if (!cfg_active(st))
		return true; /* everything else in a skipped block is ignored */
	else if (!strcmp(w, ".notice") || !strcmp(w, ".warning") || !strcmp(w, ".alert") ||
		 !strcmp(w, ".diag"))
		cfg_dir_message(st, tok);
	else
		return false;
	return true;
}

/* A keyword no module registered: a HAProxy keyword not implemented yet gets its reason,
 * anything else is unknown (likely a typo). Other sections (userlist) list no such words.
 */
static void cfg_unknown_kw(const struct cfg_file_state *st, struct cfg_ctx *ctx)
{
	enum cfg_known_class cls = ctx->section == CFG_SEC_GLOBAL ? CFG_KNOWN_GLOBAL :
				   CFG_KNOWN_PROXY;
	const char *why = NULL;

	if (ctx->section & (CFG_SEC_GLOBAL | CFG_SEC_PROXIES))
		why = cfg_known_why(cls, ctx->args[0]);

	if (why)
		cfg_not_supported(ctx, why);
	else
		cfg_alert(ctx, "unknown keyword '%s' in '%s' section", ctx->args[0],
			  st->sec->name);
}

/* Sends a tokenized line to its section or keyword parser. */
static void cfg_dispatch(struct cfg_file_state *st, struct cfg_tokens *tok)
{
	const struct cfg_section *sec;
	const struct cfg_kw *kw;
	struct cfg_ctx *ctx = &st->ctx;
	int errors = cfg_errors;

	ctx->file = st->file;
	ctx->line = st->line;
	ctx->args = tok->args;
	ctx->nargs = tok->nargs;
	sec = cfg_find_section(tok->args[0]);
	if (sec) {
		st->sec = sec;
		st->sec_broken = false;
		ctx->section = sec->id;
		ctx->px = NULL;
		if (sec->begin && sec->begin(ctx) < 0) {
			st->sec_broken = true;
			if (cfg_errors == errors)
				cfg_alert(ctx, "error in '%s' section line.", sec->name);
		}
		return;
	}
	if (!st->sec) {
		cfg_dalert(st, "unknown keyword '%s' out of section.", tok->args[0]);
		return;
	}
	if (st->sec_broken)
		return;
	kw = cfg_find_kw(tok->args[0], ctx->section);
	if (!kw) {
		cfg_unknown_kw(st, ctx);
		return;
	}
	if (kw->parse(ctx) < 0 && cfg_errors == errors)
		cfg_alert(ctx, "error in '%s'.", tok->args[0]);
}

/* Prints a tokenizer error; when it names a position, shows the line with a caret. */
static void cfg_lex_error(struct cfg_file_state *st, const char *line, size_t len,
			  const char *err)
{
	const char *at = strstr(err, " at position ");
	int pos = at ? atoi(at + 13) : 0;

	if (pos > 0 && len <= 200)
		cfg_dalert(st, "%s:\n  %.*s\n  %*s", err, (int)len, line, pos, "^");
	else
		cfg_dalert(st, "%s.", err);
}

/* Tokenizes and runs one line (without its line ending). Returns 0, or -1 when the rest
 * of the file must not be read (out of memory, a NUL byte).
 */
static int cfg_process_line(struct cfg_file_state *st, const char *line, size_t len)
{
	struct cfg_tokens tok;
	size_t need = 2 * len + CFG_MAX_LINE;
	char err[256];
	char *n;

	const char *nul = memchr(line, '\0', len);

	if (nul) {
		/* As HAProxy: fatal, the rest of the file is not read (it is likely binary). */
		cfg_dalert(st, "Stray NUL character at position %zu.", (size_t)(nul - line) + 1);
		return -1;
	}
	if (len > CFG_MAX_LINE) {
		cfg_dalert(st, "line too long (%zu bytes, the maximum is %d).", len, CFG_MAX_LINE);
		return 0;
	}
	if (st->outsz < need) {
		n = realloc(st->out, need);
		if (!n) {
			cfg_dalert(st, "out of memory.");
			return -1;
		}
		st->out = n;
		st->outsz = need;
	}
	if (cfg_tokenize(line, len, st->out, st->outsz, &tok, cfg_env_lookup, st, err,
			 sizeof(err)) < 0) {
		cfg_lex_error(st, line, len, err);
		return 0;
	}
	if (!tok.nargs || cfg_directive(st, &tok))
		return 0;
	if (cfg_active(st))
		cfg_dispatch(st, &tok);
	return 0;
}

/* File names stay valid for the whole process: keyword parsers may keep ctx->file to
 * report problems found later (check phase). Returns NULL when out of memory.
 */
struct cfg_file_name {
	struct cfg_file_name *next;
	char name[];
};
static struct cfg_file_name *cfg_file_names;

static const char *cfg_intern_name(const char *path)
{
	struct cfg_file_name *fn;
	size_t l = strlen(path);

	for (fn = cfg_file_names; fn; fn = fn->next) {
		if (strcmp(fn->name, path) == 0)
			return fn->name;
	}
	fn = malloc(sizeof(*fn) + l + 1);
	if (!fn)
		return NULL;
	memcpy(fn->name, path, l + 1);
	fn->next = cfg_file_names;
	cfg_file_names = fn;
	return fn->name;
}

/* Loads one regular file. Returns 0 or -1 (errors printed). */
static int cfg_load_file(const char *path)
{
	struct cfg_file_state *st;
	int errors = cfg_errors, i;
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	if (cfg_path_reset() < 0) /* <path> is relative to the starting directory */
		return -1;
	f = fopen(path, "r");
	if (!f) {
		ha_alert("Could not open configuration file %s : %s", path, strerror(errno));
		return -1;
	}
	if (cfg_path_enter_file(path) < 0) { /* default-path */
		fclose(f);
		return -1;
	}
	st = calloc(1, sizeof(*st));
	if (st)
		st->file = cfg_intern_name(path);
	if (!st || !st->file) {
		free(st);
		fclose(f);
		ha_alert("out of memory while loading %s", path);
		return -1;
	}
	path = st->file;
	while ((n = getline(&buf, &cap, f)) >= 0) {
		st->line++;
		while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
			n--;
		if (cfg_process_line(st, buf, (size_t)n) < 0)
			break;
	}
	if (ferror(f))
		ha_alert("error while reading configuration file %s : %s", path, strerror(errno));
	for (i = st->depth - 1; i >= 0; i--)
		cfg_emit(CFG_LVL_ALERT, path, st->levels[i].line, ": ",
			 "non-terminated '.if' block.");
	free(buf);
	free(st->out);
	free(st);
	fclose(f);
	if (cfg_errors == errors)
		return 0;
	cfg_emit(CFG_LVL_SUMMARY, NULL, 0, "", "Error(s) found in configuration file : %s", path);
	return -1;
}

/* Directory entries considered: "*.cfg", not hidden. */
static int cfg_dir_filter(const struct dirent *de)
{
	size_t l = strlen(de->d_name);

	return de->d_name[0] != '.' && l > 4 && strcmp(de->d_name + l - 4, ".cfg") == 0;
}

static int cfg_dir_sort(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Loads a directory's *.cfg regular files in byte order of their names. */
static int cfg_load_dir(const char *path)
{
	struct dirent **names;
	struct stat sb;
	int n, i, ret = 0;
	size_t plen = strlen(path);
	char *full;

	n = scandir(path, &names, cfg_dir_filter, cfg_dir_sort);
	if (n < 0) {
		ha_alert("Could not open configuration directory %s : %s", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		full = malloc(plen + strlen(names[i]->d_name) + 2);
		if (!full) {
			ha_alert("out of memory while loading %s", path);
			ret = -1;
		} else {
			snprintf(full, plen + strlen(names[i]->d_name) + 2, "%s/%s", path,
				 names[i]->d_name);
			if (stat(full, &sb) == 0 && S_ISREG(sb.st_mode) && cfg_load_file(full) < 0)
				ret = -1;
			free(full);
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

/* See cfg/cfg.h. */
int cfg_load_path(const char *path)
{
	struct stat sb;

	if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
		return cfg_load_dir(path);
	return cfg_load_file(path);
}
