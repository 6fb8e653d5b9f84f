/* Listening sockets inherited from another process (seamless reload): the registry that
 * listener_bind() adopts from, its two sources (the LFDS_ENV list kept across a master's
 * re-exec, and "-x": an old process's "_getsocks" over a unix socket with SCM_RIGHTS) and
 * the serving side of "_getsocks". Startup is single-threaded; lfds_send() runs on
 * thread 0 and only reads the listeners, which do not change while running.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <base/list.h>
#include <conn/listener-t.h>
#include <conn/listener_fds.h>
#include <proxy/proxy-t.h>
#include <proxy/proxy.h>

#define LFDS_MAX 4096	      /* inherited sockets kept at most */
#define LFDS_MAGIC 0x48504644 /* "HPFD": one record of our "_getsocks" stream */
#define LFDS_F_LAST 0x1	      /* end record, carries no fd */
#define LFDS_TIMEOUT_MS 5000  /* -x: the whole transfer */

struct lfd {
	int fd; /* -1 once taken */
	int grp;
	bool v6only;
	struct sockaddr_storage addr;
	socklen_t len;
};

/* One record of "_getsocks": fixed size, one sendmsg() each, the fd in SCM_RIGHTS. */
struct lfd_rec {
	uint32_t magic;
	uint32_t tgid;
	uint32_t flags;
	uint32_t idx;
};

static struct lfd *lfds;
static int nb_lfds, lfds_alloc;

int lfds_add(int fd, int grp)
{
	struct lfd e = { .fd = fd, .grp = grp, .len = sizeof(e.addr) };
	int acc = 0, type = 0, v6 = 0;
	socklen_t l = sizeof(acc);

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l) < 0 || !acc)
		goto bad;
	l = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0 || type != SOCK_STREAM)
		goto bad;
	if (getsockname(fd, (struct sockaddr *)&e.addr, &e.len) < 0 || e.len > sizeof(e.addr))
		goto bad;
	if (e.addr.ss_family == AF_INET6) {
		l = sizeof(v6);
		if (getsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6, &l) < 0)
			goto bad;
	}
	e.v6only = v6 != 0;
	if (nb_lfds == lfds_alloc) {
		int n = lfds_alloc ? lfds_alloc * 2 : 16;
		struct lfd *t;

		if (n > LFDS_MAX || !(t = realloc(lfds, (size_t)n * sizeof(*t))))
			goto bad;
		lfds = t;
		lfds_alloc = n;
	}
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	lfds[nb_lfds++] = e;
	return 0;
bad:
	close(fd);
	return -1;
}

static bool lfd_same_addr(const struct lfd *e, const struct sockaddr_storage *a, socklen_t len,
			  bool v6only)
{
	if (e->addr.ss_family != a->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)&e->addr, *y = (const void *)a;

		return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)&e->addr, *y = (const void *)a;

		return x->sin6_port == y->sin6_port && e->v6only == v6only &&
		       memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr)) == 0;
	}
	if (a->ss_family == AF_UNIX) {
		const struct sockaddr_un *x = (const void *)&e->addr, *y = (const void *)a;
		size_t off = offsetof(struct sockaddr_un, sun_path), lx, ly;

		if (e->len <= off || len <= off)
			return false;
		lx = e->len - off;
		ly = len - off;
		if (x->sun_path[0] && y->sun_path[0]) /* paths: up to the NUL */
			return strncmp(x->sun_path, y->sun_path, sizeof(x->sun_path)) == 0;
		return lx == ly && memcmp(x->sun_path, y->sun_path, lx) == 0; /* abstract */
	}
	return false;
}

int lfds_take(const struct sockaddr_storage *addr, socklen_t len, bool v6only, int grp)
{
	int any = -1, fd;

	for (int i = 0; i < nb_lfds; i++) {
		if (lfds[i].fd < 0 || !lfd_same_addr(&lfds[i], addr, len, v6only))
			continue;
		if (lfds[i].grp == grp) {
			any = i;
			break;
		}
		if (any < 0)
			any = i;
	}
	if (any < 0)
		return -1;
	fd = lfds[any].fd;
	lfds[any].fd = -1;
	return fd;
}

