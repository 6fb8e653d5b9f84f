"""TLS core as users see it: a TLS bind answering, the global TLS options seen by a client
(protocol range, tickets, ciphers, DH parameters, record size, crt-base/ca-base, extra
files), config errors naming file:line, handshake timeouts, close_notify, large bodies
through TLS on both sides, and pipelined keep-alive requests over TLS.

Owns: the behaviour of src/ssl/ssl_sock.c, ssl_ctx.c, ssl_opts.c, ssl_cert.c,
ssl_bind_cfg.c and ssl_global_cfg.c that a client, a config author or a log reader sees.
Certificates are made once per module with the openssl command.
"""

import hashlib
import re
import ssl
import subprocess
import time

import httpc
import pytest
from backend import ConnClosed, Reader, pattern_sha256
from conftest import free_port, make_cfg, run_haproxy

S_CLIENT_TIMEOUT = 10


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    """A directory with: site.pem (cert+key, CN site.test), split.pem + split.pem.key,
    mismatch.pem (site's cert with another key), ca.pem, client.pem (signed by ca.pem),
    ffdhe3072.pem (DH parameters)."""
    d = tmp_path_factory.mktemp("certs")

    def sh(*args):
        subprocess.run(args, cwd=d, check=True, capture_output=True, timeout=60)

    for name, cn in (("site", "site.test"), ("other", "other.test"), ("ca", "Test CA")):
        sh("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30",
           "-keyout", name + ".key", "-out", name + ".crt", "-subj", "/CN=" + cn)
    sh("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "client.key",
       "-out", "client.csr", "-subj", "/CN=client")
    sh("openssl", "x509", "-req", "-in", "client.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
       "-CAcreateserial", "-days", "30", "-out", "client.crt")
    sh("openssl", "genpkey", "-genparam", "-algorithm", "DH", "-pkeyopt", "group:ffdhe3072",
       "-out", "ffdhe3072.pem")
    rd = lambda n: (d / n).read_bytes()  # noqa: E731
    (d / "site.pem").write_bytes(rd("site.crt") + rd("site.key"))
    (d / "split.pem").write_bytes(rd("site.crt"))
    (d / "split.pem.key").write_bytes(rd("site.key"))
    (d / "mismatch.pem").write_bytes(rd("site.crt") + rd("other.key"))
    (d / "ca.pem").write_bytes(rd("ca.crt"))
    (d / "client.pem").write_bytes(rd("client.crt") + rd("client.key"))
    return d


def tls_ctx():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


def tls_connect(port, timeout=10, ctx=None, ragged=True):
    raw = httpc.connect(port, timeout)
    return (ctx or tls_ctx()).wrap_socket(raw, server_hostname="site.test",
                                          suppress_ragged_eofs=ragged)


def s_client(port, *args, data=b""):
    """openssl s_client's combined output for one connection (stdin: data, then EOF)."""
    p = subprocess.run(["openssl", "s_client", "-connect", "127.0.0.1:%d" % port,
                        "-servername", "site.test"] + list(args),
                       input=data, capture_output=True, timeout=S_CLIENT_TIMEOUT)
    return (p.stdout + p.stderr).decode("latin-1")


def tls_cfg(port, backend, certs, glob=(), bind_opts="", listen=(), defaults=()):
    cfg = make_cfg(port, [backend], glob=glob, defaults=defaults, listen=listen)
    return cfg.replace("bind 127.0.0.1:%d" % port,
                       "bind 127.0.0.1:%d ssl crt %s %s" % (port, certs / "site.pem", bind_opts))


def https_get(port, path="/", ctx=None):
    with tls_connect(port, ctx=ctx) as s:
        s.sendall(("GET %s HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n" % path).encode())
        return httpc.read_response(Reader(s))


def check_error(tmp_path, cfg, *needles):
    """`-c` on cfg fails; its stderr names the file:line and every needle."""
    path = tmp_path / "t.cfg"
    path.write_text(cfg)
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode != 0, r.stderr
    for n in needles:
        assert n in r.stderr, r.stderr
    return r.stderr


# ---- a TLS bind answering ----

def test_tls_bind_answers(proxy, backend, port, certs):
    proxy(tls_cfg(port, backend, certs), ports=[port])
    r = https_get(port, "/x")
    assert r.status == 200
    assert r.body == b"hello from s1\n"
    assert backend.requests[-1].path == "/x"
    # the certificate served is the one of "crt"
    out = s_client(port, "-showcerts")
    assert "CN = site.test" in out or "CN=site.test" in out


