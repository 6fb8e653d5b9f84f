/* Types of connections: one socket, its two buffers, its deadline, and who owns it (the
 * front H1 mux or the back H1 mux of a stream). A connection lives on one thread.
 */
#ifndef CONN_CONNECTION_T_H
#define CONN_CONNECTION_T_H

#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <base/buf-t.h>
#include <base/list.h>
#include <event/loop-t.h>
#include <sample/vars-t.h>

struct stream;
struct stk_trk;
struct proxy;
struct listener;
struct server;

/* conn->flags */
#define CO_FL_CAN_RECV   0x0001 /* an edge said readable and no short read/EAGAIN since */
#define CO_FL_CAN_SEND   0x0002 /* writable: no EAGAIN since the last EPOLLOUT edge */
#define CO_FL_RD_EOF     0x0004 /* the peer closed its side (read returned 0) */
#define CO_FL_ERROR      0x0008 /* fatal socket error */
#define CO_FL_WR_SHUT    0x0010 /* we shut our write side */
#define CO_FL_CONNECTING 0x0020 /* back: connect() in progress */
#define CO_FL_BACK       0x0040 /* server side connection */
#define CO_FL_IDLE       0x0080 /* back: parked in its server's idle list */
#define CO_FL_CLOSED     0x0100 /* fd closed, memory freed after this loop turn */
#define CO_FL_USED       0x0200 /* back: carried at least one request (reused) */
#define CO_FL_GOT_DATA   0x0400 /* back: received bytes for the current request */
#define CO_FL_HUP        0x0800 /* EPOLLHUP/ERR seen */
#define CO_FL_WR_ERR     0x2000 /* a send failed: nothing more can be sent, but what the peer
				 * sent before may still be read (an early response) */
#define CO_FL_RDHUP      0x1000 /* EPOLLRDHUP seen: the peer's FIN is queued after any data,
				 * so a short read must not end the reading */
#define CO_FL_LOCAL_SET  0x4000 /* <local> holds the socket's address (conn_addr.c) */
#define CO_FL_XPRT       0x8000 /* TLS: I/O goes through <xprt> (ssl/ssl_sock.c) */
#define CO_FL_PP_WAIT    0x20000 /* front: a PROXY header must come first (expect-proxy) */
#define CO_FL_XPRT_WPEND 0x10000 /* TLS: a record is half sent; the same bytes must be
				  * offered again, so the connection cannot go idle */

/* I/O results besides byte counts */
#define CO_AGAIN (-2)           /* would block */
#define CO_ERR   (-1)           /* error or closed */

/* What a received PROXY header said besides the addresses (which replace the connection's
 * own): its version and its v2 TLVs, kept for the fc_pp_* fetches. Freed with the
 * connection. */
struct conn_pp {
	uint8_t version;          /* 1 or 2 */
	uint8_t local;            /* v1 UNKNOWN / v2 LOCAL: the addresses are the socket's */
	uint16_t tlv_len;
	uint8_t tlv[];            /* tlv_len bytes */
};

struct conn {
	struct fd_handler h;      /* h.fd is the socket; -1 once closed */
	uint32_t flags;           /* CO_FL_* */
	struct buf ibuf;          /* bytes received, not yet consumed */
	struct buf obuf;          /* bytes to send (serialized headers, small bodies) */
	struct timer tmr;         /* this connection's deadline */
	struct tasklet tl;        /* deferred processing / release */
	struct stream *strm;      /* stream attached (front: current request) */
	struct proxy *px;         /* front: frontend; back: backend */
	struct listener *li;      /* front: accepting listener */
	struct server *srv;       /* back: target server */
	struct list by_thread;    /* in th_ctx->conns: every open connection of the thread */
	struct list idle;         /* back: in srv->per_thr[tid].idle while parked;
				   * front: in the thread's idle front list between requests */
	uint32_t nb_req;          /* requests served on this connection (front), sent on it
				   * (back) */
	struct conn *priv;        /* http-reuse never: a front's idle server connection, kept
				   * for its next request; a back's front; or NULL */
	uint32_t front_state;     /* front: FC_* (mux/h1) */
	uint64_t last_act;        /* ms of the last byte received or sent */
	uint64_t bytes_in;        /* front: received since the stream counters took them */
	uint64_t bytes_out;       /* front: sent since the stream counters took them */
	struct vars vars;         /* front: the session's variables (sess.*), released through
				   * conn_vars_release when the connection goes */
	struct stk_trk *stk;      /* front: stick counters tracked by the session (tcp-request
				   * connection/session rules), released through conn_sess_ops */
	void *xprt;               /* CO_FL_XPRT: the connection's SSL object */
	uint64_t reuse_key;       /* back: what an idle connection must match besides its
				   * server (the TLS server name sent), 0 = nothing */
	struct conn_pp *pp;       /* front: what a received PROXY header said (conn/pp_recv.c),
				   * or NULL */
	struct sockaddr_storage peer; /* front: client address; back: server address */
	union {                   /* the socket's own address once asked for (dst, bc_src),
				   * CO_FL_LOCAL_SET: IPv4 or IPv6 only */
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
	} local;
	uint64_t idle_start;      /* front: ms it was accepted or its last stream ended (the
				   * %t date and %Ti of the next request's log line) */
};

#endif
