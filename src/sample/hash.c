/* Hash functions for the hashing converters: CRC-32/CRC-32C (nibble tables), djb2, sdbm,
 * HAProxy's wt6 and avalanche mixer, xxHash (XXH32, XXH64, XXH3-64) written from the xxHash
 * specification, and thin wrappers over OpenSSL's one-shot digest and HMAC calls.
 * Nothing here allocates or keeps state.
 */
#include <string.h>

#include <sample/hash.h>

#ifdef USE_OPENSSL
#include <openssl/evp.h>
#include <openssl/hmac.h>
#endif

/* CRC of each nibble value, 4 reflected steps of each polynomial. */
static const uint32_t crc32_nib[16] = {
	0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4,
	0x4db26158, 0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
	0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

static const uint32_t crc32c_nib[16] = {
	0x00000000, 0x105ec76f, 0x20bd8ede, 0x30e349b1, 0x417b1dbc, 0x5125dad3,
	0x61c69362, 0x7198540d, 0x82f63b78, 0x92a8fc17, 0xa24bb5a6, 0xb21572c9,
	0xc38d26c4, 0xd3d3e1ab, 0xe330a81a, 0xf36e6f75,
};

static uint32_t crc_nibbles(const uint32_t *tab, const unsigned char *p, size_t len)
{
	uint32_t crc = 0xffffffff;

	while (len--) {
		crc ^= *p++;
		crc = (crc >> 4) ^ tab[crc & 0xf];
		crc = (crc >> 4) ^ tab[crc & 0xf];
	}
	return ~crc;
}

uint32_t hash_crc32(const void *in, size_t len)
{
	return crc_nibbles(crc32_nib, in, len);
}

uint32_t hash_crc32c(const void *in, size_t len)
{
	return crc_nibbles(crc32c_nib, in, len);
}

uint32_t hash_djb2(const void *in, size_t len)
{
	const unsigned char *p = in;
	uint32_t h = 5381;

	while (len--)
		h = h * 33 + *p++;
	return h;
}

uint32_t hash_sdbm(const void *in, size_t len)
{
	const unsigned char *p = in;
	uint32_t h = 0;

	while (len--)
		h = *p++ + (h << 6) + (h << 16) - h;
	return h;
}

static inline uint32_t rotl32(uint32_t v, unsigned int r)
{
	r &= 31;
	return r ? (v << r) | (v >> (32 - r)) : v;
}

static inline uint64_t rotl64(uint64_t v, unsigned int r)
{
	r &= 63;
	return r ? (v << r) | (v >> (64 - r)) : v;
}

/* wt6: each byte is folded into both states (one by xor, one by addition, both
 * complemented), the states are swapped while rotated, and the next two rotation counts
 * come from bits of the new states. A rotation by 0 leaves a state unchanged.
 */
uint32_t hash_wt6(const void *in, size_t len)
{
	const unsigned char *p = in;
	uint32_t a = 0xa53c965a, b = 0x5ca6953a;
	unsigned int ra = 6, rb = 18;

	while (len--) {
		uint32_t na, mix;

		a = ~(a ^ *p);
		b = ~(b + *p);
		p++;
		na = rotl32(b, ra);
		b = rotl32(a, rb);
		a = na;
		mix = ((a >> 16) ^ b) & 0xffff;
		ra = mix & 0x1f;
		rb = mix >> 11;
	}
	return a ^ b;
}

uint32_t hash_avalanche32(uint32_t h)
{
	h = (h + 0x7ed55d16) + (h << 12);
	h = (h ^ 0xc761c23c) ^ (h >> 19);
	h = (h + 0x165667b1) + (h << 5);
	h = (h + 0xd3a2646c) ^ (h << 9);
	h = (h + 0xfd7046c5) + (h << 3);
	h = (h ^ 0xb55a4f09) ^ (h >> 16);
	return h * 3221225473U;
}

/* ---- xxHash ---- */

#define P32_1 0x9E3779B1U
#define P32_2 0x85EBCA77U
#define P32_3 0xC2B2AE3DU
#define P32_4 0x27D4EB2FU
#define P32_5 0x165667B1U
#define P64_1 0x9E3779B185EBCA87ULL
#define P64_2 0xC2B2AE3D27D4EB4FULL
#define P64_3 0x165667B19E3779F9ULL
#define P64_4 0x85EBCA77C2B2AE63ULL
#define P64_5 0x27D4EB2F165667C5ULL
#define PMX_1 0x165667919E3779F9ULL
#define PMX_2 0x9FB21C651E98DF25ULL

static inline uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t rd64(const unsigned char *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static inline uint32_t bswap32(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24);
}

static inline uint64_t bswap64(uint64_t v)
{
	return (uint64_t)bswap32((uint32_t)v) << 32 | bswap32((uint32_t)(v >> 32));
}

static inline uint32_t xxh32_round(uint32_t acc, uint32_t lane)
{
	return rotl32(acc + lane * P32_2, 13) * P32_1;
}

uint32_t hash_xxh32(const void *in, size_t len, uint32_t seed)
{
	const unsigned char *p = in, *end = p + len;
	uint32_t acc;

	if (len >= 16) {
		uint32_t v1 = seed + P32_1 + P32_2, v2 = seed + P32_2;
		uint32_t v3 = seed, v4 = seed - P32_1;

		for (; end - p >= 16; p += 16) {
			v1 = xxh32_round(v1, rd32(p));
			v2 = xxh32_round(v2, rd32(p + 4));
			v3 = xxh32_round(v3, rd32(p + 8));
			v4 = xxh32_round(v4, rd32(p + 12));
		}
		acc = rotl32(v1, 1) + rotl32(v2, 7) + rotl32(v3, 12) + rotl32(v4, 18);
	} else {
		acc = seed + P32_5;
	}
	acc += (uint32_t)len;
	for (; end - p >= 4; p += 4)
		acc = rotl32(acc + rd32(p) * P32_3, 17) * P32_4;
	for (; p < end; p++)
		acc = rotl32(acc + *p * P32_5, 11) * P32_1;
	acc ^= acc >> 15;
	acc *= P32_2;
	acc ^= acc >> 13;
	acc *= P32_3;
	acc ^= acc >> 16;
	return acc;
}

static inline uint64_t xxh64_round(uint64_t acc, uint64_t lane)
{
	return rotl64(acc + lane * P64_2, 31) * P64_1;
}

static inline uint64_t xxh64_merge(uint64_t acc, uint64_t v)
{
	return (acc ^ xxh64_round(0, v)) * P64_1 + P64_4;
}

static inline uint64_t xxh64_avalanche(uint64_t h)
{
	h ^= h >> 33;
	h *= P64_2;
	h ^= h >> 29;
	h *= P64_3;
	h ^= h >> 32;
	return h;
}

uint64_t hash_xxh64(const void *in, size_t len, uint64_t seed)
{
	const unsigned char *p = in, *end = p + len;
	uint64_t acc;

	if (len >= 32) {
		uint64_t v1 = seed + P64_1 + P64_2, v2 = seed + P64_2;
		uint64_t v3 = seed, v4 = seed - P64_1;

		for (; end - p >= 32; p += 32) {
			v1 = xxh64_round(v1, rd64(p));
			v2 = xxh64_round(v2, rd64(p + 8));
			v3 = xxh64_round(v3, rd64(p + 16));
			v4 = xxh64_round(v4, rd64(p + 24));
		}
		acc = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
		acc = xxh64_merge(acc, v1);
		acc = xxh64_merge(acc, v2);
		acc = xxh64_merge(acc, v3);
		acc = xxh64_merge(acc, v4);
	} else {
		acc = seed + P64_5;
	}
	acc += (uint64_t)len;
	for (; end - p >= 8; p += 8)
		acc = rotl64(acc ^ xxh64_round(0, rd64(p)), 27) * P64_1 + P64_4;
	if (end - p >= 4) {
		acc = rotl64(acc ^ (uint64_t)rd32(p) * P64_1, 23) * P64_2 + P64_3;
		p += 4;
	}
	for (; p < end; p++)
		acc = rotl64(acc ^ *p * P64_5, 11) * P64_1;
	return xxh64_avalanche(acc);
}

/* XXH3's default 192-byte secret (xxHash specification). */
#define XXH3_SECRET_SIZE 192
static const unsigned char xxh3_secret[XXH3_SECRET_SIZE] = {
	0xb8, 0xfe, 0x6c, 0x39, 0x23, 0xa4, 0x4b, 0xbe, 0x7c, 0x01, 0x81, 0x2c, 0xf7, 0x21, 0xad,
	0x1c, 0xde, 0xd4, 0x6d, 0xe9, 0x83, 0x90, 0x97, 0xdb, 0x72, 0x40, 0xa4, 0xa4, 0xb7, 0xb3,
	0x67, 0x1f, 0xcb, 0x79, 0xe6, 0x4e, 0xcc, 0xc0, 0xe5, 0x78, 0x82, 0x5a, 0xd0, 0x7d, 0xcc,
	0xff, 0x72, 0x21, 0xb8, 0x08, 0x46, 0x74, 0xf7, 0x43, 0x24, 0x8e, 0xe0, 0x35, 0x90, 0xe6,
	0x81, 0x3a, 0x26, 0x4c, 0x3c, 0x28, 0x52, 0xbb, 0x91, 0xc3, 0x00, 0xcb, 0x88, 0xd0, 0x65,
	0x8b, 0x1b, 0x53, 0x2e, 0xa3, 0x71, 0x64, 0x48, 0x97, 0xa2, 0x0d, 0xf9, 0x4e, 0x38, 0x19,
	0xef, 0x46, 0xa9, 0xde, 0xac, 0xd8, 0xa8, 0xfa, 0x76, 0x3f, 0xe3, 0x9c, 0x34, 0x3f, 0xf9,
	0xdc, 0xbb, 0xc7, 0xc7, 0x0b, 0x4f, 0x1d, 0x8a, 0x51, 0xe0, 0x4b, 0xcd, 0xb4, 0x59, 0x31,
	0xc8, 0x9f, 0x7e, 0xc9, 0xd9, 0x78, 0x73, 0x64, 0xea, 0xc5, 0xac, 0x83, 0x34, 0xd3, 0xeb,
	0xc3, 0xc5, 0x81, 0xa0, 0xff, 0xfa, 0x13, 0x63, 0xeb, 0x17, 0x0d, 0xdd, 0x51, 0xb7, 0xf0,
	0xda, 0x49, 0xd3, 0x16, 0x55, 0x26, 0x29, 0xd4, 0x68, 0x9e, 0x2b, 0x16, 0xbe, 0x58, 0x7d,
	0x47, 0xa1, 0xfc, 0x8f, 0xf8, 0xb8, 0xd1, 0x7a, 0xd0, 0x31, 0xce, 0x45, 0xcb, 0x3a, 0x8f,
	0x95, 0x16, 0x04, 0x28, 0xaf, 0xd7, 0xfb, 0xca, 0xbb, 0x4b, 0x40, 0x7e,
};

/* Full 64x64->128 product folded to 64 bits by xoring its halves. */
static inline uint64_t mul128_fold(uint64_t a, uint64_t b)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128 r = (unsigned __int128)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
	uint64_t lo_lo = (a & 0xffffffff) * (b & 0xffffffff);
	uint64_t hi_lo = (a >> 32) * (b & 0xffffffff);
	uint64_t lo_hi = (a & 0xffffffff) * (b >> 32);
	uint64_t hi_hi = (a >> 32) * (b >> 32);
	uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xffffffff) + lo_hi;
	uint64_t hi = (hi_lo >> 32) + (cross >> 32) + hi_hi;
	uint64_t lo = (cross << 32) | (lo_lo & 0xffffffff);

	return lo ^ hi;
