-- A task publishing a counter in a proc variable (core.set_var), read by the config and,
-- through core.get_var, by a service. Driven by test_lua_tasks.py.

core.register_task(function()
	for i = 1, 1000000 do
		core.set_var("proc.ticks", i)
		core.msleep(100)
	end
end)

core.register_service("procvar", "http", function(applet)
	local body = "lua sees ticks=" .. tostring(core.get_var("proc.ticks")) .. "\n"
	applet:add_header("content-length", tostring(#body))
	applet:start_response()
	applet:send(body)
end)
