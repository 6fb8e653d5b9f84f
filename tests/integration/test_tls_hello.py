"""The ClientHello fetches (req.ssl_sni, req.ssl_hello_type, req.ssl_ver, req.ssl_alpn,
req.ssl_ec_ext, req.ssl_st_ext and the old req_ssl_* names) as a user of a `mode http`
frontend sees them: HAProxy 2.6 warns at startup that these raw-byte fetches are ignored on
HTTP proxies, and a real ClientHello from `openssl s_client` sent to such a frontend gets the
400 of a request that is not HTTP, whatever the rules say. (Their values on raw bytes are
checked by tests/unit/sample/test_tls_hello.c against the numbers 2.6 gives.)"""
import socket
import subprocess

import httpc
from conftest import free_port, run_haproxy

HDR = ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 5s",
       "    timeout server 5s", "frontend fe"]


def capture_hello(*args):
    """The first bytes `openssl s_client ARGS` sends to a server: its ClientHello."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(1)
    ls.settimeout(10)
    port = ls.getsockname()[1]
    cl = subprocess.Popen(["openssl", "s_client", "-connect", "127.0.0.1:%d" % port] +
                          list(args), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    data = b""
    try:
        c, _ = ls.accept()
        c.settimeout(5)
        for _ in range(50):
            if len(data) >= 5 and len(data) >= 5 + int.from_bytes(data[3:5], "big"):
                break
            d = c.recv(65536)
            if not d:
                break
            data += d
        c.close()
    finally:
        ls.close()
        cl.kill()
        cl.wait(5)
    assert data[:1] == b"\x16" and len(data) > 100
    return data


def exchange(port, data):
    """Sends <data>, returns every byte the proxy answers until it closes."""
    out = b""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(data)
        for _ in range(100):
            try:
                d = s.recv(65536)
            except (ConnectionResetError, socket.timeout):
                break
            if not d:
                break
            out += d
    return out


def start(proxy, rules):
    port = free_port()
    lines = HDR + ["    bind 127.0.0.1:%d" % port, "    tcp-request inspect-delay 2s"]
    lines += ["    " + r for r in rules]
    lines += ["    http-request return status 200 content-type text/plain string ok"]
    p = proxy("\n".join(lines) + "\n", ports=[port])
    return p, port


def test_sni_rule_is_ignored_on_http_frontend(proxy):
    """`reject if { req.ssl_sni -m end .bad.test }` in mode http: 2.6 warns naming the
    line, and both names get the 400 of non-HTTP bytes; plain HTTP still passes."""
    p, port = start(proxy, ["tcp-request content reject if { req.ssl_sni -m end .bad.test }"])
    assert ("Proxy 'fe': L6 sample fetches ignored on HTTP proxies (declared at %s:9)."
            % p.cfg_path) in p.stderr()
    for name in ("x.bad.test", "www.good.test"):
        got = exchange(port, capture_hello("-servername", name))
        assert got.startswith(b"HTTP/1.1 400 Bad request\r\n")
        assert b"Your browser sent an invalid request." in got
    r = httpc.get(port)
    assert r.status == 200 and r.body == b"ok"


def test_hello_type_ver_alpn_rules_on_http_frontend(proxy):
    """Rules on req.ssl_hello_type, req.ssl_ver (versions written MAJOR.MINOR, or with
    -m int the number 2.6 gives a TLS 1.2/1.3 hello: 3 * 65536 + 3), req.ssl_alpn and the old
    names: one warning per rule, a 400 for a
    ClientHello with ALPN h2, and nothing set from an HTTP request."""
    rules = ["tcp-request content reject if { req.ssl_hello_type 1 }",
             "tcp-request content reject if { req.ssl_ver 3.3 }",
             "tcp-request content reject if { req.ssl_alpn h2 }",
             "tcp-request content reject if { req_ssl_ver 3.1:3.3 } || { req_ssl_hello_type 1 }",
             "tcp-request content reject if { req.ssl_ver -m int 196611 }",
             "tcp-request content reject if { req.ssl_ec_ext } || { req.ssl_st_ext 1 }",
             "tcp-request content reject if { req_ssl_sni -m found }"]
    p, port = start(proxy, rules)
    err = p.stderr()
    for line in range(9, 9 + len(rules)):
        assert "L6 sample fetches ignored on HTTP proxies (declared at %s:%d)." % (
            p.cfg_path, line) in err
    got = exchange(port, capture_hello("-servername", "a.test", "-alpn", "h2,http/1.1"))
    assert got.startswith(b"HTTP/1.1 400 Bad request\r\n")
    r = httpc.get(port)
    assert r.status == 200 and r.body == b"ok"


def test_set_var_from_hello_fetches_on_http_request(proxy):
    """The fetches find nothing in an HTTP request: the variables stay unset."""
    port = free_port()
    lines = HDR + ["    bind 127.0.0.1:%d" % port, "    tcp-request inspect-delay 2s",
                   "    tcp-request content set-var(txn.v) req.ssl_ver",
                   "    tcp-request content set-var(txn.t) req.ssl_hello_type",
                   "    tcp-request content set-var(txn.s) req.ssl_sni",
                   "    tcp-request content set-var(txn.a) req.ssl_alpn",
                   "    tcp-request content set-var(txn.st) req.ssl_st_ext",
                   "    http-request return status 200 content-type text/plain lf-string "
                   "\"v=%[var(txn.v)] t=%[var(txn.t)] s=%[var(txn.s)] a=%[var(txn.a)] "
                   "st=%[var(txn.st)]\""]
    proxy("\n".join(lines) + "\n", ports=[port])
    r = httpc.get(port)
    assert r.status == 200 and r.body == b"v= t= s= a= st="


def test_ssl_ver_acl_takes_dotted_versions(tmp_path):
    """The req.ssl_ver ACL reads MAJOR.MINOR: a plain number over 65535 is a config error
    naming the line, as in 2.6."""
    cfg = tmp_path / "v.cfg"
    cfg.write_text("\n".join(HDR + ["    bind 127.0.0.1:%d" % free_port(),
                                     "    tcp-request content reject if { req.ssl_ver 3.3 }",
                                     "    tcp-request content reject if { req.ssl_ver 196611 }",
                                     "    tcp-request content reject if { req_ssl_ver 3.70000 }"])
                   + "\n")
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    assert "v.cfg:8" not in r.stderr
    assert "v.cfg:9] : " in r.stderr and "'196611' is not a dotted number" in r.stderr
    assert "v.cfg:10] : " in r.stderr and "'3.70000' is not a dotted number" in r.stderr
