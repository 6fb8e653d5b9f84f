"""Sample fetches end to end: each fetch's value as an `http-request return` (or
`http-response return`) lf-string renders it, and whether it is found at all as an ACL
`-m found` sees it, for requests sent raw so that every byte is controlled.

Owns: the values of the HTTP fetches (start line, URL parameters, base and its hashes,
headers, cookies, bodies), the connection fetches (src, dst, fc_*, bc_*, so_*, the TLS
fetches without TLS), the proxy and server fetches (names, ids, counters), the constants and
process facts, and where a fetch may be used (config errors). The expectations are HAProxy
2.6's: everything runs against Debian's haproxy too; what 2.6 does differently is marked
`ours`, with the reason.
"""

import base64
import os
import re
import socket
import time

import httpc
import pytest
from backend import Reader
from conftest import IS_REF, free_port, run_haproxy

DEFAULTS = ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 5s",
            "    timeout server 5s"]


def cfg_text(port, body_rule, lines=(), glob=(), servers=(), section="listen px", tail=(),
             pre=()):
    """A config: global lines, sections <pre> (lines as written), the defaults, a section
    bound on port with lines, servers (name, port, opts) and finally body_rule."""
    out = ["global"] + ["    " + g for g in glob] + list(pre) + DEFAULTS
    out += [section, "    bind 127.0.0.1:%d" % port]
    out += ["    " + x for x in lines]
    out += ["    server %s 127.0.0.1:%d %s" % s for s in servers]
    out += ["    " + body_rule]
    out += list(tail)
    return "\n".join(out) + "\n"


def lf_body(exprs):
    return "".join("@%d=<%%[%s]>\\n" % (i, e) for i, e in enumerate(exprs))


def parse_body(body, exprs):
    vals = {}
    for part in re.split(r"@(?=\d+=<)", body.decode("latin-1"))[1:]:
        i, _, v = part.partition("=")
        vals[exprs[int(i)]] = v.rstrip("\n")[1:-1]
    return vals


def send(port, raw, method="GET", timeout=5.0):
    with httpc.connect(port, timeout) as s:
        s.sendall(raw)
        return httpc.read_response(Reader(s), method)


def crlf(text):
    """A raw request written with '\\n' line ends, sent with CRLF."""
    return text.replace("\n", "\r\n").encode()


class Probe:
    """Renders expressions for requests: values through an lf-string, and whether each is
    found through ACLs adding a marker header (a second proxy, so that the markers do not
    change what the first one sees). Response fetches are rendered into one response
    header (HAProxy's http-response return no longer sees the server's response)."""

    def __init__(self, proxy, exprs, lines=(), glob=(), servers=(), response=False,
                 section="listen px", pre=()):
        self.exprs = list(exprs)
        self.response = response
        self.port, self.fport = free_port(), free_port()
        rs = "http-response" if response else "http-request"
        marks = ["%s add-header x-found-%d 1 if { %s -m found }" % (rs, i, e)
                 for i, e in enumerate(self.exprs)]
        if response:
            body = "".join("@%d=<%%[%s]>" % (i, e) for i, e in enumerate(self.exprs))
            rule = 'http-response set-header x-probe "%s"' % body
            frule = "http-response set-header x-done 1"
        else:
            found = "".join("@%d=<%%[req.fhdr(x-found-%d)]>\\n" % (i, i)
                            for i in range(len(exprs)))
            ret = 'http-request return status 200 content-type text/plain lf-string "%s"'
            rule, frule = ret % lf_body(self.exprs), ret % found
        self.p = proxy(cfg_text(self.port, rule, lines, glob, servers, section, pre=pre),
                       ports=[self.port], name="values")
        self.f = proxy(cfg_text(self.fport, frule, list(lines) + marks, glob, servers,
                                section, pre=pre), ports=[self.fport], name="found")

    def values(self, raw, port=None):
        r = send(port or self.port, raw)
        if self.response:
            return parse_body((r.header("x-probe") or "").encode("latin-1"), self.exprs)
        assert r.status == 200, r
        return parse_body(r.body, self.exprs)

    def found(self, raw):
        r = send(self.fport, raw)
        if self.response:
            return {e: r.header("x-found-%d" % i) == "1" for i, e in enumerate(self.exprs)}
        assert r.status == 200, r
        return {e: v == "1" for e, v in parse_body(r.body, self.exprs).items()}

    def check(self, raw, expected):
        """expected: expr -> value (found, rendered so), or None (not found)."""
        vals, found = self.values(raw), self.found(raw)
        got = {e: (vals[e] if found[e] else None) for e in expected}
        assert got == expected


# ---- request line, URL, base ----

START_EXPRS = ["method", "path", "pathq", "url", "query", "req.ver", "req_ver", "base",
               "baseq", "base32", "url32", "url_ip", "url_port"]

