"""The small-object cache seen from the outside: hits and misses counted at the origin
(backend.py records every request it gets), what requests may use or fill the cache, which
responses are stored and for how long, Vary with and without process-vary, the Age header,
conditional requests answered 304, HEAD served from a GET entry, the log line of a hit,
the cache_lookups/cache_hits counters, "show cache", the res.cache_hit/res.cache_name
fetches, and bodies byte-exact whatever their framing.

Expectations come from Debian's /usr/sbin/haproxy 2.6 on the same configs: the tests run
against it too (HAPROXY_BIN=/usr/sbin/haproxy). Where this proxy follows later HAProxy
versions (the stored statuses, Vary on Origin or Referer alone) the test says so and is
skipped in reference mode. The config errors, limits, eviction and the load across threads
are in test_cache_cfg.py and test_cache_load.py.
"""

import re
import socket
import time

import httpc
import pytest
from backend import Reader, pattern_sha256
from conftest import IS_REF, cli, free_port, make_cfg
from syslog_sink import Sink

CACHE = "cache c1\n    total-max-size 4\n    max-age 60\n"
RULES = ["http-request cache-use c1", "http-response cache-store c1"]
FRESH = "hdr=Cache-Control:max-age=30"


def start(proxy, backend, tmp_path=None, cache=CACHE, rules=RULES, glob=(), defaults=(),
          extra=""):
    """A listen px with the cache rules over <backend>; returns (proxy, port, sock)."""
    port = free_port()
    sock = str(tmp_path / "s.sock") if tmp_path else None
    g = list(glob) + (["stats socket %s level admin" % sock] if sock else [])
    cfg = make_cfg(port, [backend], glob=g, defaults=list(defaults), listen=list(rules),
                   extra=cache + extra)
    return proxy(cfg, ports=[port]), port, sock


def get(port, path, headers=(), method="GET", version="HTTP/1.1", host="h.example"):
    """One request on a new connection; the parsed response."""
    hs = "".join("%s: %s\r\n" % h for h in headers)
    hl = "Host: %s\r\n" % host if host else ""
    raw = ("%s %s %s\r\n%s%sConnection: close\r\n\r\n" % (method, path, version, hl, hs))
    return httpc.request(port, raw.encode(), method=method)


def origin_count(backend):
    return len(backend.requests)


def hits_of(port, backend, path, reqs):
    """Sends the requests (kwargs of get) on <path>; returns the list of 'hit'/'miss' as
    the origin saw them (a miss reached it)."""
    out = []
    for kw in reqs:
        before = origin_count(backend)
        r = get(port, path, **kw)
        assert r.status >= 200, r
        out.append("miss" if origin_count(backend) > before else "hit")
    return out


_n = [0]


def uniq(q=FRESH):
    """A path no other request of the test used."""
    _n[0] += 1
    return "/obj%d-%d?%s" % (_n[0], int(time.monotonic() * 1000) % 100000, q)


# ---- hits and misses ----

def test_hit_served_without_origin(proxy, backend):
    _, port, _ = start(proxy, backend)
    p = uniq()
    r1 = get(port, p)
    r2 = get(port, p)
    r3 = get(port, p)
    assert origin_count(backend) == 1
    assert r1.status == r2.status == r3.status == 200
    assert r1.body == r2.body == r3.body == b"hello from s1\n"
    assert r1.header("Age") is None
    assert r2.header("Age") in ("0", "1") and r3.header("Age") in ("0", "1")
    # the stored headers, as the origin sent them
    for name in ("X-Conn", "X-Req-Index", "Cache-Control", "Content-Type", "Content-Length"):
        assert r2.header(name) == r1.header(name), name


def test_not_stored_without_expiration_or_validator(proxy, backend):
    _, port, _ = start(proxy, backend)
    assert hits_of(port, backend, uniq(""), [{}, {}]) == ["miss", "miss"]
    assert hits_of(port, backend, uniq("hdr=Cache-Control:public"), [{}, {}]) == ["miss", "miss"]


