/* Proxy and global keywords of the HTTP rule layer that are not rule actions:
 * "unique-id-format" / "unique-id-header" with the id behind the unique-id fetch (rendered once per
 * request), "monitor fail if|unless COND" and the status of monitor-uri requests, the
 * global "set-var" / "set-var-fmt" (evaluated while parsing), "expose-experimental-
 * directives", and the refusal of the keywords HAProxy 2.1 removed (block, reqadd,
 * reqrep, rspdel...) with their modern replacement named as HAProxy 2.6 names it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfg/cfg.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <sample/acl.h>
#include <sample/fetch.h>
#include <sample/logfmt.h>
#include <sample/sample.h>
#include <sample/vars.h>
#include <stream/action.h>
#include <stream/http_px.h>
#include <stream/px_ext.h>
#include <stream/stream.h>

/* ---- unique-id ---- */

/* unique-id-format FMT */
static int kw_uid_format(struct cfg_ctx *ctx)
{
	struct smp_parse_ctx pc = { ctx->file, ctx->line, ctx->px, SMP_VAL_HRQ_HDR,
				    "unique-id-format" };
	struct px_rules_ext *x;
	struct lf_expr *lf;
	char err[1024];

	if (!ctx->px)
		return -1;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "unique-id-format expects an argument.");
		return -1;
	}
	if (ctx->nargs > 2) {
		cfg_alert(ctx, "unique-id-format expects only one argument, don't forget to escape "
			       "spaces!");
		return -1;
	}
	x = px_ext_get(ctx->px);
	lf = x ? calloc(1, sizeof(*lf)) : NULL;
	if (!lf)
		return cfg_alert(ctx, "out of memory."), -1;
	if (lf_compile(lf, ctx->args[1], &pc, err, sizeof(err)) < 0) {
		cfg_alert(ctx, "failed to parse unique-id : %s.", err);
		free(lf);
		return -1;
	}
	if (x->uid_fmt) {
		lf_free(x->uid_fmt);
		free(x->uid_fmt);
	}
	x->uid_fmt = lf;
	return 0;
}

/* unique-id-header NAME (further words are ignored, as HAProxy does) */
static int kw_uid_header(struct cfg_ctx *ctx)
{
	struct px_rules_ext *x;
	char err[256];

	if (!ctx->px)
		return -1;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "unique-id-header expects an argument.");
		return -1;
	}
	x = px_ext_get(ctx->px);
	if (!x)
		return cfg_alert(ctx, "out of memory."), -1;
	if (act_check_hdr_name(ctx->args[1], false, err, sizeof(err)) < 0) {
		cfg_alert(ctx, "unique-id-header: %s.", err);
		return -1;
	}
	free((char *)x->uid_hdr.ptr);
	x->uid_hdr = ist2(NULL, 0);
	if (act_set_name(&x->uid_hdr, ctx->args[1], err, sizeof(err)) < 0)
		return cfg_alert(ctx, "out of memory."), -1;
	return 0;
}

int http_unique_id(struct stream *s, struct ist *out)
{
	const struct lf_expr *lf;
	struct smp_ctx ctx;

	if (s->unique_id.ptr) {
		*out = s->unique_id;
		return 0;
	}
	lf = px_ext_uid_fmt(s->fe);
	if (!lf)
		return -1;
	act_smp_ctx(&ctx, s, s->fe, ACT_F_HTTP_REQ);
	if (stream_rw_render(s, lf, &ctx, &s->unique_id) < 0) {
		s->unique_id = ist2(NULL, 0);
		return -1;
	}
	if (!s->unique_id.ptr)
		s->unique_id = ist2("", 0); /* rendered, empty */
	*out = s->unique_id;
	return 0;
}

int http_unique_id_header(struct stream *s)
{
	struct ist name = px_ext_uid_hdr(s->fe), v;

	if (!name.len || !px_ext_uid_fmt(s->fe))
		return 0;
	if (http_unique_id(s, &v) < 0 || !http_value_is_safe(v))
		return -1;
	return http_hdr_add(s, &s->req, name, v);
}

/* The unique-id fetch (sample/fetch_http.c) asks through this hook: the id, or an empty
 * view with a NULL pointer when the frontend has no format. */
static struct ist unique_id_hook(struct stream *s)
{
	struct ist v;

	return http_unique_id(s, &v) < 0 ? ist2(NULL, 0) : v;
}

/* ---- monitor fail ---- */

