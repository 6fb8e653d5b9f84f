-- The trivial action of the Lua rows of make bench (bench/lua.sh): one request header
-- set from Lua. Lua 5.3 and 5.4 alike, so HAProxy 2.6 runs it unchanged.
core.register_action("bench_hdr", { "http-req" }, function(txn)
	txn.http:req_set_header("X-Bench-Lua", "1")
end)
