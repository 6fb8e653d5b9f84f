"""Rings: "ring" sections and their TCP syslog servers, "ring@NAME" and "tcp@ADDR" log
targets, "show events".

Owns: what a TCP syslog receiver gets (newline-terminated by default, "LEN msg" with
`log-proto octet-count`; the ring's `format` and `maxlen`; the implicit ring of a tcp@
target with the log line's format), reconnection after the receiver restarts (messages
written meanwhile arrive), a ring whose server is down not slowing traffic, "show events"
(the sink list and a ring's messages), an unknown ring@ name refused at startup. The
messages are runtime events (a server failing its check), whose text is known.
Expectations taken from Debian's /usr/sbin/haproxy 2.6 on the same configs.
"""

import re
import socket
import time

import pytest
from conftest import IS_REF, cli, free_port, run_haproxy

DOWN = ('Server be/s1 is DOWN, reason: Layer4 connection problem, info: "Connection refused", '
        'check duration: 0ms. 0 active and 0 backup servers left. 0 sessions active, 0 '
        'requeued, 0 remaining in queue.')
NOSRV = "backend be has no server available!"
D3164 = r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d"


class TcpSink:
    """A TCP syslog receiver on 127.0.0.1 (or a given port); bounded accepts and reads."""

    def __init__(self, port=0):
        self.l = socket.socket()
        self.l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.l.bind(("127.0.0.1", port))
        self.l.listen(8)
        self.l.settimeout(5)
        self.port = self.l.getsockname()[1]
        self.c = None
        self.data = b""

    def read_until(self, pred, timeout=5.0):
        deadline = time.monotonic() + timeout
        if self.c is None:
            self.c, _ = self.l.accept()
            self.c.settimeout(0.2)
        while time.monotonic() < deadline and not pred(self.data):
            try:
                d = self.c.recv(65536)
            except socket.timeout:
                continue
            if not d:
                break
            self.data += d
        return self.data

    def close(self):
        if self.c:
            self.c.close()
        self.l.close()


def cfg(sock, ring_lines, be_logs, srv_port):
    return """global
    stats socket %s level admin
ring r1
%s
defaults
    mode http
    timeout connect 1s
    timeout client 5s
    timeout server 5s
backend be
%s
    server s1 127.0.0.1:%d check inter 100
""" % (sock, "\n".join("    " + x for x in ring_lines), "\n".join("    " + x for x in be_logs),
       srv_port)


def test_legacy_framing_format_maxlen_and_show_events(proxy, tmp_path):
    sink = TcpSink()
    sock = str(tmp_path / "s.sock")
    conf = cfg(sock, ["description \"my ring\"", "format rfc3164", "maxlen 120", "size 32768",
                      "timeout connect 1s", "timeout server 2s",
                      "server rs 127.0.0.1:%d" % sink.port],
               ["log ring@r1 local0"], free_port())
    p = proxy(conf)
    try:
        data = sink.read_until(lambda d: d.count(b"\n") >= 2).decode()
        lines = data.split("\n")
        hdr = r"<%d>" + D3164 + r" localhost [\w.-]+\[%d\]: " % p.pid
        m = re.match(hdr % 129, lines[0])
        assert m, lines[0]
        assert lines[0][m.end():] == DOWN[:120 - m.end()]  # maxlen cuts header + text
        assert re.fullmatch(hdr % 128 + re.escape(NOSRV), lines[1]), lines[1]
        out = cli(sock, "show events r1")
        assert out.split("\n")[:2] == lines[:2]
        lst = cli(sock, "show events")
        assert lst.startswith("Supported events sinks are listed below. Add -w(wait), "
                              "-n(new). Any key to stop\n")
        assert "    r1         : type=buffer, 0 dropped, my ring\n" in lst
    finally:
        sink.close()


