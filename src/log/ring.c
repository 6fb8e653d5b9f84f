/* Rings at run time: the bounded message buffer (any thread writes, the oldest messages
 * make room), thread 0's senders that feed each ring's TCP syslog servers from it without
 * blocking (connect, frame, send what the socket takes, reconnect after a failure), and
 * the "show events" command. The configuration side is ring_cfg.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <base/atomic.h>
#include <cli/cli.h>
#include <event/loop.h>
#include <log/ring.h>

#define RING_RETRY_MS 1000 /* delay before connecting again after a failure */
#define RING_HDR 4	   /* each message: 4-byte length, then its bytes */

struct ring *rings;

struct ring *ring_find(const char *name)
{
	for (struct ring *r = rings; r; r = r->next)
		if (strcmp(r->id, name) == 0)
			return r;
	return NULL;
}

/* Copies <n> bytes in or out of the circular area at <off>. */
static void ring_put(struct ring *r, uint32_t off, const void *src, uint32_t n)
{
	uint32_t first = r->size - off < n ? r->size - off : n;

	memcpy(r->area + off, src, first);
	memcpy(r->area, (const char *)src + first, n - first);
}

static void ring_get(const struct ring *r, uint32_t off, void *dst, uint32_t n)
{
	uint32_t first = r->size - off < n ? r->size - off : n;

	memcpy(dst, r->area + off, first);
	memcpy((char *)dst + first, r->area, n - first);
}

/* Drops the oldest message. Lock held. */
static void __ring_drop_oldest(struct ring *r)
{
	uint32_t len;

	ring_get(r, r->head, &len, RING_HDR);
	r->head = (r->head + RING_HDR + len) % r->size;
	r->used -= RING_HDR + len;
	r->first_seq++;
	r->dropped++;
}

void ring_write(struct ring *r, const struct iovec *iov, int n)
{
	uint32_t len = 0, tail, room = r->size - RING_HDR;
	uint64_t one = 1;

	if (!r->area)
		return;
	if ((uint32_t)r->maxlen < room)
		room = (uint32_t)r->maxlen;
	for (int i = 0; i < n; i++)
		len += (uint32_t)iov[i].iov_len;
	if (len > room)
		len = room;
	pthread_mutex_lock(&r->lock);
	while (r->size - r->used < RING_HDR + len)
		__ring_drop_oldest(r);
	tail = (r->head + r->used) % r->size;
	ring_put(r, tail, &len, RING_HDR);
	tail = (tail + RING_HDR) % r->size;
	for (int i = 0, left = (int)len; i < n && left > 0; i++) {
		uint32_t k = (uint32_t)iov[i].iov_len < (uint32_t)left ? (uint32_t)iov[i].iov_len
								       : (uint32_t)left;

		ring_put(r, tail, iov[i].iov_base, k);
		tail = (tail + k) % r->size;
		left -= (int)k;
	}
	r->used += RING_HDR + len;
	r->next_seq++;
	pthread_mutex_unlock(&r->lock);
	/* one eventfd write per batch: the sender clears the flag before it drains */
	if (r->srvs && HA_ATOMIC_LOAD(&r->wake_fd) >= 0 && !HA_ATOMIC_XCHG(&r->wake_pending, 1))
		if (write(r->wake_fd, &one, sizeof(one)) < 0)
			HA_ATOMIC_STORE(&r->wake_pending, 0);
}

long ring_read(struct ring *r, uint64_t *seq, uint32_t *off, char *dst, uint32_t max)
{
	uint32_t len;

	pthread_mutex_lock(&r->lock);
	if (*seq < r->first_seq || *seq > r->next_seq) {
		*seq = r->first_seq;
		*off = r->head;
	}
	if (*seq == r->next_seq) {
		pthread_mutex_unlock(&r->lock);
		return -1;
	}
	ring_get(r, *off, &len, RING_HDR);
	ring_get(r, (*off + RING_HDR) % r->size, dst, len < max ? len : max);
	*off = (*off + RING_HDR + len) % r->size;
	(*seq)++;
	pthread_mutex_unlock(&r->lock);
	return len < max ? len : max;
}

static void rs_flush(struct ring_srv *rs);

