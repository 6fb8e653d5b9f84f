/* Unit tests for sample/hash: CRC-32/32C, djb2, sdbm, wt6, avalanche, XXH32/XXH64/XXH3 over
 * every XXH3 length class and several seeds, and the OpenSSL digest and HMAC wrappers. The
 * expected values are the outputs of HAProxy 2.6's converters on the same inputs.
 */
#include <string.h>

#include <sample/hash.h>
#include "../test.h"

/* The inputs given to HAProxy: byte i is ((i * 7 + 3) * (i / 8 | 1)) & 0xff. */
static void hasht_fill(unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)((i * 7 + 3) * ((i >> 3) | 1));
}

struct hasht_vec {
	size_t len;
	uint32_t crc32, crc32c, djb2, sdbm, wt6, xxh32, xxh32_1;
	uint64_t xxh64, xxh64_1, xxh3, xxh3_1, xxh3_m1, xxh3_big;
};

static const struct hasht_vec hasht_vecs[] = {
	{ 0, 0U, 0U, 5381U, 0U, 4187620192U, 46947589U, 187479954U, 0xef46db3751d8e999ULL,
	  0xd5afba1336a3be4bULL, 0x2d06800538d394c2ULL, 0x4dc5b0cc826f6703ULL,
	  0x4c093276ae47a555ULL, 0x9ce30ffcf1927009ULL },
	{ 1, 1259060791U, 1093509285U, 177576U, 3U, 1891883941U, 565077562U, 3465993444U,
	  0x1f25c8d0bc1f4bb6ULL, 0x610f93f8c89889feULL, 0x13e608bc156defedULL,
	  0x49787df7898ccbb7ULL, 0x5a053a201e2fb1a5ULL, 0x14f9f3de437076b8ULL },
	{ 3, 1834528563U, 3526284339U, 193380611U, 25440522U, 2468513727U, 3443335746U, 2586114298U,
	  0x31d2363f52e564c9ULL, 0x2d80e074130d0176ULL, 0xa9088dda485b481cULL,
	  0x7901214716755f60ULL, 0x962ee7d551766d62ULL, 0x0d48f27b909d1822ULL },
	{ 4, 2127777378U, 3952826464U, 2086592891U, 2425491854U, 117738746U, 1918138866U,
	  2160228556U, 0x9bb64b7d66ee9fdaULL, 0x5ec9fdd10fcbcb0eULL, 0x6d9253b16c8b1ed3ULL,
	  0xe81680856eceb4dbULL, 0x74b2ff4368a38a53ULL, 0x5b316728d114f275ULL },
	{ 8, 3806550392U, 3525689576U, 1806356065U, 3543425820U, 1363562328U, 699728474U,
	  4176373959U, 0xdab99d95c6f90092ULL, 0xf119f5b26c0020abULL, 0x60539db630471163ULL,
	  0x19148e536d069082ULL, 0x03c9ff6ac7b8c00eULL, 0xc81aa1899fba9270ULL },
	{ 9, 1026891006U, 2452382926U, 3775175356U, 1560306719U, 3162853431U, 3626527828U,
	  3579790242U, 0x170bb6bf975b4c02ULL, 0xc35609e49aadbb91ULL, 0xfeff668361d723a8ULL,
	  0x8208ac133147a751ULL, 0xd6ce31d99c46c4b5ULL, 0xf8e183ad1ea4a57cULL },
	{ 16, 421477791U, 1797570017U, 3079727485U, 3450455608U, 2493736751U, 2286244989U,
	  3118361024U, 0x434850232b787be2ULL, 0xc9681422ce33496dULL, 0xb8c859b0f030b585ULL,
	  0xf6a6d83d8ce63bd4ULL, 0x0e4e1775a9e53905ULL, 0x44a68f3445fc33baULL },
	{ 17, 2686228277U, 1792695786U, 2846759286U, 1660930081U, 766075397U, 3227963921U,
	  2806754624U, 0x425793d47e1f86beULL, 0x48ae23e249a0b08aULL, 0x7cb393da1dd1da13ULL,
	  0xe64a44e813c96368ULL, 0xd154f84f66500fb4ULL, 0x3ba8ac7e9e458903ULL },
	{ 31, 3591516640U, 3275074314U, 3068299569U, 2393855156U, 3507709828U, 40638078U,
	  1943726102U, 0x4eb455f7c90032d0ULL, 0xded3068b1d365dfbULL, 0x7c05b688b0491519ULL,
	  0xace6a6e3807d8b03ULL, 0x1af65d6bdba55064ULL, 0x1b9373574eee4b52ULL },
	{ 32, 2243709081U, 1819157962U, 2469638117U, 1910102240U, 4136294801U, 1404153738U,
	  3794378737U, 0x85c381d63f4cca2cULL, 0xf3b44ae955b21c56ULL, 0x80901bcb7a800005ULL,
	  0xd94c9c1f6612032bULL, 0x73dd5a2b2bd67331ULL, 0xa6868a10bb87a403ULL },
	{ 128, 1359319727U, 1705347679U, 1859510277U, 4201152256U, 2000054740U, 338199318U,
	  449313909U, 0xd47b219034c29c67ULL, 0x23213c7a1dbe6a39ULL, 0x90d56c31ce478de9ULL,
	  0xe73e8579eb42ae10ULL, 0x50c991d7d62c7a46ULL, 0x42cc5bac935101eeULL },
	{ 129, 3327309392U, 4234907921U, 1234297176U, 515326387U, 820441741U, 3110098401U,
	  3778131797U, 0xd3b7fee399c84802ULL, 0x9214b2b4ec4c68bdULL, 0xae1048750cd64862ULL,
	  0x83cea1451e32a2c2ULL, 0xc8fbd96c88f07272ULL, 0xefabae7297f5675eULL },
	{ 240, 3733290495U, 4044596663U, 1822221437U, 3875818040U, 3097530513U, 3859098142U,
	  1788207557U, 0x5c5b7cee0e0796a9ULL, 0x2f691fde99135235ULL, 0x10ac8f674e472cc7ULL,
	  0xdd8f6afece6089bfULL, 0x4dabb8937497244eULL, 0x33e289b4accbbf52ULL },
	{ 241, 436943728U, 1224096961U, 3765482U, 608584853U, 1802025606U, 3725528808U, 2319878859U,
	  0x5f5cbb5a526fee36ULL, 0x4e9bededf1468001ULL, 0x815bd17d66c77b8fULL,
	  0x9e41c9935a38a966ULL, 0x2e326d6ca5173512ULL, 0x8055ba13150e3e8eULL },
	{ 1000, 3739973798U, 1944420402U, 4125974737U, 4001961356U, 851387341U, 1158184380U,
	  1355582537U, 0xa13bff24343b1f5cULL, 0x5e1156fc50be1532ULL, 0x2e274d3dba07089eULL,
	  0x256de212c2303e5dULL, 0x5e4db0723301ff59ULL, 0x2e2d5bae91421b61ULL },
	{ 1024, 2163390551U, 1326065960U, 3546360325U, 1831944960U, 3445250160U, 3794943351U,
	  1422617338U, 0x9b56bbde4b1c115cULL, 0xa53e21b3135339b6ULL, 0x09c53937e80c5b34ULL,
	  0xcce3fcd8d5795ec6ULL, 0x43d9ca130bdc0294ULL, 0x7ac392607ca48946ULL },
	{ 1025, 1396444152U, 1777354725U, 1065773864U, 572489091U, 3808590729U, 1624203692U,
	  3619115300U, 0x2f3afb028bbd802bULL, 0x5f4b4464ed2daf23ULL, 0x0ac382444fd2870cULL,
	  0x0f78b368903ab357ULL, 0x263fa3e688ba6541ULL, 0xd4bffff562d9c895ULL },
	{ 2100, 3482832269U, 2825040407U, 1959859767U, 3958852058U, 3446566136U, 2598025051U,
	  2771580657U, 0x57e42b14a48667b0ULL, 0xf30a653e7f00b224ULL, 0xb034d71198858561ULL,
	  0xd8470f3c13db05f0ULL, 0x2690a1950aa54638ULL, 0x67c46d00efd73ce1ULL },
};