START_CASES = [
    ("GET /p/a?a=1&b=2;c=3&a=4 HTTP/1.1\nHost: Example.com:80\n\n",
     ["GET", "/p/a", "/p/a?a=1&b=2;c=3&a=4", "/p/a?a=1&b=2;c=3&a=4", "a=1&b=2;c=3&a=4",
      "1.1", "1.1", "Example.com:80/p/a", "Example.com:80/p/a?a=1&b=2;c=3&a=4",
      "2611721983", "1148419101", None, None]),
    ("GET http://10.1.2.3:8080/x/y?z HTTP/1.1\nHost: 10.1.2.3:8080\n\n",
     ["GET", "/x/y", "/x/y?z", "http://10.1.2.3:8080/x/y?z", "z", "1.1", "1.1",
      "10.1.2.3:8080/x/y", "10.1.2.3:8080/x/y?z", "3293389285", "2182180904", "10.1.2.3",
      "8080"]),
    ("GET https://10.1.2.3/x HTTP/1.1\nHost: 10.1.2.3\n\n",
     ["GET", "/x", "/x", "https://10.1.2.3/x", None, "1.1", "1.1", "10.1.2.3/x",
      "10.1.2.3/x", "2490911977", "2490911977", "10.1.2.3", "443"]),
    ("GET http://foo.com/x/y?a HTTP/1.1\nHost: foo.com\n\n",
     ["GET", "/x/y", "/x/y?a", "http://foo.com/x/y?a", "a", "1.1", "1.1", "foo.com/x/y",
      "foo.com/x/y?a", "424363855", "3412732797", None, None]),
    ("GET http://[::1]:81/x HTTP/1.1\nHost: [::1]:81\n\n",
     ["GET", "/x", "/x", "http://[::1]:81/x", None, "1.1", "1.1", "[::1]:81/x",
      "[::1]:81/x", "1425384020", "1425384020", None, None]),
    # no Host: base is the path alone; an empty query is found
    ("GET /? HTTP/1.0\n\n",
     ["GET", "/", "/?", "/?", "", "1.0", "1.0", "/", "/?", "2118074832", "1302737865",
      None, None]),
    # no path: base is the Host alone
    ("OPTIONS * HTTP/1.1\nHost: x\n\n",
     ["OPTIONS", None, None, "*", None, "1.1", "1.1", "x", "x", "2246094376", "2246094376",
      None, None]),
    ("GET http://h HTTP/1.1\nHost: h\n\n",
     ["GET", None, None, "http://h", None, "1.1", "1.1", "h", "h", "1228821030",
      "1228821030", None, None]),
    ("PURGE /c HTTP/1.1\nHost: b\n\n",
     ["PURGE", "/c", "/c", "/c", None, "1.1", "1.1", "b/c", "b/c", "4253960556",
      "4253960556", None, None]),
]


def test_start_line_and_base(proxy):
    pr = Probe(proxy, START_EXPRS)
    for raw, want in START_CASES:
        pr.check(crlf(raw), dict(zip(START_EXPRS, want)))


PARAM_EXPRS = ["url_param(a)", "url_param", "url_param()", "url_param(b)", "url_param(a,;)",
               "url_param(c,;)", "url_param(a,/)", "url_param(a,x)", "urlp(x)",
               "urlp_val(a)", "urlp_val(b)"]

PARAM_CASES = [
    ("GET /p/a?a=1&b=2;c=3&a=4 HTTP/1.1\nHost: h\n\n",
     ["1", "1", "1", "2", "4", "3", "4", None, None, "1", "2"]),
    # a custom delimiter starts the list (and separates); '?' then separates nothing
    ("GET /p;a=1?x&a=2/a=3 HTTP/1.1\nHost: h\n\n",
     ["2/a=3", "2/a=3", "2/a=3", None, "1?x", None, "1?x", "2/a=3", None, "19", None]),
    # a name needs '='; without a name, the first parameter that has one
    ("GET /p?b&a=1&a=2&x HTTP/1.1\nHost: h\n\n",
     ["1", "1", "1", None, None, None, "1", None, None, "1", None]),
    ("GET /p?=5&a HTTP/1.1\nHost: h\n\n",
     [None, "5", "5", None, None, None, None, None, None, None, None]),
    ("GET /p?a=&x=1 HTTP/1.1\nHost: h\n\n",
     ["", "", "", None, None, None, None, None, "1", "0", None]),
    ("GET /p HTTP/1.1\nHost: h\n\n",
     [None, None, None, None, None, None, None, None, None, None, None]),
]


def test_url_params(proxy):
    pr = Probe(proxy, PARAM_EXPRS)
    for raw, want in PARAM_CASES:
        pr.check(crlf(raw), dict(zip(PARAM_EXPRS, want)))


def test_url_param_acl_walks_every_value(proxy, port):
    """Under an ACL, url_param(a) tries each parameter named a, an expression the first."""
    cfg = cfg_text(port, 'http-request return status 200 content-type text/plain '
                         'lf-string "first=%[url_param(a)]"',
                   ['http-request return status 201 content-type text/plain string hit '
                    'if { url_param(a) -m str 3 }'])
    proxy(cfg, ports=[port])
    assert send(port, crlf("GET /?a=1&b=2&a=3 HTTP/1.1\nHost: h\n\n")).status == 201
    r = send(port, crlf("GET /?a=1&b=3 HTTP/1.1\nHost: h\n\n"))
    assert (r.status, r.body) == (200, b"first=1")


# ---- headers ----

HDR_REQ = ("GET / HTTP/1.1\nHost: h\nX-N: 12, 1.5 , -3\nX-N: 1 2, abc\n"
           "X-IP: junk, 10.0.0.1:80, ::1\nX-A: ,  a  ,, b,\nX-Q: \"a,b\" , c, \"d\\\",e\"\n"
           "X-E:\n\n")

HDR_CASES = {
    "hdr(x-n)": "abc", "req.hdr(x-n)": "abc", "hdr(x-n,1)": "12", "hdr(x-n,-2)": "1 2",
    "hdr(x-n,0)": "abc", "hdr(X-N,2)": "1.5", "hdr(x-n,9)": None, "hdr(x-n,-9)": None,
    "req.fhdr(x-n)": "1 2, abc", "req.fhdr(x-n,1)": "12, 1.5 , -3", "req.fhdr(x-n,-2)":
    "12, 1.5 , -3", "hdr_cnt(x-n)": "5", "req.hdr_cnt(x-n)": "5", "req.fhdr_cnt(x-n)": "2",
    "req.hdr_cnt(nope)": "0", "req.hdr_cnt": "18", "req.fhdr_cnt": "7",
    "hdr_val(x-n)": "0", "req.hdr_val(x-n,1)": "12", "req.hdr_val(x-n,3)": "-3",
    # HAProxy reads integers leniently: a byte below '0' counts as a negative digit
    "req.hdr_val(x-n,2)": "85", "req.hdr_val(x-n,4)": "-58",
    "hdr_ip(x-ip)": "::1", "req.hdr_ip(x-ip,2)": "10.0.0.1", "req.hdr_ip(x-ip,1)": None,
    "hdr(x-a)": "", "hdr(x-a,2)": "a", "hdr_cnt(x-a)": "5", "hdr(x-e)": "",
    "hdr_cnt(x-e)": "1", "hdr(nope)": None,
    "hdr_cnt(x-q)": "3", "hdr(x-q,1)": '"a,b"', "hdr(x-q,3)": '"d\\",e"',
    "req.hdr()": "", "req.hdr_names": "host,x-n,x-n,x-ip,x-a,x-q,x-e",
    "req.hdr_names(;)": "host;x-n;x-n;x-ip;x-a;x-q;x-e",
}


