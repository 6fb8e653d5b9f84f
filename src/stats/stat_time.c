/* Averages of the backend and server timings (qtime, ctime, rtime, ttime of "show stat"):
 * the request path only adds sums and a count to its group's block (stat_time_add); this
 * file turns them into HAProxy's "average over the last 1024 exchanges", at read time and
 * every 250 ms from the rate sampler (stat_rates.c). It owns struct stat_tavg.
 */
#include <pthread.h>
#include <string.h>

#include <backend/server-t.h>
#include <proxy/proxy.h>
#include <stats/counters.h>
#include <stats/stat_time.h>

/* The state of every average is refreshed by the sampler (thread 0) and by the readers
 * (CLI, stats page and Prometheus, any thread): a refresh is a multi-field update off the
 * request path, so a lock is the simplest correct choice. */
static pthread_mutex_t stat_time_lock = PTHREAD_MUTEX_INITIALIZER;

/* The mean of <sum> over <n> samples, rounded up as HAProxy's swrate_avg, in ms. */
static uint32_t stat_time_mean(uint64_t sum, uint64_t n)
{
	uint64_t m = n ? (sum + n - 1) / n : 0;

	return m > UINT32_MAX ? UINT32_MAX : (uint32_t)m;
}

void stat_tavg_update(struct stat_tavg *a, uint64_t cnt, const uint64_t *sum)
{
	uint64_t dcnt;

	if (cnt < a->cnt) /* "clear counters all" */
		memset(a, 0, sizeof(*a));
	dcnt = cnt - a->cnt;
	if (!dcnt)
		return;
	for (int i = 0; i < STAT_T_NUM; i++) {
		uint64_t dsum = sum[i] >= a->sum[i] ? sum[i] - a->sum[i] : 0;
		uint32_t m = stat_time_mean(dsum, dcnt);
		int64_t step;

		if (cnt <= STAT_TIME_SAMPLES) /* HAProxy averages over the samples it has */
			a->avg[i] = stat_time_mean(sum[i], cnt);
		else if (dcnt >= STAT_TIME_SAMPLES)
			a->avg[i] = m;
		else { /* dcnt samples of mean m slide the window by dcnt/1024 */
			step = ((int64_t)m - (int64_t)a->avg[i]) * (int64_t)dcnt /
			       STAT_TIME_SAMPLES;
			a->avg[i] = (uint32_t)((int64_t)a->avg[i] + step);
		}
		a->sum[i] = sum[i];
	}
	a->cnt = cnt;
}

/* The exchanges sampled: those that got a server's response, as its rsp[] counts them
 * (interim 1xx responses included: a few more than sampled when there are some). */
static uint64_t stat_time_count(const struct be_counters *c)
{
	uint64_t n = 0;

	for (int i = 0; i < 6; i++)
		n += c->rsp[i];
	return n;
}

void stats_time_read(struct stat_tavg *a, const struct be_counters *c, uint32_t *avg)
{
	pthread_mutex_lock(&stat_time_lock);
	stat_tavg_update(a, stat_time_count(c), c->t_sum);
	memcpy(avg, a->avg, sizeof(a->avg));
	pthread_mutex_unlock(&stat_time_lock);
}

void stats_time_reset(struct stat_tavg *a)
{
	pthread_mutex_lock(&stat_time_lock);
	memset(a, 0, sizeof(*a));
	pthread_mutex_unlock(&stat_time_lock);
}

void stats_time_merge(struct be_counters *to, const struct be_counters *from)
{
	for (int i = 0; i < 6; i++)
		to->rsp[i] += from->rsp[i];
	for (int i = 0; i < STAT_T_NUM; i++) {
		to->t_sum[i] += from->t_sum[i];
		to->t_max[i] = from->t_max[i] > to->t_max[i] ? from->t_max[i] : to->t_max[i];
	}
}

void stats_time_be_totals(const struct proxy *px, struct be_counters *t)
{
	struct be_counters c;

	memset(t, 0, sizeof(*t));
	for (const struct server *s = px->srv; s; s = s->next) {
		be_counters_sum(s->cnt, &c);
		stats_time_merge(t, &c);
	}
	if (px->dispatch && px->dispatch->cnt) {
		be_counters_sum(px->dispatch->cnt, &c);
		stats_time_merge(t, &c);
	}
}

void stats_time_sample(void)
{
	struct be_counters c;
	uint32_t avg[STAT_T_NUM];

	for (struct proxy *px = proxies; px; px = px->next) {
		if (!(px->cap & PR_CAP_BE) || !px->be_cnt)
			continue;
		for (struct server *s = px->srv; s; s = s->next) {
			be_counters_sum(s->cnt, &c);
			stats_time_read(&s->tavg, &c, avg);
		}
		stats_time_be_totals(px, &c);
		stats_time_read(&px->tavg, &c, avg);
	}
}
