/* HTTP check sequences: records a proxy's "option httpchk" and "http-check" lines as
 * written, and, when they are more than one request and one expect (connect, comment,
 * send-state, expect hdr|fhdr, several send/expect), turns them at check time into a rule
 * list the rule engine runs (tcpcheck_run.c). A single request and expect stay on the
 * simple HTTP check (check_cfg.c). Parse and check time only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cfg/cfg.h>
#include <check/check_http.h>
#include <check/tcpcheck.h>
#include <proxy/proxy.h>
#include <sample/logfmt.h>
#include <sample/regex.h>
#include <sample/sample.h>

static void httpchk_seq_del(struct httpchk_seq *sq)
{
	if (!sq)
		return;
	for (int i = 0; i < sq->n; i++) {
		for (int j = 0; j < sq->l[i].nargs; j++)
			free(sq->l[i].args[j]);
		free(sq->l[i].args);
		free(sq->l[i].file);
	}
	free(sq->l);
	free(sq);
}

void httpchk_seq_free(struct proxy *px)
{
	if (px->httpchk_seq_own)
		httpchk_seq_del(px->httpchk_seq);
	px->httpchk_seq = NULL;
	px->httpchk_seq_own = false;
}

/* Appends a copy of args[0..nargs) to <sq>. Returns 0 or -1 (out of memory). */
static int httpchk_seq_add(struct httpchk_seq *sq, const char *file, int line, char *const *args,
			   int nargs)
{
	struct httpchk_line *l = realloc(sq->l, (size_t)(sq->n + 1) * sizeof(*l));

	if (!l)
		return -1;
	sq->l = l;
	l = &sq->l[sq->n];
	memset(l, 0, sizeof(*l));
	l->args = calloc((size_t)nargs + 1, sizeof(char *));
	l->file = strdup(file ? file : "");
	if (!l->args || !l->file)
		goto oom;
	for (l->nargs = 0; l->nargs < nargs; l->nargs++)
		if (!(l->args[l->nargs] = strdup(args[l->nargs])))
			goto oom;
	l->line = line;
	sq->n++;
	return 0;
oom:
	for (int j = 0; j < l->nargs; j++)
		free(l->args[j]);
	free(l->args);
	free(l->file);
	return -1;
}

int httpchk_seq_record(struct cfg_ctx *ctx)
{
	struct proxy *px = ctx->px;
	struct httpchk_seq *sq = px->httpchk_seq;

	if (!px->httpchk_seq_own) { /* a fresh list keeps the inherited "option httpchk" */
		struct httpchk_seq *o = sq;

		sq = calloc(1, sizeof(*sq));
		if (!sq)
			goto oom;
		for (int i = 0; o && i < o->n; i++)
			if (!strcmp(o->l[i].args[0], "option") &&
			    httpchk_seq_add(sq, o->l[i].file, o->l[i].line, o->l[i].args,
					    o->l[i].nargs) < 0) {
				httpchk_seq_del(sq);
				goto oom;
			}
		px->httpchk_seq = sq;
		px->httpchk_seq_own = true;
	}
	if (httpchk_seq_add(sq, ctx->file, ctx->line, ctx->args, ctx->nargs) == 0)
		return 0;
oom:
	cfg_alert(ctx, "out of memory.");
	return -1;
}

/* True if <a> is an option of "http-check expect" (before the match). */
static bool httpchk_expect_opt(const char *a)
{
	static const char *const opts[] = { "comment",	    "min-recv",	   "ok-status",
					    "error-status", "tout-status", "on-success",
					    "on-error",	    "status-code" };

	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (!strcmp(a, opts[i]))
			return true;
	return false;
}

/* True when the lines need the rule engine. */
static bool httpchk_seq_complex(const struct httpchk_seq *sq)
{
	int sends = 0, expects = 0;

	for (int i = 0; sq && i < sq->n; i++) {
		const struct httpchk_line *l = &sq->l[i];
		const char *a = l->nargs > 1 ? l->args[1] : "";

		if (!strcmp(l->args[0], "option"))
			continue;
		if (!strcmp(a, "connect") || !strcmp(a, "comment") || !strcmp(a, "send-state") ||
		    !strncmp(a, "set-var", 7) || !strncmp(a, "unset-var", 9))
			return true;
		for (int j = 2; !strcmp(a, "send") && j < l->nargs; j += 2)
			if (!strcmp(l->args[j], "uri-lf") || !strcmp(l->args[j], "body-lf"))
				return true;
		if (!strcmp(a, "send") && (++sends > 1 || expects))
			return true;
		if (!strcmp(a, "expect")) {
			if (++expects > 1)
				return true;
			for (int j = 2; j < l->nargs; j++)
				if (httpchk_expect_opt(l->args[j]) || !strcmp(l->args[j], "hdr") ||
				    !strcmp(l->args[j], "fhdr"))
					return true;
		}
	}
	return false;
}

