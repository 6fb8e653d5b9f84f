"""Connection limits: global / frontend / bind maxconn and -N.

Owns: what a client sees beyond a limit (its connection waits in the kernel backlog, is not
refused, and is served once another closes) and that the process survives a burst above
the limit.
"""

import threading
import time

import httpc
import pytest
from backend import Reader
from conftest import make_cfg

GET_KA = b"GET / HTTP/1.1\r\nHost: t\r\n\r\n"


def hold(port, n):
    """Open n keep-alive connections that each completed one request; return them."""
    socks = []
    for _ in range(n):
        s = httpc.connect(port, timeout=5)
        s.sendall(GET_KA)
        assert httpc.read_response(Reader(s)).status == 200
        socks.append(s)
    return socks


@pytest.mark.parametrize("where", ["global", "frontend", "bind", "cmdline"])
def test_maxconn_waits_then_serves(proxy, backend, port, where):
    glob, listen, args, bindopt = [], [], [], ""
    if where == "global":
        glob = ["maxconn 2"]
    elif where == "frontend":
        listen = ["maxconn 2"]
    elif where == "bind":
        bindopt = " maxconn 2"
    else:
        args = ["-N", "2"]
    cfg = make_cfg(port, [backend], glob=glob, listen=listen,
                   defaults=["timeout http-keep-alive 30s"])
    if bindopt:
        cfg = cfg.replace("bind 127.0.0.1:%d" % port, "bind 127.0.0.1:%d%s" % (port, bindopt))
    p = proxy(cfg, ports=[port], args=args)
    time.sleep(0.3)                           # let the readiness probe's connection go away
    held = hold(port, 2)
    try:
        third = httpc.connect(port, timeout=5)  # accepted by the kernel, not refused
        with third:
            third.sendall(GET_KA)
            data, closed = httpc.recv_until_close(third, 1.0)
            assert data == b"" and not closed, "third connection served beyond maxconn 2"
            held.pop().close()
            third.settimeout(5)
            r = httpc.read_response(Reader(third))
            assert r.status == 200
            assert r.body == b"hello from s1\n"
    finally:
        for s in held:
            s.close()
    assert p.alive()


def test_burst_above_limit_all_served(proxy, backend, port):
    p = proxy(make_cfg(port, [backend], glob=["maxconn 10"]), ports=[port])
    results = []
    lock = threading.Lock()

    def worker():
        try:
            r = httpc.get(port, "/?delay=0.05", timeout=20)
            st = r.status
        except OSError as e:
            st = repr(e)
        with lock:
            results.append(st)

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(100)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert results.count(200) == 100, results
    assert p.alive()
    assert httpc.get(port).status == 200


def test_server_maxconn_limits_concurrency(proxy, backend, port):
    proxy(make_cfg(port, [backend], srv_opts="maxconn 2",
                   defaults=["timeout queue 20s"]), ports=[port])
    active, peak, lock = [0], [0], threading.Lock()
    results = []
    orig = backend._respond

    def counting(s, req):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.1)
        with lock:                 # before answering: the proxy cannot free the slot sooner
            active[0] -= 1
        return orig(s, req)

    backend._respond = counting

    def worker():
        results.append(httpc.get(port, timeout=20).status)

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert results == [200] * 12
    assert peak[0] <= 2
