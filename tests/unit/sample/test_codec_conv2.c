/* Unit tests of the protocol buffers reader (protobuf.c), the JSON Web Token parts and
 * signature checks (jwt.c) and of the protobuf, ungrpc, jwt_* and aes_gcm_dec converters
 * (conv_protobuf.c, conv_jwt.c, conv_aes.c) through sample_parse_expr(). Expected values
 * are HAProxy 2.6's, checked against Debian's haproxy; ECDSA and AES-GCM vectors are made
 * here with OpenSSL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/ec.h>
#include <openssl/evp.h>

#include <sample/codec.h>
#include <sample/jwt.h>
#include <sample/protobuf.h>
#include <sample/sample.h>

#include "../test.h"
#include "smp_eval.h"

static const char *ev(const char *expr)
{
	return smp_eval_text(expr);
}

/* ---- protobuf ---- */

TEST(pb_varint)
{
	uint64_t v = 7;

	CHECK_INT(pb_varint((const uint8_t *)"\x96\x01", (const uint8_t *)"\x96\x01" + 2, &v), 2);
	CHECK_INT(v, 150);
	CHECK_INT(pb_varint(NULL, NULL, &v), 0); /* nothing left reads 0 */
	CHECK_INT(v, 0);
	CHECK_INT(pb_varint((const uint8_t *)"\x80", (const uint8_t *)"\x80" + 1, &v), -1);
	{
		uint8_t ten[10], eleven[11];

		memset(ten, 0xff, 9);
		ten[9] = 0x03; /* bits past the 64th are dropped */
		CHECK_INT(pb_varint(ten, ten + 10, &v), 10);
		CHECK(v == UINT64_MAX);
		memset(eleven, 0x80, 10);
		eleven[10] = 0x01;
		CHECK_INT(pb_varint(eleven, eleven + 11, &v), -1);
	}
}

TEST(pb_paths_and_types)
{
	CHECK(pb_path_valid("1.2.3", 5));
	CHECK(pb_path_valid(".1", 2));
	CHECK(pb_path_valid("1..2", 4));
	CHECK(!pb_path_valid("1.", 2));
	CHECK(!pb_path_valid("", 0));
	CHECK(!pb_path_valid("1a", 2));
	CHECK(!pb_path_valid("-1", 2));
	CHECK_INT(pb_type_parse("sfixed32"), PB_T_SFIXED32);
	CHECK_INT(pb_type_parse("string"), -1);
	CHECK_INT(pb_type_parse("INT32"), -1);
}

/* protobuf(<path>[,<type>]) of the bytes <hex>. */
static const char *pb(const char *hex, const char *args)
{
	static char e[512];

	snprintf(e, sizeof(e), "bin(%s),protobuf(%s)", hex, args);
	return ev(e);
}

TEST(conv_protobuf_scalars)
{
	CHECK_STR(pb("089601", "1,int32"), "150");
	CHECK_STR(pb("089601", "1"), "\x96\x01");
	CHECK_STR(pb("0896011203616263", "2"), "abc");
	CHECK_STR(pb("08ffffffffffffffffff01", "1,uint32"), "-1");
	CHECK_STR(pb("088180808010", "1,int32"), "4294967297"); /* not truncated */
	CHECK_STR(pb("0803", "1,sint32"), "-2");
	CHECK_STR(pb("08ffffffff1f", "1,sint32"), "-4294967296");
	CHECK_STR(pb("08ffffffffffffffffff01", "1,sint64"), "-9223372036854775808");
	CHECK_STR(pb("0802", "1,bool"), "2");
	CHECK_STR(pb("0d01000080", "1,fixed32"), "2147483649");
	CHECK_STR(pb("0d01000080", "1,sfixed32"), "-2147483647");
	CHECK_STR(pb("090100000000000080", "1,fixed64"), "-9223372036854775807");
	CHECK_STR(pb("0d0000c03f", "1,float"), "1");
	CHECK_STR(pb("0d0000c0bf", "1,float"), "4294967295");
	CHECK_STR(pb("0d000000cf", "1,float"), "2147483648");
	CHECK_STR(pb("0d0000c07f", "1,float"), "0");
	CHECK_STR(pb("09000000000000f83f", "1,double"), "1");
	CHECK_STR(pb("0900000000000030c3", "1,double"), "-4503599627370496");
	CHECK_STR(pb("0900000000000ae043", "1,double"), "-9200854038717923328");
	CHECK_STR(pb("09000000000000f0ff", "1,double"), "-9223372036854775808");
	CHECK_STR(pb("09000000000000f87f", "1,double"), "-9223372036854775808");
}

