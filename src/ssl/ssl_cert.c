/* The certificate store: every certificate file named by a "crt", a crt-list line or the
 * runtime API is loaded once (certificate, key, chain, and the .key/.ocsp/.issuer files
 * beside it as "ssl-load-extra-files" says), with the names it serves (CN and DNS SANs).
 * Main thread only (configuration and the runtime API).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <ssl/ssl.h>

#include "ssl_int.h"

struct list ssl_certs = LIST_HEAD_INIT(ssl_certs);

struct ssl_cert *ssl_cert_lookup(const char *path)
{
	struct ssl_cert *crt;

	list_for_each_entry(crt, &ssl_certs, list) if (!strcmp(crt->path, path)) return crt;
	return NULL;
}

void ssl_cert_release(struct ssl_cert *crt)
{
	if (!crt)
		return;
	X509_free(crt->cert);
	EVP_PKEY_free(crt->key);
	if (crt->chain)
		sk_X509_pop_free(crt->chain, X509_free);
	X509_free(crt->issuer);
	free(crt->ocsp);
	for (int i = 0; i < crt->nb_names; i++)
		free(crt->names[i]);
	free(crt->names);
	free(crt->path);
	free(crt);
}

static int cert_add_name(struct ssl_cert *crt, const char *name, size_t len)
{
	char **n;
	char *s;

	if (!len || len > 255)
		return 0;
	for (int i = 0; i < crt->nb_names; i++)
		if (strlen(crt->names[i]) == len && !strncasecmp(crt->names[i], name, len))
			return 0;
	n = realloc(crt->names, sizeof(*n) * (size_t)(crt->nb_names + 1));
	if (!n)
		return -1;
	crt->names = n;
	s = malloc(len + 1);
	if (!s)
		return -1;
	for (size_t i = 0; i < len; i++)
		s[i] = (char)tolower((unsigned char)name[i]);
	s[len] = '\0';
	crt->names[crt->nb_names++] = s;
	return 0;
}

/* The names a certificate serves: its DNS SANs and subject CNs. */
static int cert_collect_names(struct ssl_cert *crt)
{
	GENERAL_NAMES *sans = X509_get_ext_d2i(crt->cert, NID_subject_alt_name, NULL, NULL);
	X509_NAME *subj = X509_get_subject_name(crt->cert);
	int rc = 0, pos = -1;

	for (int i = 0; sans && i < sk_GENERAL_NAME_num(sans) && rc == 0; i++) {
		const GENERAL_NAME *gn = sk_GENERAL_NAME_value(sans, i);

		if (gn->type == GEN_DNS)
			rc = cert_add_name(crt, (const char *)ASN1_STRING_get0_data(gn->d.dNSName),
					   (size_t)ASN1_STRING_length(gn->d.dNSName));
	}
	GENERAL_NAMES_free(sans);
	while (rc == 0 && (pos = X509_NAME_get_index_by_NID(subj, NID_commonName, pos)) >= 0) {
		ASN1_STRING *d = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subj, pos));
		unsigned char *utf8 = NULL;
		int len = ASN1_STRING_to_UTF8(&utf8, d);

		if (len > 0)
			rc = cert_add_name(crt, (const char *)utf8, (size_t)len);
		OPENSSL_free(utf8);
	}
	return rc;
}

char *ssl_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;

	if (!f) {
		snprintf(err, errlen, "unable to stat SSL certificate from file '%s' : %s", path,
			 strerror(errno));
		return NULL;
	}
	while (1) {
		size_t r;

		if (n == cap) {
			char *nb;

			if (cap >= 64 << 20) { /* no certificate file is that big */
				snprintf(err, errlen, "file '%s' is too large", path);
				goto fail;
			}
			cap = cap ? cap * 2 : 16384;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "unable to read '%s'", path);
		goto fail;
	}
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
fail:
	fclose(f);
	free(buf);
	return NULL;
}

