/* Cookie-based persistence, as HAProxy 2.6 does it: "cookie NAME [insert|rewrite|prefix]
 * [indirect] [nocache] [postonly] [preserve] [httponly] [secure] [domain D]* [attr A]*" in
 * backends (and defaults), "cookie VALUE" on servers. The request's cookie names the
 * server (before stick rules and load balancing, after use-server); the response gets the
 * cookie inserted (insert), the server's own one rewritten (rewrite) or prefixed with
 * "VALUE~" (prefix), or removed when the client already had a valid one (indirect);
 * "dynamic" computes the value of servers without one from "dynamic-cookie-key";
 * "maxidle"/"maxlife" add dates to the inserted cookie (stream/cookie_date.c).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <backend/backend.h>
#include <backend/server.h>
#include <cfg/cfg.h>
#include <dns/dns_addr.h>
#include <http/meth.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>
#include <sample/hash.h>
#include <sample/smp_http.h>
#include <stream/cookie.h>
#include <stream/cookie_date.h>
#include <stream/http_rw.h>
#include <stream/stream.h>

#define CK_M_PASSIVE 0 /* no mode: the cookie only names the server */
#define CK_M_INSERT 1
#define CK_M_REWRITE 2
#define CK_M_PREFIX 3

#define CK_O_INDIRECT 0x01
#define CK_O_NOCACHE 0x02
#define CK_O_POSTONLY 0x04
#define CK_O_PRESERVE 0x08
#define CK_O_HTTPONLY 0x10
#define CK_O_SECURE 0x20
#define CK_O_DYNAMIC 0x40 /* servers without "cookie" get one from dynamic-cookie-key */

struct px_cookie {
	struct ist name; /* owned */
	int mode;	 /* CK_M_* */
	int opts;	 /* CK_O_* */
	char *attrs;	 /* "; path=/; domain=D; HttpOnly; Secure; A" of insert */
	const struct proxy *owner;
	uint32_t maxidle; /* seconds, 0: none ("maxidle") */
	uint32_t maxlife; /* seconds, 0: none ("maxlife") */
};

/* A cookie date more than this far in the future is refused, as in HAProxy. */
#define CK_DATE_FUTURE 86400

/* ---- configuration ---- */

static int ck_append(char **s, const char *a, const char *b)
{
	size_t l = *s ? strlen(*s) : 0, n = strlen(a) + strlen(b);
	char *ns = realloc(*s, l + n + 1);

	if (!ns)
		return -1;
	snprintf(ns + l, n + 1, "%s%s", a, b);
	*s = ns;
	return 0;
}

static void ck_free(struct px_cookie *ck)
{
	if (!ck)
		return;
	free((char *)ck->name.ptr);
	free(ck->attrs);
	free(ck);
}

/* "maxidle T" / "maxlife T": a time, default unit the second, rounded up to the second,
 * into *out. Returns 0, or -1 after HAProxy's alert. */
static int ck_parse_secs(struct cfg_ctx *ctx, const char *kw, const char *arg, uint32_t *out)
{
	static const struct {
		const char *u;
		uint64_t us;
	} units[] = {
		{ "us", 1 },
		{ "ms", 1000 },
		{ "s", 1000000 },
		{ "", 1000000 },
		{ "m", 60000000ULL },
		{ "h", 3600000000ULL },
		{ "d", 86400000000ULL },
	};
	const char *p = arg;
	uint64_t n = 0, secs;
	size_t k;

	if (!arg || !*arg) {
		cfg_alert(ctx, "'%s' expects <%s> in seconds as argument.", kw,
			  kw[3] == 'i' ? "idletime" : "lifetime");
		return -1;
	}
	for (; *p >= '0' && *p <= '9'; p++)
		if ((n = n * 10 + (uint64_t)(*p - '0')) > 1000000000000ULL)
			goto overflow;
	for (k = 0; k < sizeof(units) / sizeof(units[0]); k++)
		if (!strcmp(p, units[k].u))
			break;
	if (p == arg || k == sizeof(units) / sizeof(units[0])) {
		cfg_alert(ctx, "unexpected character '%c' in argument to <%s>.", *p ? *p : *arg,
			  kw);
		return -1;
	}
	if (n > UINT64_MAX / units[k].us)
		goto overflow;
	secs = (n * units[k].us + 999999) / 1000000;
	if (secs > 2147483647)
		goto overflow;
	*out = (uint32_t)secs;
	return 0;
overflow:
	cfg_alert(ctx,
		  "timer overflow in argument <%s> to <%s>, maximum value is 2147483647 s "
		  "(~68 years).",
		  arg, kw);
	return -1;
}

