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
#include <stats/counters-t.h>
#include <thread/thread-t.h>

struct proxy;
struct ssl_bind;

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
	int tcp_ut;               /* "tcp-ut": TCP_USER_TIMEOUT in ms, 0 = the system's */
	bool has_thread_set;      /* "thread" was given */
	struct thread_set thread_set; /* "thread [G/]RANGE" */
	int shards;               /* "shards": SHARDS_BY_THREAD, SHARDS_BY_GROUP or N > 0;
				   * 0 = tune.listener.default-shards */
	/* resolved by thread_cfg_check() */
	uint64_t thr_masks[MAX_TGROUPS]; /* group-relative threads serving this bind */
	int nb_shards;            /* sockets per listener */
	struct ssl_bind *ssl;     /* the TLS side when "ssl" is on (set by the check), else NULL:
				   * what the accept path tests */
	struct ssl_bind *ssl_cfg; /* the TLS options given (ssl/ssl_bind_cfg.c), or NULL */
	bool accept_proxy;        /* "accept-proxy": a PROXY header (v1 or v2) opens every
				   * connection (conn/pp_recv.c) */
};

struct listener;

/* One listening socket of a listener. Several shards of one address are SO_REUSEPORT
 * sockets (the kernel spreads connections over them); an fd belongs to one thread group. */
struct li_shard {
	struct listener *li;
	int fd;
	int tgid;                 /* group whose threads poll it (1-based) */
	uint64_t thr_mask;        /* group-relative threads that poll it and serve its
				   * connections */
};

/* One thread's registration of a shard in its poller; owned by that thread. */
struct li_reg {
	struct fd_handler h;      /* h.fd is the shard's fd */
	struct li_shard *sh;
	struct li_reg *next;      /* the thread's registrations */
	struct tasklet release;   /* deferred free once unregistered (event/loop.h) */
	bool paused;              /* removed from the poller by a maxconn limit */
};

/* One listening address. */
struct listener {
	struct list list;         /* member of bind_conf->listeners */
	struct bind_conf *bind;
	struct sockaddr_storage addr; /* address to bind (AF_INET, AF_INET6 or AF_UNIX) */
	socklen_t addrlen;
	int inherited_fd;         /* >= 0 for fd@N: adopt this already listening fd */
	int fd;                   /* first shard's socket; -1 until bound */
	int nbconn;               /* current connections (atomic) */
	char *name;               /* bind_conf name, with a suffix when several addresses */
	/* runtime, owned by conn/listener.c */
	struct li_counters *cnt;  /* one block per thread group */
	struct li_shard *shards;  /* bound sockets */
	int nb_shards;
	int (*accept)(struct listener *li, int fd, const struct sockaddr_storage *peer);
};

#endif
