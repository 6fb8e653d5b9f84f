/* Unit tests for base/addr: bind and server address forms, ports and ranges, prefixes,
 * unix paths, fd@N, errors, formatting and name resolution of "localhost".
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/un.h>

#include <base/addr.h>
#include "../test.h"

#define BIND_F (ADDR_F_PORT_RANGE | ADDR_F_FD)

static char addrt_err[256];

/* Parses <s> and formats the result with addr_to_str (empty string on error). */
static const char *addrt_fmt(const char *s, unsigned int flags, struct addr_res *res)
{
	static char buf[128];

	buf[0] = 0;
	if (addr_parse(s, flags, res, addrt_err, sizeof(addrt_err)) == ADDR_OK)
		addr_to_str(&res->ss, buf, sizeof(buf));
	return buf;
}

TEST(addr_ipv4_forms)
{
	struct addr_res r;

	CHECK_STR(addrt_fmt("1.2.3.4:80", 0, &r), "1.2.3.4:80");
	CHECK_INT(r.ss.ss_family, AF_INET);
	CHECK_INT(r.len, sizeof(struct sockaddr_in));
	CHECK_INT(r.port_lo, 80);
	CHECK_INT(r.port_hi, 80);
	CHECK_INT(r.fd, -1);
	CHECK_STR(addrt_fmt("*:8080", 0, &r), "0.0.0.0:8080");
	CHECK_STR(addrt_fmt(":8080", 0, &r), "0.0.0.0:8080");
	CHECK_STR(addrt_fmt("ipv4@127.0.0.1:1", 0, &r), "127.0.0.1:1");
	CHECK_STR(addrt_fmt("tcp4@:65535", 0, &r), "0.0.0.0:65535");
}

