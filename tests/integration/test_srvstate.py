"""Server state and weights at run time, as a client sees them: `option allbackups` spreads
the load over every backup when no active server is usable (without it, only the first
backup serves), and `slowstart` gives a server that comes back UP a small share first and its
full share after the ramp. Runs against Debian's haproxy too (HAPROXY_BIN=/usr/sbin/haproxy).

Every wait is a bounded poll; every process is stopped by its PID by the fixtures.
"""

import collections
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
