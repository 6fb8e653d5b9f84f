"""Server and frontend administration through the runtime API.

Owns: `set server B/S state|weight|health|agent|addr|check-*|agent-*`, `set weight`,
`get weight`, `enable|disable server|health|agent`, `set maxconn server|frontend`,
`shutdown sessions server`, `disable|enable|shutdown frontend`: what traffic does after
each (on two thread groups where the binary has them), what `show stat` / `show servers
state` report, and HAProxy 2.6's answers to bad input (the expected strings were taken from
Debian's /usr/sbin/haproxy; run with HAPROXY_BIN=/usr/sbin/haproxy to check them).
"""

import collections
import socket
import threading
import time

import httpc
import pytest
from backend import Reader
from conftest import IS_REF, free_port
from conftest import cli as _cli


def cli(sock, cmd, timeout=5.0):
    """conftest's cli(), waiting (bounded) for the socket of a proxy just started."""
    deadline = time.monotonic() + 5.0
    while True:
        try:
            return _cli(sock, cmd, timeout)
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def cfg(port, sock, servers, glob=(), listen=(), srv_opts="", level="admin", extra=""):
    """A `listen px` over <servers> (Backends or (name, port)) with an admin socket."""
    lines = ["global", "    stats socket %s level %s" % (sock, level)]
    lines += ["    " + g for g in glob]
    lines += ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 10s",
              "    timeout server 10s", "listen px", "    bind 127.0.0.1:%d" % port]
    lines += ["    " + x for x in listen]
    for s in servers:
        name, sport = (s.name, s.port) if not isinstance(s, tuple) else s
        lines.append("    server %s 127.0.0.1:%d %s" % (name, sport, srv_opts))
    return "\n".join(lines) + "\n" + extra


def groups_glob():
    """Two threads in two groups (HAProxy 2.6 has one group only: two threads there)."""
    return ["nbthread 2"] if IS_REF else ["nbthread 2", "thread-groups 2"]


def del_server(sock, name):
    """del server, again while the streams of the last responses end (bounded)."""
    for _ in range(40):
        out = cli(sock, "del server " + name)
        if not out.startswith("Server still has connections"):
            return out
        time.sleep(0.05)
    return out


def hits(port, n, path="/"):
    """Sends <n> requests, each on a new connection (spread over the groups' sockets);
    returns a Counter of the X-Server names (None for a response without one)."""
    c = collections.Counter()
    for _ in range(n):
        r = httpc.get(port, path)
        c[r.header("X-Server") if r.status == 200 else r.status] += 1
    return c


def stat_rows(sock):
    """`show stat` as {(pxname, svname): {field: value}}."""
    out = cli(sock, "show stat").splitlines()
    hdr = out[0].lstrip("# ").split(",")
    rows = {}
    for line in out[1:]:
        if line:
            f = dict(zip(hdr, line.split(",")))
            rows[(f["pxname"], f["svname"])] = f
    return rows


def srv_state(sock, be, srv):
    """The `show servers state` fields of one server, by header name."""
    out = cli(sock, "show servers state %s" % be).splitlines()
    hdr = out[1].lstrip("# ").split()
    for line in out[2:]:
        f = line.split()
        if len(f) > 3 and f[3] == srv:
            return dict(zip(hdr, f))
    return None


