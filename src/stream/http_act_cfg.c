/* The "http-request" and "http-response" keywords: parses the foundation's actions (return,
 * deny, set-header, add-header, del-header) into struct act_rule, appended to the proxy's
 * rule lists. Every string view of a rule is owned (malloc'd, NUL-terminated) and freed by
 * proxy_deinit_all(). Conditions, log-format values and other actions are refused with the
 * issue they belong to. Parse time only; the runtime builds the "return" responses.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cfg/cfg.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <stream/action-t.h>

#define ACT_FILE_MAX 16384 /* a "return ... file" body must fit in one buffer */

/* Parsing state of one rule line. */
struct act_line {
	struct cfg_ctx *ctx;
	const char *kw;           /* "http-request" or "http-response" */
	bool req;
	int pos;                  /* next word to parse */
};

/* Prints HAProxy's "error detected in frontend 'fe' while parsing 'http-request X' rule : MSG". */
__attribute__((format(printf, 2, 3)))
static int act_error(struct act_line *al, const char *fmt, ...)
{
	struct cfg_ctx *ctx = al->ctx;
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cfg_alert(ctx, "error detected in %s '%s' while parsing '%s %s' rule : %s",
		  proxy_type_str(ctx->px), ctx->px->id, al->kw, ctx->args[1], msg);
	return -1;
}

/* Refuses the current action: "'http-request set-path' is not supported yet (why)". */
static int act_later(struct act_line *al, const char *why)
{
	char what[128];

	snprintf(what, sizeof(what), "%s %s", al->kw, al->ctx->args[1]);
	return proxy_cfg_later(al->ctx, what, why);
}

/* Copies <s> into the owned view <dst>, turning "%%" into "%". Any other '%' starts a
 * log-format expression, which is not implemented yet: returns 1 then (nothing allocated). Returns 0,
 * or -1 on allocation failure.
 */
static int act_dup_value(struct ist *dst, const char *s)
{
	size_t len = strlen(s), i, o = 0;
	char *copy;

	for (i = 0; i < len; i++) {
		if (s[i] != '%')
			continue;
		if (s[i + 1] != '%')
			return 1;
		i++;
	}
	copy = malloc(len + 1);
	if (!copy)
		return -1;
	for (i = 0; i < len; i++) {
		copy[o++] = s[i];
		if (s[i] == '%')
			i++;
	}
	copy[o] = 0;
	*dst = ist2(copy, o);
	return 0;
}

/* Stores a format-string argument <s> of the rule into <dst>, refusing log-format. */
static int act_set_value(struct act_line *al, struct ist *dst, const char *s)
{
	int rc = act_dup_value(dst, s);

	if (rc > 0)
		return act_later(al, "log-format expressions are not implemented yet (write '%%' "
				 "for a literal '%')");
	if (rc < 0)
		return act_error(al, "out of memory.");
	return 0;
}

/* Copies <s> verbatim into the owned view <dst>. */
static int act_set_plain(struct act_line *al, struct ist *dst, const char *s)
{
	char *copy = strdup(s);

	if (!copy)
		return act_error(al, "out of memory.");
	free((char *)dst->ptr);
	*dst = ist_str(copy);
	return 0;
}

/* Reads file <path> into the owned view <dst> (at most ACT_FILE_MAX bytes). */
static int act_read_file(struct act_line *al, struct ist *dst, const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t len;

	if (!f)
		return act_error(al, "error opening file '%s'.", path);
	buf = malloc(ACT_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return act_error(al, "out of memory.");
	}
	len = fread(buf, 1, ACT_FILE_MAX + 1, f);
	if (ferror(f) || len > ACT_FILE_MAX) {
		int rd_err = ferror(f);

		fclose(f);
		free(buf);
		return act_error(al, rd_err ? "error reading file '%s'." :
				 "file '%s' is too large (max 16384 bytes).", path);
	}
	fclose(f);
	buf[len] = 0;
	free((char *)dst->ptr);
	*dst = ist2(buf, len);
	return 0;
}

/* True when word <i> of the line starts a condition. */
static bool act_is_cond(const struct cfg_ctx *ctx, int i)
{
	const char *w = i < ctx->nargs ? ctx->args[i] : "";

	return !strcmp(w, "if") || !strcmp(w, "unless");
}

static bool act_at_cond(const struct act_line *al)
{
	return act_is_cond(al->ctx, al->pos);
}

/* Ends a rule line: a condition is refused, anything else is unexpected. */
static int act_end(struct act_line *al)
{
	if (al->pos >= al->ctx->nargs)
		return 0;
	if (act_at_cond(al))
		return act_later(al, "ACL conditions are not implemented yet");
	return act_error(al, "unexpected argument '%s'.", al->ctx->args[al->pos]);
}

/* Parses a status code at al->pos into *status (200..599). */
static int act_parse_status(struct act_line *al, const char *opt, int *status)
{
	struct cfg_ctx *ctx = al->ctx;
	char *end;
	long v;

	if (al->pos >= ctx->nargs)
		return act_error(al, "'%s' expects <code> as argument.", opt);
	v = strtol(ctx->args[al->pos], &end, 10);
	if (*end || v < 200 || v > 599)
		return act_error(al, "Unexpected status code '%s'.", ctx->args[al->pos]);
	al->pos++;
	*status = (int)v;
	return 0;
}

