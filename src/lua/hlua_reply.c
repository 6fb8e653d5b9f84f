/* txn:reply(): the Reply class an action fills (status, headers, body) and hands to
 * txn:done() to answer the client itself.
 */
#include "hlua_int.h"

int hlua_txn_reply(lua_State *L)
{
	return luaL_error(L, "txn:reply() is not supported yet");
}
