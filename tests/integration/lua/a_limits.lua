-- Misbehaving functions for test_lua_limits.py: runtime errors, endless loops and a huge
-- allocation, each reached through one action, fetch or converter.

core.register_action("fail", {"http-req"}, function(txn)
	txn.http:req_set_header("X-Before-Error", "yes")
	local t = nil
	return t.field
end)

core.register_action("fail_res", {"http-res"}, function(txn)
	error("response action failed")
end)

core.register_action("spin", {"http-req"}, function(txn)
	local n = 0
	while true do
		n = n + 1
	end
end)

core.register_fetches("spin", function(txn)
	local n = 0
	while true do
		n = n + 1
	end
end)

-- about 60 MB if nothing stops it: far over a 16 MB tune.lua.maxmem, harmless without it
core.register_action("hog", {"http-req"}, function(txn)
	local t = {}
	for i = 1, 600000 do
		t[i] = string.rep("x", 64) .. i
	end
	txn.http:req_set_header("X-Hog", tostring(#t))
end)

-- a long but finite loop: about 1.2 s of CPU, so many forced yields unless they are off
core.register_action("busy", {"http-req"}, function(txn)
	local t0 = os.clock()
	local n = 0
	while os.clock() - t0 < 1.2 do
		n = n + 1
	end
	txn.http:req_set_header("X-Busy", "done")
end)

core.register_action("ok", {"http-req"}, function(txn)
	txn.http:req_set_header("X-Lua-Ok", "yes")
end)
