"""Log targets: where messages go and the header each format writes.

Owns: `log` lines (UDP with and without a port, unix datagram sockets, stdout), the eight
header formats, `len` truncation, `sample`, levels, `log-tag` per proxy,
`log-send-hostname`, `log global`, `no log` and the defaults' targets, a dead target that
never slows traffic, `DroppedLogs`. The messages are the per-request lines of
`option httplog` for a request answered by the proxy itself (`http-request return`), so
the text after the header is known; the expectations were taken from Debian's
/usr/sbin/haproxy 2.6 on the same configs (run with HAPROXY_BIN=/usr/sbin/haproxy).
"""

import re
import socket
import time

import pytest
from conftest import IS_REF, cli, free_port

ISO = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}[+-]\d\d:\d\d"
DATE3164 = r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d"
# the httplog line of "GET /p" answered 200 by the proxy itself
LINE = (r"127\.0\.0\.1:\d+ \[\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d\.\d{3}\] fe fe/<NOSRV> "
        r"\d+/-1/-1/-1/\d+ 200 \d+ - - LR-- \d+/\d+/0/0/0 0/0 \"GET /p HTTP/1\.1\"")


class Sink:
    """A datagram receiver (UDP on 127.0.0.1, or a unix socket path); bounded reads."""

    def __init__(self, path=None):
        if path:
            self.s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            self.s.bind(path)
            self.addr = path
        else:
            self.s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            self.s.bind(("127.0.0.1", 0))
            self.addr = "127.0.0.1:%d" % self.s.getsockname()[1]
        self.s.settimeout(0.2)

    def read(self, n=1, timeout=3.0):
        """Up to n datagrams, waiting at most timeout for all of them."""
        out, deadline = [], time.monotonic() + timeout
        while len(out) < n and time.monotonic() < deadline:
            try:
                out.append(self.s.recv(65536))
            except socket.timeout:
                pass
        return out

    def close(self):
        self.s.close()


@pytest.fixture
def sinks():
    made = []

    def make(path=None):
        s = Sink(path)
        made.append(s)
        return s
    yield make
    for s in made:
        s.close()


def cfg(port, glob=(), fe=(), defaults=()):
    lines = ["global"] + ["    " + g for g in glob]
    lines += ["defaults", "    mode http", "    timeout client 5s", "    timeout server 5s",
              "    timeout connect 5s"] + ["    " + d for d in defaults]
    lines += ["frontend fe", "    bind 127.0.0.1:%d" % port, "    option httplog",
              "    option dontlognull"]
    lines += ["    " + f for f in fe]
    lines += ["    http-request return status 200 content-type text/plain string ok"]
    return "\n".join(lines) + "\n"


def get(port, n=1, path="/p"):
    for _ in range(n):
        with socket.create_connection(("127.0.0.1", port), timeout=3) as c:
            c.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path.encode())
            c.settimeout(3)
            while c.recv(4096):
                pass


def test_header_formats(proxy, sinks):
    """Each format's header, over UDP, with the same line after it."""
    formats = {
        None: r"<134>%s haproxy\[\d+\]: " % DATE3164,
        "rfc3164": r"<134>%s localhost haproxy\[\d+\]: " % DATE3164,
        "local": r"<134>%s haproxy\[\d+\]: " % DATE3164,
        "rfc5424": r"<134>1 %s - haproxy \d+ - - " % ISO,
        "priority": r"<134>",
        "short": r"<6>",
        "timed": r"<6>%s " % ISO,
        "iso": r"%s " % ISO,
        "raw": r"",
    }
    port = free_port()
    ss = {f: sinks() for f in formats}
    glob = ["log %s %slocal0" % (ss[f].addr, "format %s " % f if f else "") for f in formats]
    proxy(cfg(port, glob=glob, defaults=["log global"]), ports=[port])
    get(port)
    for f, hdr in formats.items():
        got = ss[f].read()
        assert len(got) == 1, f
        assert re.fullmatch((hdr + LINE + "\n").encode(), got[0]), (f, got[0])


def test_hostname_tag_and_facility(proxy, sinks):
    port = free_port()
    s1, s2 = sinks(), sinks()
    glob = ["log %s local3" % s1.addr, "log %s format rfc5424 daemon" % s2.addr,
            "log-send-hostname myhost", "log-tag gtag"]
    proxy(cfg(port, glob=glob, defaults=["log global"], fe=["log-tag fetag"]), ports=[port])
    get(port)
    a, b = s1.read(), s2.read()
    assert re.fullmatch((r"<158>%s myhost fetag\[\d+\]: " % DATE3164 + LINE + "\n").encode(),
                        a[0]), a
    assert re.fullmatch((r"<30>1 %s myhost fetag \d+ - - " % ISO + LINE + "\n").encode(),
                        b[0]), b


def test_len_truncates_whole_datagram(proxy, sinks):
    port = free_port()
    s = sinks()
    proxy(cfg(port, fe=["log %s len 80 local0" % s.addr]), ports=[port])
    get(port)
    got = s.read()
    # 2.6: the text and its header are cut to "len", the newline comes after
    assert len(got) == 1 and len(got[0]) == 81 and got[0].endswith(b"\n"), got
    assert got[0].startswith(b"<134>")
    assert not s.read(timeout=0.5)  # never split into a second datagram


