/* core.concat, core.tokenize, core.parse_addr, core.match_addr and the Queue class.
 */
#include "hlua_int.h"

void hlua_util_setup(lua_State *L)
{
}
