"""SIGTTOU / SIGTTIN as an operator sees them (HAProxy 2.6's pause and resume): after
SIGTTOU a new connection is refused (the port stays bound by the process but does not
listen), established keep-alive connections keep working; after SIGTTIN new connections
are accepted again. SIGUSR1 still stops a paused process.

Owns: the pause/resume signals.
"""

import os
import signal
import socket
import subprocess
import time

import pytest
from conftest import HAPROXY_BIN, stop_pid_proc, wait_port

CFG = """global
    nbthread {nbt}
defaults
    mode http
    timeout connect 2s
    timeout client 10s
    timeout server 10s
frontend fe
    bind 127.0.0.1:{port}
    http-request return status 200 content-type text/plain string "ok"
"""


def request(s):
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    data = b""
    while not data.endswith(b"ok"):
        d = s.recv(4096)
        if not d:
            break
        data += d
    return data.split(b"\r\n", 1)[0]


def connect_refused(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except ConnectionRefusedError:
        return True
    except ConnectionResetError:  # queued while the listener paused: reset, not served
        return True
    return False


def wait_until(pred, timeout=3.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("nbt", [1, 2])
def test_ttou_pauses_ttin_resumes(tmp_path, port, nbt):
    cfg = tmp_path / "h.cfg"
    cfg.write_text(CFG.format(nbt=nbt, port=port))
    p = subprocess.Popen([HAPROXY_BIN, "-f", str(cfg)], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ka = None
    try:
        assert wait_port(port, 10, p)
        ka = socket.create_connection(("127.0.0.1", port), timeout=5)
        assert request(ka) == b"HTTP/1.1 200 OK"
        os.kill(p.pid, signal.SIGTTOU)
        assert wait_until(lambda: connect_refused(port)), "still accepting after SIGTTOU"
        for _ in range(3):
            assert connect_refused(port)
        # the established keep-alive connection is served as before
        assert request(ka) == b"HTTP/1.1 200 OK"
        assert p.poll() is None
        os.kill(p.pid, signal.SIGTTIN)
        assert wait_until(lambda: not connect_refused(port)), "not accepting after SIGTTIN"
        for _ in range(5):
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                assert request(s) == b"HTTP/1.1 200 OK"
        assert request(ka) == b"HTTP/1.1 200 OK"
        # pause again, then a graceful stop still ends the process
        os.kill(p.pid, signal.SIGTTOU)
        assert wait_until(lambda: connect_refused(port))
        ka.close()
        ka = None
        os.kill(p.pid, signal.SIGUSR1)
        p.wait(timeout=10)
        assert p.returncode == 0
    finally:
        if ka:
            ka.close()
        stop_pid_proc(p)
