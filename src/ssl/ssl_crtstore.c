/* "crt-store [NAME]" sections (HAProxy 3.x): certificates loaded by name, each from its
 * own files ("load crt F [key F] [ocsp F] [issuer F] [alias A]"), under the section's
 * crt-base and key-base. A bind line names one as "@NAME/CRT-OR-ALIAS", or, from a store
 * without a name, as CRT-OR-ALIAS. Parse time only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include <cfg/cfg.h>
#include <ssl/ssl.h>

#include "ssl_int.h"

#define CRTSTORE_SEC 0x20000000u /* local to this file: nothing else parses it */

static struct {
	char *name; /* the current section's name, or NULL */
	char *crt_base, *key_base;
} cs;

static int cs_begin(struct cfg_ctx *ctx)
{
	free(cs.name);
	free(cs.crt_base);
	free(cs.key_base);
	memset(&cs, 0, sizeof(cs));
	if (ctx->nargs > 2) {
		cfg_alert(ctx, "'crt-store' expects at most one name.");
		return -1;
	}
	if (ctx->nargs == 2) {
		if (strchr(ctx->args[1], '/')) {
			cfg_alert(ctx, "'crt-store' : name '%s' may not contain '/'.",
				  ctx->args[1]);
			return -1;
		}
		cs.name = strdup(ctx->args[1]);
		if (!cs.name) {
			cfg_alert(ctx, "out of memory.");
			return -1;
		}
	}
	return 0;
}

static int cs_base(struct cfg_ctx *ctx)
{
	char **dst = ctx->args[0][0] == 'c' ? &cs.crt_base : &cs.key_base;

	if (ctx->nargs != 2) {
		cfg_alert(ctx, "'%s' expects a directory path as an argument.", ctx->args[0]);
		return -1;
	}
	free(*dst);
	*dst = strdup(ctx->args[1]);
	if (!*dst) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	return 0;
}

/* Reads <path> into a malloc'ed buffer appended to <pem> (NUL-terminated). */
static int cs_append_file(char **pem, size_t *len, const char *path, char *err, size_t errlen)
{
	size_t n;
	char *data = ssl_read_file(path, &n, err, errlen), *nb;

	if (!data)
		return -1;
	nb = realloc(*pem, *len + n + 2);
	if (!nb) {
		free(data);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(nb + *len, data, n);
	*len += n;
	nb[(*len)++] = '\n';
	nb[*len] = '\0';
	*pem = nb;
	free(data);
	return 0;
}

/* load crt F [key F] [ocsp F] [issuer F] [alias A] */
static int cs_load(struct cfg_ctx *ctx)
{
	const char *crt = NULL, *key = NULL, *ocsp = NULL, *issuer = NULL, *alias = NULL;
	char *crt_path = NULL, *key_path = NULL, *other = NULL, *pem = NULL, name[4096];
	char err[512];
	size_t len = 0;
	struct ssl_cert *c = NULL;
	int i;

	for (i = 1; i + 1 < ctx->nargs; i += 2) {
		const char *k = ctx->args[i], *v = ctx->args[i + 1];

		if (!strcmp(k, "crt"))
			crt = v;
		else if (!strcmp(k, "key"))
			key = v;
		else if (!strcmp(k, "ocsp"))
			ocsp = v;
		else if (!strcmp(k, "issuer"))
			issuer = v;
		else if (!strcmp(k, "alias"))
			alias = v;
		else if (!strcmp(k, "sctl") || !strcmp(k, "ocsp-update")) {
			cfg_alert(ctx, "'load' : '%s' is not supported yet.", k);
			return -1;
		} else {
			cfg_alert(ctx,
				  "'load' : unknown keyword '%s' (expects crt, key, ocsp, issuer "
				  "or alias).",
				  k);
			return -1;
		}
	}
	if (i != ctx->nargs || !crt) {
		cfg_alert(ctx,
			  "'load' expects 'crt <file>' and optional '<keyword> <value>' pairs.");
		return -1;
	}
	if ((size_t)snprintf(name, sizeof(name), "%s%s%s%s", cs.name ? "@" : "",
			     cs.name ? cs.name : "", cs.name ? "/" : "",
			     alias ? alias : crt) >= sizeof(name)) {
		cfg_alert(ctx, "'load' : name too long.");
		return -1;
	}
	if (ssl_cert_lookup(name)) {
		cfg_alert(ctx, "'load' : certificate '%s' is already loaded.", name);
		return -1;
	}
	crt_path = ssl_path_join(cs.crt_base ? cs.crt_base : ssl_set.crt_base, crt);
	key_path = key ? ssl_path_join(cs.key_base ? cs.key_base : ssl_set.key_base, key) : NULL;
	if (!crt_path || (key && !key_path)) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	if (!key) {
		c = ssl_cert_load_file(crt_path, err, sizeof(err)); /* key inside or beside */
		if (c) {
			free(c->path);
			c->path = strdup(name);
			if (!c->path) {
				snprintf(err, sizeof(err), "out of memory");
				goto fail;
			}
		}
	} else if (cs_append_file(&pem, &len, crt_path, err, sizeof(err)) == 0 &&
		   cs_append_file(&pem, &len, key_path, err, sizeof(err)) == 0)
		c = ssl_cert_load_mem(name, pem, len, err, sizeof(err));
	if (!c)
		goto fail;
	if (ocsp) {
		other = ssl_path_join(cs.crt_base ? cs.crt_base : ssl_set.crt_base, ocsp);
		free(c->ocsp);
		c->ocsp = other ? (unsigned char *)ssl_read_file(other, &c->ocsp_len, err,
								 sizeof(err))
				: NULL;
		free(other);
		if (!c->ocsp)
			goto fail;
	}
	if (issuer) {
		BIO *b;

		other = ssl_path_join(cs.crt_base ? cs.crt_base : ssl_set.crt_base, issuer);
		b = other ? BIO_new_file(other, "r") : NULL;
		X509_free(c->issuer);
		c->issuer = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
		BIO_free(b);
		ERR_clear_error();
		if (!c->issuer) {
			snprintf(err, sizeof(err), "unable to load issuer from '%s'",
				 other ? other : issuer);
			free(other);
			goto fail;
		}
		free(other);
	}
	list_append(&ssl_certs, &c->list);
	free(crt_path);
	free(key_path);
	free(pem);
	return 0;
fail:
	cfg_alert(ctx, "'load' : %s.", err);
	ssl_cert_release(c);
	free(crt_path);
	free(key_path);
	free(pem);
	return -1;
}

static const struct cfg_section cs_section = { "crt-store", CRTSTORE_SEC, cs_begin };

static const struct cfg_kw cs_kws[] = {
	{ "crt-base", CRTSTORE_SEC, cs_base },
	{ "key-base", CRTSTORE_SEC, cs_base },
	{ "load", CRTSTORE_SEC, cs_load },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(cs_kws);

__attribute__((constructor)) static void cs_register_section(void)
{
	cfg_register_section(&cs_section);
}
