"""Queue priorities: `set-priority-class` (lower classes are served first) and
`set-priority-offset` (within a class, the queue date plus the offset orders the streams)
in `http-request` and `tcp-request content`, the `prio_class` / `prio_offset` fetches
(clamped values, 2.6's reading of large numbers), `maxqueue` with priorities, and the
configuration errors.

Owns: the order in which a `maxconn 1` server receives queued requests. Runs against
Debian's haproxy too (reference mode): the expectations are 2.6's.
"""

import socket
import threading
import time

import pytest

from conftest import free_port, make_cfg, run_haproxy
from httpc import get

PRIO_RULES = ["http-request set-priority-class req.hdr(c) if { req.hdr(c) -m found }",
              "http-request set-priority-offset req.hdr(o) if { req.hdr(o) -m found }"]


def queued_order(port, backend, reqs, spacing, hold=2.5):
    """A request holding the only slot for <hold> s, then <reqs> (path, headers) sent
    <spacing> s apart while it is served. Returns (statuses by path, paths in the order
    the server received them, without the holder's)."""
    res = {}

    def one(path, headers):
        try:
            res[path] = get(port, path, headers, timeout=20).status
        except Exception as e:  # noqa: BLE001 - reported in the assertion
            res[path] = repr(e)
    ts = [threading.Thread(target=one, args=("/hold?delay=%s" % hold, ()))]
    ts[0].start()
    deadline = time.monotonic() + 5  # the holder reaches the server first (bounded wait)
    while not any(r.path == "/hold" for r in list(backend.requests)):
        assert time.monotonic() < deadline, "the holder never reached the server"
        time.sleep(0.02)
    for path, headers in reqs:
        t = threading.Thread(target=one, args=(path, headers))
        ts.append(t)
        t.start()
        time.sleep(spacing)
    for t in ts:
        t.join(25)
    paths = [r.path for r in backend.requests]
    assert paths and paths[0] == "/hold", paths
    return res, paths[1:]


def prio_proxy(proxy, backend, rules=PRIO_RULES, extra=()):
    port = free_port()
    proxy(make_cfg(port, [backend], listen=["timeout queue 20s"] + list(rules) + list(extra),
                   srv_opts="maxconn 1"), ports=[port])
    return port


def test_lower_class_first_same_class_in_arrival_order(proxy, backend):
    port = prio_proxy(proxy, backend)
    reqs = [("/c5a", [("c", "5")]), ("/c0", []), ("/cm3", [("c", "-3")]),
            ("/c5b", [("c", "5")]), ("/c1", [("c", "1")])]
    res, order = queued_order(port, backend, reqs, 0.1)
    assert all(v == 200 for v in res.values()), res
    assert order == ["/cm3", "/c0", "/c1", "/c5a", "/c5b"]


def test_offset_moves_within_the_class(proxy, backend):
    """Keys are date + offset: p3 (-5 s) first, p2 (+5 s) last, p5 (-1 s, 400 ms after
    p4 and 1.6 s after p1) between p1 and p4 (600 ms of margin either way)."""
    port = prio_proxy(proxy, backend)
    reqs = [("/p1", []), ("/p2", [("o", "5000")]), ("/p3", [("o", "-5000")]),
            ("/p4", []), ("/p5", [("o", "-1000")])]
    res, order = queued_order(port, backend, reqs, 0.4, hold=4.0)
    assert all(v == 200 for v in res.values()), res
    assert order == ["/p3", "/p1", "/p5", "/p4", "/p2"]


def test_class_before_offset(proxy, backend):
    port = prio_proxy(proxy, backend)
    reqs = [("/x", [("c", "1"), ("o", "-100000")]), ("/y", [("o", "100000")]),
            ("/z", [("c", "-1"), ("o", "100000")]), ("/w", [("c", "0"), ("o", "0")])]
    res, order = queued_order(port, backend, reqs, 0.1)
    assert all(v == 200 for v in res.values()), res
    assert order == ["/z", "/w", "/y", "/x"]


def test_tcp_request_content_in_http_mode(proxy, backend):
    rules = ["tcp-request content set-priority-class req.hdr(c) if { req.hdr(c) -m found }"]
    port = prio_proxy(proxy, backend, rules)
    reqs = [("/a", [("c", "2")]), ("/b", []), ("/c", [("c", "-2")])]
    res, order = queued_order(port, backend, reqs, 0.1)
    assert all(v == 200 for v in res.values()), res
    assert order == ["/c", "/b", "/a"]


def raw_exchange(port, path, out, key):
    """One request over a fresh connection in mode tcp; closes once answered."""
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=20)
        s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path.encode())
        data = b""
        deadline = time.time() + 20
        while time.time() < deadline:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
        s.close()
        out[key] = data.split(b"\r\n", 1)[0]
    except OSError as e:
        out[key] = repr(e)


def test_mode_tcp_class_by_listening_port(proxy, backend):
    """tcp-request content in mode tcp: the class comes from the port the client used."""
    p0, p1, p2 = free_port(), free_port(), free_port()
    cfg = "\n".join([
        "defaults", "    mode tcp", "    timeout connect 2s", "    timeout client 20s",
        "    timeout server 20s", "    timeout queue 20s",
        "listen l", "    bind 127.0.0.1:%d" % p0, "    bind 127.0.0.1:%d" % p1,
        "    bind 127.0.0.1:%d" % p2,
        "    tcp-request content set-priority-class int(7) if { dst_port %d }" % p1,
        "    tcp-request content set-priority-class int(-7) if { dst_port %d }" % p2,
        "    server s1 127.0.0.1:%d maxconn 1" % backend.port]) + "\n"
    proxy(cfg, ports=[p0, p1, p2])
    out = {}
    plan = [(p0, "/hold?delay=1.2"), (p1, "/seven"), (p0, "/zero"), (p2, "/minus")]
    ts = []
    for i, (p, path) in enumerate(plan):
        t = threading.Thread(target=raw_exchange, args=(p, path, out, path))
        ts.append(t)
        t.start()
        time.sleep(0.3 if i == 0 else 0.1)
    for t in ts:
        t.join(25)
    assert all(v == b"HTTP/1.1 200 OK" for v in out.values()), out
    assert [r.path for r in backend.requests] == ["/hold", "/minus", "/zero", "/seven"]