def test_octet_count_raw(proxy, tmp_path):
    sink = TcpSink()
    conf = cfg(str(tmp_path / "s.sock"), ["format raw", "maxlen 120",
                                          "server rs 127.0.0.1:%d log-proto octet-count"
                                          % sink.port],
               ["log ring@r1 local0"], free_port())
    proxy(conf)
    try:
        # the check's duration is 0ms unless the machine is busy: take it from the line
        data = sink.read_until(lambda d: len(d) >= 124 + len("%d " % len(NOSRV) + NOSRV))
        m = re.search(rb"check duration: (\d+)ms", data)
        down = DOWN.replace("duration: 0ms", "duration: %sms" % (m.group(1).decode() if m else "0"))
        want = ("120 " + down[:120] + "%d " % len(NOSRV) + NOSRV).encode()
        assert data == want
    finally:
        sink.close()


def test_tcp_target_implicit_ring(proxy, tmp_path):
    sink = TcpSink()
    sock = str(tmp_path / "s.sock")
    conf = cfg(sock, ["server rs 127.0.0.1:%d" % free_port()],
               ["log tcp@127.0.0.1:%d local2" % sink.port], free_port())
    p = proxy(conf)
    try:
        data = sink.read_until(lambda d: d.count(b"\n") >= 2).decode()
        hdr = r"<%d>" + D3164 + r" [\w.-]+\[%d\]: " % p.pid
        lines = data.split("\n")
        # the check's duration is 0ms unless the machine is busy
        down = re.escape(DOWN).replace("duration:\\ 0ms", "duration:\\ \\d+ms")
        assert re.fullmatch(hdr % 145 + down, lines[0]), lines[0]
        assert re.fullmatch(hdr % 144 + re.escape(NOSRV), lines[1]), lines[1]
        lst = cli(sock, "show events")
        assert re.search(r"    ring#1     : type=buffer, 0 dropped, created from logserver "
                         r"declared into '.*haproxy0\.cfg' at line 11\n", lst), lst
    finally:
        sink.close()


def test_reconnects_after_receiver_restarts(proxy, tmp_path):
    sink = TcpSink()
    port = sink.port
    sock = str(tmp_path / "s.sock")
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv_port = srv.getsockname()[1]
    srv.close()
    conf = cfg(sock, ["format raw", "server rs 127.0.0.1:%d" % port],
               ["log ring@r1 local0"], srv_port)
    proxy(conf)
    sink.read_until(lambda d: NOSRV.encode() in d)
    sink.close()  # the receiver goes away
    time.sleep(0.3)
    # an event while it is away: the server comes UP
    up = socket.socket()
    up.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    up.bind(("127.0.0.1", srv_port))
    up.listen(64)
    try:
        time.sleep(0.5)
        sink = TcpSink(port)  # back
        data = sink.read_until(lambda d: b" is UP" in d, timeout=8.0)
        assert re.search(rb"Server be/s1 is UP, reason: Layer4 check passed", data), data
    finally:
        up.close()
        sink.close()


def test_dead_ring_server_does_not_slow_traffic(proxy, backend, tmp_path):
    port = free_port()
    conf = """global
ring r1
    server rs 127.0.0.1:%d
defaults
    mode http
    timeout connect 1s
    timeout client 5s
    timeout server 5s
listen li
    bind 127.0.0.1:%d
    log ring@r1 local0
    log tcp@127.0.0.1:%d local0
    server s1 127.0.0.1:%d
""" % (free_port(), port, free_port(), backend.port)
    proxy(conf, ports=[port])
    t0 = time.monotonic()
    for _ in range(50):
        with socket.create_connection(("127.0.0.1", port), timeout=3) as c:
            c.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            c.settimeout(3)
            resp = b""
            while True:
                d = c.recv(65536)
                if not d:
                    break
                resp += d
            assert resp.startswith(b"HTTP/1.1 200")
    assert time.monotonic() - t0 < 5.0


def test_unknown_ring_is_a_config_error(tmp_path):
    path = tmp_path / "bad.cfg"
    path.write_text("""defaults
    mode http
    timeout connect 1s
    timeout client 5s
    timeout server 5s
backend be
    log ring@nope local0
    server s1 127.0.0.1:8080
frontend fe
    bind 127.0.0.1:%d
    default_backend be
""" % free_port())
    # 2.6 refuses it when starting (not with -c); we refuse it in both
    r = run_haproxy(["-f", str(path)])
    assert r.returncode == 1
    assert re.search(r"bad\.cfg'? at line 7|bad\.cfg:7", r.stderr), r.stderr
    assert "ring named 'nope'" in r.stderr
