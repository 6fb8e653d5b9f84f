/* Listening sockets: bind/adopt, accept in batches, pause on maxconn and resume when a
 * connection ends. Accepted sockets are handed to the listener's accept callback (the
 * front H1 mux). One thread for now; issue #3 gives each group its own socket.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <base/atomic.h>
#include <conn/listener.h>
#include <event/loop.h>
#include <proc/global-t.h>
#include <proxy/proxy-t.h>

int actconn; /* process-wide: read and written with atomics */

/* Listeners paused by a limit, owned by the loop thread. */
static __thread struct list paused_listeners = { NULL, NULL };

static int listener_adopt(struct listener *li, char *err, size_t errsz)
{
	int fd = li->inherited_fd, acc = 0;
	socklen_t l = sizeof(acc);

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l) < 0 || !acc) {
		snprintf(err, errsz, "fd@%d is not a listening socket", fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	li->fd = li->h.fd = fd;
	return 0;
}

int listener_bind(struct listener *li, int backlog, char *err, size_t errsz)
{
	int fam = li->addr.ss_family, one = 1, fd;

	if (li->inherited_fd >= 0)
		return listener_adopt(li, err, errsz);
	fd = socket(fam, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	if (fam != AF_UNIX) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		/* lets a new process bind next to an old one (-sf) and, with issue #3, one
		 * socket per thread group */
		setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one));
	} else {
		const struct sockaddr_un *un = (const void *)&li->addr;

		if (un->sun_path[0])
			unlink(un->sun_path);
	}
	if (fam == AF_INET6) {
		int v6only = li->bind->v6only ? 1 : 0;

		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only));
	}
	if (bind(fd, (const struct sockaddr *)&li->addr, li->addrlen) < 0)
		goto fail_close;
	if (listen(fd, backlog > 0 ? backlog : 1024) < 0)
		goto fail_close;
	li->fd = li->h.fd = fd;
	return 0;
fail_close:
	{
		int e = errno;

		close(fd);
		errno = e;
	}
fail:
	snprintf(err, errsz, "%s", strerror(errno));
	return -1;
}

static bool listener_full(struct listener *li)
{
	struct proxy *px = li->bind->px;

	if (global.maxconn && HA_ATOMIC_LOAD_RLX(&actconn) >= global.maxconn)
		return true;
	if (px->maxconn && HA_ATOMIC_LOAD_RLX(&px->feconn) >= px->maxconn)
		return true;
	return li->bind->maxconn && HA_ATOMIC_LOAD_RLX(&li->nbconn) >= li->bind->maxconn;
}

/* Stops polling <li> until listener_release() finds room: pending connections wait in
 * the kernel's backlog. */
static void listener_pause(struct listener *li)
{
	if (!list_empty(&li->paused))
		return;
	epoll_ctl(th_ctx->epfd, EPOLL_CTL_DEL, li->h.fd, NULL);
	list_append(&paused_listeners, &li->paused);
}

static void listener_iocb(struct fd_handler *h, uint32_t events)
{
	struct listener *li = container_of(h, struct listener, h);
	int budget = global.tune_maxaccept > 0 ? global.tune_maxaccept : 64;

	while (budget--) {
		struct sockaddr_storage peer;
		socklen_t len = sizeof(peer);
		int fd;

		if (listener_full(li)) {
			listener_pause(li);
			return;
		}
		fd = accept4(h->fd, (struct sockaddr *)&peer, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				listener_pause(li); /* resumed when a connection ends */
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		HA_ATOMIC_INC(&actconn);
		HA_ATOMIC_INC(&li->nbconn);
		HA_ATOMIC_INC(&li->bind->px->feconn);
		if (li->accept(li, fd, &peer) < 0) {
			close(fd);
			listener_release(li);
		}
	}
}

int listener_enable(struct listener *li)
{
	if (!paused_listeners.next)
		list_init(&paused_listeners);
	list_init(&li->paused);
	li->h.iocb = listener_iocb;
	return fd_register_listener(&li->h);
}

void listener_stop(struct listener *li)
{
	if (li->h.fd < 0)
		return;
	list_delete(&li->paused);
	close(li->h.fd);
	li->h.fd = li->fd = -1;
}

void listener_release(struct listener *li)
{
	struct listener *l, *tmp;

	HA_ATOMIC_DEC(&actconn);
	HA_ATOMIC_DEC(&li->nbconn);
	HA_ATOMIC_DEC(&li->bind->px->feconn);
	if (!paused_listeners.next || list_empty(&paused_listeners))
		return;
	list_for_each_entry_safe(l, tmp, &paused_listeners, paused) {
		if (l->h.fd < 0 || listener_full(l))
			continue;
		list_delete(&l->paused);
		fd_register_listener(&l->h);
	}
}
