"""Lua's view of the proxy's objects: core.proxies / frontends / backends, the Proxy,
Server, Listener and StickTable classes, core.get_info(), and runtime API commands written
in Lua (core.register_cli).

Owns: what scripts read (compared with `show stat`, `show info`, `show table`), what their
setters change (seen in `show stat`, `show servers state` and in traffic), and Lua CLI
commands through the stats socket. The scripts are tests/integration/lua/obj_*.lua: the
action `lua.obj` answers the query in its request path (`/OP/ARG...`) through the body of
the response of the frontend `q`. Expected values come from Debian's /usr/sbin/haproxy
(2.6): run with HAPROXY_BIN=/usr/sbin/haproxy to check them; the tests of deliberate
differences are marked `ours`.
"""

import os
import pathlib
import shutil
import socket
import subprocess
import threading
import time
import urllib.parse

import httpc
import pytest
from conftest import IS_REF, cli, free_port

LUA = pathlib.Path(__file__).resolve().parent / "lua"


def start(proxy, backends, tmp_path, glob=(), load="lua-load", nbthread=1):
    """The proxy of these tests: frontend fe (two binds, a stick table) to backend be
    (s1, s2, backup s3), frontend fi (an integer-keyed table) and frontend q (lua.obj).
    Returns (proxy, ports dict, socket path, backends)."""
    bs = backends(names=["s1", "s2", "s3"])
    sock = str(tmp_path / "stats.sock")
    ports = {"fe": free_port(), "fe2": free_port(), "fi": free_port(), "q": free_port(),
             "fw": free_port()}
    cfg = f"""global
    stats socket {sock} level admin
    nbthread {nbthread}
    {load} {LUA / "obj_objects.lua"}
    lua-load {LUA / "obj_cli.lua"}
""" + "".join("    %s\n" % g for g in glob) + f"""
defaults
    mode http
    timeout connect 2s
    timeout client 10s
    timeout server 10s

frontend fe
    bind 127.0.0.1:{ports["fe"]}
    bind 127.0.0.1:{ports["fe2"]} name named
    stick-table type ip size 100 expire 1m store http_req_cnt,gpc0,conn_cnt
    http-request track-sc0 src
    http-request sc-inc-gpc0(0) if {{ path_beg /inc }}
    default_backend be

frontend fi
    bind 127.0.0.1:{ports["fi"]}
    stick-table type integer size 10 store gpc0
    http-request track-sc0 int(42)
    http-request sc-inc-gpc0(0)
    http-request return status 200

frontend fw
    bind 127.0.0.1:{ports["fw"]}
    http-request set-var(txn.r) lua.obj_setw(s2,7)
    http-request return status 200 content-type text/plain lf-string "%[var(txn.r)]"

backend chk
    server c1 127.0.0.1:{bs[0].port} check inter 100 rise 1 fall 1
    server c2 127.0.0.1:{bs[1].port} track chk/c1

backend big
    stick-table type string len 300 size 5000 store gpc0

frontend q
    bind 127.0.0.1:{ports["q"]}
    http-request lua.obj
    http-request return status 200 content-type text/plain lf-string "%[var(txn.out)]"

backend be
    server s1 127.0.0.1:{bs[0].port}
    server s2 127.0.0.1:{bs[1].port}
    server s3 127.0.0.1:{bs[2].port} backup
"""
    p = proxy(cfg, ports=list(ports.values()))
    deadline = time.monotonic() + 10
    while not os.path.exists(sock):
        assert p.alive() and time.monotonic() < deadline, p.stderr()
        time.sleep(0.05)
    return p, ports, sock, bs


def ask(ports, path):
    """The answer of lua.obj to <path> as text (the log-format of the response escapes
    line feeds and quotes as %0A, %22: undone)."""
    r = httpc.get(ports["q"], path)
    assert r.status == 200, r
    return urllib.parse.unquote(r.body.decode())


def kv(text):
    """"k=v" lines as a dict."""
    out = {}
    for line in text.splitlines():
        k, _, v = line.partition("=")
        out[k] = v
    return out


