"""The HTTP rule actions of issue 7 seen from the outside: what the backend receives (it
records every request) and what the client gets, through real sockets.

Owns: the URI actions (set-path/pathq/query/uri, replace-path/pathq/uri, set-method,
normalize-uri), replace-header/replace-value, redirects (http-request, http-response and
the legacy keyword), auth, tarpit, reject, silent-drop, set-status, variables, set-src,
captures and their fetches, unique-id, monitor fail, wait-for-body, early-hint,
set-timeout, strict-mode, http-after-response on the proxy's own replies, global set-var,
and the refusal of the keywords HAProxy 2.1 removed. The error-message sections are in
test_errors_sections.py.
"""

import time

import httpc
import pytest
from backend import Reader
from conftest import make_cfg, run_haproxy

GLOBAL = ["expose-experimental-directives"]  # normalize-uri is experimental in 2.6


def start(proxy, port, backend, rules, glob=(), defaults=(), extra=""):
    cfg = make_cfg(port, [backend], glob=GLOBAL + list(glob), defaults=list(defaults),
                   listen=list(rules), extra=extra)
    return proxy(cfg, ports=[port])


def send(port, target, headers=b"", method=b"GET", version=b"HTTP/1.1", body=b""):
    """One request on a new connection (closed after it); the parsed response."""
    raw = b"%s %s %s\r\nHost: h.example\r\nConnection: close\r\n%s\r\n%s" % (
        method, target.encode(), version, headers, body)
    return httpc.request(port, raw, method=method.decode())


def check_cfg(tmp_path, text):
    """Runs -c on a config; returns (exit code, stderr)."""
    p = tmp_path / "c.cfg"
    p.write_text(text)
    r = run_haproxy(["-c", "-f", str(p)])
    return r.returncode, r.stderr


BASE = ("defaults\n    mode http\n    timeout connect 1s\n    timeout client 1s\n"
        "    timeout server 1s\nlisten px\n    bind 127.0.0.1:1\n")


# ---- request line ----

@pytest.mark.parametrize("rule,target,want", [
    ("set-path /new%[path]", "/a/b?x=1", "/new/a/b?x=1"),
    ("set-pathq /only", "/p?q=1", "/only"),
    ("set-query a=b", "/x", "/x?a=b"),
    ("set-query a=b", "/x?old=1", "/x?a=b"),
    ("set-query %[req.hdr(x-none)]", "/x", "/x"),
    ("set-query %[req.hdr(x-none)]", "/x?old=1", "/x?"),
    ("set-uri /u%[url]", "/p?k=v", "/u/p?k=v"),
    ("replace-path /foo/(.*) /\\1", "/foo/bar?q=1", "/bar?q=1"),
    ("replace-path (.*) /foo\\1", "/bar?q=1", "/foo/bar?q=1"),
    ("replace-pathq ([^?]*)(\\?(.*))? \\1/foo\\2", "/bar?q=1", "/bar/foo?q=1"),
    ("replace-uri ([^/:]*://[^/]*)?(.*) \\1/foo\\2", "/bar?q=1", "/foo/bar?q=1"),
    ("replace-path /nomatch /x", "/keep", "/keep"),
])
def test_uri_rewrites(proxy, backend, port, rule, target, want):
    start(proxy, port, backend, ["http-request " + rule])
    r = send(port, target)
    assert r.status == 200
    assert backend.last().target == want


def test_set_path_keeps_absolute_form_authority(proxy, backend, port):
    start(proxy, port, backend, ["http-request set-path /z"])
    r = send(port, "http://h.example/a?q=1")
    assert r.status == 200
    assert backend.last().target == "http://h.example/z?q=1"


def test_set_method(proxy, backend, port):
    start(proxy, port, backend, ["http-request set-method POST if { path /m }"])
    assert send(port, "/m").status == 200
    assert backend.last().method == "POST"


def test_set_method_head_gets_no_body(proxy, backend, port):
    start(proxy, port, backend, ["http-request set-method HEAD"])
    with httpc.connect(port) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: h\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n"
                  b"Connection: close\r\n\r\n")
        data, _ = httpc.recv_until_close(s, 5)
    rs = httpc.parse_all(data, "HEAD")
    assert [r.status for r in rs] == [200, 200]
    assert backend.last().method == "HEAD"


