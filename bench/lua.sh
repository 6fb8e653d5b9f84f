#!/usr/bin/env bash
# The Lua rows of `make bench` (bench/run.sh runs them before the mode tcp and TLS rows;
# BENCH_LUA=0 skips them), or alone: bench/lua.sh (make bench-lua). This proxy against
# Debian's HAProxy 2.6 on the same configs and the same Lua scripts (bench/lua/*.lua,
# written for Lua 5.3 and 5.4 alike), loaded with LUA_LOAD (lua-load-per-thread) on both
# sides, nbthread 1, HTTP/1.1 to nginx on 127.0.0.1:PORT+1..PORT+4 (bench/run.sh's backend;
# started here if nothing listens there). The frontend listens on PORT+40. Four configs:
#   plain    no Lua, roundrobin over the 4 servers          (the baseline of "action")
#   action   plain + http-request lua.bench_hdr (bench/lua/action.lua sets one header)
#   return   http-request return status 200, body "hello\n" (the proxy answers, no Lua:
#            the baseline of "service")
#   service  http-request use-service lua.bench_hello (bench/lua/hello.lua, same answer)
# Rows (doc/bench.md says how to read them):
#  1. user-space instructions per request under callgrind, each config and side: the proxy
#     under valgrind --tool=callgrind, LUA_CG_WARMUP requests, counters zeroed
#     (callgrind_control -z), LUA_CG_REQUESTS requests on one keep-alive connection, dump
#     (callgrind_control -d); then, per Lua config, the line
#       Lua overhead per request: ours N Ir, haproxy M Ir, ratio R
#     where N and M are the config's instructions per request minus its baseline's (the
#     issue's target: R <= 0.5);
#  2. LUA_PAIRS alternating pairs (ours then theirs, then theirs then ours...) of wrk -t1
#     -cCONNS -dLUA_DURATION on action and service: req/s, p50, p99, the proxy's CPU time
#     per request (/proc/PID/stat utime+stime) and busy%.
# A side that refuses a config, does not start or serves nothing gets a "skipped" line
# naming the reason (when ours is skipped, theirs is not run for that config); the other
# rows go on.
# Environment: OURS (./haproxy), THEIRS (/usr/sbin/haproxy), PORT (18080), PROXY_CPU (0),
# CLIENT_CPU (1), CONNS (50), LUA_LOAD (lua-load-per-thread; lua-load measures the shared
# state), LUA_PAIRS (3), LUA_DURATION (4), LUA_WARMUP (1), LUA_CG_REQUESTS (5000),
# LUA_CG_WARMUP (200), CALLGRIND (1; 0 skips row 1), LUA_RPS (1; 0 skips row 2), LUA_CG_KEEP
# (0; 1 keeps the callgrind dumps in bench/out/lua-cg-STAMP/ for callgrind_annotate).
# Reference against itself: OURS=/usr/sbin/haproxy bench/lua.sh (ratios about 1.0).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OURS=${OURS:-$ROOT/haproxy}
THEIRS=${THEIRS:-/usr/sbin/haproxy}
PORT=${PORT:-18080}
PROXY_CPU=${PROXY_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
CONNS=${CONNS:-50}
LUA_LOAD=${LUA_LOAD:-lua-load-per-thread}
LUA_PAIRS=${LUA_PAIRS:-3}
LUA_DURATION=${LUA_DURATION:-4}
LUA_WARMUP=${LUA_WARMUP:-1}
LUA_CG_REQUESTS=${LUA_CG_REQUESTS:-5000}
LUA_CG_WARMUP=${LUA_CG_WARMUP:-200}
LUA_CG_KEEP=${LUA_CG_KEEP:-0}
CALLGRIND=${CALLGRIND:-1}
LUA_RPS=${LUA_RPS:-1}
OUT=$ROOT/bench/out
KACLIENT=$ROOT/bench/kaclient.py
SUMMARY=$ROOT/bench/tls_summary.py
LPORT=$((PORT + 40))
CLK_TCK=$(getconf CLK_TCK)
CONFIGS="plain action return service"

die() { echo "bench-lua: $*" >&2; exit 1; }

case "$LUA_LOAD" in lua-load | lua-load-per-thread) ;; *) die "LUA_LOAD: lua-load or lua-load-per-thread" ;; esac
for tool in wrk taskset nginx python3; do
	command -v "$tool" >/dev/null || die "'$tool' not found (run scripts/install-deps.sh)"
