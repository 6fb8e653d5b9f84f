"""crt-list files: which certificate each SNI gets, per-line TLS options seen by the client
(ALPN, minimum version), "!name" exclusions and the default certificate, config errors
naming the list's file and line, and the runtime API (show/add/del ssl crt-list)."""
import re
import subprocess

import pytest

from conftest import IS_REF, cli, free_port, run_haproxy, wait_port


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = tmp_path_factory.mktemp("certs")
    for n in ("a", "b", "c", "d", "e"):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                        "-keyout", str(d / ("%s.key" % n)), "-out", str(d / ("%s.crt" % n)),
                        "-days", "30", "-subj", "/CN=%s.example.com" % n,
                        "-addext", "subjectAltName=DNS:%s.example.com,DNS:*.%s.test" % (n, n)],
                       check=True, capture_output=True, timeout=60)
        (d / ("%s.pem" % n)).write_text((d / ("%s.crt" % n)).read_text() +
                                        (d / ("%s.key" % n)).read_text())
    return d


def s_client(port, sni=None, alpn=None, extra=()):
    """(certificate CN or None, negotiated protocol, ALPN or None) seen by openssl s_client."""
    args = ["openssl", "s_client", "-connect", "127.0.0.1:%d" % port]
    if sni:
        args += ["-servername", sni]
    else:
        args += ["-noservername"]
    if alpn:
        args += ["-alpn", alpn]
    args += list(extra)
    r = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=15)
    out = r.stdout
    m = re.search(r"subject=.*CN\s*=\s*([\w.*-]+)", out)
    proto = re.search(r"New, (TLSv[\d.]+)", out)
    a = re.search(r"ALPN protocol: (\S+)", out)
    return (m.group(1) if m else None, proto.group(1) if proto else None,
            a.group(1) if a else None)


LIST = """# the first certificate is the default
{d}/a.pem
{d}/b.pem [alpn h2 ssl-min-ver TLSv1.3] b.example.com *.b.test !x.b.test

{d}/c.pem [verify none]
"""


def start(tmp_path, certs, proxy, lst=LIST, binds=1, extra=""):
    lp = tmp_path / "list.txt"
    lp.write_text(lst.format(d=certs))
    sock = tmp_path / "s.sock"
    ports = [free_port() for _ in range(binds)]
    cfg = ["global", "    stats socket %s level admin" % sock, "defaults", "    mode http",
           "    timeout client 5s", "    timeout server 5s", "    timeout connect 5s",
           "frontend fe"]
    cfg += ["    bind 127.0.0.1:%d ssl crt-list %s" % (p, lp) for p in ports]
    cfg += ["    http-request return status 200", extra]
    p = proxy("\n".join(cfg) + "\n", ports=ports)
    return p, ports, str(lp), sock


def test_sni_selection_and_line_options(tmp_path, certs, proxy):
    _, (port,), _, _ = start(tmp_path, certs, proxy)
    assert s_client(port, "b.example.com")[0] == "b.example.com"
    assert s_client(port, "y.b.test")[0] == "b.example.com"
    # "!x.b.test" excludes the name from b's wildcard: the default answers
    assert s_client(port, "x.b.test")[0] == "a.example.com"
    # no filters: the certificate's own CN and SANs
    assert s_client(port, "c.example.com")[0] == "c.example.com"
    assert s_client(port, "q.c.test")[0] == "c.example.com"
    assert s_client(port, "unknown.org")[0] == "a.example.com"
    assert s_client(port, None)[0] == "a.example.com"
    # per-line options: ALPN and minimum version for b only
    cn, proto, alpn = s_client(port, "b.example.com", alpn="h2,http/1.1")
    assert (cn, proto, alpn) == ("b.example.com", "TLSv1.3", "h2")
    assert s_client(port, "a.example.com", alpn="h2,http/1.1")[2] is None
    assert s_client(port, "b.example.com", extra=["-tls1_2"])[0] is None
    cn, proto, _ = s_client(port, "a.example.com", extra=["-tls1_2"])
    assert (cn, proto) == ("a.example.com", "TLSv1.2")


