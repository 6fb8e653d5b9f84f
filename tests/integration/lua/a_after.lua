-- An http-after-res action (a registration 2.6 refuses, hence its own file).
core.register_action("after", {"http-after-res"}, function(txn)
	txn.http:res_set_header("X-After", "lua-" .. tostring(txn.f:status()))
end)
