/* TLS options shared by bind lines, crt-list lines and servers: their parsing, their
 * inheritance (crt-list line < bind line < ssl-default-*), and how they are applied to an
 * SSL_CTX (protocol range, ciphers, groups, signature algorithms, tickets, peer
 * verification with the ignored errors, CA and CRL files, ALPN). Parse and check time only,
 * except the verify and ALPN callbacks, which run in handshakes on any loop thread and
 * only read the options.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/x509v3.h>

#include <ssl/ssl.h>

#include "ssl_int.h"

struct ssl_settings ssl_set = {
	.server_verify = SSLV_REQUIRED,
	.cachesize = 20000,
	.lifetime = 300,
	.extra_files = SSL_EXTRA_ALL,
	.bind_def = { .verify = SSLV_UNSET },
	.srv_def = { .verify = SSLV_UNSET },
};

/* SSL ex_data index of the verification errors seen (ssl_verr_*), set by ssl_opts_init */
int ssl_verr_idx = -1;

static const struct {
	const char *name;
	int ver;
	uint32_t no_flag;
} ssl_versions[] = {
	{ "SSLv3", SSL3_VERSION, SSLO_NO_SSLV3 },
	{ "TLSv1.0", TLS1_VERSION, SSLO_NO_TLSV10 },
	{ "TLSv1.1", TLS1_1_VERSION, SSLO_NO_TLSV11 },
	{ "TLSv1.2", TLS1_2_VERSION, SSLO_NO_TLSV12 },
	{ "TLSv1.3", TLS1_3_VERSION, SSLO_NO_TLSV13 },
};
#define NB_VERSIONS (int)(sizeof(ssl_versions) / sizeof(ssl_versions[0]))

static int ssl_version_parse(const char *s)
{
	for (int v = 0; v < NB_VERSIONS; v++)
		if (!strcmp(s, ssl_versions[v].name))
			return ssl_versions[v].ver;
	return 0;
}

/* ca-base / crt-base: a relative <file> is taken under <base>. */
char *ssl_path_join(const char *base, const char *file)
{
	size_t lb, lf;
	char *p;

	if (!base || !*base || file[0] == '/')
		return strdup(file);
	lb = strlen(base);
	lf = strlen(file);
	p = malloc(lb + lf + 2);
	if (!p)
		return NULL;
	memcpy(p, base, lb);
	p[lb] = '/';
	memcpy(p + lb + 1, file, lf + 1);
	return p;
}

/* "alpn h2,http/1.1" in the wire format: each name preceded by its length. */
static int ssl_alpn_parse(const char *list, char **out, int *outlen, char *err, size_t errlen)
{
	size_t len = strlen(list);
	char *w = malloc(len + 1), *p;
	const char *s = list;

	if (!w) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	p = w;
	while (1) {
		const char *e = strchr(s, ',');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (n == 0 || n > 255) {
			free(w);
			snprintf(err, errlen, "invalid protocol name in ALPN list '%s'", list);
			return -1;
		}
		*p++ = (char)n;
		memcpy(p, s, n);
		p += n;
		if (!e)
			break;
		s = e + 1;
	}
	free(*out);
	*out = w;
	*outlen = (int)(p - w);
	return 0;
}

