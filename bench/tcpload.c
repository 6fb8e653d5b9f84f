/* `make bench-tcp`'s load generator and backend (bench/tcp.sh), one epoll loop per process:
 *   tcpload serve SINK_PORT ECHO_PORT [MAX_S]       the backend: a sink and an echo server
 *   tcpload bulk HOST PORT BYTES CONNS [TIMEOUT_S]  large transfer through the proxy
 *   tcpload echo HOST PORT CONNS SECONDS SIZE       small request/response exchanges
 * It owns no proxy state: it only talks TCP on 127.0.0.1-style addresses. Every loop is
 * bounded in time; errors print one line on stderr and exit 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define IOBUF_SIZE (256 * 1024) /* bulk read/write size: few syscalls per GiB */
#define ECHO_BUF 16384		/* per-connection echo buffer of the server */
#define MAX_CONNS 4096		/* client connections and server connections (fd-indexed) */
#define MAX_EVENTS 256
#define HIST_US 100000 /* latency histogram: one bucket per µs up to 100 ms, then one more */

enum conn_kind { CK_NONE = 0, CK_SINK, CK_ECHO };

/* one server-side connection, indexed by fd */
struct srv_conn {
	enum conn_kind kind;
	uint64_t count;	   /* sink: bytes received so far */
	uint32_t len, off; /* echo: bytes buffered, bytes of them already written back */
	char *buf;	   /* echo: ECHO_BUF bytes */
};

/* one client connection */
struct cli_conn {
	int fd;
	uint32_t idx;		/* index in the client's table: the epoll data */
	bool done;		/* bulk: the count and EOF arrived */
	bool want_out;		/* echo: subscribed for EPOLLOUT (a message partly sent) */
	uint64_t to_send, sent; /* bulk: bytes to send and sent; echo: offsets in one message */
	uint64_t rcvd;		/* bulk: bytes of the 8-byte reply; echo: bytes of the answer */
	uint64_t reply;		/* bulk: the server's count */
	double t_start;		/* echo: when the current message was first sent */
};

static char iobuf[IOBUF_SIZE];
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "tcpload: %s: %s\n", what, errno ? strerror(errno) : "failed");
	exit(1);
}

static void fail(const char *fmt, const char *arg)
{
	fprintf(stderr, "tcpload: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(1);
}

/* Parses a decimal argument in [min, max]; exits on anything else. */
static uint64_t arg_u64(const char *s, uint64_t min, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v < min || v > max)
		fail("bad number '%s'", s);
	return v;
}

/* Adds or changes fd's subscription; data: the fd (server) or the connection index (client). */
static void ep_set(int ep, int op, int fd, uint32_t events, uint64_t data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };

	if (epoll_ctl(ep, op, fd, &ev) < 0)
		die("epoll_ctl");
}

static int listen_on(const char *host, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, fd;

	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		fail("bad IPv4 address '%s'", host);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		die("bind");
	if (listen(fd, 1024) < 0)
		die("listen");
	return fd;
}

/* Starts a non-blocking connect; returns the fd. */
static int connect_to(const char *host, int port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int one = 1, fd;

	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		fail("bad IPv4 address '%s'", host);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 && errno != EINPROGRESS)
		die("connect");
	return fd;
}

/* ---- server ------------------------------------------------------------------------- */

static struct srv_conn srv_conns[MAX_CONNS];

static void srv_close(int fd)
{
	free(srv_conns[fd].buf);
	memset(&srv_conns[fd], 0, sizeof(srv_conns[fd]));
	close(fd);
}

static void srv_accept(int ep, int lfd, enum conn_kind kind)
{
	int one = 1, fd;

	while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		if (fd >= MAX_CONNS) {
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		srv_conns[fd].kind = kind;
		if (kind == CK_ECHO) {
			srv_conns[fd].buf = malloc(ECHO_BUF);
			if (!srv_conns[fd].buf) {
				close(fd);
				continue;
			}
		}
		ep_set(ep, EPOLL_CTL_ADD, fd, EPOLLIN, fd);
	}
}

