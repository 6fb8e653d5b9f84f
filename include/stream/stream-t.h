/* Types of streams: one request/response exchange between a front connection and, once a
 * server is chosen, a back connection. Owned by the thread of its front connection.
 */
#ifndef STREAM_STREAM_T_H
#define STREAM_STREAM_T_H

#include <stdint.h>
#include <base/buf-t.h>
#include <base/list.h>
#include <base/rbtree-t.h>
#include <event/inbox.h>
#include <event/loop-t.h>
#include <http/h1-t.h>
#include <sample/vars-t.h>

struct conn;
struct proxy;
struct server;
struct stk_trk;
struct act_rule;

/* How a message body is delimited on the wire (forwarded verbatim). */
enum xfer_mode {
	XFER_NONE = 0,            /* no body */
	XFER_CLEN,                /* content-length: <remain> bytes */
	XFER_CHUNKED,             /* chunked: scanned by h1_chunk_scan */
	XFER_EOF,                 /* until the sender closes (responses only) */
	XFER_TUNNEL,              /* raw bytes both ways after 101/CONNECT */
};

struct h1_xfer {
	enum xfer_mode mode;
	uint64_t remain;          /* XFER_CLEN: body bytes not yet forwarded */
	uint32_t ready;           /* bytes at the head of the source buffer validated for
				   * forwarding (XFER_CHUNKED) */
	struct h1_chunk chunk;    /* XFER_CHUNKED scanner state */
	uint8_t eom_seen;         /* XFER_CHUNKED: the scanner found the end at <ready> */
	uint8_t no_delay;         /* never ask the kernel to wait for more (http-no-delay) */
	uint8_t done;             /* the whole body has been forwarded */
};

/* stream->queue_state */
#define Q_NONE   0  /* not queued */
#define Q_QUEUED 1  /* in a group queue */
#define Q_WOKEN  2  /* taken out by a released slot; the wake-up is in flight */

enum stream_state {
	SS_REQ_HDRS = 0,          /* waiting for the complete request headers */
	SS_REQ_INSPECT,           /* tcp-request content rules wait for more data or their
				   * inspect-delay (stream/tcp_rules.c) */
	SS_REQ_BODY_WAIT,         /* option http-buffer-request: waiting for the body */
	SS_QUEUED,                /* every usable server is full: waiting in the queue */
	SS_CONNECTING,            /* back connection being established */
	SS_TURNAROUND,            /* waiting before retrying the same server */
	SS_EXCHANGE,              /* request sent (or being sent), response expected */
	SS_LOCAL_REPLY,           /* sending a response made by the proxy itself */
	SS_TUNNEL,                /* 101/CONNECT: raw forwarding both ways */
	SS_CLOSING,               /* the exchange is over, the front closes after flushing */
	SS_REQ_RULE_WAIT,         /* a request rule yielded (wait-for-body, tarpit): the rule
				   * runs again on client data or when s->tmr expires */
	SS_TCP_INSPECT,           /* mode tcp: tcp-request content rules, backend choice
				   * (stream/tcp_ana.c) */
	SS_TCP_FWD,               /* mode tcp: bytes both ways, tcp-response content rules,
				   * half-closes (stream/tcp_ana.c) */
};

/* stream->flags */
#define SF_REQ_HDRS_SENT  0x0001  /* request headers serialized to the back side */
#define SF_RSP_HDRS_SENT  0x0002  /* response headers serialized to the front side */
#define SF_FRONT_CLOSE    0x0004  /* close the front connection after this exchange */
#define SF_BACK_CLOSE     0x0008  /* do not keep the back connection */
#define SF_REQ_DONE       0x0010  /* request body fully forwarded (or drained) */
#define SF_RSP_DONE       0x0020  /* response fully forwarded */
#define SF_HAS_SLOT       0x0040  /* holds a slot on s->srv (cur_conns counted) */
#define SF_REUSED_CONN    0x0080  /* the back connection came from the idle pool */
#define SF_QUEUE_EXPIRED  0x0100  /* timeout queue hit while a wake-up was in flight */
#define SF_SENT_100       0x0200  /* the proxy answered "100 Continue" itself */
#define SF_REQ_KEPT       0x0800  /* sent on a reused connection (or for retry-on), the
				   * request headers stay in the front buffer until a response
				   * head is accepted, to be sent again if the server had closed
				   * it (before any response byte) or for an L7 retry */
#define SF_REQ_ABORTED    0x0400  /* the server stopped taking the request (send error):
				   * no more request bytes, its response may still come */
#define SF_REQ_COUNTED    0x1000  /* counted in the frontend's requests: its final status
				   * is counted at the end */
