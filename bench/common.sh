# Shared by bench/run.sh and bench/tls.sh (sourced): stopping the proxy under test and
# reading what it cost. Both set PROXY_PID.

proxy_stop() {
	kill -TERM "$PROXY_PID" 2>/dev/null || true
	wait "$PROXY_PID" 2>/dev/null || true
	PROXY_PID=
}

# utime + stime of PROXY_PID in clock ticks (all threads).
proxy_cpu_ticks() {
	local stat rest
	stat=$(cat "/proc/$PROXY_PID/stat")
	rest=${stat##*) }
	# shellcheck disable=SC2086
	set -- $rest
	echo $((${12} + ${13}))
}

# Converts a wrk latency ("123.45us", "1.20ms", "2.00s") to microseconds.
to_us() {
	awk -v v="$1" 'BEGIN {
		n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
		if (u == "ms") n *= 1000; else if (u == "s") n *= 1000000
		printf "%.1f", n }'
}
