"""Seamless reload and master-worker mode as an operator sees them: -x takes the listening
sockets of the old process through its stats socket ("expose-fd listeners"), so the port
never closes; what happens without the option or without the old process.

Owns: -x (the same listening socket in the new process, refusal without expose-fd, a
missing socket, a bind the new config drops); -W (reload, failed reload, stop, a killed
worker, -D with a pidfile, mworker-max-reloads, a slow request across a reload,
hard-stop-after); -Ws against a fake systemd socket. Reload under load: test_reload.py.
"""

import os
import signal
import time
import subprocess
import urllib.request

import pytest
from conftest import HAPROXY_BIN, IS_REF, free_port, run_haproxy, stop_pid_proc, wait_port

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


# ---- master-worker ----

def children(pid):
    """Pids whose parent is <pid> (a /proc scan)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        if int(st.rsplit(")", 1)[1].split()[1]) == pid:
            out.append(int(d))
    return out


def the_worker(m):
    """The master's one worker: the master binds before it forks, so the port answers
    (from its backlog) a moment before the worker exists; wait for it, bounded."""
    assert wait_for(lambda: len(children(m.pid)) == 1)
    return children(m.pid)


def wait_for(cond, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.05)
    return False


class Master:
    def __init__(self, tmp_path, text, args=()):
        self.cfg = tmp_path / "mw.cfg"
        self.cfg.write_text(text)
        self.err_path = tmp_path / "mw.err"
        self.err = open(self.err_path, "wb")
        self.p = start(self.cfg, ["-W"] + list(args), err=self.err)
        self.pid = self.p.pid

    def stderr(self):
        self.err.flush()
        return self.err_path.read_text(errors="replace")

    def stop(self):
        kids = children(self.pid)
        stop_pid_proc(self.p)
        for k in kids:
            try:
                os.kill(k, 9)
            except OSError:
                pass
        self.err.close()


def mw_cfg(port, body="v1", glob=""):
    return ("global\n" + glob + DEFAULTS + "frontend fe\n    bind 127.0.0.1:%d\n"
            '    http-request return status 200 content-type text/plain string "%s"\n'
            % (port, body))


def test_mworker_reload_failed_reload_and_stop(tmp_path, port):
    """-W: one worker child; SIGUSR2 reloads the new config (the old worker leaves);
    a config that fails leaves the current worker serving; SIGTERM stops all, exit 0."""
    m = Master(tmp_path, mw_cfg(port))
    try:
        assert wait_port(port, 10.0, m.p)
        assert get(port) == "v1"
        w1 = the_worker(m)
        m.cfg.write_text(mw_cfg(port, "v2"))
        os.kill(m.pid, signal.SIGUSR2)
        assert wait_for(lambda: get(port) == "v2")
        assert wait_for(lambda: w1[0] not in children(m.pid))
        w2 = children(m.pid)
        assert len(w2) == 1
        m.cfg.write_text(mw_cfg(port, "v3") + "bogus\n")
        os.kill(m.pid, signal.SIGHUP)
        assert wait_for(lambda: "Loading failure!" in m.stderr())
        assert m.p.poll() is None and get(port) == "v2"
        assert children(m.pid) == w2
        m.cfg.write_text(mw_cfg(port, "v4"))
        os.kill(m.pid, signal.SIGUSR2)  # the master in wait mode reloads again
        assert wait_for(lambda: get(port) == "v4")
        # the master image has settled (HAProxy: its handlers are set after the log line)
        assert wait_for(lambda: m.stderr().count("Loading success.") == 3)
        time.sleep(0.3)
        assert wait_for(lambda: len(children(m.pid)) == 1)
        w3 = children(m.pid)
        os.kill(m.pid, signal.SIGTERM)
        assert m.p.wait(timeout=10) == 0
        err = m.stderr()
        assert "Exiting Master process..." in err
        # the worker ends by the master's SIGTERM, as 2.6 reports it
        assert "[ALERT]    (%d) : Current worker (%d) exited with code 143 (Terminated)" % (
            m.pid, w3[0]) in err, err
        assert "All workers exited. Exiting... (0)" in err
        assert not children(m.pid)
    finally:
        m.stop()


def test_mworker_worker_killed_master_exits_with_its_status(tmp_path, port):
    m = Master(tmp_path, mw_cfg(port))
    try:
        assert wait_port(port, 10.0, m.p)
        w = the_worker(m)
        os.kill(w[0], signal.SIGKILL)
        assert m.p.wait(timeout=10) == 137
        err = m.stderr()
        assert "exited with code 137 (Killed)" in err
        assert "All workers exited. Exiting... (137)" in err
    finally:
        m.stop()


def test_mworker_global_keyword_and_daemon_pidfile(tmp_path, port):
    """"master-worker" + -D: the launcher returns 0 once the worker serves; the pidfile
    holds the master's pid; the worker is its child."""
    cfg = tmp_path / "d.cfg"
    pidf = tmp_path / "h.pid"
    cfg.write_text(mw_cfg(port, glob="    master-worker\n"))
    r = run_haproxy(["-f", str(cfg), "-D", "-p", str(pidf)])
    assert r.returncode == 0, r.stderr
    mpid = int(pidf.read_text())
    try:
        assert get(port) == "v1"
        assert len(children(mpid)) == 1
    finally:
        kids = children(mpid)
        os.kill(mpid, signal.SIGTERM)
        assert wait_for(lambda: not os.path.exists("/proc/%d" % mpid) or
                        open("/proc/%d/stat" % mpid).read().split()[2] == "Z", 10)
        for k in kids:
            assert wait_for(lambda: not os.path.exists("/proc/%d" % k), 10)


