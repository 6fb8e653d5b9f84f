/* The "userlist" section and its "user" and "group" keywords, with HAProxy 2.6's messages
 * (duplicates are ignored with a warning; a hash crypt(3) cannot check is warned about),
 * and the post-parse check that resolves group and user names (userlist_cfg_check). The
 * objects and their runtime lookups are in userlist.c. Parse time only, single-threaded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfg/cfg.h>
#include <stream/userlist.h>
#include <stream/userlist_cfg.h>

#include "userlist_int.h"

#ifdef USE_LIBCRYPT
#define USERLIST_HAVE_CRYPT 1
#else
#define USERLIST_HAVE_CRYPT 0
#endif

/* The userlist of the section being parsed. Set by every "userlist" line: the keywords
 * below only run inside a section whose line succeeded (the loader skips the others).
 */
static struct userlist *ulcfg_cur;

/* Appends ",<item>" (or <item> when empty) to the owned list *<list>. Returns 0 or -1. */
static int ulcfg_list_append(char **list, const char *item)
{
	size_t old = *list ? strlen(*list) : 0, add = strlen(item);
	char *n;

	if (!add)
		return 0;
	n = realloc(*list, old + add + 2);
	if (!n)
		return -1;
	if (old)
		n[old++] = ',';
	memcpy(n + old, item, add + 1);
	*list = n;
	return 0;
}

static int ulcfg_oom(struct cfg_ctx *ctx)
{
	cfg_alert(ctx, "out of memory while parsing '%s'.", ctx->args[0]);
	return -1;
}

/* userlist NAME. A second section with the same name adds to the first one. */
static int ulcfg_begin(struct cfg_ctx *ctx)
{
	const char *name = ctx->nargs > 1 ? ctx->args[1] : "";
	struct userlist *ul;

	ulcfg_cur = NULL;
	if (!*name) {
		cfg_alert(ctx, "'%s' expects <name> as arguments.", ctx->args[0]);
		return -1;
	}
	if (ctx->nargs > 2) {
		cfg_alert(ctx, "'%s' cannot handle unexpected argument '%s'.", ctx->args[0],
			  ctx->args[2]);
		return -1;
	}
	ul = userlist_find(name);
	if (ul) {
		cfg_warn(ctx, "ignoring duplicated userlist '%s'.", name);
	} else {
		ul = userlist_new(name);
		if (!ul)
			return ulcfg_oom(ctx);
	}
	ulcfg_cur = ul;
	return 0;
}

static const struct cfg_section ulcfg_section = { "userlist", CFG_SEC_USERLIST, ulcfg_begin };

__attribute__((constructor)) static void ulcfg_register_section(void)
{
	cfg_register_section(&ulcfg_section);
}

/* What a "user" line says, before it becomes a user. Borrows the line's words. */
struct ulcfg_user_line {
	const char *pass;
	enum userlist_pass kind;
	char *group_names; /* owned */
};

/* Parses the options of a "user" line (as HAProxy, a missing value reads as empty, and
 * the last password given wins). Returns 0 or -1 after an alert.
 */
static int ulcfg_user_opts(struct cfg_ctx *ctx, struct ulcfg_user_line *ln)
{
	const char *val;
	int i;

	for (i = 2; i < ctx->nargs; i += 2) {
		val = i + 1 < ctx->nargs ? ctx->args[i + 1] : "";
		if (strcmp(ctx->args[i], "password") == 0) {
			ln->kind = USERLIST_PASS_CRYPT;
			ln->pass = val;
		} else if (strcmp(ctx->args[i], "insecure-password") == 0) {
			ln->kind = USERLIST_PASS_PLAIN;
			ln->pass = val;
		} else if (strcmp(ctx->args[i], "groups") == 0) {
			if (ulcfg_list_append(&ln->group_names, val) < 0)
				return ulcfg_oom(ctx);
		} else {
			cfg_alert(ctx,
				  "'%s' only supports 'password', 'insecure-password' and "
				  "'groups' options.",
				  ctx->args[0]);
			return -1;
		}
	}
	return 0;
}

