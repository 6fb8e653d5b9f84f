/* Cosockets: core.tcp() and the Socket class (connect, connect_ssl, send, receive,
 * settimeout, setoption, getpeername, getsockname, close) with HAProxy's semantics: the
 * LuaSocket client API, where what would block yields the calling action, service or task
 * until the socket's events resume it (hlua_sockio.c). Errors are returned as HAProxy
 * returns them (nil and "Can't connect", nil and "connection closed.", -1 from send); a
 * timeout closes the connection, as it does there.
 */
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>

#include <base/addr.h>
#include <event/loop.h>
#include <ssl/ssl.h>

#include "hlua_int.h"

#define CLASS_SOCKET "Socket"
#define SOCK_CONNECT_MS 5000 /* connect timeout until settimeout() says otherwise */

struct lsock {
	struct hsock *s;     /* never NULL once core.tcp() returned */
	uint32_t timeout_ms; /* settimeout(): inactivity limit of an operation, 0: none */
	uint64_t deadline;   /* of the operation in progress (thread clock), 0: none */
};

/* The context of cosockets' TLS: HAProxy's verifies nothing. Built on first use. */
static SSL_CTX *sock_ssl_ctx;
static pthread_once_t sock_ssl_once = PTHREAD_ONCE_INIT;

static void sock_ssl_init(void)
{
	char err[128];

	sock_ssl_ctx = ssl_client_ctx_new(false, NULL, err, sizeof(err));
}

/* The Socket at index 1, usable by this thread (or raises an error). */
static struct lsock *sock_check(lua_State *L)
{
	struct lsock *ls = hlua_obj_check(L, 1, CLASS_SOCKET);
	struct hlua_ctx *ctx = hlua_ctx_of(L);

	if (!ls->s)
		luaL_error(L, "socket: out of memory");
	if (ls->s->registered && ls->s->tid != tid)
		luaL_error(L, "socket: used by a thread other than the one that connected it");
	if (ls->s->waiter && ls->s->waiter != ctx)
		luaL_error(L, "socket: already used by another call");
	return ls;
}

/* Raises an error unless the running context may wait. */
static void sock_need_wait(lua_State *L, const struct lsock *ls, const char *what)
{
	if (!hsock_usable(L, ls->s))
		luaL_error(L,
			   "%s: cannot yield from this context (only actions, services and tasks "
			   "may use sockets)",
			   what);
}

static uint64_t sock_deadline(const struct lsock *ls)
{
	return ls->timeout_ms ? now_ms() + ls->timeout_ms : 0;
}

/* core.tcp() */
static int l_tcp(lua_State *L)
{
	struct lsock *ls = hlua_obj_new(L, CLASS_SOCKET, sizeof(*ls));
	void *st = NULL;

	lua_getallocf(L, &st); /* the state is the allocator's data (hlua.c) */
	ls->s = hsock_new(st);
	if (!ls->s)
		return luaL_error(L, "socket: out of memory");
	return 1;
}

/* ---- connect ---- */

/* Fills <ss> from "address" and the optional <port>. Returns 0, 1 for a port out of
 * range (HAProxy then fails to connect), or raises the error HAProxy raises. */
static int sock_parse(lua_State *L, const char *addr, bool has_port, lua_Integer port,
		      struct sockaddr_storage *ss, socklen_t *len)
{
	struct addr_res res;
	char err[256], buf[300];
	const char *ip = addr, *at;
	int ret;

	if (!has_port) {
		ret = addr_parse(addr, ADDR_F_HOSTNAME | ADDR_F_PORT_MAP, &res, err, sizeof(err));
		if (ret == ADDR_OK && res.fd < 0 && res.port_map) {
			if (res.port_off)
				ret = ADDR_ERR;
			else
				return luaL_error(L, "connect: port missing");
		}
	} else {
		if (port < 0 || port > 65535)
			return 1;
		if (!port && *addr != '/' && strncmp(addr, "unix@", 5))
			return 1;
		/* a literal without its port ("::1", "ipv6@::1", "/path"): the port is added */
		at = strchr(addr, '@');
		if (at && !memchr(addr, ':', (size_t)(at - addr)))
			ip = at + 1;
		if (*ip == '/' || !strncmp(addr, "unix@", 5))
			snprintf(buf, sizeof(buf), "%s", addr);
		else if (strchr(ip, ':') && *ip != '[')
			snprintf(buf, sizeof(buf), "%.*s[%s]:%d", (int)(ip - addr), addr, ip,
				 (int)port);
		else
			snprintf(buf, sizeof(buf), "%s:%d", addr, (int)port);
		ret = addr_parse(buf, 0, &res, err, sizeof(err));
	}
	if (ret != ADDR_OK || res.fd >= 0)
		return luaL_error(L, "connect: cannot parse destination address '%s'", addr);
	*ss = res.ss;
	*len = res.len;
	return 0;
}

