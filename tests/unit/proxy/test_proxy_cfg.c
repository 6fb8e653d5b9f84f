/* Unit tests for the proxy sections: configs loaded from temporary files through
 * cfg_load_path() and checked by proxy_check_all(), with stderr captured to check the
 * diagnostics. Covers defaults inheritance (unnamed, named, "from", reset), listen with an
 * address, binds, servers, options, timeouts, errorfiles, rules, and the check phase.
 * Every test frees what it loaded with proxy_deinit_all().
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <backend/server-t.h>
#include <base/addr.h>
#include <cfg/cfg.h>
#include <check/check-t.h>
#include <check/check_cfg.h>
#include <conn/listener-t.h>
#include <dns/dns.h>
#include <proxy/proxy.h>
#include <stream/action-t.h>
#include "../test.h"

struct pxt_run {
	int errors;               /* located alerts ("parsing [") while parsing */
	int check;                /* proxy_check_all() result */
	int warnings;
	char err[8192];           /* captured stderr */
};

static char pxt_dir[64];

static void pxt_write(const char *name, const char *text)
{
	test_write_file(pxt_dir, name, text);
}

/* Writes <text> as t.cfg (with "@DIR@" replaced by the temporary directory), loads and
 * checks it with stderr captured into r->err.
 */
static void pxt_load(const char *text, struct pxt_run *r)
{
	char path[128], buf[4096];
	const char *p, *at;
	int e0 = cfg_errors, w0 = cfg_warnings, saved;
	size_t o = 0, parse_len;

	for (p = text; *p && o < sizeof(buf) - 64; p = at + 5) {
		at = strstr(p, "@DIR@");
		if (!at) {
			o += snprintf(buf + o, sizeof(buf) - o, "%s", p);
			break;
		}
		o += snprintf(buf + o, sizeof(buf) - o, "%.*s%s", (int)(at - p), p, pxt_dir);
	}
	pxt_write("t.cfg", buf);
	snprintf(path, sizeof(path), "%s/t.cfg", pxt_dir);
	saved = test_capture_begin(pxt_dir);
	cfg_load_path(path);
	test_capture_end(saved, pxt_dir, r->err, sizeof(r->err));
	parse_len = strlen(r->err);
	saved = test_capture_begin(pxt_dir);
	r->check = proxy_check_all();
	r->check += dns_srv_init_last_check(); /* unresolved names: after the state files */
	test_capture_end(saved, pxt_dir, r->err + parse_len, sizeof(r->err) - parse_len);
	r->warnings = cfg_warnings - w0;
	/* the loader adds an unlocated summary alert per file: count the located ones */
	r->errors = 0;
	for (p = r->err; (p = strstr(p, "[ALERT]")) && (size_t)(p - r->err) < parse_len; p++) {
		const char *eol = strchr(p, '\n');

		if (strstr(p, "parsing [") && (!eol || strstr(p, "parsing [") < eol))
			r->errors++;
	}
	CHECK(cfg_errors - e0 >= r->errors);
}

static void pxt_setup(void)
{
	proxy_deinit_all();
	test_tmpdir(pxt_dir, "pxtest");
}

static void pxt_cleanup(void)
{
	proxy_deinit_all();
	test_rmdir(pxt_dir);
}

#define PXT_HAS(r, s) CHECK_HAS((r)->err, (s))

#define PXT_TIMEOUTS "  timeout client 5s\n  timeout server 6s\n  timeout connect 1s\n"

static struct listener *pxt_first_listener(struct proxy *px)
{
	struct bind_conf *bc;

	if (list_empty(&px->binds))
		return NULL;
	bc = list_elem(px->binds.next, struct bind_conf, list);
	if (list_empty(&bc->listeners))
		return NULL;
	return list_elem(bc->listeners.next, struct listener, list);
}

static const char *pxt_addr(const struct listener *l)
{
	static char buf[128];

	return l ? addr_to_str(&l->addr, buf, sizeof(buf)) : "(none)";
}

