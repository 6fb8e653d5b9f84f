/* Back side of the H1 mux: connections to servers. Opens them non-blocking, completes the
 * connect on the first event, and parks reusable ones in the server's per-thread idle list
 * (http-reuse safe: only connections that carried a complete exchange are parked). A
 * parked connection that becomes readable was closed (or spoken to out of turn) by the
 * server and is closed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <backend/server.h>
#include <base/buf.h>
#include <conn/sockopt.h>
#include <proxy/proxy-t.h>
#include <conn/connection.h>
#include <event/loop.h>
#include <event/profiling.h>
#include <mux/h1.h>
#include <ssl/ssl.h>


static inline const struct h1_stream_ops *back_ops(void)
{
	return h1_stream_ops_get();
}

static void back_iocb(struct fd_handler *h, uint32_t events)
{
	struct conn *c = container_of(h, struct conn, h);

	if (c->flags & CO_FL_CLOSED)
		return;
	conn_update_events(c, events);
	if (c->flags & CO_FL_IDLE) {
		/* TLS may send a session ticket on its own: that keeps the connection */
		if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) &&
		    (!(c->flags & CO_FL_XPRT) || ssl_idle_event(c) < 0))
			conn_close(c);
		return;
	}
	if (c->strm)
		back_ops()->wake(c->strm);
}

static void back_timeout(struct timer *t)
{
	struct conn *c = container_of(t, struct conn, tmr);

	if (c->strm)
		back_ops()->timeout(c->strm, c);
	else
		conn_close(c);
}

/* Same address and port (ports are at the same offset in sockaddr_in and sockaddr_in6). */
static bool back_same_peer(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return !memcmp(a, b, sizeof(struct sockaddr_in));
	return a->ss_family == AF_INET6 && !memcmp(a, b, sizeof(struct sockaddr_in6));
}

struct conn *h1_back_take_idle(struct server *srv, const struct sockaddr_storage *to,
			       uint32_t min_req, uint64_t key)
{
	struct srv_per_thread *pt = &srv->per_thr[tid];
	struct conn *c;

	if (list_empty(&pt->idle))
		return NULL;
	c = list_elem(pt->idle.next, struct conn, idle);
	if (unlikely(to || min_req || key)) {
		bool found = false;

		list_for_each_entry(c, &pt->idle, idle) {
			if ((!to || back_same_peer(&c->peer, to)) && c->nb_req >= min_req &&
			    c->reuse_key == key) {
				found = true;
				break;
			}
		}
		if (!found)
			return NULL;
	}
	list_delete(&c->idle);
	pt->nb_idle--;
	c->flags &= ~(CO_FL_IDLE | CO_FL_GOT_DATA);
	return c;
}

/* "source": binds <fd> to the server's source address before connect; without a port,
 * the kernel picks one at connect time (IP_BIND_ADDRESS_NO_PORT), so that many servers can
 * share the source ports. Returns 0 or -1 with errno set. */
static int back_bind_source(int fd, const struct server *srv)
{
	const struct sockaddr_storage *ss = &srv->src;
	in_port_t port = ss->ss_family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port
						  : ((const struct sockaddr_in6 *)ss)->sin6_port;
	int one = 1;

	if (!port)
		setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
	return bind(fd, (const struct sockaddr *)&srv->src, srv->srclen);
}

struct conn *h1_back_connect(struct server *srv, const struct sockaddr_storage *to)
{
	const struct sockaddr_storage *addr = to ? to : &srv->addr;
	int fam = addr->ss_family, one = 1, fd;
	struct conn *c;

