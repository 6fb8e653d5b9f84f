/* Unit tests of the 7-character duration format (base/time_fmt). */
#include <stdint.h>
#include <base/time_fmt.h>
#include "../test.h"

static void tf_check(const char *file, int line, uint64_t ns, const char *want)
{
	char out[TIME_FMT_LEN + 1];

	time_fmt_short(out, ns);
	if (strcmp(out, want) != 0)
		test_fail(file, line, "%llu ns: got \"%s\", want \"%s\"", (unsigned long long)ns,
			  out, want);
	if (strlen(out) != TIME_FMT_LEN)
		test_fail(file, line, "%llu ns: \"%s\" is not 7 characters", (unsigned long long)ns,
			  out);
}

#define TF(ns, want) tf_check(__FILE__, __LINE__, (ns), (want))

#define US 1000ULL
#define MS (1000 * US)
#define SEC (1000 * MS)
#define MIN (60 * SEC)
#define HOUR (60 * MIN)
#define DAY (24 * HOUR)
#define YEAR (365 * DAY)

TEST(time_fmt_zero_and_units)
{
	TF(0, "   -   ");
	TF(1, "1.000ns");
	TF(7, "7.000ns");
	TF(45, "45.00ns");
	TF(512, "512.0ns");
	TF(1592, "1.592us");
	TF(2477, "2.477us");
	TF(545500, "545.5us");
	TF(1870 * US, "1.870ms");
	TF(9089 * MS, "9.089s ");
	TF(12 * MIN + 26400 * MS, "12.44m ");
	TF(6 * HOUR + 18 * MIN + 54 * SEC, "6.315h ");
	TF(3 * DAY, "3.000d ");
	TF(2 * YEAR, "2.000yr");
	TF(500 * YEAR, "500.0yr");
}

TEST(time_fmt_steps)
{
	TF(999, "999.0ns");
	TF(1000, "1.000us");
	TF(59 * SEC, "59.00s ");
	TF(60 * SEC, "1.000m ");
	TF(59 * MIN, "59.00m ");
	TF(60 * MIN, "1.000h ");
	TF(23 * HOUR, "23.00h ");
	TF(24 * HOUR, "1.000d ");
	TF(364 * DAY, "364.0d ");
	TF(365 * DAY, "1.000yr");
}

TEST(time_fmt_rounding_edges)
{
	TF(9999, "9.999us");
	TF(99994, "99.99us");
	TF(99995, "100.0us");	/* "%2.2f" would print 100.00 */
	TF(9999500, "10.00ms"); /* "%1.3f" would print 10.000 */
	TF(999949, "999.9us");
	TF(999950, "1.000ms"); /* "%3.1f" would print 1000.0 */
	TF(999999999, "1.000s ");
	/* 64-bit nanoseconds end at 584 years: "  inf  " (1000 years) is never reached */
	TF(UINT64_MAX, "584.9yr");
}
