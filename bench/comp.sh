#!/usr/bin/env bash
# The compression rows of `make bench` (bench/run.sh runs them after the Lua rows;
# BENCH_COMP=0 skips them), or alone: bench/comp.sh (make bench-comp). This proxy against
# Debian's HAProxy 2.6 (built with libslz, a fast deflate-only compressor; ours runs its
# own level-1 encoder at the default tune.comp.maxlevel 1, zlib above) on the same config:
# a 100 KB HTML page (bench/comppage.py: this repository's documentation marked up as a
# site serves it) from nginx on 127.0.0.1:PORT+50, through "compression algo gzip" on a
# frontend at PORT+51, nbthread 1, requested with "Accept-Encoding: gzip".
# Rows (doc/bench.md says how to read them):
#  1. the compressed size each side sends (the body, chunk framing excluded), checked to
#     decode to the page, and its ratio to the page's size;
#  2. COMP_PAIRS alternating pairs (ours then theirs, then theirs then ours...) of wrk -t1
#     -cCOMP_CONNS -dCOMP_DURATION: req/s, p50, p99, the proxy's CPU time per response
#     (/proc/PID/stat utime+stime) and busy%; medians and the median over pairs of
#     ours/theirs. The issue's target: req/s >= 0.9x haproxy's at an equal ratio or better.
# COMP_LEVELS (default "1") lists the tune.comp.maxlevel values ours runs at (each its own
# row 1 and 2; "1 6" adds zlib's level 6 for context; theirs ignores it: libslz has one).
# Environment: OURS (./haproxy), THEIRS (/usr/sbin/haproxy), PORT (18080), PROXY_CPU (0),
# CLIENT_CPU (1), COMP_CONNS (20), COMP_PAIRS (3), COMP_DURATION (5), COMP_WARMUP (1),
# COMP_SIZE (102400), COMP_LEVELS (1).
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OURS=${OURS:-$ROOT/haproxy}
THEIRS=${THEIRS:-/usr/sbin/haproxy}
PORT=${PORT:-18080}
PROXY_CPU=${PROXY_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
COMP_CONNS=${COMP_CONNS:-20}
COMP_PAIRS=${COMP_PAIRS:-3}
COMP_DURATION=${COMP_DURATION:-5}
COMP_WARMUP=${COMP_WARMUP:-1}
COMP_SIZE=${COMP_SIZE:-102400}
COMP_LEVELS=${COMP_LEVELS:-1}
OUT=$ROOT/bench/out
KACLIENT=$ROOT/bench/kaclient.py
SUMMARY=$ROOT/bench/tls_summary.py
NPORT=$((PORT + 50))
LPORT=$((PORT + 51))
CLK_TCK=$(getconf CLK_TCK)

die() { echo "bench-comp: $*" >&2; exit 1; }

for tool in wrk taskset nginx python3 curl; do
	command -v "$tool" >/dev/null || die "'$tool' not found (run scripts/install-deps.sh)"
done
for p in $NPORT $LPORT; do
	ss -Hltn "sport = :$p" | grep -q . && die "port $p is already in use (set PORT=...)"
done

TMP=$(mktemp -d /tmp/hapx-bench-comp.XXXXXX)
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

. bench/common.sh # proxy_stop, proxy_cpu_ticks, to_us

# --- the page and its server ------------------------------------------------------------
mkdir -p "$TMP/www" "$TMP/nginx"
chmod 755 "$TMP" "$TMP/www" # nginx's worker (nobody, when run as root) reads the page
python3 bench/comppage.py "$TMP/www/page.html" "$COMP_SIZE"
chmod 644 "$TMP/www/page.html"
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
	echo "  types { text/html html; }"
	echo "  etag off;"
	for d in client_body proxy fastcgi uwsgi scgi; do
		echo "  ${d}_temp_path $TMP/nginx/$d;"
	done
	echo "  server { listen 127.0.0.1:$NPORT; root $TMP/www; }"
	echo "}"
} >"$TMP/nginx/nginx.conf"
taskset -c "$CLIENT_CPU" nginx -q -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" &
NGINX_PID=$!
python3 "$KACLIENT" wait 127.0.0.1 "$NPORT" 10 || die "nginx did not start"

