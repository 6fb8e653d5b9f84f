/* The run-time DNS client: on thread 0's event loop, one timer per "resolvers" section and
 * one connected non-blocking UDP socket per nameserver (or a TCP connection, dns_tcp.c).
 * Every "timeout resolve" each server of the section is queried (its preferred family,
 * then the other one on an empty answer), retried every "timeout retry" up to
 * "resolve_retries" times; a new address is published
 * to every thread (dns_addr.h), failures beyond "hold <status>" put the server in
 * maintenance. Never blocks. Owns the stderr notices of these changes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/random.h>

#include <backend/server.h>
#include <base/ev_report.h>
#include <check/check-t.h>
#include <log/log-t.h>
#include <dns/dns.h>
#include <dns/dns_addr.h>
#include <dns/dns_msg.h>
#include <dns/dns_req.h>
#include <dns/dns_tcp.h>
#include <event/loop.h>
#include <proxy/proxy.h>
#include <proxy/proxy_cfg.h>

#define DNS_RECV_BATCH 256 /* datagrams read per readiness edge, at most */

static uint64_t dns_rng; /* query ids: DNS thread only */

uint16_t dns_next_id(void)
{
	dns_rng ^= dns_rng << 13;
	dns_rng ^= dns_rng >> 7;
	dns_rng ^= dns_rng << 17;
	return (uint16_t)(dns_rng >> 16);
}

/* "1.2.3.4" or "(none)" */
static const char *dns_ip_str(const struct sockaddr_storage *ss, char *buf, size_t sz)
{
	const void *a = ss->ss_family == AF_INET
				? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
				: (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;

	if ((ss->ss_family != AF_INET && ss->ss_family != AF_INET6) ||
	    !inet_ntop(ss->ss_family, a, buf, (socklen_t)sz))
		snprintf(buf, sz, "(none)");
	return buf;
}

static bool dns_same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return !memcmp(a, b, sizeof(struct sockaddr_in));
	return a->ss_family != AF_INET6 || !memcmp(a, b, sizeof(struct sockaddr_in6));
}

static void dns_enter_maint(struct dns_srv *d, const char *why);

static void dns_count_usable(const struct proxy *px, int *act, int *bck)
{
	*act = *bck = 0;
	for (const struct server *s = px->srv; s; s = s->next) {
		if ((s->flags & SRV_F_DISABLED) || !srv_is_up(s))
			continue;
		(*(s->flags & SRV_F_BACKUP ? bck : act))++;
	}
}

void dns_send_query(struct dns_resolvers *r, uint16_t id, const char *name, uint16_t qtype)
{
	uint8_t q[DNS_HDR_LEN + DNS_NAME_MAX + 4 + 11];
	int n = dns_build_query(q, sizeof(q), id, name, qtype, r->payload > 512 ? r->payload : 0);

	if (n < 0)
		return; /* an impossible name: the retries run out, as a timeout */
	for (struct dns_nameserver *ns = r->ns; ns; ns = ns->next)
		if (ns->tcp_mode)
			dns_tcp_send(ns, q, (size_t)n);
		else if (ns->h.fd >= 0)
			(void)send(ns->h.fd, q, (size_t)n, MSG_NOSIGNAL);
}

/* Sends the query of <d> to every nameserver of its section; arms its retry deadline. */
static void dns_send(struct dns_srv *d)
{
	struct dns_resolvers *r = d->res;

	d->qid = dns_next_id();
	d->qtype = (d->prefer == AF_INET) != d->fell_back ? DNS_T_A : DNS_T_AAAA;
	d->in_flight = true;
	d->tries++;
	d->deadline = now_ms() + (uint64_t)r->t_retry;
	dns_send_query(r, d->qid, d->hostname, d->qtype);
}

/* The resolution of <d> is over: the next one starts after "timeout resolve". */
static void dns_done(struct dns_srv *d)
{
	d->in_flight = false;
	d->fell_back = false;
	d->tries = 0;
	d->next_ms = now_ms() + (uint64_t)d->res->t_resolve;
}

