/* Types of DNS resolution: "resolvers" sections with their nameservers, and the
 * resolution state each server with "resolvers" owns (struct dns_srv), including the
 * address it publishes to every thread.
 */
#ifndef DNS_DNS_T_H
#define DNS_DNS_T_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <event/loop-t.h>

struct server;
struct dns_resolvers;
struct dns_tcp;
struct dns_req;

struct dns_nameserver {
	struct dns_nameserver *next;
	char *id;
	char *file;
	int line;
	struct sockaddr_storage addr;
	socklen_t addrlen;
	struct dns_resolvers *res;
	struct fd_handler h; /* runtime: its connected UDP socket, DNS thread's loop */
	bool tcp_mode;	     /* "tcp@": DNS over TCP (dns_tcp.c), h is its connection */
	struct dns_tcp *tcp; /* runtime: buffers of that connection, DNS thread only */
};

struct dns_resolvers {
	struct dns_resolvers *next;
	char *id;
	char *file;
	int line;
	struct dns_nameserver *ns;
	int payload;		/* accepted_payload_size, default 512 */
	int retries;		/* resolve_retries, default 3 */
	int t_resolve, t_retry; /* ms, default 1000 each */
	int hold_valid, hold_nx, hold_timeout, hold_refused, hold_other, hold_obsolete; /* ms */
	/* runtime, DNS thread only */
	struct dns_srv *reqs; /* servers resolved through this section */
	struct timer timer;
	uint8_t *rxbuf; /* payload bytes */
	/* "do-resolve" (dns_req.c) */
	bool dreq_used;	       /* named by a do-resolve rule: its sockets are opened */
	struct dns_req *dreqs; /* requests in flight, DNS thread only */
};

/* An address published by the DNS thread and read by every thread: a sequence lock over
 * atomic words, so a reader never sees a torn sockaddr and no memory is ever freed under
 * it (see doc/internals/dns.md). Written by the DNS thread only. */
struct dns_addr_pub {
	uint32_t seq;  /* odd while being written (atomic) */
	uint64_t w[4]; /* a sockaddr_in or sockaddr_in6, family 0: none (atomic) */
};

#define DNS_OPT_ALLOW_DUP 0x1	/* resolve-opts allow-dup-ip */
#define DNS_OPT_IGNORE_WGHT 0x2 /* resolve-opts ignore-weight (accepted, no SRV records) */
#define DNS_OPT_PREVENT_DUP 0x4 /* resolve-opts prevent-dup-ip */

#define DNS_MAX_NETS 8

struct dns_net {
	int family;
	uint8_t ip[16];
	int plen;
};

/* A server's resolution settings (parse time) and state (DNS thread). */
struct dns_srv {
	struct dns_srv *next; /* in res->reqs */
	struct server *srv;
	char *hostname;		   /* as written on the server line */
	int port;		   /* the server's port, kept across changes */
	char *res_name;		   /* "resolvers NAME", NULL: resolved once (init-addr) */
	struct dns_resolvers *res; /* found at check time */
	int prefer;		   /* AF_INET or AF_INET6 (resolve-prefer, default ipv6) */
	int nnets;
	struct dns_net nets[DNS_MAX_NETS]; /* resolve-net */
	uint32_t opts;			   /* DNS_OPT_* */
	char *init_addr;		   /* "init-addr" list as written, NULL: default */
	char *init_file;		   /* where the server line is, for check-time messages */
	int init_line;
	/* "init-addr last" (dns_srv_cfg.c), start-up only */
	bool last_first; /* "last" comes before the method that gave the address, if any */
	bool pending;	 /* no method gave one yet: "last" may (else an error at the check) */
	bool tried;	 /* a real method (libc, IP) was tried, for the message */
	/* runtime, DNS thread only */
	uint16_t qid;	/* id of the query in flight */
	uint16_t qtype; /* DNS_T_A or DNS_T_AAAA */
	bool in_flight;
	bool fell_back; /* the other family was asked after an empty answer */
	bool maint;	/* in maintenance for want of an address */
	int tries;
	uint64_t deadline;	     /* retry at, while in flight */
	uint64_t next_ms;	     /* next resolution */
	uint64_t last_valid;	     /* monotonic ms of the last valid answer, 0: none */
	struct sockaddr_storage cur; /* what is published, family 0: none */
	/* read by every thread */
	struct dns_addr_pub pub;
};

#endif
