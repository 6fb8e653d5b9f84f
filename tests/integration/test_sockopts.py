"""TCP options of client and server sockets: `option clitcpka`/`srvtcpka`/`tcpka` with
the -idle/-intvl/-cnt tuning, and `tcp-ut` on bind and server lines.

Owns: what an operator sees with `ss -o` (the keep-alive timer of the proxy's sockets)
and the configuration errors of these keywords. Runs against Debian's haproxy too.
"""

import re
import socket
import subprocess
import time

import httpc
from conftest import run_haproxy

HEAD = ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 30s",
        "    timeout server 30s"]


def ss_timers(filt):
    """The `timer:(...)` fields of established TCP sockets matching the ss filter."""
    out = subprocess.run(["ss", "-tnoH", "state", "established", filt],
                         capture_output=True, text=True, timeout=10).stdout
    return re.findall(r"timer:\(([a-z]+)", out)


def idle_client(port):
    """A client connection that made one keep-alive request and now stays idle."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    data = b""
    deadline = time.time() + 5
    while b"\r\n\r\n" not in data and time.time() < deadline:
        data += s.recv(65536)
    assert data.startswith(b"HTTP/1.1 200")
    return s


def cfg(port, backend, fe=(), be=(), srv=""):
    lines = HEAD + ["frontend f", "    bind 127.0.0.1:%d" % port]
    lines += ["    " + x for x in fe] + ["    default_backend b", "backend b"]
    lines += ["    " + x for x in be]
    lines += ["    server s1 127.0.0.1:%d %s" % (backend.port, srv)]
    return "\n".join(lines) + "\n"


def test_clitcpka_arms_keepalive_on_client_sockets(proxy, backend, port):
    proxy(cfg(port, backend, fe=["option clitcpka", "clitcpka-idle 30", "clitcpka-intvl 5s",
                                 "clitcpka-cnt 3"]), ports=[port])
    c = idle_client(port)
    try:
        assert ss_timers("sport = :%d" % port) == ["keepalive"]
    finally:
        c.close()


def test_no_keepalive_without_the_option(proxy, backend, port):
    proxy(cfg(port, backend), ports=[port])
    c = idle_client(port)
    try:
        assert "keepalive" not in ss_timers("sport = :%d" % port)
        # the proxy's idle connection to the server neither
        assert "keepalive" not in ss_timers("dport = :%d" % backend.port)
    finally:
        c.close()


def test_srvtcpka_arms_keepalive_on_server_sockets(proxy, backend, port):
    proxy(cfg(port, backend, be=["option srvtcpka", "srvtcpka-idle 1m"]), ports=[port])
    c = idle_client(port)
    try:
        assert ss_timers("dport = :%d" % backend.port) == ["keepalive"]
        assert "keepalive" not in ss_timers("sport = :%d" % port)
    finally:
        c.close()


def test_tcpka_in_defaults_covers_both_sides(proxy, backend, port):
    text = cfg(port, backend, srv="tcp-ut 20s").replace(
        "timeout server 30s", "timeout server 30s\n    option tcpka")
    text = text.replace("bind 127.0.0.1:%d" % port, "bind 127.0.0.1:%d tcp-ut 20000" % port)
    proxy(text, ports=[port])
    c = idle_client(port)
    try:
        assert ss_timers("sport = :%d" % port) == ["keepalive"]
        assert ss_timers("dport = :%d" % backend.port) == ["keepalive"]
        assert httpc.get(port, "/").status == 200
    finally:
        c.close()


def test_bad_values_are_config_errors(tmp_path):
    for line, where in (("clitcpka-idle 1x", "clitcpka-idle"), ("srvtcpka-cnt x", "srvtcpka-cnt"),
                        ("clitcpka-intvl", "clitcpka-intvl")):
        p = tmp_path / "bad.cfg"
        p.write_text("\n".join(HEAD + ["listen l", "    bind 127.0.0.1:1", "    " + line,
                                       "    server s 127.0.0.1:2"]) + "\n")
        r = run_haproxy(["-c", "-f", str(p)])
        assert r.returncode != 0, line
        assert "bad.cfg:8" in r.stderr and where in r.stderr, r.stderr
    p = tmp_path / "ut.cfg"
    p.write_text("\n".join(HEAD + ["listen l", "    bind 127.0.0.1:1",
                                   "    server s 127.0.0.1:2 tcp-ut"]) + "\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode != 0 and "ut.cfg:8" in r.stderr and "tcp-ut" in r.stderr, r.stderr


def test_side_keywords_outside_their_side_warn(tmp_path):
    p = tmp_path / "side.cfg"
    p.write_text("\n".join(HEAD + ["frontend f", "    bind 127.0.0.1:1", "    srvtcpka-idle 10",
                                   "    option srvtcpka", "backend b",
                                   "    clitcpka-cnt 2", "    server s 127.0.0.1:2"]) + "\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 0, r.stderr
    assert "side.cfg:8" in r.stderr and "side.cfg:9" in r.stderr and "side.cfg:11" in r.stderr
