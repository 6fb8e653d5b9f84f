"""TLS session resumption on bind lines: ticket keys from a `tls-ticket-keys` file (and
their rotation through `show tls-keys` / `set ssl tls-key`), OpenSSL's own ticket keys,
the session cache (`tune.ssl.cachesize`, `tune.ssl.lifetime`, `no-tls-tickets`), and the
key log fetches of `tune.ssl.keylog`.

Owns: what `openssl s_client -sess_out/-sess_in` reports ("New" or "Reused") in TLS 1.2
and 1.3, across certificates of one bind line and across processes sharing a keys file;
the runtime API answers of HAProxy 2.6; the config errors naming the keys file and line.
"""

import base64
import os
import subprocess
import time

import pytest
from conftest import HAPROXY_BIN, IS_REF, cli, free_port, run_haproxy, stop_pid_proc, wait_port

GLOBAL = """global
    nbthread 4
    stats socket {sock} level admin
    stats socket {sock}.user level user
    stats socket {sock}.oper level operator
{glob}
defaults
    mode http
    timeout connect 2s
    timeout client 5s
    timeout server 5s
frontend fe
{binds}
    http-request return status 200 content-type text/plain lf-string "{body}"
"""


def make_cert(d, cn):
    """A self-signed certificate for <cn> (and *.<cn>) with its key, in one PEM."""
    key, crt, pem = d / (cn + ".key"), d / (cn + ".crt"), d / (cn + ".pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=" + cn, "-addext", "subjectAltName=DNS:%s" % cn,
                    "-keyout", str(key), "-out", str(crt)],
                   check=True, capture_output=True, timeout=30)
    pem.write_text(crt.read_text() + key.read_text())
    return pem


def make_keys(d, n=3, size=48, name="keys"):
    keys = [base64.b64encode(os.urandom(size)).decode() for _ in range(n)]
    path = d / name
    path.write_text("\n".join(keys) + "\n")
    return path, keys


@pytest.fixture
def tls(tmp_path, proxy):
    """Factory: tls(binds, glob="", body="ok") -> (ports, sock) of a running proxy whose
    bind lines are "bind 127.0.0.1:{port} ..." templates ({a} and {b}: certificates)."""
    a = make_cert(tmp_path, "a.test")
    b = make_cert(tmp_path, "b.test")

    def start(binds, glob="", body="ok", name=None, ports=None):
        ports = ports or [free_port() for _ in binds]
        sock = tmp_path / ("%s.sock" % (name or "cli"))
        lines = "\n".join("    bind 127.0.0.1:%d " % p + x.format(a=a, b=b, d=tmp_path)
                          for p, x in zip(ports, binds))
        cfg = GLOBAL.format(sock=sock, glob=glob, binds=lines, body=body)
        start.last = proxy(cfg, ports=ports, name=name)
        # the runtime API sockets: the ports may answer a moment before they exist
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not all(
                os.path.exists(str(sock) + sfx) for sfx in ("", ".user", ".oper")):
            time.sleep(0.05)
        return ports, sock

    return start


def s_client(port, tmp_path, ver="1_3", sess_in=None, sess_out=None, sni="a.test",
             extra=()):
    """One HTTP/1.0 request through openssl s_client; returns "New" or "Reused"."""
    cmd = ["openssl", "s_client", "-connect", "127.0.0.1:%d" % port, "-tls" + ver,
           "-servername", sni, "-ign_eof"] + list(extra)
    if sess_in and sess_in.exists() and sess_in.stat().st_size:
        cmd += ["-sess_in", str(sess_in)]  # none when the server gave nothing to resume
    if sess_out:
        cmd += ["-sess_out", str(sess_out)]
    r = subprocess.run(cmd, input=b"GET / HTTP/1.0\r\n\r\n", capture_output=True,
                       timeout=10)
    out = r.stdout.decode(errors="replace")
    for line in out.splitlines():
        if line.startswith("New,") or line.startswith("Reused,"):
            return line.split(",")[0]
    return "failed: " + out[-300:]


def resumes(port, tmp_path, ver, sni2=None, extra=(), wait=0.0):
    sess = tmp_path / ("sess%d" % time.monotonic_ns())
    first = s_client(port, tmp_path, ver, sess_out=sess, extra=extra)
    assert first == "New"
    if wait:
        time.sleep(wait)
    return s_client(port, tmp_path, ver, sess_in=sess, sni=sni2 or "a.test", extra=extra)


