/* A fast deflate encoder for HTTP compression at level 1 (RFC 1951, with the zlib (RFC
 * 1950) and gzip (RFC 1952) wrappers): greedy LZ77 matches found through a small hash of
 * the current input only, coded with the fixed Huffman codes, all in one block that the
 * finish call closes. It trades some ratio for speed, as the stateless compressor of
 * HAProxy's default builds does; higher levels use zlib's own deflate. The checksums are
 * zlib's. Pure: no allocation (the caller owns the state), no globals after init.
 */
#ifndef COMP_DEFLATE_FAST_H
#define COMP_DEFLATE_FAST_H

#include <stddef.h>
#include <stdint.h>

enum dfast_fmt {
	DFAST_RAW = 0, /* raw deflate */
	DFAST_ZLIB,    /* zlib header and Adler-32 ("deflate" in HTTP) */
	DFAST_GZIP,    /* gzip header and CRC-32 */
};

#define DFAST_HASH_BITS 13

struct dfast {
	uint64_t acc;	  /* bits not written yet, first at bit 0 */
	uint32_t nbits;	  /* how many */
	uint32_t base;	  /* position of the current input's first byte in <head> values */
	uint32_t check;	  /* Adler-32 or CRC-32 of the input so far */
	uint32_t isize;	  /* input size modulo 2^32 (gzip) */
	uint8_t fmt;	  /* enum dfast_fmt */
	uint8_t started;  /* the header is out */
	uint8_t in_block; /* a fixed-code block is open */
	uint32_t head[1u << DFAST_HASH_BITS]; /* last position + base of each 4-byte hash */
};

/* Prepares <d> for a new stream of format <fmt>. */
void dfast_init(struct dfast *d, enum dfast_fmt fmt);

/* Output room that dfast_compress() may need for <len> input bytes. */
static inline size_t dfast_bound(size_t len)
{
	return len + len / 8 + 32;
}

/* Input that fits an output room of <room> bytes (0 when the room is too small). */
static inline size_t dfast_fit(size_t room)
{
	return room > 40 ? (room - 40) / 9 * 8 : 0;
}

/* Compresses in[0..len) (len <= 1 GB) into out, which has room for dfast_bound(len);
 * returns the bytes written. Bits that do not fill a byte wait for the next call. */
size_t dfast_compress(struct dfast *d, const uint8_t *in, size_t len, uint8_t *out);

/* Makes everything given so far decodable (a sync flush: the block is closed by an empty
 * stored block) into out (room for 32 bytes); returns the bytes written (0 when nothing
 * is pending). */
size_t dfast_flush(struct dfast *d, uint8_t *out);

/* Ends the stream into out (room for 32 bytes); returns the bytes written. */
size_t dfast_finish(struct dfast *d, uint8_t *out);

#endif
