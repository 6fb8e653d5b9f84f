/* Types of proxies: frontends, backends, listen sections and defaults sections. Written at
 * parse/check time (single-threaded); read-only at run time except the fields commented as
 * runtime.
 */
#ifndef PROXY_PROXY_T_H
#define PROXY_PROXY_T_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include <base/freq_ctr-t.h>
#include <base/ist.h>
#include <base/list.h>
#include <conn/sockopt-t.h>
#include <stats/counters-t.h>
#include <stats/stat_time-t.h>

struct px_log;
struct server;
struct lb_ops;
struct lb_load;
struct lb_key;
struct acl_cond;
struct lf_expr;
struct stktable;
struct comp_px;

#define PR_CAP_FE   0x01  /* has a frontend side (frontend, listen) */
#define PR_CAP_BE   0x02  /* has a backend side (backend, listen) */
#define PR_CAP_DEF  0x04  /* a defaults section */

enum pr_mode {
	PR_MODE_TCP = 0,
	PR_MODE_HTTP,
};

/* options (proxy->options) */
#define PR_O_HTTP_KAL      0x00000001 /* option http-keep-alive (the default) */
#define PR_O_HTTP_SCL      0x00000002 /* option http-server-close */
#define PR_O_HTTP_CLO      0x00000004 /* option httpclose */
#define PR_O_FWDFOR        0x00000008 /* option forwardfor */
#define PR_O_FF_IFNONE     0x00000010 /* forwardfor if-none */
#define PR_O_REDISP        0x00000020 /* option redispatch */
#define PR_O_PERSIST       0x00000200 /* option persist: a cookie may name a server in
				       * maintenance */
#define PR_O_BUF_REQ       0x00000040 /* option http-buffer-request */
#define PR_O_HTTP_NO_DELAY 0x00000080 /* option http-no-delay: never MSG_MORE */
#define PR_O_IDLE_CLOSE_RSP 0x00000100 /* option idle-close-on-response: on a graceful stop,
					 * idle connections wait for their next request */
#define PR_O_CLITCPKA      0x00010000 /* option clitcpka (or tcpka): probes on client sockets */
#define PR_O_SRVTCPKA      0x00020000 /* option srvtcpka (or tcpka): probes on server sockets */
#define PR_O_ORIGTO        0x00100000 /* option originalto */
#define PR_O_PRETEND_KA    0x00200000 /* option http-pretend-keepalive: never announce the close
					* of a server connection to the server */
#define PR_O_IGN_PROBES    0x00400000 /* option http-ignore-probes: a connection without a
				       * byte is closed silently (no 408, log, count) */
#define PR_O_PREF_LAST     0x00080000 /* option prefer-last-server: a client connection that
					* keeps a private server connection stays on its server */
#define PR_O_ABRT_CLOSE    0x00040000 /* option abortonclose: a client that closes drops its
					* request while queued, connecting or awaiting the response */
#define PR_O_ALL_BK        0x00000400 /* option allbackups: all usable backups share the load */
#define PR_O_SPLICE_REQ    0x01000000 /* option splice-request (mode tcp: stream/splice.c) */
#define PR_O_SPLICE_RSP    0x02000000 /* option splice-response */
#define PR_O_SPLICE_AUTO   0x04000000 /* option splice-auto: each direction once it filled a
				       * buffer (a large transfer) */
#define PR_O_FILTER        0x00001000 /* it has filters (set at check time as PR_RS_FILTER:
				       * the request path tests the options) */
#define PR_O_SOCK_STATS    0x40000000 /* option socket-stats: one "show stat" line per listener */
#define PR_O_TRANSP        0x00000800 /* option transparent: servers unused, connect to the client's
				       * original destination (or "dispatch"), backend/be_transp.c */
/* proxy->http_reuse ("http-reuse") */
#define PR_REUSE_SAFE   0 /* the default: a first request only when it can be replayed */
#define PR_REUSE_NEVER  1 /* a server connection per request */
#define PR_REUSE_AGGR   2 /* first requests too, on connections that served two or more */
#define PR_REUSE_ALWAYS 3 /* every request */