def stat_rows(sock):
    """`show stat` as {(pxname, svname): {field: value}}, empty fields left out."""
    out = cli(sock, "show stat").splitlines()
    hdr = out[0].lstrip("# ").split(",")
    hdr = hdr[:hdr.index("-")] if "-" in hdr else hdr  # 2.6's module columns follow "-"
    rows = {}
    for line in out[1:]:
        if line:
            f = dict(zip(hdr, line.split(",")))
            rows[(f["pxname"], f["svname"])] = {k: v for k, v in f.items() if v and k != "-"}
    return rows


def servers_state(sock):
    """`show servers state` as {srv_name: {column: value}}."""
    lines = cli(sock, "show servers state").splitlines()
    hdr = lines[1].lstrip("# ").split()
    return {f["srv_name"]: f for f in (dict(zip(hdr, ln.split())) for ln in lines[2:] if ln)}


def served_by(port, n):
    """X-Server of <n> requests, each on its own connection."""
    return [httpc.get(port, "/").header("X-Server") for _ in range(n)]


# ---- core.proxies and the objects' attributes ----

def test_proxies_nil_while_loading_then_listed(proxy, backends, tmp_path):
    _, ports, sock, _ = start(proxy, backends, tmp_path)
    got = kv(ask(ports, "/loadtime"))
    assert got == {"load": "nil", "init": "be:backend,big:backend,chk:backend,fe:frontend,"
                                          "fi:frontend,fw:frontend,q:frontend"}
    got = kv(ask(ports, "/proxies"))
    rows = stat_rows(sock)
    fes, bes = ("fe", "fi", "fw", "q"), ("be", "big", "chk")
    iid = {px: rows[(px, "FRONTEND" if px in fes else "BACKEND")]["iid"] for px in fes + bes}
    fe = ",".join("%s:%s:frontend:http:%s" % (px, px, iid[px]) for px in fes)
    be = ",".join("%s:%s:backend:http:%s" % (px, px, iid[px]) for px in bes)
    assert got["proxies"] == ",".join(sorted((fe + "," + be).split(",")))
    assert got["frontends"] == fe
    assert got["backends"] == be
    assert got["servers"] == "s1:s1:1,s2:s2:2,s3:s3:3"
    assert got["listeners"] == "named,sock-1"
    assert got["stktable_fe"] == "true"
    assert got["stktable_be"] == "false"
    assert got["missing"] == "nil"


# ---- statistics ----

STABLE = ("pxname", "svname", "stot", "hrsp_2xx", "req_tot", "status", "weight", "act",
          "bck", "iid", "sid", "type", "lbtot", "scur", "slim", "mode", "algo", "uweight",
          "addr", "cli_abrt", "srv_abrt", "econ", "eresp", "conn_tot")


def test_get_stats_match_show_stat(proxy, backends, tmp_path):
    _, ports, sock, _ = start(proxy, backends, tmp_path)
    for _ in range(5):
        assert httpc.get(ports["fe"], "/").status == 200
    for px, sv, path in (("be", "BACKEND", "/pxstats/be"), ("fe", "FRONTEND", "/pxstats/fe"),
                         ("be", "s1", "/srvstats/s1"), ("be", "s3", "/srvstats/s3")):
        # counters of the last response may land a moment after the client saw it
        # (2.6 leaves fields of the previous line it filled in a line: only those of
        # show stat are compared there)
        ref_stale = IS_REF
        for _ in range(50):
            lua = kv(ask(ports, path))
            row = stat_rows(sock)[(px, sv)]
            keys = [k for k in STABLE if k in row] if ref_stale else STABLE
            if all(lua.get(k) == row.get(k) for k in keys):
                break
            time.sleep(0.05)
        for k in keys:
            assert lua.get(k) == row.get(k), (path, k)
        # the same fields: those show stat fills, no others
        if not ref_stale:
            assert set(lua) == set(row), (path, set(lua) ^ set(row))
    assert kv(ask(ports, "/pxstats/fe"))["hrsp_2xx"] == "5"
    assert kv(ask(ports, "/pxstats/be"))["hrsp_2xx"] == "5"