TEST(addr_ipv6_forms)
{
	struct addr_res r;

	CHECK_STR(addrt_fmt(":::8080", 0, &r), "[::]:8080");
	CHECK_INT(r.ss.ss_family, AF_INET6);
	CHECK_INT(r.len, sizeof(struct sockaddr_in6));
	CHECK_STR(addrt_fmt("[::1]:80", 0, &r), "[::1]:80");
	CHECK_STR(addrt_fmt("::1:80", 0, &r), "[::1]:80");
	CHECK_STR(addrt_fmt("ipv6@:80", 0, &r), "[::]:80");
	CHECK_STR(addrt_fmt("ipv6@*:80", 0, &r), "[::]:80");
	CHECK_STR(addrt_fmt("tcp6@[2001:db8::1]:443", 0, &r), "[2001:db8::1]:443");
	CHECK_STR(addrt_fmt("tcp@[::1]:80", 0, &r), "[::1]:80");
	/* an IPv4 literal with ipv6@ is not an IPv6 address */
	CHECK_INT(addr_parse("ipv6@1.2.3.4:80", 0, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_INT(addr_parse("[::1]80", 0, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_INT(addr_parse("[1.2.3.4]:80", 0, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
}

TEST(addr_ports)
{
	struct addr_res r;

	CHECK_INT(addr_parse(":80-85", BIND_F, &r, addrt_err, sizeof(addrt_err)), ADDR_OK);
	CHECK_INT(r.port_lo, 80);
	CHECK_INT(r.port_hi, 85);
	CHECK_INT(addr_parse(":80-80", BIND_F, &r, addrt_err, sizeof(addrt_err)), ADDR_OK);
	CHECK_INT(addr_parse(":85-80", BIND_F, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_STR(addrt_err, "invalid port range '85-80'");
	CHECK_INT(addr_parse(":80-85", 0, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_INT(addr_parse(":0", BIND_F, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_STR(addrt_err, "invalid port '0'");
	CHECK_INT(addr_parse(":70000", BIND_F, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_INT(addr_parse(":123456", BIND_F, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_INT(addr_parse(":8a", BIND_F, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_INT(addr_parse("1.2.3.4", BIND_F, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_STR(addrt_err, "missing port specification in '1.2.3.4'");
	CHECK_INT(addr_parse("1.2.3.4:", BIND_F, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_INT(addr_parse("1.2.3.4:+1", 0, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK(strstr(addrt_err, "only for servers") != NULL);
	CHECK_INT(addr_parse("", 0, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
}

/* Servers: no port, or an offset, means the client's destination port (+ the offset). */
TEST(addr_port_map)
{
	const unsigned int f = ADDR_F_PORT_MAP;
	struct addr_res r;

	CHECK_INT(addr_parse("1.2.3.4", f, &r, addrt_err, sizeof(addrt_err)), ADDR_OK);
	CHECK(r.port_map && r.port_off == 0 && r.ss.ss_family == AF_INET);
	CHECK_INT(addr_parse("1.2.3.4:+10", f, &r, addrt_err, sizeof(addrt_err)), ADDR_OK);
	CHECK(r.port_map && r.port_off == 10);
	CHECK_INT(addr_parse("1.2.3.4:-1000", f, &r, addrt_err, sizeof(addrt_err)), ADDR_OK);
	CHECK(r.port_map && r.port_off == -1000);
	CHECK_INT(addr_parse("1.2.3.4:+0", f, &r, addrt_err, sizeof(addrt_err)), ADDR_OK);
	CHECK(r.port_map && r.port_off == 0);
	CHECK_INT(addr_parse("[::1]", f, &r, addrt_err, sizeof(addrt_err)), ADDR_OK);
	CHECK(r.port_map && r.ss.ss_family == AF_INET6);
	CHECK_INT(addr_parse("[::1]:-2", f, &r, addrt_err, sizeof(addrt_err)), ADDR_OK);
	CHECK(r.port_map && r.port_off == -2);
	CHECK_INT(addr_parse("1.2.3.4:80", f, &r, addrt_err, sizeof(addrt_err)), ADDR_OK);
	CHECK(!r.port_map && r.port_lo == 80);
	CHECK_INT(addr_parse("1.2.3.4:+x", f, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_INT(addr_parse("1.2.3.4:+", f, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_INT(addr_parse("1.2.3.4:+70000", f, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_INT(addr_parse("1.2.3.4:", f, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_INT(addr_parse("localhost", f | ADDR_F_HOSTNAME, &r, addrt_err, sizeof(addrt_err)),
		  ADDR_HOSTNAME);
	CHECK(r.port_map);
}

TEST(addr_unix_and_fd)
{
	struct addr_res r;
	char longpath[200];

	CHECK_STR(addrt_fmt("/tmp/hapx.sock", 0, &r), "/tmp/hapx.sock");
	CHECK_INT(r.ss.ss_family, AF_UNIX);
	CHECK_INT(r.len, offsetof(struct sockaddr_un, sun_path) + strlen("/tmp/hapx.sock") + 1);
	CHECK_STR(addrt_fmt("unix@/run/x", 0, &r), "/run/x");
	CHECK_STR(addrt_fmt("unix@rel.sock", 0, &r), "rel.sock");
	CHECK_INT(addr_parse("unix@", 0, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = 0;
	CHECK_INT(addr_parse(longpath, 0, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);

	CHECK_INT(addr_parse("fd@3", BIND_F, &r, addrt_err, sizeof(addrt_err)), ADDR_OK);
	CHECK_INT(r.fd, 3);
	CHECK_INT(addr_parse("fd@0", BIND_F, &r, addrt_err, sizeof(addrt_err)), ADDR_OK);
	CHECK_INT(r.fd, 0);
	CHECK_INT(addr_parse("fd@3", 0, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_INT(addr_parse("fd@", BIND_F, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_INT(addr_parse("fd@x", BIND_F, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_INT(addr_parse("fd@99999999999", BIND_F, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_INT(addr_parse("abns@foo", BIND_F, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK(strstr(addrt_err, "'abns@'") && strstr(addrt_err, "not supported yet"));
}

TEST(addr_hostnames)
{
	struct addr_res r;
	char buf[64];

	CHECK_INT(addr_parse("foo:80", 0, &r, addrt_err, sizeof(addrt_err)), ADDR_ERR);
	CHECK_STR(addrt_err, "invalid address: 'foo' in 'foo:80'");
	CHECK_INT(addr_parse("localhost:80", ADDR_F_HOSTNAME, &r, addrt_err, sizeof(addrt_err)),
		  ADDR_HOSTNAME);
	CHECK_STR(r.host, "localhost");
	CHECK_INT(r.port_lo, 80);
	CHECK_INT(addr_parse("ipv4@localhost:81", ADDR_F_HOSTNAME, &r, addrt_err,
			     sizeof(addrt_err)), ADDR_HOSTNAME);
	CHECK_INT(addr_resolve(&r, addrt_err, sizeof(addrt_err)), 0);
	CHECK_STR(addr_to_str(&r.ss, buf, sizeof(buf)), "127.0.0.1:81");
	/* something that looks like a broken IPv6 literal is never a host name */
	CHECK_INT(addr_parse("1::2::3:80", ADDR_F_HOSTNAME, &r, addrt_err, sizeof(addrt_err)),
		  ADDR_ERR);
	CHECK_INT(addr_parse("nosuchhost.invalid:80", ADDR_F_HOSTNAME, &r, addrt_err,
			     sizeof(addrt_err)), ADDR_HOSTNAME);
	CHECK_INT(addr_resolve(&r, addrt_err, sizeof(addrt_err)), -1);
	CHECK(strstr(addrt_err, "nosuchhost.invalid") != NULL);
}
