/* Listening sockets at run time: binding, accepting in batches, pausing when a maxconn
 * limit is reached and resuming when a connection ends. Loop thread only (one thread for
 * now; issue #3 gives each group its own sockets).
 */
#ifndef CONN_LISTENER_H
#define CONN_LISTENER_H

#include <conn/listener-t.h>

/* Connections accepted and still open, process-wide (atomic): global maxconn. */
extern int actconn;

/* Stops accepting on <li> and closes its socket (graceful stop). */
void listener_stop(struct listener *li);

/* Called by the front side when one of its connections ends. */
void listener_release(struct listener *li);


#endif

/* Binds (or adopts for fd@N) <li>'s socket and listens with <backlog>. Returns 0, or -1
 * with the reason in err[0..errsz).
 */
int listener_bind(struct listener *li, int backlog, char *err, size_t errsz);

/* Adds <li> to the calling thread's poller. Returns 0 or -1. */
int listener_enable(struct listener *li);