TEST(conv_protobuf_walk)
{
	CHECK_STR(pb("0a050896011801", "1.1,int32"), "150");
	CHECK_STR(pb("0a050896011801", "1.3,int32"), "1");
	CHECK_STR(pb("08011a03080202", "3.1,int32"), "2");
	CHECK_STR(pb("08010802", "1,int32"), "1"); /* the first one */
	CHECK_STR(pb("0001", "0,int32"), "1");
	CHECK_STR(pb("0896011203616263", "3"), "<none>");
	CHECK_STR(pb("0896011203616263", "2,int32"), "<none>");	  /* wire type */
	CHECK_STR(pb("0896011203616263", "1.1,int32"), "<none>"); /* not a message */
	CHECK_STR(pb("0880", "1,int32"), "<none>");
	CHECK_STR(pb("1205616263", "2"), "<none>");
	CHECK_STR(pb("0b0c0801", "1,int32"), "<none>"); /* groups are not read */
	CHECK_STR(pb("0f1001", "2,int32"), "<none>");
	CHECK_STR(pb("1080808080808080808080011001", "2,int32"), "<none>");
	/* 2.6's quirks: a missing varint reads 0, values are bounded by the whole message */
	CHECK_STR(pb("08", "1,int32"), "0");
	CHECK_STR(pb("0a01089601", "1.1,int32"), "150");
	CHECK_STR(pb("0a0212020805", "1.2.1,int32"), "5");
	CHECK_STR(pb("0a01800105", "1.16,int32"), "5");
	CHECK_STR(pb("0a02100108021801", "1.1,int32"), "<none>");
	/* 2.6's walk: each occurrence of a repeated submessage is searched */
	CHECK_STR(pb("0a0218010a021005", "1.2,int64"), "5");
	CHECK_STR(pb("0a0218010a0218020a0218030a021009", "1.2,int64"), "9");
	CHECK_STR(pb("0a0218010a0210050a021007", "1.2,int64"), "5");
	CHECK_STR(pb("0a04120210010a04120218050a0412021807", "1.2.3,int64"), "5");
	CHECK_STR(pb("0a041a0010070a021009", "1.2,int64"), "9");
	/* a scalar matching a number before the last is read on as the next key */
	CHECK_STR(pb("081005", "1.2"), "\x05");
	CHECK_STR(pb("0d10050000", "1.2,int64"), "5");
	CHECK_STR(pb("08011005", "1.2,int64"), "<none>");
	/* a skipped length-delimited field in a submessage sends the path back to its start */
	CHECK_STR(pb("0a041a001007", "1.2"), "<none>");
	CHECK_STR(pb("0a0a1202100112021805", "1.2.3,int64"), "<none>");
	CHECK_STR(pb("0a0818010a0410051809", "1.2,int64"), "<none>");
	/* field numbers compare on 32 bits, as the path's numbers */
	CHECK_STR(pb("88808080800105", "1,int64"), "5");
}