@pytest.mark.ours
def test_crt_base_and_directory(tmp_path, certs, proxy):
    sub = tmp_path / "dir"
    sub.mkdir()
    for n in ("d", "e"):
        (sub / ("%s.pem" % n)).write_text((certs / ("%s.pem" % n)).read_text())
    lp = tmp_path / "l.txt"
    lp.write_text("a.pem\n%s [alpn h2]\n" % sub)
    port = free_port()
    cfg = ("global\n    crt-base %s\ndefaults\n    mode http\n    timeout client 5s\n"
           "    timeout server 5s\n    timeout connect 5s\nfrontend fe\n"
           "    bind 127.0.0.1:%d ssl crt-list %s\n    http-request return status 200\n"
           % (certs, port, lp))
    proxy(cfg, ports=[port])
    assert s_client(port, "zz.org")[0] == "a.example.com"
    assert s_client(port, "d.example.com", alpn="h2")[:3:2] == ("d.example.com", "h2")
    assert s_client(port, "e.example.com")[0] == "e.example.com"


@pytest.mark.parametrize("line,msg", [
    ("{d}/a.pem [bogus] x", "parsing [{l}:2]: unknown ssl keyword bogus"),
    ("{d}/a.pem ] x", "parsing [{l}:2]: missing '['"),
    ("{d}/a.pem [alpn h2] [ciphers X] x", "parsing [{l}:2]: too many '['"),
])
def test_config_errors_name_list_line(tmp_path, certs, line, msg):
    lp = tmp_path / "bad.txt"
    lp.write_text("# c\n" + line.format(d=certs) + "\n")
    cfg = tmp_path / "h.cfg"
    cfg.write_text("frontend fe\n    mode http\n    bind 127.0.0.1:1 ssl crt-list %s\n" % lp)
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    assert "[%s:3]" % cfg in r.stderr
    assert "'crt-list' : " + msg.format(l=lp) in r.stderr


def test_config_error_missing_file_and_cert(tmp_path, certs):
    cfg = tmp_path / "h.cfg"
    cfg.write_text("frontend fe\n    mode http\n    bind 127.0.0.1:1 ssl crt-list %s/no.txt\n"
                   % tmp_path)
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    assert ("'crt-list' : cannot open file '%s/no.txt' : No such file or directory"
            % tmp_path) in r.stderr
    lp = tmp_path / "l.txt"
    lp.write_text("%s/missing.pem\n" % tmp_path)
    cfg.write_text("frontend fe\n    mode http\n    bind 127.0.0.1:1 ssl crt-list %s\n" % lp)
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0 and "[%s:3]" % cfg in r.stderr
    assert "missing.pem" in r.stderr


@pytest.mark.ours
@pytest.mark.parametrize("line,msg", [
    ("{d}/a.pem [alpn h2", "missing ']'"),
    ("{d}/a.pem x [alpn h2]",
     "malformated line, filters can't be between filename and options!"),
])
def test_config_error_malformed_brackets(tmp_path, certs, line, msg):
    """2.6 accepts an unclosed '[' and loops for ever on options after filters; we refuse
    both lines."""
    lp = tmp_path / "bad.txt"
    lp.write_text(line.format(d=certs) + "\n")
    cfg = tmp_path / "h.cfg"
    cfg.write_text("frontend fe\n    mode http\n    bind 127.0.0.1:1 ssl crt-list %s\n" % lp)
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    assert "'crt-list' : parsing [%s:1]: %s" % (lp, msg) in r.stderr


def show(sock, cmd):
    """2.6 writes a NUL after an ALPN list: seen as the space we write."""
    return cli(sock, cmd).replace("\0", " ")


