"""Process-wide global keywords as an operator sees them: "grace" (listeners keep accepting
after SIGUSR1, "stopping" already true), hard-stop-after bounding a -sf take-over,
"localpeer" (HAPROXY_LOCALPEER, -L wins), "node"/"description" in "show info", "nbproc".

Owns: grace, localpeer, node, description, nbproc, hard-stop-after with -sf.
"""

import signal
import socket
import subprocess
import time

import httpc
import pytest
from conftest import HAPROXY_BIN, IS_REF, cli, free_port, run_haproxy, stop_pid_proc, wait_port

DEFAULTS = """defaults
    mode http
    timeout connect 2s
    timeout client 10s
    timeout server 30s
"""


def write(tmp_path, text, name="h.cfg"):
    c = tmp_path / name
    c.write_text(text)
    return c


def start(cfg, args=()):
    p = subprocess.Popen([HAPROXY_BIN, "-f", str(cfg)] + list(args), stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return p


def wait_exit(p, timeout):
    try:
        p.wait(timeout=timeout)
        return True
    except subprocess.TimeoutExpired:
        return False


def test_grace_keeps_accepting_with_stopping_true(tmp_path, port):
    cfg = write(tmp_path, "global\n    grace 1500\n" + DEFAULTS + """frontend fe
    bind 127.0.0.1:%d
    http-request return status 503 if { stopping }
    http-request return status 200
""" % port)
    p = start(cfg)
    try:
        assert wait_port(port, 10, p)
        assert httpc.get(port, "/").status == 200
        t0 = time.monotonic()
        p.send_signal(signal.SIGUSR1)
        time.sleep(0.4)
        # still listening during the grace, and the "stopping" fetch is already true
        assert httpc.get(port, "/").status == 503
        assert p.poll() is None
        assert wait_exit(p, 10)
        assert time.monotonic() - t0 >= 1.2
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
    finally:
        stop_pid_proc(p)


def test_hard_stop_after_bounds_sf_takeover(tmp_path):
    port = free_port()
    # a server that completes the handshake (kernel backlog) and never answers
    stuck = socket.socket()
    stuck.bind(("127.0.0.1", 0))
    stuck.listen(8)
    cfg = write(tmp_path, "global\n    hard-stop-after 1s\n" + DEFAULTS + """frontend fe
    bind 127.0.0.1:%d
    default_backend be
backend be
    server s1 127.0.0.1:%d
""" % (port, stuck.getsockname()[1]))
    old = start(cfg)
    new = None
    c = None
    try:
        assert wait_port(port, 10, old)
        c = socket.create_connection(("127.0.0.1", port), timeout=5)
        c.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        time.sleep(0.3)
        t0 = time.monotonic()
        new = start(cfg, ["-sf", str(old.pid)])
        # the request in flight would keep the old process 30 s (timeout server)
        assert wait_exit(old, 6), "old process still running after hard-stop-after"
        assert time.monotonic() - t0 < 5
        assert new.poll() is None
    finally:
        if c:
            c.close()
        stop_pid_proc(old)
        if new:
            stop_pid_proc(new)
        stuck.close()


def test_localpeer_exported_and_cli_wins(tmp_path, port):
    cfg = write(tmp_path, "global\n    localpeer abc\n    localpeer def\n" + DEFAULTS + """
frontend fe
    bind 127.0.0.1:%d
    http-request return status 200 content-type text/plain string "${HAPROXY_LOCALPEER}"
""" % port)
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode == 0, r.stderr
    p = start(cfg)
    try:
        assert wait_port(port, 10, p)
        assert httpc.get(port, "/").body == b"def"
    finally:
        stop_pid_proc(p)
    r = run_haproxy(["-L", "zz", "-c", "-f", str(cfg)])
    assert r.returncode == 0
    assert ("parsing [%s:2] : 'localpeer' ignored since it is already set by using the '-L' "
            "command line argument." % cfg) in r.stderr
    p = start(cfg, ["-L", "zz"])
    try:
        assert wait_port(port, 10, p)
        assert httpc.get(port, "/").body == b"zz"
    finally:
        stop_pid_proc(p)


def test_node_and_description_in_show_info(tmp_path, port):
    sock = tmp_path / "s.sock"
    cfg = write(tmp_path, """global
    node my-node_1.x
    description a test  process
    stats socket %s
""" % sock + DEFAULTS + """frontend fe
    bind 127.0.0.1:%d
    http-request return status 200
""" % port)
    p = start(cfg)
    try:
        assert wait_port(port, 10, p)
        info = cli(str(sock), "show info").splitlines()
        i = info.index("node: my-node_1.x")
        assert info[i + 1] == "description: a test process"
    finally:
        stop_pid_proc(p)


@pytest.mark.parametrize("value", ["a/b", "a:b"])
def test_node_name_must_be_valid(tmp_path, port, value):
    cfg = write(tmp_path, "global\n    node %s\n" % value + DEFAULTS
                + "frontend fe\n    bind 127.0.0.1:%d\n" % port)
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode == 1
    assert "'node' requires valid node name - non-empty string with digits(0-9)" in r.stderr


def test_nbproc_above_one_refused(tmp_path, port):
    cfg = write(tmp_path, "global\n    nbproc 2\n" + DEFAULTS
                + "frontend fe\n    bind 127.0.0.1:%d\n" % port)
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode == 1
    assert ("nbproc is not supported any more since HAProxy 2.5. Threads will automatically "
            "be used on multi-processor machines if available.") in r.stderr


@pytest.mark.ours  # HAProxy 2.6 refuses "nbproc 1" too; we accept it with a warning
def test_nbproc_one_accepted(tmp_path, port):
    cfg = write(tmp_path, "global\n    nbproc 1\n" + DEFAULTS
                + "frontend fe\n    bind 127.0.0.1:%d\n" % port)
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode == 0
    assert "'nbproc' is obsolete and ignored" in r.stderr


def test_expose_experimental_directives_accepted(tmp_path, port):
    cfg = write(tmp_path, "global\n    expose-experimental-directives\n" + DEFAULTS
                + "frontend fe\n    bind 127.0.0.1:%d\n" % port)
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode == 0, r.stderr
    assert not IS_REF or "Configuration file is valid" in r.stdout


def dp_tree(tmp_path):
    """conf/sub/h.cfg is the config; a.http in conf/sub, b.http in conf, c.http in run (the
    starting directory), d.http in o."""
    for d, f in (("conf/sub", "a"), ("conf", "b"), ("run", "c"), ("o", "d")):
        (tmp_path / d).mkdir(parents=True, exist_ok=True)
        (tmp_path / d / ("%s.http" % f)).write_bytes(b"HTTP/1.0 503 x\r\n\r\nX\n")
    return tmp_path / "conf/sub/h.cfg", tmp_path / "run"


DP_CFG = """global
    default-path {mode}
""" + DEFAULTS + """frontend fe
    bind 127.0.0.1:{port}
    errorfile 503 {f}.http
"""


@pytest.mark.parametrize("mode,found", [
    ("current", "c"), ("config", "a"), ("parent", "b"), ("origin {o}", "d"), ("origin ../o", "d"),
])
def test_default_path_modes(tmp_path, port, mode, found):
    cfg, run = dp_tree(tmp_path)
    mode = mode.format(o=tmp_path / "o")
    for f in "abcd":
        cfg.write_text(DP_CFG.format(mode=mode, port=port, f=f))
        r = subprocess.run([HAPROXY_BIN, "-c", "-q", "-f", "../conf/sub/h.cfg"], cwd=run,
                           capture_output=True, text=True, timeout=20)
        assert (r.returncode == 0) == (f == found), (mode, f, r.stderr)


def test_default_path_carries_to_next_file_and_not_after_parsing(tmp_path, port):
    cfg, run = dp_tree(tmp_path)
    (tmp_path / "conf/sub2").mkdir()
    (tmp_path / "conf/sub2/z.http").write_bytes(b"HTTP/1.0 503 x\r\n\r\nX\n")
    (tmp_path / "conf/sub/g.cfg").write_text("global\n    default-path config\n")
    (tmp_path / "conf/sub2/f.cfg").write_text(DEFAULTS + "frontend fe\n    bind 127.0.0.1:%d\n"
                                              "    errorfile 503 z.http\n" % port)
    r = subprocess.run([HAPROXY_BIN, "-c", "-q", "-f", "../conf/sub/g.cfg", "-f",
                        "../conf/sub2/f.cfg"], cwd=run, capture_output=True, text=True,
                       timeout=20)
    assert r.returncode == 0, r.stderr
    # the server-state file is read after parsing: relative to the starting directory
    (tmp_path / "conf/sub/st").write_text("1\n")
    (tmp_path / "conf/sub/g.cfg").write_text("global\n    default-path config\n"
                                             "    server-state-file st\n")
    (tmp_path / "conf/sub2/f.cfg").write_text(
        DEFAULTS + "    load-server-state-from-file global\nfrontend fe\n"
        "    bind 127.0.0.1:%d\nbackend be\n    server s1 127.0.0.1:1\n" % port)
    r = subprocess.run([HAPROXY_BIN, "-c", "-f", "../conf/sub/g.cfg", "-f",
                        "../conf/sub2/f.cfg"], cwd=run, capture_output=True, text=True,
                       timeout=20)
    assert r.returncode == 0, r.stderr
    assert "server state file 'st': No such file or directory" in r.stderr


@pytest.mark.parametrize("arg,msg", [
    ("", "missing default-path mode '' for 'default-path', supported modes include "
         "'current', 'config', 'parent', and 'origin'."),
    ("foo", "unsupported default-path mode 'foo' for 'default-path'"),
    ("origin", "'default-path origin' expects a directory as an argument."),
    ("origin /nonexistent-hapx", "couldn't set 'default-path' to origin '/nonexistent-hapx': "
                                 "Impossible to get back to directory"),
])
def test_default_path_errors(tmp_path, port, arg, msg):
    cfg = write(tmp_path, "global\n    default-path %s\n" % arg + DEFAULTS
                + "frontend fe\n    bind 127.0.0.1:%d\n" % port)
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode == 1
    assert "parsing [%s:2] : %s" % (cfg, msg) in r.stderr


KA_CFG = """global
    {glob}
""" + DEFAULTS + """frontend fe
    bind 127.0.0.1:{port}
    http-request return status 200 content-type text/plain string "ok"
"""


def ka_request(s):
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    data = b""
    while not data.endswith(b"ok"):
        d = s.recv(4096)
        if not d:
            break
        data += d
    return data


def is_closed(s):
    s.setblocking(False)
    try:
        return s.recv(1) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        s.setblocking(True)


def test_close_spread_time_infinite_keeps_connections(tmp_path, port):
    cfg = write(tmp_path, KA_CFG.format(glob="close-spread-time infinite", port=port))
    p = start(cfg)
    ka = None
    try:
        assert wait_port(port, 10, p)
        ka = socket.create_connection(("127.0.0.1", port), timeout=5)
        assert b"200" in ka_request(ka)
        p.send_signal(signal.SIGUSR1)
        time.sleep(0.3)
        r = ka_request(ka)
        assert b"200" in r and b"connection: close" not in r.lower()
        time.sleep(1.5)  # longer than the quiet second that closes idle ones by default
        assert not is_closed(ka)
        assert p.poll() is None
        ka.close()
        ka = None
        assert wait_exit(p, 10)
    finally:
        if ka:
            ka.close()
        stop_pid_proc(p)


def test_close_spread_time_spreads_idle_closes(tmp_path, port):
    cfg = write(tmp_path, KA_CFG.format(glob="close-spread-time 4s", port=port))
    p = start(cfg)
    conns = []
    try:
        assert wait_port(port, 10, p)
        for _ in range(24):
            c = socket.create_connection(("127.0.0.1", port), timeout=5)
            assert b"200" in ka_request(c)
            conns.append(c)
        t0 = time.monotonic()
        p.send_signal(signal.SIGUSR1)
        time.sleep(2.2)
        closed = sum(is_closed(c) for c in conns)
        assert 0 < closed < len(conns), closed
        assert wait_exit(p, 8), "not every idle connection closed by the end of the window"
        assert time.monotonic() - t0 >= 2.0
        assert all(is_closed(c) for c in conns)
    finally:
        for c in conns:
            c.close()
        stop_pid_proc(p)


@pytest.mark.parametrize("arg,msg", [
    ("", "'close-spread-time' expects <time> as argument."),
])
def test_close_spread_time_errors(tmp_path, port, arg, msg):
    cfg = write(tmp_path, "global\n    close-spread-time %s\n" % arg + DEFAULTS
                + "frontend fe\n    bind 127.0.0.1:%d\n" % port)
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode == 1
    assert "parsing [%s:2] : %s" % (cfg, msg) in r.stderr


def test_ulimit_n_unreachable_is_fatal_unless_no_strict_limits(tmp_path, port):
    base = DEFAULTS + "frontend fe\n    bind 127.0.0.1:%d\n" \
        "    http-request return status 200\n" % port
    cfg = write(tmp_path, "global\n    ulimit-n 100000000\n" + base)
    r = run_haproxy(["-f", str(cfg)], timeout=10)
    assert r.returncode == 1
    assert "Cannot raise FD limit to 100000000, limit is" in r.stderr
    assert "[ALERT]" in r.stderr
    cfg = write(tmp_path, "global\n    no strict-limits\n    ulimit-n 100000000\n" + base,
                name="n.cfg")
    p = start(cfg)
    try:
        assert wait_port(port, 10, p)
        assert httpc.get(port, "/").status == 200
    finally:
        stop_pid_proc(p)
        err = p.stderr.read().decode()
    assert "[WARNING]" in err and "Cannot raise FD limit to 100000000, limit is" in err


def test_no_prefix_only_for_some_global_keywords(tmp_path, port):
    cfg = write(tmp_path, "global\n    no daemon\n" + DEFAULTS
                + "frontend fe\n    bind 127.0.0.1:%d\n" % port)
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode == 1
    assert ("negation/default currently supported only for options, log, busy-polling, "
            "set-dumpable, strict-limits, insecure-fork-wanted and numa-cpu-mapping.") in r.stderr
