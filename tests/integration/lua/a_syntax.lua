-- Deliberately broken: loading this script must fail with a syntax error on line 3.
core.register_action("never", {"http-req"}, function(txn)
	local x = = 1
end)
