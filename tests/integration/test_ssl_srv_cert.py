"""A client certificate presented to servers (server ... crt F) follows the runtime API
like the certificates of bind lines: commit ssl cert gives new connections the new one,
del ssl cert refuses it while a server uses it. The proxy's own TLS frontend plays the
server and names the certificate it got."""
import shutil

from conftest import cli, free_port
from httpc import get


def cfg(port, tport, crt, sock, pki):
    return f"""global
    stats socket {sock} level admin
defaults
    mode http
    timeout connect 2s
    timeout client 5s
    timeout server 5s
frontend tls
    bind 127.0.0.1:{tport} ssl crt {pki.p("a.pem")} verify optional ca-file {pki.p("both-ca.crt")}
    http-request return status 200 content-type text/plain lf-string "cn=%[ssl_c_s_dn(cn)]"
frontend fe
    bind 127.0.0.1:{port}
    option http-server-close
    default_backend be
backend be
    server s1 127.0.0.1:{tport} ssl verify none no-ssl-reuse crt {crt}
"""


def test_commit_and_del_client_certificate(proxy, pki, port, tmp_path):
    tport = free_port()
    crt = tmp_path / "client.pem"
    shutil.copy(pki.p("client.pem"), crt)
    sock = tmp_path / "s.sock"
    proxy(cfg(port, tport, crt, sock, pki), ports=[port, tport])
    assert get(port, "/").body == b"cn=client1"
    out = cli(str(sock), "del ssl cert %s" % crt)
    assert "in use, can't be deleted!" in out
    new = open(pki.p("client_other.pem")).read()
    out = cli(str(sock), "set ssl cert %s <<\n%s\n" % (crt, new))
    assert "Transaction created" in out, out
    out = cli(str(sock), "commit ssl cert %s" % crt)
    assert "Success!" in out, out
    assert get(port, "/").body == b"cn=client-other"