def test_request_headers(proxy):
    exprs = list(HDR_CASES)
    pr = Probe(proxy, exprs)
    pr.check(crlf(HDR_REQ), HDR_CASES)


def test_header_ip_forms(proxy):
    exprs = ["hdr_ip(%s)" % c for c in "abcdefghij"]
    pr = Probe(proxy, exprs)
    raw = crlf("GET / HTTP/1.1\nHost: h\nA: 1.2.3.4:80\nB: 1.2.3.4junk\nC: 1.2.3.4/24\n"
               "D: 1.2.3.4 x\nE: 1.2.3\nF: 1.2.3.4:\nG: 256.1.1.1\nH: 010.1.2.3\n"
               "I: ::ffff:1.2.3.4\nJ: 1.2.3.4:65536\n\n")
    want = [("1.2.3.4"), None, None, None, None, None, None, "10.1.2.3", "::ffff:1.2.3.4",
            None]
    pr.check(raw, dict(zip(exprs, want)))


def test_header_acl_walks_values(proxy, port):
    """hdr(x) in an ACL tries every comma-separated value, hdr_ip skips the non-addresses."""
    cfg = cfg_text(port, "http-request return status 200",
                   ["http-request return status 201 if { hdr(x-n) -m str 1.5 }",
                    "http-request return status 202 if { hdr_ip(x-ip) 10.0.0.0/8 }",
                    "http-request return status 203 if { req.fhdr(x-n) -m beg '1 2' }"])
    proxy(cfg, ports=[port])
    assert send(port, crlf("GET / HTTP/1.1\nHost: h\nX-N: 12, 1.5\n\n")).status == 201
    assert send(port, crlf("GET / HTTP/1.1\nHost: h\nX-IP: a, 10.1.1.1, b\n\n")).status == 202
    assert send(port, crlf("GET / HTTP/1.1\nHost: h\nX-N: 7\nX-N: 1 2\n\n")).status == 203
    assert send(port, crlf("GET / HTTP/1.1\nHost: h\nX-N: 12\n\n")).status == 200


def test_req_hdrs_block(proxy, port):
    """req.hdrs is the header block with lower-case names and the final empty line (checked
    by a regex: lf-string renders line breaks differently in HAProxy, %0D%0A)."""
    cfg = cfg_text(port, "http-request return status 200",
                   ["http-request return status 201 if { req.hdrs -m reg "
                    "'^host: h\\r\\nx-one: 1, 2\\r\\nx-two:[ ]?\\r\\n\\r\\n$' }",
                    'http-request return status 202 if { req.hdrs_bin -m found }'])
    proxy(cfg, ports=[port])
    assert send(port, crlf("GET / HTTP/1.1\nHost: h\nX-One: 1, 2\nX-Two:\n\n")).status == 201
    assert send(port, crlf("GET / HTTP/1.1\nHost: h\nX-One: 1\n\n")).status == 202


# ---- cookies ----

COOKIE_CASES = [
    ("Cookie: a=1; b = 42x ; $p=9; n; q=\"x;y\"; a=2\nCookie: a=3,c=4\n",
     {"cook(a)": "3", "req.cook(a)": "3", "cook": "1", "cook()": "1", "cook_cnt(a)": "3",
      "req.cook_cnt": "6", "cook_val(b)": "42", "req.cook_val(a)": "3", "cook(q)": '"x;y"',
      "cook(n)": None, "cook(c)": "4", "cookie(a)": "3"}),
    ("Cookie: a=;b=2\n",
     {"cook(a)": "", "req.cook(a)": "", "cook": "", "cook()": "", "cook_cnt(a)": "1",
      "req.cook_cnt": "2", "cook_val(b)": "2", "req.cook_val(a)": "0", "cook(q)": None,
      "cook(n)": None, "cook(c)": None, "cookie(a)": ""}),
    # HAProxy skips a last "a=" too short to hold a value
    ("Cookie: a=\n",
     {"cook(a)": None, "req.cook(a)": None, "cook": "", "cook()": "", "cook_cnt(a)": "0",
      "req.cook_cnt": "1", "cook_val(b)": None, "req.cook_val(a)": None, "cook(q)": None,
      "cook(n)": None, "cook(c)": None, "cookie(a)": None}),
    ("",
     {"cook(a)": None, "req.cook(a)": None, "cook": None, "cook()": None,
      "cook_cnt(a)": "0", "req.cook_cnt": "0", "cook_val(b)": None, "req.cook_val(a)": None,
      "cook(q)": None, "cook(n)": None, "cook(c)": None, "cookie(a)": None}),
]


def test_request_cookies(proxy):
    exprs = list(COOKIE_CASES[0][1])
    pr = Probe(proxy, exprs)
    for hdrs, want in COOKIE_CASES:
        pr.check(crlf("GET / HTTP/1.1\nHost: h\n%s\n" % hdrs), want)


# ---- bodies ----

BODY_EXPRS = ["req.body", "req.body_len", "req.body_size", "req.body_param(k)",
              "req.body_param", "req.body_param(x)", "method", "req.len gt 0"]