static int httpchk_dup(struct cfg_ctx *ctx, char **dst, const char *s)
{
	free(*dst);
	*dst = strdup(s);
	if (*dst)
		return 0;
	cfg_alert(ctx, "out of memory.");
	return -1;
}

/* True if the "name: value\r\n" list <hdrs> has header <name>. */
static bool httpchk_has_hdr(const char *hdrs, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = hdrs; p && *p; p = strstr(p, "\r\n") ? strstr(p, "\r\n") + 2 : NULL)
		if (!strncasecmp(p, name, n) && p[n] == ':')
			return true;
	return false;
}

/* uri-lf <ulf> / body-lf <blf> (NULL: none) of send rule <r>: compiled, and the static
 * URI/body they replace dropped from <h> (the URI goes at r->uri_off). 0 or -1 alerted. */
static int httpchk_send_lf(struct cfg_ctx *ctx, struct tcpchk_rule *r, struct chk_http_cfg *h,
			   const char *ulf, const char *blf)
{
	if (ulf) {
		if (httpchk_dup(ctx, &h->uri, "") < 0 ||
		    tcpchk_lf_compile(ctx, "send uri-lf", ulf, &r->ulf) < 0)
			return -1;
		r->uri_off = strlen(h->meth ? h->meth : "OPTIONS") + 1;
	}
	if (blf) {
		free(h->body);
		h->body = NULL;
		if (tcpchk_lf_compile(ctx, "send body-lf", blf, &r->blf) < 0)
			return -1;
	}
	return 0;
}

/* A send rule from "http-check send" args (NULL: none) over the "option httpchk"
 * request <opt> (the first send only). */
static int httpchk_send(struct cfg_ctx *ctx, struct tcpchk_rules *rs,
			const struct chk_http_cfg *opt)
{
	struct chk_http_cfg h = { 0 };
	struct tcpchk_rule *r = tcpchk_add(rs, TCPCHK_ACT_SEND);
	const char *ulf = NULL, *blf = NULL;
	int rc = -1;

	if (!r || (opt && ((opt->meth && httpchk_dup(ctx, &h.meth, opt->meth)) ||
			   (opt->uri && httpchk_dup(ctx, &h.uri, opt->uri)) ||
			   (opt->ver && httpchk_dup(ctx, &h.ver, opt->ver)))))
		goto out;
	for (int i = 2; ctx->args && i < ctx->nargs; i += 2) {
		const char *k = ctx->args[i], *v = i + 1 < ctx->nargs ? ctx->args[i + 1] : NULL;
		char **dst = !strcmp(k, "meth")	  ? &h.meth
			     : !strcmp(k, "uri")  ? &h.uri
			     : !strcmp(k, "ver")  ? &h.ver
			     : !strcmp(k, "body") ? &h.body
						  : NULL;

		if (!v || (!strcmp(k, "hdr") && i + 2 >= ctx->nargs)) {
			cfg_alert(ctx, "'http-check send' : '%s' expects an argument.", k);
			goto out;
		}
		if (!strcmp(k, "hdr")) {
			size_t old = h.hdrs ? strlen(h.hdrs) : 0,
			       add = strlen(v) + strlen(ctx->args[i + 2]) + 4;
			char *p = realloc(h.hdrs, old + add + 1);

			if (!p)
				goto out;
			snprintf(p + old, add + 1, "%s: %s\r\n", v, ctx->args[i + 2]);
			h.hdrs = p;
			i++;
		} else if (!strcmp(k, "comment")) {
			if (httpchk_dup(ctx, &r->comment, v) < 0)
				goto out;
		} else if (!strcmp(k, "uri-lf") || !strcmp(k, "body-lf")) {
			*(k[0] == 'u' ? &ulf : &blf) = v;
		} else if (!dst) {
			cfg_alert(ctx,
				  "'http-check send' : unknown parameter '%s', expects 'meth', "
				  "'uri', 'uri-lf', 'ver', 'hdr', 'body' or 'body-lf'.",
				  k);
			goto out;
		} else if (httpchk_dup(ctx, dst, v) < 0) {
			goto out;
		}
	}
	if (h.ver && !strncmp(h.ver, "HTTP/1.1", 8) && !httpchk_has_hdr(h.hdrs, "connection")) {
		size_t old = h.hdrs ? strlen(h.hdrs) : 0; /* one request per connection, as 2.6 */
		char *p = realloc(h.hdrs, old + sizeof("connection: close\r\n"));

		if (!p)
			goto out;
		memcpy(p + old, "connection: close\r\n", sizeof("connection: close\r\n"));
		h.hdrs = p;
	}
	if (httpchk_send_lf(ctx, r, &h, ulf, blf) < 0)
		goto out;
	r->data = chk_http_build_req(&h, &r->len);
	if (!r->data)
		goto out;
	r->hdr_end = r->len - (h.body ? strlen(h.body) : 0) - 2;
	rc = 0;
out:
	free(h.meth);
	free(h.uri);
	free(h.ver);
	free(h.hdrs);
	free(h.body);
	return rc;
}