/* cookie NAME [options] */
static int kw_cookie(struct cfg_ctx *ctx)
{
	static const struct {
		const char *kw;
		int opt;
	} flags[] = {
		{ "indirect", CK_O_INDIRECT }, { "nocache", CK_O_NOCACHE },
		{ "postonly", CK_O_POSTONLY }, { "preserve", CK_O_PRESERVE },
		{ "httponly", CK_O_HTTPONLY }, { "secure", CK_O_SECURE },
		{ "dynamic", CK_O_DYNAMIC },
	};
	struct proxy *px = ctx->px;
	struct px_cookie *ck;
	char *domains = NULL, *attrs = NULL;
	int i, modes = 0;

	if (!px || !proxy_cfg_has_cap(ctx, PR_CAP_BE, "cookie"))
		return px ? 0 : -1;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'cookie' expects <cookie_name> as argument.");
		return -1;
	}
	ck = calloc(1, sizeof(*ck));
	if (!ck || !(ck->name.ptr = strdup(ctx->args[1])))
		goto oom;
	ck->name.len = strlen(ck->name.ptr);
	ck->owner = px;
	for (i = 2; i < ctx->nargs; i++) {
		const char *a = ctx->args[i];
		size_t k;

		if (!strcmp(a, "insert") || !strcmp(a, "rewrite") || !strcmp(a, "prefix")) {
			ck->mode = a[0] == 'i'	 ? CK_M_INSERT
				   : a[0] == 'r' ? CK_M_REWRITE
						 : CK_M_PREFIX;
			modes++;
			continue;
		}
		for (k = 0; k < sizeof(flags) / sizeof(flags[0]); k++)
			if (!strcmp(a, flags[k].kw))
				break;
		if (k < sizeof(flags) / sizeof(flags[0])) {
			ck->opts |= flags[k].opt;
			continue;
		}
		if ((!strcmp(a, "domain") || !strcmp(a, "attr")) && i + 1 < ctx->nargs) {
			if (ck_append(a[0] == 'd' ? &domains : &attrs,
				      a[0] == 'd' ? "; domain=" : "; ", ctx->args[++i]) < 0)
				goto oom;
			continue;
		}
		if (!strcmp(a, "domain") || !strcmp(a, "attr")) {
			cfg_alert(ctx, "'cookie' '%s' option requires an argument.", a);
			goto fail;
		}
		if (!strcmp(a, "maxidle") || !strcmp(a, "maxlife")) {
			if (ck_parse_secs(ctx, a, i + 1 < ctx->nargs ? ctx->args[++i] : NULL,
					  a[3] == 'i' ? &ck->maxidle : &ck->maxlife) < 0)
				goto fail;
			continue;
		}
		cfg_alert(ctx,
			  "'cookie' supports 'rewrite', 'insert', 'prefix', 'indirect', "
			  "'nocache', 'postonly', 'domain', 'maxidle', 'dynamic', 'maxlife' and "
			  "'attr' options.");
		goto fail;
	}
	if (modes > 1) {
		cfg_alert(ctx, "cookie 'rewrite', 'insert' and 'prefix' modes are incompatible.");
		goto fail;
	}
	if (ck_append(&ck->attrs, "; path=/", domains ? domains : "") < 0 ||
	    ((ck->opts & CK_O_HTTPONLY) && ck_append(&ck->attrs, "; HttpOnly", "") < 0) ||
	    ((ck->opts & CK_O_SECURE) && ck_append(&ck->attrs, "; Secure", "") < 0) ||
	    (attrs && ck_append(&ck->attrs, attrs, "") < 0))
		goto oom;
	free(domains);
	free(attrs);
	cookie_free_proxy(px);
	px->ck = ck;
	return 0;