def test_request_body(proxy):
    exprs = BODY_EXPRS[:-1]
    pr = Probe(proxy, exprs, lines=["option http-buffer-request"])
    pr.check(crlf("POST /f HTTP/1.1\nHost: b\nContent-Length: 11\n\n") + b"k=v&j=2&k=3",
             dict(zip(exprs, ["k=v&j=2&k=3", "11", "11", "v", "v", None, "POST"])))
    pr.check(crlf("POST /c HTTP/1.1\nHost: b\nTransfer-Encoding: chunked\n\n"
                  "3\nk=v\n4\n&x=y\n0\n\n"),
             dict(zip(exprs, ["k=v&x=y", "7", "7", "v", "v", "y", "POST"])))
    pr.check(crlf("GET /c HTTP/1.1\nHost: b\n\n"),
             dict(zip(exprs, ["", "0", "0", None, None, None, "GET"])))


def test_buffered_body_seen_by_the_rules(proxy, port):
    """With option http-buffer-request, the frontend's rules run once the body is in, even
    when it arrives after the headers (chunked too)."""
    cfg = cfg_text(port, 'http-request return status 200 content-type text/plain '
                         'lf-string "<%[req.body]><%[req.body_param(k)]>"',
                   ["option http-buffer-request"])
    proxy(cfg, ports=[port])
    for head, parts in [
            ("Content-Length: 7", [b"k=v", b"&x=1"]),
            ("Transfer-Encoding: chunked", [b"3\r\nk=v\r\n", b"4\r\n&x=1\r\n0\r\n\r\n"])]:
        with httpc.connect(port) as s:
            s.sendall(crlf("POST / HTTP/1.1\nHost: h\n%s\n\n" % head))
            for part in parts:
                time.sleep(0.2)
                s.sendall(part)
            r = httpc.read_response(Reader(s), "POST")
        assert r.body == b"<k=v&x=1><v>"


@pytest.mark.ours
def test_req_len_counts_raw_bytes(proxy, port):
    """req.len: the bytes of the request in the buffer as received (HAProxy 2.6 counts its
    internal HTX message instead, a different number)."""
    raw = crlf("GET /? HTTP/1.0\n\n")
    cfg = cfg_text(port, 'http-request return status 200 content-type text/plain '
                         'lf-string "%[req.len]"')
    proxy(cfg, ports=[port])
    assert send(port, raw).body == str(len(raw)).encode()


# ---- constants, process facts ----

def test_constants_and_process(proxy):
    exprs = ["bool(true)", "bool(True)", "bool(1)", "bool(0)", "bool(false)", "meth(GET)",
             "meth(FOO)", "ipv4(1.2.3.4)", "ipv6(::1)", "ipv6(::ffff:1.2.3.4)", "int(-5)",
             "str()", "str(ab)", "bin(4142)", "env(FETCH_TEST_ENV)", "env(FETCH_TEST_NOPE)",
             "nbproc", "proc", "thread", "stopping", "wait_end", "prio_class", "prio_offset",
             "cpu_ns_tot", "lat_ns_avg", "unique-id", "always_true", "always_false",
             "hostname"]
    os.environ["FETCH_TEST_ENV"] = "v1"
    try:
        pr = Probe(proxy, exprs, glob=["nbthread 1"])
    finally:
        del os.environ["FETCH_TEST_ENV"]
    want = ["1", "1", "1", "0", "0", "GET", "FOO", "1.2.3.4", "::1", "::ffff:1.2.3.4", "-5",
            "", "ab", "AB", "v1", None, "1", "1", "0", "0", "1", "0", "0", "0", "0", None,
            "1", "0", socket.gethostname()]
    pr.check(crlf("GET / HTTP/1.1\nHost: h\n\n"), dict(zip(exprs, want)))


def test_clock_and_random(proxy):
    exprs = ["date", "date(10)", "date(-1,ms)", "date(0,us)", "date_us", "rand(10)", "rand",
             "rand(0)", "uuid", "uuid(4)"]
    pr = Probe(proxy, exprs)
    before = time.time()
    v = pr.values(crlf("GET / HTTP/1.1\nHost: h\n\n"))
    after = time.time()
    assert before - 1 <= int(v["date"]) <= after + 1
    assert int(v["date(10)"]) == int(v["date"]) + 10 or int(v["date(10)"]) == int(v["date"]) + 11
    assert (before - 1) * 1000 <= int(v["date(-1,ms)"]) <= (after + 1) * 1000
    assert (before - 1) * 1e6 <= int(v["date(0,us)"]) <= (after + 1) * 1e6
    assert 0 <= int(v["date_us"]) < 1000000
    assert 0 <= int(v["rand(10)"]) < 10
    assert 0 <= int(v["rand"]) < 1 << 32
    assert v["rand(0)"] == "0"
    for u in (v["uuid"], v["uuid(4)"]):
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-"
                            r"[0-9a-f]{12}", u), u
    assert v["uuid"] != v["uuid(4)"]


@pytest.mark.parametrize("expr", ["bool(2)", "bin(414)", "bin(zz)", "uuid(3)", "date(1,h)",
                                  "fc_rtt(s)", "int(x)", "nosuchfetch",
                                  "srv_is_up(nobe/s1)", "srv_is_up(px/nosrv)"])
def test_bad_arguments_are_config_errors(tmp_path, expr):
    cfg = cfg_text(free_port(), 'http-request return status 200 content-type text/plain '
                                'lf-string "%%[%s]"' % expr)
    path = tmp_path / "bad.cfg"
    path.write_text(cfg)
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode != 0, r.stdout + r.stderr


# ---- where fetches may be used ----

