/* Listening sockets at run time: binding each address as one socket per shard (per
 * thread group by default), registering shards in the pollers of the threads that serve
 * them, accepting in batches and handing each connection to the least loaded thread of
 * the group, pausing when a maxconn limit is reached and resuming when a connection ends.
 */
#ifndef CONN_LISTENER_H
#define CONN_LISTENER_H

#include <base/freq_ctr-t.h>
#include <conn/listener-t.h>

/* Connections accepted and still open, process-wide (atomic): global maxconn. */
extern int actconn;
/* Connections accepted per second, and the highest such rate seen (atomics): maxconnrate,
 * maxsessrate, "show info". */
extern struct freq_ctr conn_rate;
extern uint32_t conn_rate_max;

/* Limits of TLS binds (maxsslconn, maxsslrate), set by ssl/ssl_stats.c once one is
 * configured, NULL otherwise: "full" stops accepting until a connection ends; "wait" is
 * the milliseconds before the next accept under the rate (0: now). */
extern bool (*listener_tls_full)(void);
extern uint32_t (*listener_tls_wait)(uint64_t now);

/* Binds (or adopts for fd@N) <li>'s sockets, one per shard, and listens with <backlog>.
 * Before threads start. Returns 0, or -1 with the reason in err[0..errsz).
 */
int listener_bind(struct listener *li, int backlog, char *err, size_t errsz);

/* Registers the shards of <li> that the calling thread serves in its poller. */
int listener_enable(struct listener *li);

/* Removes every registration of the calling thread (graceful stop). */
void listeners_thread_disable(void);

/* Closes <li>'s sockets once no thread polls them any more. */
void listener_close(struct listener *li);

/* SIGTTOU/SIGTTIN, as HAProxy's pause/resume. listeners_set_paused() (one thread, first)
 * sets or clears the process-wide pause; listener_pause_sock() stops a listener's TCP
 * sockets from listening (the port stays bound, new connections are refused, those in the
 * accept queue are reset); listener_resume_sock() listens again with <backlog>. Then each
 * thread calls listeners_thread_pause() (unregisters its sockets) or
 * listeners_thread_resume() (registers them again, as limits allow).
 */
void listeners_set_paused(bool paused);
void listener_pause_sock(struct listener *li);
void listener_resume_sock(struct listener *li, int backlog);
void listeners_thread_pause(void);
void listeners_thread_resume(void);

/* conn/reuseport.c: makes this process's TCP listening sockets fds[0..n) for one address
 * the ones that get its new connections, and lets the kernel move the connections queued
 * on a socket of the address's SO_REUSEPORT group to them when it closes (reloads).
 * Returns 0, or -1 (errno set) when the kernel or the privileges do not allow it.
 */
int sock_reuseport_take_over(const int *fds, int n);

/* Called by the thread owning a front connection of <li> when it ends. */
void listener_release(struct listener *li);

/* The CLI changed global maxconn or a global rate limit (relaxed atomic stores): turns the
 * rate checks on if needed and makes every thread retry its paused registrations. Any
 * thread with an event loop. */
void listeners_limits_changed(void);

#endif
