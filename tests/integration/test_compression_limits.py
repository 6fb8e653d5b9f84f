"""HTTP compression under limits and load: large bodies streamed with bounded memory, what
a pausing origin has sent reaching the client before the pause ends, maxzlibmem (new
responses bypass compression, counted), maxcomprate (the level falls to 0 and new responses
are not compressed), maxcompcpuusage, several threads at once, request bodies compressed
towards the server ("direction request", 2.8+), and configuration errors worded as 2.6's.

The origin and the helpers are test_compression.py's.
"""

import hashlib
import os
import socket
import threading
import time
import zlib

import pytest

import httpc
from conftest import HAPROXY_BIN, free_port, run_haproxy
from test_compression import (CompOrigin, comp_cfg, compressed, decoded, fetch, info, page,
                              stat_rows)


@pytest.fixture
def origin(raw_server):
    return CompOrigin(raw_server)


def read_head(s):
    """Reads a response head from socket <s>; returns (head bytes, what followed it)."""
    data = b""
    for _ in range(10000):
        if b"\r\n\r\n" in data:
            break
        d = s.recv(65536)
        assert d, "closed before the end of the head"
        data += d
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


class Dechunk:
    """Incremental chunked decoder feeding a zlib decompressor."""

    def __init__(self, wbits=31):
        self.buf = b""
        self.z = zlib.decompressobj(wbits)
        self.out = hashlib.sha256()
        self.n = 0
        self.done = False

    def feed(self, data):
        self.buf += data
        while not self.done:
            i = self.buf.find(b"\r\n")
            if i < 0:
                return
            size = int(self.buf[:i].split(b";")[0], 16)
            if size == 0:
                self.done = self.buf[i + 2:].startswith(b"\r\n")
                return
            if len(self.buf) < i + 2 + size + 2:
                return
            plain = self.z.decompress(self.buf[i + 2:i + 2 + size])
            self.out.update(plain)
            self.n += len(plain)
            self.buf = self.buf[i + 2 + size + 2:]


@pytest.mark.parametrize("framing", ["cl", "chunked"])
def test_large_body_streams_with_bounded_memory(proxy, origin, framing):
    """16 MB through gzip, read slowly: the proxy's RSS stays far under the body's size."""
    n = 16 << 20
    port = free_port()
    p = proxy(comp_cfg(port, origin.port, fe=["compression algo gzip"]), ports=[port])
    want = hashlib.sha256(page(n)).hexdigest()
    fetch(port, "/?size=1000")  # warm up: buffers and zlib's first context
    rss0, peak = p.rss_kib(), 0
    with httpc.connect(port, timeout=30) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        s.sendall(b"GET /?size=%d&framing=%s HTTP/1.1\r\nHost: t\r\nAccept-Encoding: gzip\r\n"
                  b"Connection: close\r\n\r\n" % (n, framing.encode()))
        head, rest = read_head(s)
        assert b"content-encoding: gzip" in head.lower()
        dec = Dechunk()
        dec.feed(rest)
        deadline = time.monotonic() + 60
        reads = 0
        while not dec.done and time.monotonic() < deadline:
            d = s.recv(16384)
            if not d:
                break
            dec.feed(d)
            reads += 1
            if reads % 50 == 0:
                peak = max(peak, p.rss_kib())
                time.sleep(0.002)  # a slower reader than the origin
        assert dec.done and dec.n == n
        assert dec.out.hexdigest() == want
    growth_kib = peak - rss0
    if "asan" not in os.path.basename(HAPROXY_BIN):  # ASan's quarantine keeps freed blocks
        assert growth_kib < 8 * 1024, "RSS grew by %d KiB for a %d MiB body" % (growth_kib,
                                                                               n >> 20)