@pytest.mark.parametrize("section,rule,ok", [
    ("frontend fe", "http-request set-header x %[res.hdr(x)]", False),
    ("listen px", "http-request set-header x %[res.hdr(x)]", False),
    ("listen px", "http-response set-header x %[req.hdr(x)]", False),
    ("listen px", "http-request set-header x %[srv_name]", False),
    ("frontend fe", "http-request set-header x %[be_name]", False),
    ("listen px", "http-request set-header x %[be_name]", True),
    ("frontend fe", "http-response set-header x %[be_name]", True),
    ("listen px", "http-request set-header x %[hdr(x)]", True),
    ("listen px", "http-response set-header x %[hdr(x)]", True),
    ("listen px", "http-response set-header x %[method]", True),
    ("listen px", "http-response set-header x %[http_first_req]", True),
    ("listen px", "http-response set-header x %[srv_name]", True),
    ("listen px", "http-response set-header x %[status]", True),
    ("listen px", "http-request set-header x %[status]", False),
    ("listen px", "http-request set-header x %[bc_http_major]", False),
    ("listen px", "http-request set-header x %[req.body]", True),
    ("listen px", "http-response set-header x %[req.body]", False),
    ("listen px", "http-request set-header x %[nbsrv]", True),
])
def test_fetch_validity(tmp_path, section, rule, ok):
    """A fetch whose information does not exist where the rule runs is refused, as HAProxy
    refuses it; a fetch declaring several sources is valid where any of them is."""
    lines = ["global"] + DEFAULTS + [section, "    bind 127.0.0.1:%d" % free_port(),
                                     "    " + rule]
    if section.startswith("frontend"):
        lines += ["    default_backend be", "backend be", "    server s1 127.0.0.1:1"]
    else:
        lines += ["    server s1 127.0.0.1:1"]
    path = tmp_path / "v.cfg"
    path.write_text("\n".join(lines) + "\n")
    r = run_haproxy(["-c", "-f", str(path)])
    assert (r.returncode == 0) == ok, r.stdout + r.stderr


# ---- connections ----

def test_connection_fetches(proxy):
    exprs = ["src", "src_port", "dst", "dst_port", "fc_src", "fc_src_port", "fc_dst",
             "fc_dst_port", "src_is_local", "dst_is_local", "fc_src_is_local",
             "fc_dst_is_local", "dst_conn", "so_id", "so_name", "fc_http_major",
             "fc_rcvd_proxy", "fc_err", "fc_err_str", "fc_pp_authority", "fc_unacked",
             "fc_rtt gt -1"][:-1]
    pr = Probe(proxy, exprs)
    with httpc.connect(pr.port) as s:
        s.sendall(crlf("GET / HTTP/1.1\nHost: h\n\n"))
        r = httpc.read_response(Reader(s))
        cport = s.getsockname()[1]
    v = parse_body(r.body, exprs)
    assert v["src"] == v["fc_src"] == "127.0.0.1"
    assert v["src_port"] == v["fc_src_port"] == str(cport)
    assert v["dst"] == v["fc_dst"] == "127.0.0.1"
    assert v["dst_port"] == v["fc_dst_port"] == str(pr.port)
    assert [v[e] for e in ("src_is_local", "dst_is_local", "fc_src_is_local",
                           "fc_dst_is_local")] == ["1"] * 4
    assert v["dst_conn"] == "1"
    assert v["so_id"] == "1"
    assert v["fc_http_major"] == "1"
    assert v["fc_rcvd_proxy"] == "0"
    assert v["fc_err"] == "0"
    assert v["fc_err_str"] == "Success"
    assert v["fc_pp_authority"] == ""
    assert v["fc_unacked"] == "0"
    f = pr.found(crlf("GET / HTTP/1.1\nHost: h\n\n"))
    assert not f["so_name"] and not f["fc_pp_authority"] and f["src"]


def test_tcp_info_and_named_sockets(proxy, port):
    p2 = free_port()
    cfg = cfg_text(port, 'http-request return status 200 content-type text/plain '
                         'lf-string "%[so_id] %[so_name] %[fc_rtt] %[fc_rtt(us)] '
                         '%[fc_rttvar(ms)] %[fc_reordering]"',
                   ["bind 127.0.0.1:%d name second" % p2])
    proxy(cfg, ports=[port, p2])
    a = send(port, crlf("GET / HTTP/1.1\nHost: h\n\n")).body.decode().split(" ")
    b = send(p2, crlf("GET / HTTP/1.1\nHost: h\n\n")).body.decode().split(" ")
    assert a[:2] == ["1", ""] and b[:2] == ["2", "second"]
    assert int(a[2]) >= 0 and int(a[3]) > 0 and int(a[4]) >= 0 and int(a[5]) > 0


def test_tls_fetches_without_tls(proxy):
    """Without TLS, the booleans HAProxy computes are false, the rest not found."""
    false = ["ssl_fc", "ssl_fc_has_sni", "ssl_fc_is_resumed"]
    missing = ["ssl_c_used", "ssl_fc_has_crt", "ssl_fc_has_early", "ssl_c_verify",
               "ssl_fc_protocol", "ssl_fc_cipher", "ssl_fc_sni", "ssl_c_err",
               "ssl_fc_alg_keysize", "ssl_c_s_dn", "ssl_c_i_dn(CN)", "ssl_fc_session_id",
               "ssl_fc_alpn", "ssl_f_version", "ssl_s_sha1", "ssl_fc_cipherlist_str(1)"]
    pr = Probe(proxy, false + missing)
    want = dict([(e, "0") for e in false] + [(e, None) for e in missing])
    pr.check(crlf("GET / HTTP/1.1\nHost: h\n\n"), want)


def test_first_request_of_connection(proxy, port):
    cfg = cfg_text(port, 'http-request return status 200 content-type text/plain '
                         'lf-string "%[http_first_req]"')
    proxy(cfg, ports=[port])
    with httpc.connect(port) as s:
        rd = Reader(s)
        got = []
        for _ in range(3):
            s.sendall(crlf("GET / HTTP/1.1\nHost: h\n\n"))
            got.append(httpc.read_response(rd).body)
    assert got == [b"1", b"0", b"0"]


# ---- proxies and servers ----

