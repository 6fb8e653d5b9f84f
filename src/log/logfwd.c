/* The receivers of "log-forward" sections, run by thread 0's event loop (as the ring
 * feeder): UDP sockets read in bounded batches, TCP listeners and their connections (each
 * with a bounded buffer, RFC 6587 framing, "timeout client", "maxconn"). Every message is
 * parsed (log/syslog_parse.c) and relayed to the section's targets (log_send_fields()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <base/addr.h>
#include <base/atomic.h>
#include <cfg/cfg.h>
#include <event/loop.h>
#include <log/log.h>
#include <log/logfwd.h>
#include <log/syslog_parse.h>

#define LF_BUFSIZE 16384 /* per TCP connection: a longer frame closes it (2.6's bufsize) */
#define LF_DGRAM_MAX 65536
#define LF_BATCH 64 /* datagrams or accepts per wake-up, then back to the loop */

struct logfwd *logfwds;

/* atomic: written by thread 0, read by "show info" on any thread */
static uint64_t lf_received;

struct lf_conn {
	struct fd_handler h;
	struct timer tmr; /* timeout client */
	struct tasklet release;
	struct tasklet resume; /* more to read after a bounded batch (edge-triggered) */
	struct logfwd_rx *rx;
	struct list list; /* in lf_conns */
	uint32_t len;	  /* bytes in buf */
	char buf[LF_BUFSIZE];
};

static char *lf_dgram; /* thread 0's datagram buffer (LF_DGRAM_MAX) */
static struct list lf_conns = LIST_HEAD_INIT(lf_conns); /* thread 0's connections */

uint64_t logfwd_received(void)
{
	return HA_ATOMIC_LOAD_RLX(&lf_received);
}

void logfwd_relay(struct logfwd *lf, const char *buf, size_t len)
{
	struct syslog_msg m;

	HA_ATOMIC_ADD(&lf_received, 1);
	syslog_parse(buf, len, &m);
	log_send_fields(&lf->loggers, &m);
}

static void lf_dgram_iocb(struct fd_handler *h, uint32_t events)
{
	struct logfwd_rx *rx = (struct logfwd_rx *)((char *)h - offsetof(struct logfwd_rx, h));
	ssize_t n;

	(void)events;
	for (int i = 0; i < LF_BATCH; i++) {
		n = recv(h->fd, lf_dgram, LF_DGRAM_MAX, MSG_DONTWAIT);
		if (n < 0)
			return; /* EAGAIN, or an ICMP error: nothing to read */
		if (n > 0)
			logfwd_relay(rx->lf, lf_dgram, (size_t)n);
	}
	/* level-triggered: more datagrams wake us again on the next turn */
}

static void lf_listen_resume(struct logfwd_rx *rx);

static void lf_conn_free(struct tasklet *tl)
{
	free((char *)tl - offsetof(struct lf_conn, release));
}

static void lf_conn_close(struct lf_conn *c)
{
	struct logfwd *lf = c->rx->lf;

	timer_del(&c->tmr);
	tasklet_cancel(&c->resume);
	list_delete(&c->list);
	fd_unregister(&c->h);
	close(c->h.fd);
	c->h.fd = -1;
	loop_defer_release(&c->release, lf_conn_free);
	lf->nb_conns--;
	for (struct logfwd_rx *rx = lf->rxs; rx; rx = rx->next)
		if (rx->paused)
			lf_listen_resume(rx);
}

static void lf_conn_timeout(struct timer *t)
{
	lf_conn_close((struct lf_conn *)((char *)t - offsetof(struct lf_conn, tmr)));
}

/* Relays every complete frame of c->buf; false when the stream is invalid. */
static bool lf_conn_parse(struct lf_conn *c)
{
	size_t pos = 0, off, mlen;
	long used;

	while (pos < c->len) {
		/* as 2.6: a frame is "LEN msg" or a "<PRI>..." line; anything else ends the
		 * connection */
		if (c->buf[pos] != '<' && (c->buf[pos] < '0' || c->buf[pos] > '9'))
			return false;
		used = syslog_frame(c->buf + pos, c->len - pos, &off, &mlen);
		if (used < 0)
			return false;
		if (used == 0)
			break;
		logfwd_relay(c->rx->lf, c->buf + pos + off, mlen);
		pos += (size_t)used;
	}
	if (pos == 0 && c->len == LF_BUFSIZE)
		return false; /* a frame longer than the buffer */
	memmove(c->buf, c->buf + pos, c->len - pos);
	c->len -= (uint32_t)pos;
	return true;
}

