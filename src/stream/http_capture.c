/* Captures: the "capture request|response header NAME len N", "capture cookie NAME len N"
 * and "declare capture request|response len N" keywords of frontends, the capture action
 * of http-request/http-response/http-after-response ("capture EXPR len N|id N"), the
 * per-stream storage of what was captured (one area sized at check time), the captures
 * taken when the request and the response headers arrive, and the capture.req.* and
 * capture.res.* fetches that read them back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <base/buf.h>
#include <base/parse.h>
#include <cfg/cfg.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <sample/sample.h>
#include <stream/action.h>
#include <stream/http_capture.h>
#include <stream/px_ext.h>
#include <stream/stream.h>

#define CAP_REQLINE_LEN 1024 /* request line kept for capture.req.method/uri (HAProxy's) */
#define CAP_COOKIE_MAX 63    /* tune.http.cookielen's default */

/* What a stream captured. Allocated at the first capture, laid out as this header, the
 * views of the request then response slots, then the bytes of each slot at the offsets
 * computed at check time, the two cookies, and the request line. */
struct strm_caps {
	uint32_t size;	/* bytes allocated, this header included */
	uint8_t pooled; /* from pool_buffer (else malloc) */
	uint16_t nb_req;
	uint16_t nb_res;
	struct ist cookie_req; /* "name=value" of the captured request cookie */
	struct ist cookie_res; /* the same from Set-Cookie */
	struct ist reqline;    /* the request line as received (truncated) */
	struct ist *req;       /* nb_req views */
	struct ist *res;       /* nb_res views */
	char *data;	       /* slot bytes */
};

/* Set at parse time when a capture.req.method/uri fetch exists: requests lines are kept. */
static bool cap_reqline_used;

/* ---- storage ---- */

static uint32_t caps_size(const struct px_rules_ext *x)
{
	uint32_t sz = (uint32_t)sizeof(struct strm_caps) + CAP_REQLINE_LEN;

	if (x)
		sz += (uint32_t)(x->nb_req_cap + x->nb_res_cap) * (uint32_t)sizeof(struct ist) +
		      x->cap_size + 2 * x->cookie_len;
	return sz;
}

/* The captures of <s>, allocated on first use from its frontend's layout; NULL when memory
 * is short. */
static struct strm_caps *caps_get(struct stream *s)
{
	const struct px_rules_ext *x = px_ext(s->fe);
	struct strm_caps *c = s->caps;
	uint32_t sz;

	if (c)
		return c;
	sz = caps_size(x);
	c = sz <= global_bufsize ? pool_alloc(&pool_buffer) : malloc(sz);
	if (!c)
		return NULL;
	memset(c, 0, sizeof(*c));
	c->size = sz;
	c->pooled = sz <= global_bufsize;
	c->nb_req = x ? x->nb_req_cap : 0;
	c->nb_res = x ? x->nb_res_cap : 0;
	c->req = (struct ist *)(c + 1);
	c->res = c->req + c->nb_req;
	c->data = (char *)(c->res + c->nb_res);
	memset(c->req, 0, (size_t)(c->nb_req + c->nb_res) * sizeof(struct ist));
	s->caps = c;
	return c;
}

void http_capture_free(struct stream *s)
{
	struct strm_caps *c = s->caps;

	if (!c)
		return;
	if (c->pooled)
		pool_free(&pool_buffer, c);
	else
		free(c);
	s->caps = NULL;
}

unsigned http_capture_nb(const struct stream *s, bool res)
{
	const struct px_rules_ext *x = px_ext(s->fe);

	return !x ? 0 : res ? x->nb_res_cap : x->nb_req_cap;
}

struct ist http_capture_get(const struct stream *s, bool res, unsigned idx)
{
	const struct strm_caps *c = s->caps;

	if (!c || idx >= (res ? c->nb_res : c->nb_req))
		return ist2(NULL, 0);
	return res ? c->res[idx] : c->req[idx];
}

struct ist http_capture_cookie(const struct stream *s, bool res)
{
	const struct strm_caps *c = s->caps;

	return !c ? ist2(NULL, 0) : res ? c->cookie_res : c->cookie_req;
}

/* Copies at most <max> bytes of <v> to <dst> and points <view> at them. */
static void cap_store(struct ist *view, char *dst, uint32_t max, struct ist v)
{
	size_t n = v.len < max ? v.len : max;

	if (n)
		memmove(dst, v.ptr, n);
	*view = ist2(dst, n);
}

