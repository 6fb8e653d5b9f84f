-- Cosocket actions for tests/integration/test_lua_socket.py. Each action stores what the
-- Socket methods returned in txn.out ("|" between calls, "," between the values of one
-- call, CR and LF shown as \r and \n) for an "http-request return" to send back.

local function show(...)
	local t = table.pack(...)
	local p = {}
	for i = 1, t.n do
		local v = t[i]
		if type(v) == "string" then
			v = v:gsub("\r", "\\r"):gsub("\n", "\\n")
		end
		p[#p + 1] = tostring(v)
	end
	return table.concat(p, ",")
end

local function recorder()
	local out = {}
	return out, function(...) out[#out + 1] = show(...) end
end

local function ms_since(t0)
	local t = core.now()
	return (t.sec - t0.sec) * 1000 + (t.usec - t0.usec) // 1000
end

-- the line protocol of the test's server (see test_line_protocol)
core.register_action("sock_line", { "http-req" }, function(txn, port)
	local s = core.tcp()
	local out, add = recorder()
	add(s:connect("127.0.0.1:" .. port))
	add(s:send("hello\r\n"))
	add(s:receive("*l"))
	add(s:send("abcdef", 2, 4))
	add(s:receive(4))
	add(s:receive("*l", "P-"))
	add(s:receive())
	add(s:receive("*a"))
	add(s:receive("*l"))
	add(s:getpeername())
	s:close()
	txn:set_var("txn.out", table.concat(out, "|"))
end, 1)

core.register_action("sock_refused", { "http-req" }, function(txn, port)
	local s = core.tcp()
	local out, add = recorder()
	add(s:connect("127.0.0.1", tonumber(port)))
	add(s:send("x"))
	add(s:receive())
	txn:set_var("txn.out", table.concat(out, "|"))
end, 1)

core.register_action("sock_timeout", { "http-req" }, function(txn, port)
	local s = core.tcp()
	local out, add = recorder()
	add(s:settimeout(0.3))
	add(s:connect("127.0.0.1", tonumber(port)))
	local t0 = core.now()
	add(s:receive("*l"))
	txn:set_var("txn.ms", ms_since(t0))
	add(s:send("x"))
	txn:set_var("txn.out", table.concat(out, "|"))
end, 1)

core.register_action("sock_tls", { "http-req" }, function(txn, port)
	local s = core.tcp()
	local out, add = recorder()
	s:settimeout(3)
	add(s:connect_ssl("127.0.0.1", tonumber(port)))
	add(s:send("hello\n"))
	add(s:receive("*l"))
	s:close()
	txn:set_var("txn.out", table.concat(out, "|"))
end, 1)

-- address forms: an IPv6 literal with its port apart, a prefixed IPv4, and the refusals
core.register_action("sock_addr", { "http-req" }, function(txn, port6, port4)
	local out, add = recorder()
	local s = core.tcp()
	add(s:connect("::1", tonumber(port6)))
	add(s:receive("*l"))
	s:close()
	s = core.tcp()
	add(s:connect("ipv4@127.0.0.1:" .. port4))
	add(s:receive("*l"))
	s:close()
	s = core.tcp()
	add(s:connect("127.0.0.1", 70000))
	s = core.tcp()
	add(pcall(s.connect, s, "127.0.0.1"))
	s = core.tcp()
	local ok, err = pcall(s.connect, s, "localhost", tonumber(port4))
	add(ok, (err:gsub("'.*", "")))
	txn:set_var("txn.out", table.concat(out, "|"))
end, 2)

-- connects and fails: the socket is closed all the same
core.register_action("sock_boom", { "http-req" }, function(txn, port)
	local s = core.tcp()
	s:connect("127.0.0.1", tonumber(port))
	s:send("boom\n")
	error("boom after connect")
end, 1)

-- connects, talks, and never closes: the collection after the call does
core.register_action("sock_forget", { "http-req" }, function(txn, port)
	local s = core.tcp()
	s:connect("127.0.0.1", tonumber(port))
	s:send("hi\n")
	txn:set_var("txn.out", show(s:receive("*l")))
end, 1)

-- with the shared state, sockets kept in a global are dropped in batches, maybe by
-- another thread's collection; using another thread's socket is an error pcall catches
KEPT = {}
core.register_action("sock_keep", { "http-req" }, function(txn, port)
	local s = core.tcp()
	s:connect("127.0.0.1", tonumber(port))
	s:send("hi\n")
	local r = s:receive("*l")
	KEPT[#KEPT + 1] = s
	if #KEPT > 7 then
		KEPT = {}
	end
	for _, k in ipairs(KEPT) do
		pcall(k.send, k, "again\n")
	end
	txn:set_var("txn.out", show(r))
end, 1)

-- a sample fetch cannot wait: the error is a Lua error the script may catch
core.register_fetches("sock_fetch", function(txn)
	local s = core.tcp()
	local ok, err = pcall(s.connect, s, "127.0.0.1", 1)
	return tostring(ok) .. " " .. tostring(err)
end)

-- a line longer than the socket's buffer, one with a CR inside, and what follows
core.register_action("sock_long", { "http-req" }, function(txn, port)
	local s = core.tcp()
	local out, add = recorder()
	s:settimeout(3)
	add(s:connect("127.0.0.1", tonumber(port)))
	local l = s:receive("*l")
	add(#l, l:sub(1, 3), l:sub(-3))
	add(s:receive("*l"))
	add(s:receive(5))
	add(s:receive("*a"))
	txn:set_var("txn.out", table.concat(out, "|"))
end, 1)
