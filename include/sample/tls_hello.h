/* Pure reader of a TLS ClientHello sitting unencrypted at the start of a byte buffer (the
 * req.ssl_* fetches of TLS pass-through): record and handshake headers, SSLv2 hellos,
 * extensions. No I/O, no allocation, no globals; every length is checked against the
 * bytes given. Results are views into the input.
 * Convention: >= 0 answers, TLS_HELLO_AGAIN when more bytes may tell, TLS_HELLO_NOT when
 * the bytes are not what is looked for.
 */
#ifndef SAMPLE_TLS_HELLO_H
#define SAMPLE_TLS_HELLO_H

#include <stddef.h>
#include <stdint.h>

#define TLS_HELLO_AGAIN (-1) /* incomplete: more bytes may tell */
#define TLS_HELLO_NOT (-2)   /* not TLS, or not the message looked for */

/* extension types read by the fetches */
#define TLS_EXT_SNI 0
#define TLS_EXT_GROUPS 10 /* "supported elliptic curves" of RFC 4492 */
#define TLS_EXT_ALPN 16
#define TLS_EXT_SESSION_TICKET 35

/* Handshake type of the first message (req.ssl_hello_type): any SSLv3+ record (types
 * 0x14-0x17, 0xff) whose first message is whole; the type in <*type>. */
int tls_hello_type(const unsigned char *d, size_t n, int *type);

/* Protocol version announced by the client (req.ssl_ver): the version field of the
 * message after an SSLv3+ record header, or of an SSLv2 client hello, as
 * major * 65536 + minor in <*ver>. */
int tls_hello_version(const unsigned char *d, size_t n, int *ver);

/* The extensions block of a whole ClientHello in a handshake record: <*ext> points to
 * the first extension, <*len> its length (0 without extensions). */
int tls_hello_exts(const unsigned char *d, size_t n, const unsigned char **ext, size_t *len);

/* Finds extension <type> in an extensions block: 1 with its body in <*body>/<*blen>, 0
 * when absent, TLS_HELLO_NOT when the block is malformed before it is found. */
int tls_hello_ext_find(const unsigned char *ext, size_t len, unsigned int type,
		       const unsigned char **body, size_t *blen);

/* The host name of a server_name extension body: 1 with the view in <*name>/<*nlen>,
 * TLS_HELLO_NOT when there is none or it is malformed. */
int tls_hello_sni(const unsigned char *body, size_t blen, const unsigned char **name, size_t *nlen);

/* The first protocol of an ALPN extension body: 1 with the view, TLS_HELLO_NOT if none. */
int tls_hello_alpn(const unsigned char *body, size_t blen, const unsigned char **proto,
		   size_t *plen);

#endif /* SAMPLE_TLS_HELLO_H */