/* Adds user <name> described by <ln> (whose group list it takes) to <ul>. Returns 0 or -1. */
static int ulcfg_user_add(struct cfg_ctx *ctx, struct userlist *ul, const char *name,
			  struct ulcfg_user_line *ln)
{
	struct userlist_user *u;
	size_t cap;

	if (ul->nusers == ul->users_cap) {
		cap = ul->users_cap ? 2 * ul->users_cap : 8;
		u = realloc(ul->users, cap * sizeof(*u));
		if (!u)
			return ulcfg_oom(ctx);
		ul->users = u;
		ul->users_cap = cap;
	}
	u = &ul->users[ul->nusers];
	memset(u, 0, sizeof(*u));
	u->name = strdup(name);
	u->pass = ln->pass ? strdup(ln->pass) : NULL;
	if (!u->name || (ln->pass && !u->pass)) {
		free(u->name);
		free(u->pass);
		return ulcfg_oom(ctx);
	}
	u->nlen = strlen(name);
	u->plen = u->pass ? strlen(u->pass) : 0;
	u->kind = ln->kind;
	u->group_names = ln->group_names;
	ln->group_names = NULL;
	u->file = ctx->file;
	u->line = ctx->line;
	ul->nusers++;
	ul->resolved = false;
	return 0;
}

static bool ulcfg_user_exists(const struct userlist *ul, const char *name)
{
	size_t i;

	for (i = 0; i < ul->nusers; i++) {
		if (strcmp(ul->users[i].name, name) == 0)
			return true;
	}
	return false;
}

/* user NAME [password HASH | insecure-password PASS] [groups G1,G2,...] */
static int ulcfg_user(struct cfg_ctx *ctx)
{
	struct ulcfg_user_line ln = { NULL, USERLIST_PASS_NONE, NULL };
	const char *name = ctx->nargs > 1 ? ctx->args[1] : "";
	struct userlist *ul = ulcfg_cur;
	int ret = 0;

	if (!ul)
		return -1;
	if (!*name) {
		cfg_alert(ctx, "'%s' expects <name> as arguments.", ctx->args[0]);
		return -1;
	}
	if (ulcfg_user_opts(ctx, &ln) < 0) {
		ret = -1;
	} else if (ulcfg_user_exists(ul, name)) {
		cfg_warn(ctx, "ignoring duplicated user '%s' in userlist '%s'.", name, ul->name);
	} else if (ln.kind == USERLIST_PASS_CRYPT && !USERLIST_HAVE_CRYPT) {
		cfg_alert(ctx,
			  "encrypted passwords are not supported: this binary was built "
			  "without USE_LIBCRYPT (user '%s').",
			  name);
		ret = -1;
	} else {
		if (ln.kind == USERLIST_PASS_CRYPT && !userlist_hash_supported(ln.pass))
			cfg_warn(ctx,
				 "the encrypted password used for user '%s' is not supported "
				 "by crypt(3).",
				 name);
		ret = ulcfg_user_add(ctx, ul, name, &ln);
	}
	free(ln.group_names);
	return ret;
}

