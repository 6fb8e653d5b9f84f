"""TLS configuration: the errors `haproxy -c` reports (file:line and HAProxy's wording), and
`crt-list` files with per-line options and SNI filters as a client sees them.

Owns: a key that does not match its certificate, a missing or unreadable crt, `ssl`
without `crt`, `crt` without `ssl` (accepted by 2.6: the bind stays plain), bad ssl-min-ver,
unknown ciphers / ciphersuites, a bad verify method, a missing ca-file, `alpn` without a
value; crt-list lines with [ssl-min-ver], [alpn], [verify] options, SNI filters, `!name`
exclusions and wildcards. Expectations were taken from Debian's /usr/sbin/haproxy 2.6.
"""

import os
import re
import shutil

import pytest
from conftest import run_haproxy
from httpc import get
from tlsutil import handshake_fails, https_get, s_client

BASE = ("defaults\n    mode http\n    timeout client 5s\n    timeout server 5s\n"
        "    timeout connect 5s\n"
        "frontend fe\n"
        "    bind 127.0.0.1:%d %s\n"
        "    http-request return status 200 content-type text/plain "
        "lf-string \"alpn=%%[ssl_fc_alpn] used=%%[ssl_c_used]\"\n")


def check(tmp_path, bind, port=1):
    """haproxy -c on a frontend whose line 7 is `bind 127.0.0.1:port BIND`."""
    cfg = tmp_path / "t.cfg"
    cfg.write_text(BASE % (port, bind))
    r = run_haproxy(["-c", "-f", str(cfg)])
    return r, r.stdout + r.stderr, str(cfg)


def assert_error(tmp_path, bind, *rx):
    r, out, path = check(tmp_path, bind)
    assert r.returncode != 0, out
    for x in rx:
        assert re.search(x.replace("@CFG", re.escape(path)), out), (x, out)


def test_key_mismatch(tmp_path, pki):
    bad = tmp_path / "mismatch.pem"
    bad.write_text(pki.read("a.crt") + pki.read("b.key"))
    assert_error(tmp_path, "ssl crt %s" % bad,
                 r"parsing \[@CFG:7\] : 'bind 127\.0\.0\.1:1' in section 'frontend' : "
                 r"inconsistencies between private key and certificate loaded '%s'"
                 % re.escape(str(bad)))


def test_split_key_mismatch(tmp_path, pki):
    crt = tmp_path / "x.pem"
    crt.write_text(pki.read("a.crt"))
    (tmp_path / "x.pem.key").write_text(pki.read("c.key"))
    assert_error(tmp_path, "ssl crt %s" % crt, r"\[@CFG:7\].*inconsistencies between "
                 r"private key and certificate loaded")


def test_missing_crt(tmp_path):
    missing = tmp_path / "nope.pem"
    assert_error(tmp_path, "ssl crt %s" % missing,
                 r"parsing \[@CFG:7\] : 'bind 127\.0\.0\.1:1' in section 'frontend' : "
                 r"unable to stat SSL certificate from file '%s' : No such file or directory"
                 % re.escape(str(missing)))


def test_unreadable_crt(tmp_path):
    if os.geteuid() == 0:
        # root reads a mode 000 file: use a file that is not PEM instead
        bad = tmp_path / "garbage.pem"
        bad.write_text("this is not a certificate\n")
    else:
        bad = tmp_path / "unreadable.pem"
        bad.write_text("x")
        bad.chmod(0)
    assert_error(tmp_path, "ssl crt %s" % bad,
                 r"parsing \[@CFG:7\] : 'bind 127\.0\.0\.1:1' in section 'frontend' : "
                 r"unable to load certificate from file '%s'" % re.escape(str(bad)))


def test_key_without_cert(tmp_path, pki):
    bad = tmp_path / "keyonly.pem"
    bad.write_text(pki.read("a.key"))
    assert_error(tmp_path, "ssl crt %s" % bad, r"\[@CFG:7\]", re.escape(str(bad)))


def test_ssl_without_crt(tmp_path):
    assert_error(tmp_path, "ssl",
                 r"Proxy 'fe': no SSL certificate specified for bind '127\.0\.0\.1:1' at "
                 r"\[@CFG:7\] \(use 'crt'\)")