def test_plain_client_on_tls_bind_gets_nothing_http(proxy, backend, port, certs):
    proxy(tls_cfg(port, backend, certs), ports=[port])
    with httpc.connect(port, timeout=5) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        data, closed = httpc.recv_until_close(s, 4)
    assert closed
    assert b"HTTP/1." not in data
    assert len(backend.requests) == 0


# ---- global options, as openssl s_client sees them ----

def test_default_bind_options_min_ver_and_no_tickets(proxy, backend, port, certs):
    proxy(tls_cfg(port, backend, certs, bind_opts="ciphers DEFAULT@SECLEVEL=0",
                  glob=["ssl-default-bind-options ssl-min-ver TLSv1.2 no-tls-tickets"]),
          ports=[port])
    out = s_client(port, "-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0")
    assert "Cipher is (NONE)" in out, out  # refused by the server (see the next test)
    out = s_client(port, "-tls1_2")
    assert "Protocol  : TLSv1.2" in out or "TLSv1.2" in out
    assert "Cipher is " in out and "Cipher is (NONE)" not in out
    assert "TLS session ticket lifetime hint" not in out


@pytest.mark.parametrize("minver,old_ok", [("TLSv1.0", True), ("TLSv1.3", False)])
def test_default_bind_min_ver(proxy, backend, port, certs, minver, old_ok):
    # a client limited to TLS 1.1 / 1.2; both sides at security level 0, where OpenSSL 3
    # still allows TLS 1.1
    proxy(tls_cfg(port, backend, certs, bind_opts="ciphers DEFAULT@SECLEVEL=0",
                  glob=["ssl-default-bind-options ssl-min-ver " + minver]), ports=[port])
    flag = "-tls1_1" if old_ok else "-tls1_2"
    out = s_client(port, flag, "-cipher", "DEFAULT@SECLEVEL=0")
    assert ("Cipher is (NONE)" not in out) == old_ok, out


def test_bind_ssl_max_ver(proxy, backend, port, certs):
    proxy(tls_cfg(port, backend, certs, bind_opts="ssl-max-ver TLSv1.2"), ports=[port])
    out = s_client(port)
    assert "TLSv1.2" in out and "Cipher is ECDHE" in out, out


def test_tickets_by_default(proxy, backend, port, certs):
    proxy(tls_cfg(port, backend, certs), ports=[port])
    out = s_client(port, "-tls1_2")
    assert "TLS session ticket lifetime hint" in out


def test_default_bind_ciphers(proxy, backend, port, certs):
    proxy(tls_cfg(port, backend, certs,
                  glob=["ssl-default-bind-ciphers ECDHE-RSA-AES128-GCM-SHA256",
                        "ssl-default-bind-ciphersuites TLS_CHACHA20_POLY1305_SHA256"]),
          ports=[port])
    out = s_client(port, "-tls1_2")
    assert "Cipher is ECDHE-RSA-AES128-GCM-SHA256" in out, out
    out = s_client(port, "-tls1_3")
    assert "Cipher is TLS_CHACHA20_POLY1305_SHA256" in out, out
    # a client that offers none of them is refused
    out = s_client(port, "-tls1_2", "-cipher", "ECDHE-RSA-AES256-GCM-SHA384")
    assert "Cipher is (NONE)" in out or "handshake failure" in out, out


def test_bind_ciphers_override_default(proxy, backend, port, certs):
    proxy(tls_cfg(port, backend, certs, bind_opts="ciphers ECDHE-RSA-AES256-GCM-SHA384",
                  glob=["ssl-default-bind-ciphers ECDHE-RSA-AES128-GCM-SHA256"]),
          ports=[port])
    out = s_client(port, "-tls1_2")
    assert "Cipher is ECDHE-RSA-AES256-GCM-SHA384" in out, out


def test_default_dh_param(proxy, backend, port, certs):
    proxy(tls_cfg(port, backend, certs, bind_opts="ciphers DHE-RSA-AES128-GCM-SHA256",
                  glob=["tune.ssl.default-dh-param 2048"]),
          ports=[port])
    out = s_client(port, "-tls1_2", "-cipher", "DHE-RSA-AES128-GCM-SHA256")
    assert "Cipher is DHE-RSA-AES128-GCM-SHA256" in out, out
    assert re.search(r"Server Temp Key: DH, 2048 bits", out), out


def test_dh_param_file(proxy, backend, port, certs):
    proxy(tls_cfg(port, backend, certs, bind_opts="ciphers DHE-RSA-AES128-GCM-SHA256",
                  glob=["ssl-dh-param-file %s" % (certs / "ffdhe3072.pem")]),
          ports=[port])
    out = s_client(port, "-tls1_2", "-cipher", "DHE-RSA-AES128-GCM-SHA256")
    assert re.search(r"Server Temp Key: DH, 3072 bits", out), out


