"""The Lua HTTP client (core.httpclient()) seen from the outside: an action calls a local
origin (backend.py records what it received) and what the response table held comes back
in the proxy's answer (tests/integration/lua/sock_httpclient.lua stores it in txn.out).

Owns: the request the origin receives (method, target, the headers the client adds, the
body), the response table (status, reason, headers as {[0]=v...}, body for
content-length, chunked and close-delimited responses, HEAD), the proxy's own answers
(503 refused, 502 invalid, 504 timeout), dst, HTTPS with httpclient.ssl.ca-file and its
default verification, host names resolved through the "default" resolvers section, the
argument errors and the httpclient.* keywords. Runs against Debian's haproxy 2.6 too
(HAPROXY_BIN) where it behaves the same.
"""

import socket
import ssl
import time

import httpc
import pytest
from backend import BLOCK, ConnClosed, Reader
from conftest import HERE, IS_REF, free_port, make_cfg, run_haproxy
from dnsserver import DnsServer
from rawserver import read_request
from tcpserv import tcpservers  # noqa: F401  (fixture)

LUA = HERE / "lua" / "sock_httpclient.lua"
RETURN_OUT = ('http-request return status 200 content-type text/plain '
              'lf-string "%[var(txn.out)]"')


def start(proxy, port, rules, glob=(), extra=""):
    cfg = make_cfg(port, glob=["lua-load %s" % LUA] + list(glob),
                   listen=list(rules) + [RETURN_OUT], extra=extra)
    return proxy(cfg, ports=[port])


def call(proxy, port, rule, glob=(), extra=""):
    start(proxy, port, ["http-request " + rule], glob, extra)
    r = httpc.get(port, "/", timeout=15)
    assert r.status == 200
    return r.body.decode()


def test_get(proxy, port, backend):
    out = call(proxy, port, "lua.hc_get %d" % backend.port)
    assert out == ("200|OK|hello from s1\\n|x-server=s1|content-type=text/plain|"
                   "connection=none")
    req = backend.last()
    assert req.method == "GET" and req.target == "/get?a=1"
    assert req.header_all("x-test") == ["a", "b"]
    assert req.header("x-skip") is None  # a value that is not a table is ignored
    assert req.header("host") == "127.0.0.1:%d" % backend.port
    assert req.header("user-agent") == "HAProxy"
    assert req.header("accept") == "*/*"
    assert req.body == b""


def test_post_body(proxy, port, backend):
    out = call(proxy, port, "lua.hc_post %d" % backend.port)
    assert out == "200|OK|hello body|x-body-len=10"
    req = backend.last()
    assert req.method == "POST" and req.body == b"hello body"
    assert req.header("content-type") == "text/x-test"


def test_put_delete_head(proxy, port, backend):
    start(proxy, port, ["http-request lua.hc_put %d if { path /put }" % backend.port,
                        "http-request lua.hc_delete %d if { path /del }" % backend.port,
                        "http-request lua.hc_head %d if { path /head }" % backend.port])
    assert httpc.get(port, "/put").body.decode() == "200|OK|put body"
    assert backend.last().method == "PUT"
    assert httpc.get(port, "/del").body.decode() == "204|No Content|"
    assert backend.last().method == "DELETE"
    assert httpc.get(port, "/head").body.decode() == "200|OK||content-length=%d" % len(
        "hello from s1\n")
    assert backend.last().method == "HEAD"


@pytest.mark.parametrize("size,framing,te", [
    (3000, "chunked", "chunked"),
    (1 << 20, "chunked", "chunked"),
    (1 << 20, "cl", "none"),
    (70000, "close", "none"),
    (0, "chunked", "chunked"),
])
def test_response_framing(proxy, port, backend, size, framing, te):
    out = call(proxy, port, "lua.hc_body %d %d %s" % (backend.port, size, framing))
    assert out == "200|%d|%d|%s" % (size, sum(BLOCK[:size]) % (1 << 32), te)


def test_status_and_repeated_headers(proxy, port, backend):
    out = call(proxy, port, "lua.hc_multi %d" % backend.port)
    assert out == "404|Not Found|hello from s1\\n|set-cookie=a=1+b=2"


def test_refused_is_503(proxy, port):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, not listening
    try:
        out = call(proxy, port, "lua.hc_url http://127.0.0.1:%d/ 0" % closed.getsockname()[1])
    finally:
        closed.close()
    assert out.startswith("503|Service Unavailable|<html><body><h1>503 Service Unavailable")
    assert out.endswith("|content-type=text/html")


def test_invalid_response_is_502(proxy, port, backend):
    out = call(proxy, port, "lua.hc_url http://127.0.0.1:%d/?action=garbage 0" % backend.port)
    assert out.startswith("502|Bad Gateway|<html><body><h1>502 Bad Gateway")


def test_timeout_is_504(proxy, port, backend):
    """request.timeout bounds the wait for the server (HAProxy 2.6 waits longer than
    asked, but less than the server's delay here)."""
    start(proxy, port, ["http-request lua.hc_url http://127.0.0.1:%d/?delay=4 300"
                        % backend.port])
    t0 = time.monotonic()
    r = httpc.get(port, "/", timeout=15)
    dt = time.monotonic() - t0
    assert r.body.decode().startswith("504|Gateway Time-out|")
    assert 0.25 <= dt < 3.5


def test_dst(proxy, port, backend):
    out = call(proxy, port, "lua.hc_dst %d" % backend.port)
    assert out == "200|OK|hello from s1\\n"
    assert backend.last().header("host") == "example.invalid"
    assert backend.last().target == "/dst"


