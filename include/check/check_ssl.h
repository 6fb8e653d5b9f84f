/* Health checks over TLS (check_ssl.c): whether a run uses it, its handshake, and the
 * recv()/send() a run calls, which go through TLS when the run has it.
 */
#ifndef CHECK_CHECK_SSL_H
#define CHECK_CHECK_SSL_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <base/compiler.h>
#include <check/check-t.h>

/* True when the checks of <c>'s server run over TLS. */
bool chk_ssl_wanted(const struct check *c);

/* One step of the handshake of the run of <c> (started on the first call; ssl_hs is
 * cleared once done): 1 complete, 0 waiting, -1 failed with 2.6's reason in <why>. */
int chk_ssl_step(struct check *c, const char **why);

/* Drives the handshake of the run of <c> (starting it on the first call; clears ssl_hs
 * once done). Returns 1 when complete, 0 while waiting, -1 when the run ended (a failed
 * Layer6 check). */
int chk_ssl_handshake(struct check *c);

/* A handshake that did not end before the run's deadline: "Layer6 timeout". */
void chk_ssl_timeout(struct check *c);

/* Frees the run's TLS object, if any (before its socket is closed). */
void chk_ssl_close(struct check *c);

ssize_t chk_ssl_recv(struct check *c, void *buf, size_t len);
ssize_t chk_ssl_send(struct check *c, const void *buf, size_t len);

/* recv()/send() of a check run, through TLS when it has it. */
static inline ssize_t chk_xrecv(struct check *c, void *buf, size_t len)
{
	if (unlikely(c->ssl))
		return chk_ssl_recv(c, buf, len);
	return recv(c->fh.fd, buf, len, 0);
}

static inline ssize_t chk_xsend(struct check *c, const void *buf, size_t len)
{
	if (unlikely(c->ssl))
		return chk_ssl_send(c, buf, len);
	return send(c->fh.fd, buf, len, MSG_NOSIGNAL);
}

#endif
