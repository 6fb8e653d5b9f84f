"""Whole mode tcp deployments as their users see them: a Patroni primary selector (HTTP
checks on a side port, only the primary gets connections, sessions shut when it flips), a
Galera cluster (one active node, the others backup, mysql-check) and a Kubernetes API
balancer (TLS pass-through, option tcp-check, roundrobin over two TLS servers). Written
against Debian's haproxy 2.6 first.

Every wait is bounded; every server is stopped by the fixtures.
"""

import http.server
import re
import socket
import ssl
import struct
import threading
import time

import pytest
from tcpserv import (quiet_proxy, recv_all, recv_exact, recv_line, tcp_cfg,  # noqa: F401
                     tcpservers, wait_for)
from tlsutil import client_ctx, tls_connect


def notices(px, what):
    return re.findall(r"Server (\S+) is %s, reason: ([^\n]*)" % what, px.stderr())


def first_line(port):
    """What the server behind port says first ("" when refused or closed)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as c:
            return recv_line(c, timeout=5).strip().decode()
    except OSError:
        return ""


class RoleHTTP:
    """A Patroni-like REST endpoint: OPTIONS/GET /primary answers 200 when primary is
    set, 503 otherwise. Serves from a thread; stop() shuts it."""

    def __init__(self, primary):
        self.primary = primary
        self.seen = []
        outer = self

        class H(http.server.BaseHTTPRequestHandler):
            def _answer(self):
                outer.seen.append((self.command, self.path))
                code = 200 if (self.path == "/primary" and outer.primary) else 503
                body = b'{"role": "%s"}' % (b"primary" if outer.primary else b"replica")
                self.send_response(code)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_OPTIONS = do_GET = _answer

            def log_message(self, *a):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.t = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                  daemon=True)
        self.t.start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.t.join(timeout=5)


@pytest.fixture
def roles():
    made = []

    def make(primary):
        r = RoleHTTP(primary)
        made.append(r)
        return r

    try:
        yield make
    finally:
        for r in made:
            r.stop()


def test_patroni_primary_selector(proxy, port, tcpservers, roles):
    n1 = tcpservers("n1", greeting=b"{name}\n")
    n2 = tcpservers("n2", greeting=b"{name}\n")
    r1, r2 = roles(True), roles(False)
    cfg = tcp_cfg(port, listen=[
        "option httpchk OPTIONS /primary",
        "http-check expect status 200",
        "default-server inter 1s fall 3 rise 2 on-marked-down shutdown-sessions",
        "server n1 127.0.0.1:%d maxconn 100 check port %d" % (n1.port, r1.port),
        "server n2 127.0.0.1:%d maxconn 100 check port %d" % (n2.port, r2.port)])
    px = proxy(cfg, [port])
    assert wait_for(lambda: notices(px, "DOWN"), 10), px.stderr()
    assert notices(px, "DOWN")[0][0] == "px/n2"
    assert notices(px, "DOWN")[0][1].startswith('Layer7 wrong status, code: 503, info: "Service '
                                                'Unavailable"'), px.stderr()
    assert ("OPTIONS", "/primary") in r2.seen
    assert [first_line(port) for _ in range(4)] == ["n1"] * 4
    with socket.create_connection(("127.0.0.1", port), timeout=5) as held:
        assert recv_line(held) == b"n1\n"
        held.sendall(b"select 1;\n")
        assert recv_exact(held, 10) == b"select 1;\n"
        # failover: n1 steps down, n2 is promoted
        r1.primary, r2.primary = False, True
        t0 = time.monotonic()
        got, eof = recv_all(held, timeout=15)
        dt = time.monotonic() - t0
    assert eof and got == b"", got
    assert 1.5 < dt < 12, dt                  # fall 3 at inter 1s
    assert any(n == "px/n1" for n, _ in notices(px, "DOWN"))
    assert wait_for(lambda: any(n == "px/n2" for n, _ in notices(px, "UP")), 10), px.stderr()
    assert [first_line(port) for _ in range(4)] == ["n2"] * 4


def mysql_packet(seq, payload):
    return struct.pack("<I", len(payload))[:3] + bytes([seq]) + payload


def galera_node(name):
    """A fake MySQL/MariaDB node: greeting with the node's name as its version, OK to any
    login, then echo (the checks and the clients see the same server)."""
    greeting = mysql_packet(0, b"\x0a" + name.encode() + b"-MariaDB\x00" + b"\x01\x00\x00\x00" +
                            b"a" * 8 + b"\x00\xff\xf7\x21\x02\x00")

    def h(srv, s):
        s.sendall(greeting)
        if not s.recv(4096):
            return
        s.sendall(mysql_packet(2, b"\x00\x00\x00\x02\x00\x00\x00"))
        for _ in range(1000):
            d = s.recv(4096)
            if not d:
                return
            s.sendall(d)
    return h


def galera_who(port):
    """The node a client lands on: the version string of the greeting."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as c:
            hdr = recv_exact(c, 4, timeout=5)
            if len(hdr) < 4:
                return ""
            body = recv_exact(c, struct.unpack("<I", hdr[:3] + b"\x00")[0], timeout=5)
            return body[1:body.index(b"-MariaDB")].decode()
    except (OSError, ValueError):
        return ""


