"""HTTP/1.1 proxying end to end: balancing, connection modes, bodies, tunnels, rules.

Owns: what a client and a backend see when traffic flows through the proxy with the
features of issue 2 (roundrobin with weights, keep-alive, pipelining, HTTP/1.0, no-body
responses, chunked + trailers, 100-continue, 1 GiB bodies, WebSocket, redispatch,
forwardfor, monitor-uri, http-request/http-response rules, use_backend, wrk, nginx).
"""

import hashlib
import os
import re
import shutil
import subprocess
import threading
import time

import httpc
import pytest
from backend import Reader, pattern_chunks, pattern_sha256, ws_accept_key, ws_recv, ws_send
from conftest import free_port, make_cfg, server_lines

GIB = 1 << 30
RSS_LIMIT_KIB = 64 * 1024


def ka_get(s, rd, path="/", extra=b"", method="GET"):
    s.sendall(b"%s %s HTTP/1.1\r\nHost: t\r\n%s\r\n" % (method.encode(), path.encode(), extra))
    return httpc.read_response(rd, method)


def served_by(port, n):
    """Send n requests on fresh connections; return the list of X-Server values."""
    out = []
    for _ in range(n):
        r = httpc.get(port)
        assert r.status == 200
        out.append(r.header("X-Server"))
    return out


def test_get_through_proxy(proxy, backend, port):
    proxy(make_cfg(port, [backend]), ports=[port])
    r = httpc.get(port, "/some/path?x=1")
    assert r.status == 200
    assert r.body == b"hello from s1\n"
    assert r.header("X-Server") == "s1"
    assert backend.last().path == "/some/path"
    assert backend.last().query == {"x": ["1"]}


def test_roundrobin_weights_exact(proxy, backends, port):
    bs = backends(3)
    lines = ["balance roundrobin"] + ["server %s 127.0.0.1:%d weight %d" % (b.name, b.port, w)
                                     for b, w in zip(bs, (1, 2, 3))]
    proxy(make_cfg(port, listen=lines), ports=[port])
    got = served_by(port, 60)
    assert [got.count(n) for n in ("s1", "s2", "s3")] == [10, 20, 30]
    # smooth: the heaviest server never gets more than 3 of any 6 consecutive requests
    assert all(got[i:i + 6].count("s3") == 3 for i in range(0, 60, 6))


def test_roundrobin_equal_weights_alternate(proxy, backends, port):
    bs = backends(3)
    proxy(make_cfg(port, bs, listen=["balance roundrobin"]), ports=[port])
    got = served_by(port, 9)
    assert sorted(got[:3]) == ["s1", "s2", "s3"]
    assert got[3:6] == got[:3] and got[6:9] == got[:3]


def test_weight0_and_disabled_get_nothing(proxy, backends, port):
    a, z, d = backends(names=["a", "zero", "dis"])
    lines = ["balance roundrobin",
             "server a 127.0.0.1:%d" % a.port,
             "server zero 127.0.0.1:%d weight 0" % z.port,
             "server dis 127.0.0.1:%d disabled" % d.port]
    proxy(make_cfg(port, listen=lines), ports=[port])
    assert served_by(port, 10) == ["a"] * 10
    assert z.conn_count == 0 and d.conn_count == 0


def test_backup_only_when_actives_down(proxy, backends, port):
    a, bk = backends(names=["act", "bkp"])
    lines = ["server act 127.0.0.1:%d" % a.port, "server bkp 127.0.0.1:%d backup" % bk.port]
    proxy(make_cfg(port, listen=lines), ports=[port], name="p1")
    assert served_by(port, 5) == ["act"] * 5
    assert bk.conn_count == 0
    port2 = free_port()
    lines = ["server act 127.0.0.1:%d disabled" % a.port,
             "server bkp 127.0.0.1:%d backup" % bk.port]
    proxy(make_cfg(port2, listen=lines), ports=[port2], name="p2")
    assert served_by(port2, 5) == ["bkp"] * 5


def test_keepalive_1000_requests_one_connection(proxy, backend, port):
    p = proxy(make_cfg(port, [backend]), ports=[port])
    with httpc.connect(port) as s:
        rd = Reader(s)
        conns = set()
        for i in range(1000):
            r = ka_get(s, rd, "/?i=%d" % i)
            assert r.status == 200, i
            assert r.body == b"hello from s1\n"
            conns.add(r.header("X-Conn"))
    assert len(backend.requests) == 1000
    assert backend.conn_count == 1, "the proxy should reuse one server connection"
    assert conns == {"1"}
    assert p.alive()


