/* Parsing of numbers, times and sizes as the configuration writes them. Pure. */
#ifndef BASE_PARSE_H
#define BASE_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/* Parses a time "<n>[us|ms|s|m|h|d]" (default unit <def_unit_ms> ms per unit, i.e. 1 for
 * ms) into milliseconds (microseconds round up to 1 ms when non-zero). Returns NULL on
 * success, or a pointer to the first offending character; "overflow" results (over
 * INT32_MAX ms) return the input pointer and set *ms to -1.
 */
/* The value of hexadecimal digit <c> (either case), or -1. */
static inline int hex_digit_val(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The value of base64 digit <c> in the standard alphabet (<url> false: '+', '/') or the
 * URL-safe one (<url> true: '-', '_'), or -1. */
static inline int b64_digit_val(int c, bool url)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == (url ? '-' : '+'))
		return 62;
	if (c == (url ? '_' : '/'))
		return 63;
	return -1;
}

const char *parse_time_ms(const char *text, uint32_t def_unit_ms, int *ms);

/* Parses a size "<n>[k|m|g]" (case-insensitive, powers of 1024). Returns NULL on success
 * or the first offending character; overflow of uint64 is an error.
 */
const char *parse_size(const char *text, uint64_t *out);

/* Parses a decimal integer in [min, max]; returns 0 or -1. */
int parse_long(const char *text, long min, long max, long *out);

#endif
