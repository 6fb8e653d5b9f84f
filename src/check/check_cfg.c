/* Configuration of health checks: "option httpchk [METH] [URI] [VER]", "http-check send|
 * expect|disable-on-404" (the other http-check actions and check kinds are refused as not
 * supported yet), copy-on-write sharing with defaults sections, and the check-time pass
 * that validates checked servers and builds each backend's HTTP check. Parse/check time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include <backend/server-t.h>
#include <cfg/cfg.h>
#include <check/check_cfg.h>
#include <check/check_http.h>
#include <check/extcheck_cfg.h>
#include <check/tcpcheck.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <sample/regex.h>

static void chk_cfg_free(struct chk_http_cfg *h)
{
	if (!h)
		return;
	free(h->file);
	free(h->meth);
	free(h->uri);
	free(h->ver);
	free(h->hdrs);
	free(h->body);
	free(h->pattern);
	free(h);
}

static int chk_dup(char **dst, const char *src)
{
	*dst = src ? strdup(src) : NULL;
	return src && !*dst ? -1 : 0;
}

/* The proxy's own, writable HTTP check settings (a copy of its defaults' on first write).
 * NULL after an alert when out of memory. */
static struct chk_http_cfg *chk_cfg_own(struct cfg_ctx *ctx)
{
	struct proxy *px = ctx->px;
	const struct chk_http_cfg *o = px->httpchk;
	struct chk_http_cfg *h;

	if (o && px->httpchk_owned)
		return px->httpchk;
	h = calloc(1, sizeof(*h));
	if (!h)
		goto oom;
	if (o) {
		*h = *o;
		h->file = h->meth = h->uri = h->ver = h->hdrs = h->body = h->pattern = NULL;
		if (chk_dup(&h->file, o->file) || chk_dup(&h->meth, o->meth) ||
		    chk_dup(&h->uri, o->uri) || chk_dup(&h->ver, o->ver) ||
		    chk_dup(&h->hdrs, o->hdrs) || chk_dup(&h->body, o->body) ||
		    chk_dup(&h->pattern, o->pattern))
			goto oom;
	} else {
		h->line = ctx->line;
		if (chk_dup(&h->file, ctx->file))
			goto oom;
	}
	px->httpchk = h;
	px->httpchk_owned = true;
	return h;
oom:
	chk_cfg_free(h);
	cfg_alert(ctx, "out of memory.");
	return NULL;
}

/* Replaces the string *dst with a copy of <s>. */
static int chk_set(struct cfg_ctx *ctx, char **dst, const char *s)
{
	char *n = strdup(s);

	if (!n) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	free(*dst);
	*dst = n;
	return 0;
}

/* [no] option httpchk [URI] | [METH URI [VER]] */
static int chk_opt_httpchk(struct cfg_ctx *ctx, int a, bool neg)
{
	int n = ctx->nargs - a - 1;
	struct chk_http_cfg *h;

	if (n > 3) {
		cfg_alert(ctx, "'option httpchk' accepts at most 3 arguments: [METH] [URI] [VER].");
		return -1;
	}
	h = chk_cfg_own(ctx);
	if (!h)
		return -1;
	h->enabled = !neg;
	if (neg)
		return 0;
	if (httpchk_seq_record(ctx) < 0) /* http-check sequences: httpchk_seq.c */
		return -1;
	if (n == 1)
		return chk_set(ctx, &h->uri, ctx->args[a + 1]);
	if (n >= 2 && (chk_set(ctx, &h->meth, ctx->args[a + 1]) < 0 ||
		       chk_set(ctx, &h->uri, ctx->args[a + 2]) < 0))
		return -1;
	if (n == 3 && chk_set(ctx, &h->ver, ctx->args[a + 3]) < 0)
		return -1;
	return 0;
}

/* Appends "name: value\r\n" to the headers sent. */
static int chk_add_hdr(struct cfg_ctx *ctx, struct chk_http_cfg *h, const char *n, const char *v)
{
	size_t old = h->hdrs ? strlen(h->hdrs) : 0, add = strlen(n) + strlen(v) + 4;
	char *p = realloc(h->hdrs, old + add + 1);

	if (!p) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	snprintf(p + old, add + 1, "%s: %s\r\n", n, v);
	h->hdrs = p;
	return 0;
}

