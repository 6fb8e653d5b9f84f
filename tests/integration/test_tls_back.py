"""TLS to servers (`server ... ssl`), against Debian's nginx serving TLS with a test
certificate.

Owns: `ssl verify none`; `verify required ca-file` succeeding and failing (503) with the
wrong CA or a name that does not match (verifyhost); `sni str()` / `sni req.hdr(host)` as
nginx sees them ($ssl_server_name); TLS session reuse towards the server and
`no-ssl-reuse`; ssl-min-ver/ssl-max-ver towards the server; `check-ssl` health checks (UP in
`show servers state`) and `check-sni`; the ssl_bc, ssl_bc_protocol, ssl_bc_cipher fetches.
Expectations were taken from Debian's /usr/sbin/haproxy 2.6.
"""

import time

import pytest
from conftest import cli, free_port, nginx_launch, stop_pid_proc
from httpc import get, request

NGX_BODY = ("sni=$ssl_server_name reused=$ssl_session_reused proto=$ssl_protocol "
            "cipher=$ssl_cipher host=$host\\n")


@pytest.fixture
def nginx_tls(tmp_path, pki):
    """Factory: nginx_tls(extra_server_lines="") -> (port, root) of a foreground nginx
    serving TLS with pki's srv certificate (CN srv.test, SAN a.test and 127.0.0.1); its
    access log (root/access.log) records the SNI and the session reuse flag."""
    procs = []

    def start(extra=""):
        root = tmp_path / ("ngxtls%d" % len(procs))
        p = nginx_launch(root, procs, f"""
    default_type text/plain;
    server {{
        listen 127.0.0.1:@PORT@ ssl;
        ssl_certificate {pki.p("srv.crt")};
        ssl_certificate_key {pki.p("srv.key")};
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache builtin:1000;
        keepalive_timeout 30s;
        {extra}
        location / {{
            add_header X-Ngx-SNI "$ssl_server_name" always;
            add_header X-Ngx-Reused "$ssl_session_reused" always;
            return 200 "{NGX_BODY}";
        }}
    }}""", log=f"""log_format tls '$request_uri sni=$ssl_server_name reused=$ssl_session_reused '
                   'proto=$ssl_protocol';
    access_log {root}/access.log tls;""")
        return p, root

    try:
        yield start
    finally:
        for proc in procs:
            stop_pid_proc(proc)


def cfg(port, srv_port, srv_opts, be=(), fe=(), glob=()):
    lines = ["global"] + ["    " + g for g in glob]
    lines += ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 5s",
              "    timeout server 5s",
              # a failed TLS connection to a server gives its 503 at once, not after
              # three retries a second apart
              "    retries 0",
              "frontend fe", "    bind 127.0.0.1:%d" % port]
    lines += ["    " + f for f in fe]
    lines += ["    default_backend be", "backend be"] + ["    " + b for b in be]
    lines += ["    server s1 127.0.0.1:%d %s" % (srv_port, srv_opts)]
    return "\n".join(lines) + "\n"


def body_fields(r):
    return dict(kv.split("=", 1) for kv in r.body.decode().split())


def test_ssl_verify_none(proxy, nginx_tls, port):
    np, _ = nginx_tls()
    proxy(cfg(port, np, "ssl verify none"), ports=[port])
    r = get(port, "/x")
    assert r.status == 200, r
    f = body_fields(r)
    assert f["proto"] in ("TLSv1.2", "TLSv1.3")
    assert f["sni"] == ""  # no SNI sent without `sni`


def test_verify_required_good_ca(proxy, nginx_tls, port, pki):
    np, _ = nginx_tls()
    proxy(cfg(port, np, "ssl verify required ca-file %s" % pki.p("ca.crt")), ports=[port])
    assert get(port, "/").status == 200