static void rs_close(struct ring_srv *rs, int retry_ms)
{
	if (rs->h.fd >= 0) {
		fd_unregister(&rs->h);
		close(rs->h.fd);
		rs->h.fd = -1;
	}
	rs->connected = false;
	rs->olen = rs->opos = 0; /* the message being sent is lost with the connection */
	timer_set(&rs->tmr, retry_ms ? tick_add(retry_ms) : 0);
}

static void rs_iocb(struct fd_handler *h, uint32_t events)
{
	struct ring_srv *rs = (struct ring_srv *)((char *)h - offsetof(struct ring_srv, h));
	char sink[256];
	ssize_t n;

	if (events & (EPOLLERR | EPOLLHUP)) {
		rs_close(rs, RING_RETRY_MS);
		return;
	}
	if (events & (EPOLLIN | EPOLLRDHUP)) { /* receivers say nothing: drain, see a close */
		while ((n = recv(h->fd, sink, sizeof(sink), MSG_DONTWAIT)) > 0)
			;
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
			rs_close(rs, RING_RETRY_MS);
			return;
		}
	}
	if (!rs->connected && (events & EPOLLOUT)) {
		int err = 0;
		socklen_t el = sizeof(err);

		if (getsockopt(h->fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err) {
			rs_close(rs, RING_RETRY_MS);
			return;
		}
		rs->connected = true;
		timer_set(&rs->tmr, 0);
	}
	if (rs->connected)
		rs_flush(rs);
}

static void rs_connect(struct ring_srv *rs)
{
	int fd = socket(rs->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		timer_set(&rs->tmr, tick_add(RING_RETRY_MS));
		return;
	}
	rs->h.fd = fd;
	rs->h.iocb = rs_iocb;
	rs->connected = false;
	if ((connect(fd, (struct sockaddr *)&rs->addr, rs->addrlen) < 0 && errno != EINPROGRESS) ||
	    fd_register(&rs->h) < 0) {
		close(fd);
		rs->h.fd = -1;
		timer_set(&rs->tmr, tick_add(RING_RETRY_MS));
		return;
	}
	timer_set(&rs->tmr, tick_add(rs->ring->tmo_connect));
}

/* Frames the next message into rs->out. false when the ring has none. */
static bool rs_next(struct ring_srv *rs)
{
	const struct ring *r = rs->ring;
	char *msg = rs->out + 16;
	long len = ring_read(rs->ring, &rs->seq, &rs->off, msg, (uint32_t)r->maxlen);
	int hl;

	if (len < 0)
		return false;
	if (rs->proto == RING_PROTO_LEGACY) {
		msg[len] = '\n';
		rs->opos = 16;
		rs->olen = 16 + (uint32_t)len + 1;
		return true;
	}
	/* "LEN " right before the message */
	hl = snprintf(rs->out, 16, "%ld ", len);
	if (hl <= 0 || hl >= 16)
		return false;
	memmove(rs->out + 16 - hl, rs->out, (size_t)hl);
	rs->opos = 16 - (uint32_t)hl;
	rs->olen = 16 + (uint32_t)len;
	return true;
}

/* Sends what the socket takes; waits for EPOLLOUT (bounded by "timeout server") when it
 * takes no more. */
static void rs_flush(struct ring_srv *rs)
{
	ssize_t n;

	for (;;) {
		if (rs->opos == rs->olen && !rs_next(rs)) {
			timer_set(&rs->tmr, 0);
			return;
		}
		n = send(rs->h.fd, rs->out + rs->opos, rs->olen - rs->opos,
			 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			timer_set(&rs->tmr, tick_add(rs->ring->tmo_server));
			return;
		}
		if (n <= 0) {
			rs_close(rs, RING_RETRY_MS);
			return;
		}
		rs->opos += (uint32_t)n;
	}
}

static void rs_timer(struct timer *t)
{
	struct ring_srv *rs = (struct ring_srv *)((char *)t - offsetof(struct ring_srv, tmr));

	if (rs->h.fd < 0)
		rs_connect(rs);
	else /* connect or server timeout */
		rs_close(rs, RING_RETRY_MS);
}

static void ring_wake_iocb(struct fd_handler *h, uint32_t events)
{
	struct ring *r = (struct ring *)((char *)h - offsetof(struct ring, wake_h));
	uint64_t v;

	while (read(h->fd, &v, sizeof(v)) > 0)
		;
	HA_ATOMIC_STORE(&r->wake_pending, 0);
	for (struct ring_srv *rs = r->srvs; rs; rs = rs->next)
		if (rs->h.fd >= 0 && rs->connected && rs->opos == rs->olen) /* else EPOLLOUT will */
			rs_flush(rs);
}