TEST(hash_vectors_match_haproxy)
{
	static unsigned char buf[2100];
	size_t i;

	hasht_fill(buf, sizeof(buf));
	for (i = 0; i < sizeof(hasht_vecs) / sizeof(hasht_vecs[0]); i++) {
		const struct hasht_vec *v = &hasht_vecs[i];

		CHECK_INT(hash_crc32(buf, v->len), v->crc32);
		CHECK_INT(hash_crc32c(buf, v->len), v->crc32c);
		CHECK_INT(hash_djb2(buf, v->len), v->djb2);
		CHECK_INT(hash_sdbm(buf, v->len), v->sdbm);
		CHECK_INT(hash_wt6(buf, v->len), v->wt6);
		CHECK_INT(hash_xxh32(buf, v->len, 0), v->xxh32);
		CHECK_INT(hash_xxh32(buf, v->len, 1), v->xxh32_1);
		CHECK(hash_xxh64(buf, v->len, 0) == v->xxh64);
		CHECK(hash_xxh64(buf, v->len, 1) == v->xxh64_1);
		CHECK(hash_xxh3(buf, v->len, 0) == v->xxh3);
		CHECK(hash_xxh3(buf, v->len, 1) == v->xxh3_1);
		CHECK(hash_xxh3(buf, v->len, (uint64_t)-1) == v->xxh3_m1);
		CHECK(hash_xxh3(buf, v->len, 123456789012345ULL) == v->xxh3_big);
		if (hash_xxh3(buf, v->len, 0) != v->xxh3)
			test_fail(__FILE__, __LINE__, "xxh3 differs at length %zu", v->len);
	}
}

