"""TCP rules in mode http: tcp-request connection, session and content rules, the
inspect-delay, and tcp-response content rules, as a client and the stats page see them.

Owns: what reject, accept and silent-drop do at each stage (closed without an answer, and
counted as denied connections, sessions, requests or responses), when content rules wait
for more data, and connection-level limits built on stick counters. Expected values come
from Debian's /usr/sbin/haproxy (2.6): run with HAPROXY_BIN=/usr/sbin/haproxy to check them.
The proxy is probed through its stats socket only: an empty connection would be counted.
"""

import socket
import threading
import time

import httpc
import pytest
from conftest import IS_REF, cli, free_port, run_haproxy
from test_stick_tables import DEFAULTS, start, table

GET = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n"


def stat(sock):
    """{(pxname, svname): {field: int}} of "show stat"."""
    lines = cli(sock, "show stat").splitlines()
    names = lines[0][2:].split(",")
    rows = {}
    for ln in lines[1:]:
        vals = ln.split(",")
        if len(vals) < 3:
            continue
        rows[(vals[0], vals[1])] = {k: int(v) if v.isdigit() else v for k, v in zip(names, vals)}
    return rows


def refused(port, data=GET, timeout=3.0):
    """Sends <data> on a new connection; True when the proxy closes it without a byte."""
    try:
        s = httpc.connect(port, timeout)
    except ConnectionResetError:
        return True  # reset while connecting
    with s:
        try:
            s.sendall(data)
        except (ConnectionResetError, BrokenPipeError):
            return True
        got, closed = httpc.recv_until_close(s, timeout)
        return got == b"" and closed


def wait_stat(sock, px, field, want):
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if stat(sock)[px][field] == want:
            break
        time.sleep(0.05)
    return stat(sock)[px]


def cfg(port, srv, fe_rules="", be_rules=""):
    return """
frontend fe
    bind 127.0.0.1:%d
%s
    default_backend be
backend be
%s
    server s1 127.0.0.1:%d
""" % (port, fe_rules, be_rules, srv)


def test_connection_reject(proxy, backend, tmp_path):
    port = free_port()
    sock = start(proxy, tmp_path, cfg(port, backend.port,
                                      "    tcp-request connection reject if { src 127.0.0.1 }"))
    assert refused(port)
    fe = wait_stat(sock, ("fe", "FRONTEND"), "dcon", 1)
    assert (fe["dcon"], fe["dses"], fe["stot"], fe["conn_tot"], fe["req_tot"]) == (1, 0, 0, 1, 0)


def test_session_reject(proxy, backend, tmp_path):
    port = free_port()
    sock = start(proxy, tmp_path, cfg(port, backend.port,
                                      "    tcp-request session reject if { src 127.0.0.1 }"))
    assert refused(port)
    fe = wait_stat(sock, ("fe", "FRONTEND"), "dses", 1)
    assert (fe["dcon"], fe["dses"], fe["stot"], fe["conn_tot"], fe["req_tot"]) == (0, 1, 0, 1, 0)


def test_content_reject_in_the_frontend(proxy, backend, tmp_path):
    port = free_port()
    sock = start(proxy, tmp_path, cfg(port, backend.port,
                                      "    tcp-request content reject if { src 127.0.0.1 }"))
    assert refused(port)
    fe = wait_stat(sock, ("fe", "FRONTEND"), "dreq", 1)
    # the request is refused before it is counted, its end is counted ("other")
    assert (fe["dreq"], fe["stot"], fe["req_tot"], fe["hrsp_other"]) == (1, 1, 0, 1)
    assert backend.max_concurrency() == 0


def test_content_reject_in_the_backend(proxy, backend, tmp_path):
    port = free_port()
    sock = start(proxy, tmp_path, cfg(port, backend.port, "",
                                      "    tcp-request content reject if { src 127.0.0.1 }"))
    assert refused(port)
    fe = wait_stat(sock, ("fe", "FRONTEND"), "dreq", 1)
    be = stat(sock)[("be", "BACKEND")]
    assert (fe["dreq"], fe["req_tot"], fe["hrsp_other"]) == (1, 1, 1)
    assert (be["dreq"], be["stot"], be["hrsp_other"]) == (0, 1, 1)


def test_accept_ends_the_rule_set(proxy, backend, tmp_path):
    port = free_port()
    start(proxy, tmp_path, cfg(port, backend.port,
                               "    tcp-request connection accept if { src 127.0.0.1 }\n"
                               "    tcp-request connection reject\n"
                               "    tcp-request content accept if { src 127.0.0.1 }\n"
                               "    tcp-request content reject"))
    assert httpc.get(port).status == 200