done
if [ "$CALLGRIND" != 0 ]; then
	for tool in valgrind callgrind_control; do
		command -v "$tool" >/dev/null || die "'$tool' not found (CALLGRIND=0 skips row 1)"
	done
fi
ss -Hltn "sport = :$LPORT" | grep -q . && die "port $LPORT is already in use (set PORT=...)"

TMP=$(mktemp -d /tmp/hapx-bench-lua.XXXXXX)
mkdir -p "$OUT"
NGINX_PID=
PROXY_PID=

# Every process this script starts is stopped by its pid, whatever the exit path.
cleanup() {
	local pid
	for pid in $PROXY_PID $NGINX_PID; do
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- backend: bench/run.sh's nginx, or the same one started here ----------------------
if ! ss -Hltn "sport = :$((PORT + 1))" | grep -q .; then
	mkdir -p "$TMP/nginx"
	{
		echo "worker_processes 1;"
		echo "daemon off;"
		echo "pid $TMP/nginx/nginx.pid;"
		echo "error_log $TMP/nginx/error.log;"
		echo "events { worker_connections 4096; }"
		echo "http {"
		echo "  access_log off;"
		echo "  keepalive_requests 100000000;"
		echo "  keepalive_timeout 300s;"
		for d in client_body proxy fastcgi uwsgi scgi; do
			echo "  ${d}_temp_path $TMP/nginx/$d;"
		done
		for i in 1 2 3 4; do
			echo "  server { listen 127.0.0.1:$((PORT + i));" \
				"location / { return 200 \"ok\\n\"; } }"
		done
		echo "}"
	} >"$TMP/nginx/nginx.conf"
	taskset -c "$CLIENT_CPU" nginx -q -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" &
	NGINX_PID=$!
	for i in 1 2 3 4; do
		python3 "$KACLIENT" wait 127.0.0.1 $((PORT + i)) 10 || die "nginx did not start"
	done
fi

# --- configs ------------------------------------------------------------------------------
# write_cfg NAME: $TMP/NAME.cfg
write_cfg() {
	local name=$1 i
	{
		echo "global"
		echo "	nbthread 1"
		case $name in
		action) echo "	$LUA_LOAD $ROOT/bench/lua/action.lua" ;;
		service) echo "	$LUA_LOAD $ROOT/bench/lua/hello.lua" ;;
		esac
		echo
		echo "defaults"
		echo "	mode http"
		echo "	timeout connect 5s"
		echo "	timeout client 30s"
		echo "	timeout server 30s"
		echo
		echo "frontend fe"
		echo "	bind 127.0.0.1:$LPORT"
		case $name in
		action) echo "	http-request lua.bench_hdr" ;;
		return) echo "	http-request return status 200 content-type text/plain string \"hello\\n\"" ;;
		service) echo "	http-request use-service lua.bench_hello" ;;
		esac
		echo "	default_backend be"
		echo
		echo "backend be"
		echo "	balance roundrobin"
		for i in 1 2 3 4; do
			echo "	server s$i 127.0.0.1:$((PORT + i))"
		done
	} >"$TMP/$name.cfg"
}

