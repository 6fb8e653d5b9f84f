// FUZZ_SRCS: src/sample/jwt.c src/sample/codec.c
// FUZZ_FLAGS: -lcrypto
/* libFuzzer target for the JSON Web Token splitter, decoder and verifier behind the
 * jwt_header_query, jwt_payload_query and jwt_verify converters (sample/jwt.h). The input,
 * an exact-size heap copy so that ASan catches any read past its end, is a token: its
 * header and payload are decoded with tight and roomy buffers (the results must agree),
 * and it is verified with every algorithm: HMAC with a fixed secret, RSA and ECDSA with
 * keys made at start-up (each family also with the other's key), and "none". A result
 * must be one of the documented codes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include <sample/jwt.h>

static EVP_PKEY *fz_rsa, *fz_ec[3];

static void fz_keys(void)
{
	static const char *const curves[] = { "P-256", "P-384", "P-521" };

	if (fz_rsa)
		return;
	fz_rsa = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)1024);
	for (int i = 0; i < 3; i++)
		fz_ec[i] = EVP_PKEY_Q_keygen(NULL, NULL, "EC", curves[i]);
	if (!fz_rsa || !fz_ec[0] || !fz_ec[1] || !fz_ec[2])
		abort();
}

static void fz_part(const char *tok, size_t n, int part)
{
	static unsigned char big[65536], small[16];
	const char *p;
	size_t plen;
	int a, b;

	if (jwt_part(tok, n, part, &p, &plen) < 0)
		return;
	if (p < tok || plen > n || (size_t)(p - tok) > n - plen)
		abort();
	a = jwt_b64_dec(p, plen, big, sizeof(big));
	b = jwt_b64_dec(p, plen, small, sizeof(small));
	if (b >= 0 && (a != b || memcmp(big, small, (size_t)b)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned char scratch[16384];
	char *tok = malloc(size ? size : 1);

	if (!tok)
		return 0;
	fz_keys();
	memcpy(tok, data, size);
	fz_part(tok, size, 0);
	fz_part(tok, size, 1);
	for (int alg = JWT_ALG_NONE; alg <= JWT_PS512; alg++) {
		EVP_PKEY *keys[2] = { fz_rsa, fz_ec[(alg + 2) % 3] };

		for (int k = 0; k < 2; k++) {
			int rc = jwt_verify(tok, size, alg, "secret", 6, keys[k], scratch,
					    sizeof(scratch));

			if (rc < JWT_VRFY_UNKNOWN_CERT || rc > JWT_VRFY_OK)
				abort();
		}
	}
	free(tok);
	return 0;
}
