"""Command line of the binary: -v, -vv, -c, -cc, -f DIR, .if blocks, -D/-p, -dW, obsolete keywords.

Owns: exit codes and the text a user reads on stdout/stderr, plus the three example configs
under examples/. Messages are checked on the parts HAProxy and hapx share (`[ALERT]`,
`[file:line]`, the keyword); hapx-only behaviour is marked `ours`.
"""

import re
import socket
import subprocess

import httpc
import pytest
from conftest import HAPROXY_BIN, REPO, free_port, make_cfg, pid_alive, run_haproxy, stop_pid

OK_CFG = """defaults
    mode http
    timeout client 1s
    timeout server 1s
    timeout connect 1s
listen a
    bind 127.0.0.1:{port}
    server s1 127.0.0.1:{sport}
"""


def ok_cfg(tmp_path, name="ok.cfg", port=None):
    p = tmp_path / name
    p.write_text(OK_CFG.format(port=port or free_port(), sport=free_port()))
    return p


def alerts(text):
    return [l for l in text.splitlines() if l.startswith("[ALERT]")]


def test_version_first_line():
    r = run_haproxy(["-v"])
    assert r.returncode == 0
    assert r.stdout.splitlines()[0].startswith("HAProxy version ")


@pytest.mark.ours
def test_version_names_hapx():
    r = run_haproxy(["-v"])
    first = r.stdout.splitlines()[0]
    assert first.startswith("HAProxy version 3.2")
    assert "hapx" in first
    version = (REPO / "VERSION").read_text().strip()
    assert version in first


def test_vv_sections():
    r = run_haproxy(["-vv"])
    assert r.returncode == 0
    out = r.stdout
    assert out.splitlines()[0].startswith("HAProxy version ")
    for section in ("Build options :", "Feature list :", "Default settings :",
                    "Available polling systems :", "Available multiplexer protocols :"):
        assert section in out, section
    feat = next(l for l in out.splitlines() if l.startswith("Feature list :"))
    assert "+EPOLL" in feat.split()
    assert re.search(r"bufsize = 16384, maxrewrite = 1024", out)
    assert re.search(r"^\s+epoll : pref=300,\s+test result OK", out, re.M)


@pytest.mark.ours
def test_vv_hapx_features():
    out = run_haproxy(["-vv"]).stdout
    feat = next(l for l in out.splitlines() if l.startswith("Feature list :")).split()
    for f in ("+EPOLL", "+THREAD", "+OPENSSL", "+PCRE2", "+PCRE2_JIT", "+LUA", "+ZLIB"):
        assert f in feat, f
    assert "TARGET  = linux-glibc" in out


def test_check_valid_config(tmp_path):
    r = run_haproxy(["-c", "-f", str(ok_cfg(tmp_path))])
    assert r.returncode == 0, r.stderr
    assert "Configuration file is valid" in r.stdout
    assert alerts(r.stderr) == []


