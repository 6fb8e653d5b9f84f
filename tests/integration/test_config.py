"""Configuration handling a new user meets first: configs with nothing to listen on, NUL
bytes, HAProxy keywords that are not implemented yet, `stats socket` address forms, a
maxconn above the file-descriptor limit, and product text.

Owns: exit codes and messages of `-c` and of a start for those cases. Where HAProxy 2.6
behaves the same, the tests also run in reference mode (HAPROXY_BIN=/usr/sbin/haproxy).
"""

import os
import re
import resource
import socket
import subprocess
import time

import pytest
from conftest import HAPROXY_BIN, REPO, free_port, run_haproxy, stop_pid_proc

NO_LISTENER = "Configuration file has no error but will not start (no listener) => exit(2)."
NO_LISTENER_START = "No enabled listener found (check for 'bind' directives) ! Exiting."

DEFAULTS = """defaults
    mode http
    timeout client 1s
    timeout server 1s
    timeout connect 1s
"""


def fe_cfg(port):
    return DEFAULTS + ("frontend fe\n    bind 127.0.0.1:%d\n"
                       "    http-request return status 200\n" % port)


def alerts(text):
    return [l for l in text.splitlines() if l.startswith("[ALERT]")]


def check_and_start(path):
    """(-c result, start result) for a config that must not start (start bounded)."""
    c = run_haproxy(["-c", "-f", str(path)])
    s = run_haproxy(["-f", str(path)], timeout=10)
    return c, s


@pytest.mark.parametrize("text", ["", "# only a comment\n", "global\n    maxconn 100\n",
                                  DEFAULTS + "backend be\n    server s 127.0.0.1:1\n"])
def test_no_listener(tmp_path, text):
    p = tmp_path / "x.cfg"
    p.write_text(text)
    c, s = check_and_start(p)
    assert c.returncode == 2, c.stderr
    assert NO_LISTENER in c.stdout
    assert "Configuration file is valid" not in c.stdout
    assert s.returncode == 1, s.stderr
    assert NO_LISTENER_START in s.stderr


@pytest.mark.ours  # HAProxy 2.6 prints its usage for a directory without *.cfg files
def test_no_listener_empty_directory(tmp_path):
    d = tmp_path / "conf.d"
    d.mkdir()
    (d / "README").write_text("not a config\n")
    c, s = check_and_start(d)
    assert c.returncode == 2
    assert NO_LISTENER in c.stdout
    assert s.returncode == 1
    assert NO_LISTENER_START in s.stderr


def test_stats_socket_alone_is_a_listener(tmp_path):
    p = tmp_path / "x.cfg"
    p.write_text("global\n    stats socket %s\n" % (tmp_path / "s.sock"))
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 0
    assert "Configuration file is valid" in r.stdout


