"""The runtime API socket and protocol, and the commands about the process itself.

Owns: `stats socket` options and addresses (unix, abns@, TCP, fd@), levels and `Permission
denied`, `operator`/`user`, prompt modes (2.6's toggle and the 3.x `prompt n|i|p|timed`),
`<<` payloads, over-long lines and garbage, `set timeout cli`, `show cli sockets`, `show
version`, `show env`, `show fd`, `show threads`, `show pools`, `show startup-logs`, `set
maxconn global`, `set rate-limit ... global`, and CLI sessions while traffic runs. Layouts
were taken from Debian's /usr/sbin/haproxy (2.6): run with HAPROXY_BIN=/usr/sbin/haproxy to
check the expectations themselves.
"""

import os
import re
import socket
import subprocess
import threading
import time

import httpc
import pytest
from conftest import HAPROXY_BIN, IS_REF, cli, free_port, run_haproxy, stop_pid_proc


def base_cfg(tmp_path, fport, bport, glob=()):
    sock = str(tmp_path / "admin.sock")
    lines = ["global", "    stats socket %s level admin" % sock,
             "    stats socket %s level operator" % (tmp_path / "oper.sock"),
             "    stats socket %s level user" % (tmp_path / "user.sock"),
             "    stats timeout 10s"]
    lines += ["    " + g for g in glob]
    lines += ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 10s",
              "    timeout server 10s", "frontend fe", "    bind 127.0.0.1:%d" % fport,
              "    default_backend be", "backend be",
              "    server s1 127.0.0.1:%d" % bport]
    return "\n".join(lines) + "\n"


@pytest.fixture
def px(tmp_path, proxy, backend):
    fport = free_port()
    p = proxy(base_cfg(tmp_path, fport, backend.port), ports=[fport])
    p.fport = fport
    p.admin = str(tmp_path / "admin.sock")
    p.oper = str(tmp_path / "oper.sock")
    p.user = str(tmp_path / "user.sock")
    wait_paths(p.admin, p.oper, p.user)
    return p