#define SF_BODY_RULES    0x2000  /* option http-buffer-request on the frontend: the body is
				   * awaited before the request rules, which then run (as
				   * HAProxy's body analyzer precedes them) */
#define SF_SOFT_RW        0x4000  /* strict-mode off: a failed rewrite is counted, not fatal;
				   * reset when a rule set starts */
#define SF_NO_L7_RETRY    0x8000  /* disable-l7-retry: only connection failures are retried */
#define SF_RULE_EXPIRED   0x10000 /* the deadline of a yielded rule passed (s->tmr) */
#define SF_EARLY_HINTS    0x20000 /* 103 responses were written to the client */
#define SF_RSP_RULE_WAIT  0x40000 /* a response rule yielded (wait-for-body): the parsed
				   * response stays in s->rsp until it runs again */
#define SF_AFTER_LOCAL    0x80000 /* http-after-response runs on a reply of the proxy (the
				   * response in s->rsp is that reply) */
#define SF_FORCE_PRST     0x200000 /* force-persist: a server in maintenance may be used */
#define SF_IGNORE_PRST    0x400000 /* ignore-persist: cookie persistence is ignored (as in
				   * HAProxy, stick tables are not concerned) */
#define SF_EH_OPEN        0x100000 /* a 103 response is being built by early-hint rules */
#define SF_CLI_GONE_Q     0x8000000 /* option abortonclose: the client closed while a wake-up
					   * of the queue was in flight (aborted when it arrives) */
#define SF_CK_RSP_DONE    0x800000 /* the persistence cookie of the response was handled */
#define SF_L7_RETRY       0x1000000 /* retry-on: the request (SF_REQ_KEPT) may be sent again
				     * until its response headers are accepted */
#define SF_TCP_RSP_DONE   0x4000000 /* mode tcp: the tcp-response content rules are over */
#define SF_TCP_SRV_CLOSE  0x10000000 /* mode tcp: "tcp-response content close": the server
				      * side ends once its bytes are forwarded */
#define SF_FLT_REQ        0x20000000 /* filters see the request body (stream/filter.c) */
#define SF_FLT_RSP        0x80000000 /* filters see the response body */
#define SF_LOGGED         0x40000000 /* the log line was sent (or skipped) (log/log_strm.c) */
#define SF_T_SLOW         0x2000000 /* it left a queue or opened a connection: the stats
				     * record its queue and connect times (stream_count_times) */
/* stream->log_level: set-log-level, a syslog level (0..7) plus one */
#define STRM_LOG_UNSET  0         /* the proxy's own level */
#define STRM_LOG_SILENT 9         /* "silent": nothing is logged for this stream */

/* stream->ana_stage: where the request analysis resumes after a yielded rule (http_ana.c) */
enum ana_stage {
	ANA_FE_RULES = 0,         /* the frontend's http-request rules (defaults' first) */
	ANA_BE_RULES,             /* the backend's http-request rules */
	ANA_RSP_RULES,            /* the response rule sets (http-response, -after-response) */
};

struct dns_req;
struct svc_ctx;
struct splice_pipe;
struct flt_strm;