/* retry-on (proxy->retry_on): what makes a request go to a server again */
#define PR_RE_CONN_FAILED  0x00000001 /* the connection failed (the default) */
#define PR_RE_DISCONNECTED 0x00000002 /* empty-response: closed before any response byte */
#define PR_RE_JUNK_REQUEST 0x00000004 /* junk-response: an invalid or truncated response */
#define PR_RE_TIMEOUT      0x00000008 /* response-timeout: timeout server before a response */
#define PR_RE_EARLY_ERROR  0x00000010 /* 0rtt-rejected: no 0-RTT here, accepted only */
#define PR_RE_404          0x00000020 /* the response statuses */
#define PR_RE_408          0x00000040
#define PR_RE_425          0x00000080
#define PR_RE_500          0x00000100
#define PR_RE_501          0x00000200
#define PR_RE_502          0x00000400
#define PR_RE_503          0x00000800
#define PR_RE_504          0x00001000
#define PR_RE_STATUS_MASK  0x00001fe0
/* what needs the request kept until the response headers arrive (an L7 retry) */
#define PR_RE_L7_MASK      (PR_RE_DISCONNECTED | PR_RE_JUNK_REQUEST | PR_RE_TIMEOUT | PR_RE_STATUS_MASK)

/* proxy->rt_flags */
#define PR_RT_L7_RETRY 0x01 /* retry-on needs the request kept until the response */
#define PR_RT_NAME_HDR 0x02 /* http-send-name-header */
#define PR_RT_TCP      0x04 /* mode tcp: the connection is a tunnel (stream/tcp_ana.c) */

/* proxy->srv_state_load */
#define PR_SSL_NONE   0 /* the default */
#define PR_SSL_GLOBAL 1 /* the global "server-state-file" */
#define PR_SSL_LOCAL  2 /* its own file ("server-state-file-name") */

/* proxy->rule_sets */
#define PR_RS_HTTP_REQ   0x01
#define PR_RS_HTTP_RES   0x02
#define PR_RS_HTTP_AFTER 0x04
#define PR_RS_LEGACY_REDIR 0x08 /* legacy "redirect" rules */
#define PR_RS_CAPTURE    0x10 /* captures to take (capture keywords, capture.req.* fetches) */
#define PR_RS_UNIQUE_ID  0x20 /* unique-id-header to add */
#define PR_RS_PERSIST    0x40 /* use-server, force-persist or ignore-persist rules */
#define PR_RS_LOG        0x80 /* the frontend logs streams (strm_log): request line kept,
				* logasap (log/log_strm.c) */
#define PR_RS_STATS      0x100 /* the stats page is served here (stats/stats_page.c) */
#define PR_RS_FILTER     0x200 /* it has filters (stream/filter.c: set after the others) */
#define PR_RS_CACHE      0x400 /* cache-use rules: a hit is served once its proxy's
				* http-request rules are over (cache/, set with PR_RS_FILTER) */

#define PR_O_HTTP_MODE_MASK (PR_O_HTTP_KAL | PR_O_HTTP_SCL | PR_O_HTTP_CLO)

/* Timeouts in milliseconds; 0 means "not set". */
struct proxy_timeouts {
	int client;
	int server;
	int connect;
	int http_request;
	int http_keep_alive;
	int queue;
	int tunnel;
	int tarpit;               /* 0: the connect timeout */
	int client_fin;
	int client_hs;            /* TLS handshake ("timeout client-hs"); 0: "timeout client" */
	int server_fin;
	int check;
};

struct http_reply;
struct chk_http_cfg;
struct tcpchk_rules;
struct httpchk_seq;
struct chk_proxy;

/* The message of one status: "errorfile CODE FILE" (the complete HTTP response read from
 * the file), or a reply built per request ("http-error", stream/http_err_cfg.c). */
struct errorfile {
	int status;
	struct ist msg;           /* owned; empty with <reply> NULL: close without answering */
	const struct http_reply *reply; /* not owned (its http-error line owns it), or NULL */
	uint32_t seq;             /* order of the config line that set it (proxy_err_seq) */
};

struct err_snap;

#define PR_MAX_ERRORFILES 32