def wait_paths(*paths, timeout=5.0):
    """Waits (bounded) for unix sockets to appear: they may come after the TCP port."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not all(os.path.exists(x) for x in paths):
        time.sleep(0.02)


def session(addr, data, timeout=5.0, fam=socket.AF_UNIX):
    """Sends raw bytes, returns everything until the proxy closes (bounded in time)."""
    with socket.socket(fam, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(addr)
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # closed on a line too long: read what was answered
        out = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                d = s.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not d:
                break
            out += d
        return out.decode(errors="replace")


def check_cfg(tmp_path, glob_lines):
    p = tmp_path / "x.cfg"
    p.write_text("global\n" + "".join("    %s\n" % g for g in glob_lines) +
                 "defaults\n    mode http\n    timeout client 1s\n    timeout server 1s\n"
                 "    timeout connect 1s\nfrontend fe\n    bind 127.0.0.1:%d\n" % free_port())
    return run_haproxy(["-c", "-f", str(p)])


# ---- configuration ----

@pytest.mark.parametrize("opt,msg", [
    ("mode 888", "'mode' : missing or invalid mode '888' (octal integer expected)"),
    ("level foo", "'level' only supports 'user', 'operator', and 'admin' (got 'foo')"),
    ("user nosuchuser_x", "'user' : unknown user name 'nosuchuser_x'"),
    ("expose-fd foo", "'expose-fd' only supports 'listeners' (got 'foo')"),
    ("process 2", "'process' : '2' is not a valid number/range."),
    ("thread x", "'x' is not a valid number/range."),
    ("bogus", "unknown keyword 'bogus'"),
])
def test_stats_socket_bad_option(tmp_path, opt, msg):
    r = check_cfg(tmp_path, ["stats socket %s %s" % (tmp_path / "s.sock", opt)])
    assert r.returncode == 1
    line = [l for l in r.stderr.splitlines() if "x.cfg:2]" in l]
    assert line and msg in line[0], r.stderr


@pytest.mark.parametrize("lines,warn", [
    (["stats socket %(d)s/a.sock process 1"], True),
    (["stats socket %(d)s/a.sock process all thread 1"], True),
    (["stats socket abns@hapx_cli_test_%(p)d level admin"], False),
    (["stats socket unix@%(d)s/b.sock", "stats socket ipv6@::1:%(p)d"], False),
    (["stats bind-process 1", "stats socket %(d)s/c.sock"], False),
])
def test_stats_socket_accepted(tmp_path, lines, warn):
    v = {"d": tmp_path, "p": free_port()}
    r = check_cfg(tmp_path, [l % v for l in lines])
    assert r.returncode == 0, r.stderr
    assert ("deprecated" in r.stderr) == warn, r.stderr


@pytest.mark.parametrize("line,msg", [
    ("stats bind-process 2", "'stats bind-process' : '2' is not a valid number/range."),
    ("stats timeout 0", "'stats timeout' expects a positive value"),
    ("stats maxconn 0", "'stats maxconn' expects a positive value"),
    ("stats socket fd@987", "cannot use file descriptor '987'"),
])
def test_stats_bad_values(tmp_path, line, msg):
    r = check_cfg(tmp_path, [line])
    assert r.returncode == 1
    assert "x.cfg:2]" in r.stderr and msg in r.stderr, r.stderr


def test_stats_socket_thread_beyond_threads(tmp_path):
    r = check_cfg(tmp_path, ["nbthread 2", "stats socket %s thread 3" % (tmp_path / "s.sock")])
    assert r.returncode == 1
    assert "'thread' directive contains threads that belong to no group" in r.stderr
    assert "x.cfg:3]" in r.stderr, r.stderr


# ---- sockets ----

def test_tcp_abns_and_fd_sockets(tmp_path, proxy, backend):
    tport, fport = free_port(), free_port()
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(5)
    os.set_inheritable(ls.fileno(), True)
    name = "hapx_cli_%d" % tport
    cfg = ("global\n    stats socket ipv4@127.0.0.1:%d level user\n"
           "    stats socket abns@%s level operator\n"
           "    stats socket fd@%d level admin\n" % (tport, name, ls.fileno()) +
           "defaults\n    mode http\n    timeout client 5s\n    timeout server 5s\n"
           "    timeout connect 5s\nfrontend fe\n    bind 127.0.0.1:%d\n" % fport)
    cfgp = tmp_path / "s.cfg"
    cfgp.write_text(cfg)
    err = open(tmp_path / "err", "wb")
    proc = subprocess.Popen([HAPROXY_BIN, "-f", str(cfgp)], pass_fds=(ls.fileno(),),
                            stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        out = ""
        while time.monotonic() < deadline and "user" not in out:
            try:
                out = cli(("127.0.0.1", tport), "show cli level")
            except OSError:
                time.sleep(0.05)
        assert out == "user\n\n"
        # HAProxy pads an abstract address to the whole sun_path
        addr = b"\0" + name.encode() + b"\0" * (107 - len(name))
        assert session(addr, b"show cli level\n") == "operator\n\n"
        assert cli(("127.0.0.1", ls.getsockname()[1]), "show cli level") == "admin\n\n"
        socks = cli(("127.0.0.1", ls.getsockname()[1]), "show cli sockets").splitlines()
        assert socks[0] == "# socket lvl processes"
        assert socks[1] == "ipv4@127.0.0.1:%d user all" % tport
        assert socks[2] == "abns@%s operator all" % name
    finally:
        stop_pid_proc(proc)
        err.close()
        ls.close()


def test_show_cli_sockets_unix(px):
    out = cli(px.user, "show cli sockets")
    assert out == ("# socket lvl processes\nunix@%s admin all\nunix@%s operator all\n"
                   "unix@%s user all\n\n" % (px.admin, px.oper, px.user))


# ---- levels ----

def test_levels_and_permission(px):
    assert cli(px.user, "show env") == "Permission denied\n\n"
    assert cli(px.oper, "set maxconn global 10") == "Permission denied\n\n"
    assert cli(px.oper, "show env HOME").startswith("HOME=")
    assert "show cli level" in cli(px.user, "help")
    assert "set maxconn global" in cli(px.admin, "help")


@pytest.mark.ours
def test_help_lists_session_level_only(px):
    """2.6 lists every command whatever the level; we list those the session may run."""
    h = cli(px.user, "help")
    assert "show cli level" in h and "set maxconn global" not in h and "show env" not in h
    h = cli(px.admin, "user; help")
    assert "set maxconn global" not in h


def test_operator_user_lower_only(px):
    out = cli(px.admin, "show cli level; operator; show cli level; user; show cli level; "
              "operator; show cli level")
    assert out == "admin\n\n\noperator\n\n\nuser\n\nPermission denied\n\nuser\n\n"
    assert cli(px.admin, "user; set maxconn global 10") == "\nPermission denied\n\n"


def test_unknown_command(px):
    out = cli(px.admin, "foo bar")
    assert out.startswith("Unknown command, but maybe one of the following ones is a "
                          "better match:\n")
    assert out.endswith("  quit                                    : disconnect\n\n")


# ---- prompt modes ----

def test_prompt_toggle(px):
    out = session(px.admin, b"prompt\nshow cli level\nprompt\nshow cli level\n")
    assert out == "\n> admin\n\n> \nadmin\n\n"
    # one-shot: the lines received run, then the session ends
    assert session(px.admin, b"show cli level\nshow cli level\n") == "admin\n\nadmin\n\n"


@pytest.mark.v32
def test_prompt_modes(px):
    out = session(px.admin, b"prompt i\nshow cli level\nprompt p\nshow cli level\n"
                  b"prompt timed\nshow cli level\nprompt n\nshow cli level\n")
    assert out.startswith("\nadmin\n\n\n> admin\n\n> ")
    assert re.search(r"\n\[0:00:00:\d\d\]> admin\n\n\[0:00:00:\d\d\]> \nadmin\n\n$", out), out


def test_quit_and_timeout_cli(px):
    assert session(px.admin, b"prompt\nquit\nshow cli level\n") == "\n> "
    t0 = time.monotonic()
    out = session(px.admin, b"prompt\nset timeout cli 1\n", timeout=8)
    assert out == "\n> \n> "
    assert time.monotonic() - t0 < 4
    assert cli(px.admin, "set timeout cli 0") == "Invalid timeout value.\n\n"
    assert cli(px.admin, "set timeout foo 1") == "'set timeout' only supports 'cli'.\n\n"


# ---- payloads ----

def test_payload_one_shot(px):
    assert session(px.admin, b"show cli level <<\nabc\ndef\n\n") == "admin\n\n"
    assert session(px.admin, b"show cli level; show cli level <<\nabc\n\n") == \
        "admin\n\nadmin\n\n"
    # the session ends before the empty line: nothing runs
    assert session(px.admin, b"show cli level <<\nabc\n") == ""


def test_payload_prompt(px):
    out = session(px.admin, b"prompt\nshow cli level <<\na\nb\n\nshow cli level\n")
    assert out == "\n> + + + admin\n\n> admin\n\n> "


@pytest.mark.ours
def test_payload_too_large(px):
    big = b"".join(b"%06d %s\n" % (i, b"x" * 90) for i in range(1000))  # ~97 KB
    out = session(px.admin, b"prompt\nshow cli level <<\n" + big + b"\nshow cli level\n")
    assert "Payload too large (65535 bytes max), command not run.\n" in out
    assert out.endswith("admin\n\n> ")
    assert out.count("admin") == 1


# ---- bad input ----

def test_huge_line_and_garbage(px):
    out = session(px.admin, b"prompt\n" + b"x" * (3 << 20) + b"\nshow cli level\n", timeout=10)
    assert out.endswith("admin\n\n> ") or out.startswith("\n> ")
    for junk in (b"\0\1\2\xff\xfe\n", b"show\0 cli level\n", b"\r\n\r\n", b";;;\\\n",
                 os.urandom(5000) + b"\n"):
        session(px.admin, junk, timeout=2)
    assert cli(px.admin, "show cli level") == "admin\n\n"
    assert px.alive()
    r = httpc.get(px.fport, "/")
    assert r.status == 200


@pytest.mark.ours
def test_huge_line_answered(px):
    out = session(px.admin, b"prompt\n" + b"x" * (3 << 20) + b"\nshow cli level\n", timeout=10)
    assert out == "\n> Command line too long (16383 bytes max).\n\n> admin\n\n> "


# ---- process commands ----

def test_show_version_env(px):
    v = cli(px.user, "show version")
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*\n\n", v), v
    assert cli(px.oper, "show env HOME") == "HOME=%s\n\n" % os.environ["HOME"]
    assert cli(px.oper, "show env NO_SUCH_VAR_X") == "Variable not found\n\n"
    env = cli(px.oper, "show env").splitlines()
    assert "HOME=%s" % os.environ["HOME"] in env


def test_show_fd_lists_listeners_and_connections(px):
    c = socket.create_connection(("127.0.0.1", px.fport))
    try:
        c.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        c.recv(4096)
        out = cli(px.oper, "show fd")
        assert re.search(r"^ +\d+ : .*l\.st=RDY fe=fe fam=ipv4 lport=%d$" % px.fport, out,
                         re.M), out
        assert re.search(r"^ +\d+ : .*fe=GLOBAL fam=unix", out, re.M), out
        assert all(re.match(r" *\d+ : ", l) for l in out.splitlines()[:-1]), out
    finally:
        c.close()


@pytest.mark.ours
def test_show_fd_connection_line(px):
    c = socket.create_connection(("127.0.0.1", px.fport))
    try:
        c.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        c.recv(4096)
        out = cli(px.oper, "show fd")
        assert "owner=conn fam=ipv4 laddr=127.0.0.1:%d raddr=127.0.0.1:%d" % (
            px.fport, c.getsockname()[1]) in out, out
        fd = out.splitlines()[0].split(":")[0].strip()
        one = cli(px.oper, "show fd %s" % fd).splitlines()
        assert len(one) == 2 and one[0].strip().startswith(fd + " : ")
    finally:
        c.close()


def test_show_threads(px):
    out = cli(px.user, "show threads")
    assert re.match(r"[* ] Thread 1 ?: ", out), out


@pytest.mark.ours
def test_show_threads_layout(tmp_path, proxy, backend):
    fport = free_port()
    p = proxy(base_cfg(tmp_path, fport, backend.port, glob=["nbthread 4", "thread-groups 2"]),
              ports=[fport])
    wait_paths(str(tmp_path / "user.sock"))
    out = cli(str(tmp_path / "user.sock"), "show threads").splitlines()
    heads = [l for l in out if "Thread" in l]
    assert len(heads) == 4 and heads[0].startswith("* Thread 1 : act=1 loops=")
    groups = [l.split()[0] for l in out if re.match(r" +\d+/\d+ ", l)]
    assert groups == ["1/1", "1/2", "2/1", "2/2"]
    assert p.alive()


def test_show_pools(px):
    out = cli(px.user, "show pools").splitlines()
    assert out[0] == "Dumping pools usage. Use SIGQUIT to flush them."
    pool_re = (r"  - Pool \S{1,11} \(\d+ bytes\) : \d+ allocated \(\d+ bytes\), \d+ used "
               r"\(~\d+ by thread caches\), needed_avg \d+, \d+ failures, \d+ users, @0x[0-9a-f]+"
               r"( \[SHARED\])?")
    assert all(re.fullmatch(pool_re, l) for l in out[1:-2]), out
    assert re.fullmatch(r"Total: \d+ pools, \d+ bytes allocated, \d+ used "
                        r"\(~\d+ by thread caches\)\.", out[-2]), out[-2]


def test_show_startup_logs(tmp_path, proxy, backend):
    fport = free_port()
    p = proxy(base_cfg(tmp_path, fport, backend.port,
                       glob=["stats socket %s process 1" % (tmp_path / "w.sock")]),
              ports=[fport])
    wait_paths(str(tmp_path / "oper.sock"))
    out = cli(str(tmp_path / "oper.sock"), "show startup-logs")
    assert "[WARNING]" in out and "deprecated" in out, out
    assert p.alive()


def info(addr):
    return dict(l.split(": ", 1) for l in cli(addr, "show info").splitlines() if ": " in l)


def test_set_maxconn_global(px):
    hard = int(info(px.admin)["Maxconn"])
    assert cli(px.admin, "set maxconn global 7") == "\n"
    assert info(px.admin)["Maxconn"] == "7"
    assert cli(px.admin, "set maxconn global %d" % (hard + 1)) == "Value out of range.\n\n"
    assert cli(px.admin, "set maxconn global") == "Expects an integer value.\n\n"
    assert info(px.admin)["Maxconn"] == "7"
    assert cli(px.admin, "set maxconn global 0") == "\n"
    assert info(px.admin)["Maxconn"] == str(hard)


@pytest.mark.ours
def test_set_values_refuse_garbage(px):
    assert cli(px.admin, "set maxconn global x") == "Expects an integer value.\n\n"
    assert cli(px.admin, "set rate-limit sessions global x") == "Expects an integer value.\n\n"
    assert cli(px.admin, "set rate-limit sessions global -1") == "Value out of range.\n\n"


def test_set_maxconn_global_takes_effect(px):
    """With maxconn 1 and one connection open, a second waits; raising the limit serves
    it at once, without any connection ending."""
    assert cli(px.admin, "set maxconn global 1") == "\n"
    c1 = socket.create_connection(("127.0.0.1", px.fport))
    c1.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    c1.settimeout(3)
    assert c1.recv(4096).startswith(b"HTTP/1.1 200")
    c2 = socket.create_connection(("127.0.0.1", px.fport))
    c2.settimeout(0.8)
    try:
        c2.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        with pytest.raises(socket.timeout):
            c2.recv(4096)
        assert cli(px.admin, "set maxconn global 0") == "\n"
        c2.settimeout(3)
        assert c2.recv(4096).startswith(b"HTTP/1.1 200")
    finally:
        c1.close()
        c2.close()


def test_set_rate_limit(px):
    assert cli(px.admin, "set rate-limit connections global 50") == "\n"
    assert cli(px.admin, "set rate-limit sessions global 40") == "\n"
    i = info(px.admin)
    assert i["ConnRateLimit"] == "50" and i["SessRateLimit"] == "40"
    out = cli(px.admin, "set rate-limit foo global 3")
    assert out.startswith("'set rate-limit' only supports :\n   - 'connections global'")
    assert cli(px.admin, "set rate-limit sessions global") == "Expects an integer value.\n\n"
    assert cli(px.oper, "set rate-limit sessions global 1") == "Permission denied\n\n"
    assert cli(px.admin, "set rate-limit sessions global 0") == "\n"
    assert info(px.admin)["SessRateLimit"] == "0"


def test_rate_limit_takes_effect(px):
    """A limit of 2 sessions per second set at run time slows new connections down."""
    assert cli(px.admin, "set rate-limit sessions global 2") == "\n"
    t0 = time.monotonic()
    for _ in range(6):
        c = socket.create_connection(("127.0.0.1", px.fport))
        c.settimeout(5)
        c.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert c.recv(4096).startswith(b"HTTP/1.1 200")
        c.close()
    assert time.monotonic() - t0 >= 1.0
    assert cli(px.admin, "set rate-limit sessions global 0") == "\n"


# ---- under load ----

def test_cli_sessions_under_load(px):
    wrk = subprocess.Popen(["wrk", "-t1", "-c8", "-d3s", "http://127.0.0.1:%d/" % px.fport],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    errors = []

    def worker(n):
        for _ in range(n):
            try:
                if cli(px.oper, "show cli level; show threads") [:9] != "operator\n":
                    errors.append("bad answer")
                out = session(px.admin, b"prompt\nshow pools\nshow cli level\nquit\n")
                if "admin" not in out:
                    errors.append("bad prompt answer")
            except OSError as e:
                errors.append(str(e))

    ts = [threading.Thread(target=worker, args=(15,)) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(30)
    try:
        out, _ = wrk.communicate(timeout=20)
    finally:
        if wrk.poll() is None:
            wrk.kill()
            wrk.wait(5)
    assert not errors, errors[:5]
    text = out.decode(errors="replace")
    m = re.search(r"(\d+) requests in", text)
    assert m and int(m.group(1)) > 100, text
    assert "Non-2xx" not in text and "Socket errors" not in text, text
    assert px.alive()