TEST(proxy_cfg_defaults_inheritance)
{
	struct pxt_run r;
	struct proxy *fe, *be;

	pxt_setup();
	pxt_load("defaults\n  mode http\n" PXT_TIMEOUTS
		 "  timeout http-request 3s\n  retries 5\n  maxconn 100\n  backlog 7\n"
		 "  option http-server-close\n  option forwardfor except 10.0.0.0/8 header X-Real if-none\n"
		 "  option redispatch 2\n  monitor-uri /up\n  default_backend be\n"
		 "frontend fe\n  bind :18080\n  timeout client 9s\n"
		 "backend be\n  server s1 127.0.0.1:8001 weight 3 maxconn 10\n"
		 "  server s2 127.0.0.1:8002 backup disabled\n", &r);
	CHECK_INT(r.errors, 0);
	CHECK_INT(r.check, 0);
	CHECK_INT(r.warnings, 0);
	fe = proxy_find("fe", PR_CAP_FE);
	be = proxy_find("be", PR_CAP_BE);
	CHECK(fe && be && fe->next == be && proxies == fe);
	if (!fe || !be)
		goto out;
	CHECK_INT(fe->mode, PR_MODE_HTTP);
	CHECK_INT(fe->timeout.client, 9000);
	CHECK_INT(be->timeout.client, 5000);
	CHECK_INT(be->timeout.server, 6000);
	CHECK_INT(fe->timeout.http_request, 3000);
	CHECK_INT(be->retries, 5);
	CHECK_INT(fe->maxconn, 100);
	CHECK_INT(fe->backlog, 7);
	CHECK_INT(fe->options & PR_O_HTTP_MODE_MASK, PR_O_HTTP_SCL);
	CHECK(fe->options & PR_O_FWDFOR);
	CHECK(fe->options & PR_O_FF_IFNONE);
	CHECK(fe->fwdfor_has_except);
	CHECK_INT(ntohl(fe->fwdfor_except_mask.s_addr), 0xff000000u);
	CHECK_INT(ntohl(fe->fwdfor_except_net.s_addr), 0x0a000000u);
	CHECK(ist_eq(fe->fwdfor_hdr, IST("X-Real")));
	CHECK(be->options & PR_O_REDISP);
	CHECK_INT(be->redispatch_every, 2);
	CHECK(ist_eq(fe->monitor_uri, IST("/up")));
	CHECK(fe->defbe == be);
	CHECK_STR(pxt_addr(pxt_first_listener(fe)), "0.0.0.0:18080");
	CHECK_INT(pxt_first_listener(fe)->fd, -1);
	CHECK_INT(pxt_first_listener(fe)->inherited_fd, -1);
	CHECK_INT(be->srv_count, 2);
	CHECK(be->srv && be->srv->next && !be->srv->next->next);
	if (be->srv && be->srv->next) {
		CHECK_STR(be->srv->id, "s1");
		CHECK_INT(be->srv->puid, 1);
		CHECK_INT(be->srv->weight, 3);
		CHECK_INT(be->srv->maxconn, 10);
		CHECK_INT(be->srv->line, 19);
		CHECK_INT(be->srv->next->puid, 2);
		CHECK_INT(be->srv->next->weight, 1);
		CHECK_INT(be->srv->next->flags, SRV_F_BACKUP | SRV_F_DISABLED);
		CHECK(be->srv->px == be);
	}
out:
	pxt_cleanup();
}

TEST(proxy_cfg_builtin_defaults)
{
	struct pxt_run r;
	struct proxy *px;

	pxt_setup();
	pxt_load("listen li\n  mode http\n" PXT_TIMEOUTS "  bind 127.0.0.1:18081\n"
		 "  server s 127.0.0.1:8001\n", &r);
	CHECK_INT(r.errors + r.check, 0);
	px = proxy_find("li", PR_CAP_FE | PR_CAP_BE);
	CHECK(px != NULL);
	if (px) {
		CHECK_INT(px->retries, 3);
		CHECK_INT(px->options, PR_O_HTTP_KAL);
		CHECK(ist_eq(px->fwdfor_hdr, IST("X-Forwarded-For")));
		CHECK_INT(px->lbalgo, LB_ALGO_ROUNDROBIN);
		CHECK_INT(px->maxconn, 0);
	}
	pxt_cleanup();
}

TEST(proxy_cfg_named_defaults)
{
	struct pxt_run r;
	struct proxy *a, *b, *c;

	pxt_setup();
	pxt_load("defaults base\n  mode http\n" PXT_TIMEOUTS "  retries 7\n"
		 "defaults d2 from base\n  retries 8\n"
		 "defaults\n  mode http\n  retries 9\n"
		 "backend a from base\n  server s 127.0.0.1:1\n"
		 "backend b from d2\n  server s 127.0.0.1:1\n"
		 "backend c\n  server s 127.0.0.1:1\n"
		 "backend d from nope\n", &r);
	CHECK_INT(r.errors, 1);
	PXT_HAS(&r, "parsing [");
	PXT_HAS(&r, "t.cfg:18] : defaults section 'nope' not found for backend 'd'.");
	a = proxy_find("a", PR_CAP_BE);
	b = proxy_find("b", PR_CAP_BE);
	c = proxy_find("c", PR_CAP_BE);
	CHECK(a && b && c);
	if (a && b && c) {
		CHECK_INT(a->retries, 7);
		CHECK_INT(b->retries, 8);
		CHECK_INT(b->timeout.server, 6000); /* through d2 from base */
		CHECK_INT(c->retries, 9);
		CHECK_INT(c->timeout.server, 0);    /* an unnamed defaults starts afresh */
	}
	PXT_HAS(&r, "missing timeouts for backend 'c'.\n"
		"   | While not properly invalid, you will certainly encounter various problems\n"
		"   | with such a configuration. To fix this, please ensure that all following\n"
		"   | timeouts are set to a non-zero value: 'client', 'connect', 'server'.");
	CHECK(!strstr(r.err, "missing timeouts for backend 'a'"));
	pxt_cleanup();
}

