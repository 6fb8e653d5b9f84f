-- Scripts of test_lua_edges.py: the corner cases a review found.
core.register_service("co_yield", "http", function(applet)
  -- a coroutine of the script's own: core.yield inside it returns to the script
  local co = coroutine.wrap(function() core.yield() return "ok" end)
  local first = co()
  local r = co()
  applet:set_status(200)
  applet:start_response()
  applet:send(tostring(first) .. "," .. tostring(r) .. "\n")
end)

core.register_fetches("half", function(txn) return 8 / 2 end)
core.register_fetches("third", function(txn) return 10 / 4 end)

core.register_action("gcloop", { "http-req" }, function(txn)
  setmetatable({}, { __gc = function() local i = 0 while true do i = i + 1 end end })
  collectgarbage()
  txn:set_var("txn.gc", "done")
end)

core.register_action("keep", { "http-req" }, function(txn)
  KEPT = txn
  core.msleep(300)
end)

core.register_action("peek", { "http-req" }, function(txn)
  local ok, err = pcall(function() return KEPT.sf:req_hdr("x-secret") end)
  txn:set_var("txn.peek", ok and ("read:" .. tostring(err)) or "refused")
end)

local slept = false
core.register_init(function()
  core.msleep(20)
  slept = true
end)
core.register_fetches("init_slept", function(txn) return slept and "yes" or "no" end)
