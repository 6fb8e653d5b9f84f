"""The master CLI (-S) as an operator sees it through socat-like one-line connections:
"show proc" (layout, reload counters, failed reloads, old workers), "reload", commands
forwarded to a worker ("@1", "@!PID", the prompt), the socket kept across reloads, the
systemd unit's command line, and master-worker with user/chroot.

Owns: -S, show proc, the master's reload command, @N/@!PID forwarding.
"""

import os
import pwd
import random
import re
import signal
import socket
import subprocess
import time

import pytest
from conftest import HAPROXY_BIN, IS_REF, stop_pid_proc, wait_port
from test_mworker import DEFAULTS, children, get, wait_for

COLS = [0, 16, 32, 48, 64]  # "%-15s " columns of show proc, as 2.6


def my_port():
    """A free TCP port of this file's range (31000-31999)."""
    for _ in range(200):
        p = random.randint(31100, 31999)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", p))
                return p
            except OSError:
                continue
    pytest.skip("no free port in 31100-31999")


def mcli(path, line, timeout=5.0):
    """Sends one line to the master CLI, returns everything until it closes ("" when the
    master is re-executing)."""
    try:
        return mcli_raw(path, line, timeout)
    except (ConnectionError, FileNotFoundError):
        return ""


def mcli_raw(path, line, timeout):
    fam = socket.AF_UNIX if isinstance(path, str) else socket.AF_INET
    with socket.socket(fam, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(path)
        s.sendall(line.encode() + b"\n")
        s.shutdown(socket.SHUT_WR)
        out = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                d = s.recv(65536)
            except socket.timeout:
                break
            if not d:
                break
            out += d
        return out.decode(errors="replace")


def cfg(port, body="v1", glob="", extra=""):
    return ("global\n" + glob + DEFAULTS + "frontend fe\n    bind 127.0.0.1:%d\n" % port +
            extra + '    http-request return status 200 content-type text/plain string "%s"\n'
            % body)


class MW:
    """A master started with -W -S <tmp>/m.sock; stopped by pid, its children too."""

    def __init__(self, tmp_path, text, args=("-W",), env=None):
        self.cfg = tmp_path / "m.cfg"
        self.cfg.write_text(text)
        self.sock = str(tmp_path / "m.sock")
        self.err_path = tmp_path / "m.err"
        self.err = open(self.err_path, "wb")
        self.p = subprocess.Popen([HAPROXY_BIN] + list(args) + ["-S", self.sock, "-f",
                                                                 str(self.cfg)],
                                  stdout=subprocess.DEVNULL, stderr=self.err,
                                  stdin=subprocess.DEVNULL, env=env)
        self.pid = self.p.pid

    def cli(self, line):
        return mcli(self.sock, line)

    def stderr(self):
        self.err.flush()
        return self.err_path.read_text(errors="replace")

    def stop(self):
        kids = children(self.pid)
        stop_pid_proc(self.p)
        for k in kids:
            try:
                os.kill(k, signal.SIGKILL)
            except OSError:
                pass
        self.err.close()


def proc_table(text):
    """show proc -> {section: [(pid, type, reloads)]}, checking the column layout."""
    lines = text.split("\n")
    assert lines[0] == "#%-14s %-15s %-15s %-15s %-15s" % ("<PID>", "<type>", "<reloads>",
                                                             "<uptime>", "<version>")
    out, sec = {}, "master"
    for ln in lines[1:]:
        if ln.startswith("# "):
            sec = ln[2:]
            out[sec] = []
            continue
        if not ln:
            continue
        for c in COLS[1:]:
            assert ln[c - 1] == " " and ln[c] != " ", (ln, c)
        rel = ln[32:48].strip()
        assert re.match(r"^\d+d\d\dh\d\dm\d\ds$", ln[48:64].strip()), ln
        out.setdefault(sec, []).append((int(ln[0:16]), ln[16:32].strip(), rel))
    return out


def wait_cli(m):
    assert wait_for(lambda: os.path.exists(m.sock), 10)

    def ready():
        out = m.cli("show proc")
        return out.startswith("#<PID>") and len(proc_table(out).get("workers", [])) == 1

    assert wait_for(ready, 10)


def test_show_proc_layout_and_forwarding(tmp_path):
    port = my_port()
    m = MW(tmp_path, cfg(port))
    try:
        assert wait_port(port, 10.0, m.p)
        wait_cli(m)
        out = m.cli("show proc")
        assert out.endswith("# programs\n\n")
        t = proc_table(out)
        assert t["master"] == [(m.pid, "master", "0 [failed: 0]")]
        w = children(m.pid)
        assert t["workers"] == [(w[0], "worker", "0")]
        assert t["programs"] == [] and "old workers" not in t
        info = m.cli("@1 show info")
        assert "Pid: %d\n" % w[0] in info
        assert "Pid: %d\n" % w[0] in m.cli("@!%d show info" % w[0])
        assert m.cli("@7 show info") == \
            "Can't find the target PID matching the prefix '@7'\n"
        assert m.cli("@!%d show info" % m.pid) == \
            "Can't find the target PID matching the prefix '@!%d'\n" % m.pid
        assert m.cli("@1") == ""
        h = m.cli("help")
        assert h.startswith("The following commands are valid at this level:\n")
        assert "  show proc                               : show processes status\n" in h
        assert m.cli("foo").startswith(
            "Unknown command, but maybe one of the following ones is a better match:\n")
        assert m.cli("show cli level") == "admin\n\n"
    finally:
        m.stop()


def test_prompt_mode(tmp_path):
    port = my_port()
    m = MW(tmp_path, cfg(port))
    try:
        wait_cli(m)
        w = children(m.pid)[0]
        out = m.cli("prompt\nshow cli level\n@1\nshow cli level\n@master\nquit")
        assert out == "master> admin\n\nmaster> %d> admin\n\n%d> master> master> " % (w, w)
    finally:
        m.stop()


def test_reload_command_and_failed_reload(tmp_path):
    port = my_port()
    m = MW(tmp_path, cfg(port))
    try:
        assert wait_port(port, 10.0, m.p)
        wait_cli(m)
        w1 = children(m.pid)[0]
        m.cfg.write_text(cfg(port, "v2"))
        assert m.cli("reload") == ""  # 2.6 answers nothing
        assert wait_for(lambda: get(port) == "v2")
        assert wait_for(lambda: w1 not in children(m.pid))
        t = proc_table(m.cli("show proc"))
        assert t["master"][0][2] == "1 [failed: 0]"
        w2 = children(m.pid)[0]
        assert t["workers"] == [(w2, "worker", "0")]
        m.cfg.write_text(cfg(port, "v3") + "bogus\n")
        m.cli("reload")
        assert wait_for(lambda: "Loading failure!" in m.stderr())
        # the master CLI socket survived the failed reload (wait mode)
        assert wait_for(lambda: "2 [failed: 1]" in m.cli("show proc"))
        t = proc_table(m.cli("show proc"))
        assert t["workers"] == [(w2, "worker", "1")]
        assert get(port) == "v2"
        assert "Pid: %d\n" % w2 in m.cli("@1 show info")
    finally:
        m.stop()
    assert not children(m.pid)


def test_old_worker_answers_during_slow_request(tmp_path, backend):
    port = my_port()
    text = ("global\n" + DEFAULTS + "frontend fe\n    bind 127.0.0.1:%d\n"
            "    default_backend be\nbackend be\n    server s 127.0.0.1:%d\n"
            % (port, backend.port))
    m = MW(tmp_path, text)
    try:
        assert wait_port(port, 10.0, m.p)
        wait_cli(m)
        w1 = children(m.pid)[0]
        import threading
        import urllib.request
        res = {}

        def fetch():
            with urllib.request.urlopen("http://127.0.0.1:%d/?delay=3" % port,
                                        timeout=15) as r:
                res["st"] = r.status

        t = threading.Thread(target=fetch)
        t.start()
        time.sleep(0.3)
        os.kill(m.pid, signal.SIGUSR2)
        assert wait_for(lambda: len(children(m.pid)) == 2, 10)
        assert wait_for(lambda: "old workers" in m.cli("show proc"), 10)
        tab = proc_table(m.cli("show proc"))
        assert tab["old workers"] == [(w1, "worker", "1")]
        assert tab["workers"][0][0] != w1
        assert "Pid: %d\n" % w1 in m.cli("@!%d show info" % w1)
        t.join(10)
        assert res.get("st") == 200
        assert wait_for(lambda: w1 not in children(m.pid), 10)
    finally:
        m.stop()


def test_inet_master_cli_and_env(tmp_path):
    port, cport = my_port(), my_port()
    m = MW(tmp_path, cfg(port), args=("-W", "-S", "ipv4@127.0.0.1:%d" % cport))
    try:
        assert wait_port(port, 10.0, m.p)
        assert wait_for(lambda: "# workers" in mcli(("127.0.0.1", cport), "show proc"), 10)
        os.kill(m.pid, signal.SIGUSR2)
        assert wait_for(lambda: "1 [failed: 0]" in mcli(("127.0.0.1", cport), "show proc"),
                        10)
    finally:
        m.stop()


def test_s_without_master_worker_warns(tmp_path):
    port = my_port()
    c = tmp_path / "a.cfg"
    c.write_text(cfg(port))
    p = subprocess.Popen([HAPROXY_BIN, "-db", "-S", str(tmp_path / "x.sock"), "-f", str(c)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL)
    try:
        assert wait_port(port, 10.0, p)
    finally:
        stop_pid_proc(p)
    err = p.stderr.read().decode()
    assert ("a master CLI socket was defined, but master-worker mode (-W) is not enabled."
            in err)
    assert not os.path.exists(tmp_path / "x.sock")
    r = subprocess.run([HAPROXY_BIN, "-c", "-S", str(tmp_path / "x.sock"), "-f", str(c)],
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 0 and "Warnings were found." in r.stdout
    assert "master-worker mode (-W) is not enabled." in r.stderr


def unit_lines(key, subst):
    """The <key>= lines of examples/haproxy.service with $VARs replaced and the binary
    replaced by the one under test, as argument lists."""
    import shlex
    unit = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "haproxy.service")
    out = []
    with open(unit) as f:
        for ln in f:
            if not ln.startswith(key + "="):
                continue
            cmd = ln[len(key) + 1:].strip()
            for k, v in subst.items():
                cmd = cmd.replace("$" + k, v)
            args = shlex.split(cmd)
            if args[0].endswith("/haproxy"):
                args[0] = HAPROXY_BIN
            out.append(args)
    return out


def test_unit_file_command_line(tmp_path):
    """examples/haproxy.service as is: ExecStartPre's check, ExecStart (-Ws -f CFG
    -p PIDFILE -S SOCK) with a fake NOTIFY_SOCKET, ExecReload (check, kill -USR2)."""
    port = my_port()
    path = str(tmp_path / "notify.sock")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    srv.bind(path)
    conf, pidfile, sock = tmp_path / "h.cfg", tmp_path / "h.pid", tmp_path / "master.sock"
    conf.write_text(cfg(port))
    subst = {"CONFIG": str(conf), "PIDFILE": str(pidfile), "EXTRAOPTS": "-S %s" % sock}
    env = dict(os.environ, NOTIFY_SOCKET=path)
    for args in unit_lines("ExecStartPre", subst):
        assert subprocess.run(args, timeout=10, capture_output=True).returncode == 0
    start = unit_lines("ExecStart", subst)
    assert len(start) == 1 and "-Ws" in start[0] and "-S" in start[0]
    err = open(tmp_path / "h.err", "wb")
    p = subprocess.Popen(start[0], stdout=subprocess.DEVNULL, stderr=err,
                         stdin=subprocess.DEVNULL, env=env)
    try:
        assert wait_port(port, 10.0, p)
        assert wait_for(lambda: "# workers" in mcli(str(sock), "show proc"), 10)
        mainpid = int(pidfile.read_text().split()[0])
        assert mainpid == p.pid
        conf.write_text(cfg(port, "v2"))
        subst["MAINPID"] = str(mainpid)
        for args in unit_lines("ExecReload", subst):
            assert subprocess.run(args, timeout=10, capture_output=True).returncode == 0
        assert wait_for(lambda: get(port) == "v2")
        assert wait_for(lambda: "1 [failed: 0]" in mcli(str(sock), "show proc"), 10)
    finally:
        kids = children(p.pid)
        stop_pid_proc(p)
        for k in kids:
            try:
                os.kill(k, signal.SIGKILL)
            except OSError:
                pass
        err.close()
        srv.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to drop privileges")
def test_mworker_user_chroot_reload(tmp_path):
    """The master stays root; each worker runs as nobody in the chroot, reloads too."""
    nobody = pwd.getpwnam("nobody").pw_uid
    root = tmp_path / "jail"
    root.mkdir()
    port = my_port()
    m = MW(tmp_path, cfg(port, glob="    user nobody\n    chroot %s\n" % root))

    def ids(pid):
        with open("/proc/%d/status" % pid) as f:
            return int([ln for ln in f if ln.startswith("Uid:")][0].split()[1])

    try:
        assert wait_port(port, 10.0, m.p)
        wait_cli(m)
        for rnd in ("v1", "v2"):
            w = children(m.pid)
            assert len(w) == 1
            assert wait_for(lambda: ids(w[0]) == nobody, 5)
            assert os.readlink("/proc/%d/root" % w[0]) == str(root)
            assert ids(m.pid) == 0 and os.readlink("/proc/%d/root" % m.pid) == "/"
            assert get(port) == rnd
            if rnd == "v1":
                m.cfg.write_text(cfg(port, "v2", glob="    user nobody\n    chroot %s\n"
                                     % root))
                m.cli("reload")
                assert wait_for(lambda: get(port) == "v2")
                assert wait_for(lambda: w[0] not in children(m.pid), 10)
    finally:
        m.stop()
    assert not children(m.pid)


# ---- program sections ----

def prog_cfg(port, tmp_path, keep=True, body="v1"):
    """Two programs: "sleeper" (replaced on reload) and "keeper" (kept unless <keep> is
    false). Each writes a marker so the test knows its pid is the real command."""
    return (cfg(port, body) + "program sleeper\n    command sleep 1001\n"
            "program keeper\n    command sleep 1002\n" +
            ("    no option start-on-reload\n" if keep else ""))


def programs(m):
    out = m.cli("show proc")
    return proc_table(out).get("programs", []) if out.startswith("#<PID>") else []


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read().replace(b"\0", b" ").decode().strip()
    except OSError:
        return ""


def test_program_refused_without_master_worker(tmp_path):
    c = tmp_path / "a.cfg"
    c.write_text(prog_cfg(my_port(), tmp_path))
    r = subprocess.run([HAPROXY_BIN, "-c", "-f", str(c)], capture_output=True, text=True,
                       timeout=10)
    assert r.returncode == 1
    assert "Can't use a 'program' section without master worker mode." in r.stderr
    r = subprocess.run([HAPROXY_BIN, "-W", "-c", "-f", str(c)], capture_output=True,
                       text=True, timeout=10)
    assert r.returncode == 0


def test_programs_started_restarted_kept_and_stopped(tmp_path):
    port = my_port()
    m = MW(tmp_path, prog_cfg(port, tmp_path))
    left = []
    try:
        assert wait_port(port, 10.0, m.p)
        wait_cli(m)
        assert wait_for(lambda: len(programs(m)) == 2, 10)
        p1 = {t: pid for pid, t, _ in programs(m)}
        assert set(p1) == {"sleeper", "keeper"}
        # forked, then executed: wait for the exec
        assert wait_for(lambda: cmdline(p1["sleeper"]) == "sleep 1001", 5)
        assert wait_for(lambda: cmdline(p1["keeper"]) == "sleep 1002", 5)
        assert "New program 'sleeper' (%d) forked" % p1["sleeper"] in m.stderr()
        os.kill(m.pid, signal.SIGUSR2)
        assert wait_for(lambda: "1 [failed: 0]" in m.cli("show proc"), 10)
        assert wait_for(lambda: "Former program 'sleeper' (%d) exited" % p1["sleeper"]
                        in m.stderr(), 10)
        p2 = {t: (pid, rel) for pid, t, rel in programs(m)}
        assert p2["sleeper"][0] != p1["sleeper"] and p2["sleeper"][1] == "0"
        if not IS_REF:  # 2.6.12 loses a "no option start-on-reload" program on reload
            assert p2["keeper"] == (p1["keeper"], "1")
        # a program that exits is logged, not restarted; the master keeps serving
        os.kill(p2["sleeper"][0], signal.SIGTERM)
        assert wait_for(lambda: "Current program 'sleeper' (%d) exited with code 143"
                        % p2["sleeper"][0] in m.stderr(), 10)
        assert "sleeper" not in [t for _, t, _ in programs(m)]
        assert m.p.poll() is None and get(port) == "v1"
        left = [pid for pid, _, _ in programs(m)]
        os.kill(m.pid, signal.SIGTERM)
        assert m.p.wait(timeout=10) == 0
        assert wait_for(lambda: all(not cmdline(p) for p in left), 5)
    finally:
        m.stop()
        for p in left:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass


def test_program_replaced_without_keep(tmp_path):
    port = my_port()
    m = MW(tmp_path, prog_cfg(port, tmp_path, keep=False))
    try:
        wait_cli(m)
        assert wait_for(lambda: len(programs(m)) == 2, 10)
        p1 = {t: pid for pid, t, _ in programs(m)}
        m.cli("reload")
        assert wait_for(lambda: "1 [failed: 0]" in m.cli("show proc"), 10)
        assert wait_for(lambda: len(programs(m)) == 2 and
                        not set(p1.values()) & {p for p, _, _ in programs(m)}, 10)
        assert wait_for(lambda: all(not cmdline(p) for p in p1.values()), 5)
    finally:
        m.stop()


def test_program_sees_master_cli_env_across_reload(tmp_path):
    """HAPROXY_MASTER_CLI (unix@PATH, as 2.6) in the programs' environment, also after a
    reload (the re-executed master keeps the value of its first start)."""
    port = my_port()
    out = tmp_path / "env.txt"
    text = cfg(port) + ("program envdump\n    command sh -c 'echo $HAPROXY_MASTER_CLI >> "
                        "%s; exec sleep 1003'\n" % out)
    m = MW(tmp_path, text)
    try:
        wait_cli(m)
        assert wait_for(lambda: out.exists() and out.read_text().count("\n") == 1, 10)
        m.cli("reload")
        assert wait_for(lambda: out.read_text().count("\n") == 2, 10)
        assert out.read_text() == ("unix@%s\n" % m.sock) * 2
    finally:
        m.stop()


def test_forwarded_answer_larger_than_the_buffer(tmp_path):
    """A worker's answer of several hundred kB is relayed whole (the master's buffer is
    64 kB: it is drained to the client while the worker writes)."""
    port = my_port()
    sock = tmp_path / "st.sock"
    text = cfg(port, glob="    stats socket %s level admin\n" % sock)
    text += "".join("backend b%d\n    server s1 127.0.0.1:%d\n    server s2 127.0.0.1:%d\n"
                    % (i, 20000 + i, 21000 + i) for i in range(600))
    m = MW(tmp_path, text)
    try:
        wait_cli(m)
        fwd = m.cli("@1 show stat")
        direct = mcli(str(sock), "show stat")
        assert len(fwd) > 200000
        assert fwd.count("\n") == direct.count("\n")
        assert fwd.split("\n")[0] == direct.split("\n")[0]
    finally:
        m.stop()
