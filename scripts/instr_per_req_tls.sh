#!/usr/bin/env bash
# instr_per_req_tls.sh - user-space instructions (callgrind Ir) executed by the proxy per
# keep-alive HTTPS request, outside libssl and libcrypto (TLS row 4 of `make bench`).
#
# Usage:
#   instr_per_req_tls.sh [--candidate BIN] [--reference BIN] [--requests N] [--warmup N]
#                        [--conns C] [--port-base P] [--proxy-cpu N] [--client-cpu N]
#                        [--keep] [--help]
#
# The TLS variant of ../shared/tools/instr_per_req.sh. For each binary (reference first,
# then candidate if given): nginx on 127.0.0.1:P+1..P+4, an RSA-2048 certificate made
# with the openssl CLI (temporary, never kept), `valgrind --tool=callgrind BIN -f CFG`
# (nbthread 1, `bind 127.0.0.1:P ssl crt ... ssl-min-ver TLSv1.3 ciphersuites
# TLS_AES_256_GCM_SHA384`, HTTP/1.1 to the 4 servers). A python3 client (ssl module)
# opens C TLS connections and sends --warmup requests spread over them (the handshakes
# and first requests), then waits; the counters are zeroed (`callgrind_control -z`), the
# client sends exactly --requests keep-alive requests over the same connections, the
# counters are dumped (`callgrind_control -d`) and the dump's self cost is summed per
# object: Ir/req outside libssl*/libcrypto* (the proxy's own work: event loop, HTTP,
# buffers, libc...), and the libssl+libcrypto part for reference.
# Final line: "ratio candidate/reference Ir/req outside libssl/libcrypto: X".
# All started processes are tracked by PID and stopped on exit; all waits are bounded.
set -u -o pipefail

CANDIDATE=""
REFERENCE=/usr/sbin/haproxy
REQUESTS=2000
WARMUP=200
CONNS=8
PORT_BASE=18200
PCPU=0
LCPU=""
KEEP=0

usage() { awk 'NR>1 && /^#/ {sub(/^# ?/, ""); print; next} NR>1 {exit}' "$0"; }
die() { echo "instr_per_req_tls: ERROR: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case "$1" in
	--candidate) CANDIDATE=${2:?}; shift 2 ;;
	--reference) REFERENCE=${2:?}; shift 2 ;;
	--requests) REQUESTS=${2:?}; shift 2 ;;
	--warmup) WARMUP=${2:?}; shift 2 ;;
	--conns) CONNS=${2:?}; shift 2 ;;
	--port-base) PORT_BASE=${2:?}; shift 2 ;;
	--proxy-cpu) PCPU=${2:?}; shift 2 ;;
	--client-cpu) LCPU=${2:?}; shift 2 ;;
	--keep) KEEP=1; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; die "unknown argument: $1" ;;
	esac
done
isint() { [[ "$1" =~ ^[0-9]+$ ]]; }
isint "$REQUESTS" && [ "$REQUESTS" -ge 100 ] && [ "$REQUESTS" -le 1000000 ] || die "--requests 100..1000000"
isint "$CONNS" && [ "$CONNS" -ge 1 ] && [ "$CONNS" -le 256 ] || die "--conns 1..256"
isint "$WARMUP" && [ "$WARMUP" -ge "$CONNS" ] && [ "$WARMUP" -le 100000 ] ||
	die "--warmup $CONNS..100000 (at least one request per connection)"
isint "$PORT_BASE" && [ "$PORT_BASE" -ge 1024 ] && [ "$PORT_BASE" -le 65530 ] || die "--port-base 1024..65530"
for t in valgrind callgrind_control nginx taskset openssl; do
	command -v $t >/dev/null || die "$t not found"
done
PY=/usr/bin/python3
[ -x $PY ] || PY=$(command -v python3) || die "python3 not found"
[ -x "$REFERENCE" ] || die "reference not executable: $REFERENCE"
[ -z "$CANDIDATE" ] || [ -x "$CANDIDATE" ] || die "candidate not executable: $CANDIDATE"
NCPU=$(nproc)
isint "$PCPU" && [ "$PCPU" -lt "$NCPU" ] || die "--proxy-cpu 0..$((NCPU - 1))"
if [ -z "$LCPU" ]; then
	if [ "$NCPU" -ge 2 ]; then LCPU=1-$((NCPU - 1)); else LCPU=0; fi
