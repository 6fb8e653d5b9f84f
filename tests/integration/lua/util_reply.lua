-- txn:reply() and txn:done(), for test_lua_util.py: the case to run is named by the
-- request header x-mode (or, for the response rules, by the variable txn.mode).
local cases = {}

cases.close = function(txn) txn:done() end
cases.empty = function(txn) txn:done(txn:reply()) end
cases.full = function(txn)
  txn:done(txn:reply({ status = 403, headers = { ["x-a"] = { "1", "2" },
    ["Content-Type"] = { "text/x" } }, body = "denied!" }))
end
cases.methods = function(txn)
  local r = txn:reply()
  local bad = r:set_status(99)
  r:set_status(404)
  r:add_header("x-b", "b1")
  r:add_header("x-b", "b2")
  r:add_header("x-c", "c")
  r:del_header("x-c")
  r:add_header("x-bad-status", tostring(bad))
  r:set_body("nf")
  txn:done(r)
end
cases.table = function(txn) txn:done({ status = 201, reason = "Made", body = "t" }) end
cases.fields = function(txn)
  local r = txn:reply()
  r.status = 202
  r.body = "f"
  r.headers["x-f"] = { "v" }
  txn:done(r)
end
cases.framing = function(txn)
  txn:done({ headers = { ["content-length"] = { "3" }, ["x-n"] = { 5 } }, body = "abcdef" })
end
cases.reason = function(txn)
  local r = txn:reply()
  r:set_status(200, "Fine")
  txn:done(r)
end
cases.badstatus = function(txn) txn:done({ status = 99 }) end
cases.notable = function(txn) txn:done("hello") end
cases.big = function(txn) txn:done({ body = string.rep("x", 20000) }) end
cases.badhdr = function(txn) txn:done({ headers = { ["x-ok"] = { "a\r\nx-injected: 1" } } }) end
cases.ctor_reason = function(txn) txn:done(txn:reply({ status = 404, reason = "Gone" })) end
cases.dump = function(txn)
  local r = txn:reply({ status = 404, headers = { a = { "b" } }, body = "x" })
  local e = txn:reply()
  txn:set_var("txn.r", string.format("%s %s %s %s|%s %s %s", r.status, r.reason, r.headers.a[1],
    r.body, e.status, e.reason, tostring(e.body)))
end
cases.caught = function(txn)
  pcall(txn.done, txn, { status = 202, body = "p" })
  pcall(txn.done, txn, { status = 203, body = "second" })
  core.msleep(1)
end
cases.stop = function(txn)
  txn:done({ status = 200, body = "1" })
  txn:set_var("txn.r", "went on")
end

core.register_action("reply", { "http-req", "http-res", "tcp-req", "tcp-res" }, function(txn)
  local mode = txn.sf:req_hdr("x-mode")
  if mode == "" then mode = txn:get_var("txn.mode") or "" end
  local f = cases[mode]
  if f then f(txn) end
end)
