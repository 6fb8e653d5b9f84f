"""`option http-pretend-keepalive`: with `http-server-close` or `httpclose` the server is
not told that its connection closes after the response (no `Connection: close` to it; an
HTTP/1.0 request gets `Connection: keep-alive`), while the proxy still closes it.

Owns: the Connection header the server receives and what the client is told. Runs
against Debian's haproxy too.
"""

import socket

import pytest

HEAD = ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 10s",
        "    timeout server 10s"]


def exchange(port, ver):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET / HTTP/%s\r\nHost: x\r\n\r\n" % ver)
    data = b""
    try:
        while True:
            c = s.recv(4096)
            if not c:
                break
            data += c
            if ver == b"1.1" and b"hello from" in data:
                break
    finally:
        s.close()
    head = data.split(b"\r\n\r\n")[0].lower().split(b"\r\n")
    return head[0], [x for x in head if x.startswith(b"connection:")]


@pytest.mark.parametrize("mode,v11_srv,v11_cli", [
    ("http-server-close", [], []),
    ("httpclose", [], [b"connection: close"]),
])
def test_pretend_keepalive(proxy, backend, port, mode, v11_srv, v11_cli):
    cfg = HEAD + ["listen l", "    bind 127.0.0.1:%d" % port, "    option " + mode,
                  "    option http-pretend-keepalive",
                  "    server s1 127.0.0.1:%d" % backend.port]
    proxy("\n".join(cfg) + "\n", ports=[port])
    status, conn = exchange(port, b"1.1")
    assert status.startswith(b"http/1.1 200") and conn == v11_cli
    assert backend.last().header_all("connection") == v11_srv
    status, conn = exchange(port, b"1.0")
    assert conn == [b"connection: close"]
    assert backend.last().header_all("connection") == ["keep-alive"]
    before = backend.conn_count
    exchange(port, b"1.1")
    assert backend.conn_count == before + 1  # the server connection was not kept


def test_without_pretend_the_server_is_told(proxy, backend, port):
    cfg = HEAD + ["listen l", "    bind 127.0.0.1:%d" % port, "    option http-server-close",
                  "    server s1 127.0.0.1:%d" % backend.port]
    proxy("\n".join(cfg) + "\n", ports=[port])
    exchange(port, b"1.1")
    assert backend.last().header_all("connection") == ["close"]
