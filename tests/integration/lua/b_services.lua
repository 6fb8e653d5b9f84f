-- HTTP and TCP services driven by test_lua_services.py (Lua 5.3 and 5.4).
-- Each service answers something a client can check byte for byte.

local function reply(applet, status, body)
	applet:set_status(status)
	applet:add_header("content-length", tostring(#body))
	applet:add_header("content-type", "text/plain")
	applet:start_response()
	applet:send(body)
end

-- Echoes what the applet sees of the request, headers sorted, each value with its index.
core.register_service("info", "http", function(applet)
	local lines = {
		"method=" .. applet.method,
		"path=" .. applet.path,
		"qs=" .. applet.qs,
		"length=" .. tostring(applet.length),
	}
	local hdrs = {}
	for name, values in pairs(applet.headers) do
		for i, v in pairs(values) do
			hdrs[#hdrs + 1] = name .. "[" .. i .. "]=" .. v
		end
	end
	table.sort(hdrs)
	for _, h in ipairs(hdrs) do
		lines[#lines + 1] = h
	end
	local body = table.concat(lines, "\n") .. "\n"
	applet:set_status(201, "Made It")
	applet:add_header("x-service", "info")
	applet:add_header("x-multi", "a")
	applet:add_header("x-multi", "b")
	applet:add_header("content-length", tostring(#body))
	applet:start_response()
	applet:send(body)
end)

-- The whole request body through receive() with no size.
core.register_service("body", "http", function(applet)
	local data = applet:receive() or ""
	reply(applet, 200, "got " .. #data .. ": " .. data)
end)

-- The body line by line through getline(): each line bracketed.
core.register_service("lines", "http", function(applet)
	local parts = {}
	for _ = 1, 1000 do
		local l = applet:getline()
		if l == nil or l == "" then
			break
		end
		parts[#parts + 1] = "[" .. l .. "]"
	end
	reply(applet, 200, table.concat(parts))
end)

-- The body in pieces of at most 4 bytes through receive(4).
core.register_service("pieces", "http", function(applet)
	local parts = {}
	for _ = 1, 1000 do
		local d = applet:receive(4)
		if d == nil or d == "" then
			break
		end
		parts[#parts + 1] = "<" .. d .. ">"
	end
	reply(applet, 200, table.concat(parts))
end)

-- No content-length: the proxy frames the response itself.
core.register_service("nolen", "http", function(applet)
	applet:start_response()
	applet:send("part1 ")
	applet:send("part2\n")
end)

-- 1 MiB in 64 send() calls of 16 KiB.
core.register_service("big", "http", function(applet)
	local chunk = string.rep("0123456789abcdef", 1024)
	applet:add_header("content-length", tostring(#chunk * 64))
	applet:start_response()
	for _ = 1, 64 do
		applet:send(chunk)
	end
end)

core.register_service("fail", "http", function(applet)
	error("boom before the response")
end)

core.register_service("failafter", "http", function(applet)
	applet:add_header("content-length", "10")
	applet:start_response()
	applet:send("12345")
	error("boom in the middle")
end)

core.register_service("loop", "http", function(applet)
	local x = 0
	while true do
		x = x + 1
	end
end)

core.register_service("hello", "http", function(applet)
	reply(applet, 200, "hello from lua\n")
end)

-- TCP: greets, then answers line by line until "quit" or the end of input.
core.register_service("echo", "tcp", function(applet)
	applet:send("hello\n")
	for _ = 1, 1000 do
		local l = applet:getline()
		if l == nil or l == "" then
			break
		end
		if l == "quit\n" then
			applet:send("bye\n")
			break
		elseif l == "read4\n" then
			applet:send("four:" .. tostring(applet:receive(4)) .. "\n")
		else
			applet:send("echo:" .. l)
		end
	end
end)

-- TCP: everything until the client shuts its side, then a summary.
core.register_service("drain", "tcp", function(applet)
	local d = applet:receive() or ""
	applet:send("got " .. #d .. " bytes: " .. d)
end)
