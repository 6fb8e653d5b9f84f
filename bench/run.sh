#!/usr/bin/env bash
# `make bench`: this proxy against Debian's HAProxy on the same config, backend and load.
#  - backend: nginx (4 servers on 127.0.0.1:PORT+1..PORT+4 answering "ok\n"), pinned with
#    the client on CLIENT_CPU; the proxy under test alone on PROXY_CPU;
#  - PAIRS alternating runs (ours/theirs, then theirs/ours, ...) of wrk -t1 -cCONNS -dDURATION
#    through the proxy: req/s, p50, p99 and the proxy's CPU time per request (from
#    /proc/PID/stat utime+stime); medians and the median over pairs of ours/theirs;
#  - user-space instructions per request under callgrind: CG_REQUESTS requests on one
#    keep-alive connection, minus a startup-only run.
#  - idle connections: IDLE_CONNS clients open at once, one request each through the proxy
#    to the servers, then kept idle: the time to serve that burst and the proxy's memory
#    per idle proxied connection (VmRSS growth / IDLE_CONNS), IDLE_RUNS alternating runs.
# Environment: OURS (./haproxy), THEIRS (/usr/sbin/haproxy), PAIRS (5), DURATION (10),
# WARMUP (2), CONNS (50), PROXY_CPU (0), CLIENT_CPU (1), PORT (18080), CG_REQUESTS (20000),
# CALLGRIND (1; 0 skips it), THREADS_BENCH (1; 0 skips the 2-thread part), RPS_BENCH (1; 0
# skips the wrk runs), IDLE_BENCH (1; 0 skips the idle part), IDLE_CONNS (3000), IDLE_RUNS
# (3), LB_BENCH (1; 0 skips leastconn/random(2)/source and the ns-per-pick micro-benchmark
# bench/lb_pick), LB_PAIRS (3), LOG_BENCH (1; 0 skips the "option httplog" to a UDP sink
# part, ours vs theirs: req/s and CPU per request), LOG_PAIRS (3), CLOSE_BENCH (1; 0
# skips the connection close mode part), CLOSE_PAIRS (3),
# RULES_BENCH (1; 0 skips the rules and large-list lookups part), RULES_CG_REQUESTS
# (5000), PROF_BENCH (1; 0 skips the task profiling off/on part), BENCH_TCP (1; 0 skips
# the mode tcp rows: bench/tcp.sh, about 1.5 minutes, its own knobs in its header; TCPLOAD
# names its load generator, set by the Makefile), BENCH_LUA (1; 0 skips the Lua rows:
# bench/lua.sh, about 3 minutes, its own knobs in its header), BENCH_CACHE (1; 0 skips
# the cache rows: bench/cache.sh, about 1.5 minutes, its own knobs in its header),
# BENCH_COMP (1; 0 skips the compression rows: bench/comp.sh, about 1 minute, its own
# knobs in its header), BENCH_TLS (1; 0 skips the TLS rows: bench/tls.sh, run last, its
# own knobs in its header). Results are also
# written under bench/out/. With 2+ CPUs it then runs nbthread 2, ours
# vs theirs, and ours with 1 thread vs 2 threads in 1 group vs 2 groups of 1 thread,
# everything sharing all CPUs.
# Only the idle part: RPS_BENCH=0 THREADS_BENCH=0 CALLGRIND=0 bench/run.sh
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
OURS=${OURS:-$ROOT/haproxy}
THEIRS=${THEIRS:-/usr/sbin/haproxy}
PAIRS=${PAIRS:-5}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
CONNS=${CONNS:-50}
PROXY_CPU=${PROXY_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
PORT=${PORT:-18080}
CG_REQUESTS=${CG_REQUESTS:-20000}
CALLGRIND=${CALLGRIND:-1}
RPS_BENCH=${RPS_BENCH:-1}
IDLE_BENCH=${IDLE_BENCH:-1}
IDLE_CONNS=${IDLE_CONNS:-3000}
IDLE_RUNS=${IDLE_RUNS:-3}
OUT=$ROOT/bench/out
KACLIENT=$ROOT/bench/kaclient.py
IDLECLIENT=$ROOT/bench/idleconns.py
CLK_TCK=$(getconf CLK_TCK)

die() { echo "bench: $*" >&2; exit 1; }

for tool in wrk taskset nginx python3 curl; do
	command -v "$tool" >/dev/null || die "'$tool' not found (run scripts/install-deps.sh)"
done
[ "$CALLGRIND" = 0 ] || command -v valgrind >/dev/null || die "valgrind not found"
[ -x "$OURS" ] || die "$OURS not found: build it first (make haproxy)"
[ -x "$THEIRS" ] || die "$THEIRS not found (apt-get install haproxy)"
NCPU=$(nproc)
if [ "$PROXY_CPU" -ge "$NCPU" ] || [ "$CLIENT_CPU" -ge "$NCPU" ]; then
	die "need CPUs $PROXY_CPU and $CLIENT_CPU, this machine has $NCPU"
fi
for p in $PORT $((PORT + 1)) $((PORT + 2)) $((PORT + 3)) $((PORT + 4)); do
	if ss -Hltn "sport = :$p" | grep -q .; then
		die "port $p is already in use (set PORT=...)"
	fi
done

TMP=$(mktemp -d /tmp/hapx-bench.XXXXXX)
mkdir -p "$OUT"
NGINX_PID=
PROXY_PID=

# Every process this script starts is stopped by its pid, whatever the exit path.
cleanup() {
	for pid in $PROXY_PID $NGINX_PID; do
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- backend -------------------------------------------------------------------------
mkdir -p "$TMP/nginx"
{
	echo "worker_processes 1;"
	echo "daemon off;"
	echo "pid $TMP/nginx/nginx.pid;"
	echo "error_log $TMP/nginx/error.log;"
	echo "worker_rlimit_nofile $((IDLE_CONNS * 2 + 4096));"
	echo "events { worker_connections $((IDLE_CONNS * 2 + 4096)); }"
	echo "http {"
	echo "  access_log off;"
	echo "  keepalive_requests 100000000;"
	echo "  keepalive_timeout 300s;"
	echo "  client_body_temp_path $TMP/nginx/body;"
	echo "  proxy_temp_path $TMP/nginx/proxy;"
	echo "  fastcgi_temp_path $TMP/nginx/fastcgi;"
	echo "  uwsgi_temp_path $TMP/nginx/uwsgi;"
	echo "  scgi_temp_path $TMP/nginx/scgi;"
	for i in 1 2 3 4; do
		echo "  server { listen 127.0.0.1:$((PORT + i)); location / { return 200 \"ok\\n\"; } }"
	done
	echo "}"
} >"$TMP/nginx/nginx.conf"

taskset -c "$CLIENT_CPU" nginx -q -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" &
NGINX_PID=$!
for i in 1 2 3 4; do
	python3 "$KACLIENT" wait 127.0.0.1 $((PORT + i)) 10 || die "nginx did not start"
done

# --- proxy configs -------------------------------------------------------------------
# write_cfg FILE NBTHREAD [THREAD_GROUPS] [BALANCE]
write_cfg() {
	{
		echo "global"
		echo "	nbthread $2"
		[ -z "${3:-}" ] || echo "	thread-groups $3"
		echo
		echo "defaults"
		echo "	mode http"
		echo "	timeout connect 5s"
		echo "	timeout client 30s"
		echo "	timeout server 30s"
		echo
		echo "frontend fe"
		echo "	bind 127.0.0.1:$PORT"
		echo "	default_backend be"
		echo
		echo "backend be"
		echo "	balance ${4:-roundrobin}"
		for i in 1 2 3 4; do
			echo "	server s$i 127.0.0.1:$((PORT + i))"
		done
	} >"$1"
}
CFG=$TMP/proxy.cfg
write_cfg "$CFG" 1
write_cfg "$TMP/proxy-t2.cfg" 2
write_cfg "$TMP/proxy-t2g2.cfg" 2 2
for c in "$CFG" "$TMP/proxy-t2.cfg" "$TMP/proxy-t2g2.cfg"; do
	"$OURS" -c -q -f "$c" || die "$OURS rejects the benchmark config $c"
done
"$THEIRS" -c -q -f "$CFG" || die "$THEIRS rejects the benchmark config"
"$THEIRS" -c -q -f "$TMP/proxy-t2.cfg" || die "$THEIRS rejects the 2-thread config"

# Starts proxy binary $1 pinned on PROXY_CPU (prefix command in $2, may be empty); sets
# PROXY_PID and waits for the port.
proxy_start() {
	local bin=$1 prefix=$2 secs=$3 cfg=${4:-$CFG} cpus=${5:-$PROXY_CPU}
	# shellcheck disable=SC2086
	taskset -c "$cpus" $prefix "$bin" -f "$cfg" >"$TMP/proxy.log" 2>&1 &
	PROXY_PID=$!
	if ! python3 "$KACLIENT" wait 127.0.0.1 "$PORT" "$secs"; then
		cat "$TMP/proxy.log" >&2
		die "$bin did not start listening on $PORT"
	fi
}

. bench/common.sh # proxy_stop, proxy_cpu_ticks, to_us


# One measured run of proxy binary $1, labelled $2, pair $3; optional config $4, proxy
# CPUs $5, client CPUs $6 and wrk threads $7. Appends a line to $RESULTS.
bench_one() {
	local bin=$1 label=$2 pair=$3 cfg=${4:-$CFG} pcpu=${5:-$PROXY_CPU}
	local ccpu=${6:-$CLIENT_CPU} wthr=${7:-1} c0 c1 out reqs rps p50 p99 cpu_us non2xx
	proxy_start "$bin" "" 10 "$cfg" "$pcpu"
	# shellcheck disable=SC2086 # WRK_EXTRA holds whole arguments
	taskset -c "$ccpu" wrk -t"$wthr" -c"$CONNS" -d"${WARMUP}s" ${WRK_EXTRA:-} \
		"http://127.0.0.1:$PORT/" >/dev/null
	c0=$(proxy_cpu_ticks)
	# shellcheck disable=SC2086
	out=$(taskset -c "$ccpu" wrk -t"$wthr" -c"$CONNS" -d"${DURATION}s" --latency ${WRK_EXTRA:-} \
		"http://127.0.0.1:$PORT/")
	c1=$(proxy_cpu_ticks)
	proxy_stop
	reqs=$(awk '/requests in/ { print $1 }' <<<"$out")
	rps=$(awk '/^Requests\/sec:/ { print $2 }' <<<"$out")
	p50=$(to_us "$(awk '$1 == "50%" { print $2 }' <<<"$out")")
	p99=$(to_us "$(awk '$1 == "99%" { print $2 }' <<<"$out")")
	non2xx=$(awk '/Non-2xx/ { print $NF }' <<<"$out")
	[ -z "$non2xx" ] || echo "bench: warning: $label had $non2xx non-2xx responses" >&2
	[ "${reqs:-0}" -gt 0 ] || die "$label: wrk made no request: $out"
	cpu_us=$(awk -v t=$((c1 - c0)) -v hz="$CLK_TCK" -v n="$reqs" \
		'BEGIN { printf "%.3f", t * 1000000 / hz / n }')
	printf '%-8s %4d %12s %10s %10s %10s %12s\n' "$label" "$pair" "$rps" "$p50" "$p99" \
		"$cpu_us" "$reqs"
	printf '%s\t%d\t%s\t%s\t%s\t%s\n' "$label" "$pair" "$rps" "$p50" "$p99" "$cpu_us" \
		>>"$RESULTS"
}

# N alternating pairs (ours then theirs, then theirs then ours...) of bench_one on config
# $2 (default $CFG), appended to $RESULTS.
ab_pairs() {
	local n=$1 cfg=${2:-$CFG} pair
	for pair in $(seq 1 "$n"); do
		if [ $((pair % 2)) -eq 1 ]; then
			bench_one "$OURS" ours "$pair" "$cfg"
			bench_one "$THEIRS" theirs "$pair" "$cfg"
		else
			bench_one "$THEIRS" theirs "$pair" "$cfg"
			bench_one "$OURS" ours "$pair" "$cfg"
		fi
	done
}

echo "hapx benchmark: ours=$OURS theirs=$THEIRS"
echo "pinning: proxy on CPU $PROXY_CPU; wrk and nginx on CPU $CLIENT_CPU ($NCPU CPUs)"
RESULTS=$TMP/results.tsv
: >"$RESULTS"
if [ "$RPS_BENCH" != 0 ]; then
echo "load: wrk -t1 -c$CONNS -d${DURATION}s (after ${WARMUP}s warm-up), $PAIRS pairs," \
	"keep-alive, 4 nginx servers, roundrobin, nbthread 1"
echo
printf '%-8s %4s %12s %10s %10s %10s %12s\n' side pair req/s p50_us p99_us cpu_us/req requests
ab_pairs "$PAIRS"
echo
python3 "$ROOT/bench/summary.py" "$RESULTS"
fi

# --- load-balancing algorithms ------------------------------------------------------
# The same load over the 4 servers with leastconn, random(2) and source, LB_PAIRS (3)
# alternating pairs each (LB_BENCH=0 skips it).
if [ "${LB_BENCH:-1}" != 0 ]; then
	for algo in leastconn "random(2)" source; do
		write_cfg "$TMP/proxy-lb.cfg" 1 "" "$algo"
		"$OURS" -c -q -f "$TMP/proxy-lb.cfg" || die "$OURS rejects balance $algo"
		"$THEIRS" -c -q -f "$TMP/proxy-lb.cfg" || die "$THEIRS rejects balance $algo"
		echo
		echo "balance $algo: ours vs theirs, same load, ${LB_PAIRS:-3} pairs"
		SAVED_RESULTS=$RESULTS
		RESULTS=$TMP/results-lb.tsv
		: >"$RESULTS"
		ab_pairs "${LB_PAIRS:-3}" "$TMP/proxy-lb.cfg"
		python3 "$ROOT/bench/summary.py" "$RESULTS"
		cat "$RESULTS" >>"$OUT/lb-$(date +%Y%m%d-%H%M%S).tsv"
		RESULTS=$SAVED_RESULTS
	done
	# one pick alone, per algorithm, with 4, 64 and 1,000 servers (make bench-pick)
	if [ -x "$ROOT/bench/lb_pick" ]; then
		echo
		"$ROOT/bench/lb_pick" | tee "$OUT/lb-pick-$(date +%Y%m%d-%H%M%S).txt"
	fi
fi

# --- logging ------------------------------------------------------------------------
# The same load with "option httplog" sent to a UDP syslog sink on 127.0.0.1:PORT+9 (a
# python receiver that only counts), LOG_PAIRS (3) alternating pairs: req/s and CPU per
# request, ours vs theirs (LOG_BENCH=0 skips it).
if [ "${LOG_BENCH:-1}" != 0 ]; then
	LOG_SINK_PORT=$((PORT + 9))
	python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", int(sys.argv[1])))
s.settimeout(1.0); end = time.monotonic() + 3600
while time.monotonic() < end:
    try: s.recv(65536)
    except socket.timeout: pass' "$LOG_SINK_PORT" &
	LOG_SINK_PID=$!
	write_cfg "$TMP/proxy-log.cfg" 1
	sed -i -e "s|^\tnbthread 1|\tnbthread 1\n\tlog 127.0.0.1:$LOG_SINK_PORT local0|" \
		-e 's|^\tmode http|\tmode http\n\tlog global\n\toption httplog|' "$TMP/proxy-log.cfg"
	"$OURS" -c -q -f "$TMP/proxy-log.cfg" || die "$OURS rejects the httplog config"
	"$THEIRS" -c -q -f "$TMP/proxy-log.cfg" || die "$THEIRS rejects the httplog config"
	echo
	echo "option httplog to a UDP sink: ours vs theirs, same load, ${LOG_PAIRS:-3} pairs"
	SAVED_RESULTS=$RESULTS
	RESULTS=$TMP/results-log.tsv
	: >"$RESULTS"
	ab_pairs "${LOG_PAIRS:-3}" "$TMP/proxy-log.cfg"
	python3 "$ROOT/bench/summary.py" "$RESULTS"
	cat "$RESULTS" >>"$OUT/log-$(date +%Y%m%d-%H%M%S).tsv"
	RESULTS=$SAVED_RESULTS
	kill -TERM "$LOG_SINK_PID" 2>/dev/null || true
	wait "$LOG_SINK_PID" 2>/dev/null || true
fi

# --- connection close mode ------------------------------------------------------------
# Every client request on a new connection ("Connection: close"), roundrobin, nbthread 1,
# CLOSE_PAIRS (3) alternating pairs (CLOSE_BENCH=0 skips it). The proxy reuses idle
# server connections for these first requests when it can replay them (http-reuse safe).
if [ "${CLOSE_BENCH:-1}" != 0 ]; then
	echo
	echo "connection close mode (wrk -H 'Connection: close'): ours vs theirs, ${CLOSE_PAIRS:-3} pairs"
	SAVED_RESULTS=$RESULTS
	RESULTS=$TMP/results-close.tsv
	: >"$RESULTS"
	WRK_EXTRA="-H Connection:close"
	ab_pairs "${CLOSE_PAIRS:-3}"
	WRK_EXTRA=
	python3 "$ROOT/bench/summary.py" "$RESULTS"
	RESULTS=$SAVED_RESULTS
fi

# --- two threads ---------------------------------------------------------------------
# With 2 CPUs, a 2-thread proxy cannot have cores of its own: proxy, wrk (2 threads) and
# nginx all share every CPU. Ratios stay meaningful because both sides share them alike.
if [ "${THREADS_BENCH:-1}" != 0 ] && [ "$NCPU" -ge 2 ]; then
	ALL="0-$((NCPU - 1))"
	echo
	echo "nbthread 2: ours vs theirs; proxy, wrk -t2 and nginx all share CPUs $ALL" \
		"(no core of its own for anyone)"
	R2=$TMP/results-t2.tsv
	: >"$R2"
	RESULTS_SAVE=$RESULTS
	RESULTS=$R2
	for pair in $(seq 1 "$PAIRS"); do
		if [ $((pair % 2)) -eq 1 ]; then
			bench_one "$OURS" ours "$pair" "$TMP/proxy-t2.cfg" "$ALL" "$ALL" 2
			bench_one "$THEIRS" theirs "$pair" "$TMP/proxy-t2.cfg" "$ALL" "$ALL" 2
		else
			bench_one "$THEIRS" theirs "$pair" "$TMP/proxy-t2.cfg" "$ALL" "$ALL" 2
			bench_one "$OURS" ours "$pair" "$TMP/proxy-t2.cfg" "$ALL" "$ALL" 2
		fi
	done
	echo
	python3 "$ROOT/bench/summary.py" "$R2"

	echo
	echo "ours: 1 thread (t1) vs 2 threads in 1 group (t2g1) vs 2 groups of 1 thread (t2g2)," \
		"same sharing"
	R3=$TMP/results-groups.tsv
	: >"$R3"
	RESULTS=$R3
	for pair in $(seq 1 "$PAIRS"); do
		bench_one "$OURS" t1 "$pair" "$CFG" "$ALL" "$ALL" 2
		bench_one "$OURS" t2g1 "$pair" "$TMP/proxy-t2.cfg" "$ALL" "$ALL" 2
		bench_one "$OURS" t2g2 "$pair" "$TMP/proxy-t2g2.cfg" "$ALL" "$ALL" 2
	done
	echo
	python3 "$ROOT/bench/summary.py" "$R3" t2g1 t1
	python3 "$ROOT/bench/summary.py" "$R3" t2g2 t2g1
	RESULTS=$RESULTS_SAVE
	cat "$R2" "$R3" >>"$RESULTS"
fi

# --- instructions per request ----------------------------------------------------------
# Total Ir of one callgrind run of binary $1 serving $2 requests.
callgrind_ir() {
	local bin=$1 n=$2 f
	f="$TMP/cg.$(basename "$bin").$n"
	proxy_start "$bin" "valgrind -q --tool=callgrind --callgrind-out-file=$f" 120
	taskset -c "$CLIENT_CPU" python3 "$KACLIENT" run 127.0.0.1 "$PORT" "$n" ||
		die "$bin: client failed under callgrind"
	proxy_stop
	[ -s "$f" ] || die "$bin: no callgrind output"
	awk '/^(summary|totals):/ { s = $2 } END { print s }' "$f"
}

if [ "$CALLGRIND" != 0 ]; then
	echo
	echo "instructions per request (callgrind, $CG_REQUESTS keep-alive requests on one" \
		"connection, minus a startup-only run):"
	for side in ours theirs; do
		bin=$OURS
		[ $side = theirs ] && bin=$THEIRS
		base=$(callgrind_ir "$bin" 0)
		full=$(callgrind_ir "$bin" "$CG_REQUESTS")
		awk -v s=$side -v b="$base" -v f="$full" -v n="$CG_REQUESTS" 'BEGIN {
			printf "%-6s  startup Ir %d  run Ir %d  => %.0f instructions/request\n",
			       s, b, f, (f - b) / n }' | tee -a "$TMP/ir.txt"
	done
	awk '{ v[$1] = $NF == "instructions/request" ? $(NF - 1) : v[$1] }
	     END { if (v["theirs"] > 0)
			printf "ratio ours/theirs instructions/request: %.3f\n", v["ours"] / v["theirs"] }' \
		"$TMP/ir.txt"
fi

# --- rules: 100 ACL-guarded rules that do not match, and lookups in large lists ----------
# write_rules_cfg FILE: the benchmark config plus 100 http-request rules of mixed kinds
# (path_beg, hdr(host), src in a network list, a regex), none of which matches.
write_rules_cfg() {
	local i
	write_cfg "$1" 1
	for i in $(seq 0 9); do
		echo "10.$i.0.0/16"
		echo "192.168.$i.0/24"
	done >"$TMP/nets.lst"
	for i in $(seq 0 99); do
		case $((i % 10)) in
		0 | 1 | 2 | 3) echo "	http-request deny if { path_beg /never$i/ }" ;;
		4 | 5 | 6) echo "	http-request deny if { hdr(host) -i never$i.example }" ;;
		7 | 8) echo "	http-request deny if { src -f $TMP/nets.lst }" ;;
		9) echo "	http-request deny if { path_reg ^/never$i/[a-z]+\$ }" ;;
		esac
	done >"$TMP/rules.inc"
	sed -i "/^\tdefault_backend be/r $TMP/rules.inc" "$1"
}

