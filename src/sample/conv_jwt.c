/* The jwt_header_query([<path>[,<type>]]), jwt_payload_query([<path>[,<type>]]) and
 * jwt_verify(<alg>,<key>) converters over jwt.c, and the public keys jwt_verify reads:
 * each file named as a constant key is loaded once at parse time (a PEM public key or a
 * PEM certificate) into a process-wide list that is only read afterwards, so the request
 * path never touches the disk. A key named by a variable at run time is looked up in that
 * list by its path ("Unknown certificate" when it is not there), as in HAProxy 2.6.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <sample/arg.h>
#include <sample/conv.h>
#include <sample/json.h>
#include <sample/jwt.h>
#include <sample/sample.h>
#include <sample/vars.h>

/* ---- queries ---- */

static int conv_jwt_query(const struct arg *args, struct sample *smp, void *private)
{
	unsigned int flags = args[1].type == ARGT_SINT ? JSON_Q_INT : 0;
	struct ist in = smp->data.u.str, path = args[0].data.str;
	char *dec = smp_trash(), *out = smp_trash();
	struct json_result res;
	const char *part;
	size_t plen;
	int n;

	if (!dec || !out || jwt_part(in.ptr, in.len, CONV_PRIV_INT(private), &part, &plen) < 0)
		return 0;
	n = jwt_b64_dec(part, plen, dec, smp_trash_size());
	if (n < 0)
		return 0;
	if (args[0].type != ARGT_STR || !path.len) {
		conv_set_str(smp, SMP_T_STR, dec, (size_t)n);
		return 1;
	}
	if (json_query(dec, (size_t)n, path.ptr, path.len, flags, out, smp_trash_size(), &res) < 0)
		return 0;
	return conv_json_set(smp, &res, out, flags);
}

/* ---- public keys ---- */

struct jwt_key {
	struct jwt_key *next;
	EVP_PKEY *pkey;
	size_t len;
	char path[]; /* NUL-terminated */
};

/* Written at parse time only (one thread), read by every thread afterwards. */
static struct jwt_key *jwt_keys;

static EVP_PKEY *jwt_key_find(const char *path, size_t len)
{
	for (struct jwt_key *k = jwt_keys; k; k = k->next)
		if (k->len == len && !memcmp(k->path, path, len))
			return k->pkey;
	return NULL;
}

/* Reads a PEM public key, or the public key of a PEM certificate, from <path>. */
static EVP_PKEY *jwt_key_read(const char *path)
{
	EVP_PKEY *pkey = NULL;
	X509 *crt = NULL;
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	pkey = PEM_read_PUBKEY(f, NULL, NULL, NULL);
	if (!pkey) {
		rewind(f);
		crt = PEM_read_X509(f, NULL, NULL, NULL);
		if (crt)
			pkey = X509_get_pubkey(crt);
		X509_free(crt);
	}
	fclose(f);
	return pkey;
}

/* Loads <path> into the list unless it is there. A file that cannot be read or holds no
 * key is not an error (HAProxy 2.6 accepts the configuration); tokens checked against it
 * get "Unknown certificate". Returns 0, or -1 on allocation failure. */
static int jwt_key_load(const char *path)
{
	size_t len = strlen(path);
	struct jwt_key *k;
	EVP_PKEY *pkey;

	if (jwt_key_find(path, len))
		return 0;
	pkey = jwt_key_read(path);
	if (!pkey)
		return 0;
	k = malloc(sizeof(*k) + len + 1);
	if (!k) {
		EVP_PKEY_free(pkey);
		return -1;
	}
	k->pkey = pkey;
	k->len = len;
	memcpy(k->path, path, len + 1);
	k->next = jwt_keys;
	jwt_keys = k;
	return 0;
}

__attribute__((destructor)) static void jwt_keys_free(void)
{
	while (jwt_keys) {
		struct jwt_key *k = jwt_keys;

		jwt_keys = k->next;
		EVP_PKEY_free(k->pkey);
		free(k);
	}
}

/* ---- jwt_verify ---- */

/* A constant algorithm must be known and managed (it becomes an integer); a constant key
 * is loaded when the algorithm takes a public key or is only known at run time. */
static int conv_jwt_verify_check(struct arg *args, void *private, char *err, size_t errsz)
{
	int alg = -1;

	conv_arg_str_or_var(&args[0]); /* a variable name ("txn.x"), or a constant */
	conv_arg_str_or_var(&args[1]);
	if (args[0].type == ARGT_STR) {
		alg = jwt_alg_parse(args[0].data.str.ptr, args[0].data.str.len);
		if (alg < 0) {
			snprintf(err, errsz, "unknown JWT algorithm: %s", args[0].data.str.ptr);
			return -1;
		}
		if (alg >= JWT_PS256) {
			snprintf(err, errsz, "RSASSA-PSS JWS signing not managed yet");
			return -1;
		}
		arg_set_sint(&args[0], alg);
	}
	if (args[1].type == ARGT_STR && (alg < 0 || jwt_alg_has_key(alg)) &&
	    jwt_key_load(args[1].data.str.ptr) < 0) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	return 0;
}

static int conv_jwt_verify(const struct arg *args, struct sample *smp, void *private)
{
	unsigned char *scratch = (unsigned char *)smp_trash();
	struct ist in = smp->data.u.str, key, name;
	EVP_PKEY *pkey = NULL;
	long long alg;

	if (!scratch)
		return 0;
	if (args[0].type == ARGT_SINT) {
		alg = args[0].data.sint;
	} else {
		if (!conv_var_str(&args[0], smp->ctx, &name))
			return 0;
		alg = jwt_alg_parse(name.ptr, name.len);
	}
	if (args[1].type == ARGT_STR)
		key = args[1].data.str;
	else if (!conv_var_str(&args[1], smp->ctx, &key))
		return 0;
	if (alg < 0) {
		alg = JWT_VRFY_UNKNOWN_ALG;
	} else if (alg >= JWT_PS256) {
		alg = JWT_VRFY_UNMANAGED;
	} else {
		if (jwt_alg_has_key((enum jwt_alg)alg))
			pkey = jwt_key_find(key.ptr, key.len);
		alg = jwt_verify(in.ptr, in.len, (enum jwt_alg)alg, key.ptr, key.len, pkey, scratch,
				 smp_trash_size());
	}
	conv_set_sint(smp, SMP_T_SINT, alg);
	return 1;
}

static const struct sample_conv jwt_convs[] = {
	{ "jwt_header_query",
	  conv_jwt_query,
	  0,
	  { ARGT_STR, ARGT_STR },
	  conv_json_query_check,
	  SMP_T_BIN,
	  SMP_T_ANY,
	  CONV_PRIV(0) },
	{ "jwt_payload_query",
	  conv_jwt_query,
	  0,
	  { ARGT_STR, ARGT_STR },
	  conv_json_query_check,
	  SMP_T_BIN,
	  SMP_T_ANY,
	  CONV_PRIV(1) },
	{ "jwt_verify",
	  conv_jwt_verify,
	  2,
	  { ARGT_STR, ARGT_STR },
	  conv_jwt_verify_check,
	  SMP_T_BIN,
	  SMP_T_SINT,
	  NULL },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, NULL },
};

SMP_REGISTER_CONVS(jwt_convs)
