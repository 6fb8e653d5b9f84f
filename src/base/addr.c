/* Socket address parsing for "bind" and "server" lines (see base/addr.h). addr_parse() and
 * addr_to_str() are pure; addr_resolve() is the one blocking name lookup, kept here so that
 * "bind" and "server" resolve names the same way, and called only while parsing the config.
 */
#include <arpa/inet.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include <base/addr.h>

struct addr_prefix {
	const char *name;
	int family;               /* AF_INET, AF_INET6, AF_UNSPEC (tcp@), AF_UNIX, -1: fd */
};

static const struct addr_prefix addr_prefixes[] = {
	{ "ipv4@", AF_INET },
	{ "ipv6@", AF_INET6 },
	{ "tcp@", AF_UNSPEC },
	{ "tcp4@", AF_INET },
	{ "tcp6@", AF_INET6 },
	{ "unix@", AF_UNIX },
	{ "fd@", -1 },
	{ NULL, 0 },
};

/* Finds the family prefix of <str>. Returns the prefix entry and advances *rest past it;
 * returns NULL with *rest == str when there is no "xxx@" prefix; sets *unknown when an
 * unknown "xxx@" prefix is present (abns@, udp@, sockpair@...).
 */
static const struct addr_prefix *addr_find_prefix(const char *str, const char **rest,
						  int *unknown)
{
	const struct addr_prefix *pf;
	const char *at = strchr(str, '@');

	*rest = str;
	*unknown = 0;
	if (!at || memchr(str, ':', at - str) || memchr(str, '/', at - str) ||
	    memchr(str, '[', at - str))
		return NULL;
	for (pf = addr_prefixes; pf->name; pf++) {
		if (strncmp(str, pf->name, strlen(pf->name)) == 0) {
			*rest = str + strlen(pf->name);
			return pf;
		}
	}
	*unknown = 1;
	return NULL;
}

/* Parses a decimal port "N" in 1..65535 from [s, end). Returns the port or -1. */
static int addr_parse_port(const char *s, const char *end)
{
	long v = 0;

	if (s == end || end - s > 5)
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (*s - '0');
	}
	return (v >= 1 && v <= 65535) ? (int)v : -1;
}

/* Parses the port part "N" or "N-M" (with ADDR_F_PORT_RANGE) into res. */
static int addr_parse_ports(const char *port, unsigned int flags, struct addr_res *res,
			    const char *str, char *err, size_t errsz)
{
	const char *end = port + strlen(port);
	const char *dash = strchr(port, '-');

	if (!*port) {
		snprintf(err, errsz, "missing port specification in '%s'", str);
		return ADDR_ERR;
	}
	if (*port == '+' || *port == '-') {
		int off = end - port > 1 ? addr_parse_port(port + 1, end) : -1;

		if (!(flags & ADDR_F_PORT_MAP)) {
			snprintf(err, errsz, "port offsets ('+N'/'-N') are only for servers, in '%s'",
				 str);
			return ADDR_ERR;
		}
		if (off < 0 && strcmp(port + 1, "0") != 0) {
			snprintf(err, errsz, "invalid port offset '%s'", port);
			return ADDR_ERR;
		}
		res->port_map = 1;
		res->port_off = *port == '-' ? -(off < 0 ? 0 : off) : (off < 0 ? 0 : off);
		res->port_lo = res->port_hi = 0;
		return ADDR_OK;
	}
	if (dash && (flags & ADDR_F_PORT_RANGE)) {
		res->port_lo = addr_parse_port(port, dash);
		res->port_hi = addr_parse_port(dash + 1, end);
		if (res->port_lo < 0 || res->port_hi < 0 || res->port_hi < res->port_lo) {
			snprintf(err, errsz, "invalid port range '%s'", port);
			return ADDR_ERR;
		}
		return ADDR_OK;
	}
	res->port_lo = res->port_hi = addr_parse_port(port, end);
	if (res->port_lo < 0) {
		snprintf(err, errsz, "invalid port '%s'", port);
		return ADDR_ERR;
	}
	return ADDR_OK;
}

/* Fills res->ss with the literal address <host> (may be "" or "*" for "any") and the low
 * port. Returns ADDR_OK, ADDR_HOSTNAME or ADDR_ERR.
 */