#endif
}

static inline uint64_t xxh3_avalanche(uint64_t h)
{
	h ^= h >> 37;
	h *= PMX_1;
	h ^= h >> 32;
	return h;
}

static inline uint64_t xxh3_mix16(const unsigned char *in, const unsigned char *sec, uint64_t seed)
{
	return mul128_fold(rd64(in) ^ (rd64(sec) + seed), rd64(in + 8) ^ (rd64(sec + 8) - seed));
}

static uint64_t xxh3_upto16(const unsigned char *in, size_t len, uint64_t seed)
{
	const unsigned char *s = xxh3_secret;

	if (len > 8) {
		uint64_t lo = ((rd64(s + 24) ^ rd64(s + 32)) + seed) ^ rd64(in);
		uint64_t hi = ((rd64(s + 40) ^ rd64(s + 48)) - seed) ^ rd64(in + len - 8);

		return xxh3_avalanche(len + bswap64(lo) + hi + mul128_fold(lo, hi));
	}
	if (len >= 4) {
		uint64_t mseed = seed ^ (uint64_t)bswap32((uint32_t)seed) << 32;
		uint64_t v = (uint64_t)rd32(in + len - 4) | (uint64_t)rd32(in) << 32;

		v ^= (rd64(s + 8) ^ rd64(s + 16)) - mseed;
		v ^= rotl64(v, 49) ^ rotl64(v, 24);
		v *= PMX_2;
		v ^= (v >> 35) + len;
		v *= PMX_2;
		return v ^ (v >> 28);
	}
	if (len) {
		uint32_t comb = (uint32_t)in[len - 1] | (uint32_t)len << 8 | (uint32_t)in[0] << 16 |
				(uint32_t)in[len >> 1] << 24;

		return xxh64_avalanche(((uint64_t)(rd32(s) ^ rd32(s + 4)) + seed) ^ comb);
	}
	return xxh64_avalanche(seed ^ rd64(s + 56) ^ rd64(s + 64));
}