# write_list_cfg FILE KIND N: a frontend whose one rule looks the client up in a list of N
# networks (KIND=ip) or the Host header up in a map of N keys (KIND=map), without a hit.
write_list_cfg() {
	local f=$1 kind=$2 n=$3
	write_cfg "$f" 1
	python3 - "$kind" "$n" "$TMP/list-$kind-$n" <<'PYEOF'
import random, sys
kind, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rnd = random.Random(n)
with open(path, "w") as out:
    for i in range(n):
        if kind == "ip":
            out.write("10.%d.%d.0/24\n" % (rnd.randrange(256), rnd.randrange(256)))
        else:
            out.write("host%d.example backend%d\n" % (i, i % 7))
PYEOF
	if [ "$kind" = ip ]; then
		sed -i "s|^\tdefault_backend be|\thttp-request deny if { src -f $TMP/list-ip-$n }\n&|" "$f"
	else
		sed -i "s|^\tdefault_backend be|\thttp-request set-header X-M %[req.hdr(host),map_str($TMP/list-map-$n,none)]\n&|" "$f"
	fi
}

# Ir per request of binary $1 on config $2.
rules_ir() {
	local bin=$1 cfg=$2 n=${RULES_CG_REQUESTS:-5000} f b t
	f="$TMP/cgr.$(basename "$bin")"
	proxy_start "$bin" "valgrind -q --tool=callgrind --callgrind-out-file=$f.0" 120 "$cfg"
	proxy_stop
	proxy_start "$bin" "valgrind -q --tool=callgrind --callgrind-out-file=$f.n" 120 "$cfg"
	taskset -c "$CLIENT_CPU" python3 "$KACLIENT" run 127.0.0.1 "$PORT" "$n" ||
		die "$bin: client failed under callgrind ($cfg)"
	proxy_stop
	b=$(awk '/^(summary|totals):/ { s = $2 } END { print s }' "$f.0")
	t=$(awk '/^(summary|totals):/ { s = $2 } END { print s }' "$f.n")
	awk -v b="$b" -v t="$t" -v n="$n" 'BEGIN { printf "%.0f", (t - b) / n }'
}