static void lf_conn_iocb(struct fd_handler *h, uint32_t events)
{
	struct lf_conn *c = (struct lf_conn *)((char *)h - offsetof(struct lf_conn, h));
	ssize_t n;

	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
		/* edge-triggered: read until EAGAIN, a bounded batch per turn, the rest from a
		 * tasklet so that a fast sender cannot hold the thread */
		for (int i = 0;; i++) {
			if (i == LF_BATCH) {
				tasklet_wakeup(&c->resume);
				break;
			}
			n = recv(h->fd, c->buf + c->len, LF_BUFSIZE - c->len, MSG_DONTWAIT);
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
				break;
			if (n <= 0) {
				lf_conn_close(c);
				return;
			}
			c->len += (uint32_t)n;
			if (!lf_conn_parse(c)) {
				lf_conn_close(c);
				return;
			}
		}
		timer_set(&c->tmr, tick_add(c->rx->lf->tmo_client));
	}
}

static void lf_conn_resume(struct tasklet *tl)
{
	struct lf_conn *c = (struct lf_conn *)((char *)tl - offsetof(struct lf_conn, resume));

	lf_conn_iocb(&c->h, EPOLLIN);
}

static void lf_accept_iocb(struct fd_handler *h, uint32_t events)
{
	struct logfwd_rx *rx = (struct logfwd_rx *)((char *)h - offsetof(struct logfwd_rx, h));
	struct logfwd *lf = rx->lf;
	struct lf_conn *c;
	int fd;

	(void)events;
	for (int i = 0; i < LF_BATCH; i++) {
		if (lf->nb_conns >= lf->maxconn) {
			/* full: stop accepting (the kernel's backlog holds the others) */
			for (struct logfwd_rx *r = lf->rxs; r; r = r->next) {
				if (r->stream && r->h.fd >= 0 && !r->paused) {
					fd_unregister(&r->h);
					r->paused = 1;
				}
			}
			return;
		}
		fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		c = malloc(sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		memset(c, 0, offsetof(struct lf_conn, buf));
		c->h.fd = fd;
		c->h.iocb = lf_conn_iocb;
		c->tmr.cb = lf_conn_timeout;
		tasklet_init(&c->release, lf_conn_free);
		tasklet_init(&c->resume, lf_conn_resume);
		c->rx = rx;
		if (fd_register(&c->h) < 0) {
			close(fd);
			free(c);
			continue;
		}
		list_append(&lf_conns, &c->list);
		lf->nb_conns++;
		timer_set(&c->tmr, tick_add(lf->tmo_client));
	}
}

static void lf_listen_resume(struct logfwd_rx *rx)
{
	if (rx->h.fd >= 0 && fd_register_listener(&rx->h) == 0)
		rx->paused = 0;
}

/* Creates and binds <rx>'s socket (startup, before privileges are dropped: syslog's port
 * 514 needs them). */
static int lf_rx_bind(struct logfwd_rx *rx)
{
	int one = 1, fd;

	fd = socket(rx->addr.ss_family,
		    (rx->stream ? SOCK_STREAM : SOCK_DGRAM) | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* SO_REUSEPORT: a reloaded process binds while the old one still serves */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&rx->addr, rx->addrlen) < 0 ||
	    (rx->stream && listen(fd, rx->lf->backlog ? rx->lf->backlog : rx->lf->maxconn) < 0)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	rx->h.fd = fd;
	return 0;
}

int logfwd_bind_all(void)
{
	for (struct logfwd *lf = logfwds; lf; lf = lf->next) {
		for (struct logfwd_rx *rx = lf->rxs; rx; rx = rx->next) {
			if (rx->h.fd >= 0)
				continue;
			if (lf_rx_bind(rx) < 0) {
				int e = errno;
				char a[64];

				ha_alert(
					"log-forward '%s' : cannot bind socket %s at [%s:%d]: %s\n",
					lf->id, addr_to_str(&rx->addr, a, sizeof(a)), rx->conf_file,
					rx->conf_line, strerror(e));
				return -1;
			}
		}
	}
	return 0;
}

int logfwd_thread_start(void)
{
	for (struct logfwd *lf = logfwds; lf; lf = lf->next) {
		for (struct logfwd_rx *rx = lf->rxs; rx; rx = rx->next) {
			if (!rx->stream && !lf_dgram && !(lf_dgram = malloc(LF_DGRAM_MAX)))
				return -1;
			if (rx->h.fd < 0 && logfwd_bind_all() < 0)
				return -1;
			rx->h.iocb = rx->stream ? lf_accept_iocb : lf_dgram_iocb;
			if (fd_register_listener(&rx->h) < 0)
				return -1;
		}
	}
	return 0;
}

void logfwd_thread_stop(void)
{
	while (!list_empty(&lf_conns))
		lf_conn_close(list_elem(lf_conns.next, struct lf_conn, list));
	for (struct logfwd *lf = logfwds; lf; lf = lf->next) {
		for (struct logfwd_rx *rx = lf->rxs; rx; rx = rx->next) {
			if (rx->h.fd < 0)
				continue;
			if (!rx->paused)
				fd_unregister(&rx->h);
			close(rx->h.fd);
			rx->h.fd = -1;
		}
	}
	free(lf_dgram);
	lf_dgram = NULL;
}
