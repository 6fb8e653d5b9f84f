"""Lua cosockets (core.tcp() and the Socket class) seen from the outside: a script's
action or task talks to a TCP server the test runs, and what the Socket methods returned
comes back in the response (tests/integration/lua/sock_client.lua stores it in txn.out).

Owns: the line protocol (connect forms, send ranges, receive patterns and prefixes, the
end of the connection), a refused connection, a receive timeout (and the proxy serving
others meanwhile), TLS (connect_ssl), address forms and their refusals, a task using a
socket, sockets closed for the script (error, forgotten close, sockets kept by a shared
state used by two threads: the proxy's descriptors come back to their count), and the
refusal in a sample fetch. Runs against Debian's haproxy 2.6 too (HAPROXY_BIN) where it
behaves the same.
"""

import os
import socket
import ssl
import threading
import time

import httpc
import pytest
from backend import ConnClosed, Reader
from conftest import IS_REF, HERE, make_cfg
from tcpserv import tcpservers  # noqa: F401  (fixture)

LUA = HERE / "lua"
RETURN_OUT = ('http-request return status 200 content-type text/plain '
              'lf-string "%[var(txn.out)]"')


def start(proxy, port, rules, script="sock_client.lua", glob=(), load="lua-load"):
    cfg = make_cfg(port, glob=["%s %s" % (load, LUA / script)] + list(glob),
                   listen=list(rules) + [RETURN_OUT])
    return proxy(cfg, ports=[port])


def get(port, path="/", timeout=10.0):
    return httpc.get(port, path, timeout=timeout)


def nfds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def wait_fds(pid, want, timeout=5.0):
    """Waits (bounded) until process <pid> has at most <want> descriptors; returns the
    last count seen."""
    deadline = time.monotonic() + timeout
    n = nfds(pid)
    while n > want and time.monotonic() < deadline:
        time.sleep(0.05)
        n = nfds(pid)
    return n


def line_handler(srv, s):
    """The line protocol of sock_line: ECHO the first line, then answer three bytes with
    "got:" and the rest of the script's reads, then close."""
    rd = Reader(s)
    line = rd.readline()
    s.sendall(b"ECHO " + line)
    three = rd.read_exact(3)
    s.sendall(b"got:" + three + b"\nline\r\nrest\nmore")
    s.shutdown(socket.SHUT_WR)


def test_line_protocol(proxy, port, tcpservers):
    srv = tcpservers(handler=line_handler)
    start(proxy, port, ["http-request lua.sock_line %d" % srv.port])
    r = get(port)
    assert r.status == 200
    assert r.body.decode() == ("1|7|ECHO hello|3|got:|P-bcd|line|rest\\nmore|"
                               "nil,connection closed.|127.0.0.1:%d" % srv.port)


def lines_server(tcpservers, n):
    def send_lines(srv, s):
        s.sendall(b"ab" + b"x" * n + b"yz\r\n" + b"in\rside\r\n" + b"12345" + b"end\r\n")
        s.shutdown(socket.SHUT_WR)

    return tcpservers(handler=send_lines)


def test_lines_cr_bytes_rest(proxy, port, tcpservers):
    """Only the CR before the LF is removed from a line; then bytes, and the rest up to
    the close."""
    srv = lines_server(tcpservers, 10000)
    start(proxy, port, ["http-request lua.sock_long %d" % srv.port])
    assert get(port).body.decode() == "1|10004,abx,xyz|in\\rside|12345|end\\r\\n"


@pytest.mark.ours
def test_line_longer_than_buffer(proxy, port, tcpservers):
    """A line longer than the socket's 16 KiB buffer comes whole (HAProxy 2.6's receive
    fails on a line longer than its buffer)."""
    srv = lines_server(tcpservers, 40000)
    start(proxy, port, ["http-request lua.sock_long %d" % srv.port])
    assert get(port).body.decode() == "1|40004,abx,xyz|in\\rside|12345|end\\r\\n"


def test_refused(proxy, port):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, not listening: connections are refused
    try:
        start(proxy, port, ["http-request lua.sock_refused %d" % closed.getsockname()[1]])
        r = get(port)
    finally:
        closed.close()
    assert r.status == 200
    assert r.body.decode() == "nil,Can't connect|-1|nil,connection closed."


def test_timeout_and_others_served(proxy, port, tcpservers):
    """A receive that times out returns nil and "connection closed." after the timeout
    (the connection is closed: send then fails); meanwhile the proxy answers others."""
    srv = tcpservers(mode="silent", io_timeout=10.0)
    start(proxy, port, ["http-request lua.sock_timeout %d if { path /wait }" % srv.port])
    got = {}

    def waiter():
        t0 = time.monotonic()
        got["r"] = get(port, "/wait")
        got["dt"] = time.monotonic() - t0

    th = threading.Thread(target=waiter)
    th.start()
    time.sleep(0.05)
    t0 = time.monotonic()
    other = get(port, "/other")
    other_dt = time.monotonic() - t0
    th.join(timeout=10)
    assert not th.is_alive()
    assert other.status == 200 and other_dt < 0.25
    assert got["r"].status == 200
    # 2.6's send on the closed socket sometimes still answers 1 (a race in its applet)
    assert got["r"].body.decode() in (["1|1|nil,connection closed.|-1"] +
                                      (["1|1|nil,connection closed.|1"] if IS_REF else []))
    assert 0.25 <= got["dt"] < 3.0