if [ "${RULES_BENCH:-1}" != 0 ] && command -v valgrind >/dev/null; then
	echo
	echo "rules: instructions per request (callgrind) with 100 non-matching ACL-guarded" \
		"rules (40 path_beg, 30 hdr(host), 20 src -f list, 10 path_reg) vs none:"
	write_rules_cfg "$TMP/rules.cfg"
	"$OURS" -c -q -f "$TMP/rules.cfg" || die "$OURS rejects $TMP/rules.cfg"
	for side in ours theirs; do
		bin=$OURS
		[ $side = theirs ] && bin=$THEIRS
		none=$(rules_ir "$bin" "$CFG")
		with=$(rules_ir "$bin" "$TMP/rules.cfg")
		echo "$side $none $with" >>"$TMP/rules.txt"
		printf '%-6s  no rules %6d  100 rules %6d  => %d instructions for 100 rules\n' \
			"$side" "$none" "$with" $((with - none))
	done
	awk '{ d[$1] = $3 - $2; w[$1] = $3 }
	     END { if (d["theirs"] > 0) printf "ratio ours/theirs: rules cost %.3f, whole " \
			"request with rules %.3f\n", d["ours"] / d["theirs"], w["ours"] / w["theirs"] }' \
		"$TMP/rules.txt"
	echo
	echo "lookups: instructions per request with one rule looking the client address up in" \
		"N networks (src -f) and the Host header in a map of N keys (map_str), no hit:"
	for kind in ip map; do
		for n in 1000 10000 100000; do
			write_list_cfg "$TMP/list-$kind-$n.cfg" $kind $n
			line="$kind N=$n"
			for side in ours theirs; do
				bin=$OURS
				[ $side = theirs ] && bin=$THEIRS
				line="$line  $side $(rules_ir "$bin" "$TMP/list-$kind-$n.cfg")"
			done
			echo "$line"
		done
	done
