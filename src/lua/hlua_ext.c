/* The classes and core functions beyond the runtime's own, added to each new state: see
 * each file named below for what it owns.
 */
#include "hlua_int.h"

void hlua_ext_setup(lua_State *L)
{
	hlua_proxy_setup(L);	  /* hlua_proxy.c */
	hlua_stktable_setup(L);	  /* hlua_stktable.c */
	hlua_map_setup(L);	  /* hlua_map.c */
	hlua_util_setup(L);	  /* hlua_util.c */
	hlua_socket_setup(L);	  /* hlua_socket.c */
	hlua_httpclient_setup(L); /* hlua_httpclient.c */
}