struct stream {
	struct conn *front;
	struct conn *back;
	struct proxy *fe;
	struct proxy *be;
	struct server *srv;
	uint32_t flags;           /* SF_* */
	enum stream_state state;
	int conn_retries;         /* connection attempts left */
	int err_status;           /* status of the error being sent, 0 if none */
	int status;               /* status of the response sent to the client, 0 if none */
	uint16_t tid;             /* thread owning the stream (its front connection's) */
	uint8_t meth;             /* enum http_meth of the request, kept for response rules */
	uint64_t req_start;       /* ms, when the request started (for timeout http-request) */
	struct timer tmr;         /* queue, turnaround, http-request deadline */
	struct list queue;        /* in a group queue's FIFO list while queued without a
				   * priority, else self-linked (backend.c) */
	uint8_t queue_state;      /* Q_* (backend.c), under the group queue's lock */
	uint8_t queue_grp;        /* index of the group queue */
	int16_t prio_class;       /* set-priority-class: -2047..2047, lower is served first */
	int32_t prio_offset;      /* set-priority-offset: ms added to the queue date (-524287..
				   * 524287): lower is served first within a class */
	struct server *queue_srv; /* queued for this server (its key hashes there): counted in
				   * its "queued" for "maxqueue" while in the queue, under the
				   * group queue's lock */
	struct inbox_item wake;   /* dequeued: handed to the owning thread */
	struct h1_xfer reqx;      /* request body forwarding */
	uint32_t l7_body;         /* body bytes kept after the headers for an L7 retry
				   * (stream/l7_body.c), 0 when none */
	struct h1_xfer rspx;      /* response body forwarding */
	struct h1_msg req;        /* parsed request; views into front->ibuf until sent */
	struct h1_msg rsp;        /* parsed response; views into back->ibuf until sent */
	struct buf rw;            /* rewritten values (rendered headers, new paths) until the
				   * messages are sent: allocated on first use, released at the
				   * end of the exchange */
	struct vars vars_txn;     /* txn.* variables */
	struct vars vars_req;     /* req.* variables */
	struct vars vars_res;     /* res.* variables */
	/* rules (action.c, http_act_*.c) */
	struct act_rule *resume_rule; /* the rule that yielded: run again first (no condition) */
	const struct list *resume_list; /* the rule list holding <resume_rule> */
	const struct list *rule_list; /* the rule list being run */
	uint64_t rule_exp;        /* ms deadline of the yielded rule, 0 when none */
	uint8_t ana_stage;        /* enum ana_stage of the yielded rule */
	uint8_t rsp_set;          /* response rule set being run when it yielded (index) */
	uint8_t log_level;        /* STRM_LOG_* or a syslog level + 1 (set-log-level) */
	int srv_timeout;          /* set-timeout server, ms (0: the backend's) */
	int tunnel_timeout;       /* set-timeout tunnel, ms (0: the backend's) */
	int cli_timeout;          /* set-timeout client, ms (0: the frontend's) */
	struct ist unique_id;     /* unique-id-format rendered once (in <rw>), or empty */
	void *caps;               /* captured values (http_capture.c), NULL until the first */
	uint8_t rsp_ver;          /* version of the server's response: 10, 11, 0 when none */
	int16_t nice;             /* set-nice: -1024..1024, shown by "show sess" (orders
				   * nothing: the loop has no run queue) */
	uint32_t reply_off;       /* where the local reply being written starts in the front
				   * output buffer (stream_reply_start) */
	struct stk_trk *stk;      /* stick counters tracked, pending stick stores (stream/
				   * stktable_act.c), or NULL */
	struct server *ck_srv;    /* the server the request's persistence cookie named, or NULL */
	uint8_t ck_state;         /* CK_* (stream/cookie.h) */
	uint32_t ck_last;         /* the cookie's dates (maxidle/maxlife), seconds, 0: none; */
	uint32_t ck_first;        /* set by cookie_process_request only when "cookie" is on */
	uint8_t ck_rsp;           /* the response's cookie as %tsc's 4th char shows it (N P D I R
				   * U), 0: not handled (cookie.c) */
	const char *last_rule_file; /* the last verdict rule that ended a rule set (ACT_FL_VERDICT), */
	int last_rule_line;       /* for last_rule_file/_line; NULL/0 when none did */
	struct act_rule *tcp_next; /* tcp-request content: the rule to run again after a wait
				    * (its inspect-delay runs on <tmr>) */
	struct dns_req *dreq;     /* do-resolve: the resolution it waits for (dns/dns_req.h),
				   * or NULL; released by the rule, or by stream_free */
	struct splice_pipe *pipe[2]; /* mode tcp splicing (stream/splice.c): bytes of the
				      * request [0] and response [1] directions in a kernel pipe,
				      * or NULL */
	struct svc_ctx *svc;      /* the HTTP service answering (stream/service.h), or NULL;
				   * released when its body is sent, or by stream_free */
	const char *svc_name;     /* the service that answered as the log shows it in place
				   * of the server ("<lua.NAME>"), or NULL */
	struct flt_strm *flt;     /* the filters' instances (stream/filter.c), NULL until a
				   * proxy with filters needs them; freed by stream_free */
	void *hlua;               /* Lua data (lua/hlua_act.c: a running action, txn:set_priv
				   * values), or NULL; freed by stream_free */
	/* logging (log/log_strm.c reads them; stream/ records them): ms dates of the steps
	 * (now_ms, 0 while not reached), retries and the termination state */
	uint64_t t_hdrs;          /* the request headers were complete */
	uint64_t t_queue;         /* the queue was left (0: never queued) */
	uint64_t t_conn;          /* the back connection was established */
	uint64_t t_rsp;           /* the response headers were received */
	char term[2];             /* who ended it (C,S,P,L,R,I,D,c,s...) and in which phase
				   * (R,Q,C,H,D,L,T), 0 for a normal end (stream_set_term) */
	uint8_t redisp;           /* redispatched to another server (%rc shows '+') */
	uint8_t retries;          /* connection retries done (%rc) */
	struct ist log_rline;     /* the request line kept for %r (in <rw>), or empty */
	uint64_t log_id;          /* %rt + 1, numbered when the log hook first sees the stream
				   * (log_vars.c), 0 until then */
	uint16_t hdr_cap;         /* capacity of each table in <hdrs> */
	char scratch[64];         /* X-Forwarded-For value and other small rewrites (not zeroed
				   * at the stream's start: written before it is read) */
	uint64_t queue_key;       /* its place in the queue (QKEY_*, backend.c), set when it
				   * enters it (not zeroed either); a woken stream that goes back
				   * keeps it */
	struct rb_node qnode;     /* in a group queue's tree while queued with a priority (set
				   * when it enters it: not zeroed either) */
	struct h1_hdr hdrs[];     /* 2 * hdr_cap entries: request table then response table */
};

#endif