static uint64_t xxh3_upto240(const unsigned char *in, size_t len, uint64_t seed)
{
	const unsigned char *s = xxh3_secret;
	uint64_t acc = len * P64_1;
	size_t i, n;

	if (len <= 128) {
		for (i = (len - 1) / 32 + 1; i-- > 0;) {
			acc += xxh3_mix16(in + 16 * i, s + 32 * i, seed);
			acc += xxh3_mix16(in + len - 16 * i - 16, s + 32 * i + 16, seed);
		}
		return xxh3_avalanche(acc);
	}
	for (i = 0; i < 8; i++)
		acc += xxh3_mix16(in + 16 * i, s + 16 * i, seed);
	acc = xxh3_avalanche(acc);
	n = len / 16;
	for (i = 8; i < n; i++)
		acc += xxh3_mix16(in + 16 * i, s + 16 * (i - 8) + 3, seed);
	acc += xxh3_mix16(in + len - 16, s + 136 - 17, seed);
	return xxh3_avalanche(acc);
}

static void xxh3_accumulate(uint64_t *acc, const unsigned char *stripe, const unsigned char *sec)
{
	int i;

	for (i = 0; i < 8; i++) {
		uint64_t v = rd64(stripe + 8 * i);
		uint64_t k = v ^ rd64(sec + 8 * i);

		acc[i ^ 1] += v;
		acc[i] += (k & 0xffffffff) * (k >> 32);
	}
}