def test_verify_required_wrong_ca(proxy, nginx_tls, port, pki):
    np, _ = nginx_tls()
    proxy(cfg(port, np, "ssl verify required ca-file %s" % pki.p("ca2.crt")), ports=[port])
    r = get(port, "/")
    assert r.status == 503, r


def test_verifyhost(proxy, nginx_tls, port, pki):
    np, _ = nginx_tls()
    ok = free_port()
    c = cfg(port, np, "ssl verify required ca-file %s verifyhost nomatch.test" % pki.p("ca.crt"))
    c += ("listen ok\n    bind 127.0.0.1:%d\n    server s2 127.0.0.1:%d ssl verify required "
          "ca-file %s verifyhost srv.test\n" % (ok, np, pki.p("ca.crt")))
    proxy(c, ports=[port, ok])
    assert get(port, "/").status == 503
    assert get(ok, "/").status == 200


def test_global_ssl_server_verify_none(proxy, nginx_tls, port, pki):
    """ssl-server-verify none: `ssl` servers with no verify are not checked at all (the
    default would be `verify required`, refused at startup without a ca-file)."""
    np, _ = nginx_tls()
    proxy(cfg(port, np, "ssl ca-file %s" % pki.p("ca2.crt"),
              glob=["ssl-server-verify none"]), ports=[port])
    assert get(port, "/").status == 200


def test_sni_str(proxy, nginx_tls, port, pki):
    np, _ = nginx_tls()
    proxy(cfg(port, np, "ssl verify required ca-file %s sni str(a.test)" % pki.p("ca.crt")),
          ports=[port])
    r = get(port, "/")
    assert r.status == 200, r
    assert r.header("X-Ngx-SNI") == "a.test"


def test_sni_from_host_header(proxy, nginx_tls, port):
    np, _ = nginx_tls()
    proxy(cfg(port, np, "ssl verify none sni req.hdr(host)"), ports=[port])
    for name in ("b.test", "c.test"):
        r = request(port, ("GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
                           % name).encode())
        assert r.status == 200
        assert r.header("X-Ngx-SNI") == name


def reused_flags(port, n=3):
    out = []
    for _ in range(n):
        r = get(port, "/")
        assert r.status == 200, r
        out.append(r.header("X-Ngx-Reused"))
    return out


@pytest.mark.parametrize("ver", ["TLSv1.2", "TLSv1.3"])
def test_session_reuse_to_server(proxy, nginx_tls, port, ver):
    np, _ = nginx_tls()
    # one thread: HAProxy keeps the server's last session per thread
    proxy(cfg(port, np, "ssl verify none ssl-min-ver %s ssl-max-ver %s" % (ver, ver),
              be=["http-reuse never"], glob=["nbthread 1"]), ports=[port])
    flags = reused_flags(port)
    assert flags[0] == "."
    assert flags[1:] == ["r", "r"], flags


def test_no_ssl_reuse(proxy, nginx_tls, port):
    np, _ = nginx_tls()
    proxy(cfg(port, np, "ssl verify none no-ssl-reuse", be=["http-reuse never"],
              glob=["nbthread 1"]), ports=[port])
    assert reused_flags(port) == [".", ".", "."]


def test_server_protocol_bounds(proxy, nginx_tls, port):
    np, _ = nginx_tls()
    p2 = free_port()
    c = cfg(port, np, "ssl verify none ssl-max-ver TLSv1.2")
    c += "listen l2\n    bind 127.0.0.1:%d\n    server s2 127.0.0.1:%d ssl verify none " \
         "force-tlsv13\n" % (p2, np)
    proxy(c, ports=[port, p2])
    assert body_fields(get(port, "/"))["proto"] == "TLSv1.2"
    assert body_fields(get(p2, "/"))["proto"] == "TLSv1.3"


