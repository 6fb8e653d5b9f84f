/* Addresses and TCP state of a connection's socket that the sample fetches read (dst,
 * dst_is_local, fc_rtt, bc_src...): read from the kernel on demand, the local address
 * only once per connection. Owner thread of the connection.
 */
#ifndef CONN_CONN_ADDR_H
#define CONN_CONN_ADDR_H

#include <stdbool.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

struct conn;

/* The address of <c>'s own end (the destination of a client connection, the source of a
 * server one), IPv4 or IPv6; NULL for other families or when it cannot be read. */
const struct sockaddr *conn_local_addr(struct conn *c);

/* The kernel's TCP_INFO of <c>'s socket into *ti; 0, or -1 (not TCP, closed...). */
int conn_tcp_info(const struct conn *c, struct tcp_info *ti);

/* True when <sa> (IPv4 or IPv6) is an address of this host, i.e. a socket may bind to
 * it. One socket() and bind() per call. */
bool addr_is_local(const struct sockaddr *sa);

#endif
