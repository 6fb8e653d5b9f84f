/* TCP options of frontend and backend sockets (see conn/sockopt.h). Failures are ignored
 * as HAProxy does: a socket without keep-alive or user timeout still carries traffic.
 */
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <conn/sockopt.h>

void sock_set_keepalive(int fd, const struct tcpka *ka)
{
	int one = 1;

	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	if (ka->idle)
		setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &ka->idle, sizeof(ka->idle));
	if (ka->intvl)
		setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &ka->intvl, sizeof(ka->intvl));
	if (ka->cnt)
		setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &ka->cnt, sizeof(ka->cnt));
}

void sock_set_user_timeout(int fd, int ms)
{
	unsigned int v = (unsigned int)ms;

	setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &v, sizeof(v));
}
