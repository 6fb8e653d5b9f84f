"""Listeners and process control: bind address forms (IPv6 with v4-mapped, several
addresses, port ranges, unix sockets, fd@N inherited sockets), the bind options that change
what a client sees, and the stop signals (SIGTERM at once, SIGUSR1 graceful).
"""

import os
import signal
import socket
import subprocess
import threading
import time

import httpc
from conftest import HAPROXY_BIN, IS_REF, free_port, stop_pid_proc, wait_port

GET = b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"


def answer_cfg(binds, body="hello"):
    """A listen section answering every request itself, bound as <binds> lists."""
    lines = ["defaults", "    mode http", "    timeout client 10s", "    timeout server 10s",
             "    timeout connect 2s", "listen px"]
    lines += ["    bind %s" % b for b in binds]
    lines += ['    http-request return status 200 content-type text/plain string "%s"' % body]
    return "\n".join(lines) + "\n"


def get_from(family, addr):
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(addr)
        s.sendall(GET)
        data = b""
        while True:
            d = s.recv(4096)
            if not d:
                break
            data += d
    return data


def test_ipv6_any_accepts_v4_mapped(proxy, port):
    proxy(answer_cfg([":::%d" % port]), ports=[port])
    assert get_from(socket.AF_INET, ("127.0.0.1", port)).endswith(b"\r\n\r\nhello")
    assert get_from(socket.AF_INET6, ("::1", port)).endswith(b"\r\n\r\nhello")


def test_ipv6_v6only_refuses_v4(proxy, port):
    p = proxy(answer_cfg(["[::1]:%d v6only" % port, "127.0.0.2:%d" % port]))
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            assert get_from(socket.AF_INET6, ("::1", port)).endswith(b"hello")
            break
        except OSError:
            time.sleep(0.05)
    assert p.alive()
    try:
        get_from(socket.AF_INET, ("127.0.0.1", port))
        assert False, "127.0.0.1 must not be served by a v6only ::1 socket"
    except OSError:
        pass


def test_several_addresses_and_port_range(proxy):
    a, b = free_port(), free_port()
    base = free_port()
    # a range of 3 ports: pick a base whose next two ports are free too
    for _ in range(50):
        if all(_port_free(base + i) for i in range(3)):
            break
        base = free_port()
    proxy(answer_cfg(["127.0.0.1:%d,127.0.0.1:%d" % (a, b), "127.0.0.1:%d-%d" % (base, base + 2)]),
          ports=[a, b, base, base + 1, base + 2])
    for p in (a, b, base, base + 1, base + 2):
        assert get_from(socket.AF_INET, ("127.0.0.1", p)).endswith(b"hello")


def _port_free(p):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", p))
            return True
        except OSError:
            return False


def test_unix_socket_bind(proxy, tmp_path, port):
    path = str(tmp_path / "px.sock")
    proxy(answer_cfg(["unix@%s" % path, "127.0.0.1:%d" % port]), ports=[port])
    assert get_from(socket.AF_UNIX, path).endswith(b"\r\n\r\nhello")


def test_unix_socket_client_gets_no_forwardfor(proxy, backend, tmp_path, port):
    path = str(tmp_path / "px.sock")
    cfg = ("defaults\n    mode http\n    timeout client 10s\n    timeout server 10s\n"
           "    timeout connect 2s\nlisten px\n    bind %s\n    bind 127.0.0.1:%d\n"
           "    option forwardfor\n    server s1 127.0.0.1:%d\n" % (path, port, backend.port))
    proxy(cfg, ports=[port])
    assert b" 200 " in get_from(socket.AF_UNIX, path)
    assert backend.last().header("X-Forwarded-For") is None
    assert b" 200 " in get_from(socket.AF_INET, ("127.0.0.1", port))
    assert backend.last().header("X-Forwarded-For") == "127.0.0.1"


def test_fd_inherited_listener(tmp_path):
    """bind fd@N adopts a socket the parent opened and passed down."""
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(16)
    port = lsock.getsockname()[1]
    fd = lsock.fileno()
    cfg = tmp_path / "fd.cfg"
    cfg.write_text(answer_cfg(["fd@%d" % fd]))
    proc = subprocess.Popen([HAPROXY_BIN, "-f", str(cfg)], pass_fds=[fd],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        lsock.close()  # only the proxy holds it now
        assert wait_port(port, 10, proc)
        assert get_from(socket.AF_INET, ("127.0.0.1", port)).endswith(b"hello")
    finally:
        stop_pid_proc(proc)


def test_fd_not_a_listener_is_an_error(tmp_path, port):
    cfg = tmp_path / "fd.cfg"
    cfg.write_text(answer_cfg(["fd@0"]))
    r = subprocess.run([HAPROXY_BIN, "-f", str(cfg)], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=10)
    assert r.returncode != 0
    assert "[ALERT]" in r.stderr


def test_sigterm_stops_promptly_with_open_connections(proxy, port):
    p = proxy(answer_cfg(["127.0.0.1:%d" % port]), ports=[port])
    idle = [httpc.connect(port) for _ in range(5)]
    t0 = time.monotonic()
    os.kill(p.pid, signal.SIGTERM)
    p.proc.wait(timeout=5)
    assert time.monotonic() - t0 < 2
    for s in idle:
        s.close()


def test_sigusr1_finishes_inflight_request(proxy, backend, port):
    """A graceful stop lets a slow in-flight exchange finish, closes idle connections,
    refuses new ones, then exits."""
    cfg = ("defaults\n    mode http\n    timeout client 10s\n    timeout server 10s\n"
           "    timeout connect 2s\nlisten px\n    bind 127.0.0.1:%d\n"
           "    server s1 127.0.0.1:%d\n" % (port, backend.port))
    p = proxy(cfg, ports=[port])
    idle = httpc.connect(port)
    result = {}

    def slow():
        result["r"] = httpc.get(port, "/?delay=1.5", timeout=10)

    t = threading.Thread(target=slow)
    t.start()
    time.sleep(0.5)  # the slow request is at the server now
    os.kill(p.pid, signal.SIGUSR1)
    data, closed = httpc.recv_until_close(idle, 3)
    if not IS_REF:  # HAProxy 2.6 keeps a never-used connection until its timeout
        assert closed and data == b""  # the idle connection was closed at once
    idle.close()
    t.join(10)
    assert result["r"].status == 200
    p.proc.wait(timeout=5)
    assert p.proc.returncode == 0
    try:
        get_from(socket.AF_INET, ("127.0.0.1", port))
        assert False, "no new connection after a graceful stop"
    except OSError:
        pass