def test_pause_flushes_what_came(proxy, origin):
    """The origin sends 20 kB then waits 2 s: the client decodes them at once."""
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip"]), ports=[port])
    with httpc.connect(port) as s:
        t0 = time.monotonic()
        s.sendall(b"GET /?size=40000&every=20000&pause=2&framing=chunked HTTP/1.1\r\n"
                  b"Host: t\r\nAccept-Encoding: gzip\r\n\r\n")
        _, rest = read_head(s)
        dec = Dechunk()
        dec.feed(rest)
        # (2.6's libslz keeps the last 2 bytes back until more come)
        while dec.n < 19990 and time.monotonic() - t0 < 1.5:
            s.settimeout(max(0.05, 1.5 - (time.monotonic() - t0)))
            try:
                d = s.recv(65536)
            except socket.timeout:
                break
            if not d:
                break
            dec.feed(d)
        assert dec.n >= 19990, "only %d bytes decoded before the pause ended" % dec.n
        assert time.monotonic() - t0 < 1.5


@pytest.mark.ours
def test_maxzlibmem_bypasses_new_responses(proxy, origin, tmp_path):
    """maxzlibmem 1 (MB) holds three zlib contexts (tune.comp.maxlevel 2: zlib's level 2;
    level 1's encoder needs 49 kB, not 260 kB): of six responses held open at once,
    some go out compressed and the others pass uncompressed (chunked, Vary, no
    Content-Encoding), their bytes counted in comp_byp; zlib's memory never passes the
    ceiling and is all given back."""
    port, sock = free_port(), str(tmp_path / "s.sock")
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip"], sock=sock,
                   glob=["maxzlibmem 1", "tune.comp.maxlevel 2"]), ports=[port])
    results, peak = [], [0]

    def one():
        results.append(fetch(port, "/?size=60000&every=20000&pause=0.7", ae="gzip"))

    ths = [threading.Thread(target=one) for _ in range(6)]
    for t in ths:
        t.start()
    for _ in range(10):
        time.sleep(0.1)
        i = info(sock)
        peak[0] = max(peak[0], int(i["ZlibMemUsage"]))
        assert int(i["ZlibMemUsage"]) <= int(i["MaxZlibMemUsage"]) == 1 << 20
    for t in ths:
        t.join(timeout=20)
    assert len(results) == 6
    comp = [r for r in results if compressed(r)]
    plain = [r for r in results if not compressed(r)]
    assert comp and plain, [r.headers for r in results]
    assert peak[0] > 0
    for r in plain:
        assert r.header("Vary") == "Accept-Encoding" and r.header("Transfer-Encoding")
        assert r.body == page(60000)
    for r in comp:
        assert decoded(r) == page(60000)
    time.sleep(0.2)
    row = stat_rows(sock)[("fe", "FRONTEND")]
    assert int(row["comp_byp"]) == 60000 * len(plain)
    assert int(row["comp_rsp"]) == len(comp)
    assert info(sock)["ZlibMemUsage"] == "0"
    assert compressed(fetch(port, "/", ae="gzip"))  # memory is back: compressed again


def test_maxcomprate(proxy, origin, tmp_path):
    """maxcomprate 1 (kB/s): the first response starts compressed and, once the rate is
    over, the rest of it bypasses compression; the next one is not compressed at all."""
    port, sock = free_port(), str(tmp_path / "s.sock")
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip"], sock=sock,
                   glob=["maxcomprate 1"]), ports=[port])
    r = fetch(port, "/?size=300000&every=60000&pause=0.05", ae="gzip")
    assert compressed(r) and decoded(r) == page(300000)
    r2 = fetch(port, "/?size=300000", ae="gzip")
    assert not compressed(r2) and r2.body == page(300000)
    row = stat_rows(sock)[("fe", "FRONTEND")]
    assert int(row["comp_byp"]) > 0 and int(row["comp_in"]) + int(row["comp_byp"]) == 300000
    assert int(row["comp_rsp"]) == 1
    assert info(sock)["CompressBpsRateLim"] == "1024"


