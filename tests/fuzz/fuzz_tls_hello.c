// FUZZ_SRCS: src/sample/fetch_tls_hello.c
// FUZZ_FLAGS: -DTLS_HELLO_PURE
/* libFuzzer target for the ClientHello reader behind the req.ssl_* fetches
 * (sample/tls_hello.h): the input is the client's first bytes in an exact-size heap copy so
 * that ASan catches any read past its end; every view returned must lie inside the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sample/tls_hello.h>

static void fz_in(const unsigned char *in, size_t n, const unsigned char *p, size_t l)
{
	if (p < in || l > n || p - in > (ptrdiff_t)(n - l))
		abort();
}

static void fz_ext(const unsigned char *in, size_t n, const unsigned char *ext, size_t len,
		   unsigned int type)
{
	const unsigned char *b, *v;
	size_t bl, vl;

	if (tls_hello_ext_find(ext, len, type, &b, &bl) != 1)
		return;
	fz_in(in, n, b, bl);
	if (type == TLS_EXT_SNI && tls_hello_sni(b, bl, &v, &vl) == 1)
		fz_in(in, n, v, vl);
	if (type == TLS_EXT_ALPN && tls_hello_alpn(b, bl, &v, &vl) == 1)
		fz_in(in, n, v, vl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *in = malloc(size ? size : 1);
	const unsigned char *ext;
	size_t len;
	int v;

	if (!in)
		return 0;
	memcpy(in, data, size);
	tls_hello_type(in, size, &v);
	tls_hello_version(in, size, &v);
	if (tls_hello_exts(in, size, &ext, &len) == 0) {
		fz_in(in, size, ext, len);
		fz_ext(in, size, ext, len, TLS_EXT_SNI);
		fz_ext(in, size, ext, len, TLS_EXT_ALPN);
		fz_ext(in, size, ext, len, TLS_EXT_GROUPS);
		fz_ext(in, size, ext, len, TLS_EXT_SESSION_TICKET);
	}
	free(in);
	return 0;
}