def wait_for(pred, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return True
        time.sleep(0.05)
    return False


def test_maint_stops_traffic_on_every_group(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    p = proxy(cfg(port, sock, [s1, s2], glob=groups_glob()), ports=[port])
    assert set(hits(port, 20)) == {"s1", "s2"}
    assert cli(sock, "set server px/s1 state maint") == "\n"
    assert hits(port, 40) == {"s2": 40}
    assert stat_rows(sock)[("px", "s1")]["status"] == "MAINT"
    assert srv_state(sock, "px", "s1")["srv_admin_state"] == "1"
    assert cli(sock, "set server px/s1 state ready") == "\n"
    assert hits(port, 20)["s1"] >= 5
    assert stat_rows(sock)[("px", "s1")]["status"] == "no check"
    assert "Server px/s1 is going DOWN for maintenance." in p.stderr()
    assert "Server px/s1 is UP/READY (leaving forced maintenance)." in p.stderr()


def test_disable_enable_server_and_drain(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    proxy(cfg(port, sock, [s1, s2], glob=groups_glob()), ports=[port])
    assert cli(sock, "disable server px/s2") == "\n"
    assert hits(port, 20) == {"s1": 20}
    assert cli(sock, "enable server px/s2") == "\n"
    assert set(hits(port, 20)) == {"s1", "s2"}
    assert cli(sock, "set server px/s2 state drain") == "\n"
    assert hits(port, 20) == {"s1": 20}
    assert stat_rows(sock)[("px", "s2")]["status"] == "DRAIN"
    assert srv_state(sock, "px", "s2")["srv_admin_state"] == "8"
    # drain then maint: maint wins and drain is left (2.6)
    assert cli(sock, "set server px/s2 state maint") == "\n"
    assert srv_state(sock, "px", "s2")["srv_admin_state"] == "1"
    assert cli(sock, "set server px/s2 state ready") == "\n"
    assert srv_state(sock, "px", "s2")["srv_admin_state"] == "0"


def test_config_disabled_server_can_be_enabled(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    cfgtxt = cfg(port, sock, [s1], extra="    server s2 127.0.0.1:%d disabled\n" % s2.port)
    proxy(cfgtxt, ports=[port])
    assert hits(port, 10) == {"s1": 10}
    assert srv_state(sock, "px", "s2")["srv_admin_state"] == "5"
    assert cli(sock, "enable server px/s2") == "\n"
    assert srv_state(sock, "px", "s2")["srv_admin_state"] == "4"
    assert set(hits(port, 10)) == {"s1", "s2"}


def test_weight_changes_shift_the_distribution(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    proxy(cfg(port, sock, [s1, s2], glob=groups_glob()), ports=[port])
    assert cli(sock, "get weight px/s1") == "1 (initial 1)\n\n"
    assert cli(sock, "set server px/s1 weight 3") == "\n"
    assert cli(sock, "get weight px/s1") == "3 (initial 1)\n\n"
    c = hits(port, 40)
    assert 24 <= c["s1"] <= 36 and c["s1"] + c["s2"] == 40
    assert stat_rows(sock)[("px", "s1")]["weight"] == "3"
    assert cli(sock, "set weight px/s2 0") == "\n"
    assert hits(port, 20) == {"s1": 20}
    assert cli(sock, "set weight px/s2 100%") == "\n"
    assert cli(sock, "get weight px/s2") == "1 (initial 1)\n\n"
    assert cli(sock, "set server px/s1 weight 50%") == "\n"
    assert cli(sock, "get weight px/s1") == "0 (initial 1)\n\n"
    assert hits(port, 10) == {"s2": 10}


def test_static_algorithm_weights(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    proxy(cfg(port, sock, [s1, s2], listen=["balance static-rr"]), ports=[port])
    assert cli(sock, "set server px/s1 weight 5") == (
        "Backend is using a static LB algorithm and only accepts weights '0%' and '100%'.\n\n")
    assert cli(sock, "get weight px/s1") == "1 (initial 1)\n\n"
    assert cli(sock, "set server px/s1 weight 0%") == "\n"
    assert hits(port, 10) == {"s2": 10}
    assert cli(sock, "set server px/s1 weight 100%") == "\n"
    assert set(hits(port, 10)) == {"s1", "s2"}


# (command, HAProxy 2.6's answer): nothing may change after any of them
BAD = [
    ("set server px/s1", "usage: set server <backend>/<server> addr | agent | agent-addr | "
     "agent-port | agent-send | check-addr | check-port | fqdn | health | ssl | state | weight\n\n"),
    ("set server px", "Require 'backend/server'.\n\n"),
    ("set server nob/s1 state maint", "No such backend.\n\n"),
    ("set server px/nos state maint", "No such server.\n\n"),
    ("set server px/s1 state foo",
     "'set server <srv> state' expects 'ready', 'drain' and 'maint'.\n\n"),
    ("set server px/s1 weight", "Require <weight> or <weight%>.\n\n"),
    ("set server px/s1 weight 300",
     "Absolute weight can only be between 0 and 256 inclusive.\n\n"),
    ("set server px/s1 weight -1",
     "Absolute weight can only be between 0 and 256 inclusive.\n\n"),
    ("set server px/s1 weight abc", "Empty weight string empty or preceded by garbage\n"),
    ("set server px/s1 weight 10x", "Trailing garbage in weight string\n"),
    ("set weight px/s1", "Require <weight> or <weight%>.\n\n"),
    ("set weight px", "Require 'backend/server'.\n\n"),
    ("get weight px/x", "No such server.\n\n"),
    ("get weight", "Require 'backend/server'.\n\n"),
    ("set server px/s1 health foo",
     "'set server <srv> health' expects 'up', 'stopping', or 'down'.\n\n"),
    ("set server px/s1 agent up", "agent checks are not enabled on this server.\n\n"),
    ("enable server px", "Require 'backend/server'.\n\n"),
    ("disable server px/zz", "No such server.\n\n"),
    ("enable health px/s1", "Health check was not configured on this server, cannot enable.\n\n"),
    ("enable agent px/s1", "Agent was not configured on this server, cannot enable.\n\n"),
    ("set server px/s1 addr",
     "set server <b>/<s> addr requires an address and optionally a port.\n\n"),
    ("set server px/s1 addr 1.2.3", "Invalid addr '1.2.3' by 'stats socket command'\n\n"),
    ("set server px/s1 addr 127.0.0.1:80",
     "Invalid addr '127.0.0.1:80' by 'stats socket command'\n\n"),
    ("set server px/s1 check-port", "set server <b>/<s> check-port requires a port.\n\n"),
    ("set server px/s1 check-port 99", "health checks are not enabled on this server\n"),
    ("set server px/s1 check-addr 1.2.3.4", "health checks are not enabled on this server\n"),
    ("set server px/s1 agent-addr 1.1.1.1", "agent checks are not enabled on this server\n"),
    ("set server px/s1 agent-port 5", "agent checks are not enabled on this server\n"),
    ("set server px/s1 agent-send hi", "agent checks are not enabled on this server.\n\n"),
    ("set maxconn server px/s1", "Require <maxconn>.\n\n"),
    ("set maxconn server px/s1 abc", "maxconn string empty or preceded by garbage\n"),
    ("set maxconn server px", "Require 'backend/server'.\n\n"),
    ("set maxconn frontend px", "Integer value expected.\n\n"),
    ("set maxconn frontend fx 1", "No such frontend.\n\n"),
    ("set maxconn frontend", "A frontend name is expected.\n\n"),
    ("set maxconn frontend px -1", "Value out of range.\n\n"),
    ("shutdown sessions server px", "Require 'backend/server'.\n\n"),
    ("enable frontend px", "All sockets are already enabled.\n\n"),
    ("disable frontend fx", "No such frontend.\n\n"),
    ("disable frontend", "A frontend name is expected.\n\n"),
    ("shutdown frontend fx", "No such frontend.\n\n"),
]


def test_bad_input_changes_nothing(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    proxy(cfg(port, sock, [s1, s2]), ports=[port])
    before = cli(sock, "show servers state px").splitlines()[2:]
    for cmd, want in BAD:
        assert cli(sock, cmd) == want, cmd
    after = cli(sock, "show servers state px").splitlines()[2:]
    strip = [line.split()[:9] for line in before]  # ids, names, addr, states, weights
    assert [line.split()[:9] for line in after] == strip
    assert set(hits(port, 10)) == {"s1", "s2"}
    # a line of garbage and a huge line: an error, the session and the proxy unharmed
    assert cli(sock, "set server \x01\x02\xff/\x00 state maint") == "Require 'backend/server'.\n\n"
    assert cli(sock, "set server \x01\x02\xff/s1 state maint") == "No such backend.\n\n"
    huge = "set server px/" + "s" * 100000 + " state maint"
    if IS_REF:
        with pytest.raises(OSError):  # over the line limit: 2.6 closes the session
            cli(sock, huge)
    else:  # an error line (doc/management.md), nothing run
        assert cli(sock, huge) == "Command line too long (16383 bytes max).\n\n"
    assert set(hits(port, 10)) == {"s1", "s2"}


def test_admin_commands_need_level_admin(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    proxy(cfg(port, sock, [s1, s2], level="operator"), ports=[port])
    assert cli(sock, "get weight px/s1") == "1 (initial 1)\n\n"
    for cmd in ("set server px/s1 state maint", "set weight px/s1 0", "disable server px/s1",
                "disable frontend px", "set maxconn server px/s1 1",
                "shutdown sessions server px/s1"):
        assert cli(sock, cmd) == "Permission denied\n\n", cmd
    assert set(hits(port, 10)) == {"s1", "s2"}


def test_health_forced_and_checks_paused(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    closed = free_port()
    p = proxy(cfg(port, sock, [s1, s2], srv_opts="check inter 100 rise 1 fall 1"),
              ports=[port])
    assert wait_for(lambda: stat_rows(sock)[("px", "s1")]["status"].startswith("UP"))
    # paused checks: an UP server shows "no check" (and a DOWN one DOWN, below)
    assert cli(sock, "disable health px/s1") == "\n"
    assert stat_rows(sock)[("px", "s1")]["status"] == "no check"
    assert cli(sock, "enable health px/s1") == "\n"
    assert stat_rows(sock)[("px", "s1")]["status"].startswith("UP")
    assert cli(sock, "set server px/s1 health down") == "\n"
    # (the next check, 100 ms later with rise 1, may already have brought it back up:
    # the state change itself is what the notice reports)
    assert "Server px/s1 is DOWN, changed from CLI. 1 active and 0 backup servers left." \
        in p.stderr()
    # the checks bring it back
    assert wait_for(lambda: stat_rows(sock)[("px", "s1")]["status"].startswith("UP"))
    # checks pointed at a closed port take it down; paused checks leave it there
    assert cli(sock, "set server px/s1 check-port %d" % closed) == "\n"
    assert wait_for(lambda: stat_rows(sock)[("px", "s1")]["status"].startswith("DOWN"))
    assert hits(port, 6) == {"s2": 6}
    assert cli(sock, "disable health px/s1") == "\n"
    assert stat_rows(sock)[("px", "s1")]["status"].startswith("DOWN")
    assert hits(port, 6) == {"s2": 6}
    assert cli(sock, "set server px/s1 check-port 99") == (
        "health checks are not enabled on this server\n")
    assert cli(sock, "enable health px/s1") == "\n"
    assert wait_for(lambda: stat_rows(sock)[("px", "s1")]["status"].startswith("DOWN"))
    assert cli(sock, "set server px/s1 check-port %d" % s1.port) == "\n"
    assert wait_for(lambda: stat_rows(sock)[("px", "s1")]["status"].startswith("UP"))


def test_agent_forced(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    agent = free_port()  # nothing answers: an unreachable agent changes nothing
    p = proxy(cfg(port, sock, [s1, s2],
                  srv_opts="agent-check agent-port %d agent-inter 100" % agent),
              ports=[port])
    assert cli(sock, "set server px/s1 agent foo") == (
        "'set server <srv> agent' expects 'up' or 'down'.\n\n")
    assert cli(sock, "set server px/s1 agent down") == "\n"
    assert wait_for(lambda: hits(port, 4) == {"s2": 4})
    assert "Server px/s1 is DOWN, changed from CLI." in p.stderr()
    assert cli(sock, "set server px/s1 agent up") == "\n"
    assert set(hits(port, 10)) == {"s1", "s2"}
    assert cli(sock, "set server px/s1 agent-port 77") == "\n"
    assert cli(sock, "set server px/s1 agent-addr 127.0.0.2 port 78") == "\n"
    assert cli(sock, "set server px/s1 agent-send hello") == "\n"
    assert cli(sock, "set server px/s1 agent-port 70000") == "provided port is invalid\n"
    assert cli(sock, "set server px/s1 agent-addr foo") == "invalid addr 'foo'\n"
    assert cli(sock, "disable agent px/s1") == "\n"
    assert cli(sock, "set server px/s1 agent up") == (
        "agent checks are not enabled on this server.\n\n")
    assert cli(sock, "enable agent px/s1") == "\n"


def test_set_addr_moves_new_connections(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    a, b = backends(2, names=["A", "B"])
    proxy(cfg(port, sock, [("s1", a.port)], glob=groups_glob()), ports=[port])
    assert hits(port, 6) == {"A": 6}
    assert cli(sock, "set server px/s1 addr 127.0.0.1 port %d" % b.port) == (
        "no need to change the addr, port changed from '%d' to '%d' by 'stats socket "
        "command'\n\n" % (a.port, b.port))
    assert hits(port, 20) == {"B": 20}
    assert stat_rows(sock)[("px", "s1")]["addr"] == "127.0.0.1:%d" % b.port
    assert srv_state(sock, "px", "s1")["srv_port"] == str(b.port)
    assert cli(sock, "set server px/s1 addr 127.0.0.1 port %d" % b.port) == (
        "no need to change the addr, no need to change the port by 'stats socket "
        "command'\n\n")
    assert cli(sock, "set server px/s1 addr 127.0.0.2") == (
        "IP changed from '127.0.0.1' to '127.0.0.2' by 'stats socket command'\n\n")
    assert cli(sock, "set server px/s1 addr 127.0.0.1 port abc") == (
        "IP changed from '127.0.0.2' to '127.0.0.1', problem converting port 'abc' to an "
        "int by 'stats socket command'\n\n")
    assert hits(port, 6) == {"B": 6}


def test_set_maxconn(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    proxy(cfg(port, sock, [s1, s2]), ports=[port])
    assert cli(sock, "set maxconn frontend px 100") == "\n"
    assert stat_rows(sock)[("px", "FRONTEND")]["slim"] == "100"
    assert cli(sock, "set maxconn server px/s1 1") == "\n"
    assert set(hits(port, 10)) == {"s1", "s2"}
    # with one slot taken on s1 by a slow request, new requests go to s2
    t = threading.Thread(target=httpc.get, args=(port, "/?delay=1.5"), daemon=True)
    t.start()
    time.sleep(0.3)
    assert hits(port, 4) == {"s2": 4}
    t.join(5)


def test_shutdown_sessions_server(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    (s1,) = backends(1)
    proxy(cfg(port, sock, [s1]), ports=[port])
    c = socket.create_connection(("127.0.0.1", port), timeout=5)
    c.sendall(b"GET /?delay=3 HTTP/1.1\r\nHost: t\r\n\r\n")
    time.sleep(0.4)
    t0 = time.monotonic()
    assert cli(sock, "shutdown sessions server px/s1") == "\n"
    r = httpc.read_response(Reader(c))  # killed: 502 at once, not the answer in 3 s
    c.close()
    assert r.status == 502
    assert time.monotonic() - t0 < 2.0


def refused(port):
    try:
        httpc.get(port, "/", timeout=1.0)
        return False
    except OSError:
        return True


def test_frontend_disable_enable_shutdown(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    (s1,) = backends(1)
    p = proxy(cfg(port, sock, [s1], glob=groups_glob()), ports=[port])
    assert cli(sock, "disable frontend px") == "\n"
    assert cli(sock, "disable frontend px") == "All sockets are already disabled.\n\n"
    assert refused(port)
    assert cli(sock, "enable frontend px") == "\n"
    assert wait_for(lambda: not refused(port))
    assert hits(port, 6) == {"s1": 6}
    assert cli(sock, "shutdown frontend px") == "\n"
    assert refused(port)
    assert cli(sock, "enable frontend px") == (
        "Frontend was previously shut down, cannot enable.\n\n")
    assert cli(sock, "disable frontend px") == (
        "Frontend was previously shut down, cannot disable.\n\n")
    err = p.stderr()
    assert "Paused proxy px." in err and "Resumed proxy px." in err
    assert "Proxy px stopped (cumulated conns: FE: " in err


@pytest.mark.ours
def test_help_lists_admin_commands(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    (s1,) = backends(1)
    proxy(cfg(port, sock, [s1]), ports=[port])
    h = cli(sock, "help")
    for line in ("  set server <bk>/<srv> [opts]            : change a server's state, weight, "
                 "address or ssl",
                 "  get weight <bk>/<srv>                   : report a server's current weight",
                 "  shutdown frontend <frontend>            : stop a specific frontend"):
        assert line in h


def set_cookies(port, n=2):
    """The Set-Cookie values of <n> requests (round robin over the servers)."""
    out = []
    for _ in range(n):
        r = httpc.get(port, "/")
        out += [v for k, v in r.headers if k.lower() == "set-cookie" and "Expires" not in v]
    return sorted(out)


def test_dynamic_cookie_key(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    text = cfg(port, sock, [s2], srv_opts="cookie fixed",
               listen=["cookie SRV insert dynamic", "dynamic-cookie-key abc",
                       "server s1 127.0.0.1:%d" % s1.port])
    proxy(text, ports=[port])
    first = set_cookies(port)
    assert "SRV=fixed; path=/" in first and len(first) == 2
    dyn = [c for c in first if "fixed" not in c][0]
    assert cli(sock, "set dynamic-cookie-key backend px xyz") == "\n"
    second = set_cookies(port)
    assert "SRV=fixed; path=/" in second and dyn not in second and len(second) == 2
    assert cli(sock, "disable dynamic-cookie backend px") == "\n"
    assert set_cookies(port) == ["SRV=fixed; path=/"]
    assert cli(sock, "enable dynamic-cookie backend px") == "\n"
    assert set_cookies(port) == second
    assert cli(sock, "set dynamic-cookie-key backend") == "A backend name is expected.\n\n"
    assert cli(sock, "set dynamic-cookie-key backend px") == "String value expected.\n\n"
    assert cli(sock, "enable dynamic-cookie backend nob") == "No such backend.\n\n"


def test_add_server_serves_on_every_group_and_del(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    p = proxy(cfg(port, sock, [s1], glob=groups_glob()), ports=[port])
    assert cli(sock, "add server px/s2 127.0.0.1:%d weight 3" % s2.port) == (
        "New server registered.\n\n")
    # 2.6: a new server starts in maintenance
    assert stat_rows(sock)[("px", "s2")]["status"] == "MAINT"
    assert srv_state(sock, "px", "s2")["srv_admin_state"] == "1"
    assert srv_state(sock, "px", "s2")["srv_id"] == "2"
    assert hits(port, 10) == {"s1": 10}
    assert cli(sock, "enable server px/s2") == "\n"
    c = hits(port, 40)
    assert c["s1"] + c["s2"] == 40 and 24 <= c["s2"] <= 36
    assert int(stat_rows(sock)[("px", "s2")]["stot"]) == c["s2"]
    assert "CLI : 'server px/s2' : New server registered." in p.stderr()
    # del: only in maintenance
    assert cli(sock, "del server px/s2") == "Only servers in maintenance mode can be deleted.\n"
    assert cli(sock, "disable server px/s2") == "\n"
    assert del_server(sock, "px/s2") == "Server deleted.\n"
    assert ("px", "s2") not in stat_rows(sock)
    assert cli(sock, "del server px/s2") == "No such server.\n"
    assert hits(port, 10) == {"s1": 10}
    # the name can be used again
    assert cli(sock, "add server px/s2 127.0.0.1:%d" % s2.port) == "New server registered.\n\n"
    assert cli(sock, "set server px/s2 state ready") == "\n"
    assert set(hits(port, 10)) == {"s1", "s2"}


ADD_BAD = [
    ("add server px", "Require 'backend/server'.\n"),
    ("add server px/", "Require 'backend/server'.\n"),
    ("add server /s9 127.0.0.1:1", "Require 'backend/server'.\n"),
    ("add server nob/s9 127.0.0.1:1", "No such backend.\n"),
    ("add server px/s1 127.0.0.1:1", "Already exists a server with the same name in backend.\n\n"),
    ("add server px/s9", "'server' expects <name> and <addr>[:<port>] as arguments.\n\n"),
    ("add server px/s9 127.0.0.1:1 cookie x",
     "'cookie' option is not accepted for dynamic server\n\n"),
    ("add server px/s9 127.0.0.1:1 redir http://x",
     "'redir' option is not accepted for dynamic server\n\n"),
    ("del server px", "Require 'backend/server'.\n"),
    ("del server nob/s1", "No such backend.\n"),
    ("del server px/s9", "No such server.\n"),
    ("del server px/s1", "Only servers in maintenance mode can be deleted.\n"),
]


def test_add_del_server_bad_input(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    text = cfg(port, sock, [s1], extra="backend st\n    balance static-rr\n"
               "    server a 127.0.0.1:%d\n" % s2.port)
    proxy(text, ports=[port])
    for cmd, want in ADD_BAD:
        assert cli(sock, cmd) == want, cmd
    assert cli(sock, "add server px/s9 127.0.0.1:1 weight 300").startswith("weight of server")
    assert cli(sock, "add server st/b 127.0.0.1:1") == (
        "Backend must use a dynamic load balancing to support dynamic servers.\n")
    assert cli(sock, "add server px/s9 127.0.0.1:1 id 1").startswith(
        "'id' : custom id 1 already used at ")
    assert [k for k in stat_rows(sock) if k[0] == "px"] == [("px", "FRONTEND"), ("px", "s1"),
                                                            ("px", "BACKEND")]
    assert hits(port, 6) == {"s1": 6}


@pytest.mark.parametrize("algo", ["first", "uri consistent"])
def test_add_server_other_algorithms(proxy, backends, tmp_path, algo):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    listen = ["balance %s" % algo.split()[0]]
    if "consistent" in algo:
        listen.append("hash-type consistent sdbm avalanche")
    proxy(cfg(port, sock, [s1], listen=listen, glob=groups_glob()), ports=[port])
    assert cli(sock, "add server px/s2 127.0.0.1:%d" % s2.port) == "New server registered.\n\n"
    assert cli(sock, "enable server px/s2") == "\n"
    if algo == "first":
        assert hits(port, 6) == {"s1": 6}
        assert cli(sock, "disable server px/s1") == "\n"
        assert hits(port, 6) == {"s2": 6}
    else:
        c = collections.Counter()
        for i in range(30):
            c[httpc.get(port, "/k%d" % i).header("X-Server")] += 1
        assert c["s1"] > 0 and c["s2"] > 0 and c["s1"] + c["s2"] == 30
    assert cli(sock, "disable server px/s2") == "\n"
    assert del_server(sock, "px/s2") == "Server deleted.\n"


def load_thread(port, statuses, stop, n=3000):
    """Requests on new connections until <stop> (at most <n>), statuses counted."""
    def run():
        for _ in range(n):
            if stop.is_set():
                return
            r = httpc.get(port, "/")
            statuses[r.header("X-Server") if r.status == 200 else r.status] += 1
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("algo", ["leastconn", "random", "random(3)"])
def test_add_del_server_leastconn_random_under_load(proxy, backends, tmp_path, algo):
    """add + enable a server while two threads (two groups) serve traffic: it gets its
    share; then disable + del under load: no request fails, the others go on."""
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2, s3 = backends(3)
    proxy(cfg(port, sock, [s1, s2], listen=["balance %s" % algo], glob=groups_glob()),
          ports=[port])
    statuses, stop = collections.Counter(), threading.Event()
    t = load_thread(port, statuses, stop)
    try:
        assert wait_for(lambda: sum(statuses.values()) >= 20, 10)
        assert cli(sock, "add server px/s3 127.0.0.1:%d" % s3.port) == (
            "New server registered.\n\n")
        assert stat_rows(sock)[("px", "s3")]["status"] == "MAINT"
        assert cli(sock, "enable server px/s3") == "\n"
        assert wait_for(lambda: statuses["s3"] >= 20, 15), statuses
        assert cli(sock, "disable server px/s3") == "\n"
        deadline = time.monotonic() + 10
        while True:  # a request may still hold it for a moment
            out = cli(sock, "del server px/s3")
            if out != "Server still has connections attached to it, cannot remove it.\n":
                break
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert out == "Server deleted.\n"
        n = sum(statuses.values())
        assert wait_for(lambda: sum(statuses.values()) >= n + 20, 10)
    finally:
        stop.set()
        t.join(30)
    assert set(statuses) <= {"s1", "s2", "s3"}, statuses
    assert statuses["s1"] > 0 and statuses["s2"] > 0
    assert ("px", "s3") not in stat_rows(sock)
    # the slot of a deleted server can be taken again
    assert cli(sock, "add server px/s3 127.0.0.1:%d" % s3.port) == (
        "New server registered.\n\n")
    assert cli(sock, "enable server px/s3") == "\n"
    assert set(hits(port, 30)) == {"s1", "s2", "s3"}


def test_add_server_with_check_goes_down_when_its_port_closes(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    proxy(cfg(port, sock, [s1], listen=["balance leastconn"], glob=groups_glob()),
          ports=[port])
    assert cli(sock, "add server px/s2 127.0.0.1:%d check inter 200 rise 1 fall 1"
               % s2.port) == "New server registered.\n\n"
    assert stat_rows(sock)[("px", "s2")]["status"] == "MAINT"
    assert cli(sock, "enable server px/s2") == "\n"
    # 2.6: a dynamic server's check waits for "enable health"
    assert stat_rows(sock)[("px", "s2")]["status"] == "no check"
    assert cli(sock, "enable health px/s2") == "\n"
    assert wait_for(lambda: stat_rows(sock)[("px", "s2")]["check_status"] == "L4OK", 5)
    assert stat_rows(sock)[("px", "s2")]["status"] == "UP"
    assert set(hits(port, 10)) == {"s1", "s2"}
    s2.stop()
    assert wait_for(lambda: stat_rows(sock)[("px", "s2")]["status"] == "DOWN", 5)
    assert stat_rows(sock)[("px", "s2")]["check_status"] == "L4CON"
    assert hits(port, 6) == {"s1": 6}
    assert cli(sock, "disable server px/s2") == "\n"
    assert cli(sock, "del server px/s2") == "Server deleted.\n"
    assert ("px", "s2") not in stat_rows(sock)
    assert hits(port, 4) == {"s1": 4}


def test_add_server_agent_check(proxy, backends, tmp_path):
    """An agent answering "50%": enabled, it halves the dynamic server's weight."""
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    agent = socket.socket()
    agent.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    agent.bind(("127.0.0.1", 0))
    agent.listen(16)
    agent.settimeout(0.2)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                c, _ = agent.accept()
            except OSError:
                continue
            with c:
                c.sendall(b"50%\n")
    th = threading.Thread(target=serve, daemon=True)
    th.start()
    try:
        proxy(cfg(port, sock, [s1], glob=groups_glob()), ports=[port])
        assert cli(sock, "add server px/s2 127.0.0.1:%d weight 10 agent-check agent-port %d "
                   "agent-inter 200" % (s2.port, agent.getsockname()[1])) == (
            "New server registered.\n\n")
        assert cli(sock, "enable server px/s2") == "\n"
        assert cli(sock, "enable agent px/s2") == "\n"
        assert wait_for(lambda: stat_rows(sock)[("px", "s2")]["weight"] == "5", 5)
        assert cli(sock, "disable server px/s2") == "\n"
        assert cli(sock, "del server px/s2") == "Server deleted.\n"
    finally:
        stop.set()
        th.join(5)
        agent.close()


@pytest.mark.ours
def test_add_server_track_not_supported_yet(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    proxy(cfg(port, sock, [s1], srv_opts="check"), ports=[port])
    assert cli(sock, "add server px/s2 127.0.0.1:%d track s1" % s2.port) == (
        "'track' is not supported yet on a dynamic server.\n\n")


def test_add_server_check_needs_a_port(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, _ = backends(2)
    proxy(cfg(port, sock, [s1]), ports=[port])
    assert cli(sock, "add server px/s9 127.0.0.1 check") == (
        "config: proxy 'px': server 's9' has neither service port nor check port nor "
        "tcp_check rule 'connect' with port information.\n\n")
    assert ("px", "s9") not in stat_rows(sock)


def test_dynamic_cookie_follows_set_addr(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    a, b = backends(2, names=["A", "B"])
    text = cfg(port, sock, [("s1", a.port)],
               listen=["cookie SRV insert dynamic", "dynamic-cookie-key abc"])
    proxy(text, ports=[port])
    before = set_cookies(port, 1)
    assert len(before) == 1
    assert cli(sock, "set server px/s1 addr 127.0.0.1 port %d" % b.port).startswith(
        "no need to change the addr, port changed")
    assert hits(port, 2) == {"B": 2}
    moved = set_cookies(port, 1)
    assert len(moved) == 1 and moved != before
    assert cli(sock, "set server px/s1 addr 127.0.0.1 port %d" % a.port).startswith(
        "no need to change the addr, port changed")
    assert set_cookies(port, 1) == before


def test_changes_under_load_never_fail_a_request(proxy, backends, tmp_path):
    """Weights, drain, maintenance, add and del of a server while two threads in two groups
    serve traffic: every request gets a 200 (s2 always serves), then the farm is whole."""
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2, s3 = backends(3)
    proxy(cfg(port, sock, [s1, s2], glob=groups_glob()), ports=[port])
    statuses = collections.Counter()
    stop = threading.Event()

    def load():
        for _ in range(2000):
            if stop.is_set():
                return
            statuses[httpc.get(port, "/").status] += 1

    t = threading.Thread(target=load, daemon=True)
    t.start()
    for i in range(20):
        for cmd in ("set server px/s1 weight %d" % (i % 4), "set server px/s1 state drain",
                    "set server px/s1 state maint", "set server px/s1 state ready",
                    "add server px/s3 127.0.0.1:%d" % s3.port, "enable server px/s3",
                    "disable server px/s3", "del server px/s3"):
            cli(sock, cmd)
    deadline = time.monotonic() + 10  # the load ran along: at least 20 requests (bounded)
    while sum(statuses.values()) < 20 and t.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    t.join(20)
    assert sum(statuses.values()) >= 20 and set(statuses) == {200}, statuses
    assert cli(sock, "set server px/s1 weight 1") == "\n"
    assert set(hits(port, 10)) == {"s1", "s2"}


def test_del_server_named_by_a_rule_is_refused(proxy, backends, tmp_path):
    """A server a use-server rule names stays: 2.6's answer, and it keeps serving its rule."""
    port, sock = free_port(), str(tmp_path / "s.sock")
    s1, s2 = backends(2)
    proxy(cfg(port, sock, [s1, s2], listen=["use-server s2 if { path_beg /s2 }"]), ports=[port])
    assert cli(sock, "disable server px/s2") == "\n"
    assert cli(sock, "del server px/s2") == ("This server cannot be removed at runtime due to "
                                             "other configuration elements pointing to it.\n")
    assert "px,s2," in cli(sock, "show stat")
    assert cli(sock, "disable server px/s1") == "\n"
    assert del_server(sock, "px/s1") == "Server deleted.\n"