/* monitor fail if|unless COND */
static int kw_monitor(struct cfg_ctx *ctx)
{
	struct smp_parse_ctx pc = { ctx->file, ctx->line, ctx->px, SMP_VAL_HRQ_HDR,
				    "monitor fail" };
	struct px_rules_ext *x;
	struct acl_cond *cond, **t;
	char err[1024];

	if (!ctx->px || proxy_cfg_in_defaults(ctx, "monitor"))
		return -1;
	if (!proxy_cfg_has_cap(ctx, PR_CAP_FE, "monitor"))
		return 0;
	if (ctx->nargs < 2 || strcmp(ctx->args[1], "fail")) {
		cfg_alert(ctx, "'monitor' only supports 'fail'.");
		return -1;
	}
	if (ctx->nargs < 3 || !act_is_cond_word(ctx->args[2])) {
		cfg_alert(ctx, "'monitor fail' requires either 'if' or 'unless' followed by a "
			       "condition.");
		return -1;
	}
	x = px_ext_get(ctx->px);
	if (!x)
		return cfg_alert(ctx, "out of memory."), -1;
	cond = acl_cond_parse(ctx->args + 2, ctx->nargs - 2, &ctx->px->acls, &pc, err, sizeof(err));
	if (!cond) {
		cfg_alert(ctx, "error detected while parsing a 'monitor fail' condition : %s.",
			  err);
		return -1;
	}
	t = realloc(x->monitor_fail, (size_t)(x->nb_monitor_fail + 1) * sizeof(*t));
	if (!t) {
		acl_cond_free(cond);
		return cfg_alert(ctx, "out of memory."), -1;
	}
	x->monitor_fail = t;
	t[x->nb_monitor_fail++] = cond;
	return 0;
}

int http_monitor_status(struct stream *s)
{
	const struct px_rules_ext *x = px_ext(s->fe);
	struct smp_ctx ctx;

	if (!x)
		return 200;
	act_smp_ctx(&ctx, s, s->fe, ACT_F_HTTP_REQ);
	for (int i = 0; i < x->nb_monitor_fail; i++)
		if (acl_cond_true(x->monitor_fail[i], &ctx))
			return 503;
	return 200;
}

/* ---- global set-var / set-var-fmt ---- */

/* set-var proc.NAME EXPR | set-var-fmt proc.NAME FMT: evaluated now, with the fetches that
 * need nothing but the process. */
static int kw_global_set_var(struct cfg_ctx *ctx)
{
	bool fmt = !strcmp(ctx->args[0], "set-var-fmt");
	struct smp_parse_ctx pc = { ctx->file, ctx->line, NULL, SMP_VAL_CFG, ctx->args[0] };
	struct smp_ctx sctx = { NULL, NULL, NULL, SMP_OPT_FINAL };
	struct sample smp = { .ctx = &sctx };
	struct var_desc d;
	char err[1024];
	int ret = -1;

	if (ctx->nargs < 3) {
		cfg_alert(ctx,
			  "'%s' requires a process-wide variable name ('proc.<name>') and a "
			  "%s.",
			  ctx->args[0], fmt ? "format string" : "sample expression");
		return -1;
	}
	if (vars_parse_desc(ctx->args[1], &d, err, sizeof(err)) < 0) {
		cfg_alert(ctx, "'%s': %s.", ctx->args[0], err);
		return -1;
	}
	if (d.scope != VS_PROC) {
		cfg_alert(ctx,
			  "'%s': cannot set variable '%s', only scope 'proc' is permitted in "
			  "the global section.",
			  ctx->args[0], ctx->args[1]);
		return -1;
	}
	if (fmt) {
		struct lf_expr lf = { 0 };
		char *out;
		int n;

		if (lf_compile(&lf, ctx->args[2], &pc, err, sizeof(err)) < 0) {
			cfg_alert(ctx, "%s.", err);
			return -1;
		}
		out = smp_trash();
		n = out ? lf_render(&lf, &sctx, out, smp_trash_size()) : -1;
		lf_free(&lf);
		if (n < 0) {
			smp_trash_deinit_thread();
			cfg_alert(ctx, "'%s': the value does not fit.", ctx->args[0]);
			return -1;
		}
		smp.data.type = SMP_T_STR;
		smp.data.u.str = ist2(out, (size_t)n);
		ret = 0;
	} else {
		struct sample_expr *e =
			sample_parse_expr(ctx->args[2], NULL, &pc, err, sizeof(err));

		if (!e) {
			cfg_alert(ctx, "%s.", err);
			return -1;
		}
		ret = sample_process(e, &smp) ? 0 : 1;
		sample_expr_free(e);
		if (ret) { /* nothing found: the variable stays unset, as in HAProxy */
			smp_trash_deinit_thread();
			return 0;
		}
	}
	if (!vars_set(&sctx, &d, &smp))
		ret = -1;
	/* the scratch chunks were sized by the tune.bufsize known so far: let the threads
	 * allocate them again once the configuration is complete */
	smp_trash_deinit_thread();
	if (ret < 0)
		cfg_alert(ctx, "'%s': cannot set variable '%s'.", ctx->args[0], ctx->args[1]);
	return ret;
}