static void xxh3_scramble(uint64_t *acc, const unsigned char *sec)
{
	int i;

	for (i = 0; i < 8; i++) {
		acc[i] ^= acc[i] >> 47;
		acc[i] ^= rd64(sec + 8 * i);
		acc[i] *= P32_1;
	}
}

static uint64_t xxh3_long(const unsigned char *in, size_t len, uint64_t seed)
{
	uint64_t acc[8] = { P32_3, P64_1, P64_2, P64_3, P64_4, P32_2, P64_5, P32_1 };
	const size_t stripes = (XXH3_SECRET_SIZE - 64) / 8, block = 64 * stripes;
	unsigned char sec[XXH3_SECRET_SIZE];
	size_t b, n, blocks = (len - 1) / block, last;
	uint64_t res = len * P64_1;
	int i;

	/* the seeded secret: +seed on even 64-bit words, -seed on odd ones */
	for (i = 0; i < XXH3_SECRET_SIZE / 16; i++) {
		uint64_t lo = rd64(xxh3_secret + 16 * i) + seed;
		uint64_t hi = rd64(xxh3_secret + 16 * i + 8) - seed;
		int j;

		for (j = 0; j < 8; j++) {
			sec[16 * i + j] = (unsigned char)(lo >> (8 * j));
			sec[16 * i + 8 + j] = (unsigned char)(hi >> (8 * j));
		}
	}
	for (b = 0; b < blocks; b++) {
		for (n = 0; n < stripes; n++)
			xxh3_accumulate(acc, in + b * block + n * 64, sec + n * 8);
		xxh3_scramble(acc, sec + XXH3_SECRET_SIZE - 64);
	}
	last = (len - 1 - blocks * block) / 64;
	for (n = 0; n < last; n++)
		xxh3_accumulate(acc, in + blocks * block + n * 64, sec + n * 8);
	xxh3_accumulate(acc, in + len - 64, sec + XXH3_SECRET_SIZE - 64 - 7);
	for (i = 0; i < 4; i++)
		res += mul128_fold(acc[2 * i] ^ rd64(sec + 11 + 16 * i),
				   acc[2 * i + 1] ^ rd64(sec + 11 + 16 * i + 8));
	return xxh3_avalanche(res);
}

