"""`show stat` and `show info` in their typed, JSON and desc forms, the filters of
`show stat`, `show schema json`, `clear counters [all]`, `show backend` and
`show servers conn`, as HAProxy 2.6 prints them (run with HAPROXY_BIN=/usr/sbin/haproxy
to check the expectations themselves).

Owns: the layouts a monitoring script parses, and that every form reports the same
counters (equal to the requests sent, also with two thread groups).
"""

import json
import re
import time

import httpc
from conftest import IS_REF, cli, free_port, make_cfg

TYPED_RE = re.compile(r"^([FBSL])\.(\d+)\.(\d+)\.(\d+)\.([a-z0-9_]+)\.1:([A-Za-z]{3}):"
                      r"(u32|s32|u64|s64|str):(.*)$")


def cfg(port, servers, sock, glob=(), srv_opts=""):
    glob = ["stats socket %s mode 600 level admin" % sock] + list(glob)
    return make_cfg(port, servers, glob=glob, srv_opts=srv_opts)


def csv_rows(text):
    lines = text.strip().splitlines()
    head = lines[0].lstrip("# ").split(",")
    return {(r["pxname"], r["svname"]): r
            for r in (dict(zip(head, ln.split(","))) for ln in lines[1:] if ln)}


def typed_rows(text):
    """{(pxname, svname): {name: (tags, type, value)}} from `show stat typed`."""
    rows, cur = {}, {}
    for ln in text.splitlines():
        if not ln:
            continue
        m = TYPED_RE.match(ln)
        assert m, "bad typed line %r" % ln
        key = (m.group(1), m.group(2), m.group(3))
        cur.setdefault(key, {})[m.group(5)] = (m.group(6), m.group(7), m.group(8))
    for fields in cur.values():
        rows[(fields["pxname"][2], fields["svname"][2])] = fields
    return rows


def get(port, n):
    with httpc.connect(port) as s:
        rd = httpc.Reader(s)
        for _ in range(n):
            s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            assert httpc.read_response(rd).status == 200


def wait_rows(sock, pred):
    for _ in range(60):
        rows = csv_rows(cli(sock, "show stat"))
        if pred(rows):
            return rows
        time.sleep(0.05)
    return rows


def start(proxy, tmp_path, backends, n=1, glob=(), srv_opts=""):
    port, sock = free_port(), str(tmp_path / "stats.sock")
    bs = backends(n)
    proxy(cfg(port, bs, sock, glob, srv_opts), ports=[port])
    return port, sock, bs


def test_every_form_reports_the_requests_sent(proxy, backends, tmp_path):
    groups = 1 if IS_REF else 2  # Debian's 2.6 is built for one group
    port, sock, _ = start(proxy, tmp_path, backends, 1,
                          glob=["nbthread 2", "thread-groups %d" % groups])
    get(port, 7)
    get(port, 5)
    # each counter is added when its stream ends on its thread: wait for all of them
    rows = wait_rows(sock, lambda r: all(int(r[("px", k)][f]) >= 12 for k, f in (
        ("s1", "hrsp_2xx"), ("s1", "stot"), ("BACKEND", "stot"), ("FRONTEND", "hrsp_2xx"))))
    assert int(rows[("px", "BACKEND")]["stot"]) == 12
    assert int(rows[("px", "s1")]["stot"]) == 12
    assert int(rows[("px", "s1")]["hrsp_2xx"]) == 12
    assert int(rows[("px", "FRONTEND")]["hrsp_2xx"]) == 12
    typed = typed_rows(cli(sock, "show stat typed"))
    for key in [("px", "FRONTEND"), ("px", "s1"), ("px", "BACKEND")]:
        for name in ("stot", "hrsp_2xx", "bin", "bout"):
            assert typed[key][name][2] == rows[key][name], (key, name)
    assert typed[("px", "s1")]["stot"][:2] == ("MCP", "u64")
    assert typed[("px", "FRONTEND")]["pxname"][:2] == ("KNS", "str")
    lines = json.loads(cli(sock, "show stat json"))
    assert [ln[0]["objType"] for ln in lines] == ["Frontend", "Server", "Backend"]
    srv = {f["field"]["name"]: f for f in lines[1]}
    assert srv["hrsp_2xx"]["value"] == {"type": "u64", "value": 12}
    assert srv["stot"]["tags"] == {"origin": "Metric", "nature": "Counter",
                                   "scope": "Process"}
    assert srv["pxname"]["proxyId"] == int(rows[("px", "s1")]["iid"])
    assert srv["pxname"]["id"] == int(rows[("px", "s1")]["sid"])


