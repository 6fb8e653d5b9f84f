/* Health checks at run time: one check per server with "check", each run by the event loop
 * of one thread (servers spread over the threads) as a timer and a non-blocking socket.
 * Actions return 0 or -1.
 */
#ifndef CHECK_CHECK_H
#define CHECK_CHECK_H

#include <sys/socket.h>
#include <check/check-t.h>

/* Builds every server's check (its buffer included) and assigns it a thread. After
 * runtime_prepare, single-threaded. Returns 0, or -1 out of memory. */
int checks_prepare(void);

/* Arms the first run of the calling thread's checks, spread over their "inter". */
void checks_thread_start(void);

/* Closes the calling thread's check sockets (the loop has ended). */
void checks_thread_stop(void);

/* Dynamic servers (check_dyn.c): builds the check of <s> on the next thread of the
 * startup spread (thread 0; 0, or -1: memory); on the check's thread, arms it or stops it
 * (socket closed, external command killed, timer removed); frees one (NULL is fine). */
int chk_dyn_build(struct server *s);
void chk_dyn_arm(struct check *c);
void chk_dyn_stop(struct check *c);
void chk_free(struct check *c);

/* Frees every check (process end, tests). */
void checks_release(void);

/* "L4OK"... as "show stat" check_status prints it; "" for CHK_R_NONE. */
const char *chk_result_str(int r);

/* For the rule-based checks (tcpcheck_run.c), on the check's thread: */
/* Ends the current run with <res>, HTTP/protocol <code>, <info> (or NULL). */
void chk_finish(struct check *c, int res, int code, const char *info);
/* Closes the run's socket, if any. */
void chk_close(struct check *c);
/* The run's deadlines from <now>: connect, and the whole run. */
void chk_deadlines(struct check *c, uint64_t now, uint64_t *conn, uint64_t *all);
/* The address checks of <s> connect to ("addr", "port" over the server's). */
socklen_t chk_target(const struct server *s, struct sockaddr_storage *ss);

/* HAProxy's words for a check result CHK_R_* ("Layer4 connection problem"...). */
const char *chk_result_desc(int res);

#endif
