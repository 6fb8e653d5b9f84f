/* TLS session ticket keys read from a "tls-ticket-keys" file, rotated through the runtime
 * API. Parse time, and the handshakes (read only).
 */
#include <stdio.h>

#include <ssl/ssl.h>

#include "ssl_int.h"

int ssl_tkeys_load(struct ssl_bind *sb, const char *path, char *err, size_t errlen)
{
	(void)sb;
	snprintf(err, errlen, "'tls-ticket-keys %s' is not supported yet", path);
	return -1;
}

void ssl_tkeys_free(struct ssl_bind *sb)
{
	(void)sb;
}

int ssl_tkeys_setup(SSL_CTX *ctx, struct ssl_bind *sb, char *err, size_t errlen)
{
	(void)ctx;
	(void)sb;
	(void)err;
	(void)errlen;
	return 0;
}
