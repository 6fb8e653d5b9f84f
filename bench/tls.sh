#!/usr/bin/env bash
# The TLS rows of `make bench` (bench/run.sh runs it last; BENCH_TLS=0 skips it), or alone:
# bench/tls.sh. This proxy against Debian's HAProxy on the same config: `bind ... ssl crt`
# with an RSA-2048 certificate generated here (openssl CLI, in a temporary directory, never
# kept), TLS 1.3 only, `ciphersuites TLS_AES_256_GCM_SHA384`, HTTP/1.1 to nginx on
# 127.0.0.1:PORT+1..PORT+4 (bench/run.sh's backend; started here if nothing listens there).
# Rows (doc/bench.md says how to read them), TLS_PAIRS alternating pairs each:
#  1. keep-alive HTTPS: wrk -t1 -cCONNS -dTLS_DURATION https://: req/s, p50, p99 and the
#     proxy's CPU time per request (/proc/PID/stat utime+stime); targets >= 1.1x, <= 0.85x;
#  2. new handshakes, one HTTP/1.0 request per connection: TLS_STIME_PROCS parallel
#     `openssl s_time -new` for TLS_DURATION s: handshakes/s and proxy CPU per handshake;
#     target >= 1.0x;
#  3. resumed handshakes (session ticket kept by the client): the same with s_time -reuse
#     (the share of resumed connections is checked and printed); target >= 1.0x;
#  4. user-space instructions per keep-alive HTTPS request outside libssl/libcrypto
#     (scripts/instr_per_req_tls.sh, callgrind, TLS_CG_REQUESTS requests); target <= 0.5x.
# A side that refuses the config, does not start or serves nothing gets a "skipped" row
# naming the reason; the other rows go on.
# Environment: OURS (./haproxy), THEIRS (/usr/sbin/haproxy), PORT (18080; the frontend
# listens on PORT+10, row 4 uses PORT+20..PORT+24), PROXY_CPU (0), CLIENT_CPU (1), CONNS
# (50), TLS_PAIRS (3), TLS_DURATION (4), TLS_WARMUP (1), TLS_STIME_PROCS (4),
# TLS_CG_REQUESTS (2000), CALLGRIND (1; 0 skips row 4). Reference against itself:
# OURS=/usr/sbin/haproxy bench/tls.sh (every ratio should read about 1.0).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OURS=${OURS:-$ROOT/haproxy}
THEIRS=${THEIRS:-/usr/sbin/haproxy}
PORT=${PORT:-18080}
PROXY_CPU=${PROXY_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
CONNS=${CONNS:-50}
TLS_PAIRS=${TLS_PAIRS:-3}
TLS_DURATION=${TLS_DURATION:-4}
TLS_WARMUP=${TLS_WARMUP:-1}
TLS_STIME_PROCS=${TLS_STIME_PROCS:-4}
TLS_CG_REQUESTS=${TLS_CG_REQUESTS:-2000}
CALLGRIND=${CALLGRIND:-1}
OUT=$ROOT/bench/out
KACLIENT=$ROOT/bench/kaclient.py
SUMMARY=$ROOT/bench/tls_summary.py
TPORT=$((PORT + 10))
CLK_TCK=$(getconf CLK_TCK)
SUITE=TLS_AES_256_GCM_SHA384

die() { echo "bench-tls: $*" >&2; exit 1; }

for tool in wrk openssl taskset nginx python3; do
	command -v "$tool" >/dev/null || die "'$tool' not found (run scripts/install-deps.sh)"
done
ldd "$(command -v wrk)" | grep -q 'libssl' || die "this wrk is built without TLS (no libssl)"
[ -x "$THEIRS" ] || die "$THEIRS not found (apt-get install haproxy)"
ss -Hltn "sport = :$TPORT" | grep -q . && die "port $TPORT is already in use (set PORT=...)"

TMP=$(mktemp -d /tmp/hapx-bench-tls.XXXXXX)
mkdir -p "$OUT"
NGINX_PID=
PROXY_PID=
STIME_PIDS=()

# Every process this script starts is stopped by its pid, whatever the exit path.
cleanup() {
	local pid
	for pid in "${STIME_PIDS[@]}" $PROXY_PID $NGINX_PID; do
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

# --- certificate and config --------------------------------------------------------------
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=bench.local \
	-keyout "$TMP/key.pem" -out "$TMP/cert.pem" 2>"$TMP/openssl.err" ||
	die "openssl could not make the certificate: $(head -1 "$TMP/openssl.err")"
cat "$TMP/cert.pem" "$TMP/key.pem" >"$TMP/bench.pem"
CFG=$TMP/tls.cfg
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
	echo "frontend fe"
	echo "	bind 127.0.0.1:$TPORT ssl crt $TMP/bench.pem ssl-min-ver TLSv1.3 ciphersuites $SUITE"
	echo "	default_backend be"
	echo
	echo "backend be"
	echo "	balance roundrobin"
	for i in 1 2 3 4; do
		echo "	server s$i 127.0.0.1:$((PORT + i))"
	done
} >"$CFG"

# SKIP[ours|theirs]: why that side cannot run (empty when it can).
declare -A SKIP=([ours]="" [theirs]="")
declare -A BIN=([ours]="$OURS" [theirs]="$THEIRS")
for side in ours theirs; do
	if [ ! -x "${BIN[$side]}" ]; then
		SKIP[$side]="${BIN[$side]} not found"
	elif ! "${BIN[$side]}" -c -q -f "$CFG" >"$TMP/check.$side" 2>&1; then
		SKIP[$side]="${BIN[$side]} rejects the TLS config: $(grep -m1 -E 'ALERT|ERR|rror' \
			"$TMP/check.$side" || head -1 "$TMP/check.$side")"
	fi
done

# Starts side $1 pinned on PROXY_CPU; sets PROXY_PID. Returns 1 (and sets SKIP) when it
# does not listen within 10 s.
proxy_start() {
	local side=$1
	taskset -c "$PROXY_CPU" "${BIN[$side]}" -f "$CFG" >"$TMP/proxy.log" 2>&1 &
	PROXY_PID=$!
	if ! python3 "$KACLIENT" wait 127.0.0.1 "$TPORT" 10; then
		SKIP[$side]="${BIN[$side]} did not listen on $TPORT: $(head -1 "$TMP/proxy.log")"
		proxy_stop
		return 1
	fi
}

. bench/common.sh # proxy_stop, proxy_cpu_ticks, to_us


# The proxy's CPU use in percent of one CPU: $1 clock ticks over $2 ns of wall time.
busy_pct() {
	awk -v t="$1" -v hz="$CLK_TCK" -v ns="$2" 'BEGIN { printf "%.0f", t * 1e11 / hz / ns }'
}

# Row 1, one run of side $1, pair $2: appends "side pair rps p50 p99 cpu_us busy%" to $RES.
ka_one() {
	local side=$1 pair=$2 c0 c1 t0 t1 out reqs rps p50 p99 cpu busy errs
	local url="https://127.0.0.1:$TPORT/"
	[ -z "${SKIP[$side]}" ] || return 0
	proxy_start "$side" || return 0
	taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d"${TLS_WARMUP}s" "$url" >/dev/null 2>&1 || true
	c0=$(proxy_cpu_ticks)
	t0=$(date +%s%N)
	out=$(taskset -c "$CLIENT_CPU" wrk -t1 -c"$CONNS" -d"${TLS_DURATION}s" --latency "$url" 2>&1) ||
		true
	t1=$(date +%s%N)
	c1=$(proxy_cpu_ticks)
	proxy_stop
	reqs=$(awk '/requests in/ { print $1 }' <<<"$out")
	errs=$(awk '/Non-2xx|Socket errors/' <<<"$out")
	if [ "${reqs:-0}" -le 0 ] 2>/dev/null || [ -z "$reqs" ]; then
		SKIP[$side]="wrk made no HTTPS request through ${BIN[$side]} ($(tr '\n' ' ' <<<"$errs"))"
		return 0
	fi
	[ -z "$errs" ] || echo "bench-tls: warning: $side: $(tr '\n' ' ' <<<"$errs")" >&2
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

# Rows 2 and 3, one run of side $1, pair $2, s_time mode $3 (new|reuse): TLS_STIME_PROCS
# parallel `openssl s_time` for TLS_DURATION s, each connection one "GET / HTTP/1.0".
# Appends "side pair handshakes/s cpu_us/handshake busy% resumed%" to $RES.
stime_one() {
	local side=$1 pair=$2 mode=$3 c0 c1 t0 t1 i n resumed rate cpu pct busy
	[ -z "${SKIP[$side]}" ] || return 0
	proxy_start "$side" || return 0
	c0=$(proxy_cpu_ticks)
	t0=$(date +%s%N)
	STIME_PIDS=()
	for i in $(seq 1 "$TLS_STIME_PROCS"); do
		taskset -c "$CLIENT_CPU" timeout $((TLS_DURATION + 20)) openssl s_time \
			-connect "127.0.0.1:$TPORT" "-$mode" -www / -time "$TLS_DURATION" -tls1_3 \
			-ciphersuites "$SUITE" >"$TMP/stime.$i" 2>&1 &
		STIME_PIDS+=($!)
	done
	for i in "${STIME_PIDS[@]}"; do
		wait "$i" 2>/dev/null || true
	done
	STIME_PIDS=()
	t1=$(date +%s%N)
	c1=$(proxy_cpu_ticks)
	proxy_stop
	# one line "N connections in S real seconds" per process; a line of one progress
	# character per connection: 'r' when the session was resumed, '*' or 't' when not
	n=$(awk '/connections in .* real seconds/ { s += $1 } END { print s + 0 }' "$TMP"/stime.*)
	resumed=$(grep -hoE '^[rt3*]+' "$TMP"/stime.* | tr -cd r | wc -c)
	if [ "$n" -le 0 ]; then
		SKIP[$side]="openssl s_time -$mode made no connection through ${BIN[$side]}:" \
			"$(grep -m1 -iE 'error|fail' "$TMP"/stime.* || true)"
		return 0
	fi
	rate=$(awk -v n="$n" -v ns=$((t1 - t0)) 'BEGIN { printf "%.1f", n * 1e9 / ns }')
	cpu=$(awk -v t=$((c1 - c0)) -v hz="$CLK_TCK" -v n="$n" \
		'BEGIN { printf "%.1f", t * 1000000 / hz / n }')
	pct=$(awk -v r="$resumed" -v n="$n" 'BEGIN { printf "%.1f", (r > n) ? 100 : r * 100 / n }')
	busy=$(busy_pct $((c1 - c0)) $((t1 - t0)))
	printf '%-8s %4d %12s %14s %6s %10s %12s\n' "$side" "$pair" "$rate" "$cpu" "$busy" "$pct" "$n"
	printf '%s\t%d\t%s\t%s\t%s\t%s\n' "$side" "$pair" "$rate" "$cpu" "$busy" "$pct" >>"$RES"
}

# Alternating pairs (ours then theirs, then theirs then ours...) of function $1 (args $3...)
# over TLS_PAIRS; results in $RES, summarised by tls_summary.py with spec $2.
ab_pairs() {
	local fn=$1 spec=$2 pair
	shift 2
	# without ours (before the TLS core lands) there is nothing to compare: theirs is not run
	if [ -n "${SKIP[ours]}" ] && [ -z "${SKIP[theirs]}" ]; then
		SKIP[theirs]="nothing to compare it with (ours is skipped)"
	fi
	for pair in $(seq 1 "$TLS_PAIRS"); do
		if [ $((pair % 2)) -eq 1 ]; then
			"$fn" ours "$pair" "$@"
			"$fn" theirs "$pair" "$@"
		else
			"$fn" theirs "$pair" "$@"
			"$fn" ours "$pair" "$@"
		fi
	done
	skipped_rows
	python3 "$SUMMARY" "$RES" "$spec"
}

skipped_rows() {
	local side
	for side in ours theirs; do
		[ -z "${SKIP[$side]}" ] || printf '%-8s skipped: %s\n' "$side" "${SKIP[$side]}"
	done
}

stamp=$(date +%Y%m%d-%H%M%S)
echo
echo "TLS: ours=$OURS theirs=$THEIRS; bind ssl crt (RSA-2048 made now), TLS 1.3 only," \
	"ciphersuites $SUITE, HTTP/1.1 to 4 nginx servers, roundrobin, nbthread 1;" \
	"proxy on CPU $PROXY_CPU, clients and nginx on CPU $CLIENT_CPU; $TLS_PAIRS alternating pairs"

echo
echo "TLS row 1: keep-alive HTTPS, wrk -t1 -c$CONNS -d${TLS_DURATION}s (after ${TLS_WARMUP}s warm-up)"
printf '%-8s %4s %12s %10s %10s %10s %6s %12s\n' side pair req/s p50_us p99_us cpu_us/req busy% \
	requests
RES=$TMP/tls-ka.tsv
: >"$RES"
ab_pairs ka_one "req/s:hi:1.1,p50_us:lo,p99_us:lo,cpu_us/req:lo:0.85,busy%"
sed 's/^/ka\t/' "$RES" >>"$OUT/tls-$stamp.tsv"

for mode in new reuse; do
	echo
	if [ $mode = new ]; then
		echo "TLS row 2: new handshakes, one HTTP/1.0 request per connection:" \
			"$TLS_STIME_PROCS x openssl s_time -new -time $TLS_DURATION"
	else
		echo "TLS row 3: resumed handshakes (session ticket kept), one request per connection:" \
			"$TLS_STIME_PROCS x openssl s_time -reuse -time $TLS_DURATION"
	fi
	printf '%-8s %4s %12s %14s %6s %10s %12s\n' side pair handshakes/s cpu_us/hshake busy% resumed% \
		conns
	RES=$TMP/tls-$mode.tsv
	: >"$RES"
	ab_pairs stime_one "handshakes/s:hi:1.0,cpu_us/hshake:lo,busy%,resumed%" $mode
	sed "s/^/$mode\t/" "$RES" >>"$OUT/tls-$stamp.tsv"
done

echo
if [ "$CALLGRIND" = 0 ]; then
	echo "TLS row 4: skipped (CALLGRIND=0)"
elif ! command -v valgrind >/dev/null; then
	echo "TLS row 4: skipped (valgrind not found)"
else
	echo "TLS row 4: user-space instructions per keep-alive HTTPS request outside" \
		"libssl/libcrypto (callgrind, $TLS_CG_REQUESTS requests on 8 connections," \
		"handshakes before the counted part)"
	if [ -n "${SKIP[ours]}" ] || [ -n "${SKIP[theirs]}" ]; then
		skipped_rows
	else
		"$ROOT/scripts/instr_per_req_tls.sh" --reference "$THEIRS" --candidate "$OURS" \
			--requests "$TLS_CG_REQUESTS" --port-base $((PORT + 20)) --proxy-cpu "$PROXY_CPU" \
			--client-cpu "$CLIENT_CPU" | tee "$OUT/tls-ir-$stamp.txt" ||
			echo "TLS row 4: skipped (scripts/instr_per_req_tls.sh failed, see above)"
	fi
fi
echo
echo "TLS raw results: $OUT/tls-$stamp.tsv"