def test_check_unknown_keyword(tmp_path):
    p = tmp_path / "bad.cfg"
    p.write_text(OK_CFG.format(port=free_port(), sport=free_port()) + "    foo bar\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 1
    assert "Configuration file is valid" not in r.stdout
    al = alerts(r.stderr)
    assert any(re.search(r"\[ALERT\]\s+\(\d+\) : config : parsing \[%s:9\] : unknown keyword "
                         r"'foo' in 'listen' section" % re.escape(str(p)), l) for l in al), al


def test_check_unknown_section(tmp_path):
    p = tmp_path / "bad.cfg"
    p.write_text("frontendx fe\n    bind 127.0.0.1:1\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 1
    assert any("[%s:1]" % p in l for l in alerts(r.stderr)), r.stderr


def test_check_missing_file(tmp_path):
    r = run_haproxy(["-c", "-f", str(tmp_path / "nope.cfg")])
    assert r.returncode == 1
    assert alerts(r.stderr)


def test_check_does_not_bind(tmp_path):
    port = free_port()
    with socket.socket() as s:                  # port busy: -c must still succeed
        s.bind(("127.0.0.1", port))
        s.listen(1)
        r = run_haproxy(["-c", "-f", str(ok_cfg(tmp_path, port=port))])
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("expr,code", [
    ("1", 0), ("0", 1), ("feature(EPOLL)", 0), ("feature(NO_SUCH_FEATURE)", 1),
    ("version_atleast(2.0)", 0), ("version_before(1.0)", 1), ("version_before(99.0)", 0),
    ("streq(a,a)", 0), ("strneq(a,a)", 1), ("defined(HAPX_TEST_VAR)", 0),
    ("defined(HAPX_TEST_UNSET)", 1), ('streq("$HAPX_TEST_VAR",bar)', 0),
    ('streq("$HAPX_TEST_VAR",baz)', 1), ("1 && 0", 1), ("1 || 0", 0), ("!0", 0), ("!1", 1),
    ("(1 && (0 || 1))", 0), ("ssllib_name_startswith(OpenSSL)", 0),
    ("openssl_version_atleast(1.0.0)", 0), ("openssl_version_before(1.0.0)", 1),
    ("bogus(", 2), ("streq(a", 2), ("no_such_predicate(1)", 2),
])
def test_cc_expressions(expr, code):
    r = run_haproxy(["-cc", expr], env={"HAPX_TEST_VAR": "bar"})
    assert r.returncode == code, (expr, r.stdout, r.stderr)


@pytest.mark.v32  # enabled() does not exist in HAProxy 2.6 (exit 2 there)
def test_cc_enabled():
    assert run_haproxy(["-cc", "enabled(POLL)"]).returncode in (0, 1)


def test_if_blocks_in_config(tmp_path):
    p = tmp_path / "if.cfg"
    p.write_text(OK_CFG.format(port=free_port(), sport=free_port()) +
                 ".if version_atleast(1.0)\n    timeout queue 1s\n.else\n    junk keyword\n"
                 ".endif\n.if streq(a,b)\n    more junk\n.elif 1\n    timeout check 1s\n"
                 ".endif\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 0, r.stderr
    assert "Configuration file is valid" in r.stdout


def test_if_unterminated(tmp_path):
    p = tmp_path / "if.cfg"
    p.write_text(OK_CFG.format(port=free_port(), sport=free_port()) + ".if 1\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 1
    assert any(".if" in l for l in alerts(r.stderr)), r.stderr


def test_alert_directive(tmp_path):
    p = tmp_path / "al.cfg"
    p.write_text(OK_CFG.format(port=free_port(), sport=free_port()) + '.alert "boom here"\n')
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 1
    assert any("[%s:9]" % p in l and "boom here" in l for l in alerts(r.stderr)), r.stderr


def test_f_directory_sorted(tmp_path):
    d = tmp_path / "conf.d"
    d.mkdir()
    # written in reverse order: the duplicate must be reported in the later-sorted file
    (d / "20-b.cfg").write_text("listen dup\n    bind 127.0.0.1:%d\n" % free_port())
    (d / "10-a.cfg").write_text("defaults\n    mode http\n    timeout client 1s\n"
                                "    timeout server 1s\n    timeout connect 1s\n"
                                "listen dup\n    bind 127.0.0.1:%d\n" % free_port())
    (d / "zz.txt").write_text("this is not a config\n")
    r = run_haproxy(["-c", "-f", str(d)])
    assert r.returncode == 1
    al = alerts(r.stderr)
    assert any("20-b.cfg:1]" in l and "dup" in l for l in al), al
    assert not any("zz.txt" in l for l in al)


def test_f_directory_valid(tmp_path):
    d = tmp_path / "conf.d"
    d.mkdir()
    (d / "10-defaults.cfg").write_text("defaults\n    mode http\n    timeout client 1s\n"
                                       "    timeout server 1s\n    timeout connect 1s\n")
    (d / "20-listen.cfg").write_text("listen a\n    bind 127.0.0.1:%d\n" % free_port())
    (d / "notes.txt").write_text("junk junk\n")
    r = run_haproxy(["-dW", "-c", "-f", str(d)])
    assert r.returncode == 0, r.stderr
    assert "Configuration file is valid" in r.stdout


def test_dW_makes_warnings_fatal(tmp_path):
    p = tmp_path / "warn.cfg"       # no timeouts: HAProxy warns about missing timeouts
    p.write_text("defaults\n    mode http\nlisten a\n    bind 127.0.0.1:%d\n"
                 "    server s1 127.0.0.1:%d\n" % (free_port(), free_port()))
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 0
    assert "[WARNING]" in r.stderr
    r = run_haproxy(["-dW", "-c", "-f", str(p)])
    assert r.returncode == 1
    assert "Configuration file is valid" not in r.stdout
    assert alerts(r.stderr)


def test_daemon_with_pidfile(tmp_path, backend):
    port = free_port()
    cfg = tmp_path / "d.cfg"
    cfg.write_text(make_cfg(port, [backend]))
    pidfile = tmp_path / "hapx.pid"
    r = subprocess.run([HAPROXY_BIN, "-D", "-p", str(pidfile), "-f", str(cfg)],
                       capture_output=True, text=True, timeout=15)
    pid = None
    try:
        assert r.returncode == 0, r.stderr
        pid = int(pidfile.read_text().split()[0])
        assert pid_alive(pid)
        # "exits 0 once bound": the port accepts right away, no waiting needed
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass
        assert httpc.get(port).body == b"hello from s1\n"
    finally:
        if pid:
            stop_pid(pid)
    assert not pid_alive(pid)
    # (no port check here: another process may legitimately take the freed port)


def test_daemon_bind_failure_exits_1(tmp_path):
    port = free_port()
    cfg = ok_cfg(tmp_path, port=port)
    pidfile = tmp_path / "hapx.pid"
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
        s.listen(1)
        r = subprocess.run([HAPROXY_BIN, "-D", "-p", str(pidfile), "-f", str(cfg)],
                           capture_output=True, text=True, timeout=15)
    if r.returncode == 0 and pidfile.exists():      # never leave a stray daemon behind
        stop_pid(int(pidfile.read_text().split()[0]))
    assert r.returncode == 1
    assert any("bind" in l.lower() for l in alerts(r.stderr)), r.stderr


def test_foreground_bind_failure(tmp_path):
    port = free_port()
    with socket.socket() as s:
        s.bind(("127.0.0.1", port))
        s.listen(1)
        r = run_haproxy(["-f", str(ok_cfg(tmp_path, port=port))], timeout=15)
    assert r.returncode != 0
    assert alerts(r.stderr)


def test_quiet_flag_check(tmp_path):
    r = run_haproxy(["-q", "-c", "-f", str(ok_cfg(tmp_path))])
    assert r.returncode == 0
    assert r.stderr.strip() == ""


def test_nbproc_2_is_error(tmp_path):
    p = tmp_path / "np.cfg"
    p.write_text("global\n    nbproc 2\n" + OK_CFG.format(port=free_port(), sport=free_port()))
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 1
    assert any("[%s:2]" % p in l and "nbproc" in l for l in alerts(r.stderr)), r.stderr


@pytest.mark.ours
def test_nbproc_2_says_nbthread(tmp_path):
    p = tmp_path / "np.cfg"
    p.write_text("global\n    nbproc 2\n" + OK_CFG.format(port=free_port(), sport=free_port()))
    r = run_haproxy(["-c", "-f", str(p)])
    assert any("nbthread" in l for l in alerts(r.stderr)), r.stderr


@pytest.mark.ours  # HAProxy >= 2.5 rejects nbproc entirely; hapx accepts 1 with a warning
def test_nbproc_1_warns(tmp_path):
    p = tmp_path / "np.cfg"
    p.write_text("global\n    nbproc 1\n" + OK_CFG.format(port=free_port(), sport=free_port()))
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 0, r.stderr
    assert any(l.startswith("[WARNING]") and "[%s:2]" % p in l and "nbproc" in l
               for l in r.stderr.splitlines()), r.stderr
    assert run_haproxy(["-dW", "-c", "-f", str(p)]).returncode == 1


@pytest.mark.ours  # HAProxy >= 2.1 rejects these; hapx maps them to timeouts with a warning
def test_obsolete_timeouts_warn(tmp_path):
    p = tmp_path / "old.cfg"
    p.write_text("defaults\n    mode http\n    contimeout 5000\n    clitimeout 50000\n"
                 "    srvtimeout 50000\nlisten a\n    bind 127.0.0.1:%d\n" % free_port())
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 0, r.stderr
    warns = [l for l in r.stderr.splitlines() if l.startswith("[WARNING]")]
    for line, kw, repl in ((3, "contimeout", "timeout connect"),
                           (4, "clitimeout", "timeout client"),
                           (5, "srvtimeout", "timeout server")):
        assert any("[%s:%d]" % (p, line) in w and kw in w and repl in w for w in warns), warns
    # no "missing timeouts" warning: they were mapped
    assert not any("missing timeouts" in w for w in warns)


EXAMPLES = ["bench-2m.cfg", "tuned-threads.cfg", "legacy-1.4.cfg"]


@pytest.mark.ours
@pytest.mark.parametrize("name", EXAMPLES)
def test_example_configs_check(name):
    path = REPO / "examples" / name
    assert path.exists(), "examples/%s is missing" % name
    r = run_haproxy(["-c", "-f", str(path)])
    if r.returncode == 0:
        assert "Configuration file is valid" in r.stdout
        return
    assert r.returncode == 1
    al = alerts(r.stderr)
    specific = [l for l in al if not re.search(r"Error\(s\) found|Fatal errors found", l)]
    assert specific, r.stderr
    for l in specific:
        assert "not supported yet" in l, l
        assert re.search(r"\[[^\]]*%s:\d+\]" % re.escape(name), l), l


@pytest.mark.ours
def test_example_bench_2m_serves(proxy, backend, tmp_path):
    src = (REPO / "examples" / "bench-2m.cfg").read_text()
    port = free_port()
    cfg = re.sub(r"8001\b", str(backend.port), src)
    cfg = re.sub(r"8000\b", str(port), cfg)
    proxy(cfg, ports=[port])
    for _ in range(3):
        r = httpc.get(port)
        assert r.status == 200
        assert r.body == b"hello from s1\n"
