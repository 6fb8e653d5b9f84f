"""log-forward sections: syslog messages received over UDP (dgram-bind) and TCP (bind,
octet counting or newline framing) relayed to the section's log targets.

Owns: the header each target format writes for a received message (default, rfc5424,
rfc3164, local, short, timed, iso, priority, raw) from a 3164, a 5424, a PRI-only and a
header-less message; the level filter; TCP framing (both kinds, several messages per
segment, a message split across segments); garbage and a line longer than the buffer
ending the connection; maxconn; timeout client; CumRecvLogs; config errors; the proxy
serving HTTP meanwhile. Expected outputs observed on Debian's /usr/sbin/haproxy 2.6.
"""

import http.client
import os
import pwd
import re
import socket
import time

import pytest
from conftest import IS_REF, cli, free_port, run_haproxy

N5 = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}[+-]\d\d:\d\d"  # now, rfc5424
N3 = r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d"  # now, rfc3164
YEAR = time.strftime("%Y")

# name, "log" line options (after the address)
TARGETS = [
    ("dflt", "local1"),
    ("r5424", "format rfc5424 local2"),
    ("raw", "format raw local3 notice"),
    ("r3164", "format rfc3164 local4"),
    ("short", "format short local4"),
    ("local", "format local local5"),
    ("timed", "format timed local5"),
    ("iso", "format iso local5"),
    ("prio", "format priority local6"),
]

# input, then per target the expected line (None: filtered out); {N5} {N3}: "now"
CASES = [
    ("<30>Nov 24 14:00:00 host1 app[12]: hello 3164", [
        "<30>Nov 24 14:00:00 host1 app[12]: hello 3164",
        "<30>1 {Y}-11-24T14:00:00-00:00 host1 app 12 - - hello 3164",
        None,
        "<30>Nov 24 14:00:00 host1 app[12]: hello 3164",
        "<6>hello 3164",
        "<30>Nov 24 14:00:00 app[12]: hello 3164",
        "<6>{Y}-11-24T14:00:00-00:00 hello 3164",
        "{Y}-11-24T14:00:00-00:00 hello 3164",
        "<30>hello 3164"]),
    ('<13>1 2026-11-24T14:00:00.123Z h2 app2 99 ID47 [ex@1 a="b"] hello 5424', [
        '<13>1 2026-11-24T14:00:00.123Z h2 app2 99 ID47 [ex@1 a="b"] hello 5424',
        '<13>1 2026-11-24T14:00:00.123Z h2 app2 99 ID47 [ex@1 a="b"] hello 5424',
        "hello 5424",
        "<13>Nov 24 14:00:00 h2 app2[99]: hello 5424",
        "<5>hello 5424",
        "<13>Nov 24 14:00:00 app2[99]: hello 5424",
        "<5>2026-11-24T14:00:00.123Z hello 5424",
        "2026-11-24T14:00:00.123Z hello 5424",
        "<13>hello 5424"]),
    ("no header at all", [
        "no header at all",
        "<144>1 {N5} - - - - - no header at all",
        "no header at all",
        "<160>{N3} localhost no header at all",
        "<0>no header at all",
        "<168>{N3} no header at all",
        "<0>{N5} no header at all",
        "{N5} no header at all",
        "<176>no header at all"]),
    ("<12>just pri", [
        "<12>just pri",
        "<12>1 {N5} - - - - - just pri",
        "just pri",
        "<12>{N3} localhost just pri",
        "<4>just pri",
        "<12>{N3} just pri",
        "<4>{N5} just pri",
        "{N5} just pri",
        "<12>just pri"]),
    ("<189>Nov 24 14:00:00 app: notag pid", [
        "<189>Nov 24 14:00:00 app: notag pid",
        "<189>1 {Y}-11-24T14:00:00-00:00 app: - - - - notag pid",
        "notag pid",
        "<189>Nov 24 14:00:00 app: notag pid",
        "<5>notag pid",
        "<189>Nov 24 14:00:00 notag pid",
        "<5>{Y}-11-24T14:00:00-00:00 notag pid",
        "{Y}-11-24T14:00:00-00:00 notag pid",
        "<189>notag pid"]),
    ("<13>Nov 24 14:00:00 host tag[1] msg", [  # no "tag[pid]: ": no tag
        "<13>Nov 24 14:00:00 host tag[1] msg",
        "<13>1 {Y}-11-24T14:00:00-00:00 host - - - - tag[1] msg",
        "tag[1] msg",
        "<13>Nov 24 14:00:00 host tag[1] msg",
        "<5>tag[1] msg",
        "<13>Nov 24 14:00:00 tag[1] msg",
        "<5>{Y}-11-24T14:00:00-00:00 tag[1] msg",
        "{Y}-11-24T14:00:00-00:00 tag[1] msg",
        "<13>tag[1] msg"]),
    ("<13>Nov 24 14:00:00 hello", [  # no space after the host: not a 3164 header
        "<13>Nov 24 14:00:00 hello",
        "<13>1 {N5} - - - - - Nov 24 14:00:00 hello",
        "Nov 24 14:00:00 hello",
        "<13>{N3} localhost Nov 24 14:00:00 hello",
        "<5>Nov 24 14:00:00 hello",
        "<13>{N3} Nov 24 14:00:00 hello",
        "<5>{N5} Nov 24 14:00:00 hello",
        "{N5} Nov 24 14:00:00 hello",
        "<13>Nov 24 14:00:00 hello"]),
    ("<13>1 - - - - - - x", [  # a 5424 header without timestamp
        "<13>x",
        "<13>1 - - - - - - x",
        "x",
        "<13>{N3} localhost x",
        "<5>x",
        "<13>{N3} x",
        "<5>{N5} x",
        "{N5} x",
        "<13>x"]),
]