struct proxy {
	struct proxy *next;       /* all proxies (not defaults), config order */
	char *id;                 /* section name */
	char *file;               /* config location of the section line */
	int line;
	uint32_t cap;             /* PR_CAP_* */
	enum pr_mode mode;
	uint32_t options;         /* PR_O_* */
	struct tcpka clitcpka;    /* "clitcpka-idle|intvl|cnt" (conn/sockopt.h) */
	struct tcpka srvtcpka;    /* "srvtcpka-idle|intvl|cnt" */
	struct proxy_timeouts timeout;
	int maxconn;              /* frontend maxconn (0: default from global) */
	int sess_rate_lim;        /* rate-limit sessions: per second, 0 = none */
	int backlog;              /* frontend backlog (0: maxconn) */
	int retries;              /* default 3 */
	int redispatch_every;     /* option redispatch [N]: 0 = on the last retry */
	uint32_t retry_on;        /* "retry-on": PR_RE_* (proxy/retry_cfg.c), default
				   * PR_RE_CONN_FAILED */
	int fullconn;             /* "fullconn": backend load at which servers get their full
				   * maxconn (minconn); 0: 10% of its frontends' maxconn */
	struct sockaddr_storage src; /* "source" of the backend (family 0: none), see
				      * server->src */
	socklen_t srclen;
	struct ist srv_name_hdr;  /* "http-send-name-header NAME": the server's name in it, or
				   * empty; owned */
	struct server *dispatch;  /* "dispatch ADDR:PORT": a server outside <srv> (no stats row)
				   * used when the backend has no server; owned */
	char *dyncookie_key;      /* "dynamic-cookie-key" (stream/cookie.c), or NULL; owned */
	uint8_t srv_state_load;   /* "load-server-state-from-file": PR_SSL_* (srv_state.c) */
	char *srv_state_file;     /* "server-state-file-name", or NULL (the backend's name);
				   * owned */
	uint8_t rt_flags;         /* PR_RT_*: what a request sent to a server of this backend
				   * needs beyond the plain path (one test), set before the
				   * threads start (srv_limits_prepare) */
	struct list binds;        /* struct bind_conf, frontend side */

	/* backend choice */
	char *defbe_name;         /* default_backend NAME, resolved at check time */
	struct proxy *defbe;
	struct list switching_rules; /* struct switching_rule, in order */

	/* rules (struct act_rule) and the ACLs they use (struct acl, sample/acl.c) */
	struct list acls;
	struct list http_req_rules;
	struct list http_res_rules;
	struct list http_after_rules; /* http-after-response */
	struct list tcp_req_conn_rules;
	struct list tcp_req_sess_rules;
	struct list tcp_req_cont_rules;
	struct list tcp_res_cont_rules;
	int tcp_inspect_delay;    /* tcp-request inspect-delay, ms (0: none) */
	int tcp_res_inspect_delay; /* tcp-response inspect-delay, ms */
	struct proxy *defpx;      /* the named defaults section whose rules run first, or NULL */
	uint32_t rule_sets;       /* PR_RS_*: rule sets with at least one rule here or in
				   * defpx (set at check time: an empty set costs nothing) */
	void *rules_ext;          /* stream/: what the rule layers add (captures, stick rules,
				   * unique-id...), freed by proxy_ext_free_hook */
	struct list filters;      /* struct flt_conf ("filter" lines and implicit ones, in
				   * order: stream/filter.c), owned */
	uint8_t flt_on;           /* it has filters (set at check time: one test per message
				   * when none) */
	uint8_t flt_svc;          /* one of its filters may take a service's response
				   * (flt_kind.svc_rsp) */
	uint8_t flt_explicit;     /* a "filter" line was given (implicit ones need none) */
	struct comp_px *comp;     /* "compression" settings (comp/comp_cfg.c), or NULL; owned,
				   * freed by proxy_comp_free_hook */
	struct stktable *table;   /* its "stick-table", or NULL (stream/stktable_cfg.c) */
	struct list server_rules; /* "use-server" (struct server_rule, stream/persist.c) */
	struct list persist_rules; /* "force-persist", "ignore-persist" (struct persist_rule) */
	char rdp_prst[64];        /* "persist rdp-cookie(NAME)": NAME, "" without (persist.c) */
	struct list stick_rules;  /* "stick on|match|store-request" (struct stick_rule) */
	struct list store_rules;  /* "stick store-response" */

