/* The TLS fields of "show info" (CurrSslConns ... SslCacheMisses, 2.6's names), from the
 * per-thread counters of ssl_stats.h and the process-wide rates; the "global" keywords
 * maxsslconn and maxsslrate, enforced at accept on TLS binds through the listener's hooks.
 * Not here: the counting of handshakes themselves (ssl_sock.c calls the hooks below).
 */
#include <limits.h>
#include <string.h>

#include <base/atomic.h>
#include <base/freq_ctr.h>
#include <cfg/cfg.h>
#include <conn/listener.h>
#include <event/loop.h>
#include <proc/global-t.h>
#include <ssl/ssl.h>
#include <ssl/ssl_stats.h>

struct ssl_rates ssl_rates;

/* Counts an event in <f> at <now> and raises <max> to the new rate if it is higher. */
static void ssl_rate_count(struct freq_ctr *f, uint32_t *max, uint64_t now)
{
	uint32_t r, m;

	freq_ctr_inc(f, now);
	r = freq_ctr_rate(f, now);
	m = HA_ATOMIC_LOAD_RLX(max);
	while (r > m && !HA_ATOMIC_CAS(max, &m, r))
		;
}

void ssl_stats_open(void)
{
	ssl_thr_stats[tid].conns++;
}

void ssl_stats_close(void)
{
	ssl_thr_stats[tid].closed++;
}

void ssl_stats_accept(void)
{
	ssl_rate_count(&ssl_rates.conn, &ssl_rates.conn_max, now_ms());
}

void ssl_stats_key(bool back)
{
	if (back)
		ssl_rate_count(&ssl_rates.be_key, &ssl_rates.be_key_max, now_ms());
	else
		ssl_rate_count(&ssl_rates.fe_key, &ssl_rates.fe_key_max, now_ms());
}

/* TLS connections open now (both sides): opened minus closed over every thread. */
static uint32_t ssl_curr_conns(uint64_t *cum)
{
	uint64_t open = 0, closed = 0;
	int n = global.nbthread > 0 && global.nbthread <= MAX_THREADS ? global.nbthread
								      : MAX_THREADS;

	for (int t = 0; t < n; t++) {
		open += HA_ATOMIC_LOAD_RLX(&ssl_thr_stats[t].conns);
		closed += HA_ATOMIC_LOAD_RLX(&ssl_thr_stats[t].closed);
	}
	if (cum)
		*cum = open;
	return open > closed ? (uint32_t)(open - closed) : 0;
}

void ssl_stats_info(struct ssl_info *si, uint64_t now)
{
	memset(si, 0, sizeof(*si));
	si->max_conns = (uint32_t)ssl_set.maxsslconn;
	si->curr_conns = ssl_curr_conns(&si->cum_conns);
	si->rate = freq_ctr_rate(&ssl_rates.conn, now);
	si->rate_limit = (uint32_t)HA_ATOMIC_LOAD_RLX(&ssl_set.maxsslrate);
	si->rate_max = HA_ATOMIC_LOAD_RLX(&ssl_rates.conn_max);
	si->fe_key_rate = freq_ctr_rate(&ssl_rates.fe_key, now);
	si->fe_key_max = HA_ATOMIC_LOAD_RLX(&ssl_rates.fe_key_max);
	si->be_key_rate = freq_ctr_rate(&ssl_rates.be_key, now);
	si->be_key_max = HA_ATOMIC_LOAD_RLX(&ssl_rates.be_key_max);
	/* as 2.6: the share of this second's TLS connections that did not need a key */
	if (si->fe_key_rate < si->rate)
		si->fe_reuse_pct = 100 - (100 * si->fe_key_rate + (si->rate - 1)) / si->rate;
	/* SslCacheLookups/SslCacheMisses stay 0: sessions resume through OpenSSL's own cache
	 * and tickets, which HAProxy's shared-cache counters do not see either */
}

/* ---- maxsslconn, maxsslrate ---- */

static bool ssl_limit_full(void)
{
	int max = ssl_set.maxsslconn;

	return max > 0 && ssl_curr_conns(NULL) >= (uint32_t)max;
}

static uint32_t ssl_limit_wait(uint64_t now)
{
	int max = HA_ATOMIC_LOAD_RLX(&ssl_set.maxsslrate);

	return max > 0 ? freq_ctr_wait(&ssl_rates.conn, (uint32_t)max, now) : 0;
}

void ssl_stats_limits_changed(void)
{
	if (ssl_set.maxsslconn > 0)
		listener_tls_full = ssl_limit_full;
	if (HA_ATOMIC_LOAD_RLX(&ssl_set.maxsslrate) > 0)
		listener_tls_wait = ssl_limit_wait;
}

static int ssl_g_max(struct cfg_ctx *ctx)
{
	long v;

	if (cfg_need_args(ctx, 1) < 0 || cfg_parse_int_arg(ctx, ctx->args[1], 0, INT_MAX, &v) < 0)
		return -1;
	if (!strcmp(ctx->args[0], "maxsslconn"))
		ssl_set.maxsslconn = (int)v;
	else
		ssl_set.maxsslrate = (int)v;
	ssl_stats_limits_changed();
	return 0;
}

static const struct cfg_kw ssl_stats_kws[] = {
	{ "maxsslconn", CFG_SEC_GLOBAL, ssl_g_max },
	{ "maxsslrate", CFG_SEC_GLOBAL, ssl_g_max },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(ssl_stats_kws);