static int sock_connect_fail(lua_State *L, struct hsock *s)
{
	hsock_close(s);
	lua_pushnil(L);
	lua_pushstring(L, "Can't connect");
	return 2;
}

/* Continues a connect: <tls> when TLS follows the TCP connection. */
static int k_connect(lua_State *L, int status, lua_KContext tls)
{
	struct lsock *ls = lua_touserdata(L, 1);
	struct hsock *s = ls->s;
	int r;

	hsock_unwait(s);
	r = hsock_connect_poll(s);
	if (r > 0 && tls && !s->ssl) {
		pthread_once(&sock_ssl_once, sock_ssl_init);
		if (!sock_ssl_ctx || hsock_tls_start(s, sock_ssl_ctx, NULL) < 0)
			r = -1;
	}
	if (r > 0)
		r = hsock_tls_poll(s);
	if (r > 0) {
		lua_pushinteger(L, 1);
		return 1;
	}
	if (r == 0 && now_ms() < ls->deadline)
		return hsock_wait(L, s, ls->deadline, k_connect, tls);
	return sock_connect_fail(L, s);
}

static int sock_connect(lua_State *L, bool tls)
{
	struct lsock *ls = sock_check(L);
	const char *addr = luaL_checkstring(L, 2);
	bool has_port = !lua_isnoneornil(L, 3);
	lua_Integer port = has_port ? luaL_checkinteger(L, 3) : 0;
	struct sockaddr_storage ss;
	socklen_t len = 0;

	sock_need_wait(L, ls, tls ? "connect_ssl" : "connect");
	if (ls->s->state == HS_CLOSED) {
		lua_pushnil(L); /* as HAProxy: a closed socket stays closed */
		return 1;
	}
	if (ls->s->state != HS_IDLE) {
		lua_pushinteger(L, 1); /* already connected */
		return 1;
	}
	if (sock_parse(L, addr, has_port, port, &ss, &len))
		return sock_connect_fail(L, ls->s);
	if (hsock_connect(ls->s, &ss, len) < 0)
		return sock_connect_fail(L, ls->s);
	ls->deadline = now_ms() + (ls->timeout_ms ? ls->timeout_ms : SOCK_CONNECT_MS);
	lua_settop(L, 1);
	return k_connect(L, LUA_OK, tls);
}

static int l_connect(lua_State *L)
{
	return sock_connect(L, false);
}

static int l_connect_ssl(lua_State *L)
{
	return sock_connect(L, true);
}

/* ---- send ---- */

/* The bytes [*from, *to) of the string at index 2 that send(data, i, j) names, as
 * string.sub counts them. */
static const char *send_range(lua_State *L, size_t *from, size_t *to)
{
	size_t len;
	const char *p = lua_tolstring(L, 2, &len);
	lua_Integer i = luaL_optinteger(L, 3, 1), j = luaL_optinteger(L, 4, -1);
	lua_Integer n = (lua_Integer)len;

	if (i == 0 || (i < 0 && i < -n))
		i = 1;
	else if (i < 0)
		i = n + i + 1;
	if (j > n)
		j = n;
	else if (j < 0)
		j = j < -n ? 0 : n + j + 1;
	*from = i > n ? len : (size_t)(i - 1);
	*to = j >= i ? (size_t)j : *from;
	return p;
}

static int sock_send_fail(lua_State *L, struct hsock *s)
{
	hsock_close(s);
	lua_pushinteger(L, -1);
	return 1;
}

/* Continues a send: <off> bytes of the range are out. */
static int k_send(lua_State *L, int status, lua_KContext off)
{
	struct lsock *ls = lua_touserdata(L, 1);
	struct hsock *s = ls->s;
	size_t from, to;
	const char *p = send_range(L, &from, &to);

	hsock_unwait(s);
	while (from + (size_t)off < to) {
		ssize_t n = hsock_send(s, p + from + off, to - from - (size_t)off);

		if (n > 0) {
			off += n;
			ls->deadline = sock_deadline(ls); /* inactivity limit */
			continue;
		}
		if (n != HSOCK_AGAIN || (ls->deadline && now_ms() >= ls->deadline))
			return sock_send_fail(L, s);
		return hsock_wait(L, s, ls->deadline, k_send, off);
	}
	lua_pushinteger(L, (lua_Integer)(to - from));
	return 1;
}