@pytest.mark.parametrize("q", ["hdr=ETag:%22x%22",
                               "hdr=Last-Modified:Tue,%2001%20Jan%202019%2000:00:00%20GMT",
                               "hdr=Expires:Tue,%2001%20Jan%202030%2000:00:00%20GMT",
                               "hdr=Cache-Control:s-maxage=30", "hdr=Cache-Control:max-age"])
def test_stored_with_expiration_or_validator(proxy, backend, q):
    _, port, _ = start(proxy, backend)
    assert hits_of(port, backend, uniq(q), [{}, {}]) == ["miss", "hit"]


def test_head_uses_get_entry_and_is_not_stored(proxy, backend):
    _, port, _ = start(proxy, backend)
    p = uniq()
    assert hits_of(port, backend, p, [{"method": "HEAD"}, {}, {"method": "HEAD"}]) == \
        ["miss", "miss", "hit"]
    r = get(port, p, method="HEAD")
    assert r.status == 200 and r.body == b""
    assert r.header("Content-Length") == "14" and r.header("Age") is not None


def test_key_is_host_and_uri(proxy, backend):
    _, port, _ = start(proxy, backend)
    p = uniq()
    assert hits_of(port, backend, p, [{}, {"host": "H.example"}, {"host": "other"}, {}]) == \
        ["miss", "miss", "miss", "hit"]
    # an absolute https:// target shares the key of the origin form with its Host
    assert hits_of(port, backend, "https://h.example" + p, [{}]) == ["hit"]
    assert hits_of(port, backend, "http://h.example" + p, [{}, {}]) == ["miss", "hit"]
    # no Host: no key
    q = uniq()
    assert hits_of(port, backend, q, [{"host": None}, {"host": None}]) == ["miss", "miss"]


# ---- requests ----

@pytest.mark.parametrize("hdrs,want", [
    # (headers of the 2nd request, then a 3rd plain one): looked up? stored again?
    ([("Cache-Control", "no-cache")], ["miss", "hit"]),
    ([("Cache-Control", "max-age=100")], ["miss", "hit"]),
    ([("Cache-Control", "foo, MAX-STALE")], ["miss", "hit"]),
    ([("Cache-Control", "min-fresh=1")], ["miss", "hit"]),
    ([("Cache-Control", "only-if-cached")], ["hit", "hit"]),
    ([("Cache-Control", "no-store")], ["hit", "hit"]),
    ([("Pragma", "no-cache")], ["miss", "hit"]),
    ([("Pragma", "no-cache"), ("Cache-Control", "foo")], ["hit", "hit"]),
    ([("Authorization", "Basic eA==")], ["miss", "hit"]),
])
def test_request_cache_control(proxy, backend, hdrs, want):
    _, port, _ = start(proxy, backend)
    p = uniq()
    assert hits_of(port, backend, p, [{}, {"headers": hdrs}, {}]) == ["miss"] + want


def test_request_no_store_and_authorization_do_not_fill(proxy, backend):
    _, port, _ = start(proxy, backend)
    for h in [("Cache-Control", "no-store"), ("Authorization", "Basic eA==")]:
        p = uniq()
        assert hits_of(port, backend, p, [{"headers": [h]}, {}, {}]) == ["miss", "miss", "hit"]
    # unless the response says "public"
    p = uniq("hdr=Cache-Control:public,max-age=30")
    assert hits_of(port, backend, p, [{"headers": [("Authorization", "Basic eA==")]}, {}]) == \
        ["miss", "hit"]