TEST(conv_ungrpc)
{
	CHECK_STR(ev("bin(0000000003089601),ungrpc(1,int32)"), "150");
	CHECK_STR(ev("bin(0100000003089601),ungrpc(1,int32)"), "150");
	CHECK_STR(ev("bin(00000000021001000000000208020000000002100a),ungrpc(2,int32)"), "1");
	CHECK_STR(ev("bin(00000000021001000000000208020000000002100a),ungrpc(1,int32)"), "2");
	CHECK_STR(ev("bin(0000000004089601),ungrpc(1,int32)"), "<none>");
	CHECK_STR(ev("bin(0000000002089601),ungrpc(1,int32)"), "<none>");
	CHECK_STR(ev("bin(0000000001089601),ungrpc(1,int32)"), "0");
	CHECK_STR(ev("bin(00000000000801),ungrpc(1,int32)"), "<none>");
	CHECK_STR(ev("bin(089601),ungrpc(1,int32)"), "<none>");
	CHECK_STR(ev("bin(00000000090a0708011203616263),ungrpc(1.2)"), "abc");
	CHECK_STR(ev("bin(00000000080a0218010a021005),ungrpc(1.2,int64)"), "5");
	/* as 2.6: after a failed walk, the next header is read where the walk stopped */
	CHECK_STR(ev("bin(00000000020a0000000000020805),ungrpc(1,int64)"), "5");
	CHECK_STR(ev("bin(00000000020a0000000000020805),ungrpc(1),length"), "0");
	CHECK_STR(ev("bin(00000000020d0100000000020805),ungrpc(1,int64)"), "<none>");
	CHECK_STR(ev("bin(0000000005120561626300000000020805),ungrpc(1,int64)"), "<none>");
	CHECK_STR(ev("bin(00000000021a0500000000020805),ungrpc(1,int64)"), "5");
	CHECK_STR(ev("bin(00000000018000000000020805),ungrpc(1,int64)"), "5");
	/* a key over 10 bytes stops the walk after its 10th */
	CHECK_STR(ev("bin(0000000011808080808080808080800000000002080500000000070806080608"
		     "0608),ungrpc(1,int64)"),
		  "5");
}

TEST(conv_protobuf_args)
{
	CHECK_STR(ev("bin(00),protobuf(1,string)"),
		  "ERR: invalid args in converter 'protobuf' : Wrong protocol buffer type "
		  "'string'");
	CHECK(strstr(ev("bin(00),ungrpc(1.)"),
		     "failed to parse '1.' as type 'Protocol buffers field number'"));
	CHECK(strstr(ev("bin(00),protobuf(a)"), "ERR: "));
	CHECK_STR(ev("bin(0001),protobuf(4294967296,sint64)"), "-1"); /* wraps to 0 */
}

/* ---- JWT ---- */

/* {"alg":"HS256","typ":"JWT"} . {"sub":"1234","name":"J\u00e9","iat":1516239022,
 * "admin":true}, signed with "secret" */
#define HS_TOK                                                                              \
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0IiwibmFtZSI6IkpcdTAwZTkiLCJp" \
	"YXQiOjE1MTYyMzkwMjIsImFkbWluIjp0cnVlfQ.4PzyyuD8bB4GzN_c1re1KAIx0ORjDOJbpFu_pCLNh0k"

TEST(jwt_parts)
{
	const char *p;
	size_t n;
	char out[64];

	CHECK_INT(jwt_part("a.b.c", 5, 1, &p, &n), 0);
	CHECK(n == 1 && *p == 'b');
	CHECK_INT(jwt_part("abc", 3, 0, &p, &n), 0);
	CHECK_INT(n, 3);
	CHECK_INT(jwt_part("abc", 3, 1, &p, &n), -1);
	CHECK_INT(jwt_part("a.bc", 4, 1, &p, &n), 0);
	CHECK_INT(n, 2);
	CHECK_INT(jwt_b64_dec("eyJhIjoxfQ", 10, out, sizeof(out)), 7);
	CHECK(!memcmp(out, "{\"a\":1}", 7));
	CHECK_INT(jwt_b64_dec("A+/A", 4, out, sizeof(out)), -1);
	/* as 2.6: no padding, '=' is the digit 63 anywhere, 4n+1 digits are invalid */
	CHECK_INT(jwt_b64_dec("eyJhIjoxfQ==", 12, out, sizeof(out)), 9);
	CHECK(!memcmp(out, "{\"a\":1}\x0f\xff", 9));
	CHECK_INT(jwt_b64_dec("eyJhIjoxfQ=", 11, out, sizeof(out)), 8);
	CHECK_INT(jwt_b64_dec("Q=JD", 4, out, sizeof(out)), 3);
	CHECK(!memcmp(out, "\x43\xf2\x43", 3));
	CHECK_INT(jwt_b64_dec("A=", 2, out, sizeof(out)), 1);
	CHECK_INT(out[0], 3);
	CHECK_INT(jwt_b64_dec("AAA=", 4, out, sizeof(out)), 3);
	CHECK_INT(out[2], 0x3f);
	CHECK_INT(jwt_b64_dec("AAAA=", 5, out, sizeof(out)), -1);
	CHECK_INT(jwt_b64_dec("=", 1, out, sizeof(out)), -1);
	CHECK_INT(jwt_b64_dec("", 0, out, sizeof(out)), 0);
	CHECK_INT(jwt_b64_dec("QUJDRA", 6, out, 3), -1); /* 4 bytes do not fit */
	CHECK_INT(jwt_b64_dec("QUJDRA", 6, out, 4), 4);
}

