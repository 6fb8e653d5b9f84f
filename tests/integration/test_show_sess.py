"""Runtime API: `show sess`, `show sess all|<id>` and `shutdown session <id>`.

Owns: which streams the lists show (requests waiting for a slow server, on several
threads; not idle keep-alive connections), their frontend/backend/server, the long form,
killing exactly one client's stream, and the answers to bad ids and levels.
"""

import re
import socket
import time

import pytest
from conftest import cli, free_port

LINE = re.compile(r"^(0x[0-9a-f]+): proto=(\S+) src=(\S+) fe=(\S+) be=(\S+) srv=(\S+) ")


def sess_cfg(sock, port, srv_port, level="admin"):
    return (
        "global\n"
        "    nbthread 2\n"
        "    stats socket %s level %s\n"
        "defaults\n"
        "    mode http\n"
        "    timeout connect 2s\n"
        "    timeout client 30s\n"
        "    timeout server 30s\n"
        "frontend fe1\n"
        "    bind 127.0.0.1:%d\n"
        "    default_backend be1\n"
        "backend be1\n"
        "    server s1 127.0.0.1:%d\n" % (sock, level, port, srv_port))


def sessions(sock):
    """{client port: (id, fe, be, srv)} of the streams of fe1 that show sess lists."""
    out = {}
    for ln in cli(sock, "show sess").splitlines():
        m = LINE.match(ln)
        if m and m.group(4) == "fe1":
            out[int(m.group(3).rsplit(":", 1)[1])] = (m.group(1), m.group(4), m.group(5),
                                                        m.group(6))
    return out


def wait_sessions(sock, ports, timeout=5.0):
    """Polls (bounded) until every client port in <ports> is listed; returns the listing."""
    deadline = time.monotonic() + timeout
    got = {}
    while time.monotonic() < deadline:
        got = sessions(sock)
        if all(p in got for p in ports):
            return got
        time.sleep(0.05)
    return got


def slow_clients(port, n, delay=4):
    cs = []
    for i in range(n):
        c = socket.create_connection(("127.0.0.1", port), timeout=5)
        c.sendall(b"GET /?delay=%d&i=%d HTTP/1.1\r\nHost: x\r\n\r\n" % (delay, i))
        cs.append(c)
    return cs


@pytest.fixture
def setup(tmp_path, proxy, backend):
    sock = str(tmp_path / "s.sock")
    port = free_port()
    p = proxy(sess_cfg(sock, port, backend.port), ports=[port])
    return sock, port, p


def test_slow_requests_listed_with_fe_be_srv(setup):
    sock, port, _ = setup
    cs = slow_clients(port, 6)
    try:
        ports = [c.getsockname()[1] for c in cs]
        got = wait_sessions(sock, ports)
        for p in ports:
            assert p in got, "client %d not in show sess: %r" % (p, got)
            assert got[p][1:] == ("fe1", "be1", "s1")
        assert len({got[p][0] for p in ports}) == len(ports)  # one id per stream
    finally:
        for c in cs:
            c.close()


def test_short_line_keys_in_order(setup):
    sock, port, _ = setup
    cs = slow_clients(port, 1)
    try:
        p = cs[0].getsockname()[1]
        wait_sessions(sock, [p])
        ln = [x for x in cli(sock, "show sess").splitlines() if (":%d " % p) in x][0]
        keys = re.findall(r" ([a-z_]+)[=\[]", ln)
        order = ["proto", "src", "fe", "be", "srv", "age", "rq", "rp", "exp", "rc"]
        assert [k for k in keys if k in order] == order, ln
    finally:
        cs[0].close()


def test_idle_keepalive_not_listed(setup):
    sock, port, _ = setup
    c = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        c.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        deadline = time.monotonic() + 5
        while b"\r\n\r\n" not in data and time.monotonic() < deadline:
            data += c.recv(4096)
        assert data.startswith(b"HTTP/1.1 200")
        time.sleep(0.2)
        assert c.getsockname()[1] not in sessions(sock)
    finally:
        c.close()


@pytest.mark.ours
def test_partial_request_listed_without_backend(setup):
    # a stream exists from the first request byte here (HAProxy 2.6 creates it once the
    # headers are complete, so it does not list such a connection)
    sock, port, _ = setup
    c = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        c.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        p = c.getsockname()[1]
        got = wait_sessions(sock, [p])
        assert got[p][1:] == ("fe1", "fe1", "<none>")
    finally:
        c.close()


def test_long_forms(setup):
    sock, port, _ = setup
    cs = slow_clients(port, 1)
    try:
        p = cs[0].getsockname()[1]
        sid = wait_sessions(sock, [p])[p][0]
        one = cli(sock, "show sess %s" % sid)
        assert one.startswith(sid + ": [")
        assert "source=127.0.0.1:%d" % p in one
        assert "  frontend=fe1 (id=" in one
        assert "  backend=be1 (id=" in one
        assert "  server=s1 (id=1) addr=127.0.0.1:" in one
        allf = cli(sock, "show sess all")
        assert (sid + ": [") in allf
    finally:
        cs[0].close()


def test_unknown_ids_and_missing_id(setup):
    sock, _, _ = setup
    assert cli(sock, "show sess 0x1") == "Session not found.\n\n"
    assert cli(sock, "shutdown session 0x1") == "No such session (use 'show sess').\n\n"
    assert cli(sock, "shutdown session") == "Session pointer expected (use 'show sess').\n\n"


def read_response_head(c, timeout=3.0):
    c.settimeout(timeout)
    data = b""
    deadline = time.monotonic() + timeout
    while b"\r\n\r\n" not in data and time.monotonic() < deadline:
        d = c.recv(4096)
        if not d:
            break
        data += d
    return data


def test_shutdown_session_ends_only_that_client(setup):
    # as 2.6: a stream waiting for its response is answered 502 by the kill
    sock, port, _ = setup
    cs = slow_clients(port, 3, delay=6)
    try:
        ports = [c.getsockname()[1] for c in cs]
        got = wait_sessions(sock, ports)
        assert cli(sock, "shutdown session %s" % got[ports[1]][0]) == "\n"
        assert read_response_head(cs[1]).startswith(b"HTTP/1.1 502 ")
        left = wait_sessions(sock, [ports[0], ports[2]])
        assert ports[0] in left and ports[2] in left and ports[1] not in left
        for c in (cs[0], cs[2]):
            c.settimeout(0.2)
            with pytest.raises(socket.timeout):
                c.recv(10)
    finally:
        for c in cs:
            c.close()


@pytest.mark.ours
def test_shutdown_session_cuts_partial_request(setup):
    # a request still being received has no server side: its connection is closed
    sock, port, _ = setup
    c = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        c.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        p = c.getsockname()[1]
        sid = wait_sessions(sock, [p])[p][0]
        assert cli(sock, "shutdown session %s" % sid) == "\n"
        c.settimeout(3)
        try:
            assert c.recv(100) == b""
        except ConnectionResetError:
            pass
        assert p not in sessions(sock)
    finally:
        c.close()


def test_shutdown_needs_admin(tmp_path, proxy, backend):
    sock = str(tmp_path / "o.sock")
    port = free_port()
    proxy(sess_cfg(sock, port, backend.port, level="operator"), ports=[port])
    assert cli(sock, "shutdown session 0x1") == "Permission denied\n\n"
    assert "Session not found." in cli(sock, "show sess 0x1")
