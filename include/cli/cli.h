/* The runtime API ("stats socket"): sockets declared in the global section, served by
 * thread 0's event loop; a line protocol of ';'-separated commands, interactive "prompt"
 * mode, and commands registered by the modules that own the data.
 */
#ifndef CLI_CLI_H
#define CLI_CLI_H

/* Binds every "stats socket" (before the daemon fork and before threads start). Returns
 * 0, or -1 after printing an alert naming the socket. */
int cli_bind_all(void);

/* Thread 0, once its loop exists: registers the CLI sockets in its poller. 0 or -1. */
int cli_start(void);

/* Stops accepting CLI connections and closes the sockets (graceful and hard stop). */
void cli_stop(void);

#endif
