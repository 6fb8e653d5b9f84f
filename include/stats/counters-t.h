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
	uint64_t cum_req;         /* HTTP requests: valid ones, and invalid, incomplete or timed
				   * out ones (as failed_req), empty first connections included */
	uint64_t cum_tcp;         /* mode tcp streams (show info's CumReq counts them with the
				   * HTTP requests, as HAProxy) */
	uint64_t bytes_in;        /* bytes received from clients */
	uint64_t bytes_out;       /* bytes sent to clients */
	uint64_t denied_req;      /* requests denied by http-request deny (any proxy's rules) */
	uint64_t denied_resp;     /* responses denied by http-response deny (any proxy's) */
	uint64_t denied_conn;     /* connections refused by tcp-request connection rules */
	uint64_t denied_sess;     /* sessions refused by tcp-request session rules */
	uint64_t failed_pp;       /* connections closed for their PROXY header (no session) */
	uint64_t failed_req;      /* invalid, incomplete or timed out requests (400, 408...) */
	uint64_t intercepted;     /* requests answered by the proxy (return, monitor-uri) */
	uint64_t failed_rewrites; /* header rewrites that found no room (wrew) */
	uint64_t internal_errors; /* exchanges failed by the proxy itself (eint) */
	uint64_t cache_lookups;   /* requests its cache-use rules looked up (cache/) */
	uint64_t cache_hits;      /* ... and answered from the cache */
	uint64_t rsp[6];          /* final statuses sent, by class: [0] none (the exchange
				   * was aborted) or other, [1] 1xx ... [5] 5xx */
	uint64_t comp_in;         /* response bytes into the compressor (comp/comp_flt.c) */
	uint64_t comp_out;        /* ... and the compressed bytes that came out */
	uint64_t comp_byp;        /* response bytes that bypassed it (level 0, identity) */
	uint64_t comp_rsp;        /* responses compressed */
} ALIGNED_CL;

/* Backend side of a proxy (backend, listen), and servers. Some fields are kept on one
 * kind only; the readers derive the others (a backend's connect/reuse/lbtot sum its
 * servers', a server's sessions are its connect + reuse, its requests its responses). */
struct be_counters {
	uint64_t cum_sess;        /* backend: streams that chose it (requests) */
	uint64_t cum_lbconn;      /* server: picks by the LB algorithm */
	uint64_t connect;         /* server: new connections attempted */
	uint64_t reuse;           /* server: requests sent on an idle connection */
	uint64_t bytes_in;        /* bytes received from the clients of its streams */
	uint64_t bytes_out;       /* bytes sent to the clients of its streams */
	uint64_t failed_conns;    /* requests that got no connection: retries exhausted (both),
				   * queue timeout or no usable server (backend) */
	uint64_t failed_resp;     /* invalid, empty or timed out responses, server aborts */
	uint64_t retries;         /* connection retries on the same server */
	uint64_t redispatches;    /* retries moved to another server (server: moved away) */
	uint64_t denied_req;      /* backend: requests denied by its own http-request rules */
	uint64_t denied_resp;     /* responses denied by http-response deny */
	uint64_t failed_rewrites; /* header rewrites that found no room (wrew) */
	uint64_t internal_errors; /* exchanges failed by the proxy itself (eint) */
	uint64_t cli_aborts;      /* exchanges the client aborted once the server had it */
	uint64_t srv_aborts;      /* responses the server aborted after their headers */
	uint64_t cache_lookups;   /* backend: requests its cache-use rules looked up */
	uint64_t cache_hits;      /* ... and answered from the cache */
	uint64_t rsp[6];          /* backend: final statuses sent to the client; server:
				   * statuses it answered; by class as fe_counters.rsp */
	uint64_t queued_total;    /* streams that waited in a queue */
	uint64_t comp_in;         /* backend: as fe_counters (comp/comp_flt.c) */
	uint64_t comp_out;
	uint64_t comp_byp;
	uint64_t comp_rsp;
	uint64_t resent;          /* server: requests sent again on a new connection after the
				   * idle one they took had been closed (stream_resend): stot
				   * counts such a stream once */
	/* timings of the exchanges that got a server's response, in the server's blocks
	 * (counted by its rsp[]), ms. Readers sum t_sum but take the largest t_max of the
	 * groups (be_counters_sum); stats/stat_time.c averages them. */
	uint64_t t_sum[4];        /* sums of their timings, by enum stat_time_kind */
	uint64_t t_max[4];        /* the largest of each (relaxed raise, stat_time_add) */
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
