-- Needs a_mod.lua, found only through `lua-prepend-path <dir>/?.lua`.
local mod = require("a_mod")

core.register_fetches("mod_greet", function(txn)
	return mod.greet(txn.f:path())
end)
