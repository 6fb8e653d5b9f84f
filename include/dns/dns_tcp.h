/* DNS over TCP ("nameserver ID tcp@ADDR:PORT"): the per-nameserver connection of
 * src/dns/dns_tcp.c. Thread 0 (the DNS thread) only. Actions return nothing: a query that
 * cannot be sent now is lost, and retried by the resolver's timer as a lost datagram is.
 */
#ifndef DNS_DNS_TCP_H
#define DNS_DNS_TCP_H

#include <stddef.h>
#include <stdint.h>
#include <dns/dns-t.h>

/* Queues query <q> (<len> bytes, without the length prefix) to <ns>, connecting first
 * when no connection is open. */
void dns_tcp_send(struct dns_nameserver *ns, const uint8_t *q, size_t len);

/* Closes <ns>'s connection, if any, dropping what was queued or partly read. */
void dns_tcp_close(struct dns_nameserver *ns);

/* Frees the connection state of <ns> (after dns_tcp_close). */
void dns_tcp_free(struct dns_nameserver *ns);

/* Defined by dns_run.c: one response <msg> from <ns>, matched to a query in flight. */
void dns_handle(struct dns_nameserver *ns, const uint8_t *msg, size_t len);

#endif