TEST(jwt_verify_hmac)
{
	unsigned char s[512];
	const char *tok = HS_TOK;
	size_t n = strlen(tok);

	CHECK_INT(jwt_verify(tok, n, JWT_HS256, "secret", 6, NULL, s, sizeof(s)), 1);
	CHECK_INT(jwt_verify(tok, n, JWT_HS256, "secreT", 6, NULL, s, sizeof(s)), 0);
	CHECK_INT(jwt_verify(tok, n, JWT_HS512, "secret", 6, NULL, s, sizeof(s)), 0);
	CHECK_INT(jwt_verify(tok, n, JWT_HS256, "", 0, NULL, s, sizeof(s)), 0);
	CHECK_INT(jwt_verify(tok, n, JWT_RS256, "", 0, NULL, s, sizeof(s)), -5);
	CHECK_INT(jwt_verify(tok, n, JWT_ALG_NONE, "", 0, NULL, s, sizeof(s)), 0);
	CHECK_INT(jwt_verify("a.b.", 4, JWT_ALG_NONE, "", 0, NULL, s, sizeof(s)), 1);
	CHECK_INT(jwt_verify("a.b.", 4, JWT_HS256, "x", 1, NULL, s, sizeof(s)), -3);
	CHECK_INT(jwt_verify("a.b", 3, JWT_HS256, "x", 1, NULL, s, sizeof(s)), -3);
	CHECK_INT(jwt_verify("a.b", 3, JWT_ALG_NONE, "", 0, NULL, s, sizeof(s)), 1);
	CHECK_INT(jwt_verify(".", 1, JWT_ALG_NONE, "", 0, NULL, s, sizeof(s)), 1);
	CHECK_INT(jwt_verify("a", 1, JWT_ALG_NONE, "", 0, NULL, s, sizeof(s)), -3);
	CHECK_INT(jwt_verify("a.b", 3, JWT_RS256, "", 0, NULL, s, sizeof(s)), -3);
	CHECK_INT(jwt_verify("a.b.c.d", 7, JWT_HS256, "x", 1, NULL, s, sizeof(s)), -3);
	CHECK_INT(jwt_verify("a.b.AAAAA", 9, JWT_HS256, "x", 1, NULL, s, sizeof(s)), -3);
	CHECK_INT(jwt_verify("a.b.AA==", 8, JWT_HS256, "x", 1, NULL, s, sizeof(s)), 0);
	CHECK_INT(jwt_verify(tok, n, JWT_PS256, "", 0, NULL, s, sizeof(s)), -2);
	{
		/* padding on a good signature: 43 digits + "=" decode to 33 bytes, + "==" are
		 * 4n+1 */
		char t[256];

		snprintf(t, sizeof(t), "%s=", tok);
		CHECK_INT(jwt_verify(t, n + 1, JWT_HS256, "secret", 6, NULL, s, sizeof(s)), 0);
		snprintf(t, sizeof(t), "%s==", tok);
		CHECK_INT(jwt_verify(t, n + 2, JWT_HS256, "secret", 6, NULL, s, sizeof(s)), -3);
		snprintf(t, sizeof(t), "%sA=", tok);
		CHECK_INT(jwt_verify(t, n + 2, JWT_HS256, "secret", 6, NULL, s, sizeof(s)), -3);
	}
}