def px_cfg(port, body, glob=(), fe_lines=(), be_lines=(), servers=()):
    out = ["global"] + ["    " + g for g in glob] + DEFAULTS
    out += ["frontend fe", "    bind 127.0.0.1:%d" % port, "    default_backend be"]
    out += ["    " + x for x in fe_lines]
    out += ["    http-request return status 200 content-type text/plain lf-string \"%s\""
            % body]
    out += ["backend other", "    server o1 127.0.0.1:1", "backend be"]
    out += ["    " + x for x in be_lines]
    out += ["    server %s 127.0.0.1:%d %s" % s for s in servers]
    return "\n".join(out) + "\n"


PX_EXPRS = ["fe_name", "fe_id", "fe_defbe", "fe_client_timeout", "nbsrv(be)", "nbsrv(other)",
            "connslots(be)", "connslots(other)", "be_conn(be)", "be_conn_free(be)",
            "queue(be)", "avg_queue(be)", "fe_conn", "fe_conn(fe)", "srv_is_up(be/a)",
            "srv_is_up(be/b)", "srv_conn(be/a)", "srv_conn_free(be/a)", "srv_conn_free(be/c)",
            "srv_queue(be/a)", "srv_weight(be/a)", "srv_iweight(be/b)", "srv_uweight(be/c)",
            "srv_weight(be/b)", "be_sess_rate(be)", "srv_sess_rate(be/a)"]


@pytest.mark.parametrize("stats", [False, True])
def test_proxy_and_server_fetches(proxy, port, tmp_path, stats):
    glob = ["stats socket %s" % (tmp_path / "s.sock")] if stats else []
    servers = [("a", 1, "maxconn 10 weight 3"), ("b", 2, "disabled weight 5"),
               ("c", 3, "weight 0"), ("d", 4, "backup")]
    cfg = px_cfg(port, lf_body(PX_EXPRS), glob, servers=servers)
    proxy(cfg, ports=[port])
    time.sleep(0.2)  # the fixture's readiness probe connection is gone from fe_conn
    v = parse_body(send(port, crlf("GET / HTTP/1.1\nHost: h\n\n")).body, PX_EXPRS)
    want = {"fe_name": "fe", "fe_id": "2" if stats else "1", "fe_defbe": "be",
            "fe_client_timeout": "5000", "nbsrv(be)": "1", "nbsrv(other)": "1",
            "connslots(be)": "-1", "connslots(other)": "-1", "be_conn(be)": "0",
            "be_conn_free(be)": "10", "queue(be)": "0", "avg_queue(be)": "0",
            "fe_conn": "1", "fe_conn(fe)": "1", "srv_is_up(be/a)": "1",
            "srv_is_up(be/b)": "0", "srv_conn(be/a)": "0", "srv_conn_free(be/a)": "10",
            "srv_conn_free(be/c)": "-1", "srv_queue(be/a)": "0", "srv_weight(be/a)": "3",
            "srv_iweight(be/b)": "5", "srv_uweight(be/c)": "0", "srv_weight(be/b)": "5",
            "be_sess_rate(be)": "0", "srv_sess_rate(be/a)": "0"}
    assert v == want


def test_backup_servers_count_once(proxy, port):
    exprs = ["nbsrv(be)", "be_conn_free(be)", "connslots(be)", "avg_queue(be)"]
    servers = [("a", 1, "disabled"), ("b", 2, "backup maxconn 4"), ("c", 3, "backup maxconn 7")]
    proxy(px_cfg(port, lf_body(exprs), servers=servers), ports=[port])
    v = parse_body(send(port, crlf("GET / HTTP/1.1\nHost: h\n\n")).body, exprs)
    assert v == {"nbsrv(be)": "1", "be_conn_free(be)": "4", "connslots(be)": "-1",
                 "avg_queue(be)": "0"}


def test_request_rate(proxy, port):
    cfg = cfg_text(port, 'http-request return status 200 content-type text/plain '
                         'lf-string "%[fe_req_rate] %[fe_sess_rate]"')
    proxy(cfg, ports=[port])
    with httpc.connect(port) as s:
        rd = Reader(s)
        for _ in range(3):
            s.sendall(crlf("GET / HTTP/1.1\nHost: h\n\n"))
            last = httpc.read_response(rd).body.decode().split()
    # the readiness probe of the test fixture counts as a (failed) request and a session
    assert 3 <= int(last[0]) <= 4 and 1 <= int(last[1]) <= 2


def test_backend_names_in_frontend_and_backend(proxy, backend, port):
    """be_name is the backend the stream goes to, in the backend's own rules."""
    cfg = "\n".join(["global"] + DEFAULTS + [
        "frontend fe", "    bind 127.0.0.1:%d" % port, "    default_backend be",
        "backend be",
        "    http-request return status 200 content-type text/plain "
        "lf-string \"%[fe_name] %[be_name] %[be_id] %[be_server_timeout] "
        "%[be_tunnel_timeout] %[fe_id]\"",
        "    timeout server 7s", "    timeout tunnel 1m",
        "    server s1 127.0.0.1:%d" % backend.port]) + "\n"
    proxy(cfg, ports=[port])
    assert send(port, crlf("GET / HTTP/1.1\nHost: h\n\n")).body == b"fe be 2 7000 60000 1"


# ---- responses ----

RSP_EXPRS = ["status", "res.ver", "resp_ver", "res.hdr(x-r)", "shdr(x-r,1)", "res.fhdr(x-r)",
             "res.hdr_cnt(x-r)", "shdr_cnt(x-r)", "res.fhdr_cnt(x-r)", "res.hdr_val(x-v)",
             "shdr_val(x-v)", "res.hdr_ip(x-ip)", "shdr_ip(x-ip)", "res.cook(s)", "scook(t)",
             "res.cook_cnt", "scook_cnt(s)", "res.cook_val(s)", "cookie(s)", "srv_name", "srv_id", "be_name", "method", "http_first_req",
             "bc_http_major", "bc_dst", "bc_src", "bc_err", "bc_dst_port", "ssl_bc",
             "ssl_bc_is_resumed", "ssl_bc_protocol", "res.hdr(x-nope)", "res.hdr_names(|)"]


