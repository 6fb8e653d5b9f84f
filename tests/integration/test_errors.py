"""Error statuses the proxy produces itself, checked byte for byte against HAProxy's pages.

Owns: 400, 408, 413, 414, 431, 502, 503, 504 as a raw-socket client sees them, and whether
the connection is closed after them. Pages captured from HAProxy (2.6.12 for the ones both
versions share; 414/431 from HAProxy 3.x's http.c since 2.6 answers 400 there).
"""

import time

import httpc
import pytest
from conftest import make_cfg

# Pages emitted by the H1 mux keep HAProxy's header case; the ones built by the stream
# (502/503/504) go through the normal output path and come out lower-case.
PAGE_400 = (b"HTTP/1.1 400 Bad request\r\nContent-length: 90\r\nCache-Control: no-cache\r\n"
            b"Connection: close\r\nContent-Type: text/html\r\n\r\n"
            b"<html><body><h1>400 Bad request</h1>\nYour browser sent an invalid request.\n"
            b"</body></html>\n")
PAGE_408 = (b"HTTP/1.1 408 Request Time-out\r\nContent-length: 110\r\nCache-Control: no-cache\r\n"
            b"Connection: close\r\nContent-Type: text/html\r\n\r\n"
            b"<html><body><h1>408 Request Time-out</h1>\nYour browser didn't send a complete "
            b"request in time.\n</body></html>\n")
PAGE_413 = (b"HTTP/1.1 413 Payload Too Large\r\nContent-length: 106\r\nCache-Control: no-cache\r\n"
            b"Content-Type: text/html\r\n\r\n"
            b"<html><body><h1>413 Payload Too Large</h1>\nThe request entity exceeds the maximum "
            b"allowed.\n</body></html>\n")
PAGE_414 = (b"HTTP/1.1 414 URI Too Long\r\nContent-length: 110\r\nCache-Control: no-cache\r\n"
            b"Content-Type: text/html\r\n\r\n"
            b"<html><body><h1>414 URI Too Long</h1>\nThe URI provided was too long for the "
            b"server to process.\n</body></html>\n")
PAGE_422 = (b"HTTP/1.1 422 Unprocessable Content\r\nContent-length: 116\r\n"
            b"Cache-Control: no-cache\r\nContent-Type: text/html\r\n\r\n"
            b"<html><body><h1>422 Unprocessable Content</h1>\nThe server cannot process the "
            b"contained instructions.\n</body></html>\n")
PAGE_431 = (b"HTTP/1.1 431 Request Header Fields Too Large\r\nContent-length: 106\r\n"
            b"Cache-Control: no-cache\r\nContent-Type: text/html\r\n\r\n"
            b"<html><body><h1>431 Request Header Fields Too Large</h1>\n>Request Header Fields "
            b"Too Large.\n</body></html>\n")
PAGE_502 = (b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 107\r\ncache-control: no-cache\r\n"
            b"content-type: text/html\r\n\r\n"
            b"<html><body><h1>502 Bad Gateway</h1>\nThe server returned an invalid or incomplete "
            b"response.\n</body></html>\n")
PAGE_503 = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 107\r\n"
            b"cache-control: no-cache\r\n"
            b"content-type: text/html\r\n\r\n"
            b"<html><body><h1>503 Service Unavailable</h1>\nNo server is available to handle "
            b"this request.\n</body></html>\n")
PAGE_504 = (b"HTTP/1.1 504 Gateway Time-out\r\ncontent-length: 92\r\ncache-control: no-cache\r\n"
            b"content-type: text/html\r\n\r\n"
            b"<html><body><h1>504 Gateway Time-out</h1>\nThe server didn't respond in time.\n"
            b"</body></html>\n")

GET = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n"


@pytest.fixture
def px(proxy, backend, port):
    """A proxy in front of one test backend, timeout http-request 1s."""
    proxy(make_cfg(port, [backend], defaults=["timeout http-request 1s"]), ports=[port])
    return port


def test_400_malformed_request_line_closes(px, backend):
    data, closed = httpc.exchange(px, b"GARBAGE\r\n\r\n")
    assert data == PAGE_400
    assert closed
    assert backend.conn_count == 0


def test_400_too_many_headers(px, backend):
    hdrs = b"".join(b"X-H%d: v\r\n" % i for i in range(102))
    data, closed = httpc.exchange(px, b"GET / HTTP/1.1\r\nHost: t\r\n" + hdrs + b"\r\n")
    assert data == PAGE_400
    assert closed
    assert backend.conn_count == 0