@pytest.mark.ours  # 2.6 fills a listener's stats with a server's fields
def test_listener_get_stats(proxy, backends, tmp_path):
    _, ports, _, _ = start(proxy, backends, tmp_path)

    def sessions():
        return {ln.split(":")[0]: int(ln.split(":")[2])
                for ln in ask(ports, "/listats/fe").splitlines()}

    before = sessions()
    assert sorted(before) == ["named", "sock-1"]
    for _ in range(3):
        httpc.get(ports["fe2"], "/")
    httpc.get(ports["fe"], "/")
    after = sessions()
    assert after["named"] - before["named"] == 3
    assert after["sock-1"] - before["sock-1"] == 1
    assert ask(ports, "/listats/fe").splitlines()[0].startswith("named:named:")


def test_get_info_matches_show_info(proxy, backends, tmp_path):
    p, ports, sock, _ = start(proxy, backends, tmp_path, glob=["maxconn 777"], nbthread=2)
    lua = kv(ask(ports, "/info"))
    shown = dict(ln.split(": ", 1) for ln in cli(sock, "show info").splitlines() if ": " in ln)
    assert lua["Name"] == "HAProxy"
    assert lua["Pid"] == str(p.pid)
    assert lua["Nbthread"] == "2"
    assert lua["Maxconn"] == "777"
    for k in ("Name", "Version", "Pid", "Nbthread", "Maxconn", "Hard_maxconn", "node"):
        assert lua[k] == shown[k], k
    assert set(lua) == set(shown), set(lua) ^ set(shown)


# ---- setters ----

def test_set_weight_seen_by_show_stat_and_state(proxy, backends, tmp_path):
    _, ports, sock, _ = start(proxy, backends, tmp_path)
    assert kv(ask(ports, "/weight/s1/10")) == {"ret": "nil", "weight": "10"}
    assert stat_rows(sock)[("be", "s1")]["weight"] == "10"
    assert servers_state(sock)["s1"]["srv_uweight"] == "10"
    got = kv(ask(ports, "/weight/s1/abc"))
    assert got == {"ret": "Empty weight string empty or preceded by garbage", "weight": "10"}
    got = kv(ask(ports, "/weight/s2/300"))
    assert got["ret"].strip() == "Absolute weight can only be between 0 and 256 inclusive."
    assert got["weight"] == "1"
    # the new weights drive the balancing: 10 of s1 for 1 of s2
    seen = served_by(ports["fe"], 22)
    assert seen.count("s1") >= 18 and seen.count("s2") >= 1, seen


def test_set_maint_drain_ready(proxy, backends, tmp_path):
    _, ports, sock, _ = start(proxy, backends, tmp_path)
    assert ask(ports, "/maint/s1") == "ok"
    assert stat_rows(sock)[("be", "s1")]["status"] == "MAINT"
    assert servers_state(sock)["s1"]["srv_admin_state"] == "1"
    assert set(served_by(ports["fe"], 6)) == {"s2"}
    assert kv(ask(ports, "/srv/s1"))["act"] == "1"
    assert ask(ports, "/ready/s1") == "ok"
    assert stat_rows(sock)[("be", "s1")]["status"] == "no check"
    assert set(served_by(ports["fe"], 6)) == {"s1", "s2"}
    assert ask(ports, "/drain/s2") == "ok"
    assert stat_rows(sock)[("be", "s2")]["status"] == "DRAIN"
    assert set(served_by(ports["fe"], 4)) == {"s1"}
    # both active servers out: the backup takes the traffic
    ask(ports, "/maint/s1")
    ask(ports, "/maint/s2")
    got = kv(ask(ports, "/srv/s3"))
    assert (got["act"], got["bck"]) == ("0", "1")
    assert set(served_by(ports["fe"], 3)) == {"s3"}


