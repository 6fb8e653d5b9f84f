/* The HTTP client: core.httpclient() and its get/post/put/head/delete methods, HAProxy's
 * API. A call builds one HTTP/1.1 request, resolves the URL's host when it is a name (the
 * resolvers section of hlua_hc_cfg.c), connects (TLS for https URLs), sends the request
 * and reads the whole response (content-length, chunked or up to the close; at most
 * HC_MAX_RESP bytes), yielding while it waits; it returns {status=, reason=, headers=,
 * body=}. As HAProxy's client, a failure to reach the server is answered by the response
 * a proxy gives: 503 (no connection), 502 (invalid response), 504 (timeout).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include <base/addr.h>
#include <base/atomic.h>
#include <dns/dns_req.h>
#include <event/loop.h>
#include <http/h1.h>
#include <http/status.h>
#include <proc/global-t.h>
#include <sample/smp_http.h>

#include "hlua_int.h"

#define CLASS_HC "HTTPClient"
#define HC_MAX_RESP (16u << 20) /* response bytes (head and body as sent) a call takes */
#define HC_MAX_HDR 256		/* response header lines */
#define HC_DNS_POLL_MS 2	/* how often a waiting call looks for its DNS answer */
#define HC_DNS_MAX_MS 30000	/* bound of a resolution (the section's retries end it first) */

enum { HC_RESOLVE = 0, HC_CONNECT, HC_SEND, HC_RECV, HC_DONE };
enum { BM_NONE = 0, BM_LEN, BM_CHUNK, BM_CLOSE };

/* One request in flight. Its bytes are the string at index 3 of the calling coroutine. */
struct hc_req {
	struct hsock *s;
	struct dns_req *dreq;
	size_t out_off;	       /* request bytes sent */
	char *in;	       /* response bytes received */
	size_t in_len, in_cap; /* at most HC_MAX_RESP */
	uint8_t phase;	       /* HC_* */
	uint8_t https, head;
	uint8_t hdr_done, body_mode; /* head parsed: BM_* */
	int status;		     /* the proxy's own answer (503, 502, 504), 0: the server's */
	size_t hdr_len;		     /* of the final response head */
	uint64_t body_len;	     /* BM_LEN */
	size_t scanned;		     /* BM_CHUNK: body bytes checked */
	struct h1_chunk ck;
	uint64_t deadline;
	uint32_t timeout_ms; /* request.timeout: inactivity once connected, 0: none */
	struct sockaddr_storage ss;
	socklen_t ss_len;
	uint16_t port;
	char host[ADDR_HOST_MAX]; /* the URL's host: SNI and name to resolve */
};

struct lhc {
	struct hc_req *req; /* the call in progress, or left by one that was abandoned */
};

static void hc_req_free(struct hc_req *r)
{
	if (!r)
		return;
	hsock_release(r->s);
	if (r->dreq)
		dns_req_release(r->dreq);
	free(r->in);
	free(r);
}

/* ---- the request ---- */

struct hc_url {
	bool https;
	const char *auth; /* authority as written (the Host header) */
	size_t auth_len;
	const char *path; /* request target, "" for "/" */
	size_t path_len;
	char host[ADDR_HOST_MAX];
	uint16_t port;
};