static bool cap_slot_store(struct stream *s, bool res, int idx, struct ist v)
{
	const struct px_rules_ext *x = px_ext(s->fe);
	struct strm_caps *c;
	const struct cap_slot *slot;

	if (idx < 0 || !x || idx >= (res ? x->nb_res_cap : x->nb_req_cap))
		return false;
	c = caps_get(s);
	if (!c)
		return false;
	slot = res ? &x->res_cap[idx] : &x->req_cap[idx];
	cap_store(res ? &c->res[idx] : &c->req[idx], c->data + slot->off, slot->len, v);
	return true;
}

bool http_capture_store(struct stream *s, bool res, long long idx, struct ist v)
{
	return idx <= 65535 && cap_slot_store(s, res, (int)idx, v);
}

/* The last value of header <name> in <m>, whole (not split on commas). */
static bool last_hdr(const struct h1_msg *m, struct ist name, struct ist *v)
{
	bool found = false;

	for (uint16_t i = 0; i < m->nhdr; i++) {
		if (m->hdr[i].skip || !ist_ieq(m->hdr[i].n, name))
			continue;
		*v = m->hdr[i].v;
		found = true;
	}
	return found;
}

/* The first cookie of the headers <hname> of <m> whose name starts with <prefix>, as
 * "name=value". Request cookies are separated by ';', a Set-Cookie's ends at the first
 * ';' (its attributes follow). */
static bool find_cookie(const struct h1_msg *m, struct ist hname, const char *prefix,
			bool set_cookie, struct ist *out)
{
	size_t plen = strlen(prefix);

	for (uint16_t i = 0; i < m->nhdr; i++) {
		const char *p, *e;

		if (m->hdr[i].skip || !ist_ieq(m->hdr[i].n, hname))
			continue;
		p = m->hdr[i].v.ptr;
		e = p + m->hdr[i].v.len;
		while (p < e) {
			const char *end = memchr(p, ';', (size_t)(e - p));

			if (!end)
				end = e;
			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			if ((size_t)(end - p) >= plen && !memcmp(p, prefix, plen)) {
				*out = ist2(p, (size_t)(end - p));
				while (out->len && (out->ptr[out->len - 1] == ' '))
					out->len--;
				return true;
			}
			if (set_cookie)
				break;
			p = end + 1;
		}
	}
	return false;
}

bool http_capture_reqline_used(void)
{
	return cap_reqline_used;
}

void http_capture_request(struct stream *s)
{
	const struct px_rules_ext *x = px_ext(s->fe);
	struct strm_caps *c;
	struct ist v;

	if (!cap_reqline_used && (!x || (!x->nb_req_cap && !x->cookie_name)))
		return;
	c = caps_get(s);
	if (!c)
		return;
	if (cap_reqline_used) {
		char *dst = c->data + (x ? x->cap_size + 2 * x->cookie_len : 0);
		int n = snprintf(dst, CAP_REQLINE_LEN, "%.*s %.*s %.*s", (int)s->req.meth.len,
				 s->req.meth.ptr, (int)s->req.uri.len, s->req.uri.ptr,
				 (int)s->req.vsn.len, s->req.vsn.ptr);

		/* "METHOD URI VERSION", cut at the end of the area */
		c->reqline = ist2(dst, n < CAP_REQLINE_LEN ? (size_t)n : CAP_REQLINE_LEN - 1);
	}
	if (!x)
		return;
	for (int i = 0; i < x->nb_req_cap; i++)
		if (x->req_cap[i].hdr.len && last_hdr(&s->req, x->req_cap[i].hdr, &v))
			cap_slot_store(s, false, i, v);
	if (x->cookie_name && find_cookie(&s->req, IST("cookie"), x->cookie_name, false, &v))
		cap_store(&c->cookie_req, c->data + x->cap_size, x->cookie_len, v);
}

void http_capture_response(struct stream *s)
{
	const struct px_rules_ext *x = px_ext(s->fe);
	struct strm_caps *c;
	struct ist v;

	if (!x || (!x->nb_res_cap && !x->cookie_name))
		return;
	c = caps_get(s);
	if (!c)
		return;
	for (int i = 0; i < x->nb_res_cap; i++)
		if (x->res_cap[i].hdr.len && last_hdr(&s->rsp, x->res_cap[i].hdr, &v))
			cap_slot_store(s, true, i, v);
	if (x->cookie_name && find_cookie(&s->rsp, IST("set-cookie"), x->cookie_name, true, &v))
		cap_store(&c->cookie_res, c->data + x->cap_size + x->cookie_len, x->cookie_len, v);
}

