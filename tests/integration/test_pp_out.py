"""The PROXY protocol sent to servers: `server ... send-proxy`, `send-proxy-v2`,
`send-proxy-v2-ssl`, `send-proxy-v2-ssl-cn`, `proxy-v2-options`, `check-send-proxy`.

Owns: the exact header bytes a recording server receives (computed with pputil from the
client's and the frontend's addresses, byte for byte as Debian's /usr/sbin/haproxy 2.6 sends
them: TLVs in the order CRC32C, AUTHORITY, UNIQUE_ID, SSL), in mode http (one header per
server connection; the requests of one client share it, two clients never share one) and
mode tcp; nginx behind the proxy logging the real client address from the header
($proxy_protocol_addr); the header of health checks (v1 with the check connection's own
addresses, v2 LOCAL with no address).
"""

import socket
import ssl
import time

import pytest
from backend import Reader
from conftest import free_port
from httpc import read_response
from rawserver import RawServer, read_request

import pputil

REQ = b"GET /%s HTTP/1.1\r\nHost: x\r\n%s\r\n"


class Recorder:
    """A raw server that reads a PROXY header first, then answers HTTP requests (mode
    "http") or echoes what it reads once (mode "tcp"); records (conn index, Header, peer
    port, request paths)."""

    def __init__(self, mode="http"):
        self.mode = mode
        self.conns = []
        self.srv = RawServer(self._handle)
        self.port = self.srv.port

    def _handle(self, s, rd, idx):
        peer = s.getpeername()[1]
        try:
            hd, rest = pputil.read_header(s)
        except ValueError as e:
            self.srv.note(("bad", idx, str(e)))
            return
        paths = []
        self.srv.note((idx, hd, peer, paths))
        rd.buf = bytearray(rest)
        if self.mode == "tcp":
            s.settimeout(5)
            data = bytes(rd.buf) or s.recv(4096)
            s.sendall(b"echo:" + data)
            return
        s.settimeout(5)
        for _ in range(20):
            head = read_request(rd)
            paths.append(head.split(b" ")[1].decode())
            s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")

    def headers(self, n=1, timeout=5.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.srv.lock:
                ev = list(self.srv.events)
            if len(ev) >= n:
                return ev
            time.sleep(0.05)
        return ev

    def of(self, client, timeout=5.0):
        """The (idx, Header, peer port, paths) of the client (ip, port)'s server connection
        (the harness's startup port probe makes one of its own in mode tcp)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.srv.lock:
                for e in self.srv.events:
                    if e[0] != "bad" and e[1].src == client:
                        return e
            time.sleep(0.05)
        raise AssertionError("no header from %r in %r" % (client, self.srv.events))

    def stop(self):
        self.srv.stop()


@pytest.fixture
def recorder():
    made = []

    def make(mode="http"):
        r = Recorder(mode)
        made.append(r)
        return r

    yield make
    for r in made:
        r.stop()


def cfg(port, srv_port, srv_opts, mode="http", tls=None, fe=(), be=(), check=""):
    bind = "127.0.0.1:%d" % port
    if tls:
        bind += " ssl crt %s ca-file %s verify optional" % tls
    lines = ["defaults", "    mode %s" % mode, "    timeout connect 2s",
             "    timeout client 5s", "    timeout server 5s", "    timeout check 2s",
             "frontend fe", "    bind %s" % bind]
    lines += ["    " + x for x in fe]
    lines += ["    default_backend be", "backend be"]
    lines += ["    " + x for x in be]
    lines += ["    server s1 127.0.0.1:%d %s %s" % (srv_port, srv_opts, check)]
    return "\n".join(lines) + "\n"


def get(port, paths=("a",), ctx=None, sni="a.test"):
    """Requests on one keep-alive connection (the last with Connection: close); returns
    (client (ip, port), [status])."""
    raw = socket.create_connection(("127.0.0.1", port), timeout=5)
    me = raw.getsockname()
    s = ctx.wrap_socket(raw, server_hostname=sni) if ctx else raw
    out = []
    try:
        rd = Reader(s)
        for i, p in enumerate(paths):
            last = i == len(paths) - 1
            s.sendall(REQ % (p.encode(), b"Connection: close\r\n" if last else b""))
            out.append(read_response(rd).status)
    finally:
        s.close()
    return me, out


def tls_ctx(pki, client_cert=True):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.maximum_version = ssl.TLSVersion.TLSv1_3
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    if client_cert:
        ctx.load_cert_chain(pki.p("client.pem"))
    return ctx


@pytest.mark.parametrize("opts", ["send-proxy", "send-proxy-v2"])
def test_http_header_bytes(proxy, recorder, opts):
    rec = recorder()
    port = free_port()
    proxy(cfg(port, rec.port, opts), ports=[port])
    me, st = get(port)
    assert st == [200]
    ev = rec.headers(1)
    assert len(ev) == 1, ev
    _, hd, _, paths = ev[0]
    fe = ("127.0.0.1", port)
    want = pputil.v1(me, fe) if opts == "send-proxy" else pputil.v2(me, fe)
    assert hd.raw == want
    assert paths == ["/a"]


@pytest.mark.parametrize("opts,tlvs", [
    ("send-proxy-v2-ssl", [(pputil.PP2_TYPE_SSL, pputil.ssl_value(0, 0))]),
    ("send-proxy-v2-ssl-cn", [(pputil.PP2_TYPE_SSL, pputil.ssl_value(0, 0))]),
    ("send-proxy-v2 proxy-v2-options authority,crc32c,unique-id,ssl,cert-cn",
     [(pputil.PP2_TYPE_CRC32C, None), (pputil.PP2_TYPE_UNIQUE_ID, b"UID-%d"),
      (pputil.PP2_TYPE_SSL, pputil.ssl_value(0, 0))]),
], ids=["v2-ssl", "v2-ssl-cn", "v2-options"])
def test_http_plain_client_tlvs(proxy, recorder, opts, tlvs):
    """A client without TLS: the SSL TLV says so (flags 0, verify 0), no CN, no authority;
    unique-id comes from unique-id-format."""
    rec = recorder()
    port = free_port()
    proxy(cfg(port, rec.port, opts, fe=["unique-id-format UID-%[src_port]"]), ports=[port])
    me, st = get(port)
    assert st == [200]
    _, hd, _, _ = rec.of(me)
    tl = [(t, v % me[1] if t == pputil.PP2_TYPE_UNIQUE_ID else v) for t, v in tlvs]
    assert hd.raw == pputil.v2(me, ("127.0.0.1", port), tlvs=tl)
    if "crc32c" in opts:
        assert hd.crc_ok() is True


@pytest.mark.parametrize("opts,cn,auth", [
    ("send-proxy-v2-ssl", False, False),
    ("send-proxy-v2-ssl-cn", True, False),
    ("send-proxy-v2 proxy-v2-options authority,crc32c,unique-id,ssl,cert-cn", True, True),
], ids=["v2-ssl", "v2-ssl-cn", "v2-options"])
def test_http_tls_client_tlvs(proxy, recorder, pki, opts, cn, auth):
    """A TLS 1.3 client with a verified certificate (CN client1), SNI a.test."""
    rec = recorder()
    port = free_port()
    proxy(cfg(port, rec.port, opts, tls=(pki.p("a.pem"), pki.p("ca.crt")),
              fe=["unique-id-format UID-%[src_port]"]), ports=[port])
    me, st = get(port, ctx=tls_ctx(pki))
    assert st == [200]
    _, hd, _, _ = rec.of(me)
    subs = [(pputil.PP2_SUBTYPE_SSL_VERSION, b"TLSv1.3")]
    if cn:
        subs.append((pputil.PP2_SUBTYPE_SSL_CN, b"client1"))
    flags = pputil.PP2_CLIENT_SSL | pputil.PP2_CLIENT_CERT_CONN | pputil.PP2_CLIENT_CERT_SESS
    tl = []
    if auth:
        tl = [(pputil.PP2_TYPE_CRC32C, None), (pputil.PP2_TYPE_AUTHORITY, b"a.test"),
              (pputil.PP2_TYPE_UNIQUE_ID, b"UID-%d" % me[1])]
    tl.append((pputil.PP2_TYPE_SSL, pputil.ssl_value(flags, 0, subs)))
    assert hd.raw == pputil.v2(me, ("127.0.0.1", port), tlvs=tl), hd
    assert hd.ssl() == (flags, 0, subs)


@pytest.mark.parametrize("opts", ["send-proxy", "send-proxy-v2"])
def test_http_keepalive_one_header_per_client(proxy, recorder, opts):
    """Two requests of one client go on one server connection with one header; a second
    client never reuses it (even with http-reuse always)."""
    rec = recorder()
    port = free_port()
    proxy(cfg(port, rec.port, opts, be=["http-reuse always"]), ports=[port])
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        me1 = s.getsockname()
        rd = Reader(s)
        s.sendall(REQ % (b"1", b""))
        assert read_response(rd).status == 200
        s.sendall(REQ % (b"2", b""))
        assert read_response(rd).status == 200
        # a second client while the first one's server connection is idle
        me2, st = get(port, paths=("3",))
        assert st == [200]
    finally:
        s.close()
    ev = rec.headers(2)
    assert len(ev) == 2, ev
    byport = {e[1].src[1]: e for e in ev}
    assert set(byport) == {me1[1], me2[1]}
    assert byport[me1[1]][3] == ["/1", "/2"]
    assert byport[me2[1]][3] == ["/3"]
    assert byport[me2[1]][1].raw == (pputil.v1 if opts == "send-proxy" else pputil.v2)(
        me2, ("127.0.0.1", port))


@pytest.mark.parametrize("opts", ["send-proxy", "send-proxy-v2"])
def test_tcp_mode_header_then_data(proxy, recorder, opts):
    rec = recorder("tcp")
    port = free_port()
    proxy(cfg(port, rec.port, opts, mode="tcp"), ports=[port])
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        me = s.getsockname()
        s.sendall(b"hello")
        out = b""
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and len(out) < 10:
            d = s.recv(100)
            if not d:
                break
            out += d
    finally:
        s.close()
    assert out == b"echo:hello"
    _, hd, _, _ = rec.of(me)
    fe = ("127.0.0.1", port)
    assert hd.raw == (pputil.v1(me, fe) if opts == "send-proxy" else pputil.v2(me, fe))


def test_tcp_mode_accept_proxy_relayed(proxy, recorder):
    """The address received from a PROXY header in front is the one sent on."""
    rec = recorder("tcp")
    port = free_port()
    proxy(cfg(port, rec.port, "send-proxy-v2", mode="tcp").replace(
        "bind 127.0.0.1:%d" % port, "bind 127.0.0.1:%d accept-proxy" % port), ports=[port])
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        s.sendall(pputil.v1(("192.0.2.9", 4321), ("198.51.100.1", 443)) + b"x")
        out = s.recv(100)
    finally:
        s.close()
    assert out == b"echo:x"
    _, hd, _, _ = rec.of(("192.0.2.9", 4321))
    assert hd.raw == pputil.v2(("192.0.2.9", 4321), ("198.51.100.1", 443))


@pytest.mark.parametrize("opts,want", [
    ("check-send-proxy", "v1"),
    ("send-proxy", "v1"),
    ("send-proxy-v2", "v2"),
    ("send-proxy-v2 proxy-v2-options crc32c,ssl,unique-id", "v2-tlv"),
])
@pytest.mark.parametrize("httpchk", [True, False], ids=["httpchk", "connect"])
def test_check_sends_header(proxy, opts, want, httpchk):
    """Health checks: v1 carries the check connection's own addresses; v2 is LOCAL with no
    address (with the CRC32C and SSL TLVs asked for, no unique-id)."""
    got = []

    def handle(s, rd, idx):
        try:
            peer = s.getpeername()
        except OSError:  # a connect check may have closed (RST) already
            peer = None
        s.settimeout(2)
        data = b""
        for _ in range(50):
            try:
                d = s.recv(4096)
            except OSError:
                break
            if not d:
                break
            data += d
            if b"\r\n\r\n" in data[16:]:
                break
        got.append((peer, data))
        s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")

    rs = RawServer(handle)
    try:
        port = free_port()
        proxy(cfg(port, rs.port, opts, be=["option httpchk"] if httpchk else [],
                  check="check inter 1s"), ports=[port])
        deadline = time.monotonic() + 5
        while not got and time.monotonic() < deadline:
            time.sleep(0.05)
        assert got, "no check came"
        peer, data = got[0]
    finally:
        rs.stop()
    hd, rest = pputil.parse(data)
    if want == "v1":
        assert hd.src[0] == "127.0.0.1" and hd.dst == ("127.0.0.1", rs.port), hd
        assert hd.raw == pputil.v1(peer or hd.src, ("127.0.0.1", rs.port))
    elif want == "v2":
        assert hd.raw == pputil.v2(local=True)
    else:
        assert hd.raw == pputil.v2(local=True, tlvs=[
            (pputil.PP2_TYPE_CRC32C, None), (pputil.PP2_TYPE_SSL, pputil.ssl_value(0, 0))])
    assert rest == (b"OPTIONS / HTTP/1.0\r\n\r\n" if httpchk else b"")


def test_nginx_logs_real_client(tmp_path, proxy):
    """nginx listening with proxy_protocol logs $proxy_protocol_addr: the client's address
    (127.0.0.2 here), not the proxy's."""
    import conftest
    procs = []
    try:
        root = tmp_path / "ngx"
        root.mkdir()
        log = root / "pp_access.log"
        nport = conftest.nginx_launch(root, procs, """
    log_format pp '$proxy_protocol_addr:$proxy_protocol_port $remote_addr "$request" $status';
    server {
        listen 127.0.0.1:@PORT@ proxy_protocol;
        access_log %s pp;
        location / { return 200 "hi\\n"; }
    }""" % log)
        for opts in ("send-proxy", "send-proxy-v2"):
            port = free_port()
            p = proxy(cfg(port, nport, opts), ports=[port], name="h-" + opts)
            s = socket.socket()
            s.settimeout(5)
            s.bind(("127.0.0.2", 0))
            s.connect(("127.0.0.1", port))
            me = s.getsockname()
            try:
                s.sendall(REQ % (opts.encode(), b"Connection: close\r\n"))
                r = read_response(Reader(s))
            finally:
                s.close()
            assert r.status == 200 and r.body == b"hi\n"
            want = '127.0.0.2:%d 127.0.0.1 "GET /%s HTTP/1.1" 200' % (me[1], opts)
            deadline, lines = time.monotonic() + 5, []
            while time.monotonic() < deadline:
                lines = log.read_text().splitlines() if log.exists() else []
                if want in lines:
                    break
                time.sleep(0.05)
            assert want in lines, lines
            p.stop()
    finally:
        for pr in procs:
            conftest.stop_pid_proc(pr)