@pytest.mark.parametrize("norm,target,want", [
    ("path-merge-slashes", "//a///b", "/a/b"),
    ("path-strip-dot", "/./bar/", "/bar/"),
    ("path-strip-dot", "/a/./a", "/a/a"),
    ("path-strip-dot", "/.well-known/", "/.well-known/"),
    ("path-strip-dotdot", "/foo/../bar/", "/bar/"),
    ("path-strip-dotdot", "/foo/bar/../", "/foo/"),
    ("path-strip-dotdot", "/../bar/", "/../bar/"),
    ("path-strip-dotdot", "/bar/../../", "/../"),
    ("path-strip-dotdot", "/foo//../", "/foo/"),
    ("path-strip-dotdot full", "/../bar/", "/bar/"),
    ("path-strip-dotdot full", "/bar/../../", "/"),
    ("percent-decode-unreserved", "/%61dmin", "/admin"),
    ("percent-decode-unreserved", "/foo%3Fbar=baz", "/foo%3Fbar=baz"),
    ("percent-decode-unreserved", "/%%36%36", "/%66"),
    ("percent-to-uppercase", "/%6f%2f", "/%6F%2F"),
    ("percent-to-uppercase", "/%zz", "/%zz"),
    ("query-sort-by-name", "/?c=3&a=1&b=2", "/?a=1&b=2&c=3"),
    ("query-sort-by-name", "/?aaa=3&a=1&aa=2", "/?a=1&aa=2&aaa=3"),
    ("query-sort-by-name", "/?a=3&b=4&a=1&b=5&a=2", "/?a=3&a=1&a=2&b=4&b=5"),
    ("path-merge-slashes", "/x//y?a=//b", "/x/y?a=//b"),
])
def test_normalize_uri(proxy, backend, port, norm, target, want):
    start(proxy, port, backend, ["http-request normalize-uri " + norm])
    assert send(port, target).status == 200
    assert backend.last().target == want


@pytest.mark.parametrize("norm,target", [
    ("percent-decode-unreserved strict", "/%%36%36"),
    ("percent-decode-unreserved strict", "/%ZZ"),
    ("percent-to-uppercase strict", "/%zz"),
])
def test_normalize_uri_strict_refuses(proxy, backend, port, norm, target):
    start(proxy, port, backend, ["http-request normalize-uri " + norm])
    assert send(port, target).status == 400
    assert backend.last() is None


# ---- headers ----

def test_replace_header_whole_value(proxy, backend, port):
    start(proxy, port, backend, [
        "http-request replace-header User-Agent curl foo",
        "http-request replace-header Cookie foo=([^;]*);(.*) foo=\\1;ip=X;\\2",
    ])
    r = send(port, "/", b"User-Agent: curl/7.47.0\r\nCookie: foo=foobar; expires=Tue;\r\n")
    assert r.status == 200
    assert backend.last().header("user-agent") == "foo"
    assert backend.last().header("cookie") == "foo=foobar;ip=X; expires=Tue;"


def test_replace_value_each_element(proxy, backend, port):
    start(proxy, port, backend, [
        "http-request replace-value X-Forwarded-For ^192\\.168\\.(.*)$ 172.16.\\1",
        "http-response replace-value Cache-control ^public$ private",
    ])
    r = send(port, "/?hdr=Cache-Control:max-age%3D3600,%20public",
             b"X-Forwarded-For: 192.168.10.1, 192.168.13.24, 10.0.0.37\r\n")
    assert r.status == 200
    assert backend.last().header("x-forwarded-for") == "172.16.10.1,172.16.13.24, 10.0.0.37"
    assert r.header("cache-control") == "max-age=3600,private"


def test_replace_header_on_response(proxy, backend, port):
    start(proxy, port, backend, ["http-response replace-header X-Server (.*) srv-\\1"])
    assert send(port, "/").header("x-server") == "srv-s1"


# ---- redirects ----

REDIRECT_RULES = [
    "http-request redirect location /x%[path] code 301 if { path /r1 }",
    "http-request redirect prefix /p drop-query append-slash if { path_beg /r2 }",
    "http-request redirect prefix /p if { path_beg /r3 }",
    "http-request redirect scheme https if { path_beg /r4 }",
    "http-request redirect location /x code 303 if { path /c303 }",
    "http-request redirect location /x code 307 if { path /c307 }",
    "http-request redirect location /x code 308 if { path /c308 }",
    "http-request redirect location /x set-cookie A=1 if { path /sc }",
    "http-request redirect location /x clear-cookie B= if { path /cc }",
    "http-request redirect location /x set-cookie A=1 clear-cookie B if { path /both }",
    "http-request redirect prefix / if { path_beg /same }",
    "http-request redirect prefix http://o append-slash if { path_beg /as }",
    "http-request redirect location %[req.hdr(x-loc)] ignore-empty if { path /ie }",
]


