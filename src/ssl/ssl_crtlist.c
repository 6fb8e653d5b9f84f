/* crt-list files: one certificate per line with its own TLS options and SNI filters.
 * Parse time (and the runtime API's add/del ssl crt-list).
 */
#include <stdio.h>

#include <ssl/ssl.h>

#include "ssl_int.h"

int ssl_crtlist_load(struct ssl_bind *sb, const char *path, char *err, size_t errlen)
{
	(void)sb;
	snprintf(err, errlen, "'crt-list %s' is not supported yet", path);
	return -1;
}
