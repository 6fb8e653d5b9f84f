/* Unit tests of ssl/ssl_stats.c: the TLS fields of "show info" (current connections from
 * the per-thread counters, 2.6's session reuse percentage from the rates) and the
 * maxsslconn / maxsslrate hooks of the listeners.
 */
#include <string.h>

#include <base/freq_ctr.h>
#include <conn/listener.h>
#include <proc/global-t.h>
#include <ssl/ssl.h>
#include <ssl/ssl_stats.h>

#include "../test.h"

static void ssl_stats_reset(void)
{
	memset(ssl_thr_stats, 0, sizeof(ssl_thr_stats));
	memset(&ssl_rates, 0, sizeof(ssl_rates));
	ssl_set.maxsslconn = ssl_set.maxsslrate = 0;
	listener_tls_full = NULL;
	listener_tls_wait = NULL;
}

TEST(ssl_stats_info_fields)
{
	struct ssl_info si;
	uint64_t now = 5000;
	int nbt = global.nbthread;

	ssl_stats_reset();
	global.nbthread = 2; /* the threads' counters are summed */
	ssl_thr_stats[0].conns = 3;
	ssl_thr_stats[0].closed = 1;
	ssl_thr_stats[1].conns = 2;
	for (int i = 0; i < 4; i++)
		freq_ctr_inc(&ssl_rates.conn, now);
	freq_ctr_inc(&ssl_rates.fe_key, now);
	ssl_stats_info(&si, now);
	CHECK_INT(si.curr_conns, 4);
	CHECK_INT(si.cum_conns, 5);
	CHECK_INT(si.rate, 4);
	CHECK_INT(si.fe_key_rate, 1);
	CHECK_INT(si.fe_reuse_pct, 75); /* 2.6: 100 - ceil(100 * keys / conns) */
	CHECK_INT(si.cache_lookups, 0);
	/* no TLS connection this second: no reuse shown */
	ssl_stats_info(&si, now + 3000);
	CHECK_INT(si.rate, 0);
	CHECK_INT(si.fe_reuse_pct, 0);
	global.nbthread = nbt;
	ssl_stats_reset();
}

TEST(ssl_stats_limits)
{
	uint64_t now = 7000;

	ssl_stats_reset();
	ssl_stats_limits_changed();
	CHECK(listener_tls_full == NULL && listener_tls_wait == NULL); /* nothing set */
	ssl_set.maxsslconn = 2;
	ssl_set.maxsslrate = 3;
	ssl_stats_limits_changed();
	CHECK(listener_tls_full && listener_tls_wait);
	ssl_thr_stats[0].conns = 1;
	CHECK(!listener_tls_full());
	ssl_thr_stats[0].conns = 2;
	CHECK(listener_tls_full());
	ssl_thr_stats[0].closed = 1;
	CHECK(!listener_tls_full());
	CHECK_INT(listener_tls_wait(now), 0);
	for (int i = 0; i < 3; i++)
		freq_ctr_inc(&ssl_rates.conn, now);
	CHECK(listener_tls_wait(now) > 0); /* 3 per second reached: wait for the next one */
	ssl_stats_reset();
}