/* Signs "h.p" with a new key on <curve> and returns the token (raw r||s signature). */
static EVP_PKEY *es_token(const char *curve, const EVP_MD *md, size_t half, char *tok, size_t toksz)
{
	EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "EC", curve);
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned char der[256], raw[160];
	const unsigned char *dp = der;
	size_t dlen = sizeof(der);
	ECDSA_SIG *es = NULL;
	int n;

	if (!k || !c || EVP_DigestSignInit(c, NULL, md, NULL, k) != 1 ||
	    EVP_DigestSign(c, der, &dlen, (const unsigned char *)"h.p", 3) != 1 ||
	    !(es = d2i_ECDSA_SIG(NULL, &dp, (long)dlen))) {
		EVP_MD_CTX_free(c);
		EVP_PKEY_free(k);
		return NULL;
	}
	BN_bn2binpad(ECDSA_SIG_get0_r(es), raw, (int)half);
	BN_bn2binpad(ECDSA_SIG_get0_s(es), raw + half, (int)half);
	memcpy(tok, "h.p.", 4);
	n = codec_ub64_enc(raw, 2 * half, tok + 4, toksz - 5);
	tok[4 + (n < 0 ? 0 : n)] = 0;
	ECDSA_SIG_free(es);
	EVP_MD_CTX_free(c);
	return k;
}

TEST(jwt_verify_ecdsa)
{
	unsigned char s[512];
	char tok[512];
	EVP_PKEY *k = es_token("P-256", EVP_sha256(), 32, tok, sizeof(tok)), *k2;
	size_t n = strlen(tok);

	CHECK(k != NULL);
	if (!k)
		return;
	CHECK_INT(jwt_verify(tok, n, JWT_ES256, NULL, 0, k, s, sizeof(s)), 1);
	CHECK_INT(jwt_verify(tok, n, JWT_ES384, NULL, 0, k, s, sizeof(s)), 0);
	CHECK_INT(jwt_verify(tok, n, JWT_RS256, NULL, 0, k, s, sizeof(s)), 0);
	tok[6] = tok[6] == 'A' ? 'B' : 'A';
	CHECK_INT(jwt_verify(tok, n, JWT_ES256, NULL, 0, k, s, sizeof(s)), 0);
	CHECK_INT(jwt_verify("h.p.AA", 6, JWT_ES256, NULL, 0, k, s, sizeof(s)), -3);
	CHECK_INT(jwt_verify("h.p.AAA", 7, JWT_ES256, NULL, 0, k, s, sizeof(s)), 0);
	k2 = es_token("P-521", EVP_sha512(), 66, tok, sizeof(tok));
	CHECK(k2 && jwt_verify(tok, strlen(tok), JWT_ES512, NULL, 0, k2, s, sizeof(s)) == 1);
	EVP_PKEY_free(k2);
	EVP_PKEY_free(k);
}

