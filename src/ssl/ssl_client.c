/* Client TLS for the outgoing connections that belong to no server: Lua cosockets
 * (Socket:connect_ssl, which never verifies, as HAProxy's) and the Lua HTTP client
 * (httpclient.ssl.verify and httpclient.ssl.ca-file). Builds their contexts and the TLS
 * object over a caller's socket; the handshake, reads and writes are those of health
 * checks (ssl_check.c), which work on any client TLS object over a socket BIO.
 */
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <ssl/ssl.h>

SSL_CTX *ssl_client_ctx_new(bool verify, const char *ca_file, char *err, size_t errlen)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

	if (!ctx) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
	/* the caller offers the same bytes again after a would-block, from a string that
	 * may be another copy of them */
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
				      SSL_MODE_RELEASE_BUFFERS);
	SSL_CTX_set_verify(ctx, verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, NULL);
	if (!verify)
		return ctx;
	if (!ca_file || !strcmp(ca_file, "@system-ca")) {
		if (!SSL_CTX_set_default_verify_paths(ctx)) {
			snprintf(err, errlen, "unable to load the system CA certificates");
			goto fail;
		}
	} else if (!SSL_CTX_load_verify_locations(ctx, ca_file, NULL)) {
		snprintf(err, errlen, "unable to load CA file '%s'", ca_file);
		goto fail;
	}
	return ctx;
fail:
	ERR_clear_error();
	SSL_CTX_free(ctx);
	return NULL;
}

/* True when <name> is an IPv4 or IPv6 literal (no SNI is sent for those). */
static bool ssl_client_is_ip(const char *name)
{
	unsigned char buf[16];

	return inet_pton(AF_INET, name, buf) == 1 || inet_pton(AF_INET6, name, buf) == 1;
}

SSL *ssl_client_new(SSL_CTX *ctx, int fd, const char *name)
{
	bool verify = SSL_CTX_get_verify_mode(ctx) & SSL_VERIFY_PEER;
	SSL *ssl = SSL_new(ctx);
	X509_VERIFY_PARAM *vp;

	if (!ssl)
		return NULL;
	if (!SSL_set_fd(ssl, fd))
		goto out_free;
	SSL_set_connect_state(ssl);
	if (!name || !*name)
		return ssl;
	vp = SSL_get0_param(ssl);
	if (ssl_client_is_ip(name)) {
		/* no SNI for an address (RFC 6066); verified against the certificate's IP
		 * addresses (HAProxy 2.6 checks it as a name, which no certificate matches) */
		if (verify && !X509_VERIFY_PARAM_set1_ip_asc(vp, name))
			goto out_free;
		return ssl;
	}
	if (!SSL_set_tlsext_host_name(ssl, name))
		goto out_free;
	if (verify) {
		X509_VERIFY_PARAM_set_hostflags(vp, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
		if (!X509_VERIFY_PARAM_set1_host(vp, name, 0))
			goto out_free;
	}
	return ssl;
out_free:
	ERR_clear_error();
	SSL_free(ssl);
	return NULL;
}