# SKIP[side:config]: why that side cannot run that config (unset when it can).
declare -A SKIP=()
declare -A BIN=([ours]="$OURS" [theirs]="$THEIRS")
for cfg in $CONFIGS; do
	write_cfg "$cfg"
	for side in ours theirs; do
		if [ ! -x "${BIN[$side]}" ]; then
			SKIP[$side:$cfg]="${BIN[$side]} not found"
		elif ! "${BIN[$side]}" -c -q -f "$TMP/$cfg.cfg" >"$TMP/check.$side" 2>&1; then
			SKIP[$side:$cfg]="${BIN[$side]} rejects the $cfg config: $(grep -m1 -E 'ALERT|rror' \
				"$TMP/check.$side" | sed -E 's/^\[ALERT\] +\([0-9]+\) : (config : )?//' ||
				head -1 "$TMP/check.$side")"
		fi
	done
	# without ours there is nothing to compare: theirs is not run
	if [ -n "${SKIP[ours:$cfg]:-}" ] && [ -z "${SKIP[theirs:$cfg]:-}" ]; then
		SKIP[theirs:$cfg]="nothing to compare it with (ours is skipped)"
	fi
done

. bench/common.sh # proxy_stop, proxy_cpu_ticks, to_us

# Starts side $1 on config $2 pinned on PROXY_CPU, with the command prefix $3 (may be empty)
# and $4 s to listen; sets PROXY_PID. Returns 1 (and sets SKIP) when it does not listen.
proxy_start() {
	local side=$1 cfg=$2 prefix=$3 secs=$4
	# shellcheck disable=SC2086 # the prefix is whole words
	taskset -c "$PROXY_CPU" $prefix "${BIN[$side]}" -f "$TMP/$cfg.cfg" >"$TMP/proxy.log" 2>&1 &
	PROXY_PID=$!
	if ! python3 "$KACLIENT" wait 127.0.0.1 "$LPORT" "$secs"; then
		SKIP[$side:$cfg]="${BIN[$side]} did not listen on $LPORT: $(head -1 "$TMP/proxy.log")"
		proxy_stop
		return 1
	fi
}

skipped_lines() {
	local cfg=$1 side
	for side in ours theirs; do
		[ -z "${SKIP[$side:$cfg]:-}" ] || printf '%-8s skipped: %s\n' "$side" "${SKIP[$side:$cfg]}"
	done
}

stamp=$(date +%Y%m%d-%H%M%S)
echo
echo "Lua: ours=$OURS theirs=$THEIRS; $LUA_LOAD of bench/lua/*.lua on both, nbthread 1;" \
	"proxy on CPU $PROXY_CPU, clients and nginx on CPU $CLIENT_CPU"

# --- row 1: instructions per request ----------------------------------------------------------
# Ir per request of side $1 on config $2 into IR[side:config] (unset when skipped).
declare -A IR=()
cg_one() {
	local side=$1 cfg=$2 out f ir i ok=1
	[ -z "${SKIP[$side:$cfg]:-}" ] || return 0
	out=$TMP/cg.$side.$cfg
	proxy_start "$side" "$cfg" "valgrind -q --tool=callgrind --callgrind-out-file=$out.%p
		--dump-instr=no --collect-jumps=no" 120 || return 0
	if [ "$LUA_CG_WARMUP" -gt 0 ]; then
		taskset -c "$CLIENT_CPU" python3 "$KACLIENT" run 127.0.0.1 "$LPORT" "$LUA_CG_WARMUP" \
			>"$TMP/client.log" 2>&1 || ok=0
	fi
	[ $ok = 0 ] || timeout 60 callgrind_control -z "$PROXY_PID" >/dev/null 2>&1 || ok=0
	[ $ok = 0 ] || taskset -c "$CLIENT_CPU" python3 "$KACLIENT" run 127.0.0.1 "$LPORT" \
		"$LUA_CG_REQUESTS" >"$TMP/client.log" 2>&1 || ok=0
	[ $ok = 0 ] || timeout 60 callgrind_control -d "$PROXY_PID" >/dev/null 2>&1 || ok=0
	f=
	for i in $(seq 1 100); do
		f=$(ls "$out.$PROXY_PID".* 2>/dev/null | head -1)
		[ -n "$f" ] && break
		[ $ok = 1 ] || break
		sleep 0.1
	done
	proxy_stop
	if [ $ok = 0 ] || [ -z "$f" ]; then
		SKIP[$side:$cfg]="no callgrind count ($(tail -1 "$TMP/client.log" 2>/dev/null))"
		return 0
	fi
	ir=$(awk '/^(summary|totals):/ { s = $2 } END { print s }' "$f")
	IR[$side:$cfg]=$(awk -v t="$ir" -v n="$LUA_CG_REQUESTS" 'BEGIN { printf "%.0f", t / n }')
	if [ "$LUA_CG_KEEP" = 1 ]; then
		mkdir -p "$OUT/lua-cg-$stamp"
		cp "$f" "$OUT/lua-cg-$stamp/callgrind.$side.$cfg"
	fi
}

