"""Bodies that trickle: a chunked response whose first chunk is followed by a pause must
reach the client before the pause ends — within HAProxy's 200 ms MSG_MORE ceiling by
default, at once with `option http-no-delay`."""

import socket
import time

import pytest

from conftest import make_cfg
from rawserver import read_request


@pytest.fixture
def trickle_server(raw_server):
    """Answers every request with a first chunk, a 2 s pause, then the rest."""
    def handler(sock, rd, idx):
        read_request(rd)
        sock.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nfirst\r\n")
        time.sleep(2)
        sock.sendall(b"4\r\nlast\r\n0\r\n\r\n")

    return raw_server(handler).port


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
