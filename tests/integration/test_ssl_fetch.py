"""The TLS sample fetches, the TLS log fields and the handshake-failure log line.

Owns: what a client sees of the ssl_fc_* / ssl_c_* / ssl_f_* fetches (echoed by
`http-request return ... lf-string`), of the ClientHello capture (ssl_fc_cipherlist_*,
ssl_fc_eclist_bin...), of ssl_bc_* / ssl_s_* (response headers of a TLS server), the ACL
derivatives (ssl_fc_sni_end), ssl_fc_is_resumed on a resumed TLS 1.2 session, `redirect
scheme https if !{ ssl_fc }`, and what a log reader sees: the TLS fields of `option
httpslog`, %sslv/%sslc, '~' after %ft, and the "SSL handshake failure" / "Connection
closed during SSL handshake" / "Timeout during SSL handshake" lines with dontlognull and
log-separate-errors. Certificates are made by the test with the openssl CLI. Expectations
were taken from Debian's /usr/sbin/haproxy 2.6 (HAPROXY_BIN=/usr/sbin/haproxy runs them
against it).
"""

import hashlib
import re
import socket
import ssl
import subprocess
import time

import pytest
from conftest import free_port
from syslog_sink import Sink

DATE = r"\[\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d\.\d{3}\]"


def _openssl(*args):
    subprocess.run(["openssl"] + list(args), check=True, timeout=30,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A CA, a server certificate for www.test.local, a client certificate signed by the
    CA (serial 0x0a1b2c) and a self-signed one."""
    d = tmp_path_factory.mktemp("pki")
    p = {k: str(d / k) for k in ("ca.key", "ca.pem", "srv.key", "srv.csr", "srv.crt",
                                  "srv.pem", "cli.key", "cli.csr", "cli.crt", "bad.key",
                                  "bad.crt")}
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", p["ca.key"],
             "-out", p["ca.pem"], "-days", "30", "-subj", "/C=FR/O=Test CA/CN=Test Root")
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", p["srv.key"], "-out",
             p["srv.csr"], "-subj", "/CN=www.test.local")
    _openssl("x509", "-req", "-in", p["srv.csr"], "-CA", p["ca.pem"], "-CAkey", p["ca.key"],
             "-set_serial", "0x1234", "-out", p["srv.crt"], "-days", "30")
    with open(p["srv.pem"], "w") as f:
        f.write(open(p["srv.crt"]).read() + open(p["srv.key"]).read())
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", p["cli.key"], "-out",
             p["cli.csr"], "-subj", "/C=FR/O=Acme/OU=Dev/OU=Ops/CN=alice")
    _openssl("x509", "-req", "-in", p["cli.csr"], "-CA", p["ca.pem"], "-CAkey", p["ca.key"],
             "-set_serial", "0x0a1b2c", "-out", p["cli.crt"], "-days", "30")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", p["bad.key"],
             "-out", p["bad.crt"], "-days", "30", "-subj", "/CN=mallory")
    return p


def der_of(pem_path):
    return ssl.PEM_cert_to_DER_cert(open(pem_path).read())


def https_get(port, sni="www.test.local", cert=None, key=None, alpn=("http/1.1",),
              max_ver=None, path="/"):
    """One HTTP/1.1 request over TLS; returns (status line, headers, body, tls info)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    if cert:
        ctx.load_cert_chain(cert, key)
    if alpn:
        ctx.set_alpn_protocols(list(alpn))
    if max_ver:
        ctx.maximum_version = max_ver
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        with ctx.wrap_socket(raw, server_hostname=sni) as s:
            info = {"version": s.version(), "cipher": s.cipher()}
            s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path)
                      .encode())
            data, deadline = b"", time.monotonic() + 5
            while time.monotonic() < deadline:
                try:
                    chunk = s.recv(65536)
                except (ssl.SSLError, OSError):
                    break
                if not chunk:
                    break
                data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode(errors="replace").split("\r\n")
    return lines[0], lines[1:], body.decode(errors="replace"), info


def kv(body):
    out = {}
    for line in body.splitlines():
        k, sep, v = line.partition("=")
        if sep:
            out[k] = v
    return out