int lfds_count(void)
{
	int n = 0;

	for (int i = 0; i < nb_lfds; i++)
		n += lfds[i].fd >= 0;
	return n;
}

int lfds_close_unclaimed(void)
{
	int n = 0;

	for (int i = 0; i < nb_lfds; i++) {
		if (lfds[i].fd >= 0) {
			close(lfds[i].fd);
			n++;
		}
	}
	free(lfds);
	lfds = NULL;
	nb_lfds = lfds_alloc = 0;
	return n;
}

int lfds_parse_env(const char *s, int (*add)(int fd, int grp))
{
	int n = 0;

	while (*s) {
		char *end;
		long fd, tg;

		errno = 0;
		fd = strtol(s, &end, 10);
		if (errno || end == s || *end != ':' || fd < 0 || fd > INT_MAX)
			return -1;
		s = end + 1;
		tg = strtol(s, &end, 10);
		if (errno || end == s || tg < 0 || tg > 64 || (*end && *end != ','))
			return -1;
		s = *end ? end + 1 : end;
		if (add((int)fd, (int)tg) == 0)
			n++;
	}
	return n;
}

int lfds_import_env(void)
{
	const char *s = getenv(LFDS_ENV);
	int ret;

	if (!s)
		return 0;
	ret = lfds_parse_env(s, lfds_add);
	unsetenv(LFDS_ENV);
	return ret < 0 ? -1 : 0;
}

/* Calls fn(fd, tgid, arg) for each bound listening socket of this process; stops at the
 * first non-zero return, which it returns. */
static int lfds_foreach_bound(int (*fn)(int fd, int grp, void *arg), void *arg)
{
	for (struct proxy *px = proxies; px; px = px->next) {
		struct bind_conf *bc;

		list_for_each_entry(bc, &px->binds, list)
		{
			struct listener *li;

			list_for_each_entry(li, &bc->listeners, list)
			{
				for (int i = 0; i < li->nb_shards; i++) {
					int r;

					if (li->shards[i].fd < 0)
						continue;
					r = fn(li->shards[i].fd, li->shards[i].tgid, arg);
					if (r)
						return r;
				}
			}
		}
	}
	return 0;
}

struct lfds_out {
	char *p;
	size_t room;
	bool first;
};

static int lfds_export_one(int fd, int grp, void *arg)
{
	struct lfds_out *o = arg;
	int n = snprintf(o->p, o->room, "%s%d:%d", o->first ? "" : ",", fd, grp);

	if (n < 0 || (size_t)n >= o->room)
		return -1;
	fcntl(fd, F_SETFD, 0);
	o->p += n;
	o->room -= (size_t)n;
	o->first = false;
	return 0;
}

int lfds_export(char *out, size_t outsz)
{
	struct lfds_out o = { out, outsz, true };

	if (!outsz)
		return -1;
	out[0] = '\0';
	return lfds_foreach_bound(lfds_export_one, &o) ? -1 : 0;
}

static int lfds_send_rec(int fd, const struct lfd_rec *r, int sfd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { (void *)r, sizeof(*r) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t ret;

	if (sfd >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		m.msg_control = u.buf;
		m.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &sfd, sizeof(int));
	}
	for (int tries = 0; tries < 100; tries++) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };

		ret = sendmsg(fd, &m, MSG_NOSIGNAL);
		if (ret == (ssize_t)sizeof(*r))
			return 0;
		if (ret >= 0 || (errno != EAGAIN && errno != EINTR))
			return -1;
		if (poll(&p, 1, 50) < 0 && errno != EINTR)
			return -1;
	}
	return -1;
}

