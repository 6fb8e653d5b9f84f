-- core.queue() for test_lua_util.py: a task waits on a queue the actions push to; another
-- action waits on a second queue until a later request pushes to it.
local jobs, mailbox = core.queue(), core.queue()
local seen = 0

core.register_task(function()
  while true do
    local v = jobs:pop_wait()
    seen = seen + 1
    core.set_var("proc.last", v .. "#" .. seen)
  end
end)

core.register_action("q_push", { "http-req" }, function(txn)
  local q = txn.sf:req_hdr("x-q") == "mailbox" and mailbox or jobs
  txn:set_var("txn.r", tostring(q:push(txn.sf:req_hdr("x-v"))))
end)

core.register_action("q_wait", { "http-req" }, function(txn)
  txn:set_var("txn.r", "got " .. mailbox:pop_wait())
end)

core.register_action("q_local", { "http-req" }, function(txn)
  local q = core.queue()
  q:push(1)
  q:push("two")
  q:push({ 3 })
  local n0 = q:size()
  local a, b, c = q:pop(), q:pop(), q:pop_wait()
  local ok = pcall(q.push, q, nil)
  txn:set_var("txn.r", string.format("%d %s %s %s %s %d %s", n0, tostring(a), b, type(c),
    tostring(q:pop()), q:size(), tostring(ok)))
end)

core.register_fetches("q_fetch_wait", function(txn)
  local ok, err = pcall(mailbox.pop_wait, mailbox)
  return tostring(ok) .. " " .. tostring(err)
end)
