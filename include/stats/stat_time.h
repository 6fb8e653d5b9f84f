/* Backend and server timing averages for "show stat" (qtime, ctime, rtime, ttime): the
 * request path records with stat_time_add (stats/counters.h); readers call these.
 */
#ifndef STATS_STAT_TIME_H
#define STATS_STAT_TIME_H

#include <stdint.h>
#include <stats/counters-t.h>
#include <stats/stat_time-t.h>

struct proxy;

/* HAProxy's window: the last 1024 exchanges. */
#define STAT_TIME_SAMPLES 1024

/* Pure: moves the averages <a> to the totals <cnt> samples, <sum>[STAT_T_NUM] (ms): the
 * exact mean while there are at most 1024 samples, then the new samples' mean weighted
 * by how much of the 1024-sample window they fill. Totals lower than <a>'s (counters
 * cleared) start again from zero. */
void stat_tavg_update(struct stat_tavg *a, uint64_t cnt, const uint64_t *sum);

/* Refreshes <a> from the summed counters <c> and copies its averages to avg[STAT_T_NUM].
 * Any thread; takes the averages' lock. */
void stats_time_read(struct stat_tavg *a, const struct be_counters *c, uint32_t *avg);
/* Zeroes <a> (clear counters all). Any thread. */
void stats_time_reset(struct stat_tavg *a);
/* Adds <from>'s timing totals to <to>: responses (the samples) and sums added, maxima
 * the largest. */
void stats_time_merge(struct be_counters *to, const struct be_counters *from);
/* The timing totals of backend <px> in <t> (rsp, t_sum, t_max; the rest 0): its
 * servers'. */
void stats_time_be_totals(const struct proxy *px, struct be_counters *t);
/* Refreshes every backend's and server's averages (the 250 ms sampler, thread 0). */
void stats_time_sample(void);

#endif
