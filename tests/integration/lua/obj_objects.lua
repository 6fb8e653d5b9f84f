-- Proxy, Server, Listener, StickTable and core.get_info() as test_lua_objects.py drives
-- them: the action "lua.obj" answers a query path ("/OP/ARG..." of the request) in the
-- variable txn.out, which the configuration returns as the response body.

LOAD_PROXIES = type(core.proxies)
INIT_NAMES = "?"

core.register_init(function()
  local names = {}
  for name, px in pairs(core.proxies) do
    names[#names + 1] = name .. ":" .. px:get_cap()
  end
  table.sort(names)
  INIT_NAMES = table.concat(names, ",")
end)

-- "k=v" lines of a table, sorted by key
local function lines(t)
  local keys = {}
  for k, _ in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local out = {}
  for _, k in ipairs(keys) do
    local v = t[k]
    if type(v) == "table" then
      out[#out + 1] = tostring(k) .. "={" .. lines(v):gsub("\n", ";") .. "}"
    else
      out[#out + 1] = tostring(k) .. "=" .. tostring(v)
    end
  end
  return table.concat(out, "\n")
end

local function srv(name)
  return core.backends["be"].servers[name]
end

local ops = {}

ops.loadtime = function() return "load=" .. LOAD_PROXIES .. "\ninit=" .. INIT_NAMES end

ops.proxies = function()
  local out = {}
  for _, tbl in ipairs({"proxies", "frontends", "backends"}) do
    local names = {}
    for name, px in pairs(core[tbl]) do
      names[#names + 1] = name .. ":" .. px.name .. ":" .. px:get_cap() .. ":" ..
        px:get_mode() .. ":" .. tostring(px.uuid)
    end
    table.sort(names)
    out[#out + 1] = tbl .. "=" .. table.concat(names, ",")
  end
  local srvs = {}
  for name, s in pairs(core.backends["be"].servers) do
    srvs[#srvs + 1] = name .. ":" .. s.name .. ":" .. s.puid
  end
  table.sort(srvs)
  out[#out + 1] = "servers=" .. table.concat(srvs, ",")
  local lis = {}
  for name, _ in pairs(core.frontends["fe"].listeners) do lis[#lis + 1] = name end
  table.sort(lis)
  out[#out + 1] = "listeners=" .. table.concat(lis, ",")
  out[#out + 1] = "stktable_fe=" .. tostring(core.frontends["fe"].stktable ~= nil)
  out[#out + 1] = "stktable_be=" .. tostring(core.backends["be"].stktable ~= nil)
  out[#out + 1] = "missing=" .. tostring(core.backends["be"].servers["nope"])
  return table.concat(out, "\n")
end

ops.pxstats = function(name) return lines(core.proxies[name]:get_stats()) end
ops.srvstats = function(name) return lines(srv(name):get_stats()) end
ops.listats = function(name)
  local out = {}
  for lname, li in pairs(core.frontends[name].listeners) do
    local st = li:get_stats()
    out[#out + 1] = lname .. ":" .. st.svname .. ":" .. tostring(st.stot)
  end
  table.sort(out)
  return table.concat(out, "\n")
end
ops.info = function() return lines(core.get_info()) end

ops.srv = function(name)
  local s = srv(name)
  local st = core.backends["be"]:get_stats()
  return "weight=" .. s:get_weight() .. "\nmaxconn=" .. s:get_maxconn() .. "\naddr=" ..
    s:get_addr() .. "\nact=" .. st.act .. "\nbck=" .. st.bck
end
-- the methods HAProxy added after 2.6
ops.srvnew = function(name)
  local s = srv(name)
  local px = core.backends["be"]
  local trackers = {}
  for _, t in ipairs(s:get_trackers()) do trackers[#trackers + 1] = t:get_name() end
  return "name=" .. s:get_name() .. "\npuid=" .. s:get_puid() .. "\nrid=" .. s:get_rid() ..
    "\nbackup=" .. tostring(s:is_backup()) .. "\ndynamic=" .. tostring(s:is_dynamic()) ..
    "\ndraining=" .. tostring(s:is_draining()) .. "\ncur_sess=" .. s:get_cur_sess() ..
    "\npend_conn=" .. s:get_pend_conn() .. "\nproxy=" .. s:get_proxy().name ..
    "\ntracking=" .. tostring(s:tracking() and s:tracking():get_name()) ..
    "\ntrackers=" .. table.concat(trackers, ",") ..
    "\nact=" .. px:get_srv_act() .. "\nbck=" .. px:get_srv_bck() ..
    "\nmailers=" .. tostring(pcall(px.get_mailers, px))
end
ops.weight = function(name, w)
  local r = srv(name):set_weight(w)
  return "ret=" .. tostring(r) .. "\nweight=" .. srv(name):get_weight()
end
ops.maxconn = function(name, n)
  local r = srv(name):set_maxconn(n)
  return "ret=" .. tostring(r) .. "\nmaxconn=" .. srv(name):get_maxconn()
end
ops.addr = function(name, ip, port)
  local r
  if port then r = srv(name):set_addr(ip, port) else r = srv(name):set_addr(ip) end
  return "ret=" .. tostring(r) .. "\naddr=" .. srv(name):get_addr()
end
ops.maint = function(name) srv(name):set_maint() return "ok" end
ops.ready = function(name) srv(name):set_ready() return "ok" end
ops.drain = function(name) srv(name):set_drain() return "ok" end
ops.pause = function(name) core.frontends[name]:pause() return "ok" end
ops.resume = function(name) core.frontends[name]:resume() return "ok" end

-- any method of a server of any backend, without arguments
ops.srvop = function(be, name, method)
  local s = core.backends[be].servers[name]
  local r = s[method](s)
  return "ok " .. tostring(r)
end
ops.track = function(be, name)
  local s = core.backends[be].servers[name]
  local t = {}
  for _, x in ipairs(s:get_trackers()) do t[#t + 1] = x.name end
  return "tracking=" .. tostring(s:tracking() and s:tracking().name) ..
    "\ntrackers=" .. table.concat(t, ",")
end
ops.pxop = function(px, method)
  local p = core.proxies[px]
  local r = p[method](p)
  return "ok " .. tostring(r)
end

local function table_of(name) return core.proxies[name].stktable end
ops.stinfo = function(name) return lines(table_of(name):info()) end
ops.lookup = function(name, key)
  local e = table_of(name):lookup(tonumber(key) or key)
  if not e then return "nil" end
  return lines(e)
end
ops.dump = function(name, col, op, val)
  local filter = nil
  if col then filter = {{col, op, tonumber(val)}} end
  local t, err = table_of(name):dump(filter)
  if not t then return "err=" .. err end
  return lines(t)
end
ops.dumpcount = function(name)
  local n, sum, longest = 0, 0, 0
  for k, data in pairs(table_of(name):dump()) do
    n = n + 1
    sum = sum + data.gpc0
    if #k > longest then longest = #k end
  end
  return "n=" .. n .. "\nsum=" .. sum .. "\nlongest=" .. longest
end
ops.badfilter = function(name, kind)
  local filters = {
    notable = "x",
    toolong = {{"gpc0", "gt", 0}, {"gpc0", "gt", 0}, {"gpc0", "gt", 0}, {"gpc0", "gt", 0},
               {"gpc0", "gt", 0}},
    pair = {{"gpc0", "gt"}},
    column = {{"nope", "gt", 0}},
    op = {{"gpc0", "xx", 0}},
  }
  local t, err = table_of(name):dump(filters[kind])
  return "t=" .. tostring(t) .. "\nerr=" .. tostring(err)
end

-- a setter from a fetch, which cannot wait for the change
core.register_fetches("obj_setw", function(txn, name, w)
  return "ret=" .. tostring(srv(name):set_weight(w))
end)

core.register_action("obj", {"http-req"}, function(txn)
  local args = {}
  for w in string.gmatch(txn.sf:path(), "[^/]+") do args[#args + 1] = w end
  local op = table.remove(args, 1)
  local ok, res = pcall(ops[op], table.unpack(args))
  txn:set_var("txn.out", ok and res or ("error: " .. tostring(res)))
end)
