"""Certificates replaced at run time through the runtime API, without a reload.

Owns: `show ssl cert [NAME|*NAME]`, `new/set/commit/abort/del ssl cert` and `set ssl
ocsp-response` (answers as HAProxy 2.6 words them), and what a client sees: a new client
gets the committed certificate (by default and by SNI), a connection opened before keeps
working, an abort or a refused payload changes nothing. Certificates are generated here.
"""

import base64
import socket
import ssl
import subprocess
import time

import pytest
from conftest import IS_REF, cli, free_port

CFG = """global
    stats socket {sock} level admin
    stats socket {osock} level operator
defaults
    mode http
    timeout connect 2s
    timeout client 5s
    timeout server 5s
frontend fe
    bind 127.0.0.1:{port} ssl crt {a} crt {c}
    http-request return status 200 content-type text/plain string ok
"""


def openssl(*args, cwd=None, input=None):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, input=input, timeout=30,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def self_signed(d, name, cn, sans=()):
    """<name>.pem: a self-signed certificate and its key; returns its path."""
    ext = ["-addext", "subjectAltName=" + ",".join("DNS:" + s for s in sans)] if sans else []
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out",
            name + ".crt", "-days", "30", "-subj", "/CN=" + cn, *ext, cwd=d)
    pem = d / (name + ".pem")
    pem.write_text((d / (name + ".crt")).read_text() + (d / (name + ".key")).read_text())
    return pem


def ca_signed(d, name, cn):
    """<name>.pem: a certificate signed by the test CA (ca.crt, created once), its key and
    the CA as chain; returns its path."""
    if not (d / "ca.crt").exists():
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out",
                "ca.crt", "-days", "30", "-subj", "/CN=Test CA", cwd=d)
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out",
            name + ".csr", "-subj", "/CN=" + cn, cwd=d)
    openssl("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-out", name + ".crt", "-days", "30", cwd=d)
    pem = d / (name + ".pem")
    pem.write_text("".join((d / f).read_text() for f in (name + ".crt", name + ".key", "ca.crt")))
    return pem


