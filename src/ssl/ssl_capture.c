/* tune.ssl.capture-cipherlist-size: the ClientHello's cipher list, extensions, curves and
 * point formats, kept per connection (SSL ex_data, freed with the SSL object) for the
 * ssl_fc_cipherlist_* and related fetches (ssl_sample.c). The parsers of the extension
 * bodies are pure and fuzzed (tests/fuzz/fuzz_ssl_capture.c).
 */
#include <stdlib.h>
#include <string.h>

#include <sample/hash.h>
#include <ssl/ssl.h>
#include <ssl/ssl_capture.h>

#include "ssl_int.h"

/* SSL ex_data index of a struct ssl_capture: set while the configuration is checked (main
 * thread, before the loop threads start), read-only afterwards */
static int capture_idx = -1;

static void capture_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl,
			 void *argp)
{
	(void)parent;
	(void)ad;
	(void)idx;
	(void)argl;
	(void)argp;
	free(ptr);
}

int ssl_capture_setup(SSL_CTX *ctx, char *err, size_t errlen)
{
	(void)ctx;
	if (!ssl_set.capture_cipherlist || capture_idx >= 0)
		return 0;
	capture_idx = SSL_get_ex_new_index(0, NULL, NULL, NULL, capture_free);
	if (capture_idx < 0) {
		snprintf(err, errlen, "out of memory (capture-cipherlist)");
		return -1;
	}
	return 0;
}

long ssl_capture_groups(const unsigned char *p, size_t len, const unsigned char **out)
{
	size_t n;

	if (len < 2)
		return -1;
	n = ((size_t)p[0] << 8) | p[1];
	if (n + 2 > len || (n & 1))
		return -1;
	*out = p + 2;
	return (long)n;
}

long ssl_capture_ecformats(const unsigned char *p, size_t len, const unsigned char **out)
{
	size_t n;

	if (len < 1)
		return -1;
	n = p[0];
	if (n + 1 > len)
		return -1;
	*out = p + 1;
	return (long)n;
}

/* Appends at most <max> bytes of <src> (<len>) to <cap>'s data, rounded down to whole
 * 2-byte entries when <pairs>; returns the number written. */
static uint16_t capture_put(struct ssl_capture *cap, size_t *off, const unsigned char *src,
			    size_t len, size_t max, bool pairs)
{
	if (len > max)
		len = pairs ? max & ~(size_t)1 : max;
	if (len)
		memcpy(cap->data + *off, src, len);
	*off += len;
	return (uint16_t)len;
}

void ssl_capture_hello(SSL *ssl)
{
	size_t max = (size_t)ssl_set.capture_cipherlist, off = 0, clen, glen = 0, flen = 0;
	const unsigned char *ciph, *p, *groups = NULL, *formats = NULL;
	int *ext = NULL;
	size_t next = 0, elen, len;
	struct ssl_capture *cap, *old;
	long r;

	if (capture_idx < 0 || max > 65535)
		return;
	clen = SSL_client_hello_get0_ciphers(ssl, &ciph);
	if (SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_supported_groups, &p, &len) &&
	    (r = ssl_capture_groups(p, len, &groups)) >= 0)
		glen = (size_t)r;
	if (SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_ec_point_formats, &p, &len) &&
	    (r = ssl_capture_ecformats(p, len, &formats)) >= 0)
		flen = (size_t)r;
	if (!SSL_client_hello_get1_extensions_present(ssl, &ext, &next))
		next = 0;
	elen = next * 2 < max ? next * 2 : max & ~(size_t)1;
	cap = malloc(sizeof(*cap) + 3 * max + elen);
	if (!cap)
		goto out; /* the fetches find nothing on this connection */
	cap->hello_ver = (uint16_t)SSL_client_hello_get0_legacy_version(ssl);
	cap->xxh = hash_xxh64(ciph, clen, 0);
	cap->ciph_len = capture_put(cap, &off, ciph, clen, max, true);
	cap->ext_len = (uint16_t)elen;
	for (size_t i = 0; i < elen / 2; i++) {
		cap->data[off++] = (unsigned char)((unsigned)ext[i] >> 8);
		cap->data[off++] = (unsigned char)ext[i];
	}
	cap->ec_len = capture_put(cap, &off, groups, glen, max, true);
	cap->ecf_len = capture_put(cap, &off, formats, flen, max, false);
	/* a second ClientHello (after a HelloRetryRequest) replaces the first */
	old = SSL_get_ex_data(ssl, capture_idx);
	if (!SSL_set_ex_data(ssl, capture_idx, cap)) {
		free(cap);
		goto out;
	}
	free(old);
out:
	OPENSSL_free(ext);
}

const struct ssl_capture *ssl_capture_get(SSL *ssl)
{
	return capture_idx < 0 ? NULL : SSL_get_ex_data(ssl, capture_idx);
}
