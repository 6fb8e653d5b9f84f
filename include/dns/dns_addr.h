/* Reading and publishing a server address resolved at run time (struct dns_addr_pub):
 * a sequence lock whose every access is atomic, so readers on any thread never see a
 * torn address and never wait on a lock. One writer: the DNS thread.
 */
#ifndef DNS_DNS_ADDR_H
#define DNS_DNS_ADDR_H

#include <string.h>
#include <netinet/in.h>
#include <backend/server-t.h>
#include <base/atomic.h>
#include <dns/dns-t.h>

_Static_assert(sizeof(struct sockaddr_in6) <= sizeof(((struct dns_addr_pub *)0)->w),
	       "a published address holds a sockaddr_in6");

/* Copies the published address into <out>. Returns its length, or 0 when there is none.
 * Any thread; retries only while the DNS thread is writing (a few stores). */
static inline socklen_t dns_addr_read(const struct dns_addr_pub *p, struct sockaddr_storage *out)
{
	uint64_t w[4];
	uint32_t s1, s2;
	sa_family_t fam;

	do {
		s1 = HA_ATOMIC_LOAD(&p->seq);
		for (int i = 0; i < 4; i++)
			w[i] = HA_ATOMIC_LOAD_RLX(&p->w[i]);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = HA_ATOMIC_LOAD_RLX(&p->seq);
	} while ((s1 & 1) || s1 != s2);
	memcpy(out, w, sizeof(w));
	fam = out->ss_family;
	if (fam == AF_INET)
		return sizeof(struct sockaddr_in);
	if (fam == AF_INET6)
		return sizeof(struct sockaddr_in6);
	return 0;
}

/* Publishes <ss> (AF_INET, AF_INET6, or family 0 for none). DNS thread only. */
static inline void dns_addr_publish(struct dns_addr_pub *p, const struct sockaddr_storage *ss)
{
	uint64_t w[4] = { 0 };
	uint32_t s = HA_ATOMIC_LOAD_RLX(&p->seq);

	if (ss->ss_family == AF_INET)
		memcpy(w, ss, sizeof(struct sockaddr_in));
	else if (ss->ss_family == AF_INET6)
		memcpy(w, ss, sizeof(struct sockaddr_in6));
	HA_ATOMIC_STORE_RLX(&p->seq, s + 1);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	for (int i = 0; i < 4; i++)
		HA_ATOMIC_STORE_RLX(&p->w[i], w[i]);
	HA_ATOMIC_STORE(&p->seq, s + 2);
}

/* The address to show for <s> (show stat, show servers state): what DNS published last,
 * else the configured one. <tmp> holds the copy. Any thread. */
static inline const struct sockaddr_storage *dns_srv_shown_addr(const struct server *s,
								struct sockaddr_storage *tmp)
{
	const struct dns_addr_pub *rt = HA_ATOMIC_LOAD(&s->rt_addr); /* "set server addr" */

	if ((s->flags & SRV_F_RESOLVE) && dns_addr_read(&s->dns->pub, tmp))
		return tmp;
	if (rt && dns_addr_read(rt, tmp))
		return tmp;
	return &s->addr;
}

#endif
