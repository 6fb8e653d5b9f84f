#!/usr/bin/env bash
# The cache rows of `make bench` (bench/run.sh runs them after the Lua rows; BENCH_CACHE=0
# skips them), or alone: bench/cache.sh (make bench-cache). This proxy against Debian's
# HAProxy 2.6 on the same configs, nbthread 1, HTTP/1.1 to nginx on 127.0.0.1:PORT+1..+4
# (bench/run.sh's backend; started here if nothing listens there). The frontend listens
# on PORT+41. Two configs:
#   plain  no cache: roundrobin over the 4 servers (what a miss costs, roughly)
#   hit    "http-request cache-use c" in the frontend, the backend adds
#          "Cache-Control: max-age=3600" to nginx's "ok\n" then "cache-store c": after the
#          first request every one is a hit, answered without the backend (a 3-byte
#          body, the stored headers and "age")
# Rows (doc/bench.md says how to read them):
#  1. user-space instructions per request under callgrind, each config and side: the proxy
#     under valgrind --tool=callgrind, CACHE_CG_WARMUP requests, counters zeroed
#     (callgrind_control -z), CACHE_CG_REQUESTS requests on one keep-alive connection,
#     dump (callgrind_control -d); then the line
#       cache hit per request: ours N Ir, haproxy M Ir, ratio R
#     (the issue's target: R <= 0.5);
#  2. CACHE_PAIRS alternating pairs (ours then theirs, then theirs then ours...) of wrk
#     -t1 -cCONNS -dCACHE_DURATION on hit: req/s, p50, p99, the proxy's CPU time per
#     request (/proc/PID/stat utime+stime) and busy%.
# A side that refuses a config, does not start or serves nothing gets a "skipped" line
# naming the reason (when ours is skipped, theirs is not run for that config).
# Environment: OURS (./haproxy), THEIRS (/usr/sbin/haproxy), PORT (18080), PROXY_CPU (0),
# CLIENT_CPU (1), CONNS (50), CACHE_PAIRS (3), CACHE_DURATION (4), CACHE_WARMUP (1),
# CACHE_CG_REQUESTS (5000), CACHE_CG_WARMUP (200), CALLGRIND (1; 0 skips row 1), CACHE_RPS
# (1; 0 skips row 2), CACHE_CG_KEEP (0; 1 keeps the callgrind dumps in
# bench/out/cache-cg-STAMP/ for callgrind_annotate).
# Reference against itself: OURS=/usr/sbin/haproxy bench/cache.sh (ratios about 1.0).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OURS=${OURS:-$ROOT/haproxy}
THEIRS=${THEIRS:-/usr/sbin/haproxy}
PORT=${PORT:-18080}
PROXY_CPU=${PROXY_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
CONNS=${CONNS:-50}
CACHE_PAIRS=${CACHE_PAIRS:-3}
CACHE_DURATION=${CACHE_DURATION:-4}
CACHE_WARMUP=${CACHE_WARMUP:-1}
CACHE_CG_REQUESTS=${CACHE_CG_REQUESTS:-5000}
CACHE_CG_WARMUP=${CACHE_CG_WARMUP:-200}
CACHE_CG_KEEP=${CACHE_CG_KEEP:-0}
CALLGRIND=${CALLGRIND:-1}
CACHE_RPS=${CACHE_RPS:-1}
OUT=$ROOT/bench/out
KACLIENT=$ROOT/bench/kaclient.py
SUMMARY=$ROOT/bench/tls_summary.py
LPORT=$((PORT + 41))
CLK_TCK=$(getconf CLK_TCK)
CONFIGS="plain hit"

die() { echo "bench-cache: $*" >&2; exit 1; }

for tool in wrk taskset nginx python3; do
	command -v "$tool" >/dev/null || die "'$tool' not found (run scripts/install-deps.sh)"
done
if [ "$CALLGRIND" != 0 ]; then
	for tool in valgrind callgrind_control; do
		command -v "$tool" >/dev/null || die "'$tool' not found (CALLGRIND=0 skips row 1)"
	done
fi
ss -Hltn "sport = :$LPORT" | grep -q . && die "port $LPORT is already in use (set PORT=...)"

TMP=$(mktemp -d /tmp/hapx-bench-cache.XXXXXX)
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
		echo
		echo "defaults"
		echo "	mode http"
		echo "	timeout connect 5s"
		echo "	timeout client 30s"
		echo "	timeout server 30s"
		echo
		if [ "$name" = hit ]; then
			echo "cache c"
			echo "	total-max-size 16"
			echo "	max-age 3600"
			echo
		fi
		echo "frontend fe"
		echo "	bind 127.0.0.1:$LPORT"
		[ "$name" != hit ] || echo "	http-request cache-use c"
		echo "	default_backend be"
		echo
		echo "backend be"
		echo "	balance roundrobin"
		if [ "$name" = hit ]; then
			echo "	http-response set-header Cache-Control max-age=3600"
			echo "	http-response cache-store c"
		fi
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
echo "Cache: ours=$OURS theirs=$THEIRS; nbthread 1; proxy on CPU $PROXY_CPU, clients and" \
	"nginx on CPU $CLIENT_CPU"

# --- row 1: instructions per request ----------------------------------------------------------
# Ir per request of side $1 on config $2 into IR[side:config] (unset when skipped).
declare -A IR=()
cg_one() {
	local side=$1 cfg=$2 out f ir i ok=1
	[ -z "${SKIP[$side:$cfg]:-}" ] || return 0
	out=$TMP/cg.$side.$cfg
	proxy_start "$side" "$cfg" "valgrind -q --tool=callgrind --callgrind-out-file=$out.%p
		--dump-instr=no --collect-jumps=no" 120 || return 0
	if [ "$CACHE_CG_WARMUP" -gt 0 ]; then
		taskset -c "$CLIENT_CPU" python3 "$KACLIENT" run 127.0.0.1 "$LPORT" "$CACHE_CG_WARMUP" \
			>"$TMP/client.log" 2>&1 || ok=0
	fi
	[ $ok = 0 ] || timeout 60 callgrind_control -z "$PROXY_PID" >/dev/null 2>&1 || ok=0
	[ $ok = 0 ] || taskset -c "$CLIENT_CPU" python3 "$KACLIENT" run 127.0.0.1 "$LPORT" \
		"$CACHE_CG_REQUESTS" >"$TMP/client.log" 2>&1 || ok=0
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
	IR[$side:$cfg]=$(awk -v t="$ir" -v n="$CACHE_CG_REQUESTS" 'BEGIN { printf "%.0f", t / n }')
	if [ "$CACHE_CG_KEEP" = 1 ]; then
		mkdir -p "$OUT/cache-cg-$stamp"
		cp "$f" "$OUT/cache-cg-$stamp/callgrind.$side.$cfg"
	fi
}

echo
if [ "$CALLGRIND" = 0 ]; then
	echo "Cache row 1: skipped (CALLGRIND=0)"
else
	echo "Cache row 1: user-space instructions per request (callgrind, $CACHE_CG_REQUESTS" \
		"keep-alive requests on one connection after $CACHE_CG_WARMUP not counted)"
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
			>>"$OUT/cache-ir-$stamp.tsv"
	done
	if [ -n "${IR[ours:hit]:-}" ] && [ -n "${IR[theirs:hit]:-}" ]; then
		awk -v o="${IR[ours:hit]}" -v t="${IR[theirs:hit]}" 'BEGIN { r = o / t
			printf "cache hit per request: ours %d Ir, haproxy %d Ir, ratio %.3f  " \
				"[target <= 0.5: %s]\n", o, t, r, r <= 0.5 ? "met" : "MISSED" }' |
			tee -a "$OUT/cache-ir-$stamp.tsv"
	fi
