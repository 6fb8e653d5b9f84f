-- TCP services driven by tests/integration/test_lua_applet.py.

-- greets, echoes each line, says bye when the client ends its side
core.register_service("tcp_echo", "tcp", function(applet)
  applet:send("hello " .. tostring(applet.sf:src()) .. "\n")
  for _ = 1, 100000 do
    local l = applet:getline()
    if l == "" then break end
    applet:send("echo:" .. l)
  end
  applet:send("bye\n")
end)

-- receive(5), then everything up to the end, then what is left (nothing)
core.register_service("tcp_recv", "tcp", function(applet)
  local a = applet:receive(5)
  applet:send("a=[" .. a .. "]\n")
  local b = applet:receive()
  applet:send("b=[" .. b .. "]\n")
  local c = applet:receive()
  applet:send("c=[" .. c .. "]\n")
end)

core.register_service("tcp_fail", "tcp", function(applet)
  applet:send("x")
  error("tcp service failed")
end)

-- 1 MiB to the client, then the connection closes
core.register_service("tcp_big", "tcp", function(applet)
  local chunk = string.rep("0123456789abcdef", 64)
  for i = 1, 1024 do applet:send(chunk) end
end)
