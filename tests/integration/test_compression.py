"""HTTP compression as a client sees it: bodies byte-exact after decoding for every
algorithm (curl --compressed and Python's zlib), content-length and chunked origins, the
response head (chunked, weak ETag, Vary, Content-Encoding) compared with HAProxy 2.6's, every
reason not to compress, the algorithm Accept-Encoding's q-values choose, offload, identity,
what a proxy takes from its defaults, and the counters of `show stat` and `show info`.

Owns: tests/integration/test_compression*.py share the origin below (CompOrigin). Limits
(maxzlibmem, maxcomprate), large streamed bodies, pauses, request bodies and config
errors are in test_compression_limits.py. Behaviour 2.6 shares runs in both modes; the
Content-Range rule (the issue's) and zlib-only facts are `ours`; 2.8+ keywords `v32`.
"""

import hashlib
import subprocess
import time
import urllib.parse
import zlib

import pytest

import httpc
from backend import ConnClosed, Reader
from conftest import cli, free_port

DEFAULTS = ["mode http", "timeout connect 2s", "timeout client 10s", "timeout server 10s"]
WBITS = {"gzip": 31, "deflate": 15, "raw-deflate": -15}
WORDS = ("the proxy compresses html text of a response body and its class attributes while "
         "streaming through filters with bounded memory on every thread of the group").split()


_PAGE = [b""]


def page(n):
    """n bytes of an HTML-like page: table rows of pseudo-random words (deterministic;
    generated once, as long as the longest asked for)."""
    if len(_PAGE[0]) < n:
        out, r, size = [], 7, 0
        while size < n:
            ws = []
            for _ in range(6):
                r = (r * 1103515245 + 12345) & 0x7FFFFFFF
                ws.append(WORDS[(r >> 8) % len(WORDS)])
            line = '<tr class="r%d"><td>%d</td><td>%s</td></tr>\n' % (r % 7, size,
                                                                      " ".join(ws))
            out.append(line)
            size += len(line)
        _PAGE[0] = "".join(out).encode()
    return _PAGE[0][:n]


class CompOrigin:
    """A test origin whose response the query string describes:
      size=N (5000)   body: the first N bytes of page()
      framing=F       cl (default) | chunked | close
      status=N, ver=HTTP/1.0, ctype=TYPE ("none": no Content-Type; default text/html)
      h=Name:Value    extra response header (repeatable, in order)
      every=N&pause=S send the body N bytes at a time, sleeping S seconds in between
      echo=1          the body is the request's body as received
    Every response carries X-Seen-AE (the Accept-Encoding values the origin received, or
    "-") and, for a request with a body, X-Req-CE (its Content-Encoding, or "-").
    Records each request as (method, target, headers, body) in self.seen."""

    def __init__(self, raw_server):
        self.seen = []
        self.srv = raw_server(self.handle, "origin")
        self.port = self.srv.port

    def handle(self, sock, rd, idx):
        for _ in range(10000):
            try:
                req = self.read(rd)
            except ConnClosed:
                return
            if not self.answer(sock, req):
                return

    @staticmethod
    def read(rd):
        line = rd.readline().decode("latin-1").strip()
        meth, target, _ = line.split(" ")
        hdrs = []
        for _ in range(200):
            ln = rd.readline()
            if ln in (b"\r\n", b"\n"):
                break
            k, _, v = ln.decode("latin-1").partition(":")
            hdrs.append((k.strip(), v.strip()))
        body = b""
        low = {k.lower(): v for k, v in hdrs}
        if "chunked" in low.get("transfer-encoding", "").lower():
            for _ in range(1 << 20):
                n = int(rd.readline().split(b";")[0].strip(), 16)
                if not n:
                    while rd.readline() not in (b"\r\n", b"\n"):
                        pass
                    break
                body += rd.read_exact(n)
                rd.read_exact(2)
        elif low.get("content-length"):
            body = rd.read_exact(int(low["content-length"]))
        return meth, target, hdrs, body

    def answer(self, sock, req):
        meth, target, hdrs, body = req
        self.seen.append(req)
        q = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query)
        one = lambda k, d: q.get(k, [d])[0]  # noqa: E731
        status, framing = int(one("status", "200")), one("framing", "cl")
        data = body if one("echo", "") else page(int(one("size", "5000")))
        ae = [v for k, v in hdrs if k.lower() == "accept-encoding"]
        out = ["%s %d X" % (one("ver", "HTTP/1.1"), status)]
        out += q.get("h", [])
        if one("ctype", "text/html") != "none":
            out.append("Content-Type: %s" % one("ctype", "text/html"))
        out.append("X-Seen-AE: %s" % (", ".join(ae) if ae else "-"))
        if body or one("echo", ""):
            out.append("X-Req-CE: %s" % (dict((k.lower(), v) for k, v in hdrs)
                                         .get("content-encoding", "-")))
        bodyless = meth == "HEAD" or status in (204, 304)
        if framing == "cl" and status not in (204, 304):
            out.append("Content-Length: %d" % len(data))
        elif framing == "chunked" and status not in (204, 304):
            out.append("Transfer-Encoding: chunked")
        elif framing == "close":
            out.append("Connection: close")
        sock.sendall(("\r\n".join(out) + "\r\n\r\n").encode("latin-1"))
        if bodyless:
            return framing != "close"
        every, pause = int(one("every", "0")), float(one("pause", "0"))
        parts = [data[o:o + every] for o in range(0, len(data), every)] if every else [data]
        for i, part in enumerate(parts):
            if i:
                time.sleep(pause)
            if framing == "chunked":
                for off in range(0, len(part), 4000):
                    piece = part[off:off + 4000]
                    sock.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
            else:
                sock.sendall(part)
        if framing == "chunked":
            sock.sendall(b"0\r\n\r\n")
        return framing != "close"