def test_server_ciphers(proxy, nginx_tls, port):
    np, _ = nginx_tls()
    proxy(cfg(port, np, "ssl verify none ssl-max-ver TLSv1.2 "
              "ciphers ECDHE-RSA-AES256-GCM-SHA384"), ports=[port])
    assert body_fields(get(port, "/"))["cipher"] == "ECDHE-RSA-AES256-GCM-SHA384"


def test_backend_fetches(proxy, nginx_tls, port):
    np, _ = nginx_tls()
    proxy(cfg(port, np, "ssl verify none ssl-max-ver TLSv1.2 "
              "ciphers ECDHE-RSA-AES128-GCM-SHA256",
              be=["http-response set-header X-BC %[ssl_bc]",
                  "http-response set-header X-BC-Proto %[ssl_bc_protocol]",
                  "http-response set-header X-BC-Cipher %[ssl_bc_cipher]",
                  "http-response set-header X-BC-Bits %[ssl_bc_use_keysize]",
                  "http-response set-header X-FC %[ssl_fc]"]), ports=[port])
    r = get(port, "/")
    assert r.status == 200
    assert (r.header("X-BC"), r.header("X-BC-Proto"), r.header("X-BC-Cipher"),
            r.header("X-BC-Bits"), r.header("X-FC")) == (
        "1", "TLSv1.2", "ECDHE-RSA-AES128-GCM-SHA256", "128", "0")


def test_backend_fetches_plain_server(proxy, backend, port):
    proxy(cfg(port, backend.port, "", be=["http-response set-header X-BC %[ssl_bc]",
                                          "http-response set-header X-BC-Proto "
                                          "%[ssl_bc_protocol]"]), ports=[port])
    r = get(port, "/")
    assert r.status == 200
    assert r.header("X-BC") == "0"
    assert r.header("X-BC-Proto") == ""


def servers_state(sock):
    """{server name: srv_op_state} from `show servers state be`."""
    out = cli(str(sock), "show servers state be")
    st = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) > 6 and f[0] != "#" and f[1] == "be":
            st[f[3]] = f[5]
    return st


def wait_state(sock, name, want, timeout=5.0):
    deadline = time.monotonic() + timeout
    st = None
    while time.monotonic() < deadline:
        st = servers_state(sock).get(name)
        if st == want:
            return True
        time.sleep(0.1)
    return st


def test_check_ssl(proxy, nginx_tls, port, tmp_path, pki):
    np, root = nginx_tls()
    sock = tmp_path / "stats.sock"
    c = cfg(port, np, "ssl verify none check check-ssl check-sni chk.test inter 200 rise 1 "
            "fall 1", be=["option httpchk GET /health"],
            glob=["stats socket %s level admin" % sock])
    proxy(c, ports=[port])
    # srv_op_state 2: running (UP)
    assert wait_state(sock, "s1", "2") is True
    log = ""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        log = (root / "access.log").read_text() if (root / "access.log").exists() else ""
        if "/health sni=chk.test" in log:
            break
        time.sleep(0.1)
    assert "/health sni=chk.test" in log, log


def test_check_ssl_plain_port_is_down(proxy, backend, port, tmp_path):
    """check-ssl against a plain HTTP server: the TLS check fails, the server goes DOWN."""
    sock = tmp_path / "stats.sock"
    c = cfg(port, backend.port, "check check-ssl verify none inter 200 rise 1 fall 1",
            glob=["stats socket %s level admin" % sock])
    proxy(c, ports=[port])
    assert wait_state(sock, "s1", "0") is True


def test_check_without_check_ssl_on_ssl_server(proxy, nginx_tls, port, tmp_path):
    """`ssl` on the server also makes its checks use TLS (check-ssl is implied)."""
    np, _ = nginx_tls()
    sock = tmp_path / "stats.sock"
    c = cfg(port, np, "ssl verify none check inter 200 rise 1 fall 1",
            be=["option httpchk GET /h"], glob=["stats socket %s level admin" % sock])
    proxy(c, ports=[port])
    assert wait_state(sock, "s1", "2") is True
