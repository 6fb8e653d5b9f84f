/* The H1 mux: HTTP/1.1 connections on both sides. The front side accepts client
 * connections, keeps them alive between requests and closes them gracefully; the back side
 * connects to servers and parks reusable connections per server and thread. The helpers
 * here serialize messages and forward bodies verbatim between two connections. Loop
 * thread only. Upward calls (to the stream layer) go through struct h1_stream_ops.
 */
#ifndef MUX_H1_H
#define MUX_H1_H

#include <stdbool.h>
#include <conn/connection-t.h>
#include <conn/listener-t.h>
#include <stream/stream-t.h>

/* What the stream layer gives the mux (registered once at startup). */
struct h1_stream_ops {
	/* a front connection without a stream has request bytes: create and run a stream;
	 * returns 0, or -1 when none could be created (the mux closes the connection) */
	int (*start)(struct conn *front);
	/* the same for a front connection of a mode tcp frontend, at once after the accept
	 * (its handshakes and session rules done): the stream forwards bytes */
	int (*start_tcp)(struct conn *front);
	/* something happened on a connection attached to <s> */
	void (*wake)(struct stream *s);
	/* a connection attached to <s> reached its deadline */
	void (*timeout)(struct stream *s, struct conn *c);
	/* the thread stops at once: free <s> and close its back connection, no I/O */
	void (*kill)(struct stream *s);
};

void h1_register_stream_ops(const struct h1_stream_ops *ops);
const struct h1_stream_ops *h1_stream_ops_get(void);

/* front side (mux/h1_front.c) */
int h1_front_accept(struct listener *li, int fd, const struct sockaddr_storage *peer);
/* The stream on <c> is over: keep the connection for the next request or close it. */
void h1_front_end_stream(struct conn *c, bool keep_alive);

/* The TLS handshake of front connection <c> completed (ssl/ssl_sock.c): the connection
 * waits for its first request. */
void h1_front_tls_ready(struct conn *c);

/* The TLS handshake of <c> failed or timed out: logged as a connection error with <why>
 * where the frontend logs, then closed. */
void h1_front_tls_failed(struct conn *c, const char *why);

/* Set by the log layer: logs connection error <why> of front connection <c> ("SSL
 * handshake failure") in HAProxy's format, or NULL. */
extern void (*h1_conn_err_log)(struct conn *c, const char *why);
/* Sends what is left in c->obuf, shuts the write side, drains input briefly, closes. */
void h1_front_close_gracefully(struct conn *c);
/* Graceful stop: closes the front connections of this thread that wait for a request and
 * have been quiet for a while; returns how many others still wait. */
int h1_front_close_idle(void);
/* Immediate stop: frees every stream and closes every connection of this thread. */
void h1_release_all(void);

/* back side (mux/h1_back.c) */
/* Returns an idle connection to <srv> owned by this thread that carried at least
 * <min_req> requests, or NULL; with <to> (a server whose port follows the client's), only
 * one connected to that address; with a non-zero <key> (the TLS server name it was opened
 * with, ssl_srv_reuse_key()), only one opened with the same key. */
struct conn *h1_back_take_idle(struct server *srv, const struct sockaddr_storage *to,
			       uint32_t min_req, uint64_t key);
/* Starts a connection to <srv>, at <to> when not NULL (srv->addr otherwise); returns it
 * (CO_FL_CONNECTING possibly set) or NULL with errno set. */
struct conn *h1_back_connect(struct server *srv, const struct sockaddr_storage *to);
/* Completes a pending connect after an event: 1 connected, 0 still pending, -1 failed. */
int h1_back_check_connect(struct conn *c);
/* Parks <c> in its server's idle list (or closes it when the list is full). */
void h1_back_park(struct conn *c);
/* http-reuse never: keeps the idle <c> for <front>'s next request only (closed with it). */
void h1_back_park_private(struct conn *c, struct conn *front);
/* The server connection <front> kept (http-reuse never) if it goes to <srv> (at <to> when
 * not NULL), or NULL; a kept one to another server is closed. */
struct conn *h1_back_take_private(struct conn *front, struct server *srv,
				  const struct sockaddr_storage *to, uint64_t key);
/* Closes every parked connection of this thread to <srv>. */
void h1_back_close_idle(struct server *srv);
void h1_back_init_server(struct server *srv);

/* serialization (mux/h1_out.c): writes the start line, every header not marked skip and
 * not hop-by-hop (Connection, Proxy-Connection, Keep-Alive), then "Connection: <conn_hdr>"
 * when not NULL, then the empty line. Returns 0, or -1 when <b> lacks room (nothing
 * written). */
int h1_write_request(struct buf *b, const struct h1_msg *m, const char *conn_hdr);
int h1_write_response(struct buf *b, const struct h1_msg *m, const char *conn_hdr);
/* Adds "connection: <conn_hdr>" at the end of the header block of the complete response
 * held in <b> (a local reply), unless it has a Connection header already. Returns 0, or
 * -1 when the block has no CRLF end or the header does not fit (<b> unchanged). */
int h1_reply_add_conn(struct buf *b, const char *conn_hdr);

/* body forwarding (mux/h1_xfer.c) */
#define XFER_ERR_SRC (-1)   /* framing error or premature close on the source side */
#define XFER_ERR_DST (-2)   /* write error on the destination */
#define XFER_ERR_FRAMING (-3) /* invalid chunked framing from the source */
/* Forwards as much of <x>'s body as possible from src->ibuf (reading src when empty) to
 * <dst> (after dst->obuf; NULL discards). Returns 1 if bytes moved, 0 if waiting, or an
 * XFER_ERR_* code. Sets x->done at the end of the body.
 */
int h1_xfer(struct conn *src, struct conn *dst, struct h1_xfer *x);
/* Prepares <x> for a body of <mode> (remain for XFER_CLEN). */
void h1_xfer_init(struct h1_xfer *x, enum xfer_mode mode, uint64_t remain);

#endif
