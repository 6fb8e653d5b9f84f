// FUZZ_SRCS: src/http/h1_chunk.c src/http/h1_dechunk.c
/* libFuzzer target for the de-chunker (http/h1_dechunk.h). The first input byte chooses
 * how the rest arrives (pieces of 1..16 bytes) and how much of each data run the reader
 * takes; the rest, in an exact-size heap copy so that ASan catches a read past its end, is
 * de-chunked that way and whole. Both must agree with each other on the data, the bytes
 * consumed and the verdict, and with the scanner run over the whole input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <http/h1.h>
#include <http/h1_dechunk.h>

#define MAXL 256

/* Returns the bytes consumed, -1 invalid, -2 incomplete; the data goes to out. */
static long run(const char *in, size_t len, size_t step, size_t take, char *out, size_t *outlen)
{
	struct h1_chunk c = { 0 };
	size_t avail = step < len ? step : len, pos = 0;

	*outlen = 0;
	for (;;) {
		size_t d;
		int done;
		ssize_t r = h1_dechunk_next(&c, in + pos, avail - pos, MAXL, &d, &done);

		if (r < 0)
			return -1;
		if ((size_t)r > avail - pos || d > avail - pos - (size_t)r)
			abort();
		pos += (size_t)r;
		if (done)
			return (long)pos;
		if (d) {
			size_t k = take && take < d ? take : d;

			memcpy(out + *outlen, in + pos, k);
			*outlen += k;
			h1_dechunk_take(&c, in + pos, k);
			pos += k;
			continue;
		}
		if (avail == len)
			return -2;
		avail = avail + step < len ? avail + step : len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct h1_chunk c = { 0 };
	size_t len, l1, l2;
	char *in, *o1, *o2;
	long r1, r2;
	ssize_t sr;
	int done = 0;

	if (!size)
		return 0;
	len = size - 1;
	in = malloc(len ? len : 1);
	o1 = malloc(len ? len : 1);
	o2 = malloc(len ? len : 1);
	if (!in || !o1 || !o2)
		goto out;
	memcpy(in, data + 1, len);
	r1 = run(in, len, 1 + (data[0] & 15), data[0] >> 4, o1, &l1);
	r2 = run(in, len, len ? len : 1, 0, o2, &l2);
	if (r1 != r2 || l1 != l2 || memcmp(o1, o2, l1))
		abort();
	sr = h1_chunk_scan(&c, in, len, MAXL, &done);
	if ((sr < 0) != (r1 == -1) || (r1 >= 0 && (!done || sr != r1)) || (r1 == -2 && done))
		abort();
out:
	free(in);
	free(o1);
	free(o2);
	return 0;
}
