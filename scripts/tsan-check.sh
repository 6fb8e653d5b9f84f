#!/usr/bin/env bash
# `make tsan-check`: runs ./haproxy-tsan (built by `make tsan`) under a bounded threaded load
# and fails on any ThreadSanitizer report. One run per entry of TSAN_CHECK_RUNS
# ("THREADS:GROUPS", GROUPS 0 = no thread-groups line; default "4:0 4:2"): a foreground
# nginx backend on loopback, wrk keep-alive load through a queued backend, then a burst of
# new connections; the proxy is stopped by its PID with SIGTERM. Work files and logs go to
# build/tsan/check/. Knobs: TSAN_CHECK_RUNS, TSAN_CHECK_BIN, TSAN_CHECK_SECONDS.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${TSAN_CHECK_BIN:-./haproxy-tsan}
RUNS=${TSAN_CHECK_RUNS:-4:0 4:2}
SECS=${TSAN_CHECK_SECONDS:-5}
WORK=$PWD/build/tsan/check
NGINX=/usr/sbin/nginx
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 second_deadlock_stack=1"

for t in "$BIN" "$NGINX" wrk python3; do
	command -v "$t" >/dev/null || { echo "tsan-check: $t missing" >&2; exit 1; }
done

pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
	done
}
trap cleanup EXIT

# A port below the kernel's ephemeral range (32768 and up), so no outgoing connection's
# local port can take it before the proxy binds it.
free_port() {
	python3 -c 'import random, socket
for _ in range(1000):
    p = random.randrange(20000, 32768)
    try:
        socket.socket().bind(("127.0.0.1", p))
    except OSError:
        continue
    print(p)
    break'
}

# True while PID $1 runs (a zombie, exited but not yet reaped, counts as gone).
alive() {
	local st
	st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
	[ -n "$st" ] && [ "$st" != Z ]
}

# Waits (bounded, 20s: TSan start-up is slow) until 127.0.0.1:$1 accepts, while PID $2 lives.
wait_port() {
	local i
	for i in $(seq 200); do
		alive "$2" || return 1
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# Sends SIGTERM to PID $1 and waits (bounded) for it; SIGKILL and non-zero if it hangs.
stop_pid() {
	local i
	kill -TERM "$1" 2>/dev/null || true
	for i in $(seq 150); do
		alive "$1" || return 0
		sleep 0.1
	done
	kill -KILL "$1" 2>/dev/null || true
	return 1
}

rm -rf "$WORK"
mkdir -p "$WORK/ngx/tmp" "$WORK/ngx/www"
NGX_PORT=$(free_port)
cat >"$WORK/ngx/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $WORK/ngx/nginx.pid;
error_log $WORK/ngx/error.log warn;
events { worker_connections 1024; }
http {
	access_log off;
	client_body_temp_path $WORK/ngx/tmp/body;
	proxy_temp_path $WORK/ngx/tmp/proxy;
	fastcgi_temp_path $WORK/ngx/tmp/fcgi;
	uwsgi_temp_path $WORK/ngx/tmp/uwsgi;
	scgi_temp_path $WORK/ngx/tmp/scgi;
	keepalive_requests 100000;
	server {
		listen 127.0.0.1:$NGX_PORT;
		location / { return 200 "tsan backend\n"; }
	}
}
EOF
"$NGINX" -c "$WORK/ngx/nginx.conf" -p "$WORK/ngx" </dev/null >/dev/null 2>&1 &
NGX_PID=$!
pids+=("$NGX_PID")
wait_port "$NGX_PORT" "$NGX_PID" || { echo "tsan-check: nginx did not start" >&2; exit 1; }

# Opens $3 connections to 127.0.0.1:$1$2, 8 at a time, one request each with
# "Connection: close"; prints "ok=N bad=N".
burst() {
	python3 - "$1" "$2" "$3" <<'EOF'
import socket, sys
from concurrent.futures import ThreadPoolExecutor
port, path, n = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
def one(_):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"GET %s HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n" % path.encode())
            data = b""
            while True:
                d = s.recv(4096)
                if not d:
                    break
                data += d
        return data.startswith(b"HTTP/1.1 200")
    except OSError:
        return False
with ThreadPoolExecutor(8) as ex:
    res = list(ex.map(one, range(n)))
print("ok=%d bad=%d" % (res.count(True), res.count(False)))
EOF
}

