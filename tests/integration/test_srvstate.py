"""Server state and weights at run time, as a client sees them: `option allbackups` spreads
the load over every backup when no active server is usable (without it, only the first
backup serves), and `slowstart` gives a server that comes back UP a small share first and its
full share after the ramp. Runs against Debian's haproxy too (HAPROXY_BIN=/usr/sbin/haproxy).

Every wait is a bounded poll; every process is stopped by its PID by the fixtures.
"""

import collections
import socket
import threading
import re
import time

import httpc
from backend import Backend
import pytest
from conftest import free_port, make_cfg, run_haproxy

INTER = 200  # ms


def wait_for(pred, timeout, step=0.02):
    """Poll pred() until it is true or <timeout> seconds pass; True when it became true."""
    for _ in range(int(timeout / step) + 1):
        if pred():
            return True
        time.sleep(step)
    return False


def shares(port, n):
    """Which server answered each of <n> requests: a Counter of X-Server values."""
    return collections.Counter(httpc.get(port).header("X-Server") for _ in range(n))


def backup_cfg(port, act, bcks, listen=()):
    lines = list(listen) + ["server %s 127.0.0.1:%d disabled" % (act.name, act.port)]
    lines += ["server %s 127.0.0.1:%d backup" % (b.name, b.port) for b in bcks]
    return make_cfg(port, [], listen=lines)


def test_first_backup_only_without_allbackups(proxy, port, backends):
    a, b1, b2 = backends(names=["a", "b1", "b2"])
    proxy(backup_cfg(port, a, [b1, b2]), [port])
    assert shares(port, 12) == {"b1": 12}


def test_allbackups_share_the_load(proxy, port, backends):
    a, b1, b2 = backends(names=["a", "b1", "b2"])
    proxy(backup_cfg(port, a, [b1, b2], ["option allbackups"]), [port])
    assert shares(port, 12) == {"b1": 6, "b2": 6}


def test_allbackups_from_defaults_and_weights(proxy, port, backends):
    a, b1, b2 = backends(names=["a", "b1", "b2"])
    cfg = make_cfg(port, [], defaults=["option allbackups"], listen=[
        "server a 127.0.0.1:%d disabled" % a.port,
        "server b1 127.0.0.1:%d backup weight 1" % b1.port,
        "server b2 127.0.0.1:%d backup weight 3" % b2.port])
    proxy(cfg, [port])
    assert shares(port, 16) == {"b1": 4, "b2": 12}


def test_next_backup_takes_over(proxy, port, backends):
    """Without allbackups, when the first backup goes DOWN the next one serves alone."""
    a, b2 = backends(names=["a", "b2"])
    b1 = Backend("b1").start()
    try:
        cfg = make_cfg(port, [], listen=[
            "server a 127.0.0.1:%d disabled" % a.port,
            "server b1 127.0.0.1:%d backup check inter %d fall 1 rise 1" % (b1.port, INTER),
            "server b2 127.0.0.1:%d backup" % b2.port])
        px = proxy(cfg, [port])
        assert shares(port, 6) == {"b1": 6}
        b1.stop()
        assert wait_for(lambda: "Server px/b1 is DOWN" in px.stderr(), 5), px.stderr()
        assert shares(port, 6) == {"b2": 6}
    finally:
        b1.stop()


def test_slowstart_ramps_a_server_back(proxy, port, backends):
    (s1,) = backends(names=["s1"])
    s2 = Backend("s2").start()
    try:
        cfg = make_cfg(port, [s1, s2],
                       srv_opts="check inter %d fall 1 rise 1 slowstart 4s" % INTER)
        px = proxy(cfg, [port])
        # no ramp at startup: equal shares at once
        assert shares(port, 20) == {"s1": 10, "s2": 10}
        s2_port = s2.port
        s2.stop()
        assert wait_for(lambda: "Server px/s2 is DOWN" in px.stderr(), 5), px.stderr()
        s2 = Backend("s2", port=s2_port).start()
        assert wait_for(lambda: "Server px/s2 is UP" in px.stderr(), 5), px.stderr()
        early = shares(port, 40)
        assert early["s2"] <= 6, early  # a few percent at first, not half
        time.sleep(5)  # the 4 s ramp is over
        late = shares(port, 40)
        assert 15 <= late["s2"] <= 25, late
        # 2.6 reports the end of the ramp
        assert re.search(r"Server px/s2 is UP\. 2 active and 0 backup servers online\. "
                         r"0 sessions requeued, 0 total in queue\.", px.stderr()), px.stderr()
    finally:
        s2.stop()