def record_lengths(out):
    """Lengths of the application data records s_client -msg shows as received."""
    lens = []
    for m in re.finditer(r"<<< \S+ \S*\s*\[length (\w+)\]", out):
        lens.append(int(m.group(1), 16))
    return lens


def test_maxrecord(proxy, backend, port, certs):
    req = b"GET /?size=20000 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
    proxy(tls_cfg(port, backend, certs, glob=["tune.ssl.maxrecord 2000"]), ports=[port])
    out = s_client(port, "-tls1_2", "-msg", "-ign_eof", data=req)
    # -msg prints each record header: 5 bytes "17 03 03 LL LL" for application data
    hdrs = re.findall(r"\n\s*17 03 03 ([0-9a-f]{2}) ([0-9a-f]{2})", out)
    sizes = [int(a + b, 16) for a, b in hdrs]
    assert "HTTP/1.1 200" in out
    assert sizes, out[-2000:]
    # each record carries at most 2000 bytes (plus its MAC/tag and IV)
    assert max(sizes) <= 2000 + 64, sizes
    assert sum(sizes) >= 20000


def test_crt_base_and_ca_base(proxy, backend, port, certs):
    cfg = make_cfg(port, [backend], glob=["crt-base %s" % certs, "ca-base %s" % certs])
    cfg = cfg.replace("bind 127.0.0.1:%d" % port,
                      "bind 127.0.0.1:%d ssl crt site.pem ca-file ca.pem verify required" % port)
    proxy(cfg, ports=[port])
    # a client certificate signed by ca.pem is accepted, none is refused
    ctx = tls_ctx()
    ctx.load_cert_chain(str(certs / "client.pem"))
    r = https_get(port, "/", ctx=ctx)
    assert r.status == 200
    try:
        got = https_get(port, "/").status
    except (ssl.SSLError, OSError, ConnClosed):
        got = None
    assert got is None


def test_load_extra_files_key(proxy, backend, port, certs):
    cfg = make_cfg(port, [backend])
    cfg = cfg.replace("bind 127.0.0.1:%d" % port,
                      "bind 127.0.0.1:%d ssl crt %s" % (port, certs / "split.pem"))
    proxy(cfg, ports=[port])
    assert https_get(port).status == 200


def test_load_extra_files_none(tmp_path, certs):
    cfg = make_cfg(80, [], glob=["ssl-load-extra-files none"])
    cfg = cfg.replace("bind 127.0.0.1:80", "bind 127.0.0.1:80 ssl crt %s" % (certs / "split.pem"))
    check_error(tmp_path, cfg, "[%s:" % (tmp_path / "t.cfg"), "No Private Key found in '%s'"
                % (certs / "split.pem"))


def test_ssl_engine_refused(tmp_path):
    cfg = make_cfg(80, [], glob=["ssl-engine rdrand"])
    check_error(tmp_path, cfg, "[%s:2]" % (tmp_path / "t.cfg"), "ssl-engine")


# ---- config errors naming file:line ----

BIND_LINE = 9  # the bind line of make_cfg with one global line


def bind_cfg(opts, glob=("maxconn 100",)):
    cfg = make_cfg(80, [], glob=list(glob))
    return cfg.replace("bind 127.0.0.1:80", "bind 127.0.0.1:80 " + opts)


def test_error_key_mismatch(tmp_path, certs):
    check_error(tmp_path, bind_cfg("ssl crt %s" % (certs / "mismatch.pem")),
                "[%s:%d]" % (tmp_path / "t.cfg", BIND_LINE),
                "inconsistencies between private key and certificate loaded")


def test_error_missing_file(tmp_path, certs):
    check_error(tmp_path, bind_cfg("ssl crt %s" % (certs / "nope.pem")),
                "[%s:%d]" % (tmp_path / "t.cfg", BIND_LINE),
                "unable to stat SSL certificate from file '%s'" % (certs / "nope.pem"))


def test_error_bad_version(tmp_path, certs):
    check_error(tmp_path, bind_cfg("ssl crt %s ssl-min-ver TLSv1.9" % (certs / "site.pem")),
                "[%s:%d]" % (tmp_path / "t.cfg", BIND_LINE),
                "'TLSv1.9' : unknown ssl/tls version")