TEST(hash_known_vectors)
{
	CHECK_INT(hash_crc32("123456789", 9), 0xCBF43926U);
	CHECK_INT(hash_crc32c("123456789", 9), 0xE3069283U);
	CHECK_INT(hash_xxh32("", 0, 0), 0x02CC5D05U);
	CHECK(hash_xxh64("", 0, 0) == 0xEF46DB3751D8E999ULL);
	CHECK(hash_xxh3("", 0, 0) == 0x2D06800538D394C2ULL);
	/* str(abc) through HAProxy 2.6: xxh64 4952883123889572249, xxh3 8696274497037089104 */
	CHECK(hash_xxh64("abc", 3, 0) == 4952883123889572249ULL);
	CHECK(hash_xxh3("abc", 3, 0) == 8696274497037089104ULL);
	CHECK_INT(hash_xxh32("abc", 3, 0), 852579327U);
	CHECK_INT(hash_wt6("abc", 3), 2483038440U);
	CHECK_INT(hash_crc32("abc", 3), 891568578U);
	/* xxh32(-1) takes the low 32 bits of the seed */
	CHECK_INT(hash_xxh32("", 0, (uint32_t)-1), 2422332061U);
}

TEST(hash_avalanche)
{
	/* crc32(1) etc. on "abc" and on its first 3 generated bytes, from HAProxy 2.6 */
	static unsigned char b3[3];

	hasht_fill(b3, 3);
	CHECK_INT(hash_avalanche32(hash_crc32("abc", 3)), 930845320U);
	CHECK_INT(hash_avalanche32(0), 2874071335U);	/* crc32(1) of "" */
	CHECK_INT(hash_avalanche32(5381), 3719394183U); /* djb2(1) of "" */
	CHECK_INT(hash_avalanche32(hash_crc32(b3, 3)), 2136075521U);
	CHECK_INT(hash_avalanche32(hash_crc32c(b3, 3)), 4250302474U);
	CHECK_INT(hash_avalanche32(hash_djb2(b3, 3)), 2065597887U);
	CHECK_INT(hash_avalanche32(hash_sdbm(b3, 3)), 2883336044U);
	CHECK_INT(hash_avalanche32(hash_wt6(b3, 3)), 257313676U);
}

/* Hex of the first n bytes of p, uppercase, into a static buffer. */
static const char *hasht_hex(const unsigned char *p, int n)
{
	static char s[2 * HASH_DIGEST_MAX + 1];
	int i;

	if (n < 0)
		return "(fail)";
	for (i = 0; i < n; i++)
		snprintf(s + 2 * i, 3, "%02X", p[i]);
	s[2 * n] = 0;
	return s;
}

TEST(hash_digests)
{
#ifndef USE_OPENSSL /* the aarch64 check builds without OpenSSL */
	return;
#endif
	unsigned char b3[3], d[HASH_DIGEST_MAX];

	hasht_fill(b3, 3);
	CHECK_STR(hasht_hex(d, hash_digest("SHA1", b3, 3, d, sizeof(d))),
		  "4201DE9F98CB0A9B8CF52398BE7802B55D45266A");
	CHECK_STR(hasht_hex(d, hash_digest(hash_sha2_name(256), b3, 3, d, sizeof(d))),
		  "6AB0DBA1F4F1DFBB37B4F9EEB092C09FCA4900AD32BDCD147D8DDE35D6C87C35");
	CHECK_STR(hasht_hex(d, hash_digest(hash_sha2_name(224), b3, 3, d, sizeof(d))),
		  "956A7E9EEEFC4F6175E8CD337CD28A80F6A0A988B3FE0ED647B4A953");
	CHECK_INT(hash_digest(hash_sha2_name(512), b3, 3, d, sizeof(d)), 64);
	CHECK_STR(hasht_hex(d, 64),
		  "8853167AB14C043919981A6409307EF68B5B726F4B80DCAB259DAA24B7CABCB8"
		  "B4BBFD3E2E36ED98465059661F672E6529CDCC673E7EABFA78DD3186745B112A");
	CHECK_STR(hasht_hex(d, hash_digest("md5", b3, 3, d, sizeof(d))),
		  "C9AEE4810523EF8658121B8D492C6B41");
	CHECK_STR(hasht_hex(d, hash_digest("sha256", "", 0, d, sizeof(d))),
		  "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855");
	/* hmac(sha256,a2V5): the key is "key" */
	CHECK_STR(hasht_hex(d, hash_hmac("sha256", "key", 3, b3, 3, d, sizeof(d))),
		  "AC3E259A3445D901799FC8EDCF8A21CFF249B1B2E00D8D120C7E2B216E9BD0D9");
	CHECK_STR(hasht_hex(d, hash_hmac("md5", "key", 3, b3, 3, d, sizeof(d))),
		  "7C948D208BDE13CF6D6C2DCE0798F063");
	CHECK_INT(hash_digest("nosuchdigest", "a", 1, d, sizeof(d)), -1);
	CHECK_INT(hash_hmac("nosuchdigest", "k", 1, "a", 1, d, sizeof(d)), -1);
	CHECK_INT(hash_digest("sha256", "a", 1, d, 31), -1); /* no room */
	CHECK(hash_sha2_name(100) == NULL);
}
