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

/* stats http-request { allow | deny | auth [realm R] } [ { if | unless } COND ] */
static int stats_cfg_http_req(struct cfg_ctx *ctx, struct stats_cfg *st)
{
	const char *a = ctx->nargs > 2 ? ctx->args[2] : "";

	if (strcmp(a, "allow") && strcmp(a, "deny") && strcmp(a, "auth")) {
		cfg_alert(ctx,
			  "'stats http-request' expects 'allow', 'deny' or 'auth', but got "
			  "'%s'.",
			  a);
		return -1;
	}
	return act_rule_parse_line(ctx, 2, ACT_F_HTTP_REQ, "stats http-request", &st->rules);
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
	if (ctx->nargs > 2) {
		cfg_alert(ctx, "'stats %s' does not expect any argument.", kw);
		return -1;
	}
	return 0;
}

static int stats_cfg_word(struct cfg_ctx *ctx, struct stats_cfg *st, const char *kw)
{
	const char *v = ctx->args[2];
	int ms;

	if (!strcmp(kw, "show-node") || !strcmp(kw, "show-desc")) {
		bool node = kw[5] == 'n';

		st->flags |= node ? ST_F_NODE : ST_F_DESC;
		return ctx->nargs > 2 ? stats_set_str(ctx, node ? &st->node : &st->desc, v) : 0;
	}
	if (ctx->nargs < 3) {
		cfg_alert(ctx, "'stats %s' expects %s.", kw,
			  !strcmp(kw, "auth")	   ? "<user>:<passwd>"
			  : !strcmp(kw, "refresh") ? "<time>"
			  : !strcmp(kw, "scope")   ? "a proxy name"
						   : "an argument");
		return -1;
	}
	if (!strcmp(kw, "uri"))
		return stats_set_str(ctx, &st->uri, v);
	if (!strcmp(kw, "realm"))
		return stats_set_str(ctx, &st->realm, v);
	if (!strcmp(kw, "auth")) {
		if (!strchr(v, ':')) {
			cfg_alert(ctx, "'stats auth' expects <user>:<passwd>.");
			return -1;
		}
		return stats_strv_add(&st->users, &st->nb_users, v) < 0 ? -1 : 0;
	}
	if (!strcmp(kw, "scope"))
		return stats_strv_add(&st->scope, &st->nb_scope, v) < 0 ? -1 : 0;
	if (!strcmp(kw, "refresh")) {
		const char *end = parse_time_ms(v, 1000, &ms);

		if (end) {
			cfg_alert(ctx,
				  "unexpected character '%c' in 'stats refresh' (expects "
				  "<time>).",
				  *end);
			return -1;
		}
		st->refresh = ms / 1000;
		return 0;
	}
	return 1;
}

static int stats_cfg(struct cfg_ctx *ctx)
{
	const char *kw = ctx->nargs > 1 ? ctx->args[1] : "";
	struct stats_cfg *st;
	int ret;

	if (!strcmp(kw, "bind-process")) {
		cfg_warn(ctx, "'stats bind-process' is ignored (one process, several threads).");
		return 0;
	}
	if (!strcmp(kw, "socket") || !strcmp(kw, "timeout") || !strcmp(kw, "maxconn")) {
		cfg_alert(ctx, "'stats %s' is only allowed in the 'global' section.", kw);
		return -1;
	}
	if ((!strcmp(kw, "admin") || !strcmp(kw, "http-request")) && (ctx->px->cap & PR_CAP_DEF)) {
		cfg_alert(ctx, "'stats %s' is not supported in 'defaults' section.", kw);
		return -1;
	}
	st = stats_own(ctx->px);
	if (!st) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	if (!strcmp(kw, "admin"))
		return stats_cfg_admin(ctx, st);
	if (!strcmp(kw, "http-request"))
		return stats_cfg_http_req(ctx, st);
	ret = stats_cfg_bool_kw(ctx, st, kw);
	if (ret <= 0)
		return ret;
	ret = *kw ? stats_cfg_word(ctx, st, kw) : 1;
	if (ret < 0) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	if (ret == 0)
		return 0;
	cfg_alert(ctx, "'stats' expects 'admin', 'uri', 'realm', 'auth', 'scope', 'enable', "
		       "'hide-version', 'show-node', 'show-desc' or 'show-legends'.");
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
