"""The filter layer's configuration: `filter` lines, where they are allowed, names that are
unknown or not supported, and the order rules a user meets. The filters themselves
(compression, cache) have their own test files, which drive the body pump end to end.

Where HAProxy 2.6 behaves the same, the tests also run in reference mode.
"""

import pytest
from conftest import IS_REF, free_port, run_haproxy

DEFAULTS = """defaults
    mode http
    timeout client 1s
    timeout server 1s
    timeout connect 1s
"""


def check(tmp_path, text):
    p = tmp_path / "f.cfg"
    p.write_text(text)
    return run_haproxy(["-c", "-f", str(p)]), str(p)


def alerts(r):
    return [l for l in (r.stdout + r.stderr).splitlines() if "[ALERT]" in l]


def test_filter_in_defaults_is_an_error(tmp_path):
    r, path = check(tmp_path, DEFAULTS.replace("mode http\n", "mode http\n    filter compression\n")
                    + "frontend fe\n    bind 127.0.0.1:%d\n" % free_port())
    assert r.returncode != 0
    a = alerts(r)
    assert any("%s:3]" % path in l and "filter is not allowed in a 'default' section" in l
               for l in a), a


def test_unknown_filter_names_file_and_line(tmp_path):
    r, path = check(tmp_path, DEFAULTS + "frontend fe\n    bind 127.0.0.1:%d\n"
                    "    filter foo\n" % free_port())
    assert r.returncode != 0
    a = alerts(r)
    assert any("%s:8]" % path in l and "'filter' : unknown keyword 'foo'" in l for l in a), a


@pytest.mark.parametrize("line", ["filter trace", "filter spoe engine e config spoe.conf",
                                  "filter fcgi-app php", "filter bwlim-in x default-limit 1k "
                                  "default-period 1s"])
def test_filters_not_supported_are_refused(tmp_path, line):
    if IS_REF:
        pytest.skip("2.6 has these filters (bwlim only from 2.7)")
    r, path = check(tmp_path, DEFAULTS + "frontend fe\n    bind 127.0.0.1:%d\n    %s\n"
                    % (free_port(), line))
    assert r.returncode != 0
    a = alerts(r)
    assert any("%s:8]" % path in l and "not supported yet" in l for l in a), a


def test_filter_without_name(tmp_path):
    r, path = check(tmp_path, DEFAULTS + "frontend fe\n    bind 127.0.0.1:%d\n    filter\n"
                    % free_port())
    assert r.returncode != 0
    assert any("%s:8]" % path in l for l in alerts(r)), alerts(r)


# ---- the body pump (regressions found in review), with compression and the cache ----

import os
import socket
import struct
import time
import zlib

from conftest import wait_port
from rawserver import RawServer, read_head, read_request

BIG = os.urandom(6 << 20)  # incompressible: the compressor's output outgrows its input


def http_get_slow(port, path, headers=(), pause=1.0, rcvbuf=4096, timeout=20.0):
    """GET with a small receive buffer, reading nothing for <pause> s after the first
    bytes; returns (status line, headers dict, body de-chunked)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(timeout)
    s.connect(("127.0.0.1", port))
    s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n%s\r\n" % (
        path, "".join("%s: %s\r\n" % h for h in headers))).encode())
    data = s.recv(1024)
    time.sleep(pause)
    deadline = time.time() + timeout
    while time.time() < deadline:
        hdr_end = data.find(b"\r\n\r\n")
        if hdr_end >= 0:
            head = data[:hdr_end].decode("latin-1").split("\r\n")
            hdrs = {k.strip().lower(): v.strip() for k, _, v in
                    (l.partition(":") for l in head[1:])}
            body = data[hdr_end + 4:]
            if "chunked" in hdrs.get("transfer-encoding", ""):
                if body.endswith(b"0\r\n\r\n") and dechunk(body) is not None:
                    break
            elif len(body) >= int(hdrs.get("content-length", "-1")):
                break
        chunk = s.recv(1 << 16)
        if not chunk:
            break
        data += chunk
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    hdrs = {k.strip().lower(): v.strip() for k, _, v in (l.partition(":") for l in lines[1:])}
    if "chunked" in hdrs.get("transfer-encoding", ""):
        body = dechunk(body)
    return lines[0], hdrs, body


def dechunk(b):
    out, pos = [], 0
    while True:
        eol = b.find(b"\r\n", pos)
        if eol < 0:
            return None
        size = int(b[pos:eol].split(b";")[0], 16)
        if size == 0:
            return b"".join(out)
        out.append(b[eol + 2:eol + 2 + size])
        pos = eol + 2 + size + 2


def big_origin():
    def handler(sock, rd, idx):
        for _ in range(20):
            read_request(rd)
            sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                         b"Cache-Control: max-age=30\r\nContent-Length: %d\r\n\r\n" % len(BIG)
                         + BIG)
    return RawServer(handler)


PUMP_CFG = """global
    nbthread 1