TEST(conv_jwt)
{
	CHECK_STR(ev("str(" HS_TOK "),jwt_header_query($.alg)"), "HS256");
	CHECK_STR(ev("str(" HS_TOK "),jwt_payload_query($.iat,int)"), "1516239022");
	CHECK_STR(ev("str(" HS_TOK "),jwt_payload_query($.iat)"), "1.51624e+09");
	CHECK_STR(ev("str(" HS_TOK "),jwt_payload_query($.admin)"), "1");
	CHECK_STR(ev("str(" HS_TOK "),jwt_payload_query($.nope)"), "<none>");
	CHECK_STR(ev("str(" HS_TOK "),jwt_header_query"), "{\"alg\":\"HS256\",\"typ\":\"JWT\"}");
	CHECK_STR(ev("str(eyJhIjoxfQ),jwt_header_query($.a)"), "1");
	CHECK_STR(ev("str(eyJhIjoxfQ),jwt_payload_query($.a)"), "<none>");
	CHECK_STR(ev("str(" HS_TOK "),jwt_verify(HS256,secret)"), "1");
	CHECK_STR(ev("str(" HS_TOK "),jwt_verify(HS384,secret)"), "0");
	CHECK_STR(ev("str(a.b),jwt_verify(HS256,secret)"), "-3");
	CHECK_STR(ev("str(" HS_TOK "),jwt_verify(RS256,/nonexistent/key.pem)"), "-5");
	CHECK_STR(ev("str(a),jwt_verify(XX256,k)"),
		  "ERR: invalid args in converter 'jwt_verify' : unknown JWT algorithm: XX256");
	CHECK_STR(ev("str(a),jwt_verify(PS256,k)"),
		  "ERR: invalid args in converter 'jwt_verify' : RSASSA-PSS JWS signing not "
		  "managed yet");
	CHECK(strstr(ev("str(a),jwt_header_query($.a,str)"), "output_type only supports"));
}

/* ---- aes_gcm_dec ---- */

TEST(conv_aes_gcm_dec)
{
	static const unsigned char key[32] = "0123456789abcdef0123456789abcdef";
	static const unsigned char nonce[12] = "nonce-12byte";
	static const char pt[] = "hello world";
	unsigned char ct[64], tag[16];
	char hex[160], kb[64], nb[32], tb[32], expr[512];
	EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
	int n = 0, f = 0;

	CHECK(c && EVP_EncryptInit_ex(c, EVP_aes_128_gcm(), NULL, key, nonce) == 1 &&
	      EVP_EncryptUpdate(c, ct, &n, (const unsigned char *)pt, (int)strlen(pt)) == 1 &&
	      EVP_EncryptFinal_ex(c, ct + n, &f) == 1 &&
	      EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, tag) == 1);
	EVP_CIPHER_CTX_free(c);
	codec_hex_enc(ct, (size_t)(n + f), hex, sizeof(hex));
	hex[2 * (n + f)] = 0;
	kb[codec_b64_enc(key, 16, kb, sizeof(kb))] = 0;
	nb[codec_b64_enc(nonce, 12, nb, sizeof(nb))] = 0;
	tb[codec_b64_enc(tag, 16, tb, sizeof(tb))] = 0;
	snprintf(expr, sizeof(expr), "bin(%s),aes_gcm_dec(128,%s,%s,%s)", hex, nb, kb, tb);
	CHECK_STR(ev(expr), pt);
	snprintf(expr, sizeof(expr), "bin(%s),aes_gcm_dec(256,%s,%s,%s)", hex, nb, kb, tb);
	CHECK_STR(ev(expr), "<none>"); /* the key is not 256 bits */
	tb[3] = tb[3] == 'A' ? 'B' : 'A';
	snprintf(expr, sizeof(expr), "bin(%s),aes_gcm_dec(128,%s,%s,%s)", hex, nb, kb, tb);
	CHECK_STR(ev(expr), "<none>");
	CHECK_STR(ev("bin(00),aes_gcm_dec(100,AAAA,AAAA,AAAA)"),
		  "ERR: invalid args in converter 'aes_gcm_dec' : key size must be 128, 192 or "
		  "256 (bits).");
	CHECK_STR(ev("bin(00),aes_gcm_dec(128,AAAA,!!,AAAA)"),
		  "ERR: invalid args in converter 'aes_gcm_dec' : failed to parse key : argument "
		  "needs to be base64 encoded, and can either be a string or a variable");
	CHECK(strstr(ev("bin(00),aes_gcm_dec(128,foo.bar,AAAA,AAAA)"), "failed to parse nonce"));
	CHECK_STR(ev("bin(00),aes_gcm_dec(128,proc.nope,AAAA,AAAA)"), "<none>");
}
