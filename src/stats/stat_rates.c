/* Maxima of the request and session rates shown by "show stat" (req_rate_max of
 * frontends, rate_max of backends and servers). The rates themselves are the freq_ctrs the
 * request path already keeps; their maxima are sampled off the request path, by a timer
 * on thread 0 every STAT_SAMPLE_MS, so that recording them costs no request anything. A
 * burst shorter than the sampling period may peak a little higher than what is seen.
 * The same timer refreshes the timing averages (stat_time.c).
 */
#include <base/atomic.h>
#include <base/freq_ctr.h>
#include <backend/server-t.h>
#include <event/loop.h>
#include <proxy/proxy.h>
#include <stats/stat_time.h>
#include <stats/stats.h>

#define STAT_SAMPLE_MS 250

static struct timer stat_sample_timer;

static void stat_max_update(uint32_t *max, uint32_t v)
{
	if (v > HA_ATOMIC_LOAD_RLX(max))
		HA_ATOMIC_STORE_RLX(max, v); /* only this timer raises it; clears may race */
}

void stats_rates_sample(uint64_t now)
{
	for (struct proxy *px = proxies; px; px = px->next) {
		if (px->cap & PR_CAP_FE)
			stat_max_update(&px->req_rate_max, freq_ctr_rate(&px->req_rate, now));
		if (!(px->cap & PR_CAP_BE))
			continue;
		stat_max_update(&px->be_sess_rate_max, freq_ctr_rate(&px->be_sess_rate, now));
		for (struct server *s = px->srv; s; s = s->next)
			stat_max_update(&s->sess_rate_max, freq_ctr_rate(&s->sess_rate, now));
	}
}

static void stat_sample_cb(struct timer *t)
{
	stats_rates_sample(now_ms());
	stats_time_sample(); /* the timing averages' window slides as time goes */
	timer_set(t, tick_add(STAT_SAMPLE_MS));
}

int stats_rates_start(void)
{
	stat_sample_timer.cb = stat_sample_cb;
	timer_set(&stat_sample_timer, tick_add(STAT_SAMPLE_MS));
	return 0;
}

void stats_rates_stop(void)
{
	timer_del(&stat_sample_timer);
}
