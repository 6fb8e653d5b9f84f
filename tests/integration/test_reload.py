"""Graceful stops and -sf take-overs under load, as an operator reloading a busy proxy sees
them: the old process never crashes, and wrk sees no socket error and no failed request.

Owns: SIGUSR1 while wrk runs (repeated; run under the ASan binary by `make
integration-asan`), chains of `-sf` take-overs under keep-alive and close-mode load, the
"Connection: close" a client gets on the last response of a stopping process, and the idle
keep-alive connection closed once quiet.
"""

import re
import shutil
import signal
import subprocess
import time

import httpc
import pytest
from backend import Reader
from conftest import HAPROXY_BIN, stop_pid_proc, wait_port

pytestmark = pytest.mark.skipif(not shutil.which("wrk"), reason="wrk not installed")

DEFAULTS = """defaults
    mode http
    timeout connect 2s
    timeout client 10s
    timeout server 10s
"""

RETURN_CFG = DEFAULTS + """frontend fe
    bind 127.0.0.1:{port}
    http-request return status 200 content-type text/plain string "ok"
"""

PROXY_CFG = DEFAULTS + """frontend fe
    bind 127.0.0.1:{port}
    default_backend be
backend be
    server ngx 127.0.0.1:{nport}
"""


def start(cfg_path, args=(), log=None):
    return subprocess.Popen([HAPROXY_BIN, "-f", str(cfg_path)] + list(args),
                            stdout=subprocess.DEVNULL, stderr=log or subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL)


