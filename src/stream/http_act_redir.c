/* Redirects: "http-request redirect" and "http-response redirect" (location, prefix or
 * scheme with log-format values; code, drop-query, append-slash, ignore-empty,
 * set-cookie, clear-cookie), and the legacy "redirect" keyword of proxies (literal
 * values), whose rules run after the proxy's http-request rules. The reply is built as
 * HAProxy builds it (cache-control: no-cache for 302, 303 and 307).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <base/buf.h>
#include <cfg/cfg.h>
#include <conn/connection-t.h>
#include <http/h1.h>
#include <http/status.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <sample/acl.h>
#include <sample/logfmt.h>
#include <stream/action.h>
#include <stream/http_redir.h>
#include <stream/http_rw.h>
#include <stream/px_ext.h>
#include <stream/stream.h>

/* rule->arg.gen: fmt (log-format value) or str (legacy literal value), i[0] type, i[1]
 * code, i[2] REDIR_F_*, p[0] the Set-Cookie value (owned) */
enum redir_type {
	REDIR_LOCATION = 0,
	REDIR_PREFIX,
	REDIR_SCHEME,
};

#define REDIR_F_DROP_QUERY 0x01
#define REDIR_F_APPEND_SLASH 0x02
#define REDIR_F_IGNORE_EMPTY 0x04
#define REDIR_F_LITERAL 0x08 /* legacy "redirect": str holds the value */

/* The path of the request (with its query unless <drop>), "/" for none or "*". */
static struct ist redir_path(const struct stream *s, bool drop, bool scheme)
{
	struct ist p = h1_uri_pathq(s->req.uri);
	const char *q;

	if (drop && (q = memchr(p.ptr, '?', p.len)))
		p.len = (size_t)(q - p.ptr);
	if (scheme && (!p.len || ist_eq(p, IST("*"))))
		p = IST("/");
	return p;
}

/* The first Host header's value, or an empty view. */
static struct ist redir_host(const struct stream *s)
{
	for (uint16_t i = 0; i < s->req.nhdr; i++)
		if (!s->req.hdr[i].skip && s->req.hdr[i].id == H1_HDR_HOST)
			return s->req.hdr[i].v;
	return ist2(NULL, 0);
}

/* Builds the Location value in the rewrite buffer. Returns 1, 0 to skip the rule
 * (ignore-empty), -1 on failure. */
static int redir_location(struct act_rule *r, struct proxy *px, struct stream *s, int from,
			  struct ist *loc)
{
	uint32_t f = (uint32_t)r->arg.gen.i[2];
	struct smp_ctx ctx;
	struct rw_build b;
	struct ist path;

	act_smp_ctx(&ctx, s, px, from);
	rwb_begin(&b, s);
	if (f & REDIR_F_LITERAL)
		rwb_put(&b, r->arg.gen.str);
	else
		rwb_render(&b, &r->arg.gen.fmt, &ctx);
	if (!b.ok)
		return -1;
	if (!b.len && (f & REDIR_F_IGNORE_EMPTY))
		return 0;
	if (r->arg.gen.i[0] != REDIR_LOCATION) {
		bool scheme = r->arg.gen.i[0] == REDIR_SCHEME;

		if (scheme) {
			rwb_put(&b, IST("://"));
			rwb_put(&b, redir_host(s));
		} else if (b.len == 1 && b.p[0] == '/') {
			b.len = 0; /* "prefix /": the same URL */
		}
		path = redir_path(s, f & REDIR_F_DROP_QUERY, scheme);
		rwb_put(&b, path);
		if ((f & REDIR_F_APPEND_SLASH) && (!path.len || path.ptr[path.len - 1] != '/'))
			rwb_put(&b, IST("/"));
	}
	if (!b.ok || !http_value_is_safe(rwb_tail(&b, 0)))
		return -1;
	return rwb_end(&b, s, loc) ? 1 : -1;
}

/* Writes "name: value\r\n" at the tail of <ob>; false when it does not fit. */
static bool put_line(struct buf *ob, const char *name, struct ist v)
{
	size_t nl = strlen(name);

	if (b_room(ob) < nl + v.len + 4)
		return false;
	b_putblk(ob, name, (uint32_t)nl);
	b_putblk(ob, ": ", 2);
	b_putblk(ob, v.ptr, (uint32_t)v.len);
	b_putblk(ob, "\r\n", 2);
	return true;
}

/* Writes the redirect to <loc> as the stream's local reply (finished by the caller with
 * stream_reply_done()). 0, or -1 when it does not fit. */
