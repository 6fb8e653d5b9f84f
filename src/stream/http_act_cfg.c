/* Rule keywords of proxies: "acl", "http-request", "http-response", "http-after-response",
 * "use_backend" (static, conditional or "%[...]" dynamic names), and the hook that frees
 * what the rule layers attach to a proxy. Rules are accepted in named defaults sections
 * and run before the rules of the proxies that use them (HAProxy 2.5+); anonymous
 * defaults sections may not carry rules.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cfg/cfg.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <proxy/proxy-t.h>
#include <sample/acl.h>
#include <sample/logfmt.h>
#include <stream/lb_key.h>
#include <stream/action.h>
#include <stream/http_capture.h>
#include <stream/http_err.h>
#include <stream/cookie.h>
#include <stream/persist.h>
#include <stream/px_ext.h>
#include <stream/stktable.h>
#include <stream/stream.h>
#include <stream/tcp_ana.h>
#include <stream/tcp_rules.h>

/* Rules are not allowed in anonymous defaults sections (HAProxy 2.6+). */
static bool rules_refused_here(struct cfg_ctx *ctx)
{
	if (!ctx->px)
		return true;
	if (ctx->section != CFG_SEC_DEFAULTS || *ctx->px->id)
		return false;
	cfg_alert(ctx, "'%s' not allowed in anonymous 'defaults' section.", ctx->args[0]);
	return true;
}

static int kw_http_rule(struct cfg_ctx *ctx)
{
	const char *k = ctx->args[0];
	uint8_t from = !strcmp(k, "http-request")	 ? ACT_F_HTTP_REQ :
		       !strcmp(k, "http-response") ? ACT_F_HTTP_RES :
						     ACT_F_HTTP_AFTER;
	struct list *l = from == ACT_F_HTTP_REQ ? &ctx->px->http_req_rules :
			 from == ACT_F_HTTP_RES ? &ctx->px->http_res_rules :
						  &ctx->px->http_after_rules;

	if (rules_refused_here(ctx))
		return -1;
	return act_rule_parse_line(ctx, 1, from, k, l);
}