def expect_re(line):
    r = re.escape(line).replace(r"\{N5\}", N5).replace(r"\{N3\}", N3)
    return re.compile(r.replace(r"\{Y\}", YEAR).encode() + b"\n")


class UdpSink:
    def __init__(self):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.s.bind(("127.0.0.1", 0))
        self.s.settimeout(0.1)
        self.port = self.s.getsockname()[1]

    def read(self, n, timeout=3.0):
        """Up to n datagrams, waiting at most timeout."""
        out = []
        deadline = time.monotonic() + timeout
        while len(out) < n and time.monotonic() < deadline:
            try:
                out.append(self.s.recv(70000))
            except socket.timeout:
                pass
        return out

    def quiet(self, wait=0.3):
        """Datagrams arriving within <wait> (for "nothing more came")."""
        return self.read(1000, wait)


def lf_cfg(sinks, udp, tcp, extra_lf=(), sock=None, http=None, targets=TARGETS):
    lines = ["global"]
    if sock:
        lines.append("    stats socket %s level admin" % sock)
    lines += ["log-forward lf", "    dgram-bind 127.0.0.1:%d" % udp,
              "    bind 127.0.0.1:%d" % tcp]
    lines += ["    " + x for x in extra_lf]
    for (name, opts), s in zip(targets, sinks):
        lines.append("    log 127.0.0.1:%d %s" % (s.port, opts))
    if http:
        lines += ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 5s",
                  "    timeout server 5s", "listen px", "    bind 127.0.0.1:%d" % http[0],
                  "    server s1 127.0.0.1:%d" % http[1]]
    return "\n".join(lines) + "\n"


@pytest.fixture
def sinks():
    ss = [UdpSink() for _ in TARGETS]
    yield ss
    for s in ss:
        s.s.close()


