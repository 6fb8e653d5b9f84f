"""Server slots and queues: `maxconn` with many waiting clients (FIFO, never two at once at
a `maxconn 1` server), `maxqueue` (a full queue of the server a key hashes to answers 503
at once), `timeout queue` (503), `minconn` + `fullconn` (the dynamic maxconn), and the
idle pool settings (`pool-max-conn`, `pool-purge-delay`, tune.idle-pool.*).
"""

import threading
import time

from conftest import free_port, make_cfg, run_haproxy
from httpc import get


def concurrent(port, n, path, spacing=0.0, timeout=20):
    res = [None] * n

    def one(i):
        t = time.time()
        try:
            r = get(port, path, timeout=timeout)
            res[i] = (r.status, r.header("x-server"), time.time() - t)
        except Exception as e:  # noqa: BLE001 - reported in the assertion
            res[i] = ("exc", repr(e), time.time() - t)
    ts = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
        if spacing:
            time.sleep(spacing)
    for t in ts:
        t.join(timeout + 5)
    return res


def test_maxconn_1_fifty_concurrent(proxy, backends):
    (b,) = backends(1)
    port = free_port()
    proxy(make_cfg(port, [b], listen=["timeout queue 30s"], srv_opts="maxconn 1"), ports=[port])
    res = concurrent(port, 50, "/?delay=0.02")
    assert all(r[0] == 200 for r in res), res
    assert b.max_concurrency() == 1
    assert len(b.requests) == 50


def test_timeout_queue_503(proxy, backends):
    (b,) = backends(1)
    port = free_port()
    proxy(make_cfg(port, [b], listen=["timeout queue 300ms"], srv_opts="maxconn 1"),
          ports=[port])
    res = concurrent(port, 3, "/?delay=1", spacing=0.05)
    st = sorted(r[0] for r in res)
    assert st == [200, 503, 503], res
    assert all(r[2] < 0.9 for r in res if r[0] == 503), res


def test_maxqueue_full_503_at_once(proxy, backends):
    bs = backends(2)
    port = free_port()
    proxy(make_cfg(port, bs, listen=["balance source", "timeout queue 10s"],
                   srv_opts="maxconn 1 maxqueue 2"), ports=[port])
    res = concurrent(port, 6, "/?delay=1", spacing=0.05)
    ok = [r for r in res if r[0] == 200]
    full = [r for r in res if r[0] == 503]
    assert len(ok) == 3 and len(full) == 3, res
    assert len({r[1] for r in ok}) == 1  # one client address: one server
    assert all(r[2] < 0.5 for r in full), res  # no wait for a full queue


def test_maxqueue_roundrobin_waits(proxy, backends):
    """Without a hashed server, extra streams wait for any server (HAProxy's backend
    queue has no limit)."""
    (b,) = backends(1)
    port = free_port()
    proxy(make_cfg(port, [b], listen=["timeout queue 10s"], srv_opts="maxconn 1 maxqueue 1"),
          ports=[port])
    res = concurrent(port, 4, "/?delay=0.2", spacing=0.02)
    assert all(r[0] == 200 for r in res), res


def test_minconn_fullconn_dynamic_limit(proxy, backends):
    (b,) = backends(1)
    port = free_port()
    proxy(make_cfg(port, [b], listen=["fullconn 100", "timeout queue 20s"],
                   srv_opts="maxconn 10 minconn 2"), ports=[port])
    res = concurrent(port, 6, "/?delay=0.4", spacing=0.02)
    assert all(r[0] == 200 for r in res), res
    assert b.max_concurrency() == 2  # 6 streams of 100: the floor, minconn


def test_fullconn_reached_gives_maxconn(proxy, backends):
    (b,) = backends(1)
    port = free_port()
    proxy(make_cfg(port, [b], listen=["fullconn 4", "timeout queue 20s"],
                   srv_opts="maxconn 10 minconn 1"), ports=[port])
    res = concurrent(port, 6, "/?delay=0.5", spacing=0.03)
    assert all(r[0] == 200 for r in res), res
    assert b.max_concurrency() >= 5


def conn_ids(port, n, pause=0.0):
    ids = []
    for _ in range(n):
        r = get(port, "/")
        assert r.status == 200
        ids.append(r.header("x-conn"))
        time.sleep(pause)
    return ids


def test_pool_max_conn_0_no_reuse(proxy, backends):
    (b,) = backends(1)
    port = free_port()
    proxy(make_cfg(port, [b], listen=["http-reuse always"], srv_opts="pool-max-conn 0"),
          ports=[port])
    ids = conn_ids(port, 3)
    assert len(set(ids)) == 3, ids


def test_pool_default_reuses(proxy, backends):
    (b,) = backends(1)
    port = free_port()
    proxy(make_cfg(port, [b], listen=["http-reuse always"], srv_opts="pool-max-conn -1"),
          ports=[port])
    ids = conn_ids(port, 4, pause=0.1)
    assert len(set(ids)) <= 2, ids  # idle connections are reused


def cfg_check(tmp_path, glob="", srv="", be=""):
    p = tmp_path / "t.cfg"
    p.write_text("global\n %s\ndefaults\n mode http\n timeout client 1s\n timeout server 1s\n"
                 " timeout connect 1s\nbackend b\n %s\n server s1 127.0.0.1:1 %s\n"
                 "frontend f\n bind 127.0.0.1:%d\n fullconn 3\n default_backend b\n"
                 % (glob, be, srv, free_port()))
    r = run_haproxy(["-c", "-f", str(p)])
    return r.returncode, r.stdout + r.stderr


def test_config(tmp_path):
    rc, out = cfg_check(tmp_path, be="fullconn 50")
    assert rc == 0, out
    assert ("t.cfg:13] : 'fullconn' ignored because frontend 'f' has no backend capability. "
            "Maybe you want 'maxconn' instead ?") in out
    rc, out = cfg_check(tmp_path, srv="maxqueue 10 minconn 5 maxconn 20 pool-max-conn 5 "
                        "pool-low-conn 2 pool-purge-delay 2s")
    assert rc == 0, out
    rc, out = cfg_check(tmp_path, glob="tune.idle-pool.shared off\n tune.pool-low-fd-ratio 10\n"
                        " tune.pool-high-fd-ratio 30")
    assert rc == 0, out
    rc, out = cfg_check(tmp_path, srv="pool-max-conn -2")
    assert rc != 0 and "'server b/s1' : 'pool-max-conn' must be >= -1." in out
    rc, out = cfg_check(tmp_path, glob="tune.idle-pool.shared maybe")
    assert rc != 0 and "t.cfg:2] : 'tune.idle-pool.shared' expects either 'on' or 'off' " \
        "but got 'maybe'." in out
    rc, out = cfg_check(tmp_path, glob="tune.pool-low-fd-ratio 101")
    assert rc != 0 and "t.cfg:2] : 'tune.pool-low-fd-ratio' expects an integer argument " \
        "between 0 and 100." in out


def test_pool_purge_delay(proxy, backends):
    (b,) = backends(1)
    port = free_port()
    proxy(make_cfg(port, [b], listen=["http-reuse always"], srv_opts="pool-purge-delay 100ms"),
          ports=[port])
    ids = conn_ids(port, 2, pause=1.0)
    assert ids[0] != ids[1], ids  # the idle connection was closed in between