@pytest.fixture
def origin(raw_server):
    return CompOrigin(raw_server)


def comp_cfg(port, origin_port, fe=(), be=(), glob=(), defaults=(), sock=None):
    """frontend fe on <port> -> backend be -> the origin; extra lines per section."""
    lines = ["global"] + ["    " + g for g in glob]
    if sock:
        lines.append("    stats socket %s mode 600 level admin" % sock)
    lines += ["defaults"] + ["    " + d for d in DEFAULTS + list(defaults)]
    lines += ["frontend fe", "    bind 127.0.0.1:%d" % port] + ["    " + x for x in fe]
    lines += ["    default_backend be", "backend be"] + ["    " + x for x in be]
    lines.append("    server s1 127.0.0.1:%d" % origin_port)
    return "\n".join(lines) + "\n"


def fetch(port, path="/", ae="gzip", method="GET", extra=(), version="HTTP/1.1"):
    """One request (Accept-Encoding <ae> unless None); returns the Response."""
    hdrs = [] if ae is None else [("Accept-Encoding", ae)]
    hdrs += list(extra)
    raw = "%s %s %s\r\nHost: test\r\n%sConnection: close\r\n\r\n" % (
        method, path, version, "".join("%s: %s\r\n" % h for h in hdrs))
    return httpc.request(port, raw.encode(), method=method)


def head_lines(r):
    """The response header lines a comparison with 2.6 looks at: names in lower case,
    without the connection handling headers."""
    return ["%s: %s" % (k.lower(), v) for k, v in r.headers
            if k.lower() not in ("connection", "keep-alive")]


def decoded(r):
    ce = r.header("Content-Encoding")
    if ce is None:
        return r.body
    assert ce in ("gzip", "deflate"), ce
    for wbits in ((31,) if ce == "gzip" else (15, -15)):
        try:
            d = zlib.decompressobj(wbits)
            out = d.decompress(r.body) + d.flush()
            assert d.eof, "the compressed stream does not end"
            return out
        except zlib.error:
            continue
    raise AssertionError("undecodable %s body" % ce)


def compressed(r):
    """The proxy compressed it (an origin's own Content-Encoding comes without Vary)."""
    return r.header("Content-Encoding") is not None and r.header("Vary") == "Accept-Encoding"


# ---- algorithms ----

@pytest.mark.parametrize("algo", ["gzip", "deflate", "raw-deflate"])
@pytest.mark.parametrize("framing", ["cl", "chunked"])
def test_algorithms_decode_byte_exact(proxy, origin, algo, framing):
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo %s" % algo]), ports=[port])
    ae = "gzip" if algo == "gzip" else "deflate"
    for size in (1, 5000, 100000, 300001):
        r = fetch(port, "/?size=%d&framing=%s" % (size, framing), ae=ae)
        assert r.status == 200
        assert r.header("Content-Encoding") == ae
        assert r.header("Transfer-Encoding") == "chunked"
        assert r.header("Content-Length") is None
        raw = zlib.decompressobj(WBITS[algo])
        assert raw.decompress(r.body) + raw.flush() == page(size)
        assert raw.eof
        if size >= 5000:
            assert len(r.body) < size / 2


