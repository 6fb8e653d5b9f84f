/* Rings (log/ring.c, ring_cfg.c): "ring NAME" sections and the implicit rings of "tcp@"
 * log targets. A ring is a bounded byte buffer of messages (the oldest are dropped when it
 * is full) written by any thread; thread 0 feeds the ring's TCP syslog servers from it
 * without blocking, and "show events" prints it.
 */
#ifndef LOG_RING_H
#define LOG_RING_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <event/loop-t.h>
#include <log/log-t.h>

struct cfg_ctx;

enum ring_proto {
	RING_PROTO_LEGACY = 0, /* each message followed by "\n" (2.6's default) */
	RING_PROTO_OCTET,      /* "LEN message" (RFC 6587 octet counting) */
};

/* One "server" of a ring: a TCP syslog receiver, thread 0 only. */
struct ring_srv {
	struct ring_srv *next;
	struct ring *ring;
	char *id;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	enum ring_proto proto;
	struct fd_handler h; /* fd -1: not connected */
	bool connected;	     /* false while connecting */
	struct timer tmr;    /* connect / server timeout, or the next reconnection */
	uint64_t seq;	     /* next message to send */
	uint32_t off;	     /* its offset in the ring (valid while seq >= ring->first_seq) */
	char *out;	     /* the framed message being sent (maxlen + 16 bytes) */
	uint32_t olen, opos;
};

struct ring {
	struct ring *next;
	char *id;
	char *desc;
	enum log_fmt fmt;
	bool explicit_fmt;
	int maxlen; /* a message is cut to this many bytes */
	uint32_t size;
	int tmo_connect, tmo_server; /* ms */
	struct ring_srv *srvs;
	char *conf_file;
	int conf_line;
	bool implicit; /* made for a "tcp@" log target */
	bool declared; /* by a section or implicitly (not only named by a "ring@" target) */
	/* the buffer: writers of any thread and the readers (thread 0's senders, the CLI)
	 * take <lock> to copy one message in or out: the ring drops its oldest messages to
	 * make room, which needs head, tail and sequence numbers updated together; it is off
	 * the request path (only configured ring@/tcp@ targets write) */
	pthread_mutex_t lock;
	uint8_t *area;
	uint32_t head;	    /* offset of the oldest message */
	uint32_t used;	    /* bytes in use */
	uint64_t first_seq; /* sequence number of the oldest message */
	uint64_t next_seq;  /* of the next one written */
	uint64_t dropped;   /* messages overwritten before every server sent them (locked) */
	int wake_fd;	    /* eventfd waking thread 0's senders, -1 before start */
	int wake_pending;   /* atomic: a wake-up is on its way */
	struct fd_handler wake_h;
};

extern struct ring *rings;

struct ring *ring_find(const char *name);
/* Appends the concatenation of <iov> (cut to maxlen) as one message, dropping the oldest
 * ones to make room. Any thread; never blocks for long (a short copy under the lock). */
void ring_write(struct ring *r, const struct iovec *iov, int n);

/* Copies the message at (*seq, *off) into <dst> (at most <max> bytes) and moves the cursor
 * to the next one; a cursor the writers overtook (or 0, 0) restarts at the oldest message.
 * Returns the message's length (cut to max), or -1 when there is none. Any thread. */
long ring_read(struct ring *r, uint64_t *seq, uint32_t *off, char *dst, uint32_t max);

/* Thread 0: starts / stops feeding every ring's servers. 0 or -1. */
int ring_thread_start(void);
void ring_thread_stop(void);

/* Config: a new ring (defaults of 2.6), appended to <rings>; NULL on allocation failure. */
struct ring *ring_new(const char *name, const char *file, int line);
/* Config: the ring a "ring@NAME" target names (made now if its section follows), and
 * the implicit ring of a "tcp@ADDR" target. NULL after an alert. */
struct ring *ring_for_target(struct cfg_ctx *ctx, const char *name);
struct ring *ring_for_tcp_target(struct cfg_ctx *ctx, const char *addr);
/* Config: the "buf0" ring every process has, as 2.6's (1 MB, "timed" format, listed first by
 * "show events"), made on first use; NULL on allocation failure. */
struct ring *ring_buf0(void);
/* Config check: resolves the loggers' "ring@NAME", makes the rings' buffers. Returns the
 * number of errors printed. */
int ring_cfg_check(void);
void ring_release(void);

#endif