def test_error_unknown_cipher(tmp_path, certs):
    err = check_error(tmp_path, bind_cfg("ssl crt %s ciphers FOO-BAR" % (certs / "site.pem")),
                      "[%s:%d]" % (tmp_path / "t.cfg", BIND_LINE),
                      "unable to set SSL cipher list to 'FOO-BAR'")
    assert "config : config" not in err
    check_error(tmp_path, bind_cfg("ssl crt %s ciphersuites FOO" % (certs / "site.pem")),
                "[%s:%d]" % (tmp_path / "t.cfg", BIND_LINE),
                "unable to set TLS 1.3 cipher suites to 'FOO'")


def test_error_verify_without_ca_file(tmp_path, certs):
    check_error(tmp_path, bind_cfg("ssl crt %s verify required" % (certs / "site.pem")),
                "[%s:%d]" % (tmp_path / "t.cfg", BIND_LINE),
                "verify is enabled but no CA file specified")


def test_error_ssl_without_crt(tmp_path):
    check_error(tmp_path, bind_cfg("ssl"), "[%s:%d]" % (tmp_path / "t.cfg", BIND_LINE),
                "no SSL certificate specified for bind '127.0.0.1:80'")


# ---- handshake timeouts ----

def closed_within(port, limit):
    """Seconds until the proxy closes a connection that never sends a byte."""
    with httpc.connect(port, timeout=limit + 3) as s:
        t0 = time.monotonic()
        _, closed = httpc.recv_until_close(s, limit + 2)
        return time.monotonic() - t0 if closed else None


@pytest.mark.ours
def test_timeout_client_hs(proxy, backend, port, certs):
    # "timeout client-hs" (HAProxy 2.7+) bounds the handshake, not the request
    proxy(tls_cfg(port, backend, certs, defaults=["timeout client-hs 1s"]), ports=[port])
    t = closed_within(port, 4)
    assert t is not None and 0.7 <= t < 3.5, t
    # once the handshake is done, timeout client (30s) applies: still open after 1.5 s
    with tls_connect(port) as s:
        time.sleep(1.5)
        s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        assert httpc.read_response(Reader(s)).status == 200


def test_handshake_timeout_falls_back_to_timeout_client(proxy, backend, port, certs):
    proxy(tls_cfg(port, backend, certs, defaults=["timeout client 1s"]), ports=[port])
    t = closed_within(port, 4)
    assert t is not None and 0.7 <= t < 3.5, t


# ---- close_notify, large bodies, pipelining ----

def test_close_notify_on_close(proxy, backend, port, certs):
    proxy(tls_cfg(port, backend, certs), ports=[port])
    s = tls_connect(port, ragged=False)
    try:
        s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        data = b""
        for _ in range(100):
            chunk = s.recv(65536)  # raises SSLEOFError on a close without close_notify
            if not chunk:
                break
            data += chunk
        assert data.startswith(b"HTTP/1.1 200")
    finally:
        s.close()


def test_close_notify_seen_by_s_client(proxy, backend, port, certs):
    proxy(tls_cfg(port, backend, certs), ports=[port])
    req = b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
    out = s_client(port, "-ign_eof", "-msg", data=req)
    assert "HTTP/1.1 200" in out
    # the alert record: level warning (1), close_notify (0)
    assert re.search(r"<<< .*Alert \[length 0002\], warning close_notify\s*\n\s*01 00", out), \
        out[-1500:]


def two_level_cfg(port, inner, backend, certs):
    """Front TLS on <port> to the proxy's own TLS frontend on <inner>, then the backend."""
    pem = certs / "site.pem"
    return "\n".join([
        "global", "defaults", "    mode http", "    timeout connect 2s",
        "    timeout client 30s", "    timeout server 30s",
        "listen front", "    bind 127.0.0.1:%d ssl crt %s" % (port, pem),
        "    server inner 127.0.0.1:%d ssl verify none" % inner,
        "listen inner", "    bind 127.0.0.1:%d ssl crt %s" % (inner, pem),
        "    server s1 127.0.0.1:%d" % backend.port, ""])


