"""Runtime events in the logs: the messages HAProxy 2.6 both prints on stderr and sends to a
proxy's loggers, with their levels (the PRI of the datagram).

Owns: a server going DOWN and UP by its health check (alert, notice), "backend NAME has no
server available!" (emerg, unquoted in the logs, quoted on stderr), "Proxy NAME stopped
(cumulated conns: ...)" for every proxy on a soft stop (warning), and the rule that an
event goes to the proxy's own loggers only (a backend without "log" logs none, even with a
global "log"). Expectations taken from Debian's /usr/sbin/haproxy 2.6 on the same configs.
"""

import re
import signal
import socket
import time

from conftest import free_port, wait_port

HDR = r"<(\d+)>[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.-]+\[(\d+)\]: "


class Sink:
    """A UDP syslog receiver on 127.0.0.1; every read is bounded in time."""

    def __init__(self):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.s.bind(("127.0.0.1", 0))
        self.addr = "127.0.0.1:%d" % self.s.getsockname()[1]
        self.s.settimeout(0.2)
        self.got = []

    def collect(self, until, timeout=5.0):
        """Reads datagrams until one's text matches <until> (regex) or timeout; returns
        the (pri, text) list read so far."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                d = self.s.recv(65536).decode(errors="replace")
            except socket.timeout:
                continue
            m = re.match(HDR + r"(.*)\n$", d, re.S)
            assert m, d
            self.got.append((int(m.group(1)), m.group(3)))
            if re.search(until, m.group(3)):
                break
        return self.got

    def close(self):
        self.s.close()


def listener_sock():
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    return s


def cfg(port, srv_port, glob_log, be_log):
    return """global
    log %s local0
defaults
    mode http
    timeout connect 1s
    timeout client 5s
    timeout server 5s
frontend fe
    bind 127.0.0.1:%d
    default_backend be
backend be
    log %s local1
    server s1 127.0.0.1:%d check inter 100
backend quiet
    server q1 127.0.0.1:%d check inter 100
""" % (glob_log, port, be_log, srv_port, srv_port)


def test_server_down_up_no_server(proxy):
    gsink, bsink = Sink(), Sink()
    port, srv_port = free_port(), free_port()
    p = proxy(cfg(port, srv_port, gsink.addr, bsink.addr), ports=[port])
    try:
        got = bsink.collect(r"has no server available")
        assert got[0][0] == 137, got
        # the duration is 0 or 1 ms on loopback, more on a loaded machine
        assert re.fullmatch(
            r'Server be/s1 is DOWN, reason: Layer4 connection problem, info: '
            r'"Connection refused", check duration: \d+ms\. 0 active and 0 backup servers '
            r'left\. 0 sessions active, 0 requeued, 0 remaining in queue\.', got[0][1]), got
        assert got[1] == (136, "backend be has no server available!")
        srv = socket.socket()
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", srv_port))
        srv.listen(64)
        try:
            got = bsink.collect(r" is UP")
            pri, txt = got[2]
            assert pri == 141
            assert re.fullmatch(
                r"Server be/s1 is UP, reason: Layer4 check passed, check duration: \d+ms\. 1 "
                r"active and 0 backup servers online\. 0 sessions requeued, 0 total in "
                r"queue\.", txt), txt
        finally:
            srv.close()
        # the backend without "log" sent nothing anywhere, the global target got nothing
        time.sleep(0.3)
        assert gsink.collect(r"$^", timeout=0.5) == []
        err = p.stderr()
        assert "[ALERT]    (%d) : backend 'be' has no server available!" % p.pid in err
        assert "[ALERT]    (%d) : backend 'quiet' has no server available!" % p.pid in err
        assert re.search(r"\[WARNING\]  \(%d\) : Server quiet/q1 is DOWN, reason: " % p.pid,
                         err)
    finally:
        gsink.close()
        bsink.close()


def test_soft_stop_proxy_stopped(proxy, backend):
    sink = Sink()
    port = free_port()
    srv = listener_sock()
    conf = """global
    log %s local0
defaults
    mode http
    log global
    timeout connect 1s
    timeout client 5s
    timeout server 5s
listen li
    bind 127.0.0.1:%d
    server b1 127.0.0.1:%d
frontend fe
    bind 127.0.0.1:%d
    default_backend be
backend be
    server s1 127.0.0.1:%d
""" % (sink.addr, port, backend.port, free_port(), srv.getsockname()[1])
    p = proxy(conf, ports=[port])
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=3) as c:
            c.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            c.settimeout(3)
            while c.recv(4096):
                pass
        p.proc.send_signal(signal.SIGUSR1)
        got = sink.collect(r"Proxy be stopped")
        stopped = [g for g in got if g[1].startswith("Proxy ")]
        assert stopped == [
            # FE counts the proxy() fixture's probe connection too
            (132, "Proxy li stopped (cumulated conns: FE: 2, BE: 1)."),
            (132, "Proxy fe stopped (cumulated conns: FE: 0, BE: 0)."),
            (132, "Proxy be stopped (cumulated conns: FE: 0, BE: 0)."),
        ], got
        p.proc.wait(timeout=5)
        assert "[WARNING]  (%d) : Proxy li stopped (cumulated conns: FE: 2, BE: 1)." % p.pid \
            in p.stderr()
    finally:
        srv.close()
        sink.close()


def test_quiet_keeps_stderr_clean_but_logs(proxy):
    sink = Sink()
    port, srv_port = free_port(), free_port()
    conf = cfg(port, srv_port, sink.addr, sink.addr).replace("global\n", "global\n    quiet\n")
    p = proxy(conf, ports=[port])
    try:
        got = sink.collect(r"backend be has no server available")
        assert (136, "backend be has no server available!") in got
        assert "has no server available" not in p.stderr()
    finally:
        sink.close()
