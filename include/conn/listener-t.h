/* Types of listeners: one "bind" line is a bind_conf; each address it names is a listener
 * with its own socket.
 */
#ifndef CONN_LISTENER_T_H
#define CONN_LISTENER_T_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <base/list.h>
#include <event/loop-t.h>

struct proxy;

/* One "bind" line. */
struct bind_conf {
	struct list list;         /* member of proxy->binds */
	struct list listeners;    /* struct listener, one per address/port */
	struct proxy *px;         /* owning frontend */
	char *file;               /* config location, for diagnostics */
	int line;
	char *name;               /* "name" option, or NULL */
	int maxconn;              /* "maxconn" option, 0 = unlimited */
	int backlog;              /* "backlog" option, 0 = frontend/global default */
	bool v4v6;                /* "v4v6": IPv6 socket also accepts IPv4 */
	bool v6only;              /* "v6only" */
};

/* One listening address. */
struct listener {
	struct list list;         /* member of bind_conf->listeners */
	struct bind_conf *bind;
	struct sockaddr_storage addr; /* address to bind (AF_INET, AF_INET6 or AF_UNIX) */
	socklen_t addrlen;
	int inherited_fd;         /* >= 0 for fd@N: adopt this already listening fd */
	int fd;                   /* -1 until bound */
	int nbconn;               /* current connections (atomic) */
	char *name;               /* bind_conf name, with a suffix when several addresses */
	/* runtime, owned by conn/listener.c */
	struct fd_handler h;      /* accept events; h.fd == fd once bound */
	struct list paused;       /* in the thread's paused list while limits are reached */
	int (*accept)(struct listener *li, int fd, const struct sockaddr_storage *peer);
};

#endif
