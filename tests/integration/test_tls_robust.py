"""Bad input on a TLS listener: the proxy survives it and keeps serving.

Owns: garbage bytes, a truncated ClientHello, a plain HTTP request on the TLS port, a client
closing mid-handshake, 200 rapid failed handshakes (after each: a normal HTTPS request
works and the process is alive), and a handshake flood while a keep-alive HTTPS client
keeps being served (all its requests succeed, median latency under a generous bound).
"""

import os
import socket
import ssl
import statistics
import threading
import time

import pytest
from tlsutil import https_exchange, https_get, tls_connect

CFG = ("global\n    maxconn 2000\n"
       "defaults\n    mode http\n    timeout connect 2s\n    timeout client 3s\n"
       "    timeout server 5s\n"
       "frontend fe\n    bind 127.0.0.1:%d ssl crt %s\n    default_backend be\n"
       "backend be\n    server s1 127.0.0.1:%d\n")


@pytest.fixture
def tls_px(proxy, backend, pki, port):
    return proxy(CFG % (port, pki.p("a.pem"), backend.port), ports=[port])


def client_hello():
    """The bytes of a real TLS ClientHello (made by Python's ssl on memory BIOs)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = ctx.wrap_bio(inc, out, server_hostname="a.test")
    try:
        obj.do_handshake()
    except ssl.SSLWantReadError:
        pass
    return out.read()


def assert_serves(px, port):
    assert px.alive()
    r = https_get(port, "/after", sni="a.test")
    assert r.status == 200 and r.header("X-Server") == "s1"


def send_and_drain(port, data, close_early=False, timeout=3.0):
    """Connect, send data, read until the server closes (bounded); returns what came back."""
    got = b""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.settimeout(timeout)
        if data:
            s.sendall(data)
        if close_early:
            return got
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                d = s.recv(65536)
            except (socket.timeout, ConnectionError):
                break
            if not d:
                break
            got += d
    return got


def test_garbage_bytes(tls_px, port):
    got = send_and_drain(port, os.urandom(4096))
    assert b"HTTP/" not in got
    got = send_and_drain(port, b"\x16\x03\x01\xff\xff" + b"\x00" * 300)
    assert b"HTTP/" not in got
    assert_serves(tls_px, port)


def test_truncated_client_hello(tls_px, port):
    hello = client_hello()
    assert hello[0] == 0x16
    # half a ClientHello then a close, and half a ClientHello then silence (the server
    # gives up on its own: timeout client 3s is longer than we wait, so we close first)
    send_and_drain(port, hello[:len(hello) // 2], close_early=True)
    with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
        s.sendall(hello[:40])
        time.sleep(0.2)
    assert_serves(tls_px, port)


def test_plain_http_on_tls_port(tls_px, port):
    got = send_and_drain(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    # the TLS layer rejects it: no HTTP response, the connection is closed
    assert not got.startswith(b"HTTP/1.1 200"), got
    assert_serves(tls_px, port)


def test_close_mid_handshake(tls_px, port):
    hello = client_hello()
    for _ in range(5):
        with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
            s.settimeout(3)
            s.sendall(hello)
            first = s.recv(5)  # the ServerHello record header arrives, then we leave
            assert first[:1] == b"\x16", first
    # and with an RST instead of a FIN
    with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
        s.sendall(hello)
        s.recv(5)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    assert_serves(tls_px, port)


def test_rapid_failed_handshakes(tls_px, port, pki):
    hello = client_hello()
    bad_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    bad_ctx.load_verify_locations(pki.p("ca2.crt"))  # the wrong CA: the client aborts
    bad_ctx.check_hostname = False
    deadline = time.monotonic() + 20
    for i in range(200):
        assert time.monotonic() < deadline
        kind = i % 4
        try:
            if kind == 0:
                send_and_drain(port, os.urandom(64), close_early=True)
            elif kind == 1:
                send_and_drain(port, hello[:len(hello) - 7], close_early=True)
            elif kind == 2:
                with tls_connect(port, sni="a.test", ctx=bad_ctx, timeout=3):
                    pass
            else:
                send_and_drain(port, b"\x16\x03\x01\x00\x05hello", timeout=1.0)
        except (ssl.SSLError, OSError):
            pass
    assert_serves(tls_px, port)


def test_handshake_flood_keepalive_latency(tls_px, port):
    stop = threading.Event()
    counts = []

    def flood():
        n = 0
        end = time.monotonic() + 3.0
        while not stop.is_set() and time.monotonic() < end:
            try:
                with tls_connect(port, sni="a.test", timeout=3):
                    n += 1
            except (ssl.SSLError, OSError):
                pass
        counts.append(n)

    threads = [threading.Thread(target=flood, daemon=True) for _ in range(3)]
    s = tls_connect(port, sni="a.test", timeout=5)
    lat = []
    try:
        for t in threads:
            t.start()
        end = time.monotonic() + 3.0
        for _ in range(2000):
            if time.monotonic() >= end:
                break
            t0 = time.monotonic()
            r = https_exchange(s, "/ka", "a.test")
            lat.append(time.monotonic() - t0)
            assert r.status == 200, r
            time.sleep(0.02)
    finally:
        stop.set()
        for t in threads:
            t.join(10)
        s.close()
    assert len(lat) >= 10
    assert sum(counts) > 10  # the flood really ran
    assert statistics.median(lat) < 0.2, sorted(lat)
    assert_serves(tls_px, port)