/* Sink: reads until EOF, then answers the byte count (8 bytes, network order) and closes. */
static void srv_sink(int fd)
{
	struct srv_conn *c = &srv_conns[fd];
	uint64_t be;
	ssize_t n;
	int i;

	for (i = 0; i < 64; i++) {
		n = read(fd, iobuf, sizeof(iobuf));
		if (n > 0) {
			c->count += n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n == 0) {
			be = htobe64(c->count);
			/* 8 bytes into an empty socket buffer: cannot be short */
			if (write(fd, &be, sizeof(be)) != sizeof(be))
				fprintf(stderr, "tcpload serve: reply lost\n");
		}
		srv_close(fd);
		return;
	}
}

/* Echo: writes back what it read; stops reading while an answer is pending. */
static void srv_echo(int ep, int fd)
{
	struct srv_conn *c = &srv_conns[fd];
	ssize_t n;

	if (c->off < c->len) {
		n = write(fd, c->buf + c->off, c->len - c->off);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			goto out_close;
		if (n > 0)
			c->off += n;
		if (c->off < c->len)
			return;
		c->off = c->len = 0;
		ep_set(ep, EPOLL_CTL_MOD, fd, EPOLLIN, fd);
	}
	n = read(fd, c->buf, ECHO_BUF);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0)
		goto out_close;
	c->len = n;
	n = write(fd, c->buf, c->len);
	if (n < 0 && errno != EAGAIN && errno != EINTR)
		goto out_close;
	c->off = n > 0 ? n : 0;
	if (c->off == c->len)
		c->off = c->len = 0;
	else
		ep_set(ep, EPOLL_CTL_MOD, fd, EPOLLOUT, fd);
	return;
out_close:
	srv_close(fd);
}

static int cmd_serve(int argc, char **argv)
{
	struct epoll_event evs[MAX_EVENTS];
	int sink, echo, ep, i, n;
	double end;

	if (argc < 2)
		fail("%s", "usage: tcpload serve SINK_PORT ECHO_PORT [MAX_S]");
	sink = listen_on("127.0.0.1", arg_u64(argv[0], 1, 65535));
	echo = listen_on("127.0.0.1", arg_u64(argv[1], 1, 65535));
	end = now_s() + (argc > 2 ? arg_u64(argv[2], 1, 86400) : 3600);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("epoll_create1");
	ep_set(ep, EPOLL_CTL_ADD, sink, EPOLLIN, sink);
	ep_set(ep, EPOLL_CTL_ADD, echo, EPOLLIN, echo);
	while (!stop && now_s() < end) {
		n = epoll_wait(ep, evs, MAX_EVENTS, 1000);
		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (i = 0; i < n; i++) {
			int fd = (int)evs[i].data.u64;

			if (fd == sink)
				srv_accept(ep, sink, CK_SINK);
			else if (fd == echo)
				srv_accept(ep, echo, CK_ECHO);
			else if (srv_conns[fd].kind == CK_SINK)
				srv_sink(fd);
			else if (srv_conns[fd].kind == CK_ECHO)
				srv_echo(ep, fd);
		}
	}
	return 0;
}

/* ---- bulk client -------------------------------------------------------------------- */

/* Sends what is left of c's share; at the end, half-closes and waits for the reply.
 * Returns false on a connection error. */
static bool bulk_send(int ep, struct cli_conn *c)
{
	ssize_t n;

	while (c->sent < c->to_send) {
		uint64_t left = c->to_send - c->sent;

		n = write(c->fd, iobuf, left < sizeof(iobuf) ? left : sizeof(iobuf));
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		c->sent += n;
	}
	if (shutdown(c->fd, SHUT_WR) < 0)
		return false;
	ep_set(ep, EPOLL_CTL_MOD, c->fd, EPOLLIN, c->idx);
	return true;
}