fi

# --- task profiling: instructions per request with profiling.tasks off and on -----------
if [ "${PROF_BENCH:-1}" != 0 ] && command -v valgrind >/dev/null; then
	echo
	echo "profiling: instructions per request (callgrind) with task profiling off (the" \
		"default, auto-off) and with profiling.tasks on:"
	sed 's|^global$|global\n\tprofiling.tasks on|' "$CFG" >"$TMP/prof.cfg"
	for side in ours theirs; do
		bin=$OURS
		[ $side = theirs ] && bin=$THEIRS
		off=$(rules_ir "$bin" "$CFG")
		on=$(rules_ir "$bin" "$TMP/prof.cfg")
		printf '%-6s  profiling off %6d  on %6d  => %+d instructions when on\n' \
			"$side" "$off" "$on" $((on - off))
	done
fi

# --- idle connections: memory and burst ------------------------------------------------
# One run of binary $1 labelled $2: IDLE_CONNS connections at once, one request each, then
# idle. Appends "label burst_s bytes_per_conn" to $IDLE_RES.
idle_one() {
	local bin=$1 label=$2 out
	proxy_start "$bin" "" 10
	# warm-up: pools, the first server connections, lazily allocated tables
	taskset -c "$CLIENT_CPU" python3 "$KACLIENT" run 127.0.0.1 "$PORT" 100 ||
		die "$label: warm-up failed"
	out=$(taskset -c "$CLIENT_CPU" python3 "$IDLECLIENT" 127.0.0.1 "$PORT" "$IDLE_CONNS" \
		"$PROXY_PID") || die "$label: idle connections run failed"
	proxy_stop
	printf '%-8s %s\n' "$label" "$out"
	awk -v l="$label" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		END { print l, v["burst_s"], v["bytes_per_conn"] }' <<<"$out" >>"$IDLE_RES"
}

