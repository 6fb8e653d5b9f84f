/* JSON Web Tokens (JWS compact serialization: three base64url parts separated by dots)
 * for the jwt_header_query, jwt_payload_query and jwt_verify converters: picking a part,
 * decoding it, and checking the signature with OpenSSL as HAProxy 2.6 does (HMAC, RSA
 * PKCS#1 v1.5 and ECDSA with a raw r||s signature; RSASSA-PSS is not managed by 2.6).
 * Works on (ptr, len), writes into caller buffers, keeps no state: any thread may call it.
 */
#ifndef SAMPLE_JWT_H
#define SAMPLE_JWT_H

#include <stddef.h>

struct evp_pkey_st; /* OpenSSL's EVP_PKEY */

/* Algorithms of RFC 7518 section 3.1. */
enum jwt_alg {
	JWT_ALG_NONE = 0, /* "none": valid when the signature is empty or absent */
	JWT_HS256,
	JWT_HS384,
	JWT_HS512,
	JWT_RS256,
	JWT_RS384,
	JWT_RS512,
	JWT_ES256,
	JWT_ES384,
	JWT_ES512,
	JWT_PS256,
	JWT_PS384,
	JWT_PS512,
};

/* jwt_verify's results, HAProxy 2.6's values. */
#define JWT_VRFY_KO 0 /* the signature does not match */
#define JWT_VRFY_OK 1
#define JWT_VRFY_UNKNOWN_ALG (-1) /* not one of RFC 7518's names */
#define JWT_VRFY_UNMANAGED (-2)	  /* PS256, PS384, PS512 */
#define JWT_VRFY_INVALID (-3)	  /* not three parts, or a signature that cannot be decoded */
#define JWT_VRFY_OOM (-4)
#define JWT_VRFY_UNKNOWN_CERT (-5) /* no key loaded at config time for this name */

/* Parses an algorithm name (case-sensitive, "HS256" ...). Returns enum jwt_alg, or -1. */
int jwt_alg_parse(const char *name, size_t len);

/* True for the algorithms that take a public key (RS*, ES*, PS*). */
static inline int jwt_alg_has_key(enum jwt_alg alg)
{
	return alg >= JWT_RS256;
}

/* The header (part 0: up to the first dot, or all of a token without one) or the payload
 * (part 1: after the first dot, up to the next one or the end; none without a dot) of
 * tok[0..len). Returns 0 with *p, *plen set, or -1. */
int jwt_part(const char *tok, size_t len, int part, const char **p, size_t *plen);

/* Decodes a base64url part into out[0..outsz) as HAProxy 2.6 does: no padding, '=' is
 * read anywhere as the digit 63 ('_'), a length of 4n+1 is invalid, 4n+2 and 4n+3 digits
 * end with 1 and 2 bytes. Returns the length decoded, or -1 when invalid or too long. */
int jwt_b64_dec(const char *in, size_t len, void *out, size_t outsz);

/* Verifies the signature of tok[0..len) with <alg> (not PS*): HMAC algorithms use
 * secret[0..secretlen), the others <pkey> (NULL: JWT_VRFY_UNKNOWN_CERT). The signature is
 * decoded into scratch[0..scratchsz). Returns one of the JWT_VRFY_* values. */
int jwt_verify(const char *tok, size_t len, enum jwt_alg alg, const char *secret, size_t secretlen,
	       struct evp_pkey_st *pkey, unsigned char *scratch, size_t scratchsz);

#endif
