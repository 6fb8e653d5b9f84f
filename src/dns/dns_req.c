/* On-demand resolutions for the "do-resolve" action. A stream's thread allocates a request
 * and hands it to thread 0 through its inbox; thread 0 links it to its section, queries
 * (IPv6 then IPv4 unless a family is forced), retries every "timeout retry" up to
 * "resolve_retries" sends, and publishes the result with a release store of <state>. Two
 * references (the stream's, thread 0's): whoever drops the last one frees it, so a stream
 * that ends first never leaves thread 0 with freed memory, nor the reverse.
 */
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include <base/atomic.h>
#include <base/compiler.h>
#include <dns/dns_msg.h>
#include <dns/dns_req.h>
#include <event/inbox.h>
#include <event/loop.h>

#define DNS_REQ_PENDING 0
#define DNS_REQ_DONE 1
#define DNS_REQ_FAILED 2

struct dns_req {
	struct inbox_item it; /* the hand-over to thread 0 */
	struct dns_req *next; /* in res->dreqs: thread 0 only */
	struct dns_resolvers *res;
	uint32_t refs;		    /* 2, then 1, then freed (atomic) */
	uint32_t state;		    /* DNS_REQ_*: written once by thread 0 (release) */
	int family;		    /* AF_INET, AF_INET6, 0: IPv6 then IPv4 */
	bool fell_back;		    /* the second family was asked: thread 0 only */
	uint16_t qid, qtype;	    /* the query in flight: thread 0 only */
	int tries;		    /* sends of this query: thread 0 only */
	uint64_t deadline;	    /* next retry, thread 0's clock */
	struct sockaddr_storage ss; /* the answer, written before <state> */
	char name[DNS_NAME_MAX + 1];
};

static void dns_req_put(struct dns_req *rq)
{
	if (HA_ATOMIC_SUB(&rq->refs, 1) == 0)
		free(rq);
}

void dns_req_release(struct dns_req *rq)
{
	dns_req_put(rq);
}

int dns_req_poll(struct dns_req *rq, struct sockaddr_storage *ss)
{
	uint32_t st = HA_ATOMIC_LOAD(&rq->state);

	if (st == DNS_REQ_PENDING)
		return 0;
	if (st == DNS_REQ_FAILED)
		return -1;
	*ss = rq->ss;
	return 1;
}

/* Thread 0: sends (or resends) the query of <rq>. */
static void dns_req_send(struct dns_req *rq)
{
	bool v4 = rq->family == AF_INET || (rq->family == 0 && rq->fell_back);

	rq->qid = dns_next_id();
	rq->qtype = v4 ? DNS_T_A : DNS_T_AAAA;
	rq->tries++;
	rq->deadline = now_ms() + (uint64_t)rq->res->t_retry;
	dns_send_query(rq->res, rq->qid, rq->name, rq->qtype);
}

/* Thread 0: unlinks <rq>, publishes its outcome and drops thread 0's reference. */
static void dns_req_finish(struct dns_req *rq, const struct dns_addr_rr *a)
{
	struct dns_req **pp;

	for (pp = &rq->res->dreqs; *pp && *pp != rq; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = rq->next;
	if (a) {
		memset(&rq->ss, 0, sizeof(rq->ss));
		rq->ss.ss_family = (sa_family_t)a->family;
		if (a->family == AF_INET)
			memcpy(&((struct sockaddr_in *)&rq->ss)->sin_addr, a->ip, 4);
		else
			memcpy(&((struct sockaddr_in6 *)&rq->ss)->sin6_addr, a->ip, 16);
	}
	HA_ATOMIC_STORE(&rq->state, a ? DNS_REQ_DONE : DNS_REQ_FAILED);
	dns_req_put(rq);
}

/* Thread 0, from its inbox: a new request joins its section and is sent at once. */
static void dns_req_arrive(struct inbox_item *it)
{
	struct dns_req *rq = container_of(it, struct dns_req, it);
	struct dns_resolvers *r = rq->res;

	rq->next = r->dreqs;
	r->dreqs = rq;
	dns_req_send(rq);
	if (!r->timer.expire || r->timer.expire > rq->deadline)
		timer_set(&r->timer, rq->deadline);
}

struct dns_req *dns_req_start(struct dns_resolvers *res, const char *name, size_t len, int family)
{
	uint8_t q[DNS_HDR_LEN + DNS_NAME_MAX + 4 + 11];
	struct dns_req *rq;

	if (!len || len > DNS_NAME_MAX)
		return NULL;
	rq = calloc(1, sizeof(*rq));
	if (!rq)
		return NULL;
	memcpy(rq->name, name, len);
	if (dns_build_query(q, sizeof(q), 0, rq->name, DNS_T_A, 0) < 0) {
		free(rq); /* not a host name */
		return NULL;
	}
	rq->res = res;
	rq->family = family;
	rq->refs = 2;
	rq->it.fn = dns_req_arrive;
	inbox_push(0, &rq->it);
	return rq;
}

void dns_req_handle(struct dns_resolvers *r, const uint8_t *msg, size_t len, uint16_t id)
{
	struct dns_result res;
	struct dns_req *rq;
	enum dns_status st;

	for (rq = r->dreqs; rq && rq->qid != id; rq = rq->next)
		;
	if (!rq)
		return;
	st = dns_parse_response(msg, len, id, rq->name, rq->qtype, &res);
	switch (st) {
	case DNS_ST_VALID:
		dns_req_finish(rq, &res.addr[0]);
		break;
	case DNS_ST_INVALID:
	case DNS_ST_WRONG_ID:
	case DNS_ST_WRONG_QUESTION:
		break; /* not an answer: the retry comes on time */
	case DNS_ST_NO_ANSWER:
		if (rq->family == 0 && !rq->fell_back) {
			rq->fell_back = true;
			rq->tries = 0;
			dns_req_send(rq);
			break;
		}
		dns_req_finish(rq, NULL);
		break;
	default:
		dns_req_finish(rq, NULL);
		break;
	}
}

uint64_t dns_req_timer(struct dns_resolvers *r, uint64_t now, uint64_t next)
{
	struct dns_req *rq = r->dreqs, *nx;

	for (; rq; rq = nx) {
		nx = rq->next;
		if (now >= rq->deadline) {
			if (rq->tries >= r->retries) {
				dns_req_finish(rq, NULL);
				continue;
			}
			dns_req_send(rq);
		}
		if (rq->deadline < next)
			next = rq->deadline;
	}
	return next;
}

void dns_req_stop(struct dns_resolvers *r)
{
	while (r->dreqs)
		dns_req_finish(r->dreqs, NULL);
}