def test_typed_desc_and_csv_desc(proxy, backends, tmp_path):
    _, sock, _ = start(proxy, tmp_path, backends, 1)
    out = cli(sock, "show stat typed desc")
    first = out.splitlines()[0]
    assert re.match(r'^F\.\d+\.0\.0\.pxname\.1:KNS:str:px:"Proxy name"$', first), first
    assert ':"Total number of sessions since process started"' in out
    # desc changes nothing in CSV
    assert cli(sock, "show stat desc").splitlines()[0] == cli(sock, "show stat").splitlines()[0]


def test_info_forms(proxy, backends, tmp_path):
    _, sock, _ = start(proxy, tmp_path, backends, 1)
    plain = cli(sock, "show info")
    typed = cli(sock, "show info typed")
    assert re.search(r"^0\.Name\.1:POS:str:HAProxy$", typed, re.M)
    assert re.search(r"^3\.Nbthread\.1:CGS:u32:\d+$", typed, re.M)
    assert re.search(r"^6\.Pid\.1:SGP:u32:\d+$", typed, re.M)
    pid = re.search(r"^Pid: (\d+)$", plain, re.M).group(1)
    items = json.loads(cli(sock, "show info json"))
    byname = {i["field"]["name"]: i for i in items}
    assert byname["Pid"]["value"] == {"type": "u32", "value": int(pid)}
    assert byname["Name"]["tags"] == {"origin": "Product", "nature": "Output",
                                      "scope": "Service"}
    assert byname["Uptime_sec"]["field"]["pos"] == 8
    desc = cli(sock, "show info desc")
    assert re.search(r'^Name: HAProxy:"Product name"$', desc, re.M)
    schema = json.loads(cli(sock, "show schema json"))
    assert schema["$schema"].startswith("http://json-schema.org/")
    assert [o["title"] for o in schema["oneOf"]] == ["Info", "Stat", "Error"]


def test_filters(proxy, backends, tmp_path):
    _, sock, _ = start(proxy, tmp_path, backends, 2)
    rows = csv_rows(cli(sock, "show stat -1 4 -1"))
    assert sorted(rows) == [("px", "s1"), ("px", "s2")]
    rows = csv_rows(cli(sock, "show stat px 4 2"))
    assert list(rows) == [("px", "s2")]
    iid = csv_rows(cli(sock, "show stat"))[("px", "FRONTEND")]["iid"]
    rows = csv_rows(cli(sock, "show stat %s 3 -1" % iid))
    assert sorted(rows) == [("px", "BACKEND"), ("px", "FRONTEND")]
    assert cli(sock, "show stat nosuch 1 -1") == "No such proxy.\n\n"
    assert cli(sock, "show stat 0 -1 -1") == "No such proxy.\n\n"
    assert cli(sock, "show stat -1 0 -1").count("\n") == 2  # the header alone
    assert json.loads(cli(sock, "show stat 999 -1 -1 json")) == []
    typed = typed_rows(cli(sock, "show stat -1 4 -1 typed"))
    assert sorted(typed) == [("px", "s1"), ("px", "s2")]


def test_up_and_no_maint(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "stats.sock")
    up = backends(1)[0]
    dead = free_port()
    text = cfg(port, [up], sock, srv_opts="check inter 200")
    text += "    server down 127.0.0.1:%d check inter 200\n" % dead
    text += "    server off 127.0.0.1:%d disabled\n" % dead
    proxy(text, ports=[port])
    wait_rows(sock, lambda r: r[("px", "down")]["status"] == "DOWN"
              and r[("px", "s1")]["status"] == "UP")
    rows = csv_rows(cli(sock, "show stat up"))
    assert sorted(k[1] for k in rows) == ["BACKEND", "FRONTEND", "s1"]
    assert rows[("px", "BACKEND")]["status"] == "UP (1/3)"
    rows = csv_rows(cli(sock, "show stat no-maint"))
    assert sorted(k[1] for k in rows) == ["BACKEND", "FRONTEND", "down", "s1"]
    rows = csv_rows(cli(sock, "show stat"))
    assert rows[("px", "off")]["status"] == "MAINT"
    assert rows[("px", "BACKEND")]["status"] == "UP"
    assert rows[("px", "down")]["check_desc"] == "Layer4 connection problem"


