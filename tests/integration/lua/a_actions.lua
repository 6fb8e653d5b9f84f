-- Actions for test_lua_actions.py: each one changes something a client or the test
-- backend can see. Compatible with Lua 5.3 and 5.4.

core.register_action("hdrs", {"http-req"}, function(txn)
	local h = txn.http
	h:req_set_header("X-Set", "set-by-lua")
	h:req_add_header("X-Add", "added")
	h:req_del_header("X-Del")
	h:req_rep_header("X-Rep", "^foo(.*)$", "bar\\1")
	local all = h:req_get_headers()
	local n = 0
	if all["x-add"] ~= nil then
		for _ in pairs(all["x-add"]) do n = n + 1 end
	end
	h:req_set_header("X-Add-Count", tostring(n))
	h:req_set_header("X-First-Add", tostring(all["x-add"] and all["x-add"][0]))
end)

core.register_action("method", {"http-req"}, function(txn)
	txn.http:req_set_method("PUT")
end)

core.register_action("path", {"http-req"}, function(txn)
	txn.http:req_set_path("/rewritten")
end)

core.register_action("query", {"http-req"}, function(txn)
	txn.http:req_set_query("a=1&b=2")
end)

core.register_action("uri", {"http-req"}, function(txn)
	txn.http:req_set_uri("/u/v?w=x")
end)

core.register_action("args", {"http-req"}, function(txn, a, b)
	txn.http:req_set_header("X-Args", tostring(a) .. "|" .. tostring(b))
end, 2)

core.register_action("vars", {"http-req"}, function(txn)
	txn:set_var("txn.foo", "from-lua")
	txn:set_var("req.num", 42)
	txn:set_var("sess.s", "sess-val")
	txn:set_var("txn.gone", "x")
	txn:unset_var("txn.gone")
	local cfgv = txn:get_var("txn.cfg")
	txn.http:req_set_header("X-Cfg-Var", tostring(cfgv))
	txn.http:req_set_header("X-Missing-Var", tostring(txn:get_var("txn.nothing")))
end)

core.register_action("priv_req", {"http-req"}, function(txn)
	txn:set_priv({path = txn.f:path(), n = 7})
end)

core.register_action("priv_res", {"http-res"}, function(txn)
	local p = txn:get_priv()
	if p == nil then
		txn.http:res_set_header("X-Priv", "nil")
	else
		txn.http:res_set_header("X-Priv", p.path .. "#" .. p.n)
	end
end)

core.register_action("res", {"http-res"}, function(txn)
	txn.http:res_set_header("X-Res-Set", "res-lua")
	txn.http:res_del_header("X-Server")
	txn.http:res_set_status(299, "Lua Was Here")
end)

core.register_action("done", {"http-req"}, function(txn)
	txn:done()
end)

core.register_action("reply", {"http-req"}, function(txn)
	local r = txn:reply({status = 403, reason = "Nope",
		headers = {["content-type"] = {"text/plain"}, ["x-from"] = {"lua-reply"}},
		body = "denied by lua\n"})
	txn:done(r)
end)

core.register_action("reply2", {"http-req"}, function(txn)
	local r = txn:reply()
	r:set_status(201, "Made")
	r:add_header("x-one", "1")
	r:add_header("x-one", "2")
	r:set_body("built\n")
	txn:done(r)
end)

core.register_action("fetches", {"http-req"}, function(txn)
	local h = txn.http
	h:req_set_header("X-Src", txn.f:src())
	h:req_set_header("X-Host", txn.sf:req_hdr("host"))
	h:req_set_header("X-Path", txn.f:path())
	local c = txn.c:lower("MiXeD")
	h:req_set_header("X-Lower", type(c) .. ":" .. c)
	local l = txn.c:length("abcd")
	h:req_set_header("X-Len", type(l) .. ":" .. tostring(l))
	local sl = txn.sc:length("abcd")
	h:req_set_header("X-SLen", type(sl) .. ":" .. sl)
	local port = txn.f:dst_port()
	h:req_set_header("X-DPort-Type", type(port))
	h:req_set_header("X-SF-Missing", "[" .. tostring(txn.sf:req_hdr("x-none")) .. "]")
end)

-- tcp-request content: picks the backend from the first bytes of the payload
core.register_action("pick", {"tcp-req"}, function(txn)
	local head = txn.sf:req_payload(0, 4)
	if head == "POST" then
		txn:set_var("txn.be", "b2")
	else
		txn:set_var("txn.be", "b1")
	end
end)