static int addr_set_host(const char *host, int bracketed, unsigned int flags,
			 struct addr_res *res, const char *str, char *err, size_t errsz)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&res->ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&res->ss;
	int any = !*host || strcmp(host, "*") == 0;

	if (!bracketed && res->family != AF_INET6 &&
	    (any || inet_pton(AF_INET, host, &sin->sin_addr) == 1)) {
		if (any)
			sin->sin_addr.s_addr = htonl(INADDR_ANY);
		sin->sin_family = AF_INET;
		sin->sin_port = htons(res->port_lo);
		res->len = sizeof(*sin);
		return ADDR_OK;
	}
	if (res->family != AF_INET && (any || inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1)) {
		if (any)
			sin6->sin6_addr = in6addr_any;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(res->port_lo);
		res->len = sizeof(*sin6);
		return ADDR_OK;
	}
	if (!(flags & ADDR_F_HOSTNAME) || bracketed || strchr(host, ':')) {
		snprintf(err, errsz, "invalid address: '%s' in '%s'", host, str);
		return ADDR_ERR;
	}
	if (strlen(host) >= sizeof(res->host)) {
		snprintf(err, errsz, "host name too long in '%s'", str);
		return ADDR_ERR;
	}
	memcpy(res->host, host, strlen(host) + 1);
	return ADDR_HOSTNAME;
}

/* Parses "host:port", "[v6]:port", ":port", "*:port", "v6::port". */
static int addr_parse_inet(const char *s, unsigned int flags, struct addr_res *res,
			   const char *str, char *err, size_t errsz)
{
	char host[ADDR_HOST_MAX];
	const char *colon, *port;
	size_t hlen;
	int bracketed = 0;
	int ret;

	if (*s == '[') {
		const char *rb = strchr(s, ']');

		if (rb && !rb[1] && (flags & ADDR_F_PORT_MAP) && rb - s - 1 < (long)sizeof(host)) {
			/* "[v6]" without a port: the client's destination port */
			memcpy(host, s + 1, (size_t)(rb - s - 1));
			host[rb - s - 1] = 0;
			res->port_map = 1;
			res->port_off = 0;
			return addr_set_host(host, 1, flags, res, str, err, errsz);
		}
		if (!rb || rb[1] != ':') {
			snprintf(err, errsz, "invalid address: '%s' (expected '[ipv6]:port')", str);
			return ADDR_ERR;
		}
		bracketed = 1;
		s++;
		hlen = rb - s;
		port = rb + 2;
	} else {
		colon = strrchr(s, ':');
		if (!colon && (flags & ADDR_F_PORT_MAP)) {
			/* no port: the client's destination port */
			res->port_map = 1;
			res->port_off = 0;
			res->port_lo = res->port_hi = 0;
			return addr_set_host(s, 0, flags, res, str, err, errsz);
		}
		if (!colon) {
			snprintf(err, errsz, "missing port specification in '%s'", str);
			return ADDR_ERR;
		}
		hlen = colon - s;
		port = colon + 1;
	}
	if (hlen >= sizeof(host)) {
		snprintf(err, errsz, "host name too long in '%s'", str);
		return ADDR_ERR;
	}
	memcpy(host, s, hlen);
	host[hlen] = 0;
	ret = addr_parse_ports(port, flags, res, str, err, errsz);
	if (ret != ADDR_OK)
		return ret;
	return addr_set_host(host, bracketed, flags, res, str, err, errsz);
}

static int addr_parse_unix(const char *path, struct addr_res *res, const char *str, char *err,
			   size_t errsz)
{
	struct sockaddr_un *sun = (struct sockaddr_un *)&res->ss;
	size_t len = strlen(path);

	if (!len) {
		snprintf(err, errsz, "missing socket path in '%s'", str);
		return ADDR_ERR;
	}
	if (len >= sizeof(sun->sun_path)) {
		snprintf(err, errsz, "socket path '%s' is too long (max %zu characters)", path,
			 sizeof(sun->sun_path) - 1);
		return ADDR_ERR;
	}
	sun->sun_family = AF_UNIX;
	memcpy(sun->sun_path, path, len + 1);
	res->len = offsetof(struct sockaddr_un, sun_path) + len + 1;
	return ADDR_OK;
}

