/* JSON Web Token parts and signature checks (sample/jwt.h). The converters and the key
 * cache are in conv_jwt.c; this file only needs OpenSSL and the base64url decoder, so the
 * fuzz target links it alone.
 */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <base/parse.h>
#include <sample/codec.h>
#include <sample/jwt.h>

static const char *const jwt_alg_names[] = {
	[JWT_ALG_NONE] = "none", [JWT_HS256] = "HS256", [JWT_HS384] = "HS384",
	[JWT_HS512] = "HS512",	 [JWT_RS256] = "RS256", [JWT_RS384] = "RS384",
	[JWT_RS512] = "RS512",	 [JWT_ES256] = "ES256", [JWT_ES384] = "ES384",
	[JWT_ES512] = "ES512",	 [JWT_PS256] = "PS256", [JWT_PS384] = "PS384",
	[JWT_PS512] = "PS512",
};

int jwt_alg_parse(const char *name, size_t len)
{
	for (int a = JWT_ALG_NONE; a <= JWT_PS512; a++)
		if (strlen(jwt_alg_names[a]) == len && !memcmp(jwt_alg_names[a], name, len))
			return a;
	return -1;
}

int jwt_part(const char *tok, size_t len, int part, const char **p, size_t *plen)
{
	const char *dot = memchr(tok, '.', len), *end;

	if (part == 0) {
		*p = tok;
		*plen = dot ? (size_t)(dot - tok) : len;
		return 0;
	}
	if (!dot)
		return -1;
	*p = dot + 1;
	end = memchr(*p, '.', len - (size_t)(*p - tok));
	*plen = end ? (size_t)(end - *p) : len - (size_t)(*p - tok);
	return 0;
}

/* A base64url digit's value, '=' read as 63 as 2.6 reads it; -1 for any other byte. */
static int jwt_b64_digit(char c)
{
	return c == '=' ? 63 : b64_digit_val((unsigned char)c, true);
}

int jwt_b64_dec(const char *in, size_t len, void *out, size_t outsz)
{
	unsigned char *o = out;
	size_t n = len / 4 * 3 + (len % 4 ? len % 4 - 1 : 0);
	uint32_t v = 0;
	size_t i, k = 0;

	if (len % 4 == 1 || n > outsz || n > INT_MAX)
		return -1;
	for (i = 0; i < len; i++) {
		int d = jwt_b64_digit(in[i]);

		if (d < 0)
			return -1;
		v = v << 6 | (uint32_t)d;
		if (i % 4 == 3 || i == len - 1) {
			/* a group of 4, 3 or 2 digits: 3, 2 or 1 bytes, the spare low bits dropped
			 */
			int digits = (int)(i % 4) + 1;

			v <<= 6 * (4 - digits);
			for (int b = 0; b < digits - 1; b++)
				o[k++] = (unsigned char)(v >> (16 - 8 * b));
			v = 0;
		}
	}
	return (int)k;
}

/* The digest of an algorithm's family member (256, 384, 512). */
static const EVP_MD *jwt_md(enum jwt_alg alg)
{
	switch ((alg - JWT_HS256) % 3) {
	case 0:
		return EVP_sha256();
	case 1:
		return EVP_sha384();
	default:
		return EVP_sha512();
	}
}

static int jwt_hmac(const char *si, size_t silen, const EVP_MD *md, const char *secret,
		    size_t secretlen, const unsigned char *sig, size_t siglen)
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int maclen = 0;

	if (!HMAC(md, secretlen ? secret : "", (int)secretlen, (const unsigned char *)si, silen,
		  mac, &maclen))
		return JWT_VRFY_OOM;
	if (maclen != siglen || CRYPTO_memcmp(mac, sig, siglen) != 0)
		return JWT_VRFY_KO;
	return JWT_VRFY_OK;
}

/* Turns a raw r||s ECDSA signature (two halves of equal length) into DER, allocated by
 * OpenSSL into *der. Returns its length, JWT_VRFY_INVALID for an odd length, or
 * JWT_VRFY_OOM. */
static int jwt_ecdsa_der(const unsigned char *sig, size_t siglen, unsigned char **der)
{
	ECDSA_SIG *es;
	BIGNUM *r, *s;
	int n;

	if (siglen & 1)
		return JWT_VRFY_INVALID;
	es = ECDSA_SIG_new();
	r = BN_bin2bn(sig, (int)(siglen / 2), NULL);
	s = BN_bin2bn(sig + siglen / 2, (int)(siglen / 2), NULL);
	if (!es || !r || !s || !ECDSA_SIG_set0(es, r, s)) {
		BN_free(r);
		BN_free(s);
		ECDSA_SIG_free(es);
		return JWT_VRFY_OOM;
	}
	*der = NULL;
	n = i2d_ECDSA_SIG(es, der);
	ECDSA_SIG_free(es);
	return n > 0 ? n : JWT_VRFY_OOM;
}

static int jwt_pkey_verify(const char *si, size_t silen, enum jwt_alg alg, EVP_PKEY *pkey,
			   const unsigned char *sig, size_t siglen)
{
	unsigned char *der = NULL;
	EVP_MD_CTX *ctx;
	int rc;

	if (alg >= JWT_ES256) {
		rc = jwt_ecdsa_der(sig, siglen, &der);
		if (rc < 0)
			return rc;
		sig = der;
		siglen = (size_t)rc;
	}
	ctx = EVP_MD_CTX_new();
	if (!ctx) {
		OPENSSL_free(der);
		return JWT_VRFY_OOM;
	}
	rc = JWT_VRFY_KO;
	if (EVP_DigestVerifyInit(ctx, NULL, jwt_md(alg), NULL, pkey) == 1 &&
	    EVP_DigestVerify(ctx, sig, siglen, (const unsigned char *)si, silen) == 1)
		rc = JWT_VRFY_OK;
	EVP_MD_CTX_free(ctx);
	OPENSSL_free(der);
	return rc;
}

int jwt_verify(const char *tok, size_t len, enum jwt_alg alg, const char *secret, size_t secretlen,
	       struct evp_pkey_st *pkey, unsigned char *scratch, size_t scratchsz)
{
	const char *d1 = memchr(tok, '.', len), *d2, *s;
	size_t silen, slen;
	int n;

	if (!d1)
		return JWT_VRFY_INVALID;
	d2 = memchr(d1 + 1, '.', len - (size_t)(d1 + 1 - tok));
	if (!d2) /* as 2.6: a header and a payload without signature pass "none" */
		return alg == JWT_ALG_NONE ? JWT_VRFY_OK : JWT_VRFY_INVALID;
	if (memchr(d2 + 1, '.', len - (size_t)(d2 + 1 - tok)))
		return JWT_VRFY_INVALID;
	silen = (size_t)(d2 - tok);
	s = d2 + 1;
	slen = len - silen - 1;
	if (alg == JWT_ALG_NONE)
		return slen ? JWT_VRFY_KO : JWT_VRFY_OK;
	if (alg >= JWT_PS256)
		return JWT_VRFY_UNMANAGED;
	if (!slen)
		return JWT_VRFY_INVALID;
	n = jwt_b64_dec(s, slen, scratch, scratchsz);
	if (n < 0)
		return JWT_VRFY_INVALID;
	if (!jwt_alg_has_key(alg))
		return jwt_hmac(tok, silen, jwt_md(alg), secret, secretlen, scratch, (size_t)n);
	if (!pkey)
		return JWT_VRFY_UNKNOWN_CERT;
	return jwt_pkey_verify(tok, silen, alg, pkey, scratch, (size_t)n);
}