def test_large_bodies_both_ways_tls_front_and_back(proxy, backend, port, certs):
    inner = free_port()
    proxy(two_level_cfg(port, inner, backend, certs), ports=[port, inner])
    n = 5 * 1024 * 1024
    body = (bytes(range(256)) * (n // 256 + 1))[:n]
    with tls_connect(port, timeout=60) as s:
        s.sendall(b"POST /?echo=1 HTTP/1.1\r\nHost: t\r\nContent-Length: %d\r\n\r\n" % n)
        s.sendall(body)
        r = httpc.read_response(Reader(s))
        assert r.status == 200
        assert r.header("X-Body-Len") == str(n)
        assert r.header("X-Body-Sha256") == hashlib.sha256(body).hexdigest()
        assert len(r.body) == n and r.body == body
        # and a 5 MB download on the same connection
        s.sendall(b"GET /?size=%d HTTP/1.1\r\nHost: t\r\n\r\n" % n)
        h = hashlib.sha256()
        r = httpc.read_response(Reader(s), sink=h.update)
        assert r.status == 200 and r.body_len == n
        assert h.hexdigest() == pattern_sha256(n)


def test_pipelined_keepalive_over_tls(proxy, backend, port, certs):
    proxy(tls_cfg(port, backend, certs), ports=[port])
    with tls_connect(port) as s:
        s.sendall(b"".join(b"GET /p%d HTTP/1.1\r\nHost: t\r\n\r\n" % i for i in range(5)))
        rd = Reader(s)
        rs = [httpc.read_response(rd) for _ in range(5)]
        assert [r.status for r in rs] == [200] * 5
        # one server connection carried them, in order
        assert len({r.header("X-Conn") for r in rs}) == 1
        idx = [int(r.header("X-Req-Index")) for r in rs]
        assert idx == list(range(idx[0], idx[0] + 5))
        s.sendall(b"GET /last HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        assert httpc.read_response(rd).status == 200
    assert [q.path for q in backend.requests] == ["/p0", "/p1", "/p2", "/p3", "/p4", "/last"]


def test_sni_picks_the_certificate(proxy, backend, port, certs):
    cfg = make_cfg(port, [backend])
    other = certs / "other.pem"
    other.write_bytes((certs / "other.crt").read_bytes() + (certs / "other.key").read_bytes())
    cfg = cfg.replace("bind 127.0.0.1:%d" % port, "bind 127.0.0.1:%d ssl crt %s crt %s"
                      % (port, certs / "site.pem", other))
    proxy(cfg, ports=[port])
    out = subprocess.run(["openssl", "s_client", "-connect", "127.0.0.1:%d" % port,
                          "-servername", "other.test"], input=b"", capture_output=True,
                         timeout=S_CLIENT_TIMEOUT).stdout.decode()
    assert "CN = other.test" in out or "CN=other.test" in out
    out = subprocess.run(["openssl", "s_client", "-connect", "127.0.0.1:%d" % port,
                          "-servername", "unknown.test"], input=b"", capture_output=True,
                         timeout=S_CLIENT_TIMEOUT).stdout.decode()
    assert "CN = site.test" in out or "CN=site.test" in out  # the first is the default


def test_strict_sni(proxy, backend, port, certs):
    cfg = make_cfg(port, [backend])
    cfg = cfg.replace("bind 127.0.0.1:%d" % port, "bind 127.0.0.1:%d ssl crt %s strict-sni"
                      % (port, certs / "site.pem"))
    proxy(cfg, ports=[port])
    assert https_get(port).status == 200  # tls_connect names site.test
    out = s_client(port, "-servername", "unknown.test")
    assert "Cipher is (NONE)" in out or "unrecognized name" in out, out


# ---- writes larger than a record, session rules ----

def test_local_reply_larger_than_records(proxy, backend, port, certs, tmp_path):
    """A reply the proxy writes itself (http-request return file) of 8000 bytes with
    1024-byte records: every record leaves at once, the client gets it all quickly."""
    body = tmp_path / "body.txt"
    body.write_bytes(b"x" * 8000)
    cfg = tls_cfg(port, backend, certs, glob=["tune.ssl.maxrecord 1024"],
                  listen=["http-request return status 200 content-type text/plain "
                          "file %s" % body])
    proxy(cfg, ports=[port])
    t0 = time.monotonic()
    r = https_get(port)
    assert r.status == 200 and r.body == b"x" * 8000
    assert time.monotonic() - t0 < 3  # the client timeout is 5 s or more


def test_session_rules_run_after_the_handshake(proxy, backend, port, certs):
    """tcp-request session rules see the TLS layer (ssl_fc, ssl_fc_sni), as in 2.6;
    connection rules run before the handshake, with ssl_fc already true."""
    cfg = tls_cfg(port, backend, certs,
                  listen=["tcp-request connection reject unless { ssl_fc }",
                          "tcp-request session reject unless { ssl_fc_sni site.test }"])
    proxy(cfg, ports=[port])
    assert https_get(port).status == 200
    ctx = tls_ctx()
    raw = httpc.connect(port, 5)
    s = ctx.wrap_socket(raw, server_hostname=None)  # no SNI: the session rule refuses
    try:
        s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        assert s.recv(100) == b""
    except (ssl.SSLError, OSError):
        pass
    finally:
        s.close()
