/* Connections: allocation from the per-thread pool, raw socket I/O with the edge-triggered
 * readiness flags, and release. Loop thread only. I/O functions return bytes, 0 when
 * nothing could be done for now (would block: the readiness flag is cleared), or CO_ERR.
 */
#ifndef CONN_CONNECTION_H
#define CONN_CONNECTION_H

#include <stdbool.h>
#include <sys/uio.h>
#include <conn/connection-t.h>

/* Returns a zeroed connection for socket <fd> with <iocb> as its event handler and
 * <tmr_cb> as its timer callback, registered in the thread's poller, or NULL (the caller
 * closes the fd).
 */
struct conn *conn_new(int fd, void (*iocb)(struct fd_handler *, uint32_t),
		      void (*tmr_cb)(struct timer *));

/* Closes the socket now and frees the connection after this loop turn (events of the same
 * batch may still name it: handlers must check CO_FL_CLOSED). Buffers are released.
 */
void conn_close(struct conn *c);

/* Reads into c->ibuf (allocating it if needed) up to its room. Returns bytes read, 0 if
 * nothing was available or there is no room, CO_ERR on error. Sets CO_FL_RD_EOF on a
 * clean close. A short read clears CO_FL_CAN_RECV (edge-triggered: the kernel signals
 * new data again).
 */
int conn_recv(struct conn *c);

/* Sends from <iov>; returns bytes sent (possibly partial; CO_FL_CAN_SEND cleared), or
 * CO_ERR. <more> tells the kernel more bytes of the same message follow (MSG_MORE): full
 * segments instead of a trickle of small ones.
 */
ssize_t conn_sendv(struct conn *c, struct iovec *iov, int iovcnt, bool more);

/* Sends c->obuf; returns 0 when it is empty afterwards (buffer released), 1 when data
 * remain, CO_ERR on error.
 */
int conn_flush(struct conn *c);

/* Shuts the write side (FIN) once. */
void conn_shutw(struct conn *c);

/* Updates readiness flags from epoll <events>. */
void conn_update_events(struct conn *c, uint32_t events);

/* Set by the stream layer (stream/tcp_rules.c) when a frontend has tcp-request connection
 * or session rules, or a session may track stick counters; NULL otherwise, which costs
 * the front side nothing. */
struct conn_sess_ops {
	/* a front connection was accepted: runs the connection and session rules; returns 0,
	 * or -1 when they refused it (the caller closes it at once) */
	int (*accept)(struct conn *c);
	/* the same in two steps for a TLS connection, as HAProxy: the connection rules at
	 * accept, the session rules once the handshake is done */
	int (*accept_conn)(struct conn *c);
	int (*accept_sess)(struct conn *c);
	/* a front connection closed or timed out before its first request byte */
	void (*probe)(struct conn *c);
	/* a front connection whose session tracks counters (c->stk) is freed */
	void (*release)(struct conn *c);
};
extern const struct conn_sess_ops *conn_sess_ops;

/* Set by the sample layer (vars.c): frees a connection's sess.* variables. */
struct vars;
extern void (*conn_vars_release)(struct vars *v);

#endif
