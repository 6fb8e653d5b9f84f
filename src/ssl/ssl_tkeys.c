/* TLS session ticket keys read from a "tls-ticket-keys" file: one reference per file,
 * shared by the bind lines naming it, whose current key set the ticket callback of their
 * contexts reads on every thread. A rotation ("set ssl tls-key") publishes a new immutable
 * set with an atomic pointer swap and frees the old one once every thread has been
 * quiescent (event/qsbr.h): handshakes take no lock and no reference count. Without the
 * keyword, OpenSSL's own random keys of the bind line's initial context are used for the
 * process's life, as in HAProxy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <base/atomic.h>
#include <base/compiler.h>
#include <event/qsbr.h>
#include <ssl/ssl.h>
#include <ssl/tkeys.h>

#include "ssl_int.h"

struct ssl_tkeys *ssl_tkeys_refs;
static int tkeys_next_id;
static int tkeys_idx = -1; /* SSL_CTX ex_data: the struct ssl_tkeys of its bind line */
static EVP_CIPHER *tkeys_aes128, *tkeys_aes256; /* fetched once: no provider lookup per
						 * handshake */

/* Replaced key sets waiting for a grace period (main thread only). */
struct tkeys_grave {
	struct tkeys_grave *next;
	struct qs_snap snap;
	struct tkey_set *set;
};
static struct tkeys_grave *tkeys_graves;

static void tkeys_reap(bool all)
{
	struct tkeys_grave **pg = &tkeys_graves, *g;

	while ((g = *pg)) {
		if (!all && !qs_passed(&g->snap)) {
			pg = &g->next;
			continue;
		}
		*pg = g->next;
		OPENSSL_cleanse(g->set, sizeof(*g->set));
		free(g->set);
		free(g);
	}
}

int ssl_tkeys_push(struct ssl_tkeys *tk, const unsigned char *key, int len)
{
	struct tkey_set *old = tk->cur, *set;
	struct tkeys_grave *g;

	if (len != old->len)
		return -1;
	set = malloc(sizeof(*set));
	g = malloc(sizeof(*g));
	if (!set || !g) {
		free(set);
		free(g);
		return -2;
	}
	set->len = len;
	for (int i = 0; i < TKEYS_NB - 1; i++)
		memcpy(set->key[i], old->key[i + 1], (size_t)len);
	memcpy(set->key[TKEYS_NB - 1], key, (size_t)len);
	HA_ATOMIC_STORE(&tk->cur, set);
	g->set = old;
	qs_snapshot(&g->snap);
	g->next = tkeys_graves;
	tkeys_graves = g;
	tkeys_reap(false);
	return 0;
}

/* Reads <path> whole into a malloc'ed buffer (*len bytes). NULL on error (errno). */
static char *tkeys_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *nb;
	size_t cap = 0, n = 0, r;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			if (cap >= 1 << 20 || !(nb = realloc(buf, cap = cap ? cap * 2 : 4096))) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r);
	if (ferror(f)) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

static int tkeys_init_once(void)
{
	if (tkeys_idx < 0)
		tkeys_idx = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL);
	if (!tkeys_aes128)
		tkeys_aes128 = EVP_CIPHER_fetch(NULL, "AES-128-CBC", NULL);
	if (!tkeys_aes256)
		tkeys_aes256 = EVP_CIPHER_fetch(NULL, "AES-256-CBC", NULL);
	return tkeys_idx >= 0 && tkeys_aes128 && tkeys_aes256 ? 0 : -1;
}