TEST(proxy_cfg_listen_with_address)
{
	struct pxt_run r;
	struct proxy *px;
	struct bind_conf *bc;
	struct listener *l;
	int n = 0;

	pxt_setup();
	setenv("PXT_FD", "7", 1);
	pxt_load("defaults\n  mode http\n" PXT_TIMEOUTS
		 "listen webcluster 127.0.0.1:8090,[::1]:8091\n"
		 "  bind :9000-9002 name web maxconn 50 backlog 20 v4v6\n"
		 "  bind ipv6@:9010 v6only\n"
		 "  bind unix@@DIR@/s.sock\n"
		 "  bind fd@5\n"
		 "  server web1 127.0.0.1:8091\n"
		 "  bind 'fd@${PXT_FD}'\n"
		 "  server web2 ipv4@localhost:8092\n", &r);
	CHECK_INT(r.errors + r.check, 0);
	px = proxy_find("webcluster", PR_CAP_FE);
	CHECK(px != NULL);
	if (!px)
		goto out;
	CHECK_STR(pxt_addr(pxt_first_listener(px)), "127.0.0.1:8090");
	list_for_each_entry(bc, &px->binds, list) {
		list_for_each_entry(l, &bc->listeners, list) {
			CHECK(l->bind == bc);
			CHECK_INT(l->fd, -1);
			n++;
		}
		CHECK(bc->px == px);
	}
	CHECK_INT(n, 2 + 3 + 1 + 1 + 1 + 1);
	if (px->srv && px->srv->next) {
		char buf[64];

		CHECK_STR(addr_to_str(&px->srv->next->addr, buf, sizeof(buf)), "127.0.0.1:8092");
	}
	bc = list_elem(px->binds.next->next, struct bind_conf, list);
	CHECK_STR(bc->name, "web");
	CHECK_INT(bc->maxconn, 50);
	CHECK_INT(bc->backlog, 20);
	CHECK(bc->v4v6 && !bc->v6only);
	CHECK_INT(bc->line, 7);
	l = list_elem(bc->listeners.prev, struct listener, list);
	CHECK_STR(l->name, "web-3");
	CHECK_STR(pxt_addr(l), "0.0.0.0:9002");
	bc = list_elem(bc->list.next, struct bind_conf, list);
	CHECK(bc->v6only);
	CHECK_STR(pxt_addr(pxt_first_listener(px)), "127.0.0.1:8090");
	bc = list_elem(px->binds.prev->prev, struct bind_conf, list);
	l = list_elem(bc->listeners.next, struct listener, list);
	CHECK_INT(l->inherited_fd, 5);
	bc = list_elem(px->binds.prev, struct bind_conf, list);
	l = list_elem(bc->listeners.next, struct listener, list);
	CHECK_INT(l->inherited_fd, 7);
out:
	pxt_cleanup();
}

TEST(proxy_cfg_bind_errors)
{
	struct pxt_run r;

	pxt_setup();
	pxt_load("defaults\n  mode http\n" PXT_TIMEOUTS
		 "frontend fe\n"
		 "  bind 1.2.3.4\n"
		 "  bind :0\n"
		 "  bind :80 ssl crt /x.pem\n"
		 "  bind :80 blah\n"
		 "  bind\n"
		 "backend be\n  bind :81\n"
		 "defaults\n  bind :82\n", &r);
	CHECK_INT(r.errors, 6);
	PXT_HAS(&r, "t.cfg:7] : 'bind' : missing port specification in '1.2.3.4'");
	PXT_HAS(&r, "t.cfg:8] : 'bind' : invalid port '0'");
	PXT_HAS(&r, "t.cfg:9] : 'bind :80' in section 'frontend' : unable to stat SSL "
		    "certificate from file '/x.pem' : No such file or directory.");
	PXT_HAS(&r, "t.cfg:10] : 'bind :80' in section 'frontend': unknown keyword 'blah'.");
	PXT_HAS(&r, "t.cfg:11] : 'bind' expects");
	PXT_HAS(&r, "t.cfg:13] : 'bind' ignored because backend 'be' has no frontend capability.");
	PXT_HAS(&r, "t.cfg:15] : 'bind' not allowed in 'defaults' section.");
	PXT_HAS(&r, "frontend 'fe' has no 'bind' directive. Please declare it as a backend if "
		"this was intended.");
	pxt_cleanup();
}