def wrk(port, secs, extra=()):
    return subprocess.Popen(["wrk", "-t1", "-c20", "-d%ds" % secs, "--timeout", "5s"] +
                            list(extra) + ["http://127.0.0.1:%d/hello" % port],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def wrk_result(w, timeout):
    out = w.communicate(timeout=timeout)[0]
    m = re.search(r"(\d+) requests in", out)
    assert m, out
    return int(m.group(1)), out


def exit_code(p, timeout):
    try:
        return p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        stop_pid_proc(p)
        pytest.fail("the process did not end within %ss of SIGUSR1" % timeout)


@pytest.mark.parametrize("rnd", range(5))
def test_sigusr1_under_load_exits_cleanly(tmp_path, port, rnd):
    """A soft stop while 20 connections hammer the proxy: exit 0, never a signal."""
    cfg = tmp_path / "x.cfg"
    cfg.write_text(RETURN_CFG.format(port=port))
    err = open(tmp_path / "err", "wb")
    p = start(cfg, log=err)
    try:
        assert wait_port(port, 10.0, p)
        w = wrk(port, 3)
        time.sleep(1.2)
        p.send_signal(signal.SIGUSR1)
        rc = exit_code(p, 15)
        n, out = wrk_result(w, 30)
    finally:
        stop_pid_proc(p)
        err.close()
    assert rc == 0, (rc, (tmp_path / "err").read_text(errors="replace"))
    assert n > 100, out


def sf_chain(tmp_path, cfg_text, port, takeovers, extra=()):
    """Runs wrk for the whole chain; every 0.4 s a new process takes over with -sf."""
    cfg = tmp_path / "x.cfg"
    cfg.write_text(cfg_text)
    procs = [start(cfg)]
    try:
        assert wait_port(port, 10.0, procs[0])
        w = wrk(port, int(takeovers * 0.4) + 3, extra)
        time.sleep(1.0)
        for _ in range(takeovers):
            procs.append(start(cfg, ["-sf", str(procs[-1].pid)]))
            time.sleep(0.4)
        n, out = wrk_result(w, takeovers + 60)
        # every replaced process ends by itself, with status 0
        for p in procs[:-1]:
            assert exit_code(p, 15) == 0
        assert procs[-1].poll() is None
    finally:
        for p in procs:
            stop_pid_proc(p)
    return n, out


@pytest.mark.ours
def test_sf_takeovers_keepalive_lose_nothing(tmp_path, nginx, port):
    """20 take-overs under keep-alive load through a backend: no error at all."""
    nport, _ = nginx()
    n, out = sf_chain(tmp_path, PROXY_CFG.format(port=port, nport=nport), port, 20)
    assert n > 1000, out
    assert "Socket errors" not in out, out
    assert "Non-2xx" not in out, out


@pytest.mark.ours
@pytest.mark.ours
def test_sf_takeovers_close_mode_lose_nothing(tmp_path, port):
    """20 take-overs while every request opens a new connection (about 100,000 a second
    here): from its start the new process gets every new connection, and those waiting in
    the old process's accept queue move to it instead of being reset (without that: a
    reset every other take-over; HAProxy 2.6: about 6 per take-over)."""
    n, out = sf_chain(tmp_path, RETURN_CFG.format(port=port), port, 20,
                      ["-H", "Connection: close"])
    assert n > 1000, out
    assert "Socket errors" not in out, out
    assert "Non-2xx" not in out, out


GET = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n"


def served_keepalive(tmp_path, port, cfg_text):
    """Starts the proxy and serves one request on a keep-alive connection; returns the
    process, the socket and its reader."""
    cfg = tmp_path / "x.cfg"
    cfg.write_text(cfg_text)
    p = start(cfg)
    assert wait_port(port, 10.0, p)
    s = httpc.connect(port, 5.0)
    rd = Reader(s)
    s.sendall(GET)
    r = httpc.read_response(rd)
    assert r.status == 200 and r.header("Connection") is None, r
    return p, s, rd


@pytest.mark.ours
def test_stopping_process_answers_with_connection_close(tmp_path, port):
    """After SIGUSR1, the next request of a keep-alive client is served, says
    "Connection: close", and the connection ends: the client knows to reconnect. (HAProxy
    2.6 closes idle connections at once unless "option idle-close-on-response" is set, so
    a client sending at that moment sees a close instead of a response.)"""
    p, s, rd = served_keepalive(tmp_path, port, RETURN_CFG.format(port=port))
    try:
        p.send_signal(signal.SIGUSR1)
        time.sleep(0.1)
        s.sendall(GET)
        r = httpc.read_response(rd)
        assert (r.status, r.header("Connection"), r.body) == (200, "close", b"ok"), r
        assert httpc.recv_until_close(s, 5.0) == (b"", True)
        assert exit_code(p, 10) == 0
    finally:
        s.close()
        stop_pid_proc(p)


@pytest.mark.ours
def test_stopping_process_closes_quiet_idle_connection(tmp_path, port):
    """An idle keep-alive connection does not hold a stopping process for its whole
    keep-alive timeout: once quiet for a second it is closed and the process ends."""
    p, s, rd = served_keepalive(tmp_path, port, RETURN_CFG.format(port=port))
    try:
        t0 = time.monotonic()
        p.send_signal(signal.SIGUSR1)
        assert exit_code(p, 8) == 0
        assert time.monotonic() - t0 < 5.0  # timeout client is 10s
        assert httpc.recv_until_close(s, 2.0) == (b"", True)
    finally:
        s.close()
        stop_pid_proc(p)


def test_idle_close_on_response_waits_for_the_next_request(tmp_path, port):
    """option idle-close-on-response: after SIGUSR1 an idle keep-alive connection stays
    open even when quiet, and its next request is answered, then the connection closes."""
    cfg = RETURN_CFG.format(port=port).replace(
        "frontend fe\n", "frontend fe\n    option idle-close-on-response\n")
    p, s, rd = served_keepalive(tmp_path, port, cfg)
    try:
        p.send_signal(signal.SIGUSR1)
        time.sleep(1.6)  # longer than the quiet delay that closes idle connections
        assert p.poll() is None
        s.sendall(GET)
        r = httpc.read_response(rd)
        assert (r.status, r.header("Connection")) == (200, "close"), r
        assert exit_code(p, 10) == 0
    finally:
        s.close()
        stop_pid_proc(p)


XFER_CFG = """global
    stats socket {sock} level admin expose-fd listeners
""" + DEFAULTS + """frontend fe
    bind 127.0.0.1:{port}
    http-request return status 200 content-type text/plain string "ok"
    http-response set-header X-Gen {gen}
"""


def test_sf_x_takeovers_lose_nothing(tmp_path, port):
    """20 take-overs with -x (the listening socket itself is handed over, never closed)
    and -sf, each with a changed config, while every request opens a new connection:
    wrk sees no socket error (no refused connection) and no failed request."""
    sock = tmp_path / "s.sock"
    cfg = tmp_path / "x.cfg"
    cfg.write_text(XFER_CFG.format(sock=sock, port=port, gen=0))
    procs = [start(cfg)]
    try:
        assert wait_port(port, 10.0, procs[0])
        w = wrk(port, 11, ["-H", "Connection: close"])
        time.sleep(1.0)
        for gen in range(1, 21):
            cfg.write_text(XFER_CFG.format(sock=sock, port=port, gen=gen))
            procs.append(start(cfg, ["-x", str(sock), "-sf", str(procs[-1].pid)]))
            time.sleep(0.4)
        n, out = wrk_result(w, 60)
        for p in procs[:-1]:
            assert exit_code(p, 15) == 0
        assert procs[-1].poll() is None
    finally:
        for p in procs:
            stop_pid_proc(p)
    assert n > 1000, out
    assert "Socket errors" not in out, out
    assert "Non-2xx" not in out, out


MW_CFG = DEFAULTS + """frontend fe
    bind 127.0.0.1:{port}
    default_backend be
    http-response set-header X-Gen {gen}
backend be
    server ngx 127.0.0.1:{nport} weight {weight}
"""


@pytest.mark.ours
def test_mworker_reloads_under_load_lose_nothing(tmp_path, nginx, port):
    """20 master-worker reloads (SIGUSR2) 0.4 s apart, each with a changed config (server
    weight, header value), while wrk keeps 20 connections busy: no socket error, no
    failed request; every old worker leaves, the master and one worker remain.
    (HAProxy 2.6: about 100 read errors over the 20 reloads.)"""
    nport, _ = nginx()
    cfg = tmp_path / "mw.cfg"
    cfg.write_text(MW_CFG.format(port=port, nport=nport, gen=0, weight=1))
    m = start(cfg, ["-W"])
    try:
        assert wait_port(port, 10.0, m)
        w = wrk(port, 11)
        time.sleep(1.0)
        for gen in range(1, 21):
            cfg.write_text(MW_CFG.format(port=port, nport=nport, gen=gen, weight=gen))
            m.send_signal(signal.SIGUSR2)
            time.sleep(0.4)
        n, out = wrk_result(w, 60)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and len(mw_children(m.pid)) > 1:
            time.sleep(0.1)
        assert len(mw_children(m.pid)) == 1
        assert m.poll() is None
        m.send_signal(signal.SIGTERM)
        assert m.wait(timeout=10) == 0
    finally:
        stop_pid_proc(m)
    assert n > 1000, out
    assert "Socket errors" not in out, out
    assert "Non-2xx" not in out, out


def mw_children(pid):
    import os
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(d))
            except OSError:
                pass
    return out
