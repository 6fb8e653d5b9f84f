/* What tune.ssl.capture-cipherlist-size keeps of a ClientHello (ssl/ssl_capture.c), read
 * by the ssl_fc_cipherlist_* and related fetches, and the pure parsers of the extension
 * bodies it reads (fuzzed).
 */
#ifndef SSL_SSL_CAPTURE_H
#define SSL_SSL_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/ssl.h>

/* One ClientHello: data holds the cipher list (2 bytes per cipher), the extension types
 * (2 bytes each, in the order received), the supported groups (2 bytes each) and the EC
 * point formats (1 byte each), each cut to tune.ssl.capture-cipherlist-size bytes. */
struct ssl_capture {
	uint64_t xxh;	    /* xxh64 (seed 0) of the whole cipher list */
	uint16_t hello_ver; /* legacy_version of the ClientHello */
	uint16_t ciph_len, ext_len, ec_len, ecf_len;
	unsigned char data[];
};

/* The capture of <ssl>, or NULL (capture off, out of memory, or no ClientHello yet). */
const struct ssl_capture *ssl_capture_get(SSL *ssl);

/* The body of a supported_groups extension (<p>, <len>): sets *out to the list of 2-byte
 * groups and returns its length, or -1 when malformed. */
long ssl_capture_groups(const unsigned char *p, size_t len, const unsigned char **out);

/* The body of an ec_point_formats extension: the list of 1-byte formats, as above. */
long ssl_capture_ecformats(const unsigned char *p, size_t len, const unsigned char **out);

#endif