@pytest.mark.parametrize("target,status,location,cache,cookie", [
    ("/r1", 301, "/x/r1", None, None),
    ("/r2?q=1", 302, "/p/r2/", "no-cache", None),
    ("/r3?q=1", 302, "/p/r3?q=1", "no-cache", None),
    ("/r4?z", 302, "https://h.example/r4?z", "no-cache", None),
    ("/c303", 303, "/x", "no-cache", None),
    ("/c307", 307, "/x", "no-cache", None),
    ("/c308", 308, "/x", None, None),
    ("/sc", 302, "/x", "no-cache", "A=1; path=/;"),
    ("/cc", 302, "/x", "no-cache", "B=; path=/; Max-Age=0;"),
    ("/both", 302, "/x", "no-cache", "B; path=/; Max-Age=0;"),
    ("/same?a=b", 302, "/same?a=b", "no-cache", None),
    ("/as?x", 302, "http://o/as?x/", "no-cache", None),
])
def test_redirects(proxy, backend, port, target, status, location, cache, cookie):
    start(proxy, port, backend, REDIRECT_RULES)
    r = send(port, target)
    assert r.status == status
    assert r.header("location") == location
    assert r.header("content-length") == "0"
    assert r.header("cache-control") == cache
    assert r.header("set-cookie") == cookie
    assert backend.last() is None


def test_redirect_ignore_empty(proxy, backend, port):
    start(proxy, port, backend, REDIRECT_RULES)
    assert send(port, "/ie").status == 200
    r = send(port, "/ie", b"X-Loc: /there\r\n")
    assert (r.status, r.header("location")) == (302, "/there")


def test_redirect_keeps_the_connection(proxy, backend, port):
    start(proxy, port, backend, REDIRECT_RULES)
    with httpc.connect(port) as s:
        rd = Reader(s)
        s.sendall(b"GET /c303 HTTP/1.1\r\nHost: h\r\n\r\n")
        assert httpc.read_response(rd).status == 303
        s.sendall(b"GET /ok HTTP/1.1\r\nHost: h\r\n\r\n")
        assert httpc.read_response(rd).status == 200


def test_response_redirect(proxy, backend, port):
    start(proxy, port, backend, ["http-response redirect location /moved code 307 "
                                 "if { res.hdr(x-server) s1 }"])
    r = send(port, "/rr")
    assert (r.status, r.header("location")) == (307, "/moved")
    assert r.body == b""
    assert backend.last().target == "/rr"


def test_legacy_redirect_runs_after_http_request_rules(proxy, backend, port):
    start(proxy, port, backend, [
        "redirect location /legacy%[path] if { path_beg /leg }",
        "http-request deny if { path /leg/deny }",
        "http-request allow if { path /leg/allow }",
    ])
    assert send(port, "/leg/deny").status == 403
    # "allow" ends the http-request rules, not the redirect rules; the location is literal
    r = send(port, "/leg/allow")
    assert (r.status, r.header("location")) == (302, "/legacy%[path]")


# ---- auth, tarpit, reject, silent-drop ----

def test_auth_realm(proxy, backend, port):
    start(proxy, port, backend, ["http-request auth realm \"My Realm\" if { path /a }",
                                 "http-request auth if { path /b }"])
    r = send(port, "/a")
    assert r.status == 401
    assert r.header("www-authenticate") == 'Basic realm="My Realm"'
    assert b"401 Unauthorized" in r.body
    assert send(port, "/b").header("www-authenticate") == 'Basic realm="px"'
    assert backend.last() is None


def test_auth_replaces_the_pages_challenge(proxy, backend, port, tmp_path):
    page = tmp_path / "401.http"
    page.write_bytes(b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"old\"\r\n"
                     b"Content-Length: 4\r\n\r\nnope")
    start(proxy, port, backend, ["errorfile 401 %s" % page, "http-request auth realm new"])
    r = send(port, "/")
    assert r.status == 401
    assert r.header_all("www-authenticate") == ['Basic realm="new"']
    assert r.body == b"nope"


def test_tarpit_waits_then_answers(proxy, backend, port):
    start(proxy, port, backend, ["timeout tarpit 700ms",
                                 "http-request tarpit if { path /tp }",
                                 "http-request tarpit deny_status 429 if { path /tp2 }"])
    for target, status in (("/tp", 500), ("/tp2", 429)):
        t0 = time.monotonic()
        r = send(port, target)
        took = time.monotonic() - t0
        assert r.status == status
        assert 0.6 <= took < 3.0
    assert backend.last() is None


def test_tarpit_keeps_the_connection(proxy, backend, port):
    start(proxy, port, backend, ["timeout tarpit 200ms", "http-request tarpit if { path /tp }"])
    with httpc.connect(port) as s:
        rd = Reader(s)
        s.sendall(b"GET /tp HTTP/1.1\r\nHost: h\r\n\r\n")
        assert httpc.read_response(rd).status == 500
        s.sendall(b"GET /ok HTTP/1.1\r\nHost: h\r\n\r\n")
        assert httpc.read_response(rd).status == 200


