/* The TLS keywords of the "global" section: ssl-default-bind-* and ssl-default-server-*
 * (the options every bind line / server starts from), ssl-server-verify, ca-base,
 * crt-base, key-base, the DH parameters, ssl-load-extra-files, and the tune.ssl.* knobs.
 * Parse time only.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include <cfg/cfg.h>
#include <ssl/ssl.h>

#include "ssl_int.h"

static EVP_PKEY *ssl_dh_params; /* from ssl-dh-param-file */

/* ssl-default-bind-options / ssl-default-server-options: the flag and version options. */
static int ssl_g_default_options(struct cfg_ctx *ctx)
{
	bool server = !strncmp(ctx->args[0], "ssl-default-server", 18);
	struct ssl_opts *o = server ? &ssl_set.srv_def : &ssl_set.bind_def;
	char err[256];

	for (int i = 1; i < ctx->nargs; i++) {
		const char *a = ctx->args[i];
		int ret;

		if (!strcmp(a, "ssl-min-ver") || !strcmp(a, "ssl-max-ver") ||
		    !strncmp(a, "no-", 3) || !strncmp(a, "force-", 6) ||
		    !strcmp(a, "prefer-client-ciphers") || !strcmp(a, "tls-tickets") ||
		    !strcmp(a, "allow-renegotiation"))
			ret = ssl_opts_parse(o, ctx->args, ctx->nargs, &i, server, err,
					     sizeof(err));
		else if (!strcmp(a, "strict-sni") && !server) {
			o->flags |= SSLO_STRICT_SNI;
			o->flags_set |= SSLO_STRICT_SNI;
			continue;
		} else
			ret = 1;
		if (ret == 1) {
			cfg_alert(ctx, "'%s' : unknown or unsupported option '%s'.", ctx->args[0],
				  a);
			return -1;
		}
		if (ret < 0) {
			cfg_alert(ctx, "'%s' : %s.", ctx->args[0], err);
			return -1;
		}
	}
	return 0;
}

/* ssl-default-{bind,server}-{ciphers,ciphersuites,curves,sigalgs,client-sigalgs}: one
 * value, as the same option of the lines. */
static int ssl_g_default_str(struct cfg_ctx *ctx)
{
	bool server = !strncmp(ctx->args[0], "ssl-default-server", 18);
	struct ssl_opts *o = server ? &ssl_set.srv_def : &ssl_set.bind_def;
	const char *what = ctx->args[0] + (server ? 19 : 17);
	char *args[2] = { (char *)what, ctx->nargs > 1 ? ctx->args[1] : NULL };
	char err[256];
	int i = 0, ret;

	if (ctx->nargs != 2 || !*ctx->args[1]) {
		cfg_alert(ctx, "'%s' expects a single argument.", ctx->args[0]);
		return -1;
	}
	ret = ssl_opts_parse(o, args, 2, &i, server, err, sizeof(err));
	if (ret == 1) {
		cfg_alert(ctx, "unknown keyword '%s' in 'global' section.", ctx->args[0]);
		return -1;
	}
	if (ret < 0) {
		cfg_alert(ctx, "'%s' : %s.", ctx->args[0], err);
		return -1;
	}
	return 0;
}

static int ssl_g_server_verify(struct cfg_ctx *ctx)
{
	if (ctx->nargs == 2 && !strcmp(ctx->args[1], "none"))
		ssl_set.server_verify = SSLV_NONE;
	else if (ctx->nargs == 2 && !strcmp(ctx->args[1], "required"))
		ssl_set.server_verify = SSLV_REQUIRED;
	else {
		cfg_alert(ctx, "'ssl-server-verify' expects 'none' or 'required' as argument.");
		return -1;
	}
	return 0;
}

static int ssl_g_base(struct cfg_ctx *ctx)
{
	char **dst = ctx->args[0][0] == 'c'
			     ? (ctx->args[0][1] == 'a' ? &ssl_set.ca_base : &ssl_set.crt_base)
			     : &ssl_set.key_base;

	if (*dst) {
		cfg_alert(ctx, "'%s' already specified.", ctx->args[0]);
		return -1;
	}
	if (ctx->nargs != 2) {
		cfg_alert(ctx, "'%s' expects a directory path as an argument.", ctx->args[0]);
		return -1;
	}
	*dst = strdup(ctx->args[1]);
	if (!*dst) {
		cfg_alert(ctx, "out of memory.");
		return -1;
	}
	return 0;
}

