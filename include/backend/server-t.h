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
#include <event/inbox.h>
#include <event/loop-t.h>
#include <stats/counters-t.h>
#include <stats/stat_time-t.h>

struct proxy;
struct srv_per_thread;
struct ssl_srv;
struct check;
struct dns_srv;
struct agent;
struct dns_addr_pub;

/* run_state: what checks (and later the CLI) decided, through srv_set_state() only. */
enum srv_run_state {
	SRV_RS_UP = 0,            /* takes traffic (also every server without "check") */
	SRV_RS_DOWN,              /* failed its checks: never picked */
	SRV_RS_NOLB,              /* "http-check disable-on-404" saw a 404: no new traffic */
	SRV_RS_RMAINT,            /* no address from DNS (dns/): never picked, only dns/ leaves it */
};

#define SRV_F_DISABLED 0x0001 /* "disabled" (or a state file's maintenance); at start-up it
			       * becomes SRV_ADM_FMAINT | SRV_ADM_CMAINT and DOWN (srv_init_weights)
			       * so that the runtime API can end it */
#define SRV_F_BACKUP   0x0002 /* "backup": used only when no active server is usable */
#define SRV_F_CHECK    0x0004 /* "check": health checks run (src/check/) */
#define SRV_F_NON_STICK 0x0008 /* "non-stick": "stick" rules never store this server */
#define SRV_F_FIXED_ID 0x0010 /* "id N" was given */
#define SRV_F_PORT_MAP 0x0020 /* no port or "+N"/"-N": the client's destination port + port_off */
#define SRV_F_RESOLVE  0x0040 /* "resolvers": connect to dns->pub, the address DNS publishes */
#define SRV_F_REDIR    0x0100 /* "redir PREFIX" (tested with SRV_F_PORT_MAP: one test) */
#define SRV_F_TRANSP   0x0200 /* "option transparent": connect to the client's original
			       * destination (backend/be_transp.c), same test */
#define SRV_F_LB_KEYS  0x0400 /* leastconn/random: has a load key (lb_load.c), set before
			       * the server is published and never cleared */
#define SRV_F_SEND_PROXY 0x2000 /* "send-proxy*": a PROXY header opens each connection
				 * (pp_opts); an idle one is reused only for the same client
				 * connection (reuse_key, stream/pp_send.c) */
#define SRV_F_SNI_KEY  0x1000 /* TLS with an "sni" expression: idle connections are reused
			       * only for the same name (ssl/ssl_srv_cfg.c sets it) */