def test_track_follows_the_tracked_server(proxy, port, backends):
    (s2,) = backends(names=["s2"])
    s1 = Backend("s1").start()
    try:
        cfg = make_cfg(port, [], listen=[
            "server s1 127.0.0.1:%d check inter %d fall 1 rise 1" % (s1.port, INTER),
            "server s2 127.0.0.1:%d track s1" % s2.port])
        px = proxy(cfg, [port])
        assert shares(port, 10) == {"s1": 5, "s2": 5}
        s1_port = s1.port
        s1.stop()
        assert wait_for(lambda: "Server px/s2 is DOWN via px/s1" in px.stderr(), 5), \
            px.stderr()
        assert re.search(r"Server px/s2 is DOWN via px/s1\. 0 active and 0 backup servers "
                         r"left\. 0 sessions active, 0 requeued, 0 remaining in queue\.",
                         px.stderr()), px.stderr()
        assert httpc.get(port).status == 503  # s2 is alive but follows s1
        s1 = Backend("s1", port=s1_port).start()
        assert wait_for(lambda: "Server px/s2 is UP via px/s1" in px.stderr(), 5), \
            px.stderr()
        assert shares(port, 10) == {"s1": 5, "s2": 5}
    finally:
        s1.stop()


@pytest.mark.parametrize("lines,msg", [
    (["server s1 127.0.0.1:1", "server s2 127.0.0.1:2 track s1"],
     "[%s:10] : 'server px/s2' : unable to use px/s1 for tracking as it does not have any "
     "check nor agent enabled."),
    (["server s1 127.0.0.1:1 check", "server s2 127.0.0.1:2 track s9"],
     "[%s:10] : 'server px/s2' : unable to find required server 's9' for tracking."),
    (["server s1 127.0.0.1:1 check", "server s2 127.0.0.1:2 track nobe/s1"],
     "[%s:10] : 'server px/s2' : unable to find required proxy 'nobe' for tracking."),
    (["server s1 127.0.0.1:1 track s2", "server s2 127.0.0.1:2 track s1"],
     "[%s:10] : 'server px/s2' : unable to track px/s1 as it belongs to a tracking chain "
     "looping back to px/s2."),
    (["server s1 127.0.0.1:1 check", "server s2 127.0.0.1:2 track s1 check"],
     "[%s:10] : 'server px/s2' : unable to enable checks and tracking at the same time!"),
])
def test_track_config_errors(tmp_path, lines, msg):
    path = tmp_path / "t.cfg"
    path.write_text(make_cfg(free_port(), [], listen=lines))
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode != 0
    assert msg % path in r.stderr, r.stderr


@pytest.mark.parametrize("on_error,after", [("mark-down", 5), ("fail-check", None)])
def test_observe_layer7_error_limit(proxy, port, backends, on_error, after):
    """5 consecutive 5xx from s1 take it down at once with mark-down; with fail-check they
    only cost one point of health (3 more failures needed), as 2.6."""
    s1, s2 = backends(names=["s1", "s2"])
    cfg = make_cfg(port, [], listen=[
        "balance first",
        "server s1 127.0.0.1:%d check inter 3s fall 3 rise 2 observe layer7 error-limit 5 "
        "on-error %s" % (s1.port, on_error),
        "server s2 127.0.0.1:%d" % s2.port])
    px = proxy(cfg, [port])
    seen = [httpc.get(port, "/?status=500").header("X-Server") for _ in range(5)]
    assert seen == ["s1"] * 5
    if after is None:
        seen = [httpc.get(port, "/?status=500").header("X-Server") for _ in range(2)]
        assert seen == ["s1"] * 2
        assert "is DOWN" not in px.stderr()
        return
    # the action runs on the check's thread: it may take a moment to be seen (2.6: at once)
    assert wait_for(lambda: "Server px/s1 is DOWN" in px.stderr(), 2), px.stderr()
    seen = [httpc.get(port, "/?status=500").header("X-Server") for _ in range(2)]
    assert seen == ["s2"] * 2
    assert re.search(r'Server px/s1 is DOWN, reason: Health analyze, info: "Detected 5 '
                     r'consecutive errors, last one was: Wrong http response"\. 1 active and 0 '
                     r'backup servers left\.', px.stderr()), px.stderr()


def test_observe_layer7_good_responses_reset(proxy, port, backends):
    s1, s2 = backends(names=["s1", "s2"])
    cfg = make_cfg(port, [], listen=[
        "balance first",
        "server s1 127.0.0.1:%d check inter 3s observe layer7 error-limit 3 on-error mark-down"
        % s1.port,
        "server s2 127.0.0.1:%d" % s2.port])
    px = proxy(cfg, [port])
    for path in ["/?status=503", "/?status=502", "/", "/?status=500", "/?status=404",
                 "/?status=501", "/?status=500", "/?status=500"]:
        assert httpc.get(port, path).header("X-Server") == "s1"
    assert "is DOWN" not in px.stderr()