/* "ca-ignore-err all|ID,ID..." where an ID is a number or an X509_V_ERR_ name. */
static int ssl_ignore_parse(const char *s, bool *all, uint64_t map[2], char *err, size_t errlen)
{
	char *dup, *tok, *save = NULL;

	if (!strcmp(s, "all")) {
		*all = true;
		return 0;
	}
	dup = strdup(s);
	if (!dup) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		long id = strtol(tok, &end, 10);

		if (*end || end == tok) {
			id = -1;
			if (!strncmp(tok, "X509_V_ERR_", 11)) {
				static const struct {
					const char *n;
					int id;
				} names[] = {
					{ "UNABLE_TO_GET_ISSUER_CERT",
					  X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT },
					{ "UNABLE_TO_GET_CRL", X509_V_ERR_UNABLE_TO_GET_CRL },
					{ "CERT_SIGNATURE_FAILURE",
					  X509_V_ERR_CERT_SIGNATURE_FAILURE },
					{ "CERT_NOT_YET_VALID", X509_V_ERR_CERT_NOT_YET_VALID },
					{ "CERT_HAS_EXPIRED", X509_V_ERR_CERT_HAS_EXPIRED },
					{ "CRL_NOT_YET_VALID", X509_V_ERR_CRL_NOT_YET_VALID },
					{ "CRL_HAS_EXPIRED", X509_V_ERR_CRL_HAS_EXPIRED },
					{ "DEPTH_ZERO_SELF_SIGNED_CERT",
					  X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT },
					{ "SELF_SIGNED_CERT_IN_CHAIN",
					  X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN },
					{ "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
					  X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY },
					{ "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
					  X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE },
					{ "CERT_REVOKED", X509_V_ERR_CERT_REVOKED },
					{ "INVALID_CA", X509_V_ERR_INVALID_CA },
					{ "INVALID_PURPOSE", X509_V_ERR_INVALID_PURPOSE },
					{ "CERT_UNTRUSTED", X509_V_ERR_CERT_UNTRUSTED },
					{ "CERT_REJECTED", X509_V_ERR_CERT_REJECTED },
					{ "HOSTNAME_MISMATCH", X509_V_ERR_HOSTNAME_MISMATCH },
				};
				for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
					if (!strcmp(tok + 11, names[k].n))
						id = names[k].id;
			}
		}
		if (id < 0 || id >= 128) {
			snprintf(err, errlen,
				 "unknown verification error '%s' (use a number below "
				 "128, an X509_V_ERR_ name or 'all')",
				 tok);
			free(dup);
			return -1;
		}
		map[id / 64] |= 1ULL << (id % 64);
	}
	free(dup);
	return 0;
}

static int ssl_set_str(char **dst, const char *val, char *err, size_t errlen)
{
	char *d = strdup(val);

	if (!d) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	free(*dst);
	*dst = d;
	return 0;
}