static int l_send(lua_State *L)
{
	struct lsock *ls = sock_check(L);
	size_t from, to;

	luaL_checkstring(L, 2);
	lua_settop(L, 4);
	send_range(L, &from, &to);
	if (ls->s->state != HS_READY) {
		lua_pushinteger(L, -1);
		return 1;
	}
	sock_need_wait(L, ls, "send");
	ls->deadline = sock_deadline(ls);
	return k_send(L, LUA_OK, 0);
}

/* ---- receive ---- */

#define RCV_LINE 0
#define RCV_ALL 1
#define RCV_NUM 2

/* kctx of a receive: the mode in the low 2 bits, the bytes still wanted above */
#define RCV_KC(mode, rem) ((lua_KContext)(((rem) << 2) | (mode)))

/* Appends <len> bytes of <p> to the chunks table at index 4. */
static void rcv_add(lua_State *L, const char *p, size_t len)
{
	if (!len)
		return;
	lua_pushlstring(L, p, len);
	lua_rawseti(L, 4, (lua_Integer)lua_rawlen(L, 4) + 1);
}

/* Returns what was received: the prefix (index 3) and the chunks, without the CR ending a
 * complete line (<line>, as HAProxy); or nil and "connection closed." when nothing came. */
static int rcv_done(lua_State *L, bool line, bool eof)
{
	size_t n = lua_rawlen(L, 4), pfx = 0;
	luaL_Buffer b;

	if (!n && eof) {
		lua_pushnil(L);
		lua_pushstring(L, "connection closed.");
		return 2;
	}
	luaL_buffinit(L, &b);
	if (lua_type(L, 3) == LUA_TSTRING) {
		pfx = lua_rawlen(L, 3);
		lua_pushvalue(L, 3);
		luaL_addvalue(&b);
	}
	for (size_t i = 1; i <= n; i++) {
		lua_rawgeti(L, 4, (lua_Integer)i);
		luaL_addvalue(&b);
	}
	if (line && luaL_bufflen(&b) > pfx && luaL_buffaddr(&b)[luaL_bufflen(&b) - 1] == '\r')
		luaL_buffsub(&b, 1);
	luaL_pushresult(&b);
	return 1;
}

/* Continues a receive (see RCV_KC). */
static int k_recv(lua_State *L, int status, lua_KContext kc)
{
	struct lsock *ls = lua_touserdata(L, 1);
	struct hsock *s = ls->s;
	int mode = (int)(kc & 3);
	lua_Integer rem = (lua_Integer)(kc >> 2);

	hsock_unwait(s);
	for (;;) {
		ssize_t n;

		if (s->ilen) {
			const char *p = s->ibuf + s->ihead, *lf;
			size_t take = s->ilen;

			if (mode == RCV_LINE && (lf = memchr(p, '\n', take))) {
				rcv_add(L, p, (size_t)(lf - p));
				hsock_consume(s, (size_t)(lf - p) + 1);
				return rcv_done(L, true, false);
			}
			if (mode == RCV_NUM && (lua_Integer)take > rem)
				take = (size_t)rem;
			rcv_add(L, p, take);
			hsock_consume(s, take);
			rem -= (lua_Integer)take;
		}
		if (mode == RCV_NUM && !rem)
			return rcv_done(L, false, false);
		if (s->eof || s->state != HS_READY)
			return rcv_done(L, false, true); /* what came before the end */
		n = hsock_recv(s);
		if (n > 0) {
			ls->deadline = sock_deadline(ls);
			continue;
		}
		if (n != HSOCK_AGAIN)
			continue; /* the end (eof set): returns what came */
		if (ls->deadline && now_ms() >= ls->deadline) {
			hsock_close(s); /* as HAProxy: a timeout ends the connection */
			lua_pushnil(L);
			lua_pushstring(L, "connection closed.");
			return 2;
		}
		return hsock_wait(L, s, ls->deadline, k_recv, RCV_KC(mode, rem));
	}
}