def test_udp_reference_formats(proxy, sinks):
    udp, tcp = free_port(), free_port()
    proxy(lf_cfg(sinks, udp, tcp), ports=[tcp])
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for msg, want in CASES:
        tx.sendto(msg.encode(), ("127.0.0.1", udp))
        for (name, _), s, w in zip(TARGETS, sinks, want):
            if w is None:
                continue
            got = s.read(1)
            assert got and expect_re(w).fullmatch(got[0]), (msg, name, got, w)
        for (name, _), s in zip(TARGETS, sinks):  # nothing else (filtered ones included)
            assert s.read(1, 0.05) == [], (msg, name)
    tx.close()


def test_tcp_framings_split_segments_and_garbage(proxy, sinks, tmp_path):
    udp, tcp = free_port(), free_port()
    sock_path = str(tmp_path / "s.sock")
    proxy(lf_cfg(sinks[:1], udp, tcp, sock=sock_path, targets=TARGETS[:1]), ports=[tcp])
    s = sinks[0]
    c = socket.create_connection(("127.0.0.1", tcp), timeout=3)
    c.sendall(b"20 <14>via tcp octet ok<14>via tcp newline\n")  # two in one segment
    c.sendall(b"<14>split ")
    time.sleep(0.1)
    c.sendall(b"across segments\n9 <14>ab")
    time.sleep(0.1)
    c.sendall(b"cde<1>crlf\r\n")
    got = s.read(5)
    assert got == [b"<14>via tcp octet ok\n", b"<14>via tcp newline\n",
                   b"<14>split across segments\n", b"<14>abcde\n", b"<1>crlf\n"]
    # a line that is neither "LEN msg" nor "<PRI>...": nothing more is relayed from this
    # connection (we close it; 2.6 stops reading it)
    c.sendall(b"garbage without pri\n")
    time.sleep(0.1)
    try:
        c.sendall(b"<1>after garbage\n")
    except (ConnectionResetError, BrokenPipeError):
        pass
    assert s.quiet() == []
    c.close()
    # a line longer than the buffer: dropped with its connection
    c = socket.create_connection(("127.0.0.1", tcp), timeout=3)
    try:
        c.sendall(b"<1>" + b"y" * 70000 + b"\n<1>after\n")
        c.recv(10)
    except (ConnectionResetError, BrokenPipeError, TimeoutError):
        pass
    c.close()
    assert s.quiet() == []
    # UDP garbage is relayed as a message without header; nothing breaks
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    tx.sendto(b"<999>\x00\xff bin", ("127.0.0.1", udp))
    assert s.read(1) == [b"<999>\x00\xff bin\n"]
    tx.close()
    assert s.quiet() == []
    c = socket.create_connection(("127.0.0.1", tcp), timeout=3)
    c.sendall(b"<1>still here\n")
    assert s.read(1) == [b"<1>still here\n"]
    c.close()
    info = cli(sock_path, "show info")
    assert re.search(r"^CumRecvLogs: 7$", info, re.M), info


def test_maxconn_and_http_meanwhile(proxy, sinks, backend):
    udp, tcp, hport = free_port(), free_port(), free_port()
    proxy(lf_cfg(sinks[:1], udp, tcp, ["maxconn 2"], http=(hport, backend.port),
                 targets=TARGETS[:1]), ports=[hport])
    s = sinks[0]
    # no probe connection to the log-forward port: 2.6 keeps a slot for a sender that
    # closed without sending anything
    time.sleep(0.5)
    cs = [socket.create_connection(("127.0.0.1", tcp), timeout=3) for _ in range(3)]
    for i, c in enumerate(cs):
        c.sendall(b"<1>conn%d\n" % i)
    assert sorted(s.read(2)) == [b"<1>conn0\n", b"<1>conn1\n"]
    assert s.quiet() == []  # the third waits in the backlog
    hc = http.client.HTTPConnection("127.0.0.1", hport, timeout=5)
    hc.request("GET", "/")
    assert hc.getresponse().status == 200
    hc.close()
    cs[0].close()
    if not IS_REF:  # 2.6 does not see an idle sender leave: its slot stays taken
        assert s.read(1) == [b"<1>conn2\n"]
    for c in cs[1:]:
        c.close()