TEST(proxy_cfg_check_backends)
{
	struct pxt_run r;

	pxt_setup();
	pxt_load("defaults\n  mode http\n" PXT_TIMEOUTS
		 "frontend fe\n  bind :18080\n  default_backend nope\n  use_backend fe2\n"
		 "  use_backend be\n"
		 "frontend fe2\n  bind :18081\n"
		 "backend be\n  server s1 127.0.0.1:1\n  server s1 127.0.0.1:2\n"
		 "backend be\n  server x 127.0.0.1:1\n"
		 "backend notcp\n  mode http\n", &r);
	CHECK_INT(r.errors, 0);
	CHECK_INT(r.check, 4);
	PXT_HAS(&r, "t.cfg:6] : Proxy 'fe': unable to find required default_backend: 'nope'.");
	PXT_HAS(&r, "t.cfg:9] : Proxy 'fe': unable to find required use_backend: 'fe2' "
		"('fe2' is a frontend, not a backend).");
	PXT_HAS(&r, "t.cfg:15] : backend 'be', another server named 's1' was already defined at "
		"line 14, please use distinct names.");
	PXT_HAS(&r, "t.cfg:16] : backend 'be' has the same name as backend 'be' declared at ");
	pxt_cleanup();
}

TEST(proxy_cfg_modes)
{
	struct pxt_run r;

	pxt_setup();
	pxt_load("defaults\n" PXT_TIMEOUTS
		 "frontend fe\n  mode http\n  bind :18080\n  default_backend be\n"
		 "backend be\n  server s1 127.0.0.1:1\n"
		 "backend be2\n  mode tcp\n"
		 "backend be3\n  mode health\n  mode foo\n", &r);
	CHECK_INT(r.errors, 2);
	PXT_HAS(&r, "t.cfg:14] : 'mode health' doesn't exist anymore.");
	PXT_HAS(&r, "t.cfg:15] : unknown proxy mode 'foo'.");
	/* be has no mode: HAProxy's default is tcp, and an http frontend cannot use it */
	PXT_HAS(&r, "http frontend 'fe' (");
	PXT_HAS(&r, "tries to use incompatible tcp backend 'be' (");
	PXT_HAS(&r, "as its default backend (see 'mode').");
	CHECK(r.check >= 1);
	pxt_cleanup();
}

TEST(proxy_cfg_old_timeouts_and_timeouts)
{
	struct pxt_run r;
	struct proxy *px;

	pxt_setup();
	pxt_load("defaults\n  mode http\n  contimeout 5000\n  clitimeout 50s\n  srvtimeout 1m\n"
		 "  timeout http-keep-alive 2s\n  timeout queue 10m\n  timeout tunnel 1h\n"
		 "  timeout client-fin 1s\n  timeout server-fin 2s\n  timeout check 3s\n"
		 "listen li\n  bind :1\n  server s 127.0.0.1:1\n"
		 "  timeout tarpit 1s\n  timeout blah 1s\n  timeout client\n  timeout client 5x\n"
		 "frontend fe\n  bind :2\n  timeout server 1s\n", &r);
	CHECK_INT(r.errors, 3);
	PXT_HAS(&r, "[WARNING]  (");
	PXT_HAS(&r, "t.cfg:3] : the 'contimeout' directive is deprecated (removed in HAProxy "
		"2.1); it is mapped to 'timeout connect'. Please use 'timeout connect' instead.");
	PXT_HAS(&r, "t.cfg:4] : the 'clitimeout' directive");
	PXT_HAS(&r, "'timeout server' instead.");
	PXT_HAS(&r, "t.cfg:16] : 'timeout' supports 'client', 'server', 'connect', 'check', "
		"'queue', 'http-keep-alive', 'http-request', 'tunnel', 'tarpit', 'client-fin' and "
		"'server-fin' (got 'blah')");
	PXT_HAS(&r, "t.cfg:17] : 'timeout client' expects an integer value (in milliseconds)");
	PXT_HAS(&r, "t.cfg:21] : 'timeout server' ignored because frontend 'fe' has no backend "
		"capability.");
	px = proxy_find("li", PR_CAP_BE);
	CHECK(px != NULL);
	if (px) {
		CHECK_INT(px->timeout.connect, 5000);
		CHECK_INT(px->timeout.client, 50000);
		CHECK_INT(px->timeout.server, 60000);
		CHECK_INT(px->timeout.http_keep_alive, 2000);
		CHECK_INT(px->timeout.queue, 600000);
		CHECK_INT(px->timeout.tunnel, 3600000);
		CHECK_INT(px->timeout.tarpit, 1000);
		CHECK_INT(px->timeout.client_fin, 1000);
		CHECK_INT(px->timeout.server_fin, 2000);
		CHECK_INT(px->timeout.check, 3000);
	}
	pxt_cleanup();
}