uint64_t hash_xxh3(const void *in, size_t len, uint64_t seed)
{
	if (len <= 16)
		return xxh3_upto16(in, len, seed);
	if (len <= 240)
		return xxh3_upto240(in, len, seed);
	return xxh3_long(in, len, seed);
}

/* ---- OpenSSL digests ---- */

const char *hash_sha2_name(int bits)
{
	switch (bits) {
	case 224:
		return "SHA224";
	case 256:
		return "SHA256";
	case 384:
		return "SHA384";
	case 512:
		return "SHA512";
	}
	return NULL;
}

#ifdef USE_OPENSSL
static const EVP_MD *hash_md(const char *alg, size_t outsz)
{
	const EVP_MD *md = alg ? EVP_get_digestbyname(alg) : NULL;

	if (!md || EVP_MD_size(md) <= 0 || (size_t)EVP_MD_size(md) > outsz)
		return NULL;
	return md;
}

int hash_digest(const char *alg, const void *in, size_t len, unsigned char *out, size_t outsz)
{
	const EVP_MD *md = hash_md(alg, outsz);
	unsigned int olen = 0;

	if (!md || !EVP_Digest(len ? in : "", len, out, &olen, md, NULL))
		return -1;
	return (int)olen;
}

int hash_hmac(const char *alg, const void *key, size_t keylen, const void *in, size_t len,
	      unsigned char *out, size_t outsz)
{
	const EVP_MD *md = hash_md(alg, outsz);
	unsigned int olen = 0;

	if (!md || keylen > 0x7fffffff)
		return -1;
	if (!HMAC(md, keylen ? key : "", (int)keylen, len ? in : (const void *)"", len, out, &olen))
		return -1;
	return (int)olen;
}
#else
int hash_digest(const char *alg, const void *in, size_t len, unsigned char *out, size_t outsz)
{
	return -1;
}

int hash_hmac(const char *alg, const void *key, size_t keylen, const void *in, size_t len,
	      unsigned char *out, size_t outsz)
{
	return -1;
}
#endif