@pytest.mark.ours
def test_timeout_client_closes_idle_sender(proxy, sinks):
    # 2.6 accepts "timeout client" in a log-forward section but keeps idle senders open
    udp, tcp = free_port(), free_port()
    proxy(lf_cfg(sinks[:1], udp, tcp, ["timeout client 500ms"], targets=TARGETS[:1]),
          ports=[tcp])
    c = socket.create_connection(("127.0.0.1", tcp), timeout=5)
    c.sendall(b"<1>x\n")
    t0 = time.monotonic()
    assert c.recv(10) == b""
    assert 0.3 < time.monotonic() - t0 < 3
    c.close()
    assert sinks[0].read(1) == [b"<1>x\n"]


BAD = [
    ("log-forward", "missing name for ip-forward section."),
    ("log-forward a\n    dgram-bind 1.2.3.4", "'dgram-bind 1.2.3.4' : missing port"),
    ("log-forward a\n    bind 127.0.0.1:1 foo", "unknown keyword 'foo'"),
    ("log-forward a\n    maxconn", "'maxconn' expects an integer argument."),
    ("log-forward a\n    backlog", "'backlog' expects an integer argument."),
    ("log-forward a\n    timeout client", "missing timeout client value."),
    ("log-forward a\n    timeout server 1s", "unknown keyword 'timeout server' in log-forward "
     "section."),
    ("log-forward a\n    foo", "unknown keyword 'foo'"),
    ("log-forward a\n    log", "log : expects <address> and <facility>"),
    ("log-forward a\n    log 1.2.3.4:514 bogus", "log : unknown log facility 'bogus'"),
    ("log-forward a\n    bind 127.0.0.1:1\nlog-forward a",
     "log-forward section 'a' has the same name as another log-forward section declared at"),
]


@pytest.mark.parametrize("text,err", BAD)
def test_config_errors(tmp_path, text, err):
    path = tmp_path / "bad.cfg"
    path.write_text(text + "\n")
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode == 1, r.stderr
    assert err in r.stderr
    assert re.search(r"bad\.cfg:\d+\]", r.stderr), r.stderr


def test_no_bind_warns(tmp_path):
    path = tmp_path / "w.cfg"
    path.write_text("log-forward b\n    log 127.0.0.1:5 local0\n")
    r = run_haproxy(["-c", "-f", str(path)])
    assert "frontend 'b' has no 'bind' directive" in r.stderr


def low_port():
    """A port below 1024 that nothing uses on 127.0.0.1 (TCP and UDP), or None."""
    for port in range(900, 1000):
        try:
            with socket.socket() as t, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
                t.bind(("127.0.0.1", port))
                u.bind(("127.0.0.1", port))
                return port
        except OSError:
            continue
    return None


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to bind a port below 1024")
def test_privileged_ports_then_user(proxy, sinks):
    """Receivers on ports below 1024 are bound before the process becomes 'nobody'."""
    low = low_port()
    assert low, "no free port below 1024"
    lines = ["global", "    user nobody", "    group nogroup",
             "log-forward lf", "    dgram-bind 127.0.0.1:%d" % low,
             "    bind 127.0.0.1:%d" % low, "    log 127.0.0.1:%d local0" % sinks[0].port]
    p = proxy("\n".join(lines) + "\n", ports=[low])
    want = str(pwd.getpwnam("nobody").pw_uid)
    deadline = time.monotonic() + 3.0
    while True:  # the port answers a moment before the process drops root
        with open("/proc/%d/status" % p.pid) as f:
            uid = [l.split()[1] for l in f if l.startswith("Uid:")][0]
        if uid == want or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert uid == want
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    tx.sendto(b"<14>over udp", ("127.0.0.1", low))
    tx.close()
    with socket.create_connection(("127.0.0.1", low), timeout=3) as c:
        c.sendall(b"<14>over tcp\n")
        got = sinks[0].read(2)
    assert sorted(got) == [b"<14>over tcp\n", b"<14>over udp\n"]