	/* servers and load balancing */
	struct server *srv;       /* first server, config order */
	int srv_count;
	struct px_cookie *ck;     /* "cookie" persistence (stream/cookie.c), or NULL */
	char **defsrv_args;       /* "default-server" options, in order, every "server" line of
				   * this section starts with (inherited from defaults); owned */
	int defsrv_nargs;
	int lbalgo;               /* enum lb_algo */
	int lb_draws;             /* random(N): servers drawn per pick (default 2) */
	uint8_t http_reuse;       /* PR_REUSE_*: which requests may use an idle connection */
	uint8_t hash_type;        /* enum lb_hash_type ("hash-type") */
	uint8_t hash_fn;          /* enum lb_hash_fn */
	bool hash_avalanche;      /* "hash-type ... avalanche" */
	bool lb_key_own;          /* lb_key was parsed here (else shared with the defaults) */
	int hash_balance_factor;  /* "hash-balance-factor": 0 (off) or a percentage > 100 */
	bool lb_static;           /* "balance static-rr": weights only 0 or initial at run time */
	bool lb_set;              /* "balance" given here or in the defaults ("option transparent"
				   * refuses it) */
	struct lb_key *lb_key;    /* hash-based balance: what to hash (stream/lb_key.c) */
	void *lb_hash_ctx;        /* runtime: map and ring of the hash algorithms (lb_hash.c) */
	const struct lb_ops *lb;  /* set when runtime state is built */
	void *lb_ctx;             /* LB private state (lb_rr.c: sequence and group cursors) */
	struct lb_load *lb_load;  /* runtime: leastconn/random load keys (lb_load.c), or NULL */
	/* health checks (src/check/check_cfg.c) */
	struct chk_http_cfg *httpchk; /* "option httpchk" + "http-check", or NULL (TCP) */
	bool httpchk_owned;       /* httpchk is this proxy's, not its defaults' */
	struct chk_proxy *chk;    /* the HTTP check built at check time, or NULL */
	/* rule-based checks (src/check/tcpcheck_cfg.c): the user's lists and the protocol
	 * checks' are shared with the defaults section until this proxy writes its own */
	int tcpchk_kind;                   /* enum tcpchk_kind: the check option in force */
	struct tcpchk_rules *tcpchk_user;  /* "tcp-check" lines, or NULL */
	struct tcpchk_rules *tcpchk_proto; /* the rules of a protocol check option, or NULL */
	bool tcpchk_user_own, tcpchk_proto_own;
	struct httpchk_seq *httpchk_seq;   /* "option httpchk"/"http-check" lines as written */
	bool httpchk_seq_own;
	char *extchk_cmd, *extchk_path;    /* "external-check command|path" (extcheck_cfg.c) */
	bool extchk_own;                   /* they are this section's, not its defaults' */

	/* forwardfor */
	struct ist fwdfor_hdr;    /* header name, default "X-Forwarded-For" */
	struct in_addr fwdfor_except_net, fwdfor_except_mask; /* "except": skip for these */
	bool fwdfor_has_except;
	/* originalto ("option originalto"): the same, for the client's destination address */
	struct ist origto_hdr;    /* header name, default "X-Original-To" */
	struct in_addr origto_except_net, origto_except_mask;
	bool origto_has_except;

	struct ist monitor_uri;   /* monitor-uri, or empty */

	struct errorfile errorfiles[PR_MAX_ERRORFILES];
	int nb_errorfiles;

	/* runtime: streams waiting for a server slot, one FIFO per thread group, owned by
	 * backend/backend.c */
	struct px_queue *queues;

	/* runtime: current values, process-wide atomics (limits compare against them) */
	int feconn;               /* current frontend connections */
	int beconn;               /* current backend streams */
	int feconn_max;           /* highest feconn (show stat smax) */
	int beconn_max;           /* highest beconn + queued streams (show stat smax) */
	int queue_max;            /* highest number of queued streams (show stat qmax) */
	int nb_queued;            /* streams in all the group queues (atomic, backend.c): the
				   * load "minconn" servers scale with, queued ones included */
	struct freq_ctr sess_rate; /* sessions per second (rate-limit sessions, show stat) */
	uint32_t sess_rate_max;   /* highest sess_rate seen at an accept */
	struct freq_ctr req_rate; /* frontend: HTTP requests per second (fe_req_rate) */
	struct freq_ctr be_sess_rate; /* backend: streams that chose it per second (be_sess_rate) */
	uint32_t req_rate_max;    /* highest req_rate, sampled by stats/stat_rates.c (atomic) */
	uint32_t be_sess_rate_max; /* highest be_sess_rate, sampled likewise (atomic) */
	struct stat_tavg tavg;    /* qtime..ttime averages (stats/stat_time.c, its lock) */
	/* runtime: traffic counters, one block per thread group (runtime_prepare) */
	struct fe_counters *fe_cnt;
	struct be_counters *be_cnt;

