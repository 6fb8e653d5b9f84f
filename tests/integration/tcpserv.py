"""Threaded raw TCP servers for the mode tcp tests: echo, sink, banner, close-after-N and
hold, each with a bounded lifetime (every socket times out, the acceptor stops at stop() or
after <lifetime> seconds) and counters a test reads (accepted, active, bytes received).

Owns: the servers and the `tcpservers` fixture (a factory; every server it made is stopped
when the test ends). It does not know about the proxy.
"""

import functools
import hashlib
import socket
import threading
import time

import pytest


class TcpServer:
    """A TCP server on 127.0.0.1 whose every connection does, in order:
      - greeting: bytes sent first (a banner, like SMTP/MySQL); "{name}" is the server name;
      - mode "echo": echo everything until the client's EOF, then shut the write side;
        mode "sink": read until EOF, then answer "<bytes> <sha256>\\n" and close;
        mode "send": send <send_bytes> bytes (a pattern) then close (server closes first);
        mode "hold": read and drop until EOF or stop();
        mode "silent": read nothing, answer nothing, keep the socket until stop();
      - after_eof: bytes sent after the client's EOF (client half-close), then close.
    With tls (a server-side SSLContext), the connection is TLS first (pass-through tests).
    With handler, handler(server, sock) runs after the greeting instead of the mode (fake
    protocol servers for health checks). port: a fixed port (to come back on the same one)."""

    def __init__(self, name="t1", mode="echo", greeting=b"", send_bytes=0, after_eof=b"",
                 lifetime=120.0, io_timeout=60.0, delay_close=0.0, tls=None, port=0,
                 handler=None):
        self.name = name
        self.tls = tls
        self.handler = handler
        self.mode = mode
        self.greeting = greeting.replace(b"{name}", name.encode())
        self.send_bytes = send_bytes
        self.after_eof = after_eof
        self.io_timeout = io_timeout
        self.delay_close = delay_close
        self.deadline = time.monotonic() + lifetime
        self.lock = threading.Lock()
        self.accepted = 0
        self.active = 0
        self.received = 0
        self.conns = []
        self.threads = []
        self.stopping = False
        self.lsock = socket.socket()
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind(("127.0.0.1", port))
        self.lsock.listen(256)
        self.lsock.settimeout(0.1)
        self.port = self.lsock.getsockname()[1]
        self.acceptor = threading.Thread(target=self._loop, daemon=True)
        self.acceptor.start()

    def _loop(self):
        while not self.stopping and time.monotonic() < self.deadline:
            try:
                s, _ = self.lsock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                self.accepted += 1
                self.active += 1
                self.conns.append(s)
                t = threading.Thread(target=self._run, args=(s,), daemon=True)
                self.threads.append(t)
            t.start()

    def _recv(self, s):
        d = s.recv(1 << 16)
        with self.lock:
            self.received += len(d)
        return d

    def _run(self, s):
        s.settimeout(self.io_timeout)
        try:
            if self.tls is not None:
                s = self.tls.wrap_socket(s, server_side=True)
            if self.greeting:
                s.sendall(self.greeting)
            if self.handler is not None:
                self.handler(self, s)
            else:
                getattr(self, "_mode_" + self.mode)(s)
        except OSError:
            pass
        finally:
            if self.delay_close:
                time.sleep(self.delay_close)
            try:
                s.close()
            except OSError:
                pass
            with self.lock:
                self.active -= 1

    def _mode_echo(self, s):
        for _ in range(1 << 22):
            d = self._recv(s)
            if not d:
                break
            s.sendall(d)
        if self.after_eof:
            s.sendall(self.after_eof)
        s.shutdown(socket.SHUT_WR)

    def _mode_sink(self, s):
        h, n = hashlib.sha256(), 0
        for _ in range(1 << 22):
            d = self._recv(s)
            if not d:
                break
            h.update(d)
            n += len(d)
        s.sendall(b"%d %s\n" % (n, h.hexdigest().encode()))
        if self.after_eof:
            s.sendall(self.after_eof)

    def _mode_send(self, s):
        s.sendall(pattern(self.send_bytes))

    def _mode_hold(self, s):
        for _ in range(1 << 22):
            if self.stopping or not self._recv(s):
                return

    def _mode_silent(self, s):
        for _ in range(int(self.io_timeout * 10)):
            if self.stopping:
                return
            time.sleep(0.1)

    def stop(self):
        self.stopping = True
        self.acceptor.join(timeout=2)
        self.lsock.close()
        with self.lock:
            conns = list(self.conns)
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for t in list(self.threads):
            t.join(timeout=2)


