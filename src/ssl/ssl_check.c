/* TLS of health checks: a client TLS object over a check's own socket (a socket BIO: the
 * check keeps and closes the fd), its handshake with the check SNI and the name verified,
 * and reads and writes with the recv()/send() conventions. Checks never resume sessions.
 * The contexts come from the server (ssl_srv_cfg.c builds ssl_srv.chk_ctx).
 */
#include <errno.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <backend/server-t.h>
#include <ssl/ssl.h>

SSL *ssl_chk_new(struct server *srv, int fd)
{
	struct ssl_srv *ss = srv->ssl;
	const char *name;
	SSL *ssl;

	ssl = SSL_new(ss->chk_ctx);
	if (!ssl)
		return NULL;
	if (!SSL_set_fd(ssl, fd))
		goto out_free;
	SSL_set_connect_state(ssl);
	if (ss->check_sni && !SSL_set_tlsext_host_name(ssl, ss->check_sni))
		goto out_free;
	/* the name verified: the check's SNI, else verifyhost (as 2.6) */
	name = ss->check_sni ? ss->check_sni : ss->verifyhost;
	if (ss->opts.verify == SSLV_REQUIRED && !(ss->opts.flags & SSLO_NO_VERIFYHOST) && name) {
		X509_VERIFY_PARAM *vp = SSL_get0_param(ssl);

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

int ssl_chk_handshake(SSL *ssl, const char **why)
{
	int ret = SSL_do_handshake(ssl), err;

	if (ret == 1)
		return 1;
	err = SSL_get_error(ssl, ret);
	if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE)
		return 0;
	ERR_clear_error();
	*why = SSL_get_verify_result(ssl) == X509_V_ERR_HOSTNAME_MISMATCH
		       ? "Server presented an SSL certificate different from the expected one"
		       : "SSL handshake failure";
	return -1;
}

/* Maps the result <ret> of SSL_read_ex/SSL_write_ex on <ssl> that did not succeed. */
static ssize_t ssl_chk_io_err(SSL *ssl, int ret)
{
	int err = SSL_get_error(ssl, ret);

	switch (err) {
	case SSL_ERROR_WANT_READ:
	case SSL_ERROR_WANT_WRITE:
		errno = EAGAIN;
		return -1;
	case SSL_ERROR_ZERO_RETURN:
		return 0;
	case SSL_ERROR_SYSCALL:
		ERR_clear_error();
		if (!errno) /* the peer closed without close_notify, as many do */
			return 0;
		return -1;
	default:
		ERR_clear_error();
		errno = EPROTO;
		return -1;
	}
}

ssize_t ssl_chk_recv(SSL *ssl, void *buf, size_t len)
{
	size_t got = 0;
	int ret;

	errno = 0;
	ret = SSL_read_ex(ssl, buf, len, &got);
	return ret == 1 ? (ssize_t)got : ssl_chk_io_err(ssl, ret);
}

ssize_t ssl_chk_send(SSL *ssl, const void *buf, size_t len)
{
	size_t done = 0;
	int ret;

	errno = 0;
	ret = SSL_write_ex(ssl, buf, len, &done);
	return ret == 1 ? (ssize_t)done : ssl_chk_io_err(ssl, ret);
}

void ssl_chk_free(SSL *ssl)
{
	SSL_free(ssl);
}
