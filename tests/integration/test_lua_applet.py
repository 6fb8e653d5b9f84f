"""Lua services: core.register_service(NAME, "http"|"tcp", fn) answered through
"http-request use-service lua.NAME" (AppletHTTP) and, in mode tcp, "tcp-request content
use-service lua.NAME" (AppletTCP).

Owns: what a client sees from a Lua service (status, reason, headers, the framing of the
body for HTTP/1.1, HTTP/1.0 and HEAD requests, keep-alive), the request as the applet sees
it, request bodies read whole, in pieces and by lines (content-length and chunked, arriving
slowly), large bodies both ways, errors before and after start_response, a runaway loop and
a huge allocation while other clients are served, waits longer than the client timeout, the
log line, TCP services (echo, receive sizes, errors, a large answer), the config refusals,
lua-load-per-thread. The scripts are tests/integration/lua/svc_*.lua. Each test runs on
Debian's haproxy 2.6 too unless marked `ours` (a documented difference).
"""

import hashlib
import re
import socket
import threading
import time

import httpc
import pytest
from backend import ConnClosed, Reader
from conftest import HERE, free_port, run_haproxy

LUA = HERE / "lua"
HTTP_SVCS = ["hello", "req", "status", "echo", "pieces", "lines", "big", "stream", "clen",
             "short", "err_before", "err_after", "nothing", "send_early", "loop",
             "loop_after", "hog", "sleep", "sleep_after", "vars", "priv", "keep", "reuse"]


def http_cfg(port, glob=(), defaults=(), fe=(), extra="", load="lua-load"):
    lines = ["global"] + ["    " + g for g in glob]  # tune.lua.* before the load
    lines += ["    %s %s" % (load, LUA / "svc_http.lua")]
    lines += ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 10s",
              "    timeout server 10s"]
    lines += ["    " + d for d in defaults]
    lines += ["frontend fe", "    bind 127.0.0.1:%d" % port]
    lines += ["    " + f for f in fe]
    lines += ["    http-request use-service lua.%s if { path /%s } || { path_beg /%s/ }"
              % (n, n, n) for n in HTTP_SVCS]
    return "\n".join(lines) + "\n" + extra


def tcp_cfg(port, svc, section="frontend", glob=()):
    lines = ["global"] + ["    " + g for g in glob]
    lines += ["    lua-load %s" % (LUA / "svc_tcp.lua")]
    lines += ["defaults", "    mode tcp", "    timeout connect 2s", "    timeout client 10s",
              "    timeout server 10s",
              "%s ft" % section, "    bind 127.0.0.1:%d" % port,
              "    tcp-request content use-service lua.%s" % svc]
    return "\n".join(lines) + "\n"


def start_http(proxy, **kw):
    port = free_port()
    return proxy(http_cfg(port, **kw), ports=[port]), port


def req(port, target, method="GET", headers=b"", body=b"", version="HTTP/1.1", close=True):
    raw = ("%s %s %s\r\nHost: t\r\n" % (method, target, version)).encode() + headers
    if close:
        raw += b"Connection: close\r\n"
    return httpc.request(port, raw + b"\r\n" + body, method=method)


def wait_for(fn, timeout=5.0):
    """Polls fn() (bounded) until it returns something true; returns the last value."""
    deadline = time.monotonic() + timeout
    val = fn()
    while not val and time.monotonic() < deadline:
        time.sleep(0.05)
        val = fn()
    return val


def read_out(p):
    p.out.flush()
    return p.out_path.read_text(errors="replace")


# ---- responses ----

def test_hello_world(proxy):
    _, port = start_http(proxy)
    r = req(port, "/hello")
    assert (r.status, r.reason, r.body) == (200, "OK", b"hello world\n")
    assert r.header("content-type") == "text/plain"
    assert r.header("transfer-encoding") == "chunked"  # no length given: chunked
    assert r.header("content-length") is None