/* "-m str|beg|end|sub|reg" at args[*i]; returns the method (and moves *i) or -1. */
static int httpchk_meth(struct cfg_ctx *ctx, int *i)
{
	static const char *const names[] = { "str", "beg", "end", "sub", "reg" };

	if (*i + 1 >= ctx->nargs || strcmp(ctx->args[*i], "-m"))
		return TCPCHK_HM_STR;
	for (int m = 0; m < 5; m++) {
		if (!strcmp(ctx->args[*i + 1], names[m])) {
			*i += 2;
			return m;
		}
	}
	cfg_alert(ctx,
		  "'http-check expect' : '-m' only supports 'str', 'beg', 'end', 'sub' or "
		  "'reg' (got '%s').",
		  ctx->args[*i + 1]);
	return -1;
}

static int httpchk_re(struct cfg_ctx *ctx, int m, const char *pat, struct regex **re)
{
	char err[256];

	if (m != TCPCHK_HM_REG)
		return 0;
	*re = regex_comp(pat, 0, err, sizeof(err));
	if (*re)
		return 0;
	cfg_alert(ctx, "'http-check expect' : regex '%s' is invalid (%s).", pat, err);
	return -1;
}

/* expect [!] hdr|fhdr name [-m M] N [value [-m M] V] at args[i] (the kind). */
static int httpchk_expect_hdr(struct cfg_ctx *ctx, struct tcpchk_rule *r, int i)
{
	r->kind = TCPCHK_EXP_HTTP_HDR;
	r->hfull = !strcmp(ctx->args[i++], "fhdr");
	if (i >= ctx->nargs || strcmp(ctx->args[i], "name")) {
		cfg_alert(ctx, "'http-check expect %s' expects 'name <pattern>' first.",
			  r->hfull ? "fhdr" : "hdr");
		return -1;
	}
	i++;
	if ((r->hname_m = httpchk_meth(ctx, &i)) < 0)
		return -1;
	if (i >= ctx->nargs) {
		cfg_alert(ctx, "'http-check expect' : missing header name.");
		return -1;
	}
	if (httpchk_dup(ctx, &r->hname, ctx->args[i++]) < 0 ||
	    httpchk_re(ctx, r->hname_m, r->hname, &r->hname_re) < 0)
		return -1;
	if (i < ctx->nargs && !strcmp(ctx->args[i], "value")) {
		i++;
		if ((r->hval_m = httpchk_meth(ctx, &i)) < 0)
			return -1;
		if (i >= ctx->nargs) {
			cfg_alert(ctx, "'http-check expect' : missing header value.");
			return -1;
		}
		if (httpchk_dup(ctx, &r->hval, ctx->args[i++]) < 0 ||
		    httpchk_re(ctx, r->hval_m, r->hval, &r->hval_re) < 0)
			return -1;
	}
	if (i < ctx->nargs) {
		cfg_alert(ctx, "'http-check expect' : unexpected argument '%s'.", ctx->args[i]);
		return -1;
	}
	return 0;
}