TEST(proxy_cfg_balance_algorithms)
{
	struct pxt_run r;
	struct proxy *be;

	pxt_setup();
	pxt_load("defaults\n  mode http\n" PXT_TIMEOUTS
		 "backend a\n  balance random\n  server s 127.0.0.1:1\n"
		 "backend b\n  balance random(5)\n  server s 127.0.0.1:1\n"
		 "backend c\n  balance leastconn\n  server s 127.0.0.1:1\n"
		 "backend d\n  balance source\n  hash-type consistent crc32 avalanche\n"
		 "  server s 127.0.0.1:1\n", &r);
	CHECK_INT(r.errors, 0);
	be = proxy_find("d", PR_CAP_BE);
	CHECK(be && be->lbalgo == LB_ALGO_SOURCE && be->hash_type == LB_HASH_CONSISTENT &&
	      be->hash_fn == LB_HFN_CRC32 && be->hash_avalanche && be->lb_key);
	be = proxy_find("a", PR_CAP_BE);
	CHECK(be && be->lbalgo == LB_ALGO_RANDOM && be->lb_draws == 2);
	be = proxy_find("b", PR_CAP_BE);
	CHECK(be && be->lbalgo == LB_ALGO_RANDOM && be->lb_draws == 5);
	be = proxy_find("c", PR_CAP_BE);
	CHECK(be && be->lbalgo == LB_ALGO_LEASTCONN);
	pxt_cleanup();
}

TEST(proxy_cfg_balance_and_misc)
{
	struct pxt_run r;
	struct proxy *be;

	pxt_setup();
	pxt_load("defaults\n  mode http\n" PXT_TIMEOUTS
		 "backend be\n  balance static-rr\n  balance leastconn\n  balance random(300)\n"
		 "  balance foo\n  stats frob\n  acl x path /\n  http-reuse safe\n"
		 "  http-reuse always\n  log global\n  option httplog\n  no option httplog\n"
		 "  option http-use-htx\n  option httpchk GET /\n  option foo\n"
		 "  no option forwardfor\n  retries 3 4\n  frobnicate\n"
		 "  server s 127.0.0.1:1 check inter 2s rise 2 fall 3 no-check\n"
		 "  server t 127.0.0.1:2 weight 300\n  server u 127.0.0.1:3 ssl verify maybe\n"
		 "  server v 127.0.0.1:+x\n  server w nosuchhost.invalid:80\n  server y\n"
		 "  server z 127.0.0.1:4 foo\n", &r);
	PXT_HAS(&r, "t.cfg:9] : 'balance random' expects 'random' or 'random(<draws>)'");
	PXT_HAS(&r, "t.cfg:10] : balance only supports");
	PXT_HAS(&r, "t.cfg:11] : unknown stats parameter 'frob', expects 'admin', 'uri', "
		"'realm', 'auth', 'scope', 'enable', 'hide-version', 'show-node', 'show-desc' or "
		"'show-legends'.");
	PXT_HAS(&r, "[WARNING]  (");
	PXT_HAS(&r, "t.cfg:16] : backend 'be' : 'option httplog' directive is ignored in backends.");
	PXT_HAS(&r, "t.cfg:17] : backend 'be' : 'option httplog' directive is ignored in backends.");
	PXT_HAS(&r, "t.cfg:18] : 'option http-use-htx' is deprecated and ignored.");
	PXT_HAS(&r, "t.cfg:20] : unknown option 'foo'.");
	PXT_HAS(&r, "t.cfg:21] : negation/default is not supported for option 'forwardfor'.");
	PXT_HAS(&r, "t.cfg:22] : 'retries' cannot handle unexpected argument '4'.");
	PXT_HAS(&r, "t.cfg:23] : unknown keyword 'frobnicate' in 'backend' section");
	CHECK(!strstr(r.err, "t.cfg:19]")); /* option httpchk GET / */
	CHECK(!strstr(r.err, "t.cfg:24]")); /* check, inter, rise, fall: no warning */
	PXT_HAS(&r, "t.cfg:25] : 'server be/t' : weight of server t is not within 0 and 256 (300).");
	PXT_HAS(&r, "t.cfg:26] : 'server be/u' : 'verify' : expects 'none' or 'required'.");
	PXT_HAS(&r, "t.cfg:27] : 'server be/v' : invalid port offset '+x'");
	PXT_HAS(&r, "t.cfg:28] : 'server be/w' : could not resolve address 'nosuchhost.invalid'");
	PXT_HAS(&r, "t.cfg:29] : 'server' expects <name> and <addr>[:<port>] as arguments.");
	PXT_HAS(&r, "t.cfg:30] : 'server be/z' : unknown keyword 'foo'.");
	CHECK_INT(r.errors, 12); /* both http-reuse and option httpchk are supported now; be/w's
				  * unresolved name is reported at the check, as 2.6 */
	be = proxy_find("be", PR_CAP_BE);
	CHECK(be && be->srv_count == 2 && be->lbalgo == LB_ALGO_LEASTCONN); /* s and w */
	CHECK(be && be->http_reuse == PR_REUSE_ALWAYS);
	if (be && be->srv)
		CHECK_INT(be->srv->flags, 0); /* "no-check" after "check" */
	pxt_cleanup();
}

