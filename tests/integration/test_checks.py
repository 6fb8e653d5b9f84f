"""Health checks against real servers on loopback: a killed server goes DOWN within
inter x fall and gets no request after that, comes back UP after rise; HTTP checks with an
expected status (nginx), garbage and never-ending answers are failed checks; a backend with
every server down answers 503 at once. The stderr notices are HAProxy 2.6's wording, so the
file also runs against Debian's haproxy (HAPROXY_BIN=/usr/sbin/haproxy).

Every wait is a bounded poll; every process is stopped by its PID by the fixtures.
"""

import re
import socket
import time

import httpc
import pytest
from backend import Backend
from conftest import IS_REF, cli, free_port, make_cfg

INTER = 200  # ms


def wait_for(pred, timeout, step=0.02):
    """Poll pred() until it is true or <timeout> seconds pass; returns the time it took or
    None."""
    t0 = time.monotonic()
    for _ in range(int(timeout / step) + 1):
        if pred():
            return time.monotonic() - t0
        time.sleep(step)
    return None


def notices(px, what):
    return re.findall(r"Server px/(\S+) is %s, reason: ([^\n]*)" % what, px.stderr())


def test_killed_server_down_then_up(proxy, port):
    s1 = Backend("s1").start()
    s2 = Backend("s2").start()
    try:
        cfg = make_cfg(port, [s1, s2], srv_opts="check inter %d fall 2 rise 2" % INTER)
        px = proxy(cfg, [port])
        time.sleep(3 * INTER / 1000)
        assert notices(px, "DOWN") == []
        seen = {httpc.get(port).header("X-Server") for _ in range(10)}
        assert seen == {"s1", "s2"}
        s2_port = s2.port
        s2.stop()
        t = wait_for(lambda: notices(px, "DOWN"), (INTER * 2 + 1500) / 1000)
        assert t is not None, px.stderr()
        name, why = notices(px, "DOWN")[0]
        assert name == "s2"
        assert why.startswith('Layer4 connection problem, info: "Connection refused", '
                              'check duration: ')
        assert "1 active and 0 backup servers left. 0 sessions active, 0 requeued, " \
               "0 remaining in queue." in why
        for _ in range(20):
            r = httpc.get(port)
            assert r.status == 200 and r.header("X-Server") == "s1"
        s2 = Backend("s2", port=s2_port).start()
        t = wait_for(lambda: notices(px, "UP"), (INTER * 2 + 1500) / 1000)
        assert t is not None, px.stderr()
        name, why = notices(px, "UP")[0]
        assert name == "s2"
        assert why.startswith("Layer4 check passed, check duration: ")
        assert why.endswith("2 active and 0 backup servers online. 0 sessions requeued, "
                            "0 total in queue.")
        seen = {httpc.get(port).header("X-Server") for _ in range(10)}
        assert seen == {"s1", "s2"}
    finally:
        s1.stop()
        s2.stop()


def test_dead_at_start_is_down_after_one_check(proxy, port):
    """Servers start UP one failure away from DOWN, as in HAProxy 2.6."""
    s1 = Backend("s1").start()
    try:
        dead = ("s2", free_port())
        cfg = make_cfg(port, [s1, dead], srv_opts="check inter %d fall 3 rise 2" % INTER)
        px = proxy(cfg, [port])
        t = wait_for(lambda: notices(px, "DOWN"), (INTER + 1000) / 1000)
        assert t is not None, px.stderr()
        assert [n for n, _ in notices(px, "DOWN")] == ["s2"]
        assert {httpc.get(port).header("X-Server") for _ in range(6)} == {"s1"}
    finally:
        s1.stop()


def test_httpchk_expected_status_nginx(proxy, port, nginx):
    ngx_port, _ = nginx()
    cfg = make_cfg(port, [("ok", ngx_port)], srv_opts="check inter %d rise 1 fall 1" % INTER,
                   listen=["option httpchk GET /hello", "http-check expect status 200"],
                   extra="backend bad\n    option httpchk GET /hello\n"
                   "    http-check expect status 201-204\n"
                   "    server ko 127.0.0.1:%d check inter %d\n" % (ngx_port, INTER))
    px = proxy(cfg, [port])
    t = wait_for(lambda: "Server bad/ko is DOWN" in px.stderr(), (INTER + 1500) / 1000)
    assert t is not None, px.stderr()
    assert ("Server bad/ko is DOWN, reason: Layer7 wrong status, code: 200, info: \"OK\", "
            "check duration: ") in px.stderr()
    time.sleep(3 * INTER / 1000)
    assert "px/ok" not in px.stderr()
    r = httpc.get(port, "/hello")
    assert r.status == 200 and r.body == b"hello from nginx\n"