# write_cfg LEVEL: $TMP/LEVEL.cfg (theirs gets the same file without tune.comp.maxlevel
# above 1: its libslz has levels 0 and 1 only, and 2.6 takes the keyword anyway)
write_cfg() {
	local lvl=$1
	{
		echo "global"
		echo "	nbthread 1"
		echo "	tune.comp.maxlevel $lvl"
		echo
		echo "defaults"
		echo "	mode http"
		echo "	timeout connect 5s"
		echo "	timeout client 30s"
		echo "	timeout server 30s"
		echo
		echo "frontend fe"
		echo "	bind 127.0.0.1:$LPORT"
		echo "	compression algo gzip"
		echo "	compression type text/html"
		echo "	default_backend be"
		echo
		echo "backend be"
		echo "	server s1 127.0.0.1:$NPORT"
	} >"$TMP/$lvl.cfg"
}

declare -A BIN=([ours]="$OURS" [theirs]="$THEIRS")
for side in ours theirs; do
	[ -x "${BIN[$side]}" ] || die "${BIN[$side]} not found"
done

# Starts side $1 on config $2 pinned on PROXY_CPU; sets PROXY_PID.
proxy_start() {
	taskset -c "$PROXY_CPU" "${BIN[$1]}" -f "$TMP/$2.cfg" >"$TMP/proxy.log" 2>&1 &
	PROXY_PID=$!
	python3 "$KACLIENT" wait 127.0.0.1 "$LPORT" 10 ||
		die "${BIN[$1]} did not listen: $(head -3 "$TMP/proxy.log")"
}

# The compressed body side $1 sends on config $2 (checked against the page): its size.
comp_size() {
	local n
	proxy_start "$1" "$2"
	curl -s -H "Accept-Encoding: gzip" -o "$TMP/body.$1" "http://127.0.0.1:$LPORT/page.html" ||
		die "curl through ${BIN[$1]} failed"
	proxy_stop
	if ! python3 - "$TMP/body.$1" "$TMP/www/page.html" <<'PYEOF'
import sys, zlib
body, page = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
try:
    ok = zlib.decompress(body, 31) == page
except zlib.error as e:
    sys.exit("%s: %r" % (e, body[:120]))
sys.exit(0 if ok else 1)
PYEOF
	then
		die "$1: the body does not decode to the page"
	fi
	n=$(stat -c %s "$TMP/body.$1")
	echo "$n"
}

busy_pct() {
	awk -v t="$1" -v hz="$CLK_TCK" -v ns="$2" 'BEGIN { printf "%.0f", t * 1e11 / hz / ns }'
}

