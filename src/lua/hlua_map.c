/* The Map and Regex classes, core.add_acl/del_acl/set_map/del_map.
 */
#include "hlua_int.h"

void hlua_map_setup(lua_State *L)
{
}
