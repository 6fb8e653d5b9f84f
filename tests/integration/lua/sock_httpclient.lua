-- HTTP client actions for tests/integration/test_lua_httpclient.py. Each one makes one
-- call and stores what the response table holds in txn.out: the status, the reason, the
-- body (or its length and a byte sum for large ones) and the headers the test asks about.

local function sum(s)
	local n = 0
	for i = 1, #s do
		n = (n + s:byte(i)) % 4294967296
	end
	return n
end

local function values(h)
	if not h then
		return "none"
	end
	local p = {}
	local i = 0
	while h[i] ~= nil do
		p[#p + 1] = h[i]
		i = i + 1
	end
	return table.concat(p, "+")
end

local function out(txn, r, hdrs)
	local p = { tostring(r.status), r.reason, (r.body:gsub("\n", "\\n")) }
	for _, name in ipairs(hdrs or {}) do
		p[#p + 1] = name .. "=" .. values(r.headers[name])
	end
	txn:set_var("txn.out", table.concat(p, "|"))
end

local function base(port)
	return "http://127.0.0.1:" .. port
end

core.register_action("hc_get", { "http-req" }, function(txn, port)
	local r = core.httpclient():get{ url = base(port) .. "/get?a=1",
		headers = { ["X-Test"] = { "a", "b" }, ["x-skip"] = "not a table" } }
	out(txn, r, { "x-server", "content-type", "connection" })
end, 1)

core.register_action("hc_post", { "http-req" }, function(txn, port)
	local r = core.httpclient():post{ url = base(port) .. "/post?echo=1", body = "hello body",
		headers = { ["content-type"] = { "text/x-test" } } }
	out(txn, r, { "x-body-len" })
end, 1)

core.register_action("hc_put", { "http-req" }, function(txn, port)
	out(txn, core.httpclient():put{ url = base(port) .. "/put?echo=1", body = "put body" })
end, 1)

core.register_action("hc_delete", { "http-req" }, function(txn, port)
	out(txn, core.httpclient():delete{ url = base(port) .. "/del?status=204" })
end, 1)

core.register_action("hc_head", { "http-req" }, function(txn, port)
	out(txn, core.httpclient():head{ url = base(port) .. "/head" }, { "content-length" })
end, 1)

-- a response of <size> bytes framed as <framing> (backend.py's query): length and sum
core.register_action("hc_body", { "http-req" }, function(txn, port, size, framing)
	local r = core.httpclient():get{ url = base(port) .. "/b?size=" .. size .. "&framing=" .. framing }
	txn:set_var("txn.out", r.status .. "|" .. #r.body .. "|" .. sum(r.body) .. "|" ..
		values(r.headers["transfer-encoding"]))
end, 3)

core.register_action("hc_multi", { "http-req" }, function(txn, port)
	local r = core.httpclient():get{ url = base(port) .. "/m?status=404&hdr=Set-Cookie:a=1&hdr=Set-Cookie:b=2" }
	out(txn, r, { "set-cookie" })
end, 1)

-- the proxy's own answers: nothing listening, an invalid response, a timeout
core.register_action("hc_url", { "http-req" }, function(txn, url, timeout)
	local t0 = core.now()
	local r = core.httpclient():get{ url = url, timeout = tonumber(timeout) }
	local t = core.now()
	out(txn, r, { "content-type" })
	txn:set_var("txn.ms", (t.sec - t0.sec) * 1000 + (t.usec - t0.usec) // 1000)
end, 2)

core.register_action("hc_dst", { "http-req" }, function(txn, port)
	out(txn, core.httpclient():get{ url = "http://example.invalid/dst",
		dst = "127.0.0.1:" .. port })
end, 1)

core.register_action("hc_args", { "http-req" }, function(txn)
	local hc = core.httpclient()
	local ok1, e1 = pcall(hc.get, hc, {})
	local ok2, e2 = pcall(hc.post, hc, { url = "nope" })
	txn:set_var("txn.out", tostring(ok1) .. "|" .. e1 .. "|" .. tostring(ok2) .. "|" .. e2)
end)

-- two calls on one object
core.register_action("hc_twice", { "http-req" }, function(txn, port)
	local hc = core.httpclient()
	local a = hc:get{ url = base(port) .. "/one" }
	local b = hc:get{ url = base(port) .. "/two" }
	txn:set_var("txn.out", a.status .. "|" .. b.status)
end, 1)

-- <url> reached at <dst>: the URL's host is the name TLS checks
core.register_action("hc_via", { "http-req" }, function(txn, url, dst)
	out(txn, core.httpclient():get{ url = url, dst = dst })
end, 2)
