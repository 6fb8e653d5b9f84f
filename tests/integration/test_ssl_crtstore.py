"""crt-store sections (HAProxy 3.x; Debian's 2.6 does not know them): certificates loaded
by name from their own files and named on bind lines."""
import pytest
from conftest import run_haproxy
from tlsutil import s_client

pytestmark = pytest.mark.ours

HEAD = ("defaults\n    mode http\n    timeout connect 2s\n    timeout client 5s\n"
        "    timeout server 5s\n")


def fe(port, crts):
    return ("frontend fe\n    bind 127.0.0.1:%d ssl %s\n"
            "    http-request return status 200 content-type text/plain string ok\n"
            % (port, crts))


def test_named_and_unnamed_stores(proxy, pki, port):
    cfg = ("crt-store web\n    crt-base %s\n    key-base %s\n"
           "    load crt b.crt key b.key alias site1\n"
           "crt-store\n    load crt %s alias plain\n" % (pki.dir, pki.dir, pki.p("a.pem"))
           + HEAD + fe(port, 'crt plain crt "@web/site1"'))
    proxy(cfg, ports=[port])
    assert s_client(port, "a.test").cn == "a.test"
    assert s_client(port, "b.test").cn == "b.test"
    assert s_client(port).cn == "a.test"  # the first crt is the default


def test_store_errors(tmp_path, pki):
    cases = [
        ("crt-store web\n    load crt %s\n" % pki.p("a.pem") + HEAD + fe(1, 'crt "@web/nope"'),
         "t.cfg:9] : 'bind 127.0.0.1:1' in section 'frontend' : no such certificate in a "
         "crt-store."),
        ("crt-store web\n    load crt %s key %s\n" % (pki.p("a.crt"), pki.p("b.key")) + HEAD,
         "t.cfg:2] : 'load' : inconsistencies between private key and certificate"),
        ("crt-store web\n    load crt %s sctl x\n" % pki.p("a.pem") + HEAD,
         "t.cfg:2] : 'load' : 'sctl' is not supported yet."),
        ("crt-store web\n    load crt %s\n    load crt %s\n" % (pki.p("a.pem"), pki.p("a.pem"))
         + HEAD, "t.cfg:3] : 'load' : certificate '@web/%s' is already loaded." % pki.p("a.pem")),
    ]
    for text, msg in cases:
        cfg = tmp_path / "t.cfg"
        cfg.write_text(text)
        r = run_haproxy(["-c", "-f", str(cfg)])
        assert r.returncode != 0 and msg in r.stderr, r.stderr
