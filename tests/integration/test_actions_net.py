"""Network-level rule actions: set-mark, set-tos and set-nice in every rule set 2.6 has them
in, set-src/-src-port/-dst/-dst-port in tcp-request rules, set-log-level in tcp content
rules, http-request wait-for-handshake, and do-resolve in tcp-request content rules.

Owns what a user can see of them: the mark and TOS of the proxy's client-side socket as
`ss` (iproute2) shows them (`fwmark:0x..` with -e, `tos:0x..`/`tclass:0x..` with --tos),
the nice value in `show sess all`, the addresses in logs and fetches, the log level of the
line, and the variable do-resolve sets. Expected values come from Debian's
/usr/sbin/haproxy (2.6): run with HAPROXY_BIN=/usr/sbin/haproxy to check them.
"""

import re
import socket
import subprocess
import threading
import time

import httpc
import pytest
from conftest import IS_REF, cli, free_port, run_haproxy
from syslog_sink import Sink

DEFAULTS = ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 5s",
            "    timeout server 5s"]


def check(tmp_path, text):
    p = tmp_path / "t.cfg"
    p.write_text(text)
    r = run_haproxy(["-c", "-f", str(p)])
    return r.returncode, r.stdout + r.stderr


def rule_cfg(port, rule, in_backend=False):
    """A frontend and a backend, <rule> on the 7th line (of either)."""
    fe, be = ([], [rule]) if in_backend else ([rule], [])
    return "\n".join(DEFAULTS + ["backend be"] + ["    " + r for r in be] + [
        "    server s1 127.0.0.1:1", "frontend fe"] + ["    " + r for r in fe] + [
        "    bind 127.0.0.1:%d" % port, "    default_backend be"]) + "\n"


# ---- configuration


@pytest.mark.parametrize("rule,msg", [
    ("http-request set-mark", "expects exactly 1 argument (integer/hex value)"),
    ("http-request set-mark abc", "invalid character starting at 'abc' (integer/hex value "
     "expected)"),
    ("http-response set-tos 12z", "invalid character starting at 'z'"),
    ("http-request set-tos", "expects exactly 1 argument (integer/hex value)"),
    ("http-request set-nice", "expects exactly 1 argument (integer value)"),
    ("http-request set-mark 10 20", "expects either 'if' or 'unless' followed by a condition "
     "but found '20'"),
    ("tcp-request connection set-nice 3", "got 'set-nice'"),
    ("tcp-request session set-nice 3", "got 'set-nice'"),
    ("http-response wait-for-handshake", "but got 'wait-for-handshake'"),
    ("http-request set-ssl-foo", "but got 'set-ssl-foo'"),
])
def test_config_errors(tmp_path, rule, msg):
    rc, err = check(tmp_path, rule_cfg(free_port(), rule))
    assert rc != 0
    assert msg in err, err
    assert "t.cfg:9]" in err, err


@pytest.mark.parametrize("rule", [
    "http-request set-mark 0x2a", "http-request set-mark -1", "http-response set-mark 7",
    "http-request set-tos 0x10", "http-response set-tos 300", "http-request set-nice -5000",
    "http-response set-nice abc", "tcp-request connection set-mark 1",
    "tcp-request connection set-tos 1", "tcp-request session set-mark 1",
    "tcp-request session set-tos 1", "tcp-request content set-mark 1",
    "tcp-request content set-tos 1", "tcp-request content set-nice 1",
    "tcp-request connection set-src ipv4(10.0.0.1)", "tcp-request connection set-src-port "
    "int(1)", "tcp-request session set-dst ipv4(10.0.0.1)", "tcp-request session "
    "set-dst-port int(1)", "tcp-request content set-src src", "tcp-request content "
    "set-log-level silent", "tcp-request content set-log-level err",
    "http-request wait-for-handshake",
])
def test_config_accepted(tmp_path, rule):
    rc, err = check(tmp_path, rule_cfg(free_port(), rule))
    assert rc == 0, err


@pytest.mark.parametrize("rule", ["tcp-response content set-mark 1",
                                  "tcp-response content set-tos 1",
                                  "tcp-response content set-nice 1",
                                  "tcp-response content set-log-level info"])
def test_config_accepted_tcp_response(tmp_path, rule):
    rc, err = check(tmp_path, rule_cfg(free_port(), rule, in_backend=True))
    assert rc == 0, err


# ---- set-mark, set-tos: what `ss` shows of the proxy's client-side socket