/* The address to use among <res>'s: the current one while it is still there, else the
 * first in a "resolve-net" network (in their order), else the first one; unless
 * allow-dup-ip, one no other server of the backend with the same name uses (HAProxy's
 * default, which spreads a server-template over the records). -1 when none is left. */
static int dns_pick(const struct dns_srv *d, const struct dns_result *res)
{
	int best = -1, best_rank = DNS_MAX_NETS + 1;

	for (int i = 0; i < res->naddr; i++) {
		const struct dns_addr_rr *a = &res->addr[i];
		int rank = d->nnets ? DNS_MAX_NETS : 0;
		bool dup = false;

		if (d->cur.ss_family == a->family &&
		    !memcmp(a->family == AF_INET
				    ? (const void *)&((const struct sockaddr_in *)&d->cur)->sin_addr
				    : (const void *)&((const struct sockaddr_in6 *)&d->cur)
					      ->sin6_addr,
			    a->ip, a->family == AF_INET ? 4 : 16))
			return i;
		for (const struct dns_srv *o = d->res->reqs; o && !(d->opts & DNS_OPT_ALLOW_DUP);
		     o = o->next) {
			const struct sockaddr_in *o4 = (const struct sockaddr_in *)&o->cur;
			const struct sockaddr_in6 *o6 = (const struct sockaddr_in6 *)&o->cur;

			if (o == d || o->srv->px != d->srv->px ||
			    strcmp(o->hostname, d->hostname) || o->cur.ss_family != a->family)
				continue;
			dup = dup || !memcmp(a->family == AF_INET ? (const void *)&o4->sin_addr
								  : (const void *)&o6->sin6_addr,
					     a->ip, a->family == AF_INET ? 4 : 16);
		}
		if (dup)
			continue;
		for (int k = 0; k < d->nnets && rank == DNS_MAX_NETS; k++) {
			const struct dns_net *n = &d->nets[k];
			int full = n->plen / 8, rest = n->plen % 8;

			if (n->family != a->family || memcmp(n->ip, a->ip, (size_t)full))
				continue;
			if (rest && ((n->ip[full] ^ a->ip[full]) & (uint8_t)(0xff << (8 - rest))))
				continue;
			rank = k;
		}
		if (rank < best_rank) {
			best = i;
			best_rank = rank;
		}
	}
	return best;
}

/* A valid answer for <d> from <ns>: publishes a new address, leaves maintenance. */
static void dns_apply(struct dns_srv *d, const struct dns_result *res,
		      const struct dns_nameserver *ns)
{
	struct server *s = d->srv;
	struct sockaddr_storage ss = { 0 };
	char from[INET6_ADDRSTRLEN + 8], to[INET6_ADDRSTRLEN + 8];
	int i = dns_pick(d, res);

	dns_done(d);
	d->last_valid = now_ms();
	if (i < 0) { /* every address is taken by another server of the backend */
		if (!d->maint)
			dns_enter_maint(d, "No IP for server ");
		return;
	}
	ss.ss_family = (sa_family_t)res->addr[i].family;
	if (ss.ss_family == AF_INET) {
		memcpy(&((struct sockaddr_in *)&ss)->sin_addr, res->addr[i].ip, 4);
		((struct sockaddr_in *)&ss)->sin_port = htons((uint16_t)d->port);
	} else {
		memcpy(&((struct sockaddr_in6 *)&ss)->sin6_addr, res->addr[i].ip, 16);
		((struct sockaddr_in6 *)&ss)->sin6_port = htons((uint16_t)d->port);
	}
	if (!dns_same_addr(&ss, &d->cur)) {
		ev_report(s->px, LOG_LVL_NOTICE, EV_OUT_WARNING,
			  "%s/%s changed its IP from %s to %s by %s/%s.", s->px->id, s->id,
			  dns_ip_str(&d->cur, from, sizeof(from)), dns_ip_str(&ss, to, sizeof(to)),
			  d->res->id, ns->id);
		d->cur = ss;
		dns_addr_publish(&d->pub, &d->cur);
	}
	if (d->maint) {
		d->maint = false;
		/* back to what its checks say: DOWN until they see it healthy again (they go on
		 * while it is in maintenance, failing on the missing address) */
		srv_set_dns_maint(s, false,
				  s->check && HA_ATOMIC_LOAD_RLX(&s->check->health) < s->rise
					  ? SRV_RS_DOWN
					  : SRV_RS_UP,
				  now_ms());
		ev_report(s->px, LOG_LVL_NOTICE, EV_OUT_WARNING,
			  "Server %s/%s ('%s') is UP/READY (resolves again).", s->px->id, s->id,
			  d->hostname);
		ev_report(s->px, LOG_LVL_NOTICE, EV_OUT_WARNING,
			  "Server %s/%s administratively READY thanks to valid DNS answer.",
			  s->px->id, s->id);
	}
}

