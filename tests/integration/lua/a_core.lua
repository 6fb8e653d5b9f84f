-- core.* utilities called from actions, for test_lua_actions.py. Each action reports what
-- it saw in request headers (the test backend records them) or in log lines.

local function names(t)
	local out = {}
	for k in pairs(t) do out[#out + 1] = k end
	table.sort(out)
	return table.concat(out, ",")
end

core.register_action("logs", {"http-req"}, function(txn)
	core.log(core.notice, "lua-log notice")
	core.Debug("lua-debug msg")
	core.Info("lua-info msg")
	core.Warning("lua-warning msg")
	core.Alert("lua-alert msg")
end)

core.register_action("utils", {"http-req"}, function(txn)
	local h = txn.http
	local now = core.now()
	h:req_set_header("X-Now", string.format("%d.%06d", now.sec, now.usec))
	h:req_set_header("X-Thread", tostring(core.thread))
	local info = core.get_info()
	h:req_set_header("X-Info-Pid", tostring(info.Pid))
	h:req_set_header("X-Info-Name", tostring(info.Name))
	local c = core.concat()
	c:add("con")
	c:add("cat")
	c:add("ed")
	h:req_set_header("X-Concat", c:dump())
	h:req_set_header("X-Tok", table.concat(core.tokenize("a,b;;c", ",;"), "|"))
	h:req_set_header("X-Tok-Noblank", table.concat(core.tokenize("a,b;;c", ",;", true), "|"))
	local net = core.parse_addr("10.0.0.0/8")
	h:req_set_header("X-Match-In", tostring(core.match_addr(net, core.parse_addr("10.1.2.3"))))
	h:req_set_header("X-Match-Out", tostring(core.match_addr(net, core.parse_addr("11.1.2.3"))))
	h:req_set_header("X-Proxies", names(core.proxies))
	h:req_set_header("X-Frontends", names(core.frontends))
	h:req_set_header("X-Backends", names(core.backends))
end)

core.register_action("sleep", {"http-req"}, function(txn, ms)
	core.msleep(tonumber(ms))
	txn.http:req_set_header("X-Slept", ms)
end, 1)

core.register_action("yield", {"http-req"}, function(txn)
	local n = 0
	for _ = 1, 3 do
		core.yield()
		n = n + 1
	end
	txn.http:req_set_header("X-Yields", tostring(n))
end)

core.register_action("procvar", {"http-req"}, function(txn)
	core.set_var("proc.lua_pv", "proc-" .. txn.f:path())
	txn.http:req_set_header("X-Proc-Get", tostring(core.get_var("proc.lua_pv")))
end)

-- ACL and map files named by the action's argument (the same path as in the config)
core.register_action("acl_add", {"http-req"}, function(txn, file)
	core.add_acl(file, txn.sf:req_hdr("x-key"))
end, 1)

core.register_action("acl_del", {"http-req"}, function(txn, file)
	core.del_acl(file, txn.sf:req_hdr("x-key"))
end, 1)

core.register_action("map_set", {"http-req"}, function(txn, file)
	core.set_map(file, txn.sf:req_hdr("x-key"), txn.sf:req_hdr("x-val"))
end, 1)

core.register_action("map_del", {"http-req"}, function(txn, file)
	core.del_map(file, txn.sf:req_hdr("x-key"))
end, 1)

core.register_action("loglevel", {"http-req"}, function(txn)
	txn:set_loglevel(core.warning)
end)