/* Reads the server's 8-byte count then EOF. Returns false on an error or a short reply. */
static bool bulk_recv(struct cli_conn *c)
{
	unsigned char b[64];
	ssize_t n;

	for (;;) {
		n = read(c->fd, b, sizeof(b));
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		if (n == 0) {
			c->done = true;
			return c->rcvd == 8;
		}
		for (ssize_t i = 0; i < n; i++, c->rcvd++)
			if (c->rcvd < 8)
				c->reply = c->reply << 8 | b[i];
	}
}

static int cmd_bulk(int argc, char **argv)
{
	static struct cli_conn conns[MAX_CONNS];
	struct epoll_event evs[MAX_EVENTS];
	uint64_t total, conns_n, done = 0, i;
	double t0, t1, deadline;
	int ep, port, n;

	if (argc < 4)
		fail("%s", "usage: tcpload bulk HOST PORT BYTES CONNS [TIMEOUT_S]");
	port = arg_u64(argv[1], 1, 65535);
	total = arg_u64(argv[2], 1, UINT64_MAX / 2);
	conns_n = arg_u64(argv[3], 1, MAX_CONNS);
	memset(iobuf, 'x', sizeof(iobuf));
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("epoll_create1");
	t0 = now_s();
	deadline = t0 + (argc > 4 ? arg_u64(argv[4], 1, 86400) : 300);
	for (i = 0; i < conns_n; i++) {
		conns[i].fd = connect_to(argv[0], port);
		conns[i].idx = i;
		conns[i].to_send = total / conns_n + (i == 0 ? total % conns_n : 0);
		ep_set(ep, EPOLL_CTL_ADD, conns[i].fd, EPOLLOUT, i);
	}
	while (done < conns_n) {
		if (now_s() > deadline)
			fail("%s", "timeout: the transfer did not finish in time");
		n = epoll_wait(ep, evs, MAX_EVENTS, 1000);
		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (int k = 0; k < n; k++) {
			struct cli_conn *c = &conns[evs[k].data.u64];
			bool ok;

			if (c->done)
				continue;
			errno = 0;
			ok = c->sent < c->to_send ? bulk_send(ep, c) : bulk_recv(c);
			if (!ok)
				die("connection failed or closed before the server's count");
			if (c->done) {
				if (c->reply != c->to_send)
					fail("%s",
					     "the server counted another byte count than sent");
				close(c->fd);
				done++;
			}
		}
	}
	t1 = now_s();
	printf("bytes=%" PRIu64 " conns=%" PRIu64 " secs=%.4f mbps=%.1f\n", total, conns_n, t1 - t0,
	       total / (t1 - t0) / 1e6);
	return 0;
}

/* ---- echo client -------------------------------------------------------------------- */

static uint32_t hist[HIST_US + 1];

/* Value at quantile q (0..1) of the n samples in hist, in µs. */
static unsigned hist_quantile(uint64_t n, double q)
{
	uint64_t want = (uint64_t)(n * q), seen = 0;
	unsigned i;

	for (i = 0; i <= HIST_US; i++) {
		seen += hist[i];
		if (seen > want)
			return i;
	}
	return HIST_US;
}

/* Sends (the rest of) one message of size bytes. Returns false on an error. */
static bool echo_send(struct cli_conn *c, uint64_t size)
{
	ssize_t n;

	while (c->sent < size) {
		n = write(c->fd, iobuf, size - c->sent);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		c->sent += n;
	}
	return true;
}

/* Reads the answer; when complete, records the latency and sends the next message.
 * Returns -1 on an error, 1 when one exchange completed, 0 otherwise. */
