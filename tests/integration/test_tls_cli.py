"""The TLS runtime API on the stats socket: what a CLI script sees.

Owns: `show ssl cert` (list, one certificate's details, a transaction's `*NAME`),
`set ssl cert NAME <<` + `commit ssl cert` (a new client sees the new certificate without a
reload) and `abort ssl cert` (the old one stays), `new ssl cert` / `del ssl cert`,
`show ssl crt-list` (list, one list, -n), `add ssl crt-list` (payload and plain forms) and
`del ssl crt-list` (with :line), and the one-line errors of bad arguments. The texts were
taken from Debian's /usr/sbin/haproxy 2.6 on the same configs.
"""

import re

import pytest
from conftest import cli
from tlsutil import s_client


@pytest.fixture
def tls_cli(proxy, pki, port, tmp_path):
    """A TLS frontend with crt a.pem, split/b.pem and crt-list l.list (c.pem for c.test, with
    [alpn h2]); returns (socket path, list path)."""
    sock = tmp_path / "stats.sock"
    lst = tmp_path / "l.list"
    lst.write_text("%s [alpn h2] c.test\n" % pki.p("c.pem"))
    cfg = ("global\n    stats socket %s level admin\n"
           "defaults\n    mode http\n    timeout client 5s\n    timeout server 5s\n"
           "    timeout connect 5s\n"
           "frontend fe\n    bind 127.0.0.1:%d ssl crt %s crt %s crt-list %s\n"
           "    http-request return status 200\n"
           % (sock, port, pki.p("a.pem"), pki.p("split/b.pem"), lst))
    proxy(cfg, ports=[port])
    return str(sock), str(lst)


def payload(cmd, text):
    """A command with a '<<' payload (no empty line inside; an empty line ends it)."""
    return "%s <<\n%s\n" % (cmd, "\n".join(l for l in text.splitlines() if l.strip()))


def test_show_ssl_cert_list(tls_cli, pki):
    sock, _ = tls_cli
    out = cli(sock, "show ssl cert")
    lines = out.splitlines()
    assert lines[0] == "# filename"
    assert sorted(l for l in lines[1:] if l) == sorted(
        [pki.p("a.pem"), pki.p("split/b.pem"), pki.p("c.pem")]), out
    assert out.endswith("\n\n")


def test_show_ssl_cert_details(tls_cli, pki):
    sock, _ = tls_cli
    out = cli(sock, "show ssl cert %s" % pki.p("a.pem"))
    lines = out.splitlines()
    assert lines[0] == "Filename: %s" % pki.p("a.pem")
    assert lines[1] == "Status: Used"
    assert lines[2] == "Serial: 0A01"
    assert re.match(r"notBefore: [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4} GMT$", lines[3])
    assert lines[3] == "notBefore: " + pki.x509_field("a", "-startdate")
    assert lines[4] == "notAfter: " + pki.x509_field("a", "-enddate")
    assert "Subject Alternative Name: DNS:a.test" in lines
    assert "Algorithm: RSA2048" in lines
    assert "SHA1 FingerPrint: %s" % pki.sha1("a") in lines
    assert "Subject: /C=FR/O=hapx/CN=a.test" in lines
    assert "Issuer: /O=hapx tests/CN=hapx test root CA" in lines
    assert "Chain Subject: /O=hapx tests/CN=hapx test root CA" in lines
    # the order 2.6 prints them in
    keys = [l.split(":", 1)[0] for l in lines if l]
    order = ["Filename", "Status", "Serial", "notBefore", "notAfter",
             "Subject Alternative Name", "Algorithm", "SHA1 FingerPrint", "Subject", "Issuer"]
    assert [k for k in keys if k in order] == order, out


def test_show_ssl_cert_unknown(tls_cli):
    sock, _ = tls_cli
    assert cli(sock, "show ssl cert /nope.pem") == \
        "Can't display the certificate: Not found or the certificate is a bundle!\n\n"