static int ssl_g_dh_file(struct cfg_ctx *ctx)
{
	BIO *b;

	if (ctx->nargs != 2) {
		cfg_alert(ctx, "'ssl-dh-param-file' expects a file path as an argument.");
		return -1;
	}
	b = BIO_new_file(ctx->args[1], "r");
	if (b) {
		EVP_PKEY_free(ssl_dh_params);
		ssl_dh_params = PEM_read_bio_Parameters(b, NULL);
		BIO_free(b);
	}
	ERR_clear_error();
	if (!ssl_dh_params) {
		cfg_alert(ctx, "'ssl-dh-param-file': unable to load DH parameters from file '%s'.",
			  ctx->args[1]);
		return -1;
	}
	free(ssl_set.dh_param_file);
	ssl_set.dh_param_file = strdup(ctx->args[1]);
	return 0;
}

int ssl_ctx_dh_setup(SSL_CTX *ctx, char *err, size_t errlen)
{
	if (ssl_dh_params) {
		if (!EVP_PKEY_up_ref(ssl_dh_params) ||
		    !SSL_CTX_set0_tmp_dh_pkey(ctx, ssl_dh_params)) {
			snprintf(err, errlen, "unable to use the DH parameters of '%s'",
				 ssl_set.dh_param_file);
			return -1;
		}
		return 0;
	}
	/* the library picks a group as strong as the certificate's key, 2048 bits at least
	 * for an RSA-2048 key, which is what tune.ssl.default-dh-param 2048 asks */
	SSL_CTX_set_dh_auto(ctx, 1);
	return 0;
}

static int ssl_g_extra_files(struct cfg_ctx *ctx)
{
	static const struct {
		const char *name;
		uint32_t bits;
	} kinds[] = {
		{ "none", 0 },
		{ "all", SSL_EXTRA_ALL },
		{ "bundle", SSL_EXTRA_BUNDLE },
		{ "sctl", SSL_EXTRA_SCTL },
		{ "ocsp", SSL_EXTRA_OCSP },
		{ "issuer", SSL_EXTRA_ISSUER },
		{ "key", SSL_EXTRA_KEY },
	};
	uint32_t v = 0;

	if (ctx->nargs < 2) {
		cfg_alert(ctx,
			  "'ssl-load-extra-files' expects one or multiple arguments (none, all, "
			  "bundle, sctl, ocsp, issuer, key).");
		return -1;
	}
	for (int i = 1; i < ctx->nargs; i++) {
		size_t k;

		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
			if (!strcmp(ctx->args[i], kinds[k].name))
				break;
		if (k == sizeof(kinds) / sizeof(kinds[0]) || ((k <= 1) && ctx->nargs > 2)) {
			cfg_alert(ctx,
				  "'ssl-load-extra-files' : unknown or misplaced argument '%s' "
				  "(none, all, bundle, sctl, ocsp, issuer, key).",
				  ctx->args[i]);
			return -1;
		}
		v |= kinds[k].bits;
	}
	ssl_set.extra_files = v;
	return 0;
}

/* tune.ssl.* integers */
static int ssl_g_tune_int(struct cfg_ctx *ctx)
{
	static const struct {
		const char *name;
		int *dst;
		long min, max;
	} tunes[] = {
		{ "tune.ssl.cachesize", &ssl_set.cachesize, 0, INT_MAX },
		{ "tune.ssl.maxrecord", &ssl_set.maxrecord, 0, 16384 },
		{ "tune.ssl.default-dh-param", &ssl_set.default_dh_param, 1024, 16384 },
		{ "tune.ssl.capture-cipherlist-size", &ssl_set.capture_cipherlist, 0, 65535 },
		{ "tune.ssl.capture-buffer-size", &ssl_set.capture_cipherlist, 0, 65535 },
		{ "tune.ssl.ssl-ctx-cache-size", &ssl_set.ctx_cache_size, 0, INT_MAX },
	};
	long v;

	for (size_t k = 0; k < sizeof(tunes) / sizeof(tunes[0]); k++) {
		if (strcmp(ctx->args[0], tunes[k].name))
			continue;
		if (cfg_need_args(ctx, 1) < 0 ||
		    cfg_parse_int_arg(ctx, ctx->args[1], tunes[k].min, tunes[k].max, &v) < 0)
			return -1;
		*tunes[k].dst = (int)v;
		if (tunes[k].dst == &ssl_set.ctx_cache_size)
			cfg_warn(ctx,
				 "'%s' has no effect: certificates are not generated on the fly "
				 "('generate-certificates' is not supported yet).",
				 ctx->args[0]);
		return 0;
	}
	return -1;
}