def test_clear_counters(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "stats.sock")
    oper = str(tmp_path / "oper.sock")
    b = backends(1)
    text = cfg(port, b, sock, glob=["stats socket %s mode 600 level operator" % oper])
    proxy(text, ports=[port])
    get(port, 3)
    rows = wait_rows(sock, lambda r: int(r[("px", "s1")]["hrsp_2xx"]) >= 3)
    assert int(rows[("px", "s1")]["smax"]) >= 1
    assert cli(oper, "clear counters all") == "Permission denied\n\n"
    assert cli(oper, "clear counters") == "\n"
    rows = csv_rows(cli(sock, "show stat"))
    assert rows[("px", "s1")]["smax"] == "0"
    assert rows[("px", "s1")]["stot"] == "3"  # kept
    assert cli(sock, "clear counters all") == "\n"
    rows = csv_rows(cli(sock, "show stat"))
    for key in [("px", "s1"), ("px", "BACKEND")]:
        assert rows[key]["stot"] == "0" and rows[key]["hrsp_2xx"] == "0"
    get(port, 2)
    rows = wait_rows(sock, lambda r: int(r[("px", "s1")]["hrsp_2xx"]) >= 2)
    assert rows[("px", "s1")]["hrsp_2xx"] == "2"


def test_show_backend_and_servers_conn(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "stats.sock")
    b = backends(2)
    text = cfg(port, b, sock, glob=["nbthread 2"])
    text += "backend other\n    server o1 127.0.0.1:%d\n" % b[0].port
    text += "frontend onlyfe\n    bind 127.0.0.1:%d\n    default_backend other\n" % free_port()
    proxy(text, ports=[port])
    assert cli(sock, "show backend") == "# name\npx\nother\n\n"
    out = cli(sock, "show servers conn").splitlines()
    assert out[0] == ("# bkname/svname bkid/svid addr port - purge_delay used_cur used_max "
                      "need_est unsafe_nb safe_nb idle_lim idle_cur idle_per_thr[2]")
    assert [ln.split()[0] for ln in out[1:] if ln] == ["px/s1", "px/s2", "other/o1"]
    f = out[1].split()
    assert len(f) == 15 and f[2] == "127.0.0.1" and f[3] == str(b[0].port) and f[4] == "-"
    assert f[5] == "5000"
    out = cli(sock, "show servers conn other").splitlines()
    assert [ln.split()[0] for ln in out[1:] if ln] == ["other/o1"]
    assert cli(sock, "show servers conn nosuch") == "Can't find backend.\n\n"


def test_rates_and_their_maxima(proxy, backends, tmp_path):
    port, sock, _ = start(proxy, tmp_path, backends, 1)
    get(port, 20)
    time.sleep(0.6)  # the maxima are sampled every 250 ms
    rows = csv_rows(cli(sock, "show stat"))
    fe, be, srv = rows[("px", "FRONTEND")], rows[("px", "BACKEND")], rows[("px", "s1")]
    assert int(fe["req_rate_max"]) >= 10
    assert int(be["rate_max"]) >= 10 and int(srv["rate_max"]) >= 10
    assert int(fe["req_rate"]) <= 21 and int(be["rate"]) <= 20  # + the readiness probe
    # once the rates are back to 0 (a sampled maximum follows the current rate), the
    # cleared maxima stay 0
    wait_rows(sock, lambda r: r[("px", "s1")]["rate"] == r[("px", "FRONTEND")]["req_rate"] == "0")
    assert cli(sock, "clear counters") == "\n"
    time.sleep(0.3)
    rows = csv_rows(cli(sock, "show stat"))
    assert rows[("px", "s1")]["rate_max"] == "0"
    assert rows[("px", "FRONTEND")]["req_rate_max"] == "0"


