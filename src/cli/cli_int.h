/* Private to src/cli: the "stats socket" lines the global section declares (cli_cfg.c)
 * and the settings the sockets and sessions (cli.c) apply, plus the help text builder
 * (cli_help.c).
 */
#ifndef CLI_CLI_INT_H
#define CLI_CLI_INT_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <cli/cli-t.h>
#include <event/loop-t.h>
#include <thread/thread-t.h>

/* One "stats socket ADDR [options]" line. */
struct cli_bind {
	struct cli_bind *next;    /* config order */
	char *addr_str;           /* as written, for messages */
	char *file;               /* config location */
	int line;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	int inherited_fd;         /* "fd@N": a listening socket received from the parent */
	int mode;                 /* "mode" (octal) for unix sockets, -1 = umask default */
	uid_t uid;                /* "uid"/"user", (uid_t)-1 = unchanged */
	gid_t gid;                /* "gid"/"group", (gid_t)-1 = unchanged */
	int level;                /* CLI_LVL_* of its sessions */
	/* runtime, thread 0 only */
	struct fd_handler h;      /* the listening socket; h.fd = -1 when not bound */
	bool polled;              /* registered in thread 0's poller */
	/* seamless reload */
	bool expose_fd;           /* "expose-fd listeners": serves "_getsocks" */
	/* "thread SET": checked against the threads once they are known */
	bool has_thread;
	struct thread_set thread_set;
};

extern struct cli_bind *cli_binds;
extern int cli_timeout_ms;        /* "stats timeout", default 10s */
extern int cli_maxconn;           /* "stats maxconn", default 10 */

/* The registered commands, sorted by usage (built on first use). */
const struct cli_kw *const *cli_kws_sorted(int *n);

/* Serves connected socket <fd> (owned from now on) as a session of <b>'s settings;
 * thread 0. Returns 0, or -1 (the caller closes <fd>). */
int cli_sess_adopt(struct cli_bind *b, int fd);

/* Thread 0: registers the link to the master (cli_master.c), if any. 0 or -1. */
int cli_master_link_start(void);

/* True when <fd> is a CLI session's socket ("show fd"); thread 0. */
bool cli_is_session_fd(int fd);

/* Handlers of "help" and of unknown commands. */
int cli_help_fn(struct cli_ctx *ctx);
int cli_unknown_fn(struct cli_ctx *ctx);

#endif
