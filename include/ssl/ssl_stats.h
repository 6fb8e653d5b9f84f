/* TLS counters, one block per thread (written by its owner only, summed when read by the
 * runtime API): handshakes, failures and resumptions on both sides.
 */
#ifndef SSL_SSL_STATS_H
#define SSL_SSL_STATS_H

#include <stdint.h>
#include <base/compiler.h>
#include <base/tinfo.h>

struct ssl_thr_stats {
	uint64_t fe_hs;	     /* front handshakes completed */
	uint64_t fe_hs_fail; /* front handshakes failed or timed out */
	uint64_t fe_reused;  /* front handshakes that resumed a session */
	uint64_t be_hs;	     /* back handshakes completed */
	uint64_t be_hs_fail;
	uint64_t be_reused;
} ALIGNED_CL;

extern struct ssl_thr_stats ssl_thr_stats[MAX_THREADS];

/* The sum over every thread (relaxed reads: a consistent total is not needed). */
void ssl_stats_sum(struct ssl_thr_stats *out);

#endif