/* Appends an extra header "hdr NAME VALUE" to a return rule. */
static int act_add_hdr(struct act_line *al, struct act_rule *r, const char *name,
		       const char *value)
{
	struct act_hdr *h;

	if (!strcasecmp(name, "content-length") || !strcasecmp(name, "transfer-encoding")) {
		cfg_warn(al->ctx, "header '%s' always ignored by the http reply.", name);
		return 0;
	}
	h = realloc(r->hdrs, (r->nb_hdrs + 1) * sizeof(*h));
	if (!h)
		return act_error(al, "out of memory.");
	r->hdrs = h;
	h = &r->hdrs[r->nb_hdrs];
	*h = (struct act_hdr){ { NULL, 0 }, { NULL, 0 } };
	r->nb_hdrs++;
	if (act_set_plain(al, &h->name, name) < 0)
		return -1;
	return act_set_value(al, &h->value, value);
}

/* One option of "return"; advances al->pos. */
static int act_return_opt(struct act_line *al, struct act_rule *r)
{
	struct cfg_ctx *ctx = al->ctx;
	const char *opt = ctx->args[al->pos++];
	const char *arg = al->pos < ctx->nargs ? ctx->args[al->pos] : NULL;

	if (!strcmp(opt, "status"))
		return act_parse_status(al, opt, &r->status);
	if (!strcmp(opt, "lf-string") || !strcmp(opt, "lf-file"))
		return act_later(al, "log-format expressions are not implemented yet");
	if (!strcmp(opt, "errorfile") || !strcmp(opt, "errorfiles") ||
	    !strcmp(opt, "default-errorfiles"))
		return act_later(al, "'return' with error files is not implemented yet");
	if (!strcmp(opt, "hdr")) {
		if (al->pos + 1 >= ctx->nargs)
			return act_error(al, "'hdr' expects <name> and <value> as arguments.");
		al->pos += 2;
		return act_add_hdr(al, r, ctx->args[al->pos - 2], ctx->args[al->pos - 1]);
	}
	if (strcmp(opt, "content-type") && strcmp(opt, "string") && strcmp(opt, "file"))
		return act_error(al, "unknown argument '%s'.", opt);
	if (!arg)
		return act_error(al, "'%s' expects an argument.", opt);
	al->pos++;
	if (!strcmp(opt, "content-type"))
		return act_set_plain(al, &r->content_type, arg);
	if (r->body.ptr)
		return act_error(al, "only one of 'string' or 'file' may be given.");
	if (!strcmp(opt, "string"))
		return act_set_plain(al, &r->body, arg);
	return act_read_file(al, &r->body, arg);
}

/* return [status N] [content-type T] [string S | file F] [hdr NAME VALUE]... */
static int act_parse_return(struct act_line *al, struct act_rule *r)
{
	if (!al->req)
		return act_later(al, "'http-response return' is not implemented yet");
	r->type = ACT_RETURN;
	r->status = 200;
	while (al->pos < al->ctx->nargs && !act_at_cond(al))
		if (act_return_opt(al, r) < 0)
			return -1;
	if (r->body.len && !r->content_type.len)
		return act_error(al, "a content type must be defined when non-empty payload is "
				 "configured.");
	if (r->body.len && (r->status == 204 || r->status == 304))
		return act_error(al, "No body expected for %d responses.", r->status);
	return act_end(al);
}

/* deny [deny_status N] */
static int act_parse_deny(struct act_line *al, struct act_rule *r)
{
	static const int codes[] = { 200, 400, 401, 403, 404, 405, 407, 408, 410, 413, 425,
				     429, 500, 501, 502, 503, 504, 0 };
	struct cfg_ctx *ctx = al->ctx;
	int i;

	r->type = ACT_DENY;
	r->status = al->req ? 403 : 502;
	while (al->pos < ctx->nargs && !act_at_cond(al)) {
		const char *opt = ctx->args[al->pos++];

		if (strcmp(opt, "deny_status") && strcmp(opt, "status"))
			return act_later(al, "'deny' with a custom response is not "
						 "implemented yet; use 'deny_status' with an 'errorfile'");
		if (act_parse_status(al, opt, &r->status) < 0)
			return -1;
	}
	for (i = 0; codes[i] && codes[i] != r->status; i++)
		;
	if (!codes[i])
		return act_error(al, "status code '%d' not handled by default with "
				 "'default-errorfiles' argument.", r->status);
	return act_end(al);
}

