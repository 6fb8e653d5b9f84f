/* Pure parsing of the socket addresses written in "bind" and "server" lines: IPv4, IPv6,
 * "*:port", ":port", port ranges, "ipv4@"/"ipv6@"/"tcp@" prefixes, unix socket paths and
 * "fd@N". addr_parse() does no I/O and no allocation; addr_resolve() is the blocking
 * name lookup used at config time.
 */
#ifndef BASE_ADDR_H
#define BASE_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

/* flags for addr_parse() */
#define ADDR_F_PORT_RANGE 0x0001 /* accept "lo-hi" port ranges (bind) */
#define ADDR_F_FD         0x0002 /* accept "fd@N" (bind) */
#define ADDR_F_HOSTNAME   0x0004 /* a non-literal host is returned as ADDR_HOSTNAME */
#define ADDR_F_PORT_MAP   0x0008 /* accept no port or "+N"/"-N" (server): port_map set */

/* addr_parse() results */
#define ADDR_ERR      (-1)        /* invalid; the reason is in err */
#define ADDR_OK       0           /* res->ss holds the address (port_lo for inet) */
#define ADDR_HOSTNAME 1           /* res->host holds a name to resolve, res->family the hint */

#define ADDR_HOST_MAX 256

struct addr_res {
	struct sockaddr_storage ss;   /* AF_INET/AF_INET6 (port set to port_lo) or AF_UNIX */
	socklen_t len;                /* valid length of ss */
	int port_lo, port_hi;         /* inet ports, equal without a range; 0 for unix/fd */
	int fd;                       /* >= 0 for "fd@N", else -1 */
	int family;                   /* family asked by a prefix (AF_UNSPEC if none) */
	int port_map;                 /* ADDR_F_PORT_MAP: no port or an offset was written: the
				       * port is the client's destination port + port_off */
	int port_off;                 /* -65535..65535 */
	char host[ADDR_HOST_MAX];     /* ADDR_HOSTNAME: the name to resolve */
};

/* Parses one address <str> (NUL-terminated, no commas) into <res> according to <flags>.
 * A port is required for inet addresses and must be 1..65535 (with ADDR_F_PORT_MAP it may
 * be left out, or written "+N" or "-N": res->port_map). Returns ADDR_OK,
 * ADDR_HOSTNAME (only with ADDR_F_HOSTNAME) or ADDR_ERR with a message in err[0..errsz).
 */
int addr_parse(const char *str, unsigned int flags, struct addr_res *res, char *err, size_t errsz);

/* Replaces "fd@${NAME}" by "fd@VALUE" from the environment (the lexer normally expanded
 * it already; this covers the single-quoted form) into buf[0..size). Returns <str> when
 * it is not of that form, <buf>, or NULL when NAME is unset or too long.
 */
const char *addr_expand_fd_env(const char *str, char *buf, size_t size);

/* Resolves res->host (after addr_parse() returned ADDR_HOSTNAME) with getaddrinfo, honouring
 * res->family, into res->ss with port res->port_lo. Blocking: config parsing only. Returns 0,
 * or -1 with a message in err[0..errsz).
 */
int addr_resolve(struct addr_res *res, char *err, size_t errsz);

/* Formats <ss> as "1.2.3.4:80", "[::1]:80" or the unix path into buf[0..size). Returns buf. */
char *addr_to_str(const struct sockaddr_storage *ss, char *buf, size_t size);

/* Formats an IPv4 or IPv6 <ss> as "1.2.3.4:80" or "::1:80" (no brackets, as HAProxy's
 * "show sess" and "show errors" print peers) into buf[0..size). Returns false, buf
 * untouched, for another family. */
bool addr_to_str_plain(const struct sockaddr_storage *ss, char *buf, size_t size);

#endif