@pytest.mark.parametrize("text,line,pos", [
    ("global\n    maxconn 10\n\0x\n", 3, 1),
    (DEFAULTS.replace("client 1s", "client 1s\0junk"), 3, 22),
    ("global\n    # a comment\0 with a NUL\n", 2, 16),
])
def test_nul_byte_is_an_error(tmp_path, text, line, pos):
    p = tmp_path / "nul.cfg"
    p.write_bytes(text.encode() + b"    frobnicate\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 1
    a = alerts(r.stderr)
    assert any("nul.cfg:%d]: Stray NUL character at position %d." % (line, pos) in l
               for l in a), r.stderr
    # as HAProxy, the rest of the file is not read: the bogus last line is not reported
    assert "frobnicate" not in r.stderr


@pytest.mark.parametrize("glob", [
    "description my load balancer", "node lb-1", "spread-checks 5",
    "max-spread-checks 2s", "tune.http.logurilen 2048", "tune.http.cookielen 64",
    "strict-limits", "nosplice", "insecure-fork-wanted", "maxsslconn 100", "maxsslrate 100",
])
def test_keywords_without_machinery_are_accepted(tmp_path, glob):
    p = tmp_path / "x.cfg"
    p.write_text("global\n    %s\n" % glob + fe_cfg(free_port()))
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 0, r.stderr
    assert not alerts(r.stderr)


@pytest.mark.ours
@pytest.mark.parametrize("section,line,why", [
    ("global", "tune.h2.max-concurrent-streams 10", "HTTP/2"),
    ("global", "noepoll", "epoll"),
    ("global", "tune.rcvbuf.client 8192", "socket buffer"),
    ("proxy", "filter trace", "trace filter"),
    ("proxy", "option forwarded", "Forwarded"),
    ("proxy", "use-fcgi-app php", "FastCGI"),
    ("bind", "ca-verify-file x.pem", "TLS"),
    ("bind", "quic-socket connection", "QUIC"),
    ("server", "socks4 127.0.0.1:1080", "SOCKS4"),
    ("server", "sni-auto", "TLS"),
    ("server", "check-reuse-pool", "health checks"),
])
def test_known_keyword_not_supported_yet(tmp_path, section, line, why):
    port = free_port()
    if section == "global":
        text = "global\n    %s\n" % line + fe_cfg(port)
    elif section == "proxy":
        text = fe_cfg(port) + "    %s\n" % line
    elif section == "bind":
        text = fe_cfg(port).replace("127.0.0.1:%d" % port, "127.0.0.1:%d %s" % (port, line))
    else:
        text = fe_cfg(port) + "backend be\n    server s 127.0.0.1:1 %s\n" % line
    p = tmp_path / "x.cfg"
    p.write_text(text)
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 1
    a = [l for l in alerts(r.stderr) if "x.cfg:" in l]
    assert len(a) == 1, r.stderr
    assert "is not supported yet (" in a[0] and why in a[0], a[0]
    assert "unknown" not in a[0]


@pytest.mark.parametrize("line", ["global\n    frobnicate 1\n", "    frobnicate 1\n"])
def test_typo_is_still_unknown(tmp_path, line):
    port = free_port()
    text = line + fe_cfg(port) if line.startswith("global") else fe_cfg(port) + line
    p = tmp_path / "x.cfg"
    p.write_text(text)
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 1
    assert any("unknown keyword 'frobnicate'" in l for l in alerts(r.stderr)), r.stderr


def cli_show_info(port, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=2) as c:
                c.sendall(b"show info\n")
                data = b""
                while len(data) < 100000:
                    chunk = c.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                return data.decode(errors="replace")
        except OSError:
            time.sleep(0.05)
    return ""


@pytest.mark.parametrize("form", ["fd@{fd}", '"fd@${{CLI_FD}}"', "'fd@${{CLI_FD}}'"])
def test_stats_socket_inherited_fd(tmp_path, form):
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(5)
    cport = ls.getsockname()[1]
    fd = ls.fileno()
    os.set_inheritable(fd, True)
    fport = free_port()
    p = tmp_path / "x.cfg"
    p.write_text("global\n    stats socket %s level admin\n" % form.format(fd=fd)
                 + fe_cfg(fport))
    env = dict(os.environ, CLI_FD=str(fd))
    err = open(tmp_path / "err", "wb")
    proc = subprocess.Popen([HAPROXY_BIN, "-f", str(p)], pass_fds=(fd,), env=env,
                            stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL)
    try:
        out = cli_show_info(cport)
        assert "Pid: %d" % proc.pid in out, (tmp_path / "err").read_text()
    finally:
        stop_pid_proc(proc)
        err.close()
        ls.close()


def test_stats_socket_fd_not_a_socket(tmp_path):
    p = tmp_path / "x.cfg"
    p.write_text("global\n    stats socket fd@0\n" + fe_cfg(free_port()))
    r = subprocess.run([HAPROXY_BIN, "-f", str(p)], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=10)
    assert r.returncode == 1
    assert alerts(r.stderr)


def low_nofile():
    resource.setrlimit(resource.RLIMIT_NOFILE, (1000, 1000))


def test_maxconn_above_fd_limit_is_fatal(tmp_path):
    port = free_port()
    p = tmp_path / "x.cfg"
    p.write_text("global\n    maxconn 10000\n" + fe_cfg(port))
    try:
        r = subprocess.run([HAPROXY_BIN, "-f", str(p)], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=10, preexec_fn=low_nofile)
    except subprocess.TimeoutExpired:
        pytest.fail("the proxy started with a maxconn it cannot serve")
    assert r.returncode == 1
    a = alerts(r.stderr)
    assert any(re.search(r"Cannot raise FD limit to \d+, limit is 1000\.", l) for l in a), \
        r.stderr


@pytest.mark.ours
def test_product_text_names_no_issue():
    """User-visible text (sources, docs, examples) never promises a 'later issue'."""
    pat = re.compile(r"later issue|in a later|comes later|come later|issue #?\d", re.I)
    bad = []
    for top in ("src", "include", "doc", "examples", "README"):
        base = REPO / top
        files = [base] if base.is_file() else sorted(base.rglob("*"))
        for f in files:
            if not f.is_file():
                continue
            for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
                if pat.search(line):
                    bad.append("%s:%d: %s" % (f.relative_to(REPO), n, line.strip()))
    assert not bad, "\n".join(bad)
