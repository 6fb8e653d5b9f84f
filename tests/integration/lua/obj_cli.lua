-- Runtime API commands written in Lua, as test_lua_objects.py drives them.

core.register_cli({"obj", "hello"}, "obj hello [name] : say hello", function(applet, ...)
  local args = {...}
  applet:send("hello " .. (args[3] or "nobody") .. "\n")
  applet:send("args=" .. table.concat(args, "|") .. " n=" .. select("#", ...))
end)

core.register_cli({"obj", "err"}, "obj err : fails", function(applet)
  applet:send("before\n")
  error("obj err failed")
end)

core.register_cli({"obj", "slow"}, "obj slow : sleeps between two lines", function(applet)
  applet:send("first\n")
  core.msleep(200)
  applet:send("second\n")
end)

core.register_cli({"obj", "big"}, "obj big <n> : n lines of 100 bytes", function(applet, _, _, n)
  local line = string.rep("x", 99) .. "\n"
  for i = 1, tonumber(n) do
    applet:send(line)
  end
  applet:send("end\n")
end)

core.register_cli({"obj", "weight"}, "obj weight <srv> <w> : set a weight", function(applet, _, _, name, w)
  local s = core.backends["be"].servers[name]
  local r = s:set_weight(w)
  applet:send("ret=" .. tostring(r) .. " weight=" .. s:get_weight() .. "\n")
end)

core.register_cli({"obj", "loop"}, "obj loop : never ends", function(applet)
  applet:send("looping\n")
  while true do end
end)

core.register_cli({"obj", "payload"}, "obj payload : echoes its payload", function(applet)
  local l1 = applet:getline()
  local rest = applet:receive()
  applet:send("line=[" .. l1 .. "] rest=[" .. rest .. "]\n")
end)

KEPT = nil
core.register_cli({"obj", "keep"}, "obj keep : keeps its applet", function(applet)
  if KEPT then
    local ok, err = pcall(KEPT.send, KEPT, "x")
    applet:send("reuse ok=" .. tostring(ok) .. "\n")
  end
  KEPT = applet
  applet:send("kept\n")
end)