def test_socket_stats_listener_lines(proxy, backends, tmp_path):
    port, port2, sock = free_port(), free_port(), str(tmp_path / "stats.sock")
    b = backends(1)
    text = make_cfg(port, b, glob=["stats socket %s mode 600 level admin" % sock],
                    listen=["option socket-stats", "bind 127.0.0.1:%d name second" % port2])
    proxy(text, ports=[port, port2])
    for _ in range(3):
        get(port2, 1)
    rows = wait_rows(sock, lambda r: int(r[("px", "second")]["stot"]) >= 4)
    first, second = rows[("px", "sock-1")], rows[("px", "second")]
    assert first["type"] == "3" and first["sid"] == "1" and first["status"] == "OPEN"
    assert first["addr"] == "127.0.0.1:%d" % port
    assert second["sid"] == "2" and second["addr"] == "127.0.0.1:%d" % port2
    assert second["stot"] == "4"  # 3 + the readiness probe
    assert list(csv_rows(cli(sock, "show stat")))[:3] == [("px", "FRONTEND"), ("px", "sock-1"),
                                                           ("px", "second")]
    assert sorted(csv_rows(cli(sock, "show stat -1 8 -1"))) == [("px", "second"),
                                                                ("px", "sock-1")]
    typed = cli(sock, "show stat -1 8 -1 typed")
    assert re.search(r"^L\.\d+\.2\.7\.stot\.1:MCP:u64:4$", typed, re.M)


def get_path(port, path, n):
    with httpc.connect(port) as s:
        rd = httpc.Reader(s)
        for _ in range(n):
            s.sendall(b"GET " + path + b" HTTP/1.1\r\nHost: t\r\n\r\n")
            assert httpc.read_response(rd).status == 200


def test_timings_averages_and_maxima(proxy, backends, tmp_path):
    """qtime/ctime/rtime/ttime: the averages of the exchanges that got a response (ms),
    and their maxima, on server and backend lines; `clear counters` zeroes the maxima."""
    port, sock, _ = start(proxy, tmp_path, backends, 1)
    get_path(port, b"/?delay=0.2", 2)
    get_path(port, b"/?delay=0.05", 2)
    rows = wait_rows(sock, lambda r: int(r[("px", "s1")]["hrsp_2xx"]) >= 5)
    for sv in ("s1", "BACKEND"):
        r = rows[("px", sv)]
        # about (200 + 200 + 50 + 50 + ~0 for the readiness probe) / 5 ms
        assert 80 <= int(r["rtime"]) <= 180, (sv, r["rtime"])
        assert int(r["ttime"]) >= int(r["rtime"])
        assert 195 <= int(r["rtime_max"]) <= 400, (sv, r["rtime_max"])
        assert int(r["ttime_max"]) >= int(r["rtime_max"])
        assert int(r["qtime"]) == int(r["qtime_max"]) == 0
        assert int(r["ctime_max"]) < 100
    typed = typed_rows(cli(sock, "show stat typed"))
    assert typed[("px", "s1")]["rtime"][:2] == ("MaP", "u32")
    assert typed[("px", "s1")]["rtime_max"][:2] == ("MMP", "u32")
    assert cli(sock, "clear counters") == "\n"
    rows = csv_rows(cli(sock, "show stat"))
    assert rows[("px", "s1")]["rtime_max"] == "0"
    assert rows[("px", "BACKEND")]["ttime_max"] == "0"
    assert int(rows[("px", "s1")]["rtime"]) >= 80  # the averages stay


def agent_server(line):
    """A TCP agent answering <line> to every connection; returns (port, stop)."""
    import socket
    import threading
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    srv.settimeout(0.2)
    done = threading.Event()

    def run():
        while not done.is_set():
            try:
                c, _ = srv.accept()
            except OSError:
                continue
            with c:
                c.sendall(line)

    t = threading.Thread(target=run, daemon=True)
    t.start()

    def stop():
        done.set()
        t.join(2)
        srv.close()
    return srv.getsockname()[1], stop