/* Option <k> <v> of "http-check expect" into <r>. 0 or -1 alerted. */
static int httpchk_expect_set(struct cfg_ctx *ctx, struct tcpchk_rule *r, const char *k,
			      const char *v)
{
	long n;

	if (!v) {
		cfg_alert(ctx, "'http-check expect' : '%s' expects an argument.", k);
		return -1;
	}
	if (!strcmp(k, "comment"))
		return httpchk_dup(ctx, &r->comment, v);
	if (!strcmp(k, "min-recv")) {
		if (cfg_parse_int_arg(ctx, v, -1, INT32_MAX, &n) < 0)
			return -1;
		r->min_recv = (int)n;
		return 0;
	}
	if (!strcmp(k, "ok-status"))
		return tcpchk_status(ctx, k, v, &r->ok_status);
	if (!strcmp(k, "error-status"))
		return tcpchk_status(ctx, k, v, &r->err_status);
	if (!strcmp(k, "tout-status"))
		return tcpchk_status(ctx, k, v, &r->tout_status);
	if (!strcmp(k, "status-code")) {
		sample_expr_free(r->code_expr);
		r->code_expr = tcpchk_parse_expr(ctx, "expect status-code", v);
		return r->code_expr ? 0 : -1;
	}
	return tcpchk_lf_compile(ctx, "expect", v,
				 !strcmp(k, "on-success") ? &r->on_success : &r->on_error);
}

/* An expect rule from "http-check expect" args. */
static int httpchk_expect(struct cfg_ctx *ctx, struct tcpchk_rules *rs, bool on404)
{
	static const char *const kinds[] = { "", "status", "rstatus", "string", "rstring" };
	struct tcpchk_rule *r = tcpchk_add(rs, TCPCHK_ACT_EXPECT);
	char err[256];
	int i = 2;

	if (!r) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	r->kind = TCPCHK_EXP_HTTP;
	r->hexp.disable_on_404 = on404;
	r->err_status = CHK_R_NONE; /* L7STS or L7RSP by the kind of test */
	for (; i < ctx->nargs && httpchk_expect_opt(ctx->args[i]); i += 2)
		if (httpchk_expect_set(ctx, r, ctx->args[i],
				       i + 1 < ctx->nargs ? ctx->args[i + 1] : NULL) < 0)
			return -1;
	if (i < ctx->nargs && !strcmp(ctx->args[i], "!")) {
		r->negate = r->hexp.negate = true;
		i++;
	}
	if (i < ctx->nargs && (!strcmp(ctx->args[i], "hdr") || !strcmp(ctx->args[i], "fhdr")))
		return httpchk_expect_hdr(ctx, r, i);
	for (int k = 1; k < 5 && i < ctx->nargs; k++)
		if (!strcmp(ctx->args[i], kinds[k]))
			r->hexp.kind = k;
	if (!r->hexp.kind || i + 2 != ctx->nargs) {
		cfg_alert(ctx, "'http-check expect' expects [comment C] [!] status|rstatus|string|"
			       "rstring <pattern> or hdr|fhdr name <pattern> [value <pattern>].");
		return -1;
	}
	if (r->hexp.kind == CHK_EXP_STATUS && !chk_status_list_valid(ctx->args[i + 1])) {
		cfg_alert(ctx, "'http-check expect status' : invalid status list '%s'.",
			  ctx->args[i + 1]);
		return -1;
	}
	if (httpchk_dup(ctx, &r->pattern, ctx->args[i + 1]) < 0)
		return -1;
	r->hexp.pattern = ist2(r->pattern, strlen(r->pattern));
	if (r->hexp.kind == CHK_EXP_RSTATUS || r->hexp.kind == CHK_EXP_RSTRING) {
		r->re = regex_comp(r->pattern, 0, err, sizeof(err));
		if (!r->re) {
			cfg_alert(ctx, "'http-check expect' : regex '%s' is invalid (%s).",
				  r->pattern, err);
			return -1;
		}
		r->hexp.re = r->re;
	}
	return 0;
}

/* Adds what a sequence needs: a request when it has none, an expect after the last
 * request (2xx/3xx). */
static int httpchk_complete(struct cfg_ctx *ctx, struct tcpchk_rules *rs,
			    const struct chk_http_cfg *opt, bool on404)
{
	bool has_send = false;

	for (int i = 0; i < rs->n; i++)
		has_send |= rs->r[i].act == TCPCHK_ACT_SEND;
	if (!has_send) {
		struct cfg_ctx c = *ctx;

		c.args = NULL;
		c.nargs = 0;
		if (httpchk_send(&c, rs, opt) < 0)
			return -1;
		if (rs->n > 1 && rs->r[0].act != TCPCHK_ACT_CONNECT) { /* the request goes first */
			struct tcpchk_rule sr = rs->r[rs->n - 1];

			memmove(&rs->r[1], &rs->r[0], (size_t)(rs->n - 1) * sizeof(sr));
			rs->r[0] = sr;
		}
	}
	if (rs->r[rs->n - 1].act != TCPCHK_ACT_EXPECT) {
		struct tcpchk_rule *r = tcpchk_add(rs, TCPCHK_ACT_EXPECT);

		if (!r) {
			cfg_alert(ctx, "out of memory.");
			return -1;
		}
		r->kind = TCPCHK_EXP_HTTP;
		r->hexp.disable_on_404 = on404;
		r->err_status = CHK_R_NONE;
	}
	return 0;
}

