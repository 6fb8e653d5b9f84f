/* "log-forward" sections (log/logfwd_cfg.c, log/logfwd.c): syslog receivers over UDP
 * ("dgram-bind") and TCP ("bind"), served by thread 0's event loop, relaying each message
 * to the section's "log" targets (log_send_fields()).
 */
#ifndef LOG_LOGFWD_H
#define LOG_LOGFWD_H

#include <stdint.h>
#include <sys/socket.h>
#include <base/list.h>
#include <event/loop-t.h>

struct logfwd;

/* One "dgram-bind" or "bind" address; thread 0 owns the socket. */
struct logfwd_rx {
	struct logfwd_rx *next;
	struct logfwd *lf;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int stream;	     /* 1: "bind" (TCP), 0: "dgram-bind" (UDP) */
	struct fd_handler h; /* fd -1 when closed */
	int paused;	     /* TCP: unregistered while the section is at maxconn */
	char *conf_file;
	int conf_line;
};

struct logfwd {
	struct logfwd *next;
	char *id;
	struct list loggers; /* "log" lines (struct logger) */
	struct logfwd_rx *rxs;
	int maxconn;	/* TCP connections at once (2.6's default 10) */
	int backlog;	/* listen() backlog, 0: maxconn */
	int tmo_client; /* ms, TCP idle timeout; 0: none */
	int nb_conns;	/* thread 0 */
	char *conf_file;
	int conf_line;
};

extern struct logfwd *logfwds;

/* Binds every receiver's socket (startup, before privileges are dropped). 0 or -1 after
 * an alert. */
int logfwd_bind_all(void);
/* Thread 0: polls / closes the receivers. 0 or -1. */
int logfwd_thread_start(void);
void logfwd_thread_stop(void);

/* Messages received by every log-forward section since start (show info CumRecvLogs). */
uint64_t logfwd_received(void);

/* Relays one received message (no framing) to <lf>'s targets. Thread 0, unit tests. */
void logfwd_relay(struct logfwd *lf, const char *buf, size_t len);

/* Config: checks and frees the sections. */
int logfwd_cfg_check(void);
void logfwd_release(void);

#endif
