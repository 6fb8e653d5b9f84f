/* Traffic counters. Each proxy, server and listener has one block per thread group
 * (cache-line aligned; written with relaxed atomics by the threads of that group only);
 * readers sum the blocks. Current values used for limits (connections in use) are
 * process-wide atomics in their owners instead.
 */
#ifndef STATS_COUNTERS_T_H
#define STATS_COUNTERS_T_H

#include <stdint.h>
#include <base/compiler.h>

/* Frontend side of a proxy (frontend, listen). */
struct fe_counters {
	uint64_t cum_conn;        /* connections accepted */
	uint64_t cum_req;         /* HTTP requests received (complete headers) */
	uint64_t bytes_in;        /* bytes received from clients */
	uint64_t bytes_out;       /* bytes sent to clients */
	uint64_t denied_req;      /* requests denied by http-request deny */
	uint64_t failed_req;      /* invalid requests (parsing errors, 408) */
	uint64_t intercepted;     /* requests answered by the proxy (return, monitor-uri) */
	uint64_t rsp[6];          /* responses sent, by class: [0] other, [1] 1xx ... [5] 5xx */
} ALIGNED_CL;

/* Backend side of a proxy (backend, listen), and servers. */
struct be_counters {
	uint64_t cum_sess;        /* streams given to this backend / server */
	uint64_t cum_lbconn;      /* streams given by the LB algorithm (servers) */
	uint64_t bytes_in;        /* request bytes sent to servers */
	uint64_t bytes_out;       /* response bytes received from servers */
	uint64_t failed_conns;    /* connection attempts that failed */
	uint64_t failed_resp;     /* invalid or aborted responses */
	uint64_t retries;         /* connection retries */
	uint64_t redispatches;    /* retries on another server */
	uint64_t denied_resp;     /* responses denied by http-response deny */
	uint64_t rsp[6];          /* responses received, by class as fe_counters.rsp */
	uint64_t queued_total;    /* streams that waited in a queue */
} ALIGNED_CL;

/* Listeners. */
struct li_counters {
	uint64_t cum_conn;        /* connections accepted on this listener */
} ALIGNED_CL;

/* Per-thread activity, written only by its thread (plain stores), read by others. */
struct thread_activity {
	uint64_t loops;           /* event loop turns */
	uint64_t accepted;        /* connections this thread accepted from a listener */
	uint64_t accq_pushed;     /* ... and handed to another thread */
	uint64_t conns_served;    /* connections this thread served (owned) */
	uint64_t streams;         /* streams (requests) this thread processed */
	uint64_t inbox_items;     /* items received from other threads */
	uint64_t wakeups;         /* eventfd wake-ups received */
} ALIGNED_CL;

#endif