def test_100_headers_accepted(px, backend):
    hdrs = b"".join(b"X-H%d: v\r\n" % i for i in range(99))
    r = httpc.request(px, b"GET / HTTP/1.1\r\nHost: t\r\n" + hdrs + b"\r\n")
    assert r.status == 200
    assert r.body == b"hello from s1\n"
    assert len(backend.last().headers) == 100


@pytest.mark.v32  # HAProxy 2.6 answers 400 here; 3.x answers 414
def test_414_request_line_too_long(px, backend):
    data, closed = httpc.exchange(px, b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\nHost: t\r\n\r\n")
    assert data == PAGE_414
    assert closed
    assert backend.conn_count == 0


@pytest.mark.v32  # HAProxy 2.6 answers 400 here; 3.x answers 431
def test_431_headers_too_large(px, backend):
    # 15,500 bytes of headers: over tune.bufsize - tune.maxrewrite = 15360
    raw = b"GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 15500 + b"\r\n\r\n"
    data, closed = httpc.exchange(px, raw)
    assert data == PAGE_431
    assert closed
    assert backend.conn_count == 0


def test_headers_just_under_limit_pass(px, backend):
    raw = b"GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * 14000 + b"\r\n\r\n"
    r = httpc.request(px, raw)
    assert r.status == 200
    assert backend.last().header("X-Big") == "a" * 14000


def test_408_request_timeout(px, backend):
    s = httpc.connect(px, timeout=5)
    try:
        t0 = time.monotonic()
        s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n")
        data, closed = httpc.recv_until_close(s, 5.0)
        elapsed = time.monotonic() - t0
    finally:
        s.close()
    assert data == PAGE_408
    assert closed
    assert 0.8 <= elapsed < 3.5
    assert backend.conn_count == 0


def test_413_http10_get_with_body(px, backend):
    data, _ = httpc.exchange(px, b"GET / HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc",
                             until=len(PAGE_413))
    assert data == PAGE_413
    assert len(backend.requests) == 0


def test_503_no_server(proxy, port):
    proxy(make_cfg(port, []), ports=[port])
    data, _ = httpc.exchange(port, GET, until=len(PAGE_503))
    assert data == PAGE_503


def test_503_connect_refused(proxy, port):
    from conftest import free_port
    dead = free_port()
    proxy(make_cfg(port, [("dead", dead)], defaults=["retries 1"]), ports=[port])
    t0 = time.monotonic()
    data, _ = httpc.exchange(port, GET, timeout=8, until=len(PAGE_503))
    assert data == PAGE_503
    assert time.monotonic() - t0 < 6


def test_502_server_sends_garbage(px, backend):
    data, _ = httpc.exchange(px, b"GET /?action=garbage HTTP/1.1\r\nHost: t\r\n\r\n",
                             until=len(PAGE_502))
    assert data == PAGE_502
    assert backend.last().path == "/"


def test_502_server_closes_without_answer(px, backend):
    data, _ = httpc.exchange(px, b"GET /?action=close HTTP/1.1\r\nHost: t\r\n\r\n",
                             until=len(PAGE_502))
    assert data == PAGE_502
    assert len(backend.requests) == 1


def test_504_server_timeout(proxy, backend, port):
    proxy(make_cfg(port, [backend], defaults=["timeout server 1s"]), ports=[port])
    t0 = time.monotonic()
    data, _ = httpc.exchange(port, b"GET /?delay=3 HTTP/1.1\r\nHost: t\r\n\r\n", timeout=6,
                             until=len(PAGE_504))
    elapsed = time.monotonic() - t0
    assert data == PAGE_504
    assert 0.8 <= elapsed < 2.8


def test_errorfile_replaces_503(proxy, port, tmp_path):
    page = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain\r\n"
            b"Content-Length: 12\r\nX-Custom: yes\r\n\r\nsorry, down\n")
    (tmp_path / "503.http").write_bytes(page)
    cfg = make_cfg(port, [], listen=["errorfile 503 %s" % (tmp_path / "503.http")])
    proxy(cfg, ports=[port])
    r = httpc.get(port)
    assert r.status == 503
    assert r.header("X-Custom") == "yes"
    assert r.body == b"sorry, down\n"


def test_proxy_still_serves_after_errors(px, backend):
    for raw in (b"GARBAGE\r\n\r\n", b"GET / HTTP/1.1\r\nHost : t\r\n\r\n", b"\x00\x01\x02\r\n\r\n"):
        httpc.exchange(px, raw, timeout=3)
    r = httpc.get(px)
    assert r.status == 200
    assert r.body == b"hello from s1\n"
