/* Unit tests of conn/proxy_proto: the v1/v2 parser (complete, incomplete at every byte,
 * invalid), TLV lookup, CRC32C, and the builders (round trips through the parser, and
 * byte-exact comparisons with headers captured from HAProxy 2.6).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include <conn/proxy_proto.h>

#include "../test.h"

#define NOT_HDR "Received something which does not look like a PROXY protocol header"
#define BAD_HDR "Received an invalid PROXY protocol header"
#define BAD_PROTO "Received an unhandled protocol in the PROXY protocol header"

/* Captured from Debian's haproxy 2.6.12 (send-proxy, send-proxy-v2 with and without
 * "proxy-v2-options crc32c,authority,unique-id,ssl,ssl-cipher,cert-sig,cert-key,cert-cn",
 * unique-id-format abc%[int(42)], plain TCP client; v2 checks with crc32c,ssl and none). */
static const char cap_v1[] = "PROXY TCP4 127.0.0.1 127.0.0.1 51998 27011\r\n";
static const char cap_v2[] = "0d0a0d0a000d0a515549540a2111000c7f0000017f000001d43c6985";
static const char cap_v2_opts[] = "0d0a0d0a000d0a515549540a211100237f0000017f000001860a6984"
				  "03000443f382cb05000561626334322000050000000000";
static const char cap_chk_opts[] = "0d0a0d0a000d0a515549540a2000000f030004889da1df2000050000000000";
static const char cap_chk[] = "0d0a0d0a000d0a515549540a20000000";

static size_t unhex(const char *hex, uint8_t *out)
{
	size_t n = strlen(hex) / 2;

	for (size_t i = 0; i < n; i++) {
		unsigned int b;

		sscanf(hex + 2 * i, "%2x", &b);
		out[i] = (uint8_t)b;
	}
	return n;
}

static void sin4(struct sockaddr_storage *ss, const char *ip, uint16_t port)
{
	struct sockaddr_in *in = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	in->sin_family = AF_INET;
	inet_pton(AF_INET, ip, &in->sin_addr);
	in->sin_port = htons(port);
}

static void sin6(struct sockaddr_storage *ss, const char *ip, uint16_t port)
{
	struct sockaddr_in6 *in = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	in->sin6_family = AF_INET6;
	inet_pton(AF_INET6, ip, &in->sin6_addr);
	in->sin6_port = htons(port);
}

/* pp_parse on a heap copy of exactly <len> bytes, so ASan sees any overread (the copy is
 * freed: callers that read pp->tlv afterwards call pp_parse on their own bytes). */
static int parse(const void *d, size_t len, struct pp_info *pp, const char **why)
{
	uint8_t *copy = malloc(len ? len : 1);
	int ret;

	if (!copy)
		return -2;
	memcpy(copy, d, len);
	ret = pp_parse(copy, len, pp, why);
	free(copy);
	return ret;
}

/* Every strict prefix of a valid header needs more; the whole is accepted. */
static void check_split(const uint8_t *d, size_t len)
{
	struct pp_info pp;
	const char *why;

	for (size_t i = 0; i < len; i++) {
		if (parse(d, i, &pp, &why) != 0)
			test_fail(__FILE__, __LINE__, "prefix %zu of %zu not incomplete", i, len);
	}
	CHECK_INT(parse(d, len, &pp, &why), (int)len);
}

static void check_bad(const char *s, size_t len, const char *msg)
{
	struct pp_info pp;
	const char *why = NULL;

	if (parse(s, len, &pp, &why) != -1 || !why || strcmp(why, msg) != 0)
		test_fail(__FILE__, __LINE__, "\"%.*s\" not refused with \"%s\" (%s)", (int)len, s,
			  msg, why ? why : "-");
}

TEST(pp_v1_tcp4)
{
	static const char l[] = "PROXY TCP4 192.168.0.1 10.0.0.2 56324 443\r\nGET /";
	struct pp_info pp;
	const char *why;
	struct sockaddr_in *s = (struct sockaddr_in *)&pp.src, *d = (struct sockaddr_in *)&pp.dst;

	CHECK_INT(parse(l, sizeof(l) - 1, &pp, &why), 43);
	CHECK_INT(pp.version, 1);
	CHECK_INT(pp.local, 0);
	CHECK_INT(s->sin_family, AF_INET);
	CHECK_INT(ntohl(s->sin_addr.s_addr), 0xc0a80001);
	CHECK_INT(ntohs(s->sin_port), 56324);
	CHECK_INT(ntohl(d->sin_addr.s_addr), 0x0a000002);
	CHECK_INT(ntohs(d->sin_port), 443);
	check_split((const uint8_t *)l, 43);
	check_split((const uint8_t *)cap_v1, sizeof(cap_v1) - 1);
}