def lf_list(names):
    return "".join("%s=%%[%s]\\n" % (n, n) for n in names)


def cfg_fe(port, bind_opts, names, glob="", extra=""):
    return """global
%s
defaults
    mode http
    timeout client 5s
    timeout server 5s
    timeout connect 5s
frontend fe
    bind 127.0.0.1:%d %s
%s
    http-request return status 200 content-type text/plain lf-string "%s"
""" % (glob, port, bind_opts, extra, lf_list(names))


FC = ["ssl_fc", "ssl_fc_sni", "ssl_fc_has_sni", "ssl_fc_protocol", "ssl_fc_cipher",
      "ssl_fc_use_keysize", "ssl_fc_alg_keysize", "ssl_fc_alpn", "ssl_fc_npn",
      "ssl_fc_is_resumed", "ssl_fc_has_crt", "ssl_fc_has_early", "ssl_fc_err",
      "ssl_fc_err_str", "ssl_fc_session_id,hex", "ssl_fc_client_random,hex",
      "ssl_fc_server_random,hex", "ssl_fc_unique_id,hex", "ssl_fc_session_key,hex",
      "ssl_c_used", "ssl_c_verify", "ssl_c_err", "ssl_c_ca_err", "ssl_c_ca_err_depth",
      "ssl_c_s_dn", "ssl_c_i_dn", "ssl_c_s_dn(CN)", "ssl_c_s_dn(OU)", "ssl_c_s_dn(OU,1)",
      "ssl_c_s_dn(OU,-1)", "ssl_c_s_dn(OU,3)", "ssl_c_s_dn(,0,rfc2253)",
      "ssl_c_i_dn(,0,rfc2253)", "ssl_c_i_dn(O)", "ssl_c_serial,hex", "ssl_c_sha1,hex",
      "ssl_c_der,hex", "ssl_c_key_alg", "ssl_c_sig_alg", "ssl_c_notbefore",
      "ssl_c_notafter", "ssl_c_version", "ssl_f_s_dn", "ssl_f_i_dn", "ssl_f_serial,hex",
      "ssl_f_sha1,hex", "ssl_f_der,hex", "ssl_f_key_alg", "ssl_f_sig_alg", "ssl_f_version"]


