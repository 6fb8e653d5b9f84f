/* What a server-side context gets besides its options and certificate, each from the file
 * that owns it: the TLS ticket keys of its bind line (ssl_tkeys.c), the key log
 * (ssl_keylog.c, tune.ssl.keylog) and the capture of the client's cipher list
 * (ssl_capture.c, tune.ssl.capture-cipherlist-size). Check time.
 */
#include <ssl/ssl.h>

#include "ssl_int.h"

int ssl_ctx_extra_setup(SSL_CTX *ctx, struct ssl_bind *sb, char *err, size_t errlen)
{
	if (ssl_tkeys_setup(ctx, sb, err, errlen) < 0 || ssl_keylog_setup(ctx, err, errlen) < 0 ||
	    ssl_capture_setup(ctx, err, errlen) < 0)
		return -1;
	return 0;
}