@pytest.mark.ours
def test_mworker_max_reloads(tmp_path, port):
    """An old worker still busy after more than N reloads gets SIGTERM."""
    m = Master(tmp_path, mw_cfg(port, glob="    mworker-max-reloads 1\n"
                                "    hard-stop-after 60s\n"))
    try:
        assert wait_port(port, 10.0, m.p)
        w1 = the_worker(m)
        s = __import__("socket").create_connection(("127.0.0.1", port))
        s.sendall(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
        s.recv(4096)  # keeps a keep-alive connection: w1 stays (idle close after 1s)
        os.kill(m.pid, signal.SIGUSR2)
        assert wait_for(lambda: len(children(m.pid)) == 2)
        os.kill(m.pid, signal.SIGUSR2)
        assert wait_for(lambda: w1[0] not in children(m.pid))
        s.close()
    finally:
        m.stop()


@pytest.mark.ours
def test_mworker_no_exit_on_failure_refused(tmp_path, port):
    cfg = tmp_path / "n.cfg"
    cfg.write_text(mw_cfg(port, glob="    master-worker no-exit-on-failure\n"))
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode == 1
    assert "n.cfg:2" in r.stderr and "not supported yet" in r.stderr


def test_mworker_slow_request_survives_reload_and_hard_stop_after(tmp_path, port, backend):
    """A request in flight on the old worker during a reload completes with 200; an old
    worker stuck on a longer one is ended by hard-stop-after."""
    be = backend
    text = ("global\n    hard-stop-after 2s\n" + DEFAULTS + "frontend fe\n"
            "    bind 127.0.0.1:%d\n    default_backend be\nbackend be\n"
            "    server s 127.0.0.1:%d\n" % (port, be.port))
    m = Master(tmp_path, text)
    try:
        assert wait_port(port, 10.0, m.p)
        w1 = the_worker(m)
        res = {}

        def fetch(key, delay):
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/?delay=%s" % (port, delay),
                                            timeout=15) as r:
                    res[key] = r.status
            except Exception as e:  # noqa: BLE001
                res[key] = repr(e)

        import threading
        t1 = threading.Thread(target=fetch, args=("short", 1.0))
        t2 = threading.Thread(target=fetch, args=("stuck", 8.0))
        t1.start()
        t2.start()
        time.sleep(0.3)
        t0 = time.monotonic()
        os.kill(m.pid, signal.SIGUSR2)
        t1.join(10)
        assert res.get("short") == 200
        assert wait_for(lambda: w1[0] not in children(m.pid), 10)
        assert time.monotonic() - t0 < 6  # hard-stop-after, not the 8 s request
        t2.join(10)
        assert res.get("stuck") != 200
        assert len(children(m.pid)) == 1
    finally:
        m.stop()


# ---- systemd notify (-Ws) ----