# One run: $1 threads, $2 groups (0: no thread-groups line). Returns non-zero on failure.
run_one() {
	local nbt=$1 grp=$2 tag="t$1g$2" port lport cfg log pid st wrk_out burst_out ntask
	port=$(free_port)
	lport=$(free_port)
	cfg=$WORK/$tag.cfg
	log=$WORK/$tag.stderr
	{
		echo "global"
		echo "	nbthread $nbt"
		[ "$grp" -gt 0 ] && echo "	thread-groups $grp"
		cat <<EOF
defaults
	mode http
	timeout connect 5s
	timeout client 30s
	timeout server 30s
	timeout queue 10s

frontend fe
	bind 127.0.0.1:$port
	default_backend be

backend be
	balance roundrobin
	server s1 127.0.0.1:$NGX_PORT maxconn 6
	server s2 127.0.0.1:$NGX_PORT maxconn 6

listen local
	bind 127.0.0.1:$lport
	http-request return status 200 content-type text/plain string "local\n"
EOF
	} >"$cfg"
	if ! "$BIN" -c -f "$cfg" >"$WORK/$tag.check" 2>&1; then
		echo "tsan-check: [$tag] config refused by $BIN -c:" >&2
		sed 's/^/    /' "$WORK/$tag.check" >&2
		return 1
	fi
	"$BIN" -f "$cfg" </dev/null >"$WORK/$tag.stdout" 2>"$log" &
	pid=$!
	pids+=("$pid")
	if ! wait_port "$port" "$pid"; then
		echo "tsan-check: [$tag] proxy did not start; stderr:" >&2
		head -n 40 "$log" >&2
		return 1
	fi
	ntask=$(ls "/proc/$pid/task" | wc -l)
	wrk_out=$(wrk -t2 -c20 -d"${SECS}s" --timeout 10s "http://127.0.0.1:$port/" 2>&1 || true)
	burst_out=$(burst "$port" / 300)
	burst_out+=" local:$(burst "$lport" / 100)"
	st=0
	stop_pid "$pid" || { echo "tsan-check: [$tag] proxy ignored SIGTERM, killed" >&2; st=1; }
	wait "$pid" 2>/dev/null || st=$?
	echo "tsan-check: [$tag] nbthread $nbt, groups $grp: $ntask tasks;" \
		"wrk: $(grep -E 'requests in' <<<"$wrk_out" | sed 's/^ *//')" \
		"$(grep -E 'Non-2xx|Socket errors' <<<"$wrk_out" | tr -s ' ' | tr '\n' ' ')"
	echo "tsan-check: [$tag] burst: $burst_out; proxy exit status $st"
	if grep -q "WARNING: ThreadSanitizer" "$log" || [ "$st" = 66 ]; then
		echo "tsan-check: [$tag] FAIL: $(grep -c 'WARNING: ThreadSanitizer' "$log")" \
			"ThreadSanitizer report(s), full log $log; the first:" >&2
		awk '/WARNING: ThreadSanitizer/ { on = 1 } on { print "    " $0; n++ }
		     /^SUMMARY: ThreadSanitizer/ && on { exit } n > 80 { exit }' "$log" >&2
		return 1
	fi
	if ! grep -qE '^ +[1-9][0-9]* requests in' <<<"$wrk_out"; then
		echo "tsan-check: [$tag] FAIL: wrk completed no request:" >&2
		echo "$wrk_out" >&2
		return 1
	fi
	if grep -q 'Non-2xx' <<<"$wrk_out"; then
		echo "tsan-check: [$tag] FAIL: wrk got non-2xx responses" >&2
		return 1
	fi
	case "$burst_out" in
	*"bad=0"*"bad=0"*) ;;
	*) echo "tsan-check: [$tag] FAIL: some burst requests failed" >&2; return 1 ;;
	esac
	[ "$st" = 0 ] || { echo "tsan-check: [$tag] FAIL: exit status $st" >&2; return 1; }
}

fails=0
for r in $RUNS; do
	run_one "${r%%:*}" "${r##*:}" || fails=$((fails + 1))
done
stop_pid "$NGX_PID" || true
if [ "$fails" -ne 0 ]; then
	echo "tsan-check: $fails run(s) failed" >&2
	exit 1
fi
echo "tsan-check: OK (no ThreadSanitizer report)"
