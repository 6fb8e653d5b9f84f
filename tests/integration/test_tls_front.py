"""TLS termination on `bind ... ssl`: what an HTTPS client sees.

Owns: HTTPS through a backend; protocol versions (ssl-min-ver, ssl-max-ver, no-tlsv13),
TLS 1.3 ciphersuites and 1.2 ciphers; SNI selection across three certificates and a
wildcard (the first crt is the default); `crt DIR`; strict-sni; the split .key file; an
ECDSA certificate; ALPN; `redirect scheme https` from a plain bind; resumption with tickets
and with the session cache (no-tls-tickets); the global ssl-default-bind-* settings,
crt-base/ca-base, tune.ssl.default-dh-param, ssl-server-verify; the ssl_fc* / ssl_f_*
fetches; `option httpslog`. Expectations were taken from Debian's /usr/sbin/haproxy 2.6.
"""

import os
import shutil
import ssl
import subprocess

import pytest
from conftest import free_port
from httpc import get
from tlsutil import https_get, s_client, SERIALS
from syslog_sink import Sink

GLOBAL = ["global"]
DEFAULTS = ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 5s",
            "    timeout server 5s"]


def tls_cfg(port, bind, backend=None, fe=(), glob=(), extra=""):
    """A frontend on 127.0.0.1:port with `bind ... BIND` (ssl options), fe lines, and a
    backend to the Backend fixture (or none)."""
    lines = GLOBAL + ["    " + g for g in glob] + DEFAULTS
    lines += ["frontend fe", "    bind 127.0.0.1:%d %s" % (port, bind)]
    lines += ["    " + f for f in fe]
    if backend is not None:
        lines += ["    default_backend be", "backend be",
                  "    server s1 127.0.0.1:%d" % backend.port]
    return "\n".join(lines) + "\n" + extra


def start(proxy, port, bind, backend=None, **kw):
    return proxy(tls_cfg(port, bind, backend, **kw), ports=[port])


def test_https_through_backend(proxy, backend, pki, port):
    start(proxy, port, "ssl crt %s" % pki.p("a.pem"), backend)
    r = https_get(port, "/x?hdr=X-T:1", sni="a.test", cafile=pki.p("ca.crt"))
    assert r.status == 200
    assert r.header("X-Server") == "s1"
    assert r.header("X-T") == "1"
    assert r.peer_cn == "a.test"
    assert backend.last().path == "/x"


