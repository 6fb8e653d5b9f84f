"""Bodies that trickle: a chunked response whose first chunk is followed by a pause must
reach the client before the pause ends — within HAProxy's 200 ms MSG_MORE ceiling by
default, at once with `option http-no-delay`."""

import socket
import threading
import time

import pytest

from conftest import make_cfg


@pytest.fixture
def trickle_server():
    """A server answering every request with a first chunk, a 2 s pause, the rest."""
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(16)
    ls.settimeout(0.2)
    stop = threading.Event()

    def serve(c):
        with c:
            c.settimeout(5)
            try:
                c.recv(65536)
                c.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                          b"5\r\nfirst\r\n")
                stop.wait(2)
                c.sendall(b"4\r\nlast\r\n0\r\n\r\n")
            except OSError:
                pass

    def accept_loop():
        while not stop.is_set():
            try:
                c, _ = ls.accept()
            except socket.timeout:
                continue
            threading.Thread(target=serve, args=(c,), daemon=True).start()

    t = threading.Thread(target=accept_loop, daemon=True)
    t.start()
    yield ls.getsockname()[1]
    stop.set()
    t.join(5)
    ls.close()


def first_chunk_delay(port):
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        t0 = time.monotonic()
        s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        data = b""
        while b"first\r\n" not in data:
            d = s.recv(4096)
            assert d, "closed before the first chunk"
            data += d
        return time.monotonic() - t0


def test_first_chunk_before_the_pause(proxy, port, trickle_server):
    proxy(make_cfg(port, [("s1", trickle_server)]), ports=[port])
    assert first_chunk_delay(port) < 0.5


def test_http_no_delay_sends_at_once(proxy, port, trickle_server):
    proxy(make_cfg(port, [("s1", trickle_server)], listen=["option http-no-delay"]),
          ports=[port])
    assert first_chunk_delay(port) < 0.1
