// FUZZ_SRCS: src/sample/distcc.c
/* libFuzzer target for the distcc reader behind distcc_body and distcc_param
 * (sample/distcc.h): the input, in an exact-size heap copy so that ASan catches any read
 * past its end, is searched for several tokens and occurrences, with and without their
 * body; a body found must lie inside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sample/distcc.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const toks[] = { "DIST", "ARGC", "ARGV", "DOTI", "NFIL", "XXXX" };
	unsigned char *in = malloc(size ? size : 1);
	const unsigned char *b;
	uint32_t v;
	size_t bl;

	if (!in)
		return 0;
	memcpy(in, data, size);
	for (size_t t = 0; t < sizeof(toks) / sizeof(toks[0]); t++) {
		for (long long occ = -1; occ <= 3; occ++) {
			for (int nb = 0; nb < 2; nb++) {
				if (distcc_find(in, size, toks[t], occ, nb, &v, &b, &bl) ==
					    DISTCC_FOUND &&
				    (b < in || bl > size || (size_t)(b - in) > size - bl))
					abort();
			}
		}
	}
	free(in);
	return 0;
}
