/* Listening sockets handed over between processes (seamless reload): a registry of
 * inherited fds, filled from the environment across a master's re-exec or from an old
 * process's stats socket (-x, "_getsocks"), from which listener_bind() adopts the socket
 * matching a bind instead of creating one. Single-threaded startup only, except
 * lfds_send() (thread 0, CLI).
 */
#ifndef CONN_LISTENER_FDS_H
#define CONN_LISTENER_FDS_H

#include <stdbool.h>
#include <sys/socket.h>

/* Environment variable listing inherited fds across a re-exec: "FD:TGID[,FD:TGID]*". */
#define LFDS_ENV "HAPX_LISTEN_FDS"

/* Adds listening socket <fd> (owned by the registry from now on) for thread group <tgid>
 * (1-based, 0 = any); its address and IPV6_V6ONLY are read from the kernel. Returns 0, or
 * -1 when <fd> is not a listening stream socket (it is then closed) or on no memory.
 */
int lfds_add(int fd, int tgid);

/* Takes the registered fd bound to <addr> (same family, address, port or path, and for
 * IPv6 the same <v6only>) preferring group <tgid>; the caller owns it. -1 if none.
 */
int lfds_take(const struct sockaddr_storage *addr, socklen_t len, bool v6only, int tgid);

/* Closes the registered fds that no bind took; returns how many. */
int lfds_close_unclaimed(void);

/* Registered fds not yet taken. */
int lfds_count(void);

/* Parses the LFDS_ENV list in <s> and calls add(fd, group) for each entry (lfds_add to
 * register them). Returns how many add() accepted, or -1 on a malformed list (what was
 * parsed before stays added).
 */
int lfds_parse_env(const char *s, int (*add)(int fd, int grp));

/* Imports LFDS_ENV if set, then removes it from the environment. Returns 0 or -1. */
int lfds_import_env(void);

/* Builds LFDS_ENV for this process's bound listeners into out[0..outsz) and clears their
 * FD_CLOEXEC so that they survive an exec. Returns 0, or -1 when it does not fit.
 */
int lfds_export(char *out, size_t outsz);

/* "-x PATH": connects to an old process's stats socket, sends "_getsocks" and registers
 * the sockets it receives. Returns the number received, or -1 with the reason in err.
 */
int lfds_fetch(const char *path, char *err, size_t errsz);

/* The receiving half of lfds_fetch() on connected socket <fd>: reads records until the
 * end record (5 s at most). Returns the number of sockets registered, or -1 with the
 * reason in err.
 */
int lfds_recv_all(int fd, char *err, size_t errsz);

/* Serves "_getsocks" on connected unix socket <fd>: sends every bound listening socket of
 * this process, one record per fd, then an end record. Returns 0 or -1.
 */
int lfds_send(int fd);

#endif
