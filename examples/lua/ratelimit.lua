-- A per-client rate limiter with a table shared by all threads: each client address may
-- send RATELIMIT_REQUESTS requests per RATELIMIT_PERIOD seconds (fixed windows); the
-- next ones get 429 with Retry-After until the window ends. The settings come from the
-- environment (`setenv` in the global section, before `lua-load`), 10 per 10 s by
-- default. Loaded by examples/lua/ratelimit.cfg.
--
-- The table is shared because the script is loaded with `lua-load` (one Lua state for the
-- process). With `lua-load-per-thread` each thread would keep its own counts and a client
-- could get up to <threads> times the limit.

local limit = tonumber(os.getenv("RATELIMIT_REQUESTS")) or 10
local period = tonumber(os.getenv("RATELIMIT_PERIOD")) or 10

-- client address -> { start = window start (s), count = requests in the window }
local clients = {}

core.register_action("ratelimit", { "http-req" }, function(txn)
	local now = core.now().sec
	local key = txn.f:src()
	local c = clients[key]
	if c == nil or now - c.start >= period then
		c = { start = now, count = 0 }
		clients[key] = c
	end
	c.count = c.count + 1
	if c.count <= limit then
		return
	end
	local reply = txn:reply({
		status = 429,
		headers = {
			["content-type"] = { "text/plain" },
			["retry-after"] = { tostring(c.start + period - now) },
		},
		body = "Too many requests, slow down.\n",
	})
	txn:done(reply)
end)

-- Forget the clients whose window ended, once per period, so the table does not grow.
core.register_task(function()
	while true do
		core.sleep(period)
		local now = core.now().sec
		for key, c in pairs(clients) do
			if now - c.start >= period then
				clients[key] = nil
			end
		end
	end
end)
