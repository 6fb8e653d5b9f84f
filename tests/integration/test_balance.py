"""The `balance` algorithms beyond roundrobin/leastconn/random: first, source, uri,
url_param, hdr(), rdp-cookie, hash EXPR, with hash-type and their config errors.

Owns: which server a request reaches under each of these algorithms (with real backends
on loopback) and the error messages of `balance`, `hash-type` and `hash-balance-factor`.
Every loop is bounded; every process is stopped by PID by the fixtures.
"""

import socket
import threading

import httpc
import pytest
from backend import Reader
from conftest import run_haproxy

HEAD = ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 10s",
        "    timeout server 10s"]


def cfg(port, lines, servers, srv_opts=""):
    out = HEAD + ["listen px", "    bind 127.0.0.1:%d" % port]
    out += ["    " + x for x in lines]
    out += ["    server %s 127.0.0.1:%d %s" % (b.name, b.port, srv_opts) for b in servers]
    return "\n".join(out) + "\n"


def get(port, path="/", headers=(), src="127.0.0.1", method="GET", body=b""):
    hdrs = "".join("%s: %s\r\n" % h for h in headers)
    if body:
        hdrs += "Content-Length: %d\r\nContent-Type: application/x-www-form-urlencoded\r\n" % len(body)
    raw = ("%s %s HTTP/1.1\r\nHost: test\r\n%sConnection: close\r\n\r\n" % (method, path, hdrs)).encode()
    with socket.socket() as s:
        s.settimeout(10)
        s.bind((src, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(raw + body)
        r = httpc.read_response(Reader(s))
    assert r.status == 200, r
    return r.header("X-Server")


def test_source_keeps_a_client_on_one_server(proxy, backends, port):
    srv = backends(4)
    proxy(cfg(port, ["balance source"], srv), ports=[port])
    assert len({get(port, "/x%d" % i) for i in range(30)}) == 1
    seen = {get(port, "/", src="127.0.0.%d" % i) for i in range(2, 60)}
    assert len(seen) >= 3, seen
    for i in range(2, 8):
        a = "127.0.0.%d" % i
        assert len({get(port, "/y%d" % k, src=a) for k in range(5)}) == 1


@pytest.mark.parametrize("ht", ["map-based", "consistent crc32", "consistent djb2 avalanche"])
def test_uri_one_uri_one_server_many_uris_all_servers(proxy, backends, port, ht):
    srv = backends(4)
    proxy(cfg(port, ["balance uri", "hash-type %s" % ht], srv), ports=[port])
    assert len({get(port, "/same/path?q=%d" % i) for i in range(20)}) == 1  # query ignored
    seen = {get(port, "/u/%d" % i) for i in range(200)}
    assert seen == {"s1", "s2", "s3", "s4"}


def test_uri_whole_and_depth(proxy, backends, port):
    srv = backends(4)
    proxy(cfg(port, ["balance uri whole"], srv), ports=[port])
    assert len({get(port, "/p?q=%d" % i) for i in range(60)}) > 1


def test_uri_depth_keeps_a_directory_together(proxy, backends, port):
    srv = backends(4)
    proxy(cfg(port, ["balance uri depth 1"], srv), ports=[port])
    assert len({get(port, "/dir/f%d" % i) for i in range(40)}) == 1
    assert len({get(port, "/d%d/f" % i) for i in range(60)}) > 1


def test_url_param_and_round_robin_fallback(proxy, backends, port):
    srv = backends(4)
    proxy(cfg(port, ["balance url_param user check_post"], srv), ports=[port])
    assert len({get(port, "/a%d?user=bob&x=%d" % (i, i)) for i in range(20)}) == 1
    seen = {get(port, "/?user=u%d" % i) for i in range(200)}
    assert seen == {"s1", "s2", "s3", "s4"}
    rr = [get(port, "/nouser%d" % i) for i in range(8)]
    assert set(rr) == {"s1", "s2", "s3", "s4"}  # round robin without the parameter


def test_hdr_and_round_robin_fallback(proxy, backends, port):
    srv = backends(4)
    proxy(cfg(port, ["balance hdr(x-user)"], srv), ports=[port])
    assert len({get(port, "/%d" % i, [("X-User", "carol")]) for i in range(20)}) == 1
    seen = {get(port, "/", [("X-User", "u%d" % i)]) for i in range(200)}
    assert seen == {"s1", "s2", "s3", "s4"}
    assert set(get(port, "/n%d" % i) for i in range(8)) == {"s1", "s2", "s3", "s4"}


def test_hdr_use_domain_only(proxy, backends, port):
    srv = backends(4)
    proxy(cfg(port, ["balance hdr(x-host) use_domain_only"], srv), ports=[port])
    hosts = ["www.example.com", "api.example.org", "example.net", "a.b.example.io"]
    assert len({get(port, "/", [("X-Host", h)]) for h in hosts}) == 1


def test_hash_expression(proxy, backends, port):
    srv = backends(4)
    proxy(cfg(port, ["balance hash req.hdr(x-k),lower"], srv), ports=[port])
    assert len({get(port, "/%d" % i, [("X-K", k)]) for i, k in enumerate(["AbC", "abc", "ABC"] * 5)}) == 1
    seen = {get(port, "/", [("X-K", "k%d" % i)]) for i in range(200)}
    assert seen == {"s1", "s2", "s3", "s4"}


def test_rdp_cookie_is_round_robin_in_http(proxy, backends, port):
    srv = backends(4)
    proxy(cfg(port, ["balance rdp-cookie"], srv), ports=[port])
    assert set(get(port, "/r%d" % i) for i in range(8)) == {"s1", "s2", "s3", "s4"}


def test_first_fills_the_first_server(proxy, backends, port):
    srv = backends(3)
    proxy(cfg(port, ["balance first", "timeout queue 5s"], srv, "maxconn 2"), ports=[port])
    assert {get(port, "/seq%d" % i) for i in range(6)} == {"s1"}
    results, lock = [], threading.Lock()

    def one(i):
        name = get(port, "/?delay=0.5&i=%d" % i)
        with lock:
            results.append(name)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert sorted(results) == ["s1", "s1", "s2", "s2", "s3"], results


@pytest.mark.parametrize("line,msg", [
    ("balance uri foo", "balance uri only accepts parameters 'len', 'depth', 'path-only', "
     "and 'whole' (got 'foo')."),
    ("balance uri len x", "balance uri : 'len' expects a positive integer (got 'x')."),
    ("balance url_param", "balance url_param requires an URL parameter name."),
    ("balance url_param u foo", "balance url_param only accepts 'check_post' modifier "
     "(got 'foo')."),
    ("balance hdr(", "balance hdr requires an http header field name."),
    ("balance hdr(host) foo", "balance hdr(host) only accepts 'use_domain_only' modifier "
     "(got 'foo')."),
    ("balance rdp-cookie(", "balance rdp-cookie : missing cookie name."),
    ("balance hash", "balance hash requires a sample expression."),
    ("balance nosuch", "balance only supports 'roundrobin', 'static-rr', 'leastconn', "
     "'source', 'uri', 'url_param', 'hdr(name)' and 'rdp-cookie(name)' options."),
    ("hash-type foo", "'hash-type' only supports 'consistent' and 'map-based'."),
    ("hash-type consistent sdbm foo", "'hash-type' only supports 'avalanche' as a modifier "
     "for hash functions."),
    ("hash-balance-factor 100", "'hash-balance-factor' must be 0 or greater than 100."),
])
def test_config_errors_name_file_and_line(tmp_path, line, msg):
    f = tmp_path / "bad.cfg"
    f.write_text("\n".join(HEAD + ["backend b", "    " + line,
                                   "    server s1 127.0.0.1:8080"]) + "\n")
    r = run_haproxy(["-c", "-f", str(f)])
    assert r.returncode != 0
    assert "parsing [%s:7] : %s" % (f, msg) in r.stderr, r.stderr


@pytest.mark.parametrize("line", ["hash-type map-based wt6", "hash-type consistent crc32 avalanche",
                                  "balance uri len 10 depth 2 whole path-only",
                                  "hash-balance-factor 150", "balance hash src",
                                  "balance url_param id check_post", "balance rdp-cookie(mstshash)"])
def test_config_accepted(tmp_path, line):
    f = tmp_path / "ok.cfg"
    f.write_text("\n".join(HEAD + ["backend b", "    " + line,
                                   "    server s1 127.0.0.1:8080"]) + "\n")
    r = run_haproxy(["-c", "-f", str(f)])
    assert "ALERT" not in r.stderr, r.stderr
