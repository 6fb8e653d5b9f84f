-- HTTP services driven by tests/integration/test_lua_applet.py (one per behaviour).

core.register_service("hello", "http", function(applet)
  applet:set_status(200)
  applet:add_header("Content-Type", "text/plain")
  applet:start_response()
  applet:send("hello world\n")
end)

-- the request as the applet sees it, one "key=value" line each
core.register_service("req", "http", function(applet)
  local out = {}
  table.insert(out, "method=" .. applet.method)
  table.insert(out, "path=" .. applet.path)
  table.insert(out, "qs=" .. applet.qs)
  table.insert(out, "version=" .. applet.version)
  table.insert(out, "length=" .. tostring(applet.length))
  local names = {}
  for k, _ in pairs(applet.headers) do table.insert(names, k) end
  table.sort(names)
  for _, k in ipairs(names) do
    local v = applet.headers[k]
    local vals = {}
    local i = 0
    while v[i] ~= nil do table.insert(vals, v[i]); i = i + 1 end
    table.insert(out, "hdr." .. k .. "=" .. table.concat(vals, "|"))
  end
  table.insert(out, "src=" .. tostring(applet.sf:src()))
  applet:start_response()
  applet:send(table.concat(out, "\n") .. "\n")
end)

core.register_service("status", "http", function(applet)
  applet:set_status(404, "Nothing Here")
  applet:add_header("X-Multi", "1")
  applet:add_header("X-Multi", "2")
  applet:add_header("Content-Type", "text/x-test")
  applet:start_response()
  applet:send("nf")
end)

-- the request body back, read at once
core.register_service("echo", "http", function(applet)
  local body = applet:receive()
  local again = applet:receive()
  applet:set_status(201)
  applet:add_header("x-len", tostring(#body))
  applet:add_header("x-again", "[" .. again .. "]")
  applet:start_response()
  applet:send(body)
end)

-- the request body back, read in pieces of 4 bytes, each in brackets
core.register_service("pieces", "http", function(applet)
  local out = {}
  for _ = 1, 100000 do
    local d = applet:receive(4)
    table.insert(out, "[" .. d .. "]")
    if d == "" then break end
  end
  applet:start_response()
  applet:send(table.concat(out))
end)

-- the body's lines, each in brackets, then the empty string of the end
core.register_service("lines", "http", function(applet)
  local out = {}
  for _ = 1, 1000 do
    local l = applet:getline()
    table.insert(out, "[" .. l .. "]")
    if l == "" then break end
  end
  applet:start_response()
  applet:send(table.concat(out))
end)

-- 1 MiB sent in 1024 calls of 1 KiB, with its length announced when asked (?cl)
core.register_service("big", "http", function(applet)
  local chunk = string.rep("0123456789abcdef", 64)
  if applet.qs == "cl" then applet:add_header("content-length", tostring(1024 * 1024)) end
  applet:start_response()
  for i = 1, 1024 do applet:send(chunk) end
end)

-- a large request body streamed back as it comes, with its length and a checksum
core.register_service("stream", "http", function(applet)
  applet:start_response()
  local total = 0
  for _ = 1, 1000000 do
    local d = applet:receive(65536)
    if d == "" then break end
    total = total + #d
    applet:send(d)
  end
end)

core.register_service("clen", "http", function(applet)
  applet:add_header("content-length", "5")
  applet:start_response()
  applet:send("hello")
end)

-- announces 10 bytes, sends 5
core.register_service("short", "http", function(applet)
  applet:add_header("content-length", "10")
  applet:start_response()
  applet:send("short")
end)

core.register_service("err_before", "http", function(applet)
  local t = nil
  return t.field -- a runtime error before the response
end)

core.register_service("err_after", "http", function(applet)
  applet:start_response()
  applet:send("partial")
  error("failed after the head")
end)

core.register_service("nothing", "http", function(applet)
end)

core.register_service("send_early", "http", function(applet)
  applet:send("too early")
end)

core.register_service("loop", "http", function(applet)
  local n = 0
  while true do n = n + 1 end
end)

core.register_service("loop_after", "http", function(applet)
  applet:start_response()
  applet:send("started")
  local n = 0
  while true do n = n + 1 end
end)

core.register_service("hog", "http", function(applet)
  local t = {}
  for i = 1, 100000000 do t[i] = string.rep("x", 1024) .. i end
  applet:start_response()
end)

-- answers after a sleep (milliseconds from the query string)
core.register_service("sleep", "http", function(applet)
  core.msleep(tonumber(applet.qs) or 100)
  applet:set_status(200)
  applet:start_response()
  applet:send("slept")
end)

-- starts, sleeps, then finishes its body
core.register_service("sleep_after", "http", function(applet)
  applet:start_response()
  applet:send("first;")
  core.msleep(tonumber(applet.qs) or 100)
  applet:send("second")
end)

-- variables: the variable reaches http-after-response (X-Var)
core.register_service("vars", "http", function(applet)
  applet:set_var("txn.from_lua", "v1")
  local v = applet:get_var("txn.from_lua")
  applet:set_var("txn.gone", "x")
  applet:unset_var("txn.gone")
  local g = applet:get_var("txn.gone")
  applet:start_response()
  applet:send(string.format("var=%s gone=%s upper=%s", v, tostring(g), applet.c:upper("abc")))
end)

-- priv: a Lua value kept for the exchange
core.register_service("priv", "http", function(applet)
  local before = applet:get_priv()
  applet:set_priv({ n = 41 })
  local p = applet:get_priv()
  applet:start_response()
  applet:send(string.format("before=%s priv=%d", tostring(before), p.n + 1))
end)

-- an applet object kept in a global, and used from another call
core.register_service("keep", "http", function(applet)
  kept = applet
  core.msleep(tonumber(applet.qs) or 0)
  applet:start_response()
  applet:send("kept")
end)

core.register_service("reuse", "http", function(applet)
  local ok, err = pcall(function() return kept:send("x") end)
  applet:start_response()
  applet:send(tostring(ok) .. " " .. tostring(err))
end)
