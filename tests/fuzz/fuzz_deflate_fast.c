// FUZZ_SRCS: src/comp/deflate_fast.c
// FUZZ_FLAGS: -lz
/* libFuzzer target for the fast deflate encoder (comp/deflate_fast.h), which compresses
 * what servers send. The first byte chooses the format and the size of the pieces the
 * rest is given in; each piece is an exact-size heap copy so that ASan catches a read
 * past its end, and each call writes into an exact dfast_bound() heap area; pieces whose
 * first byte is odd are followed by a sync flush. zlib must inflate the result back to
 * the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <comp/deflate_fast.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct dfast d;
	uint8_t *comp, *back;
	size_t clen = 0, step, pos = 0;
	enum dfast_fmt fmt;
	z_stream z = { 0 };
	int wbits;

	if (size < 1 || size > 1 << 20)
		return 0;
	fmt = (enum dfast_fmt)(data[0] % 3);
	step = (size_t)(data[0] >> 2) * 97 + 1;
	data++, size--;
	comp = malloc(dfast_bound(size) + (size / step + 2) * 40 + 64);
	back = malloc(size + 1);
	if (!comp || !back)
		abort();
	dfast_init(&d, fmt);
	do {
		size_t n = step < size - pos ? step : size - pos, b = dfast_bound(n), w;
		uint8_t *piece = malloc(n ? n : 1), *out = malloc(b);

		if (!piece || !out)
			abort();
		memcpy(piece, data + pos, n);
		w = dfast_compress(&d, piece, n, out);
		if (w > b)
			abort();
		memcpy(comp + clen, out, w);
		clen += w;
		if (n && (piece[0] & 1)) { /* a pause of the source: a sync flush */
			uint8_t fl[32];

			w = dfast_flush(&d, fl);
			if (w > sizeof(fl))
				abort();
			memcpy(comp + clen, fl, w);
			clen += w;
		}
		free(piece);
		free(out);
		pos += n;
	} while (pos < size);
	clen += dfast_finish(&d, comp + clen);

	wbits = fmt == DFAST_RAW ? -15 : fmt == DFAST_ZLIB ? 15 : 31;
	if (inflateInit2(&z, wbits) != Z_OK)
		abort();
	z.next_in = comp;
	z.avail_in = (uInt)clen;
	z.next_out = back;
	z.avail_out = (uInt)size + 1;
	if (inflate(&z, Z_FINISH) != Z_STREAM_END || z.total_out != size ||
	    memcmp(back, data, size) != 0)
		abort();
	inflateEnd(&z);
	free(comp);
	free(back);
	return 0;
}