/* Every directive of HAProxy 2.4+ is accepted; the experimental ones (normalize-uri) need
 * no such opt-in here. */
static int kw_expose_experimental(struct cfg_ctx *ctx)
{
	return 0;
}

/* ---- keywords removed in HAProxy 2.1 ---- */

static const struct {
	const char *kw;
	const char *use; /* the replacement, NULL when there is none */
} legacy_kws[] = {
	{ "reqadd", "'http-request add-header'" },
	{ "reqrep", "'http-request replace-path', 'http-request replace-uri' or 'http-request "
		    "replace-header'" },
	{ "reqirep", "'http-request replace-header'" },
	{ "reqdel", "'http-request del-header'" },
	{ "reqidel", "'http-request del-header'" },
	{ "reqallow", "'http-request allow'" },
	{ "reqiallow", "'http-request allow'" },
	{ "reqdeny", "'http-request deny'" },
	{ "reqideny", "'http-request deny'" },
	{ "reqpass", NULL },
	{ "reqipass", NULL },
	{ "reqtarpit", "'http-request tarpit'" },
	{ "reqitarpit", "'http-request tarpit'" },
	{ "reqsetbe", "'use_backend'" },
	{ "reqisetbe", "'use_backend'" },
	{ "rspadd", "'http-response add-header'" },
	{ "rsprep", "'http-response replace-header'" },
	{ "rspirep", "'http-response replace-header'" },
	{ "rspdel", "'http-response del-header'" },
	{ "rspidel", "'http-response del-header'" },
	{ "rspdeny", "'http-response deny'" },
	{ "rspideny", "'http-response deny'" },
	{ NULL, NULL },
};

static int kw_legacy(struct cfg_ctx *ctx)
{
	const char *kw = ctx->args[0];

	if (!strcmp(kw, "block")) {
		cfg_alert(ctx, "The 'block' directive is not supported anymore since HAProxy 2.1. "
			       "Use 'http-request deny' which uses the exact same syntax.");
		return -1;
	}
	for (int i = 0; legacy_kws[i].kw; i++) {
		if (strcmp(kw, legacy_kws[i].kw))
			continue;
		if (legacy_kws[i].use)
			cfg_alert(ctx,
				  "The '%s' directive is not supported anymore since HAProxy "
				  "2.1. Use %s instead.",
				  kw, legacy_kws[i].use);
		else
			cfg_alert(ctx,
				  "The '%s' directive is not supported anymore since HAProxy "
				  "2.1.",
				  kw);
		return -1;
	}
	return -1;
}

__attribute__((constructor)) static void http_px_init(void)
{
	smp_unique_id_hook = unique_id_hook;
}

#define PXS CFG_SEC_PROXIES
static const struct cfg_kw http_px_kws[] = {
	{ "unique-id-format", PXS, kw_uid_format },
	{ "unique-id-header", PXS, kw_uid_header },
	{ "monitor", PXS, kw_monitor },
	{ "set-var", CFG_SEC_GLOBAL, kw_global_set_var },
	{ "set-var-fmt", CFG_SEC_GLOBAL, kw_global_set_var },
	{ "expose-experimental-directives", CFG_SEC_GLOBAL, kw_expose_experimental },
	{ "block", PXS, kw_legacy },
	{ "reqadd", PXS, kw_legacy },
	{ "reqrep", PXS, kw_legacy },
	{ "reqirep", PXS, kw_legacy },
	{ "reqdel", PXS, kw_legacy },
	{ "reqidel", PXS, kw_legacy },
	{ "reqallow", PXS, kw_legacy },
	{ "reqiallow", PXS, kw_legacy },
	{ "reqdeny", PXS, kw_legacy },
	{ "reqideny", PXS, kw_legacy },
	{ "reqpass", PXS, kw_legacy },
	{ "reqipass", PXS, kw_legacy },
	{ "reqtarpit", PXS, kw_legacy },
	{ "reqitarpit", PXS, kw_legacy },
	{ "reqsetbe", PXS, kw_legacy },
	{ "reqisetbe", PXS, kw_legacy },
	{ "rspadd", PXS, kw_legacy },
	{ "rsprep", PXS, kw_legacy },
	{ "rspirep", PXS, kw_legacy },
	{ "rspdel", PXS, kw_legacy },
	{ "rspidel", PXS, kw_legacy },
	{ "rspdeny", PXS, kw_legacy },
	{ "rspideny", PXS, kw_legacy },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(http_px_kws);
