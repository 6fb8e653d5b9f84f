"""Lua services (core.register_service) seen from a client: AppletHTTP answers on
`http-request use-service lua.NAME` and AppletTCP answers on `tcp-request content
use-service lua.NAME`, through real sockets.

Owns: set_status with a reason, add_header, start_response, send (small and 1 MiB in many
calls), getline / receive of POSTed bodies (content-length and chunked), applet.method /
path / qs / headers / length, a service in a frontend and in a listen section with no
server, HEAD, keep-alive, HTTP/1.0, errors before and after the response started, an
endless loop cut by tune.lua.service-timeout while other clients are served, an unknown
service name refused at parse time, and TCP services (echo, line reads, sized reads,
reading until the client shuts its side). The script is lua/b_services.lua.
"""

import hashlib
import re
import socket
import threading
import time

import httpc
import pytest
from backend import Reader
from conftest import HERE, IS_REF, free_port, run_haproxy

SCRIPT = HERE / "lua" / "b_services.lua"

HTTP_CFG = """global
    nbthread 1
    lua-load {script}
    tune.lua.service-timeout 1500ms
defaults
    mode http
    timeout connect 2s
    timeout client 10s
    timeout server 10s
frontend fe
    bind 127.0.0.1:{port}
    http-request use-service lua.info if {{ path_beg /info }}
    http-request use-service lua.body if {{ path /body }}
    http-request use-service lua.lines if {{ path /lines }}
    http-request use-service lua.pieces if {{ path /pieces }}
    http-request use-service lua.nolen if {{ path /nolen }}
    http-request use-service lua.big if {{ path /big }}
    http-request use-service lua.fail if {{ path /fail }}
    http-request use-service lua.failafter if {{ path /failafter }}
    http-request use-service lua.loop if {{ path /loop }}
    http-request use-service lua.hello
listen solo
    bind 127.0.0.1:{port2}
    http-request use-service lua.hello
"""

TCP_CFG = """global
    lua-load {script}
defaults
    mode tcp
    timeout connect 2s
    timeout client 10s
    timeout server 10s
listen echo
    bind 127.0.0.1:{port}
    tcp-request content use-service lua.echo
listen drain
    bind 127.0.0.1:{port2}
    tcp-request content use-service lua.drain
"""


@pytest.fixture
def http_px(proxy):
    port, port2 = free_port(), free_port()
    p = proxy(HTTP_CFG.format(script=SCRIPT, port=port, port2=port2), ports=[port, port2])
    p.port, p.port2 = port, port2
    return p


@pytest.fixture
def tcp_px(proxy):
    port, port2 = free_port(), free_port()
    p = proxy(TCP_CFG.format(script=SCRIPT, port=port, port2=port2), ports=[port, port2])
    p.port, p.port2 = port, port2
    return p


def send(port, raw, method="GET"):
    return httpc.request(port, raw, method=method)


def post(port, path, body, chunked=False):
    if chunked:
        # the body in two chunks, as a streaming client sends it
        half = len(body) // 2
        framed = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in (body[:half], body[half:])
                          if p) + b"0\r\n\r\n"
        head = b"Transfer-Encoding: chunked\r\n"
    else:
        framed = body
        head = b"Content-Length: %d\r\n" % len(body)
    raw = (b"POST %s HTTP/1.1\r\nHost: t\r\nConnection: close\r\n%s\r\n%s"
           % (path.encode(), head, framed))
    return send(port, raw, "POST")


# ---- AppletHTTP ----

def test_status_reason_headers_and_request_view(http_px):
    raw = (b"GET /info/a%20b?x=1&y=2 HTTP/1.1\r\nHost: t.example\r\nX-Foo: one\r\n"
           b"X-Foo: two\r\nConnection: close\r\n\r\n")
    r = send(http_px.port, raw)
    assert (r.status, r.reason) == (201, "Made It")
    assert r.header("X-Service") == "info"
    assert r.header_all("X-Multi") == ["a", "b"]
    # names are lower case, values in arrival order from index 0, and the connection
    # header (hop-by-hop, consumed by the proxy) is not shown
    assert r.body.decode() == ("method=GET\npath=/info/a%20b\nqs=x=1&y=2\nlength=0\n"
                               "host[0]=t.example\n"
                               "x-foo[0]=one\nx-foo[1]=two\n")


def test_request_length_is_the_content_length(http_px):
    raw = (b"PUT /info HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\nConnection: close\r\n"
           b"\r\nabcde")
    r = send(http_px.port, raw)
    assert r.status == 201
    lines = r.body.decode().split("\n")
    assert lines[:4] == ["method=PUT", "path=/info", "qs=", "length=5"]
    assert "content-length[0]=5" in lines


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_receive_whole_body(http_px, chunked):
    r = post(http_px.port, "/body", b"hello posted world", chunked)
    assert r.status == 200
    assert r.header("Content-Type") == "text/plain"
    assert r.body == b"got 18: hello posted world"