if [ "$IDLE_BENCH" != 0 ]; then
	# the client holds IDLE_CONNS sockets, the proxy twice as many
	ulimit -n $((IDLE_CONNS * 2 + 4096)) || die "cannot raise the fd limit (ulimit -n)"
	echo
	echo "idle connections: $IDLE_CONNS clients connect at once, one keep-alive request" \
		"each through the proxy to nginx, then stay idle; $IDLE_RUNS runs per side"
	IDLE_RES=$TMP/idle.txt
	: >"$IDLE_RES"
	for run in $(seq 1 "$IDLE_RUNS"); do
		if [ $((run % 2)) -eq 1 ]; then
			idle_one "$OURS" ours
			idle_one "$THEIRS" theirs
		else
			idle_one "$THEIRS" theirs
			idle_one "$OURS" ours
		fi
	done
	python3 - "$IDLE_RES" <<'PYEOF'
import statistics, sys
v = {}
for line in open(sys.argv[1]):
    side, burst, per = line.split()
    v.setdefault(side, ([], []))
    v[side][0].append(float(burst))
    v[side][1].append(float(per))
o, t = v["ours"], v["theirs"]
for i, name in enumerate(("burst time (s)", "bytes per idle proxied conn")):
    a, b = statistics.median(o[i]), statistics.median(t[i])
    print("%-30s ours %10.3f  theirs %10.3f  ours/theirs %.3f" % (name, a, b, a / b))