fi

# --- row 2: req/s -------------------------------------------------------------------------
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
	taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d"${CACHE_WARMUP}s" "$url" >/dev/null 2>&1 || true
	c0=$(proxy_cpu_ticks)
	t0=$(date +%s%N)
	out=$(taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d"${CACHE_DURATION}s" --latency "$url" 2>&1) ||
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
	[ -z "$errs" ] || echo "bench-cache: warning: $side $cfg: $(tr '\n' ' ' <<<"$errs")" >&2
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

if [ "$CACHE_RPS" = 0 ]; then
	echo
	echo "Cache row 2: skipped (CACHE_RPS=0)"
else
	cfg=hit
	echo
	echo "Cache row 2 ($cfg): wrk -t1 -c$CONNS -d${CACHE_DURATION}s (after ${CACHE_WARMUP}s" \
		"warm-up), $CACHE_PAIRS alternating pairs"
	printf '%-8s %4s %12s %10s %10s %10s %6s %12s\n' side pair req/s p50_us p99_us \
		cpu_us/req busy% requests
	RES=$TMP/cache-$cfg.tsv
	: >"$RES"
	for pair in $(seq 1 "$CACHE_PAIRS"); do
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
	sed "s/^/$cfg\t/" "$RES" >>"$OUT/cache-$stamp.tsv"
fi
echo
echo "Cache raw results: $OUT/cache-ir-$stamp.tsv (row 1), $OUT/cache-$stamp.tsv (row 2)"