	/* logging (log/log_cfg.c): "log" lines (struct logger, log/log-t.h), copied from the
	 * defaults section at creation, and "log-tag" (NULL: the global one); owned */
	struct list loggers;
	char *log_tag;
	/* per-stream log lines (log/log_strm.c): the log options and formats, owned; on a
	 * frontend with loggers and a format, set at check time: the one test of stream_count */
	struct px_log *strm_log;
	bool log_hchk;            /* backend: option log-health-checks (defaults included), set
				   * at check time (log_strm.c): each check result is logged */
	struct px_log *log_conf;  /* what this section declared (log_strm.c), NULL if nothing */
	/* the stats page ("stats" keywords, stats/stats_page.c): shared with the defaults
	 * section it came from until the proxy changes it (stats->owner), NULL if none */
	struct stats_cfg *stats;
	/* runtime API (proxy/px_cli.c): PX_ADM_* ("disable|shutdown frontend"), atomic,
	 * written by the CLI thread, read by "show stat" */
	int adm_state;
	/* "enable|disable dynamic-cookie backend" (stream/cookie_cli.c), thread 0: 0 as
	 * configured ("cookie ... dynamic"), 1 forced on, -1 forced off */
	int8_t ck_dyn_rt;
	/* "show errors" (stream/err_capture.c): the last invalid request (frontend, [0]) and
	 * response (backend, [1]); written by any thread with an atomic exchange, read and
	 * freed by thread 0 (the CLI's) only, or NULL */
	struct err_snap *err_snap[2];
};

/* proxy->adm_state */
#define PX_ADM_PAUSED  0x1 /* "disable frontend": its sockets do not listen */
#define PX_ADM_STOPPED 0x2 /* "shutdown frontend": for good */

struct switching_rule {
	struct list list;         /* member of proxy->switching_rules */
	char *be_name;            /* use_backend NAME */
	struct proxy *be;         /* resolved at check time; NULL for a dynamic name */
	struct acl_cond *cond;    /* if/unless, or NULL */
	struct lf_expr *dyn;      /* use_backend %[...]: the name is rendered per request */
	char *file;
	int line;
};

enum lb_algo {
	LB_ALGO_ROUNDROBIN = 0,   /* roundrobin and static-rr */
	LB_ALGO_RANDOM,           /* random[(N)]: best of N weighted draws */
	LB_ALGO_LEASTCONN,        /* leastconn: fewest connections per weight */
	LB_ALGO_FIRST,            /* first: the first server in id order with a free slot */
	/* hash-based: a key taken from the stream (px->lb_key), round robin without one */
	LB_ALGO_SOURCE,           /* source: the client address */
	LB_ALGO_URI,              /* uri [len N] [depth N] [whole] [path-only] */
	LB_ALGO_URL_PARAM,        /* url_param NAME [check_post] */
	LB_ALGO_HDR,              /* hdr(NAME) [use_domain_only] */
	LB_ALGO_RDP_COOKIE,       /* rdp-cookie(NAME): the client's RDP cookie (mode tcp) */
	LB_ALGO_HASH,             /* hash EXPR */
};

/* The first hash-based algorithm: the ones from here on hash a key. */
#define LB_ALGO_HASHED LB_ALGO_SOURCE

enum lb_hash_type {
	LB_HASH_MAP = 0,          /* map-based: hash modulo the total weight */
	LB_HASH_CONSISTENT,       /* consistent: a ring of points per server */
};

enum lb_hash_fn {
	LB_HFN_SDBM = 0,
	LB_HFN_DJB2,
	LB_HFN_WT6,
	LB_HFN_CRC32,
	LB_HFN_NONE,              /* the key's first 8 bytes read as a big-endian number */
};

#endif
