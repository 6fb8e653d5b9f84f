/* The HTTP client: core.httpclient() and its get/post/put/head/delete methods.
 */
#include "hlua_int.h"

void hlua_httpclient_setup(lua_State *L)
{
}