def ss_line(port, opt, host="127.0.0.1"):
    """The `ss` text of the established socket whose local port is <port> (the proxy's side
    of a client connection), with option <opt> (-e for the mark, --tos for the TOS)."""
    r = subprocess.run(["ss", "-tn", opt, "state", "established", "sport", "=", ":%d" % port],
                       capture_output=True, text=True, timeout=5)
    return r.stdout


def wait_ss(port, opt, needle, timeout=3.0):
    deadline = time.monotonic() + timeout
    out = ""
    while time.monotonic() < deadline:
        out = ss_line(port, opt)
        if needle in out:
            break
        time.sleep(0.05)
    return out


def http_cfg(port, srv, fe_rules=(), be_rules=(), host="127.0.0.1"):
    return "\n".join(DEFAULTS + [
        "frontend fe", "    bind %s:%d" % (host, port)] + ["    " + r for r in fe_rules] + [
        "    default_backend be", "backend be"] + ["    " + r for r in be_rules] + [
        "    server s1 127.0.0.1:%d" % srv]) + "\n"


def keep_open_get(port, host="127.0.0.1"):
    """A keep-alive GET whose response was read; returns the still open socket."""
    s = httpc.connect(port, 5.0, host=host)
    s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
    r = httpc.read_response(httpc.Reader(s))
    assert r.status == 200
    return s


@pytest.mark.parametrize("fe_rules,be_rules", [
    (["http-request set-mark 0x2a", "http-request set-tos 0x28"], []),
    ([], ["http-response set-mark 0x2a", "http-response set-tos 0x28"]),
    (["tcp-request connection set-mark 0x2a", "tcp-request connection set-tos 0x28"], []),
    (["tcp-request session set-mark 42", "tcp-request session set-tos 40"], []),
    (["tcp-request content set-mark 0x2a", "tcp-request content set-tos 0x28"], []),
])
def test_mark_and_tos_on_client_socket(proxy, backend, fe_rules, be_rules):
    port = free_port()
    proxy(http_cfg(port, backend.port, fe_rules, be_rules), ports=[port])
    s = keep_open_get(port)
    with s:
        assert "fwmark:0x2a" in wait_ss(port, "-e", "fwmark:0x2a")
        assert "tos:0x28" in wait_ss(port, "--tos", "tos:0x28")


def test_no_rule_no_mark(proxy, backend):
    """Without the rules the socket has neither: the check above can fail."""
    port = free_port()
    proxy(http_cfg(port, backend.port), ports=[port])
    with keep_open_get(port):
        out = wait_ss(port, "--tos", "tos:")
        assert "tos:0 " in out or "tos:0\n" in out or "tos:0x0" in out, out
        assert "fwmark" not in ss_line(port, "-e")


def test_condition_false_leaves_socket(proxy, backend):
    port = free_port()
    proxy(http_cfg(port, backend.port, ["http-request set-mark 0x2a if { path /x }"]),
          ports=[port])
    with keep_open_get(port):
        assert "fwmark" not in ss_line(port, "-e")


def ipv6_ok():
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not ipv6_ok(), reason="no IPv6 loopback")
def test_tos_ipv6_traffic_class(proxy, backend):
    port = free_port()
    proxy(http_cfg(port, backend.port, ["http-request set-tos 0x20"], host="::1"))
    deadline = time.monotonic() + 10
    s = None
    while time.monotonic() < deadline:  # wait for the IPv6 listener
        try:
            s = keep_open_get(port, host="::1")
            break
        except OSError:
            time.sleep(0.1)
    assert s is not None
    with s:
        assert "tclass:0x20" in wait_ss(port, "--tos", "tclass:0x20")


def test_mark_and_tos_tcp_response(proxy, backend):
    """tcp-response content rules of a mode tcp backend mark the client's socket once the
    server's bytes came."""
    port = free_port()
    proxy("\n".join(DEFAULTS + [
        "listen px", "    mode tcp", "    bind 127.0.0.1:%d" % port,
        "    tcp-response content set-mark 0x2a", "    tcp-response content set-tos 0x28",
        "    server s1 127.0.0.1:%d" % backend.port]) + "\n", ports=[port])
    with keep_open_get(port):
        assert "fwmark:0x2a" in wait_ss(port, "-e", "fwmark:0x2a")
        assert "tos:0x28" in wait_ss(port, "--tos", "tos:0x28")


# ---- set-nice: shown by "show sess all"


