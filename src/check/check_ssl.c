/* Health checks over TLS: the glue between a check run (check.c, tcpcheck_run.c) and the
 * TLS layer (ssl/ssl_check.c). A run that uses TLS does its handshake once connected; a
 * failure ends it as a Layer6 invalid response, with 2.6's reason.
 */
#include <ssl/ssl.h>

#include <backend/server-t.h>
#include <check/check.h>
#include <check/check_ssl.h>

bool chk_ssl_wanted(const struct check *c)
{
	return c->srv->ssl && c->srv->ssl->chk_ctx;
}

int chk_ssl_step(struct check *c, const char **why)
{
	int ret;

	if (!c->ssl && !(c->ssl = ssl_chk_new(c->srv, c->fh.fd))) {
		*why = "SSL handshake failure"; /* out of memory */
		return -1;
	}
	ret = ssl_chk_handshake(c->ssl, why);
	if (ret > 0)
		c->ssl_hs = false;
	return ret;
}

int chk_ssl_handshake(struct check *c)
{
	const char *why = NULL;
	int ret = chk_ssl_step(c, &why);

	if (ret < 0)
		chk_finish(c, CHK_R_L6RSP, 0, why);
	return ret;
}

void chk_ssl_timeout(struct check *c)
{
	chk_finish(c, CHK_R_L6TOUT, 0, NULL);
}

void chk_ssl_close(struct check *c)
{
	if (!c->ssl)
		return;
	ssl_chk_free(c->ssl);
	c->ssl = NULL;
	c->ssl_hs = false;
}

ssize_t chk_ssl_recv(struct check *c, void *buf, size_t len)
{
	return ssl_chk_recv(c->ssl, buf, len);
}

ssize_t chk_ssl_send(struct check *c, const void *buf, size_t len)
{
	return ssl_chk_send(c->ssl, buf, len);
}