def test_crt_without_ssl_is_plain(tmp_path, pki, proxy, port):
    r, out, _ = check(tmp_path, "crt %s" % pki.p("a.pem"))
    assert r.returncode == 0, out
    proxy(BASE % (port, "crt %s" % pki.p("a.pem")), ports=[port])
    assert get(port, "/").status == 200
    assert handshake_fails(port, sni="a.test")


def test_bad_ssl_min_ver(tmp_path, pki):
    assert_error(tmp_path, "ssl crt %s ssl-min-ver TLSv9" % pki.p("a.pem"),
                 r"parsing \[@CFG:7\] : 'bind 127\.0\.0\.1:1' in section 'frontend' : "
                 r"'TLSv9' : unknown ssl/tls version")


def test_bad_ssl_max_ver(tmp_path, pki):
    assert_error(tmp_path, "ssl crt %s ssl-max-ver 1.2" % pki.p("a.pem"),
                 r"\[@CFG:7\].*'1\.2' : unknown ssl/tls version")


def test_unknown_cipher(tmp_path, pki):
    assert_error(tmp_path, "ssl crt %s ciphers NOPE-CIPHER" % pki.p("a.pem"),
                 r"Proxy 'fe': unable to set SSL cipher list to 'NOPE-CIPHER' for bind "
                 r"'127\.0\.0\.1:1' at \[@CFG:7\]\.")


def test_unknown_ciphersuite(tmp_path, pki):
    assert_error(tmp_path, "ssl crt %s ciphersuites TLS_NOPE" % pki.p("a.pem"),
                 r"Proxy 'fe': unable to set TLS 1\.3 cipher suites to 'TLS_NOPE' for bind "
                 r"'127\.0\.0\.1:1' at \[@CFG:7\]\.")


def test_bad_verify(tmp_path, pki):
    assert_error(tmp_path, "ssl crt %s verify maybe" % pki.p("a.pem"),
                 r"\[@CFG:7\].*'verify' : unknown verify method 'maybe', only 'none', "
                 r"'optional', and 'required' are supported")


def test_missing_ca_file(tmp_path, pki):
    missing = tmp_path / "noca.crt"
    assert_error(tmp_path, "ssl crt %s ca-file %s verify required" % (pki.p("a.pem"), missing),
                 r"\[@CFG:7\].*'ca-file' : unable to load %s" % re.escape(str(missing)))


def test_alpn_without_value(tmp_path, pki):
    assert_error(tmp_path, "ssl crt %s alpn" % pki.p("a.pem"),
                 r"\[@CFG:7\].*'alpn' : missing the comma-delimited ALPN protocol suite")


def test_missing_crt_list(tmp_path):
    missing = tmp_path / "nope.list"
    assert_error(tmp_path, "ssl crt-list %s" % missing, r"\[@CFG:7\]", re.escape(str(missing)))


def test_crt_list_bad_line(tmp_path, pki):
    lst = tmp_path / "l.list"
    lst.write_text("%s [ssl-min-ver TLSv9]\n" % pki.p("a.pem"))
    assert_error(tmp_path, "ssl crt-list %s" % lst, r"\[@CFG:7\]", r"unknown ssl/tls version")


def test_valid_config(tmp_path, pki):
    r, out, _ = check(tmp_path, "ssl crt %s crt %s alpn h2,http/1.1 ssl-min-ver TLSv1.2 "
                      "ciphers ECDHE-RSA-AES128-GCM-SHA256 ciphersuites TLS_AES_128_GCM_SHA256"
                      % (pki.p("a.pem"), pki.p("split/b.pem")))
    assert r.returncode == 0, out
    assert "Configuration file is valid" in out


# ------------------------------------------------------------------------ crt-list


def write_list(tmp_path, pki, lines):
    lst = tmp_path / "certs.list"
    lst.write_text("".join(l.replace("@", pki.dir + "/") + "\n" for l in lines))
    return lst