/* Splits "http[s]://host[:port][/path...]". Returns 0 or -1. */
static int hc_url_parse(const char *url, struct hc_url *u)
{
	const char *p, *end, *h, *he, *colon;
	size_t hl;

	memset(u, 0, sizeof(*u));
	if (!strncasecmp(url, "http://", 7))
		p = url + 7;
	else if (!strncasecmp(url, "https://", 8)) {
		p = url + 8;
		u->https = true;
	} else
		return -1;
	end = p + strcspn(p, "/?#");
	if (end == p || memchr(p, '@', (size_t)(end - p)))
		return -1;
	u->auth = p;
	u->auth_len = (size_t)(end - p);
	h = p;
	if (*h == '[') {
		he = memchr(h, ']', (size_t)(end - h));
		if (!he)
			return -1;
		h++;
		colon = he + 1 < end && he[1] == ':' ? he + 1 : NULL;
		if (he + 1 < end && !colon)
			return -1;
	} else {
		colon = memchr(h, ':', (size_t)(end - h));
		he = colon ? colon : end;
	}
	hl = (size_t)(he - h);
	if (!hl || hl >= sizeof(u->host))
		return -1;
	memcpy(u->host, h, hl);
	u->port = u->https ? 443 : 80;
	if (colon) {
		long v = 0;

		if (colon + 1 == end || end - colon > 6)
			return -1;
		for (const char *d = colon + 1; d < end; d++) {
			if (*d < '0' || *d > '9')
				return -1;
			v = v * 10 + (*d - '0');
		}
		if (v < 1 || v > 65535)
			return -1;
		u->port = (uint16_t)v;
	}
	u->path = end;
	u->path_len = strcspn(end, "#");
	for (const char *c = u->auth; c < u->path + u->path_len; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			return -1; /* would break the request line or the host header */
	return 0;
}

/* A header name must be a token; values may not break the header block. */
static bool hc_hdr_ok(const char *n, size_t nl, const char *v, size_t vl)
{
	if (!nl)
		return false;
	for (size_t i = 0; i < nl; i++)
		if (n[i] <= ' ' || n[i] >= 127 || strchr("()<>@,;:\\\"/[]?={}", n[i]))
			return false;
	for (size_t i = 0; i < vl; i++)
		if (v[i] == '\r' || v[i] == '\n' || !v[i])
			return false;
	return true;
}

#define HC_H_HOST 0x1
#define HC_H_ACCEPT 0x2
#define HC_H_UA 0x4

/* Pass 1 over request.headers ({name = {v1, v2...}}): one "name: value\r\n" string per
 * value, lowercase name, in the table at index 4 (content-length and transfer-encoding are
 * left out when a body is sent: the client frames it). Returns HC_H_* of what was given. */
static int hc_hdr_lines(lua_State *L, bool body)
{
	int seen = 0;

	lua_getfield(L, 2, "headers");
	if (!lua_istable(L, -1)) {
		lua_pop(L, 1);
		return 0;
	}
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		char name[256];
		size_t nl;
		const char *n;

		if (lua_type(L, -2) != LUA_TSTRING || !lua_istable(L, -1)) {
			lua_pop(L, 1);
			continue; /* ignored, as HAProxy */
		}
		n = lua_tolstring(L, -2, &nl);
		if (nl >= sizeof(name))
			luaL_error(L, "httpclient: header name too long");
		for (size_t i = 0; i < nl; i++)
			name[i] = (char)tolower((unsigned char)n[i]);
		name[nl] = 0;
		if (body &&
		    (!strcmp(name, "content-length") || !strcmp(name, "transfer-encoding"))) {
			lua_pop(L, 1);
			continue;
		}
		seen |= !strcmp(name, "host")	      ? HC_H_HOST
			: !strcmp(name, "accept")     ? HC_H_ACCEPT
			: !strcmp(name, "user-agent") ? HC_H_UA
						      : 0;
		lua_pushnil(L);
		while (lua_next(L, -2)) {
			size_t vl;
			const char *v =
				lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER
					? lua_tolstring(L, -1, &vl)
					: NULL;

			if (v) {
				if (!hc_hdr_ok(name, nl, v, vl))
					luaL_error(L, "httpclient: invalid header '%s'", name);
				lua_pushfstring(L, "%s: %s\r\n", name, v);
				lua_rawseti(L, 4, (lua_Integer)lua_rawlen(L, 4) + 1);
			}
			lua_pop(L, 1);
		}
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return seen;
}

/* Serializes the request into the string left at index 3 (the stack is cut to 2 first). */
static void hc_build(lua_State *L, const char *meth, const struct hc_url *u)
{
	size_t blen = 0;
	const char *body;
	luaL_Buffer b;
	int seen;

	lua_settop(L, 2);
	lua_getfield(L, 2, "body"); /* index 3, kept while its bytes are read */
	body = lua_type(L, 3) == LUA_TSTRING || lua_type(L, 3) == LUA_TNUMBER
		       ? lua_tolstring(L, 3, &blen)
		       : NULL;
	lua_newtable(L); /* index 4: the header lines */
	seen = hc_hdr_lines(L, blen > 0);
	luaL_buffinit(L, &b);
	luaL_addstring(&b, meth);
	luaL_addchar(&b, ' ');
	if (!u->path_len || *u->path != '/')
		luaL_addchar(&b, '/');
	luaL_addlstring(&b, u->path, u->path_len);
	luaL_addstring(&b, " HTTP/1.1\r\n");
	for (lua_Integer i = 1; i <= (lua_Integer)lua_rawlen(L, 4); i++) {
		lua_rawgeti(L, 4, i);
		luaL_addvalue(&b);
	}
	if (!(seen & HC_H_HOST)) {
		luaL_addstring(&b, "host: ");
		luaL_addlstring(&b, u->auth, u->auth_len);
		luaL_addstring(&b, "\r\n");
	}
	if (!(seen & HC_H_ACCEPT))
		luaL_addstring(&b, "accept: */*\r\n");
	if (!(seen & HC_H_UA))
		luaL_addstring(&b, "user-agent: HAProxy\r\n");
	if (blen) {
		char cl[48];

		snprintf(cl, sizeof(cl), "content-length: %zu\r\n", blen);
		luaL_addstring(&b, cl);
	}
	luaL_addstring(&b, "\r\n");
	if (blen)
		luaL_addlstring(&b, body, blen);
	luaL_pushresult(&b);
	lua_replace(L, 3);
	lua_settop(L, 3);
}

/* ---- the exchange ---- */

/* Ends the exchange with the proxy's own answer <status>. */
static void hc_fail(struct hc_req *r, int status)
{
	hsock_close(r->s);
	if (r->dreq) {
		dns_req_release(r->dreq);
		r->dreq = NULL;
	}
	r->status = status;
	r->phase = HC_DONE;
}

static void hc_connect(struct hc_req *r)
{
	if (r->https && !hlua_hc_conf.ctx) {
		hc_fail(r, 503); /* the client has no TLS (no CA could be loaded) */
		return;
	}
	if (hsock_connect(r->s, &r->ss, r->ss_len) < 0) {
		hc_fail(r, 503);
		return;
	}
	r->phase = HC_CONNECT;
	r->deadline = now_ms() + (uint64_t)hlua_hc_conf.timeout_connect;
}

static void hc_limits(struct h1_limits *lim)
{
	lim->max_hdr_block = global.tune_bufsize - global.tune_maxrewrite;
	lim->max_hdr = global.tune_maxhdr < HC_MAX_HDR ? global.tune_maxhdr : HC_MAX_HDR;
	lim->accept_payload_any_method = true;
}

/* Looks at what the response has so far: 1 complete, 0 more to come, -1 invalid. */
static int hc_progress(struct hc_req *r)
{
	while (!r->hdr_done) {
		struct h1_hdr hdr[HC_MAX_HDR];
		struct h1_msg m = { 0 };
		struct h1_limits lim;
		int ret;

		hc_limits(&lim);
		m.hdr = hdr;
		m.max_hdr = lim.max_hdr;
		ret = h1_parse_headers(r->in, r->in_len, &m, true, &lim);
		if (ret == H1_INCOMPLETE)
			return 0;
		if (ret < 0)
			return -1;
		if (m.status < 200 && m.status != 101) { /* interim: the final one follows */
			memmove(r->in, r->in + ret, r->in_len - (size_t)ret);
			r->in_len -= (size_t)ret;
			continue;
		}
		r->hdr_done = 1;
		r->hdr_len = (size_t)ret;
		if (h1_resp_bodyless(m.status, r->head) || m.status == 101)
			r->body_mode = BM_NONE;
		else if (m.flags & H1_MF_CHNK)
			r->body_mode = BM_CHUNK;
		else if (m.flags & H1_MF_CLEN)
			r->body_mode = BM_LEN;
		else
			r->body_mode = BM_CLOSE;
		r->body_len = m.body_len;
	}
	if (r->body_mode == BM_NONE)
		return 1;
	if (r->body_mode == BM_LEN)
		return r->in_len - r->hdr_len >= r->body_len;
	if (r->body_mode == BM_CHUNK) {
		size_t at = r->hdr_len + r->scanned;
		int done = 0;
		ssize_t n = h1_chunk_scan(&r->ck, r->in + at, r->in_len - at, global.tune_bufsize,
					  &done);

		if (n < 0)
			return -1;
		r->scanned += (size_t)n;
		return done;
	}
	return 0; /* up to the close */
}

/* Moves what the socket buffered into the response. 0, or -1 when it would exceed
 * HC_MAX_RESP or memory is short. */
static int hc_take(struct hc_req *r)
{
	struct hsock *s = r->s;

	if (!s->ilen)
		return 0;
	if (r->in_len + s->ilen > HC_MAX_RESP)
		return -1;
	if (r->in_len + s->ilen > r->in_cap) {
		size_t cap = r->in_cap ? r->in_cap * 2 : HSOCK_BUFSZ;
		char *p;

		while (cap < r->in_len + s->ilen)
			cap *= 2;
		if (cap > HC_MAX_RESP)
			cap = HC_MAX_RESP;
		p = realloc(r->in, cap);
		if (!p)
			return -1;
		r->in = p;
		r->in_cap = cap;
	}
	memcpy(r->in + r->in_len, s->ibuf + s->ihead, s->ilen);
	r->in_len += s->ilen;
	hsock_consume(s, s->ilen);
	return 0;
}

/* Reads the response: 1 when the exchange is over (r->phase HC_DONE), 0 when it waits,
 * -1 when the response is too large. */
static int hc_recv(struct hc_req *r)
{
	for (;;) {
		ssize_t n;
		int p;

		if (hc_take(r) < 0)
			return -1;
		p = hc_progress(r);
		if (p) {
			if (p < 0)
				hc_fail(r, 502);
			else
				r->phase = HC_DONE;
			hsock_close(r->s);
			return 1;
		}
		if (r->s->eof) {
			/* the end: complete for a body up to the close, else what came */
			if (!r->hdr_done)
				hc_fail(r, 502);
			r->phase = HC_DONE;
			hsock_close(r->s);
			return 1;
		}
		n = hsock_recv(r->s);
		if (n > 0)
			r->deadline = r->timeout_ms ? now_ms() + r->timeout_ms : 0;
		else if (n == HSOCK_AGAIN)
			return 0;
	}
}

/* ---- the result ---- */

/* Adds header <h> to the headers table at the top: t[lowercase name] = {[0]=v, [1]=...} */
static void hc_push_hdr(lua_State *L, const struct h1_hdr *h)
{
	luaL_Buffer b;
	lua_Integer idx;

	luaL_buffinit(L, &b);
	for (size_t i = 0; i < h->n.len; i++)
		luaL_addchar(&b, (char)tolower((unsigned char)h->n.ptr[i]));
	luaL_pushresult(&b);
	lua_pushvalue(L, -1);
	if (lua_rawget(L, -3) != LUA_TTABLE) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_pushvalue(L, -2);
		lua_pushvalue(L, -2);
		lua_rawset(L, -5);
	}
	idx = lua_rawgeti(L, -1, 0) == LUA_TNIL ? 0 : (lua_Integer)lua_rawlen(L, -2) + 1;
	lua_pop(L, 1);
	if (h->folded) {
		luaL_buffinit(L, &b);
		for (size_t i = 0; i < h->v.len; i++) {
			char c = h->v.ptr[i];

			luaL_addchar(&b, c == '\r' || c == '\n' ? ' ' : c);
		}
		luaL_pushresult(&b);
	} else {
		lua_pushlstring(L, h->v.ptr, h->v.len);
	}
	lua_rawseti(L, -2, idx);
	lua_pop(L, 2); /* the values table and the name */
}