static int redir_reply(struct act_rule *r, struct stream *s, struct ist loc)
{
	int code = (int)r->arg.gen.i[1];
	struct buf *ob = &s->front->obuf;
	const char *cookie = r->arg.gen.p[0];
	char line[64];
	int start, n;
	bool ok;

	start = stream_reply_start(s);
	if (start < 0)
		return -1;
	n = snprintf(line, sizeof(line), "HTTP/1.1 %d %s\r\n", code, http_reason(code));
	ok = b_putblk(ob, line, (uint32_t)n) == 0 && put_line(ob, "content-length", IST("0")) &&
	     put_line(ob, "location", loc);
	if (ok && (code == 302 || code == 303 || code == 307))
		ok = put_line(ob, "cache-control", IST("no-cache"));
	if (ok && cookie)
		ok = put_line(ob, "set-cookie", ist_str(cookie));
	if (!ok || b_putblk(ob, "\r\n", 2) < 0) {
		ob->data = (uint32_t)start;
		return -1;
	}
	if (s->back && !(s->flags & SF_REQ_DONE))
		s->flags |= SF_FRONT_CLOSE;
	s->status = code;
	return 0;
}

static enum act_return act_redirect(struct act_rule *r, struct proxy *px, struct stream *s,
				    int from)
{
	struct ist loc;
	int ret = redir_location(r, px, s, from, &loc);

	if (ret == 0)
		return ACT_RET_CONT;
	if (ret < 0 || redir_reply(r, s, loc) < 0)
		return ACT_RET_ERR;
	return ACT_RET_DONE;
}

int http_redirect_legacy(struct stream *s, struct proxy *px, int *ret)
{
	const struct px_rules_ext *x = px_ext(px);
	struct act_rule *r;
	struct smp_ctx ctx;
	struct ist loc;
	int got;

	if (!x || list_empty(&x->redirects))
		return 0;
	act_smp_ctx(&ctx, s, px, ACT_F_HTTP_REQ);
	list_for_each_entry(r, &x->redirects, list)
	{
		if (r->cond && !acl_cond_true(r->cond, &ctx))
			continue;
		got = redir_location(r, px, s, ACT_F_HTTP_REQ, &loc);
		if (got == 0)
			continue;
		if (got < 0 || redir_reply(r, s, loc) < 0) {
			stream_count_rewrite_failed(s);
			*ret = stream_reply_error(s, 500, false);
		} else {
			*ret = stream_reply_done(s);
		}
		return 1;
	}
	return 0;
}

/* ---- parsing ---- */

static void act_redirect_release(struct act_rule *r)
{
	lf_free(&r->arg.gen.fmt);
	free((char *)r->arg.gen.str.ptr);
	free(r->arg.gen.p[0]);
}

/* Sets the cookie of "set-cookie NAME[=value]" or "clear-cookie NAME[=]". */
static int redir_cookie(struct act_rule *r, const char *v, bool clear, char *err, size_t errsz)
{
	size_t n = strlen(v) + 32;
	char *c = malloc(n);

	if (!c) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	snprintf(c, n, "%s; path=/;%s", v, clear ? " Max-Age=0;" : "");
	free(r->arg.gen.p[0]);
	r->arg.gen.p[0] = c;
	return 0;
}

/* location|prefix|scheme VALUE [code C] [drop-query] [append-slash] [ignore-empty]
 * [set-cookie N[=V]] [clear-cookie N[=]], in any order */
static int parse_redirect_args(char **args, int *pos, int nargs, const struct act_parse *ap,
			       struct act_rule *r, bool literal, char *err, size_t errsz)
{
	const char *value = NULL;
	const char *w;

