-- A task using a cosocket (tests/integration/test_lua_socket.py): the test loads it after
-- setting TASK_PORT, the port of its server, which answers "pong" to the first line.
core.register_task(function()
	local s = core.tcp()
	s:settimeout(3)
	if s:connect("127.0.0.1", TASK_PORT) then
		s:send("from task\n")
		local r = s:receive("*l")
		s:send("task got " .. tostring(r) .. "\n")
		s:close()
	end
end)
