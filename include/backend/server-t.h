/* Types of servers of a backend. Config fields are written at parse time only; runtime
 * fields are commented with who writes them.
 */
#ifndef BACKEND_SERVER_T_H
#define BACKEND_SERVER_T_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <base/compiler.h>
#include <base/freq_ctr-t.h>
#include <base/list.h>
#include <stats/counters-t.h>

struct proxy;
struct srv_per_thread;
struct check;

/* run_state: what checks (and later the CLI) decided, through srv_set_state() only. */
enum srv_run_state {
	SRV_RS_UP = 0,            /* takes traffic (also every server without "check") */
	SRV_RS_DOWN,              /* failed its checks: never picked */
	SRV_RS_NOLB,              /* "http-check disable-on-404" saw a 404: no new traffic */
};

#define SRV_F_DISABLED 0x0001 /* "disabled": administratively down (maintenance) */
#define SRV_F_BACKUP   0x0002 /* "backup": used only when no active server is usable */
#define SRV_F_CHECK    0x0004 /* "check": health checks run (src/check/) */
#define SRV_F_NON_STICK 0x0008 /* "non-stick": "stick" rules never store this server */
#define SRV_F_FIXED_ID 0x0010 /* "id N" was given */
#define SRV_F_PORT_MAP 0x0020 /* no port or "+N"/"-N": the client's destination port + port_off */
#define SRV_F_REDIR    0x0040 /* "redir PREFIX" (tested with SRV_F_PORT_MAP: one test) */

struct server {
	struct server *next;      /* next server of the same backend, config order */
	struct proxy *px;         /* owning backend */
	char *id;                 /* server name */
	char *file;               /* config location */
	int line;
	int puid;                 /* "id", else the lowest id no other server of the backend has
				   * (config order); from 1 */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int port_off;             /* SRV_F_PORT_MAP: added to the client's destination port */
	char *cookie;             /* "cookie VALUE" (persistence, stream/cookie.c), or NULL */
	uint32_t flags;           /* SRV_F_* */
	int weight;               /* configured weight 0..256, default 1 */
	int maxconn;              /* 0 = unlimited */
	/* health check settings ("check", "inter"...), parse time */
	int inter;                /* ms, default 2000 */
	int fastinter;            /* ms, 0: inter */
	int downinter;            /* ms, 0: inter */
	int rise;                 /* default 2 */
	int fall;                 /* default 3 */
	int check_port;           /* "port", 0: the server's */
	struct sockaddr_storage check_addr; /* "addr", family 0: the server's */
	struct check *check;      /* its check, built by checks_prepare(), or NULL */
	/* queue and connection limits (backend/srv_limits.c), parse time */
	int maxqueue;             /* "maxqueue": streams waiting for this server, 0 = unlimited */
	int minconn;              /* "minconn": dynamic maxconn floor; 0 (or = maxconn): static */
	int pool_max_conn;        /* "pool-max-conn": idle connections per thread, -1 unlimited;
				   * at run time 0..SRV_MAX_IDLE_PER_THREAD (srv_limits_prepare) */
	int pool_low_conn;        /* "pool-low-conn" (accepted: idle pools are per thread) */
	int pool_purge_delay;     /* "pool-purge-delay" ms, default 5000 */
	/* where connections go (backend/be_route_cfg.c), parse time */
	struct sockaddr_storage src; /* "source": bound before connect; family 0: none (the
				      * backend's is copied in when the server has none) */
	socklen_t srclen;
	char *redir;              /* "redir PREFIX": GET/HEAD get a 302 to PREFIX + URI, or NULL */
	/* runtime: written by srv_set_state() (atomics), read by any thread */
	int run_state;            /* enum srv_run_state (atomic, relaxed) */
	int check_status;         /* enum chk_result of the last check (atomic) */
	int check_code;           /* HTTP status of the last check, 0 if none (atomic) */
	int check_duration;       /* ms of the last check (atomic) */
	uint32_t chk_fail;        /* failed checks (atomic) */
	uint32_t chk_down;        /* UP -> DOWN transitions (atomic) */
	uint64_t last_change;     /* monotonic ms of the last state change, 0: start (atomic) */
	uint64_t down_time;       /* ms spent DOWN before last_change (atomic) */
	/* runtime: process-wide, atomics (see DESIGN.md §5) */
	int cur_conns;            /* connections in use (atomic) */
	int cur_conns_max;        /* highest cur_conns (atomic, show stat smax) */
	struct be_counters *cnt;  /* runtime: one block per thread group */
	struct freq_ctr sess_rate; /* runtime: streams assigned per second (srv_sess_rate) */
	int queued;               /* runtime: streams queued because this server, the one their
				   * key hashes to, is full (atomic, for "maxqueue") */
	/* runtime: per thread, only touched by its thread */
	struct srv_per_thread *per_thr; /* idle connections, allocated by runtime_prepare */
};

#endif