def test_request_as_the_applet_sees_it(proxy):
    _, port = start_http(proxy)
    r = req(port, "/req/a/b?x=1&y", headers=b"X-A: 1\r\nx-a: 2, 3\r\nX-Empty:\r\n")
    lines = r.body.decode().splitlines()
    assert "method=GET" in lines
    assert "path=/req/a/b" in lines
    assert "qs=x=1&y" in lines
    assert "version=HTTP/1.1" in lines
    assert "length=0" in lines
    assert "hdr.x-a=1|2, 3" in lines  # lower case names, values numbered from 0
    assert "hdr.x-empty=" in lines
    assert "hdr.host=t" in lines
    assert not [x for x in lines if x.startswith("hdr.connection")]  # the proxy's, as 2.6
    assert "src=127.0.0.1" in lines
    r = req(port, "/req", method="POST", headers=b"Content-Length: 3\r\n", body=b"abc",
            version="HTTP/1.0")
    assert {"method=POST", "version=HTTP/1.0", "length=3", "qs="} <= set(r.body.decode().split())


def test_status_reason_and_headers(proxy):
    _, port = start_http(proxy)
    r = req(port, "/status")
    assert (r.status, r.reason, r.body) == (404, "Nothing Here", b"nf")
    assert r.header_all("x-multi") == ["1", "2"]
    assert r.header("content-type") == "text/x-test"
    assert [k for k, _ in r.headers if k.lower().startswith("x-multi")] == ["x-multi"] * 2


def test_content_length_from_the_script(proxy):
    _, port = start_http(proxy)
    r = req(port, "/clen")
    assert (r.status, r.body, r.header("content-length")) == (200, b"hello", "5")
    assert r.header("transfer-encoding") is None


# ---- request bodies ----

def send_slowly(port, head, parts, pause=0.2):
    """Sends the request head then each part after a pause; returns the response."""
    with httpc.connect(port) as s:
        s.sendall(head)
        for p in parts:
            time.sleep(pause)
            s.sendall(p)
        return httpc.read_response(Reader(s))


@pytest.mark.parametrize("framing", ["cl", "chunked"])
def test_post_body_echoed(proxy, framing):
    _, port = start_http(proxy)
    body = b"hello world, " * 100
    if framing == "cl":
        head = b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: %d\r\n\r\n" % len(body)
        parts = [body[:500], body[500:]]
    else:
        head = b"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
        parts = [b"1f4;ext=1\r\n" + body[:500] + b"\r\n",
                 b"%x\r\n" % (len(body) - 500) + body[500:] + b"\r\n0\r\nX-T: 1\r\n\r\n"]
    r = send_slowly(port, head, parts)
    assert r.status == 201
    assert r.body == body
    assert r.header("x-len") == str(len(body))
    assert r.header("x-again") == "[]"  # the end of the body reads as ""


@pytest.mark.parametrize("framing", ["cl", "chunked"])
def test_getline(proxy, framing):
    _, port = start_http(proxy)
    body = b"ab\ncd\r\nef\n\nlast"
    if framing == "cl":
        head = b"POST /lines HTTP/1.1\r\nHost: t\r\nContent-Length: %d\r\n\r\n" % len(body)
        parts = [body[:4], body[4:]]
    else:
        head = b"POST /lines HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
        parts = [b"4\r\nab\nc\r\n", b"%x\r\n" % (len(body) - 4) + body[4:] + b"\r\n0\r\n\r\n"]
    r = send_slowly(port, head, parts)
    assert r.body == b"[ab\n][cd\r\n][ef\n][\n][last][]"


@pytest.mark.ours  # 2.6.12's receive(size) gives "" when more than <size> bytes are there
def test_receive_size(proxy):
    _, port = start_http(proxy)
    head = b"POST /pieces HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
    r = send_slowly(port, head, [b"3\r\n012\r\n", b"7\r\n3456789\r\n0\r\n\r\n"])
    assert r.body == b"[0123][4567][89][]"


def test_large_request_body_streamed_back(proxy):
    _, port = start_http(proxy)
    body = bytes(range(256)) * 4096 * 3  # 3 MiB
    with httpc.connect(port, timeout=30) as s:
        s.sendall(b"POST /stream HTTP/1.1\r\nHost: t\r\nContent-Length: %d\r\n\r\n" % len(body))
        got = {}
        t = threading.Thread(target=lambda: got.update(r=httpc.read_response(Reader(s))))
        t.start()
        s.sendall(body)  # read concurrently: the service sends as it receives
        t.join(30)
    assert not t.is_alive()
    assert got["r"].status == 200
    assert hashlib.sha256(got["r"].body).hexdigest() == hashlib.sha256(body).hexdigest()