/* acl NAME CRITERION [FLAGS] [OPERATOR] VALUE... */
static int kw_acl(struct cfg_ctx *ctx)
{
	struct smp_parse_ctx pc = { ctx->file, ctx->line, ctx->px, 0, NULL };
	char err[1024];
	const char *name = ctx->nargs > 1 ? ctx->args[1] : "";

	if (rules_refused_here(ctx))
		return -1;
	if (!*name) {
		cfg_alert(ctx, "'acl' expects an ACL name and a criterion.");
		return -1;
	}
	for (const char *p = name; *p; p++) {
		if (!(*p == '_' || *p == '-' || *p == '.' || *p == ':' || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) {
			cfg_alert(ctx, "character '%c' is not permitted in acl name '%s'.", *p,
				  name);
			return -1;
		}
	}
	if (acl_add_line(&ctx->px->acls, name, ctx->args + 2, ctx->nargs - 2, &pc, err,
			 sizeof(err)) < 0) {
		cfg_alert(ctx, "error detected while parsing ACL '%s' : %s.", name, err);
		return -1;
	}
	return 0;
}

static void switching_rule_free(struct switching_rule *sw)
{
	acl_cond_free(sw->cond);
	if (sw->dyn) {
		lf_free(sw->dyn);
		free(sw->dyn);
	}
	free(sw->be_name);
	free(sw->file);
	free(sw);
}

/* use_backend NAME|FMT [if|unless COND] */
static int kw_use_backend(struct cfg_ctx *ctx)
{
	struct smp_parse_ctx pc = { ctx->file, ctx->line, ctx->px, SMP_VAL_HRQ_HDR,
				    "use_backend" };
	struct switching_rule *sw;
	char err[1024];

	if (!ctx->px || proxy_cfg_in_defaults(ctx, "use_backend"))
		return -1;
	if (!proxy_cfg_has_cap(ctx, PR_CAP_FE, "use_backend"))
		return 0;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'use_backend' expects a backend name.");
		return -1;
	}
	if (ctx->nargs > 2 && !act_is_cond_word(ctx->args[2])) {
		cfg_alert(ctx, "'use_backend' : expects 'if' or 'unless' followed by a condition "
			  "but found '%s'.", ctx->args[2]);
		return -1;
	}
	sw = calloc(1, sizeof(*sw));
	if (!sw || !(sw->file = strdup(ctx->file)))
		goto oom;
	sw->line = ctx->line;
	if (strchr(ctx->args[1], '%')) {
		sw->dyn = calloc(1, sizeof(*sw->dyn));
		if (!sw->dyn)
			goto oom;
		if (lf_compile(sw->dyn, ctx->args[1], &pc, err, sizeof(err)) < 0) {
			cfg_alert(ctx, "use_backend: %s.", err);
			goto fail;
		}
		if (lf_is_const(sw->dyn)) { /* only "%%": a plain name */
			sw->be_name = strndup(lf_text(sw->dyn).ptr, lf_text(sw->dyn).len);
			lf_free(sw->dyn);
			free(sw->dyn);
			sw->dyn = NULL;
			if (!sw->be_name)
				goto oom;
		}
	} else if (!(sw->be_name = strdup(ctx->args[1]))) {
		goto oom;
	}
	if (ctx->nargs > 2) {
		sw->cond = acl_cond_parse(ctx->args + 2, ctx->nargs - 2, &ctx->px->acls, &pc, err,
					  sizeof(err));
		if (!sw->cond) {
			cfg_alert(ctx, "error detected while parsing switching rule : %s.", err);
			goto fail;
		}
	}
	list_append(&ctx->px->switching_rules, &sw->list);
	return 0;
oom:
	cfg_alert(ctx, "out of memory.");
fail:
	if (sw)
		switching_rule_free(sw);
	return -1;
}

/* Frees the rules, ACLs and switching rules of <px> (proxy_free calls it). */
static void rules_free_proxy(struct proxy *px)
{
	struct switching_rule *sw, *swt;

	list_for_each_entry_safe(sw, swt, &px->switching_rules, list) {
		list_delete(&sw->list);
		switching_rule_free(sw);
	}
	act_rules_free(&px->http_req_rules);
	act_rules_free(&px->http_res_rules);
	if (px->lb_key_own)
		lb_key_free(px->lb_key);
	px->lb_key = NULL;
	act_rules_free(&px->http_after_rules);
	act_rules_free(&px->tcp_req_conn_rules);
	act_rules_free(&px->tcp_req_sess_rules);
	act_rules_free(&px->tcp_req_cont_rules);
	act_rules_free(&px->tcp_res_cont_rules);
	px_ext_free(px); /* captures, unique id, monitor fail, redirects, error lines */
	stick_rules_free(px);
	persist_free_proxy(px);
	cookie_free_proxy(px);
	acl_free_list(&px->acls);
}

static int rules_check_proxy(struct proxy *px)
{
	return act_rules_check(&px->http_req_rules, px) + act_rules_check(&px->http_res_rules, px) +
	       act_rules_check(&px->http_after_rules, px) +
	       act_rules_check(&px->tcp_req_conn_rules, px) +
	       act_rules_check(&px->tcp_req_sess_rules, px) +
	       act_rules_check(&px->tcp_req_cont_rules, px) +
	       act_rules_check(&px->tcp_res_cont_rules, px);
}