def test_receive_body_sent_late(http_px):
    # the body arrives after the headers, once the service already waits for it
    with httpc.connect(http_px.port) as s:
        s.sendall(b"POST /body HTTP/1.1\r\nHost: t\r\nContent-Length: 11\r\n"
                  b"Connection: close\r\n\r\n")
        time.sleep(0.3)
        s.sendall(b"late body!!")
        r = httpc.read_response(Reader(s))
    assert r.body == b"got 11: late body!!"


def test_receive_large_chunked_body(http_px):
    body = bytes(i % 251 for i in range(200000)).replace(b"\n", b"x")
    r = post(http_px.port, "/body", body, chunked=True)
    assert r.status == 200
    assert r.body == b"got 200000: " + body


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_getline(http_px, chunked):
    r = post(http_px.port, "/lines", b"a\nbb\nccc\nlast without newline", chunked)
    assert r.status == 200
    assert r.body == b"[a\n][bb\n][ccc\n][last without newline]"


@pytest.mark.skipif(IS_REF, reason="2.6.12's AppletHTTP:receive(size) returns an empty "
                    "string at once instead of up to size bytes")
@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_receive_sized(http_px, chunked):
    r = post(http_px.port, "/pieces", b"abcdefghij", chunked)
    assert r.status == 200
    assert r.body == b"<abcd><efgh><ij>"


def test_service_in_listen_without_server(http_px):
    r = httpc.get(http_px.port2, "/anything")
    assert r.status == 200
    assert r.body == b"hello from lua\n"
    assert r.header("Content-Length") == "15"


def test_no_content_length_is_chunked_for_http11(http_px):
    r = httpc.get(http_px.port, "/nolen")
    assert r.status == 200
    assert r.header("Transfer-Encoding") == "chunked"
    assert r.header("Content-Length") is None
    assert r.body == b"part1 part2\n"


def test_no_content_length_closes_for_http10(http_px):
    data, closed = httpc.exchange(http_px.port, b"GET /nolen HTTP/1.0\r\nHost: t\r\n\r\n")
    assert closed
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[0] == b"HTTP/1.0 200 OK"
    assert b"transfer-encoding" not in head.lower()
    assert body == b"part1 part2\n"


@pytest.mark.parametrize("path", ["/info", "/nolen"])
def test_head_gets_headers_only(http_px, path):
    with httpc.connect(http_px.port) as s:
        s.sendall(b"HEAD %s HTTP/1.1\r\nHost: t\r\n\r\nGET /hello HTTP/1.1\r\nHost: t\r\n"
                  b"Connection: close\r\n\r\n" % path.encode())
        rd = Reader(s)
        r1 = httpc.read_response(rd, "HEAD")
        r2 = httpc.read_response(rd)
    assert r1.status == (201 if path == "/info" else 200)
    assert r1.body == b""
    # nothing of the HEAD's body leaked in front of the next response
    assert (r2.status, r2.body) == (200, b"hello from lua\n")