oom:
	cfg_alert(ctx, "out of memory.");
fail:
	free(domains);
	free(attrs);
	ck_free(ck);
	return -1;
}

/* "dynamic": the cookie of <srv> is XXH64 (seed 0) of the key, the server's address (4 or
 * 16 bytes) and its port as 4 bytes in network order, in 16 hex digits, as HAProxy 2.6
 * computes it (so that both give a client the same cookie). cookie_dyn_value writes it
 * into <hex> and returns 1, or 0 without a key or an IP address; ck_dynamic sets it as the
 * server's cookie and returns 0 or -1 (memory). */
int cookie_dyn_value(const struct proxy *px, const struct server *srv, char hex[17])
{
	struct sockaddr_storage tmp;
	const struct sockaddr_storage *ss = dns_srv_shown_addr(srv, &tmp); /* set server addr */
	size_t klen = strlen(px->dyncookie_key), alen;
	unsigned char buf[1024 + 20];
	uint32_t port;

	if (!px->dyncookie_key || (ss->ss_family != AF_INET && ss->ss_family != AF_INET6))
		return 0;
	if (klen > 1024)
		klen = 1024;
	memcpy(buf, px->dyncookie_key, klen);
	if (ss->ss_family == AF_INET) {
		alen = 4;
		memcpy(buf + klen, &((const struct sockaddr_in *)ss)->sin_addr, 4);
		port = htonl(ntohs(((const struct sockaddr_in *)ss)->sin_port));
	} else {
		alen = 16;
		memcpy(buf + klen, &((const struct sockaddr_in6 *)ss)->sin6_addr, 16);
		port = htonl(ntohs(((const struct sockaddr_in6 *)ss)->sin6_port));
	}
	memcpy(buf + klen + alen, &port, 4);
	snprintf(hex, 17, "%016llx", (unsigned long long)hash_xxh64(buf, klen + alen + 4, 0));
	return 1;
}

static int ck_dynamic(const struct proxy *px, struct server *srv)
{
	char hex[17];

	if (!cookie_dyn_value(px, srv, hex))
		return 0;
	srv->cookie = strdup(hex);
	srv->ck_dyn = true;
	return srv->cookie ? 0 : -1;
}

bool cookie_dyn_configured(const struct proxy *px)
{
	return px->ck && (px->ck->opts & CK_O_DYNAMIC);
}

int cookie_check_proxy(struct proxy *px)
{
	if (!px->ck && px->defpx && px->defpx->ck)
		px->ck = px->defpx->ck; /* shared, owned by the defaults section */
	if (px->ck && (px->ck->opts & CK_O_DYNAMIC) && px->dyncookie_key && (px->cap & PR_CAP_BE)) {
		for (struct server *srv = px->srv; srv; srv = srv->next) {
			if (!srv->cookie && ck_dynamic(px, srv) < 0) {
				ha_alert("config : out of memory.\n");
				return 1;
			}
		}
	}
	if (px->ck || !(px->cap & PR_CAP_BE))
		return 0;
	for (const struct server *srv = px->srv; srv; srv = srv->next) {
		if (srv->cookie) {
			ha_warning(
				"config : %s '%s' : server '%s' has a cookie but the backend has "
				"no 'cookie' line: it is ignored.\n",
				proxy_type_str(px), px->id, srv->id);
			break;
		}
	}
	return 0;
}

void cookie_free_proxy(struct proxy *px)
{
	if (px->ck && px->ck->owner == px)
		ck_free(px->ck);
	px->ck = NULL;
}

/* ---- request ---- */

static bool ck_sep(char c)
{
	return c == ';' || c == ',';
}

static bool ck_sp(char c)
{
	return c == ' ' || c == '\t';
}

/* Writes header value <v> without pair <pair> (and its separator), or with <pair>
 * replaced by NAME=<repl> when <repl> is not NULL, into the rewrite buffer. */