# "Lua overhead per request" of config $1 over baseline $2, described by $3.
overhead_line() {
	local cfg=$1 base=$2 what=$3 o t
	for side in ours theirs; do
		if [ -z "${IR[$side:$cfg]:-}" ] || [ -z "${IR[$side:$base]:-}" ]; then
			echo "Lua overhead per request ($what): skipped ($side: ${SKIP[$side:$cfg]:-${SKIP[$side:$base]:-no count}})"
			return 0
		fi
	done
	o=$((${IR[ours:$cfg]} - ${IR[ours:$base]}))
	t=$((${IR[theirs:$cfg]} - ${IR[theirs:$base]}))
	awk -v o="$o" -v t="$t" -v w="$what" 'BEGIN {
		if (t <= 0) { printf "Lua overhead per request: ours %d Ir, haproxy %d Ir, ratio -" \
			"  [%s]\n", o, t, w; exit }
		r = o / t
		printf "Lua overhead per request: ours %d Ir, haproxy %d Ir, ratio %.3f  [%s; " \
			"target <= 0.5: %s]\n", o, t, r, w, r <= 0.5 ? "met" : "MISSED" }'
}

echo
if [ "$CALLGRIND" = 0 ]; then
	echo "Lua row 1: skipped (CALLGRIND=0)"
else
	echo "Lua row 1: user-space instructions per request (callgrind, $LUA_CG_REQUESTS keep-alive" \
		"requests on one connection after $LUA_CG_WARMUP not counted)"
	for cfg in $CONFIGS; do
		cg_one ours "$cfg"
		cg_one theirs "$cfg"
	done
	printf '%-8s %12s %12s %12s\n' config ours theirs ours/theirs
	for cfg in $CONFIGS; do
		awk -v c="$cfg" -v o="${IR[ours:$cfg]:-}" -v t="${IR[theirs:$cfg]:-}" 'BEGIN {
			printf "%-8s %12s %12s %12s\n", c, o == "" ? "-" : o, t == "" ? "-" : t,
				(o != "" && t > 0) ? sprintf("%.3f", o / t) : "-" }'
		skipped_lines "$cfg"
		printf '%s\t%s\t%s\n' "$cfg" "${IR[ours:$cfg]:-}" "${IR[theirs:$cfg]:-}" \
			>>"$OUT/lua-ir-$stamp.tsv"
	done
	overhead_line action plain "http-request lua.bench_hdr over no Lua" |
		tee -a "$OUT/lua-ir-$stamp.tsv"
	overhead_line service return "use-service lua.bench_hello over http-request return" |
		tee -a "$OUT/lua-ir-$stamp.tsv"
fi

# --- row 2: req/s -------------------------------------------------------------------------
# The proxy's CPU use in percent of one CPU: $1 clock ticks over $2 ns of wall time.
busy_pct() {
	awk -v t="$1" -v hz="$CLK_TCK" -v ns="$2" 'BEGIN { printf "%.0f", t * 1e11 / hz / ns }'
}