def nice_of_waiting_stream(proxy, backend, tmp_path, rules, mode="http"):
    port, sock = free_port(), str(tmp_path / "stats.sock")
    proxy("\n".join(["global", "    stats socket %s level admin" % sock] + DEFAULTS + [
        "listen px", "    mode " + mode, "    bind 127.0.0.1:%d" % port] +
        ["    " + r for r in rules] + [
        "    server s1 127.0.0.1:%d" % backend.port]) + "\n", ports=[port])
    s = httpc.connect(port, 5.0)
    with s:
        s.sendall(b"GET /?delay=1.5 HTTP/1.1\r\nHost: t\r\n\r\n")
        deadline, blocks = time.monotonic() + 3, []
        while time.monotonic() < deadline:
            out = cli(sock, "show sess all")
            # one block per stream; the CLI's own stream (2.6 lists it) is left out
            blocks = [b for b in re.split(r"\n(?=0x)", out)
                      if "frontend=px " in b and "GET" not in b and "nice=" in b]
            if blocks:
                break
            time.sleep(0.05)
        return [int(x) for b in blocks for x in re.findall(r"nice=(-?\d+)", b)]


@pytest.mark.parametrize("rules,want", [
    (["http-request set-nice 5000"], 1024),     # clamped
    (["http-request set-nice -7"], -7),
    (["http-request set-nice abc"], 0),        # read as 2.6 reads it: no digits, 0
    (["tcp-request content set-nice -1024"], -1024),
    ([], 0),
])
def test_set_nice_show_sess(proxy, backend, tmp_path, rules, want):
    assert nice_of_waiting_stream(proxy, backend, tmp_path, rules) == [want]


def test_set_nice_tcp_mode(proxy, backend, tmp_path):
    got = nice_of_waiting_stream(proxy, backend, tmp_path, ["tcp-request content set-nice 12"],
                                 mode="tcp")
    assert got and set(got) == {12}  # the probe of the listening port may have a stream too


# ---- set-src, set-src-port, set-dst, set-dst-port in tcp-request rules


def logged_cfg(port, srv, sink, rules, fmt, mode="http"):
    return "\n".join(DEFAULTS + [
        "frontend fe", "    mode " + mode, "    bind 127.0.0.1:%d" % port,
        "    log 127.0.0.1:%d local0" % sink.port, "    option dontlognull", "    log-format \"%s\"" % fmt] +
        ["    " + r for r in rules] + [
        "    http-request set-header X-Src %[src]:%[src_port]" if mode == "http" else "",
        "    default_backend be", "backend be", "    mode " + mode,
        "    server s1 127.0.0.1:%d" % srv]) + "\n"


@pytest.mark.parametrize("stage", ["connection", "session", "content"])
def test_tcp_set_src_http(proxy, backend, stage):
    port, sink = free_port(), Sink()
    rules = ["tcp-request %s set-src ipv4(10.1.2.3)" % stage,
             "tcp-request %s set-src-port int(4242)" % stage,
             "tcp-request %s set-dst ipv4(10.9.8.7)" % stage,
             "tcp-request %s set-dst-port int(8080)" % stage]
    proxy(logged_cfg(port, backend.port, sink, rules, "ci=%ci:%cp fi=%fi:%fp"), ports=[port])
    r = httpc.get(port, "/")
    assert r.status == 200
    assert backend.last().header("X-Src") == "10.1.2.3:4242"
    lines = sink.read(1)
    assert lines and lines[0][1] == "ci=10.1.2.3:4242 fi=10.9.8.7:8080", lines


def test_tcp_set_src_tcp_mode(proxy, backend):
    port, sink = free_port(), Sink()
    rules = ["tcp-request content set-src ipv6(2001:db8::1)",
             "tcp-request connection set-dst-port int(99)"]
    proxy(logged_cfg(port, backend.port, sink, rules, "ci=%ci fp=%fp", mode="tcp"),
          ports=[port])
    with keep_open_get(port):
        pass
    lines = sink.read(1)
    assert lines and lines[0][1] == "ci=2001:db8::1 fp=99", lines