int ssl_tkeys_load(struct ssl_bind *sb, const char *path, char *err, size_t errlen)
{
	struct ssl_tkeys *tk, **last;
	struct tkey_set *set;
	size_t len = 0;
	char *buf;
	int line, r;

	if (sb->tkeys) {
		snprintf(err, errlen, "'%s' : only one 'tls-ticket-keys' per bind line", path);
		return -1;
	}
	for (tk = ssl_tkeys_refs; tk; tk = tk->next)
		if (!strcmp(tk->path, path))
			goto found;
	buf = tkeys_read_file(path, &len);
	if (!buf) {
		snprintf(err, errlen, "'%s' : unable to load ssl tickets keys file", path);
		return -1;
	}
	set = calloc(1, sizeof(*set));
	if (!set) {
		free(buf);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r = tkeys_parse(buf, len, set, &line);
	OPENSSL_cleanse(buf, len);
	free(buf);
	if (r != TKP_OK) {
		if (r == TKP_ERR_FEW)
			snprintf(err, errlen,
				 "'%s' : please supply at least %d keys in the tls-tickets-file",
				 path, TKEYS_NB);
		else
			snprintf(err, errlen, "'%s' : %s on line %d", path,
				 r == TKP_ERR_B64 ? "unable to decode base64 key"
						  : "wrong sized key",
				 line);
		goto fail_set;
	}
	tk = calloc(1, sizeof(*tk));
	if (!tk || !(tk->path = strdup(path)) || tkeys_init_once() < 0) {
		free(tk);
		snprintf(err, errlen, "out of memory");
		goto fail_set;
	}
	tk->cur = set;
	tk->id = tkeys_next_id++;
	for (last = &ssl_tkeys_refs; *last; last = &(*last)->next)
		;
	*last = tk;
found:
	tk->refs++;
	sb->tkeys = tk;
	return 0;
fail_set:
	OPENSSL_cleanse(set, sizeof(*set));
	free(set);
	return -1;
}

void ssl_tkeys_free(struct ssl_bind *sb)
{
	struct ssl_tkeys *tk = sb->tkeys, **pt;

	sb->tkeys = NULL;
	if (!tk || --tk->refs > 0)
		return;
	for (pt = &ssl_tkeys_refs; *pt && *pt != tk; pt = &(*pt)->next)
		;
	if (*pt)
		*pt = tk->next;
	OPENSSL_cleanse(tk->cur, sizeof(*tk->cur));
	free(tk->cur);
	free(tk->path);
	free(tk);
	if (!ssl_tkeys_refs) { /* the last bind line went: nothing reads keys any more */
		tkeys_reap(true);
		EVP_CIPHER_free(tkeys_aes128);
		EVP_CIPHER_free(tkeys_aes256);
		tkeys_aes128 = tkeys_aes256 = NULL;
	}
}

/* The ticket key callback of the contexts of a bind line with a keys file: <enc> 1 to
 * encrypt a new ticket (with key[1]), 0 to decrypt one (with the key it names). Returns
 * 1 (ok), 2 (ok, but issue a new ticket: an older key), 0 (unknown key: full handshake)
 * or -1 (error). Any loop thread, inside its handlers (the set cannot be freed under it).
 */
static int tkeys_cb(SSL *ssl, unsigned char name[TKEY_NAME], unsigned char *iv,
		    EVP_CIPHER_CTX *cctx, EVP_MAC_CTX *hctx, int enc)
{
	const struct ssl_tkeys *tk = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), tkeys_idx);
	const struct tkey_set *set;
	const unsigned char *key;
	const EVP_CIPHER *cipher;
	OSSL_PARAM params[3];
	int half, k = 1;

	if (unlikely(!tk))
		return enc ? -1 : 0;
	set = HA_ATOMIC_LOAD(&tk->cur);
	half = (set->len - TKEY_NAME) / 2;
	cipher = half == 16 ? tkeys_aes128 : tkeys_aes256;
	if (enc) {
		key = set->key[1];
		memcpy(name, key, TKEY_NAME);
		if (RAND_bytes(iv, EVP_CIPHER_get_iv_length(cipher)) <= 0 ||
		    !EVP_EncryptInit_ex(cctx, cipher, NULL, key + TKEY_NAME, iv))
			return -1;
	} else {
		for (k = 0; k < TKEYS_NB && memcmp(name, set->key[k], TKEY_NAME); k++)
			;
		if (k == TKEYS_NB)
			return 0;
		key = set->key[k];
		if (!EVP_DecryptInit_ex(cctx, cipher, NULL, key + TKEY_NAME, iv))
			return -1;
	}
	params[0] = OSSL_PARAM_construct_octet_string(
		OSSL_MAC_PARAM_KEY, (void *)(key + TKEY_NAME + half), (size_t)half);
	params[1] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHA256", 0);
	params[2] = OSSL_PARAM_construct_end();
	if (!EVP_MAC_CTX_set_params(hctx, params))
		return -1;
	return k == 1 ? 1 : 2;
}

int ssl_tkeys_setup(SSL_CTX *ctx, struct ssl_bind *sb, char *err, size_t errlen)
{
	if (!sb || !sb->tkeys)
		return 0;
	if (!SSL_CTX_set_ex_data(ctx, tkeys_idx, sb->tkeys) ||
	    !SSL_CTX_set_tlsext_ticket_key_evp_cb(ctx, tkeys_cb)) {
		snprintf(err, errlen, "unable to set the TLS ticket keys of '%s'", sb->tkeys->path);
		return -1;
	}
	return 0;
}