def served_cn(port, sni=None):
    """The subject CN a new client gets (no verification)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        with ctx.wrap_socket(raw, server_hostname=sni) as s:
            der = s.getpeercert(binary_form=True)
    out = subprocess.run(["openssl", "x509", "-inform", "DER", "-noout", "-subject",
                          "-nameopt", "RFC2253"], input=der, capture_output=True, timeout=10)
    return out.stdout.decode().strip().split("CN=", 1)[1]


def set_cert(sock, name, pem_text):
    return cli(sock, "set ssl cert %s <<\n%s" % (name, pem_text))


@pytest.fixture
def setup(tmp_path, proxy):
    d = tmp_path
    a = self_signed(d, "a", "a.example.com", ["a.example.com"])
    c = self_signed(d, "c", "c.example.com", ["c.example.com"])
    b = self_signed(d, "b", "b.example.com", ["b.example.com", "www.b.example.com"])
    port = free_port()
    sock, osock = d / "s.sock", d / "o.sock"
    p = proxy(CFG.format(port=port, sock=sock, osock=osock, a=a, c=c), ports=[port])
    deadline = time.monotonic() + 5
    while not (sock.exists() and osock.exists()) and time.monotonic() < deadline:
        time.sleep(0.05)
    return {"d": d, "a": a, "b": b, "c": c, "port": port, "sock": sock, "osock": osock,
            "proxy": p}


def test_show_ssl_cert_lists_and_details(setup):
    s, a = setup["sock"], str(setup["a"])
    assert cli(s, "show ssl cert") == "# filename\n%s\n%s\n\n" % (a, setup["c"])
    out = cli(s, "show ssl cert " + a)
    serial = subprocess.run(["openssl", "x509", "-noout", "-serial", "-in", a],
                            capture_output=True, timeout=10).stdout.decode().strip()
    fp = subprocess.run(["openssl", "x509", "-noout", "-fingerprint", "-sha1", "-in", a],
                        capture_output=True, timeout=10).stdout.decode().strip()
    lines = out.splitlines()
    assert lines[0] == "Filename: " + a
    assert lines[1] == "Status: Used"
    assert lines[2] == "Serial: " + serial.split("=", 1)[1]
    assert lines[3].startswith("notBefore: ") and lines[3].endswith(" GMT")
    assert lines[4].startswith("notAfter: ") and lines[4].endswith(" GMT")
    assert lines[5] == "Subject Alternative Name: DNS:a.example.com"
    assert lines[6] == "Algorithm: RSA2048"
    assert lines[7] == "SHA1 FingerPrint: " + fp.split("=", 1)[1].replace(":", "")
    assert lines[8:11] == ["Subject: /CN=a.example.com", "Issuer: /CN=a.example.com",
                           "OCSP Response Key: "]
    assert out.endswith("\n\n")
    assert cli(s, "show ssl cert nope") == \
        "Can't display the certificate: Not found or the certificate is a bundle!\n\n"


def test_commit_new_clients_see_new_cert_open_ones_untouched(setup):
    s, a, port = setup["sock"], str(setup["a"]), setup["port"]
    assert served_cn(port) == "a.example.com"
    # a connection opened before the commit
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    old = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=5))
    try:
        assert set_cert(s, a, setup["b"].read_text()) == \
            "Transaction created for certificate %s!\n\n" % a
        assert served_cn(port) == "a.example.com"  # nothing changes before the commit
        assert cli(s, "show ssl cert") == "# transaction\n*%s\n# filename\n%s\n%s\n\n" % (
            a, a, setup["c"])
        tx = cli(s, "show ssl cert *" + a).splitlines()
        assert tx[:2] == ["Filename: *" + a, "Status: Unused"]
        assert "Subject: /CN=b.example.com" in tx
        assert cli(s, "commit ssl cert " + a) == "Committing %s.\nSuccess!\n\n" % a
        assert served_cn(port) == "b.example.com"
        # SNI follows the new names, the other certificate keeps its own
        assert served_cn(port, "www.b.example.com") == "b.example.com"
        assert served_cn(port, "c.example.com") == "c.example.com"
        assert cli(s, "show ssl cert") == "# filename\n%s\n%s\n\n" % (a, setup["c"])
        shown = cli(s, "show ssl cert " + a)
        assert "Subject: /CN=b.example.com\n" in shown and "Status: Used\n" in shown
        # the connection opened before still works with the certificate it got
        old.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        got = b""
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            chunk = old.recv(4096)
            if not chunk:
                break
            got += chunk
        assert got.startswith(b"HTTP/1.1 200") and got.endswith(b"ok")
    finally:
        old.close()


def test_commit_with_chain_and_back(setup):
    s, a, port = setup["sock"], str(setup["a"]), setup["port"]
    chained = ca_signed(setup["d"], "ch", "ch.example.com")
    assert set_cert(s, a, chained.read_text()).startswith("Transaction created")
    shown = cli(s, "show ssl cert *" + a).splitlines()[:-1]
    assert "Subject Alternative Name: " in shown
    assert ["Issuer: /CN=Test CA", "Chain Subject: /CN=Test CA",
            "Chain Issuer: /CN=Test CA", "OCSP Response Key: "] == shown[-4:]
    assert cli(s, "commit ssl cert " + a).endswith("Success!\n\n")
    assert served_cn(port) == "ch.example.com"
    # and again: the replaced certificate is replaced in turn
    assert set_cert(s, a, setup["a"].read_text()).startswith("Transaction created")
    assert cli(s, "commit ssl cert " + a).endswith("Success!\n\n")
    assert served_cn(port) == "a.example.com"


def test_abort_keeps_the_old_certificate(setup):
    s, a, port = setup["sock"], str(setup["a"]), setup["port"]
    set_cert(s, a, setup["b"].read_text())
    assert set_cert(s, a, setup["b"].read_text()) == \
        "Transaction updated for certificate %s!\n\n" % a
    assert cli(s, "abort ssl cert /x.pem") == \
        "The ongoing transaction is about '%s' but you are trying to abort a transaction " \
        "for '/x.pem'\n\n" % a
    assert cli(s, "commit ssl cert /x.pem") == \
        "The ongoing transaction is about '%s' but you are trying to set '/x.pem'\n" \
        "Can't commit /x.pem!\n\n" % a
    assert cli(s, "abort ssl cert " + a) == "Transaction aborted for certificate '%s'!\n\n" % a
    assert cli(s, "abort ssl cert " + a) == "No ongoing transaction!\n\n"
    assert cli(s, "commit ssl cert " + a) == "No ongoing transaction! !\nCan't commit %s!\n\n" % a
    assert served_cn(setup["port"]) == "a.example.com"
    assert cli(s, "show ssl cert") == "# filename\n%s\n%s\n\n" % (a, setup["c"])


def test_refused_payloads_change_nothing(setup):
    s, a, port = setup["sock"], str(setup["a"]), setup["port"]
    assert set_cert(s, "/nope.pem", setup["b"].read_text()) == \
        "Can't replace a certificate which is not referenced by the configuration!\n" \
        "Can't update /nope.pem!\n\n"
    assert set_cert(s, a, "garbage\n") == \
        "unable to load certificate from file '%s'.\nCan't load the payload\n" \
        "Can't update %s!\n\n" % (a, a)
    assert cli(s, "show ssl cert") == "# filename\n%s\n%s\n\n" % (a, setup["c"])
    # a key that is not the certificate's
    d = setup["d"]
    mismatch = (d / "b.crt").read_text() + (d / "a.key").read_text()
    out = set_cert(s, a, mismatch)
    if IS_REF:  # 2.6 takes it and refuses the commit
        assert out.startswith("Transaction created")
        out = cli(s, "commit ssl cert " + a)
        assert out == "inconsistencies between private key and certificate loaded '%s'.\n" \
            "Can't commit %s!\n\n" % (a, a)
        cli(s, "abort ssl cert " + a)
    else:  # refused at once: the transaction is never created
        assert out == "inconsistencies between private key and certificate loaded from PEM " \
            "file '%s'.\nCan't update %s!\n\n" % (a, a)
        assert cli(s, "commit ssl cert " + a).startswith("No ongoing transaction! !\n")
    assert served_cn(port) == "a.example.com"
    assert "Subject: /CN=a.example.com\n" in cli(s, "show ssl cert " + a)


def test_usage_errors(setup):
    s = setup["sock"]
    assert cli(s, "set ssl cert " + str(setup["a"])) == \
        "'set ssl cert expects a filename and a certificate as a payload\n\n"
    assert cli(s, "set ssl cert") == \
        "'set ssl cert expects a filename and a certificate as a payload\n\n"
    assert cli(s, "commit ssl cert") == "'commit ssl cert expects a filename\n\n"
    assert cli(s, "abort ssl cert") == "'abort ssl cert' expects a filename\n\n"
    assert cli(s, "new ssl cert") == "'new ssl cert' expects a filename\n\n"
    assert cli(s, "del ssl cert") == "'del ssl cert' expects a certificate name\n\n"


def test_one_transaction_at_a_time(setup):
    s, a, c = setup["sock"], str(setup["a"]), str(setup["c"])
    set_cert(s, a, setup["b"].read_text())
    out = set_cert(s, c, setup["b"].read_text())
    if IS_REF:  # 2.6.12 answers as if the pending one was updated
        assert out == "Transaction updated for certificate %s!\n\n" % a
    else:
        assert out == "Can't update %s!\nOperations on certificates are currently locked!\n\n" % c
        assert "# transaction\n*%s\n" % a in cli(s, "show ssl cert")
    cli(s, "abort ssl cert " + a)
    assert served_cn(setup["port"], "c.example.com") == "c.example.com"


def test_new_and_del(setup):
    s, a, d = setup["sock"], str(setup["a"]), setup["d"]
    n = str(d / "n.pem")
    assert cli(s, "new ssl cert " + n) == "New empty certificate store '%s'!\n\n" % n
    assert cli(s, "new ssl cert " + n) == "Certificate '%s' already exists!\n\n" % n
    assert cli(s, "new ssl cert " + a) == "Certificate '%s' already exists!\n\n" % a
    assert cli(s, "show ssl cert " + n) == \
        "Filename: %s\nStatus: Empty\nOCSP Response Key: \n\n" % n
    assert cli(s, "show ssl cert").endswith("%s\n\n" % n)
    # filled by a transaction, still unused
    assert set_cert(s, n, setup["b"].read_text()).startswith("Transaction created")
    assert cli(s, "del ssl cert " + n) == \
        "Can't remove the certificate: ongoing transaction for the certificate '%s'\n\n" % n
    assert cli(s, "commit ssl cert " + n) == "Committing %s\nSuccess!\n\n" % n
    assert "Status: Unused\n" in cli(s, "show ssl cert " + n)
    assert cli(s, "del ssl cert " + a) == \
        "Can't remove the certificate: certificate '%s' in use, can't be deleted!\n\n\n" % a
    assert cli(s, "del ssl cert " + n) == "Certificate '%s' deleted!\n\n" % n
    assert cli(s, "del ssl cert " + n) == \
        "Can't remove the certificate: certificate '%s' doesn't exist!\n\n\n" % n
    assert cli(s, "show ssl cert") == "# filename\n%s\n%s\n\n" % (a, setup["c"])
    assert served_cn(setup["port"]) == "a.example.com"


def test_levels(setup):
    o, a = setup["osock"], str(setup["a"])
    assert cli(o, "show ssl cert").startswith("# filename\n")
    assert cli(o, "new ssl cert /x.pem") == "Permission denied\n\n"
    assert set_cert(o, a, setup["b"].read_text()) == "Permission denied\n\n"
    assert cli(o, "del ssl cert " + a) == "Permission denied\n\n"
    assert cli(setup["sock"], "show ssl cert") == "# filename\n%s\n%s\n\n" % (a, setup["c"])


def test_set_ocsp_response_errors(setup):
    s = setup["sock"]
    assert cli(s, "set ssl ocsp-response") == \
        "'set ssl ocsp-response' expects response in base64 encoding.\n\n"
    assert cli(s, "set ssl ocsp-response !!!!") == \
        "'set ssl ocsp-response' received invalid base64 encoded response.\n\n"
    assert cli(s, "set ssl ocsp-response AAAA") == "Unable to parse OCSP response.\n\n"
    assert cli(s, "set ssl ocsp-response <<\nAAAA\n") == "Unable to parse OCSP response.\n\n"


def ocsp_response(d, crt, status):
    """A DER OCSP response of the test CA about <crt> ("V" good, "R" revoked)."""
    serial = subprocess.run(["openssl", "x509", "-noout", "-serial", "-in", crt],
                            capture_output=True, timeout=10).stdout.decode().strip()
    serial = serial.split("=", 1)[1]
    rev = "261101000000Z" if status == "R" else ""
    (d / "index.txt").write_text("%s\t301231000000Z\t%s\t%s\tunknown\t/CN=x\n" %
                                 (status, rev, serial))
    openssl("ocsp", "-issuer", "ca.crt", "-cert", str(crt), "-no_nonce", "-reqout", "req.der",
            cwd=d)
    openssl("ocsp", "-index", "index.txt", "-rsigner", "ca.crt", "-rkey", "ca.key", "-CA",
            "ca.crt", "-reqin", "req.der", "-respout", "resp.der", "-ndays", "1", cwd=d)
    return (d / "resp.der").read_bytes()


def stapled_status(port):
    out = subprocess.run(["openssl", "s_client", "-connect", "127.0.0.1:%d" % port, "-status"],
                         input=b"", capture_output=True, timeout=10).stdout.decode()
    for line in out.splitlines():
        if "Cert Status:" in line:
            return line.split(":", 1)[1].strip()
    return None


def test_set_ocsp_response_staples_the_new_one(tmp_path, proxy):
    d = tmp_path
    crt = ca_signed(d, "o", "o.example.com")
    (d / "o.pem.ocsp").write_bytes(ocsp_response(d, d / "o.crt", "V"))
    port = free_port()
    sock = d / "s.sock"
    proxy(CFG.replace(" crt {c}", "").replace("    stats socket {osock} level operator\n", "")
          .format(port=port, sock=sock, a=crt), ports=[port])
    deadline = time.monotonic() + 5
    while not sock.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert stapled_status(port) == "good"
    key = cli(sock, "show ssl cert " + str(crt)).splitlines()[-2]
    # the DER of the OCSP certificate ID, in lowercase hex
    assert key.startswith("OCSP Response Key: 30") and len(key) > 40
    assert key[19:] == key[19:].lower()
    resp = base64.b64encode(ocsp_response(d, d / "o.crt", "R")).decode()
    assert cli(sock, "set ssl ocsp-response " + resp) == "OCSP Response updated!\n\n"
    assert stapled_status(port) == "revoked"
    # as a payload, wrapped over lines
    good = base64.encodebytes(ocsp_response(d, d / "o.crt", "V")).decode()
    assert cli(sock, "set ssl ocsp-response <<\n%s" % good) == "OCSP Response updated!\n\n"
    assert stapled_status(port) == "good"