@pytest.mark.ours
def test_ws_notify_sequence(tmp_path, port):
    """A fake systemd: a unix datagram socket in NOTIFY_SOCKET. Start, reload, failed
    reload and stop send READY (with MAINPID = the master), RELOADING + READY,
    RELOADING + READY with a STATUS, then STOPPING, in that order. (HAProxy 2.6 sends
    RELOADING=1 at start too, twice per reload, and no MONOTONIC_USEC: the sequence
    here is the one systemd's Type=notify-reload documents.)"""
    import socket as sk
    path = str(tmp_path / "notify.sock")
    srv = sk.socket(sk.AF_UNIX, sk.SOCK_DGRAM)
    srv.bind(path)
    srv.settimeout(10)
    cfg = tmp_path / "ws.cfg"
    cfg.write_text(mw_cfg(port))
    env = dict(os.environ, NOTIFY_SOCKET=path)
    err = open(tmp_path / "ws.err", "wb")
    p = subprocess.Popen([HAPROXY_BIN, "-Ws", "-f", str(cfg)], stdout=subprocess.DEVNULL,
                         stderr=err, stdin=subprocess.DEVNULL, env=env)
    msgs = []

    def recv_one():
        m = srv.recv(4096).decode()
        msgs.append(m)
        return dict(x.split("=", 1) for x in m.strip().split("\n") if "=" in x)

    def recv():
        """The next message; HAProxy 2.6 sends more (a RELOADING=1 at start, STATUS
        messages): in reference mode, the next one that has a state of ours."""
        for _ in range(10):
            d = recv_one()
            if not IS_REF or {"READY", "RELOADING", "STOPPING"} & set(d):
                return d
        return {}

    try:
        first = recv()
        for _ in range(5):  # 2.6 starts with a RELOADING=1
            if not IS_REF or "READY" in first:
                break
            first = recv()
        assert first.get("READY") == "1", msgs
        assert first.get("MAINPID", str(p.pid)) == str(p.pid)
        assert wait_port(port, 10.0, p)
        cfg.write_text(mw_cfg(port, "v2"))
        os.kill(p.pid, signal.SIGUSR2)
        r = recv()
        assert r.get("RELOADING") == "1", msgs
        assert IS_REF or int(r["MONOTONIC_USEC"]) > 0  # 2.6 sends RELOADING=1 alone
        assert recv().get("READY") == "1", msgs
        assert wait_for(lambda: get(port) == "v2")
        time.sleep(0.3)
        cfg.write_text(mw_cfg(port, "v3") + "bogus\n")
        os.kill(p.pid, signal.SIGUSR2)
        assert recv().get("RELOADING") == "1"
        failed = recv()
        assert failed.get("READY") == "1"
        time.sleep(0.3)
        os.kill(p.pid, signal.SIGTERM)
        assert recv().get("STOPPING") == "1"
        assert p.wait(timeout=10) == 0
        assert get_safe(port) is None
    finally:
        stop_pid_proc(p)
        err.close()
        srv.close()


def get_safe(port):
    try:
        return get(port)
    except OSError:
        return None



def test_mworker_inet_stats_socket_survives_reloads(tmp_path, port):
    """A "stats socket" on an inet address: the master passes its socket through the
    re-exec, so reloads succeed and the socket answers from the new worker."""
    sport = free_port()
    m = Master(tmp_path, mw_cfg(port, glob="    stats socket ipv4@127.0.0.1:%d level admin\n"
                                % sport))

    def pid_line():
        try:
            with socket.create_connection(("127.0.0.1", sport), timeout=2) as s:
                s.sendall(b"show info\n")
                s.shutdown(socket.SHUT_WR)
                out = b""
                for _ in range(100):
                    d = s.recv(65536)
                    if not d:
                        break
                    out += d
        except OSError:
            return None
        for ln in out.decode().split("\n"):
            if ln.startswith("Pid: "):
                return int(ln[5:])
        return None

    import socket
    try:
        assert wait_port(port, 10.0, m.p)
        for body in ("v2", "v3"):
            assert wait_for(lambda: len(children(m.pid)) == 1)
            w = children(m.pid)
            assert wait_for(lambda: pid_line() == w[0])
            m.cfg.write_text(mw_cfg(port, body, glob="    stats socket ipv4@127.0.0.1:%d "
                                    "level admin\n" % sport))
            os.kill(m.pid, signal.SIGUSR2)
            assert wait_for(lambda: get(port) == body)
            assert wait_for(lambda: w[0] not in children(m.pid))
        assert "Loading failure!" not in m.stderr()
        assert wait_for(lambda: pid_line() == children(m.pid)[0])
    finally:
        m.stop()
