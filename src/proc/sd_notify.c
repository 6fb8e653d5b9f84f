/* systemd notify (-Ws): the datagrams the master sends to $NOTIFY_SOCKET (READY,
 * RELOADING, STOPPING, STATUS), written without libsystemd. Master process only, which is
 * single-threaded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <proc/sd_notify.h>

bool sd_notify_mode;

int sd_notify_send(const char *msg)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	const char *path = getenv("NOTIFY_SOCKET");
	size_t len;
	socklen_t alen;
	ssize_t ret;
	int fd;

	if (!sd_notify_mode || !path || !*path)
		return 0;
	len = strlen(path);
	if (len >= sizeof(sun.sun_path) || (path[0] != '/' && path[0] != '@'))
		return -1;
	memcpy(sun.sun_path, path, len);
	if (path[0] == '@') /* abstract: no NUL terminator counted */
		sun.sun_path[0] = '\0';
	alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + (path[0] == '/'));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	ret = sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sun, alen);
	close(fd);
	return ret == (ssize_t)strlen(msg) ? 0 : -1;
}

int sd_notifyf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	return sd_notify_send(buf);
}
