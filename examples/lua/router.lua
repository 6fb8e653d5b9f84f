-- A header-based router: an http-request action that picks the backend of each request
-- from its headers and leaves the choice in the variable txn.route, which the
-- configuration uses in `use_backend %[var(txn.route)]`. Loaded by
-- examples/lua/router.cfg.
--
--   X-Route: beta                     -> be_beta
--   X-Route: mobile, or a User-Agent
--   containing "Mobile"               -> be_mobile
--   anything else                     -> no choice: the default backend
--
-- The server sees the route chosen in the X-Routed-To header.

-- route name -> backend; a backend missing from the configuration is never chosen
local routes = {
	beta = "be_beta",
	mobile = "be_mobile",
}

core.register_init(function()
	for name, be in pairs(routes) do
		if core.backends[be] == nil then
			core.Warning("router: route '" .. name .. "' names unknown backend '" .. be .. "'")
			routes[name] = nil
		end
	end
end)

core.register_action("route", { "http-req" }, function(txn)
	local wanted = (txn.sf:req_hdr("x-route") or ""):lower()
	local be = routes[wanted]
	if be == nil and (txn.sf:req_hdr("user-agent") or ""):find("Mobile", 1, true) then
		be = routes.mobile
	end
	if be ~= nil then
		txn:set_var("txn.route", be)
		txn.http:req_set_header("X-Routed-To", be)
	else
		txn.http:req_set_header("X-Routed-To", "default")
	end
end)