fi
FE_PORT=$PORT_BASE
SUITE=TLS_AES_256_GCM_SHA384

PIDS=()
WORK=$(mktemp -d /tmp/instrtls.XXXXXX) || die "mktemp"
stop_pid() {
	local p=$1 i
	kill -0 "$p" 2>/dev/null || { wait "$p" 2>/dev/null; return 0; }
	kill -TERM "$p" 2>/dev/null
	for i in $(seq 1 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done # valgrind exits slowly
	kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	return 0
}
forget_pid() {
	local p=$1 i
	for i in "${!PIDS[@]}"; do [ "${PIDS[$i]}" = "$p" ] && unset 'PIDS[i]'; done
}
cleanup() {
	local p
	trap - EXIT INT TERM
	for p in "${PIDS[@]}"; do stop_pid "$p"; done
	PIDS=()
	if [ "$KEEP" = 1 ]; then echo "# work dir kept: $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'echo "instr_per_req_tls: interrupted" >&2; exit 130' INT TERM
start_bg() {
	local cpus=$1 log=$2
	shift 2
	taskset -c "$cpus" "$@" >"$WORK/$log.out" 2>"$WORK/$log.err" </dev/null &
	STARTED_PID=$!
	PIDS+=("$STARTED_PID")
}
# probe PORT tls|plain: one GET answered 200
probe() {
	if [ "$2" = tls ]; then
		timeout 5 "$PY" -c 'import socket, ssl, sys
c = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT); c.check_hostname = False; c.verify_mode = ssl.CERT_NONE
s = c.wrap_socket(socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=4))
s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
sys.exit(0 if s.recv(64).startswith(b"HTTP/1.1 200") else 1)' "$1" 2>/dev/null
	else
		timeout 5 bash -c 'exec 3<>/dev/tcp/127.0.0.1/'"$1"' || exit 1
			printf "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" >&3
			IFS= read -r line <&3 || exit 1
			case "$line" in "HTTP/1."?" 200"*) exit 0;; *) exit 1;; esac' 2>/dev/null
	fi
}
wait_ready() {
	local i
	for i in $(seq 1 "$4"); do
		kill -0 "$2" 2>/dev/null || { cat "$WORK"/*.err >&2; die "$3 died at startup"; }
		probe "$1" "$5" && return 0
		sleep 0.2
	done
	die "$3 not ready on port $1"
}

for port in $(seq "$FE_PORT" $((FE_PORT + 4))); do
	[ -z "$(ss -Hltn "sport = :$port" 2>/dev/null)" ] || die "port $port in use (try --port-base)"
done

# ---- backend: nginx, native speed, on the client cpus
mkdir -p "$WORK/nginx"
LISTENS=""
for i in 1 2 3 4; do LISTENS+="    listen 127.0.0.1:$((FE_PORT + i));"$'\n'; done
cat >"$WORK/nginx/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 100000000;
  keepalive_timeout 300s;
  client_body_temp_path $WORK/nginx/cb; proxy_temp_path $WORK/nginx/pt;
  fastcgi_temp_path $WORK/nginx/ft; uwsgi_temp_path $WORK/nginx/ut; scgi_temp_path $WORK/nginx/st;
  server {
$LISTENS
    location / { default_type text/plain; return 200 "ok\n"; }
  }
}
EOF
start_bg "$LCPU" nginx nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/error.log"
wait_ready $((FE_PORT + 1)) "$STARTED_PID" nginx 50 plain

# ---- certificate and proxy config (nbthread 1: valgrind serialises threads anyway)
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=bench.local -keyout "$WORK/key.pem" \
	-out "$WORK/cert.pem" 2>"$WORK/openssl.err" ||
	die "openssl req failed: $(head -1 "$WORK/openssl.err")"
cat "$WORK/cert.pem" "$WORK/key.pem" >"$WORK/bench.pem"
{
	echo "global"; echo "  nbthread 1"; echo "  maxconn 1000"
	echo "defaults"; echo "  mode http"; echo "  timeout connect 5s"; echo "  timeout client 300s"
	echo "  timeout server 300s"; echo "  option http-keep-alive"
	echo "frontend fe"
	echo "  bind 127.0.0.1:$FE_PORT ssl crt $WORK/bench.pem ssl-min-ver TLSv1.3 ciphersuites $SUITE"
	echo "  default_backend be"
	echo "backend be"; echo "  balance roundrobin"
	for i in 1 2 3 4; do echo "  server s$i 127.0.0.1:$((FE_PORT + i))"; done
} >"$WORK/proxy.cfg"
for b in "$REFERENCE" $CANDIDATE; do
	"$b" -c -f "$WORK/proxy.cfg" >"$WORK/check.out" 2>&1 ||
		die "$b rejects the TLS config: $(grep -m1 -E 'ALERT|rror' "$WORK/check.out")"
done

# ---- client: C TLS connections, WARMUP requests, "ready" file, waits for the "go" file,
# then exactly REQUESTS keep-alive requests over the same connections; prints
# "OK <n_200> <n_other> <handshakes during the counted part>"
cat >"$WORK/client.py" <<'EOF'
import os, socket, ssl, sys, threading, time
port, total, conns, warm, ready, go = (int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]),
                                       int(sys.argv[4]), sys.argv[5], sys.argv[6])
req = b"GET / HTTP/1.1\r\nHost: bench.local\r\n\r\n"
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE
ctx.minimum_version = ssl.TLSVersion.TLSv1_3
lock = threading.Lock()
left, ok, bad, reconnects = [0], [0], [0], [0]
def read_resp(f):
    status = f.readline()
    if not status:
        raise IOError("eof")
    clen = 0
    while True:
        h = f.readline()
        if h in (b"\r\n", b"\n", b""):
            break
        k, _, v = h.partition(b":")
        if k.strip().lower() == b"content-length":
            clen = int(v.strip())
    f.read(clen)
    return status.split(b" ")[1] == b"200"
def connect():
    s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=120))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s, s.makefile("rb")
def take():
    with lock:
        if left[0] <= 0:
            return False
        left[0] -= 1
        return True
def worker(c):
    while take():
        try:
            if c[0] is None:
                c[0], c[1] = connect()
                with lock:
                    reconnects[0] += 1
            c[0].sendall(req)
            good = read_resp(c[1])
        except Exception:
            good = False
            if c[0] is not None:
                c[0].close()
            c[0] = None
        with lock:
            if good: ok[0] += 1
            else: bad[0] += 1
def run(cs, n):
    left[0] = n
    ts = [threading.Thread(target=worker, args=(c,)) for c in cs]
    for t in ts: t.start()
    for t in ts: t.join()
cs = [list(connect()) for _ in range(conns)]
run(cs, warm)
if bad[0]:
    print("FAIL warm-up: %d failed" % bad[0]); sys.exit(1)
ok[0] = bad[0] = reconnects[0] = 0
open(ready, "w").close()
end = time.monotonic() + 300
while not os.path.exists(go):
    if time.monotonic() > end:
        print("FAIL no go"); sys.exit(1)
    time.sleep(0.05)
run(cs, total)
for c in cs:
    if c[0] is not None: c[0].close()
print("OK %d %d %d" % (ok[0], bad[0], reconnects[0]))
EOF

# ---- per-object self cost of a callgrind dump: prints "<total> <libssl+libcrypto>"
cat >"$WORK/irsplit.py" <<'EOF'
import os, re, sys
names = {}            # compressed ob/cob ids -> object path
name_re = re.compile(r"^\((\d+)\)(?:\s+(.*))?$")
def objname(v):
    m = name_re.match(v.strip())
    if not m:
        return v.strip()
    if m.group(2) is not None:
        names[m.group(1)] = m.group(2)
    return names.get(m.group(1), "?")
total = ssl = 0
totals = None
for path in sys.argv[1:]:
    ob, skip = "?", False
    with open(path, errors="replace") as f:
        for line in f:
            c = line[0] if line else ""
            if c.isdigit() or c in "+-*":
                if skip:          # the inclusive cost of a call: not this function's own
                    skip = False
                    continue
                parts = line.split()
                ir = int(parts[1]) if len(parts) > 1 else 0
                total += ir
                base = os.path.basename(ob)
                if base.startswith("libssl") or base.startswith("libcrypto"):
                    ssl += ir
            elif line.startswith("ob="):
                ob = objname(line[3:])
            elif line.startswith("cob="):
                objname(line[4:])
            elif line.startswith("calls="):
                skip = True
            elif line.startswith("totals:"):
                totals = (totals or 0) + int(line.split()[1])
# "totals:" is the sum of the cost lines; "summary:" is lower after callgrind_control -z
# (a warm-up + N run minus a warm-up-only run agrees with totals, not with summary)
if totals is not None and totals != total:
    sys.stderr.write("irsplit: self costs sum to %d, the dump says %d\n" % (total, totals))
print(total, ssl)
EOF

# measure LABEL BIN -> prints a line, sets IRPR (outside ssl libs)
measure() {
	local label=$1 bin=$2 pid out f files ir ssl n ok bad rec i
	out="$WORK/cg.$label"
	rm -f "$WORK/ready" "$WORK/go"
	start_bg "$PCPU" "vg-$label" valgrind --tool=callgrind --callgrind-out-file="$out.%p" \
		--dump-instr=no --collect-jumps=no "$bin" -f "$WORK/proxy.cfg"
	pid=$STARTED_PID
	wait_ready "$FE_PORT" "$pid" "$label under valgrind" 300 tls
	timeout 1200 "$PY" "$WORK/client.py" "$FE_PORT" "$REQUESTS" "$CONNS" "$WARMUP" "$WORK/ready" \
		"$WORK/go" >"$WORK/client-$label.txt" 2>&1 </dev/null &
	local cpid=$!
	PIDS+=("$cpid")
	for i in $(seq 1 3000); do
		[ -e "$WORK/ready" ] && break
		kill -0 "$cpid" 2>/dev/null || break
		sleep 0.1
	done
	[ -e "$WORK/ready" ] ||
		die "$label: client did not finish its warm-up: $(cat "$WORK/client-$label.txt")"
	timeout 60 callgrind_control -z "$pid" >/dev/null 2>&1 || die "callgrind_control -z failed (pid $pid)"
	: >"$WORK/go"
	wait "$cpid"
	forget_pid "$cpid"
	read -r _ ok bad rec <"$WORK/client-$label.txt" || true
	timeout 60 callgrind_control -d "$pid" >/dev/null 2>&1 || die "callgrind_control -d failed"
	files=""
	for i in $(seq 1 100); do
		files=$(ls "$out.$pid".* 2>/dev/null)
		[ -n "$files" ] && break
		sleep 0.1
	done
	[ -n "$files" ] || die "no callgrind dump for $label"
	# shellcheck disable=SC2086 # one word per dump file
	read -r ir ssl < <("$PY" "$WORK/irsplit.py" $files)
	stop_pid "$pid"
	forget_pid "$pid"
	[ "${ok:-0}" -eq "$REQUESTS" ] ||
		echo "instr_per_req_tls: WARNING: $label: only ${ok:-0}/$REQUESTS requests got 200" \
			"(${bad:-?} failed)" >&2
	[ "${rec:-0}" -eq 0 ] ||
		echo "instr_per_req_tls: WARNING: $label: $rec new connections (handshakes) in the" \
			"counted part" >&2
	n=${ok:-0}
	[ "$n" -gt 0 ] || die "$label: no successful request ($(cat "$WORK/client-$label.txt"))"
	IRPR=$(awk -v ir="$ir" -v s="$ssl" -v n="$n" 'BEGIN{printf "%.0f", (ir - s) / n}')
	printf "%-9s Ir=%s libssl+libcrypto=%s requests=%s failed=%s Ir/req outside=%s ssl-libs=%s (%s)\n" \
		"$label" "$ir" "$ssl" "$n" "${bad:-?}" "$IRPR" \
		"$(awk -v s="$ssl" -v n="$n" 'BEGIN{printf "%.0f", s / n}')" \
		"$("$bin" -v 2>/dev/null | head -1)"
}

echo "# instr_per_req_tls $(date -u +%Y-%m-%dT%H:%M:%SZ) $(valgrind --version) conns=$CONNS" \
	"requests=$REQUESTS warmup=$WARMUP TLSv1.3 $SUITE RSA-2048 nbthread=1"
measure reference "$REFERENCE"
R=$IRPR
if [ -n "$CANDIDATE" ]; then
	measure candidate "$CANDIDATE"
	C=$IRPR
	echo "ratio candidate/reference Ir/req outside libssl/libcrypto:" \
		"$(awk -v c="$C" -v r="$R" 'BEGIN{printf "%.3f", c/r}')"
fi
