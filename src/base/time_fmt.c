/* The 7-character duration format of the profiling outputs (time_fmt_short). Pure: no
 * state, no allocation.
 */
#include <stdio.h>
#include <string.h>
#include <base/time_fmt.h>

static const char *const tf_units[] = { "ns", "us", "ms", "s ", "m ", "h ", "d ", "yr" };
/* tf_steps[i]: how many of unit i make one of unit i + 1 */
static const double tf_steps[] = { 1000, 1000, 1000, 60, 60, 24, 365 };
#define TF_LAST 7 /* index of "yr" */

char *time_fmt_short(char *out, uint64_t ns)
{
	double v = (double)ns;
	int u = 0;

	if (!ns) {
		memcpy(out, "   -   ", TIME_FMT_LEN + 1);
		return out;
	}
	while (u < TF_LAST && v >= tf_steps[u])
		v /= tf_steps[u++];
	/* "%3.1f" of 999.95 or more would take 4 digits: one more step */
	if (v >= 999.95 && u < TF_LAST && tf_steps[u] == 1000)
		v /= tf_steps[u++];
	if (u == TF_LAST && v >= 999.95) {
		memcpy(out, "  inf  ", TIME_FMT_LEN + 1);
		return out;
	}
	/* the thresholds are where each format's rounding adds a digit */
	if (v < 9.9995)
		snprintf(out, TIME_FMT_LEN + 1, "%1.3f%s", v, tf_units[u]);
	else if (v < 99.995)
		snprintf(out, TIME_FMT_LEN + 1, "%2.2f%s", v, tf_units[u]);
	else
		snprintf(out, TIME_FMT_LEN + 1, "%3.1f%s", v, tf_units[u]);
	return out;
}