/* Pushes the body of the response in buf[0..len) (head of <hdr_len> bytes). */
static void hc_push_body(lua_State *L, const struct hc_req *r, const char *buf, size_t len,
			 size_t hdr_len, int mode, uint64_t blen)
{
	const char *p = buf + hdr_len;
	size_t have = len - hdr_len;
	luaL_Buffer b;
	bool end;

	if (mode == BM_NONE) {
		lua_pushliteral(L, "");
		return;
	}
	if (mode == BM_LEN && blen < have)
		have = (size_t)blen;
	if (mode != BM_CHUNK) {
		lua_pushlstring(L, p, have);
		return;
	}
	luaL_buffinitsize(L, &b, have);
	luaL_pushresultsize(&b, smp_dechunk(ist2(p, have), luaL_buffaddr(&b), have, &end));
}

static int hc_result(lua_State *L, struct hc_req *r)
{
	struct h1_hdr hdr[HC_MAX_HDR];
	struct h1_msg m = { 0 };
	struct h1_limits lim;
	const char *buf = r->in;
	size_t len = r->in_len;
	int ret, mode = r->body_mode;
	uint64_t blen = r->body_len;

	if (r->status) { /* HAProxy's page for it, through the same parser */
		struct ist page = http_error_message(r->status);

		buf = page.ptr;
		len = page.len;
	}
	hc_limits(&lim);
	m.hdr = hdr;
	m.max_hdr = lim.max_hdr;
	ret = h1_parse_headers(buf, len, &m, true, &lim);
	if (ret <= 0) /* cannot happen: parsed once already */
		return luaL_error(L, "httpclient: invalid response");
	if (r->status) {
		mode = BM_LEN;
		blen = m.body_len;
	}
	lua_createtable(L, 0, 4);
	lua_pushinteger(L, m.status);
	lua_setfield(L, -2, "status");
	lua_pushlstring(L, m.reason.ptr, m.reason.len);
	lua_setfield(L, -2, "reason");
	lua_newtable(L);
	for (int i = 0; i < m.nhdr; i++) {
		const struct h1_hdr *h = &hdr[i];

		if (h->skip || h->id == H1_HDR_CONNECTION || h->id == H1_HDR_KEEP_ALIVE ||
		    h->id == H1_HDR_PROXY_CONNECTION)
			continue; /* what a proxy removes */
		hc_push_hdr(L, h);
	}
	lua_setfield(L, -2, "headers");
	hc_push_body(L, r, buf, len, (size_t)ret, mode, blen);
	lua_setfield(L, -2, "body");
	return 1;
}

