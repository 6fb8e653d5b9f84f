// FUZZ_SRCS: src/conn/listener_fds.c
/* libFuzzer target for conn/listener_fds's two readers: the HAPX_LISTEN_FDS list (the
 * first byte chooses; the rest, NUL-terminated, goes to lfds_parse_env() with an add()
 * that only checks its arguments) and the "_getsocks" record stream of -x (the input is
 * written into a socketpair whose writer is then closed, and read by lfds_recv_all(): no
 * fd travels, so records without one are skipped, and a short stream must fail cleanly).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <conn/listener_fds.h>
#include <proxy/proxy.h>

struct proxy *proxies; /* no listener: lfds_send() is not exercised */

static int fz_add(int fd, int grp)
{
	if (fd < 0 || grp < 0 || grp > 64)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];

	if (!size || size > 65536)
		return 0;
	if (data[0] & 1) {
		char *s = malloc(size);

		if (!s)
			return 0;
		memcpy(s, data + 1, size - 1);
		s[size - 1] = '\0';
		lfds_parse_env(s, fz_add);
		free(s);
	} else {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
			return 0;
		if (write(sv[1], data + 1, size - 1) == (ssize_t)(size - 1)) {
			close(sv[1]);
			sv[1] = -1;
			err[0] = '\0';
			if (lfds_recv_all(sv[0], err, sizeof(err)) < 0 && !err[0])
				abort(); /* a failure always says why */
		}
		if (sv[1] >= 0)
			close(sv[1]);
		close(sv[0]);
	}
	if (lfds_count())
		abort(); /* no fd was passed: nothing may be registered */
	lfds_close_unclaimed();
	return 0;
}
