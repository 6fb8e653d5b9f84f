-- Sample fetches and converters for test_lua_fetch.py (lua.NAME in the config).

core.register_fetches("hello", function(txn)
	return "hello-fetch"
end)

core.register_fetches("join", function(txn, a, b)
	return tostring(a) .. "+" .. tostring(b)
end)

core.register_fetches("answer", function(txn)
	return 42
end)

core.register_fetches("is_admin", function(txn)
	return txn.sf:req_hdr("x-role") == "admin"
end)

core.register_fetches("nothing", function(txn)
	return nil
end)

core.register_fetches("role", function(txn)
	return txn.sf:req_hdr("x-role")
end)

core.register_fetches("pick_be", function(txn)
	if txn.sf:req_hdr("x-role") == "admin" then
		return "b2"
	end
	return "b1"
end)

core.register_fetches("boom", function(txn)
	error("fetch exploded")
end)

-- the Lua type a boolean sample fetch gives to a script (see bool-sample-conversion)
core.register_fetches("bool_type", function(txn)
	return type(txn.f:always_true())
end)

core.register_converters("wrap", function(str, arg)
	return "[" .. str .. "|" .. tostring(arg) .. "]"
end)

core.register_converters("rev", function(str)
	return string.reverse(str)
end)

core.register_converters("len_plus", function(str, n)
	return #str + tonumber(n)
end)

core.register_converters("is_long", function(str)
	return #str > 5
end)

core.register_converters("boom", function(str)
	error("converter exploded")
end)