/* ---- the calls ---- */

static int k_hc(lua_State *L, int status, lua_KContext kc);

/* Waits for <r>'s socket or <deadline>, then continues in k_hc. */
static int hc_wait(lua_State *L, struct hc_req *r, uint64_t deadline)
{
	return hsock_wait(L, r->s, deadline, k_hc, 0);
}

static bool hc_expired(const struct hc_req *r)
{
	return r->deadline && now_ms() >= r->deadline;
}

/* One step of the exchange; returns 1 when the caller must wait, 0 to go on. */
static int hc_step(lua_State *L, struct hc_req *r)
{
	struct sockaddr_storage ss;
	size_t olen;
	const char *out;
	ssize_t n;
	int ret;

	switch (r->phase) {
	case HC_RESOLVE:
		ret = dns_req_poll(r->dreq, &ss);
		if (!ret)
			return 1;
		dns_req_release(r->dreq);
		r->dreq = NULL;
		if (ret < 0) {
			hc_fail(r, 503);
			return 0;
		}
		r->ss = ss;
		if (ss.ss_family == AF_INET)
			((struct sockaddr_in *)&r->ss)->sin_port = htons(r->port);
		else
			((struct sockaddr_in6 *)&r->ss)->sin6_port = htons(r->port);
		r->ss_len = ss.ss_family == AF_INET ? sizeof(struct sockaddr_in)
						    : sizeof(struct sockaddr_in6);
		hc_connect(r);
		return 0;
	case HC_CONNECT:
		ret = hsock_connect_poll(r->s);
		if (ret > 0 && r->https && !r->s->ssl &&
		    hsock_tls_start(r->s, hlua_hc_conf.ctx, r->host) < 0)
			ret = -1;
		if (ret > 0)
			ret = hsock_tls_poll(r->s);
		if (ret == 0 && !hc_expired(r))
			return 1;
		if (ret <= 0) {
			hc_fail(r, 503);
			return 0;
		}
		r->phase = HC_SEND;
		r->deadline = r->timeout_ms ? now_ms() + r->timeout_ms : 0;
		return 0;
	case HC_SEND:
		out = lua_tolstring(L, 3, &olen);
		n = hsock_send(r->s, out + r->out_off, olen - r->out_off);
		if (n > 0) {
			r->out_off += (size_t)n;
			r->deadline = r->timeout_ms ? now_ms() + r->timeout_ms : 0;
			if (r->out_off == olen)
				r->phase = HC_RECV;
			return 0;
		}
		if (n == HSOCK_AGAIN && !hc_expired(r))
			return 1;
		if (n == HSOCK_AGAIN) {
			hc_fail(r, 504);
			return 0;
		}
		r->phase = HC_RECV; /* the server may have answered before closing */
		return 0;
	case HC_RECV:
		ret = hc_recv(r);
		if (ret < 0) {
			hsock_close(r->s);
			return luaL_error(L, "httpclient: response larger than %u bytes",
					  HC_MAX_RESP);
		}
		if (ret > 0)
			return 0;
		if (!hc_expired(r))
			return 1;
		hc_fail(r, 504);
		return 0;
	}
	return 0;
}