def test_response_reject(proxy, backend, tmp_path):
    port = free_port()
    sock = start(proxy, tmp_path, cfg(port, backend.port, "",
                                      "    tcp-response content reject if { src 127.0.0.1 }"))
    assert refused(port)
    fe = wait_stat(sock, ("fe", "FRONTEND"), "dresp", 1)
    be = stat(sock)[("be", "BACKEND")]
    assert (fe["dresp"], fe["req_tot"], fe["hrsp_other"]) == (1, 1, 1)
    assert (be["dresp"], be["hrsp_other"]) == (1, 1)


def test_silent_drop_sends_nothing(proxy, backend, tmp_path):
    port = free_port()
    start(proxy, tmp_path, cfg(port, backend.port,
                               "    tcp-request content silent-drop if { src 127.0.0.1 }"))
    with httpc.connect(port, 2) as s:
        s.sendall(GET)
        got, _ = httpc.recv_until_close(s, 1.0)
    assert got == b""
    assert backend.max_concurrency() == 0


class Origin:
    """A listening socket that records when the proxy connects to it (and answers)."""

    def __init__(self):
        self.ls = socket.socket()
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(8)
        self.ls.settimeout(5)
        self.port = self.ls.getsockname()[1]

    def accept_time(self):
        try:
            c, _ = self.ls.accept()
        except socket.timeout:
            return None
        t = time.monotonic()
        c.close()
        return t

    def close(self):
        self.ls.close()


INSPECT = "    tcp-request inspect-delay 1s\n    tcp-request content reject if { req.len gt 100000 }"


