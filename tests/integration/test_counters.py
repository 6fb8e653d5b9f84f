"""The `show stat` counters that dashboards alert on, after a known sequence of faults.

Owns: what each counter of the FRONTEND, server and BACKEND rows means (request and
response errors, connection errors, retries and redispatches, denials, aborts on either
side, interceptions, new and reused server connections, sessions, requests and responses
by class). Each scenario starts a proxy with a stats socket, an origin that misbehaves in
one chosen way, drives one fault sequence, and compares the CSV fields it names. The
expected values were taken from Debian's /usr/sbin/haproxy (2.6); run with
HAPROXY_BIN=/usr/sbin/haproxy to check the expectations themselves.

The proxy is never probed by connecting to its port before a scenario (an empty
connection is a counted request error in HAProxy): readiness is read from the stats socket.
"""

import os
import socket
import struct
import threading
import time

import httpc
import pytest
from conftest import IS_REF, cli, free_port
from rawserver import read_head, read_request

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
PARTIAL = b"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n0123456789"
GET = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n"


# --- origins: handler(sock, reader, conn_index), run per connection by RawServer ---

def wait_close(rd):
    """Block until the proxy closes its side (or the origin is stopped)."""
    for _ in range(1000):
        rd.read_some(65536)


def o_ok(s, rd, idx):
    for _ in range(1000):
        read_request(rd)
        s.sendall(ANSWER)


def o_silent(s, rd, idx):
    read_request(rd)
    wait_close(rd)


def o_garbage(s, rd, idx):
    read_request(rd)
    s.sendall(b"garbage\r\n\r\n")


def o_empty(s, rd, idx):
    read_request(rd)


def o_reset_mid(s, rd, idx):
    read_request(rd)
    s.sendall(PARTIAL)
    time.sleep(0.2)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))


def o_fin_mid(s, rd, idx):
    read_request(rd)
    s.sendall(PARTIAL)
    time.sleep(0.2)


def o_stall_mid(s, rd, idx):
    read_request(rd)
    s.sendall(PARTIAL)
    wait_close(rd)


def o_trickle(s, rd, idx):
    """Headers and a little body, then more every 0.2 s until the proxy stops taking it."""
    read_request(rd)
    s.sendall(PARTIAL)
    for _ in range(50):
        time.sleep(0.2)
        s.sendall(b"x" * 1000)


def o_continue(s, rd, idx):
    """Answers Expect: 100-continue with an interim response, then reads the body."""
    head, cl, _ = read_head(rd)
    s.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
    rd.read_exact(cl)
    s.sendall(ANSWER)
    wait_close(rd)


def o_drain(s, rd, idx):
    wait_close(rd)


def o_close_on_second(s, rd, idx):
    """The first connection answers one request, then closes on the next without a word;
    the others answer every request."""
    read_request(rd)
    s.sendall(ANSWER)
    if idx == 1:  # RawServer numbers its connections from 1
        read_request(rd)
        return
    o_ok(s, rd, idx)


def o_hold(s, rd, idx):
    read_request(rd)
    time.sleep(1.0)
    s.sendall(ANSWER)


# --- clients: act(port) ---

def gets(n=1, path="/", nconn=1, close=False):
    def act(port):
        for _ in range(nconn):
            with httpc.connect(port, 5) as s:
                rd = httpc.Reader(s)
                for _ in range(n):
                    hdr = "Connection: close\r\n" if close else ""
                    s.sendall(("GET %s HTTP/1.1\r\nHost: t\r\n%s\r\n" % (path, hdr)).encode())
                    httpc.read_response(rd)
    return act


def raw(data, hold=0.0):
    def act(port):
        with httpc.connect(port, 5) as s:
            if data:
                s.sendall(data)
            time.sleep(hold)
            httpc.recv_until_close(s, 3)
    return act


def probes(n):
    def act(port):
        for _ in range(n):
            socket.create_connection(("127.0.0.1", port), timeout=5).close()
    return act