def test_tarpit_defaults_to_the_connect_timeout(proxy, backend, port):
    start(proxy, port, backend, ["timeout connect 400ms", "http-request tarpit"])
    t0 = time.monotonic()
    assert send(port, "/").status == 500
    assert time.monotonic() - t0 >= 0.35


def test_reject_closes_without_answer(proxy, backend, port):
    start(proxy, port, backend, ["http-request reject if { path /rej }"])
    data, closed = httpc.exchange(port, b"GET /rej HTTP/1.1\r\nHost: h\r\n\r\n", timeout=3)
    assert data == b""
    assert closed
    assert backend.last() is None


def test_silent_drop_tells_the_client_nothing(proxy, backend, port):
    start(proxy, port, backend, ["http-request silent-drop if { path /drop }",
                                 "http-request set-var(txn.rdrop) int(1) if { path /rdrop }",
                                 "http-response silent-drop if { res.hdr(x-server) -m found } "
                                 "{ var(txn.rdrop) -m found }"])
    for target in ("/drop", "/rdrop"):
        data, _ = httpc.exchange(port, b"GET %s HTTP/1.1\r\nHost: h\r\n\r\n" % target.encode(),
                                 timeout=1)
        assert data == b""
    assert send(port, "/fine").status == 200


# ---- set-status, variables, addresses ----