def test_client_gone_while_waiting(proxy, port, tcpservers):
    """Clients that leave while their action waits on a socket: once the calls end (their
    0.3 s timeout), no descriptor is left."""
    srv = tcpservers(mode="silent", io_timeout=10.0)
    px = start(proxy, port, ["http-request lua.sock_timeout %d" % srv.port])
    get(port)
    base = nfds(px.pid)
    for _ in range(10):
        c = socket.create_connection(("127.0.0.1", port), timeout=5)
        c.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        c.close()
    deadline = time.monotonic() + 5
    while srv.accepted < 11 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.accepted == 11
    assert wait_fds(px.pid, base) <= base
    assert get(port).status == 200


def test_connect_ssl(proxy, port, tcpservers, pki):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(pki.p("srv.pem"))

    def echo_line(srv, s):
        s.sendall(b"ECHO " + Reader(s).readline())

    srv = tcpservers(handler=echo_line, tls=ctx)
    start(proxy, port, ["http-request lua.sock_tls %d" % srv.port])
    r = get(port)
    assert r.body.decode() == "1|6|ECHO hello"


def test_address_forms(proxy, port, tcpservers):
    """"::1" with the port apart, "ipv4@IP:port"; a port out of range fails to connect; a
    missing port and a host name (not resolved at run time) are errors."""
    ls6 = socket.socket(socket.AF_INET6)
    ls6.bind(("::1", 0))
    ls6.listen(4)
    ls6.settimeout(10)
    port6 = ls6.getsockname()[1]

    def serve6():
        try:
            c, _ = ls6.accept()
            c.sendall(b"hi6\n")
            c.close()
        except OSError:
            pass

    th = threading.Thread(target=serve6)
    th.start()
    srv = tcpservers(greeting=b"hi4\n", mode="hold", io_timeout=5.0)
    try:
        start(proxy, port, ["http-request lua.sock_addr %d %d" % (port6, srv.port)])
        r = get(port)
    finally:
        th.join(timeout=10)
        ls6.close()
    assert r.body.decode() == ("1|hi6|1|hi4|nil,Can't connect|false,connect: port missing|"
                               "false,connect: cannot parse destination address ")


def test_task_socket(proxy, port, tcpservers, tmp_path):
    lines = []

    def pong(srv, s):
        rd = Reader(s)
        lines.append(rd.readline())
        s.sendall(b"pong\n")
        lines.append(rd.readline())

    srv = tcpservers(handler=pong)
    script = tmp_path / "task.lua"
    script.write_text("TASK_PORT = %d\ndofile(%r)\n" % (srv.port, str(LUA / "sock_task.lua")))
    cfg = make_cfg(port, glob=["lua-load %s" % script],
                   listen=["http-request return status 200 content-type text/plain string ok"])
    proxy(cfg, ports=[port])
    deadline = time.monotonic() + 5
    while len(lines) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert lines == [b"from task\n", b"task got pong\n"]


def echo_lines(srv, s):
    rd = Reader(s)
    try:
        for _ in range(100):
            s.sendall(b"OK " + rd.readline())
    except ConnClosed:
        pass


@pytest.mark.parametrize("load", ["lua-load", "lua-load-per-thread"])
def test_forgotten_sockets_closed(proxy, port, tcpservers, load):
    """Sockets a script never closes are closed once its call is over: the proxy's
    descriptors come back to their count after many calls."""
    srv = tcpservers(handler=echo_lines)
    px = start(proxy, port, ["http-request lua.sock_forget %d" % srv.port],
               glob=["nbthread 2"], load=load)
    get(port)
    base = nfds(px.pid)
    for _ in range(100):
        r = get(port)
        assert r.body.decode() == "OK hi"
    assert wait_fds(px.pid, base) <= base


def test_error_after_connect_closes(proxy, port, tcpservers):
    """A script failing after connect: its error is reported with the file and line, the
    request goes on (the action is skipped) and the socket is closed."""
    srv = tcpservers(mode="hold", io_timeout=10.0)
    px = start(proxy, port, ["http-request lua.sock_boom %d" % srv.port])
    get(port)
    base = nfds(px.pid)
    for _ in range(20):
        assert get(port).status == 200
    assert wait_fds(px.pid, base) <= base
    assert "sock_client.lua:" in px.stderr() and "boom after connect" in px.stderr()
    deadline = time.monotonic() + 5
    while srv.active and time.monotonic() < deadline:
        time.sleep(0.05)
    assert srv.active == 0  # the server saw every connection closed


def test_shared_state_two_threads(proxy, port, tcpservers):
    """lua-load with two threads: sockets kept in a global and dropped in batches are
    collected by either thread; every call answers and no descriptor is left."""
    srv = tcpservers(handler=echo_lines)
    px = start(proxy, port, ["http-request lua.sock_keep %d" % srv.port],
               glob=["nbthread 2"])
    get(port)
    base = nfds(px.pid)
    bad = []

    def worker():
        for _ in range(60):
            r = get(port)
            if r.status != 200 or r.body.decode() != "OK hi":
                bad.append(r)

    ths = [threading.Thread(target=worker) for _ in range(4)]
    for t in ths:
        t.start()
    for t in ths:
        t.join(timeout=60)
    assert not bad
    assert px.alive()
    # at most the 7 sockets the global may still hold
    assert wait_fds(px.pid, base + 7) <= base + 7


@pytest.mark.ours
def test_fetch_cannot_wait(proxy, port):
    """In a sample fetch a socket cannot wait: a Lua error the script catches (HAProxy 2.6
    fails the whole fetch with "yield not allowed")."""
    cfg = make_cfg(port, glob=["lua-load %s" % (LUA / "sock_client.lua")],
                   listen=['http-request return status 200 content-type text/plain '
                           'lf-string "%[lua.sock_fetch]"'])
    proxy(cfg, ports=[port])
    body = get(port).body.decode()
    assert body.startswith("false connect: cannot yield from this context"), body
