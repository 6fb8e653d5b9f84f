/* Cosockets: core.tcp() and the Socket class (connect, connect_ssl, send, receive,
 * settimeout, close), driven by the thread's event loop.
 */
#include "hlua_int.h"

void hlua_socket_setup(lua_State *L)
{
}
