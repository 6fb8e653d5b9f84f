"""Health checks of mode tcp backends as a log reader (the stderr notices "Server px/s1 is
DOWN, reason: ...") and a CLI script (show stat check_status, show servers state) see
them: a plain TCP check taking a dead server out and back (traffic follows), redis-server
with option redis-check and with tcp-check send PING / expect string +PONG, and fake
PostgreSQL, MySQL, SMTP, LDAP servers and a real TLS server for pgsql-check, mysql-check,
smtpchk, ldap-check and ssl-hello-chk. Written against Debian's haproxy 2.6 first.

Every wait is bounded; every process is stopped by its PID, every server by the fixture.
"""

import re
import shutil
import socket
import ssl
import struct
import subprocess
import time

import pytest
from conftest import cli, free_port, stop_pid_proc, wait_port
from tcpserv import (TcpServer, quiet_proxy, recv_line, tcp_cfg, tcpservers,  # noqa: F401
                     wait_for)

INTER = 200  # ms


def notices(px, what):
    return re.findall(r"Server px/(\S+) is %s, reason: ([^\n]*)" % what, px.stderr())


def reason(px, what, n=1, timeout=8.0):
    """The reason of the n-th "is <what>" notice (waits for it, bounded)."""
    assert wait_for(lambda: len(notices(px, what)) >= n, timeout), px.stderr()
    return notices(px, what)[n - 1][1]


def servers_state(sock):
    """show servers state px, as {srv_name: {field: value}}."""
    out = cli(sock, "show servers state px").splitlines()
    hdr = out[1].lstrip("# ").split()
    rows = {}
    for ln in out[2:]:
        if ln.strip():
            d = dict(zip(hdr, ln.split()))
            rows[d["srv_name"]] = d
    return rows


def stat(sock, sv):
    lines = cli(sock, "show stat").splitlines()
    hdr = lines[0].lstrip("# ").split(",")
    for ln in lines[1:]:
        d = dict(zip(hdr, ln.split(",")))
        if d.get("pxname") == "px" and d.get("svname") == sv:
            return d
    return None


