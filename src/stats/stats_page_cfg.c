/* The "stats" keywords of proxy sections (the stats page: uri, realm, auth, refresh, scope,
 * admin, http-request rules...): parsing into a struct stats_cfg, shared with the
 * defaults section it comes from until a proxy changes it, and freeing. The page itself
 * is stats/stats_page.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/parse.h>
#include <cfg/cfg.h>
#include <proxy/proxy.h>
#include <proxy/proxy-t.h>
#include <sample/acl.h>
#include <sample/sample.h>
#include <stats/stats_page-t.h>
#include <stream/action.h>
#include <stream/action-t.h>

static void stats_strv_free(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void stats_cfg_free(struct stats_cfg *st)
{
	free(st->uri);
	free(st->realm);
	free(st->node);
	free(st->desc);
	stats_strv_free(st->users, st->nb_users);
	stats_strv_free(st->scope, st->nb_scope);
	acl_cond_free(st->admin);
	act_rules_free(&st->rules);
	free(st);
}

static void stats_px_free(struct proxy *px)
{
	if (px->stats && px->stats->owner == px)
		stats_cfg_free(px->stats);
	px->stats = NULL;
}

static int stats_strdup(char **dst, const char *src)
{
	if (!src) {
		*dst = NULL;
		return 0;
	}
	*dst = strdup(src);
	return *dst ? 0 : -1;
}

static int stats_strv_add(char ***v, int *n, const char *s)
{
	char **nv = realloc(*v, (size_t)(*n + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	*v = nv;
	if (!(nv[*n] = strdup(s)))
		return -1;
	(*n)++;
	return 0;
}

/* The stats settings <px> may change: its own, or a copy of those it inherited. NULL when
 * out of memory. */
static struct stats_cfg *stats_own(struct proxy *px)
{
	const struct stats_cfg *from = px->stats;
	struct stats_cfg *st;
	int i;

	if (from && from->owner == px)
		return px->stats;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->owner = px;
	list_init(&st->rules);
	if (!from) {
		if (!(st->uri = strdup(STATS_DEFAULT_URI)))
			goto fail;
		px->stats = st;
		return st;
	}
	st->refresh = from->refresh;
	st->flags = from->flags;
	if (stats_strdup(&st->uri, from->uri) < 0 || stats_strdup(&st->realm, from->realm) < 0 ||
	    stats_strdup(&st->node, from->node) < 0 || stats_strdup(&st->desc, from->desc) < 0)
		goto fail;
	for (i = 0; i < from->nb_users; i++)
		if (stats_strv_add(&st->users, &st->nb_users, from->users[i]) < 0)
			goto fail;
	for (i = 0; i < from->nb_scope; i++)
		if (stats_strv_add(&st->scope, &st->nb_scope, from->scope[i]) < 0)
			goto fail;
	px->stats = st;
	return st;
fail:
	stats_cfg_free(st);
	return NULL;
}

static int stats_set_str(struct cfg_ctx *ctx, char **dst, const char *v)
{
	char *n = strdup(v);

	if (!n) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	free(*dst);
	*dst = n;
	return 0;
}

/* stats admin { if | unless } COND */
static int stats_cfg_admin(struct cfg_ctx *ctx, struct stats_cfg *st)
{
	struct smp_parse_ctx pc = { ctx->file, ctx->line, ctx->px, SMP_VAL_HRQ_HDR | SMP_VAL_BE,
				    "stats admin" };
	char err[512] = "";

	if (ctx->nargs < 3 || (strcmp(ctx->args[2], "if") && strcmp(ctx->args[2], "unless"))) {
		cfg_alert(ctx, "'stats admin' requires either 'if' or 'unless' followed by a "
			       "condition.");
		return -1;
	}
	acl_cond_free(st->admin);
	st->admin = acl_cond_parse(ctx->args + 2, ctx->nargs - 2, &ctx->px->acls, &pc, err,
				   sizeof(err));
	if (!st->admin) {
		cfg_alert(ctx, "error detected while parsing a 'stats admin' rule : %s.", err);
		return -1;
	}
	return 0;
}

/* stats http-request ACTION [ { if | unless } COND ]: any request action, as 2.6 parses
 * them (the page acts on allow, deny and auth; a reply of another action is sent). */
static int stats_cfg_http_req(struct cfg_ctx *ctx, struct stats_cfg *st)
{
	return act_rule_parse_line(ctx, 2, ACT_F_HTTP_REQ, "http-request", &st->rules);
}

static int stats_cfg_bool_kw(struct cfg_ctx *ctx, struct stats_cfg *st, const char *kw)
{
	if (!strcmp(kw, "enable"))
		return 0;
	if (!strcmp(kw, "hide-version"))
		st->flags |= ST_F_HIDEVER;
	else if (!strcmp(kw, "show-legends"))
		st->flags |= ST_F_LEGENDS;
	else
		return 1;
	return 0; /* further words are ignored, as 2.6 does */
}

/* Adds <v> to the list <v>/<n>; 0, or -1 after an alert. */
static int stats_cfg_add(struct cfg_ctx *ctx, char ***v, int *n, const char *s)
{
	if (stats_strv_add(v, n, s) < 0) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	return 0;
}