@pytest.mark.parametrize("framing", ["cl", "chunked"])
def test_curl_compressed(proxy, origin, framing):
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip deflate"]), ports=[port])
    url = "http://127.0.0.1:%d/?size=200000&framing=%s" % (port, framing)
    out = subprocess.run(["curl", "-s", "--compressed", "-D", "-", url], capture_output=True,
                         timeout=20)
    head, _, body = out.stdout.partition(b"\r\n\r\n")
    assert b"content-encoding: deflate" in head.lower() or \
        b"content-encoding: gzip" in head.lower(), head
    assert body == page(200000)


def test_empty_chunked_body_is_an_empty_stream(proxy, origin):
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip"]), ports=[port])
    r = fetch(port, "/?size=0&framing=chunked")
    assert r.header("Content-Encoding") == "gzip"
    assert decoded(r) == b""


# ---- the response head, as 2.6 writes it ----

HEAD_CASES = {
    # query -> the header lines 2.6 sends (Debian's haproxy, same config)
    "?h=ETag:%20%22abc%22": [
        'etag: W/"abc"', "content-type: text/html", "x-seen-ae: gzip",
        "transfer-encoding: chunked", "vary: Accept-Encoding", "content-encoding: gzip"],
    "?h=ETag:%20W/%22abc%22&framing=chunked": [
        'etag: W/"abc"', "content-type: text/html", "x-seen-ae: gzip",
        "transfer-encoding: chunked", "vary: Accept-Encoding", "content-encoding: gzip"],
    "?h=Cache-Control:%20max-age=60&ctype=text/css": [
        "cache-control: max-age=60", "content-type: text/css", "x-seen-ae: gzip",
        "transfer-encoding: chunked", "vary: Accept-Encoding", "content-encoding: gzip"],
    "?status=404": ["content-type: text/html", "x-seen-ae: gzip", "content-length: 5000"],
    "?h=ETag:%20abc": ["etag: abc", "content-type: text/html", "x-seen-ae: gzip",
                       "content-length: 5000"],
}


@pytest.mark.parametrize("query", sorted(HEAD_CASES))
def test_response_head_as_haproxy(proxy, origin, query):
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip"]), ports=[port])
    r = fetch(port, "/" + query)
    assert head_lines(r) == HEAD_CASES[query]
    assert decoded(r) == page(5000)


# ---- reasons not to compress ----

def bypass_cases():
    ua_old = "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1)"
    ua_sp2 = "Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1)"
    return [
        # (id, query, request kwargs, compressed?)
        ("plain", "", {}, True),
        ("status-201", "?status=201", {}, True),
        ("status-203", "?status=203", {}, True),
        ("status-204", "?status=204", {}, False),
        ("status-206", "?status=206&h=Content-Range:%20bytes%200-4999/9000", {}, False),
        ("status-304", "?status=304", {}, False),
        ("status-404", "?status=404", {}, False),
        ("status-500", "?status=500", {}, False),
        ("head", "", {"method": "HEAD"}, False),
        ("request-1.0", "", {"version": "HTTP/1.0"}, False),
        ("response-1.0", "?ver=HTTP/1.0", {}, False),
        ("close-delimited", "?framing=close", {}, False),
        ("empty-cl", "?size=0", {}, False),
        ("content-encoding", "?h=Content-Encoding:%20br", {}, False),
        ("content-encoding-identity", "?h=Content-Encoding:%20identity", {}, False),
        ("no-transform", "?h=Cache-Control:%20no-transform", {}, False),
        ("no-transform-listed", "?h=Cache-Control:%20max-age=3,%20No-Transform", {}, False),
        ("no-transform-2nd-header",
         "?h=Cache-Control:%20max-age=3&h=Cache-Control:%20no-transform", {}, False),
        ("no-transformx", "?h=Cache-Control:%20no-transformx", {}, True),
        ("etag-malformed", "?h=ETag:%20abc", {}, False),
        ("etag-lowercase-w", "?h=ETag:%20w/%22abc%22", {}, False),
        ("etag-two", "?h=ETag:%20%22a%22&h=ETag:%20%22b%22", {}, False),
        ("multipart", "?ctype=multipart/mixed", {}, False),
        ("no-content-type", "?ctype=none", {}, True),
        ("no-accept-encoding", "", {"ae": None}, False),
        ("q0", "", {"ae": "gzip;q=0"}, False),
        ("unknown-coding", "", {"ae": "br"}, False),
        ("mozilla4", "", {"extra": [("User-Agent", ua_old)]}, False),
        ("mozilla4-msie6-sp2", "", {"extra": [("User-Agent", ua_sp2)]}, True),
        ("mozilla5", "", {"extra": [("User-Agent", "Mozilla/5.0 (X11)")]}, True),
    ]


