/* TCP options set on frontend and backend sockets: keep-alive probes ("option
 * clitcpka"/"srvtcpka" and their -idle/-intvl/-cnt tuning) and TCP_USER_TIMEOUT ("tcp-ut").
 */
#ifndef CONN_SOCKOPT_H
#define CONN_SOCKOPT_H

#include <conn/sockopt-t.h>

/* Enables keep-alive probes on <fd> with the tuning of <ka>. On a listening socket the
 * accepted connections inherit them (Linux), so frontends pay nothing per connection. */
void sock_set_keepalive(int fd, const struct tcpka *ka);

/* TCP_USER_TIMEOUT of <ms> on <fd> (unacknowledged data older than that drops the
 * connection); also inherited from a listening socket. */
void sock_set_user_timeout(int fd, int ms);

#endif