def test_no_cache_request_refreshes_the_entry(proxy, backend):
    _, port, _ = start(proxy, backend)
    p = uniq()
    r1 = get(port, p)
    r2 = get(port, p, headers=[("Cache-Control", "no-cache")])
    r3 = get(port, p)
    assert origin_count(backend) == 2
    assert r2.header("X-Req-Index") != r1.header("X-Req-Index") or \
        r2.header("X-Conn") != r1.header("X-Conn")
    assert (r3.header("X-Conn"), r3.header("X-Req-Index")) == \
        (r2.header("X-Conn"), r2.header("X-Req-Index"))


def test_unsafe_method_invalidates(proxy, backend):
    _, port, _ = start(proxy, backend)
    p = uniq()
    assert hits_of(port, backend, p, [{}, {}, {"method": "POST"}, {}, {}]) == \
        ["miss", "hit", "miss", "miss", "hit"]
    # a failed one does not
    p = uniq(FRESH + "&status=404")
    q = p.replace("&status=404", "")
    assert hits_of(port, backend, q, [{}, {}]) == ["miss", "hit"]


def test_http10_requests_bypass_the_cache(proxy, backend):
    _, port, _ = start(proxy, backend)
    p = uniq("hdr=Cache-Control:public,max-age=30")
    assert hits_of(port, backend, p, [{"version": "HTTP/1.0"}, {}, {"version": "HTTP/1.0"},
                                      {}]) == ["miss", "miss", "miss", "hit"]


# ---- responses ----

@pytest.mark.parametrize("cc,stored", [
    ("max-age=30", True),
    ("MAX-AGE=30", True),
    ("max-age=%2230%22", True),
    ("public,max-age=30", True),
    ("max-age=30,private", False),
    ("max-age=30,no-store", False),
    ("max-age=30,no-cache", False),
    ("max-age=0", False),
    ("s-maxage=0", False),
    ("max-age=0,s-maxage=30", False),
    ("s-maxage=0,max-age=30", False),
    ("max-age=30,no-cache=%22set-cookie%22", False),
    ("max-age=abc", False),
    ("max-age=-1", False),
    ("max-age=30,private,public", True),
    ("max-age=30,public,private", False),
])
def test_response_cache_control(proxy, backend, cc, stored):
    _, port, _ = start(proxy, backend)
    want = ["miss", "hit" if stored else "miss"]
    assert hits_of(port, backend, uniq("hdr=Cache-Control:" + cc), [{}, {}]) == want


@pytest.mark.parametrize("q,stored", [
    (FRESH + "&hdr=Set-Cookie:a=b", True),
    (FRESH + "&hdr=Pragma:no-cache", False),
    ("hdr=Expires:Tue,%2001%20Jan%202000%2000:00:00%20GMT", False),
    ("hdr=Expires:garbage", False),
    (FRESH + "&hdr=Cache-Control:no-cache", False),
    (FRESH + "&hdr=Vary:Accept-Encoding", False),  # process-vary is off
    (FRESH + "&framing=chunked", True),
    (FRESH + "&framing=close", True),
    (FRESH + "&status=206", False),
    (FRESH + "&status=302", False),
    (FRESH + "&status=500", False),
])
def test_response_storable(proxy, backend, q, stored):
    _, port, _ = start(proxy, backend)
    assert hits_of(port, backend, uniq(q), [{}, {}]) == ["miss", "hit" if stored else "miss"]


@pytest.mark.v32
@pytest.mark.parametrize("status", [203, 204, 300, 301, 308, 404, 405, 410, 414, 501])
def test_statuses_stored_as_recent_haproxy(proxy, backend, status):
    # 2.6 stores 200 only; later versions (and this proxy) the statuses of RFC 9111
    _, port, _ = start(proxy, backend)
    p = uniq(FRESH + "&status=%d" % status)
    assert hits_of(port, backend, p, [{}, {}]) == ["miss", "hit"]
    r = get(port, p)
    assert r.status == status and r.header("Age") is not None