def test_galera_one_active_others_backup(proxy, port, tcpservers):
    g = [tcpservers("g%d" % i, handler=galera_node("g%d" % i)) for i in (1, 2, 3)]
    p1 = g[0].port
    cfg = tcp_cfg(port, listen=[
        "balance leastconn",
        "option mysql-check user haproxy",
        "default-server inter 300ms rise 1 fall 1 on-marked-down shutdown-sessions",
        "server g1 127.0.0.1:%d check" % g[0].port,
        "server g2 127.0.0.1:%d check backup" % g[1].port,
        "server g3 127.0.0.1:%d check backup" % g[2].port])
    px = proxy(cfg, [port])
    assert [galera_who(port) for _ in range(4)] == ["g1"] * 4
    g[0].stop()
    assert wait_for(lambda: any(n == "px/g1" for n, _ in notices(px, "DOWN")), 8), px.stderr()
    # only the first backup takes the traffic (no "option allbackups")
    assert [galera_who(port) for _ in range(4)] == ["g2"] * 4
    tcpservers("g1", handler=galera_node("g1"), port=p1)
    assert wait_for(lambda: any(n == "px/g1" for n, _ in notices(px, "UP")), 8), px.stderr()
    assert [galera_who(port) for _ in range(4)] == ["g1"] * 4
    assert not any(n in ("px/g2", "px/g3") for n, _ in notices(px, "DOWN")), px.stderr()


def test_kubernetes_api_tls_passthrough(proxy, port, tcpservers, pki):
    def sctx(name):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(pki.p(name + ".pem"))
        return ctx
    m1 = tcpservers("m1", tls=sctx("a"), greeting=b"{name}\n")
    m2 = tcpservers("m2", tls=sctx("b"), greeting=b"{name}\n")
    cfg = tcp_cfg(port, listen=[
        "option tcp-check",
        "balance roundrobin",
        "default-server inter 300ms downinter 300ms rise 1 fall 1",
        "server m1 127.0.0.1:%d check" % m1.port,
        "server m2 127.0.0.1:%d check" % m2.port])
    px = proxy(cfg, [port])
    ctx = client_ctx(cafile=pki.p("ca.crt"))

    def api():
        """(certificate CN the client saw, server name) of one TLS session."""
        with tls_connect(port, sni="kubernetes.default", ctx=ctx, timeout=5) as s:
            cn = dict(x[0] for x in s.getpeercert()["subject"])["commonName"]
            return cn, recv_line(s).strip().decode()
    seen = [api() for _ in range(4)]
    assert sorted(seen) == [("a.test", "m1"), ("a.test", "m1"), ("b.test", "m2"),
                            ("b.test", "m2")], seen
    m1.stop()
    assert wait_for(lambda: any(n == "px/m1" for n, _ in notices(px, "DOWN")), 8), px.stderr()
    assert [api() for _ in range(3)] == [("b.test", "m2")] * 3