static int addr_parse_fd(const char *num, unsigned int flags, struct addr_res *res,
			 const char *str, char *err, size_t errsz)
{
	long v = 0;
	const char *p = num;

	if (!(flags & ADDR_F_FD)) {
		snprintf(err, errsz, "'fd@' addresses are only valid on 'bind' lines ('%s')", str);
		return ADDR_ERR;
	}
	if (!*p)
		goto bad;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || v > INT_MAX / 10)
			goto bad;
		v = v * 10 + (*p - '0');
	}
	if (v > INT_MAX)
		goto bad;
	res->fd = (int)v;
	return ADDR_OK;
bad:
	snprintf(err, errsz, "invalid file descriptor number in '%s'", str);
	return ADDR_ERR;
}

/* See base/addr.h. */
const char *addr_expand_fd_env(const char *str, char *buf, size_t size)
{
	const char *end, *val;
	char name[128];

	if (strncmp(str, "fd@${", 5) != 0)
		return str;
	end = strchr(str + 5, '}');
	if (!end || end[1] || (size_t)(end - str - 5) >= sizeof(name))
		return NULL;
	memcpy(name, str + 5, end - str - 5);
	name[end - str - 5] = 0;
	val = getenv(name);
	if (!val || (size_t)snprintf(buf, size, "fd@%s", val) >= size)
		return NULL;
	return buf;
}

int addr_parse(const char *str, unsigned int flags, struct addr_res *res, char *err, size_t errsz)
{
	const struct addr_prefix *pf;
	const char *rest;
	int unknown;

	memset(res, 0, sizeof(*res));
	res->fd = -1;
	res->family = AF_UNSPEC;
	if (errsz)
		*err = 0;
	pf = addr_find_prefix(str, &rest, &unknown);
	if (unknown) {
		snprintf(err, errsz, "address family '%.*s@' in '%s' is not supported yet",
			 (int)(strchr(str, '@') - str), str, str);
		return ADDR_ERR;
	}
	if (pf && pf->family == -1)
		return addr_parse_fd(rest, flags, res, str, err, errsz);
	if ((pf && pf->family == AF_UNIX) || (!pf && *str == '/'))
		return addr_parse_unix(rest, res, str, err, errsz);
	if (pf)
		res->family = pf->family;
	if (!*rest) {
		snprintf(err, errsz, "missing address in '%s'", str);
		return ADDR_ERR;
	}
	return addr_parse_inet(rest, flags, res, str, err, errsz);
}

char *addr_to_str(const struct sockaddr_storage *ss, char *buf, size_t size)
{
	char ip[INET6_ADDRSTRLEN];

	if (!size)
		return buf;
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
		snprintf(buf, size, "%s:%d", ip, ntohs(sin->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &sin6->sin6_addr, ip, sizeof(ip));
		snprintf(buf, size, "[%s]:%d", ip, ntohs(sin6->sin6_port));
	} else if (ss->ss_family == AF_UNIX) {
		const struct sockaddr_un *sun = (const struct sockaddr_un *)ss;

		snprintf(buf, size, "%.*s", (int)sizeof(sun->sun_path), sun->sun_path);
	} else {
		snprintf(buf, size, "(unknown family %d)", ss->ss_family);
	}
	return buf;
}

int addr_resolve(struct addr_res *res, char *err, size_t errsz)
{
	struct addrinfo hints, *ai = NULL;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = res->family;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(res->host, NULL, &hints, &ai);
	if (rc != 0 || !ai) {
		snprintf(err, errsz, "could not resolve address '%s': %s", res->host,
			 rc ? gai_strerror(rc) : "no address");
		return -1;
	}
	if (ai->ai_addrlen > sizeof(res->ss) ||
	    (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)) {
		snprintf(err, errsz, "could not resolve address '%s': unusable family", res->host);
		freeaddrinfo(ai);
		return -1;
	}
	memcpy(&res->ss, ai->ai_addr, ai->ai_addrlen);
	res->len = ai->ai_addrlen;
	if (ai->ai_family == AF_INET)
		((struct sockaddr_in *)&res->ss)->sin_port = htons(res->port_lo);
	else
		((struct sockaddr_in6 *)&res->ss)->sin6_port = htons(res->port_lo);
	freeaddrinfo(ai);
	return 0;
}

bool addr_to_str_plain(const struct sockaddr_storage *ss, char *buf, size_t size)
{
	char ip[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		snprintf(buf, size, "%s:%u", ip, ntohs(in->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		snprintf(buf, size, "%s:%u", ip, ntohs(in6->sin6_port));
	} else {
		return false;
	}
	return true;
}