def test_tcp_set_src_seen_by_later_rules(proxy, backend):
    """A later rule's src fetch sees the new address: the request is refused."""
    port = free_port()
    proxy(http_cfg(port, backend.port, [
        "tcp-request connection set-src ipv4(192.0.2.1)",
        "tcp-request content reject if { src 192.0.2.1 }"]), ports=[port])
    got, closed = httpc.exchange(port, b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", timeout=3)
    assert got == b"" and closed


# ---- set-log-level in tcp content rules


def tcp_log_cfg(port, srv, sink, rules=(), be_rules=()):
    return "\n".join(DEFAULTS + [
        "listen px", "    mode tcp", "    bind 127.0.0.1:%d" % port,
        "    log 127.0.0.1:%d local0" % sink.port, "    option dontlognull", "    log-format \"line %ci\""] +
        ["    " + r for r in rules] + ["    " + r for r in be_rules] + [
        "    server s1 127.0.0.1:%d" % srv]) + "\n"


@pytest.mark.parametrize("rule,pri,mode", [
    ([], 16 * 8 + 6, "tcp"),                                           # local0.info
    (["tcp-request content set-log-level err"], 16 * 8 + 3, "tcp"),
    (["tcp-request content set-log-level err"], 16 * 8 + 3, "http"),
    (["tcp-response content set-log-level warning"], 16 * 8 + 4, "http"),
    pytest.param(["tcp-response content set-log-level warning"], 16 * 8 + 4, "tcp",
                 marks=pytest.mark.ours),  # 2.6 ignores it in mode tcp (logs at info)
])
def test_tcp_set_log_level(proxy, backend, rule, pri, mode):
    port, sink = free_port(), Sink()
    proxy(tcp_log_cfg(port, backend.port, sink, rule).replace("mode tcp", "mode " + mode),
          ports=[port])
    with keep_open_get(port):
        pass
    lines = sink.read(1)
    assert [p for p, _ in lines] == [pri], lines


def test_tcp_set_log_level_silent(proxy, backend):
    port, sink = free_port(), Sink()
    proxy(tcp_log_cfg(port, backend.port, sink,
                      ["tcp-request content set-log-level silent if { src 127.0.0.1 }"]),
          ports=[port])
    with keep_open_get(port):
        pass
    assert sink.read(1, timeout=1.0) == []


# ---- wait-for-handshake


def test_wait_for_handshake_on_ssl_bind(proxy, backend, pki):
    from tlsutil import https_get
    port = free_port()
    proxy("\n".join(DEFAULTS + [
        "frontend fe", "    bind 127.0.0.1:%d ssl crt %s" % (port, pki.p("a.pem")),
        "    http-request wait-for-handshake",
        "    http-request set-header X-Hs done",
        "    default_backend be", "backend be",
        "    server s1 127.0.0.1:%d" % backend.port]) + "\n", ports=[port])
    r = https_get(port, sni="a.test")
    assert r.status == 200
    assert backend.last().header("X-Hs") == "done"


# ---- do-resolve in tcp-request content


def resolve_http_cfg(dns_port, port, rules):
    return "\n".join(DEFAULTS + [
        "resolvers r1", "    nameserver ns1 127.0.0.1:%d" % dns_port,
        "    timeout retry 200ms", "    resolve_retries 2",
        "frontend fe", "    bind 127.0.0.1:%d" % port] + ["    " + r for r in rules] + [
        "    http-request return status 200 content-type text/plain "
        "lf-string \"ip=%[var(txn.ip)]\""]) + "\n"


def test_tcp_content_do_resolve(proxy, dns):
    port = free_port()
    dns.records["api.test"] = ["10.1.2.3"]
    proxy(resolve_http_cfg(dns.port, port, [
        "tcp-request inspect-delay 2s",
        "tcp-request content do-resolve(txn.ip,r1,ipv4) str(api.test)"]), ports=[port])
    t0 = time.monotonic()
    r = httpc.get(port, "/")
    assert (r.status, r.body) == (200, b"ip=10.1.2.3")
    assert time.monotonic() - t0 < 1.5  # the answer ended the wait, not the delay
    assert dns.queries >= 1


def test_tcp_content_do_resolve_without_delay(proxy, dns):
    """Without an inspect-delay the rules are final at once and cannot wait for an
    answer: the variable stays unset, as in 2.6."""
    port = free_port()
    dns.records["api.test"] = ["10.1.2.3"]
    proxy(resolve_http_cfg(dns.port, port, [
        "tcp-request content do-resolve(txn.ip,r1,ipv4) str(api.test)"]), ports=[port])
    r = httpc.get(port, "/")
    assert (r.status, r.body) == (200, b"ip=")


@pytest.mark.ours  # 2.6 resolves this too, but not after an earlier connection closed while
# its rules waited on the condition (the harness' port probe does that): it then leaves the
# variable unset
def test_tcp_content_do_resolve_name_from_payload(proxy, backend, dns):
    """mode tcp: the name comes from the client's bytes (the inspect-delay waits for
    them), the address goes to a variable the log line shows."""
    port, sink = free_port(), Sink()
    dns.records["h7.test"] = ["10.0.0.7"]
    proxy("\n".join(DEFAULTS + [
        "resolvers r1", "    nameserver ns1 127.0.0.1:%d" % dns.port,
        "listen px", "    mode tcp", "    bind 127.0.0.1:%d" % port,
        "    log 127.0.0.1:%d local0" % sink.port, "    option dontlognull",
        "    log-format \"ip=%[var(sess.ip)]\"",
        "    tcp-request inspect-delay 2s",
        "    tcp-request content do-resolve(sess.ip,r1,ipv4) req.payload(5,7) "
        "if { req.len ge 12 }",
        "    server s1 127.0.0.1:%d" % backend.port]) + "\n", ports=[port])
    s = httpc.connect(port, 5.0)
    with s:
        time.sleep(0.3)  # the rules wait for the bytes
        s.sendall(b"GET /h7.test HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        got, _ = httpc.recv_until_close(s, 5.0)
    assert got.startswith(b"HTTP/1.1 200"), got
    lines = sink.read(1)
    assert lines and lines[0][1] == "ip=10.0.0.7", lines


def test_tcp_content_do_resolve_timeout(proxy, dns):
    """A silent nameserver: the rule waits for the retries (2 x 200ms), then goes on."""
    port = free_port()
    dns.silent = True
    proxy(resolve_http_cfg(dns.port, port, [
        "tcp-request inspect-delay 10s",
        "tcp-request content do-resolve(txn.ip,r1,ipv4) str(api.test)"]), ports=[port])
    t0 = time.monotonic()
    r = httpc.get(port, "/", timeout=15)
    assert (r.status, r.body) == (200, b"ip=")
    assert 0.3 <= time.monotonic() - t0 < 5


def test_tcp_content_do_resolve_later_rules_still_wait(proxy, backend, dns):
    """mode tcp: the rules after do-resolve still wait (inspect-delay) for the client's
    bytes: the resolution's end is not the end of the delay."""
    port, sink = free_port(), Sink()
    dns.records["api.test"] = ["10.1.2.3"]
    proxy("\n".join(DEFAULTS + [
        "resolvers r1", "    nameserver ns1 127.0.0.1:%d" % dns.port,
        "listen px", "    mode tcp", "    bind 127.0.0.1:%d" % port,
        "    log 127.0.0.1:%d local0" % sink.port, "    option dontlognull",
        "    log-format \"ip=%[var(sess.ip)]\"",
        "    tcp-request inspect-delay 3s",
        "    tcp-request content do-resolve(sess.ip,r1,ipv4) str(api.test)",
        "    tcp-request content accept if { req.len gt 0 }",
        "    tcp-request content reject",
        "    server s1 127.0.0.1:%d" % backend.port]) + "\n", ports=[port])
    s = httpc.connect(port, 5.0)
    with s:
        time.sleep(0.5)  # the answer came long before the bytes
        s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        got, closed = httpc.recv_until_close(s, 5.0)
    assert got.startswith(b"HTTP/1.1 200"), got
    lines = sink.read(1)
    assert lines and lines[0][1] == "ip=10.1.2.3", lines


def test_lua_txn_mark_tos_and_priorities(proxy, backend, tmp_path):
    """txn:set_mark, set_tos, set_priority_class and set_priority_offset from a Lua action:
    the socket options as the actions set them, the priorities clamped as theirs."""
    lua = tmp_path / "t.lua"
    lua.write_text(
        "core.register_action('opts', {'http-req'}, function(txn)\n"
        "  txn:set_mark(42)\n  txn:set_tos(40)\n"
        "  txn:set_priority_class(-5000)\n  txn:set_priority_offset(4294967297)\n"
        "end)\n")
    port = free_port()
    cfg = http_cfg(port, backend.port, [
        "http-request lua.opts",
        "http-request set-header x-prio %[prio_class]/%[prio_offset]"])
    proxy(cfg.replace("defaults", "global\n    lua-load %s\ndefaults" % lua, 1), ports=[port])
    s = keep_open_get(port)
    with s:
        assert "fwmark:0x2a" in wait_ss(port, "-e", "fwmark:0x2a")
        assert "tos:0x28" in wait_ss(port, "--tos", "tos:0x28")
    assert backend.last().header("x-prio") == "-2047/1"
