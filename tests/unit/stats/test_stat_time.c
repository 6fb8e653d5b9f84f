/* Unit tests of the timing averages (stats/stat_time.c): the exact mean while there are
 * at most 1024 samples, then a window that slides by the share of new samples.
 */
#include <stats/stat_time.h>

#include "../test.h"

TEST(stat_tavg_exact_mean_while_few_samples)
{
	struct stat_tavg a = { 0 };
	uint64_t sum[STAT_T_NUM] = { 0, 3, 600, 1000 };

	stat_tavg_update(&a, 3, sum);
	CHECK_INT(a.avg[STAT_T_QUEUE], 0);
	CHECK_INT(a.avg[STAT_T_CONNECT], 1);
	CHECK_INT(a.avg[STAT_T_RESPONSE], 200);
	CHECK_INT(a.avg[STAT_T_TOTAL], 334); /* rounded up, as HAProxy */
	stat_tavg_update(&a, 3, sum);	     /* nothing new: unchanged */
	CHECK_INT(a.avg[STAT_T_RESPONSE], 200);
}

TEST(stat_tavg_window_slides)
{
	struct stat_tavg a = { 0 };
	uint64_t sum[STAT_T_NUM] = { 0, 0, 1024 * 100, 1024 * 100 };

	stat_tavg_update(&a, 1024, sum);
	CHECK_INT(a.avg[STAT_T_RESPONSE], 100);
	/* 512 more samples of 300 ms: half the window moves from 100 to 300 */
	sum[STAT_T_RESPONSE] += 512 * 300;
	stat_tavg_update(&a, 1536, sum);
	CHECK_INT(a.avg[STAT_T_RESPONSE], 200);
	/* a whole window of 10 ms replaces it */
	sum[STAT_T_RESPONSE] += 2048 * 10;
	stat_tavg_update(&a, 3584, sum);
	CHECK_INT(a.avg[STAT_T_RESPONSE], 10);
	/* counters cleared: start again */
	sum[STAT_T_RESPONSE] = 40;
	stat_tavg_update(&a, 2, sum);
	CHECK_INT(a.avg[STAT_T_RESPONSE], 20);
}
