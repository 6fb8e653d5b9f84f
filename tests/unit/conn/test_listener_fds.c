/* Unit tests of conn/listener_fds: matching inherited listening sockets to binds by
 * address (port, path, v6only) and group, closing the unclaimed ones, the environment list
 * across a re-exec, and the "_getsocks" records over a socketpair (fds with SCM_RIGHTS).
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <conn/listener_fds.h>

#include "../test.h"

/* A listening TCP socket on 127.0.0.1, any port; its address in *ss. */
static int lfd_listen4(struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *in = (void *)ss;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(ss, 0, sizeof(*ss));
	in->sin_family = AF_INET;
	in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	*len = sizeof(*in);
	if (fd < 0 || bind(fd, (struct sockaddr *)in, *len) < 0 || listen(fd, 4) < 0 ||
	    getsockname(fd, (struct sockaddr *)ss, len) < 0)
		return -1;
	return fd;
}

static int fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

TEST(lfds_take_matches_address_and_prefers_group)
{
	struct sockaddr_storage a, other;
	socklen_t alen, olen;
	int fd1 = lfd_listen4(&a, &alen), fd2, fd3, got;

	CHECK(fd1 >= 0);
	fd2 = dup(fd1); /* a second shard of the same address, for group 2 */
	fd3 = lfd_listen4(&other, &olen);
	CHECK(fd3 >= 0);
	CHECK_INT(lfds_add(fd1, 1), 0);
	CHECK_INT(lfds_add(fd2, 2), 0);
	CHECK_INT(lfds_add(fd3, 1), 0);
	CHECK_INT(lfds_count(), 3);
	got = lfds_take(&a, alen, false, 2);
	CHECK_INT(got, fd2);
	got = lfds_take(&a, alen, false, 2); /* none left for group 2: any group */
	CHECK_INT(got, fd1);
	CHECK_INT(lfds_take(&a, alen, false, 1), -1);
	CHECK_INT(lfds_count(), 1);
	CHECK_INT(lfds_close_unclaimed(), 1);
	CHECK(!fd_open(fd3));
	CHECK_INT(lfds_count(), 0);
	close(fd1);
	close(fd2);
}

TEST(lfds_add_refuses_non_listening)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	CHECK(fd >= 0);
	CHECK_INT(lfds_add(fd, 1), -1);
	CHECK(!fd_open(fd)); /* closed by the registry */
	CHECK_INT(lfds_count(), 0);
}

TEST(lfds_unix_path)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct sockaddr_storage ss;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(un.sun_path, sizeof(un.sun_path), "/tmp/lfds-test-%d.sock", (int)getpid());
	unlink(un.sun_path);
	CHECK(fd >= 0);
	CHECK_INT(bind(fd, (struct sockaddr *)&un, sizeof(un)), 0);
	CHECK_INT(listen(fd, 4), 0);
	CHECK_INT(lfds_add(fd, 1), 0);
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, &un, sizeof(un));
	CHECK_INT(lfds_take(&ss, sizeof(un), false, 1), fd);
	close(fd);
	unlink(un.sun_path);
	lfds_close_unclaimed();
}

static int seen_fd[4], seen_grp[4], nseen;

static int rec_add(int fd, int grp)
{
	if (nseen < 4) {
		seen_fd[nseen] = fd;
		seen_grp[nseen] = grp;
	}
	nseen++;
	return 0;
}

TEST(lfds_parse_env_list)
{
	nseen = 0;
	CHECK_INT(lfds_parse_env("7:1,9:2", rec_add), 2);
	CHECK_INT(seen_fd[0], 7);
	CHECK_INT(seen_grp[1], 2);
	CHECK_INT(lfds_parse_env("", rec_add), 0);
	CHECK_INT(lfds_parse_env("7", rec_add), -1);
	CHECK_INT(lfds_parse_env("7:1,", rec_add), 1); /* a trailing comma is tolerated */
	CHECK_INT(lfds_parse_env("x:1", rec_add), -1);
	CHECK_INT(lfds_parse_env("7:65", rec_add), -1);
}

TEST(lfds_recv_refusal_text)
{
	static const char deny[] = "Permission denied\n\n";
	char err[256] = "";
	int sv[2];

	CHECK_INT(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	CHECK_INT(write(sv[1], deny, sizeof(deny) - 1), (ssize_t)sizeof(deny) - 1);
	close(sv[1]);
	CHECK_INT(lfds_recv_all(sv[0], err, sizeof(err)), -1);
	CHECK(strstr(err, "expose-fd listeners") != NULL);
	close(sv[0]);
}