TEST(pp_v1_tcp6_unknown)
{
	static const char l6[] = "PROXY TCP6 2001:db8::1 ::1 65535 0\r\n";
	static const char u[] = "PROXY UNKNOWN\r\n";
	static const char u2[] = "PROXY UNKNOWN ffff::1 whatever 1 2\r\n";
	struct pp_info pp;
	const char *why;
	struct sockaddr_in6 *s = (struct sockaddr_in6 *)&pp.src;

	CHECK_INT(parse(l6, sizeof(l6) - 1, &pp, &why), (int)sizeof(l6) - 1);
	CHECK_INT(s->sin6_family, AF_INET6);
	CHECK_INT(s->sin6_addr.s6_addr[0], 0x20);
	CHECK_INT(s->sin6_addr.s6_addr[15], 1);
	CHECK_INT(ntohs(s->sin6_port), 65535);
	CHECK_INT(ntohs(((struct sockaddr_in6 *)&pp.dst)->sin6_port), 0);
	check_split((const uint8_t *)l6, sizeof(l6) - 1);
	CHECK_INT(parse(u, sizeof(u) - 1, &pp, &why), 15);
	CHECK_INT(pp.local, 1);
	CHECK_INT(parse(u2, sizeof(u2) - 1, &pp, &why), (int)sizeof(u2) - 1);
	CHECK_INT(pp.local, 1);
	check_split((const uint8_t *)u, sizeof(u) - 1);
}

TEST(pp_v1_longest)
{
	char l[200];
	int n = snprintf(l, sizeof(l), "PROXY UNKNOWN %0*d\r\n", PP_V1_MAX - 16, 0);
	struct pp_info pp;
	const char *why;

	CHECK_INT(n, PP_V1_MAX);
	CHECK_INT(parse(l, (size_t)n, &pp, &why), PP_V1_MAX);
	n = snprintf(l, sizeof(l), "PROXY UNKNOWN %0*d\r\n", PP_V1_MAX - 15, 0);
	CHECK_INT(n, 108);
	check_bad(l, (size_t)n, BAD_HDR);
	check_bad(l, PP_V1_MAX, BAD_HDR); /* no CRLF within 107 bytes */
	CHECK_INT(parse(l, PP_V1_MAX - 1, &pp, &why), 0);
}

