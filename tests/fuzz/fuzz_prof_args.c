// FUZZ_SRCS: src/stats/prof_args.c src/base/time_fmt.c
/* libFuzzer target for the "show profiling" argument parser (words as the CLI splits
 * them) and the 7-character time format (every 8 input bytes as a nanosecond count: the
 * output must always be exactly 7 characters). Crashes, sanitizer reports and a wrong
 * width are the findings.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <base/time_fmt.h>
#include <stats/prof_args.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char buf[512], *args[64], out[TIME_FMT_LEN + 1];
	struct sp_opts o;
	size_t len = size < sizeof(buf) - 1 ? size : sizeof(buf) - 1;
	int n = 0;

	memcpy(buf, data, len);
	buf[len] = '\0';
	for (char *p = buf; *p && n < 64;) {
		while (*p == ' ')
			*p++ = '\0';
		if (!*p)
			break;
		args[n++] = p;
		while (*p && *p != ' ')
			p++;
	}
	sp_parse_args(args, n, &o);
	for (size_t i = 0; i + 8 <= size; i += 8) {
		uint64_t ns;

		memcpy(&ns, data + i, sizeof(ns));
		time_fmt_short(out, ns);
		if (strlen(out) != TIME_FMT_LEN)
			abort();
	}
	return 0;
}
