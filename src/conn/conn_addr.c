/* Addresses and TCP state of a connection's socket for the sample fetches: its local
 * address read once with getsockname() (for an IPv4 client, the destination before a
 * netfilter REDIRECT/DNAT, SO_ORIGINAL_DST, as HAProxy) and kept in the connection,
 * TCP_INFO, and whether an address belongs to this host.
 */
#include <string.h>
#include <unistd.h>

#include <conn/conn_addr.h>
#include <conn/connection-t.h>

#ifndef SO_ORIGINAL_DST
#define SO_ORIGINAL_DST 80 /* <linux/netfilter_ipv4.h>, which clashes with <netinet/in.h> */
#endif

const struct sockaddr *conn_local_addr(struct conn *c)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (c->flags & CO_FL_LOCAL_SET)
		return (const struct sockaddr *)&c->local;
	if (c->h.fd < 0 || getsockname(c->h.fd, (struct sockaddr *)&ss, &len) < 0)
		return NULL;
	/* IPv4 only: a v4-mapped IPv6 socket would report an IPv4 address (as HAProxy);
	 * it fails without conntrack or NAT, leaving getsockname()'s answer */
	if (ss.ss_family == AF_INET && !(c->flags & CO_FL_BACK)) {
		struct sockaddr_in orig;
		socklen_t olen = sizeof(orig);

		if (getsockopt(c->h.fd, SOL_IP, SO_ORIGINAL_DST, &orig, &olen) == 0 &&
		    orig.sin_family == AF_INET)
			memcpy(&ss, &orig, sizeof(orig));
	}
	if (ss.ss_family == AF_INET)
		memcpy(&c->local.in, &ss, sizeof(c->local.in));
	else if (ss.ss_family == AF_INET6)
		memcpy(&c->local.in6, &ss, sizeof(c->local.in6));
	else
		return NULL;
	c->flags |= CO_FL_LOCAL_SET;
	return (const struct sockaddr *)&c->local;
}

int conn_tcp_info(const struct conn *c, struct tcp_info *ti)
{
	socklen_t len = sizeof(*ti);

	if (c->h.fd < 0 || (c->peer.ss_family != AF_INET && c->peer.ss_family != AF_INET6))
		return -1;
	memset(ti, 0, sizeof(*ti));
	return getsockopt(c->h.fd, IPPROTO_TCP, TCP_INFO, ti, &len) < 0 ? -1 : 0;
}

bool addr_is_local(const struct sockaddr *sa)
{
	struct sockaddr_storage ss;
	socklen_t len;
	bool local;
	int fd;

	if (sa->sa_family == AF_INET)
		len = sizeof(struct sockaddr_in);
	else if (sa->sa_family == AF_INET6)
		len = sizeof(struct sockaddr_in6);
	else
		return false;
	memcpy(&ss, sa, len);
	/* port 0: any free port, so only the address decides */
	if (ss.ss_family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&ss)->sin6_port = 0;
	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	local = bind(fd, (struct sockaddr *)&ss, len) == 0;
	close(fd);
	return local;
}