def test_response_fetches(proxy, backends):
    s1, s2 = backends(2)
    pr = Probe(proxy, RSP_EXPRS, response=True, lines=["balance roundrobin"],
               servers=[(s1.name, s1.port, ""), (s2.name, s2.port, "")])
    q = ("/x?hdr=X-R:a,%20b&hdr=X-R:c&hdr=X-V:42z&hdr=X-IP:10.1.2.3&"
         "hdr=Set-Cookie:s=1;%20path=/&hdr=Set-Cookie:t=2,u=3&status=201")
    raw = crlf("POST %s HTTP/1.1\nHost: h\nContent-Length: 2\n\n" % q) + b"ab"
    v = pr.values(raw)
    assert v["status"] == "201" and v["res.ver"] == v["resp_ver"] == "1.1"
    assert (v["res.hdr(x-r)"], v["shdr(x-r,1)"], v["res.fhdr(x-r)"]) == ("c", "a", "c")
    assert (v["res.hdr_cnt(x-r)"], v["shdr_cnt(x-r)"], v["res.fhdr_cnt(x-r)"]) == ("3", "3", "2")
    assert v["res.hdr_val(x-v)"] == v["shdr_val(x-v)"] == "42"
    assert v["res.hdr_ip(x-ip)"] == v["shdr_ip(x-ip)"] == "10.1.2.3"
    # without a name every pair counts, attributes included (HAProxy restarts its scan)
    assert (v["res.cook(s)"], v["scook(t)"], v["res.cook_cnt"]) == ("1", "2", "4")
    assert (v["scook_cnt(s)"], v["res.cook_val(s)"], v["cookie(s)"]) == ("1", "1", "1")
    assert v["srv_name"] in ("s1", "s2") and v["srv_id"] == v["srv_name"][1]
    assert v["be_name"] == "px" and v["method"] == "POST" and v["http_first_req"] == "1"
    assert v["bc_http_major"] == "1" and v["bc_dst"] == v["bc_src"] == "127.0.0.1"
    assert v["bc_err"] == "0"
    assert v["bc_dst_port"] == str({"s1": s1.port, "s2": s2.port}[v["srv_name"]])
    assert v["ssl_bc"] == "0" and v["ssl_bc_is_resumed"] == "0"
    assert v["res.hdr_names(|)"].startswith("x-server|x-conn|x-req-index|")
    f = pr.found(raw)
    assert not f["ssl_bc_protocol"] and not f["res.hdr(x-nope)"] and f["status"]


def test_current_timeouts(proxy, backend, port):
    """cur_*_timeout: 0 until the stream goes to a server, then its backend's."""
    cfg = cfg_text(port, "http-response set-header x-rsp %[cur_server_timeout]/"
                         "%[cur_tunnel_timeout]",
                   ["timeout server 7s", "timeout tunnel 9s",
                    "http-request set-header x-req %[cur_server_timeout]/"
                    "%[cur_tunnel_timeout]"],
                   servers=[(backend.name, backend.port, "")])
    proxy(cfg, ports=[port])
    r = send(port, crlf("GET / HTTP/1.1\nHost: h\n\n"))
    assert r.header("x-rsp") == "7000/9000" and backend.last().header("x-req") == "0/0"


def test_method_in_response_rules(proxy, backend, port):
    """Once the request is sent, only the eight standard methods remain known."""
    cfg = cfg_text(port, "http-response set-header x-m <%[method]>",
                   servers=[(backend.name, backend.port, "")])
    proxy(cfg, ports=[port])
    got = [send(port, crlf("%s / HTTP/1.1\nHost: h\nContent-Length: 0\n\n" % m)).header("x-m")
           for m in ("GET", "PURGE", "POST", "PATCH", "OPTIONS")]
    assert got == ["<GET>", "<>", "<POST>", "<>", "<OPTIONS>"]


def test_hdr_acl_follows_direction(proxy, backend, port):
    """hdr() and cookie() read the request in request rules and the response in response
    rules (the ACL keyword hdr, unlike the fetch, is request-only in HAProxy)."""
    cfg = cfg_text(port, "http-response set-header x-got %[hdr(x-in)]-%[cookie(k)]",
                   ["http-request set-header x-req %[hdr(x-in)]-%[cookie(k)]",
                    "http-response set-header x-acl 1 if { cookie(k) -m str s }"],
                   servers=[(backend.name, backend.port, "")])
    proxy(cfg, ports=[port])
    r = send(port, crlf("GET /?hdr=X-In:rspval&hdr=Set-Cookie:k=s HTTP/1.1\nHost: h\n"
                        "X-In: reqval\nCookie: k=c\n\n"))
    assert r.header("x-got") == "rspval-s" and r.header("x-acl") == "1"
    assert backend.last().header("x-req") == "reqval-c"


@pytest.mark.ours
def test_response_body_present(proxy, backend, port):
    """res.body reads the bytes of the body already received with the headers (HAProxy 2.6
    only has them after "http-response wait-for-body"); res.body_size is the announced
    length."""
    cfg = cfg_text(port, "http-response set-header x-b %[res.body_len]:%[res.body_size]:"
                         "%[res.len]",
                   ["http-response set-header x-m 1 if { res.body -m beg hello }"],
                   servers=[(backend.name, backend.port, "")])
    proxy(cfg, ports=[port])
    r = send(port, crlf("GET / HTTP/1.1\nHost: h\n\n"))
    blen, bsize, rlen = r.header("x-b").split(":")
    assert bsize == "14" and int(blen) in range(15) and int(rlen) > int(blen)
    assert (r.header("x-m") == "1") == (int(blen) >= 5)


# ---- authentication ----

