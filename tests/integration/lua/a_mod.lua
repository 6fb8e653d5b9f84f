-- A module loaded with require() by a_require.lua.
local M = {}

function M.greet(who)
	return "module says hi to " .. who
end

return M