TEST(pp_v1_invalid)
{
	static const char *const bad[] = {
		"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n",	   "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\rX",
		"PROXY TCP4 1.2.3.256 5.6.7.8 1 2\r\n",	   "PROXY TCP4 1.2.3.4 5.6.7.8 65536 2\r\n",
		"PROXY TCP4 1.2.3.4 5.6.7.8 +1 2\r\n",	   "PROXY TCP4 1.2.3.4 5.6.7.8 1 2 \r\n",
		"PROXY TCP4 1.2.3.4  5.6.7.8 1 2\r\n",	   "PROXY TCP4 ::1 ::1 1 2\r\n",
		"PROXY TCP6 1.2.3.4 5.6.7.8 1 2\r\n",	   "PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n",
		"PROXY TCP4 1.2.3.4 5.6.7.8 1 -2\r\n",	   "PROXY TCP4 1.2.3.4 5.6.7.8 1 2x\r\n",
		"PROXY TCP4 1.2.3.4 5.6.7.8 123456 2\r\n", "PROXY TCP4\r\n",
	};
	static const char *const proto[] = { "PROXY UDP4 1.2.3.4 5.6.7.8 1 2\r\n", "PROXY \r\n",
					     "PROXY tcp4 1.2.3.4 5.6.7.8 1 2\r\n" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		check_bad(bad[i], strlen(bad[i]), BAD_HDR);
	for (size_t i = 0; i < sizeof(proto) / sizeof(proto[0]); i++)
		check_bad(proto[i], strlen(proto[i]), BAD_PROTO);
	check_bad("GET / HTTP/1.1\r\n", 16, NOT_HDR);
	check_bad("PROXX", 5, NOT_HDR);
	check_bad("\r\n\r\nX", 5, NOT_HDR);
	CHECK_INT(parse("PROX", 4, &(struct pp_info){ 0 }, &(const char *){ NULL }), 0);
	CHECK_INT(parse("\r\n\r\n", 4, &(struct pp_info){ 0 }, &(const char *){ NULL }), 0);
	CHECK_INT(parse("", 0, &(struct pp_info){ 0 }, &(const char *){ NULL }), 0);
}

TEST(pp_v2_captured)
{
	uint8_t b[256];
	size_t n = unhex(cap_v2_opts, b);
	struct pp_info pp;
	const char *why;
	struct ist v;

	check_split(b, n);
	CHECK_INT(pp_parse(b, n, &pp, &why), (int)n);
	CHECK_INT(pp.version, 2);
	CHECK_INT(pp.tlv_len, 23);
	v = pp_tlv_find(pp.tlv, pp.tlv_len, PP2_TYPE_UNIQUE_ID);
	CHECK(v.len == 5 && memcmp(v.ptr, "abc42", 5) == 0);
	v = pp_tlv_find(pp.tlv, pp.tlv_len, PP2_TYPE_SSL);
	CHECK_INT(v.len, 5);
	CHECK(pp_tlv_find(pp.tlv, pp.tlv_len, PP2_TYPE_AUTHORITY).ptr == NULL);
	n = unhex(cap_v2, b);
	check_split(b, n);
	CHECK_INT(ntohs(((struct sockaddr_in *)&pp.src)->sin_port), 0x860a);
	n = unhex(cap_chk_opts, b);
	CHECK_INT(pp_parse(b, n, &pp, &why), (int)n);
	CHECK_INT(pp.local, 1);
	CHECK(pp_tlv_find(pp.tlv, pp.tlv_len, PP2_TYPE_SSL).ptr != NULL);
}

TEST(pp_v2_families)
{
	uint8_t b[300] = { 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a,
			   0x51, 0x55, 0x49, 0x54, 0x0a, 0x21 };
	struct pp_info pp;
	const char *why;

	b[13] = 0x21; /* TCP6 */
	b[15] = 36;
	b[16 + 15] = 1;
	b[16 + 33] = 80;
	CHECK_INT(parse(b, 52, &pp, &why), 52);
	CHECK_INT(pp.src.ss_family, AF_INET6);
	CHECK_INT(ntohs(((struct sockaddr_in6 *)&pp.src)->sin6_port), 80);
	check_split(b, 52);
	b[15] = 35; /* too short for the addresses */
	CHECK_INT(parse(b, 51, &pp, &why), -1);
	b[13] = 0x31; /* UNIX stream */
	b[14] = 0;
	b[15] = 216;
	memset(b + 16, 0, 216);
	memcpy(b + 16, "/tmp/a", 6);
	memset(b + 16 + 108, 'x', 108); /* no NUL: kept terminated */
	/* with the PROXY command, 2.6 refuses a unix address as invalid (a client address
	 * "unix" would defeat src ACLs); LOCAL may carry one (kept, then ignored) */
	CHECK_INT(parse(b, 232, &pp, &why), -1);
	CHECK_STR(why, BAD_HDR);
	b[12] = 0x20;
	CHECK_INT(parse(b, 232, &pp, &why), 232);
	CHECK_INT(pp.local, 1);
	b[12] = 0x21;
	b[13] = 0x12; /* UDP4 */
	b[15] = 12;
	CHECK_INT(parse(b, 28, &pp, &why), -1);
	CHECK_STR(why, BAD_HDR);
	b[13] = 0x00; /* UNSPEC, no address */
	b[15] = 0;
	CHECK_INT(parse(b, 16, &pp, &why), 16);
	CHECK_INT(pp.local, 1);
	b[12] = 0x22; /* unknown command */
	CHECK_INT(parse(b, 16, &pp, &why), -1);
	CHECK_STR(why, BAD_HDR);
	b[12] = 0x11; /* version 1 in a v2 signature */
	CHECK_INT(parse(b, 16, &pp, &why), -1);
	b[12] = 0x20; /* LOCAL with UDP: addresses skipped */
	b[13] = 0x12;
	b[15] = 12;
	CHECK_INT(parse(b, 28, &pp, &why), 28);
	CHECK_INT(pp.local, 1);
	b[0] = 0x0e;
	CHECK_INT(parse(b, 3, &pp, &why), -1);
	CHECK_STR(why, NOT_HDR);
}

TEST(pp_v2_tlvs_and_crc)
{
	uint8_t b[256];
	size_t n = unhex(cap_v2_opts, b);
	struct pp_info pp;
	const char *why;

	b[30] ^= 1; /* inside the CRC32C value */
	CHECK_INT(parse(b, n, &pp, &why), -1);
	CHECK_STR(why, BAD_HDR);
	b[30] ^= 1;
	b[n - 3] ^= 0x40; /* the SSL verify field: covered by the CRC */
	CHECK_INT(parse(b, n, &pp, &why), -1);
	b[n - 3] ^= 0x40;
	b[15] += 1; /* one byte more: a TLV that does not fit */
	b[n] = 0x04;
	CHECK_INT(parse(b, n + 1, &pp, &why), -1);
	b[15] -= 1;
	b[29] = 5; /* CRC32C TLV of the wrong length */
	CHECK_INT(parse(b, n, &pp, &why), -1);
	n = unhex(cap_v2, b);
	b[15] = 12 + 3 + 2; /* a NOOP TLV that overruns by one */
	memcpy(b + n, "\x04\x00\x03zz", 5);
	CHECK_INT(parse(b, n + 5, &pp, &why), -1);
	b[15] = 12 + 3 + 3;
	memcpy(b + n, "\x04\x00\x03zzz", 6);
	CHECK_INT(pp_parse(b, n + 6, &pp, &why), (int)n + 6);
	CHECK_INT(pp_tlv_find(pp.tlv, pp.tlv_len, PP2_TYPE_NOOP).len, 3);
	CHECK(pp_tlv_find(NULL, 0, PP2_TYPE_NOOP).ptr == NULL);
	CHECK(pp_tlv_find((const uint8_t *)"\x01\x00\x09z", 4, PP2_TYPE_ALPN).ptr == NULL);
}

TEST(pp_crc32c_vector)
{
	CHECK_INT(pp_crc32c((const uint8_t *)"123456789", 9), 0xe3069283);
	CHECK_INT(pp_crc32c(NULL, 0), 0);
}

TEST(pp_build_captured)
{
	struct sockaddr_storage s, d;
	struct pp_out o = { .src = &s, .dst = &d };
	uint8_t want[256], got[256];
	size_t n;

	sin4(&s, "127.0.0.1", 51998);
	sin4(&d, "127.0.0.1", 27011);
	CHECK_INT(pp_build_v1((char *)got, sizeof(got), &o), (int)sizeof(cap_v1) - 1);
	CHECK(memcmp(got, cap_v1, sizeof(cap_v1) - 1) == 0);
	CHECK_INT(pp_build_v1((char *)got, sizeof(cap_v1) - 1, &o), -1);
	sin4(&s, "127.0.0.1", 0xd43c);
	sin4(&d, "127.0.0.1", 0x6985);
	n = unhex(cap_v2, want);
	CHECK_INT(pp_build_v2(got, sizeof(got), &o), (int)n);
	CHECK(memcmp(got, want, n) == 0);
	sin4(&s, "127.0.0.1", 0x860a);
	sin4(&d, "127.0.0.1", 0x6984);
	o.opts = PP_O_V2 | PP_O_CRC32C | PP_O_AUTHORITY | PP_O_UNIQUE_ID | PP_O_SSL | PP_O_SSL_CN |
		 PP_O_SSL_CIPHER | PP_O_CERT_SIG | PP_O_CERT_KEY;
	o.unique_id = IST("abc42");
	n = unhex(cap_v2_opts, want);
	CHECK_INT(pp_build_v2(got, sizeof(got), &o), (int)n);
	CHECK(memcmp(got, want, n) == 0);
	for (size_t room = 0; room < n; room++)
		CHECK_INT(pp_build_v2(got, room, &o), -1);
	o.src = o.dst = NULL;
	o.unique_id = IST("");
	o.opts = PP_O_V2 | PP_O_CRC32C | PP_O_SSL;
	n = unhex(cap_chk_opts, want);
	CHECK_INT(pp_build_v2(got, sizeof(got), &o), (int)n);
	CHECK(memcmp(got, want, n) == 0);
	n = unhex(cap_chk, want);
	CHECK_INT(pp_build_check(got, sizeof(got), 2), (int)n);
	CHECK(memcmp(got, want, n) == 0);
	CHECK_INT(pp_build_check(got, sizeof(got), 1), 15);
	CHECK(memcmp(got, "PROXY UNKNOWN\r\n", 15) == 0);
}

/* Captured: "tcp-request connection set-src ipv6(2001:db8::5)" on an IPv4 frontend. */
TEST(pp_build_mixed_captured)
{
	static const char v1[] = "PROXY TCP6 2001:db8::5 ::ffff:127.0.0.1 57856 27011\r\n";
	static const char v2[] = "0d0a0d0a000d0a515549540a2121002420010db8000000000000000000000005"
				 "00000000000000000000ffff7f000001cec26984";
	struct sockaddr_storage s, d;
	struct pp_out o = { .src = &s, .dst = &d };
	uint8_t want[64], got[128];
	size_t n = unhex(v2, want);

	sin6(&s, "2001:db8::5", 57856);
	sin4(&d, "127.0.0.1", 27011);
	CHECK_INT(pp_build_v1((char *)got, sizeof(got), &o), (int)sizeof(v1) - 1);
	CHECK(memcmp(got, v1, sizeof(v1) - 1) == 0);
	sin6(&s, "2001:db8::5", 0xcec2);
	sin4(&d, "127.0.0.1", 0x6984);
	CHECK_INT(pp_build_v2(got, sizeof(got), &o), (int)n);
	CHECK(memcmp(got, want, n) == 0);
}

TEST(pp_build_round_trip)
{
	struct sockaddr_storage s, d;
	struct pp_out o = { .src = &s, .dst = &d };
	uint8_t got[512];
	struct pp_info pp;
	const char *why;
	struct ist v;
	int n;

	sin6(&s, "2001:db8::5", 1234);
	sin4(&d, "10.1.2.3", 443); /* mixed: both sent as IPv6 */
	n = pp_build_v1((char *)got, sizeof(got), &o);
	CHECK(n > 0 &&
	      memcmp(got, "PROXY TCP6 2001:db8::5 ::ffff:10.1.2.3 1234 443\r\n", (size_t)n) == 0);
	CHECK_INT(parse(got, (size_t)n, &pp, &why), n);
	o.opts = PP_O_V2 | PP_O_CRC32C | PP_O_AUTHORITY | PP_O_UNIQUE_ID | PP_O_SSL | PP_O_SSL_CN |
		 PP_O_SSL_CIPHER;
	o.alpn = IST("h2");
	o.authority = IST("example.com");
	o.unique_id = IST("id-1");
	o.ssl_client = PP2_CLIENT_SSL | PP2_CLIENT_CERT_CONN | PP2_CLIENT_CERT_SESS;
	o.ssl_version = IST("TLSv1.3");
	o.ssl_cn = IST("client");
	o.ssl_cipher = IST("TLS_AES_128_GCM_SHA256");
	o.ssl_sig_alg = IST("RSA-SHA256"); /* not asked for: left out */
	n = pp_build_v2(got, sizeof(got), &o);
	CHECK(n > 0);
	CHECK_INT(pp_parse(got, (size_t)n, &pp, &why), n);
	CHECK_INT(pp.dst.ss_family, AF_INET6);
	CHECK_INT(((struct sockaddr_in6 *)&pp.dst)->sin6_addr.s6_addr[10], 0xff);
	v = pp_tlv_find(pp.tlv, pp.tlv_len, PP2_TYPE_AUTHORITY);
	CHECK(v.len == 11 && memcmp(v.ptr, "example.com", 11) == 0);
	v = pp_tlv_find(pp.tlv, pp.tlv_len, PP2_TYPE_ALPN);
	CHECK(v.len == 2 && memcmp(v.ptr, "h2", 2) == 0);
	v = pp_tlv_find(pp.tlv, pp.tlv_len, PP2_TYPE_SSL);
	CHECK(v.len > 5 && (uint8_t)v.ptr[0] == 7);
	v = pp_tlv_find((const uint8_t *)v.ptr + 5, v.len - 5, PP2_SUBTYPE_SSL_CN);
	CHECK(v.len == 6 && memcmp(v.ptr, "client", 6) == 0);
	v = pp_tlv_find(pp.tlv, pp.tlv_len, PP2_TYPE_SSL);
	CHECK(pp_tlv_find((const uint8_t *)v.ptr + 5, v.len - 5, PP2_SUBTYPE_SSL_SIG_ALG).ptr ==
	      NULL);
	check_split(got, (size_t)n);
	sin4(&s, "1.2.3.4", 1);
	s.ss_family = AF_UNIX;
	n = pp_build_v1((char *)got, sizeof(got), &o);
	CHECK(n == 15 && memcmp(got, "PROXY UNKNOWN\r\n", 15) == 0);
}