TEST(proxy_cfg_http_modes)
{
	struct pxt_run r;
	struct proxy *a, *b, *c;

	pxt_setup();
	pxt_load("defaults\n  mode http\n" PXT_TIMEOUTS "  option httpclose\n"
		 "backend a\n  option http-server-close\n  option httpclose\n"
		 "  option http-buffer-request\n  no option http-buffer-request\n"
		 "backend b\n  no option httpclose\n  option http-buffer-request\n"
		 "backend c\n  option http-keep-alive\n  option redispatch\n"
		 "  no option redispatch\n  option redispatch -1\n", &r);
	CHECK_INT(r.errors + r.check, 0);
	a = proxy_find("a", PR_CAP_BE);
	b = proxy_find("b", PR_CAP_BE);
	c = proxy_find("c", PR_CAP_BE);
	CHECK(a && b && c);
	if (a && b && c) {
		CHECK_INT(a->options, PR_O_HTTP_CLO);
		CHECK_INT(b->options, PR_O_HTTP_KAL | PR_O_BUF_REQ);
		CHECK_INT(c->options, PR_O_HTTP_KAL | PR_O_REDISP);
		CHECK_INT(c->redispatch_every, 0);
	}
	pxt_cleanup();
}

TEST(proxy_cfg_errorfile)
{
	struct pxt_run r;
	const struct errorfile *ef;
	struct proxy *fe;

	pxt_setup();
	pxt_write("503.http", "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/html\r\n"
		  "Content-Length: 4\r\n\r\nbusy");
	pxt_write("bad.http", "hello\n");
	pxt_load("defaults\n  mode http\n" PXT_TIMEOUTS "  errorfile 503 @DIR@/503.http\n"
		 "frontend fe\n  bind :1\n  errorfile 999 @DIR@/503.http\n"
		 "  errorfile 502 @DIR@/missing.http\n  errorfile 500 @DIR@/bad.http\n"
		 "  errorfile 504\n  errorfile 504 @DIR@/503.http\n", &r);
	CHECK_INT(r.errors, 4);
	PXT_HAS(&r, "t.cfg:9] : errorfile : status code '999' not handled.");
	PXT_HAS(&r, "t.cfg:10] : errorfile : error opening file '");
	PXT_HAS(&r, "t.cfg:11] : errorfile : '");
	PXT_HAS(&r, "bad.http': unable to parse headers (error offset: 0)");
	PXT_HAS(&r, "t.cfg:12] : errorfile : expects <status_code> and <file> as arguments.");
	fe = proxy_find("fe", PR_CAP_FE);
	CHECK(fe != NULL);
	if (fe) {
		ef = proxy_errorfile(fe, 503);
		CHECK(ef && ef->msg.len == strlen("HTTP/1.1 503 Service Unavailable\r\nContent-Type"
						  ": text/html\r\nContent-Length: 4\r\n\r\nbusy"));
		CHECK(proxy_errorfile(fe, 504) != NULL);
		CHECK(proxy_errorfile(fe, 502) == NULL);
		CHECK_INT(fe->nb_errorfiles, 2);
	}
	pxt_cleanup();
}

