/* Unit tests of the fast deflate encoder (src/comp/deflate_fast.c): zlib inflates what it
 * writes back to the input, byte-exact, in the three formats, for empty, tiny, repetitive,
 * random and text inputs given whole or in pieces of many sizes; the writes stay within
 * dfast_bound(); repetitive input compresses.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <comp/deflate_fast.h>
#include "../test.h"

#define MAXIN (300 * 1024)

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

/* Compresses in[0..len) in pieces of at most <step> bytes (0: whole) into out; returns
 * the size, or -1 when a write passed its bound (a canary after it changed). */
static long compress_all(enum dfast_fmt fmt, const uint8_t *in, size_t len, size_t step,
			 uint8_t *out, size_t outsz)
{
	static struct dfast d;
	size_t o = 0, pos = 0;

	dfast_init(&d, fmt);
	do {
		size_t n = step && step < len - pos ? step : len - pos, b = dfast_bound(n);

		if (o + b + 64 > outsz)
			return -1;
		size_t w;

		memset(out + o, 0xa5, b + 64);
		w = dfast_compress(&d, in + pos, n, out + o);
		for (size_t k = b; k < b + 64; k++)
			if (out[o + k] != 0xa5)
				return -1; /* written past the bound */
		if (w > b)
			return -1;
		o += w;
		pos += n;
		if (rnd() % 4 == 0) /* a pause of the source: everything so far goes out */
			o += dfast_flush(&d, out + o);
		if (step)
			step = 1 + rnd() % (2 * step); /* vary the pieces */
	} while (pos < len);
	if (o + 32 > outsz)
		return -1;
	o += dfast_finish(&d, out + o);
	return (long)o;
}

/* Inflates in[0..len) in format <fmt> into out; returns the size or -1. */
static long inflate_all(enum dfast_fmt fmt, const uint8_t *in, size_t len, uint8_t *out,
			size_t outsz)
{
	z_stream z = { 0 };
	int wbits = fmt == DFAST_RAW ? -15 : fmt == DFAST_ZLIB ? 15 : 15 + 16;
	long ret;

	if (inflateInit2(&z, wbits) != Z_OK)
		return -1;
	z.next_in = (uint8_t *)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)outsz;
	ret = inflate(&z, Z_FINISH) == Z_STREAM_END && z.avail_in == 0 ? (long)z.total_out : -1;
	inflateEnd(&z);
	return ret;
}

static void roundtrip(const uint8_t *in, size_t len, size_t step, long *csize)
{
	static uint8_t comp[MAXIN * 2], back[MAXIN + 16];

	for (int fmt = DFAST_RAW; fmt <= DFAST_GZIP; fmt++) {
		long c = compress_all((enum dfast_fmt)fmt, in, len, step, comp, sizeof(comp)), b;

		CHECK(c > 0);
		if (c <= 0)
			return;
		b = inflate_all((enum dfast_fmt)fmt, comp, (size_t)c, back, sizeof(back));
		CHECK_INT(b, (long)len);
		if (b == (long)len)
			CHECK(memcmp(back, in, len) == 0);
		if (fmt == DFAST_RAW && csize)
			*csize = c;
	}
}

TEST(deflate_fast_roundtrip_small)
{
	static const char *const samples[] = { "",
					       "a",
					       "ab",
					       "abc",
					       "abcd",
					       "abcde",
					       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
					       "hello hello hello hello" };

	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
		roundtrip((const uint8_t *)samples[i], strlen(samples[i]), 0, NULL);
}

TEST(deflate_fast_roundtrip_kinds_and_pieces)
{
	static uint8_t in[MAXIN];
	static const size_t steps[] = { 0, 1, 7, 100, 4096, 16384 };
	long csize = 0;

	/* text-like: words from a small vocabulary */
	for (size_t i = 0; i < MAXIN; i++)
		in[i] = (uint8_t)("<div class=\"item\">lorem ipsum dolor sit amet</div>\n"[rnd() %
											   53]);
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++)
		roundtrip(in, steps[s] == 1 ? 5000 : MAXIN, steps[s], NULL);
	/* random bytes: no match, the bound holds */
	for (size_t i = 0; i < MAXIN; i++)
		in[i] = (uint8_t)rnd();
	roundtrip(in, MAXIN, 0, NULL);
	roundtrip(in, MAXIN, 16384, NULL);
	/* long runs and matches at the maximum distance and length */
	memset(in, 'x', MAXIN);
	roundtrip(in, MAXIN, 0, &csize);
	CHECK(csize > 0 && csize < MAXIN / 50);
	for (size_t i = 0; i < MAXIN; i++)
		in[i] = (uint8_t)(i % 32768 < 40000 ? (i * 7919u) >> 3 : 0);
	roundtrip(in, MAXIN, 0, NULL);
}

TEST(deflate_fast_fit_within_bound)
{
	for (size_t room = 0; room < 100000; room += 997) {
		size_t n = dfast_fit(room);

		CHECK(n == 0 || dfast_bound(n) <= room);
	}
}

TEST(deflate_fast_flush_makes_all_decodable)
{
	static struct dfast d;
	static uint8_t comp[4096], back[4096];
	const char *parts[] = { "first part, first part, ", "second", "", "third part third" };
	size_t o = 0, total = 0;
	z_stream z = { 0 };

	dfast_init(&d, DFAST_GZIP);
	CHECK(inflateInit2(&z, 31) == Z_OK);
	for (size_t i = 0; i < 4; i++) {
		size_t n = strlen(parts[i]), start = o;

		o += dfast_compress(&d, (const uint8_t *)parts[i], n, comp + o);
		o += dfast_flush(&d, comp + o);
		total += n;
		z.next_in = comp + start;
		z.avail_in = (uInt)(o - start);
		z.next_out = back + z.total_out;
		z.avail_out = (uInt)(sizeof(back) - z.total_out);
		CHECK(inflate(&z, Z_SYNC_FLUSH) == Z_OK || n == 0);
		CHECK_INT(z.total_out, total); /* everything given so far came out */
	}
	o += dfast_finish(&d, comp + o);
	inflateEnd(&z);
	CHECK_INT(inflate_all(DFAST_GZIP, comp, o, back, sizeof(back)), (long)total);
}
