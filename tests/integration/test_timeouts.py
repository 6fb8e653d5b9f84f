"""Timeouts as a client sees them: client, http-keep-alive, connect, queue, tunnel, server.

Owns: when the proxy closes an idle or stuck connection and what it answers, with 1 s
timeouts and bounds wide enough for a loaded machine (never more than ~4 s per test).
"""

import socket
import time

import httpc
import pytest
from backend import Reader
from conftest import make_cfg
from test_errors import PAGE_408, PAGE_503
from test_proxy import ws_open


def closed_after(s, timeout):
    """Seconds until the peer closed s (reading and discarding data), None if it did not."""
    t0 = time.monotonic()
    _, closed = httpc.recv_until_close(s, timeout)
    return time.monotonic() - t0 if closed else None


def test_timeout_client_mid_headers(proxy, backend, port):
    # no timeout http-request: timeout client bounds an incomplete request head (408)
    proxy(make_cfg(port, [backend], defaults=["timeout client 1s"]), ports=[port])
    with httpc.connect(port, timeout=6) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n")
        t0 = time.monotonic()
        data, closed = httpc.recv_until_close(s, 5)
        t = time.monotonic() - t0
    assert closed, "connection still open 5 s after timeout client 1s"
    assert data == PAGE_408
    assert 0.8 <= t < 4
    assert len(backend.requests) == 0


def test_timeout_client_idle_before_request(proxy, backend, port):
    proxy(make_cfg(port, [backend], defaults=["timeout client 1s"]), ports=[port])
    with httpc.connect(port, timeout=6) as s:
        t = closed_after(s, 5)
    assert t is not None and 0.8 <= t < 4
    assert len(backend.requests) == 0


def test_timeout_http_keep_alive(proxy, backend, port):
    proxy(make_cfg(port, [backend], defaults=["timeout http-keep-alive 1s"]), ports=[port])
    with httpc.connect(port, timeout=6) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        r = httpc.read_response(Reader(s))
        assert r.status == 200
        t0 = time.monotonic()
        data, closed = httpc.recv_until_close(s, 5)
        t = time.monotonic() - t0
    assert closed and data == b"", "idle keep-alive connection should be closed silently"
    assert 0.8 <= t < 3.5


def test_keep_alive_survives_short_idle(proxy, backend, port):
    proxy(make_cfg(port, [backend], defaults=["timeout http-keep-alive 3s"]), ports=[port])
    with httpc.connect(port, timeout=6) as s:
        rd = Reader(s)
        for _ in range(2):
            s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            assert httpc.read_response(rd).status == 200
            time.sleep(1)
    assert backend.conn_count == 1


def blackhole():
    """A listening socket whose accept queue is full, so new SYNs get no answer.

    Returns (listener, fillers) or None if the kernel still completes connections."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(0)
    port = ls.getsockname()[1]
    fillers = []
    for _ in range(8):
        c = socket.socket()
        c.settimeout(0.3)
        try:
            c.connect(("127.0.0.1", port))
            fillers.append(c)
        except (socket.timeout, OSError):
            c.close()
            return ls, fillers
    for c in fillers:
        c.close()
    ls.close()
    return None


def test_timeout_connect_blackhole(proxy, port):
    bh = blackhole()
    if bh is None:
        pytest.skip("cannot make an unanswered connect on loopback here")
    ls, fillers = bh
    try:
        bport = ls.getsockname()[1]
        proxy(make_cfg(port, [("bh", bport)], defaults=["timeout connect 1s", "retries 0"]),
              ports=[port])
        t0 = time.monotonic()
        data, _ = httpc.exchange(port, b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", timeout=6,
                                 until=len(PAGE_503))
        t = time.monotonic() - t0
        assert data == PAGE_503
        assert 0.8 <= t < 4
    finally:
        for c in fillers:
            c.close()
        ls.close()


def test_timeout_queue_503(proxy, backend, port):
    proxy(make_cfg(port, [backend], srv_opts="maxconn 1",
                   defaults=["timeout queue 1s"]), ports=[port])
    slow = httpc.connect(port, timeout=6)
    try:
        slow.sendall(b"GET /?delay=3 HTTP/1.1\r\nHost: t\r\n\r\n")
        for _ in range(40):
            if backend.requests:
                break
            time.sleep(0.05)
        assert len(backend.requests) == 1
        t0 = time.monotonic()
        data, _ = httpc.exchange(port, b"GET /second HTTP/1.1\r\nHost: t\r\n\r\n",
                                 timeout=5, until=len(PAGE_503))
        t = time.monotonic() - t0
        assert data == PAGE_503
        assert 0.8 <= t < 2.8
        assert [q.path for q in backend.requests] == ["/"]
        assert httpc.read_response(Reader(slow)).status == 200
    finally:
        slow.close()


def test_queued_request_served_when_slot_frees(proxy, backend, port):
    proxy(make_cfg(port, [backend], srv_opts="maxconn 1",
                   defaults=["timeout queue 5s"]), ports=[port])
    with httpc.connect(port, timeout=6) as slow:
        slow.sendall(b"GET /?delay=1 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        time.sleep(0.2)
        r = httpc.get(port, "/second", timeout=6)
        assert r.status == 200
        assert httpc.read_response(Reader(slow)).status == 200
    assert sorted(q.path for q in backend.requests) == ["/", "/second"]


def test_timeout_tunnel_websocket_idle(proxy, backend, port):
    proxy(make_cfg(port, [backend], defaults=["timeout tunnel 1s"]), ports=[port])
    s, rd, r, _ = ws_open(port)
    with s:
        assert r.status == 101
        t = closed_after(s, 5)
    assert t is not None, "idle tunnel not closed 5 s after timeout tunnel 1s"
    assert 0.8 <= t < 3.5


def test_tunnel_not_cut_by_short_client_timeout(proxy, backend, port):
    # timeout tunnel supersedes client/server timeouts once the tunnel is established
    proxy(make_cfg(port, [backend], defaults=["timeout tunnel 5s", "timeout client 500ms",
                                              "timeout server 500ms"]), ports=[port])
    from backend import ws_recv, ws_send
    s, rd, r, _ = ws_open(port)
    with s:
        assert r.status == 101
        time.sleep(1.5)
        ws_send(s, 0x1, b"still here", mask=True)
        assert ws_recv(rd) == (0x1, b"still here", False)


def test_timeout_server_504_then_next_request_ok(proxy, backend, port):
    proxy(make_cfg(port, [backend], defaults=["timeout server 1s"]), ports=[port])
    r = httpc.get(port, "/?delay=2", timeout=6)
    assert r.status == 504
    r = httpc.get(port, "/?delay=0.2", timeout=6)
    assert r.status == 200


# Not tested: timeout client-fin / server-fin. HAProxy 2.6 keeps a half-closed client
# waiting for a slow server until timeout server, so no reliable client-visible check.