def test_expiry(proxy, backend):
    _, port, _ = start(proxy, backend, cache=CACHE.replace("max-age 60", "max-age 1"))
    p = uniq()  # the response says 30 s, the cache's max-age 1 s wins
    assert hits_of(port, backend, p, [{}, {}]) == ["miss", "hit"]
    time.sleep(2.1)
    assert hits_of(port, backend, p, [{}, {}]) == ["miss", "hit"]
    q = uniq("hdr=Cache-Control:max-age=1")
    _, port2, _ = start(proxy, backend)
    assert hits_of(port2, backend, q, [{}, {}]) == ["miss", "hit"]
    time.sleep(2.1)
    assert hits_of(port2, backend, q, [{}]) == ["miss"]


def test_age_header(proxy, backend):
    _, port, _ = start(proxy, backend)
    p = uniq(FRESH + "&hdr=Age:10")
    r1 = get(port, p)
    r2 = get(port, p)
    assert origin_count(backend) == 1
    assert r1.header("Age") is None  # a stored response loses its Age
    assert r2.header("Age") in ("10", "11")
    time.sleep(1.1)
    assert int(get(port, p).header("Age")) >= 11
    # an Age it cannot have: not stored, passed on as it is
    for age in ("40", "0", "abc"):
        q = uniq(FRESH + "&hdr=Age:" + age)
        assert hits_of(port, backend, q, [{}, {}]) == ["miss", "miss"]
        assert get(port, q).header("Age") == age


def test_bodies_byte_exact(proxy, backend):
    cache = CACHE.replace("max-age 60", "max-object-size 1000000")
    _, port, _ = start(proxy, backend, cache=cache)
    for framing in ("cl", "chunked", "close"):
        p = uniq(FRESH + "&size=300000&framing=" + framing)
        for i in range(3):
            r = get(port, p)
            assert r.status == 200 and r.body_len == 300000, (framing, i)
            assert __import__("hashlib").sha256(r.body).hexdigest() == pattern_sha256(300000)
            assert (r.header("Age") is not None) == (i > 0), (framing, i)
        assert origin_count(backend) == 1
        backend.requests.clear()


def test_conditional_requests(proxy, backend):
    _, port, _ = start(proxy, backend)
    p = uniq(FRESH + "&hdr=ETag:%22v1%22")
    get(port, p)
    for inm, st in [('"v1"', 304), ('W/"v1"', 304), ('"v2"', 200), ('"v2", "v1"', 304),
                    ("*", 304)]:
        r = get(port, p, headers=[("If-None-Match", inm)])
        assert r.status == st, inm
        assert r.header("ETag") == '"v1"' and r.header("Age") is not None
        assert r.body == (b"" if st == 304 else b"hello from s1\n")
    q = uniq(FRESH + "&hdr=Last-Modified:Tue,%2001%20Jan%202019%2000:00:00%20GMT")
    get(port, q)
    for ims, st in [("Tue, 01 Jan 2019 00:00:00 GMT", 304), ("Mon, 31 Dec 2018 00:00:00 GMT",
                                                             200), ("garbage", 200)]:
        assert get(port, q, headers=[("If-Modified-Since", ims)]).status == st, ims
    # If-None-Match decides when both are there
    r = get(port, q, headers=[("If-Modified-Since", "Wed, 02 Jan 2019 00:00:00 GMT"),
                              ("If-None-Match", '"zz"')])
    assert r.status == 200
    assert origin_count(backend) == 2


# ---- Vary ----

VARY_CACHE = CACHE + "    process-vary on\n    max-secondary-entries 3\n"