def test_set_commit_ssl_cert(tls_cli, pki, port):
    sock, _ = tls_cli
    name = pki.p("a.pem")
    assert s_client(port, "a.test").subject == "C = FR, O = hapx, CN = a.test"
    out = cli(sock, payload("set ssl cert %s" % name, pki.read("a2.pem")))
    assert out == "Transaction created for certificate %s!\n\n" % name
    # the transaction shows as *NAME, Unused, with the new serial; clients still get the old
    lst = cli(sock, "show ssl cert")
    assert lst.startswith("# transaction\n*%s\n# filename\n" % name), lst
    tr = cli(sock, "show ssl cert *%s" % name)
    assert "Filename: *%s\nStatus: Unused\nSerial: 0A02\n" % name in tr, tr
    assert "Subject: /C=FR/O=hapx v2/CN=a.test" in tr
    assert s_client(port, "a.test").subject == "C = FR, O = hapx, CN = a.test"
    out = cli(sock, "commit ssl cert %s" % name)
    assert out == "Committing %s.\nSuccess!\n\n" % name
    # a new client sees the new certificate, without a reload; so does the default (no SNI)
    assert s_client(port, "a.test").subject == "C = FR, O = hapx v2, CN = a.test"
    assert s_client(port, None).subject == "C = FR, O = hapx v2, CN = a.test"
    assert "Serial: 0A02" in cli(sock, "show ssl cert %s" % name)
    # the other certificates are untouched
    assert s_client(port, "b.test").cn == "b.test"


def test_abort_ssl_cert(tls_cli, pki, port):
    sock, _ = tls_cli
    name = pki.p("a.pem")
    cli(sock, payload("set ssl cert %s" % name, pki.read("a2.pem")))
    assert cli(sock, "abort ssl cert %s" % name) == \
        "Transaction aborted for certificate '%s'!\n\n" % name
    assert s_client(port, "a.test").subject == "C = FR, O = hapx, CN = a.test"
    assert cli(sock, "abort ssl cert %s" % name) == "No ongoing transaction!\n\n"
    out = cli(sock, "commit ssl cert %s" % name)
    assert "Can't commit %s!" % name in out
    assert s_client(port, "a.test").subject == "C = FR, O = hapx, CN = a.test"
    assert "Serial: 0A01" in cli(sock, "show ssl cert %s" % name)


def test_set_ssl_cert_split_file(tls_cli, pki, port):
    """A certificate loaded from X.pem + X.pem.key is replaced by a bundle payload."""
    sock, _ = tls_cli
    name = pki.p("split/b.pem")
    bundle = pki.read("wild.pem")
    assert cli(sock, payload("set ssl cert %s" % name, bundle)).startswith("Transaction created")
    assert "Success!" in cli(sock, "commit ssl cert %s" % name)
    # the entry had no SNI filter: its names now come from the new certificate
    assert s_client(port, "x.wild.test").cn == "*.wild.test"
    assert s_client(port, "b.test").cn == "a.test"


def test_set_ssl_cert_errors(tls_cli, pki, port):
    sock, _ = tls_cli
    out = cli(sock, payload("set ssl cert /nope.pem", pki.read("a2.pem")))
    assert out.startswith("Can't replace a certificate which is not referenced by the "
                          "configuration!\n"), out
    assert "Can't update /nope.pem!" in out
    name = pki.p("a.pem")
    out = cli(sock, payload("set ssl cert %s" % name, "garbage"))
    assert "Can't update %s!" % name in out, out
    # a key that does not match: refused at commit or set, the old certificate stays
    bad = pki.read("a2.crt") + pki.read("b.key")
    out = cli(sock, payload("set ssl cert %s" % name, bad))
    if out.startswith("Transaction created"):
        out = cli(sock, "commit ssl cert %s" % name)
        assert "Success!" not in out, out
        cli(sock, "abort ssl cert %s" % name)
    assert s_client(port, "a.test").subject == "C = FR, O = hapx, CN = a.test"


def test_show_ssl_crt_list(tls_cli, pki):
    sock, lst = tls_cli
    assert cli(sock, "show ssl crt-list") == "%s\n\n" % lst
    out = cli(sock, "show ssl crt-list %s" % lst)
    lines = out.splitlines()
    assert lines[0] == "# %s" % lst
    # 2.6 prints the options as "[alpn h2 ]"; hold to the path, the option and the filter
    assert re.match(r"%s \[alpn h2.?\] c\.test$" % re.escape(pki.p("c.pem")), lines[1]), out
    out = cli(sock, "show ssl crt-list -n %s" % lst)
    assert out.splitlines()[1].startswith("%s:1 [alpn h2" % pki.p("c.pem"))
    assert cli(sock, "show ssl crt-list /nope.list") == \
        "didn't find the specified filename\n\n"