/* A request after another one needs its own connection, as in 2.6. */
static bool httpchk_needs_connect(const struct tcpchk_rules *rs, bool first_send)
{
	for (int i = rs->n - 1; i >= 0 && !first_send; i--)
		if (rs->r[i].act == TCPCHK_ACT_CONNECT)
			return false;
		else if (rs->r[i].act == TCPCHK_ACT_SEND)
			return true;
	return false;
}

int httpchk_seq_validate(struct cfg_ctx *ctx)
{
	struct tcpchk_rules *rs = calloc(1, sizeof(*rs));
	const char *a = ctx->args[1];
	int rc;

	if (!rs) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	if (!strcmp(a, "send"))
		rc = httpchk_send(ctx, rs, NULL);
	else if (!strcmp(a, "expect"))
		rc = httpchk_expect(ctx, rs, false);
	else
		rc = tcpchk_kw_var(ctx, rs);
	tcpchk_rules_free(rs);
	return rc;
}

int httpchk_seq_build(struct proxy *px)
{
	const struct httpchk_seq *sq = px->httpchk_seq;
	const struct chk_http_cfg *opt = px->httpchk;
	struct tcpchk_rules *rs;
	struct cfg_ctx ctx = { .px = px };
	bool state = false, first_send = true, on404 = opt && opt->disable_on_404;

	if (!httpchk_seq_complex(sq))
		return 0;
	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return -1;
	rs->flags = TCPCHK_F_BUILTIN; /* notices as the simple HTTP check words them */
	for (int i = 0; i < sq->n; i++) {
		const struct httpchk_line *l = &sq->l[i];
		const char *a = l->nargs > 1 ? l->args[1] : "";
		int rc = 0;

		ctx.file = l->file;
		ctx.line = l->line;
		ctx.args = l->args;
		ctx.nargs = l->nargs;
		if (!strcmp(l->args[0], "option") || !strcmp(a, "disable-on-404"))
			continue;
		if (!strcmp(a, "send-state"))
			state = true;
		else if (!strcmp(a, "comment"))
			rc = ctx.nargs == 3 ? httpchk_dup(&ctx, &rs->pending_cmt, l->args[2]) : -1;
		else if (!strcmp(a, "connect"))
			rc = tcpchk_kw_connect(&ctx, rs);
		else if (!strcmp(a, "send") && httpchk_needs_connect(rs, first_send))
			rc = (cfg_alert(&ctx,
					"'http-check send' : unable to add http-check send rule "
					"at step %d (missing connect rule).",
					rs->n + 1),
			      -1);
		else if (!strcmp(a, "send"))
			rc = httpchk_send(&ctx, rs, first_send ? opt : NULL), first_send = false;
		else if (!strcmp(a, "expect"))
			rc = httpchk_expect(&ctx, rs, on404);
		else if (!strncmp(a, "set-var", 7) || !strncmp(a, "unset-var", 9))
			rc = tcpchk_kw_var(&ctx, rs);
		if (rc < 0) {
			if (!strcmp(a, "comment") && ctx.nargs != 3)
				cfg_alert(&ctx,
					  "'http-check comment' expects a string as argument.");
			tcpchk_rules_free(rs);
			return -1;
		}
	}
	if (httpchk_complete(&ctx, rs, opt, on404) < 0) {
		tcpchk_rules_free(rs);
		return -1;
	}
	for (int i = 0; i < rs->n; i++)
		rs->r[i].http_state = state && rs->r[i].act == TCPCHK_ACT_SEND;
	if (px->tcpchk_proto_own)
		tcpchk_rules_free(px->tcpchk_proto);
	px->tcpchk_proto = rs;
	px->tcpchk_proto_own = true;
	px->tcpchk_kind = TCPCHK_K_HTTP;
	return 1;
}