static int k_hc(lua_State *L, int status, lua_KContext kc)
{
	struct lhc *o = lua_touserdata(L, 1);
	struct hc_req *r = o->req;

	hsock_unwait(r->s);
	while (r->phase != HC_DONE) {
		if (r->phase == HC_RESOLVE && hc_expired(r))
			hc_fail(r, 503);
		else if (hc_step(L, r))
			return hc_wait(L, r,
				       r->phase == HC_RESOLVE ? now_ms() + HC_DNS_POLL_MS
							      : r->deadline);
	}
	hc_result(L, r);
	o->req = NULL;
	hc_req_free(r);
	return 1;
}

/* Fills <ss> with the literal IPv4 or IPv6 address <host> and <port>: true, or false when
 * <host> is a name. */
static bool hc_literal(const char *host, uint16_t port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		*len = sizeof(*sin);
		return true;
	}
	if (inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		*len = sizeof(*sin6);
		return true;
	}
	return false;
}

/* Where the request goes: request.dst, the URL's address, or its name resolved. */
static void hc_target(lua_State *L, struct hc_req *r, const struct hc_url *u)
{
	struct addr_res res;
	char err[256];
	const char *dst;

	lua_getfield(L, 2, "dst");
	dst = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
	if (dst) {
		if (addr_parse(dst, ADDR_F_PORT_MAP, &res, err, sizeof(err)) != ADDR_OK ||
		    res.fd >= 0 || (res.port_map && res.port_off))
			luaL_error(L, "httpclient: invalid dst '%s'", dst);
		if (res.port_map && res.ss.ss_family == AF_INET)
			((struct sockaddr_in *)&res.ss)->sin_port = htons(u->port);
		else if (res.port_map && res.ss.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&res.ss)->sin6_port = htons(u->port);
		r->ss = res.ss;
		r->ss_len = res.len;
	} else if (!hc_literal(u->host, u->port, &r->ss, &r->ss_len)) {
		lua_pop(L, 1);
		if (!hlua_hc_conf.res) {
			hc_fail(r, 503); /* no resolvers section to ask */
			return;
		}
		r->dreq = dns_req_start(hlua_hc_conf.res, u->host, strlen(u->host),
					hlua_hc_conf.prefer == AF_INET ? AF_INET : 0);
		if (!r->dreq) {
			hc_fail(r, 503);
			return;
		}
		r->phase = HC_RESOLVE;
		r->deadline = now_ms() + HC_DNS_MAX_MS;
		return;
	}
	lua_pop(L, 1);
	hc_connect(r);
}