def test_maxqueue_of_a_hashed_server_with_priorities(proxy, backend):
    """The queue of the server a key hashes to keeps its limit; the admitted ones go in
    priority order."""
    port = free_port()
    proxy(make_cfg(port, [backend], listen=["balance source", "timeout queue 20s"] +
                   PRIO_RULES, srv_opts="maxconn 1 maxqueue 2"), ports=[port])
    reqs = [("/b", [("c", "3")]), ("/c", [("c", "-3")]), ("/d", [("c", "-9")])]
    res, order = queued_order(port, backend, reqs, 0.1)
    assert res["/d"] == 503, res  # the server's queue was full: no place, whatever its class
    assert res["/b"] == 200 and res["/c"] == 200, res
    assert order == ["/c", "/b"]


@pytest.mark.parametrize("hdrs,want", [
    ([], "0/0"),
    ([("c", "12"), ("o", "-250")], "12/-250"),
    ([("c", "3000"), ("o", "-1000000")], "2047/-524287"),
    ([("c", "-3000"), ("o", "524288")], "-2047/524287"),
    ([("c", "4294967297"), ("o", "2147483648")], "1/-524287"),  # the low 32 bits, signed
    ([("c", "abc"), ("o", "7abc")], "0/7"),  # no number: unchanged
])
def test_fetches_show_clamped_values(proxy, backend, hdrs, want):
    port = prio_proxy(proxy, backend, PRIO_RULES + [
        "http-request set-header x-prio %[prio_class]/%[prio_offset]"])
    r = get(port, "/", hdrs)
    assert r.status == 200
    assert backend.last().header("x-prio") == want


def test_last_rule_wins_and_fetch_in_condition(proxy, backend):
    port = prio_proxy(proxy, backend, [
        "http-request set-priority-class int(4)",
        "http-request set-priority-class int(-6) if { req.hdr(x) -m found }",
        "http-request set-header x-neg 1 if { prio_class lt 0 }",
        "http-request set-header x-prio %[prio_class]"])
    get(port, "/", [("x", "1")])
    assert backend.last().header("x-prio") == "-6"
    assert backend.last().header("x-neg") == "1"
    get(port, "/")
    assert backend.last().header("x-prio") == "4"
    assert backend.last().header("x-neg") is None


def check_cfg(tmp_path, fe_line, be_line=""):
    text = "\n".join(["defaults", "    mode http", "    timeout connect 1s",
                      "    timeout client 1s", "    timeout server 1s",
                      "frontend f", "    bind 127.0.0.1:%d" % free_port(), "    " + fe_line,
                      "    default_backend b", "backend b",
                      "    server s 127.0.0.1:%d" % free_port(), "    " + be_line]) + "\n"
    p = tmp_path / "prio.cfg"
    p.write_text(text)
    r = run_haproxy(["-c", "-f", str(p)])
    return r.returncode, r.stdout + r.stderr


@pytest.mark.parametrize("fe_line,be_line", [
    ("http-request set-priority-class int(1) if TRUE", ""),
    ("http-request set-priority-offset req.hdr(x),mul(1000)", ""),
    ("tcp-request content set-priority-offset req.hdr(x)", ""),
    ("", "http-request set-priority-class be_id"),
    ("", "tcp-request content set-priority-class int(1),add(txn.x)"),
])
def test_config_accepted(tmp_path, fe_line, be_line):
    rc, out = check_cfg(tmp_path, fe_line, be_line)
    assert rc == 0, out


@pytest.mark.parametrize("fe_line,be_line,line,msg", [
    ("http-request set-priority-class", "", 8, "missing fetch method"),
    ("http-request set-priority-offset nosuch", "", 8, "unknown fetch method 'nosuch'"),
    ("http-request set-priority-class res.hdr(x)", "", 8,
     "extracts information from 'HTTP response headers', none of which is available here"),
    ("http-request set-priority-class be_id", "", 8,
     "extracts information from 'backend', none of which is available here"),
    ("", "tcp-request content set-priority-offset res.hdr(x)", 12,
     "extracts information from 'HTTP response headers', none of which is available here"),
    ("http-request set-priority-class int(1) foo", "", 8,
     "'http-request set-priority-class' expects either 'if' or 'unless' followed by a "
     "condition but found 'foo'"),
    ("", "http-response set-priority-class int(1)", 12, "but got 'set-priority-class'"),
    ("http-after-response set-priority-offset int(1)", "", 8,
     "but got 'set-priority-offset'"),
    ("tcp-request connection set-priority-class int(1)", "", 8,
     "got 'set-priority-class'"),
    ("tcp-request session set-priority-offset int(1)", "", 8, "got 'set-priority-offset'"),
])
def test_config_refused(tmp_path, fe_line, be_line, line, msg):
    rc, out = check_cfg(tmp_path, fe_line, be_line)
    assert rc != 0, out
    assert "prio.cfg:%d]" % line in out, out
    assert msg in out, out
