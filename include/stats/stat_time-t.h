/* Types of the backend and server timing averages shown by "show stat" (qtime, ctime,
 * rtime, ttime): the state the averaging keeps between two refreshes (stats/stat_time.c).
 */
#ifndef STATS_STAT_TIME_T_H
#define STATS_STAT_TIME_T_H

#include <stdint.h>

/* The four timings, in the order of be_counters.t_sum and t_max. */
enum stat_time_kind {
	STAT_T_QUEUE = 0, /* qtime: time in the queue (%Tw) */
	STAT_T_CONNECT,	  /* ctime: time to connect (%Tc) */
	STAT_T_RESPONSE,  /* rtime: time to the response headers (%Tr), 0 in mode tcp */
	STAT_T_TOTAL,	  /* ttime: the stream's whole time (%Tt) */
	STAT_T_NUM
};

/* Averages of one backend or server, as last refreshed: <cnt> and <sum> are the counter
 * totals (be_counters t_cnt, t_sum) the averages were computed from. Only stat_time.c
 * reads or writes it, under its lock. */
struct stat_tavg {
	uint64_t cnt;
	uint64_t sum[STAT_T_NUM];
	uint32_t avg[STAT_T_NUM]; /* ms */
};

#endif