AUTH_EXPRS = ["http_auth(L)", "http_auth_type", "http_auth_user", "http_auth_pass",
              "http_auth_bearer", "http_auth_bearer(x-tok)"]


def basic(cred):
    return "Authorization: Basic %s\n" % base64.b64encode(cred.encode()).decode()


# with a header named, http_auth_bearer is found empty when that header has no token
AUTH_CASES = [
    ("", [None] * 5 + [""], ""),
    (basic("alice:pa"), ["1", "Basic", "alice", "pa", None, ""], "alice"),
    (basic("alice:bad"), ["0", "Basic", "alice", "bad", None, ""], ""),
    (basic("bob:pb").replace("Basic", "basic"), ["1", "Basic", "bob", "pb", None, ""], "bob"),
    (basic("carol:x:y"), ["0", "Basic", "carol", "x:y", None, ""], ""),
    ("Authorization: Bearer abc.def\n", [None, "Bearer", None, None, "abc.def", ""], ""),
    ("Authorization: Digest x=1\n", [None] * 5 + [""], ""),
    ("Authorization: Basic !!!\n", [None] * 5 + [""], ""),
    (basic("nocolon"), [None] * 5 + [""], ""),
    ("X-Tok: Bearer tt\n", [None] * 5 + ["tt"], ""),
]

USERLIST = ["userlist L", "    group G1", "    group G2", "    group G3",
            "    user alice insecure-password pa groups G3,G1",
            "    user bob insecure-password pb"]


def test_http_auth_fetches(proxy):
    """http_auth and the Authorization readers; http_auth_group renders the user's name
    once the credentials are valid (an ACL must name groups: tested below)."""
    pr = Probe(proxy, AUTH_EXPRS, pre=USERLIST)
    port = free_port()
    proxy(cfg_text(port, 'http-request return status 200 content-type text/plain '
                         'lf-string "%[http_auth_group(L)]"', pre=USERLIST), ports=[port])
    for hdrs, want, group in AUTH_CASES:
        raw = crlf("GET / HTTP/1.1\nHost: h\n%s\n" % hdrs)
        pr.check(raw, dict(zip(AUTH_EXPRS, want)))
        assert send(port, raw).body == group.encode()


def test_http_auth_group_acl(proxy, port):
    """Under an ACL, http_auth_group tests the user's groups against the patterns."""
    cfg = "\n".join(["global"] + USERLIST + DEFAULTS + [
        "listen px", "    bind 127.0.0.1:%d" % port,
        "    http-request return status 201 if { http_auth_group(L) G1 }",
        "    http-request return status 202 if { http_auth_group(L) G2 G3 }",
        "    http-request return status 401 unless { http_auth(L) }",
        "    http-request return status 200"]) + "\n"
    proxy(cfg, ports=[port])
    assert send(port, crlf("GET / HTTP/1.1\nHost: h\n%s\n" % basic("alice:pa"))).status == 201
    assert send(port, crlf("GET / HTTP/1.1\nHost: h\n%s\n" % basic("alice:no"))).status == 401
    assert send(port, crlf("GET / HTTP/1.1\nHost: h\n%s\n" % basic("bob:pb"))).status == 200
    assert send(port, crlf("GET / HTTP/1.1\nHost: h\n\n")).status == 401


def test_http_auth_group_unknown_group_is_an_error(tmp_path):
    """An ACL pattern of http_auth_group must name a group of the userlist (2.6 says
    "invalid group"); ours also names the file and line."""
    path = tmp_path / "g.cfg"
    path.write_text("\n".join(["global"] + USERLIST + DEFAULTS + [
        "listen px", "    bind 127.0.0.1:%d" % free_port(),
        "    http-request deny if { http_auth_group(L) G1 nosuch }"]) + "\n")
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode != 0
    assert "invalid group 'nosuch'" in r.stderr, r.stderr
    if not IS_REF:
        lineno = len(USERLIST) + len(DEFAULTS) + 4
        assert "g.cfg:%d]" % lineno in r.stderr, r.stderr


def test_last_rule_file_and_line(proxy, backend, port):
    """last_rule_file/_line name the last allow/deny/tarpit/accept that ended a rule set;
    return, redirect and rules that go on leave them unset (HAProxy 2.6)."""
    cfg = "\n".join(DEFAULTS + [
        "frontend fe", "    bind 127.0.0.1:%d" % port,               # lines 6-7
        "    tcp-request content accept if { path /acc }",            # 8
        "    http-request set-var(txn.p) path",                       # 9
        "    http-request allow if { path /allow }",                  # 10
        "    http-request deny deny_status 403 if { path /deny }",    # 11
        "    http-request return status 201 if { path /ret }",        # 12
        "    http-response deny if { var(txn.p) -m str /rspdeny }",   # 13
        '    http-after-response set-header X-R "%[last_rule_file]:%[last_rule_line]"',
        "    use_backend srv if { path /rspdeny }",
        "    default_backend be",
        "backend be",
        "    http-request allow if { path /beallow }",  # 18: no server then, 503
        "    http-request return status 200",
        "backend srv", "    server s 127.0.0.1:%d" % backend.port]) + "\n"
    p = proxy(cfg, ports=[port])
    where = str(p.cfg_path)
    for path, status, line in [("/acc", 200, 8), ("/allow", 200, 10), ("/deny", 403, 11),
                               ("/ret", 201, None), ("/other", 200, None),
                               ("/beallow", 503, 18), ("/rspdeny", 502, 13)]:
        r = send(port, crlf("GET %s HTTP/1.1\nHost: h\n\n" % path))
        assert r.status == status, path
        want = ":" if line is None else "%s:%d" % (where, line)
        assert r.header("x-r") == want, (path, r.headers)


def test_unknown_userlist_is_an_error(tmp_path):
    path = tmp_path / "u.cfg"
    path.write_text(cfg_text(free_port(), "http-request deny if { http_auth(nope) }"))
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode != 0