/* Puts <d>'s server in maintenance for want of an address, saying <why> as HAProxy. */
static void dns_enter_maint(struct dns_srv *d, const char *why)
{
	struct server *s = d->srv;
	int act, bck;

	d->maint = true;
	d->cur = (struct sockaddr_storage){ 0 };
	dns_addr_publish(&d->pub, &d->cur);
	srv_set_dns_maint(s, true, SRV_RS_RMAINT, now_ms());
	dns_count_usable(s->px, &act, &bck);
	ev_report(
		s->px, LOG_LVL_ALERT, EV_OUT_WARNING,
		"Server %s/%s is going DOWN for maintenance (%s). %d active and %d backup servers "
		"left. %d sessions active, 0 requeued, 0 remaining in queue.",
		s->px->id, s->id, why, act, bck, HA_ATOMIC_LOAD_RLX(&s->cur_conns));
	if (!act && !bck)
		srv_report_no_server(s->px);
}

/* A failed resolution of <d> (<st>, or DNS_ST_INVALID for a timeout): maintenance once
 * no valid answer came for the "hold" period of that status. */
static void dns_fail(struct dns_srv *d, enum dns_status st)
{
	const struct dns_resolvers *r = d->res;
	const char *why;
	int hold;

	dns_done(d);
	if (st == DNS_ST_NX) {
		hold = r->hold_nx;
		why = "DNS NX status";
	} else if (st == DNS_ST_REFUSED) {
		hold = r->hold_refused;
		why = "DNS refused status";
	} else if (st == DNS_ST_INVALID) {
		hold = r->hold_timeout;
		why = "DNS timeout status";
	} else {
		hold = r->hold_other;
		why = "unspecified DNS error";
	}
	if (d->maint || now_ms() - d->last_valid < (uint64_t)hold)
		return;
	dns_enter_maint(d, why);
}

/* One datagram (or TCP message) from <ns>: the answer to one of the section's queries in
 * flight, else ignored (late, spoofed or garbage; the query is retried on time). */
void dns_handle(struct dns_nameserver *ns, const uint8_t *msg, size_t len)
{
	struct dns_result res;
	struct dns_srv *d;
	enum dns_status st;
	uint16_t id;

	if (len < DNS_HDR_LEN)
		return;
	id = (uint16_t)(msg[0] << 8 | msg[1]);
	for (d = ns->res->reqs; d && !(d->in_flight && d->qid == id); d = d->next)
		;
	if (!d) {
		if (unlikely(ns->res->dreqs))
			dns_req_handle(ns->res, msg, len, id);
		return;
	}
	st = dns_parse_response(msg, len, id, d->hostname, d->qtype, &res);
	switch (st) {
	case DNS_ST_VALID:
		dns_apply(d, &res, ns);
		break;
	case DNS_ST_INVALID:
	case DNS_ST_WRONG_ID:
	case DNS_ST_WRONG_QUESTION:
		break;
	case DNS_ST_NO_ANSWER:
		if (!d->fell_back) { /* ask the other family at once */
			d->fell_back = true;
			d->tries = 0;
			dns_send(d);
			break;
		}
		dns_fail(d, DNS_ST_OTHER);
		break;
	default:
		dns_fail(d, st);
		break;
	}
}