def test_https_curl(proxy, backend, pki, port):
    start(proxy, port, "ssl crt %s" % pki.p("a.pem"), backend)
    r = subprocess.run(["curl", "-sS", "--max-time", "5", "--cacert", pki.p("ca.crt"),
                        "--resolve", "a.test:%d:127.0.0.1" % port, "-o", "-", "-w",
                        "\n%{http_code}", "https://a.test:%d/curl" % port],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 0, r.stderr
    assert r.stdout.rstrip().endswith("\n200")


def test_tls_versions_default(proxy, pki, port):
    start(proxy, port, "ssl crt %s" % pki.p("a.pem"), fe=["http-request return status 200"])
    assert s_client(port, "a.test", tls="1.3").protocol == "TLSv1.3"
    assert s_client(port, "a.test", tls="1.2").protocol == "TLSv1.2"
    assert s_client(port, "a.test").protocol == "TLSv1.3"


def test_ssl_max_ver_12(proxy, pki, port):
    start(proxy, port, "ssl crt %s ssl-max-ver TLSv1.2" % pki.p("a.pem"),
          fe=["http-request return status 200"])
    assert s_client(port, "a.test").protocol == "TLSv1.2"
    r = s_client(port, "a.test", tls="1.3")
    assert r.refused, r


def test_no_tlsv13(proxy, pki, port):
    start(proxy, port, "ssl crt %s no-tlsv13" % pki.p("a.pem"),
          fe=["http-request return status 200"])
    assert s_client(port, "a.test").protocol == "TLSv1.2"
    assert s_client(port, "a.test", tls="1.3").refused


def test_ssl_min_ver_13(proxy, pki, port):
    start(proxy, port, "ssl crt %s ssl-min-ver TLSv1.3" % pki.p("a.pem"),
          fe=["http-request return status 200"])
    assert s_client(port, "a.test").protocol == "TLSv1.3"
    r = s_client(port, "a.test", tls="1.2")
    assert r.refused, r


def test_ciphersuites_tls13(proxy, pki, port):
    start(proxy, port, "ssl crt %s ciphersuites TLS_AES_256_GCM_SHA384" % pki.p("a.pem"),
          fe=["http-request return status 200"])
    r = s_client(port, "a.test", tls="1.3")
    assert r.cipher == "TLS_AES_256_GCM_SHA384", r
    # a client offering only another suite is refused
    r = s_client(port, "a.test", tls="1.3", ciphersuites="TLS_AES_128_GCM_SHA256")
    assert r.refused, r


def test_ciphers_tls12(proxy, pki, port):
    start(proxy, port, "ssl crt %s ciphers ECDHE-RSA-AES128-GCM-SHA256" % pki.p("a.pem"),
          fe=["http-request return status 200"])
    r = s_client(port, "a.test", tls="1.2")
    assert r.cipher == "ECDHE-RSA-AES128-GCM-SHA256", r
    r = s_client(port, "a.test", tls="1.2", cipher="ECDHE-RSA-AES256-GCM-SHA384")
    assert r.refused, r


def sni_bind(pki):
    return "ssl crt %s crt %s crt %s crt %s" % (pki.p("a.pem"), pki.p("b.pem"), pki.p("c.pem"),
                                                pki.p("wild.pem"))


def test_sni_selection(proxy, pki, port):
    start(proxy, port, sni_bind(pki), fe=["http-request return status 200"])
    for name, cn in (("a.test", "a.test"), ("b.test", "b.test"), ("c.test", "c.test"),
                     ("x.wild.test", "*.wild.test"), ("y.wild.test", "*.wild.test"),
                     ("B.TEST", "b.test")):
        r = s_client(port, name)
        assert r.cn == cn, (name, r)
    # the first crt is the default: no SNI, an unknown name, a name two levels below the
    # wildcard
    assert s_client(port, None).cn == "a.test"
    assert s_client(port, "unknown.test").cn == "a.test"
    assert s_client(port, "a.b.wild.test").cn == "a.test"


def test_sni_default_is_first_crt(proxy, pki, port):
    start(proxy, port, "ssl crt %s crt %s" % (pki.p("c.pem"), pki.p("a.pem")),
          fe=["http-request return status 200"])
    assert s_client(port, None).cn == "c.test"
    assert s_client(port, "nope.test").cn == "c.test"
    assert s_client(port, "a.test").cn == "a.test"


def test_crt_directory(proxy, pki, port, tmp_path):
    d = tmp_path / "certs"
    d.mkdir()
    for n in ("a", "b", "c"):
        shutil.copy(pki.p(n + ".pem"), str(d / (n + ".pem")))
    start(proxy, port, "ssl crt %s" % d, fe=["http-request return status 200"])
    for name in ("a.test", "b.test", "c.test"):
        assert s_client(port, name).cn == name


def test_strict_sni(proxy, pki, port):
    start(proxy, port, "ssl strict-sni crt %s crt %s" % (pki.p("a.pem"), pki.p("b.pem")),
          fe=["http-request return status 200"])
    assert s_client(port, "b.test").cn == "b.test"
    assert s_client(port, "a.test").cn == "a.test"
    r = s_client(port, "unknown.test")
    assert r.refused, r
    r = s_client(port, None)
    assert r.refused, r


def test_split_key_file(proxy, backend, pki, port):
    start(proxy, port, "ssl crt %s" % pki.p("split/b.pem"), backend)
    r = https_get(port, "/", sni="b.test", cafile=pki.p("ca.crt"))
    assert r.status == 200 and r.peer_cn == "b.test"


def test_ecdsa_certificate(proxy, backend, pki, port):
    start(proxy, port, "ssl crt %s" % pki.p("ec.pem"), backend)
    r = s_client(port, "ec.test", tls="1.2")
    assert r.cn == "ec.test" and "ECDSA" in r.cipher, r
    r = https_get(port, "/", sni="ec.test", cafile=pki.p("ca.crt"))
    assert r.status == 200 and r.peer_cn == "ec.test"


def test_alpn(proxy, pki, port):
    start(proxy, port, "ssl crt %s alpn h2,http/1.1" % pki.p("a.pem"),
          fe=["http-request return status 200 content-type text/plain "
              "lf-string \"alpn=%[ssl_fc_alpn]\""])
    r = s_client(port, "a.test", alpn="http/1.1")
    assert r.alpn == "http/1.1", r
    assert "alpn=http/1.1" in r.http_body
    r = s_client(port, "a.test", alpn="h2", request=b"")
    assert r.alpn == "h2", r
    r = s_client(port, "a.test")
    assert r.alpn is None and "No ALPN negotiated" in r.out
    r = https_get(port, "/", sni="a.test", alpn=["spdy/1", "http/1.1"])
    assert r.alpn == "http/1.1" and r.body == b"alpn=http/1.1"


def test_redirect_to_https(proxy, backend, pki, port):
    plain = free_port()
    cfg = tls_cfg(port, "ssl crt %s" % pki.p("a.pem"), backend,
                  fe=["bind 127.0.0.1:%d" % plain,
                      "redirect scheme https code 301 if !{ ssl_fc }"])
    proxy(cfg, ports=[port, plain])
    r = get(plain, "/p?q=1", headers=())
    assert r.status == 301
    assert r.header("Location") == "https://test/p?q=1"
    r = https_get(port, "/p", sni="a.test")
    assert r.status == 200 and r.header("X-Server") == "s1"


@pytest.mark.parametrize("opts", ["", "no-tls-tickets"])
@pytest.mark.parametrize("tls", ["1.2", "1.3"])
def test_resumption(proxy, pki, port, tmp_path, opts, tls):
    start(proxy, port, "ssl crt %s %s" % (pki.p("a.pem"), opts),
          fe=["http-request return status 200 content-type text/plain "
              "lf-string \"resumed=%[ssl_fc_is_resumed]\""])
    sess = tmp_path / "sess.pem"
    r1 = s_client(port, "a.test", tls=tls, sess_out=sess)
    assert r1.handshake_ok and not r1.reused, r1
    assert "resumed=0" in r1.http_body
    r2 = s_client(port, "a.test", tls=tls, sess_in=sess)
    assert r2.reused, r2
    assert "resumed=1" in r2.http_body
    if opts == "no-tls-tickets" and tls == "1.2":
        # a session resumed from the cache: s_client got no ticket (TLS 1.3 always sends a
        # NewSessionTicket, stateful with no-tls-tickets)
        assert "TLS session ticket:" not in r1.out


def test_global_defaults(proxy, backend, pki, port, tmp_path):
    os.makedirs(tmp_path / "crts")
    shutil.copy(pki.p("a.pem"), str(tmp_path / "crts" / "a.pem"))
    os.makedirs(tmp_path / "cas")
    shutil.copy(pki.p("ca.crt"), str(tmp_path / "cas" / "ca.crt"))
    glob = ["ssl-default-bind-options ssl-min-ver TLSv1.2 no-tls-tickets",
            "ssl-default-bind-ciphers ECDHE-RSA-AES256-GCM-SHA384",
            "ssl-default-bind-ciphersuites TLS_CHACHA20_POLY1305_SHA256",
            "tune.ssl.default-dh-param 2048",
            "crt-base %s" % (tmp_path / "crts"),
            "ca-base %s" % (tmp_path / "cas"),
            "ssl-server-verify none"]
    start(proxy, port, "ssl crt a.pem ca-file ca.crt verify optional", backend, glob=glob,
          fe=["http-response set-header X-Proto %[ssl_fc_protocol]",
              "http-response set-header X-Cipher %[ssl_fc_cipher]"])
    r = s_client(port, "a.test", tls="1.3")
    assert r.cipher == "TLS_CHACHA20_POLY1305_SHA256", r
    r = s_client(port, "a.test", tls="1.2")
    assert r.cipher == "ECDHE-RSA-AES256-GCM-SHA384", r
    assert "TLS session ticket:" not in r.out
    r = s_client(port, "a.test", args=["-tls1_1"])
    assert r.refused
    r = https_get(port, "/", sni="a.test", cafile=pki.p("ca.crt"))
    assert r.status == 200
    assert r.header("X-Proto") == "TLSv1.3"
    assert r.header("X-Cipher") == "TLS_CHACHA20_POLY1305_SHA256"


FETCHES = ("fc=%[ssl_fc]|sni=%[ssl_fc_sni]|has_sni=%[ssl_fc_has_sni]|proto=%[ssl_fc_protocol]|"
           "cipher=%[ssl_fc_cipher]|keysize=%[ssl_fc_use_keysize]|alg=%[ssl_fc_alg_keysize]|"
           "alpn=%[ssl_fc_alpn]|resumed=%[ssl_fc_is_resumed]|sdn=%[ssl_f_s_dn]|"
           "idn=%[ssl_f_i_dn]|scn=%[ssl_f_s_dn(cn)]|sha1=%[ssl_f_sha1,hex]|"
           "serial=%[ssl_f_serial,hex]|version=%[ssl_f_version]|keyalg=%[ssl_f_key_alg]|"
           "sigalg=%[ssl_f_sig_alg]|hascrt=%[ssl_fc_has_crt]")


def fields(body):
    """key=value pairs separated by '|' (values may hold spaces)."""
    return dict(kv.split("=", 1) for kv in body.decode().split("|"))


def test_frontend_fetches(proxy, pki, port):
    plain = free_port()
    start(proxy, port, "ssl crt %s alpn h2,http/1.1" % pki.p("a.pem"),
          fe=["bind 127.0.0.1:%d" % plain,
              "http-request return status 200 content-type text/plain "
              "lf-string \"%s\"" % FETCHES])
    r = https_get(port, "/", sni="a.test", alpn=["http/1.1"], cafile=pki.p("ca.crt"))
    f = fields(r.body)
    assert f == {
        "fc": "1", "sni": "a.test", "has_sni": "1", "proto": "TLSv1.3",
        "cipher": r.cipher, "keysize": "256" if "256" in r.cipher else "128",
        "alg": f["keysize"], "alpn": "http/1.1", "resumed": "0",
        "sdn": "/C=FR/O=hapx/CN=a.test", "idn": "/O=hapx tests/CN=hapx test root CA",
        "scn": "a.test", "sha1": pki.sha1("a"), "serial": SERIALS["a"], "version": "3",
        "keyalg": "rsaEncryption", "sigalg": "RSA-SHA256", "hascrt": "0",
    }, r.body
    # TLS 1.2 with a chosen cipher, no SNI, no ALPN
    r = https_get(port, "/", maxv=ssl.TLSVersion.TLSv1_2,
                  ciphers="ECDHE-RSA-AES256-GCM-SHA384")
    f = fields(r.body)
    assert (f["proto"], f["cipher"], f["keysize"], f["sni"], f["has_sni"], f["alpn"]) == (
        "TLSv1.2", "ECDHE-RSA-AES256-GCM-SHA384", "256", "", "0", ""), r.body
    # on the plain bind, ssl_fc is 0 and the others are empty
    f = fields(get(plain, "/").body)
    assert f["fc"] == "0" and f["sni"] == "" and f["proto"] == "" and f["has_sni"] == "0"


def test_fetch_in_response_header(proxy, backend, pki, port):
    start(proxy, port, "ssl crt %s" % pki.p("a.pem"), backend,
          fe=["http-response set-header X-SSL %[ssl_fc]",
              "http-response set-header X-SNI %[ssl_fc_sni]",
              "http-request set-header X-Forwarded-Proto https if { ssl_fc }"])
    r = https_get(port, "/", sni="b.test")
    assert r.status == 200
    assert r.header("X-SSL") == "1" and r.header("X-SNI") == "b.test"
    assert backend.last().header("X-Forwarded-Proto") == "https"


def test_httpslog(proxy, backend, pki, port):
    sink = Sink()
    try:
        start(proxy, port, "ssl crt %s" % pki.p("a.pem"), backend,
              glob=["log 127.0.0.1:%d local0" % sink.port],
              fe=["log global", "option httpslog", "option dontlognull"])
        r = https_get(port, "/logme", sni="b.test", maxv=ssl.TLSVersion.TLSv1_2,
                      ciphers="ECDHE-RSA-AES128-GCM-SHA256")
        assert r.status == 200
        got = sink.read(1)
        assert got
        line = got[0][1]
        # httplog fields, then: fc_err/ssl_fc_err... 2.6 format ends with
        # "%[fc_err]/%[ssl_fc_err,hex]/%[ssl_c_err]/%[ssl_c_ca_err]/%[ssl_fc_is_resumed]
        #  %[ssl_fc_sni]/%sslv/%sslc"
        assert '"GET /logme HTTP/1.1"' in line, line
        assert line.rstrip().endswith(
            " 0/0000000000000000/0/0/0 b.test/TLSv1.2/ECDHE-RSA-AES128-GCM-SHA256"), line
        assert " fe~ be/s1 " in line, line
    finally:
        sink.close()


def test_dhe_with_default_dh_param(proxy, pki, port):
    start(proxy, port, "ssl crt %s ciphers DHE-RSA-AES128-GCM-SHA256" % pki.p("a.pem"),
          glob=["tune.ssl.default-dh-param 2048"], fe=["http-request return status 200"])
    r = s_client(port, "a.test", tls="1.2")
    assert r.cipher == "DHE-RSA-AES128-GCM-SHA256", r
    assert "Server Temp Key: DH, 2048 bits" in r.out, r


def test_route_by_sni(proxy, backends, pki, port):
    s1, s2 = backends(2)
    cfg = tls_cfg(port, sni_bind(pki), None,
                  fe=["use_backend b2 if { ssl_fc_sni -i b.test }",
                      "use_backend b2 if { ssl_fc_sni -m end .wild.test }",
                      "default_backend b1"],
                  extra="backend b1\n    server s1 127.0.0.1:%d\n"
                        "backend b2\n    server s2 127.0.0.1:%d\n" % (s1.port, s2.port))
    proxy(cfg, ports=[port])
    for sni, srv in (("a.test", "s1"), ("b.test", "s2"), ("B.Test", "s2"), ("q.wild.test", "s2"),
                     (None, "s1")):
        r = https_get(port, "/", sni=sni, host="h")
        assert r.header("X-Server") == srv, (sni, r)
