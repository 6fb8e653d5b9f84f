/* On-demand resolutions (the "do-resolve" action): any thread starts one and polls it;
 * thread 0 (the DNS thread) sends the queries through the section's nameservers, retries
 * and times them out like a server's, and publishes the answer (src/dns/dns_req.c).
 */
#ifndef DNS_DNS_REQ_H
#define DNS_DNS_REQ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <dns/dns-t.h>

struct dns_req;

/* Starts resolving <name> (<len> bytes) through <res>: <family> AF_INET or AF_INET6 asks
 * for that family only, 0 asks for IPv6 then IPv4 on an empty answer. Any thread. Returns
 * the request (the caller holds one reference), or NULL (invalid name, no memory). */
struct dns_req *dns_req_start(struct dns_resolvers *res, const char *name, size_t len, int family);

/* 0 while pending; 1 when resolved (*ss filled, port 0); -1 when it failed. Any thread. */
int dns_req_poll(struct dns_req *rq, struct sockaddr_storage *ss);

/* Drops the caller's reference (the request may still be in flight on thread 0). */
void dns_req_release(struct dns_req *rq);

/* Thread 0, from dns_run.c: the answer <msg> with id <id> for one of <r>'s requests
 * (ignored when none matches); the timer pass (returns the earliest deadline, at most
 * <next>); the end (drops every request still in flight). */
void dns_req_handle(struct dns_resolvers *r, const uint8_t *msg, size_t len, uint16_t id);
uint64_t dns_req_timer(struct dns_resolvers *r, uint64_t now, uint64_t next);
void dns_req_stop(struct dns_resolvers *r);

/* From dns_run.c: a fresh query id, and a query sent to every nameserver of <r>. Thread 0. */
uint16_t dns_next_id(void);
void dns_send_query(struct dns_resolvers *r, uint16_t id, const char *name, uint16_t qtype);

#endif