static bool ck_edit(struct stream *s, struct ist v, struct ist pair, struct ist name,
		    const struct ist *repl, struct ist *out)
{
	const char *ps = pair.ptr, *pe = pair.ptr + pair.len, *e = v.ptr + v.len;
	struct rw_build b;

	if (!repl) { /* drop the pair, its separator and the spaces after it */
		while (pe < e && (ck_sp(*pe) || ck_sep(*pe)))
			pe++;
		if (pe == e) /* the last pair: drop the separator before it instead */
			while (ps > v.ptr && (ck_sp(ps[-1]) || ck_sep(ps[-1])))
				ps--;
	}
	rwb_begin(&b, s);
	rwb_put(&b, ist2(v.ptr, (size_t)(ps - v.ptr)));
	if (repl) {
		rwb_put(&b, name);
		rwb_put(&b, IST("="));
		rwb_put(&b, *repl);
	}
	rwb_put(&b, ist2(pe, (size_t)(e - pe)));
	return rwb_end(&b, s, out);
}

/* A server the cookie may send traffic to: not in maintenance and not DOWN (a weight of
 * 0 still takes persistent traffic, as in HAProxy). */
static bool ck_srv_up(const struct server *srv)
{
	return !(srv->flags & SRV_F_DISABLED) && srv_is_up(srv);
}

static struct server *ck_server(struct proxy *be, struct ist v)
{
	for (struct server *srv = be->srv; srv; srv = srv->next) {
		const char *c = HA_ATOMIC_LOAD(&srv->cookie); /* stream/cookie_cli.c swaps it */

		if (c && strlen(c) == v.len && !memcmp(c, v.ptr, v.len))
			return srv;
	}
	return NULL;
}

/* Wall-clock seconds (vDSO, only read with maxidle/maxlife). */
static uint32_t ck_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint32_t)ts.tv_sec;
}

/* True when date <d> (seconds, non-zero) is more than <max> seconds old or more than a
 * day ahead of <now>. */
static bool ck_date_out(uint32_t d, uint32_t max, uint32_t now)
{
	int64_t age = (int64_t)now - (int64_t)d;

	return age > (int64_t)max || -age > CK_DATE_FUTURE;
}

/* Splits the dates off the cookie value <val> (all modes but prefix) into the stream and
 * returns the server part; the state becomes CK_EXPIRED or CK_OLD when a date is too old
 * or in the future (the caller then does not persist). */
static struct ist ck_dates(struct stream *s, const struct px_cookie *ck, struct ist val)
{
	struct ist id;
	uint32_t now;

	ck_date_split(val, &id, &s->ck_last, &s->ck_first);
	if (!(ck->maxidle | ck->maxlife) || !(s->ck_last | s->ck_first))
		return id;
	now = ck_now();
	if (ck->maxidle && s->ck_last && ck_date_out(s->ck_last, ck->maxidle, now))
		s->ck_state = CK_EXPIRED;
	else if (ck->maxlife && s->ck_first && ck_date_out(s->ck_first, ck->maxlife, now))
		s->ck_state = CK_OLD;
	return id;
}

void cookie_process_request(struct stream *s)
{
	const struct px_cookie *ck = s->be->ck;
	struct h1_msg *m = &s->req;
	struct server *srv = NULL;
	struct ist pair, val, id;

	s->ck_state = CK_NONE;
	s->ck_last = s->ck_first = 0;
	if (s->flags & SF_IGNORE_PRST)
		return;
	for (uint16_t i = 0; i < m->nhdr; i++) {
		struct h1_hdr *h = &m->hdr[i];
		const char *tilde;
		struct ist out, rest;

		if (h->skip || !ist_ieq(h->n, IST("cookie")) ||
		    !smp_cookie_pair(h->v, ck->name, &pair, &val))
			continue;
		tilde = ck->mode == CK_M_PREFIX ? memchr(val.ptr, '~', val.len) : NULL;
		if (ck->mode == CK_M_PREFIX)
			/* without '~' the whole value names the server (2.6) */
			id = tilde ? ist2(val.ptr, (size_t)(tilde - val.ptr)) : val;
		else
			id = ck_dates(s, ck, val);
		srv = id.len ? ck_server(s->be, id) : NULL;
		if (s->ck_state == CK_NONE)
			s->ck_state = !srv ? CK_INVALID : ck_srv_up(srv) ? CK_VALID : CK_DOWN;
		else
			srv = NULL; /* a date too old or ahead: the load balancer chooses */
		if (ck->mode == CK_M_INSERT && (ck->opts & CK_O_INDIRECT)) {
			if (ck_edit(s, h->v, pair, ck->name, NULL, &out)) {
				h->v = out;
				h->folded = 0;
				h->skip = !out.len;
			}
		} else if (ck->mode == CK_M_PREFIX && tilde) {
			rest = ist2(tilde + 1, (size_t)(val.ptr + val.len - tilde - 1));
			if (ck_edit(s, h->v, pair, ck->name, &rest, &out)) {
				h->v = out;
				h->folded = 0;
			}
		}
		break;
	}
	s->ck_srv = srv;
	if (!srv || (s->flags & SF_HAS_SLOT))
		return; /* use-server chose already: it comes first, as in HAProxy */
	if (s->ck_state == CK_VALID || (s->be->options & PR_O_PERSIST) ||
	    (s->flags & SF_FORCE_PRST))
		backend_take_server(s, srv); /* a full server is left to the load balancer */
}