def test_levels_and_minlevel(proxy, sinks):
    """info lines: dropped by a 'notice' logger; 'debug err' sends them at... info (minlevel
    only raises more severe ones)."""
    port = free_port()
    s1, s2, s3 = sinks(), sinks(), sinks()
    proxy(cfg(port, fe=["log %s format priority local0 notice" % s1.addr,
                        "log %s format priority local1 debug err" % s2.addr,
                        "log %s format priority local2 info" % s3.addr]), ports=[port])
    get(port)
    assert not s1.read(timeout=0.5)
    assert s2.read()[0].startswith(b"<142>")
    assert s3.read()[0].startswith(b"<150>")


def test_sample(proxy, sinks):
    port = free_port()
    s = sinks()
    proxy(cfg(port, fe=["log %s format raw sample 2,4:4 local0" % s.addr]), ports=[port])
    for i in range(1, 9):
        get(port, path="/p%d" % i)
    got = s.read(4)
    paths = [re.search(rb"GET (/p\d)", g).group(1) for g in got]
    assert paths == [b"/p2", b"/p4", b"/p6", b"/p8"]
    assert not s.read(timeout=0.3)


def test_unix_socket_and_stdout(proxy, sinks, tmp_path):
    port = free_port()
    path = str(tmp_path / "devlog")
    s = sinks(path)
    p = proxy(cfg(port, fe=["log %s local0" % path, "log stdout format raw daemon"]),
              ports=[port])
    get(port)
    got = s.read()
    assert re.fullmatch((r"<134>%s haproxy\[\d+\]: " % DATE3164 + LINE + "\n").encode(),
                        got[0]), got
    deadline = time.monotonic() + 3
    out = b""
    while time.monotonic() < deadline and b"\n" not in out:
        out = p.out_path.read_bytes()
        time.sleep(0.05)
    assert re.fullmatch((LINE + "\n").encode(), out), out


def test_defaults_global_and_no_log(proxy, sinks):
    """A frontend copies its defaults' targets; `no log` forgets them; `log global` adds
    the global ones."""
    port, port2 = free_port(), free_port()
    g, d = sinks(), sinks()
    lines = ["global", "    log %s local0" % g.addr,
             "defaults", "    mode http", "    timeout client 5s", "    timeout server 5s",
             "    timeout connect 5s", "    log %s local1" % d.addr,
             "frontend fe", "    bind 127.0.0.1:%d" % port, "    option httplog",
             "    option dontlognull",
             "    http-request return status 200 content-type text/plain string ok",
             "frontend fe2", "    bind 127.0.0.1:%d" % port2, "    option httplog",
             "    option dontlognull",
             "    no log", "    log global",
             "    http-request return status 200 content-type text/plain string ok"]
    proxy("\n".join(lines) + "\n", ports=[port, port2])
    get(port)
    assert d.read()[0].startswith(b"<142>")
    assert not g.read(timeout=0.3)
    get(port2)
    assert g.read()[0].startswith(b"<134>")
    assert not d.read(timeout=0.3)


def test_dead_targets_do_not_slow_traffic(proxy, tmp_path):
    """A unix socket nobody listens on and a UDP port nobody reads: every request is
    answered at once, the lost messages are counted."""
    port = free_port()
    sock = str(tmp_path / "admin.sock")
    dead = str(tmp_path / "nobody")
    proxy(cfg(port, glob=["stats socket %s level admin" % sock],
              fe=["log %s local0" % dead, "log 127.0.0.1:%d local0" % free_port()]),
          ports=[port])
    t0 = time.monotonic()
    get(port, n=50)
    assert time.monotonic() - t0 < 5
    if not IS_REF:  # 2.6 counts only ring drops in DroppedLogs
        info = dict(l.split(": ", 1) for l in cli(sock, "show info").splitlines() if ": " in l)
        assert int(info["DroppedLogs"]) >= 50


def test_config_errors(tmp_path):
    from conftest import run_haproxy
    cases = {
        "log 127.0.0.1 foo": "log : unknown log facility 'foo'",
        "log 127.0.0.1 local0 bar": "log : unknown optional log level 'bar'",
        "log 127.0.0.1 local0 info baz": "log : unknown optional minimum log level 'baz'",
        "log 127.0.0.1 local0 info notice x": "log : cannot handle unexpected argument 'x'",
        "log 127.0.0.1": "log : expects <address> and <facility>  as arguments",
        "log 127.0.0.1 len 10 local0":
            "log : invalid log length '10', must be between 80 and 65535",
        "log 127.0.0.1 format foo local0": "log : unknown log format 'foo'",
        "log 127.0.0.1 sample 1:0 local0": "log : wrong sample size '0' for sample range '1'",
        "log 127.0.0.1 sample 3:2 local0":
            "log : sample size 2 should be greater or equal to 3 the maximum of the high "
            "ranges limits",
        "log global": "log : 'global' is not supported for a global syslog server",
        "log-tag": "'log-tag' expects a tag for use in syslog.",
    }
    for line, msg in cases.items():
        p = tmp_path / "e.cfg"
        p.write_text("global\n    %s\n" % line)
        r = run_haproxy(["-c", "-f", str(p)])
        assert r.returncode != 0, line
        assert "parsing [%s:2] : %s" % (p, msg) in r.stderr, (line, r.stderr)
