/* The StickTable class (info, lookup, dump) reached through Proxy.stktable.
 */
#include "hlua_int.h"

void hlua_stktable_setup(lua_State *L)
{
}
