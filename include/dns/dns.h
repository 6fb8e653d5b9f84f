/* DNS resolution of servers: the "resolvers" sections (dns_cfg.c), the server options and
 * the start-up address (dns_srv_cfg.c), and the run-time client (dns_run.c), which runs on
 * thread 0's event loop and publishes new addresses to every thread (dns_addr.h).
 */
#ifndef DNS_DNS_H
#define DNS_DNS_H

#include <dns/dns-t.h>

extern struct dns_resolvers *dns_resolvers_list; /* config order */

/* The section named <name>, or NULL. */
struct dns_resolvers *dns_resolvers_find(const char *name);

/* The section "default": the configuration's, else, as HAProxy makes it, one with the
 * nameservers of /etc/resolv.conf (created on the first call, silently; NULL when there
 * are none). Check time, single-threaded. */
struct dns_resolvers *dns_resolvers_default(void);

/* Check time: links every server's "resolvers NAME" to its section ("unable to find
 * required resolvers") and warns about sections without nameservers. Returns the number of
 * errors. Single-threaded. */
int dns_cfg_check(void);

/* After the state files are read: alerts for each server written with a host name that
 * no init-addr method (nor "last") gave an address; returns their number. */
int dns_srv_init_last_check(void);

/* Run time, thread 0: opens the nameservers' sockets and arms the timers of the sections
 * that resolve at least one server. Returns 0 or -1 (errno set). */
int dns_thread_start(void);
/* Closes them (thread 0, after its loop ended). */
void dns_thread_stop(void);
/* Frees every section and server state (process exit). */
void dns_release(void);

#endif
