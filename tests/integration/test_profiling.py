"""Task profiling through the runtime API: `show profiling`, `set profiling`, `show tasks`,
`avg_loop_us` in `show activity`, and the `profiling.*` global keywords.

Owns: the layout of those outputs (checked by regex against HAProxy 2.6's, and against
Debian's haproxy in reference mode), the numbers they show under a bounded wrk load, and
the errors a user gets. hapx-only options (`bytime`, `aggr`, `bygroup`, `pct`) are marked
`ours`.
"""

import re
import shutil
import socket
import subprocess
import time

import pytest
from conftest import IS_REF, cli, free_port, make_cfg, run_haproxy

STATUS_RE = re.compile(
    r"^Per-task CPU profiling              : (off|auto-off|auto-on|on) {0,6}      "
    r"# set profiling tasks \{on\|auto\|off\}\n"
    r"Memory usage profiling              : off           # set profiling memory \{on\|off\}\n")
HEADER = "  function                      calls   cpu_tot   cpu_avg   lat_tot   lat_avg"
TIME = r"(?:\d\.\d{3}|\d\d\.\d\d|\d{3}\.\d)(?:ns|us|ms|s |m |h |d |yr)|   -   "
ROW_RE = re.compile(r"^  (\S+?) +(\d+)((?:   (?:%s)){4,5})$" % TIME)
UNITS = {"ns": 1, "us": 1e3, "ms": 1e6, "s ": 1e9, "m ": 60e9, "h ": 3600e9}


def ns(t):
    """A 7-character time as nanoseconds ("   -   " is 0)."""
    return 0 if t.strip() == "-" else float(t[:-2]) * UNITS[t[-2:]]


def rows(text):
    """Rows of a tasks table: (name, calls, [times as 7-char strings]), checking widths."""
    out = []
    for line in text.splitlines():
        m = ROW_RE.match(line)
        if not m:
            continue
        name, calls = m.group(1), int(m.group(2))
        if len(name) + len(m.group(2)) < 35:  # name and calls share 35 columns
            assert len(line) - len(m.group(3)) == 37, line
        times = [m.group(3)[i + 3:i + 10] for i in range(0, len(m.group(3)), 10)]
        out.append((name, calls, times))
    return out


