/* The fast deflate encoder (include/comp/deflate_fast.h). One fixed-Huffman block carries
 * the whole stream; matches are searched in the current input only, through one candidate
 * per 4-byte hash, so that no history is kept between calls and the state stays small.
 * The code tables are built once at startup.
 */
#include <string.h>
#include <zlib.h>

#include <comp/deflate_fast.h>

#define HASH_SIZE (1u << DFAST_HASH_BITS)
#define MIN_MATCH 4 /* a hash covers 4 bytes: shorter matches are not looked for */
#define MAX_MATCH 258
#define MAX_DIST 32768

/* Code of each literal and of each match length, bits reversed for an LSB-first
 * stream, with the extra bits of the length already in place above the code. */
static uint16_t lit_code[256];
static uint8_t lit_bits[256];
static uint32_t len_code[MAX_MATCH + 1];
static uint8_t len_bits[MAX_MATCH + 1];

static uint32_t bit_reverse(uint32_t code, int n)
{
	uint32_t r = 0;

	for (int i = 0; i < n; i++, code >>= 1)
		r = (r << 1) | (code & 1);
	return r;
}

/* The fixed code of symbol <sym> (RFC 1951 3.2.6): its reversed bits and length. */
static void fixed_code(int sym, uint32_t *code, int *bits)
{
	if (sym < 144) {
		*code = bit_reverse(0x30 + (uint32_t)sym, 8), *bits = 8;
	} else if (sym < 256) {
		*code = bit_reverse(0x190 + (uint32_t)(sym - 144), 9), *bits = 9;
	} else if (sym < 280) {
		*code = bit_reverse((uint32_t)(sym - 256), 7), *bits = 7;
	} else {
		*code = bit_reverse(0xc0 + (uint32_t)(sym - 280), 8), *bits = 8;
	}
}

__attribute__((constructor)) static void dfast_tables(void)
{
	static const uint16_t len_base[29] = { 3,  4,  5,  6,	7,   8,	  9,   10,  11, 13,
					       15, 17, 19, 23,	27,  31,  35,  43,  51, 59,
					       67, 83, 99, 115, 131, 163, 195, 227, 258 };
	static const uint8_t len_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
					       2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
	uint32_t code;
	int bits;

	for (int c = 0; c < 256; c++) {
		fixed_code(c, &code, &bits);
		lit_code[c] = (uint16_t)code;
		lit_bits[c] = (uint8_t)bits;
	}
	for (int s = 0; s < 29; s++) {
		int hi = s == 28 ? MAX_MATCH : len_base[s + 1] - 1;

		fixed_code(257 + s, &code, &bits);
		for (int l = len_base[s]; l <= hi; l++) {
			len_code[l] = code | ((uint32_t)(l - len_base[s]) << bits);
			len_bits[l] = (uint8_t)(bits + len_extra[s]);
		}
	}
}

/* The output cursor of one call. */
struct bitw {
	uint64_t acc;
	uint32_t n;
	uint8_t *p;
};

static inline void put_bits(struct bitw *w, uint64_t code, uint32_t n)
{
	w->acc |= code << w->n;
	w->n += n;
	if (w->n >= 32) {
		w->p[0] = (uint8_t)w->acc;
		w->p[1] = (uint8_t)(w->acc >> 8);
		w->p[2] = (uint8_t)(w->acc >> 16);
		w->p[3] = (uint8_t)(w->acc >> 24);
		w->p += 4;
		w->acc >>= 32;
		w->n -= 32;
	}
}

static inline uint32_t load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint32_t hash4(uint32_t v)
{
	return (v * 2654435761u) >> (32 - DFAST_HASH_BITS);
}

/* Distance <dist> (1..32768): its 5-bit code reversed, then its extra bits. */
static inline void put_dist(struct bitw *w, uint32_t dist)
{
	uint32_t d = dist - 1, code, nb, extra = 0, xbits = 0;

	if (d < 4) {
		code = d;
	} else {
		nb = 31u - (uint32_t)__builtin_clz(d);
		code = 2 * nb + ((d >> (nb - 1)) & 1);
		xbits = nb - 1;
		extra = d & ((1u << xbits) - 1);
	}
	code = ((code & 1) << 4) | ((code & 2) << 2) | (code & 4) | ((code & 8) >> 2) |
	       ((code & 16) >> 4);
	put_bits(w, code | ((uint64_t)extra << 5), 5 + xbits);
}

static uint8_t *put_header(struct dfast *d, uint8_t *out)
{
	static const uint8_t gz[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 3 };

	if (d->fmt == DFAST_GZIP) {
		memcpy(out, gz, sizeof(gz));
		out += sizeof(gz);
	} else if (d->fmt == DFAST_ZLIB) {
		*out++ = 0x78;
		*out++ = 0x01;
	}
	return out;
}

void dfast_init(struct dfast *d, enum dfast_fmt fmt)
{
	memset(d, 0, sizeof(*d));
	d->fmt = (uint8_t)fmt;
	d->base = 1; /* 0 in <head>: no position */
	d->check =
		fmt == DFAST_ZLIB ? (uint32_t)adler32(0, Z_NULL, 0) : (uint32_t)crc32(0, Z_NULL, 0);
}