@pytest.mark.parametrize("ver", ["1_2", "1_3"])
def test_resumption_tickets_and_cache(tls, tmp_path, ver):
    """Tickets with the file's keys, with OpenSSL's own keys, and the session cache (TLS
    1.2 without tickets): the second connection reports Reused, also with the other SNI
    certificate of the same bind line."""
    keys, _ = make_keys(tmp_path)
    ports, _ = tls(["ssl crt {a} crt {b} tls-ticket-keys %s" % keys,
                    "ssl crt {a} crt {b}",
                    "ssl crt {a} crt {b} no-tls-tickets"])
    for p in ports:
        assert resumes(p, tmp_path, ver) == "Reused"
        assert resumes(p, tmp_path, ver, sni2="b.test") == "Reused"
    if ver == "1_2":
        assert resumes(ports[1], tmp_path, ver, extra=["-no_ticket"]) == "Reused"


def test_cachesize_zero_and_lifetime(tls, tmp_path):
    """tune.ssl.cachesize 0 disables the cache: a TLS 1.2 client without tickets never
    resumes (tickets still do); tune.ssl.lifetime bounds how long a session resumes."""
    ports, _ = tls(["ssl crt {a}"], glob="    tune.ssl.cachesize 0", name="nocache")
    assert resumes(ports[0], tmp_path, "1_2", extra=["-no_ticket"]) == "New"
    assert resumes(ports[0], tmp_path, "1_2") == "Reused"
    ports, _ = tls(["ssl crt {a}"], glob="    tune.ssl.lifetime 1", name="short")
    assert resumes(ports[0], tmp_path, "1_2", extra=["-no_ticket"]) == "Reused"
    assert resumes(ports[0], tmp_path, "1_2", extra=["-no_ticket"], wait=2.5) == "New"
    assert resumes(ports[0], tmp_path, "1_3", wait=2.5) == "New"


def test_keys_file_shared_across_processes(tls, tmp_path):
    """A second process (a reload) reading the same keys file resumes the first one's
    tickets, TLS 1.2 and 1.3; a process with another keys file does not."""
    keys, _ = make_keys(tmp_path, size=80)
    other, _ = make_keys(tmp_path, size=80, name="other")
    port = free_port()
    s13, s12 = tmp_path / "s13", tmp_path / "s12"
    tls(["ssl crt {a} tls-ticket-keys %s" % keys], name="first", ports=[port])
    assert s_client(port, tmp_path, "1_3", sess_out=s13) == "New"
    assert s_client(port, tmp_path, "1_2", sess_out=s12) == "New"
    tls.last.stop()
    tls(["ssl crt {a} tls-ticket-keys %s" % keys], name="second", ports=[port])
    assert s_client(port, tmp_path, "1_3", sess_in=s13) == "Reused"
    assert s_client(port, tmp_path, "1_2", sess_in=s12) == "Reused"
    tls.last.stop()
    tls(["ssl crt {a} tls-ticket-keys %s" % other], name="third", ports=[port])
    assert s_client(port, tmp_path, "1_3", sess_in=s13) == "New"