@pytest.mark.parametrize("case", bypass_cases(), ids=lambda c: c[0])
def test_when_haproxy_compresses(proxy, origin, case):
    _, query, kw, expect = case
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip"]), ports=[port])
    r = fetch(port, "/" + query, **kw)
    assert compressed(r) == expect, r.headers
    if not expect:
        assert r.header("Vary") is None
    if kw.get("method") != "HEAD" and r.status not in (204, 304):
        body = decoded(r) if expect else r.body
        assert body == page(5000 if "size=0" not in query else 0)


@pytest.mark.ours
def test_content_range_is_not_compressed(proxy, origin):
    """The issue's rule (2.6 compresses a 200 carrying Content-Range)."""
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip"]), ports=[port])
    r = fetch(port, "/?h=Content-Range:%20bytes%200-4999/9000")
    assert not compressed(r)
    assert r.body == page(5000)


def test_types(proxy, origin):
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip",
                                          "compression type text/html application/json"]),
          ports=[port])
    for ctype, expect in [("text/html", True), ("text/html;%20charset=utf-8", True),
                          ("TEXT/HTMLX", True), ("application/json", True),
                          ("text/plain", False), ("image/png", False), ("none", False)]:
        r = fetch(port, "/?ctype=" + ctype)
        assert compressed(r) == expect, ctype
        assert decoded(r) == page(5000)


# ---- choosing the algorithm ----

Q_CASES = [
    # Accept-Encoding -> what 2.6 answers with "compression algo gzip deflate raw-deflate"
    # (its list is raw-deflate, deflate, gzip: each algorithm goes first)
    ("gzip", "gzip", 31), ("deflate", "deflate", -15), ("*", "deflate", -15),
    ("GZIP", "gzip", 31), ("gzip;q=0.5, deflate", "deflate", -15),
    ("deflate;q=0.5, gzip;q=0.5", "deflate", -15), ("gzip, deflate", "gzip", 31),
    ("gzip;q=0, *", "deflate", -15), ("*;q=0, gzip", "gzip", 31),
    ("deflate;q=0.5, gzip;q=0.9999", "gzip", 31), ("deflate;q=0.5, gzip;q=0.50001",
                                                    "deflate", -15),
    ("gzip;q=0.9,deflate ;q=0.95", "deflate", -15), ("gzip;Q=0.3, deflate;q=0.4", "gzip", 31),
    ("deflate;q=0.9, gzip;q=", "gzip", 31), ('a;x="1,gzip", deflate;q=0.4', "deflate", -15),
    ("gzip;q=0.5;q=0.9, deflate;q=0.7", "deflate", -15), ("x-gzip", None, 0),
    ("gzip;q=0.000", None, 0), ("gzip;q=00.5", None, 0), ('"gzip"', None, 0),
]


@pytest.mark.parametrize("ae,coding,wbits", Q_CASES, ids=[c[0] for c in Q_CASES])
def test_qvalues_choose_as_haproxy(proxy, origin, ae, coding, wbits):
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip deflate raw-deflate"]),
          ports=[port])
    r = fetch(port, "/", ae=ae)
    assert r.header("Content-Encoding") == coding
    if coding:
        d = zlib.decompressobj(wbits)
        assert d.decompress(r.body) + d.flush() == page(5000)


def test_several_accept_encoding_headers(proxy, origin):
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip deflate"]), ports=[port])
    r = fetch(port, "/", ae="gzip;q=0.2", extra=[("Accept-Encoding", "deflate;q=0.3")])
    assert r.header("Content-Encoding") == "deflate"
    r = fetch(port, "/", ae="gzip;q=0.2", extra=[("Accept-Encoding", "br")])
    assert r.header("Content-Encoding") == "gzip"


# ---- offload, identity ----