@pytest.mark.ours
def test_maxcompcpuusage_backs_off_a_busy_thread(proxy, origin, tmp_path):
    """maxcompcpuusage 0: as soon as the thread is measured busy at all (1 % of a window
    of 100 ms), the level falls to 0 at the next flush and the rest bypasses compression
    (2.6 measures its loop's idle time instead: 100 % idle until it is loaded)."""
    port, sock = free_port(), str(tmp_path / "s.sock")
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip"], sock=sock,
                   glob=["maxcompcpuusage 0"]), ports=[port])
    r = fetch(port, "/?size=8000000&every=1000000&pause=0.12", ae="gzip")
    assert decoded(r) == page(8000000)
    row = stat_rows(sock)[("fe", "FRONTEND")]
    assert int(row["comp_byp"]) > 0, row


def test_threads_compress_in_parallel(proxy, origin, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip deflate"], sock=sock,
                   glob=["nbthread 2"]), ports=[port])
    errs, n = [], 8

    def worker(i):
        try:
            for k in range(5):
                size = 10000 + 7919 * (i * 5 + k)
                r = fetch(port, "/?size=%d&framing=%s" % (size, "cl" if k % 2 else "chunked"),
                          ae="gzip" if i % 2 else "deflate")
                if decoded(r) != page(size) or not compressed(r):
                    errs.append((i, k))
        except Exception as e:  # noqa: BLE001 (reported below)
            errs.append(repr(e))

    ths = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in ths:
        t.start()
    for t in ths:
        t.join(timeout=60)
    assert not errs
    assert int(stat_rows(sock)[("fe", "FRONTEND")]["comp_rsp"]) == 5 * n


# ---- request bodies (2.8+) ----

@pytest.mark.v32
def test_request_bodies_compressed_towards_the_server(proxy, origin):
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression direction both",
                                          "compression algo-req gzip",
                                          "compression type-req application/json",
                                          "compression algo gzip",
                                          "compression minsize-req 1k"]), ports=[port])
    body = page(50000)

    def post(ctype, data, version="HTTP/1.1"):
        raw = ("POST /?echo=1 %s\r\nHost: t\r\nContent-Type: %s\r\nContent-Length: %d\r\n"
               "Accept-Encoding: gzip\r\nConnection: close\r\n\r\n"
               % (version, ctype, len(data))).encode() + data
        return httpc.request(port, raw)

    r = post("application/json", body)
    seen = origin.seen[-1]
    hdrs = {k.lower(): v for k, v in seen[2]}
    assert hdrs.get("content-encoding") == "gzip" and "content-length" not in hdrs
    assert hdrs.get("transfer-encoding") == "chunked"
    assert zlib.decompress(seen[3], 31) == body
    assert r.status == 200 and r.header("X-Req-CE") == "gzip"
    for ctype, data, ver in [("text/plain", body, "HTTP/1.1"),
                             ("application/json", page(500), "HTTP/1.1"),
                             ("application/json", body, "HTTP/1.0")]:
        post(ctype, data, ver)
        assert origin.seen[-1][3] == data, (ctype, len(data), ver)


@pytest.mark.v32
def test_direction_request_only_leaves_responses(proxy, origin):
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression direction request",
                                          "compression algo gzip"]), ports=[port])
    r = fetch(port, "/", ae="gzip")
    assert not compressed(r) and r.header("X-Seen-AE") == "gzip"


@pytest.mark.v32
def test_minsize_res(proxy, origin):
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip",
                                          "compression minsize-res 10k"]), ports=[port])
    assert not compressed(fetch(port, "/?size=5000"))
    assert compressed(fetch(port, "/?size=20000"))
    assert compressed(fetch(port, "/?size=5000&framing=chunked"))  # no length known


# ---- configuration ----

def check_cfg(tmp_path, text):
    p = tmp_path / "c.cfg"
    p.write_text(text)
    r = run_haproxy(["-c", "-f", str(p)])
    return r, str(p), r.stdout + r.stderr


HEAD = "defaults\n    mode http\n    timeout client 1s\n    timeout server 1s\n" \
       "    timeout connect 1s\n"