# One wrk run of side $1 on config $2, pair $3: appends "side pair rps p50 p99 cpu_us busy%"
# to $RES.
wrk_one() {
	local side=$1 cfg=$2 pair=$3 c0 c1 t0 t1 out reqs rps p50 p99 cpu busy errs
	local url="http://127.0.0.1:$LPORT/"
	[ -z "${SKIP[$side:$cfg]:-}" ] || return 0
	proxy_start "$side" "$cfg" "" 10 || return 0
	taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d"${LUA_WARMUP}s" "$url" >/dev/null 2>&1 || true
	c0=$(proxy_cpu_ticks)
	t0=$(date +%s%N)
	out=$(taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d"${LUA_DURATION}s" --latency "$url" 2>&1) ||
		true
	t1=$(date +%s%N)
	c1=$(proxy_cpu_ticks)
	proxy_stop
	reqs=$(awk '/requests in/ { print $1 }' <<<"$out")
	errs=$(awk '/Non-2xx|Socket errors/' <<<"$out")
	if [ -z "$reqs" ] || ! [ "$reqs" -gt 0 ] 2>/dev/null; then
		SKIP[$side:$cfg]="wrk made no request through ${BIN[$side]} ($(tr '\n' ' ' <<<"$errs"))"
		return 0
	fi
	[ -z "$errs" ] || echo "bench-lua: warning: $side $cfg: $(tr '\n' ' ' <<<"$errs")" >&2
	rps=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")
	p50=$(to_us "$(awk '$1 == "50%" { print $2 }' <<<"$out")")
	p99=$(to_us "$(awk '$1 == "99%" { print $2 }' <<<"$out")")
	cpu=$(awk -v t=$((c1 - c0)) -v hz="$CLK_TCK" -v n="$reqs" \
		'BEGIN { printf "%.3f", t * 1000000 / hz / n }')
	busy=$(busy_pct $((c1 - c0)) $((t1 - t0)))
	printf '%-8s %4d %12s %10s %10s %10s %6s %12s\n' "$side" "$pair" "$rps" "$p50" "$p99" "$cpu" \
		"$busy" "$reqs"
	printf '%s\t%d\t%s\t%s\t%s\t%s\t%s\n' "$side" "$pair" "$rps" "$p50" "$p99" "$cpu" "$busy" \
		>>"$RES"
}

if [ "$LUA_RPS" = 0 ]; then
	echo
	echo "Lua row 2: skipped (LUA_RPS=0)"
else
	for cfg in action service; do
		echo
		echo "Lua row 2 ($cfg): wrk -t1 -c$CONNS -d${LUA_DURATION}s (after ${LUA_WARMUP}s" \
			"warm-up), $LUA_PAIRS alternating pairs"
		printf '%-8s %4s %12s %10s %10s %10s %6s %12s\n' side pair req/s p50_us p99_us \
			cpu_us/req busy% requests
		RES=$TMP/lua-$cfg.tsv
		: >"$RES"
		for pair in $(seq 1 "$LUA_PAIRS"); do
			if [ $((pair % 2)) -eq 1 ]; then
				wrk_one ours "$cfg" "$pair"
				wrk_one theirs "$cfg" "$pair"
			else
				wrk_one theirs "$cfg" "$pair"
				wrk_one ours "$cfg" "$pair"
			fi
		done
		skipped_lines "$cfg"
		python3 "$SUMMARY" "$RES" "req/s:hi,p50_us:lo,p99_us:lo,cpu_us/req:lo,busy%"
		sed "s/^/$cfg\t/" "$RES" >>"$OUT/lua-$stamp.tsv"
	done
fi
echo
echo "Lua raw results: $OUT/lua-ir-$stamp.tsv (row 1), $OUT/lua-$stamp.tsv (row 2)"