/* http-check send [meth M] [uri U] [ver V] [hdr N V]... [body S] */
static int chk_kw_send(struct cfg_ctx *ctx, struct chk_http_cfg *h)
{
	for (int i = 2; i < ctx->nargs; i += 2) {
		const char *k = ctx->args[i];
		int rc;

		if (i + 1 >= ctx->nargs || (!strcmp(k, "hdr") && i + 2 >= ctx->nargs)) {
			cfg_alert(ctx, "'http-check send' : '%s' expects an argument.", k);
			return -1;
		}
		if (!strcmp(k, "meth"))
			rc = chk_set(ctx, &h->meth, ctx->args[i + 1]);
		else if (!strcmp(k, "uri"))
			rc = chk_set(ctx, &h->uri, ctx->args[i + 1]);
		else if (!strcmp(k, "ver"))
			rc = chk_set(ctx, &h->ver, ctx->args[i + 1]);
		else if (!strcmp(k, "body"))
			rc = chk_set(ctx, &h->body, ctx->args[i + 1]);
		else if (!strcmp(k, "hdr"))
			rc = chk_add_hdr(ctx, h, ctx->args[i + 1], ctx->args[i + 2]), i++;
		else if (!strcmp(k, "uri-lf") || !strcmp(k, "body-lf") || !strcmp(k, "comment"))
			rc = 0; /* a sequence (httpchk_seq.c) */
		else {
			cfg_alert(ctx,
				  "'http-check send' : unknown parameter '%s', expects 'meth', "
				  "'uri', 'uri-lf', 'ver', 'hdr', 'body' or 'body-lf'.",
				  k);
			return -1;
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* http-check expect [!] status|rstatus|string|rstring PATTERN */
static int chk_kw_expect(struct cfg_ctx *ctx, struct chk_http_cfg *h)
{
	static const char *const kinds[] = { "", "status", "rstatus", "string", "rstring" };
	bool neg = ctx->nargs > 2 && !strcmp(ctx->args[2], "!");
	int i = 2 + neg, kind = 0;

	for (int k = 1; k < 5 && i < ctx->nargs; k++)
		if (!strcmp(ctx->args[i], kinds[k]))
			kind = k;
	if (!kind && i < ctx->nargs &&
	    (!strcmp(ctx->args[i], "hdr") || !strcmp(ctx->args[i], "fhdr") ||
	     !strcmp(ctx->args[i], "comment")))
		return 0; /* an http-check sequence (httpchk_seq.c) */
	if (!kind && i < ctx->nargs &&
	    (!strcmp(ctx->args[i], "min-recv") || !strcmp(ctx->args[i], "ok-status") ||
	     !strcmp(ctx->args[i], "error-status") || !strcmp(ctx->args[i], "tout-status") ||
	     !strcmp(ctx->args[i], "on-success") || !strcmp(ctx->args[i], "on-error") ||
	     !strcmp(ctx->args[i], "status-code")))
		return 0; /* an http-check sequence (httpchk_seq.c) */
	if (h->expect)
		return 0; /* several expects: an http-check sequence (httpchk_seq.c) */
	if (!kind || i + 2 != ctx->nargs) {
		cfg_alert(ctx, "'http-check expect' expects [!] status|rstatus|string|rstring "
			       "<pattern>.");
		return -1;
	}
	if (kind == CHK_EXP_STATUS && !chk_status_list_valid(ctx->args[i + 1])) {
		cfg_alert(ctx, "'http-check expect status' : invalid status list '%s'.",
			  ctx->args[i + 1]);
		return -1;
	}
	if (chk_set(ctx, &h->pattern, ctx->args[i + 1]) < 0)
		return -1;
	h->expect = kind;
	h->negate = neg;
	return 0;
}

/* http-check send|expect|disable-on-404 ... */
static int chk_kw_http_check(struct cfg_ctx *ctx)
{
	const char *a = ctx->nargs > 1 ? ctx->args[1] : "";
	struct chk_http_cfg *h;

	if (!ctx->px)
		return -1;
	if (!proxy_cfg_has_cap(ctx, PR_CAP_BE, "http-check"))
		return 0;
	if (!strncmp(a, "set-var", 7) || !strncmp(a, "unset-var", 9))
		return httpchk_seq_validate(ctx) < 0 ? -1 : httpchk_seq_record(ctx);
	/* Lines are also recorded, once parsed, for sequences (httpchk_seq.c). */
	if (!strcmp(a, "connect") || !strcmp(a, "comment") || !strcmp(a, "send-state"))
		return httpchk_seq_record(ctx);
	if (strcmp(a, "send") && strcmp(a, "expect") && strcmp(a, "disable-on-404")) {
		cfg_alert(ctx,
			  "'http-check' only supports 'comment', 'connect', 'send', "
			  "'send-state', 'set-var', 'unset-var', 'expect' and 'disable-on-404'.");
		return -1;
	}
	h = chk_cfg_own(ctx);
	if (!h)
		return -1;
	if (!strcmp(a, "send"))
		return chk_kw_send(ctx, h) < 0 || httpchk_seq_validate(ctx) < 0
			       ? -1
			       : httpchk_seq_record(ctx);
	if (!strcmp(a, "expect"))
		return chk_kw_expect(ctx, h) < 0 || httpchk_seq_validate(ctx) < 0
			       ? -1
			       : httpchk_seq_record(ctx);
	if (ctx->nargs > 2) {
		cfg_alert(ctx, "'http-check disable-on-404' takes no argument.");
		return -1;
	}
	h->disable_on_404 = true;
	return 0;
}

/* Builds the runtime HTTP check of <px> from its settings. Returns 0 or -1 (alerted). */
static int chk_build_http(struct proxy *px)
{
	const struct chk_http_cfg *h = px->httpchk;
	struct chk_proxy *cp = calloc(1, sizeof(*cp));
	char err[256];

	if (!cp || !(cp->req = chk_http_build_req(h, &cp->req_len)))
		goto oom;
	px->chk = cp;
	cp->exp.kind = h->expect;
	cp->exp.negate = h->negate;
	cp->exp.disable_on_404 = h->disable_on_404;
	if (h->pattern)
		cp->exp.pattern = ist2(h->pattern, strlen(h->pattern));
	if (h->expect == CHK_EXP_RSTATUS || h->expect == CHK_EXP_RSTRING) {
		cp->re = regex_comp(h->pattern, 0, err, sizeof(err));
		if (!cp->re) {
			struct cfg_ctx c = { .file = h->file, .line = h->line };

			cfg_alert(&c, "%s '%s' : 'http-check expect' : regex '%s' : %s.",
				  proxy_type_str(px), px->id, h->pattern, err);
			return -1;
		}
		cp->exp.re = cp->re;
	}
	return 0;
oom:
	if (cp)
		free(cp);
	ha_alert("out of memory while building the checks of %s '%s'.\n", proxy_type_str(px),
		 px->id);
	return -1;
}

/* Checked server <s>: it needs somewhere to connect. Returns the number of errors. */
static int chk_check_server(const struct proxy *px, const struct server *s)
{
	struct cfg_ctx c = { .file = s->file, .line = s->line };
	int fam = s->check_addr.ss_family ? s->check_addr.ss_family : s->addr.ss_family;

	if (!s->addrlen) /* proxy_check_servers said it */
		return 0;
	if ((fam == AF_INET || fam == AF_INET6) && (s->flags & SRV_F_PORT_MAP) && !s->check_port) {
		cfg_alert(&c,
			  "'server %s/%s' : server has neither service port nor check port. "
			  "Check is not possible: set 'port'.",
			  px->id, s->id);
		return 1;
	}
	if (fam == AF_INET && !s->check_addr.ss_family &&
	    ((const struct sockaddr_in *)&s->addr)->sin_addr.s_addr == htonl(INADDR_ANY)) {
		cfg_alert(&c,
			  "'server %s/%s' : a check needs an address: this server has none "
			  "(0.0.0.0). Set 'addr' or remove 'check'.",
			  px->id, s->id);
		return 1;
	}
	return 0;
}

int check_cfg_check_all(void)
{
	int errs = 0;

	for (struct proxy *px = proxies; px; px = px->next) {
		bool any = false;

		errs += extchk_cfg_check(px); /* option external-check (extcheck_cfg.c) */
		for (const struct server *s = px->srv; s; s = s->next) {
			if (!(s->flags & SRV_F_CHECK))
				continue;
			any = true;
			errs += chk_check_server(px, s);
		}
		if (any && px->httpchk && px->httpchk->enabled && !px->chk) {
			int rc = httpchk_seq_build(px); /* 1: built as rules (httpchk_seq.c) */

			if (rc < 0 || (rc == 0 && chk_build_http(px) < 0))
				errs++;
		}
	}
	return errs;
}

int check_cfg_check_dyn(struct proxy *px, const struct server *s)
{
	int fam = s->check_addr.ss_family ? s->check_addr.ss_family : s->addr.ss_family;
	bool built = false;

	if ((fam == AF_INET || fam == AF_INET6) && (s->flags & SRV_F_PORT_MAP) && !s->check_port) {
		struct cfg_ctx c = { .file = NULL, .line = 0 };

		/* 2.6's answer to "add server" (the startup wording is chk_check_server's) */
		cfg_alert(&c,
			  "config: %s '%s': server '%s' has neither service port nor check port "
			  "nor tcp_check rule 'connect' with port information.",
			  proxy_type_str(px), px->id, s->id);
		return -1;
	}
	if (chk_check_server(px, s))
		return -1;
	for (const struct server *o = px->srv; o && !built; o = o->next)
		built = o->check != NULL;
	if (!built && px->httpchk && px->httpchk->enabled && !px->chk) {
		int rc = httpchk_seq_build(px); /* 1: built as rules (httpchk_seq.c) */

		if (rc < 0 || (rc == 0 && chk_build_http(px) < 0))
			return -1;
	}
	return 0;
}

static void chk_free_proxy(struct proxy *px)
{
	if (px->chk) {
		free(px->chk->req);
		if (px->chk->re)
			regex_free(px->chk->re);
		free(px->chk);
		px->chk = NULL;
	}
	if (px->httpchk_owned)
		chk_cfg_free(px->httpchk);
	px->httpchk = NULL;
	tcpchk_proxy_free(px);
	httpchk_seq_free(px);
	extchk_cfg_free(px);
}

static const struct cfg_kw chk_kws[] = {
	{ "http-check", CFG_SEC_PROXIES, chk_kw_http_check },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(chk_kws);

__attribute__((constructor)) static void chk_cfg_init(void)
{
	proxy_httpchk_hook = chk_opt_httpchk;
	proxy_check_free_hook = chk_free_proxy;
}