def test_keep_alive_two_requests_one_connection(http_px):
    with httpc.connect(http_px.port) as s:
        rd = Reader(s)
        s.sendall(b"GET /hello HTTP/1.1\r\nHost: t\r\n\r\n")
        r1 = httpc.read_response(rd)
        s.sendall(b"POST /body HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nxyz")
        r2 = httpc.read_response(rd)
        s.sendall(b"GET /nolen HTTP/1.1\r\nHost: t\r\n\r\n")
        r3 = httpc.read_response(rd)
        s.sendall(b"GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        r4 = httpc.read_response(rd)
        rest, closed = httpc.recv_until_close(s, 5)
    assert [r.status for r in (r1, r2, r3, r4)] == [200, 200, 200, 200]
    assert [r.body for r in (r1, r2, r3, r4)] == [b"hello from lua\n", b"got 3: xyz",
                                                  b"part1 part2\n", b"hello from lua\n"]
    assert (rest, closed) == (b"", True)


def test_one_mebibyte_in_many_sends(http_px):
    h = hashlib.sha256()
    with httpc.connect(http_px.port, timeout=20) as s:
        s.sendall(b"GET /big HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        r = httpc.read_response(Reader(s), sink=h.update)
    assert r.status == 200
    assert r.header("Content-Length") == "1048576"
    assert r.body_len == 1048576
    want = hashlib.sha256(b"0123456789abcdef" * 65536).hexdigest()
    assert h.hexdigest() == want


def lua_error_line(name, message):
    """The line of SCRIPT holding error("message") inside service <name>."""
    lines = SCRIPT.read_text().split("\n")
    for i, l in enumerate(lines):
        if 'error("%s")' % message in l:
            return i + 1
    raise AssertionError("no error(%r) in the script for %s" % (message, name))


def test_error_before_response_is_500(http_px):
    r = httpc.get(http_px.port, "/fail")
    assert r.status == 500
    assert r.reason == "Internal Server Error"
    # the proxy serves the next request
    r = httpc.get(http_px.port, "/hello")
    assert (r.status, r.body) == (200, b"hello from lua\n")
    line = lua_error_line("fail", "boom before the response")
    deadline = time.monotonic() + 5
    while "boom before" not in http_px.stderr() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert re.search(r"b_services\.lua:%d: boom before the response" % line,
                     http_px.stderr()), http_px.stderr()


def test_error_after_response_started_truncates(http_px):
    data, closed = httpc.exchange(http_px.port, b"GET /failafter HTTP/1.1\r\nHost: t\r\n\r\n")
    assert closed
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.split(b"\r\n")[0] == b"HTTP/1.1 200 OK"
    assert b"content-length: 10" in head.lower()
    assert body == b"12345"  # the client sees a short body and the connection closed
    assert httpc.get(http_px.port, "/hello").status == 200


def test_endless_loop_cut_by_service_timeout(http_px):
    got = {}

    def looping():
        t0 = time.monotonic()
        try:
            got["r"] = httpc.get(http_px.port, "/loop", timeout=10)
        except (OSError, ValueError) as e:
            got["r"] = e
        got["t"] = time.monotonic() - t0

    th = threading.Thread(target=looping)
    th.start()
    try:
        time.sleep(0.3)
        # the loop holds the Lua state but forced yields keep the one thread serving
        for _ in range(5):
            t0 = time.monotonic()
            r = httpc.get(http_px.port, "/hello", timeout=5)
            assert (r.status, r.body) == (200, b"hello from lua\n")
            assert time.monotonic() - t0 < 0.9  # stalled, it would wait >= 1.2 s
            r = httpc.get(http_px.port2, "/", timeout=5)
            assert r.status == 200
    finally:
        th.join(timeout=15)
    assert not th.is_alive()
    assert getattr(got["r"], "status", None) == 500, got["r"]
    assert 1.0 < got["t"] < 5.0  # tune.lua.service-timeout 1500ms
    assert http_px.alive()


def test_unknown_service_is_a_config_error(tmp_path):
    cfg = tmp_path / "bad.cfg"
    cfg.write_text("global\n    lua-load %s\ndefaults\n    mode http\n"
                   "    timeout client 1s\n    timeout server 1s\n    timeout connect 1s\n"
                   "frontend fe\n    bind 127.0.0.1:%d\n"
                   "    http-request use-service lua.nosuch\n" % (SCRIPT, free_port()))
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    alerts = [l for l in r.stderr.split("\n") if "ALERT" in l and "lua.nosuch" in l]
    assert alerts, r.stderr
    assert "bad.cfg:10]" in alerts[0]


# ---- AppletTCP ----

def read_until(s, want, timeout=5.0):
    """Bytes from s until they end with want (or the time runs out)."""
    data = b""
    deadline = time.monotonic() + timeout
    while not data.endswith(want) and time.monotonic() < deadline:
        s.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            d = s.recv(4096)
        except socket.timeout:
            break
        if not d:
            break
        data += d
    return data


def test_tcp_echo_service(tcp_px):
    with socket.create_connection(("127.0.0.1", tcp_px.port), timeout=5) as s:
        assert read_until(s, b"\n") == b"hello\n"
        s.sendall(b"abc\n")
        assert read_until(s, b"\n") == b"echo:abc\n"
        # a line split over two packets
        s.sendall(b"de")
        time.sleep(0.2)
        s.sendall(b"f\n")
        assert read_until(s, b"\n") == b"echo:def\n"
        # receive(4) waits for the 4 bytes even when they come in two pieces
        s.sendall(b"read4\nwx")
        time.sleep(0.2)
        s.sendall(b"yz")
        assert read_until(s, b"\n") == b"four:wxyz\n"
        s.sendall(b"quit\n")
        data, closed = httpc.recv_until_close(s, 5)
    assert (data, closed) == (b"bye\n", True)


def test_tcp_service_ends_at_client_shutdown(tcp_px):
    with socket.create_connection(("127.0.0.1", tcp_px.port), timeout=5) as s:
        assert read_until(s, b"\n") == b"hello\n"
        s.sendall(b"one\ntwo\n")
        s.shutdown(socket.SHUT_WR)
        data, closed = httpc.recv_until_close(s, 5)
    assert (data, closed) == (b"echo:one\necho:two\n", True)


def test_tcp_receive_until_shutdown(tcp_px):
    with socket.create_connection(("127.0.0.1", tcp_px.port2), timeout=5) as s:
        s.sendall(b"some ")
        time.sleep(0.2)
        s.sendall(b"data")
        s.shutdown(socket.SHUT_WR)
        data, closed = httpc.recv_until_close(s, 5)
    assert (data, closed) == (b"got 9 bytes: some data", True)


def test_tcp_services_serve_clients_in_parallel(tcp_px):
    socks = [socket.create_connection(("127.0.0.1", tcp_px.port), timeout=5)
             for _ in range(5)]
    try:
        for s in socks:
            assert read_until(s, b"\n") == b"hello\n"
        for i, s in enumerate(socks):
            s.sendall(b"n%d\n" % i)
        for i, s in enumerate(socks):
            assert read_until(s, b"\n") == b"echo:n%d\n" % i
    finally:
        for s in socks:
            s.close()