def test_check_and_agent_columns(proxy, backends, tmp_path):
    """last_chk (the check's detail), the agent columns, chkfail counting only the
    failures of a check not yet at 0 (2.6), the backend's cookie column, and the
    check/agent ports of `show servers state`."""
    aport, stop = agent_server(b"up 75%\n")
    try:
        port, sock = free_port(), str(tmp_path / "stats.sock")
        dead = free_port()
        bs = backends(1)
        cfg_txt = make_cfg(port, bs, glob=["stats socket %s mode 600 level admin" % sock],
                           listen=["cookie SRVID insert indirect nocache"],
                           srv_opts="check inter 100 cookie a agent-check agent-port %d "
                                    "agent-inter 100" % aport)
        cfg_txt += "    server dead 127.0.0.1:%d check inter 100 port %d\n" % (dead, dead)
        proxy(cfg_txt, ports=[port])
        rows = wait_rows(sock, lambda r: r[("px", "s1")]["last_agt"] != ""
                         and r[("px", "dead")]["status"] == "DOWN")
        time.sleep(0.5)  # a few more failed checks of a server already DOWN
        rows = csv_rows(cli(sock, "show stat"))
        s1, dead_r, be = rows[("px", "s1")], rows[("px", "dead")], rows[("px", "BACKEND")]
        assert s1["last_agt"] == "via agent : up"
        assert s1["agent_status"] == "L7OK" and s1["agent_desc"] == "Layer7 check passed"
        assert s1["agent_code"] == "0"
        assert dead_r["last_chk"] == "Connection refused"
        assert dead_r["check_status"] == "L4CON"
        assert dead_r["chkfail"] == "1" and dead_r["chkdown"] == "1"
        assert dead_r["agent_status"] == dead_r["last_agt"] == ""
        assert be["cookie"] == "SRVID"
        # s1's weight is 75% of 1: 0, so no server takes traffic: DOWN, as 2.6
        assert s1["weight"] == "0" and be["status"] == "DOWN" and be["act"] == "0"
        state = cli(sock, "show servers state px").splitlines()
        cols = state[1].lstrip("# ").split()
        srv = {ln.split()[3]: dict(zip(cols, ln.split())) for ln in state[2:] if ln}
        assert srv["s1"]["srv_agent_port"] == str(aport)
        assert srv["dead"]["srv_check_port"] == str(dead)
        assert srv["dead"]["srv_agent_port"] == str(dead)  # 2.6: "port" is the agent's too
    finally:
        stop()


def test_backend_without_servers_is_up(proxy, backends, tmp_path):
    port, sock = free_port(), str(tmp_path / "stats.sock")
    cfg_txt = make_cfg(port, backends(1), glob=["stats socket %s mode 600 level admin" % sock])
    cfg_txt += "backend empty\n"
    proxy(cfg_txt, ports=[port])
    rows = csv_rows(cli(sock, "show stat"))
    assert rows[("empty", "BACKEND")]["status"] == "UP"


def test_rate_max_follows_the_first_request(proxy, backends, tmp_path):
    port, sock, _ = start(proxy, tmp_path, backends, 1)
    get(port, 1)
    rows = csv_rows(cli(sock, "show stat"))  # at once: before the 250 ms sampling
    fe = rows[("px", "FRONTEND")]
    assert int(fe["req_rate_max"]) >= int(fe["req_rate"]) >= 1


def test_default_maxconn_from_the_fd_limit(proxy, backends, tmp_path):
    """2.6 sets aside 20 fds, one per listener and check, three per thread, and takes
    half of the rest (the limit being the hard one)."""
    import resource
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard == resource.RLIM_INFINITY or hard > 1000000:
        import pytest
        pytest.skip("no finite fd limit")
    port, sock, _ = start(proxy, tmp_path, backends, 1, glob=["nbthread 2"])
    info = dict(ln.split(": ", 1) for ln in cli(sock, "show info").splitlines() if ": " in ln)
    # listeners: the bind and the stats socket; no check
    assert int(info["Maxconn"]) == (hard - (20 + 2 + 3 * 2)) // 2