/* set-header/add-header NAME VALUE, del-header NAME */
static int act_parse_header(struct act_line *al, struct act_rule *r, enum act_type type)
{
	struct cfg_ctx *ctx = al->ctx;
	int need = type == ACT_DEL_HDR ? 1 : 2;
	int i;

	r->type = type;
	for (i = 0; i < need; i++)
		if (al->pos + i >= ctx->nargs || act_is_cond(ctx, al->pos + i))
			return act_error(al, "expects exactly %d argument%s.", need,
					 need > 1 ? "s" : "");
	/* the framing headers are the proxy's to write: a rule changing them would make
	 * the server or the client read the body differently from the proxy */
	if (!strcasecmp(ctx->args[al->pos], "content-length") ||
	    !strcasecmp(ctx->args[al->pos], "transfer-encoding"))
		return act_error(al, "header '%s' carries the message framing and cannot be "
				 "rewritten (the body would be read differently on each side).",
				 ctx->args[al->pos]);
	if (type != ACT_DEL_HDR && !strcasecmp(ctx->args[al->pos], "connection"))
		return act_error(al, "the proxy writes the 'connection' header itself; use "
				 "'option httpclose' or 'option http-server-close' to choose "
				 "the connection mode.");
	if (act_set_plain(al, &r->name, ctx->args[al->pos]) < 0)
		return -1;
	if (type != ACT_DEL_HDR && act_set_value(al, &r->value, ctx->args[al->pos + 1]) < 0)
		return -1;
	al->pos += need;
	if (type == ACT_DEL_HDR && al->pos < ctx->nargs && !strcmp(ctx->args[al->pos], "-m"))
		return act_later(al, "'del-header -m' is not implemented yet");
	return act_end(al);
}

/* Known HAProxy actions not implemented yet (a name ending in '(' matches a prefix). */
static const char *const act_later_names[] = {
	"redirect", "set-path", "set-pathq", "set-query", "set-uri", "set-method",
	"set-var(", "set-var-fmt(", "unset-var(", "allow", "tarpit", "auth", "reject",
	"replace-header", "replace-value", "replace-path", "replace-pathq", "replace-uri",
	"set-status", "capture", "track-sc", "sc-inc-gpc", "sc-set-gpt", "set-log-level",
	"set-nice", "set-tos", "set-mark", "use-service", "cache-use", "cache-store",
	"normalize-uri", "set-src", "set-src-port", "set-dst", "set-dst-port", "early-hint",
	"wait-for-body", "wait-for-handshake", "silent-drop", "do-resolve(", "send-spoe-group",
	"set-map(", "del-map(", "add-acl(", "del-acl(", "set-timeout", "strict-mode",
	"disable-l7-retry", "set-priority-class", "set-priority-offset", "set-bandwidth-limit",
	"lua.", "ot-group", NULL,
};

static int act_parse_other(struct act_line *al)
{
	const char *a = al->ctx->args[1];
	int i;

	for (i = 0; act_later_names[i]; i++)
		if (!strncmp(a, act_later_names[i], strlen(act_later_names[i])))
			return act_later(al, "this action is not implemented yet");
	cfg_alert(al->ctx, "'%s' expects 'return', 'deny', 'set-header', 'add-header', "
		  "'del-header' (or a known action that is not supported yet), but got '%s'.", al->kw, a);
	return -1;
}

/* Parses the action at args[1] into <r>. */
static int act_parse_action(struct act_line *al, struct act_rule *r)
{
	const char *a = al->ctx->args[1];

	if (!strcmp(a, "return"))
		return act_parse_return(al, r);
	if (!strcmp(a, "deny"))
		return act_parse_deny(al, r);
	if (!strcmp(a, "set-header"))
		return act_parse_header(al, r, ACT_SET_HDR);
	if (!strcmp(a, "add-header"))
		return act_parse_header(al, r, ACT_ADD_HDR);
	if (!strcmp(a, "del-header"))
		return act_parse_header(al, r, ACT_DEL_HDR);
	return act_parse_other(al);
}

/* Rules are not allowed in anonymous defaults (HAProxy 2.6+), and named defaults sections
 * carrying rules are not supported yet.
 */
static bool act_refuse_defaults(struct cfg_ctx *ctx)
{
	if (ctx->section != CFG_SEC_DEFAULTS)
		return false;
	if (!*ctx->px->id)
		cfg_alert(ctx, "'%s' not allowed in anonymous 'defaults' section.", ctx->args[0]);
	else
		proxy_cfg_later(ctx, ctx->args[0], "rules in named 'defaults' sections are not "
				"supported yet");
	return true;
}

static int act_kw_parse(struct cfg_ctx *ctx)
{
	struct act_line al = { ctx, ctx->args[0], !strcmp(ctx->args[0], "http-request"), 2 };
	struct act_rule *r;

	if (!ctx->px || act_refuse_defaults(ctx))
		return -1;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'%s' expects an action.", ctx->args[0]);
		return -1;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->file = strdup(ctx->file))) {
		free(r);
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	r->line = ctx->line;
	if (act_parse_action(&al, r) < 0) {
		proxy_rule_free(r);
		return -1;
	}
	list_append(al.req ? &ctx->px->http_req_rules : &ctx->px->http_res_rules, &r->list);
	return 0;
}

static const struct cfg_kw act_kws[] = {
	{ "http-request", CFG_SEC_PROXIES, act_kw_parse },
	{ "http-response", CFG_SEC_PROXIES, act_kw_parse },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(act_kws);