struct lfds_send_ctx {
	int fd;
	uint32_t idx;
};

static int lfds_send_one(int sfd, int grp, void *arg)
{
	struct lfds_send_ctx *c = arg;
	struct lfd_rec r = { LFDS_MAGIC, (uint32_t)grp, 0, c->idx++ };

	return lfds_send_rec(c->fd, &r, sfd);
}

int lfds_send(int fd)
{
	struct lfds_send_ctx c = { fd, 0 };
	struct lfd_rec end = { LFDS_MAGIC, 0, LFDS_F_LAST, 0 };

	if (lfds_foreach_bound(lfds_send_one, &c))
		return -1;
	end.idx = c.idx;
	return lfds_send_rec(fd, &end, -1);
}

/* Receives one record (and its fd, or -1) from <fd>, waiting at most until <deadline>
 * of poll() time left in *left_ms. Returns 0, or -1 with the reason in err.
 */
static int lfds_recv_rec(int fd, struct lfd_rec *r, int *rfd, int *left_ms, char *err, size_t errsz)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 4)];
		struct cmsghdr align;
	} u;
	size_t got = 0;

	*rfd = -1;
	while (got < sizeof(*r)) {
		struct iovec iov = { (char *)r + got, sizeof(*r) - got };
		struct msghdr m = { .msg_iov = &iov,
				    .msg_iovlen = 1,
				    .msg_control = u.buf,
				    .msg_controllen = sizeof(u.buf) };
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t ret;

		if (poll(&p, 1, *left_ms) <= 0) {
			snprintf(err, errsz, "timeout or error waiting for the old process");
			return -1;
		}
		*left_ms = *left_ms > 50 ? *left_ms - 50 : 50; /* coarse, bounds the loop */
		ret = recvmsg(fd, &m, MSG_CMSG_CLOEXEC);
		if (ret <= 0) {
			snprintf(err, errsz, "%s",
				 ret == 0 ? "connection closed by the old process"
					  : strerror(errno));
			return -1;
		}
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			size_t n;

			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < n; i++) {
				int x;

				memcpy(&x, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
				if (*rfd < 0)
					*rfd = x;
				else
					close(x); /* never more than one per record */
			}
		}
		if (m.msg_flags & MSG_CTRUNC) {
			snprintf(err, errsz, "truncated file descriptor list");
			return -1;
		}
		got += (size_t)ret;
	}
	if (r->magic != LFDS_MAGIC) {
		/* text: the old process refused, e.g. "Permission denied" */
		snprintf(err, errsz,
			 "the old process did not send sockets (is 'expose-fd "
			 "listeners' set on its stats socket?)");
		return -1;
	}
	return 0;
}

int lfds_recv_all(int fd, char *err, size_t errsz)
{
	int n = 0, left = LFDS_TIMEOUT_MS;

	for (int i = 0; i <= LFDS_MAX; i++) {
		struct lfd_rec r;
		int sfd;

		if (lfds_recv_rec(fd, &r, &sfd, &left, err, errsz) < 0) {
			if (sfd >= 0)
				close(sfd);
			return -1;
		}
		if (r.flags & LFDS_F_LAST) {
			if (sfd >= 0)
				close(sfd);
			return n;
		}
		if (sfd >= 0 && lfds_add(sfd, r.tgid <= 64 ? (int)r.tgid : 0) == 0)
			n++;
	}
	snprintf(err, errsz, "too many sockets");
	return -1;
}

int lfds_fetch(const char *path, char *err, size_t errsz)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	static const char cmd[] = "_getsocks\n";
	int fd, n;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(err, errsz, "socket path too long");
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    send(fd, cmd, sizeof(cmd) - 1, MSG_NOSIGNAL) != (ssize_t)sizeof(cmd) - 1) {
		snprintf(err, errsz, "Failed to connect to the old process socket '%s'", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	n = lfds_recv_all(fd, err, errsz);
	close(fd);
	return n;
}
