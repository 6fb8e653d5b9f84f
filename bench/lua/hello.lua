-- The hello-world service of the Lua rows of make bench (bench/lua.sh): answers every
-- request itself with a 6-byte body. Lua 5.3 and 5.4 alike.
core.register_service("bench_hello", "http", function(applet)
	local body = "hello\n"
	applet:set_status(200)
	applet:add_header("content-type", "text/plain")
	applet:add_header("content-length", tostring(#body))
	applet:start_response()
	applet:send(body)
end)