def test_set_status(proxy, backend, port):
    start(proxy, port, backend, [
        "http-request set-var(txn.p) path",
        "http-response set-status 404 reason \"Not Here\" if { var(txn.p) -m str /ss }",
        "http-response set-status 503 if { var(txn.p) -m str /ss2 }",
    ])
    with httpc.connect(port) as s:
        s.sendall(b"GET /ss HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        data, _ = httpc.recv_until_close(s, 5)
    assert data.startswith(b"HTTP/1.1 404 Not Here\r\n")
    with httpc.connect(port) as s:
        s.sendall(b"GET /ss2 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        data, _ = httpc.recv_until_close(s, 5)
    assert data.startswith(b"HTTP/1.1 503 Service Unavailable\r\n")
    assert data.endswith(b"hello from s1\n")


def test_set_var_and_conditions(proxy, backend, port):
    start(proxy, port, backend, [
        "http-request set-var(txn.a) str(first)",
        "http-request set-var(txn.a,ifnotexists) str(second)",
        "http-request set-var(txn.b,ifnotexists) str(new)",
        "http-request set-var(txn.c) req.hdr(x-empty)",
        "http-request set-var(txn.c,ifnotempty) str(notempty)",
        "http-request set-var(txn.d) str(orig)",
        "http-request set-var(txn.d,ifempty) str(notempty)",
        "http-request set-var(txn.e) str(orig)",
        "http-request set-var(txn.e,ifempty) req.hdr(x-empty)",
        "http-request set-var(txn.n) int(10)",
        "http-request set-var(txn.n,ifgt) int(5)",
        "http-request set-var(txn.m) int(10)",
        "http-request set-var(txn.m,iflt) int(5)",
        "http-request set-var-fmt(txn.f,ifnotset) \"%[path]-%[var(txn.a)]\"",
        "http-request set-var(txn.u) str(gone)",
        "http-request unset-var(txn.u)",
        "http-request set-var(txn.s,ifset) str(never)",
        "http-request set-header X-Vars \"%[var(txn.a)]|%[var(txn.b)]|%[var(txn.c)]|"
        "%[var(txn.d)]|%[var(txn.e)]|%[var(txn.n)]|%[var(txn.m)]|%[var(txn.f)]|%[var(txn.u)]|"
        "%[var(txn.s)]\"",
        "http-response set-header X-Txn %[var(txn.a)]",
    ])
    r = send(port, "/v", b"X-Empty: \r\n")
    assert backend.last().header("x-vars") == "first|new|notempty|orig||5|10|/v-first||"
    assert r.header("x-txn") == "first"


def test_set_var_in_tcp_rules(proxy, backend, port):
    start(proxy, port, backend, [
        "tcp-request connection set-var(sess.c) str(conn)",
        "tcp-request session set-var(sess.s) str(sess)",
        "tcp-request content set-var(txn.t) str(content)",
        "tcp-request content set-var-fmt(txn.f) \"f-%[var(txn.t)]\"",
        "tcp-request content unset-var(sess.s) if { path /unset }",
        "http-request set-header X-V \"%[var(sess.c)]|%[var(sess.s)]|%[var(txn.t)]|%[var(txn.f)]\"",
    ])
    send(port, "/")
    assert backend.last().header("x-v") == "conn|sess|content|f-content"
    send(port, "/unset")
    assert backend.last().header("x-v") == "conn||content|f-content"


def test_global_set_var(proxy, backend, port):
    start(proxy, port, backend, ["http-request set-header X-P \"%[var(proc.a)]-%[var(proc.b)]\""],
          glob=["set-var proc.a int(5)", "set-var-fmt proc.b \"x%[var(proc.a)]\""])
    assert send(port, "/").status == 200
    assert backend.last().header("x-p") == "5-x5"


def test_set_src_feeds_forwardfor(proxy, backend, port):
    start(proxy, port, backend, ["option forwardfor",
                                 "http-request set-src hdr(x-src) if { req.hdr(x-src) -m found }"])
    send(port, "/", b"X-Src: 1.2.3.4\r\n")
    assert backend.last().header("x-forwarded-for") == "1.2.3.4"
    send(port, "/", b"X-Src: 2001:db8::1\r\n")
    assert backend.last().header("x-forwarded-for") == "2001:db8::1"
    send(port, "/")
    assert backend.last().header("x-forwarded-for") == "127.0.0.1"


def test_set_dst_and_ports_feed_the_fetches(proxy, backend, port, tmp_path):
    rules = ["http-request set-dst str(10.1.2.3)", "http-request set-dst-port int(8443)",
             "http-request set-src-port int(4444)",
             "http-request set-header X-Addr \"%[dst]:%[dst_port]-%[src_port]\""]
    code, err = check_cfg(tmp_path, BASE + "".join("    %s\n" % r for r in rules))
    if code and "unknown fetch method" in err:
        pytest.skip("the dst/src_port fetches are not there yet")
    start(proxy, port, backend, rules)
    send(port, "/")
    assert backend.last().header("x-addr") == "10.1.2.3:8443-4444"


# ---- captures, unique-id, monitor ----

def test_captures_and_their_fetches(proxy, backend, port):
    start(proxy, port, backend, [
        "capture request header Host len 4",
        "capture request header User-Agent len 20",
        "capture response header X-Server len 10",
        "capture cookie SID len 10",
        "declare capture request len 10",
        "http-request capture req.hdr(x-c) len 3",
        "http-request capture req.hdr(x-d) id 2",
        "http-request set-header X-Caps \"%[capture.req.hdr(0)]|%[capture.req.hdr(1)]|"
        "%[capture.req.hdr(2)]|%[capture.req.hdr(3)]|%[capture.req.method]|"
        "%[capture.req.uri]|%[capture.req.ver]\"",
        "http-response capture res.hdr(x-conn) id 0",
        "http-after-response set-header X-Res-Caps \"%[capture.res.hdr(0)]|%[capture.res.ver]|"
        "%[capture.req.uri]\"",
    ])
    r = send(port, "/caps?q=1", b"User-Agent: curl/7.1234567890123456789\r\nX-C: abcdef\r\n"
             b"X-D: ddddddddddddddddd\r\nCookie: a=1; SID=123456789012345\r\n")
    assert backend.last().header("x-caps") == \
        "h.ex|curl/7.1234567890123|dddddddddd|abc|GET|/caps?q=1|HTTP/1.1"
    assert r.header("x-res-caps") == "1|HTTP/1.1|/caps?q=1"


def test_capture_req_uri_of_an_absolute_target(proxy, backend, port):
    start(proxy, port, backend, ["http-request set-header X-U %[capture.req.uri]",
                                 "http-request set-path /changed"])
    send(port, "http://h.example/orig?a=b", version=b"HTTP/1.0")
    assert backend.last().header("x-u") == "/orig?a=b"


def test_unique_id(proxy, backend, port):
    start(proxy, port, backend, ["unique-id-format id-%[req.hdr(x-n)]",
                                 "unique-id-header X-UID",
                                 "http-request set-header X-ID1 %[unique-id]",
                                 "http-after-response set-header X-ID2 %[unique-id]"])
    r = send(port, "/", b"X-N: 42\r\n")
    assert backend.last().header("x-uid") == "id-42"
    assert backend.last().header("x-id1") == "id-42"
    assert r.header("x-id2") == "id-42"


def test_unique_id_from_defaults(proxy, backend, port):
    start(proxy, port, backend, [], defaults=["unique-id-format u%[req.hdr(x-n)]",
                                              "unique-id-header X-UID"])
    send(port, "/", b"X-N: 7\r\n")
    assert backend.last().header("x-uid") == "u7"


def test_monitor_fail(proxy, backend, port):
    start(proxy, port, backend, ["monitor-uri /mon",
                                 "monitor fail if { req.hdr(x-fail) -m found }",
                                 "http-after-response set-header X-After 1"])
    r = send(port, "/mon")
    assert (r.status, r.header("x-after")) == (200, "1")
    r = send(port, "/mon", b"X-Fail: 1\r\n")
    assert (r.status, r.header("x-after")) == (503, "1")
    assert backend.last() is None


# ---- wait-for-body, early-hint, set-timeout, strict-mode ----

def test_wait_for_body_holds_the_request(proxy, backend, port):
    start(proxy, port, backend, ["http-request wait-for-body time 3s if METH_POST"])
    with httpc.connect(port) as s:
        s.sendall(b"POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n12345")
        time.sleep(0.5)
        assert backend.conn_count == 0  # still waiting for the rest
        s.sendall(b"67890")
        r = httpc.read_response(Reader(s))
    assert r.status == 200
    assert backend.last().body == b"1234567890"


def test_wait_for_body_at_least(proxy, backend, port):
    start(proxy, port, backend, ["http-request wait-for-body time 3s at-least 4"])
    with httpc.connect(port) as s:
        s.sendall(b"POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n12345")
        deadline = time.monotonic() + 2
        while backend.conn_count == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert backend.conn_count == 1
        s.sendall(b"67890")
        assert httpc.read_response(Reader(s)).status == 200


def test_wait_for_body_timeout_is_408(proxy, backend, port):
    start(proxy, port, backend, ["http-request wait-for-body time 400ms"])
    data, closed = httpc.exchange(
        port, b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n123", timeout=3)
    assert data.startswith(b"HTTP/1.1 408 ")
    assert closed
    assert backend.conn_count == 0


def test_response_wait_for_body(proxy, backend, port):
    start(proxy, port, backend, ["http-response wait-for-body time 2s",
                                 "http-response set-header X-W 1"])
    r = send(port, "/?size=100000")
    assert (r.status, r.header("x-w"), len(r.body)) == (200, "1", 100000)


def test_early_hints(proxy, backend, port):
    start(proxy, port, backend, ["http-request early-hint Link \"</a.css>; rel=preload\"",
                                 "http-request early-hint Link \"</b.js>\""])
    with httpc.connect(port) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        data, _ = httpc.recv_until_close(s, 5)
    # consecutive early-hint rules without a condition make one response
    assert data.startswith(b"HTTP/1.1 103 Early Hints\r\nlink: </a.css>; rel=preload\r\n"
                           b"link: </b.js>\r\n\r\nHTTP/1.1 200 OK\r\n")
    with httpc.connect(port) as s:
        s.sendall(b"GET / HTTP/1.0\r\nHost: h\r\n\r\n")
        data, _ = httpc.recv_until_close(s, 5)
    assert data.startswith(b"HTTP/1.1 200 OK\r\n")  # not to an HTTP/1.0 client


def test_early_hints_a_condition_starts_another_response(proxy, backend, port):
    start(proxy, port, backend, ["http-request early-hint Link \"</a>\"",
                                 "http-request early-hint X-B \"%[req.hdr(x-none)]\" if TRUE"])
    with httpc.connect(port) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        data, _ = httpc.recv_until_close(s, 5)
    assert data.startswith(b"HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\n"
                           b"HTTP/1.1 103 Early Hints\r\nx-b: \r\n\r\nHTTP/1.1 200 OK\r\n")


def test_early_hints_then_a_local_reply(proxy, backend, port):
    start(proxy, port, backend, ["http-request early-hint Link \"</a.css>\"",
                                 "http-request deny"])
    with httpc.connect(port) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        data, _ = httpc.recv_until_close(s, 5)
    rs = httpc.parse_all(data)
    assert data.startswith(b"HTTP/1.1 103 Early Hints\r\nlink: </a.css>\r\n\r\n")
    assert rs[-1].status == 403
    assert rs[-1].header("connection") == "close"


def test_set_timeout_server(proxy, backend, port):
    start(proxy, port, backend, ["timeout server 5s",
                                 "http-request set-timeout server 300ms if { path /short }"])
    t0 = time.monotonic()
    assert send(port, "/short?delay=2").status == 504
    assert time.monotonic() - t0 < 1.5


def test_strict_mode_off_ignores_a_failed_rewrite(proxy, backend, port):
    big = "%[req.hdr(x-in)]" * 4
    start(proxy, port, backend, [
        "http-request strict-mode off if { path /soft }",
        "http-request set-header X-Big \"%s\"" % big,
        "http-request set-header X-After-Fail 1",
    ])
    hdr = b"X-In: " + b"a" * 5000 + b"\r\n"
    assert send(port, "/strict", hdr).status == 500
    r = send(port, "/soft", hdr)
    assert r.status == 200
    assert backend.last().header("x-big") is None
    assert backend.last().header("x-after-fail") == "1"


# ---- http-after-response on the proxy's own replies ----

def test_after_response_on_local_replies(proxy, backend, port):
    start(proxy, port, backend, [
        "http-request set-var(txn.p) path",
        "http-request deny if { path /deny }",
        "http-request return status 200 content-type text/plain string ok if { path /ret }",
        "http-request redirect location /x if { path /redir }",
        "http-request auth if { path /auth }",
        "http-after-response set-header X-After yes",
        "http-after-response set-status 299 reason Fine if { var(txn.p) -m str /deny }",
        "http-after-response del-header content-type if { var(txn.p) -m str /ret }",
    ])
    r = send(port, "/deny")
    assert (r.status, r.reason, r.header("x-after")) == (299, "Fine", "yes")
    assert b"403 Forbidden" in r.body
    r = send(port, "/ret")
    assert (r.status, r.header("x-after"), r.header("content-type"), r.body) == \
        (200, "yes", None, b"ok")
    assert send(port, "/redir").header("x-after") == "yes"
    assert send(port, "/auth").header("x-after") == "yes"
    assert send(port, "/fine").header("x-after") == "yes"


def test_after_response_on_error_pages(proxy, port):
    cfg = ("defaults\n    mode http\n    timeout connect 1s\n    timeout client 5s\n"
           "    timeout server 5s\nfrontend fe\n    bind 127.0.0.1:%d\n"
           "    http-after-response set-header X-Fe 1\n    default_backend be\n"
           "backend be\n    http-after-response set-header X-Be 1\n"
           "    server s1 127.0.0.1:1\n" % port)
    proxy(cfg, ports=[port])
    r = send(port, "/")
    assert r.status == 503
    assert (r.header("x-be"), r.header("x-fe")) == ("1", "1")


def test_after_response_not_on_parse_errors(proxy, backend, port):
    start(proxy, port, backend, ["http-after-response set-header X-After yes"])
    data, _ = httpc.exchange(port, b"GARBAGE\r\n\r\n")
    assert data.startswith(b"HTTP/1.1 400 ")
    assert b"x-after" not in data.lower()


# ---- configuration ----

@pytest.mark.parametrize("line,msg", [
    ("block if TRUE", "Use 'http-request deny'"),
    ("reqadd X-Foo:\\ bar", "Use 'http-request add-header'"),
    ("reqrep ^a b", "'http-request replace-path', 'http-request replace-uri' or "
                    "'http-request replace-header'"),
    ("reqirep ^a b", "Use 'http-request replace-header'"),
    ("reqdel ^X", "Use 'http-request del-header'"),
    ("reqiallow ^GET", "Use 'http-request allow'"),
    ("reqideny ^GET", "Use 'http-request deny'"),
    ("reqitarpit ^GET", "Use 'http-request tarpit'"),
    ("rspadd X-Foo:\\ bar", "Use 'http-response add-header'"),
    ("rsprep ^X a", "Use 'http-response replace-header'"),
    ("rspidel ^X", "Use 'http-response del-header'"),
    ("rspdeny ^X", "Use 'http-response deny'"),
])
def test_removed_keywords_name_their_replacement(tmp_path, line, msg):
    code, err = check_cfg(tmp_path, BASE + "    %s\n" % line)
    assert code != 0
    assert "c.cfg:8] : The '%s' " % line.split()[0] in err
    assert "not supported anymore since HAProxy 2.1" in err
    assert msg in err


@pytest.mark.parametrize("line,msg", [
    ("http-request redirect", "redirection type expected ('prefix', 'location', or 'scheme')"),
    ("http-request redirect location /x code 404", "'code': unsupported HTTP code '404'"),
    ("http-request redirect location /x bogus", "(was 'bogus')"),
    ("http-response redirect prefix /x", "response only supports redirect type 'location'"),
    ("http-request auth realm", "missing realm value"),
    ("http-response set-status 99", "expects an integer status code between 100 and 999"),
    ("http-request set-var(txn.x,ifbogus) str(a)", "unknown condition \"ifbogus\""),
    ("http-request unset-var(txn.x,ifset)", "unset-var does not expect parameters"),
    ("http-request set-var(txn.x", "incomplete argument after action 'set-var(txn.x'"),
    ("http-request set-log-level foo", "expects exactly 1 argument (log level name or "
                                       "'silent')"),
    ("http-request set-timeout server 0", "null value is not valid for a 'set-timeout "
                                          "server' rule"),
    ("http-request wait-for-body", "expects time <time> [ at-least <bytes> ]"),
    ("http-request wait-for-body time x", "unexpected character 'x'"),
    ("http-request early-hint Link", "expects exactly 2 arguments"),
    ("http-request normalize-uri foo", "unknown normalizer 'foo'"),
    ("http-request normalize-uri path-strip-dotdot foo", "unknown argument 'foo' for "
                                                         "'path-strip-dotdot' normalizer"),
    ("http-request strict-mode foo", "Unexpected value 'foo'. Only 'on' and 'off' are "
                                     "supported"),
    ("http-request set-path", "expects exactly 1 argument <format>"),
    ("http-request replace-path a", "expects exactly 2 arguments <match-regex> and "
                                    "<replace-format>"),
    ("http-request replace-header X", "expects exactly 3 arguments"),
    ("http-request capture req.hdr(host) len 0", "length must be > 0"),
    ("http-request capture req.hdr(host) foo 5", "expects 'len' or 'id', found 'foo'"),
    ("http-response capture res.hdr(host) len 5", "expects 'id', found 'len'"),
    ("http-request reject foo", "expects either 'if' or 'unless' followed by a condition "
                                "but found 'foo'"),
    ("capture request header Host", "'capture request' expects 'header' <header_name> "
                                    "'len' <len>"),
    ("capture foo", "'capture' expects 'cookie' or 'request header' or 'response header'"),
    ("declare capture foo len 5", "'declare capture' requires a direction"),
    ("unique-id-format", "unique-id-format expects an argument"),
    ("monitor fail", "'monitor fail' requires either 'if' or 'unless' followed by a "
                     "condition"),
])
def test_action_config_errors(tmp_path, line, msg):
    code, err = check_cfg(tmp_path, "global\n    expose-experimental-directives\n" + BASE +
                          "    %s\n" % line)
    assert code != 0
    assert "c.cfg:10]" in err
    assert msg in err


def test_capture_id_checked(tmp_path):
    code, err = check_cfg(tmp_path, BASE + "    http-response capture res.hdr(x) id 5\n")
    assert code != 0
    assert "unable to find capture id '5' referenced by http-response capture rule" in err


def test_capture_and_monitor_refused_in_defaults(tmp_path):
    cfg = BASE.replace("defaults\n", "defaults\n    capture request header Host len 5\n")
    code, err = check_cfg(tmp_path, cfg)
    assert code != 0
    assert "'capture request' not allowed in 'defaults' section" in err
    cfg = BASE.replace("defaults\n", "defaults\n    monitor fail if TRUE\n")
    code, err = check_cfg(tmp_path, cfg)
    assert code != 0
    assert "'monitor' not allowed in 'defaults' section" in err


def test_everything_accepted(tmp_path):
    rules = [
        "capture request header Host len 15", "capture response header Server len 20",
        "capture cookie SID len 32", "declare capture request len 10",
        "unique-id-format %[req.hdr(host)]", "unique-id-header X-Unique-ID",
        "monitor-uri /mon", "monitor fail if { req.hdr(x-f) -m found }",
        "http-request set-log-level silent if FALSE", "http-request set-src hdr(x-src)",
        "http-request set-src-port int(1234)", "http-request set-dst hdr(x-dst)",
        "http-request set-dst-port int(80)", "http-request disable-l7-retry",
        "http-request set-timeout server 5s", "http-request set-timeout tunnel 5s",
        "http-request tarpit deny_status 403 if FALSE", "http-request auth realm R if FALSE",
        "http-response set-log-level err", "http-after-response strict-mode on",
        "http-after-response capture res.hdr(server) id 0",
        "redirect prefix /legacy code 301 drop-query if { path /legacy }",
    ]
    code, err = check_cfg(tmp_path, "global\n    expose-experimental-directives\n" +
                          "    set-var proc.a int(5)\n" + BASE.replace(
                              "defaults\n", "defaults\n    timeout tarpit 1s\n") +
                          "".join("    %s\n" % r for r in rules))
    assert code == 0, err


def test_use_service_prometheus_accepted(tmp_path):
    """The prometheus-exporter service exists (test_prometheus.py tests what it says);
    an unknown service is a config error naming the line."""
    code, err = check_cfg(tmp_path, BASE + "    http-request use-service prometheus-exporter "
                          "if { path /metrics }\n")
    assert code == 0, err
    code, err = check_cfg(tmp_path, BASE + "    http-request use-service nosuch\n")
    assert code != 0
    assert "c.cfg:8]" in err and "nosuch" in err


@pytest.mark.ours
def test_set_timeout_client(proxy, backend, port):
    """'set-timeout client' comes with HAProxy 2.8; 2.6 refuses it."""
    start(proxy, port, backend, ["http-request set-timeout client 300ms"])
    with httpc.connect(port) as s:
        s.sendall(b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n1")
        t0 = time.monotonic()
        data, closed = httpc.recv_until_close(s, 4)
    assert closed and time.monotonic() - t0 < 3


@pytest.mark.ours
def test_rewrites_refuse_line_breaks_and_spaces(proxy, backend, port):
    """HAProxy writes whatever the format gives into the request line; this proxy refuses
    a target or method that would end the line early (a failed rewrite: 500)."""
    start(proxy, port, backend, ["http-request set-path \"/a b\" if { path /sp }",
                                 "http-request set-method \"GE T\" if { path /m }"])
    assert send(port, "/sp").status == 500
    assert send(port, "/m").status == 500
    assert backend.last() is None