static int hc_call(lua_State *L, const char *meth, const char *lname)
{
	struct lhc *o = hlua_obj_check(L, 1, CLASS_HC);
	struct hlua_ctx *ctx = hlua_ctx_of(L);
	struct hc_url u;
	struct hc_req *r;
	const char *url;

	luaL_checktype(L, 2, LUA_TTABLE);
	lua_settop(L, 2);
	if (!ctx || !ctx->yieldable || !lua_isyieldable(L))
		return luaL_error(L, "httpclient: cannot yield from this context (only actions, "
				     "services and tasks may use the HTTP client)");
	if (o->req) {
		if (HA_ATOMIC_LOAD(&o->req->s->waiter))
			return luaL_error(L, "httpclient: already used by another call");
		hc_req_free(o->req); /* left by a call whose context ended */
		o->req = NULL;
	}
	lua_getfield(L, 2, "url");
	url = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
	if (!url)
		return luaL_error(L, "'%s' need a 'url' argument", lname);
	if (hc_url_parse(url, &u) < 0)
		return luaL_error(L, "couldn't start the httpclient");
	lua_pop(L, 1);
	hc_build(L, meth, &u); /* index 3 */
	r = calloc(1, sizeof(*r));
	if (!r || !(r->s = hsock_new(NULL))) {
		free(r);
		return luaL_error(L, "httpclient: out of memory");
	}
	o->req = r;
	r->https = u.https;
	r->head = !strcmp(meth, "HEAD");
	r->port = u.port;
	memcpy(r->host, u.host, sizeof(r->host));
	lua_getfield(L, 2, "timeout");
	if (lua_isinteger(L, -1) && lua_tointeger(L, -1) > 0)
		r->timeout_ms = lua_tointeger(L, -1) > 0x7fffffff ? 0x7fffffffu
								  : (uint32_t)lua_tointeger(L, -1);
	lua_pop(L, 1);
	hc_target(L, r, &u);
	return k_hc(L, LUA_OK, 0);
}