def test_crt_list_sni_filters(tmp_path, pki, proxy, port):
    lst = write_list(tmp_path, pki, [
        "# comment line, then an empty one",
        "",
        "@a.pem",
        "@b.pem b.test alias.test",
        "@wild.pem *.wild.test !secret.wild.test",
        "@c.pem secret.wild.test",
    ])
    proxy(BASE % (port, "ssl crt-list %s" % lst), ports=[port])
    expect = {"a.test": "a.test", "b.test": "b.test", "alias.test": "b.test",
              "x.wild.test": "*.wild.test", "secret.wild.test": "c.test",
              "c.test": "a.test",  # c.pem only answers the name its line gives
              "unknown.test": "a.test", None: "a.test"}
    for name, cn in expect.items():
        r = s_client(port, name)
        assert r.cn == cn, (name, r)


def test_crt_list_exclusion_only(tmp_path, pki, proxy, port):
    lst = write_list(tmp_path, pki, [
        "@a.pem",
        "@wild.pem !no.wild.test",
    ])
    proxy(BASE % (port, "ssl crt-list %s" % lst), ports=[port])
    # 2.6: a line with filters takes its names from the filters only, never from the
    # certificate, so a line with only exclusions answers no name (the default does)
    assert s_client(port, "yes.wild.test").cn == "a.test"
    assert s_client(port, "no.wild.test").cn == "a.test"
    assert s_client(port, "a.test").cn == "a.test"


def test_crt_list_options(tmp_path, pki, proxy, port):
    lst = write_list(tmp_path, pki, [
        "@a.pem",
        "@b.pem [ssl-min-ver TLSv1.3] b.test",
        "@c.pem [alpn h2,http/1.1] c.test",
        "@ec.pem [verify required ca-file @ca.crt] ec.test",
    ])
    proxy(BASE % (port, "ssl crt-list %s" % lst), ports=[port])
    # [ssl-min-ver TLSv1.3] on b.test: TLS 1.2 refused there, not on a.test
    assert s_client(port, "b.test", tls="1.3").protocol == "TLSv1.3"
    assert s_client(port, "b.test", tls="1.2").refused
    assert s_client(port, "a.test", tls="1.2").protocol == "TLSv1.2"
    # [alpn] on c.test only
    assert s_client(port, "c.test", alpn="http/1.1").alpn == "http/1.1"
    assert s_client(port, "a.test", alpn="http/1.1").alpn is None
    # [verify required] on ec.test only
    assert handshake_fails(port, sni="ec.test")
    r = https_get(port, sni="ec.test", cert=pki.p("client.crt"), key=pki.p("client.key"))
    assert r.status == 200 and b"used=1" in r.body
    r = https_get(port, sni="a.test")
    assert r.status == 200 and b"used=0" in r.body


def test_crt_list_bind_options_apply(tmp_path, pki, proxy, port):
    """Options on the bind line apply to every crt-list entry unless the line overrides."""
    lst = write_list(tmp_path, pki, ["@a.pem", "@b.pem [alpn http/1.1] b.test"])
    proxy(BASE % (port, "ssl crt-list %s alpn h2" % lst), ports=[port])
    assert s_client(port, "a.test", alpn="h2").alpn == "h2"
    assert s_client(port, "b.test", alpn="h2,http/1.1").alpn == "http/1.1"


def test_crt_list_split_key_and_dir_mix(tmp_path, pki, proxy, port):
    d = tmp_path / "d"
    d.mkdir()
    shutil.copy(pki.p("split/c.pem"), str(d / "c.pem"))
    shutil.copy(pki.p("split/c.pem.key"), str(d / "c.pem.key"))
    lst = write_list(tmp_path, pki, ["@a.pem", str(d / "c.pem") + " c.test"])
    proxy(BASE % (port, "ssl crt-list %s" % lst), ports=[port])
    assert s_client(port, "c.test").cn == "c.test"
    assert s_client(port, "zzz").cn == "a.test"


@pytest.mark.parametrize("bind", ["ssl crt @a.pem crt-list @LIST", "ssl crt-list @LIST crt @a.pem"])
def test_crt_and_crt_list_together(tmp_path, pki, proxy, port, bind):
    lst = write_list(tmp_path, pki, ["@b.pem"])
    bind = bind.replace("@LIST", str(lst)).replace("@", pki.dir + "/")
    proxy(BASE % (port, bind), ports=[port])
    assert s_client(port, "b.test").cn == "b.test"
    assert s_client(port, "a.test").cn == "a.test"
    first = "a.test" if bind.startswith("ssl crt ") else "b.test"
    assert s_client(port, None).cn == first