int ssl_opts_parse(struct ssl_opts *o, char **args, int nargs, int *i, bool server, char *err,
		   size_t errlen)
{
	const char *opt = args[*i];
	const char *val = *i + 1 < nargs ? args[*i + 1] : NULL;
	static const struct {
		const char *name;
		size_t off;
		bool srv, bind;
	} str_opts[] = {
		{ "ciphers", offsetof(struct ssl_opts, ciphers), true, true },
		{ "ciphersuites", offsetof(struct ssl_opts, ciphersuites), true, true },
		{ "curves", offsetof(struct ssl_opts, curves), true, true },
		{ "ecdhe", offsetof(struct ssl_opts, ecdhe), false, true },
		{ "sigalgs", offsetof(struct ssl_opts, sigalgs), true, true },
		{ "client-sigalgs", offsetof(struct ssl_opts, client_sigalgs), true, true },
	};
	static const struct {
		const char *name;
		uint32_t flag;
		bool set; /* sets the flag (a "no-x" form) rather than clearing it */
	} flag_opts[] = {
		{ "no-sslv3", SSLO_NO_SSLV3, true },
		{ "no-tlsv10", SSLO_NO_TLSV10, true },
		{ "no-tlsv11", SSLO_NO_TLSV11, true },
		{ "no-tlsv12", SSLO_NO_TLSV12, true },
		{ "no-tlsv13", SSLO_NO_TLSV13, true },
		{ "no-tls-tickets", SSLO_NO_TICKETS, true },
		{ "tls-tickets", SSLO_NO_TICKETS, false },
		{ "prefer-client-ciphers", SSLO_PREFER_CLIENT, true },
		{ "no-renegotiation", SSLO_NO_RENEG, true },
		{ "allow-renegotiation", SSLO_NO_RENEG, false },
	};

	for (size_t k = 0; k < sizeof(str_opts) / sizeof(str_opts[0]); k++) {
		if (strcmp(opt, str_opts[k].name) || !(server ? str_opts[k].srv : str_opts[k].bind))
			continue;
		if (!val || !*val) {
			snprintf(err, errlen, "'%s' : missing value", opt);
			return -1;
		}
		++*i;
		return ssl_set_str((char **)((char *)o + str_opts[k].off), val, err, errlen);
	}
	for (size_t k = 0; k < sizeof(flag_opts) / sizeof(flag_opts[0]); k++) {
		if (strcmp(opt, flag_opts[k].name))
			continue;
		if (flag_opts[k].set)
			o->flags |= flag_opts[k].flag;
		else
			o->flags &= ~flag_opts[k].flag;
		o->flags_set |= flag_opts[k].flag;
		return 0;
	}
	if (!strncmp(opt, "force-", 6)) {
		static const char *const forced[NB_VERSIONS] = {
			"sslv3", "tlsv10", "tlsv11", "tlsv12", "tlsv13",
		};

		for (int v = 0; v < NB_VERSIONS; v++) {
			if (!strcmp(opt + 6, forced[v])) {
				o->min_ver = o->max_ver = ssl_versions[v].ver;
				return 0;
			}
		}
	}
	if (!strcmp(opt, "ssl-min-ver") || !strcmp(opt, "ssl-max-ver")) {
		int ver = val ? ssl_version_parse(val) : 0;

		if (!val || !*val) {
			snprintf(err, errlen, "'%s' : missing the version argument", opt);
			return -1;
		}
		if (!ver) {
			snprintf(err, errlen, "'%s' : unknown ssl/tls version", val);
			return -1;
		}
		++*i;
		*(opt[5] == 'i' ? &o->min_ver : &o->max_ver) = ver;
		return 0;
	}
	if (!strcmp(opt, "ca-file") || !strcmp(opt, "crl-file")) {
		char *path;

		if (!val || !*val) {
			snprintf(err, errlen, "'%s' : missing %s file path", opt,
				 opt[1] == 'a' ? "CAfile" : "CRLfile");
			return -1;
		}
		++*i;
		path = ssl_path_join(ssl_set.ca_base, val);
		if (!path) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (access(path, R_OK) != 0) { /* as HAProxy: checked on the line */
			if (server)
				snprintf(err, errlen, "Couldn't open the %s '%s' (%s)", opt, path,
					 strerror(errno));
			else
				snprintf(err, errlen, "'%s' : unable to load %s", opt, path);
			free(path);
			return -1;
		}
		free(opt[1] == 'a' ? o->ca_file : o->crl_file);
		*(opt[1] == 'a' ? &o->ca_file : &o->crl_file) = path;
		return 0;
	}
	if (!strcmp(opt, "alpn")) {
		if (!val || !*val) {
			snprintf(err, errlen,
				 "'alpn' : missing the comma-delimited ALPN protocol "
				 "suite");
			return -1;
		}
		++*i;
		return ssl_alpn_parse(val, &o->alpn, &o->alpn_len, err, errlen);
	}
	if (!strcmp(opt, "no-alpn")) {
		free(o->alpn);
		o->alpn = NULL;
		o->alpn_len = 0;
		return 0;
	}
	if (!strcmp(opt, "npn")) {
		snprintf(err, errlen, "'npn' is not supported (NPN is obsolete: use 'alpn')");
		return -1;
	}
	if (!strcmp(opt, "verify")) {
		if (val && !strcmp(val, "none"))
			o->verify = SSLV_NONE;
		else if (val && !strcmp(val, "required"))
			o->verify = SSLV_REQUIRED;
		else if (val && !server && !strcmp(val, "optional"))
			o->verify = SSLV_OPTIONAL;
		else if (server) {
			snprintf(err, errlen, "'verify' : expects 'none' or 'required'");
			return -1;
		} else {
			snprintf(err, errlen,
				 "'verify' : unknown verify method '%s', only 'none', "
				 "'optional', and 'required' are supported",
				 val ? val : "");
			return -1;
		}
		++*i;
		return 0;
	}
	if (!server && (!strcmp(opt, "ca-ignore-err") || !strcmp(opt, "crt-ignore-err"))) {
		bool ca = opt[1] == 'a';

		if (!val || !*val) {
			snprintf(err, errlen, "'%s' : missing error IDs list", opt);
			return -1;
		}
		++*i;
		return ssl_ignore_parse(val, ca ? &o->ca_ignore_all : &o->crt_ignore_all,
					ca ? o->ca_ignore : o->crt_ignore, err, errlen);
	}
	if (!server && !strcmp(opt, "no-ca-names")) {
		o->flags |= SSLO_NO_CA_NAMES;
		o->flags_set |= SSLO_NO_CA_NAMES;
		return 0;
	}
	if (!strcmp(opt, "allow-0rtt")) {
		snprintf(err, errlen,
			 "'allow-0rtt' is not supported yet (TLS 1.3 early data is "
			 "not accepted)");
		return -1;
	}
	return 1;
}