def test_cli_show(tmp_path, certs, proxy):
    _, _, lp, sock = start(tmp_path, certs, proxy)
    assert cli(sock, "show ssl crt-list") == lp + "\n\n"
    assert show(sock, "show ssl crt-list %s" % lp) == (
        "# %s\n%s/a.pem\n%s/b.pem [alpn h2  ssl-min-ver TLSv1.3] b.example.com *.b.test "
        "!x.b.test\n%s/c.pem [verify none]\n\n" % (lp, certs, certs, certs))
    assert show(sock, "show ssl crt-list -n %s" % lp).splitlines()[1:4] == [
        "%s/a.pem:2" % certs,
        "%s/b.pem:3 [alpn h2  ssl-min-ver TLSv1.3] b.example.com *.b.test !x.b.test" % certs,
        "%s/c.pem:5 [verify none]" % certs]
    assert cli(sock, "show ssl crt-list nope") == "didn't find the specified filename\n\n"
    assert cli(sock, "show ssl crt-list -n") == (
        "'show ssl crt-list -n' expects a filename or a directory\n\n")


def test_cli_add_del(tmp_path, certs, proxy):
    # d.pem is known to the process (another bind line serves it), as 2.6 requires
    _, ports, lp, sock = start(tmp_path, certs, proxy, binds=2, extra=(
        "frontend other\n    bind 127.0.0.1:%d ssl crt %s/d.pem\n" % (free_port(), certs)))
    for p in ports:
        assert s_client(p, "d.example.com")[0] == "a.example.com"
    out = cli(sock, "add ssl crt-list %s <<\n%s/d.pem [alpn h2] d.example.com\n" % (lp, certs))
    assert out == ("Inserting certificate '%s/d.pem' in crt-list '%s'..\nSuccess!\n\n"
                   % (certs, lp))
    for p in ports:
        assert s_client(p, "d.example.com", alpn="h2")[:3:2] == ("d.example.com", "h2")
    assert show(sock, "show ssl crt-list -n %s" % lp).splitlines()[-2] == (
        "%s/d.pem:6 [alpn h2 ] d.example.com" % certs)
    # removal: the default answers again, on every bind line of the list
    assert cli(sock, "del ssl crt-list %s %s/d.pem:9" % (lp, certs)) == (
        "Can't delete the entry: found a certificate '%s/d.pem' but the line number is "
        "incorrect, please specify a correct line number preceded by colons (6)!\n\n" % certs)
    assert cli(sock, "del ssl crt-list %s %s/d.pem:6" % (lp, certs)) == (
        "Entry '%s/d.pem' deleted in crtlist '%s'!\n\n" % (certs, lp))
    for p in ports:
        assert s_client(p, "d.example.com")[0] == "a.example.com"
    assert cli(sock, "del ssl crt-list %s %s/b.pem" % (lp, certs)).startswith("Entry ")
    assert s_client(ports[0], "b.example.com")[0] == "a.example.com"
    assert cli(sock, "del ssl crt-list %s %s/b.pem" % (lp, certs)) == (
        "Can't delete the entry: certificate '%s/b.pem' can't be found in crt-list '%s'!\n\n"
        % (certs, lp))
    # the default certificate stays
    out = cli(sock, "del ssl crt-list %s %s/a.pem" % (lp, certs))
    assert out.startswith("Can't delete the entry: certificate '%s/a.pem' cannot be deleted, "
                          "it is used as default certificate by the following frontends:\n"
                          % certs)
    assert out.count("\t- ") == 2
    assert s_client(ports[1], None)[0] == "a.example.com"


