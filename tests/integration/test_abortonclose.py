"""`option abortonclose`: a client that closes (or half-closes) its side while its request
waits in the queue is dropped before the server sees it, and one that does so while the
response is awaited gets 400; without the option both requests are served as usual.

Owns: what the client and the server see in these cases. Runs against Debian's haproxy
too (reference mode): the expectations are 2.6's.
"""

import socket
import threading
import time

import pytest

HEAD = ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 10s",
        "    timeout server 10s", "    timeout queue 10s"]


def cfg(port, backend, abort):
    lines = HEAD + (["    option abortonclose"] if abort else [])
    lines += ["listen l", "    bind 127.0.0.1:%d" % port,
              "    server s1 127.0.0.1:%d maxconn 1" % backend.port]
    return "\n".join(lines) + "\n"


def request(port, path, how):
    """Sends GET path; how: '' waits for the answer, 'wr' half-closes first, 'close' closes.
    Returns the first bytes answered (b'' when closed without an answer)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path.encode())
        if how == "close":
            time.sleep(0.2)
            return None
        if how == "wr":
            s.shutdown(socket.SHUT_WR)
        data = b""
        deadline = time.time() + 5
        while time.time() < deadline:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
            if b"\r\n\r\n" in data:
                break
        return data
    finally:
        s.close()


def queued_case(port, backend, how):
    """A holds the only slot for 1 s; B arrives meanwhile and closes as <how> says."""
    res = {}
    t = threading.Thread(target=lambda: res.__setitem__("a", request(port, "/a?delay=1", "")))
    t.start()
    time.sleep(0.3)
    res["b"] = request(port, "/b", how)
    t.join(timeout=10)
    time.sleep(0.5)  # let a request B that was kept reach the server
    return res, [r.path for r in backend.requests]


@pytest.mark.parametrize("how", ["wr", "close"])
def test_queued_request_of_a_gone_client_is_dropped(proxy, backend, port, how):
    proxy(cfg(port, backend, True), ports=[port])
    res, paths = queued_case(port, backend, how)
    assert res["a"].startswith(b"HTTP/1.1 200")
    assert paths == ["/a"]
    if how == "wr":
        assert res["b"] == b""  # closed without an answer


@pytest.mark.parametrize("how", ["wr", "close"])
def test_without_the_option_a_queued_request_is_served(proxy, backend, port, how):
    proxy(cfg(port, backend, False), ports=[port])
    res, paths = queued_case(port, backend, how)
    assert paths == ["/a", "/b"]
    if how == "wr":
        assert res["b"].startswith(b"HTTP/1.1 200")


def test_half_close_while_awaiting_response(proxy, backend, port):
    proxy(cfg(port, backend, True), ports=[port])
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET /x?delay=1 HTTP/1.1\r\nHost: x\r\n\r\n")
    time.sleep(0.2)
    s.shutdown(socket.SHUT_WR)
    t0 = time.time()
    data = s.recv(4096)
    s.close()
    assert data.startswith(b"HTTP/1.1 400")
    assert b"connection: close" in data.lower()
    assert time.time() - t0 < 0.7  # at once, not after the server's answer


def test_half_close_while_awaiting_response_without_option(proxy, backend, port):
    proxy(cfg(port, backend, False), ports=[port])
    assert request(port, "/x?delay=0.5", "wr").startswith(b"HTTP/1.1 200")