# One wrk run of side $1 on config $2, pair $3: appends "side pair rps p50 p99 cpu_us
# busy%" to $RES.
wrk_one() {
	local side=$1 cfg=$2 pair=$3 c0 c1 t0 t1 out reqs rps p50 p99 cpu busy errs
	local url="http://127.0.0.1:$LPORT/page.html"
	proxy_start "$side" "$cfg"
	taskset -c "$CLIENT_CPU" wrk -t1 -c"$COMP_CONNS" -d"${COMP_WARMUP}s" \
		-H "Accept-Encoding: gzip" "$url" >/dev/null 2>&1 || true
	c0=$(proxy_cpu_ticks)
	t0=$(date +%s%N)
	out=$(taskset -c "$CLIENT_CPU" wrk -t1 -c"$COMP_CONNS" -d"${COMP_DURATION}s" --latency \
		-H "Accept-Encoding: gzip" "$url" 2>&1) || true
	t1=$(date +%s%N)
	c1=$(proxy_cpu_ticks)
	proxy_stop
	reqs=$(awk '/requests in/ { print $1 }' <<<"$out")
	errs=$(awk '/Non-2xx|Socket errors/' <<<"$out")
	if [ -z "$reqs" ] || ! [ "$reqs" -gt 0 ] 2>/dev/null; then
		echo "bench-comp: $side: wrk made no request ($(tr '\n' ' ' <<<"$errs"))" >&2
		return 0
	fi
	[ -z "$errs" ] || echo "bench-comp: warning: $side: $(tr '\n' ' ' <<<"$errs")" >&2
	rps=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")
	p50=$(to_us "$(awk '$1 == "50%" { print $2 }' <<<"$out")")
	p99=$(to_us "$(awk '$1 == "99%" { print $2 }' <<<"$out")")
	cpu=$(awk -v t=$((c1 - c0)) -v hz="$CLK_TCK" -v n="$reqs" \
		'BEGIN { printf "%.1f", t * 1000000 / hz / n }')
	busy=$(busy_pct $((c1 - c0)) $((t1 - t0)))
	printf '%-8s %4d %12s %10s %10s %10s %6s %12s\n' "$side" "$pair" "$rps" "$p50" "$p99" \
		"$cpu" "$busy" "$reqs"
	printf '%s\t%d\t%s\t%s\t%s\t%s\t%s\n' "$side" "$pair" "$rps" "$p50" "$p99" "$cpu" "$busy" \
		>>"$RES"
}

stamp=$(date +%Y%m%d-%H%M%S)
echo
echo "Compression: ours=$OURS theirs=$THEIRS (libslz); a $COMP_SIZE-byte HTML page through" \
	"'compression algo gzip', nbthread 1; proxy on CPU $PROXY_CPU, wrk and nginx on CPU" \
	"$CLIENT_CPU"
write_cfg 1
theirs_size=$(comp_size theirs 1)
[ -n "$theirs_size" ] || die "no compressed size through $THEIRS"
for lvl in $COMP_LEVELS; do
	write_cfg "$lvl"
	ours_size=$(comp_size ours "$lvl")
	[ -n "$ours_size" ] || die "no compressed size through $OURS"
	echo
	echo "Compression row 1 (ours at tune.comp.maxlevel $lvl): compressed size of the page"
	awk -v o="$ours_size" -v t="$theirs_size" -v n="$COMP_SIZE" 'BEGIN {
		printf "ours   %8d bytes  (%.1f%% of the page)\n", o, o * 100 / n
		printf "theirs %8d bytes  (%.1f%% of the page)\n", t, t * 100 / n
		printf "size ours/theirs %.3f (%s)\n", o / t, o <= t ? "ours is smaller or equal" \
			: "ours is larger" }' | tee -a "$OUT/comp-$stamp.txt"
	echo
	echo "Compression row 2 (ours at level $lvl): wrk -t1 -c$COMP_CONNS -d${COMP_DURATION}s" \
		"(after ${COMP_WARMUP}s warm-up), $COMP_PAIRS alternating pairs"
	printf '%-8s %4s %12s %10s %10s %10s %6s %12s\n' side pair req/s p50_us p99_us \
		cpu_us/rsp busy% requests
	RES=$TMP/comp-$lvl.tsv
	: >"$RES"
	for pair in $(seq 1 "$COMP_PAIRS"); do
		if [ $((pair % 2)) -eq 1 ]; then
			wrk_one ours "$lvl" "$pair"
			wrk_one theirs 1 "$pair"
		else
			wrk_one theirs 1 "$pair"
			wrk_one ours "$lvl" "$pair"
		fi
	done
	python3 "$SUMMARY" "$RES" "req/s:hi:0.9,p50_us:lo,p99_us:lo,cpu_us/rsp:lo,busy%" |
		tee -a "$OUT/comp-$stamp.txt"
	sed "s/^/level$lvl\t/" "$RES" >>"$OUT/comp-$stamp.tsv"
done
echo
echo "Compression raw results: $OUT/comp-$stamp.txt, $OUT/comp-$stamp.tsv"