@pytest.mark.v32  # methods HAProxy added after 2.6
def test_server_methods_after_26(proxy, backends, tmp_path):
    _, ports, _, _ = start(proxy, backends, tmp_path)
    assert kv(ask(ports, "/srvnew/s3")) == {
        "name": "s3", "puid": "3", "rid": "0", "backup": "true", "dynamic": "false",
        "draining": "false", "cur_sess": "0", "pend_conn": "0", "proxy": "be",
        "tracking": "nil", "trackers": "", "act": "2", "bck": "1", "mailers": "false"}
    ask(ports, "/drain/s1")
    got = kv(ask(ports, "/srvnew/s1"))
    assert (got["draining"], got["backup"], got["act"]) == ("true", "false", "1")


def test_set_maxconn_and_addr(proxy, backends, tmp_path):
    _, ports, sock, bs = start(proxy, backends, tmp_path)
    assert kv(ask(ports, "/maxconn/s1/7")) == {"ret": "nil", "maxconn": "7"}
    assert stat_rows(sock)[("be", "s1")]["slim"] == "7"
    got = kv(ask(ports, "/maxconn/s1/x7"))
    assert got == {"ret": "maxconn string empty or preceded by garbage", "maxconn": "7"}
    # s1 now goes to s3's port
    got = kv(ask(ports, "/addr/s1/127.0.0.1/%d" % bs[2].port))
    assert got["ret"] == ("no need to change the addr, port changed from '%d' to '%d' by "
                          "'Lua script'" % (bs[0].port, bs[2].port))
    assert got["addr"] == "127.0.0.1:%d" % bs[2].port
    assert stat_rows(sock)[("be", "s1")]["addr"] == "127.0.0.1:%d" % bs[2].port
    assert "s1" not in served_by(ports["fe"], 6)
    got = kv(ask(ports, "/addr/s1/not-an-ip"))
    assert got["ret"].strip() == "Invalid addr 'not-an-ip' by 'Lua script'"


def test_pause_resume_stop_frontend(proxy, backends, tmp_path):
    _, ports, sock, _ = start(proxy, backends, tmp_path)
    assert ask(ports, "/pause/fe") == "ok"
    assert stat_rows(sock)[("fe", "FRONTEND")]["status"] == "PAUSED"
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", ports["fe"]), timeout=2).recv(1)
    assert ask(ports, "/resume/fe") == "ok"
    assert stat_rows(sock)[("fe", "FRONTEND")]["status"] == "OPEN"
    assert httpc.get(ports["fe"], "/").status == 200
    assert ask(ports, "/pxop/be/shut_bcksess") == "ok nil"
    assert ask(ports, "/pxop/be/pause") == "ok nil"  # a backend: nothing to pause
    assert ask(ports, "/pxop/fe/stop") == "ok nil"
    assert stat_rows(sock)[("fe", "FRONTEND")]["status"] == "STOP"
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", ports["fe"]), timeout=2).recv(1)
    assert httpc.get(ports["fi"], "/").status == 200


def test_setters_across_threads(proxy, backends, tmp_path):
    """lua-load-per-thread on two threads: the setters of the thread that does not serve
    the CLI hand their command over and wait for it."""
    _, ports, sock, _ = start(proxy, backends, tmp_path, load="lua-load-per-thread",
                              nbthread=2)
    for w in range(1, 21):
        assert kv(ask(ports, "/weight/s1/%d" % w)) == {"ret": "nil", "weight": str(w)}
        assert stat_rows(sock)[("be", "s1")]["weight"] == str(w)


