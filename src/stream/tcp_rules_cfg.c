/* Configuration of TCP rules: "tcp-request connection|session|content ACTION [if COND]",
 * "tcp-request inspect-delay T", "tcp-response content ACTION [if COND]" and
 * "tcp-response inspect-delay T", with HAProxy's placement rules (connection and session
 * rules in frontends, response rules in backends, rules in named defaults sections only).
 * Config time.
 */
#include <stdio.h>
#include <string.h>

#include <base/parse.h>
#include <cfg/cfg.h>
#include <proxy/proxy_cfg.h>
#include <sample/acl-t.h>
#include <stream/action.h>
#include <stream/tcp_rules.h>

/* "tcp-request inspect-delay T" / "tcp-response inspect-delay T" */
static int tcp_cfg_delay(struct cfg_ctx *ctx, int *ms)
{
	const char *v = ctx->nargs > 2 ? ctx->args[2] : "";
	int d;

	if (!*v || parse_time_ms(v, 1, &d) || d < 0) {
		cfg_alert(ctx,
			  "'%s inspect-delay' expects a positive delay in milliseconds, in "
			  "%s '%s'",
			  ctx->args[0], proxy_type_str(ctx->px), ctx->px->id);
		return -1;
	}
	*ms = d;
	return 0;
}

static bool tcp_cfg_anon_defaults(struct cfg_ctx *ctx, const char *what)
{
	if (ctx->section != CFG_SEC_DEFAULTS || *ctx->px->id)
		return false;
	cfg_alert(ctx, "%s is not allowed in anonymous 'defaults' sections", what);
	return true;
}

static int kw_tcp_request(struct cfg_ctx *ctx)
{
	struct proxy *px = ctx->px;
	const char *set = ctx->nargs > 1 ? ctx->args[1] : "";
	char what[64];
	struct list *l;
	uint8_t from;

	if (!px)
		return -1;
	if (!*set) {
		cfg_alert(ctx, "missing argument for 'tcp-request' in %s '%s'", proxy_type_str(px),
			  px->id);
		return -1;
	}
	snprintf(what, sizeof(what), "tcp-request %s", set);
	if (!strcmp(set, "inspect-delay"))
		return tcp_cfg_anon_defaults(ctx, what)
			       ? -1
			       : tcp_cfg_delay(ctx, &px->tcp_inspect_delay);
	if (!strcmp(set, "connection")) {
		from = ACT_F_TCP_REQ_CON;
		l = &px->tcp_req_conn_rules;
	} else if (!strcmp(set, "session")) {
		from = ACT_F_TCP_REQ_SES;
		l = &px->tcp_req_sess_rules;
	} else if (!strcmp(set, "content")) {
		from = ACT_F_TCP_REQ_CNT;
		l = &px->tcp_req_cont_rules;
	} else {
		cfg_alert(ctx,
			  "'tcp-request' expects 'inspect-delay', 'connection', or 'content' "
			  "in %s '%s' (got '%s')",
			  proxy_type_str(px), px->id, set);
		return -1;
	}
	if (tcp_cfg_anon_defaults(ctx, what))
		return -1;
	if (from != ACT_F_TCP_REQ_CNT && !(px->cap & (PR_CAP_FE | PR_CAP_DEF))) {
		cfg_alert(ctx, "%s is not allowed because %s %s is not a frontend", what,
			  proxy_type_str(px), px->id);
		return -1;
	}
	if (act_rule_parse_line(ctx, 2, from, what, l) < 0)
		return -1;
	if (from != ACT_F_TCP_REQ_CNT)
		tcp_rules_enable_sess();
	else
		tcp_req_content_used = true;
	return 0;
}

static void tcp_warn_l6_list(const struct proxy *px, const struct list *rules, uint32_t use)
{
	const struct act_rule *r;

	list_for_each_entry(r, rules, list) if (r->cond && (r->cond->use & use))
		ha_warning("Proxy '%s': L6 sample fetches ignored on HTTP proxies (declared "
			   "at %s:%d).",
			   px->id, r->file, r->line);
}

void tcp_rules_warn_l6_http(const struct proxy *px)
{
	if (px->mode != PR_MODE_HTTP)
		return;
	tcp_warn_l6_list(px, &px->tcp_req_cont_rules, SMP_USE_L6REQ);
	tcp_warn_l6_list(px, &px->tcp_res_cont_rules, SMP_USE_L6RES);
}

static int kw_tcp_response(struct cfg_ctx *ctx)
{
	struct proxy *px = ctx->px;
	const char *set = ctx->nargs > 1 ? ctx->args[1] : "";
	char what[64];

	if (!px)
		return -1;
	snprintf(what, sizeof(what), "tcp-response %s", set);
	if (strcmp(set, "inspect-delay") && strcmp(set, "content")) {
		cfg_alert(ctx,
			  "'tcp-response' expects 'inspect-delay' or 'content' in %s '%s' "
			  "(got '%s')",
			  proxy_type_str(px), px->id, set);
		return -1;
	}
	if (tcp_cfg_anon_defaults(ctx, what))
		return -1;
	if (!(px->cap & (PR_CAP_BE | PR_CAP_DEF))) {
		cfg_alert(ctx,
			  "%s is only allowed in 'backend' sections or 'defaults' section with "
			  "a name",
			  what);
		return -1;
	}
	if (!strcmp(set, "inspect-delay"))
		return tcp_cfg_delay(ctx, &px->tcp_res_inspect_delay);
	tcp_res_content_used = true;
	return act_rule_parse_line(ctx, 2, ACT_F_TCP_RES_CNT, what, &px->tcp_res_cont_rules);
}

static const struct cfg_kw tcp_cfg_kws[] = {
	{ "tcp-request", CFG_SEC_PROXIES, kw_tcp_request },
	{ "tcp-response", CFG_SEC_PROXIES, kw_tcp_response },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(tcp_cfg_kws);