/* Lays the slots of every frontend out; called at check time. */
void http_capture_layout(struct proxy *px)
{
	struct px_rules_ext *x = px->rules_ext;
	uint32_t off = 0;

	if (!x)
		return;
	for (int i = 0; i < x->nb_req_cap; i++) {
		x->req_cap[i].off = off;
		off += x->req_cap[i].len;
	}
	for (int i = 0; i < x->nb_res_cap; i++) {
		x->res_cap[i].off = off;
		off += x->res_cap[i].len;
	}
	x->cap_size = off;
}

/* ---- keywords ---- */

/* Adds a slot to the request (or response) slots of <px>; returns its index or -1. */
static int cap_add_slot(struct proxy *px, bool res, const char *hdr, uint32_t len)
{
	struct px_rules_ext *x = px_ext_get(px);
	struct cap_slot *t, *slot;
	uint16_t *nb;

	if (!x)
		return -1;
	nb = res ? &x->nb_res_cap : &x->nb_req_cap;
	t = realloc(res ? x->res_cap : x->req_cap, (size_t)(*nb + 1) * sizeof(*t));
	if (!t)
		return -1;
	if (res)
		x->res_cap = t;
	else
		x->req_cap = t;
	slot = &t[*nb];
	memset(slot, 0, sizeof(*slot));
	slot->len = len;
	if (hdr && act_set_name(&slot->hdr, hdr, (char[8]){ 0 }, 8) < 0)
		return -1;
	return (*nb)++;
}

/* "len N": HAProxy reads it with atol (a bad number gives 0). */
static uint32_t cap_len(const char *s)
{
	long v = atol(s);

	return v < 0 ? 0 : v > 65535 ? 65535 : (uint32_t)v;
}

static int kw_capture_cookie(struct cfg_ctx *ctx)
{
	struct px_rules_ext *x;
	uint32_t len;

	if (ctx->nargs != 5 || strcmp(ctx->args[3], "len")) {
		cfg_alert(ctx, "'capture' expects 'cookie' <cookie_name> 'len' <len>.");
		return -1;
	}
	x = px_ext_get(ctx->px);
	if (!x)
		return cfg_alert(ctx, "out of memory."), -1;
	len = cap_len(ctx->args[4]);
	free(x->cookie_name);
	x->cookie_name = strdup(ctx->args[2]);
	if (!x->cookie_name)
		return cfg_alert(ctx, "out of memory."), -1;
	x->cookie_len = len < CAP_COOKIE_MAX ? len : CAP_COOKIE_MAX;
	return 0;
}

/* capture cookie NAME len N | capture request|response header NAME len N */
static int kw_capture(struct cfg_ctx *ctx)
{
	const char *what = ctx->nargs > 1 ? ctx->args[1] : "";
	bool res = !strcmp(what, "response");

	if (!ctx->px)
		return -1;
	if (strcmp(what, "cookie") && strcmp(what, "request") && strcmp(what, "response")) {
		cfg_alert(ctx, "'capture' expects 'cookie' or 'request header' or 'response "
			       "header'.");
		return -1;
	}
	if (ctx->section == CFG_SEC_DEFAULTS) {
		cfg_alert(ctx, "'%s %s' not allowed in 'defaults' section.", ctx->args[0], what);
		return -1;
	}
	if (!proxy_cfg_has_cap(ctx, PR_CAP_FE, "capture"))
		return 0;
	if (!strcmp(what, "cookie"))
		return kw_capture_cookie(ctx);
	if (ctx->nargs < 6 || strcmp(ctx->args[2], "header") || strcmp(ctx->args[4], "len")) {
		cfg_alert(ctx, "'capture %s' expects 'header' <header_name> 'len' <len>.", what);
		return -1;
	}
	if (ctx->nargs > 6) {
		cfg_alert(ctx, "'capture %s' cannot handle unexpected argument '%s'.", what,
			  ctx->args[6]);
		return -1;
	}
	if (cap_add_slot(ctx->px, res, ctx->args[3], cap_len(ctx->args[5])) < 0)
		return cfg_alert(ctx, "out of memory."), -1;
	return 0;
}

/* declare capture request|response len N */
static int kw_declare(struct cfg_ctx *ctx)
{
	const char *dir = ctx->nargs > 2 ? ctx->args[2] : "";
	long len;

	if (!ctx->px)
		return -1;
	if (ctx->nargs < 2 || strcmp(ctx->args[1], "capture")) {
		cfg_alert(ctx, "'declare' expects 'capture'.");
		return -1;
	}
	if (!(ctx->px->cap & PR_CAP_FE) || ctx->section == CFG_SEC_DEFAULTS) {
		cfg_alert(ctx, "'declare' only available in frontend or listen section");
		return -1;
	}
	if (strcmp(dir, "request") && strcmp(dir, "response")) {
		cfg_alert(ctx, "'declare capture' requires a direction ('request' or 'response')");
		return -1;
	}
	if (ctx->nargs < 5 || strcmp(ctx->args[3], "len")) {
		cfg_alert(ctx, "'declare capture' requires a capture length ('len')");
		return -1;
	}
	if (parse_long(ctx->args[4], 1, 65535, &len) < 0) {
		cfg_alert(ctx, "length must be > 0");
		return -1;
	}
	if (cap_add_slot(ctx->px, !strcmp(dir, "response"), NULL, (uint32_t)len) < 0)
		return cfg_alert(ctx, "out of memory."), -1;
	return 0;
}