def listening(path):
    """True when a unix socket accepts connections at <path>."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        try:
            s.connect(str(path))
            return True
        except OSError:
            return False


@pytest.fixture
def prof_proxy(tmp_path, proxy, nginx):
    """Start a proxy with admin, operator and user sockets over nginx; returns (port,
    admin socket, operator socket, user socket)."""
    def start(glob=(), nbthread=2):
        nport, _ = nginx()
        port = free_port()
        socks = [tmp_path / ("%s.sock" % n) for n in ("admin", "oper", "user")]
        g = ["nbthread %d" % nbthread,
             "stats socket %s level admin" % socks[0],
             "stats socket %s level operator" % socks[1],
             "stats socket %s level user" % socks[2]] + list(glob)
        proxy(make_cfg(port, [("s1", nport)], glob=g), ports=[port])
        deadline = time.monotonic() + 5  # the unix sockets may come after the TCP port
        while not all(listening(s) for s in socks) and time.monotonic() < deadline:
            time.sleep(0.02)
        return port, socks[0], socks[1], socks[2]
    return start


def wrk(port, seconds=2, conns=8):
    """A bounded wrk run on /hello; returns the number of requests it completed."""
    if not shutil.which("wrk"):
        pytest.skip("wrk not installed")
    out = subprocess.run(["wrk", "-t1", "-c%d" % conns, "-d%ds" % seconds, "--timeout", "3s",
                          "http://127.0.0.1:%d/hello" % port],
                         capture_output=True, text=True, timeout=seconds + 20).stdout
    m = re.search(r"(\d+) requests in", out)
    assert m, out
    assert "Non-2xx" not in out and "Socket errors" not in out, out
    return int(m.group(1))


def test_status_default_is_auto_off(prof_proxy):
    _, adm, _, _ = prof_proxy()
    out = cli(adm, "show profiling status")
    assert STATUS_RE.match(out), repr(out)
    assert out.startswith("Per-task CPU profiling              : auto-off      # set")
    assert out.endswith("{on|off}\n\n")


def test_set_profiling_tasks_modes(prof_proxy):
    _, adm, _, _ = prof_proxy()
    for word, shown in (("on", "on"), ("auto", "auto-on"), ("off", "off")):
        assert cli(adm, "set profiling tasks %s" % word) == "\n"
        out = cli(adm, "show profiling status")
        assert STATUS_RE.match(out), repr(out)
        assert out.startswith("Per-task CPU profiling              : %-8s      #" % shown), out
    assert cli(adm, "set profiling tasks foo") == "Expects 'on', 'auto', or 'off'.\n\n"
    assert cli(adm, "set profiling tasks") == "Expects 'on', 'auto', or 'off'.\n\n"
    assert cli(adm, "set profiling foo") == "Expects either 'tasks' or 'memory'.\n\n"
    assert cli(adm, "set profiling memory on") == "Memory profiling not compiled in.\n\n"
    # nothing changed by the bad commands, and the session went on
    assert ": off " in cli(adm, "set profiling tasks foo; show profiling status")


def test_levels(prof_proxy):
    _, _, oper, user = prof_proxy()
    for sock in (oper, user):
        assert cli(sock, "show profiling") == "Permission denied\n\n"
        assert cli(sock, "set profiling tasks on") == "Permission denied\n\n"
        assert cli(sock, "show tasks").startswith("Running tasks: ")


def test_show_profiling_under_load(prof_proxy):
    port, adm, _, _ = prof_proxy(glob=["profiling.tasks on"])
    n = wrk(port)
    assert n > 100
    out = cli(adm, "show profiling")
    assert STATUS_RE.match(out), out
    assert out.startswith("Per-task CPU profiling              : on            #")
    lines = out.splitlines()
    assert lines[2] == "Tasks activity:"
    assert lines[3] == HEADER
    assert len(HEADER) == 77
    rs = rows(out)
    assert len(rs) == len([l for l in lines if l]) - 4, out  # every row has the layout
    by = {name: (calls, times) for name, calls, times in rs}
    assert len(by) == len(rs), out  # one row per function, summed over the threads
    for fn in ("process_stream", "h1_io_cb"):
        assert fn in by, out
        calls, (cpu_tot, cpu_avg, lat_tot, lat_avg) = by[fn]
        # every request runs the stream at least once; the mux's I/O callback runs on
        # socket events, fewer than requests when one read brings the next request
        assert calls >= (0.9 * n if fn == "process_stream" else n / 10), (fn, calls, n)
        # the average is the total over the calls (4 significant digits shown)
        assert abs(ns(cpu_avg) * calls - ns(cpu_tot)) <= 0.01 * ns(cpu_tot) + calls, out
        assert 100 <= ns(cpu_avg) <= 10e6, out  # 100 ns .. 10 ms per call
        assert ns(cpu_tot) < 60e9
        assert ns(lat_avg) <= ns(lat_tot)
    calls = [c for _, c, _ in rs]
    assert calls == sorted(calls, reverse=True)  # by calls by default


def test_show_profiling_options(prof_proxy):
    port, adm, _, _ = prof_proxy(glob=["profiling.tasks on"])
    wrk(port, seconds=1)
    out = cli(adm, "show profiling tasks 2")
    assert out.splitlines()[:2] == ["Tasks activity:", HEADER]
    assert len(rows(out)) == 2
    out = cli(adm, "show profiling all 1")
    assert STATUS_RE.match(out)
    assert len(rows(out)) == 1
    out = cli(adm, "show profiling tasks byaddr")
    assert out.splitlines()[:2] == ["Tasks activity:", HEADER]
    assert {r[0] for r in rows(out)} >= {"process_stream", "h1_io_cb"}
    assert cli(adm, "show profiling memory") == "\n"
    assert cli(adm, "show profiling foo").startswith(
        "Expects either 'all', 'status', 'tasks', 'memory', 'byaddr'")


@pytest.mark.ours
def test_show_profiling_bytime_aggr_pct(prof_proxy):
    port, adm, _, _ = prof_proxy(glob=["profiling.tasks on"])
    wrk(port, seconds=1)
    out = cli(adm, "show profiling tasks bytime")
    cpu = [ns(t[0]) for _, _, t in rows(out)]
    assert len(cpu) >= 2 and cpu == sorted(cpu, reverse=True), out
    out = cli(adm, "show profiling tasks aggr")
    names = [r[0] for r in rows(out)]
    assert len(names) == len(set(names))
    out = cli(adm, "show profiling tasks pct")
    assert out.splitlines()[1] == HEADER + "   lat_p99"
    for _, _, t in rows(out):
        assert len(t) == 5
        assert ns(t[4]) >= ns(t[3]) / 2  # p99 (a power of two) is not below the mean/2


@pytest.mark.ours
def test_show_profiling_bygroup(prof_proxy):
    port, adm, _, _ = prof_proxy(glob=["profiling.tasks on", "thread-groups 2"])
    wrk(port, seconds=1)
    out = cli(adm, "show profiling tasks bygroup")
    heads = [l for l in out.splitlines() if l.startswith("Tasks activity")]
    assert heads == ["Tasks activity of thread group 1 (threads 1-1):",
                     "Tasks activity of thread group 2 (threads 2-2):"], out
    assert out.count(HEADER + "\n") == 2
    total = cli(adm, "show profiling tasks")
    assert rows(total)


def test_profiling_off_stops_counting(prof_proxy):
    port, adm, _, _ = prof_proxy(glob=["profiling.tasks on"])
    wrk(port, seconds=1)
    assert cli(adm, "set profiling tasks off") == "\n"
    wrk(port, seconds=1)  # let every thread see the change, then freeze
    before = {r[0]: r[1] for r in rows(cli(adm, "show profiling tasks"))}
    wrk(port, seconds=1)
    after = {r[0]: r[1] for r in rows(cli(adm, "show profiling tasks"))}
    assert before.get("process_stream") == after.get("process_stream")
    assert cli(adm, "set profiling tasks on") == "\n"  # a new window starts from zero
    wrk(port, seconds=1)
    again = {r[0]: r[1] for r in rows(cli(adm, "show profiling tasks"))}
    assert 0 < again.get("process_stream", 0)


def test_show_tasks_layout(prof_proxy):
    port, adm, _, user = prof_proxy()
    out = cli(user, "show tasks")
    lines = out.splitlines()
    assert re.match(r"^Running tasks: \d+ \(2 threads\)$", lines[0]), out
    assert lines[1] == "  function                     places     %    lat_tot   lat_avg"
    for line in lines[2:]:
        if line:
            assert re.match(r"^  \S+ +\d+  [ \d]{3}\.\d   (%s)   (%s)$" % (TIME, TIME), line)


def test_show_activity_avg_loop_us(prof_proxy):
    port, adm, _, _ = prof_proxy()
    wrk(port, seconds=1)
    out = cli(adm, "show activity")
    m = re.search(r"^avg_loop_us: (\d+) \[ (\d+) (\d+) \]$", out, re.M)
    assert m, out
    total, t1, t2 = map(int, m.groups())
    assert total == (t1 + t2) // 2 or abs(total - (t1 + t2) / 2) <= 1  # the mean
    assert t1 + t2 > 0


@pytest.mark.parametrize("line,msg", [
    ("profiling.tasks foo", "'profiling.tasks' expects either 'on', 'auto', or 'off' but got 'foo'."),
    ("profiling.tasks", "'profiling.tasks' expects either 'on', 'auto', or 'off' but got ''."),
    ("profiling.tasks on off", "'profiling.tasks' cannot handle unexpected argument 'off'."),
])
def test_config_errors(tmp_path, line, msg):
    p = tmp_path / "p.cfg"
    p.write_text("global\n    %s\n" % line)
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 1
    assert re.search(r"\[ALERT\].*parsing \[%s:2\] : %s" % (re.escape(str(p)), re.escape(msg)),
                     r.stderr), r.stderr


@pytest.mark.ours
def test_config_memory(tmp_path):
    p = tmp_path / "p.cfg"
    p.write_text("global\n    profiling.memory off\n    profiling.tasks auto\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert "ALERT" not in r.stderr and "has no error" in r.stdout, r.stderr
    p.write_text("global\n    profiling.memory on\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 1
    assert re.search(r"parsing \[%s:2\] : 'profiling.memory' is not supported yet "
                     r"\(memory profiling is not implemented\)" % re.escape(str(p)), r.stderr)


@pytest.mark.skipif(not IS_REF, reason="documents Debian's behaviour")
def test_ref_memory_keyword_unknown(tmp_path):
    """Debian's 2.6 is built without memory profiling: the keyword does not exist there."""
    p = tmp_path / "p.cfg"
    p.write_text("global\n    profiling.memory off\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 1
    assert "unknown keyword 'profiling.memory'" in r.stderr