PYEOF
	cp "$IDLE_RES" "$OUT/idle-$(date +%Y%m%d-%H%M%S).txt"
fi

# --- Lua rows: a trivial action and a hello-world service, Ir over no Lua and req/s --------
if [ "${BENCH_LUA:-1}" != 0 ]; then
	OURS=$OURS THEIRS=$THEIRS PORT=$PORT PROXY_CPU=$PROXY_CPU CLIENT_CPU=$CLIENT_CPU CONNS=$CONNS \
		CALLGRIND=$CALLGRIND "$ROOT/bench/lua.sh" || echo "bench: the Lua part failed (see above)"
fi

# --- cache rows: a cache hit, Ir per request ours vs haproxy, and req/s -------------------
if [ "${BENCH_CACHE:-1}" != 0 ]; then
	OURS=$OURS THEIRS=$THEIRS PORT=$PORT PROXY_CPU=$PROXY_CPU CLIENT_CPU=$CLIENT_CPU CONNS=$CONNS \
		CALLGRIND=$CALLGRIND "$ROOT/bench/cache.sh" || echo "bench: the cache part failed (see above)"
fi

# --- compression rows: a 100 KB HTML page compressed, sizes, req/s and CPU per response ----
if [ "${BENCH_COMP:-1}" != 0 ]; then
	OURS=$OURS THEIRS=$THEIRS PORT=$PORT PROXY_CPU=$PROXY_CPU CLIENT_CPU=$CLIENT_CPU \
		"$ROOT/bench/comp.sh" || echo "bench: the compression part failed (see above)"
