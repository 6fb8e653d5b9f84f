/* Runtime API commands written in Lua (core.register_cli).
 */
#include <stdio.h>

#include "hlua_int.h"

int hlua_cli_declare(struct hlua_fn *fn, char *err, size_t errsz)
{
	snprintf(err, errsz, "Lua CLI commands are not supported yet");
	return -1;
}