static int ssl_g_lifetime(struct cfg_ctx *ctx)
{
	int ms;

	if (cfg_need_args(ctx, 1) < 0 || cfg_parse_time_arg(ctx, ctx->args[1], &ms) < 0)
		return -1;
	/* a bare number is seconds here, as HAProxy reads it */
	ssl_set.lifetime = strspn(ctx->args[1], "0123456789") == strlen(ctx->args[1])
				   ? atoi(ctx->args[1])
				   : (ms + 999) / 1000;
	return 0;
}

static int ssl_g_keylog(struct cfg_ctx *ctx)
{
	if (ctx->nargs != 2 || (strcmp(ctx->args[1], "on") && strcmp(ctx->args[1], "off"))) {
		cfg_alert(ctx, "'tune.ssl.keylog' expects 'on' or 'off'.");
		return -1;
	}
	ssl_set.keylog = !strcmp(ctx->args[1], "on");
	return 0;
}

static int ssl_g_refuse(struct cfg_ctx *ctx)
{
	if (!strcmp(ctx->args[0], "ssl-engine"))
		return cfg_not_supported(ctx, "OpenSSL engines are deprecated in OpenSSL 3; "
					      "providers are configured in openssl.cnf");
	return cfg_not_supported(ctx, "asynchronous OpenSSL engines are not supported");
}

static const struct cfg_kw ssl_global_kws[] = {
	{ "ssl-default-bind-options", CFG_SEC_GLOBAL, ssl_g_default_options },
	{ "ssl-default-server-options", CFG_SEC_GLOBAL, ssl_g_default_options },
	{ "ssl-default-bind-ciphers", CFG_SEC_GLOBAL, ssl_g_default_str },
	{ "ssl-default-bind-ciphersuites", CFG_SEC_GLOBAL, ssl_g_default_str },
	{ "ssl-default-bind-curves", CFG_SEC_GLOBAL, ssl_g_default_str },
	{ "ssl-default-bind-sigalgs", CFG_SEC_GLOBAL, ssl_g_default_str },
	{ "ssl-default-bind-client-sigalgs", CFG_SEC_GLOBAL, ssl_g_default_str },
	{ "ssl-default-server-ciphers", CFG_SEC_GLOBAL, ssl_g_default_str },
	{ "ssl-default-server-ciphersuites", CFG_SEC_GLOBAL, ssl_g_default_str },
	{ "ssl-default-server-curves", CFG_SEC_GLOBAL, ssl_g_default_str },
	{ "ssl-default-server-sigalgs", CFG_SEC_GLOBAL, ssl_g_default_str },
	{ "ssl-default-server-client-sigalgs", CFG_SEC_GLOBAL, ssl_g_default_str },
	{ "ssl-server-verify", CFG_SEC_GLOBAL, ssl_g_server_verify },
	{ "ca-base", CFG_SEC_GLOBAL, ssl_g_base },
	{ "crt-base", CFG_SEC_GLOBAL, ssl_g_base },
	{ "key-base", CFG_SEC_GLOBAL, ssl_g_base },
	{ "ssl-dh-param-file", CFG_SEC_GLOBAL, ssl_g_dh_file },
	{ "ssl-load-extra-files", CFG_SEC_GLOBAL, ssl_g_extra_files },
	{ "tune.ssl.cachesize", CFG_SEC_GLOBAL, ssl_g_tune_int },
	{ "tune.ssl.maxrecord", CFG_SEC_GLOBAL, ssl_g_tune_int },
	{ "tune.ssl.default-dh-param", CFG_SEC_GLOBAL, ssl_g_tune_int },
	{ "tune.ssl.capture-cipherlist-size", CFG_SEC_GLOBAL, ssl_g_tune_int },
	{ "tune.ssl.capture-buffer-size", CFG_SEC_GLOBAL, ssl_g_tune_int },
	{ "tune.ssl.ssl-ctx-cache-size", CFG_SEC_GLOBAL, ssl_g_tune_int },
	{ "tune.ssl.lifetime", CFG_SEC_GLOBAL, ssl_g_lifetime },
	{ "tune.ssl.keylog", CFG_SEC_GLOBAL, ssl_g_keylog },
	{ "ssl-engine", CFG_SEC_GLOBAL, ssl_g_refuse },
	{ "ssl-mode-async", CFG_SEC_GLOBAL, ssl_g_refuse },
	{ NULL, 0, NULL },
};

CFG_REGISTER_KEYWORDS(ssl_global_kws);
