/* dns/: resolvers sections and server options as parsed (dns_cfg.c, dns_srv_cfg.c,
 * dns_tmpl_cfg.c), and the address publication of dns_addr.h under a concurrent writer. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include <backend/server.h>
#include <cfg/cfg.h>
#include <dns/dns.h>
#include <dns/dns_addr.h>
#include <proxy/proxy.h>

#include "../test.h"

static char dnst_dir[64];

/* Loads <text> and runs the DNS check; returns the number of new errors, stderr in err. */
static int dnst_load(const char *text, char *err, size_t errsz)
{
	char path[128];
	int e0 = cfg_errors, saved;

	proxy_deinit_all();
	dns_release();
	test_tmpdir(dnst_dir, "dnstest");
	test_write_file(dnst_dir, "t.cfg", text);
	snprintf(path, sizeof(path), "%s/t.cfg", dnst_dir);
	saved = test_capture_begin(dnst_dir);
	cfg_load_path(path);
	dns_cfg_check();
	dns_srv_init_last_check(); /* "last" and unresolved names: after the state files */
	test_capture_end(saved, dnst_dir, err, errsz);
	test_rmdir(dnst_dir);
	return cfg_errors - e0;
}

static void dnst_cleanup(void)
{
	proxy_deinit_all();
	dns_release();
}

TEST(dns_cfg_resolvers_and_servers)
{
	char err[4096];
	struct dns_resolvers *r;
	struct server *s;

	CHECK_INT(dnst_load("resolvers r1\n"
			    "  nameserver a 127.0.0.1:5353\n"
			    "  nameserver b udp@[::1]:53\n"
			    "  accepted_payload_size 1232\n"
			    "  resolve_retries 5\n"
			    "  timeout resolve 2s\n"
			    "  timeout retry 300ms\n"
			    "  hold nx 5s\n"
			    "  hold valid 20s\n"
			    "backend be\n"
			    "  server s1 localhost:80 resolvers r1 resolve-prefer ipv4 "
			    "resolve-net 10.0.0.0/8,192.168.0.0/255.255.0.0 init-addr none\n"
			    "  server-template w 2-3 nx.invalid:81 resolvers r1 init-addr none "
			    "resolve-opts allow-dup-ip\n",
			    err, sizeof(err)),
		  0);
	r = dns_resolvers_find("r1");
	CHECK(r != NULL);
	if (!r)
		goto out;
	CHECK_INT(r->payload, 1232);
	CHECK_INT(r->retries, 5);
	CHECK_INT(r->t_resolve, 2000);
	CHECK_INT(r->t_retry, 300);
	CHECK_INT(r->hold_nx, 5000);
	CHECK_INT(r->hold_valid, 20000);
	CHECK_INT(r->hold_timeout, 30000);
	CHECK(r->ns && r->ns->next && !r->ns->next->next);
	CHECK_INT(r->ns->next->addr.ss_family, AF_INET6);
	s = proxies ? proxies->srv : NULL;
	CHECK(s && s->dns && (s->flags & SRV_F_RESOLVE));
	if (!s || !s->dns)
		goto out;
	CHECK_INT(s->dns->prefer, AF_INET);
	CHECK_INT(s->dns->nnets, 2);
	CHECK_INT(s->dns->nets[1].plen, 16);
	CHECK(s->dns->maint);
	CHECK_INT(s->dns->port, 80);
	CHECK(r->reqs == s->dns); /* config order */
	s = s->next;
	CHECK(s && !strcmp(s->id, "w2") && s->next && !strcmp(s->next->id, "w3"));
	CHECK(s && s->dns && s->dns->opts == DNS_OPT_ALLOW_DUP && s->dns->port == 81);
out:
	dnst_cleanup();
}

TEST(dns_cfg_errors)
{
	char err[4096];

	CHECK_INT(dnst_load("resolvers r1\n  nameserver a 127.0.0.1\n  bogus 1\n"
			    "  hold valid\n  timeout resolve 0\n",
			    err, sizeof(err)),
		  4);
	CHECK_HAS(err, "t.cfg:2] : 'nameserver a' : invalid address: '127.0.0.1'.");
	CHECK_HAS(err, "t.cfg:3] : unknown keyword 'bogus' in 'resolvers' section");
	CHECK_HAS(err, "t.cfg:4] : 'hold' expects an <event> and a <time> as arguments.");
	CHECK_HAS(err, "t.cfg:5] : 'timeout resolve' expects a positive <time>.");
	dnst_cleanup();
	CHECK_INT(dnst_load("backend be\n  server s1 127.0.0.1:80 resolvers nope\n"
			    "  server s2 nx.invalid:80 init-addr last,none\n"
			    "  server s3 nx.invalid:80 init-addr last\n",
			    err, sizeof(err)),
		  2);
	CHECK_HAS(err, "backend 'be', server 's1': unable to find required resolvers 'nope'");
	CHECK_HAS(err, "t.cfg:4] : 'server be/s3' : no method found to resolve address");
	dnst_cleanup();
}

/* One writer alternates two addresses; readers must always see one of them whole. */
static struct dns_addr_pub dnst_pub;
static int dnst_stop;

static void *dnst_writer(void *arg)
{
	struct sockaddr_storage a = { 0 }, b = { 0 };
	struct sockaddr_in6 *b6 = (struct sockaddr_in6 *)&b;

	a.ss_family = AF_INET;
	((struct sockaddr_in *)&a)->sin_port = htons(80);
	inet_pton(AF_INET, "10.1.2.3", &((struct sockaddr_in *)&a)->sin_addr);
	b6->sin6_family = AF_INET6;
	b6->sin6_port = htons(8080);
	inet_pton(AF_INET6, "2001:db8::ffff:1", &b6->sin6_addr);
	for (int i = 0; i < 200000; i++)
		dns_addr_publish(&dnst_pub, i & 1 ? &b : &a);
	__atomic_store_n(&dnst_stop, 1, __ATOMIC_RELEASE);
	return arg;
}

TEST(dns_addr_publication_is_never_torn)
{
	struct sockaddr_storage ss;
	pthread_t th;
	long bad = 0, reads = 0;

	memset(&dnst_pub, 0, sizeof(dnst_pub));
	CHECK_INT(dns_addr_read(&dnst_pub, &ss), 0);
	dnst_stop = 0;
	if (pthread_create(&th, NULL, dnst_writer, NULL) != 0) {
		CHECK(0);
		return;
	}
	while (!__atomic_load_n(&dnst_stop, __ATOMIC_ACQUIRE)) {
		socklen_t len = dns_addr_read(&dnst_pub, &ss);

		reads++;
		if (len == sizeof(struct sockaddr_in))
			bad += ntohs(((struct sockaddr_in *)&ss)->sin_port) != 80 ||
			       ((struct sockaddr_in *)&ss)->sin_addr.s_addr != htonl(0x0a010203);
		else if (len == sizeof(struct sockaddr_in6))
			bad += ntohs(((struct sockaddr_in6 *)&ss)->sin6_port) != 8080 ||
			       ((struct sockaddr_in6 *)&ss)->sin6_addr.s6_addr[15] != 1;
		else if (len != 0)
			bad++;
	}
	pthread_join(th, NULL);
	CHECK_INT(bad, 0);
	CHECK(reads > 0);
	CHECK_INT(dns_addr_read(&dnst_pub, &ss), sizeof(struct sockaddr_in6));
}