/* ---- response ---- */

/* A response that caches may keep: an explicit lifetime and no private/no-store. */
static bool ck_rsp_cacheable(const struct h1_msg *m)
{
	bool life = false;

	for (uint16_t i = 0; i < m->nhdr; i++) {
		const struct h1_hdr *h = &m->hdr[i];

		if (h->skip)
			continue;
		if (ist_ieq(h->n, IST("expires")))
			life = true;
		if (!ist_ieq(h->n, IST("cache-control")))
			continue;
		if (memmem(h->v.ptr, h->v.len, "private", 7) ||
		    memmem(h->v.ptr, h->v.len, "no-cache", 8) ||
		    memmem(h->v.ptr, h->v.len, "no-store", 8))
			return false;
		if (memmem(h->v.ptr, h->v.len, "max-age", 7))
			life = true;
	}
	return life;
}

/* A valid cookie is sent again when its dates must change, as HAProxy 2.6 decides: the
 * last date is older than now (resolution 4 s) or missing while "maxidle" asks for it, the
 * first date is missing while "maxlife" asks for it, or present while it does not. */
static bool ck_refresh(const struct stream *s, const struct px_cookie *ck)
{
	if (!(ck->maxidle | ck->maxlife | s->ck_last | s->ck_first))
		return false;
	if ((ck->maxidle || s->ck_last) && (!s->ck_last || s->ck_last < ck_now()))
		return true;
	return ck->maxlife ? !s->ck_first : s->ck_first != 0;
}

/* "|LAST" and, with "maxlife", "|FIRST" (kept from a cookie still in its life) into <buf>. */
static struct ist ck_dates_str(const struct stream *s, const struct px_cookie *ck, char *buf)
{
	uint32_t now = ck_now(), first = s->ck_first;

	if (!first || s->ck_state == CK_EXPIRED || s->ck_state == CK_OLD)
		first = now;
	buf[0] = '|';
	ck_date_enc(now, buf + 1);
	if (!ck->maxlife)
		return ist2(buf, CK_DATE_LEN + 1);
	buf[CK_DATE_LEN + 1] = '|';
	ck_date_enc(first, buf + CK_DATE_LEN + 2);
	return ist2(buf, 2 * (CK_DATE_LEN + 1));
}