fi

# --- mode tcp rows: 1 GiB transfers (with and without splice-auto), 64-byte echoes --------
if [ "${BENCH_TCP:-1}" != 0 ]; then
	OURS=$OURS THEIRS=$THEIRS PORT=$PORT PROXY_CPU=$PROXY_CPU CLIENT_CPU=$CLIENT_CPU \
		"$ROOT/bench/tcp.sh" || echo "bench: the mode tcp part failed (see above)"
fi

# --- TLS rows: keep-alive HTTPS, new and resumed handshakes, Ir outside libssl/libcrypto --
if [ "${BENCH_TLS:-1}" != 0 ]; then
	OURS=$OURS THEIRS=$THEIRS PORT=$PORT PROXY_CPU=$PROXY_CPU CLIENT_CPU=$CLIENT_CPU CONNS=$CONNS \
		CALLGRIND=$CALLGRIND "$ROOT/bench/tls.sh" || echo "bench: the TLS part failed (see above)"
fi

stamp=$(date +%Y%m%d-%H%M%S)
cp "$RESULTS" "$OUT/results-$stamp.tsv"
[ -f "$TMP/ir.txt" ] && cp "$TMP/ir.txt" "$OUT/ir-$stamp.txt"
echo
echo "raw results: $OUT/results-$stamp.tsv"
