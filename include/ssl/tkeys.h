/* TLS session ticket keys ("tls-ticket-keys" files, "show tls-keys", "set ssl tls-key"):
 * the pure parser of a keys file and the base64 codec (ssl_tkeys_parse.c, no I/O, no
 * allocation), and the shared key references handshakes read (ssl_tkeys.c).
 */
#ifndef SSL_TKEYS_H
#define SSL_TKEYS_H

#include <stddef.h>

#define TKEYS_NB 3   /* keys kept: the oldest, the encrypting one, the newest (HAProxy's 3) */
#define TKEY_NAME 16 /* a key starts with its 16-byte name, then the AES and HMAC keys */
#define TKEY_MAX 80  /* 48 (AES-128) or 80 (AES-256) bytes */

/* One immutable set of keys: published whole through an atomic pointer, freed after a
 * grace period once replaced. key[1] encrypts, all three decrypt. */
struct tkey_set {
	int len; /* 48 or 80 */
	unsigned char key[TKEYS_NB][TKEY_MAX];
};

/* tkeys_parse results */
#define TKP_OK 0
#define TKP_ERR_B64 (-1)  /* a line is not base64: *line says which */
#define TKP_ERR_SIZE (-2) /* a key is not 48 or 80 bytes, or not the first one's size */
#define TKP_ERR_FEW (-3)  /* fewer than TKEYS_NB keys */

/* Decodes standard base64 <s> (<len> chars, '=' padding) into <out> of <outsz> bytes.
 * Returns the decoded size (larger than <outsz> when it does not fit: nothing written
 * then), or -1 when <s> is not base64. */
int tkey_b64_decode(const char *s, size_t len, unsigned char *out, size_t outsz);

/* Encodes <len> bytes of <in> into <out> (NUL-terminated). Returns the length, or -1 when
 * <outsz> is too small. */
int tkey_b64_encode(const unsigned char *in, size_t len, char *out, size_t outsz);

/* Parses the contents of a keys file: one base64 key per line (a trailing CR is ignored),
 * all the size of the first (48 or 80 bytes). The last TKEYS_NB keys go into <set>: the
 * penultimate one encrypts. Returns TKP_OK or a TKP_ERR_* with the 1-based line in *line. */
int tkeys_parse(const char *buf, size_t len, struct tkey_set *set, int *line);

/* A keys file loaded by one or more bind lines (HAProxy's "reference"): ids count from 0
 * in load order. Main thread writes (config, CLI); handshakes read <cur>. */
struct ssl_tkeys {
	struct ssl_tkeys *next;
	char *path;
	int id;
	int refs;	      /* bind lines using it */
	struct tkey_set *cur; /* atomic pointer to the current immutable set */
};

/* Every loaded reference, in id order (main thread). */
extern struct ssl_tkeys *ssl_tkeys_refs;

/* Publishes <key> (<len> bytes) as the newest key of <tk>: the former newest now encrypts,
 * the oldest is dropped. Returns 0, -1 when <len> is not the reference's key size, -2 when
 * out of memory. Main thread (the CLI's). */
int ssl_tkeys_push(struct ssl_tkeys *tk, const unsigned char *key, int len);

#endif