static void update_check(struct dfast *d, const uint8_t *in, size_t len)
{
	if (d->fmt == DFAST_ZLIB)
		d->check = (uint32_t)adler32(d->check, in, (uInt)len);
	else if (d->fmt == DFAST_GZIP)
		d->check = (uint32_t)crc32(d->check, in, (uInt)len);
	d->isize += (uint32_t)len;
}

/* Length of the match of <a> and <b>, at most <max>. */
static inline uint32_t match_len(const uint8_t *a, const uint8_t *b, uint32_t max)
{
	uint32_t n = 0;

	while (n + 8 <= max) {
		uint64_t x, y;

		memcpy(&x, a + n, 8);
		memcpy(&y, b + n, 8);
		if (x != y)
			return n + (uint32_t)(__builtin_ctzll(x ^ y) >> 3);
		n += 8;
	}
	while (n < max && a[n] == b[n])
		n++;
	return n;
}

size_t dfast_compress(struct dfast *d, const uint8_t *in, size_t len, uint8_t *out)
{
	struct bitw w = { d->acc, d->nbits, out };
	uint32_t i = 0, lit = 0, misses = 0;

	if (!d->started) {
		w.p = put_header(d, w.p);
		d->started = 1;
	}
	if (!d->in_block) {
		put_bits(&w, 2, 3); /* BFINAL 0, BTYPE 01 (fixed codes) */
		d->in_block = 1;
	}
	if (!len)
		goto out;
	update_check(d, in, len);
	if (d->base > (1u << 31) - (uint32_t)len) { /* positions would wrap: start over */
		memset(d->head, 0, sizeof(d->head));
		d->base = 1;
	}
	while (len >= MIN_MATCH && i <= len - MIN_MATCH) {
		uint32_t v = load32(in + i), h = hash4(v), cand = d->head[h], pos, m;

		d->head[h] = d->base + i;
		if (cand < d->base || i - (pos = cand - d->base) > MAX_DIST ||
		    load32(in + pos) != v) {
			/* no match: go faster through data that does not repeat */
			i += 1 + (misses++ >> 5);
			continue;
		}
		misses = 0;
		m = MIN_MATCH +
		    match_len(in + pos + MIN_MATCH, in + i + MIN_MATCH,
			      (uint32_t)(len - i < MAX_MATCH ? len - i : MAX_MATCH) - MIN_MATCH);
		for (; lit < i; lit++)
			put_bits(&w, lit_code[in[lit]], lit_bits[in[lit]]);
		put_bits(&w, len_code[m], len_bits[m]);
		put_dist(&w, i - pos);
		i += m;
		lit = i;
	}
	for (; lit < len; lit++)
		put_bits(&w, lit_code[in[lit]], lit_bits[in[lit]]);
	d->base += (uint32_t)len;
out:
	/* whole bytes leave; the rest waits in the state */
	while (w.n >= 8) {
		*w.p++ = (uint8_t)w.acc;
		w.acc >>= 8;
		w.n -= 8;
	}
	d->acc = w.acc;
	d->nbits = w.n;
	return (size_t)(w.p - out);
}

/* Writes the bits left in <w> to whole bytes, the last one padded with zeros. */
static void put_align(struct bitw *w)
{
	while (w->n > 0) {
		*w->p++ = (uint8_t)w->acc;
		w->acc >>= 8;
		w->n = w->n > 8 ? w->n - 8 : 0;
	}
	w->acc = 0;
}

size_t dfast_flush(struct dfast *d, uint8_t *out)
{
	struct bitw w = { d->acc, d->nbits, out };

	if (!d->in_block)
		return 0;
	put_bits(&w, 0, 7); /* end of the block */
	put_bits(&w, 0, 3); /* BFINAL 0, BTYPE 00: an empty stored block */
	put_align(&w);
	memcpy(w.p, "\x00\x00\xff\xff", 4); /* LEN 0, NLEN */
	w.p += 4;
	d->in_block = 0;
	d->acc = 0;
	d->nbits = 0;
	return (size_t)(w.p - out);
}

size_t dfast_finish(struct dfast *d, uint8_t *out)
{
	uint8_t *p = out + dfast_compress(d, NULL, 0, out); /* the header if nothing came */
	struct bitw w = { d->acc, d->nbits, p };

	put_bits(&w, 0, 7); /* end of the block */
	put_bits(&w, 3, 3); /* BFINAL 1, BTYPE 01: an empty last block */
	put_bits(&w, 0, 7);
	put_align(&w);
	p = w.p;
	if (d->fmt == DFAST_ZLIB) {
		for (int k = 24; k >= 0; k -= 8)
			*p++ = (uint8_t)(d->check >> k);
	} else if (d->fmt == DFAST_GZIP) {
		for (int k = 0; k < 32; k += 8)
			*p++ = (uint8_t)(d->check >> k);
		for (int k = 0; k < 32; k += 8)
			*p++ = (uint8_t)(d->isize >> k);
	}
	d->acc = 0;
	d->nbits = 0;
	return (size_t)(p - out);
}