@functools.lru_cache(maxsize=8)
def pattern(n):
    """n bytes of a fixed non-repeating-looking pattern (for hashes)."""
    out = bytearray()
    i = 0
    while len(out) < n:
        out += hashlib.sha256(b"%d" % i).digest()
        i += 1
    return bytes(out[:n])


def recv_all(s, limit=64 << 20, timeout=10.0):
    """Read until EOF (bounded by size and time); returns (bytes, eof_seen)."""
    out = bytearray()
    deadline = time.monotonic() + timeout
    s.settimeout(0.5)
    while len(out) < limit and time.monotonic() < deadline:
        try:
            d = s.recv(1 << 16)
        except socket.timeout:
            continue
        except ConnectionResetError:
            return bytes(out), True
        if not d:
            return bytes(out), True
        out += d
    return bytes(out), False


def recv_exact(s, n, timeout=10.0):
    """Read n bytes (bounded in time); returns what came (shorter on EOF/timeout)."""
    out = bytearray()
    deadline = time.monotonic() + timeout
    s.settimeout(0.5)
    while len(out) < n and time.monotonic() < deadline:
        try:
            d = s.recv(min(1 << 16, n - len(out)))
        except socket.timeout:
            continue
        if not d:
            break
        out += d
    return bytes(out)


def recv_line(s, timeout=10.0):
    out = bytearray()
    deadline = time.monotonic() + timeout
    s.settimeout(0.5)
    while not out.endswith(b"\n") and len(out) < 65536 and time.monotonic() < deadline:
        try:
            d = s.recv(1)
        except socket.timeout:
            continue
        if not d:
            break
        out += d
    return bytes(out)


def wait_for(pred, timeout, step=0.05):
    """Poll pred until true or timeout (bounded in count and time)."""
    for _ in range(int(timeout / step) + 1):
        if pred():
            return True
        time.sleep(step)
    return False


def tcp_cfg(port, servers=(), glob=(), defaults=(), listen=(), srv_opts="", extra="",
            timeouts=("timeout connect 2s", "timeout client 30s", "timeout server 30s")):
    """A `listen px` in mode tcp on 127.0.0.1:port over servers (TcpServers or (name,
    port) tuples); extra lines per section."""
    lines = ["global"] + ["    " + x for x in glob]
    lines += ["defaults", "    mode tcp"] + ["    " + x for x in timeouts]
    lines += ["    " + x for x in defaults]
    lines += ["listen px", "    bind 127.0.0.1:%d" % port]
    lines += ["    " + x for x in listen]
    for s in servers:
        name, sport = (s.name, s.port) if isinstance(s, TcpServer) else s
        lines.append("    server %s 127.0.0.1:%d %s" % (name, sport, srv_opts))
    return "\n".join(lines) + "\n" + extra


@pytest.fixture
def tcpservers():
    """Factory: tcpservers(name=..., mode=..., ...) -> a started TcpServer."""
    started = []

    def make(name="t1", **kw):
        srv = TcpServer(name, **kw)
        started.append(srv)
        return srv

    try:
        yield make
    finally:
        for srv in started:
            srv.stop()


def listening(port):
    """True when something listens on TCP port <port> (read from /proc/net/tcp, without
    connecting: in mode tcp a probe connection would reach a server and count)."""
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(path) as f:
                next(f)
                for ln in f:
                    p = ln.split()
                    if p[3] == "0A" and int(p[1].rsplit(":", 1)[1], 16) == port:
                        return True
        except OSError:
            pass
    return False


@pytest.fixture(name="proxy")
def quiet_proxy(proxy):
    """The conftest proxy factory, but waiting for the ports by reading /proc/net/tcp
    instead of connecting to them (so servers, logs and counters see only the test)."""
    def start(cfg, ports=(), args=(), name=None):
        px = proxy(cfg, (), args, name)
        for p in ports:
            ok = wait_for(lambda: listening(p) or not px.alive(), 10)
            if not ok or not px.alive():
                pytest.fail("proxy did not listen on %d; stderr:\n%s" % (p, px.stderr()))
        return px
    return start
