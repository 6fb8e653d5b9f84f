/* The master CLI (-S): listening sockets and sessions served by the master's own poll()
 * loop (proc/mworker.c), its commands (help, prompt, quit, show proc, show version,
 * reload) and the forwarding of "@<n>", "@!<pid>" commands to a worker's CLI over the
 * socketpair created before the fork. Master process only, single-threaded.
 */
#ifndef PROC_MCLI_H
#define PROC_MCLI_H

#include <poll.h>
#include <stdbool.h>

#define MCLI_MAX_BINDS 8
#define MCLI_MAX_SESS 16
#define MCLI_MAX_POLLFDS (MCLI_MAX_BINDS + 2 * MCLI_MAX_SESS)

/* "-S <addr>[,<opt>,<value>]*": records one master CLI socket. Returns 0, or -1 after an
 * alert (bad address or option). */
int mcli_add_spec(const char *spec);

/* After the config is loaded (-c too): warns, as 2.6, when -S is given without
 * master-worker mode. */
void mcli_check(bool mworker);

/* After the config is loaded: binds the -S sockets not inherited from a previous master
 * image (nothing outside master-worker mode: mcli_check() warned) and exports
 * HAPROXY_MASTER_CLI. Returns 0, or -1 after an alert.
 */
int mcli_bind_all(bool mworker);

/* Master loop: fills up to <max> pollfds; returns how many. The timeout to poll() with. */
int mcli_poll_fill(struct pollfd *pf, int max);
int mcli_poll_timeout(void);
/* Handles the events of the <n> pollfds mcli_poll_fill() filled last time. */
void mcli_poll_done(const struct pollfd *pf, int n);

/* Re-exec: exports the listening sockets (FD_CLOEXEC cleared) and the reload counters;
 * the new image imports them (mworker_init). */
void mcli_export_env(void);
void mcli_import_env(void);

/* Counters of "show proc": a reload starts, a reload failed (the config did not load). */
void mcli_reloading(void);
void mcli_reload_failed(void);

/* In a worker just forked: closes the master's CLI sockets. */
void mcli_close_in_child(void);

#endif