/* group NAME [users U1,U2,...] */
static int ulcfg_group(struct cfg_ctx *ctx)
{
	const char *name = ctx->nargs > 1 ? ctx->args[1] : "";
	struct userlist *ul = ulcfg_cur;
	struct userlist_group *g;
	char *users = NULL;
	int i;

	if (!ul)
		return -1;
	if (!*name) {
		cfg_alert(ctx, "'%s' expects <name> as arguments.", ctx->args[0]);
		return -1;
	}
	for (i = 2; i < ctx->nargs; i += 2) {
		if (strcmp(ctx->args[i], "users") != 0) {
			cfg_alert(ctx, "'%s' only supports 'users' option.", ctx->args[0]);
			goto out_fail;
		}
		if (i + 1 < ctx->nargs && ulcfg_list_append(&users, ctx->args[i + 1]) < 0) {
			ulcfg_oom(ctx);
			goto out_fail;
		}
	}
	if (userlist_group_index(ul, name, strlen(name)) >= 0) {
		cfg_warn(ctx, "ignoring duplicated group '%s' in userlist '%s'.", name, ul->name);
		free(users);
		return 0;
	}
	if (ul->ngroups == USERLIST_MAX_GROUPS) {
		cfg_alert(ctx, "too many groups in userlist '%s' (at most %d).", ul->name,
			  USERLIST_MAX_GROUPS);
		goto out_fail;
	}
	g = &ul->groups[ul->ngroups];
	g->name = strdup(name);
	if (!g->name) {
		ulcfg_oom(ctx);
		goto out_fail;
	}
	g->user_names = users;
	g->file = ctx->file;
	g->line = ctx->line;
	ul->ngroups++;
	ul->resolved = false;
	return 0;

out_fail:
	free(users);
	return -1;
}

static const struct cfg_kw ulcfg_kws[] = {
	{ "user", CFG_SEC_USERLIST, ulcfg_user },
	{ "group", CFG_SEC_USERLIST, ulcfg_group },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(ulcfg_kws)

/* Alert located at <file>:<line>, for the check phase. */
#define ULCFG_ALERT(f, l, ...)                                    \
	do {                                                      \
		struct cfg_ctx _c = { .file = (f), .line = (l) }; \
		cfg_alert(&_c, __VA_ARGS__);                      \
	} while (0)

/* Sets the group bits of each user of <ul> from its "groups". Returns the errors. */
static int ulcfg_resolve_user_groups(struct userlist *ul)
{
	struct userlist_user *u;
	const char *p;
	struct ist g;
	int errs = 0, i;
	size_t n;

	for (n = 0; n < ul->nusers; n++) {
		u = &ul->users[n];
		for (p = u->group_names; p && userlist_csv_next(&p, &g);) {
			i = userlist_group_index(ul, g.ptr, g.len);
			if (i >= 0) {
				u->groups |= 1ULL << i;
				continue;
			}
			ULCFG_ALERT(u->file, u->line,
				    "userlist '%s': no such group '%.*s' specified "
				    "in user '%s'",
				    ul->name, (int)g.len, g.ptr, u->name);
			errs++;
		}
		free(u->group_names);
		u->group_names = NULL;
	}
	return errs;
}

/* Sets the group bits of the users named by each group's "users". Returns the errors. */
static int ulcfg_resolve_group_users(struct userlist *ul)
{
	struct userlist_group *g;
	struct userlist_user *u;
	const char *p;
	struct ist name;
	int errs = 0, i;

	for (i = 0; i < ul->ngroups; i++) {
		g = &ul->groups[i];
		for (p = g->user_names; p && userlist_csv_next(&p, &name);) {
			u = (struct userlist_user *)userlist_user_get(ul, name.ptr, name.len);
			if (u) {
				u->groups |= 1ULL << i;
				continue;
			}
			ULCFG_ALERT(g->file, g->line,
				    "userlist '%s': no such user '%.*s' specified "
				    "in group '%s'",
				    ul->name, (int)name.len, name.ptr, g->name);
			errs++;
		}
		free(g->user_names);
		g->user_names = NULL;
	}
	return errs;
}

int userlist_cfg_check(void)
{
	struct userlist *ul;
	int errs = 0;

	for (ul = userlists; ul; ul = ul->next) {
		if (ul->nusers)
			qsort(ul->users, ul->nusers, sizeof(*ul->users), userlist_user_cmp);
		ul->resolved = true;
		errs += ulcfg_resolve_user_groups(ul);
		errs += ulcfg_resolve_group_users(ul);
	}
	return errs;
}