def test_front_fetches_with_client_certificate(proxy, pki):
    port = free_port()
    bind = "ssl crt %s ca-file %s verify optional alpn h2,http/1.1" % (pki["srv.pem"],
                                                                        pki["ca.pem"])
    proxy(cfg_fe(port, bind, FC), ports=[port])
    status, _, body, info = https_get(port, cert=pki["cli.crt"], key=pki["cli.key"])
    assert status == "HTTP/1.1 200 OK"
    v = kv(body)
    assert v["ssl_fc"] == "1"
    assert v["ssl_fc_sni"] == "www.test.local" and v["ssl_fc_has_sni"] == "1"
    assert v["ssl_fc_protocol"] == info["version"] == "TLSv1.3"
    assert v["ssl_fc_cipher"] == info["cipher"][0]
    assert v["ssl_fc_use_keysize"] == v["ssl_fc_alg_keysize"] == str(info["cipher"][2])
    assert v["ssl_fc_alpn"] == "http/1.1" and v["ssl_fc_npn"] == ""
    assert v["ssl_fc_is_resumed"] == "0" and v["ssl_fc_has_early"] == "0"
    assert v["ssl_fc_has_crt"] == "1" and v["ssl_fc_err"] == "0" and v["ssl_fc_err_str"] == ""
    assert re.fullmatch(r"[0-9A-F]{64}", v["ssl_fc_session_id,hex"])
    assert re.fullmatch(r"[0-9A-F]{64}", v["ssl_fc_client_random,hex"])
    assert re.fullmatch(r"[0-9A-F]{64}", v["ssl_fc_server_random,hex"])
    assert re.fullmatch(r"[0-9A-F]{96}", v["ssl_fc_unique_id,hex"])  # SHA-384 Finished
    assert re.fullmatch(r"[0-9A-F]+", v["ssl_fc_session_key,hex"])
    assert v["ssl_c_used"] == "1" and v["ssl_c_verify"] == "0"
    assert v["ssl_c_err"] == v["ssl_c_ca_err"] == v["ssl_c_ca_err_depth"] == "0"
    assert v["ssl_c_s_dn"] == "/C=FR/O=Acme/OU=Dev/OU=Ops/CN=alice"
    assert v["ssl_c_i_dn"] == "/C=FR/O=Test CA/CN=Test Root"
    assert v["ssl_c_s_dn(CN)"] == "alice"
    assert v["ssl_c_s_dn(OU)"] == "Dev"  # the first one by default
    assert v["ssl_c_s_dn(OU,1)"] == "Dev" and v["ssl_c_s_dn(OU,-1)"] == "Ops"
    assert v["ssl_c_s_dn(OU,3)"] == ""
    assert v["ssl_c_s_dn(,0,rfc2253)"] == "CN=alice,OU=Ops,OU=Dev,O=Acme,C=FR"
    assert v["ssl_c_i_dn(,0,rfc2253)"] == "CN=Test Root,O=Test CA,C=FR"
    assert v["ssl_c_i_dn(O)"] == "Test CA"
    assert v["ssl_c_serial,hex"] == "0A1B2C"
    cder, sder = der_of(pki["cli.crt"]), der_of(pki["srv.crt"])
    assert v["ssl_c_sha1,hex"] == hashlib.sha1(cder).hexdigest().upper()
    assert v["ssl_c_der,hex"] == cder.hex().upper()
    assert v["ssl_c_key_alg"] == "rsaEncryption" and v["ssl_c_sig_alg"] == "RSA-SHA256"
    assert re.fullmatch(r"\d{12}Z", v["ssl_c_notbefore"])
    assert re.fullmatch(r"\d{12}Z", v["ssl_c_notafter"])
    assert v["ssl_c_notafter"] > v["ssl_c_notbefore"]
    assert v["ssl_c_version"] in ("1", "3")
    assert v["ssl_f_s_dn"] == "/CN=www.test.local"
    assert v["ssl_f_i_dn"] == "/C=FR/O=Test CA/CN=Test Root"
    assert v["ssl_f_serial,hex"] == "1234"
    assert v["ssl_f_sha1,hex"] == hashlib.sha1(sder).hexdigest().upper()
    assert v["ssl_f_der,hex"] == sder.hex().upper()
    assert v["ssl_f_key_alg"] == "rsaEncryption" and v["ssl_f_sig_alg"] == "RSA-SHA256"


def test_front_fetches_without_client_certificate_tls12(proxy, pki):
    port = free_port()
    bind = "ssl crt %s ca-file %s verify optional" % (pki["srv.pem"], pki["ca.pem"])
    proxy(cfg_fe(port, bind, FC), ports=[port])
    status, _, body, info = https_get(port, sni=None, alpn=None,
                                      max_ver=ssl.TLSVersion.TLSv1_2)
    assert status == "HTTP/1.1 200 OK"
    v = kv(body)
    assert v["ssl_fc"] == "1" and v["ssl_fc_protocol"] == "TLSv1.2" == info["version"]
    assert v["ssl_fc_sni"] == "" and v["ssl_fc_has_sni"] == "0" and v["ssl_fc_alpn"] == ""
    assert re.fullmatch(r"[0-9A-F]{24}", v["ssl_fc_unique_id,hex"])  # 12-byte Finished
    assert re.fullmatch(r"[0-9A-F]{96}", v["ssl_fc_session_key,hex"])  # master secret
    assert v["ssl_fc_has_crt"] == "0" and v["ssl_c_used"] == "0"
    assert v["ssl_c_verify"] == "0" and v["ssl_c_err"] == "0"
    for k in ("ssl_c_s_dn", "ssl_c_i_dn", "ssl_c_serial,hex", "ssl_c_der,hex",
              "ssl_c_notafter", "ssl_c_version", "ssl_c_key_alg"):
        assert v[k] == "", k
    assert v["ssl_f_s_dn"] == "/CN=www.test.local"