static int ssl_str_inherit(char **dst, const char *def)
{
	if (*dst || !def)
		return 0;
	*dst = strdup(def);
	return *dst ? 0 : -1;
}

int ssl_opts_merge(struct ssl_opts *o, const struct ssl_opts *def)
{
	if (ssl_str_inherit(&o->ciphers, def->ciphers) < 0 ||
	    ssl_str_inherit(&o->ciphersuites, def->ciphersuites) < 0 ||
	    ssl_str_inherit(&o->curves, def->curves) < 0 ||
	    ssl_str_inherit(&o->ecdhe, def->ecdhe) < 0 ||
	    ssl_str_inherit(&o->sigalgs, def->sigalgs) < 0 ||
	    ssl_str_inherit(&o->client_sigalgs, def->client_sigalgs) < 0 ||
	    ssl_str_inherit(&o->ca_file, def->ca_file) < 0 ||
	    ssl_str_inherit(&o->crl_file, def->crl_file) < 0)
		return -1;
	if (!o->alpn && def->alpn) {
		o->alpn = malloc((size_t)def->alpn_len);
		if (!o->alpn)
			return -1;
		memcpy(o->alpn, def->alpn, (size_t)def->alpn_len);
		o->alpn_len = def->alpn_len;
	}
	if (o->verify == SSLV_UNSET)
		o->verify = def->verify;
	if (!o->min_ver && !o->max_ver) {
		o->min_ver = def->min_ver;
		o->max_ver = def->max_ver;
	}
	o->flags = (o->flags & o->flags_set) | (def->flags & ~o->flags_set);
	o->flags_set |= def->flags_set;
	if (!o->ca_ignore_all && !o->ca_ignore[0] && !o->ca_ignore[1]) {
		o->ca_ignore_all = def->ca_ignore_all;
		memcpy(o->ca_ignore, def->ca_ignore, sizeof(o->ca_ignore));
	}
	if (!o->crt_ignore_all && !o->crt_ignore[0] && !o->crt_ignore[1]) {
		o->crt_ignore_all = def->crt_ignore_all;
		memcpy(o->crt_ignore, def->crt_ignore, sizeof(o->crt_ignore));
	}
	return 0;
}

void ssl_opts_free(struct ssl_opts *o)
{
	free(o->ciphers);
	free(o->ciphersuites);
	free(o->curves);
	free(o->ecdhe);
	free(o->sigalgs);
	free(o->client_sigalgs);
	free(o->ca_file);
	free(o->crl_file);
	free(o->alpn);
	memset(o, 0, sizeof(*o));
	o->verify = SSLV_UNSET;
}

/* The protocol range: ssl-min-ver/ssl-max-ver (default TLSv1.2 to TLSv1.3, as HAProxy
 * 2.2+), narrowed by the no-* options at its ends. */
static int ssl_proto_range(const struct ssl_opts *o, int *min, int *max, char *err, size_t errlen)
{
	int lo = 0, hi = NB_VERSIONS - 1;

	for (int v = 0; v < NB_VERSIONS; v++) {
		if (o->min_ver == ssl_versions[v].ver)
			lo = v;
		if (o->max_ver == ssl_versions[v].ver)
			hi = v;
	}
	if (!o->min_ver)
		lo = 3; /* TLSv1.2 */
	if (!o->max_ver)
		hi = NB_VERSIONS - 1;
	while (lo <= hi && (o->flags & ssl_versions[lo].no_flag))
		lo++;
	while (hi >= lo && (o->flags & ssl_versions[hi].no_flag))
		hi--;
	if (lo > hi) {
		snprintf(err, errlen, "all SSL/TLS versions are disabled");
		return -1;
	}
	*min = ssl_versions[lo].ver;
	*max = ssl_versions[hi].ver;
	return 0;
}

/* What the handshake callbacks of a server context read: a copy of its options' ignored
 * verification errors and ALPN list, owned by the context (freed with it), so that
 * options freed at run time (del ssl crt-list) never leave a context pointing to them. */
