-- Maps, regexes, the core helpers and the map/ACL updates, for test_lua_util.py. Each
-- action reads its inputs from request headers and leaves one line of results in the
-- variable txn.r, which the configuration sends back as the response body.
local dir = debug.getinfo(1, "S").source:match("^@(.*/)")

local maps = {
  str = Map.new(dir .. "util_hosts.map", Map._str),
  beg = Map.new(dir .. "util_paths.map", Map._beg),
  dir = Map.new(dir .. "util_paths.map", Map._dir),
  sub = Map.new(dir .. "util_hosts.map", Map._sub),
  dom = Map.new(dir .. "util_hosts.map", Map._dom),
  ["end"] = Map.new(dir .. "util_hosts.map", Map._end),
  reg = Map.new(dir .. "util_regs.map", Map._reg),
  ip = Map.new(dir .. "util_nets.map", Map._ip),
  int = Map.new(dir .. "util_ints.map", Map._int),
  def = Map.new(dir .. "util_hosts.map"),
}

-- what went wrong while loading, for the tests that look at refusals
local load_errors = {}
load_errors[#load_errors + 1] = select(2, pcall(Map.new, dir .. "util_missing.map", Map._str))
load_errors[#load_errors + 1] = select(2, pcall(Map.new, dir .. "util_hosts.map", Map._len))
load_errors[#load_errors + 1] = select(2, pcall(Map.new, dir .. "util_hosts.map", 99))
load_errors[#load_errors + 1] = select(2, pcall(Map.new, dir .. "util_words.map", Map._int))

local api_re = select(2, Regex.new("^/api/(v[0-9]+)/(\\w+)", true))
local needle_re = select(2, Regex.new("needle", false))
local bad_ok, bad_msg = Regex.new("a(b", true)

local function hdr(txn, name)
  local v = txn.http:req_get_headers()[name]
  return v and v[0] or nil
end

local function show(v)
  if v == nil then return "nil" end
  return tostring(v)
end

core.register_action("map_look", { "http-req" }, function(txn)
  local k, out = hdr(txn, "x-k") or "", {}
  for _, m in ipairs({ "str", "beg", "dir", "sub", "dom", "end", "reg", "def" }) do
    out[#out + 1] = m .. "=" .. show(maps[m]:lookup(k))
  end
  out[#out + 1] = "s=" .. maps.str:slookup(k)
  out[#out + 1] = "ip=" .. show(maps.ip:lookup(hdr(txn, "x-ip") or ""))
  out[#out + 1] = "int=" .. show(maps.int:lookup(tonumber(hdr(txn, "x-n") or "0")))
  out[#out + 1] = "fn=" .. show(Map.lookup(maps.str, k))
  txn:set_var("txn.r", table.concat(out, " "))
end)

core.register_action("map_errors", { "http-req" }, function(txn)
  local ok, rt = pcall(Map.new, dir .. "util_hosts.map", Map._str)
  local _, int_arg = pcall(maps.int.lookup, maps.int, "x")
  txn:set_var("txn.r", table.concat(load_errors, " || ") .. " || " .. tostring(ok) .. " " .. rt
    .. " || " .. tostring(int_arg ~= nil))
end)

core.register_action("regex", { "http-req" }, function(txn)
  local s = hdr(txn, "x-s") or ""
  local ok, caps = api_re:match(s)
  txn:set_var("txn.r", string.format("exec=%s match=%s caps=%s needle=%s/%s bad=%s/%s",
    tostring(api_re:exec(s)), tostring(ok), table.concat(caps, ","),
    tostring(needle_re:exec(s)), tostring(Regex.exec(needle_re, s)),
    tostring(bad_ok), bad_msg))
end)

core.register_action("util", { "http-req" }, function(txn)
  local t = core.tokenize(hdr(txn, "x-t") or "", ",;")
  local tn = core.tokenize(hdr(txn, "x-t") or "", ",;", true)
  local c = core.concat()
  for i = 1, #tn do c:add(tn[i]); c:add(i) end
  local a, b = core.parse_addr(hdr(txn, "x-a") or ""), core.parse_addr(hdr(txn, "x-b") or "")
  txn:set_var("txn.r", string.format("tok=%d:%s nob=%d:%s cat=%s a=%s b=%s match=%s/%s",
    #t, table.concat(t, "|"), #tn, table.concat(tn, "|"), c:dump(),
    tostring(a ~= nil), tostring(b ~= nil),
    tostring(core.match_addr(a, b)), tostring(core.match_addr(b, a))))
end)

-- x-op: add_acl, del_acl, set_map or del_map on the file x-file, with x-key and x-val
core.register_action("acl_op", { "http-req" }, function(txn)
  local op, file = hdr(txn, "x-op"), hdr(txn, "x-file")
  local ok, err
  if op == "set_map" then
    ok, err = pcall(core.set_map, file, hdr(txn, "x-key"), hdr(txn, "x-val"))
  else
    ok, err = pcall(core[op], file, hdr(txn, "x-key"))
  end
  txn:set_var("txn.r", ok and "done" or ("error: " .. tostring(err)))
end)