@pytest.mark.parametrize("shutdown", [True, False])
def test_on_marked_down_shutdown_sessions(proxy, port, backends, shutdown):
    """A request in flight on s1 when its check fails: closed at once with
    shutdown-sessions, answered normally without it."""
    (s1,) = backends(names=["s1"])
    chk = Backend("chk").start()  # what s1's check connects to
    try:
        opt = " on-marked-down shutdown-sessions" if shutdown else ""
        cfg = make_cfg(port, [], listen=[
            "server s1 127.0.0.1:%d check port %d inter %d fall 1 rise 1%s"
            % (s1.port, chk.port, INTER, opt)])
        px = proxy(cfg, [port])
        sock = httpc.connect(port, timeout=10)
        sock.sendall(b"GET /?delay=3 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        assert wait_for(lambda: s1.max_active >= 1, 2)
        t0 = time.monotonic()
        chk.stop()
        assert wait_for(lambda: "Server px/s1 is DOWN" in px.stderr(), 5), px.stderr()
        data, closed = httpc.recv_until_close(sock, 6)
        sock.close()
        assert closed
        if shutdown:
            assert data.startswith(b"HTTP/1.1 502 ") and time.monotonic() - t0 < 2.5
        else:
            assert data.startswith(b"HTTP/1.1 200")
    finally:
        chk.stop()


def test_on_marked_up_shutdown_backup_sessions(proxy, port, backends):
    """While s1 is down a request goes to the backup; when s1 comes back UP, the backup's
    in-flight request is closed."""
    (b1,) = backends(names=["b1"])
    s1 = Backend("s1").start()
    try:
        s1_port = s1.port
        s1.stop()
        cfg = make_cfg(port, [], listen=[
            "server s1 127.0.0.1:%d check inter %d fall 1 rise 1 "
            "on-marked-up shutdown-backup-sessions" % (s1_port, INTER),
            "server b1 127.0.0.1:%d backup" % b1.port])
        px = proxy(cfg, [port])
        assert wait_for(lambda: "Server px/s1 is DOWN" in px.stderr(), 5), px.stderr()
        sock = httpc.connect(port, timeout=10)
        sock.sendall(b"GET /?delay=3 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        assert wait_for(lambda: b1.max_active >= 1, 2)
        t0 = time.monotonic()
        s1 = Backend("s1", port=s1_port).start()
        assert wait_for(lambda: "Server px/s1 is UP" in px.stderr(), 5), px.stderr()
        data, closed = httpc.recv_until_close(sock, 6)
        sock.close()
        assert closed and data.startswith(b"HTTP/1.1 502 ")
        assert time.monotonic() - t0 < 2.5
    finally:
        s1.stop()


@pytest.mark.parametrize("opts,msg", [
    ("check observe layer9", "'server px/s1' : 'observe' expects one of 'none', 'layer4', "
     "'layer7' but got 'layer9'."),
    ("check observe", "'server px/s1' : 'observe' expects <mode> as argument."),
    ("check error-limit 0", "'server px/s1' : error-limit has to be > 0."),
    ("check error-limit", "'server px/s1' : 'error-limit' expects an integer argument."),
    ("check on-error foo", "'server px/s1' : 'on-error' expects one of 'fastinter', "
     "'fail-check', 'sudden-death' or 'mark-down' but got 'foo'."),
    ("check on-marked-down foo", "'server px/s1' : 'on-marked-down' expects "
     "'shutdown-sessions' but got 'foo'."),
    ("check on-marked-up shutdown-sessions", "'server px/s1' : 'on-marked-up' expects "
     "'shutdown-backup-sessions' but got 'shutdown-sessions'."),
    ("slowstart 1x", "'server px/s1' : unexpected character 'x' in 'slowstart' argument of "
     "server s1."),
])
def test_server_state_option_errors(tmp_path, opts, msg):
    path = tmp_path / "t.cfg"
    path.write_text(make_cfg(free_port(), [], listen=["server s1 127.0.0.1:1 " + opts]))
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode != 0
    assert (":9] : " + msg) in r.stderr, r.stderr


class Agent:
    """A line agent on 127.0.0.1: answers <reply> to each connection, counts them."""

    def __init__(self):
        self.reply = b"up\n"
        self.got = []
        self.served = 0
        self.lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(16)
        self.lsock.settimeout(0.2)
        self.port = self.lsock.getsockname()[1]
        self.stopping = False
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        while not self.stopping:
            try:
                c, _ = self.lsock.accept()
            except OSError:
                continue
            with c:
                c.settimeout(0.5)
                try:
                    self.got.append(c.recv(100))
                except OSError:
                    pass
                try:
                    c.sendall(self.reply)
                except OSError:
                    pass
            self.served += 1

    def say(self, reply, runs=3, timeout=5):
        """Answer <reply> from now on; returns once <runs> agent runs got it."""
        self.reply = reply
        start = self.served
        return wait_for(lambda: self.served >= start + runs, timeout)

    def stop(self):
        self.stopping = True
        self.thread.join(timeout=5)
        self.lsock.close()


def test_agent_replies_change_weight_and_state(proxy, port, backends):
    s1, s2 = backends(names=["s1", "s2"])
    agent = Agent()
    try:
        cfg = make_cfg(port, [], listen=[
            "server s1 127.0.0.1:%d weight 100 check inter 200 agent-check agent-port %d "
            "agent-inter 100 agent-send \"hello\\n\"" % (s1.port, agent.port),
            "server s2 127.0.0.1:%d weight 100" % s2.port])
        px = proxy(cfg, [port])
        assert agent.say(b"up\n")
        assert agent.got[0] == b"hello\n"
        assert shares(port, 30) == {"s1": 15, "s2": 15}
        assert agent.say(b"50%\n")
        assert 8 <= shares(port, 30)["s1"] <= 12
        assert agent.say(b"down\n")
        assert shares(port, 10) == {"s2": 10}
        assert re.search(r'Server px/s1 is DOWN, reason: Layer7 wrong status, code: 0, info: '
                         r'"via agent : down", check duration: \d+ms\. 1 active and 0 backup '
                         r'servers left\.', px.stderr()), px.stderr()
        assert agent.say(b"up 100%\n")
        assert shares(port, 10) == {"s1": 5, "s2": 5}
        assert 'info: "via agent : up"' in px.stderr()
        assert agent.say(b"drain\n")
        assert shares(port, 10) == {"s2": 10}
        assert "Server px/s1 enters drain state. 1 active and 0 backup servers online. " \
               "0 sessions requeued, 0 total in queue." in px.stderr()
        assert agent.say(b"ready\n")
        assert shares(port, 10) == {"s1": 5, "s2": 5}
        assert "Server px/s1 is UP (leaving forced drain)." in px.stderr()
        assert agent.say(b"maint\n")
        assert shares(port, 10) == {"s2": 10}
        assert "Server px/s1 is going DOWN for maintenance. 1 active and 0 backup servers " \
               "left." in px.stderr()
        assert agent.say(b"ready\n")
        assert shares(port, 10) == {"s1": 5, "s2": 5}
        assert "Server px/s1 is UP/READY (leaving forced maintenance)." in px.stderr()
        assert agent.say(b"fail #disk full\n")
        assert 'info: "via agent : fail (disk full)"' in px.stderr()
    finally:
        agent.stop()


def test_agent_unreachable_changes_nothing(proxy, port, backends):
    s1, s2 = backends(names=["s1", "s2"])
    cfg = make_cfg(port, [], listen=[
        "server s1 127.0.0.1:%d check inter 200 agent-check agent-port %d agent-inter 100"
        % (s1.port, free_port()),
        "server s2 127.0.0.1:%d" % s2.port])
    px = proxy(cfg, [port])
    time.sleep(0.6)
    assert shares(port, 10) == {"s1": 5, "s2": 5}
    assert "DOWN" not in px.stderr()


@pytest.mark.parametrize("opts,msg", [
    ("agent-check", "server s1 does not have agent port. Agent check has been disabled."),
    ("agent-check agent-port 9 agent-inter 0", "invalid value 0 for argument 'agent-inter' "
     "of server s1."),
    ("agent-check agent-port 9 agent-send", "'agent-send' expects a string as argument."),
    ("agent-check agent-port 9 agent-addr 1.2.3.4:80", "parsing agent-addr failed. Check if "
     "'1.2.3.4:80' is correct address."),
    ("agent-port", "'agent-port' expects a port number as argument."),
])
def test_agent_option_errors(tmp_path, opts, msg):
    path = tmp_path / "t.cfg"
    path.write_text(make_cfg(free_port(), [], listen=["server s1 127.0.0.1:1 " + opts]))
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode != 0
    assert (":9] : 'server px/s1' : " + msg) in r.stderr, r.stderr
