/* System calls of the hot path, made through syscall(2) rather than their libc wrappers.
 * In a process with threads, glibc's recv(), sendmsg() and epoll_wait() are cancellation
 * points: each call switches the thread to asynchronous cancellation and back, about 30
 * instructions, more than the wrapper itself. This process never cancels a thread, so
 * the raw calls are equivalent (same return value, errno set the same way). Only the
 * calls made for every request live here; the rest of the code uses libc as usual.
 */
#ifndef BASE_SYS_H
#define BASE_SYS_H

#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>

/* recv(): recvfrom without an address (aarch64 has no recv system call). */
static inline ssize_t sys_recv(int fd, void *buf, size_t len, int flags)
{
	return syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL);
}

static inline ssize_t sys_send(int fd, const void *buf, size_t len, int flags)
{
	return syscall(SYS_sendto, fd, buf, len, flags, NULL, 0);
}

static inline ssize_t sys_sendmsg(int fd, const struct msghdr *msg, int flags)
{
	return syscall(SYS_sendmsg, fd, msg, flags);
}

/* epoll_wait(): epoll_pwait without a signal mask (aarch64 has no epoll_wait). */
static inline int sys_epoll_wait(int epfd, struct epoll_event *evs, int maxev, int timeout)
{
	return (int)syscall(SYS_epoll_pwait, epfd, evs, maxev, timeout, NULL, (size_t)8);
}

#endif