struct ssl_hs_opts {
	bool ca_ignore_all, crt_ignore_all;
	uint64_t ca_ignore[2], crt_ignore[2];
	unsigned int alpn_len;
	unsigned char alpn[];
};
static int hs_opts_idx = -1; /* SSL_CTX ex_data index of the struct ssl_hs_opts */

static void hs_opts_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl,
			 void *argp)
{
	free(ptr);
}

/* The errors a verification met, kept in the SSL object for the ssl_c_* fetches: the
 * first error at depth 0 (bits 0-15), the first at depth > 0 (bits 16-31) and its depth
 * (bits 32-47), each stored plus one so that zero means "none". */
static int ssl_verify_cb(int ok, X509_STORE_CTX *xs)
{
	SSL *ssl = X509_STORE_CTX_get_ex_data(xs, SSL_get_ex_data_X509_STORE_CTX_idx());
	const struct ssl_hs_opts *o;
	uintptr_t seen;
	int e, depth;

	if (ok || !ssl)
		return ok;
	o = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), hs_opts_idx);
	e = X509_STORE_CTX_get_error(xs);
	depth = X509_STORE_CTX_get_error_depth(xs);
	seen = (uintptr_t)SSL_get_ex_data(ssl, ssl_verr_idx);
	if (depth == 0) {
		if (!(seen & 0xffff))
			seen |= (uintptr_t)(e + 1) & 0xffff;
	} else if (!(seen & 0xffff0000)) {
		seen |= ((uintptr_t)(e + 1) & 0xffff) << 16;
		seen |= ((uintptr_t)depth & 0xffff) << 32;
	}
	SSL_set_ex_data(ssl, ssl_verr_idx, (void *)seen);
	/* an ignored error goes on without being cleared: as in HAProxy, the final result
	 * (ssl_c_verify) still names the last one */
	if (!o)
		return 0;
	if (depth == 0 &&
	    (o->crt_ignore_all || (e < 128 && (o->crt_ignore[e / 64] & (1ULL << (e % 64)))))) {
		return 1;
	}
	if (depth > 0 &&
	    (o->ca_ignore_all || (e < 128 && (o->ca_ignore[e / 64] & (1ULL << (e % 64)))))) {
		return 1;
	}
	return 0;
}

/* Server side ALPN: the first of the line's protocols that the client also offers. */
static int ssl_alpn_select_cb(SSL *ssl, const unsigned char **out, unsigned char *outlen,
			      const unsigned char *in, unsigned int inlen, void *arg)
{
	const struct ssl_hs_opts *o = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), hs_opts_idx);
	unsigned char *sel;

	(void)arg;
	if (!o || !o->alpn_len)
		return SSL_TLSEXT_ERR_NOACK;
	if (SSL_select_next_proto(&sel, outlen, o->alpn, o->alpn_len, in, inlen) !=
	    OPENSSL_NPN_NEGOTIATED)
		return SSL_TLSEXT_ERR_NOACK;
	*out = sel;
	return SSL_TLSEXT_ERR_OK;
}

int ssl_opts_init(void)
{
	if (ssl_verr_idx < 0)
		ssl_verr_idx = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
	return ssl_verr_idx < 0 ? -1 : 0;
}

static int ssl_load_crl(SSL_CTX *ctx, const char *file, char *err, size_t errlen)
{
	X509_STORE *st = SSL_CTX_get_cert_store(ctx);
	X509_LOOKUP *lk = X509_STORE_add_lookup(st, X509_LOOKUP_file());

	if (!lk || !X509_load_crl_file(lk, file, X509_FILETYPE_PEM)) {
		snprintf(err, errlen, "unable to configure CRL file '%s'", file);
		return -1;
	}
	X509_STORE_set_flags(st, X509_V_FLAG_CRL_CHECK | X509_V_FLAG_CRL_CHECK_ALL);
	return 0;
}