/* stats refresh <time> */
static int stats_cfg_refresh(struct cfg_ctx *ctx, struct stats_cfg *st, const char *v)
{
	const char *end;
	int ms;

	end = parse_time_ms(v, 1000, &ms);
	if (end) {
		cfg_alert(ctx, "unexpected character '%c' in argument to stats refresh interval.",
			  *end);
		return -1;
	}
	st->refresh = ms / 1000;
	return 0;
}

/* The keywords with words: 0, -1 after an alert, 1 when <kw> is not one of them. */
static int stats_cfg_word(struct cfg_ctx *ctx, struct stats_cfg *st, const char *kw)
{
	static const char *const need[][2] = {
		{ "uri", "'uri' needs an URI prefix." },
		{ "realm", "'realm' needs an realm name." },
		{ "auth", "'auth' needs a user:password account." },
		{ "scope", "'scope' needs a proxy name." },
		{ "refresh", NULL }, /* an empty delay is 0, as 2.6 reads it */
	};
	const char *v = ctx->args[2];
	size_t i;

	if (!strcmp(kw, "show-node") || !strcmp(kw, "show-desc")) {
		bool node = kw[5] == 'n';

		st->flags |= node ? ST_F_NODE : ST_F_DESC;
		return ctx->nargs > 2 ? stats_set_str(ctx, node ? &st->node : &st->desc, v) : 0;
	}
	for (i = 0; i < sizeof(need) / sizeof(need[0]) && strcmp(kw, need[i][0]); i++)
		;
	if (i == sizeof(need) / sizeof(need[0]))
		return 1;
	if ((ctx->nargs < 3 || !*v) && need[i][1]) {
		cfg_alert(ctx, "%s", need[i][1]);
		return -1;
	}
	if (ctx->nargs < 3)
		v = "0";
	if (!strcmp(kw, "uri"))
		return stats_set_str(ctx, &st->uri, v);
	if (!strcmp(kw, "realm"))
		return stats_set_str(ctx, &st->realm, v);
	if (!strcmp(kw, "scope"))
		return stats_cfg_add(ctx, &st->scope, &st->nb_scope, v);
	if (!strcmp(kw, "refresh"))
		return stats_cfg_refresh(ctx, st, v);
	return stats_cfg_add(ctx, &st->users, &st->nb_users, v);
}

#define STATS_KWS                                                                           \
	"'admin', 'uri', 'realm', 'auth', 'scope', 'enable', 'hide-version', 'show-node', " \
	"'show-desc' or 'show-legends'"

static int stats_cfg(struct cfg_ctx *ctx)
{
	const char *kw = ctx->nargs > 1 ? ctx->args[1] : "";
	struct stats_cfg *st;
	int ret;

	if (!strcmp(kw, "socket") || !strcmp(kw, "timeout") || !strcmp(kw, "maxconn")) {
		cfg_alert(ctx, "'stats %s' is only allowed in the 'global' section.", kw);
		return -1;
	}
	if ((!strcmp(kw, "admin") || !strcmp(kw, "http-request")) && (ctx->px->cap & PR_CAP_DEF)) {
		cfg_alert(ctx, "'stats %s' not allowed in 'defaults' section.", kw);
		return -1;
	}
	if (!strcmp(kw, "admin") || !strcmp(kw, "http-request") || !strcmp(kw, "enable") ||
	    !strcmp(kw, "hide-version") || !strcmp(kw, "show-legends") ||
	    !strcmp(kw, "show-node") || !strcmp(kw, "show-desc") || !strcmp(kw, "uri") ||
	    !strcmp(kw, "realm") || !strcmp(kw, "auth") || !strcmp(kw, "scope") ||
	    !strcmp(kw, "refresh")) {
		st = stats_own(ctx->px);
		if (!st) {
			cfg_alert(ctx, "out of memory.");
			return -1;
		}
		if ((!strcmp(kw, "http-request") && (st->nb_users || st->realm)) ||
		    ((!strcmp(kw, "auth") || !strcmp(kw, "realm")) && !list_empty(&st->rules))) {
			cfg_alert(ctx,
				  "stats 'auth'/'realm' and 'http-request' can't be used at the "
				  "same time.");
			return -1;
		}
		if (!strcmp(kw, "admin"))
			return stats_cfg_admin(ctx, st);
		if (!strcmp(kw, "http-request"))
			return stats_cfg_http_req(ctx, st);
		ret = stats_cfg_bool_kw(ctx, st, kw);
		if (ret <= 0)
			return ret;
		return stats_cfg_word(ctx, st, kw) ? -1 : 0;
	}
	if (*kw)
		cfg_alert(ctx, "unknown stats parameter '%s', expects %s.", kw, STATS_KWS);
	else
		cfg_alert(ctx, "missing keyword in 'stats', expects %s.", STATS_KWS);
	return -1;
}

static const struct cfg_kw stats_cfg_kws[] = {
	{ "stats", CFG_SEC_PROXIES, stats_cfg },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(stats_cfg_kws);

__attribute__((constructor)) static void stats_cfg_hooks(void)
{
	proxy_stats_free_hook = stats_px_free;
}