int ring_thread_start(void)
{
	for (struct ring *r = rings; r; r = r->next) {
		if (!r->srvs)
			continue;
		r->wake_h.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		r->wake_h.iocb = ring_wake_iocb;
		if (r->wake_h.fd < 0 || fd_register_listener(&r->wake_h) < 0)
			return -1;
		HA_ATOMIC_STORE(&r->wake_fd, r->wake_h.fd);
		for (struct ring_srv *rs = r->srvs; rs; rs = rs->next) {
			rs->tmr.cb = rs_timer;
			rs->seq = 0; /* from the oldest message */
			rs_connect(rs);
		}
	}
	return 0;
}

void ring_thread_stop(void)
{
	for (struct ring *r = rings; r; r = r->next) {
		for (struct ring_srv *rs = r->srvs; rs; rs = rs->next) {
			rs_close(rs, 0);
			timer_del(&rs->tmr);
		}
		if (r->wake_h.fd >= 0 && HA_ATOMIC_LOAD(&r->wake_fd) >= 0) {
			HA_ATOMIC_STORE(&r->wake_fd, -1);
			fd_unregister(&r->wake_h);
			close(r->wake_h.fd);
			r->wake_h.fd = -1;
		}
	}
}

/* "show events": the list of sinks; "show events NAME": the ring's messages, one a line,
 * (2.6's layout; the CLI adds the empty line). n[0]/n[1]: the cursor (seq, offset). */
static int ring_cli_show(struct cli_ctx *ctx)
{
	struct ring *r;
	char msg[65536 + 1];
	uint64_t seq;
	uint32_t off;
	long len;

	if (ctx->nargs < 3) {
		if (ctx->st == 0 &&
		    cli_printf(ctx,
			       "Supported events sinks are listed below. Add -w(wait), "
			       "-n(new). Any key to stop\n"
			       "    stdout     : type=fd, 0 dropped, standard output (fd#1)\n"
			       "    stderr     : type=fd, 0 dropped, standard output (fd#2)\n") < 0)
			return CLI_MORE;
		ctx->st = 1;
		for (r = ctx->p[0] ? (struct ring *)ctx->p[0] : rings; r; r = r->next) {
			char desc[512];

			if (r->implicit)
				snprintf(desc, sizeof(desc),
					 "created from logserver declared into '%s' at line %d",
					 r->conf_file, r->conf_line);
			else
				snprintf(desc, sizeof(desc), "%s", r->desc ? r->desc : r->id);
			pthread_mutex_lock(&r->lock);
			len = (long)r->dropped;
			pthread_mutex_unlock(&r->lock);
			if (cli_printf(ctx, "    %-10s : type=buffer, %ld dropped, %s\n", r->id,
				       len, desc) < 0) {
				ctx->p[0] = r;
				return CLI_MORE;
			}
		}
		return CLI_DONE;
	}
	r = ring_find(ctx->args[2]);
	if (!r || ctx->nargs > 3)
		return cli_printf(ctx, r ? "'show events' options -w and -n are not supported "
					   "yet.\n"
					 : "No such event sink\n") < 0
			       ? CLI_MORE
			       : CLI_DONE;
	if (ctx->st == 0) {
		pthread_mutex_lock(&r->lock);
		ctx->n[0] = r->first_seq;
		ctx->n[1] = r->head;
		pthread_mutex_unlock(&r->lock);
		ctx->st = 1;
	}
	for (;;) {
		seq = ctx->n[0];
		off = (uint32_t)ctx->n[1];
		len = ring_read(r, &seq, &off, msg, sizeof(msg) - 1);
		if (len < 0)
			break;
		msg[len] = '\n';
		if (cli_write(ctx, msg, (size_t)len + 1) < 0)
			return CLI_MORE; /* the cursor stays on this message */
		ctx->n[0] = seq;
		ctx->n[1] = off;
	}
	return CLI_DONE;
}

static const struct cli_kw ring_cli_kws[] = {
	{ { "show", "events" },
	  "show events [<sink>] [-w] [-n]",
	  "show event sink state",
	  CLI_LVL_USER,
	  ring_cli_show },
	{ { NULL }, NULL, NULL, 0, NULL },
};

CLI_REGISTER_KWS(ring_cli_kws)
