/* Unit tests for the TLS options shared by bind lines, crt-list lines and servers
 * (ssl/ssl_opts.c): parsing and its error messages, inheritance from the global defaults,
 * and the protocol range applied to a context.
 */
#include <string.h>
#include <openssl/ssl.h>

#include <ssl/ssl.h>
#include "../test.h"

/* Parses the words of <line> as one option; returns ssl_opts_parse's result. */
static int opts_parse1(struct ssl_opts *o, const char *w0, const char *w1, bool server, char *err,
		       size_t errlen)
{
	char *args[2] = { (char *)w0, (char *)w1 };
	int i = 0;

	return ssl_opts_parse(o, args, w1 ? 2 : 1, &i, server, err, errlen);
}

TEST(ssl_opts_versions)
{
	struct ssl_opts o = { .verify = SSLV_UNSET };
	char err[256] = "";

	CHECK_INT(opts_parse1(&o, "ssl-min-ver", "TLSv1.3", false, err, sizeof(err)), 0);
	CHECK_INT(o.min_ver, TLS1_3_VERSION);
	CHECK_INT(opts_parse1(&o, "ssl-max-ver", "TLSv1.9", false, err, sizeof(err)), -1);
	CHECK_STR(err, "'TLSv1.9' : unknown ssl/tls version");
	CHECK_INT(opts_parse1(&o, "ssl-max-ver", NULL, false, err, sizeof(err)), -1);
	CHECK_HAS(err, "ssl-max-ver");
	CHECK_INT(opts_parse1(&o, "force-tlsv12", NULL, false, err, sizeof(err)), 0);
	CHECK_INT(o.min_ver, TLS1_2_VERSION);
	CHECK_INT(o.max_ver, TLS1_2_VERSION);
	CHECK_INT(opts_parse1(&o, "not-an-option", NULL, false, err, sizeof(err)), 1);
	ssl_opts_free(&o);
}

TEST(ssl_opts_refusals_and_bind_only)
{
	struct ssl_opts o = { .verify = SSLV_UNSET };
	char err[256] = "";

	CHECK_INT(opts_parse1(&o, "npn", "h2", false, err, sizeof(err)), -1);
	CHECK_HAS(err, "alpn");
	CHECK_INT(opts_parse1(&o, "allow-0rtt", NULL, false, err, sizeof(err)), -1);
	CHECK_INT(opts_parse1(&o, "verify", "optional", true, err, sizeof(err)), -1);
	CHECK_INT(opts_parse1(&o, "verify", "optional", false, err, sizeof(err)), 0);
	CHECK_INT(o.verify, SSLV_OPTIONAL);
	/* bind-only options are not server options */
	CHECK_INT(opts_parse1(&o, "no-ca-names", NULL, true, err, sizeof(err)), 1);
	CHECK_INT(opts_parse1(&o, "ca-ignore-err", "all", true, err, sizeof(err)), 1);
	CHECK_INT(opts_parse1(&o, "ca-ignore-err", "10,X509_V_ERR_CERT_HAS_EXPIRED", false, err,
			      sizeof(err)),
		  0);
	CHECK(o.ca_ignore[0] & (1ULL << 10));
	CHECK_INT(opts_parse1(&o, "crt-ignore-err", "128", false, err, sizeof(err)), -1);
	CHECK_INT(opts_parse1(&o, "alpn", "h2,,x", false, err, sizeof(err)), -1);
	CHECK_INT(opts_parse1(&o, "alpn", "h2,http/1.1", false, err, sizeof(err)), 0);
	CHECK_INT(o.alpn_len, 3 + 9);
	CHECK(o.alpn[0] == 2 && !memcmp(o.alpn + 1, "h2", 2) && o.alpn[3] == 8);
	ssl_opts_free(&o);
}

TEST(ssl_opts_merge_from_defaults)
{
	struct ssl_opts def = { .verify = SSLV_UNSET }, o = { .verify = SSLV_UNSET };
	char err[256] = "";

	CHECK_INT(opts_parse1(&def, "ciphers", "ECDHE-RSA-AES128-GCM-SHA256", false, err,
			      sizeof(err)),
		  0);
	CHECK_INT(opts_parse1(&def, "no-tls-tickets", NULL, false, err, sizeof(err)), 0);
	CHECK_INT(opts_parse1(&def, "ssl-min-ver", "TLSv1.3", false, err, sizeof(err)), 0);
	/* the line keeps what it sets, "tls-tickets" included, and takes the rest */
	CHECK_INT(opts_parse1(&o, "tls-tickets", NULL, false, err, sizeof(err)), 0);
	CHECK_INT(opts_parse1(&o, "ciphers", "AES256-SHA", false, err, sizeof(err)), 0);
	CHECK_INT(ssl_opts_merge(&o, &def), 0);
	CHECK_STR(o.ciphers, "AES256-SHA");
	CHECK(!(o.flags & SSLO_NO_TICKETS));
	CHECK_INT(o.min_ver, TLS1_3_VERSION);
	ssl_opts_free(&o);
	CHECK_INT(ssl_opts_merge(&o, &def), 0);
	CHECK_STR(o.ciphers, "ECDHE-RSA-AES128-GCM-SHA256");
	CHECK(o.flags & SSLO_NO_TICKETS);
	ssl_opts_free(&o);
	ssl_opts_free(&def);
}

TEST(ssl_opts_apply_range)
{
	struct ssl_opts o = { .verify = SSLV_UNSET };
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	char err[256] = "";

	CHECK(ctx != NULL);
	if (!ctx)
		return;
	/* default: TLS 1.2 to 1.3 */
	CHECK_INT(ssl_opts_apply(ctx, &o, false, err, sizeof(err)), 0);
	CHECK_INT(SSL_CTX_get_min_proto_version(ctx), TLS1_2_VERSION);
	CHECK_INT(SSL_CTX_get_max_proto_version(ctx), TLS1_3_VERSION);
	CHECK_INT(opts_parse1(&o, "no-tlsv13", NULL, false, err, sizeof(err)), 0);
	CHECK_INT(ssl_opts_apply(ctx, &o, false, err, sizeof(err)), 0);
	CHECK_INT(SSL_CTX_get_max_proto_version(ctx), TLS1_2_VERSION);
	CHECK_INT(opts_parse1(&o, "no-tlsv12", NULL, false, err, sizeof(err)), 0);
	CHECK_INT(ssl_opts_apply(ctx, &o, false, err, sizeof(err)), -1);
	CHECK_STR(err, "all SSL/TLS versions are disabled");
	ssl_opts_free(&o);
	CHECK_INT(opts_parse1(&o, "ciphers", "FOO-BAR", false, err, sizeof(err)), 0);
	CHECK_INT(ssl_opts_apply(ctx, &o, false, err, sizeof(err)), -1);
	CHECK_STR(err, "unable to set SSL cipher list to 'FOO-BAR'");
	ssl_opts_free(&o);
	CHECK_INT(opts_parse1(&o, "verify", "required", false, err, sizeof(err)), 0);
	CHECK_INT(ssl_opts_apply(ctx, &o, false, err, sizeof(err)), -1);
	CHECK_STR(err, "verify is enabled but no CA file specified");
	ssl_opts_free(&o);
	SSL_CTX_free(ctx);
}