def abort_mid_request(port):
    with httpc.connect(port, 5) as s:
        s.sendall(b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\nabc")
        time.sleep(0.4)


def abort_mid_response(port):
    with httpc.connect(port, 5) as s:
        s.sendall(GET)
        s.recv(10)
        time.sleep(0.2)


def expect_continue(port):
    with httpc.connect(port, 5) as s:
        s.sendall(b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n"
                  b"Expect: 100-continue\r\n\r\n")
        time.sleep(0.2)
        s.sendall(b"abc")
        httpc.recv_until_close(s, 1.0)


def queued(port):
    first = threading.Thread(target=gets(), args=(port,))
    first.start()
    time.sleep(0.3)
    gets()(port)
    first.join(5)


# Each scenario: origins (handler or None for a refused port, server options), frontend and
# backend lines (or a listen section), the client action, and the fields expected per row
# (FRONTEND, s1, s2..., BACKEND). Fields not named are not checked.
SCENARIOS = {
    "keepalive_reuse": dict(
        act=gets(3),
        expect={"FRONTEND": dict(stot=1, req_tot=3, hrsp_2xx=3, ereq=0),
                "s1": dict(stot=3, lbtot=3, connect=1, reuse=2, hrsp_2xx=3, req_tot=3),
                "BACKEND": dict(stot=3, req_tot=3, lbtot=3, connect=1, reuse=2, hrsp_2xx=3,
                                econ=0, eresp=0, wretr=0)}),
    # ours: the second client's first request (replayable) takes the idle connection,
    # which the server closes on it, and is sent again on a new one: one session of s1
    # (2.6's "safe" gives that request a connection of its own)
    "reuse_of_a_closed_connection": dict(
        origins=[(o_close_on_second, "")], act=gets(1, nconn=2),
        expect={"FRONTEND": dict(req_tot=2, hrsp_2xx=2),
                # (reuse is 0 when the second client lands on another thread than the
                # idle connection, or comes before it is parked: stot is 2 either way)
                "s1": dict(stot=2, hrsp_2xx=2),
                "BACKEND": dict(stot=2, hrsp_2xx=2)}),
    "reuse_across_clients": dict(  # connect/reuse: HAProxy's (see close_mode below)
        act=gets(2, nconn=2),
        expect={"FRONTEND": dict(stot=2, req_tot=4, hrsp_2xx=4),
                "s1": dict(stot=4, connect=2, reuse=2) if IS_REF else dict(stot=4),
                "BACKEND": dict(stot=4, connect=2, reuse=2) if IS_REF else dict(stot=4)}),
    # HAProxy's http-reuse safe opens a server connection for every first request; ours
    # lets a first GET take an idle one, since it can replay it (doc/configuration.md)
    "close_mode": dict(
        act=gets(1, nconn=3, close=True),
        # (how many reuse depends on whether the previous exchange's connection was
        # parked before the next client came: test_reuse.py checks the reuse itself)
        expect={"s1": dict(stot=3, connect=3, reuse=0) if IS_REF else dict(stot=3),
                "BACKEND": dict(stot=3, connect=3, reuse=0, hrsp_2xx=3) if IS_REF else
                dict(stot=3, hrsp_2xx=3)}),
    "refused_with_retries": dict(
        origins=[(None, "")], be=["retries 3"], act=gets(),
        expect={"FRONTEND": dict(req_tot=1, hrsp_5xx=1, ereq=0),
                "s1": dict(stot=4, lbtot=1, econ=1, wretr=3, wredis=0, connect=4,
                           hrsp_5xx=0, req_tot=0),
                "BACKEND": dict(stot=1, req_tot=1, lbtot=1, econ=1, wretr=3, wredis=0,
                                connect=4, hrsp_5xx=1, eresp=0)}),
    "refused_redispatch_single_server": dict(
        origins=[(None, "")], be=["retries 3", "option redispatch"], act=gets(),
        expect={"s1": dict(econ=1, wretr=3, wredis=0, connect=4),
                "BACKEND": dict(econ=1, wretr=3, wredis=0, hrsp_5xx=1)}),
    "redispatch_to_healthy": dict(
        origins=[(None, "weight 100"), (o_ok, "weight 1")],
        be=["retries 1", "option redispatch"], act=gets(),
        expect={"FRONTEND": dict(hrsp_2xx=1, hrsp_5xx=0),
                "s1": dict(stot=1, connect=1, econ=0, wretr=0, wredis=1),
                "s2": dict(stot=1, connect=1, hrsp_2xx=1, wredis=0),
                "BACKEND": dict(stot=1, econ=0, wretr=0, wredis=1, connect=2, hrsp_2xx=1)}),
    "server_timeout_504": dict(
        origins=[(o_silent, "")], be=["timeout server 300ms"], act=gets(),
        expect={"FRONTEND": dict(hrsp_5xx=1),
                "s1": dict(eresp=1, srv_abrt=0, hrsp_5xx=0, req_tot=0, connect=1),
                "BACKEND": dict(eresp=1, srv_abrt=0, hrsp_5xx=1, req_tot=1, econ=0)}),
    "invalid_response_502": dict(
        origins=[(o_garbage, "")], act=gets(),
        expect={"FRONTEND": dict(hrsp_5xx=1),
                "s1": dict(eresp=1, hrsp_5xx=0, req_tot=0),
                "BACKEND": dict(eresp=1, hrsp_5xx=1, srv_abrt=0)}),
    "empty_response_502": dict(
        origins=[(o_empty, "")], act=gets(),
        expect={"FRONTEND": dict(hrsp_5xx=1),
                "s1": dict(eresp=1, hrsp_5xx=0),
                "BACKEND": dict(eresp=1, hrsp_5xx=1)}),
    "server_reset_mid_response": dict(
        origins=[(o_reset_mid, "")], act=raw(GET),
        expect={"FRONTEND": dict(hrsp_2xx=1, hrsp_5xx=0),
                "s1": dict(eresp=1, srv_abrt=1, cli_abrt=0, hrsp_2xx=1, req_tot=1),
                "BACKEND": dict(eresp=1, srv_abrt=1, cli_abrt=0, hrsp_2xx=1)}),
    "server_close_mid_response": dict(
        origins=[(o_fin_mid, "")], act=raw(GET),
        expect={"s1": dict(eresp=1, srv_abrt=1, hrsp_2xx=1),
                "BACKEND": dict(eresp=1, srv_abrt=1, hrsp_2xx=1)}),
    "server_timeout_mid_response": dict(
        origins=[(o_stall_mid, "")], be=["timeout server 300ms"], act=raw(GET),
        expect={"FRONTEND": dict(hrsp_2xx=1, hrsp_5xx=0),
                "s1": dict(eresp=0, srv_abrt=1, hrsp_2xx=1),
                "BACKEND": dict(eresp=0, srv_abrt=1, hrsp_2xx=1)}),
    "client_abort_mid_request": dict(
        origins=[(o_drain, "")], act=abort_mid_request,
        expect={"FRONTEND": dict(req_tot=1, ereq=0, hrsp_other=1),
                "s1": dict(cli_abrt=1, srv_abrt=0, eresp=0),
                "BACKEND": dict(cli_abrt=1, hrsp_other=1, req_tot=1, eresp=0)}),
    "client_abort_mid_response": dict(
        origins=[(o_trickle, "")], act=abort_mid_response,
        expect={"FRONTEND": dict(hrsp_2xx=1, ereq=0),
                "s1": dict(cli_abrt=1, srv_abrt=0, eresp=0, hrsp_2xx=1),
                "BACKEND": dict(cli_abrt=1, srv_abrt=0, eresp=0, hrsp_2xx=1)}),
    "frontend_deny": dict(
        fe=["http-request deny"], act=gets(),
        expect={"FRONTEND": dict(dreq=1, req_tot=1, hrsp_4xx=1, ereq=0),
                "s1": dict(stot=0),
                "BACKEND": dict(dreq=0, stot=0, req_tot=0, hrsp_4xx=0)}),
    "backend_deny": dict(
        be=["http-request deny"], act=gets(),
        expect={"FRONTEND": dict(dreq=1, hrsp_4xx=1),
                "s1": dict(stot=0, lbtot=0),
                "BACKEND": dict(dreq=1, stot=1, req_tot=1, hrsp_4xx=1, connect=0)}),
    "listen_deny": dict(
        listen=True, fe=["http-request deny"], act=gets(),
        expect={"FRONTEND": dict(dreq=1, hrsp_4xx=1),
                "BACKEND": dict(dreq=0, stot=0, hrsp_4xx=0)}),
    "http_request_return": dict(
        fe=["http-request return status 200"], act=gets(),
        expect={"FRONTEND": dict(intercepted=1, hrsp_2xx=1, req_tot=1),
                "BACKEND": dict(stot=0, hrsp_2xx=0)}),
    "monitor_uri": dict(
        fe=["monitor-uri /mon"], act=gets(path="/mon"),
        expect={"FRONTEND": dict(intercepted=1, hrsp_2xx=1, req_tot=1),
                "BACKEND": dict(stot=0)}),
    "backend_response_deny": dict(
        be=["http-response deny"], act=gets(),
        expect={"FRONTEND": dict(dresp=1, hrsp_5xx=1),
                "s1": dict(dresp=1, eresp=0, hrsp_2xx=1, req_tot=1),
                "BACKEND": dict(dresp=1, eresp=0, hrsp_5xx=1, hrsp_2xx=0)}),
    "frontend_response_deny": dict(
        fe=["http-response deny"], act=gets(),
        expect={"FRONTEND": dict(dresp=1, hrsp_5xx=1),
                "s1": dict(dresp=1, eresp=0),
                "BACKEND": dict(dresp=1, eresp=0, hrsp_5xx=1)}),
    "bad_request_400": dict(
        act=raw(b"GET / HTTP/1.1\r\nHost: a\r\nHost b\r\n\r\n"),
        expect={"FRONTEND": dict(ereq=1, req_tot=1, hrsp_4xx=1),
                "BACKEND": dict(stot=0, req_tot=0)}),
    "empty_connections": dict(
        act=probes(3),
        expect={"FRONTEND": dict(stot=3, ereq=3, req_tot=3, hrsp_4xx=3)}),
    "partial_request": dict(
        act=raw(b"GET / HT", hold=0.2),
        expect={"FRONTEND": dict(ereq=1, req_tot=1, hrsp_4xx=1)}),
    "request_timeout_408": dict(
        fe=["timeout http-request 300ms"], act=raw(b"GET / HT"),
        expect={"FRONTEND": dict(ereq=1, req_tot=1, hrsp_4xx=1)}),
    "idle_first_request_timeout": dict(
        fe=["timeout http-request 300ms"], act=raw(b""),
        expect={"FRONTEND": dict(stot=1, ereq=1, req_tot=1, hrsp_4xx=1)}),
    "keepalive_idle_close_not_counted": dict(
        act=raw(GET, hold=0.3),
        expect={"FRONTEND": dict(stot=1, ereq=0, req_tot=1, hrsp_2xx=1, hrsp_4xx=0)}),
    "queue_timeout_503": dict(
        origins=[(o_hold, "maxconn 1")], be=["timeout queue 200ms"], act=queued,
        expect={"FRONTEND": dict(req_tot=2, hrsp_2xx=1, hrsp_5xx=1),
                "s1": dict(stot=1, lbtot=1, econ=0, hrsp_2xx=1),
                "BACKEND": dict(stot=2, req_tot=2, lbtot=1, econ=1, hrsp_2xx=1, hrsp_5xx=1)}),
    "queued_then_served": dict(
        origins=[(o_hold, "maxconn 1")], be=["timeout queue 5s"], act=queued,
        expect={"FRONTEND": dict(req_tot=2, hrsp_2xx=2),
                "s1": dict(stot=2, lbtot=1, connect=2, hrsp_2xx=2),
                "BACKEND": dict(stot=2, lbtot=1, qmax=1, econ=0, hrsp_2xx=2)}),
    "interim_100_continue": dict(
        origins=[(o_continue, "")], act=expect_continue,
        expect={"FRONTEND": dict(req_tot=1, hrsp_1xx=0, hrsp_2xx=1),
                "s1": dict(hrsp_1xx=1, hrsp_2xx=1, req_tot=2),
                "BACKEND": dict(req_tot=1, hrsp_1xx=0, hrsp_2xx=1)}),
    "no_usable_server_503": dict(
        origins=[(o_ok, "disabled")], act=gets(),
        expect={"FRONTEND": dict(hrsp_5xx=1),
                "s1": dict(stot=0, econ=0),
                "BACKEND": dict(stot=1, econ=1, hrsp_5xx=1)}),
}


def build_cfg(sock, port, ports, sc):
    srv = ["server s%d 127.0.0.1:%d %s" % (i + 1, p, opt) for i, (p, opt) in enumerate(ports)]
    lines = ["global", "    stats socket %s level admin" % sock,
             "defaults", "    mode http", "    timeout connect 500ms",
             "    timeout client 5s", "    timeout server 5s"]
    if sc.get("listen"):
        lines += ["listen px", "    bind 127.0.0.1:%d" % port]
        lines += ["    " + x for x in sc.get("fe", []) + sc.get("be", []) + srv]
    else:
        lines += ["frontend fe", "    bind 127.0.0.1:%d" % port]
        lines += ["    " + x for x in sc.get("fe", [])]
        lines += ["    default_backend be", "backend be"]
        lines += ["    " + x for x in sc.get("be", []) + srv]
    return "\n".join(lines) + "\n"


def stat_rows(sock):
    """{svname: {field: int}} for the rows of the scenario's proxies (empty field = 0)."""
    out = cli(str(sock), "show stat")
    lines = out.splitlines()
    names = lines[0][2:].split(",")
    rows = {}
    for ln in lines[1:]:
        vals = ln.split(",")
        if len(vals) < 3 or vals[0] not in ("fe", "be", "px"):
            continue
        row = {}
        for k, v in zip(names, vals):
            row[k] = int(v) if v.lstrip("-").isdigit() else (0 if v == "" else v)
        rows[vals[1]] = row
    return rows


def mismatches(rows, expect):
    bad = []
    for sv, fields in expect.items():
        for k, want in fields.items():
            got = rows.get(sv, {}).get(k, "missing")
            if got != want:
                bad.append("%s.%s=%s (want %s)" % (sv, k, got, want))
    return bad


def wait_ready(sock, proc, timeout=10.0):
    """The stats socket answers: the listeners are bound (both bind before serving)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        if os.path.exists(sock):
            try:
                if "pxname" in cli(str(sock), "show stat", timeout=1.0):
                    return True
            except OSError:
                pass
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_counters_after_fault(name, proxy, raw_server, tmp_path):
    sc = SCENARIOS[name]
    ports = []
    for i, (handler, opt) in enumerate(sc.get("origins", [(o_ok, "")])):
        ports.append((raw_server(handler, "s%d" % (i + 1)).port if handler else free_port(),
                      opt))
    sock = tmp_path / "stats.sock"
    port = free_port()
    p = proxy(build_cfg(sock, port, ports, sc))
    assert wait_ready(sock, p.proc), p.stderr()
    sc["act"](port)
    # counters move when each exchange ends: poll, bounded
    bad = []
    for _ in range(80):
        bad = mismatches(stat_rows(sock), sc["expect"])
        if not bad:
            break
        time.sleep(0.1)
    assert not bad, "%s: %s" % (name, ", ".join(bad))


def test_bytes_same_on_every_row(proxy, raw_server, tmp_path):
    """bin/bout count the client's bytes, on the frontend, backend and server rows alike
    (a failed exchange still counts its error page on the server it was for)."""
    ok = raw_server(o_ok, "s1")
    sock = tmp_path / "stats.sock"
    port = free_port()
    p = proxy(build_cfg(sock, port, [(ok.port, "")], {}))
    assert wait_ready(sock, p.proc), p.stderr()
    gets(3)(port)
    for _ in range(50):
        rows = stat_rows(sock)
        if rows["BACKEND"]["hrsp_2xx"] == 3 and rows["FRONTEND"]["hrsp_2xx"] == 3:
            break
        time.sleep(0.1)
    fe, s1, be = rows["FRONTEND"], rows["s1"], rows["BACKEND"]
    assert fe["bin"] >= len(GET) * 3 and fe["bout"] >= len(ANSWER) * 3
    assert (fe["bin"], fe["bout"]) == (s1["bin"], s1["bout"]) == (be["bin"], be["bout"])


def test_current_and_max_sessions_with_a_queue(proxy, raw_server, tmp_path):
    """Three requests for a server with maxconn 1: the backend counts its queued streams
    in scur (and smax), qcur/qmax count the queue, the server never exceeds its limit."""
    srv = raw_server(o_hold, "s1")
    sock = tmp_path / "stats.sock"
    port = free_port()
    p = proxy(build_cfg(sock, port, [(srv.port, "maxconn 1")], {"be": ["timeout queue 5s"]}))
    assert wait_ready(sock, p.proc), p.stderr()
    clients = [threading.Thread(target=gets(), args=(port,)) for _ in range(3)]
    for t in clients:
        t.start()
    during = {"FRONTEND": dict(scur=3, smax=3),
              "s1": dict(scur=1, smax=1),
              "BACKEND": dict(qcur=2, qmax=2, scur=3, smax=3)}
    bad = []
    for _ in range(40):
        bad = mismatches(stat_rows(sock), during)
        if not bad:
            break
        time.sleep(0.05)
    for t in clients:
        t.join(10)
    assert not bad, ", ".join(bad)
    after = {"FRONTEND": dict(scur=0, smax=3, stot=3),
             "s1": dict(scur=0, smax=1, stot=3, hrsp_2xx=3),
             "BACKEND": dict(qcur=0, qmax=2, scur=0, smax=3, stot=3, hrsp_2xx=3)}
    for _ in range(50):
        bad = mismatches(stat_rows(sock), after)
        if not bad:
            break
        time.sleep(0.1)
    assert not bad, ", ".join(bad)


@pytest.mark.ours  # what makes a rewrite fail differs: here the header table, there HTX room
def test_failed_rewrite_is_wrew_and_eint(proxy, raw_server, tmp_path):
    """A header rewrite that finds no room fails the request with a 500, counted in wrew and
    eint of the frontend (whose rule failed), as HAProxy counts failed rewrites."""
    ok = raw_server(o_ok, "s1")
    sock = tmp_path / "stats.sock"
    port = free_port()
    adds = ["http-request add-header X-Add-%d a" % i for i in range(40)]
    p = proxy(build_cfg(sock, port, [(ok.port, "")], {"fe": adds}))
    assert wait_ready(sock, p.proc), p.stderr()
    hdrs = "".join("X-H%d: v\r\n" % i for i in range(99))
    data, _ = httpc.exchange(port, ("GET / HTTP/1.1\r\nHost: t\r\n%s\r\n" % hdrs).encode())
    assert data.startswith(b"HTTP/1.1 500")
    expect = {"FRONTEND": dict(wrew=1, eint=1, hrsp_5xx=1, req_tot=1),
              "s1": dict(wrew=0, eint=0, stot=0),
              "BACKEND": dict(wrew=0, eint=0, stot=0)}
    for _ in range(50):
        bad = mismatches(stat_rows(sock), expect)
        if not bad:
            break
        time.sleep(0.1)
    assert not bad, ", ".join(bad)