def test_setter_from_a_fetch(proxy, backends, tmp_path):
    """A fetch cannot wait: the change is applied shortly after (bounded wait)."""
    _, ports, sock, _ = start(proxy, backends, tmp_path, nbthread=2)
    for _ in range(4):
        r = httpc.get(ports["fw"], "/")
        assert r.status == 200 and r.body == b"ret=nil", r
    deadline = time.monotonic() + 5
    while stat_rows(sock)[("be", "s2")]["weight"] != "7":
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_check_force_and_disable(proxy, backends, tmp_path):
    _, ports, sock, _ = start(proxy, backends, tmp_path)
    deadline = time.monotonic() + 5
    while stat_rows(sock)[("chk", "c1")]["status"] != "UP":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    # the checks go on: disable them first so that they do not bring it back
    assert ask(ports, "/srvop/chk/c1/check_disable") == "ok nil"
    assert ask(ports, "/srvop/chk/c1/check_force_down") == "ok nil"
    rows = stat_rows(sock)
    assert rows[("chk", "c1")]["status"] == "DOWN"
    assert rows[("chk", "c2")]["status"] == "DOWN"  # it tracks c1
    assert ask(ports, "/srvop/chk/c1/check_force_up") == "ok nil"
    assert stat_rows(sock)[("chk", "c1")]["status"] == "no check"
    assert ask(ports, "/srvop/chk/c1/check_enable") == "ok nil"
    assert stat_rows(sock)[("chk", "c1")]["status"] == "UP"
    # an agent that is not configured: nothing happens, nothing fails
    assert ask(ports, "/srvop/chk/c1/agent_force_down") == "ok nil"
    assert stat_rows(sock)[("chk", "c1")]["status"] == "UP"


@pytest.mark.v32  # tracking() and get_trackers() came after 2.6
def test_tracking(proxy, backends, tmp_path):
    _, ports, _, _ = start(proxy, backends, tmp_path)
    assert kv(ask(ports, "/track/chk/c1")) == {"tracking": "nil", "trackers": "c2"}
    assert kv(ask(ports, "/track/chk/c2")) == {"tracking": "c1", "trackers": ""}


def test_shut_sess(proxy, backends, tmp_path):
    _, ports, _, _ = start(proxy, backends, tmp_path)
    ask(ports, "/maint/s2")
    res = []
    t = threading.Thread(target=lambda: res.append(httpc.get(ports["fe"], "/?delay=3",
                                                              timeout=10)))
    t.start()
    deadline = time.monotonic() + 5
    while kv(ask(ports, "/srvstats/s1"))["scur"] != "1":  # the request reached s1
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert ask(ports, "/srvop/be/s1/shut_sess") == "ok nil"
    t.join(10)
    assert res and res[0].status == 502, res


@pytest.mark.ours  # 2.6 runs them at init, before the threads
def test_setter_in_init_is_an_error(proxy, tmp_path):
    script = tmp_path / "init.lua"
    script.write_text("core.register_init(function()\n"
                      "  core.backends['be'].servers['s1']:set_weight('5')\nend)\n")
    port = free_port()
    p = proxy(f"""global
    lua-load {script}
defaults
    mode http
    timeout connect 2s
    timeout client 10s
    timeout server 10s
listen be
    bind 127.0.0.1:{port}
    server s1 127.0.0.1:{free_port()}
""")
    deadline = time.monotonic() + 10
    while p.alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not p.alive()
    assert "cannot run before the proxy runs (init context)" in p.stderr()
    assert "init.lua:2" in p.stderr()


# ---- stick tables ----

def test_stktable_info_lookup_dump(proxy, backends, tmp_path):
    _, ports, sock, _ = start(proxy, backends, tmp_path)
    for path in ("/inc", "/inc", "/inc", "/"):
        assert httpc.get(ports["fe"], path).status == 200
    info = kv(ask(ports, "/stinfo/fe"))
    assert info == {"type": "ip", "size": "100", "used": "1", "expire": "60000",
                    "length": "4", "nopurge": "false",
                    "data": "{conn_cnt=-1;gpc0=-1;http_req_cnt=-1}"}
    e = kv(ask(ports, "/lookup/fe/127.0.0.1"))
    assert 0 < int(e.pop("expire")) <= 60000
    assert e == {"conn_cnt": "4", "gpc0": "3", "http_req_cnt": "4", "use": "0"}
    shown = cli(sock, "show table fe key 127.0.0.1")
    assert "gpc0=3" in shown and "http_req_cnt=4" in shown
    assert ask(ports, "/lookup/fe/10.0.0.1") == "nil"
    assert ask(ports, "/lookup/fe/not-an-ip") == "nil"
    assert ask(ports, "/dump/fe") == "127.0.0.1={conn_cnt=4;gpc0=3;http_req_cnt=4}"
    assert ask(ports, "/dump/fe/gpc0/ge/3") == "127.0.0.1={conn_cnt=4;gpc0=3;http_req_cnt=4}"
    assert ask(ports, "/dump/fe/gpc0/gt/3") == ""
    assert ask(ports, "/dump/fe/http_req_cnt/eq/4") != ""
    httpc.get(ports["fi"], "/")
    httpc.get(ports["fi"], "/")
    assert ask(ports, "/dump/fi") == "42={gpc0=2}"
    assert kv(ask(ports, "/lookup/fi/42"))["gpc0"] == "2"
    assert kv(ask(ports, "/stinfo/fi"))["type"] == "integer"