TEST(proxy_cfg_http_rules)
{
	struct pxt_run r;
	struct act_rule *rule;
	struct proxy *fe;
	int n = 0;

	pxt_setup();
	pxt_write("body.txt", "file body\n");
	pxt_load("defaults\n  mode http\n" PXT_TIMEOUTS
		 "frontend fe\n  bind :1\n"
		 "  http-request return status 201 content-type text/plain string hi hdr X-A 1 "
		 "hdr Content-Length 9\n"
		 "  http-request return content-type text/plain file @DIR@/body.txt\n"
		 "  http-request deny deny_status 429\n"
		 "  http-request set-header X-Pct 100%%\n"
		 "  http-request add-header X-B b\n"
		 "  http-request del-header X-C\n"
		 "  http-response set-header X-D d\n"
		 "  http-response deny\n"
		 "  http-request set-header X-E %[nosuchfetch]\n"
		 "  http-request deny if NOSUCHACL\n"
		 "  http-request lua.foo\n"
		 "  http-request frob\n"
		 "  http-request return string x\n"
		 "  http-request return status 204 content-type a/b string x\n"
		 "  http-request set-header X\n"
		 "  http-request deny deny_status 302\n"
		 "  http-response return\n"
		 "defaults\n  http-request deny\n"
		 "defaults named\n  http-response deny\n", &r);
	PXT_HAS(&r, "t.cfg:16] : error detected in frontend 'fe' while parsing 'http-request "
		"set-header' rule : unknown fetch method 'nosuchfetch'.");
	PXT_HAS(&r, "t.cfg:17] : error detected in frontend 'fe' while parsing 'http-request "
		"deny' rule : no such ACL : 'NOSUCHACL'.");
	PXT_HAS(&r, "t.cfg:18] : error detected in frontend 'fe' while parsing "
		"'http-request lua.foo' rule : Lua action 'foo' not found.");
	PXT_HAS(&r, "t.cfg:19] : 'http-request' expects ");
	PXT_HAS(&r, "t.cfg:20] : error detected in frontend 'fe' while parsing 'http-request "
		"return' rule : a content type must be defined when non-empty payload is "
		"configured.");
	PXT_HAS(&r, "t.cfg:21] : error detected in frontend 'fe' while parsing 'http-request "
		"return' rule : No body expected for 204 responses.");
	PXT_HAS(&r, "t.cfg:22] : error detected in frontend 'fe' while parsing 'http-request "
		"set-header' rule : expects exactly 2 arguments.");
	PXT_HAS(&r, "t.cfg:23] : error detected in frontend 'fe' while parsing 'http-request "
		"deny' rule : status code '302' not handled by default with "
		"'default-errorfiles' argument.");
	PXT_HAS(&r, "t.cfg:26] : 'http-request' not allowed in anonymous 'defaults' section.");
	CHECK_INT(r.errors, 9);
	fe = proxy_find("fe", PR_CAP_FE);
	CHECK(fe != NULL);
	if (!fe)
		goto out;
	list_for_each_entry(rule, &fe->http_req_rules, list) {
		switch (n++) {
		case 0:
			CHECK(!strcmp(rule->kw, "return"));
			CHECK_INT(rule->arg.reply->status, 201);
			CHECK(ist_eq(rule->arg.reply->ctype, IST("text/plain")));
			CHECK(ist_eq(rule->arg.reply->body, IST("hi")));
			CHECK_INT(rule->arg.reply->nb_hdrs, 1); /* content-length is ignored */
			CHECK_INT(rule->line, 8);
			break;
		case 1:
			CHECK_INT(rule->arg.reply->status, 200);
			CHECK(ist_eq(rule->arg.reply->body, IST("file body\n")));
			break;
		case 2:
			CHECK(!strcmp(rule->kw, "deny"));
			CHECK_INT(rule->arg.reply->status, 429);
			break;
		case 3:
			CHECK(!strcmp(rule->kw, "set-header"));
			CHECK(ist_eq(rule->arg.hdr.name, IST("X-Pct")));
			break;
		case 5:
			CHECK(!strcmp(rule->kw, "del-header"));
			CHECK(ist_eq(rule->arg.hdr.name, IST("X-C")));
			break;
		}
	}
	CHECK_INT(n, 6);
	n = 0;
	list_for_each_entry(rule, &fe->http_res_rules, list) {
		if (n++ == 1) {
			CHECK(!strcmp(rule->kw, "deny"));
			CHECK_INT(rule->arg.reply->status, 502);
		}
	}
	CHECK_INT(n, 3);
out:
	pxt_cleanup();
}

TEST(proxy_cfg_section_lines)
{
	struct pxt_run r;

	pxt_setup();
	pxt_load("defaults\n  mode http\n" PXT_TIMEOUTS
		 "frontend\n  bind :1\n"
		 "backend b@d\n"
		 "frontend fe extra\n"
		 "backend ok\n  server s 127.0.0.1:1\n  use_backend ok\n  default_backend ok\n"
		 "  maxconn 10\n"
		 "frontend fe2\n  bind :2\n  server s 127.0.0.1:1\n  balance roundrobin\n"
		 "  use_backend ok if TRUE\n  use_backend ok\n", &r);
	PXT_HAS(&r, "t.cfg:6] : 'frontend' expects <name> as an argument.");
	PXT_HAS(&r, "t.cfg:8] : character '@' is not permitted in 'backend' name 'b@d'.");
	PXT_HAS(&r, "t.cfg:9] : 'frontend' cannot handle unexpected argument 'extra'.");
	PXT_HAS(&r, "t.cfg:12] : 'use_backend' ignored because backend 'ok' has no frontend "
		"capability.");
	PXT_HAS(&r, "t.cfg:14] : 'maxconn' ignored because backend 'ok' has no frontend "
		"capability. Maybe you want 'fullconn' instead ?");
	PXT_HAS(&r, "t.cfg:17] : 'server' not allowed because frontend 'fe2' has no backend "
		"capability.");
	PXT_HAS(&r, "t.cfg:18] : 'balance' ignored because frontend 'fe2' has no backend "
		"capability.");
	CHECK_INT(r.errors, 4); /* use_backend with a condition is fine */
	CHECK_INT(r.check, 0);
	pxt_cleanup();
}

