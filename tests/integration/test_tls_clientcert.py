"""Client certificates on `bind ... ssl`: verify required/optional, ca-file, crl-file,
ca-ignore-err / crt-ignore-err, and the ssl_c_* fetches a client sees.

Owns: which handshakes are refused (no certificate, one of another CA, a revoked one) and
which pass, and the values of ssl_c_used, ssl_c_verify, ssl_c_s_dn, ssl_c_i_dn,
ssl_c_s_dn(cn), ssl_c_serial, ssl_c_sha1, ssl_c_notafter, ssl_c_notbefore, ssl_fc_has_crt,
ssl_c_der. Expectations were taken from Debian's /usr/sbin/haproxy 2.6.
"""

import base64
import datetime

from tlsutil import SERIALS, handshake_fails, https_get

C_FETCHES = ("used=%[ssl_c_used]|verify=%[ssl_c_verify]|sdn=%[ssl_c_s_dn]|idn=%[ssl_c_i_dn]|"
             "cn=%[ssl_c_s_dn(cn)]|icn=%[ssl_c_i_dn(cn)]|serial=%[ssl_c_serial,hex]|"
             "sha1=%[ssl_c_sha1,hex]|notafter=%[ssl_c_notafter]|notbefore=%[ssl_c_notbefore]|"
             "hascrt=%[ssl_fc_has_crt]|version=%[ssl_c_version]|err=%[ssl_c_err]|"
             "caerr=%[ssl_c_ca_err]|der=%[ssl_c_der,base64]")


def cfg(port, bind):
    return ("defaults\n    mode http\n    timeout connect 2s\n    timeout client 5s\n"
            "    timeout server 5s\nfrontend fe\n    bind 127.0.0.1:%d %s\n"
            "    http-request return status 200 content-type text/plain lf-string \"%s\"\n"
            % (port, bind, C_FETCHES))


def fields(r):
    return dict(kv.split("=", 1) for kv in r.body.decode().split("|"))


def start(proxy, pki, port, opts):
    return proxy(cfg(port, "ssl crt %s %s" % (pki.p("a.pem"), opts)), ports=[port])


def cli(pki, n):
    return dict(cert=pki.p(n + ".crt"), key=pki.p(n + ".key"))


def asn1_time(pki, n, opt):
    """openssl's "Nov 24 20:27:58 2036 GMT" as the fetch prints it: YYMMDDhhmmssZ."""
    v = pki.x509_field(n, opt)
    d = datetime.datetime.strptime(v.replace("  ", " "), "%b %d %H:%M:%S %Y GMT")
    return d.strftime("%y%m%d%H%M%SZ")


def test_verify_required(proxy, pki, port):
    start(proxy, pki, port, "verify required ca-file %s" % pki.p("ca.crt"))
    # no certificate: refused; the other CA's: refused; ours: 200
    assert handshake_fails(port, sni="a.test")
    assert handshake_fails(port, sni="a.test", **cli(pki, "client_other"))
    r = https_get(port, sni="a.test", **cli(pki, "client"))
    assert r.status == 200
    f = fields(r)
    assert f["used"] == "1" and f["verify"] == "0" and f["hascrt"] == "1"


def test_verify_optional(proxy, pki, port):
    start(proxy, pki, port, "verify optional ca-file %s" % pki.p("ca.crt"))
    r = https_get(port, sni="a.test")
    assert r.status == 200
    f = fields(r)
    assert (f["used"], f["hascrt"], f["sdn"], f["serial"], f["verify"]) == ("0", "0", "", "",
                                                                          "0")
    r = https_get(port, sni="a.test", **cli(pki, "client"))
    assert fields(r)["used"] == "1"
    # a certificate that does not verify is still refused with verify optional
    assert handshake_fails(port, sni="a.test", **cli(pki, "client_other"))


def test_verify_none_ignores_client_cert(proxy, pki, port):
    start(proxy, pki, port, "verify none ca-file %s" % pki.p("ca.crt"))
    r = https_get(port, sni="a.test", **cli(pki, "client"))
    assert r.status == 200
    assert fields(r)["used"] == "0"


def test_crl_file(proxy, pki, port):
    start(proxy, pki, port, "verify required ca-file %s crl-file %s"
          % (pki.p("ca.crt"), pki.p("ca.crl")))
    assert handshake_fails(port, sni="a.test", **cli(pki, "client_rev"))
    r = https_get(port, sni="a.test", **cli(pki, "client"))
    assert r.status == 200 and fields(r)["cn"] == "client1"


def test_crt_ignore_err_revoked(proxy, pki, port):
    start(proxy, pki, port, "verify required ca-file %s crl-file %s crt-ignore-err all"
          % (pki.p("ca.crt"), pki.p("ca.crl")))
    r = https_get(port, sni="a.test", **cli(pki, "client_rev"))
    assert r.status == 200
    f = fields(r)
    # X509_V_ERR_CERT_REVOKED (23) on the certificate itself, ssl_c_verify keeps it
    assert (f["used"], f["err"], f["caerr"], f["verify"], f["cn"]) == (
        "1", "23", "0", "23", "client-revoked"), f


def test_crt_ignore_err_by_id(proxy, pki, port):
    start(proxy, pki, port, "verify required ca-file %s crl-file %s crt-ignore-err 23"
          % (pki.p("ca.crt"), pki.p("ca.crl")))
    assert https_get(port, sni="a.test", **cli(pki, "client_rev")).status == 200
    assert handshake_fails(port, sni="a.test", **cli(pki, "client_other"))


def test_ca_ignore_err_all(proxy, pki, port):
    start(proxy, pki, port, "verify required ca-file %s ca-ignore-err all crt-ignore-err all"
          % pki.p("ca.crt"))
    r = https_get(port, sni="a.test", **cli(pki, "client_other"))
    assert r.status == 200
    f = fields(r)
    # ssl_c_err: unable to get local issuer certificate (20), seen at depth 0; the final
    # result (ssl_c_verify) is "unable to verify the first certificate" (21)
    assert (f["used"], f["err"], f["caerr"], f["verify"], f["cn"]) == (
        "1", "20", "0", "21", "client-other"), f
    assert f["icn"] == "hapx untrusted CA"


def test_client_fetches(proxy, pki, port):
    start(proxy, pki, port, "verify required ca-file %s" % pki.p("ca.crt"))
    r = https_get(port, sni="a.test", **cli(pki, "client"))
    f = fields(r)
    assert f == {
        "used": "1", "verify": "0", "sdn": "/C=FR/O=hapx/CN=client1",
        "idn": "/O=hapx tests/CN=hapx test root CA", "cn": "client1",
        "icn": "hapx test root CA", "serial": SERIALS["client"], "sha1": pki.sha1("client"),
        "notafter": asn1_time(pki, "client", "-enddate"),
        "notbefore": asn1_time(pki, "client", "-startdate"), "hascrt": "1", "version": "3",
        "err": "0", "caerr": "0", "der": base64.b64encode(pki.der("client")).decode(),
    }


def test_ca_file_with_both_cas(proxy, pki, port):
    start(proxy, pki, port, "verify required ca-file %s" % pki.p("both-ca.crt"))
    assert fields(https_get(port, sni="a.test", **cli(pki, "client_other")))["cn"] == \
        "client-other"
    assert fields(https_get(port, sni="a.test", **cli(pki, "client")))["cn"] == "client1"
