/* TLS counters, one block per thread (written by its owner only, summed when read by the
 * runtime API): handshakes, failures and resumptions on both sides.
 */
#ifndef SSL_SSL_STATS_H
#define SSL_SSL_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <base/compiler.h>
#include <base/freq_ctr-t.h>
#include <base/tinfo.h>

struct ssl_thr_stats {
	uint64_t fe_hs;	     /* front handshakes completed */
	uint64_t fe_hs_fail; /* front handshakes failed or timed out */
	uint64_t fe_reused;  /* front handshakes that resumed a session */
	uint64_t be_hs;	     /* back handshakes completed */
	uint64_t be_hs_fail;
	uint64_t be_reused;
	/* ssl_stats.c: TLS connections (both sides) opened and closed by this thread */
	uint64_t conns;
	uint64_t closed;
} ALIGNED_CL;

extern struct ssl_thr_stats ssl_thr_stats[MAX_THREADS];

/* The sum over every thread (relaxed reads: a consistent total is not needed). */
void ssl_stats_sum(struct ssl_thr_stats *out);

/* ---- ssl_stats.c: the TLS fields of "show info", maxsslconn and maxsslrate ---- */

/* Process-wide rates over a sliding second (atomic, base/freq_ctr.h: a rate is one window
 * for every thread; one CAS per TLS connection or handshake, which costs far more) and
 * their highest values (raised by CAS). */
struct ssl_rates {
	struct freq_ctr conn;	/* connections accepted on TLS binds (SslRate) */
	struct freq_ctr fe_key; /* full front handshakes (SslFrontendKeyRate) */
	struct freq_ctr be_key; /* full back handshakes (SslBackendKeyRate) */
	uint32_t conn_max, fe_key_max, be_key_max;
};

extern struct ssl_rates ssl_rates;

/* The values of the TLS fields of "show info" (2.6's names). */
struct ssl_info {
	uint32_t max_conns, curr_conns;
	uint64_t cum_conns;
	uint32_t rate, rate_limit, rate_max;
	uint32_t fe_key_rate, fe_key_max, fe_reuse_pct;
	uint32_t be_key_rate, be_key_max;
	uint64_t cache_lookups, cache_misses;
};

/* Fills <si> at <now_ms> (any thread). */
void ssl_stats_info(struct ssl_info *si, uint64_t now_ms);

/* Counting hooks of ssl_sock.c (the connection's thread): a TLS connection opened or
 * closed, accepted on a TLS bind, a full (not resumed) handshake on the front or back
 * side. */
void ssl_stats_open(void);
void ssl_stats_close(void);
void ssl_stats_accept(void);
void ssl_stats_key(bool back);

/* After maxsslconn or maxsslrate changed (config, runtime API): arms the listener's
 * hooks (conn/listener.h) once a limit is set. */
void ssl_stats_limits_changed(void);

#endif