def test_vary_accept_encoding(proxy, backend):
    _, port, _ = start(proxy, backend, cache=VARY_CACHE)
    ae = lambda v: {"headers": [("Accept-Encoding", v)]}
    p = uniq(FRESH + "&hdr=Vary:Accept-Encoding&hdr=Content-Encoding:gzip")
    assert hits_of(port, backend, p, [ae("gzip"), ae("gzip"), {}, ae("br"), ae("br, gzip"),
                                      ae("*"), ae("GZIP;q=0.5"), ae("gzip;q=0"),
                                      ae("x-gzip")]) == \
        ["miss", "hit", "hit", "miss", "hit", "hit", "hit", "miss", "hit"]
    # an identity response suits any request that does not refuse it
    q = uniq(FRESH + "&hdr=Vary:Accept-Encoding")
    assert hits_of(port, backend, q, [{}, ae("gzip"), ae("gzip;q=0"), ae("identity")]) == \
        ["miss", "hit", "hit", "hit"]
    # a coding the cache cannot match requests against is not stored
    q = uniq(FRESH + "&hdr=Vary:Accept-Encoding&hdr=Content-Encoding:foo")
    assert hits_of(port, backend, q, [{}, {}]) == ["miss", "miss"]


def test_vary_referer_and_secondary_limit(proxy, backend):
    _, port, _ = start(proxy, backend, cache=VARY_CACHE)
    rf = lambda v: {"headers": [("Referer", v)]}
    p = uniq(FRESH + "&hdr=Vary:Accept-Encoding,Referer")
    assert hits_of(port, backend, p, [rf("a"), rf("a"), rf("b"), rf("b"), {}, rf("a")]) == \
        ["miss", "hit", "miss", "hit", "miss", "hit"]
    # max-secondary-entries 3: a fourth variant is not stored
    assert hits_of(port, backend, p, [rf("d"), rf("d")]) == ["miss", "miss"]


@pytest.mark.parametrize("vary", ["*", "User-Agent", "", "Accept-Encoding,User-Agent"])
def test_vary_unknown_headers_not_stored(proxy, backend, vary):
    _, port, _ = start(proxy, backend, cache=VARY_CACHE)
    assert hits_of(port, backend, uniq(FRESH + "&hdr=Vary:" + vary), [{}, {}]) == \
        ["miss", "miss"]


@pytest.mark.ours
@pytest.mark.parametrize("vary,hdr", [("Origin", "Origin"), ("Referer", "Referer")])
def test_vary_on_one_header(proxy, backend, vary, hdr):
    # 2.6 knows no Origin, and never serves an entry that varies on Referer alone
    _, port, _ = start(proxy, backend, cache=VARY_CACHE)
    h = lambda v: {"headers": [(hdr, v)]}
    p = uniq(FRESH + "&hdr=Vary:" + vary)
    assert hits_of(port, backend, p, [h("a"), h("a"), h("b"), h("b"), {}, {}]) == \
        ["miss", "hit", "miss", "hit", "miss", "hit"]


# ---- around the cache: rules, logs, counters, CLI, fetches ----

def test_store_needs_the_key_of_cache_use(proxy, backend):
    _, port, _ = start(proxy, backend, rules=["http-response cache-store c1"])
    assert hits_of(port, backend, uniq(), [{}, {}]) == ["miss", "miss"]


def test_use_in_frontend_store_in_backend(proxy, backend):
    port = free_port()
    cfg = "\n".join([
        "defaults", "    mode http", "    timeout connect 2s", "    timeout client 5s",
        "    timeout server 5s",
        "frontend fe", "    bind 127.0.0.1:%d" % port,
        "    http-request cache-use c1 if { path_beg /f }",
        "    http-response set-header X-Fe yes",
        "    http-after-response set-header X-Hit %[res.cache_hit]",
        "    http-after-response set-header X-Name \"%[res.cache_name]\"",
        "    default_backend be",
        "backend be", "    http-request cache-use c1 if { path_beg /b }",
        "    http-response cache-store c1",
        "    http-response set-header X-Be yes",
        "    server s1 127.0.0.1:%d" % backend.port, ""]) + CACHE
    proxy(cfg, ports=[port])
    for prefix, be_rules in (("/f", False), ("/b", True)):
        p = prefix + uniq()
        r1, r2 = get(port, p), get(port, p)
        assert origin_count(backend) == 1
        backend.requests.clear()
        assert r1.header("X-Hit") == "0" and r1.header("X-Name") == ""
        assert r2.header("X-Hit") == "1" and r2.header("X-Name") == "c1"
        # the http-response rules of the proxies the hit went through ran on it
        assert r2.header("X-Fe") == "yes"
        assert (r2.header("X-Be") == "yes") == be_rules
        assert r2.header_all("X-Be") in ([], ["yes"])


