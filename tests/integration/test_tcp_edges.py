"""Edges of mode tcp and of the PROXY header that a review found, each checked against
Debian's haproxy 2.6 (HAPROXY_BIN=/usr/sbin/haproxy): res.len waits for the server's bytes,
tcp-response content close and reject (PD), a slow reader blamed with its own timeout (cD,
not sD), a server reset counted as an aborted response (eresp), a partial PROXY header
followed by a FIN refused at once ("Truncated"), a v2 header with a unix address refused,
and the handshake's wait shown in %Tw rather than %Tc.

Every wait is bounded; every server is stopped by the fixtures.
"""

import socket
import struct
import time

import pputil
import pytest
from conftest import cli
from syslog_sink import Sink
from tcpserv import (quiet_proxy, recv_all, recv_exact, tcp_cfg, tcpservers,  # noqa: F401
                     wait_for)
from test_tcp_mode import TCPLOG, conn, logged, tcplog


@pytest.fixture
def sink():
    s = Sink()
    try:
        yield s
    finally:
        s.close()


def stat_row(sock, px, sv):
    lines = cli(sock, "show stat").splitlines()
    cols = lines[0].lstrip("# ").split(",")
    for ln in lines[1:]:
        f = ln.split(",")
        if len(f) >= 2 and f[0] == px and f[1] == sv:
            return dict(zip(cols, f))
    return {}


def test_res_len_waits_for_the_server(proxy, port, tcpservers, sink):
    """res.len may change while the tcp-response inspect-delay runs: a banner is rejected
    (PD) instead of going through because the first look saw nothing."""
    srv = tcpservers("s1", greeting=b"hello\n")
    proxy(logged(sink, port, [srv], listen=["tcp-response inspect-delay 2s",
                                            "tcp-response content reject if { res.len gt 0 }"]),
          [port])
    t0 = time.monotonic()
    with conn(port) as c:
        data, _ = recv_all(c, timeout=5)
    assert data == b"" and time.monotonic() - t0 < 1.5
    m = tcplog(sink)
    assert m["ts"] == "PD", m.group(0)


def test_tcp_response_close_ends_the_server_side(proxy, port, tcpservers, sink):
    """tcp-response content close: the server's bytes go through, then both sides close
    at once (a normal end, "--"), not at the client's timeout."""
    srv = tcpservers("s1", greeting=b"hello\n", mode="silent")
    proxy(logged(sink, port, [srv], listen=[
        "tcp-response inspect-delay 2s",
        "tcp-response content close if { res.payload(0,5) -m str hello }"]), [port])
    t0 = time.monotonic()
    with conn(port) as c:
        data, _ = recv_all(c, timeout=5)
    assert data == b"hello\n" and time.monotonic() - t0 < 1.5
    m = tcplog(sink)
    assert m["ts"] == "--", m.group(0)


def test_slow_reader_gets_its_own_timeout(proxy, port, tcpservers, sink):
    """The server sends more than the client reads: the client's timeout (6s) applies, not
    the server's (1s), and the log blames the client (cD)."""
    srv = tcpservers("s1", mode="send", send_bytes=16 << 20)
    proxy(logged(sink, port, [srv], timeouts=("timeout connect 2s", "timeout client 3s",
                                              "timeout server 1s")), [port])
    c = socket.socket()
    c.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    c.connect(("127.0.0.1", port))
    try:
        t0 = time.monotonic()
        m = tcplog(sink, timeout=10)
        took = time.monotonic() - t0
    finally:
        c.close()
    assert m["ts"] == "cD", m.group(0)
    assert took > 2.0, took


def test_server_reset_counts_eresp(proxy, port, tcpservers, tmp_path):
    """A server that resets in the data phase: SD, counted as srv_abrt and eresp."""
    def rst(server, s):
        s.sendall(b"hi")
        time.sleep(0.2)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()

    srv = tcpservers("s1", handler=rst)
    sock = str(tmp_path / "s.sock")
    proxy(tcp_cfg(port, [srv], glob=["stats socket %s level admin" % sock]), [port])
    with conn(port) as c:
        assert recv_exact(c, 2, timeout=5) == b"hi"
        recv_all(c, timeout=5)
    assert wait_for(lambda: stat_row(sock, "px", "s1").get("srv_abrt") == "1", 5)
    row = stat_row(sock, "px", "s1")
    assert row["eresp"] == "1", row
    assert stat_row(sock, "px", "BACKEND")["eresp"] == "1"


def pp_cfg(port, srv, sink):
    """A tcplog-ging tcp listener whose connections start with a PROXY header."""
    cfg = tcp_cfg(port, [srv], glob=["log 127.0.0.1:%d local0" % sink.port],
                  defaults=["log global", "option tcplog"],
                  timeouts=("timeout connect 2s", "timeout client 8s", "timeout server 8s"))
    return cfg.replace("bind 127.0.0.1:%d\n" % port, "bind 127.0.0.1:%d accept-proxy\n" % port)


def test_partial_proxy_header_then_fin(proxy, port, tcpservers, sink):
    """A PROXY line cut short by the client's FIN is refused at once as 'Truncated', not
    at the client timeout."""
    srv = tcpservers("s1")
    proxy(pp_cfg(port, srv, sink), [port])
    t0 = time.monotonic()
    with conn(port) as c:
        c.sendall(b"PROXY TCP4 1.2.3.4 5.6.7.8 11")
        try:
            c.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # 2.6 reads once and may have closed already (it says "Truncated" too)
        recv_all(c, timeout=10)
    assert time.monotonic() - t0 < 3
    msgs = sink.read(1, 5)
    assert msgs and msgs[0][1].endswith("px/1: Truncated PROXY protocol header received"), msgs
    assert srv.accepted == 0


def test_v2_unix_address_is_refused(proxy, port, tcpservers, sink):
    srv = tcpservers("s1")
    proxy(pp_cfg(port, srv, sink), [port])
    hdr = pputil.SIG + bytes([0x21, 0x31]) + struct.pack("!H", 216) + b"/a".ljust(108, b"\0") \
        + b"/b".ljust(108, b"\0")
    with conn(port) as c:
        c.sendall(hdr + b"data")
        data, _ = recv_all(c, timeout=5)
    assert data == b""
    msgs = sink.read(1, 5)
    assert msgs and msgs[0][1].endswith("px/1: Received an invalid PROXY protocol header"), msgs
    assert srv.accepted == 0


def test_handshake_wait_shows_in_tw(proxy, port, tcpservers, sink):
    """A PROXY header sent 400 ms after the connect: the wait is in %Tw, %Tc is the
    connect alone (as 2.6)."""
    srv = tcpservers("s1")
    proxy(pp_cfg(port, srv, sink), [port])
    with conn(port) as c:
        time.sleep(0.4)
        c.sendall(b"PROXY TCP4 1.2.3.4 5.6.7.8 1111 2222\r\nping")
        assert recv_exact(c, 4, timeout=5) == b"ping"
    msgs = sink.read(1, 5)
    assert msgs
    m = TCPLOG.match(msgs[0][1].replace("1.2.3.4:1111", "127.0.0.1:1111"))
    assert m, msgs[0][1]
    assert int(m["Tw"]) >= 350 and int(m["Tc"]) < 200, msgs[0][1]