static int echo_recv(struct cli_conn *c, uint64_t size)
{
	ssize_t n;
	double t;
	uint64_t us;

	n = read(c->fd, iobuf + IOBUF_SIZE / 2, IOBUF_SIZE / 2);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (n == 0)
		return -1;
	c->rcvd += n;
	if (c->rcvd < size)
		return 0;
	if (c->rcvd > size)
		return -1; /* answered more than asked: not an echo */
	t = now_s();
	us = (uint64_t)((t - c->t_start) * 1e6);
	hist[us < HIST_US ? us : HIST_US]++;
	c->rcvd = c->sent = 0;
	c->t_start = t;
	return 1;
}

/* Handles an event on c: finishes sending, or reads the answer then sends the next message
 * (EPOLLOUT while a message is partly sent, EPOLLIN otherwise). Returns as echo_recv. */
static int echo_event(int ep, struct cli_conn *c, uint64_t size)
{
	int r = 0;

	if (c->sent == size) {
		r = echo_recv(c, size);
		if (r <= 0)
			return r;
	}
	if (!echo_send(c, size))
		return -1;
	if (c->sent < size && !c->want_out) {
		c->want_out = true;
		ep_set(ep, EPOLL_CTL_MOD, c->fd, EPOLLOUT, c->idx);
	} else if (c->sent == size && c->want_out) {
		c->want_out = false;
		ep_set(ep, EPOLL_CTL_MOD, c->fd, EPOLLIN, c->idx);
	}
	return r;
}

static int cmd_echo(int argc, char **argv)
{
	static struct cli_conn conns[MAX_CONNS];
	struct epoll_event evs[MAX_EVENTS];
	uint64_t conns_n, size, exchanges = 0, i;
	double t0, t1, end;
	int ep, port, n;

	if (argc < 5)
		fail("%s", "usage: tcpload echo HOST PORT CONNS SECONDS SIZE");
	port = arg_u64(argv[1], 1, 65535);
	conns_n = arg_u64(argv[2], 1, MAX_CONNS);
	end = arg_u64(argv[3], 1, 3600);
	size = arg_u64(argv[4], 1, IOBUF_SIZE / 2);
	memset(iobuf, 'e', sizeof(iobuf));
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("epoll_create1");
	t0 = now_s();
	end += t0;
	for (i = 0; i < conns_n; i++) {
		conns[i].fd = connect_to(argv[0], port);
		conns[i].idx = i;
		conns[i].t_start = t0;
		conns[i].want_out = true; /* the first message goes once connected */
		ep_set(ep, EPOLL_CTL_ADD, conns[i].fd, EPOLLOUT, i);
	}
	while ((t1 = now_s()) < end) {
		n = epoll_wait(ep, evs, MAX_EVENTS, 100);
		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (int k = 0; k < n; k++) {
			int r;

			errno = 0;
			r = echo_event(ep, &conns[evs[k].data.u64], size);
			if (r < 0)
				die("connection failed, closed, or answered other than an echo");
			exchanges += r;
		}
	}
	for (i = 0; i < conns_n; i++)
		close(conns[i].fd);
	if (!exchanges)
		fail("%s", "no exchange completed");
	printf("exchanges=%" PRIu64 " conns=%" PRIu64 " secs=%.4f rate=%.1f p50_us=%u p99_us=%u\n",
	       exchanges, conns_n, t1 - t0, exchanges / (t1 - t0), hist_quantile(exchanges, 0.5),
	       hist_quantile(exchanges, 0.99));
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };

	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	if (argc >= 2 && !strcmp(argv[1], "serve"))
		return cmd_serve(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "bulk"))
		return cmd_bulk(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "echo"))
		return cmd_echo(argc - 2, argv + 2);
	fprintf(stderr, "usage: tcpload serve SINK_PORT ECHO_PORT [MAX_S]\n"
			"       tcpload bulk HOST PORT BYTES CONNS [TIMEOUT_S]\n"
			"       tcpload echo HOST PORT CONNS SECONDS SIZE\n");
	return 2;
}