def test_config_errors_as_haproxy(tmp_path):
    r, path, out = check_cfg(tmp_path, HEAD + "    compression offload\n"
                             "frontend fe\n    bind 127.0.0.1:%d\n"
                             "    compression algo gzip foo\n    compression type\n"
                             "    compression bogus\n" % free_port())
    assert r.returncode != 0
    assert "[WARNING]" in out and \
        "%s:6] : 'compression' : 'offload' ignored in 'defaults' section." % path in out
    assert "%s:9] : 'compression' : 'foo' is not a supported algorithm." % path in out
    assert "%s:10] : 'compression' expects <type>." % path in out
    assert "%s:11] : 'compression' expects 'algo', " % path in out


def test_global_errors_as_haproxy(tmp_path):
    r, path, out = check_cfg(tmp_path, "global\n    tune.comp.maxlevel 10\n"
                             "    maxcompcpuusage 101\n    maxcomprate\n    maxzlibmem\n"
                             "    tune.comp.maxlevel 2 3\n" + HEAD)
    assert r.returncode != 0
    assert "%s:2] : 'tune.comp.maxlevel' expects a numeric value between 1 and 9" % path in out
    assert ("%s:3] : 'maxcompcpuusage' expects an integer argument between 0 and 100."
            % path) in out
    assert "%s:4] : 'maxcomprate' expects an integer argument in kb/s." % path in out
    assert "%s:5] : 'maxzlibmem' expects an integer argument." % path in out
    assert "%s:6] : 'tune.comp.maxlevel' cannot handle unexpected argument '3'." % path in out


def test_valid_config(tmp_path):
    r, path, out = check_cfg(tmp_path, "global\n    tune.comp.maxlevel 9\n    maxcomprate 5\n"
                             "    maxcompcpuusage 50\n    maxzlibmem 16\n" + HEAD +
                             "    compression algo gzip deflate raw-deflate identity\n"
                             "    compression type text/html text/plain\n"
                             "frontend fe\n    bind 127.0.0.1:%d\n    compression offload\n"
                             "    filter compression\n    default_backend be\n"
                             "backend be\n    server s 127.0.0.1:1\n" % free_port())
    assert r.returncode == 0, out


@pytest.mark.ours
def test_zlib_tunables_accepted(tmp_path):
    """2.6 built with zlib knows them (Debian's build, with libslz, does not)."""
    r, path, out = check_cfg(tmp_path, "global\n    tune.zlib.memlevel 9\n"
                             "    tune.zlib.windowsize 12\n    tune.zlib.windowsize 16\n" + HEAD)
    assert r.returncode != 0
    assert ("%s:4] : 'tune.zlib.windowsize' expects a numeric value between 8 and 15."
            % path) in out
    assert "%s:2]" % path not in out and "%s:3]" % path not in out


@pytest.mark.ours
@pytest.mark.parametrize("wbits,memlevel", [(9, 1), (8, 9), (15, 9)])
def test_zlib_tunables_still_decode(proxy, origin, wbits, memlevel):
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip raw-deflate deflate"],
                   glob=["tune.zlib.windowsize %d" % wbits, "tune.zlib.memlevel %d" % memlevel,
                         "tune.comp.maxlevel 6"]), ports=[port])
    for ae in ("gzip", "deflate"):
        r = fetch(port, "/?size=200000", ae=ae)
        assert compressed(r) and decoded(r) == page(200000)


def test_duplicate_filter_line(tmp_path):
    r, path, out = check_cfg(tmp_path, HEAD + "backend be\n    filter compression\n"
                             "    filter compression\n    server s 127.0.0.1:1\n")
    assert r.returncode != 0
    assert "%s:8] : 'filter' : 'be: Proxy supports only one compression filter" % path in out


def test_filter_argument_refused(tmp_path):
    r, path, out = check_cfg(tmp_path, HEAD + "backend be\n    filter compression foo\n"
                             "    server s 127.0.0.1:1\n")
    assert r.returncode != 0
    assert "%s:7] : 'filter compression' : unknown keyword 'foo'." % path in out