def test_stktable_dump_of_many_entries(proxy, backends, tmp_path):
    """3000 entries of 300-byte keys: the dump goes through many batches."""
    _, ports, sock, _ = start(proxy, backends, tmp_path)
    n = 3000
    for first in range(0, n, 40):
        cmds = ["set table big key %s%04d data.gpc0 %d" % ("k" * 296, i, i % 7)
                for i in range(first, min(n, first + 40))]
        assert cli(sock, ";".join(cmds)).strip() == ""
    got = kv(ask(ports, "/dumpcount/big"))
    assert got == {"n": str(n), "sum": str(sum(i % 7 for i in range(n))), "longest": "300"}


def test_stktable_bad_filters(proxy, backends, tmp_path):
    _, ports, _, _ = start(proxy, backends, tmp_path)
    want = {
        "notable": "filter table expected",
        "toolong": "Filter table too large (len > 4)",
        "pair": 'Filter table entry must be a triplet: {"data_col", "op", val} (entry #1)',
        "column": "Filter table data column not present in stick table (entry #1)",
        "op": "Unknown operator in filter table (entry #1)",
    }
    for kind, msg in want.items():
        assert kv(ask(ports, "/badfilter/fe/" + kind)) == {"t": "nil", "err": msg}, kind


# ---- CLI commands ----

def test_cli_command_words_and_help(proxy, backends, tmp_path):
    _, _, sock, _ = start(proxy, backends, tmp_path)
    assert cli(sock, "obj hello bob x") == "hello bob\nargs=obj|hello|bob|x n=4\n"
    assert cli(sock, "obj hello") == "hello nobody\nargs=obj|hello n=2\n"
    helped = cli(sock, "help obj").splitlines()
    assert "  obj hello [name] : say hello" in helped
    assert "  obj weight <srv> <w> : set a weight" in helped
    assert "  obj hello [name] : say hello" in cli(sock, "help").splitlines()
    # several commands on a line, and the prompt mode
    assert cli(sock, "obj hello a; obj hello b") == (
        "hello a\nargs=obj|hello|a n=3\nhello b\nargs=obj|hello|b n=3\n")


def test_cli_command_sleeps_and_streams(proxy, backends, tmp_path):
    _, ports, sock, _ = start(proxy, backends, tmp_path)
    t0 = time.monotonic()
    assert cli(sock, "obj slow") == "first\nsecond\n\n"
    assert time.monotonic() - t0 >= 0.15
    # 60 kB through the CLI's 16 kB output buffer: the command waits for the client
    out = cli(sock, "obj big 600", timeout=20)
    assert out == "x" * 99 + "\n" + ("x" * 99 + "\n") * 599 + "end\n\n"
    assert httpc.get(ports["fe"], "/").status == 200


def test_cli_command_uses_server_setter(proxy, backends, tmp_path):
    _, _, sock, _ = start(proxy, backends, tmp_path)
    assert cli(sock, "obj weight s2 42") == "ret=nil weight=42\n\n"
    assert stat_rows(sock)[("be", "s2")]["weight"] == "42"