int cookie_process_response(struct stream *s)
{
	const struct px_cookie *ck = s->be->ck;
	struct h1_msg *m = &s->rsp;
	const struct server *srv = s->srv;
	/* as in HAProxy, a valid cookie is kept even when another server took the request
	 * (use-server, a full server left to the load balancer) */
	bool valid = s->ck_state == CK_VALID;
	bool own = false, drop;
	char dates[2 * (CK_DATE_LEN + 1)];
	const char *cookie;
	struct ist out, v;
	struct rw_build b;

	if (!srv)
		return 0;
	cookie = HA_ATOMIC_LOAD(&srv->cookie); /* the runtime API swaps it (cookie_cli.c) */
	drop = (ck->opts & CK_O_INDIRECT) && valid && !(ck->opts & CK_O_PRESERVE);
	for (uint16_t i = 0; i < m->nhdr; i++) {
		struct h1_hdr *h = &m->hdr[i];
		struct ist pair, val;

		if (h->skip || !ist_ieq(h->n, IST("set-cookie")) ||
		    !smp_cookie_pair(h->v, ck->name, &pair, &val) || pair.ptr != h->v.ptr)
			continue; /* Set-Cookie holds one cookie, first */
		own = true;
		if (ck->mode == CK_M_INSERT) {
			s->ck_rsp = (ck->opts & CK_O_PRESERVE) ? 'P' : 'D';
			if (!(ck->opts & CK_O_PRESERVE))
				h->skip = 1;
			continue;
		}
		if (drop) {
			s->ck_rsp = 'D';
			h->skip = 1;
			continue;
		}
		s->ck_rsp = 'P';
		if (!cookie || ck->mode == CK_M_PASSIVE)
			continue;
		s->ck_rsp = 'R';
		rwb_begin(&b, s);
		rwb_put(&b, ist2(h->v.ptr, (size_t)(val.ptr - h->v.ptr)));
		rwb_put(&b, ist_str(cookie));
		if (ck->mode == CK_M_PREFIX) {
			rwb_put(&b, IST("~"));
			rwb_put(&b, val);
		}
		rwb_put(&b,
			ist2(val.ptr + val.len, (size_t)(h->v.ptr + h->v.len - val.ptr - val.len)));
		if (!rwb_end(&b, s, &out))
			return -1;
		h->v = out;
		h->folded = 0;
	}
	if (ck->mode != CK_M_INSERT || (valid && !ck_refresh(s, ck)) || !cookie ||
	    ((ck->opts & CK_O_PRESERVE) && own) ||
	    ((ck->opts & CK_O_POSTONLY) && s->meth != HTTP_METH_POST))
		return 0;
	rwb_begin(&b, s);
	rwb_put(&b, ck->name);
	rwb_put(&b, IST("="));
	rwb_put(&b, ist_str(cookie));
	if (ck->maxidle | ck->maxlife)
		rwb_put(&b, ck_dates_str(s, ck, dates));
	rwb_put(&b, ist_str(ck->attrs));
	if (!rwb_end(&b, s, &v) || http_hdr_add(s, m, IST("set-cookie"), v) < 0)
		return -1;
	s->ck_rsp = valid ? 'U' : 'I'; /* a valid one is only sent again to update its dates */
	if ((ck->opts & CK_O_NOCACHE) && ck_rsp_cacheable(m) &&
	    http_hdr_add(s, m, IST("cache-control"), IST("private")) < 0)
		return -1;
	return 0;
}

void cookie_log_chars(const struct stream *s, char *out)
{
	static const char req_chars[] = "NIDVEO"; /* CK_NONE..CK_OLD */
	const struct px_cookie *ck = s->be ? s->be->ck : NULL;

	if (!ck || ck->mode == CK_M_PASSIVE) {
		out[0] = out[1] = '-';
		return;
	}
	out[0] = s->ck_state < sizeof(req_chars) - 1 ? req_chars[s->ck_state] : '-';
	out[1] = s->ck_rsp ? (char)s->ck_rsp : 'N';
}

/* dynamic-cookie-key KEY (defaults, backend, listen) */
static int kw_dyncookie_key(struct cfg_ctx *ctx)
{
	char *k;

	if (!ctx->px)
		return -1;
	if (!proxy_cfg_has_cap(ctx, PR_CAP_BE, ctx->args[0]))
		return 0;
	if (ctx->nargs < 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'%s' expects <secret_key> as argument.", ctx->args[0]);
		return -1;
	}
	k = strdup(ctx->args[1]);
	if (!k) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	free(ctx->px->dyncookie_key);
	ctx->px->dyncookie_key = k;
	return 0;
}

static const struct cfg_kw cookie_kws[] = {
	{ "cookie", CFG_SEC_PROXIES, kw_cookie },
	{ "dynamic-cookie-key", CFG_SEC_PROXIES, kw_dyncookie_key },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(cookie_kws);

const char *cookie_name(const struct proxy *px)
{
	return px->ck ? px->ck->name.ptr : NULL;
}