#define SRV_F_NON_PURGEABLE 0x0800 /* named by a rule ("use-server"): "del server" refuses
				    * it, as HAProxy 2.6 does */

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
	char *cookie;             /* "cookie VALUE" (persistence, stream/cookie.c), or NULL;
				   * replaced at run time by stream/cookie_cli.c (atomic) */
	uint32_t flags;           /* SRV_F_* */
	int weight;               /* configured weight 0..256, default 1 */
	int maxconn;              /* 0 = unlimited */
	int tcp_ut;               /* "tcp-ut": TCP_USER_TIMEOUT in ms, 0 = the system's */
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
	uint32_t pp_opts;         /* PROXY header sent to it: PP_O_* (conn/proxy_proto.h), 0 none;
				   * PP_O_V1|PP_O_V2 set SRV_F_SEND_PROXY (backend/server_cfg.c) */
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
	uint64_t *lb_load_word;   /* leastconn/random: the word holding this server's load key
				   * (lb_load.c), else NULL; rewritten by every change of
				   * cur_conns or state. Atomic: a table rebuilt at run time
				   * (add/del server) moves it, a deleted server's is a sink */
	uint8_t lb_load_shift;    /* 0 or 32: this server's half of *lb_load_word, fixed for
				   * its life (a rebuild keeps each server's half) */
	struct be_counters *cnt;  /* runtime: one block per thread group */
	struct freq_ctr sess_rate; /* runtime: streams assigned per second (srv_sess_rate) */
	uint32_t sess_rate_max;   /* highest sess_rate, sampled by stats/stat_rates.c (atomic) */
	struct stat_tavg tavg;    /* qtime..ttime averages (stats/stat_time.c, its lock) */
	int queued;               /* runtime: streams queued because this server, the one their
				   * key hashes to, is full (atomic, for "maxqueue") */
	/* runtime: per thread, only touched by its thread */
	struct srv_per_thread *per_thr; /* idle connections, allocated by runtime_prepare */
	struct ssl_srv *ssl;      /* "ssl" and the other TLS options (ssl/ssl_srv_cfg.c), or
				   * NULL; the connections use TLS when ssl->ctx is set */
	/* DNS resolution (dns/): settings at parse time, then its state, or NULL */
	struct dns_srv *dns;
	/* weights at run time and slowstart (server_state.c); <weight> above is the effective
	 * weight the algorithms read (atomic once running) */
	int uweight;              /* user weight: the config's, then srv_set_weight's (atomic) */
	int iweight;              /* initial (config) weight, set by srv_init_weights */
	int ss_w16;               /* warming up: effective weight in 1/16ths, else 0 (atomic) */
	int slowstart;            /* "slowstart" in ms, 0: off (parse time) */
	int maxconn_cfg;          /* "maxconn" as configured or set by an agent (atomic); with
				   * slowstart, <maxconn> ramps up to it */
	uint64_t ss_start;        /* warm-up start (monotonic ms), 0: not warming up */
	struct timer ss_timer;    /* steps the warm-up, on the thread that saw the server UP */
	/* "track [BE/]SRV" (server_state_cfg.c resolves it, server_weight.c follows it) */
	char *track_name;         /* as written, parse time; owned */
	struct server *track;     /* the server whose state this one mirrors, or NULL */
	struct server *trackers;  /* servers tracking this one, linked by <tracknext> */
	struct server *tracknext;
	/* "observe", "error-limit", "on-error" (check/check_hana.c), "on-marked-*" */
	uint8_t observe;          /* SRV_OBS_*: what live traffic tells the checks */
	uint8_t onerror;          /* SRV_ONERR_*: action after error_limit errors in a row */
	uint8_t on_marked;        /* SRV_OM_* */
	int error_limit;          /* "error-limit", default 10 */
	int consec_errors;        /* live errors in a row (atomic, any thread) */
	int hana_pending;         /* an on-error action is posted to the check's thread (atomic) */
	int hana_nerr;            /* its error count and last status (HANA_*), written before */
	int hana_status;          /* the post, read on the check's thread */
	struct inbox_item hana_item;
	/* agent check (check/agent_cfg.c, check/agent.c) */
	struct agent *agent;      /* built by agents_prepare, or NULL */
	bool agent_enabled;       /* "agent-check" */
	int agent_port;           /* "agent-port", 0: none */
	int agent_inter;          /* "agent-inter" in ms, 0: "inter" */
	char *agent_send;         /* "agent-send", owned, or NULL */
	struct sockaddr_storage agent_addr; /* "agent-addr", family 0: the server's */
	int admin;                /* SRV_ADM_*: forced drain or maintenance (atomic, written on
				   * the agent's thread) */
	/* runtime API (backend/srv_cli.c) */
	int chk_adm;              /* SRV_CHK_*_OFF: "disable health|agent" (atomic, written on
				   * the thread of the check, read by "show stat") */
	bool ck_dyn;              /* <cookie> was computed from "dynamic-cookie-key" (written
				   * at check time, then by thread 0: stream/cookie_cli.c) */
	struct dns_addr_pub *rt_addr; /* "set server addr" on a server without "resolvers": the
				       * address every thread connects to (written by thread 0,
				       * dns/dns_addr.h), or NULL: <addr>; allocated once, freed
				       * at exit */
	/* "show stat" (stats/stat_text.c): texts written by the check's and the agent's
	 * threads, read by any thread under the texts' lock; the agent's last result */
	char chk_desc[128];       /* last_chk: the detail of the last check result */
	char agt_desc[128];       /* last_agt: what the agent last said ("via agent : up") */
	int agent_status;         /* enum chk_result of the agent's last reply (atomic) */
	int agent_duration;       /* ms of the agent's last run (atomic) */
	int agent_health;         /* a copy of the agent's health (atomic, for agent_health) */
};

/* server->chk_adm */
#define SRV_CHK_HEALTH_OFF 0x01 /* health checks stopped: the server counts as unchecked */
#define SRV_CHK_AGENT_OFF  0x02 /* agent checks stopped: the agent no longer holds it down */

/* server->admin */
#define SRV_ADM_FDRAIN 0x01 /* drain: effective weight 0 */
#define SRV_ADM_FMAINT 0x02 /* maintenance: DOWN whatever the checks say */
#define SRV_ADM_CMAINT 0x04 /* "disabled" in the configuration (show servers state) */

/* server->observe */
#define SRV_OBS_NONE   0
#define SRV_OBS_LAYER4 1 /* connection results */
#define SRV_OBS_LAYER7 2 /* HTTP responses (and connection failures) */

/* server->onerror ("on-error"); fail-check is the default */
#define SRV_ONERR_FAILCHECK 0 /* a failed check, and fastinter */
#define SRV_ONERR_FASTINTER 1 /* only the next check at fastinter */
#define SRV_ONERR_SUDDEN    2 /* one failed check away from DOWN, and fastinter */
#define SRV_ONERR_MARKDOWN  3 /* DOWN at once, and fastinter */

/* server->on_marked */
#define SRV_OM_DOWN_SHUT    0x01 /* "on-marked-down shutdown-sessions" */
#define SRV_OM_UP_SHUT_BCK  0x02 /* "on-marked-up shutdown-backup-sessions" */

/* What a stream saw of a server, for "observe" (HAProxy's analyze statuses). */
enum srv_hana_status {
	HANA_L4_OK = 0,     /* "L4 successful connection" */
	HANA_L4_ERR,        /* "L4 unsuccessful connection" */
	HANA_HTTP_OK,       /* "Correct http response": 100..499, 501, 505 */
	HANA_HTTP_STS,      /* "Wrong http response": other statuses */
	HANA_HTTP_HDRRSP,   /* "Invalid http response (headers)" */
	HANA_HTTP_RSP,      /* "Invalid http response" */
	HANA_HTTP_READ_ERR, /* "Read error (http)" */
	HANA_HTTP_READ_TO,  /* "Read timeout (http)" */
	HANA_HTTP_PIPE,     /* "Write error (http)" */
	HANA_COUNT
};

#endif
