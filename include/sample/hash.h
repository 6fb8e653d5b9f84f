/* The hash functions behind the crc32, crc32c, djb2, sdbm, wt6, xxh32, xxh64, xxh3, sha1,
 * sha2, digest and hmac converters (and HAProxy's hash-type functions with "avalanche").
 * Pure functions over (ptr, len): no allocation except inside OpenSSL's one-shot digest
 * calls, no global state, callable from any thread.
 */
#ifndef SAMPLE_HASH_H
#define SAMPLE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32 as in Ethernet, gzip, PNG and zlib's crc32() (reflected, poly 0xEDB88320). */
uint32_t hash_crc32(const void *in, size_t len);

/* CRC-32C (Castagnoli, RFC 4960 appendix B; reflected poly 0x82F63B78). */
uint32_t hash_crc32c(const void *in, size_t len);

/* Dan Bernstein's hash: h = h * 33 + byte, from 5381. */
uint32_t hash_djb2(const void *in, size_t len);

/* The sdbm hash: h = byte + (h << 6) + (h << 16) - h, from 0. */
uint32_t hash_sdbm(const void *in, size_t len);

/* HAProxy's wt6 hash: two 32-bit states rotated by amounts derived from the data. */
uint32_t hash_wt6(const void *in, size_t len);

/* HAProxy's "avalanche" modifier (full_hash): Bob Jenkins' 6-shift 32-bit integer hash,
 * the result multiplied by 3221225473 (a prime close to 3/4 of 2^32).
 */
uint32_t hash_avalanche32(uint32_t h);

/* xxHash, as in the xxHash specification (XXH32, XXH64, XXH3 64-bit), with a seed.
 * The xxh32 converter passes its seed truncated to 32 bits; xxh64/xxh3 return the
 * unsigned result that the converters show as a signed 64-bit integer.
 */
uint32_t hash_xxh32(const void *in, size_t len, uint32_t seed);
uint64_t hash_xxh64(const void *in, size_t len, uint64_t seed);
uint64_t hash_xxh3(const void *in, size_t len, uint64_t seed);

/* Maximum size of a digest or HMAC written by hash_digest() / hash_hmac(). */
#define HASH_DIGEST_MAX 64

/* Name of the OpenSSL digest used by sha2(<bits>): "SHA224", "SHA256", "SHA384" or
 * "SHA512"; NULL for any other number of bits.
 */
const char *hash_sha2_name(int bits);

/* Digest of in[0..len) with the OpenSSL digest named <alg> ("sha256", "md5", "SHA1", ...)
 * into out[0..outsz). Returns the digest length, or -1 for an unknown algorithm, a digest
 * larger than outsz, or a build without OpenSSL.
 */
int hash_digest(const char *alg, const void *in, size_t len, unsigned char *out, size_t outsz);

/* HMAC of in[0..len) with key[0..keylen) and the OpenSSL digest named <alg>, into
 * out[0..outsz). Returns the MAC length, or -1 as hash_digest() does.
 */
int hash_hmac(const char *alg, const void *key, size_t keylen, const void *in, size_t len,
	      unsigned char *out, size_t outsz);

#endif