int ssl_opts_apply(SSL_CTX *ctx, const struct ssl_opts *o, bool server, char *err, size_t errlen)
{
	struct ssl_hs_opts *hso;
	int min, max, mode;

	if (ssl_opts_init() < 0 || ssl_proto_range(o, &min, &max, err, errlen) < 0)
		return -1;
	SSL_CTX_set_min_proto_version(ctx, min);
	SSL_CTX_set_max_proto_version(ctx, max);
	if (o->ciphers && !SSL_CTX_set_cipher_list(ctx, o->ciphers)) {
		snprintf(err, errlen, "unable to set SSL cipher list to '%s'", o->ciphers);
		return -1;
	}
	if (o->ciphersuites && !SSL_CTX_set_ciphersuites(ctx, o->ciphersuites)) {
		snprintf(err, errlen, "unable to set TLS 1.3 cipher suites to '%s'",
			 o->ciphersuites);
		return -1;
	}
	if ((o->curves || o->ecdhe) &&
	    !SSL_CTX_set1_curves_list(ctx, o->curves ? o->curves : o->ecdhe)) {
		snprintf(err, errlen, "unable to set SSL curves list to '%s'",
			 o->curves ? o->curves : o->ecdhe);
		return -1;
	}
	if (o->sigalgs && !SSL_CTX_set1_sigalgs_list(ctx, o->sigalgs)) {
		snprintf(err, errlen, "unable to set SSL Signature Algorithm list to '%s'",
			 o->sigalgs);
		return -1;
	}
	if (o->client_sigalgs && !SSL_CTX_set1_client_sigalgs_list(ctx, o->client_sigalgs)) {
		snprintf(err, errlen, "unable to set SSL Signature Algorithm list to '%s'",
			 o->client_sigalgs);
		return -1;
	}
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
					 ((o->flags & SSLO_NO_TICKETS) ? SSL_OP_NO_TICKET : 0) |
					 (!server && !(o->flags & SSLO_PREFER_CLIENT)
						  ? SSL_OP_CIPHER_SERVER_PREFERENCE
						  : 0));
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
				      SSL_MODE_RELEASE_BUFFERS);
	SSL_CTX_set_read_ahead(ctx, 1);
	if (o->ca_file && !SSL_CTX_load_verify_locations(ctx, o->ca_file, NULL)) {
		snprintf(err, errlen, "unable to load CA file '%s'", o->ca_file);
		return -1;
	}
	if (o->crl_file && ssl_load_crl(ctx, o->crl_file, err, errlen) < 0)
		return -1;
	if (server) {
		if (o->alpn && SSL_CTX_set_alpn_protos(ctx, (const unsigned char *)o->alpn,
						       (unsigned int)o->alpn_len)) {
			snprintf(err, errlen, "unable to set ALPN");
			return -1;
		}
		SSL_CTX_set_verify(
			ctx, o->verify == SSLV_REQUIRED ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, NULL);
		return 0;
	}
	if (hs_opts_idx < 0)
		hs_opts_idx = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, hs_opts_free);
	hso = hs_opts_idx < 0 ? NULL : calloc(1, sizeof(*hso) + (size_t)o->alpn_len);
	if (!hso) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	hso->ca_ignore_all = o->ca_ignore_all;
	hso->crt_ignore_all = o->crt_ignore_all;
	memcpy(hso->ca_ignore, o->ca_ignore, sizeof(hso->ca_ignore));
	memcpy(hso->crt_ignore, o->crt_ignore, sizeof(hso->crt_ignore));
	hso->alpn_len = o->alpn ? (unsigned int)o->alpn_len : 0;
	if (hso->alpn_len)
		memcpy(hso->alpn, o->alpn, hso->alpn_len);
	free(SSL_CTX_get_ex_data(ctx, hs_opts_idx)); /* applied again before any use */
	if (!SSL_CTX_set_ex_data(ctx, hs_opts_idx, hso)) {
		free(hso);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (o->alpn)
		SSL_CTX_set_alpn_select_cb(ctx, ssl_alpn_select_cb, NULL);
	mode = o->verify == SSLV_REQUIRED   ? SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT
	       : o->verify == SSLV_OPTIONAL ? SSL_VERIFY_PEER
					    : SSL_VERIFY_NONE;
	if (mode != SSL_VERIFY_NONE) {
		if (!o->ca_file) {
			snprintf(err, errlen, "verify is enabled but no CA file specified");
			return -1;
		}
		if (!(o->flags & SSLO_NO_CA_NAMES)) {
			STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(o->ca_file);

			if (names)
				SSL_CTX_set_client_CA_list(ctx, names);
		}
		SSL_CTX_set_verify(ctx, mode, ssl_verify_cb);
	}
	return 0;
}
