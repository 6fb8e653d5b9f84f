/* Unit tests of the sliding-second event rate (maxconnrate, rate-limit sessions): counting,
 * the previous second's weight, the second after next, and the wait it asks for. */
#include <base/freq_ctr.h>
#include "../test.h"

TEST(freq_ctr_counts_within_a_second)
{
	struct freq_ctr f = { 0 };

	for (int i = 0; i < 10; i++)
		freq_ctr_inc(&f, 5000 + (uint64_t)i);
	CHECK_INT(freq_ctr_rate(&f, 5100), 10);
	CHECK_INT(freq_ctr_wait(&f, 11, 5100), 0);
	CHECK_INT(freq_ctr_wait(&f, 10, 5100), 900); /* full until the next second */
}

TEST(freq_ctr_previous_second_fades)
{
	struct freq_ctr f = { 0 };

	for (int i = 0; i < 100; i++)
		freq_ctr_inc(&f, 7999);
	/* at 8.250 s, 75 % of the window still covers second 7 */
	CHECK_INT(freq_ctr_rate(&f, 8250), 75);
	freq_ctr_inc(&f, 8250);
	CHECK_INT(freq_ctr_rate(&f, 8250), 76);
	CHECK_INT(freq_ctr_rate(&f, 8500), 51);
	/* two seconds later nothing is left */
	CHECK_INT(freq_ctr_rate(&f, 10000), 0);
	CHECK_INT(freq_ctr_rate(&f, 9000), 1);
}

TEST(freq_ctr_wait_until_the_rate_fits)
{
	struct freq_ctr f = { 0 };
	uint32_t w;

	for (int i = 0; i < 100; i++)
		freq_ctr_inc(&f, 1500);
	/* second 2 starts with 100 behind it: a limit of 50 fits once the weight of second
	 * 1 drops under 50, i.e. after 2.500 s */
	w = freq_ctr_wait(&f, 50, 2000);
	CHECK_INT(w, 501);
	CHECK(freq_ctr_rate(&f, 2000 + w) < 50);
	CHECK(freq_ctr_rate(&f, 2000 + w - 1) >= 49);
	CHECK_INT(freq_ctr_wait(&f, 50, 2000 + w), 0);
}

TEST(freq_ctr_late_clock_counts_in_the_newer_second)
{
	struct freq_ctr f = { 0 };

	freq_ctr_inc(&f, 3000);
	freq_ctr_inc(&f, 2999); /* a thread whose clock read lags: not counted backwards */
	CHECK_INT(freq_ctr_rate(&f, 3000), 1);
}