	r->arg.gen.i[1] = 302;
	while ((w = act_next_word(args, pos, nargs))) {
		bool has_arg = !strcmp(w, "location") || !strcmp(w, "prefix") ||
			       !strcmp(w, "scheme") || !strcmp(w, "code") ||
			       !strcmp(w, "set-cookie") || !strcmp(w, "clear-cookie");
		const char *a = NULL;

		if (has_arg && !(a = act_next_word(args, pos, nargs))) {
			snprintf(err, errsz, "missing argument for '%s'", w);
			return -1;
		}
		if (!strcmp(w, "location") || !strcmp(w, "prefix") || !strcmp(w, "scheme")) {
			r->arg.gen.i[0] = !strcmp(w, "location") ? REDIR_LOCATION
					  : !strcmp(w, "prefix") ? REDIR_PREFIX
								 : REDIR_SCHEME;
			value = a;
		} else if (!strcmp(w, "code")) {
			long c = atol(a);

			if (c != 301 && c != 302 && c != 303 && c != 307 && c != 308) {
				snprintf(err, errsz,
					 "'code': unsupported HTTP code '%s' (must be one "
					 "of 301, 302, 303, 307 or 308)",
					 a);
				return -1;
			}
			r->arg.gen.i[1] = c;
		} else if (!strcmp(w, "set-cookie") || !strcmp(w, "clear-cookie")) {
			if (redir_cookie(r, a, w[0] == 'c', err, errsz) < 0)
				return -1;
		} else if (!strcmp(w, "drop-query")) {
			r->arg.gen.i[2] |= REDIR_F_DROP_QUERY;
		} else if (!strcmp(w, "append-slash")) {
			r->arg.gen.i[2] |= REDIR_F_APPEND_SLASH;
		} else if (!strcmp(w, "ignore-empty")) {
			r->arg.gen.i[2] |= REDIR_F_IGNORE_EMPTY;
		} else {
			snprintf(err, errsz,
				 "expects 'code', 'prefix', 'location', 'scheme', "
				 "'set-cookie', 'clear-cookie', 'drop-query', 'ignore-empty' or "
				 "'append-slash' (was '%s')",
				 w);
			return -1;
		}
	}
	if (!value) {
		snprintf(err, errsz,
			 "redirection type expected ('prefix', 'location', or "
			 "'scheme')");
		return -1;
	}
	if (ap->from != ACT_F_HTTP_REQ && r->arg.gen.i[0] != REDIR_LOCATION) {
		snprintf(err, errsz, "response only supports redirect type 'location'");
		return -1;
	}
	r->action = act_redirect;
	r->release = act_redirect_release;
	r->flags |= ACT_FL_FINAL;
	if (literal) {
		r->arg.gen.i[2] |= REDIR_F_LITERAL;
		return act_set_name(&r->arg.gen.str, value, err, errsz);
	}
	return act_parse_fmt(&r->arg.gen.fmt, value, ap, err, errsz);
}

static int parse_redirect(char **args, int *pos, int nargs, const struct act_parse *ap,
			  struct act_rule *r, char *err, size_t errsz)
{
	return parse_redirect_args(args, pos, nargs, ap, r, false, err, errsz);
}

/* redirect location|prefix|scheme VALUE [options] [if|unless COND] (legacy keyword) */
static int kw_redirect(struct cfg_ctx *ctx)
{
	struct proxy *px = ctx->px;
	struct act_parse ap = {
		.px = px,
		.pc = { ctx->file, ctx->line, px, SMP_VAL_HRQ_HDR, "redirect" },
		.set = "redirect",
		.from = ACT_F_HTTP_REQ,
	};
	struct px_rules_ext *x;
	struct act_rule *r;
	char err[1024] = "";
	int pos = 1;

	if (!px || proxy_cfg_in_defaults(ctx, "redirect"))
		return -1;
	x = px_ext_get(px);
	r = x ? calloc(1, sizeof(*r)) : NULL;
	if (!r || !(r->file = strdup(ctx->file))) {
		free(r);
		return cfg_alert(ctx, "out of memory."), -1;
	}
	r->line = ctx->line;
	r->kw = "redirect";
	r->from = ACT_F_HTTP_REQ;
	if (parse_redirect_args(ctx->args, &pos, ctx->nargs, &ap, r, true, err, sizeof(err)) < 0)
		goto fail;
	if (pos < ctx->nargs) {
		r->cond = acl_cond_parse(ctx->args + pos, ctx->nargs - pos, &px->acls, &ap.pc, err,
					 sizeof(err));
		if (!r->cond)
			goto fail;
	}
	list_append(&x->redirects, &r->list);
	return 0;
fail:
	cfg_alert(ctx, "error detected in %s '%s' while parsing redirect rule : %s.",
		  proxy_type_str(px), px->id, err);
	act_rule_free(r);
	return -1;
}

static const struct action_kw http_act_redir_kws[] = {
	{ "redirect", ACT_F_HTTP_REQ | ACT_F_HTTP_RES, 0, parse_redirect },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(http_act_redir_kws);

static const struct cfg_kw http_redir_kws[] = {
	{ "redirect", CFG_SEC_PROXIES, kw_redirect },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(http_redir_kws);