def test_cli_command_error(proxy, backends, tmp_path):
    p, ports, sock, _ = start(proxy, backends, tmp_path)
    out = cli(sock, "obj err")
    assert out.startswith("before\n")
    if not IS_REF:  # 2.6 says nothing on the CLI
        assert out.splitlines()[1].startswith("Lua cli '<lua.cli.obj.err>': [state-id 0] "
                                              "runtime error: ")
        assert "obj_cli.lua:11: obj err failed" in out
    assert "Lua cli '<lua.cli.obj.err>'" in p.stderr()
    assert "obj err failed" in p.stderr()
    assert httpc.get(ports["fe"], "/").status == 200
    assert cli(sock, "obj hello") == "hello nobody\nargs=obj|hello n=2\n"


@pytest.mark.ours
def test_cli_command_runaway_loop_times_out(proxy, backends, tmp_path):
    p, ports, sock, _ = start(proxy, backends, tmp_path,
                              glob=["tune.lua.session-timeout 500"])
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(sock)
    s.sendall(b"obj loop\n")
    # the loop yields: the proxy serves meanwhile
    for _ in range(5):
        assert httpc.get(ports["fe"], "/", timeout=2).status == 200
    out = b""
    while True:
        d = s.recv(4096)
        if not d:
            break
        out += d
    s.close()
    text = out.decode()
    assert text.startswith("looping\nLua cli '<lua.cli.obj.loop>': [state-id 0] execution "
                           "timeout"), text
    assert p.alive()


@pytest.mark.ours  # 2.6 reads the lines after the command instead of a payload
def test_cli_command_payload(proxy, backends, tmp_path):
    _, _, sock, _ = start(proxy, backends, tmp_path)
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(5)
    s.connect(sock)
    s.sendall(b"obj payload <<\nfirst line\nsecond\nthird\n\n")
    out = b""
    while True:
        d = s.recv(4096)
        if not d:
            break
        out += d
    s.close()
    assert out.decode() == "line=[first line\n] rest=[second\nthird\n]\n\n"


@pytest.mark.ours
def test_cli_applet_is_dead_after_its_command(proxy, backends, tmp_path):
    _, _, sock, _ = start(proxy, backends, tmp_path)
    assert cli(sock, "obj keep") == "kept\n\n"
    assert cli(sock, "obj keep") == "reuse ok=false\nkept\n\n"


@pytest.mark.ours  # 2.6 crashes on such a script
def test_cli_command_cannot_replace_a_builtin(tmp_path):
    from conftest import run_haproxy
    script = tmp_path / "dup.lua"
    script.write_text('core.register_cli({"show", "info"}, "mine", function(a) end)\n')
    cfg = tmp_path / "dup.cfg"
    cfg.write_text(f"global\n    lua-load {script}\nlisten x\n    mode http\n"
                   f"    bind 127.0.0.1:{free_port()}\n")
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    assert "'show info' is already a runtime API command" in r.stderr
    assert "dup.cfg:2" in r.stderr


def test_cli_command_of_six_words_refused(tmp_path):
    from conftest import run_haproxy
    script = tmp_path / "six.lua"
    script.write_text('core.register_cli({"a", "b", "c", "d", "e", "f"}, "six", '
                      'function(a) end)\n')
    cfg = tmp_path / "six.cfg"
    cfg.write_text(f"global\n    lua-load {script}\nlisten x\n    mode http\n"
                   f"    bind 127.0.0.1:{free_port()}\n")
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    assert ("bad argument #1 to 'register_cli' (1st argument must be a table with a "
            "maximum of 5 entries)") in r.stderr


def test_cli_command_through_socat(proxy, backends, tmp_path):
    if not shutil.which("socat"):
        pytest.skip("socat not installed")
    _, _, sock, _ = start(proxy, backends, tmp_path)
    r = subprocess.run(["socat", "-t", "5", "-", "UNIX-CONNECT:" + sock],
                       input="obj hello socat\n", capture_output=True, text=True, timeout=10)
    assert r.stdout == "hello socat\nargs=obj|hello|socat n=3\n"
    r = subprocess.run(["socat", "-t", "5", "-", "UNIX-CONNECT:" + sock],
                       input="prompt\nobj slow\nquit\n", capture_output=True, text=True,
                       timeout=10)
    assert r.stdout == "\n> first\nsecond\n\n> "