def test_ignored_verify_error_still_shows(proxy, pki):
    port = free_port()
    bind = ("ssl crt %s ca-file %s verify optional crt-ignore-err all ca-ignore-err all"
            % (pki["srv.pem"], pki["ca.pem"]))
    proxy(cfg_fe(port, bind, ["ssl_c_verify", "ssl_c_err", "ssl_c_ca_err", "ssl_c_used",
                              "ssl_c_s_dn"]), ports=[port])
    _, _, body, _ = https_get(port, cert=pki["bad.crt"], key=pki["bad.key"])
    v = kv(body)
    # X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, let through by crt-ignore-err
    assert v == {"ssl_c_verify": "18", "ssl_c_err": "18", "ssl_c_ca_err": "0",
                 "ssl_c_used": "1", "ssl_c_s_dn": "/CN=mallory"}


def test_plain_connection(proxy):
    port = free_port()
    names = ["ssl_fc", "ssl_fc_has_sni", "ssl_fc_is_resumed", "ssl_fc_protocol",
             "ssl_fc_has_crt", "ssl_c_used", "ssl_f_s_dn"]
    proxy(cfg_fe(port, "", names), ports=[port])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data, deadline = b"", time.monotonic() + 5
        while time.monotonic() < deadline:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    v = kv(data.partition(b"\r\n\r\n")[2].decode())
    assert v == {"ssl_fc": "0", "ssl_fc_has_sni": "0", "ssl_fc_is_resumed": "0",
                 "ssl_fc_protocol": "", "ssl_fc_has_crt": "", "ssl_c_used": "",
                 "ssl_f_s_dn": ""}


def test_client_hello_capture(proxy, pki):
    port = free_port()
    names = ["ssl_fc_cipherlist_hex", "ssl_fc_cipherlist_bin,hex", "ssl_fc_cipherlist_str",
             "ssl_fc_cipherlist_xxh", "ssl_fc_cipherlist_bin,xxh64",
             "ssl_fc_cipherlist_hex(1)", "ssl_fc_protocol_hello_id",
             "ssl_fc_ecformats_bin,hex", "ssl_fc_eclist_bin,hex", "ssl_fc_extlist_bin,hex",
             "ssl_fc_eclist_bin(1),hex", "ssl_fc_cipher"]
    proxy(cfg_fe(port, "ssl crt %s" % pki["srv.pem"], names,
                 glob="    tune.ssl.capture-cipherlist-size 800"), ports=[port])
    _, _, body, _ = https_get(port, max_ver=ssl.TLSVersion.TLSv1_2)
    v = kv(body)
    hexl = v["ssl_fc_cipherlist_hex"]
    assert re.fullmatch(r"([0-9A-F]{4})+", hexl)
    assert hexl == v["ssl_fc_cipherlist_bin,hex"] == v["ssl_fc_cipherlist_hex(1)"]
    assert v["ssl_fc_cipherlist_xxh"] == v["ssl_fc_cipherlist_bin,xxh64"]
    names_sent = v["ssl_fc_cipherlist_str"].split(",")
    assert len(names_sent) == len(hexl) // 4 and v["ssl_fc_cipher"] in names_sent
    assert v["ssl_fc_protocol_hello_id"] == "771"  # 0x0303
    assert v["ssl_fc_ecformats_bin,hex"] == "000102"
    assert re.fullmatch(r"([0-9A-F]{4})+", v["ssl_fc_eclist_bin,hex"])
    assert "001D" in v["ssl_fc_eclist_bin,hex"]  # x25519
    assert v["ssl_fc_eclist_bin(1),hex"] == v["ssl_fc_eclist_bin,hex"]  # no GREASE here
    ext = v["ssl_fc_extlist_bin,hex"]
    assert ext.startswith("0000") and "000A" in ext and "000D" in ext  # SNI first


def test_capture_off_finds_nothing(proxy, pki):
    port = free_port()
    proxy(cfg_fe(port, "ssl crt %s" % pki["srv.pem"],
                 ["ssl_fc_cipherlist_hex", "ssl_fc_cipherlist_xxh", "ssl_fc"]), ports=[port])
    _, _, body, _ = https_get(port)
    assert kv(body) == {"ssl_fc_cipherlist_hex": "", "ssl_fc_cipherlist_xxh": "",
                        "ssl_fc": "1"}


