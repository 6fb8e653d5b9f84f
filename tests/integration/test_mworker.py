"""Seamless reload and master-worker mode as an operator sees them: -x takes the listening
sockets of the old process through its stats socket ("expose-fd listeners"), so the port
never closes; what happens without the option or without the old process.

Owns: -x (the same listening socket in the new process, refusal without expose-fd, a
missing socket, a bind the new config drops), and the options still refused.
"""

import os
import subprocess
import urllib.request

import pytest
from conftest import HAPROXY_BIN, free_port, run_haproxy, stop_pid_proc, wait_port

DEFAULTS = """defaults
    mode http
    timeout connect 2s
    timeout client 10s
    timeout server 10s
"""


def cfg_text(sock, ports, expose=True, body="v1"):
    lines = ["global", "    stats socket %s level admin%s" %
             (sock, " expose-fd listeners" if expose else ""), DEFAULTS.rstrip(),
             "frontend fe"]
    lines += ["    bind 127.0.0.1:%d" % p for p in ports]
    lines += ['    http-request return status 200 content-type text/plain string "%s"' % body]
    return "\n".join(lines) + "\n"


def start(cfg_path, args=(), err=None):
    return subprocess.Popen([HAPROXY_BIN, "-f", str(cfg_path)] + list(args),
                            stdout=subprocess.DEVNULL, stderr=err or subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL)


def listen_inodes(pid, port):
    """Socket inodes of the fds of <pid> that listen on 127.0.0.1:<port>."""
    want = "0100007F:%04X" % port
    inodes = set()
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            parts = line.split()
            if parts[1] == want and parts[3] == "0A":
                inodes.add(parts[9])
    mine = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if link.startswith("socket:[") and link[8:-1] in inodes:
            mine.add(link[8:-1])
    return mine


def get(port):
    with urllib.request.urlopen("http://127.0.0.1:%d/" % port, timeout=5) as r:
        return r.read().decode()


def test_x_hands_over_the_same_listening_socket(tmp_path, port):
    """The new process serves the new config on the very socket the old one listened on;
    the old one leaves after -sf."""
    sock = tmp_path / "s.sock"
    c1, c2 = tmp_path / "a.cfg", tmp_path / "b.cfg"
    c1.write_text(cfg_text(sock, [port]))
    c2.write_text(cfg_text(sock, [port], body="v2"))
    old = start(c1)
    new = None
    try:
        assert wait_port(port, 10.0, old)
        assert get(port) == "v1"
        before = listen_inodes(old.pid, port)
        assert before
        new = start(c2, ["-x", str(sock), "-sf", str(old.pid)])
        assert old.wait(timeout=15) == 0
        assert get(port) == "v2"
        assert listen_inodes(new.pid, port) == before
    finally:
        stop_pid_proc(old)
        if new:
            stop_pid_proc(new)


@pytest.mark.ours
def test_x_without_expose_fd_is_refused(tmp_path, port):
    """Without "expose-fd listeners" the old process does not give its sockets: the new
    one says why and exits 1, the old one keeps serving."""
    sock = tmp_path / "s.sock"
    c1 = tmp_path / "a.cfg"
    c1.write_text(cfg_text(sock, [port], expose=False))
    old = start(c1)
    try:
        assert wait_port(port, 10.0, old)
        r = run_haproxy(["-f", str(c1), "-x", str(sock), "-db"])
        assert r.returncode == 1
        assert "expose-fd listeners" in r.stderr
        assert "Failed to get the sockets from the old process!" in r.stderr
        assert old.poll() is None and get(port) == "v1"
    finally:
        stop_pid_proc(old)


def test_x_missing_socket_fails(tmp_path, port):
    c1 = tmp_path / "a.cfg"
    c1.write_text(cfg_text(tmp_path / "s.sock", [port]))
    r = run_haproxy(["-f", str(c1), "-x", str(tmp_path / "none.sock"), "-db"])
    assert r.returncode == 1
    assert "Failed to connect to the old process socket" in r.stderr
    assert "Failed to get the sockets from the old process!" in r.stderr


def test_x_drops_sockets_the_new_config_does_not_bind(tmp_path, port):
    """A bind removed from the config: the handed-over socket is closed, so the port stops
    accepting once the old process has left."""
    p2 = free_port()
    sock = tmp_path / "s.sock"
    c1, c2 = tmp_path / "a.cfg", tmp_path / "b.cfg"
    c1.write_text(cfg_text(sock, [port, p2]))
    c2.write_text(cfg_text(sock, [port], body="v2"))
    old = start(c1)
    new = None
    try:
        assert wait_port(port, 10.0, old) and wait_port(p2, 10.0, old)
        new = start(c2, ["-x", str(sock), "-sf", str(old.pid)])
        assert old.wait(timeout=15) == 0
        assert get(port) == "v2"
        assert not listen_inodes(new.pid, p2)
        assert not wait_port(p2, 0.5)
    finally:
        stop_pid_proc(old)
        if new:
            stop_pid_proc(new)