def who(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as c:
            return recv_line(c, timeout=5).strip().decode()
    except OSError:
        return ""


def test_tcp_check_dead_server_out_and_back(proxy, port, tcpservers, tmp_path):
    sock = tmp_path / "s.sock"
    s1 = tcpservers("s1", greeting=b"{name}\n")
    s2 = tcpservers("s2", greeting=b"{name}\n")
    p1 = s1.port
    proxy(tcp_cfg(port, [s1, s2], glob=["stats socket %s level admin" % sock],
                  listen=["balance roundrobin"],
                  srv_opts="check inter %d rise 2 fall 2" % INTER), [port])
    assert wait_for(lambda: stat(sock, "s1")["check_status"] == "L4OK", 5)
    assert sorted(who(port) for _ in range(4)) == ["s1", "s1", "s2", "s2"]
    s1.stop()
    assert wait_for(lambda: servers_state(sock)["s1"]["srv_op_state"] == "0", 8)
    st = stat(sock, "s1")
    assert st["status"] == "DOWN" and st["check_status"] == "L4CON", st
    assert [who(port) for _ in range(4)] == ["s2"] * 4
    tcpservers("s1", greeting=b"{name}\n", port=p1)
    assert wait_for(lambda: servers_state(sock)["s1"]["srv_op_state"] == "2", 8)
    assert stat(sock, "s1")["status"] == "UP"
    assert sorted(who(port) for _ in range(4)) == ["s1", "s1", "s2", "s2"]


def test_tcp_check_notices(proxy, port):
    dport = free_port()
    px = proxy(tcp_cfg(port, [("s1", dport)], srv_opts="check inter %d rise 1 fall 1" % INTER),
               [port])
    down = reason(px, "DOWN")
    assert down.startswith('Layer4 connection problem, info: "Connection refused", check '
                           "duration: "), down
    assert re.search(r"\. 0 active and 0 backup servers left\. 0 sessions active, 0 requeued, "
                     r"0 remaining in queue\.", px.stderr()), px.stderr()
    srv = TcpServer("s1", port=dport)
    try:
        up = reason(px, "UP")
        assert re.match(r"Layer4 check passed, check duration: \d+ms\. 1 active and 0 backup "
                        r"servers online\. 0 sessions requeued, 0 total in queue\.$", up), up
    finally:
        srv.stop()


@pytest.fixture
def redis_server(tmp_path):
    exe = shutil.which("redis-server")
    if not exe:
        pytest.skip("redis-server not installed")
    procs = []

    def start(port):
        p = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no", "--dir", str(tmp_path)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             stdin=subprocess.DEVNULL)
        procs.append(p)
        assert wait_port(port, 10, p)
        return p

    try:
        yield start
    finally:
        for p in procs:
            stop_pid_proc(p)


def redis_cmd(port, cmd):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as c:
        c.sendall(cmd)
        return recv_line(c, timeout=5)


@pytest.mark.parametrize("how", ["redis-check", "tcp-check"])
def test_redis_check_real_server(proxy, port, redis_server, how):
    rport = free_port()
    if how == "redis-check":
        listen = ["option redis-check"]
        up_reason = 'Layer7 check passed, code: 0, info: "Redis server is ok", check duration: '
    else:
        listen = ["option tcp-check", "tcp-check send PING\\r\\n",
                  "tcp-check expect string +PONG"]
        up_reason = 'Layer7 check passed, code: 0, info: "(tcp-check)", check duration: '
    px = proxy(tcp_cfg(port, [("s1", rport)], listen=listen,
                       srv_opts="check inter %d rise 1 fall 1" % INTER), [port])
    down = reason(px, "DOWN")
    assert down.startswith('Layer4 connection problem, info: "Connection refused%s"'
                           % ("" if how == "redis-check"
                              else " at initial connection step of tcp-check")), down
    rp = redis_server(rport)
    up = reason(px, "UP")
    assert up.startswith(up_reason), up
    # real traffic to redis through the tcp proxy
    assert redis_cmd(port, b"PING\r\n") == b"+PONG\r\n"
    assert redis_cmd(port, b"SET k v\r\n") == b"+OK\r\n"
    assert redis_cmd(port, b"GET k\r\n") == b"$1\r\n"
    stop_pid_proc(rp)
    down = reason(px, "DOWN", n=2)
    assert down.startswith("Layer4 connection problem"), down


def mysql_packet(seq, payload):
    return struct.pack("<I", len(payload))[:3] + bytes([seq]) + payload


MYSQL_GREETING = mysql_packet(0, b"\x0a" + b"10.11.6-MariaDB\x00" + b"\x01\x00\x00\x00" +
                              b"a" * 8 + b"\x00\xff\xf7\x21\x02\x00")


def pgsql(good):
    def h(srv, s):
        s.recv(4096)
        if good:
            s.sendall(b"R" + struct.pack(">II", 8, 0))  # AuthenticationOk
        else:
            body = b"SFATAL\x00C28000\x00Mno such role\x00\x00"
            s.sendall(b"E" + struct.pack(">I", len(body) + 4) + body)
        time.sleep(0.1)
    return h


def mysql(good):
    def h(srv, s):
        s.sendall(MYSQL_GREETING)
        s.recv(4096)
        if good:
            s.sendall(mysql_packet(2, b"\x00\x00\x00\x02\x00\x00\x00"))
        else:
            s.sendall(mysql_packet(2, b"\xff\x15\x04#28000Access denied for user 'hc'"))
        time.sleep(0.1)
    return h


def smtp(good):
    def h(srv, s):
        s.sendall(b"220 mx.example ESMTP\r\n")
        srv.seen = recv_line(s, timeout=5)
        if not good:
            s.sendall(b"550 go away\r\n")
            return
        s.sendall(b"250-mx.example hello\r\n250 SIZE 1000\r\n")
        if recv_line(s, timeout=2).upper().startswith(b"QUIT"):
            s.sendall(b"221 bye\r\n")
    return h


def ldap(good):
    def h(srv, s):
        s.recv(4096)
        s.sendall(bytes([0x30, 0x0c, 0x02, 0x01, 0x01, 0x61, 0x07, 0x0a, 0x01,
                         0 if good else 49, 0x04, 0x00, 0x04, 0x00]))
        time.sleep(0.1)
    return h


def not_tls(srv, s):
    s.recv(4096)
    s.sendall(b"HTTP/1.0 400 Bad request\r\n\r\n")


def wait_forever(srv, s):
    """A real TLS server (the handshake ran already): hold until the peer leaves."""
    try:
        s.recv(10)
    except OSError:
        pass


CASES = {
    "pgsql": (["option pgsql-check user hc"], pgsql,
              'Layer7 invalid response, info: "FATAL"',
              'Layer7 check passed, code: 0, info: "PostgreSQL server is ok", check duration: '),
    "mysql": (["option mysql-check user hc"], mysql,
              "Layer7 wrong status, code: 1045, info: \"#28000Access denied for user 'hc'\"",
              "Layer7 check passed, code: 0, check duration: "),
    "smtp": (["option smtpchk EHLO test.example"], smtp,
             'Layer7 wrong status, code: 550, info: "go away"',
             'Layer7 check passed, code: 221, info: "bye", check duration: '),
    "ldap": (["option ldap-check"], ldap,
             'Layer7 wrong status, code: 49, info: "See RFC: '
             'http://tools.ietf.org/html/rfc4511#section-4.1.9"',
             "Layer7 check passed, code: 0, check duration: "),
}


@pytest.mark.parametrize("proto", sorted(CASES))
def test_protocol_check_fakes(proxy, port, tcpservers, proto):
    listen, make, down_want, up_want = CASES[proto]
    bad = tcpservers("bad", handler=make(False))
    sport = bad.port
    px = proxy(tcp_cfg(port, [("s1", sport)], listen=listen,
                       srv_opts="check inter %d rise 1 fall 1" % INTER), [port])
    down = reason(px, "DOWN")
    assert down.startswith(down_want), down
    bad.stop()
    tcpservers("good", handler=make(True), port=sport)
    up = reason(px, "UP")
    assert up.startswith(up_want), up
    if proto == "smtp":
        assert bad.seen == b"EHLO test.example\r\n"


def test_ssl_hello_chk_real_tls_server(proxy, port, tcpservers, pki):
    bad = tcpservers("bad", handler=not_tls)
    sport = bad.port
    px = proxy(tcp_cfg(port, [("s1", sport)], listen=["option ssl-hello-chk"],
                       srv_opts="check inter %d rise 1 fall 1" % INTER), [port])
    down = reason(px, "DOWN")
    assert down.startswith("Layer6 invalid response, check duration: "), down
    bad.stop()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(pki.p("a.pem"))
    tcpservers("good", tls=ctx, handler=wait_forever, port=sport)
    up = reason(px, "UP")
    assert up.startswith("Layer6 check passed, check duration: "), up
