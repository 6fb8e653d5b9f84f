/* DNS over TCP: for a "nameserver ID tcp@ADDR:PORT", one connection opened when a query is
 * to be sent and kept while the nameserver keeps it; queries are pipelined on it, each
 * with its 2-byte length prefix (RFC 7766), and answers are matched by id as UDP ones.
 * Thread 0's loop only, never blocks: a query that does not fit the output buffer, or
 * that a failed connection loses, is retried by the resolver's timer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <dns/dns_msg.h>
#include <dns/dns_tcp.h>
#include <event/loop.h>

#define DNS_TCP_OUT 16384      /* queued query bytes, at most */
#define DNS_TCP_IN (2 + 65535) /* one whole message with its prefix always fits */
#define DNS_TCP_READS 256      /* recv() calls per readiness edge before giving up */

struct dns_tcp {
	size_t olen, ilen;
	bool connecting; /* connect() in progress: nothing is written before it completes */
	uint8_t out[DNS_TCP_OUT];
	uint8_t in[DNS_TCP_IN];
};

void dns_tcp_close(struct dns_nameserver *ns)
{
	if (ns->h.fd >= 0) {
		fd_unregister(&ns->h);
		close(ns->h.fd);
		ns->h.fd = -1;
	}
	if (ns->tcp) {
		ns->tcp->olen = ns->tcp->ilen = 0;
		ns->tcp->connecting = false;
	}
}

void dns_tcp_free(struct dns_nameserver *ns)
{
	free(ns->tcp);
	ns->tcp = NULL;
}

/* Writes what is queued. Returns 0 (all written, or the socket is full), -1 on error. */
static int dns_tcp_flush(struct dns_nameserver *ns)
{
	struct dns_tcp *t = ns->tcp;

	while (t->olen) {
		ssize_t n = send(ns->h.fd, t->out, t->olen, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		memmove(t->out, t->out + n, t->olen - (size_t)n);
		t->olen -= (size_t)n;
	}
	return 0;
}

/* Hands every complete message of the input buffer to dns_handle(). Returns false when
 * the connection was closed meanwhile (a query sent from the handler failed). */
static bool dns_tcp_deliver(struct dns_nameserver *ns)
{
	struct dns_tcp *t = ns->tcp;
	size_t off = 0, n, mlen;

	while ((n = dns_tcp_frame(t->in + off, t->ilen - off, &mlen)) > 0) {
		dns_handle(ns, t->in + off + 2, mlen);
		if (ns->h.fd < 0)
			return false;
		off += n;
	}
	memmove(t->in, t->in + off, t->ilen - off);
	t->ilen -= off;
	return true;
}

/* Reads until the socket is empty. Returns 0, or -1 when the connection is to be closed
 * (end, error, or a nameserver that does not stop sending). */
static int dns_tcp_read(struct dns_nameserver *ns)
{
	struct dns_tcp *t = ns->tcp;

	for (int i = 0; i < DNS_TCP_READS; i++) {
		ssize_t n = recv(ns->h.fd, t->in + t->ilen, sizeof(t->in) - t->ilen, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
		if (n == 0)
			return -1;
		t->ilen += (size_t)n;
		if (!dns_tcp_deliver(ns))
			return 0; /* already closed */
	}
	return -1;
}

static void dns_tcp_iocb(struct fd_handler *h, uint32_t events)
{
	struct dns_nameserver *ns = container_of(h, struct dns_nameserver, h);
	struct dns_tcp *t = ns->tcp;

	if (t->connecting) {
		int err = 0;
		socklen_t l = sizeof(err);

		if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
			return;
		if (getsockopt(h->fd, SOL_SOCKET, SO_ERROR, &err, &l) < 0 || err)
			goto out_close;
		t->connecting = false;
	}
	if ((events & EPOLLOUT) && dns_tcp_flush(ns) < 0)
		goto out_close;
	if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) && dns_tcp_read(ns) < 0)
		goto out_close;
	return;
out_close:
	dns_tcp_close(ns);
}

/* Opens a non-blocking connection to <ns>. Returns 0 or -1. */
static int dns_tcp_connect(struct dns_nameserver *ns)
{
	int fd = socket(ns->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	ns->tcp->connecting = false;
	if (connect(fd, (const struct sockaddr *)&ns->addr, ns->addrlen) < 0) {
		if (errno != EINPROGRESS)
			goto out_close_fd;
		ns->tcp->connecting = true;
	}
	ns->h.fd = fd;
	ns->h.iocb = dns_tcp_iocb;
	if (fd_register(&ns->h) < 0) {
		ns->h.fd = -1;
		goto out_close_fd;
	}
	return 0;
out_close_fd:
	close(fd);
	return -1;
}

void dns_tcp_send(struct dns_nameserver *ns, const uint8_t *q, size_t len)
{
	struct dns_tcp *t;

	if (!ns->tcp) {
		ns->tcp = calloc(1, sizeof(*ns->tcp));
		if (!ns->tcp)
			return;
	}
	t = ns->tcp;
	if (len > 65535 || t->olen + 2 + len > sizeof(t->out))
		return;
	t->out[t->olen] = (uint8_t)(len >> 8);
	t->out[t->olen + 1] = (uint8_t)len;
	memcpy(t->out + t->olen + 2, q, len);
	t->olen += 2 + len;
	if (ns->h.fd < 0 && dns_tcp_connect(ns) < 0) {
		t->olen = 0;
		return;
	}
	if (!t->connecting && dns_tcp_flush(ns) < 0)
		dns_tcp_close(ns);
}