def test_httpchk_garbage_and_endless_are_down(proxy, port, raw_server):
    def garbage(sock, rd, idx):
        rd.readline()
        sock.sendall(b"garbage here\r\n\r\n")

    def endless(sock, rd, idx):
        rd.readline()
        sock.sendall(b"HTTP/1.1 200 OK\r\nX-A: " + b"a" * 100)
        time.sleep(3)

    def huge(sock, rd, idx):
        rd.readline()
        try:
            sock.sendall(b"HTTP/1.1 200 OK\r\n" + b"X-Long: " + b"b" * 200000)
        except OSError:
            pass

    g, e, h = raw_server(garbage, "g"), raw_server(endless, "e"), raw_server(huge, "h")
    cfg = make_cfg(port, [("g", g.port), ("e", e.port), ("h", h.port)],
                   srv_opts="check inter %d" % INTER,
                   listen=["option httpchk GET /", "http-check expect string never",
                           "timeout check 300"])
    px = proxy(cfg, [port])
    t = wait_for(lambda: len(notices(px, "DOWN")) == 3, (INTER + 300 + 2000) / 1000)
    assert t is not None, px.stderr()
    why = dict(notices(px, "DOWN"))
    assert why["g"].startswith("Layer7 invalid response")
    assert why["e"].startswith("Layer7 timeout")
    assert px.alive()
    r = httpc.get(port)
    assert r.status == 503


def test_all_down_answers_503_at_once(proxy, port):
    dead = [("d1", free_port()), ("d2", free_port())]
    cfg = make_cfg(port, dead, srv_opts="check inter %d" % INTER)
    px = proxy(cfg, [port])
    t = wait_for(lambda: "proxy 'px' has no server available!" in px.stderr(),
                 (INTER + 1500) / 1000)
    assert t is not None, px.stderr()
    t0 = time.monotonic()
    r = httpc.get(port)
    assert r.status == 503
    assert time.monotonic() - t0 < 0.5


@pytest.mark.ours
def test_show_stat_check_fields(proxy, port, tmp_path):
    """hapx fills status, check_status, chkfail, chkdown, lastchg and downtime."""
    s1 = Backend("s1").start()
    sock = str(tmp_path / "s.sock")
    try:
        dead = ("s2", free_port())
        cfg = make_cfg(port, [s1, dead], glob=["stats socket %s level admin" % sock],
                       srv_opts="check inter %d" % INTER)
        px = proxy(cfg, [port])
        assert wait_for(lambda: notices(px, "DOWN"), 2.0) is not None
        assert wait_for(lambda: "L4OK" in cli(sock, "show stat"), 2.0) is not None
        rows = [x.split(",") for x in cli(sock, "show stat").splitlines()]
        head = rows[0]
        head[0] = head[0].lstrip("# ")
        col = {n: i for i, n in enumerate(head)}
        srv = {r[1]: r for r in rows[1:] if len(r) > 3}
        assert srv["s1"][col["status"]] == "UP"
        assert srv["s1"][col["check_status"]] == "L4OK"
        assert srv["s2"][col["status"]] == "DOWN"
        assert srv["s2"][col["check_status"]] == "L4CON"
        assert int(srv["s2"][col["chkfail"]]) >= 1
        assert srv["s2"][col["chkdown"]] == "1"
        assert int(srv["s2"][col["lastchg"]]) <= 2
    finally:
        s1.stop()


def test_check_refused_kinds(tmp_path):
    from conftest import run_haproxy
    cfg = tmp_path / "c.cfg"
    for line in ("option spop-check",):  # the other kinds: test_tcpchk.py
        cfg.write_text("defaults\n  mode http\n  timeout client 1s\n  timeout server 1s\n"
                       "  timeout connect 1s\nbackend be\n  %s\n"
                       "  server s 127.0.0.1:1 check\n" % line)
        r = run_haproxy(["-c", "-f", str(cfg)])
        if IS_REF:
            continue  # HAProxy supports them
        assert r.returncode != 0
        assert "c.cfg:7] : 'option %s' is not supported yet" % line.split()[1] in r.stderr


def test_rise_zero_is_an_error(tmp_path):
    from conftest import run_haproxy
    cfg = tmp_path / "c.cfg"
    cfg.write_text("defaults\n  mode http\n  timeout client 1s\n  timeout server 1s\n"
                   "  timeout connect 1s\nbackend be\n  server s 127.0.0.1:1 check rise 0\n")
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    assert "c.cfg:7]" in r.stderr


@pytest.mark.parametrize("balance", ["source", "uri", "uri\n    hash-type consistent crc32",
                                     "leastconn", "random(2)", "first"])
def test_down_server_skipped_by_every_algorithm(proxy, port, balance):
    """Whatever the algorithm, a DOWN server gets no request; the hashing ones send its
    keys elsewhere, and cookie persistence to it gives way too."""
    s1 = Backend("s1").start()
    s2 = Backend("s2").start()
    try:
        cfg = make_cfg(port, [s1, s2], listen=["balance " + balance, "cookie SRV insert"],
                       srv_opts="check inter %d fall 1 rise 1" % INTER)
        cfg = cfg.replace("127.0.0.1:%d check" % s1.port, "127.0.0.1:%d cookie A check"
                          % s1.port).replace("127.0.0.1:%d check" % s2.port,
                                             "127.0.0.1:%d cookie B check" % s2.port)
        px = proxy(cfg, [port])
        s2.stop()
        assert wait_for(lambda: notices(px, "DOWN"), (INTER * 2 + 1500) / 1000) is not None
        for i in range(12):
            r = httpc.get(port, "/k%d" % i, headers=[("Cookie", "SRV=B")])
            assert r.status == 200 and r.header("X-Server") == "s1", (i, r)
    finally:
        s1.stop()
        s2.stop()
