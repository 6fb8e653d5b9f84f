-- A hello-world HTTP service: the proxy answers by itself, no server behind it.
-- `GET /` says "Hello, world!"; `GET /?name=Ada` says "Hello, Ada!". Loaded by
-- examples/lua/hello.cfg.

core.register_service("hello", "http", function(applet)
	local name = applet.qs:match("^name=([%w%-_]+)$") or "world"
	local body = "Hello, " .. name .. "!\n"
	applet:set_status(200)
	applet:add_header("content-type", "text/plain")
	applet:add_header("content-length", tostring(#body))
	applet:start_response()
	applet:send(body)
end)
