-- Loading checks for test_lua_limits.py: the arguments of lua-load, the Lua state a request
-- runs in, and a module found through lua-prepend-path.

local args = table.pack(...)
local seen = {}
for i = 1, args.n do
	seen[i] = tostring(args[i])
end

core.register_fetches("load_args", function(txn)
	return args.n .. ":" .. table.concat(seen, "|")
end)

core.register_fetches("thread", function(txn)
	return core.thread
end)