def test_cli_errors(tmp_path, certs, proxy):
    _, _, lp, sock = start(tmp_path, certs, proxy)
    assert cli(sock, "add ssl crt-list %s" % lp) == (
        "'add ssl crtlist' expects a filename and a certificate name\n\n")
    assert cli(sock, "del ssl crt-list %s" % lp) == (
        "'del ssl crtlist' expects a filename and a certificate name\n\n")
    assert cli(sock, "add ssl crt-list nope %s/a.pem" % certs) == (
        "Can't edit the crt-list: crt-list 'nope' does not exist!\n\n")
    assert cli(sock, "add ssl crt-list %s %s/zz.pem" % (lp, certs)) == (
        "Can't edit the crt-list: certificate '%s/zz.pem' does not exist!\n\n" % certs)
    assert cli(sock, "del ssl crt-list %s %s/zz.pem" % (lp, certs)) == (
        "Can't delete the entry: certificate '%s/zz.pem' does not exist!\n\n" % certs)
    assert cli(sock, "add ssl crt-list %s <<\n%s/c.pem [bogus]\n" % (lp, certs)) == (
        "Can't edit the crt-list: parsing [CLI:1]: unknown ssl keyword bogus\n\n")
    # nothing changed, the list is as loaded
    assert len(cli(sock, "show ssl crt-list %s" % lp).splitlines()) == 5


@pytest.mark.ours
def test_cli_add_loads_from_disk(tmp_path, certs, proxy):
    """2.6 only adds certificates already in its store ("new ssl cert"); we load the file."""
    _, (port,), lp, sock = start(tmp_path, certs, proxy)
    out = cli(sock, "add ssl crt-list %s %s/e.pem" % (lp, certs))
    assert out.endswith("Success!\n\n")
    assert s_client(port, "e.example.com")[0] == "e.example.com"


def test_cli_admin_level(tmp_path, certs, proxy):
    lp = tmp_path / "list.txt"
    lp.write_text(LIST.format(d=certs))
    sock = tmp_path / "u.sock"
    port = free_port()
    cfg = ("global\n    stats socket %s level operator\ndefaults\n    mode http\n"
           "    timeout client 5s\n    timeout server 5s\n    timeout connect 5s\n"
           "frontend fe\n    bind 127.0.0.1:%d ssl crt-list %s\n"
           "    http-request return status 200\n" % (sock, port, lp))
    proxy(cfg, ports=[port])
    assert cli(sock, "del ssl crt-list %s %s/b.pem" % (lp, certs)) == "Permission denied\n\n"
    assert cli(sock, "show ssl crt-list %s" % lp) == "Permission denied\n\n"
    assert s_client(port, "b.example.com")[0] == "b.example.com"


def test_cli_add_del_under_handshakes(tmp_path, certs, proxy):
    """Lines added and removed while other threads run handshakes on them: every handshake
    gets a certificate of the list and the proxy stays up."""
    import threading
    lp = tmp_path / "list.txt"
    lp.write_text(LIST.format(d=certs))
    sock = tmp_path / "s.sock"
    port = free_port()
    cfg = ("global\n    nbthread 2\n    stats socket %s level admin\ndefaults\n    mode http\n"
           "    timeout client 5s\n    timeout server 5s\n    timeout connect 5s\n"
           "frontend fe\n    bind 127.0.0.1:%d ssl crt-list %s\n"
           "    http-request return status 200\n"
           "frontend other\n    bind 127.0.0.1:%d ssl crt %s/d.pem\n"
           % (sock, port, lp, free_port(), certs))
    p = proxy(cfg, ports=[port])
    seen, stop = [], threading.Event()

    def client():
        for _ in range(200):
            if stop.is_set():
                return
            seen.append(s_client(port, "d.example.com", alpn="h2")[0])

    t = threading.Thread(target=client)
    t.start()
    try:
        for _ in range(15):
            out = cli(sock, "add ssl crt-list %s <<\n%s/d.pem [alpn h2 verify optional "
                      "ca-file %s/a.crt] d.example.com\n" % (lp, certs, certs))
            if "Success!" not in out:  # 2.6 refuses a ca-file outside its store
                out = cli(sock, "add ssl crt-list %s <<\n%s/d.pem [alpn h2] d.example.com\n"
                          % (lp, certs))
            assert out.endswith("Success!\n\n")
            assert cli(sock, "del ssl crt-list %s %s/d.pem" % (lp, certs)).startswith("Entry ")
    finally:
        stop.set()
        t.join(60)
    assert p.alive()
    assert seen and set(seen) <= {"a.example.com", "d.example.com"}