def test_pipelining_three_in_one_write(proxy, backend, port):
    proxy(make_cfg(port, [backend]), ports=[port])
    raw = b"".join(b"GET /?size=%d HTTP/1.1\r\nHost: t\r\n\r\n" % n for n in (1, 2, 3))
    with httpc.connect(port) as s:
        s.sendall(raw)
        rd = Reader(s)
        rs = [httpc.read_response(rd) for _ in range(3)]
    assert [r.status for r in rs] == [200, 200, 200]
    assert [r.body for r in rs] == [b"\x00", b"\x00\x01", b"\x00\x01\x02"]
    assert [req.q("size") for req in backend.requests] == ["1", "2", "3"]


def test_http10_client_closed_by_default(proxy, backend, port):
    proxy(make_cfg(port, [backend]), ports=[port])
    data, closed = httpc.exchange(port, b"GET / HTTP/1.0\r\n\r\n", timeout=5)
    assert closed
    (r,) = httpc.parse_all(data)
    assert r.status == 200
    assert r.body == b"hello from s1\n"


def test_http10_client_keepalive(proxy, backend, port):
    proxy(make_cfg(port, [backend]), ports=[port])
    with httpc.connect(port) as s:
        rd = Reader(s)
        for _ in range(2):
            s.sendall(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            r = httpc.read_response(rd)
            assert r.status == 200
            assert r.body == b"hello from s1\n"
            assert r.header("Connection").lower() == "keep-alive"
    assert len(backend.requests) == 2


def test_http_server_close(proxy, backend, port):
    proxy(make_cfg(port, [backend], defaults=["option http-server-close"]), ports=[port])
    with httpc.connect(port) as s:
        rd = Reader(s)
        for _ in range(3):
            r = ka_get(s, rd)
            assert r.status == 200
    assert len(backend.requests) == 3
    assert backend.conn_count == 3, "one server connection per request"
    assert all("close" in (q.header("Connection") or "").lower() for q in backend.requests)


def test_httpclose(proxy, backend, port):
    proxy(make_cfg(port, [backend], defaults=["option httpclose"]), ports=[port])
    data, closed = httpc.exchange(port, b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", timeout=5)
    assert closed, "httpclose closes the client connection after the response"
    (r,) = httpc.parse_all(data)
    assert r.status == 200
    assert "close" in (backend.last().header("Connection") or "").lower()


def test_head_204_304_have_no_body(proxy, backend, port):
    proxy(make_cfg(port, [backend]), ports=[port])
    with httpc.connect(port) as s:
        rd = Reader(s)
        r = ka_get(s, rd, "/?size=5000", method="HEAD")
        assert r.status == 200 and r.header("Content-Length") == "5000"
        r = ka_get(s, rd, "/?status=204")
        assert r.status == 204 and r.body == b""
        r = ka_get(s, rd, "/?status=304")
        assert r.status == 304 and r.body == b""
        r = ka_get(s, rd, "/")                 # framing still in sync after the three
        assert r.status == 200 and r.body == b"hello from s1\n"
        assert not rd.buf
    assert backend.conn_count == 1


def test_chunked_response_with_trailers(proxy, backend, port):
    proxy(make_cfg(port, [backend]), ports=[port])
    r = httpc.get(port, "/?size=300000&framing=chunked&trailers=1")
    assert r.status == 200
    assert r.header("Transfer-Encoding").lower() == "chunked"
    assert hashlib.sha256(r.body).hexdigest() == pattern_sha256(300000)
    assert ("x-trailer", "done") in [(k.lower(), v) for k, v in r.trailers]


def test_close_delimited_response(proxy, backend, port):
    proxy(make_cfg(port, [backend]), ports=[port])
    data, closed = httpc.exchange(port, b"GET /?size=100000&framing=close HTTP/1.1\r\n"
                                  b"Host: t\r\n\r\n", timeout=5)
    assert closed
    (r,) = httpc.parse_all(data)
    assert r.status == 200
    assert hashlib.sha256(r.body).hexdigest() == pattern_sha256(100000)


def test_chunked_request_body(proxy, backend, port):
    proxy(make_cfg(port, [backend]), ports=[port])
    body = b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
    r = httpc.request(port, b"POST /?echo=1 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
                      b"Transfer-Encoding: chunked\r\n\r\n" + body)
    assert r.status == 200
    assert r.body == b"hello world"
    assert r.header("X-Body-Sha256") == hashlib.sha256(b"hello world").hexdigest()


def test_expect_100_continue(proxy, backend, port):
    proxy(make_cfg(port, [backend]), ports=[port])
    body = b"x" * 1000
    with httpc.connect(port, timeout=5) as s:
        s.sendall(b"POST /?echo=1 HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n"
                  b"Expect: 100-continue\r\n\r\n")
        rd = Reader(s)
        interim = httpc.read_response(rd, keep_1xx=True)
        assert interim.status == 100
        s.sendall(body)
        r = httpc.read_response(rd)
    assert r.status == 200
    assert r.body == body
    assert backend.last().body == body


def test_http_buffer_request_waits_for_body(proxy, backend, port):
    proxy(make_cfg(port, [backend], defaults=["option http-buffer-request"]), ports=[port])
    with httpc.connect(port, timeout=5) as s:
        s.sendall(b"POST /?echo=1 HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nhello")
        time.sleep(0.6)
        assert backend.conn_count == 0, "request forwarded before its body was complete"
        s.sendall(b"world")
        r = httpc.read_response(Reader(s))
    assert r.status == 200
    assert r.body == b"helloworld"


def test_no_buffer_request_forwards_early(proxy, backend, port):
    proxy(make_cfg(port, [backend]), ports=[port])
    with httpc.connect(port, timeout=5) as s:
        s.sendall(b"POST /?echo=1 HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\nhello")
        for _ in range(50):
            if backend.conn_count:
                break
            time.sleep(0.05)
        assert backend.conn_count == 1
        s.sendall(b"world")
        r = httpc.read_response(Reader(s))
    assert r.body == b"helloworld"


class RssWatch:
    """Samples the proxy's VmRSS in a thread while a transfer runs."""

    def __init__(self, p):
        self.p, self.peak, self.stop = p, 0, threading.Event()
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self):
        for _ in range(100000):
            if self.stop.wait(0.1):
                return
            try:
                self.peak = max(self.peak, self.p.rss_kib())
            except OSError:
                return

    def done(self):
        self.stop.set()
        self.t.join(timeout=5)
        return self.peak


def test_1gib_upload_sha256_bounded_memory(proxy, backend, port):
    p = proxy(make_cfg(port, [backend]), ports=[port])
    watch = RssWatch(p)
    t0 = time.monotonic()
    with httpc.connect(port, timeout=60) as s:
        s.sendall(b"POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: %d\r\n\r\n" % GIB)
        for c in pattern_chunks(GIB):
            s.sendall(c)
            assert time.monotonic() - t0 < 60, "upload too slow"
        r = httpc.read_response(Reader(s))
    peak = watch.done()
    assert r.status == 200
    assert r.header("X-Body-Len") == str(GIB)
    assert r.header("X-Body-Sha256") == pattern_sha256(GIB)
    assert backend.last().body_sha == pattern_sha256(GIB)
    assert 0 < peak < RSS_LIMIT_KIB, "proxy RSS peaked at %d KiB" % peak


def test_1gib_download_sha256_bounded_memory(proxy, backend, port):
    p = proxy(make_cfg(port, [backend]), ports=[port])
    watch = RssWatch(p)
    h = hashlib.sha256()
    t0 = time.monotonic()
    with httpc.connect(port, timeout=60) as s:
        s.sendall(b"GET /?size=%d HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n" % GIB)
        r = httpc.read_response(Reader(s), sink=h.update)
    peak = watch.done()
    assert time.monotonic() - t0 < 60
    assert r.status == 200
    assert r.body_len == GIB
    assert h.hexdigest() == pattern_sha256(GIB)
    assert 0 < peak < RSS_LIMIT_KIB, "proxy RSS peaked at %d KiB" % peak


def ws_open(port, path="/ws"):
    s = httpc.connect(port, timeout=5)
    key = "dGhlIHNhbXBsZSBub25jZQ=="
    s.sendall(("GET %s HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
               % (path, key)).encode())
    rd = Reader(s)
    r = httpc.read_response(rd)
    return s, rd, r, key


def test_websocket_echo(proxy, backend, port):
    proxy(make_cfg(port, [backend], defaults=["timeout tunnel 10s"]), ports=[port])
    s, rd, r, key = ws_open(port)
    with s:
        assert r.status == 101
        assert r.header("Sec-WebSocket-Accept") == ws_accept_key(key)
        assert r.header("Upgrade").lower() == "websocket"
        ws_send(s, 0x1, b"hello websocket", mask=True)
        assert ws_recv(rd) == (0x1, b"hello websocket", False)
        blob = os.urandom(70000)
        ws_send(s, 0x2, blob, mask=True)
        assert ws_recv(rd) == (0x2, blob, False)
        ws_send(s, 0x8, b"\x03\xe8", mask=True)
        assert ws_recv(rd) == (0x8, b"\x03\xe8", False)
        _, closed = httpc.recv_until_close(s, 5)
        assert closed


def test_redispatch_dead_server_first(proxy, backend, port):
    dead = free_port()
    lines = ["balance roundrobin", "retries 1", "option redispatch",
             "server dead 127.0.0.1:%d" % dead, "server s1 127.0.0.1:%d" % backend.port]
    proxy(make_cfg(port, listen=lines), ports=[port])
    for _ in range(4):
        r = httpc.get(port, timeout=8)
        assert r.status == 200
        assert r.header("X-Server") == "s1"
    assert len(backend.requests) == 4


def test_forwardfor_added(proxy, backend, port):
    proxy(make_cfg(port, [backend], listen=["option forwardfor"]), ports=[port])
    assert httpc.get(port).status == 200
    assert backend.last().header_all("X-Forwarded-For") == ["127.0.0.1"]


def test_forwardfor_custom_header(proxy, backend, port):
    proxy(make_cfg(port, [backend], listen=["option forwardfor header X-Client"]), ports=[port])
    assert httpc.get(port).status == 200
    assert backend.last().header("X-Client") == "127.0.0.1"
    assert backend.last().header("X-Forwarded-For") is None


def test_forwardfor_if_none_keeps_existing(proxy, backend, port):
    proxy(make_cfg(port, [backend], listen=["option forwardfor if-none"]), ports=[port])
    assert httpc.get(port, headers=[("X-Forwarded-For", "10.1.2.3")]).status == 200
    assert backend.last().header_all("X-Forwarded-For") == ["10.1.2.3"]
    assert httpc.get(port).status == 200
    assert backend.last().header_all("X-Forwarded-For") == ["127.0.0.1"]


def test_forwardfor_appends_without_if_none(proxy, backend, port):
    proxy(make_cfg(port, [backend], listen=["option forwardfor"]), ports=[port])
    assert httpc.get(port, headers=[("X-Forwarded-For", "10.1.2.3")]).status == 200
    vals = backend.last().header_all("X-Forwarded-For")
    assert ",".join(vals).replace(" ", "") == "10.1.2.3,127.0.0.1"


def test_forwardfor_except_skips(proxy, backend, port):
    proxy(make_cfg(port, [backend], listen=["option forwardfor except 127.0.0.0/8"]),
          ports=[port])
    assert httpc.get(port).status == 200
    assert backend.last().header("X-Forwarded-For") is None


def test_monitor_uri(proxy, backend, port):
    proxy(make_cfg(port, [backend], listen=["monitor-uri /health"]), ports=[port])
    r = httpc.get(port, "/health")
    assert r.status == 200
    assert r.body == b"<html><body><h1>200 OK</h1>\nService ready.\n</body></html>\n"
    assert backend.conn_count == 0
    assert httpc.get(port, "/other").header("X-Server") == "s1"


def test_http_request_return(proxy, backend, port):
    rule = ('http-request return status 201 content-type "text/plain" '
            'string "made here" hdr X-Made "by-proxy"')
    proxy(make_cfg(port, [backend], listen=[rule]), ports=[port])
    r = httpc.get(port)
    assert r.status == 201
    assert r.header("Content-Type") == "text/plain"
    assert r.header("X-Made") == "by-proxy"
    assert r.body == b"made here"
    assert backend.conn_count == 0


def test_http_request_deny_default_403(proxy, backend, port):
    proxy(make_cfg(port, [backend], listen=["http-request deny"]), ports=[port])
    r = httpc.get(port)
    assert r.status == 403
    assert r.body == (b"<html><body><h1>403 Forbidden</h1>\nRequest forbidden by administrative "
                      b"rules.\n</body></html>\n")
    assert backend.conn_count == 0


def test_http_request_deny_status_429(proxy, backend, port):
    proxy(make_cfg(port, [backend], listen=["http-request deny deny_status 429"]), ports=[port])
    r = httpc.get(port)
    assert r.status == 429
    assert b"<h1>429 Too Many Requests</h1>" in r.body
    assert backend.conn_count == 0


def test_request_header_rules(proxy, backend, port):
    rules = ["http-request set-header X-Set one", "http-request add-header X-Add two",
             "http-request del-header X-Secret", "http-request set-header X-Over new"]
    proxy(make_cfg(port, [backend], listen=rules), ports=[port])
    r = httpc.get(port, headers=[("X-Secret", "s"), ("X-Over", "old"), ("X-Add", "first")])
    assert r.status == 200
    q = backend.last()
    assert q.header("X-Set") == "one"
    assert q.header_all("X-Add") == ["first", "two"]
    assert q.header("X-Secret") is None
    assert q.header_all("X-Over") == ["new"]


def test_response_header_rules(proxy, backend, port):
    rules = ["http-response set-header X-Resp yes", "http-response del-header X-Conn",
             "http-response add-header X-Resp2 more"]
    proxy(make_cfg(port, [backend], listen=rules), ports=[port])
    r = httpc.get(port)
    assert r.status == 200
    assert r.header("X-Resp") == "yes"
    assert r.header("X-Resp2") == "more"
    assert r.header("X-Conn") is None
    assert r.header("X-Server") == "s1"


def test_use_backend(proxy, backends, port):
    a, b = backends(names=["alpha", "beta"])
    cfg = "\n".join([
        "defaults", "    mode http", "    timeout connect 2s", "    timeout client 30s",
        "    timeout server 30s",
        "frontend fe", "    bind 127.0.0.1:%d" % port, "    use_backend be_b",
        "    default_backend be_a",
        "backend be_a", "    server alpha 127.0.0.1:%d" % a.port,
        "backend be_b", "    server beta 127.0.0.1:%d" % b.port, ""])
    proxy(cfg, ports=[port])
    assert served_by(port, 3) == ["beta"] * 3
    assert a.conn_count == 0


def test_default_backend(proxy, backends, port):
    (a,) = backends(names=["alpha"])
    cfg = "\n".join([
        "defaults", "    mode http", "    timeout connect 2s", "    timeout client 30s",
        "    timeout server 30s",
        "frontend fe", "    bind 127.0.0.1:%d" % port, "    default_backend be_a",
        "backend be_a"] + ["    " + x for x in server_lines([a])] + [""])
    proxy(cfg, ports=[port])
    assert served_by(port, 2) == ["alpha"] * 2


def test_wrk_short_load_no_errors(proxy, backends, port):
    if not shutil.which("wrk"):
        pytest.skip("wrk not installed")
    bs = backends(2)
    p = proxy(make_cfg(port, bs), ports=[port])
    out = subprocess.run(["wrk", "-t2", "-c20", "-d5s", "--timeout", "5s",
                          "http://127.0.0.1:%d/" % port],
                         capture_output=True, text=True, timeout=30).stdout
    m = re.search(r"(\d+) requests in", out)
    assert m, out
    assert int(m.group(1)) > 500, out
    assert "Non-2xx" not in out, out
    assert "Socket errors" not in out, out
    assert p.alive()


def test_nginx_backend(proxy, nginx, port):
    nport, root = nginx()
    blob = os.urandom(1 << 20)
    (root / "blob.bin").write_bytes(blob)
    proxy(make_cfg(port, [("nginx", nport)]), ports=[port])
    r = httpc.get(port, "/hello")
    assert r.status == 200
    assert r.body == b"hello from nginx\n"
    assert "nginx" in (r.header("Server") or "")
    with httpc.connect(port) as s:
        rd = Reader(s)
        for _ in range(3):
            r = ka_get(s, rd, "/blob.bin")
            assert r.status == 200
            assert hashlib.sha256(r.body).hexdigest() == hashlib.sha256(blob).hexdigest()
    assert httpc.get(port, "/missing").status == 404