/* ---- the capture action ---- */

/* rule->arg.gen: expr, i[0] = slot index, i[1] = 1 for the response slots */
static enum act_return act_capture(struct act_rule *r, struct proxy *px, struct stream *s, int from)
{
	struct smp_ctx ctx;
	struct sample smp;

	act_smp_ctx(&ctx, s, px, from);
	memset(&smp, 0, sizeof(smp));
	smp.ctx = &ctx;
	if (!sample_process_as(r->arg.gen.expr, &smp, SMP_T_STR))
		return ACT_RET_CONT;
	cap_slot_store(s, r->arg.gen.i[1], (int)r->arg.gen.i[0], smp.data.u.str);
	return ACT_RET_CONT;
}

static void act_capture_release(struct act_rule *r)
{
	sample_expr_free(r->arg.gen.expr);
}

/* "id N" must name a slot of the proxy when it is a frontend (a backend's slot belongs to
 * whichever frontend the request came through: checked at run time). */
static int act_capture_check(struct act_rule *r, struct proxy *px, char *err, size_t errsz)
{
	const struct px_rules_ext *x = px_ext(px);
	int nb = !x ? 0 : r->arg.gen.i[1] ? x->nb_res_cap : x->nb_req_cap;

	if (!(px->cap & PR_CAP_FE) || r->arg.gen.i[0] < nb)
		return 0;
	snprintf(err, errsz,
		 "Proxy '%s': unable to find capture id '%lld' referenced by "
		 "http-%s capture rule",
		 px->id, r->arg.gen.i[0], r->from == ACT_F_HTTP_REQ ? "request" : "response");
	return -1;
}

static int parse_capture(char **args, int *pos, int nargs, const struct act_parse *ap,
			 struct act_rule *r, char *err, size_t errsz)
{
	bool req = ap->from == ACT_F_HTTP_REQ;
	const char *expr = act_next_word(args, pos, nargs);
	const char *kw = expr ? act_next_word(args, pos, nargs) : NULL;
	const char *val = kw ? act_next_word(args, pos, nargs) : NULL;
	char *end;
	long v;

	if (!val) {
		snprintf(err, errsz, "expects <expression> [ 'len' <length> | id <idx> ]");
		return -1;
	}
	r->action = act_capture;
	r->release = act_capture_release;
	r->arg.gen.i[1] = !req;
	if (!strcmp(kw, "id")) {
		v = strtol(val, &end, 10);
		if (*end || end == val || v < 0) {
			snprintf(err, errsz, "cannot parse id '%s'", val);
			return -1;
		}
		r->arg.gen.i[0] = v;
		r->check = act_capture_check;
	} else if (!strcmp(kw, "len") && req) {
		v = strtol(val, &end, 10);
		if (*end || end == val || v <= 0) {
			snprintf(err, errsz, "length must be > 0");
			return -1;
		}
		if (!(ap->px->cap & PR_CAP_FE)) {
			snprintf(err, errsz, "proxy '%s' has no frontend capability", ap->px->id);
			return -1;
		}
		r->arg.gen.i[0] =
			cap_add_slot(ap->px, false, NULL, (uint32_t)(v > 65535 ? 65535 : v));
		if (r->arg.gen.i[0] < 0) {
			snprintf(err, errsz, "out of memory");
			return -1;
		}
	} else if (req) {
		snprintf(err, errsz, "expects 'len' or 'id', found '%s'", kw);
		return -1;
	} else {
		snprintf(err, errsz, "expects 'id', found '%s'", kw);
		return -1;
	}
	r->arg.gen.expr = act_parse_expr(expr, ap, err, errsz);
	return r->arg.gen.expr ? 0 : -1;
}

/* ---- fetches ---- */

static int smp_set_view(struct sample *smp, struct ist v)
{
	smp->data.type = SMP_T_STR;
	smp->data.u.str = v;
	smp->flags |= SMP_F_CONST;
	return 1;
}

