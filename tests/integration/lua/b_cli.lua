-- Runtime API commands written in Lua (core.register_cli) and the objects they can
-- reach: proxies, servers, listeners, stick tables, maps, regexes. Driven by
-- test_lua_cli.py (Lua 5.3 and 5.4). The map file comes from the environment (global
-- `setenv` placed before `lua-load`): Map.new works only while the script loads.

local words = Map.new(os.getenv("LUAB_MAP"), Map._str)

local function say(applet, s)
	applet:send(s .. "\n")
end

-- "k1=v1 k2=v2 ..." of a table's scalar entries, sorted; skips the keys in <skip>.
local function flat(t, skip)
	local out = {}
	for k, v in pairs(t) do
		if type(v) ~= "table" and not (skip and skip[k]) then
			out[#out + 1] = tostring(k) .. "=" .. tostring(v)
		end
	end
	table.sort(out)
	return table.concat(out, " ")
end

core.register_cli({ "luab", "hello" }, "luab hello [args...] : greets and lists its arguments",
	function(applet, ...)
		local args = table.pack(...)
		say(applet, "hello from lua")
		for i = 1, args.n do
			say(applet, "arg" .. i .. "=" .. tostring(args[i]))
		end
	end)

core.register_cli({ "luab", "fail" }, "luab fail : raises an error", function(applet)
	error("cli command failed on purpose")
end)

core.register_cli({ "luab", "srv" }, "luab srv : shows s1 and its backend", function(applet)
	local be = core.backends["be"]
	local s1 = be.servers["s1"]
	say(applet, "backend " .. be.name .. " cap=" .. be:get_cap() .. " mode=" .. be:get_mode())
	say(applet, "s1 name=" .. s1.name .. " addr=" .. s1:get_addr()
		.. " weight=" .. tostring(s1:get_weight()))
	local st = s1:get_stats()
	say(applet, "s1 stats pxname=" .. st.pxname .. " svname=" .. st.svname .. " status="
		.. st.status .. " weight=" .. tostring(st.weight) .. " stot=" .. tostring(st.stot))
	local ps = be:get_stats()
	say(applet, "be stats svname=" .. ps.svname .. " status=" .. ps.status
		.. " stot=" .. tostring(ps.stot))
end)

core.register_cli({ "luab", "weight" }, "luab weight <w> : sets s1's weight",
	function(applet, _, _, w)
	local s1 = core.backends["be"].servers["s1"]
	local err = s1:set_weight(w)
	say(applet, "error=" .. tostring(err) .. " weight=" .. tostring(s1:get_weight()))
end)

core.register_cli({ "luab", "maint" }, "luab maint : puts s1 in maintenance", function(applet)
	core.backends["be"].servers["s1"]:set_maint()
	say(applet, "s1 in maintenance")
end)

core.register_cli({ "luab", "ready" }, "luab ready : puts s1 back in service", function(applet)
	core.backends["be"].servers["s1"]:set_ready()
	say(applet, "s1 ready")
end)

core.register_cli({ "luab", "proxies" }, "luab proxies : lists proxies", function(applet)
	for _, kind in ipairs({ "proxies", "frontends", "backends" }) do
		local names = {}
		for n, _ in pairs(core[kind]) do
			if n:sub(1, 1) ~= "<" then -- internal proxies (2.6: <HTTPCLIENT>...)
				names[#names + 1] = n
			end
		end
		table.sort(names)
		say(applet, kind .. "=" .. table.concat(names, ","))
	end
	local names = {}
	for n, _ in pairs(core.frontends["fe"].listeners) do
		names[#names + 1] = n
	end
	table.sort(names)
	say(applet, "listeners=" .. table.concat(names, ","))
end)

core.register_cli({ "luab", "listener" }, "luab listener : shows fe's listener", function(applet)
	local st = core.frontends["fe"].listeners["web"]:get_stats()
	say(applet, "listener pxname=" .. st.pxname .. " svname=" .. st.svname .. " status="
		.. st.status .. " mode=" .. st.mode .. " addr=" .. st.addr .. " stot=" .. tostring(st.stot))
end)

core.register_cli({ "luab", "table" }, "luab table : dumps the stick table", function(applet)
	local t = core.backends["tbl"].stktable
	say(applet, "info " .. flat(t:info()))
	local e = t:lookup("127.0.0.1")
	say(applet, "lookup " .. (e and flat(e, { expire = true }) or "nil"))
	say(applet, "lookup-miss " .. tostring(t:lookup("192.0.2.1")))
	local keys = {}
	local d = t:dump()
	for k, _ in pairs(d) do
		keys[#keys + 1] = k
	end
	table.sort(keys)
	for _, k in ipairs(keys) do
		say(applet, "dump " .. k .. " " .. flat(d[k], { expire = true, use = true }))
	end
end)

core.register_cli({ "luab", "map" }, "luab map <key> : looks a key up", function(applet, _, _, key)
	say(applet, "lookup=" .. tostring(words:lookup(key)) .. " slookup=" .. words:slookup(key))
end)

core.register_cli({ "luab", "regex" }, "luab regex <subject> : runs regexes",
	function(applet, _, _, s)
	local ok, re = Regex.new("^/api/(v[0-9]+)/(.*)$", true)
	say(applet, "new=" .. tostring(ok))
	say(applet, "exec=" .. tostring(re:exec(s)))
	local matched, m = re:match(s)
	if matched then
		say(applet, "match=true " .. table.concat(m, "|"))
	else
		say(applet, "match=false")
	end
	local _, nocase = Regex.new("API", false)
	say(applet, "nocase=" .. tostring(nocase:exec(s)))
	local bad, err = Regex.new("(unclosed", true)
	say(applet, "bad=" .. tostring(bad) .. " " .. type(err))
end)

core.register_cli({ "luab", "srvact" }, "luab srvact : counts usable servers", function(applet)
	local be = core.backends["be"]
	say(applet, "act=" .. tostring(be:get_srv_act()) .. " bck=" .. tostring(be:get_srv_bck()))
end)

core.register_cli({ "luab", "queue" }, "luab queue : pushes and pops", function(applet)
	local q = core.queue()
	q:push("first")
	q:push(2)
	say(applet, "size=" .. tostring(q:size()))
	say(applet, "pop=" .. tostring(q:pop()) .. " pop=" .. tostring(q:pop()) .. " pop="
		.. tostring(q:pop()) .. " size=" .. tostring(q:size()))
end)