def test_inspect_delay_waits_while_the_body_may_come(proxy, tmp_path):
    """A condition that cannot tell yet waits until the inspect-delay ends, unless the
    request is complete: then it is final at once."""
    o = Origin()
    port = free_port()
    try:
        start(proxy, tmp_path, cfg(port, o.port, INSPECT))
        with httpc.connect(port) as s:
            t0 = time.monotonic()
            s.sendall(b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n")
            t = o.accept_time()
        assert t is not None and 0.8 <= t - t0 < 3.0, t and t - t0
        for body in (b"", b"x" * 100):
            hdr = b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: %d\r\n\r\n" % len(body)
            with httpc.connect(port) as s:
                t0 = time.monotonic()
                s.sendall((hdr if body else GET) + body)
                t = o.accept_time()
            assert t is not None and t - t0 < 0.5, t and t - t0
    finally:
        o.close()


def test_inspect_delay_ends_when_the_body_completes(proxy, tmp_path):
    o = Origin()
    port = free_port()
    try:
        start(proxy, tmp_path, cfg(port, o.port, INSPECT))
        with httpc.connect(port) as s:
            t0 = time.monotonic()
            s.sendall(b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n")
            time.sleep(0.3)
            s.sendall(b"x" * 100)
            t = o.accept_time()
        assert t is not None and 0.25 <= t - t0 < 0.8, t and t - t0
    finally:
        o.close()


def test_content_rule_that_matches_is_not_delayed(proxy, backend, tmp_path):
    port = free_port()
    start(proxy, tmp_path, cfg(port, backend.port, "    tcp-request inspect-delay 5s\n"
                               "    tcp-request content reject if { req.len lt 100000 }"))
    t0 = time.monotonic()
    assert refused(port, b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\n")
    assert time.monotonic() - t0 < 2.0


def test_concurrent_connections_limit_per_source(proxy, backend, tmp_path):
    """The classic: track the source at accept and refuse a third connection."""
    port = free_port()
    sock = start(proxy, tmp_path, cfg(port, backend.port,
                                      "    stick-table type ip size 100 store conn_cur\n"
                                      "    tcp-request connection track-sc0 src\n"
                                      "    tcp-request connection reject if { sc0_conn_cur gt 2 }"))
    a, b = httpc.connect(port), httpc.connect(port)
    try:
        deadline = time.monotonic() + 5
        while table(sock, "fe").get("127.0.0.1", {}).get("conn_cur") != 2 and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        assert refused(port)
        for s in (a, b):
            s.sendall(GET)
            assert httpc.read_response(httpc.Reader(s)).status == 200
    finally:
        a.close()
        b.close()
    deadline = time.monotonic() + 5
    while table(sock, "fe")["127.0.0.1"]["conn_cur"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert httpc.get(port).status == 200


def test_session_and_content_tracking_in_http_mode(proxy, backend, tmp_path):
    """Session rules track per connection, content rules per request (mode http)."""
    port = free_port()
    sock = start(proxy, tmp_path, cfg(port, backend.port,
                                      "    tcp-request session track-sc0 src table ts\n"
                                      "    tcp-request content track-sc1 src table tc") +
                 "backend ts\n    stick-table type ip size 10 store conn_cnt,sess_cnt,"
                 "http_req_cnt\nbackend tc\n    stick-table type ip size 10 store conn_cnt,"
                 "sess_cnt,http_req_cnt\n")
    with httpc.connect(port) as s:
        rd = httpc.Reader(s)
        for _ in range(3):
            s.sendall(GET)
            assert httpc.read_response(rd).status == 200
    ts, tc = table(sock, "ts")["127.0.0.1"], table(sock, "tc")["127.0.0.1"]
    assert (ts["conn_cnt"], ts["sess_cnt"], ts["http_req_cnt"]) == (1, 1, 3), ts
    assert (tc["conn_cnt"], tc["sess_cnt"], tc["http_req_cnt"]) == (3, 0, 3), tc


@pytest.mark.parametrize("body,words", [
    ("backend b\n    tcp-request connection reject\n",
     "tcp-request connection is not allowed because backend b is not a frontend"),
    ("backend b\n    tcp-request session reject\n",
     "tcp-request session is not allowed because backend b is not a frontend"),
    ("frontend f\n    bind 127.0.0.1:18001\n    tcp-response content accept\n",
     "tcp-response content is only allowed in 'backend' sections"),
    ("frontend f\n    bind 127.0.0.1:18001\n    tcp-request inspect-delay\n",
     "'tcp-request inspect-delay' expects a positive delay in milliseconds"),
    ("frontend f\n    bind 127.0.0.1:18001\n    tcp-request foo reject\n",
     "'tcp-request' expects 'inspect-delay', 'connection', or 'content'"),
    ("frontend f\n    bind 127.0.0.1:18001\n    tcp-response foo\n",
     "'tcp-response' expects 'inspect-delay' or 'content'"),
    ("defaults\n    tcp-request connection reject\n",
     "tcp-request connection is not allowed in anonymous 'defaults' sections"),
    ("frontend f\n    bind 127.0.0.1:18001\n    tcp-request content foo\n",
     "'tcp-request content' expects"),
    ("frontend f\n    bind 127.0.0.1:18001\n    tcp-request connection close\n",
     "'tcp-request connection' expects"),
])
def test_config_errors(tmp_path, body, words):
    cfg_path = tmp_path / "c.cfg"
    cfg_path.write_text("\n".join(DEFAULTS) + "\n" + body)
    r = run_haproxy(["-c", "-f", str(cfg_path)])
    assert r.returncode != 0
    assert words in r.stderr, r.stderr


def test_rules_in_named_defaults_are_accepted(tmp_path):
    cfg_path = tmp_path / "c.cfg"
    cfg_path.write_text("defaults d\n    mode http\n    timeout client 1s\n"
                        "    timeout server 1s\n    timeout connect 1s\n"
                        "    tcp-request inspect-delay 2s\n"
                        "    tcp-request connection accept\n    tcp-request content accept\n"
                        "frontend f from d\n    bind 127.0.0.1:18001\n")
    r = run_haproxy(["-c", "-f", str(cfg_path)])
    assert r.returncode == 0, r.stderr


@pytest.mark.ours
def test_expect_proxy_needs_layer4_and_cip_is_refused(tmp_path):
    """expect-proxy takes 'layer4' only; the NetScaler CIP protocol is refused clearly
    rather than taking its header for a request."""
    cfg_path = tmp_path / "c.cfg"
    base = "\n".join(DEFAULTS) + "\nfrontend f\n    bind 127.0.0.1:18001\n"
    cfg_path.write_text(base + "    tcp-request connection expect-proxy layer4\n")
    r = run_haproxy(["-c", "-f", str(cfg_path)])
    assert r.returncode == 0, r.stderr
    cfg_path.write_text(base + "    tcp-request connection expect-proxy layer5\n")
    r = run_haproxy(["-c", "-f", str(cfg_path)])
    line = len(base.splitlines()) + 1
    assert r.returncode != 0 and "layer4" in r.stderr and ":%d]" % line in r.stderr, r.stderr
    if not IS_REF:
        cfg_path.write_text(base + "    tcp-request connection expect-netscaler-cip layer4\n")
        r = run_haproxy(["-c", "-f", str(cfg_path)])
        assert r.returncode != 0
        assert "'expect-netscaler-cip' is not supported yet" in r.stderr, r.stderr