@pytest.mark.skipif(not os.path.exists("/usr/sbin/haproxy"), reason="needs Debian's haproxy")
def test_tickets_resume_across_haproxy_and_us(tmp_path):
    """With the same keys file, a ticket issued by Debian's haproxy resumes on this proxy
    and the other way round (same ticket format and session id context): moving a
    listener between them keeps resumption working."""
    pem = make_cert(tmp_path, "a.test")
    keys, _ = make_keys(tmp_path)
    port = free_port()
    cfg = tmp_path / "x.cfg"
    cfg.write_text(GLOBAL.format(sock=tmp_path / "x.sock", glob="", body="ok",
                                 binds="    bind 127.0.0.1:%d ssl crt %s tls-ticket-keys %s"
                                 % (port, pem, keys)))

    def run(binary, ver, **kw):
        p = subprocess.Popen([binary, "-f", str(cfg)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        try:
            assert wait_port(port, 10.0, p)
            return s_client(port, tmp_path, ver, **kw)
        finally:
            stop_pid_proc(p)

    for ver in ("1_2", "1_3"):
        for first, second in (("/usr/sbin/haproxy", HAPROXY_BIN),
                              (HAPROXY_BIN, "/usr/sbin/haproxy")):
            sess = tmp_path / ("s%s%d" % (ver, time.monotonic_ns()))
            assert run(first, ver, sess_out=sess) == "New"
            assert run(second, ver, sess_in=sess) == "Reused"


def test_tls_keys_cli(tls, tmp_path):
    """show tls-keys lists the files and dumps the three keys kept (the last three of the
    file: the middle one encrypts); set ssl tls-key rotates; errors as HAProxy 2.6."""
    keys, k = make_keys(tmp_path, n=4)
    ports, sock = tls(["ssl crt {a} tls-ticket-keys %s" % keys, "ssl crt {a}"])
    assert cli(sock, "show tls-keys") == "# id (file)\n0 (%s)\n\n" % keys
    dump = "# id secret\n# 0 (%s)\n0.0 %s\n0.1 %s\n0.2 %s\n\n" % (keys, k[1], k[2], k[3])
    assert cli(sock, "show tls-keys *") == dump
    assert cli(sock, "show tls-keys #0") == dump
    assert cli(sock, "show tls-keys %s" % keys) == dump
    nf = "'show tls-keys' unable to locate referenced filename\n\n"
    assert cli(sock, "show tls-keys 0") == nf
    assert cli(sock, "show tls-keys #1") == nf
    # a session encrypted with the current key (k[2])
    s_old = tmp_path / "old"
    assert s_client(ports[0], tmp_path, "1_3", sess_out=s_old) == "New"
    usage = "'set ssl tls-key' expects a filename and the new TLS key in base64 encoding.\n\n"
    assert cli(sock, "set ssl tls-key") == usage
    assert cli(sock, "set ssl tls-key #0") == usage
    assert cli(sock, "set ssl tls-key #7 %s" % k[0]) == \
        "'set ssl tls-key' unable to locate referenced filename\n\n"
    assert cli(sock, "set ssl tls-key #0 abc") == \
        "'set ssl tls-key' received invalid base64 encoded TLS key.\n\n"
    big = base64.b64encode(os.urandom(80)).decode()
    assert cli(sock, "set ssl tls-key #0 %s" % big) == \
        "'set ssl tls-key' received a key of wrong size.\n\n"
    assert cli(sock, "show tls-keys #0") == dump  # nothing changed
    new = base64.b64encode(os.urandom(48)).decode()
    assert cli(sock, "set ssl tls-key #0 %s" % new) == "TLS ticket key updated!\n\n"
    assert cli(sock, "show tls-keys #0") == \
        "# id secret\n# 0 (%s)\n0.0 %s\n0.1 %s\n0.2 %s\n\n" % (keys, k[2], k[3], new)
    # k[2] still decrypts: the old session resumes
    assert s_client(ports[0], tmp_path, "1_3", sess_in=s_old) == "Reused"
    # two more rotations drop k[2]: the old session no longer resumes
    for _ in range(2):
        new = base64.b64encode(os.urandom(48)).decode()
        assert cli(sock, "set ssl tls-key %s %s" % (keys, new)) == "TLS ticket key updated!\n\n"
    assert s_client(ports[0], tmp_path, "1_3", sess_in=s_old) == "New"
    # a new session with the new encryption key resumes
    assert resumes(ports[0], tmp_path, "1_3") == "Reused"


def test_tls_keys_cli_levels(tls, tmp_path):
    """show tls-keys answers at every level, keys included (as 2.6)."""
    keys, k = make_keys(tmp_path)
    _, sock = tls(["ssl crt {a} tls-ticket-keys %s" % keys])
    assert cli(str(sock) + ".user", "show tls-keys") == "# id (file)\n0 (%s)\n\n" % keys
    assert cli(str(sock) + ".user", "show tls-keys #0") == \
        "# id secret\n# 0 (%s)\n0.0 %s\n0.1 %s\n0.2 %s\n\n" % (keys, k[0], k[1], k[2])


@pytest.mark.ours
def test_set_tls_key_needs_admin(tls, tmp_path):
    """set ssl tls-key changes state: level admin (HAProxy 2.6 does not check it)."""
    keys, k = make_keys(tmp_path)
    _, sock = tls(["ssl crt {a} tls-ticket-keys %s" % keys])
    new = base64.b64encode(os.urandom(48)).decode()
    assert cli(str(sock) + ".oper", "set ssl tls-key #0 %s" % new) == "Permission denied\n\n"
    assert new not in cli(sock, "show tls-keys #0")


@pytest.mark.parametrize("content,msg", [
    ("{k0}\n{k1}\n", "please supply at least 3 keys in the tls-tickets-file"),
    ("{k0}\nabc!!\n{k1}\n{k2}\n", "unable to decode base64 key on line 2"),
    ("{k0}\n{k1}\n{k2}\n{big}\n", "wrong sized key on line 4"),
    ("\n", "wrong sized key on line 1"),
    ("{k0}\n{k1}\n{k2}\n\n\n", "wrong sized key on line 4"),
    (None, "unable to load ssl tickets keys file"),
])
def test_keys_file_errors(tmp_path, content, msg):
    """A bad keys file is a config error naming the file and the line."""
    pem = make_cert(tmp_path, "a.test")
    path = tmp_path / "keys"
    if content is not None:
        k = [base64.b64encode(os.urandom(48)).decode() for _ in range(3)]
        path.write_text(content.format(k0=k[0], k1=k[1], k2=k[2],
                                       big=base64.b64encode(os.urandom(80)).decode()))
    cfg = tmp_path / "t.cfg"
    cfg.write_text(GLOBAL.format(sock=tmp_path / "s", glob="", body="ok",
                                 binds="    bind 127.0.0.1:%d ssl crt %s tls-ticket-keys %s"
                                 % (free_port(), pem, path)))
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    line = 1 + cfg.read_text().splitlines().index(
        next(x for x in cfg.read_text().splitlines() if "tls-ticket-keys" in x))
    assert "[%s:%d]" % (cfg, line) in r.stderr
    assert "'%s' : %s" % (path, msg) in r.stderr


LOG_BODY = ("CHTS=%[ssl_fc_client_handshake_traffic_secret] "
            "SHTS=%[ssl_fc_server_handshake_traffic_secret] "
            "CTS=%[ssl_fc_client_traffic_secret_0] STS=%[ssl_fc_server_traffic_secret_0] "
            "EXP=%[ssl_fc_exporter_secret] EEXP=%[ssl_fc_early_exporter_secret] "
            "CETS=%[ssl_fc_client_early_traffic_secret]")


def curl_keylog(port, tmp_path):
    kf = tmp_path / ("kl%d" % time.monotonic_ns())
    r = subprocess.run(["curl", "-sk", "--tlsv1.3", "https://127.0.0.1:%d/" % port],
                       capture_output=True, text=True, timeout=10,
                       env=dict(os.environ, SSLKEYLOGFILE=str(kf)))
    logged = {}
    if kf.exists():
        for line in kf.read_text().splitlines():
            label, _, secret = line.split(" ")
            logged[label] = secret
    return dict(x.split("=", 1) for x in r.stdout.split(" ")), logged


@pytest.mark.parametrize("on", [True, False])
def test_keylog_fetches(tls, tmp_path, on):
    """With tune.ssl.keylog on, the fetches give the secrets the client logged to its
    SSLKEYLOGFILE (hex); without it, they are not found (empty in a log-format)."""
    ports, _ = tls(["ssl crt {a}"], glob="    tune.ssl.keylog on" if on else "",
                   body=LOG_BODY)
    got, logged = curl_keylog(ports[0], tmp_path)
    assert logged, "curl wrote no SSLKEYLOGFILE"
    names = {"CHTS": "CLIENT_HANDSHAKE_TRAFFIC_SECRET", "SHTS": "SERVER_HANDSHAKE_TRAFFIC_SECRET",
             "CTS": "CLIENT_TRAFFIC_SECRET_0", "STS": "SERVER_TRAFFIC_SECRET_0"}
    for k, label in names.items():
        assert got[k] == (logged[label] if on else "")
    assert (len(got["EXP"]) == 96) == on  # SHA-384 suite: 48 bytes in hex
    assert got["EEXP"] == "" and got["CETS"] == ""  # no early data