/* Reads the certificate, the key (if any) and the chain from PEM text. */
static int cert_parse_pem(struct ssl_cert *crt, const char *pem, size_t len, char *err,
			  size_t errlen)
{
	BIO *b = BIO_new_mem_buf(pem, (int)len);
	X509 *ca;

	if (!b) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	crt->key = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
	ERR_clear_error();
	BIO_free(b);
	b = BIO_new_mem_buf(pem, (int)len);
	if (!b) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	crt->cert = PEM_read_bio_X509_AUX(b, NULL, NULL, NULL);
	if (!crt->cert) {
		BIO_free(b);
		ERR_clear_error();
		snprintf(err, errlen, "unable to load certificate from file '%s'", crt->path);
		return -1;
	}
	while ((ca = PEM_read_bio_X509(b, NULL, NULL, NULL))) {
		if (!crt->chain && !(crt->chain = sk_X509_new_null())) {
			X509_free(ca);
			break;
		}
		if (!sk_X509_push(crt->chain, ca)) {
			X509_free(ca);
			break;
		}
	}
	ERR_clear_error();
	BIO_free(b);
	return 0;
}

/* <path>.ext, or NULL when it does not exist. */
static char *extra_file(const char *path, const char *ext, size_t *len)
{
	char name[4096], err[64];

	if ((size_t)snprintf(name, sizeof(name), "%s%s", path, ext) >= sizeof(name))
		return NULL;
	if (access(name, R_OK) != 0)
		return NULL;
	return ssl_read_file(name, len, err, sizeof(err));
}

/* Checks what the files gave and fills the names. */
/* <mem>: PEM text from the runtime API, whose message HAProxy words differently. */
static int cert_finish(struct ssl_cert *crt, bool mem, char *err, size_t errlen)
{
	if (!crt->key) {
		/* HAProxy names the last place it looked */
		snprintf(err, errlen, "No Private Key found in '%s%s'", crt->path,
			 (ssl_set.extra_files & SSL_EXTRA_KEY) ? ".key" : "");
		return -1;
	}
	if (!X509_check_private_key(crt->cert, crt->key)) {
		ERR_clear_error();
		snprintf(err, errlen,
			 "inconsistencies between private key and certificate loaded %s'%s'",
			 mem ? "from PEM file " : "", crt->path);
		return -1;
	}
	if (cert_collect_names(crt) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static struct ssl_cert *cert_new(const char *path, char *err, size_t errlen)
{
	struct ssl_cert *crt = calloc(1, sizeof(*crt));

	if (!crt || !(crt->path = strdup(path))) {
		free(crt);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	list_init(&crt->list);
	list_init(&crt->insts);
	return crt;
}

struct ssl_cert *ssl_cert_load_mem(const char *path, const char *pem, size_t len, char *err,
				   size_t errlen)
{
	struct ssl_cert *crt = cert_new(path, err, errlen);

	if (!crt)
		return NULL;
	if (cert_parse_pem(crt, pem, len, err, errlen) < 0 ||
	    cert_finish(crt, true, err, errlen) < 0) {
		ssl_cert_release(crt);
		return NULL;
	}
	return crt;
}

struct ssl_cert *ssl_cert_load_file(const char *path, char *err, size_t errlen)
{
	struct ssl_cert *crt = cert_new(path, err, errlen);
	size_t len;
	char *pem, *extra;

	if (!crt)
		return NULL;
	pem = ssl_read_file(path, &len, err, errlen);
	if (!pem || cert_parse_pem(crt, pem, len, err, errlen) < 0)
		goto fail;
	free(pem);
	pem = NULL;
	if (!crt->key && (ssl_set.extra_files & SSL_EXTRA_KEY) &&
	    (extra = extra_file(path, ".key", &len))) {
		BIO *b = BIO_new_mem_buf(extra, (int)len);

		crt->key = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
		ERR_clear_error();
		BIO_free(b);
		free(extra);
	}
	if ((ssl_set.extra_files & SSL_EXTRA_OCSP) && (extra = extra_file(path, ".ocsp", &len))) {
		crt->ocsp = (unsigned char *)extra;
		crt->ocsp_len = len;
	}
	if ((ssl_set.extra_files & SSL_EXTRA_ISSUER) &&
	    (extra = extra_file(path, ".issuer", &len))) {
		BIO *b = BIO_new_mem_buf(extra, (int)len);

		crt->issuer = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
		ERR_clear_error();
		BIO_free(b);
		free(extra);
	}
	if (cert_finish(crt, false, err, errlen) < 0)
		goto fail;
	return crt;
fail:
	free(pem);
	ssl_cert_release(crt);
	return NULL;
}

struct ssl_cert *ssl_cert_get(const char *path, char *err, size_t errlen)
{
	struct ssl_cert *crt = ssl_cert_lookup(path);

	if (crt)
		return crt;
	crt = ssl_cert_load_file(path, err, errlen);
	if (crt)
		list_append(&ssl_certs, &crt->list);
	return crt;
}