# ---- large responses ----

@pytest.mark.parametrize("qs", ["", "cl"])
def test_one_mib_sent_in_many_calls(proxy, qs):
    _, port = start_http(proxy)
    r = req(port, "/big?" + qs)
    assert r.status == 200
    assert r.body == b"0123456789abcdef" * 64 * 1024
    if qs:
        assert r.header("content-length") == str(1024 * 1024)
    else:
        assert r.header("transfer-encoding") == "chunked"


def test_slow_reader_gets_the_whole_body(proxy):
    _, port = start_http(proxy)
    with httpc.connect(port, timeout=30) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)  # far less than the body
        s.sendall(b"GET /big HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        time.sleep(1.0)  # the proxy's output stays full meanwhile
        raw = bytearray()
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # the whole response, up to the close
            d = s.recv(1 << 16)
            if not d:
                break
            raw += d
    head, _, rest = bytes(raw).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    assert b"transfer-encoding: chunked" in head.lower()
    body = bytearray()
    while True:  # de-chunk
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            break
        body += rest[:size]
        rest = rest[size + 2:]
    assert bytes(body) == b"0123456789abcdef" * 64 * 1024


# ---- HEAD, keep-alive, HTTP/1.0 ----

def exchange_all(port, raw, count, timeout=10.0):
    """Sends raw (pipelined requests) on one connection; returns <count> responses."""
    out = []
    with httpc.connect(port, timeout) as s:
        s.sendall(raw)
        rd = Reader(s)
        for i in range(count):
            m = "HEAD" if raw.split(b"\r\n\r\n")[i].startswith(b"HEAD") else "GET"
            out.append(httpc.read_response(rd, method=m))
    return out


def test_head_then_next_request(proxy):
    _, port = start_http(proxy)
    raw = (b"HEAD /hello HTTP/1.1\r\nHost: t\r\n\r\n"
           b"GET /clen HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    head, nxt = exchange_all(port, raw, 2)
    assert head.status == 200 and head.body == b""
    assert head.header("content-type") == "text/plain"
    assert (nxt.status, nxt.body) == (200, b"hello")


def test_keep_alive(proxy):
    _, port = start_http(proxy)
    raw = (b"GET /hello HTTP/1.1\r\nHost: t\r\n\r\n"
           b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc"
           b"GET /clen HTTP/1.1\r\nHost: t\r\n\r\n"
           b"POST /hello HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
           b"3\r\nnot\r\n4\r\nread\r\n0\r\n\r\n"  # a body the service leaves
           b"GET /status HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    rs = exchange_all(port, raw, 5)
    assert [(r.status, r.body) for r in rs] == [(200, b"hello world\n"), (201, b"abc"),
                                                (200, b"hello"), (200, b"hello world\n"),
                                                (404, b"nf")]


def test_unread_large_body_then_next_request(proxy):
    _, port = start_http(proxy)
    body = b"x" * (1024 * 1024)
    with httpc.connect(port) as s:
        s.sendall(b"POST /hello HTTP/1.1\r\nHost: t\r\nContent-Length: %d\r\n\r\n" % len(body))
        rd = Reader(s)
        r1 = httpc.read_response(rd)  # answered before the body is in
        s.sendall(body + b"GET /clen HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        r2 = httpc.read_response(rd)
    assert (r1.body, r2.body) == (b"hello world\n", b"hello")


def test_http10_client(proxy):
    _, port = start_http(proxy)
    data, closed = httpc.exchange(port, b"GET /hello HTTP/1.0\r\nHost: t\r\n\r\n")
    assert closed
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 200 OK\r\n")
    assert b"transfer-encoding" not in head.lower()
    assert body == b"hello world\n"  # the close ends it
    # with a length and keep-alive, the connection stays for the next request
    raw = (b"GET /clen HTTP/1.0\r\nHost: t\r\nConnection: keep-alive\r\n\r\n"
           b"GET /clen HTTP/1.0\r\nHost: t\r\n\r\n")
    a, b = exchange_all(port, raw, 2)
    assert (a.version, a.body, b.body) == ("HTTP/1.0", b"hello", b"hello")


# ---- errors ----

def test_error_before_start_response(proxy):
    p, port = start_http(proxy)
    raw = (b"GET /err_before HTTP/1.1\r\nHost: t\r\n\r\n"
           b"GET /hello HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    err, nxt = exchange_all(port, raw, 2)
    assert err.status == 500
    assert (nxt.status, nxt.body) == (200, b"hello world\n")  # same connection
    text = wait_for(lambda: "err_before" in p.stderr() and p.stderr())
    assert re.search(r"Lua applet http '<lua\.err_before>': .*svc_http\.lua:\d+:", text), text


def test_error_after_start_response_cuts(proxy):
    p, port = start_http(proxy)
    data, closed = httpc.exchange(port, b"GET /err_after HTTP/1.1\r\nHost: t\r\n\r\n")
    assert closed
    assert data.startswith(b"HTTP/1.1 200 OK\r\n")
    assert not data.endswith(b"0\r\n\r\n")  # no last chunk: the body was cut
    assert wait_for(lambda: "<lua.err_after>" in p.stderr())


@pytest.mark.parametrize("svc", ["nothing", "send_early"])
def test_no_response_is_a_500(proxy, svc):
    p, port = start_http(proxy)
    assert req(port, "/" + svc).status == 500
    if svc == "send_early":
        assert wait_for(lambda: "start_response" in p.stderr())


def test_infinite_loop_does_not_stall(proxy):
    # the loop is killed after 4 s: a request stalled behind it would take over 3.5 s,
    # one served meanwhile well under 2 s even on a loaded machine
    p, port = start_http(proxy, glob=["tune.lua.service-timeout 4000"])
    res = {}

    def loop():
        t0 = time.monotonic()
        res["r"] = req(port, "/loop")
        res["t"] = time.monotonic() - t0

    t = threading.Thread(target=loop)
    t.start()
    time.sleep(0.2)
    for _ in range(5):  # served while the loop runs
        t0 = time.monotonic()
        r = req(port, "/hello")
        assert r.status == 200 and time.monotonic() - t0 < 2.0
    t.join(15)
    assert not t.is_alive()
    assert res["r"].status == 500
    assert 1.0 < res["t"] < 10
    assert wait_for(lambda: re.search(r"<lua\.loop>'.*timeout", p.stderr()))


def test_loop_after_start_response_cuts(proxy):
    _, port = start_http(proxy, glob=["tune.lua.service-timeout 1000"])
    data, closed = httpc.exchange(port, b"GET /loop_after HTTP/1.1\r\nHost: t\r\n\r\n",
                                  timeout=10)
    assert closed and b"started" in data and not data.endswith(b"0\r\n\r\n")
    assert req(port, "/hello").status == 200


def test_huge_allocation(proxy):
    p, port = start_http(proxy, glob=["tune.lua.maxmem 64"])
    assert req(port, "/hog").status == 500
    assert p.alive()
    assert req(port, "/hello").body == b"hello world\n"
    assert wait_for(lambda: "<lua.hog>" in p.stderr())


def test_client_gone_while_the_service_waits(proxy):
    p, port = start_http(proxy)
    for target in (b"/sleep?300", b"/sleep_after?300", b"/big"):
        with httpc.connect(port) as s:
            s.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: t\r\n\r\n")
        # closed at once: the service ends on its own, the proxy goes on
    time.sleep(0.5)
    assert p.alive()
    assert req(port, "/hello").status == 200


# ---- waits ----

def test_wait_longer_than_timeout_client(proxy):
    _, port = start_http(proxy, defaults=["timeout client 500"])
    r = req(port, "/sleep?1200")
    assert (r.status, r.body) == (200, b"slept")
    r = req(port, "/sleep_after?1200")
    assert r.body == b"first;second"


def test_expect_100_continue(proxy):
    _, port = start_http(proxy)
    with httpc.connect(port) as s:
        s.sendall(b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n"
                  b"Expect: 100-continue\r\n\r\n")
        rd = Reader(s)
        first = httpc.read_response(rd, keep_1xx=True)
        assert first.status == 100
        s.sendall(b"hello")
        r = httpc.read_response(rd)
    assert (r.status, r.body) == (201, b"hello")


# ---- variables, fetches, log ----

def test_after_response_rules_on_a_late_head(proxy):
    _, port = start_http(proxy, fe=["http-after-response set-header X-After %[status]"])
    r = req(port, "/sleep?200")  # the head comes after a sleep
    assert (r.body, r.header("x-after")) == (b"slept", "200")
    r = send_slowly(port, b"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n",
                    [b"ok"])  # after the body
    assert (r.body, r.header("x-after")) == (b"ok", "201")
    r = req(port, "/err_before")  # the 500 goes through them too
    assert (r.status, r.header("x-after")) == (500, "500")


def test_vars(proxy):
    _, port = start_http(proxy, fe=["http-after-response set-header X-Var %[var(txn.from_lua)]"])
    r = req(port, "/vars")
    assert r.body == b"var=v1 gone=nil upper=ABC"
    assert r.header("x-var") == "v1"


@pytest.mark.ours  # 2.6.12's AppletHTTP:get_priv() gives nil after set_priv()
def test_priv(proxy):
    _, port = start_http(proxy)
    assert req(port, "/priv").body == b"before=nil priv=42"


def test_log_line(proxy):
    p, port = start_http(proxy, defaults=["log stdout format raw local0", "option httplog"])
    req(port, "/hello")
    req(port, "/sleep?300")
    def lua_lines():  # not the line of the probe that waited for the port
        got = [x for x in read_out(p).splitlines() if "<lua." in x]
        return len(got) >= 2 and got

    lines = wait_for(lua_lines)
    # the timers are 0 ms unless the machine is busy: their shape, not their values
    assert re.search(r" fe fe/<lua\.hello> \d+/\d+/\d+/\d+/\d+ 200 \d+ - - LR-- ",
                     lines[0]), lines
    m = re.search(r" fe fe/<lua\.sleep> \d+/\d+/\d+/(\d+)/(\d+) 200 ", lines[1])
    assert m and int(m.group(1)) >= 250, lines


# ---- TCP services ----

@pytest.mark.parametrize("section", ["frontend", "listen"])
def test_tcp_echo(proxy, section):
    port = free_port()
    proxy(tcp_cfg(port, "tcp_echo", section), ports=[port])
    with httpc.connect(port) as s:
        s.sendall(b"one\ntw")
        time.sleep(0.2)
        s.sendall(b"o\n")
        s.shutdown(socket.SHUT_WR)
        data, closed = httpc.recv_until_close(s, 5)
    assert closed
    assert data == b"hello 127.0.0.1\necho:one\necho:two\nbye\n"


def test_tcp_receive_sizes(proxy):
    port = free_port()
    proxy(tcp_cfg(port, "tcp_recv"), ports=[port])
    with httpc.connect(port) as s:
        s.sendall(b"ab")
        time.sleep(0.2)
        s.sendall(b"cdefg")
        time.sleep(0.2)
        s.sendall(b"hij")
        s.shutdown(socket.SHUT_WR)
        data, closed = httpc.recv_until_close(s, 5)
    assert closed
    assert data == b"a=[abcde]\nb=[fghij]\nc=[]\n"


def test_tcp_error_closes(proxy):
    port = free_port()
    p = proxy(tcp_cfg(port, "tcp_fail"), ports=[port])
    data, closed = httpc.exchange(port, b"abc")
    assert closed and data == b"x"
    assert wait_for(lambda: re.search(r"Lua applet tcp '<lua\.tcp_fail>': .*svc_tcp\.lua:\d+",
                                      p.stderr()))


def test_tcp_large_answer(proxy):
    port = free_port()
    proxy(tcp_cfg(port, "tcp_big"), ports=[port])
    data, closed = httpc.exchange(port, b"", timeout=10)
    assert closed and data == b"0123456789abcdef" * 64 * 1024


# ---- configuration ----

@pytest.mark.parametrize("mode,rule", [
    ("http", "tcp-request content use-service lua.tcp_echo"),
    ("http", "http-request use-service lua.tcp_echo"),
    ("tcp", "tcp-request content use-service lua.hello"),
    ("http", "tcp-request content use-service lua.hello"),
])
def test_service_kind_refused(tmp_path, mode, rule):
    cfg = tmp_path / "c.cfg"
    cfg.write_text("global\n    lua-load %s\n    lua-load %s\ndefaults\n    mode %s\n"
                   "    timeout connect 1s\n    timeout client 1s\n    timeout server 1s\n"
                   "frontend fe\n    bind 127.0.0.1:%d\n    %s\n"
                   % (LUA / "svc_http.lua", LUA / "svc_tcp.lua", mode, free_port(), rule))
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    assert "c.cfg:11" in r.stderr, r.stderr


def test_unknown_lua_service_refused(tmp_path):
    cfg = tmp_path / "c.cfg"
    cfg.write_text("global\n    lua-load %s\ndefaults\n    mode http\nfrontend fe\n"
                   "    bind 127.0.0.1:%d\n    http-request use-service lua.nope\n"
                   % (LUA / "svc_http.lua", free_port()))
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0 and "c.cfg:7" in r.stderr, r.stderr


@pytest.mark.parametrize("load", ["lua-load", "lua-load-per-thread"])
def test_two_threads(proxy, load):
    _, port = start_http(proxy, glob=["nbthread 2"], load=load)
    for _ in range(6):
        assert req(port, "/hello").body == b"hello world\n"
        assert req(port, "/echo", method="POST", headers=b"Content-Length: 2\r\n",
                   body=b"hi").body == b"hi"


@pytest.mark.ours  # an object kept by a script is not checked by 2.6
def test_applet_object_kept_in_a_global(proxy):
    _, port = start_http(proxy)
    assert req(port, "/keep").body == b"kept"
    r = req(port, "/reuse")  # the service it belonged to is over (or ending)
    # refused either way: "no longer valid" once its service is released, "belongs to
    # another call" in the moment between its response and its release (seen under load)
    assert r.body.startswith(b"false ") and (b"no longer valid" in r.body or
                                             b"belongs to another call" in r.body), r.body
    res = {}
    t = threading.Thread(target=lambda: res.update(r=req(port, "/keep?500")))
    t.start()
    time.sleep(0.2)
    r = req(port, "/reuse")  # the service it belongs to waits: still not ours to use
    t.join(10)
    assert r.body.startswith(b"false ") and b"belongs to another call" in r.body
    assert res["r"].body == b"kept"


@pytest.mark.ours  # 2.6 waits for the body for ever (until the client leaves)
def test_body_wait_bounded_by_timeout_client(proxy):
    _, port = start_http(proxy, defaults=["timeout client 500"])
    t0 = time.monotonic()
    data, closed = httpc.exchange(port, b"POST /echo HTTP/1.1\r\nHost: t\r\n"
                                  b"Content-Length: 10\r\n\r\n01234", timeout=5)
    assert closed and data == b"" and time.monotonic() - t0 < 3


@pytest.mark.ours  # 2.6 keeps the connection, and the client waits for the 5 missing bytes
def test_short_body_closes(proxy):
    _, port = start_http(proxy)
    data, closed = httpc.exchange(port, b"GET /short HTTP/1.1\r\nHost: t\r\n\r\n")
    assert closed and data.endswith(b"\r\n\r\nshort")


def test_response_rules_run_on_a_service_response(proxy):
    """As HAProxy, a service's response goes through the http-response rules, then
    http-after-response; a plain `return` only through the latter."""
    _, port = start_http(proxy,
                         fe=["http-response set-header x-res r",
                             "http-response del-header x-drop",
                             "http-after-response set-header x-after a",
                             "http-request return status 200 content-type text/plain "
                             "string ret if { path /ret }"])
    r = req(port, "/hello")
    assert r.status == 200
    assert (r.header("x-res"), r.header("x-after")) == ("r", "a")
    r = req(port, "/ret")
    assert r.body == b"ret"
    assert (r.header("x-res"), r.header("x-after")) == (None, "a")