def test_acl_derivative_and_redirect(proxy, pki):
    tls, plain = free_port(), free_port()
    cfg = """defaults
    mode http
    timeout client 5s
    timeout server 5s
    timeout connect 5s
frontend fe
    bind 127.0.0.1:%d
    bind 127.0.0.1:%d ssl crt %s
    redirect scheme https code 301 if !{ ssl_fc }
    http-request return status 200 content-type text/plain string "sni-end" if { ssl_fc_sni_end .local }
    http-request return status 200 content-type text/plain string "other" if { ssl_fc }
""" % (plain, tls, pki["srv.pem"])
    proxy(cfg, ports=[plain, tls])
    with socket.create_connection(("127.0.0.1", plain), timeout=5) as s:
        s.sendall(b"GET /a HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n")
        resp = s.recv(4096).decode()
    assert resp.startswith("HTTP/1.1 301")
    assert "location: https://example.com/a\r\n" in resp.lower()
    assert https_get(tls, sni="www.test.local")[2] == "sni-end"
    assert https_get(tls, sni="www.example.com")[2] == "other"


def test_back_fetches(proxy, pki):
    fe, be = free_port(), free_port()
    cfg = """defaults
    mode http
    timeout client 5s
    timeout server 5s
    timeout connect 5s
frontend fe
    bind 127.0.0.1:%d
    default_backend be
backend be
    http-response set-header X-Bc "%%[ssl_bc] %%[ssl_bc_protocol] %%[ssl_bc_alpn] %%[ssl_bc_is_resumed] %%[ssl_bc_err] %%[ssl_bc_session_id,hex,length] %%[ssl_bc_unique_id,hex,length] %%[ssl_s_s_dn] %%[ssl_s_i_dn(CN)] %%[ssl_s_serial,hex] %%[ssl_s_key_alg]"
    http-response set-header X-Cipher "%%[ssl_bc_cipher] %%[ssl_bc_use_keysize] %%[ssl_bc_alg_keysize]"
    server s1 127.0.0.1:%d ssl verify none alpn http/1.1
frontend tls
    bind 127.0.0.1:%d ssl crt %s alpn http/1.1
    http-request return status 200 content-type text/plain string ok hdr X-Seen "%%[ssl_fc_cipher]"
""" % (fe, be, be, pki["srv.pem"])
    proxy(cfg, ports=[fe, be])
    with socket.create_connection(("127.0.0.1", fe), timeout=5) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data, deadline = b"", time.monotonic() + 5
        while time.monotonic() < deadline:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    hdrs = {}
    for line in data.partition(b"\r\n\r\n")[0].decode().split("\r\n")[1:]:
        k, _, val = line.partition(":")
        hdrs[k.strip().lower()] = val.strip()
    assert hdrs["x-bc"] == ("1 TLSv1.3 http/1.1 0 0 64 96 /CN=www.test.local Test Root 1234 "
                            "rsaEncryption")
    cipher, use, alg = hdrs["x-cipher"].split()
    assert cipher == hdrs["x-seen"] and use == alg and int(use) >= 128


@pytest.fixture
def sink():
    s = Sink()
    yield s
    s.close()


def log_cfg(sink, port, port2, pki, opts="", fmt="option httpslog"):
    return """global
    log 127.0.0.1:%d local0
defaults
    mode http
    log global
    timeout client 1s
    timeout server 5s
    timeout connect 5s
frontend fe
    bind 127.0.0.1:%d ssl crt %s ca-file %s verify required
    bind 127.0.0.1:%d name named ssl crt %s
    %s
%s
    http-request return status 200
""" % (sink.port, port, pki["srv.pem"], pki["ca.pem"], port2, pki["srv.pem"], fmt, opts)


def test_httpslog_fields(proxy, pki, sink):
    port, port2 = free_port(), free_port()
    proxy(log_cfg(sink, port, port2, pki), ports=[port, port2])
    sink.drain()
    https_get(port2)
    (pri, line), = sink.read(1)
    assert pri == 134
    assert re.fullmatch(r"127\.0\.0\.1:\d+ %s fe~ fe/<NOSRV> 0/-1/-1/-1/\d+ 200 \d+ - - LR-- "
                        r"1/1/0/0/0 0/0 \"GET / HTTP/1\.1\" 0/0000000000000000/0/0/0 "
                        r"www\.test\.local/TLSv1\.3/TLS_AES_256_GCM_SHA384" % DATE, line), line