/* Which HTTP rule sets <px> runs, its defaults section's included. */
static uint32_t rules_sets_of(const struct proxy *px)
{
	uint32_t rs = 0;

	const struct px_rules_ext *x = px_ext(px);

	if (x && !list_empty(&x->redirects))
		rs |= PR_RS_LEGACY_REDIR;
	if (http_capture_reqline_used() ||
	    (x && (x->nb_req_cap || x->nb_res_cap || x->cookie_name)))
		rs |= PR_RS_CAPTURE;
	if (px_ext_uid_hdr(px).len && px_ext_uid_fmt(px)) /* defaults included */
		rs |= PR_RS_UNIQUE_ID;
	if (!list_empty(&px->server_rules) || !list_empty(&px->persist_rules) || px->rdp_prst[0])
		rs |= PR_RS_PERSIST;
	if (px->strm_log)
		rs |= PR_RS_LOG;
	if (px->stats && !(px->cap & PR_CAP_DEF))
		rs |= PR_RS_STATS;
	for (; px; px = px->defpx) {
		rs |= list_empty(&px->http_req_rules) ? 0 : PR_RS_HTTP_REQ;
		rs |= list_empty(&px->http_res_rules) ? 0 : PR_RS_HTTP_RES;
		rs |= list_empty(&px->http_after_rules) ? 0 : PR_RS_HTTP_AFTER;
		if (px->cap & PR_CAP_DEF)
			break;
	}
	return rs;
}

static bool rules_any(const struct proxy *px)
{
	return !list_empty(&px->http_req_rules) || !list_empty(&px->http_res_rules) ||
	       !list_empty(&px->http_after_rules) || !list_empty(&px->tcp_req_conn_rules) ||
	       !list_empty(&px->tcp_req_sess_rules) || !list_empty(&px->tcp_req_cont_rules) ||
	       !list_empty(&px->tcp_res_cont_rules);
}

/* A defaults section with rules may serve frontends or backends, not both (HAProxy 2.6):
 * its rules would run twice on one request. */
static int rules_check_defaults_users(void)
{
	int errs = 0;

	for (struct proxy *def = proxy_defaults_first(); def; def = def->next) {
		uint32_t seen = 0;

		if (!rules_any(def))
			continue;
		for (struct proxy *px = proxies; px; px = px->next) {
			uint32_t side = px->cap & (PR_CAP_FE | PR_CAP_BE);

			if (px->defpx != def || side == (PR_CAP_FE | PR_CAP_BE))
				continue;
			seen |= side;
			if (seen != (PR_CAP_FE | PR_CAP_BE))
				continue;
			ha_alert("parsing [%s:%d]: frontends and backends cannot inherit from the "
				 "same defaults section if it defines TCP/HTTP rules (defaults "
				 "section at %s:%d).\n", px->file, px->line, def->file, def->line);
			errs++;
			break;
		}
	}
	return errs;
}

int rules_check_all(void)
{
	int errs = sample_resolve_args();

	errs += acl_check_patterns() + rules_check_defaults_users();
	struct proxy *px;

	for (px = proxy_defaults_first(); px; px = px->next)
		errs += rules_check_proxy(px);
	for (px = proxies; px; px = px->next) {
		errs += rules_check_proxy(px);
		errs += persist_check_proxy(px);
		errs += cookie_check_proxy(px);
		tcp_mode_check(px); /* what mode tcp ignores: after the cookie is inherited */
		tcp_rules_warn_l6_http(px); /* i11: req.ssl_* and req.len on mode http */
		px->rule_sets = rules_sets_of(px);
		http_capture_layout(px);
	}
	return errs + stktable_check_all() + http_err_check_all();
}

static const struct cfg_kw rules_kws[] = {
	{ "acl", CFG_SEC_PROXIES, kw_acl },
	{ "http-request", CFG_SEC_PROXIES, kw_http_rule },
	{ "http-response", CFG_SEC_PROXIES, kw_http_rule },
	{ "http-after-response", CFG_SEC_PROXIES, kw_http_rule },
	{ "use_backend", CFG_SEC_PROXIES, kw_use_backend },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(rules_kws);

__attribute__((constructor)) static void rules_cfg_init(void)
{
	proxy_rules_free_hook = rules_free_proxy;
}
