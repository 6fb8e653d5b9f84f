/* The Proxy, Server and Listener classes and core.proxies, core.frontends, core.backends;
 * core.get_info().
 */
#include "hlua_int.h"

void hlua_proxy_setup(lua_State *L)
{
}
