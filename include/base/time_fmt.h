/* The 7-character duration format of HAProxy's "show profiling" and "show tasks"
 * ("545.5us", "9.089s ", "   -   "). Pure.
 */
#ifndef BASE_TIME_FMT_H
#define BASE_TIME_FMT_H

#include <stdint.h>

#define TIME_FMT_LEN 7 /* characters written, without the NUL */

/* Writes <ns> nanoseconds into out[0..8) as exactly 7 characters and a NUL: the value
 * climbs the ladder ns, us, ms, s, m, h, d, yr while it reaches the next step, then prints
 * as "%1.3f" below 10, "%2.2f" below 100, else "%3.1f", followed by the 2-character unit
 * ("s ", "m ", "h ", "d " have a trailing space). 0 is "   -   ", 1000 years or more
 * "  inf  ". A value that would round up to the next width climbs one more step (999.96ns
 * prints as 1.000us). Returns <out>.
 */
char *time_fmt_short(char *out, uint64_t ns);

#endif
