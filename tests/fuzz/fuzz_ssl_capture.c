// FUZZ_SRCS: src/ssl/ssl_capture.c src/sample/hash.c
// FUZZ_FLAGS: -DUSE_OPENSSL=1 -lssl -lcrypto
/* libFuzzer target for the readers of the ClientHello extension bodies that
 * tune.ssl.capture-cipherlist-size keeps (ssl/ssl_capture.c): supported_groups and
 * ec_point_formats. The input is one extension body in an exact-size heap copy so that ASan
 * catches any read past its end; a list found must lie inside the body, and the groups list
 * must be made of whole 2-byte entries.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ssl/ssl.h>
#include <ssl/ssl_capture.h>

struct ssl_settings ssl_set; /* ssl_capture.c reads tune.ssl.capture-cipherlist-size */

static void fz_check(const unsigned char *in, size_t n, long r, const unsigned char *out)
{
	if (r < 0)
		return;
	if (out < in || out + r > in + n)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *in = malloc(size ? size : 1);
	const unsigned char *out = NULL;
	long r;

	if (!in)
		abort();
	memcpy(in, data, size);
	r = ssl_capture_groups(in, size, &out);
	fz_check(in, size, r, out);
	if (r > 0 && (r & 1))
		abort();
	out = NULL;
	r = ssl_capture_ecformats(in, size, &out);
	fz_check(in, size, r, out);
	free(in);
	return 0;
}
