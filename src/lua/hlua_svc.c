/* Lua services (core.register_service): "http" ones answer a request through the
 * AppletHTTP class, "tcp" ones a connection through AppletTCP.
 */
#include <stdio.h>

#include "hlua_int.h"

int hlua_service_declare(struct hlua_fn *fn, char *err, size_t errsz)
{
	snprintf(err, errsz, "Lua services are not supported yet");
	return -1;
}
