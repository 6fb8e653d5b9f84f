-- A CORS handler (https://fetch.spec.whatwg.org/#http-cors-protocol) for an API behind the
-- proxy. Loaded by examples/lua/cors.cfg.
--
--  * A preflight (OPTIONS with Origin and Access-Control-Request-Method) is answered by
--    the service lua.cors_preflight, never by the server: 204 with the allowed methods,
--    headers and cache time when the origin is allowed, 403 otherwise.
--  * Other requests from an allowed origin go to the server as usual; the response gets
--    Access-Control-Allow-Origin and Vary: Origin on its way back.

local allowed_origins = {
	["https://app.example.com"] = true,
	["https://admin.example.com"] = true,
}
local allow_methods = "GET, POST, PUT, DELETE"
local allow_headers = "Content-Type, Authorization"
local max_age = "600"

core.register_service("cors_preflight", "http", function(applet)
	local origin = applet.headers["origin"] and applet.headers["origin"][0]
	if origin == nil or not allowed_origins[origin] then
		local body = "origin not allowed\n"
		applet:set_status(403)
		applet:add_header("content-type", "text/plain")
		applet:add_header("content-length", tostring(#body))
		applet:start_response()
		applet:send(body)
		return
	end
	applet:set_status(204)
	applet:add_header("access-control-allow-origin", origin)
	applet:add_header("access-control-allow-methods", allow_methods)
	applet:add_header("access-control-allow-headers", allow_headers)
	applet:add_header("access-control-max-age", max_age)
	applet:add_header("vary", "Origin")
	applet:start_response()
end)

-- Request side: remember an allowed origin for the response.
core.register_action("cors_request", { "http-req" }, function(txn)
	local origin = txn.sf:req_hdr("origin")
	if origin ~= nil and allowed_origins[origin] then
		txn:set_var("txn.cors_origin", origin)
	end
end)

-- Response side: allow the origin remembered by cors_request.
core.register_action("cors_response", { "http-res" }, function(txn)
	local origin = txn:get_var("txn.cors_origin")
	if origin ~= nil then
		txn.http:res_set_header("Access-Control-Allow-Origin", origin)
		txn.http:res_add_header("Vary", "Origin")
	end
end)