TEST(proxy_cfg_rules_keep_framing_headers)
{
	struct pxt_run r;

	pxt_setup();
	pxt_load("defaults\n  mode http\n" PXT_TIMEOUTS
		 "listen l\n  bind 127.0.0.1:1\n"
		 "  http-request set-header Content-Length 5\n"
		 "  http-request del-header transfer-encoding\n"
		 "  http-response add-header Connection close\n"
		 "  http-request del-header Connection\n"
		 "  server s 127.0.0.1:2\n", &r);
	PXT_HAS(&r, "t.cfg:8] : error detected in proxy 'l' while parsing 'http-request "
		"set-header' rule : header 'Content-Length' carries the message framing");
	PXT_HAS(&r, "t.cfg:9] : error detected");
	PXT_HAS(&r, "t.cfg:10] : error detected in proxy 'l' while parsing 'http-response "
		"add-header' rule : the proxy writes the 'connection' header itself");
	CHECK_INT(r.errors, 3); /* del-header Connection is fine: the proxy drops it anyway */
	pxt_cleanup();
}

/* Health-check settings: server options, option httpchk (old form with headers in VER),
 * http-check, defaults sharing, and the refusals, each naming its line. */
TEST(proxy_cfg_health_checks)
{
	struct pxt_run r;
	struct proxy *be, *b2;
	char err[2048];
	int saved, errs;

	pxt_setup();
	pxt_load("defaults\n  mode http\n" PXT_TIMEOUTS "  option httpchk GET /d\n"
		 "backend be\n  option httpchk HEAD /h \"HTTP/1.1\\r\\nHost:\\ x\"\n"
		 "  http-check expect ! rstatus ^5\n  http-check disable-on-404\n"
		 "  server s 127.0.0.1:1 check inter 500 fastinter 100 downinter 3s rise 4 fall 5 "
		 "port 81 addr 127.0.0.2\n"
		 "  server t 127.0.0.1:2 check rise 0\n"
		 "  http-check send foo x\n"
		 "  server u 127.0.0.1:3 socks4 127.0.0.1:1080\n  option spop-check\n"
		 "backend b2\n  http-check send meth POST uri /p ver HTTP/1.1 hdr Host h body hi\n"
		 "  http-check expect string up\n  server s 127.0.0.1:1 check\n"
		 "  server n 127.0.0.1 check\n",
		 &r);
	PXT_HAS(&r, "t.cfg:12] : 'server be/t' : 'rise' expects an integer argument between 1");
	PXT_HAS(&r, "t.cfg:13] : 'http-check send' : unknown parameter 'foo'");
	PXT_HAS(&r, "t.cfg:14] : 'server be/u' : option 'socks4' is not supported yet");
	PXT_HAS(&r, "t.cfg:15] : 'option spop-check' is not supported yet");
#ifdef USE_PCRE2
	CHECK_INT(r.errors, 4);
#else
	CHECK_INT(r.errors, 5); /* and the rstatus regex of line 9, refused without PCRE2 */
#endif
	saved = test_capture_begin(pxt_dir);
	errs = check_cfg_check_all();
	test_capture_end(saved, pxt_dir, err, sizeof(err));
#ifdef USE_PCRE2
	CHECK_INT(errs, 1);
#else
	CHECK_INT(errs, 2); /* the aarch64 check builds without PCRE2: rstatus is refused */
#endif
	CHECK_HAS(err, "t.cfg:20] : 'server b2/n' : server has neither service port nor check port");
	be = proxy_find("be", PR_CAP_BE);
	b2 = proxy_find("b2", PR_CAP_BE);
	CHECK(be && b2 && be->srv && b2->srv);
	if (be && be->srv && be->chk) {
		CHECK(be->srv->flags & SRV_F_CHECK);
		CHECK_INT(be->srv->inter, 500);
		CHECK_INT(be->srv->fastinter, 100);
		CHECK_INT(be->srv->downinter, 3000);
		CHECK_INT(be->srv->rise, 4);
		CHECK_INT(be->srv->fall, 5);
		CHECK_INT(be->srv->check_port, 81);
		CHECK_INT(be->srv->check_addr.ss_family, AF_INET);
		CHECK_STR(be->chk->req, "HEAD /h HTTP/1.1\r\nHost: x\r\n\r\n");
		CHECK_INT(be->chk->exp.kind, CHK_EXP_RSTATUS);
		CHECK(be->chk->exp.negate);
		CHECK(be->chk->exp.disable_on_404);
#ifdef USE_PCRE2
		CHECK(be->chk->exp.re);
#endif
	} else {
		CHECK(!"be has no HTTP check");
	}
	if (b2 && b2->chk) { /* the defaults' "option httpchk" enables it; send overrides */
		CHECK_STR(b2->chk->req, "POST /p HTTP/1.1\r\nHost: h\r\ncontent-length: 2\r\n"
			  "\r\nhi");
		CHECK_INT(b2->chk->exp.kind, CHK_EXP_STRING);
		CHECK_INT(b2->srv->inter, 2000);
		CHECK_INT(b2->srv->rise, 2);
		CHECK_INT(b2->srv->fall, 3);
	} else {
		CHECK(!"b2 has no HTTP check");
	}
	pxt_cleanup();
}