/* capture.req.hdr(N), capture.res.hdr(N): the value of slot N, when it holds one */
static int smp_fetch_cap_hdr(const struct arg *args, struct sample *smp,
			     const struct sample_fetch *kw)
{
	const struct stream *s = smp->ctx->strm;
	const struct strm_caps *c = s ? s->caps : NULL;
	long long idx = args[0].data.sint;

	if (!c || idx < 0)
		return 0;
	if (kw->private) {
		if (idx >= c->nb_res || !c->res[idx].ptr)
			return 0;
		return smp_set_view(smp, c->res[idx]);
	}
	if (idx >= c->nb_req || !c->req[idx].ptr)
		return 0;
	return smp_set_view(smp, c->req[idx]);
}

/* capture.req.method (private 0) and capture.req.uri (1): words of the kept request line;
 * the URI without "scheme://authority" */
static int smp_fetch_cap_reqline(const struct arg *args, struct sample *smp,
				 const struct sample_fetch *kw)
{
	const struct stream *s = smp->ctx->strm;
	const struct strm_caps *c = s ? s->caps : NULL;
	const char *p, *e, *sp;

	if (!c || !c->reqline.len)
		return 0;
	p = c->reqline.ptr;
	e = p + c->reqline.len;
	sp = memchr(p, ' ', (size_t)(e - p));
	if (!sp)
		return 0;
	if (!kw->private)
		return smp_set_view(smp, ist2(p, (size_t)(sp - p)));
	p = sp + 1;
	sp = memchr(p, ' ', (size_t)(e - p));
	if (sp)
		e = sp;
	if (p < e && *p != '/' && *p != '*') { /* absolute form: from the path on */
		const char *a = memchr(p, '/', (size_t)(e - p));

		if (a && a + 1 < e && a[1] == '/')
			a = memchr(a + 2, '/', (size_t)(e - a - 2));
		if (!a)
			return 0;
		p = a;
	}
	return smp_set_view(smp, ist2(p, (size_t)(e - p)));
}

/* capture.req.ver (private 0), capture.res.ver (1): "HTTP/1.0" or "HTTP/1.1" */
static int smp_fetch_cap_ver(const struct arg *args, struct sample *smp,
			     const struct sample_fetch *kw)
{
	const struct stream *s = smp->ctx->strm;
	bool v11;

	if (!s)
		return 0;
	if (kw->private) {
		if (!s->rsp_ver)
			return 0;
		v11 = s->rsp_ver == 11;
	} else {
		if (!s->req.hdr_len)
			return 0;
		v11 = s->req.flags & H1_MF_VER_11;
	}
	return smp_set_view(smp, v11 ? IST("HTTP/1.1") : IST("HTTP/1.0"));
}

/* capture.req.method/uri need the request line: keep it once one of them is used. */
static int smp_val_reqline(struct arg *args, void *private, char *err, size_t errsz)
{
	cap_reqline_used = true;
	return 0;
}

/* What they read is kept in the stream: valid in any rule set, logs included. */
#define HRQ SMP_USE_INTRN
#define HRS SMP_USE_INTRN
static const struct sample_fetch cap_fetches[] = {
	{ "capture.req.hdr", smp_fetch_cap_hdr, 1, { ARGT_SINT }, NULL, SMP_T_STR, HRQ, 0 },
	{ "capture.res.hdr", smp_fetch_cap_hdr, 1, { ARGT_SINT }, NULL, SMP_T_STR, HRS, 1 },
	{ "capture.req.method",
	  smp_fetch_cap_reqline,
	  0,
	  { 0 },
	  smp_val_reqline,
	  SMP_T_STR,
	  HRQ,
	  0 },
	{ "capture.req.uri", smp_fetch_cap_reqline, 0, { 0 }, smp_val_reqline, SMP_T_STR, HRQ, 1 },
	{ "capture.req.ver", smp_fetch_cap_ver, 0, { 0 }, NULL, SMP_T_STR, HRQ, 0 },
	{ "capture.res.ver", smp_fetch_cap_ver, 0, { 0 }, NULL, SMP_T_STR, HRS, 1 },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, 0 },
};

SMP_REGISTER_FETCHES(cap_fetches)

static const struct action_kw cap_act_kws[] = {
	{ "capture", ACT_F_HTTP_ANY, 0, parse_capture },
	{ NULL, 0, 0, NULL },
};

ACT_REGISTER_KEYWORDS(cap_act_kws);

static const struct cfg_kw cap_kws[] = {
	{ "capture", CFG_SEC_PROXIES, kw_capture },
	{ "declare", CFG_SEC_PROXIES, kw_declare },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(cap_kws);