def test_log_shows_cache(proxy, backend):
    sink = Sink()
    try:
        port = free_port()
        cfg = make_cfg(port, [backend], glob=["log 127.0.0.1:%d local0" % sink.port],
                       defaults=["log global", "option httplog", "option dontlognull"],
                       listen=RULES, extra=CACHE)
        proxy(cfg, ports=[port])
        sink.drain()
        p = uniq()
        get(port, p)
        get(port, p)
        lines = [t for _, t in sink.read(2, 5.0)]
        assert len(lines) == 2, lines
        assert " px px/s1 " in lines[0] and " ---- " in lines[0]
        assert " px px/<CACHE> " in lines[1], lines[1]
        assert re.search(r" 0/0/0/0/\d+ 200 \d+ - - LR-- ", lines[1]), lines[1]
    finally:
        sink.close()


def stat_row(sock, px, sv):
    out = cli(sock, "show stat")
    head = out.splitlines()[0].lstrip("# ").split(",")
    for line in out.splitlines()[1:]:
        f = line.split(",")
        if len(f) > 2 and f[0] == px and f[1] == sv:
            return dict(zip(head, f))
    raise AssertionError(out)


def test_counters(proxy, backend, tmp_path):
    port = free_port()
    sock = str(tmp_path / "s.sock")
    cfg = "\n".join([
        "global", "    stats socket %s level admin" % sock,
        "defaults", "    mode http", "    timeout connect 2s", "    timeout client 5s",
        "    timeout server 5s",
        "frontend fe", "    bind 127.0.0.1:%d" % port,
        "    http-request cache-use c1 if { path_beg /f }", "    default_backend be",
        "backend be", "    http-request cache-use c1 if { path_beg /b }",
        "    http-response cache-store c1", "    server s1 127.0.0.1:%d" % backend.port,
        ""]) + CACHE
    proxy(cfg, ports=[port])
    for p in ("/f" + uniq(), "/b" + uniq()):
        get(port, p)
        get(port, p)
    get(port, "/f" + uniq(), headers=[("Cache-Control", "no-cache")])  # not looked up
    fe, be = stat_row(sock, "fe", "FRONTEND"), stat_row(sock, "be", "BACKEND")
    assert (fe["cache_lookups"], fe["cache_hits"]) == ("2", "1")
    assert (be["cache_lookups"], be["cache_hits"]) == ("2", "1")
    assert stat_row(sock, "be", "s1")["cache_lookups"] == ""


SHOW_HEAD = re.compile(r"^0x[0-9a-f]+: (\S+) \(shctx:0x[0-9a-f]+, available blocks:(\d+)\)$")
SHOW_ENTRY = re.compile(r"^0x[0-9a-f]+ hash:\d+ vary:0x[0-9a-f]+ size:(\d+) \((\d+) blocks\), "
                        r"refcount:(\d+), expire:(\d+)$")