defaults
    mode http
    timeout client 5s
    timeout server 5s
    timeout connect 2s
%s
frontend fe
    bind 127.0.0.1:%d
%s
    default_backend be
backend be
    server s1 127.0.0.1:%d
"""


@pytest.mark.parametrize("feature", ["compression", "cache"])
def test_slow_client_gets_the_whole_filtered_body(proxy, feature):
    """A client that stops reading must not stall the pump: the whole body arrives."""
    origin = big_origin()
    port = free_port()
    try:
        if feature == "compression":
            cfg = PUMP_CFG % ("", port, "    compression algo gzip", origin.port)
            hdrs = (("Accept-Encoding", "gzip"),)
        else:
            cfg = PUMP_CFG % ("cache big\n    total-max-size 64\n    max-object-size 20000000\n"
                              "    max-age 30", port,
                              "    http-request cache-use big\n    http-response cache-store big",
                              origin.port)
            hdrs = ()
        p = proxy(cfg, ports=[port])
        assert p  # started
        status, h, body = http_get_slow(port, "/big", hdrs)
        assert status.startswith("HTTP/1.1 200"), status
        if feature == "compression":
            assert h.get("content-encoding") == "gzip"
            body = zlib.decompress(body, 31)
        assert body == BIG
    finally:
        origin.stop()


def test_reset_close_delimited_response_is_not_cached(proxy):
    """A close-delimited body cut by a reset is not stored: the next request goes to the
    server again."""
    seen = []

    def handler(sock, rd, idx):
        read_request(rd)
        seen.append(idx)
        if idx == 1:
            sock.sendall(b"HTTP/1.1 200 OK\r\nCache-Control: max-age=30\r\n"
                         b"Connection: close\r\n\r\n" + b"a" * 5000)
            time.sleep(0.2)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
            return
        sock.sendall(b"HTTP/1.1 200 OK\r\nCache-Control: max-age=30\r\n"
                     b"Content-Length: 10000\r\n\r\n" + b"b" * 10000)

    origin = RawServer(handler)
    port = free_port()
    try:
        proxy(PUMP_CFG % ("cache c\n    total-max-size 4", port,
                          "    http-request cache-use c\n    http-response cache-store c",
                          origin.port), ports=[port])
        try:
            http_get_slow(port, "/x", pause=0, timeout=5)
        except OSError:
            pass
        _, _, body = http_get_slow(port, "/x", pause=0, timeout=5)
        assert body == b"b" * 10000
        assert len(seen) == 2
    finally:
        origin.stop()


def test_local_reply_drains_a_compressed_request_body(proxy):
    """A local reply in the middle of a chunked request body that a filter compresses:
    the rest of that body is drained as body, never parsed as a request."""
    if IS_REF:
        pytest.skip("request compression is a 2.8+ feature")
    got = []

    def handler(sock, rd, idx):
        got.append(read_head(rd)[0])
        sock.sendall(b"HTTP/1.1 299 Odd\r\nContent-Length: 0\r\n\r\n")
        time.sleep(1.5)

    origin = RawServer(handler)
    port = free_port()
    try:
        proxy(PUMP_CFG.replace("backend be\n", "backend be\n    http-response deny if "
                               "{ status 299 }\n")
              % ("", port, "    compression direction both\n    compression algo-req gzip",
                 origin.port), ports=[port])
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"POST /up HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n400\r\n" + b"x" * 100)
        time.sleep(0.5)
        s.sendall(b"0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n" + b"y" * 860 +
                  b"\r\n0\r\n\r\n")
        data = b""
        deadline = time.time() + 3
        while time.time() < deadline:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            data += chunk
        s.close()
        assert data.startswith(b"HTTP/1.1 502"), data[:100]
        assert not any(b"/smuggled" in h for h in got), got
    finally:
        origin.stop()


def test_compressed_service_output_is_not_held_while_it_waits(proxy, tmp_path):
    """A service that sends a part then waits: the compressed part reaches the client at
    once, not when the service ends."""
    lua = tmp_path / "slow.lua"
    lua.write_text('core.register_service("slow", "http", function(applet)\n'
                   '  applet:set_status(200)\n'
                   '  applet:add_header("content-type", "text/html")\n'
                   '  applet:start_response()\n'
                   '  applet:send(string.rep("first part ", 200))\n'
                   '  core.msleep(2000)\n'
                   '  applet:send("second part")\n'
                   'end)\n')
    port = free_port()
    proxy("global\n    lua-load %s\n" % lua + PUMP_CFG.split("\n", 2)[2]
          .replace("    default_backend be\n", "    http-request use-service lua.slow\n")
          % ("", port, "    compression algo gzip", 1), ports=[port])
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    t0 = time.time()
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n")
    data, first, d = b"", None, zlib.decompressobj(31)
    while time.time() - t0 < 4:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
        head, sep, body = data.partition(b"\r\n\r\n")
        if sep and b"content-encoding: gzip" in head.lower():
            raw = dechunk(body + b"0\r\n\r\n") if not body.endswith(b"0\r\n\r\n") else dechunk(body)
            if raw is not None:
                try:
                    text = zlib.decompressobj(31).decompress(raw)
                except zlib.error:
                    text = b""
                if first is None and b"first part" in text:
                    first = time.time() - t0
                if b"second part" in text:
                    break
    s.close()
    assert first is not None and first < 1.5, first


def test_res_comp_fetches_in_the_log(proxy):
    """res.comp and res.comp_algo tell what compressed the response, as 2.6 logs them."""
    def handler(sock, rd, idx):
        for _ in range(10):
            head = read_request(rd)
            if b"/missing" in head:
                sock.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
                continue
            body = b"hello compression world " * 300
            sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(body) + body)

    origin = RawServer(handler)
    port = free_port()
    try:
        cfg = PUMP_CFG % ("", port, "    compression algo gzip deflate\n"
                          "    compression type text/html\n"
                          "    log-format \"comp=%[res.comp] algo=%[res.comp_algo] st=%ST\"\n"
                          "    log stderr format raw local0", origin.port)
        p = proxy(cfg, ports=[port])
        for ae in ("gzip", "deflate", None):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(("GET /p HTTP/1.1\r\nHost: x\r\n%sConnection: close\r\n\r\n"
                       % ("Accept-Encoding: %s\r\n" % ae if ae else "")).encode())
            while s.recv(65536):
                pass
            s.close()
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        s.sendall(b"GET /missing HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n"
                  b"Connection: close\r\n\r\n")
        while s.recv(65536):
            pass
        s.close()
        want = ["comp=1 algo=gzip st=200", "comp=1 algo=deflate st=200",
                "comp=0 algo=- st=200", "comp=0 algo=- st=404"]
        deadline = time.time() + 5
        while time.time() < deadline:
            lines = [l for l in p.stderr().splitlines()
                     if l.startswith("comp=") and not l.endswith("st=400")]  # the port probe
            if len(lines) >= 4:
                break
            time.sleep(0.1)
        assert lines == want, p.stderr()
    finally:
        origin.stop()
