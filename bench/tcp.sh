#!/usr/bin/env bash
# The mode tcp rows of `make bench` (bench/run.sh runs it before the TLS rows; BENCH_TCP=0
# skips it), or alone: `make bench-tcp` / bench/tcp.sh. This proxy against Debian's HAProxy
# on the same config: two `mode tcp` listen sections, nbthread 1, each with one server
# served by bench/tcpload (built by the Makefile: a C epoll sink and echo server, and the
# C epoll clients). Rows (doc/bench.md says how to read them), TCP_PAIRS alternating pairs:
#  1. large transfer: TCP_BYTES (1 GiB) sent through the proxy on 1 connection, then on 4
#     parallel connections (client half-close, the server answers the byte count it got):
#     MB/s and the proxy's CPU ms per GB (/proc/PID/stat utime+stime), busy%;
#  2. the same with "option splice-auto", only when both sides accept it (`-c`); a side
#     that refuses it gets a "skipped" line naming the reason;
#  3. small messages: TCP_ECHO_CONNS (50) persistent connections, each sending TCP_MSG
#     (64) bytes and waiting for the echo, for TCP_DURATION s after TCP_WARMUP s:
#     exchanges/s, p50/p99 latency, the proxy's CPU µs per exchange, busy%.
# A side that refuses the config, does not start or moves no data gets a "skipped" row
# naming the reason; the other rows go on. When ours is skipped, theirs is not run.
# Environment: OURS (./haproxy), THEIRS (/usr/sbin/haproxy), TCPLOAD
# (build/default/bench/tcpload), PORT (18080; the proxy listens on PORT+30 and PORT+32, the
# servers on PORT+31 and PORT+33), PROXY_CPU (0), CLIENT_CPU (1), TCP_PAIRS (3), TCP_BYTES
# (1073741824), TCP_DURATION (4), TCP_WARMUP (1), TCP_ECHO_CONNS (50), TCP_MSG (64).
# Reference against itself: OURS=/usr/sbin/haproxy bench/tcp.sh (ratios about 1.0).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OURS=${OURS:-$ROOT/haproxy}
THEIRS=${THEIRS:-/usr/sbin/haproxy}
TCPLOAD=${TCPLOAD:-$ROOT/build/default/bench/tcpload}
PORT=${PORT:-18080}
PROXY_CPU=${PROXY_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
TCP_PAIRS=${TCP_PAIRS:-3}
TCP_BYTES=${TCP_BYTES:-1073741824}
TCP_DURATION=${TCP_DURATION:-4}
TCP_WARMUP=${TCP_WARMUP:-1}
TCP_ECHO_CONNS=${TCP_ECHO_CONNS:-50}
TCP_MSG=${TCP_MSG:-64}
OUT=$ROOT/bench/out
KACLIENT=$ROOT/bench/kaclient.py
SUMMARY=$ROOT/bench/tls_summary.py
BULK_PORT=$((PORT + 30))
ECHO_PORT=$((PORT + 32))
CLK_TCK=$(getconf CLK_TCK)

die() { echo "bench-tcp: $*" >&2; exit 1; }

for tool in taskset python3; do
	command -v "$tool" >/dev/null || die "'$tool' not found (run scripts/install-deps.sh)"
done
[ -x "$TCPLOAD" ] || die "$TCPLOAD not found: build it first (make bench-tcp builds it)"
[ -x "$THEIRS" ] || die "$THEIRS not found (apt-get install haproxy)"
for p in $BULK_PORT $((BULK_PORT + 1)) $ECHO_PORT $((ECHO_PORT + 1)); do
	ss -Hltn "sport = :$p" | grep -q . && die "port $p is already in use (set PORT=...)"
done

TMP=$(mktemp -d /tmp/hapx-bench-tcp.XXXXXX)
mkdir -p "$OUT"
SERVE_PID=
PROXY_PID=

# Every process this script starts is stopped by its pid, whatever the exit path.
cleanup() {
	local pid
	for pid in $PROXY_PID $SERVE_PID; do
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

. bench/common.sh # proxy_stop, proxy_cpu_ticks

# --- backend: the sink on PORT+31, the echo server on PORT+33, at most 2 hours ------------
taskset -c "$CLIENT_CPU" "$TCPLOAD" serve $((BULK_PORT + 1)) $((ECHO_PORT + 1)) 7200 &
SERVE_PID=$!
python3 "$KACLIENT" wait 127.0.0.1 $((ECHO_PORT + 1)) 10 || die "tcpload serve did not start"

# --- configs: plain, and with option splice-auto -------------------------------------------
# write_cfg FILE EXTRA_DEFAULTS_LINE
write_cfg() {
	{
		echo "global"
		echo "	nbthread 1"
		echo
		echo "defaults"
		echo "	mode tcp"
		echo "	timeout connect 5s"
		echo "	timeout client 30s"
		echo "	timeout server 30s"
		[ -z "$2" ] || echo "	$2"
		echo
		echo "listen bulk"
		echo "	bind 127.0.0.1:$BULK_PORT"
		echo "	server s1 127.0.0.1:$((BULK_PORT + 1))"
		echo
		echo "listen echo"
		echo "	bind 127.0.0.1:$ECHO_PORT"
		echo "	server s1 127.0.0.1:$((ECHO_PORT + 1))"
	} >"$1"
}
write_cfg "$TMP/plain.cfg" ""
write_cfg "$TMP/splice.cfg" "option splice-auto"

declare -A BIN=([ours]="$OURS" [theirs]="$THEIRS")
declare -A SKIP=([ours]="" [theirs]="")
CFG=

# Sets CFG to $1 and SKIP for each side from its `-c` on it.
use_cfg() {
	local side
	CFG=$1
	for side in ours theirs; do
		SKIP[$side]=""
		if [ ! -x "${BIN[$side]}" ]; then
			SKIP[$side]="${BIN[$side]} not found"
		elif ! "${BIN[$side]}" -c -q -f "$CFG" >"$TMP/check.$side" 2>&1; then
			SKIP[$side]="${BIN[$side]} rejects $(basename "$CFG"): $(grep -m1 -E \
				'ALERT|ERR|rror' "$TMP/check.$side" || head -1 "$TMP/check.$side")"
		fi
	done
}

# Starts side $1 pinned on PROXY_CPU; sets PROXY_PID. Returns 1 (and sets SKIP) when it
# does not listen within 10 s.
proxy_start() {
	local side=$1
	taskset -c "$PROXY_CPU" "${BIN[$side]}" -f "$CFG" >"$TMP/proxy.log" 2>&1 &
	PROXY_PID=$!
	if ! python3 "$KACLIENT" wait 127.0.0.1 "$ECHO_PORT" 10; then
		SKIP[$side]="${BIN[$side]} did not listen on $ECHO_PORT: $(head -1 "$TMP/proxy.log")"
		proxy_stop
		return 1
	fi
}

# The proxy's CPU use in percent of one CPU: $1 clock ticks over $2 ns of wall time.
busy_pct() {
	awk -v t="$1" -v hz="$CLK_TCK" -v ns="$2" 'BEGIN { printf "%.0f", t * 1e11 / hz / ns }'
}

# Value of key $1 in tcpload's "k=v k=v" line $2.
kv() {
	tr ' ' '\n' <<<"$2" | awk -F= -v k="$1" '$1 == k { print $2 }'
}

# Rows 1-2, one run of side $1, pair $2, $3 connections: a warm-up of 64 MiB, then
# TCP_BYTES. Appends "side pair MB/s cpu_ms/GB busy%" to $RES.
bulk_one() {
	local side=$1 pair=$2 conns=$3 c0 c1 t0 t1 out mbps cpu busy
	[ -z "${SKIP[$side]}" ] || return 0
	proxy_start "$side" || return 0
	taskset -c "$CLIENT_CPU" "$TCPLOAD" bulk 127.0.0.1 "$BULK_PORT" 67108864 "$conns" 60 \
		>/dev/null 2>&1 || true
	c0=$(proxy_cpu_ticks)
	t0=$(date +%s%N)
	out=$(taskset -c "$CLIENT_CPU" "$TCPLOAD" bulk 127.0.0.1 "$BULK_PORT" "$TCP_BYTES" "$conns" \
		300 2>&1) || true
	t1=$(date +%s%N)
	c1=$(proxy_cpu_ticks)
	proxy_stop
	mbps=$(kv mbps "$out")
	if [ -z "$mbps" ]; then
		SKIP[$side]="tcpload bulk through ${BIN[$side]} failed: $(head -1 <<<"$out")"
		return 0
	fi
	cpu=$(awk -v t=$((c1 - c0)) -v hz="$CLK_TCK" -v b="$TCP_BYTES" \
		'BEGIN { printf "%.1f", t * 1000 / hz / (b / 1e9) }')
	busy=$(busy_pct $((c1 - c0)) $((t1 - t0)))
	printf '%-8s %4d %12s %12s %6s %8s\n' "$side" "$pair" "$mbps" "$cpu" "$busy" "$(kv secs "$out")"
	printf '%s\t%d\t%s\t%s\t%s\n' "$side" "$pair" "$mbps" "$cpu" "$busy" >>"$RES"
}

# Row 3, one run of side $1, pair $2. Appends "side pair exch/s p50 p99 cpu_us busy%".
echo_one() {
	local side=$1 pair=$2 c0 c1 t0 t1 out n rate cpu busy
	[ -z "${SKIP[$side]}" ] || return 0
	proxy_start "$side" || return 0
	taskset -c "$CLIENT_CPU" "$TCPLOAD" echo 127.0.0.1 "$ECHO_PORT" "$TCP_ECHO_CONNS" \
		"$TCP_WARMUP" "$TCP_MSG" >/dev/null 2>&1 || true
	c0=$(proxy_cpu_ticks)
	t0=$(date +%s%N)
	out=$(taskset -c "$CLIENT_CPU" "$TCPLOAD" echo 127.0.0.1 "$ECHO_PORT" "$TCP_ECHO_CONNS" \
		"$TCP_DURATION" "$TCP_MSG" 2>&1) || true
	t1=$(date +%s%N)
	c1=$(proxy_cpu_ticks)
	proxy_stop
	n=$(kv exchanges "$out")
	if [ -z "$n" ]; then
		SKIP[$side]="tcpload echo through ${BIN[$side]} failed: $(head -1 <<<"$out")"
		return 0
	fi
	rate=$(kv rate "$out")
	cpu=$(awk -v t=$((c1 - c0)) -v hz="$CLK_TCK" -v n="$n" \
		'BEGIN { printf "%.3f", t * 1000000 / hz / n }')
	busy=$(busy_pct $((c1 - c0)) $((t1 - t0)))
	printf '%-8s %4d %12s %10s %10s %12s %6s %12s\n' "$side" "$pair" "$rate" "$(kv p50_us "$out")" \
		"$(kv p99_us "$out")" "$cpu" "$busy" "$n"
	printf '%s\t%d\t%s\t%s\t%s\t%s\t%s\n' "$side" "$pair" "$rate" "$(kv p50_us "$out")" \
		"$(kv p99_us "$out")" "$cpu" "$busy" >>"$RES"
}

skipped_rows() {
	local side
	for side in ours theirs; do
		[ -z "${SKIP[$side]}" ] || printf '%-8s skipped: %s\n' "$side" "${SKIP[$side]}"
	done
}

# Alternating pairs (ours then theirs, then theirs then ours...) of function $1 (args $3...)
# over TCP_PAIRS; results in $RES, summarised by tls_summary.py with spec $2.
ab_pairs() {
	local fn=$1 spec=$2 pair
	shift 2
	if [ -n "${SKIP[ours]}" ] && [ -z "${SKIP[theirs]}" ]; then
		SKIP[theirs]="nothing to compare it with (ours is skipped)"
	fi
	for pair in $(seq 1 "$TCP_PAIRS"); do
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

stamp=$(date +%Y%m%d-%H%M%S)
gib=$(awk -v b="$TCP_BYTES" 'BEGIN { printf "%.2f", b / 1073741824 }')
echo
echo "TCP: ours=$OURS theirs=$THEIRS; mode tcp listen sections, nbthread 1, one server" \
	"(bench/tcpload serve); proxy on CPU $PROXY_CPU, clients and servers on CPU $CLIENT_CPU;" \
	"$TCP_PAIRS alternating pairs"

for variant in plain splice; do
	use_cfg "$TMP/$variant.cfg"
	if [ $variant = splice ] && { [ -n "${SKIP[ours]}" ] || [ -n "${SKIP[theirs]}" ]; }; then
		echo
		echo "TCP row 2: large transfer with option splice-auto: skipped, not accepted by -c:"
		skipped_rows
		continue
	fi
	for conns in 1 4; do
		echo
		if [ $variant = plain ]; then
			echo "TCP row 1: large transfer, $gib GiB on $conns connection(s)" \
				"(after a 64 MiB warm-up)"
		else
			echo "TCP row 2: large transfer with option splice-auto, $gib GiB on $conns" \
				"connection(s) (after a 64 MiB warm-up)"
		fi
		printf '%-8s %4s %12s %12s %6s %8s\n' side pair MB/s cpu_ms/GB busy% secs
		RES=$TMP/bulk-$variant-$conns.tsv
		: >"$RES"
		ab_pairs bulk_one "MB/s:hi,cpu_ms/GB:lo,busy%" "$conns"
		sed "s/^/bulk-$variant-$conns\t/" "$RES" >>"$OUT/tcp-$stamp.tsv"
	done
done

use_cfg "$TMP/plain.cfg"
echo
echo "TCP row 3: $TCP_MSG-byte echo exchanges on $TCP_ECHO_CONNS persistent connections," \
	"${TCP_DURATION}s (after ${TCP_WARMUP}s warm-up)"
printf '%-8s %4s %12s %10s %10s %12s %6s %12s\n' side pair exch/s p50_us p99_us cpu_us/exch \
	busy% exchanges
RES=$TMP/echo.tsv
: >"$RES"
ab_pairs echo_one "exch/s:hi,p50_us:lo,p99_us:lo,cpu_us/exch:lo,busy%"
sed "s/^/echo\t/" "$RES" >>"$OUT/tcp-$stamp.tsv"

echo
echo "TCP raw results: $OUT/tcp-$stamp.tsv"
