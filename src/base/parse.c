/* Numbers, times and sizes as the configuration writes them ("10s", "16k", "-1").
 * Pure: no allocation, no globals, no I/O. Diagnostics are the caller's business; these
 * functions only say where the text stopped making sense.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <base/parse.h>

/* Reads decimal digits at <p> into *val. Returns the first non-digit, or NULL when there is
 * no digit at all or the value overflows uint64 (*ovf set in that case).
 */
static const char *parse_digits(const char *p, uint64_t *val, int *ovf)
{
	uint64_t v = 0;
	const char *start = p;

	*ovf = 0;
	while (*p >= '0' && *p <= '9') {
		unsigned int d = (unsigned int)(*p - '0');

		if (v > (UINT64_MAX - d) / 10) {
			*ovf = 1;
			return NULL;
		}
		v = v * 10 + d;
		p++;
	}
	if (p == start)
		return NULL;
	*val = v;
	return p;
}

/* See base/parse.h. */
const char *parse_time_ms(const char *text, uint32_t def_unit_ms, int *ms)
{
	uint64_t v, mult = def_unit_ms, res;
	const char *p;
	int ovf, is_us = 0;

	p = parse_digits(text, &v, &ovf);
	if (!p) {
		if (ovf)
			*ms = -1;
		return text;
	}
	if (p[0] == 'u' && p[1] == 's') {
		is_us = 1;
		p += 2;
	} else if (p[0] == 'm' && p[1] == 's') {
		mult = 1;
		p += 2;
	} else if (p[0] == 's') {
		mult = 1000;
		p++;
	} else if (p[0] == 'm') {
		mult = 60 * 1000;
		p++;
	} else if (p[0] == 'h') {
		mult = 3600 * 1000;
		p++;
	} else if (p[0] == 'd') {
		mult = 86400 * 1000;
		p++;
	}
	if (*p)
		return p;

	if (is_us) {
		res = v / 1000 + (v % 1000 != 0);
	} else {
		if (mult && v > INT32_MAX / mult) {
			*ms = -1;
			return text;
		}
		res = v * mult;
	}
	if (res > INT32_MAX) {
		*ms = -1;
		return text;
	}
	*ms = (int)res;
	return NULL;
}

/* See base/parse.h. */
const char *parse_size(const char *text, uint64_t *out)
{
	uint64_t v;
	unsigned int shift = 0;
	const char *p;
	int ovf;

	p = parse_digits(text, &v, &ovf);
	if (!p)
		return text;
	switch (tolower((unsigned char)*p)) {
	case 'k':
		shift = 10;
		p++;
		break;
	case 'm':
		shift = 20;
		p++;
		break;
	case 'g':
		shift = 30;
		p++;
		break;
	}
	if (*p)
		return p;
	if (shift && v > (UINT64_MAX >> shift))
		return text;
	*out = v << shift;
	return NULL;
}

/* See base/parse.h. Accepts an optional sign, decimal digits only, nothing after. */
int parse_long(const char *text, long min, long max, long *out)
{
	char *end;
	long v;

	if (!text || !*text || isspace((unsigned char)*text))
		return -1;
	if (!isdigit((unsigned char)text[0]) &&
	    !((text[0] == '-' || text[0] == '+') && isdigit((unsigned char)text[1])))
		return -1;
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}