def test_argument_errors(proxy, port):
    out = call(proxy, port, "lua.hc_args")
    assert out == "false|'get' need a 'url' argument|false|couldn't start the httpclient"


def test_two_calls_one_object(proxy, port, backend):
    assert call(proxy, port, "lua.hc_twice %d" % backend.port) == "200|200"
    assert [r.target for r in list(backend.requests)[-2:]] == ["/one", "/two"]


def https_server(tcpservers, pki, cert="srv.pem"):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(pki.p(cert))

    def answer(srv, s):
        try:
            read_request(Reader(s))
        except ConnClosed:
            return
        s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecret")

    return tcpservers(handler=answer, tls=ctx)


def test_https_with_ca_file(proxy, port, tcpservers, pki):
    """The URL's host name is sent as SNI and must be a name of the certificate."""
    srv = https_server(tcpservers, pki)
    start(proxy, port, ["http-request lua.hc_via https://a.test:%d/ 127.0.0.1:%d "
                        "if { path /a }" % (srv.port, srv.port),
                        "http-request lua.hc_via https://b.test:%d/ 127.0.0.1:%d "
                        "if { path /b }" % (srv.port, srv.port)],
          glob=["httpclient.ssl.ca-file %s" % pki.p("ca.crt")])
    assert httpc.get(port, "/a").body.decode() == "200|OK|secret"
    assert httpc.get(port, "/b").body.decode().startswith("503|Service Unavailable|")


@pytest.mark.ours
def test_https_ip_address_checked(proxy, port, tcpservers, pki):
    """An IP address in the URL is checked against the certificate's addresses (srv.pem
    has 127.0.0.1, a.pem has none; HAProxy 2.6 checks the address as a name and refuses
    both)."""
    srv = https_server(tcpservers, pki)
    other = https_server(tcpservers, pki, "a.pem")
    start(proxy, port, ["http-request lua.hc_url https://127.0.0.1:%d/ 0 if { path /srv }"
                        % srv.port,
                        "http-request lua.hc_url https://127.0.0.1:%d/ 0 if { path /a }"
                        % other.port],
          glob=["httpclient.ssl.ca-file %s" % pki.p("ca.crt")])
    assert httpc.get(port, "/srv").body.decode() == "200|OK|secret|content-type=none"
    assert httpc.get(port, "/a").body.decode().startswith("503|Service Unavailable|")


def test_https_verified_by_default(proxy, port, tcpservers, pki):
    """By default the server is verified against the system's CAs: a test CA fails."""
    srv = https_server(tcpservers, pki)
    out = call(proxy, port, "lua.hc_url https://127.0.0.1:%d/ 0" % srv.port)
    assert out.startswith("503|Service Unavailable|")


def test_https_verify_none(proxy, port, tcpservers, pki):
    srv = https_server(tcpservers, pki)
    out = call(proxy, port, "lua.hc_url https://127.0.0.1:%d/ 0" % srv.port,
               glob=["httpclient.ssl.verify none"])
    assert out == "200|OK|secret|content-type=none"


def test_host_name_resolved(proxy, port, backend):
    """A URL host name is resolved through the "default" resolvers section."""
    dns = DnsServer()
    try:
        dns.records["origin.test"] = ["127.0.0.1"]
        extra = ("resolvers default\n    nameserver ns1 127.0.0.1:%d\n"
                 "    timeout retry 200ms\n" % dns.port)
        out = call(proxy, port, "lua.hc_url http://origin.test:%d/named 0" % backend.port,
                   glob=["httpclient.resolvers.prefer ipv4"], extra=extra)
    finally:
        dns.stop()
    assert out == "200|OK|hello from s1\\n|content-type=text/plain"
    assert backend.last().header("host") == "origin.test:%d" % backend.port


def check(tmp_path, glob):
    p = tmp_path / "c.cfg"
    p.write_text(make_cfg(free_port(), glob=glob))
    return run_haproxy(["-c", "-f", str(p)])


@pytest.mark.parametrize("line,msg", [
    ("httpclient.ssl.verify bogus", "'httpclient.ssl.verify' expects 'none' or 'required'"),
    ("httpclient.resolvers.prefer ipv5",
     "'httpclient.resolvers.prefer' expects 'ipv4' or 'ipv6'"),
    ("httpclient.resolvers.id nosuch", "find resolvers section 'nosuch'"),
])
def test_keyword_errors(tmp_path, line, msg):
    r = check(tmp_path, [line])
    assert r.returncode != 0
    assert msg.lower() in r.stderr.lower(), r.stderr


@pytest.mark.ours
def test_keywords_accepted(tmp_path, pki):
    r = check(tmp_path, ["httpclient.ssl.verify required",
                         "httpclient.ssl.ca-file %s" % pki.p("ca.crt"),
                         "httpclient.resolvers.disabled on", "httpclient.timeout.connect 2s"])
    assert r.returncode == 0, r.stderr


@pytest.mark.ours
def test_ca_file_error_names_line(tmp_path):
    r = check(tmp_path, ["httpclient.ssl.ca-file /nonexistent/ca.pem"])
    assert r.returncode != 0
    assert "c.cfg:2" in r.stderr and "/nonexistent/ca.pem" in r.stderr


@pytest.mark.skipif(IS_REF, reason="hapx's refusal (2.6 does not know the keyword)")
def test_retries_refused(tmp_path):
    r = check(tmp_path, ["httpclient.retries 2"])
    assert r.returncode != 0
    assert "'httpclient.retries' is not supported yet" in r.stderr and "c.cfg:2" in r.stderr
