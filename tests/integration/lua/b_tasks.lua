-- Tasks, init functions, cosockets and the HTTP client, driven by test_lua_tasks.py
-- (Lua 5.3 and 5.4). Results are kept in this (shared) state and shown by services.
-- The test's TCP server port comes from the environment (global `setenv`), read at run
-- time.

local state = { init = "no", ticks = 0, slow = 0, cosock = {} }

core.register_init(function()
	state.init = "yes"
end)

-- A periodic task: ticks every 100 ms.
core.register_task(function()
	for _ = 1, 1000000 do
		state.ticks = state.ticks + 1
		core.msleep(100)
	end
end)

-- A periodic task on core.sleep (whole seconds).
core.register_task(function()
	for _ = 1, 1000000 do
		core.sleep(1)
		state.slow = state.slow + 1
	end
end)

-- A task that fails: the error is logged and the proxy keeps running.
core.register_task(function()
	core.msleep(50)
	error("task failed on purpose")
end)

local function log(s)
	state.cosock[#state.cosock + 1] = s
end

-- A task using a cosocket: one exchange with the test's server, every read pattern, then a
-- connection to a port where nothing listens.
core.register_task(function()
	local port = tonumber(os.getenv("LUAB_TCP_PORT"))
	local s = core.tcp()
	s:settimeout(3)
	local ok, err = s:connect("127.0.0.1", port)
	log("connect " .. tostring(ok) .. " " .. tostring(err))
	log("send " .. tostring(s:send("PING task\n")))
	log("line " .. tostring(s:receive("*l")))
	log("three " .. tostring(s:receive(3)))
	log("all " .. tostring(s:receive("*a")))
	s:close()
	local c = core.tcp()
	c:settimeout(2)
	local ok2, err2 = c:connect("127.0.0.1", tonumber(os.getenv("LUAB_CLOSED_PORT")))
	log("closed " .. tostring(ok2) .. " " .. tostring(err2 ~= nil))
	c:close()
	log("done")
end)

local function text(applet, body)
	applet:add_header("content-length", tostring(#body))
	applet:add_header("content-type", "text/plain")
	applet:start_response()
	applet:send(body)
end

core.register_service("state", "http", function(applet)
	text(applet, "init=" .. state.init .. " ticks=" .. state.ticks .. " slow=" .. state.slow
		.. "\n")
end)

core.register_service("cosock", "http", function(applet)
	text(applet, table.concat(state.cosock, "\n") .. "\n")
end)

-- A cosocket from an action: the server answers one line; it ends up in txn.line. A
-- receive timeout (the server says nothing) ends in txn.err.
core.register_action("ask", { "http-req" }, function(txn, port)
	local s = core.tcp()
	s:settimeout(1)
	local ok, err = s:connect("127.0.0.1", tonumber(port))
	if not ok then
		txn:set_var("txn.err", "connect: " .. tostring(err))
		return
	end
	s:send("PING " .. txn.sf:path() .. "\n")
	local l, rerr = s:receive("*l")
	if l then
		txn:set_var("txn.line", l)
	else
		txn:set_var("txn.err", "receive: " .. tostring(rerr))
	end
	s:close()
end, 1)

-- A TLS cosocket (connect_ssl) to the test's TLS server, from a service.
core.register_service("tls", "http", function(applet)
	local s = core.tcp()
	s:settimeout(3)
	local ok, err = s:connect_ssl("127.0.0.1", tonumber(applet.qs))
	local out = "connect_ssl " .. tostring(ok) .. " " .. tostring(err) .. "\n"
	if ok then
		s:send("PING tls\n")
		out = out .. "line " .. tostring(s:receive("*l")) .. "\n"
	end
	s:close()
	text(applet, out)
end)

-- The HTTP client against the test's backend: ?PORT&WHAT. Each request uses its own
-- client object.
local function show(r)
	local out = { "status=" .. tostring(r.status), "reason=" .. tostring(r.reason) }
	local names = {}
	for k, _ in pairs(r.headers or {}) do
		names[#names + 1] = k
	end
	table.sort(names)
	for _, k in ipairs(names) do
		if k:sub(1, 2) == "x-" then
			out[#out + 1] = k .. "=" .. tostring(r.headers[k][0])
		end
	end
	out[#out + 1] = "body=" .. tostring(r.body)
	return table.concat(out, "\n") .. "\n"
end

core.register_service("hc", "http", function(applet)
	local port, what = applet.qs:match("^(%d+)&(%w+)$")
	local base = "http://127.0.0.1:" .. port
	local hc = core.httpclient()
	local r
	if what == "get" then
		r = hc:get({ url = base .. "/get?hdr=X-Test:yes",
			headers = { ["X-Sent"] = { "from lua" } } })
	elseif what == "post" then
		r = hc:post({ url = base .. "/post?echo=1", body = "posted by lua" })
	elseif what == "head" then
		r = hc:head({ url = base .. "/head" })
	elseif what == "status" then
		r = hc:get({ url = base .. "/s?status=404" })
	end
	text(applet, show(r))
end)