def test_sslv_sslc_tags(proxy, pki, sink):
    port, port2 = free_port(), free_port()
    proxy(log_cfg(sink, port, port2, pki, fmt='log-format "%ft %sslv %sslc %[ssl_fc]"'),
          ports=[port, port2])
    sink.drain()
    _, _, _, info = https_get(port2)
    (_, line), = sink.read(1)
    assert line == "fe~ %s %s 1" % (info["version"], info["cipher"][0])


def _fail_handshakes(port, port2, pki):
    """A client without the required certificate, garbage, one that leaves at once and a
    silent one."""
    with pytest.raises((ssl.SSLError, OSError)):
        status = https_get(port)[0]
        if not status:  # TLS 1.3: the alert may only come with the response
            raise ssl.SSLError("no response")
    with socket.create_connection(("127.0.0.1", port2), timeout=5) as s:
        s.sendall(b"garbage\r\n\r\n")
        s.settimeout(3)
        try:
            s.recv(100)
        except OSError:
            pass
    socket.create_connection(("127.0.0.1", port2), timeout=5).close()
    time.sleep(0.2)
    with socket.create_connection(("127.0.0.1", port2), timeout=5) as s:
        s.settimeout(3)
        try:
            s.recv(100)  # the 1s client timeout closes it
        except OSError:
            pass


def test_handshake_failure_lines(proxy, pki, sink):
    port, port2 = free_port(), free_port()
    proxy(log_cfg(sink, port, port2, pki, fmt="option httplog"), ports=[port, port2])
    sink.drain()
    _fail_handshakes(port, port2, pki)
    got = sink.read(4, timeout=5)
    assert [p for p, _ in got] == [134, 134, 134, 134]
    # each thread sends its own lines: compare them in any order
    pat = re.compile(r"127\.0\.0\.1:\d+ %s fe/(1|named): (.*)" % DATE)
    seen = []
    for _, line in got:
        m = pat.fullmatch(line)
        assert m, line
        seen.append(m.groups())
    assert sorted(seen) == [("1", "SSL handshake failure"),
                            ("named", "Connection closed during SSL handshake"),
                            ("named", "SSL handshake failure"),
                            ("named", "Timeout during SSL handshake")]


def test_handshake_failure_dontlognull_separate_errors(proxy, pki, sink):
    port, port2 = free_port(), free_port()
    opts = "    option dontlognull\n    option log-separate-errors\n    option dontlog-normal"
    proxy(log_cfg(sink, port, port2, pki, opts=opts, fmt="option httplog"),
          ports=[port, port2])
    sink.drain()
    _fail_handshakes(port, port2, pki)
    got = sink.read(3, timeout=4)
    # the clients that left or sent nothing are dropped; the failures come at "err"
    assert [p for p, _ in got] == [131, 131]
    assert sorted(line.split(" ", 2)[2] for _, line in got) == [
        "fe/1: SSL handshake failure", "fe/named: SSL handshake failure"]


def test_resumed_session(proxy, pki):
    port = free_port()
    proxy(cfg_fe(port, "ssl crt %s" % pki["srv.pem"],
                 ["ssl_fc_is_resumed", "ssl_fc_session_id,hex"]), ports=[port])
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    ctx.maximum_version = ssl.TLSVersion.TLSv1_2
    got, sess = [], None
    for _ in range(2):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
            with ctx.wrap_socket(raw, server_hostname="www.test.local", session=sess) as s:
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                data, deadline = b"", time.monotonic() + 5
                while time.monotonic() < deadline:
                    try:
                        chunk = s.recv(65536)
                    except (ssl.SSLError, OSError):
                        break
                    if not chunk:
                        break
                    data += chunk
                sess = s.session
                got.append(kv(data.partition(b"\r\n\r\n")[2].decode()))
    assert got[0]["ssl_fc_is_resumed"] == "0"
    assert got[1]["ssl_fc_is_resumed"] == "1"