def test_offload_hides_accept_encoding_from_the_server(proxy, origin):
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip", "compression offload"]),
          ports=[port])
    r = fetch(port, "/", ae="gzip, br")
    assert r.header("Content-Encoding") == "gzip"
    assert r.header("X-Seen-AE") == "-"
    assert decoded(r) == page(5000)
    r = fetch(port, "/", ae="br")  # nothing chosen: the header goes to the server
    assert r.header("X-Seen-AE") == "br"
    assert not compressed(r)


def test_without_offload_the_server_sees_it(proxy, origin):
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip"]), ports=[port])
    r = fetch(port, "/", ae="gzip")
    assert r.header("X-Seen-AE") == "gzip" and compressed(r)


def test_identity(proxy, origin):
    """identity is chosen when nothing else is: chunked, Vary and a weak ETag, no
    Content-Encoding, the body as it came; with offload the header is removed only when
    the client named it."""
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo identity gzip",
                                          "compression offload"]), ports=[port])
    r = fetch(port, "/?h=ETag:%20%22x%22", ae="br")
    assert head_lines(r) == ['etag: W/"x"', "content-type: text/html", "x-seen-ae: br",
                             "transfer-encoding: chunked", "vary: Accept-Encoding"]
    assert r.body == page(5000)
    r = fetch(port, "/", ae="identity")
    assert r.header("X-Seen-AE") == "-" and r.header("Vary") == "Accept-Encoding"
    r = fetch(port, "/", ae=None)
    assert r.header("Vary") == "Accept-Encoding" and r.body == page(5000)
    r = fetch(port, "/", ae="gzip")
    assert r.header("Content-Encoding") == "gzip"


# ---- where the settings come from ----

def test_backend_settings_win_and_defaults_add_up(proxy, origin, tmp_path):
    """defaults: gzip, text/html. The frontend adds deflate and text/plain to them; the
    backend keeps the defaults' own, and a backend's settings win over the frontend's."""
    port = free_port()
    proxy(comp_cfg(port, origin.port, defaults=["compression algo gzip",
                                                "compression type text/html"],
                   fe=["compression algo deflate", "compression type text/plain"]),
          ports=[port])
    assert compressed(fetch(port, "/?ctype=text/html", ae="gzip"))
    assert not compressed(fetch(port, "/?ctype=text/plain", ae="gzip"))
    assert not compressed(fetch(port, "/?ctype=text/html", ae="deflate"))
    r = fetch(port, "/?ctype=text/html", ae="gzip, deflate")
    assert r.header("Content-Encoding") == "gzip"


def test_frontend_settings_add_to_named_defaults(proxy, origin, tmp_path):
    port = free_port()
    cfg = "\n".join([
        "defaults A"] + ["    " + d for d in DEFAULTS] + [
        "    compression algo gzip", "    compression type text/html",
        "    compression offload",
        "defaults B"] + ["    " + d for d in DEFAULTS] + [
        "frontend fe from A", "    bind 127.0.0.1:%d" % port,
        "    compression algo deflate", "    compression type text/plain",
        "    default_backend be",
        "backend be from B", "    server s1 127.0.0.1:%d" % origin.port]) + "\n"
    p = proxy(cfg, ports=[port])
    assert "'offload' ignored in 'defaults' section" in p.stderr()
    for ctype, ae, coding in [("text/html", "gzip", "gzip"), ("text/plain", "gzip", "gzip"),
                              ("text/html", "deflate", "deflate"),
                              ("text/plain", "gzip, deflate", "gzip"),
                              ("image/png", "gzip", None)]:
        r = fetch(port, "/?ctype=" + ctype, ae=ae)
        assert r.header("Content-Encoding") == coding, (ctype, ae)
        assert r.header("X-Seen-AE") == ae  # offload is not inherited
        assert decoded(r) == page(5000)


def test_stats_page_is_compressed(proxy, origin):
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip", "stats enable",
                                          "stats uri /stats"]), ports=[port])
    r = fetch(port, "/stats;csv")
    assert r.status == 200 and r.header("Content-Encoding") == "gzip"
    assert decoded(r).startswith(b"# pxname,svname,")


# ---- counters ----

def stat_rows(sock):
    lines = cli(sock, "show stat").strip().splitlines()
    head = lines[0].lstrip("# ").split(",")
    return {(r["pxname"], r["svname"]): r
            for r in (dict(zip(head, ln.split(","))) for ln in lines[1:] if ln)}