def test_new_cert_add_del_crt_list(tls_cli, pki, port, tmp_path):
    sock, lst = tls_cli
    new = str(tmp_path / "new.pem")
    assert cli(sock, "new ssl cert %s" % new) == "New empty certificate store '%s'!\n\n" % new
    assert cli(sock, "new ssl cert %s" % new) == "Certificate '%s' already exists!\n\n" % new
    assert cli(sock, payload("set ssl cert %s" % new, pki.read("b.pem"))) == \
        "Transaction created for certificate %s!\n\n" % new
    assert "Success!" in cli(sock, "commit ssl cert %s" % new)
    assert s_client(port, "new.test").cn == "a.test"  # not in any list yet: the default
    out = cli(sock, payload("add ssl crt-list %s" % lst, "%s [alpn http/1.1] new.test" % new))
    assert out == "Inserting certificate '%s' in crt-list '%s'.\nSuccess!\n\n" % (new, lst)
    r = s_client(port, "new.test", alpn="http/1.1")
    assert r.cn == "b.test" and r.alpn == "http/1.1", r
    shown = cli(sock, "show ssl crt-list -n %s" % lst)
    assert re.search(r"^%s:2 \[alpn http/1\.1.?\] new\.test$" % re.escape(new), shown, re.M)
    # the certificate is used: it cannot be deleted
    out = cli(sock, "del ssl cert %s" % new)
    assert "in use, can't be deleted!" in out, out
    out = cli(sock, "del ssl crt-list %s %s" % (lst, new))
    assert out == "Entry '%s' deleted in crtlist '%s'!\n\n" % (new, lst)
    assert s_client(port, "new.test").cn == "a.test"
    assert cli(sock, "del ssl cert %s" % new) == "Certificate '%s' deleted!\n\n" % new
    assert new not in cli(sock, "show ssl cert")


def test_add_crt_list_plain_and_del_by_line(tls_cli, pki, tmp_path):
    sock, lst = tls_cli
    new = str(tmp_path / "n2.pem")
    cli(sock, "new ssl cert %s" % new)
    cli(sock, payload("set ssl cert %s" % new, pki.read("b.pem")))
    cli(sock, "commit ssl cert %s" % new)
    assert "Success!" in cli(sock, "add ssl crt-list %s %s" % (lst, new))
    assert "Success!" in cli(sock, payload("add ssl crt-list %s" % lst, "%s x.test" % new))
    out = cli(sock, "del ssl crt-list %s %s" % (lst, new))
    assert out == ("Can't delete the entry: found the certificate '%s' in several entries, "
                   "please specify a line number preceded by colons (2, 3)!\n\n" % new), out
    assert cli(sock, "del ssl crt-list %s %s:3" % (lst, new)) == \
        "Entry '%s' deleted in crtlist '%s'!\n\n" % (new, lst)
    shown = cli(sock, "show ssl crt-list -n %s" % lst)
    assert "%s:2\n" % new in shown and ":3" not in shown, shown


def test_del_used_cert_refused(tls_cli, pki, port):
    sock, _ = tls_cli
    out = cli(sock, "del ssl cert %s" % pki.p("a.pem"))
    assert out.startswith("Can't remove the certificate: certificate '%s' in use, can't be "
                          "deleted!\n" % pki.p("a.pem")), out
    assert s_client(port, "a.test").cn == "a.test"


def test_ssl_cert_commands_need_admin(proxy, pki, port, tmp_path):
    sock = tmp_path / "user.sock"
    cfg = ("global\n    stats socket %s level user\n"
           "defaults\n    mode http\n    timeout client 5s\n    timeout server 5s\n"
           "    timeout connect 5s\n"
           "frontend fe\n    bind 127.0.0.1:%d ssl crt %s\n    http-request return status 200\n"
           % (sock, port, pki.p("a.pem")))
    proxy(cfg, ports=[port])
    out = cli(str(sock), payload("set ssl cert %s" % pki.p("a.pem"), pki.read("a2.pem")))
    assert out == "Permission denied\n\n", out
    assert cli(str(sock), "commit ssl cert %s" % pki.p("a.pem")) == "Permission denied\n\n"
    assert s_client(port, "a.test").cn == "a.test"