static void dns_ns_iocb(struct fd_handler *h, uint32_t events)
{
	struct dns_nameserver *ns = container_of(h, struct dns_nameserver, h);
	struct dns_resolvers *r = ns->res;

	for (int i = 0; i < DNS_RECV_BATCH; i++) {
		ssize_t n = recv(h->fd, r->rxbuf, (size_t)r->payload, 0);

		if (n < 0) {
			if (errno == EINTR || errno == ECONNREFUSED) /* an ICMP error is consumed */
				continue;
			return; /* EAGAIN */
		}
		dns_handle(ns, r->rxbuf, (size_t)n);
	}
}

static void dns_timer_cb(struct timer *t)
{
	struct dns_resolvers *r = container_of(t, struct dns_resolvers, timer);
	uint64_t now = now_ms(), next = now + (uint64_t)r->t_resolve;

	for (struct dns_srv *d = r->reqs; d; d = d->next) {
		if (d->in_flight && now >= d->deadline) {
			if (d->tries >= r->retries)
				dns_fail(d, DNS_ST_INVALID);
			else
				dns_send(d);
		} else if (!d->in_flight && now >= d->next_ms) {
			dns_send(d);
		}
		if (d->in_flight && d->deadline < next)
			next = d->deadline;
		else if (!d->in_flight && d->next_ms < next)
			next = d->next_ms;
	}
	if (r->dreqs)
		next = dns_req_timer(r, now, next);
	timer_set(t, next > now ? next : now + 1);
}

/* Opens and registers the nameservers' sockets of <r>. Returns 0 or -1. */
static int dns_open(struct dns_resolvers *r)
{
	if (r->payload < 512)
		r->payload = 512; /* the size every nameserver may send without EDNS0 */
	r->rxbuf = malloc((size_t)r->payload);
	if (!r->rxbuf)
		return -1;
	for (struct dns_nameserver *ns = r->ns; ns; ns = ns->next) {
		if (ns->tcp_mode) /* connected when a query is sent (dns_tcp.c) */
			continue;
		int fd = socket(ns->addr.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return -1;
		if (connect(fd, (const struct sockaddr *)&ns->addr, ns->addrlen) < 0) {
			close(fd); /* unreachable now: the other nameservers may answer */
			continue;
		}
		ns->h.fd = fd;
		ns->h.iocb = dns_ns_iocb;
		if (fd_register(&ns->h) < 0) {
			close(fd);
			ns->h.fd = -1;
			return -1;
		}
	}
	r->timer.cb = dns_timer_cb;
	timer_set(&r->timer, now_ms() + 1);
	return 0;
}

int dns_thread_start(void)
{
	uint64_t now = now_ms();

	if (getrandom(&dns_rng, sizeof(dns_rng), GRND_NONBLOCK) != sizeof(dns_rng) || !dns_rng)
		dns_rng = (uint64_t)getpid() * 0x9e3779b97f4a7c15ull + now + 1;
	/* servers without an address wait in maintenance; entered now, after backend_init,
	 * so that the LB tables include them (without resolvers they stay there) */
	for (struct proxy *px = proxies; px; px = px->next)
		for (struct server *s = px->srv; s; s = s->next)
			if (s->dns && s->dns->maint)
				srv_set_dns_maint(s, true, SRV_RS_RMAINT, now);
	for (struct dns_resolvers *r = dns_resolvers_list; r; r = r->next) {
		if (!r->reqs && !r->dreq_used)
			continue;
		for (struct dns_srv *d = r->reqs; d; d = d->next) {
			d->next_ms = now; /* resolve at once, as HAProxy does */
			d->last_valid = d->maint ? 0 : now;
		}
		if (dns_open(r) < 0)
			return -1;
	}
	return 0;
}

void dns_thread_stop(void)
{
	for (struct dns_resolvers *r = dns_resolvers_list; r; r = r->next) {
		timer_del(&r->timer);
		dns_req_stop(r);
		for (struct dns_nameserver *ns = r->ns; ns; ns = ns->next) {
			if (ns->tcp_mode)
				dns_tcp_close(ns);
			if (ns->h.fd < 0)
				continue;
			fd_unregister(&ns->h);
			close(ns->h.fd);
			ns->h.fd = -1;
		}
	}
}
