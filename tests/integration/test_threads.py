"""Threads and thread groups (issue 3): traffic with several thread and group counts, one
listening socket per group for every bind, cpu-map bindings, per-thread service counters
and per-group counters that add up, and a queue shared by several groups.
"""

import concurrent.futures
import os
import re
import socket
import subprocess
import time

import pytest

import httpc
from conftest import IS_REF, free_port, make_cfg

pytestmark = pytest.mark.ours


def cli(path, cmd, timeout=5.0):
    """One command on the stats socket at <path>; returns the whole answer."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(path)
        s.sendall(cmd.encode() + b"\n")
        data = b""
        while True:
            d = s.recv(65536)
            if not d:
                break
            data += d
    return data.decode()


def activity_values(text, name):
    """Per-thread values of counter <name> in `show activity` ("name: T [ a b ... ]")."""
    m = re.search(r"^%s:\s*\d+\s*\[([^\]]*)\]" % re.escape(name), text, re.M)
    assert m, "no %r line in show activity:\n%s" % (name, text)
    return [int(x) for x in m.group(1).split()]


def stat_rows(text):
    lines = text.strip().splitlines()
    head = lines[0].lstrip("# ").split(",")
    return [dict(zip(head, ln.split(","))) for ln in lines[1:] if ln]


def threads_cfg(port, backend, nbthread, groups=0, extra_glob=(), sock=None, listen=()):
    glob = ["nbthread %d" % nbthread] + list(extra_glob)
    if groups:
        glob.append("thread-groups %d" % groups)
    if sock:
        glob.append("stats socket %s mode 600 level admin" % sock)
    return make_cfg(port, [backend], glob=glob, listen=list(listen))


def run_clients(port, nconn, nreq):
    """<nconn> concurrent keep-alive clients sending <nreq> requests each; returns the
    statuses."""
    def one(_):
        out = []
        with httpc.connect(port) as s:
            rd = httpc.Reader(s)
            for i in range(nreq):
                s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
                out.append(httpc.read_response(rd).status)
        return out

    with concurrent.futures.ThreadPoolExecutor(max_workers=nconn) as ex:
        return [st for res in ex.map(one, range(nconn)) for st in res]


def listening_sockets(port):
    out = subprocess.run(["ss", "-Hltn", "sport = :%d" % port], capture_output=True,
                         text=True, timeout=10).stdout
    return len([ln for ln in out.splitlines() if ln.strip()])


@pytest.mark.parametrize("nbthread,groups", [(1, 0), (2, 0), (4, 0), (32, 0), (4, 1),
                                             (4, 2), (4, 4), (32, 4)])
def test_traffic_and_sockets_per_group(proxy, backend, port, nbthread, groups):
    p = proxy(threads_cfg(port, backend, nbthread, groups), ports=[port])
    statuses = run_clients(port, 16, 20)
    assert statuses == [200] * 320
    # one listening socket per thread group for the bind (by-group shards)
    expect = groups or (nbthread + 15) // 16
    assert listening_sockets(port) == expect
    ntasks = len(os.listdir("/proc/%d/task" % p.pid))
    assert ntasks == nbthread


def test_shards_by_thread(proxy, backend, port):
    cfg = threads_cfg(port, backend, 4, 2).replace(
        "bind 127.0.0.1:%d" % port, "bind 127.0.0.1:%d shards by-thread" % port)
    proxy(cfg, ports=[port])
    assert listening_sockets(port) == 4
    assert run_clients(port, 8, 5) == [200] * 40


def test_bind_thread_restricts_to_group(proxy, backend, port, tmp_path):
    sock = str(tmp_path / "stats.sock")
    cfg = threads_cfg(port, backend, 4, 2, sock=sock).replace(
        "bind 127.0.0.1:%d" % port, "bind 127.0.0.1:%d thread 2/all" % port)
    proxy(cfg, ports=[port])
    assert listening_sockets(port) == 1
    before = activity_values(cli(sock, "show activity"), "conns_served")
    assert run_clients(port, 8, 10) == [200] * 80
    after = activity_values(cli(sock, "show activity"), "conns_served")
    served = [a - b for a, b in zip(after, before)]
    assert served[0] == 0 and served[1] == 0     # group 1: threads 1-2
    assert served[2] + served[3] == 8            # group 2: threads 3-4


def test_every_thread_serves_connections(proxy, backend, port, tmp_path):
    sock = str(tmp_path / "stats.sock")
    p = proxy(threads_cfg(port, backend, 4, sock=sock), ports=[port])
    before = activity_values(cli(sock, "show activity"), "conns_served")
    # concurrent connections: the least loaded thread of the group takes each one
    assert run_clients(port, 32, 10) == [200] * 320
    after = activity_values(cli(sock, "show activity"), "conns_served")
    served = [a - b for a, b in zip(after, before)]
    assert len(served) == 4
    assert sum(served) == 32
    assert all(n > 0 for n in served), served
    assert p.alive()


def test_counters_add_up_across_groups(proxy, backend, port, tmp_path):
    sock = str(tmp_path / "stats.sock")
    proxy(threads_cfg(port, backend, 4, 4, sock=sock), ports=[port])
    n_conn, n_req = 24, 25
    for _ in range(100):  # the readiness probe's connection, once accepted and counted
        rows0 = {(r["pxname"], r["svname"]): r for r in stat_rows(cli(sock, "show stat"))}
        if rows0[("px", "FRONTEND")]["ereq"] == rows0[("px", "FRONTEND")]["stot"] != "0":
            break
        time.sleep(0.05)
    probes = int(rows0[("px", "FRONTEND")]["stot"])
    served0 = sum(activity_values(cli(sock, "show activity"), "conns_served"))
    assert run_clients(port, n_conn, n_req) == [200] * (n_conn * n_req)
    for _ in range(100):  # response classes are counted as each exchange ends: poll
        rows = {(r["pxname"], r["svname"]): r for r in stat_rows(cli(sock, "show stat"))}
        if int(rows[("px", "FRONTEND")]["hrsp_2xx"]) >= n_conn * n_req:
            break
        time.sleep(0.05)
    fe, be, srv = rows[("px", "FRONTEND")], rows[("px", "BACKEND")], rows[("px", "s1")]
    # the probe is an empty connection: a request error (400) in HAProxy's counting
    assert int(fe["req_tot"]) - int(fe["ereq"]) == n_conn * n_req
    assert int(fe["stot"]) == n_conn + probes
    assert int(fe["hrsp_2xx"]) == n_conn * n_req
    assert int(be["stot"]) == n_conn * n_req
    assert int(srv["stot"]) == n_conn * n_req
    assert int(srv["hrsp_2xx"]) == n_conn * n_req
    served = activity_values(cli(sock, "show activity"), "conns_served")
    assert sum(served) - served0 == n_conn


def test_cpu_map_binds_threads(proxy, backend, port):
    ncpu = len(os.sched_getaffinity(0))
    if ncpu < 2:
        pytest.skip("needs 2 CPUs")
    cfg = threads_cfg(port, backend, 2, extra_glob=["cpu-map auto:1/1-2 0-1"])
    p = proxy(cfg, ports=[port])
    # the socket is bound before the threads start: once a request was served, every
    # thread has passed its start (and pinned itself)
    assert httpc.get(port).status == 200
    allowed = {}
    for t in os.listdir("/proc/%d/task" % p.pid):
        with open("/proc/%d/task/%s/status" % (p.pid, t)) as f:
            for ln in f:
                if ln.startswith("Cpus_allowed_list:"):
                    allowed[int(t)] = ln.split(":")[1].strip()
    assert sorted(allowed.values()) == ["0", "1"], allowed


def test_cpu_map_all_threads_one_set(proxy, backend, port):
    cfg = threads_cfg(port, backend, 4, extra_glob=["cpu-map 1/all 0"])
    p = proxy(cfg, ports=[port])
    assert httpc.get(port).status == 200  # every thread has started (and pinned itself)
    lists = set()
    for t in os.listdir("/proc/%d/task" % p.pid):
        with open("/proc/%d/task/%s/status" % (p.pid, t)) as f:
            for ln in f:
                if ln.startswith("Cpus_allowed_list:"):
                    lists.add(ln.split(":")[1].strip())
    assert lists == {"0"}
    assert run_clients(port, 4, 5) == [200] * 20


def test_queue_shared_by_groups_serves_every_request(proxy, backends, port):
    """Server maxconn 2 with 4 groups: requests from every group wait in their group's
    queue and each one is served when a slot frees, whichever group frees it."""
    b = backends(1)[0]
    cfg = make_cfg(port, [b], glob=["nbthread 4", "thread-groups 4"], srv_opts="maxconn 2",
                   defaults=["timeout queue 20s"])
    proxy(cfg, ports=[port])

    def one(i):
        return httpc.get(port, "/?delay=0.05", timeout=30).status

    with concurrent.futures.ThreadPoolExecutor(max_workers=40) as ex:
        statuses = list(ex.map(one, range(200)))
    assert statuses == [200] * 200
    assert b.max_concurrency() <= 2


def test_sigusr1_with_threads_finishes_inflight(proxy, backend, port):
    import signal
    import threading
    p = proxy(threads_cfg(port, backend, 4, 2), ports=[port])
    res = {}

    def slow(i):
        res[i] = httpc.get(port, "/?delay=1", timeout=10).status

    th = [threading.Thread(target=slow, args=(i,)) for i in range(8)]
    for t in th:
        t.start()
    time.sleep(0.4)
    os.kill(p.pid, signal.SIGUSR1)
    for t in th:
        t.join(10)
    assert res == {i: 200 for i in range(8)}
    p.proc.wait(timeout=5)
    assert p.proc.returncode == 0


def test_sigterm_with_threads_is_prompt(proxy, backend, port):
    import signal
    p = proxy(threads_cfg(port, backend, 32, 4), ports=[port])
    socks = [httpc.connect(port) for _ in range(20)]
    t0 = time.monotonic()
    os.kill(p.pid, signal.SIGTERM)
    p.proc.wait(timeout=5)
    assert time.monotonic() - t0 < 2
    for s in socks:
        s.close()
