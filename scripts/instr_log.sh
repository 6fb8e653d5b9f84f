#!/usr/bin/env bash
# instr_log.sh - user-space instructions per request that `option httplog` to a UDP syslog
# target costs: ../shared/tools/instr_per_req.sh's measure (callgrind, keep-alive, fixed
# request count) on its config plus "log 127.0.0.1:PORT local0" in global and "log global"
# + "option httplog" in defaults, a UDP sink counting the lines, for ours without and with
# logging and for Debian's haproxy with logging; then (STRACE=1, the default) the sendto
# calls per request of ours under strace -f -c on a bounded run of REQS requests.
# Usage: scripts/instr_log.sh [--candidate BIN] [--reference BIN] [--port-base P]
#        [--requests N]
# All processes started here are stopped by their PID; every wait is bounded.
set -u -o pipefail

cd "$(dirname "$0")/.."
TOOL=${INSTR_TOOL:-../shared/tools/instr_per_req.sh}
OURS=$PWD/haproxy
THEIRS=/usr/sbin/haproxy
PORT_BASE=29700
REQUESTS=5000
STRACE=${STRACE:-1}
REQS=${REQS:-200}
while [ $# -gt 0 ]; do
	case "$1" in
	--candidate) OURS=${2:?}; shift 2 ;;
	--reference) THEIRS=${2:?}; shift 2 ;;
	--port-base) PORT_BASE=${2:?}; shift 2 ;;
	--requests) REQUESTS=${2:?}; shift 2 ;;
	*) echo "usage: $0 [--candidate BIN] [--reference BIN] [--port-base P] [--requests N]" >&2
	   exit 2 ;;
	esac
done
[ -x "$TOOL" ] || { echo "instr_log: $TOOL not found" >&2; exit 2; }
LOG_PORT=$((PORT_BASE + 90))
WORK=$(mktemp -d /tmp/instrlog.XXXXXX)
PIDS=()
cleanup() {
	local p i
	for p in "${PIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
		for i in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

# the UDP sink: counts datagrams into $WORK/sink.count, exits after 30 minutes at most
cat >"$WORK/sink.py" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.settimeout(1.0)
n, end = 0, time.monotonic() + 1800
while time.monotonic() < end:
    try:
        s.recv(65536)
        n += 1
        if n % 100 == 0:
            open(sys.argv[2], "w").write("%d\n" % n)
    except socket.timeout:
        open(sys.argv[2], "w").write("%d\n" % n)
EOF
python3 "$WORK/sink.py" "$LOG_PORT" "$WORK/sink.count" &
PIDS+=($!)

# the measuring tool with the log lines added to the config it generates
sed -e 's|echo "  nbthread 1";|echo "  nbthread 1"; echo "  log 127.0.0.1:'"$LOG_PORT"' local0";|' \
    -e 's|echo "  option http-keep-alive"|echo "  option http-keep-alive"; echo "  log global"; echo "  option httplog"|' \
    "$TOOL" >"$WORK/instr_log_tool.sh"
chmod +x "$WORK/instr_log_tool.sh"
grep -q "option httplog" "$WORK/instr_log_tool.sh" || { echo "instr_log: cannot patch $TOOL" >&2; exit 2; }

irq() { awk '/Ir\/req=/ { for (i = 1; i <= NF; i++) if ($i ~ /^Ir\/req=/) { sub("Ir/req=", "", $i); print $i } }' "$1" | tail -1; }

"$TOOL" --reference "$OURS" --requests "$REQUESTS" --port-base "$PORT_BASE" >"$WORK/plain.txt" 2>&1
"$WORK/instr_log_tool.sh" --reference "$THEIRS" --candidate "$OURS" --requests "$REQUESTS" \
	--port-base $((PORT_BASE + 20)) >"$WORK/log.txt" 2>&1
plain=$(irq "$WORK/plain.txt")
theirs=$(awk '/^reference Ir=/ { for (i = 1; i <= NF; i++) if ($i ~ /^Ir\/req=/) { sub("Ir/req=", "", $i); print $i } }' "$WORK/log.txt")
ours=$(awk '/^candidate Ir=/ { for (i = 1; i <= NF; i++) if ($i ~ /^Ir\/req=/) { sub("Ir/req=", "", $i); print $i } }' "$WORK/log.txt")
echo "ours without logging: Ir/req=$plain"
echo "ours with httplog to UDP: Ir/req=$ours (+$((ours - plain)))"
echo "theirs with httplog to UDP: Ir/req=$theirs"
echo "log lines received by the sink: $(cat "$WORK/sink.count" 2>/dev/null || echo 0)"

if [ "$STRACE" = 1 ] && command -v strace >/dev/null; then
	FE=$((PORT_BASE + 40))
	python3 -m http.server $((FE + 1)) --bind 127.0.0.1 >/dev/null 2>&1 &
	PIDS+=($!)
	printf 'global\n  nbthread 1\n  log 127.0.0.1:%d local0\ndefaults\n  mode http\n  log global\n  option httplog\n  timeout client 5s\n  timeout server 5s\n  timeout connect 5s\nfrontend fe\n  bind 127.0.0.1:%d\n  default_backend be\nbackend be\n  server s1 127.0.0.1:%d\n' \
		"$LOG_PORT" "$FE" $((FE + 1)) >"$WORK/strace.cfg"
	strace -f -c -e trace=sendto,sendmsg,write -o "$WORK/strace.out" "$OURS" -f "$WORK/strace.cfg" &
	SPID=$!
	PIDS+=($SPID)
	sleep 1
	python3 - "$FE" "$REQS" <<'EOF'
import http.client, sys
port, n = int(sys.argv[1]), int(sys.argv[2])
c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
for _ in range(n):
    c.request("GET", "/")
    c.getresponse().read()
c.close()
EOF
	sleep 0.5
	kill -TERM "$SPID" 2>/dev/null
	for i in $(seq 1 50); do kill -0 "$SPID" 2>/dev/null || break; sleep 0.1; done
	echo "strace -c over $REQS keep-alive requests (sendto: log lines + requests to the server):"
	grep -E "sendto|sendmsg|write|calls" "$WORK/strace.out"
fi
