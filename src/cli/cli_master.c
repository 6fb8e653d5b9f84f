/* The worker's side of the master CLI: the socketpair the master created before the fork.
 * The master passes one connected socket per forwarded command ("@1 show info") over it
 * (SCM_RIGHTS); each becomes an admin-level CLI session on thread 0. The link stays open
 * through a soft stop so that an old worker still answers "@!<pid>".
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <base/compiler.h>
#include <cli/cli.h>
#include <event/loop.h>
#include "cli_int.h"

/* Settings of the forwarded sessions: admin, as the master CLI. Thread 0 only. */
static struct cli_bind cli_mlink_bind = {
	.inherited_fd = -1,
	.mode = -1,
	.uid = (uid_t)-1,
	.gid = (gid_t)-1,
	.level = CLI_LVL_ADMIN,
	.h = { NULL, -1 },
};
static struct fd_handler cli_mlink_h = { NULL, -1 };
static bool cli_mlink_polled;

void cli_master_link_set(int fd)
{
	cli_mlink_h.fd = fd;
}

/* Receives one fd from the link. Returns it, -1 on EAGAIN/none, -2 on EOF or error. */
static int cli_mlink_recv(void)
{
	char byte, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	ssize_t r;
	int fd = -1;

	do
		r = recvmsg(cli_mlink_h.fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);
	if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK))
		return -2;
	if (r < 0)
		return -1;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
		    c->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd < 0 ? -3 : fd; /* a byte without a socket: ignored */
}

static void cli_mlink_iocb(struct fd_handler *h, uint32_t events)
{
	for (int i = 0; i < 64; i++) { /* bounded batch; edge-triggered: level re-arms */
		int fd = cli_mlink_recv();

		if (fd == -3)
			continue;
		if (fd == -1)
			return;
		if (fd == -2) { /* the master is gone */
			fd_unregister(h);
			close(h->fd);
			h->fd = -1;
			cli_mlink_polled = false;
			return;
		}
		if (cli_sess_adopt(&cli_mlink_bind, fd) < 0)
			close(fd);
	}
}

int cli_master_link_start(void)
{
	if (cli_mlink_h.fd < 0 || cli_mlink_polled)
		return 0;
	cli_mlink_h.iocb = cli_mlink_iocb;
	if (fd_register_listener(&cli_mlink_h) < 0)
		return -1;
	cli_mlink_polled = true;
	return 0;
}