static int l_receive(lua_State *L)
{
	struct lsock *ls = sock_check(L);
	int mode = RCV_LINE;
	lua_Integer rem = 0;

	if (lua_type(L, 2) == LUA_TNUMBER) {
		rem = luaL_checkinteger(L, 2);
		if (rem < 0)
			return luaL_error(L, "Unsupported size.");
		mode = RCV_NUM;
	} else if (!lua_isnoneornil(L, 2)) {
		const char *p = luaL_checkstring(L, 2);

		if (p[0] != '*' || (p[1] != 'l' && p[1] != 'a'))
			return luaL_error(L, "Unsupported pattern.");
		mode = p[1] == 'a' ? RCV_ALL : RCV_LINE;
	}
	if (!lua_isnoneornil(L, 3) && lua_type(L, 3) != LUA_TSTRING)
		return luaL_error(L, "Expect a 'string' for the prefix");
	if (rem > ((lua_Integer)1 << 60))
		rem = (lua_Integer)1 << 60; /* fits the continuation's context */
	lua_settop(L, 3);
	lua_newtable(L); /* index 4: the chunks received */
	if (ls->s->state != HS_READY && !ls->s->ilen) {
		lua_pushnil(L);
		lua_pushstring(L, "connection closed.");
		return 2;
	}
	if (mode != RCV_NUM || rem)
		sock_need_wait(L, ls, "receive");
	ls->deadline = sock_deadline(ls);
	return k_recv(L, LUA_OK, RCV_KC(mode, rem));
}

/* ---- the rest ---- */

/* "IP:port" as HAProxy prints it (IPv6 without brackets), or the unix path. */
static int push_addr(lua_State *L, const struct sockaddr_storage *ss)
{
	char buf[INET6_ADDRSTRLEN + 16];

	if (addr_to_str_plain(ss, buf, sizeof(buf))) {
		lua_pushstring(L, buf);
		return 1;
	}
	if (ss->ss_family == AF_UNIX) {
		const struct sockaddr_un *sun = (const struct sockaddr_un *)ss;

		lua_pushlstring(L, sun->sun_path, strnlen(sun->sun_path, sizeof(sun->sun_path)));
		return 1;
	}
	lua_pushnil(L);
	return 1;
}

static int l_getpeername(lua_State *L)
{
	struct lsock *ls = sock_check(L);

	if (ls->s->state != HS_READY) {
		lua_pushnil(L);
		return 1;
	}
	return push_addr(L, &ls->s->peer);
}

static int l_getsockname(lua_State *L)
{
	struct lsock *ls = sock_check(L);
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	memset(&ss, 0, sizeof(ss));
	if (ls->s->state != HS_READY ||
	    getsockname(ls->s->h.fd, (struct sockaddr *)&ss, &len) < 0) {
		lua_pushnil(L);
		return 1;
	}
	return push_addr(L, &ss);
}

static int l_settimeout(lua_State *L)
{
	struct lsock *ls = hlua_obj_check(L, 1, CLASS_SOCKET);
	lua_Number v = luaL_checknumber(L, 2);

	if (!(v >= 0)) /* NaN too */
		return luaL_error(L, "settimeout: cannot set negatives values");
	v *= 1000.0;
	ls->timeout_ms = v >= 2147483647.0 ? 2147483647u : (uint32_t)v;
	if (v > 0 && !ls->timeout_ms)
		ls->timeout_ms = 1;
	lua_pushinteger(L, 1);
	return 1;
}

static int l_setoption(lua_State *L)
{
	hlua_obj_check(L, 1, CLASS_SOCKET);
	return 0; /* accepted for compatibility, as HAProxy */
}

static int l_close(lua_State *L)
{
	struct lsock *ls = sock_check(L);

	hsock_close(ls->s);
	return 0;
}

static int l_gc(lua_State *L)
{
	struct lsock *ls = lua_touserdata(L, 1);

	if (ls) {
		hsock_release(ls->s);
		ls->s = NULL;
	}
	return 0;
}

static const luaL_Reg sock_methods[] = {
	{ "connect", l_connect },
	{ "connect_ssl", l_connect_ssl },
	{ "send", l_send },
	{ "receive", l_receive },
	{ "settimeout", l_settimeout },
	{ "setoption", l_setoption },
	{ "getpeername", l_getpeername },
	{ "getsockname", l_getsockname },
	{ "close", l_close },
	{ NULL, NULL },
};

void hlua_socket_setup(lua_State *L)
{
	hlua_class_new(L, CLASS_SOCKET, sock_methods, NULL, l_gc);
	lua_getglobal(L, "core");
	lua_pushcfunction(L, l_tcp);
	lua_setfield(L, -2, "tcp");
	lua_pop(L, 1);
}