static int l_get(lua_State *L)
{
	return hc_call(L, "GET", "get");
}
static int l_post(lua_State *L)
{
	return hc_call(L, "POST", "post");
}
static int l_put(lua_State *L)
{
	return hc_call(L, "PUT", "put");
}
static int l_head(lua_State *L)
{
	return hc_call(L, "HEAD", "head");
}
static int l_delete(lua_State *L)
{
	return hc_call(L, "DELETE", "delete");
}

static int l_gc(lua_State *L)
{
	struct lhc *o = lua_touserdata(L, 1);

	if (o) {
		hc_req_free(o->req);
		o->req = NULL;
	}
	return 0;
}

/* core.httpclient() */
static int l_httpclient(lua_State *L)
{
	hlua_obj_new(L, CLASS_HC, sizeof(struct lhc));
	return 1;
}

static const luaL_Reg hc_methods[] = {
	{ "get", l_get },   { "post", l_post },	    { "put", l_put },
	{ "head", l_head }, { "delete", l_delete }, { NULL, NULL },
};

void hlua_httpclient_setup(lua_State *L)
{
	hlua_class_new(L, CLASS_HC, hc_methods, NULL, l_gc);
	lua_getglobal(L, "core");
	lua_pushcfunction(L, l_httpclient);
	lua_setfield(L, -2, "httpclient");
	lua_pop(L, 1);
}
