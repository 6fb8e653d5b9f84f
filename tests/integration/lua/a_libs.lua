-- Reports which standard libraries this state has (tune.lua.openlibs); uses only base
-- functions, which every state has.
core.register_fetches("libs", function(txn)
	return "os=" .. type(os) .. " io=" .. type(io) .. " string=" .. type(string) ..
		" math=" .. type(math) .. " table=" .. type(table) .. " package=" ..
		type(package) .. " debug=" .. type(debug) .. " coroutine=" .. type(coroutine)
end)