def info(sock):
    return dict(ln.split(": ", 1) for ln in cli(sock, "show info").splitlines() if ": " in ln)


def test_counters(proxy, origin, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    proxy(comp_cfg(port, origin.port, fe=["compression algo identity gzip"], sock=sock),
          ports=[port])
    r = fetch(port, "/?size=50000", ae="gzip")
    out = len(r.body)  # the compressed bytes, without the chunk framing
    assert decoded(r) == page(50000)
    fetch(port, "/?size=7000", ae="br")          # identity: bypassed
    fetch(port, "/?size=3000&status=404", ae="gzip")  # not compressed: not counted
    time.sleep(0.2)
    rows = stat_rows(sock)
    for key in (("fe", "FRONTEND"), ("be", "BACKEND")):
        row = rows[key]
        assert int(row["comp_in"]) == 50000, row
        assert int(row["comp_out"]) == out, row
        assert int(row["comp_byp"]) == 7000, row
        assert int(row["comp_rsp"]) == 2, row
    assert rows[("be", "s1")]["comp_in"] == ""
    i = info(sock)
    # rates over the last second: the identity bytes are not compressed ones
    assert 0 < int(i["CompressBpsIn"]) <= 50000
    assert 0 < int(i["CompressBpsOut"]) <= out
    assert i["CompressBpsRateLim"] == "0"


@pytest.mark.ours
def test_show_info_zlib_fields(proxy, origin, tmp_path):
    """A build with zlib prints ZlibMemUsage and MaxZlibMemUsage (Debian's 2.6 uses
    libslz and has neither): memory in use while a response is compressed, none after."""
    port, sock = free_port(), str(tmp_path / "s.sock")
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip"], sock=sock,
                   glob=["maxzlibmem 8", "maxcomprate 100"]), ports=[port])
    i = info(sock)
    keys = list(i)
    at = keys.index("CompressBpsRateLim")
    assert keys[at + 1:at + 3] == ["ZlibMemUsage", "MaxZlibMemUsage"]
    assert i["ZlibMemUsage"] == "0" and i["MaxZlibMemUsage"] == str(8 << 20)
    assert i["CompressBpsRateLim"] == str(100 * 1024)
    with httpc.connect(port) as s:
        s.sendall(b"GET /?size=30000&every=20000&pause=1.5 HTTP/1.1\r\nHost: t\r\n"
                  b"Accept-Encoding: gzip\r\n\r\n")
        time.sleep(0.5)
        held = int(info(sock)["ZlibMemUsage"])
        assert 40000 < held <= 8 << 20, held  # the level-1 encoder: about 49 kB
        r = httpc.read_response(Reader(s))
        assert decoded(r) == page(30000)
    time.sleep(0.2)
    assert info(sock)["ZlibMemUsage"] == "0"


@pytest.mark.ours
def test_version_lists_zlib_and_algorithms():
    from conftest import run_haproxy
    out = run_haproxy(["-vv"]).stdout
    assert "Built with zlib version : %s" % zlib.ZLIB_VERSION in out
    assert "Running on zlib version : " in out
    assert ('Compression algorithms supported : identity("identity"), deflate("deflate"), '
            'raw-deflate("deflate"), gzip("gzip")') in out


def test_sha_of_a_compressed_keep_alive_sequence(proxy, origin):
    """Several compressed responses on one client connection, CL and chunked, alternating
    with plain ones: each decodes to its own body."""
    port = free_port()
    proxy(comp_cfg(port, origin.port, fe=["compression algo gzip"]), ports=[port])
    reqs = [("/?size=%d&framing=%s" % (n, f), ae)
            for n, f, ae in [(30000, "cl", "gzip"), (20000, "chunked", "gzip"),
                             (1000, "cl", "br"), (60000, "chunked", "gzip"),
                             (0, "chunked", "gzip"), (4000, "cl", "gzip")]]
    with httpc.connect(port) as s:
        rd = Reader(s)
        for path, ae in reqs:
            s.sendall(("GET %s HTTP/1.1\r\nHost: t\r\nAccept-Encoding: %s\r\n\r\n"
                       % (path, ae)).encode())
            r = httpc.read_response(rd)
            n = int(urllib.parse.parse_qs(path[2:])["size"][0])
            assert hashlib.sha256(decoded(r)).hexdigest() == \
                hashlib.sha256(page(n)).hexdigest()
            assert compressed(r) == (ae == "gzip" and (n > 0 or "chunked" in path))