	fd = socket(fam, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return NULL;
	if (fam != AF_UNIX) {
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (unlikely(srv->px->options & PR_O_SRVTCPKA))
			sock_set_keepalive(fd, &srv->px->srvtcpka);
		if (unlikely(srv->tcp_ut))
			sock_set_user_timeout(fd, srv->tcp_ut);
	}
	if (unlikely(srv->src.ss_family) && back_bind_source(fd, srv) < 0) {
		close(fd);
		return NULL;
	}
	c = conn_new(fd, back_iocb, back_timeout);
	if (!c) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	c->flags |= CO_FL_BACK;
	c->srv = srv;
	c->px = srv->px;
	c->peer = *addr;
	if (connect(fd, (const struct sockaddr *)addr,
		    fam == AF_INET    ? sizeof(struct sockaddr_in)
		    : fam == AF_INET6 ? sizeof(struct sockaddr_in6)
				      : srv->addrlen) == 0) {
		c->flags |= CO_FL_CAN_SEND;
		if (unlikely(srv->ssl && srv->ssl->ctx))
			c->flags |= CO_FL_CONNECTING; /* connected; the TLS handshake is next */
		return c;
	}
	if (errno == EINPROGRESS) {
		c->flags |= CO_FL_CONNECTING;
		return c;
	}
	{
		int e = errno;

		conn_close(c);
		errno = e;
	}
	return NULL;
}

/* Sends c->obuf (a PROXY header) in clear before the TLS handshake: a new connection's
 * socket buffer takes these few bytes at once, anything else is an error. */
static int back_send_raw(struct conn *c)
{
	ssize_t n = send(c->h.fd, b_head(&c->obuf), c->obuf.data, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n != (ssize_t)c->obuf.data) {
		c->flags |= CO_FL_ERROR;
		return -1;
	}
	b_del(&c->obuf, c->obuf.data);
	b_release(&c->obuf);
	return 0;
}

int h1_back_check_connect(struct conn *c)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (!(c->flags & CO_FL_CONNECTING))
		return 1;
	if (!(c->flags & (CO_FL_CAN_SEND | CO_FL_HUP)))
		return 0;
	if (getsockopt(c->h.fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 || err) {
		c->flags |= CO_FL_ERROR;
		return -1;
	}
	if (c->flags & CO_FL_HUP) {
		c->flags |= CO_FL_ERROR;
		return -1;
	}
	if (unlikely(c->srv->ssl && c->srv->ssl->ctx) && !(c->flags & CO_FL_XPRT)) {
		c->flags |= CO_FL_CAN_RECV | CO_FL_CAN_SEND; /* the handshake starts */
		if (c->obuf.data && back_send_raw(c) < 0) /* a PROXY header goes first */
			return -1;
	}
	if (unlikely(c->srv->ssl && c->srv->ssl->ctx)) {
		int ret = ssl_back_handshake(c); /* "timeout connect" covers it, as HAProxy */

		if (ret <= 0)
			return ret;
	}
	c->flags &= ~CO_FL_CONNECTING;
	return 1;
}

/* Makes <c> idle if it is clean and quiet (no pending input or output, no FIN seen: RDHUP
 * may have come with the response's last bytes); closes it and returns false otherwise. */
static bool back_make_idle(struct conn *c)
{
	const uint32_t bad = CO_FL_RD_EOF | CO_FL_ERROR | CO_FL_HUP | CO_FL_RDHUP | CO_FL_WR_SHUT |
			     CO_FL_XPRT_WPEND;

	if (c->ibuf.data || c->obuf.data || (c->flags & (bad | CO_FL_XPRT))) {
		/* TLS: what OpenSSL already read (a ticket, a close_notify) decides too */
		if (c->ibuf.data || c->obuf.data || (c->flags & bad) ||
		    !ssl_idle_ok(c)) {
			conn_close(c);
			return false;
		}
	}
	c->strm = NULL;
	c->flags |= CO_FL_IDLE | CO_FL_USED;
	/* like HAProxy's pool-purge-delay: idle connections do not live forever */
	timer_set(&c->tmr, tick_add(c->srv->pool_purge_delay));
	b_release(&c->ibuf);
	b_release(&c->obuf);
	return true;
}

void h1_back_park(struct conn *c)
{
	struct srv_per_thread *pt = &c->srv->per_thr[tid];

	if (pt->nb_idle >= c->srv->pool_max_conn) { /* at most SRV_MAX_IDLE_PER_THREAD */
		conn_close(c);
		return;
	}
	if (!back_make_idle(c))
		return;
	list_insert(&pt->idle, &c->idle);
	pt->nb_idle++;
}

void h1_back_park_private(struct conn *c, struct conn *front)
{
	if (front->priv)
		conn_close(front->priv); /* one at a time */
	if (unlikely(!c->srv->pool_max_conn)) { /* pool-max-conn 0: nothing idle */
		conn_close(c);
		return;
	}
	if (!back_make_idle(c))
		return;
	c->priv = front;
	front->priv = c;
}

struct conn *h1_back_take_private(struct conn *front, struct server *srv,
				  const struct sockaddr_storage *to, uint64_t key)
{
	struct conn *c = front->priv;

	if (!c)
		return NULL;
	front->priv = c->priv = NULL;
	if (c->srv != srv || (to && !back_same_peer(&c->peer, to)) || c->reuse_key != key) {
		conn_close(c); /* another server this time */
		return NULL;
	}
	c->flags &= ~(CO_FL_IDLE | CO_FL_GOT_DATA);
	return c;
}

void h1_back_init_server(struct server *srv)
{
	for (int i = 0; i < MAX_THREADS; i++)
		list_init(&srv->per_thr[i].idle);
}

void h1_back_close_idle(struct server *srv)
{
	struct conn *c;

	while ((c = h1_back_take_idle(srv, NULL, 0, 0)))
		conn_close(c);
}

/* names in "show profiling" (event/profiling.h) */
PROF_NAME(back_iocb, "h1_back_io_cb")
PROF_NAME(back_timeout, "h1_back_timeout_task")