def test_show_cache(proxy, backend, tmp_path):
    cache = CACHE + "cache c2\n    total-max-size 2\n"
    _, port, sock = start(proxy, backend, tmp_path, cache=cache)
    get(port, uniq())
    get(port, uniq("hdr=ETag:1&size=3000"))
    lines = [l for l in cli(sock, "show cache").splitlines() if l]
    assert SHOW_HEAD.match(lines[0]).groups() == ("c1", "4096")
    entries = [SHOW_ENTRY.match(l) for l in lines[1:3]]
    assert all(entries), lines
    sizes = sorted(int(m.group(1)) for m in entries)
    assert sizes[0] < 1024 and 3000 < sizes[1] < 4096
    assert sorted(int(m.group(2)) for m in entries) == [1, (sizes[1] + 1023) // 1024]
    assert sorted(int(m.group(4)) for m in entries) in ([30, 60], [29, 60], [29, 59], [30, 59])
    assert all(m.group(3) == "0" for m in entries)
    assert SHOW_HEAD.match(lines[3]).groups() == ("c2", "2048")
    assert len(lines) == 4


def test_show_cache_needs_admin(proxy, backend, tmp_path):
    port = free_port()
    sock = str(tmp_path / "op.sock")
    cfg = make_cfg(port, [backend], glob=["stats socket %s level operator" % sock],
                   listen=RULES, extra=CACHE)
    proxy(cfg, ports=[port])
    assert cli(sock, "show cache").strip() == "Permission denied"
    assert "show cache" in cli(sock, "help")


def test_hits_keep_alive(proxy, backend):
    """Several hits and misses on one client connection, pipelined."""
    _, port, _ = start(proxy, backend)
    p, q = uniq(), uniq(FRESH + "&framing=chunked&size=5000")
    reqs = "".join("GET %s HTTP/1.1\r\nHost: h\r\n\r\n" % x for x in (p, q, p, q, p))
    with httpc.connect(port) as s:
        s.sendall(reqs.encode())
        rd = Reader(s)
        rs = [httpc.read_response(rd) for _ in range(5)]
    assert [r.status for r in rs] == [200] * 5
    assert [r.header("Age") is not None for r in rs] == [False, False, True, True, True]
    assert rs[1].body == rs[3].body and len(rs[3].body) == 5000
    assert origin_count(backend) == 2


def test_later_rules_run_on_hits(proxy, backend):
    """As HAProxy, a hit is answered once the rest of the proxy's http-request rules ran:
    a later deny wins, a later set-var is seen."""
    rules = ["http-request cache-use c1", "http-request set-var(txn.x) str(after)",
             "http-request deny if { req.hdr(x-deny) -m found }",
             "http-response cache-store c1",
             "http-after-response set-header X-Var %[var(txn.x)]"]
    _, port, _ = start(proxy, backend, rules=rules)
    p = uniq()
    get(port, p)
    r = get(port, p)
    assert r.status == 200 and r.header("Age") is not None
    assert r.header("X-Var") == "after"
    r = get(port, p, headers=[("X-Deny", "1")])
    assert r.status == 403 and r.header("Age") is None
    assert origin_count(backend) == 1


def test_compression_after_the_cache(proxy, backend, tmp_path):
    """The implicit compression filter comes after the cache: the stored object is the
    origin's (identity), each hit is compressed for a client that accepts it."""
    from test_cache_cfg import compression_known
    import gzip
    if not compression_known(tmp_path):
        pytest.skip("this build has no compression filter")
    rules = RULES + ["compression algo gzip", "compression type text/plain"]
    _, port, _ = start(proxy, backend, rules=rules)
    p = uniq(FRESH + "&size=3000")
    gz = [("Accept-Encoding", "gzip")]
    r1, r2, r3, r4 = get(port, p, gz), get(port, p), get(port, p, gz), get(port, p, gz)
    assert origin_count(backend) == 1
    want = pattern_sha256(3000)
    for r in (r1, r3, r4):
        assert r.header("Content-Encoding") == "gzip" and r.header("Vary") == "Accept-Encoding"
        assert __import__("hashlib").sha256(gzip.decompress(r.body)).hexdigest() == want
    assert r2.header("Content-Encoding") is None and r2.header("Content-Length") == "3000"
    assert __import__("hashlib").sha256(r2.body).hexdigest() == want
    assert [r.header("Age") is not None for r in (r1, r2, r3, r4)] == [False, True, True, True]
