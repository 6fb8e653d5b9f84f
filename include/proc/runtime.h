/* From a checked configuration to running event loops, and back to exit. Called by main()
 * in this order: runtime_prepare(), listeners_bind_all(), runtime_run().
 */
#ifndef PROC_RUNTIME_H
#define PROC_RUNTIME_H

/* Builds runtime state (LB state, error replies, pools sized from tune.*), computes and
 * applies the fd limit from maxconn. Returns 0, or -1 after printing an alert.
 */
int runtime_prepare(void);

/* Binds (or adopts, for fd@N) every listener of every frontend. Returns 0, or -1 after
 * printing "[ALERT]    (PID) : Starting frontend NAME: cannot bind socket (REASON) [ADDR]".
 */
int listeners_bind_all(void);

/* Per thread: registers the listeners the calling thread serves. Returns 0 or -1. */
int listeners_enable_thread(void);
/* Closes every listening socket (no thread polls them any more). */
void listeners_close_all(void);

/* SIGTTOU / SIGTTIN, from the signal thread: every frontend's TCP sockets stop listening
 * (the ports stay bound, new connections are refused) / listen again. Each thread then
 * unregisters / registers its sockets (listeners_thread_pause/resume).
 */
void listeners_pause_all(void);
void listeners_resume_all(void);

/* Starts the event loop(s) and runs until SIGTERM/SIGINT (immediate stop) or SIGUSR1
 * (graceful: stop accepting, finish in-flight requests). <ready> is called once every loop
 * is ready to serve (the daemon launcher uses it to report success). Returns the process
 * exit status.
 */
int runtime_run(void (*ready)(void));

/* The signal (SIGTERM or SIGINT) that stopped runtime_run(), 0 for any other end. */
extern int runtime_stop_signal;

#endif
