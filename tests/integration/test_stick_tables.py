"""Stick tables as users configure them: rate limiting per source address, counters that
tracking keeps (read back with "show table"), the sc_/src_/table_ fetches and converters,
expiry, LRU eviction, and "stick" persistence to a server.

Owns: the behaviour of stick-table, track-sc*, sc-inc-gpc*/sc-set-gpt*, stick on/match/
store-*, and the show/clear/set table commands. Expected values come from Debian's
/usr/sbin/haproxy (2.6): run with HAPROXY_BIN=/usr/sbin/haproxy to check them. The proxy is
probed through its stats socket, never through its port (an empty connection would count
in connection-level trackers). Loops are bounded; no test depends on timing except the
expiry one, which waits with a bound.
"""

import os
import socket
import threading
import time

import httpc
import pytest
from conftest import cli, free_port, run_haproxy

DEFAULTS = ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 10s",
            "    timeout server 10s"]


def start(proxy, tmp_path, body, glob=()):
    """Starts a proxy whose config is <body> (sections) plus a global section with a stats
    socket; returns the socket path once it answers."""
    sock = tmp_path / "stats.sock"
    lines = ["global", "    stats socket %s level admin" % sock] + ["    " + g for g in glob]
    p = proxy("\n".join(lines + DEFAULTS) + "\n" + body)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        assert p.alive(), p.stderr()
        if os.path.exists(sock):
            try:
                if "# table" in cli(str(sock), "show table", timeout=1.0) or \
                        cli(str(sock), "show info", timeout=1.0):
                    return str(sock)
            except OSError:
                pass
        time.sleep(0.05)
    pytest.fail("the stats socket did not answer: " + p.stderr())


def table(sock, name):
    """{key: {field: int}} of "show table <name>" (the fields after the key, use included)."""
    out = cli(sock, "show table %s" % name)
    lines = [ln for ln in out.splitlines() if ln and not ln.startswith("#")]
    rows = {}
    for ln in lines:
        words = ln.split()
        key = words[1].split("=", 1)[1]
        fields = {}
        for w in words[2:]:
            k, _, v = w.partition("=")
            fields[k] = int(v) if v.lstrip("-").isdigit() else v
        rows[key] = fields
    return rows


def used(sock, name):
    head = cli(sock, "show table %s" % name).splitlines()[0]
    return int(head.rsplit("used:", 1)[1])


def get(port, path="/", headers=(), close=True):
    return httpc.get(port, path, headers=headers) if close else None


RATE_LIMIT = """
frontend fe
    bind 127.0.0.1:{port}
    stick-table type ip size 100k expire 30s store http_req_rate(10s)
    http-request track-sc0 src
    http-request deny deny_status 429 if {{ sc_http_req_rate(0) gt 100 }}
    default_backend be
backend be
    server s1 127.0.0.1:{srv}
"""

# Debian's 2.6 is built with a single thread group: the groups case is checked on hapx only
THREADS = [pytest.param((), id="1thread"),
           pytest.param(("nbthread 4",), id="4threads"),
           pytest.param(("nbthread 4", "thread-groups 2"), id="4threads-2groups",
                        marks=pytest.mark.ours)]


@pytest.mark.parametrize("glob", THREADS)
def test_rate_limit_101st_request_is_the_first_refused(proxy, backend, tmp_path, glob):
    port = free_port()
    start(proxy, tmp_path, RATE_LIMIT.format(port=port, srv=backend.port), glob)
    # every request on a new connection: they spread over the threads and groups
    statuses = [get(port).status for _ in range(110)]
    assert statuses[:100] == [200] * 100
    assert statuses[100:] == [429] * 10


@pytest.mark.parametrize("glob", THREADS)
def test_rate_limit_over_keepalive_connections(proxy, backend, tmp_path, glob):
    port = free_port()
    start(proxy, tmp_path, RATE_LIMIT.format(port=port, srv=backend.port), glob)
    conns = [httpc.connect(port) for _ in range(4)]
    readers = [httpc.Reader(c) for c in conns]
    statuses = []
    try:
        for i in range(104):
            c = i % 4
            conns[c].sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            statuses.append(httpc.read_response(readers[c]).status)
    finally:
        for c in conns:
            c.close()
    assert statuses[:100] == [200] * 100
    assert statuses[100:] == [429] * 4


def test_rate_limit_under_concurrent_clients(proxy, backend, tmp_path):
    """8 clients at once: never more than 100 pass. One may read the rate after another
    client's request counted, so a few of the last ones may be refused early."""
    port = free_port()
    start(proxy, tmp_path, RATE_LIMIT.format(port=port, srv=backend.port), ("nbthread 4",))
    results = []
    lock = threading.Lock()

    def client():
        mine = [get(port).status for _ in range(20)]
        with lock:
            results.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(results) == 160
    assert set(results) <= {200, 429}
    assert 93 <= results.count(200) <= 100


COUNTERS = """
frontend fe
    bind 127.0.0.1:{port}
    http-request track-sc0 src table st
    http-request sc-inc-gpc0(0)
    http-request sc-set-gpt0(0) 7 if {{ path /gpt }}
    http-request deny if {{ path /deny }}
    default_backend be
backend be
    server s1 127.0.0.1:{srv}
backend st
    stick-table type ip size 100 expire 30s store conn_cnt,conn_cur,http_req_cnt,http_req_rate(10s),http_err_cnt,http_fail_cnt,gpc0,gpt0
"""


def test_http_tracking_counters(proxy, backend, tmp_path):
    port = free_port()
    sock = start(proxy, tmp_path, COUNTERS.format(port=port, srv=backend.port))
    with httpc.connect(port) as s:
        rd = httpc.Reader(s)
        for path in ("/", "/deny", "/?status=404", "/?status=503", "/?status=501", "/gpt"):
            s.sendall(("GET %s HTTP/1.1\r\nHost: t\r\n\r\n" % path).encode())
            httpc.read_response(rd)
    # the last stream lets its entry go just after its response reached the client
    row = wait_row(sock, "st", "127.0.0.1", "use", 0)
    # each request starts a tracking: conn_cnt counts requests, conn_cur is back to 0;
    # a deny and a 4xx are errors, a 503 is a failure (not 501)
    assert row["conn_cnt"] == 6 and row["conn_cur"] == 0, row
    assert row["http_req_cnt"] == 6 and row["http_req_rate(10000)"] == 6, row
    assert row["http_err_cnt"] == 2 and row["http_fail_cnt"] == 1, row
    assert row["gpc0"] == 6 and row["gpt0"] == 7, row
    assert 29000 <= row["exp"] <= 30000 and row["use"] == 0, row


CONN_TRACK = """
frontend fe
    bind 127.0.0.1:{port}
    stick-table type ip size 100 expire 30s store conn_cnt,conn_cur,sess_cnt,http_req_cnt,http_err_cnt
    tcp-request connection track-sc0 src
    default_backend be
backend be
    server s1 127.0.0.1:{srv}
"""


def wait_row(sock, name, key, field, want):
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        row = table(sock, name).get(key, {})
        if row.get(field) == want:
            return row
        time.sleep(0.05)
    return table(sock, name).get(key, {})


def test_connection_level_tracking(proxy, backend, tmp_path):
    port = free_port()
    sock = start(proxy, tmp_path, CONN_TRACK.format(port=port, srv=backend.port))
    a = httpc.connect(port)
    ra = httpc.Reader(a)
    for _ in range(2):
        a.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        assert httpc.read_response(ra).status == 200
    b = httpc.connect(port)
    rb = httpc.Reader(b)
    b.sendall(b"GET /?status=404 HTTP/1.1\r\nHost: t\r\n\r\n")
    assert httpc.read_response(rb).status == 404
    row = wait_row(sock, "fe", "127.0.0.1", "conn_cur", 2)
    assert row["conn_cur"] == 2 and row["use"] == 2, row
    assert row["conn_cnt"] == 2 and row["sess_cnt"] == 2, row
    assert row["http_req_cnt"] == 3 and row["http_err_cnt"] == 1, row
    a.close()
    b.close()
    row = wait_row(sock, "fe", "127.0.0.1", "conn_cur", 0)
    assert row["conn_cur"] == 0 and row["use"] == 0, row
    # a connection closed without a request counts as a failed request
    c = httpc.connect(port)
    c.close()
    row = wait_row(sock, "fe", "127.0.0.1", "http_err_cnt", 2)
    assert row["conn_cnt"] == 3 and row["http_req_cnt"] == 4 and row["http_err_cnt"] == 2, row


FETCHES = """
frontend fe
    bind 127.0.0.1:{port}
    http-request track-sc0 src table st
    http-request sc-inc-gpc(1,0)
    http-after-response set-header X-Sc %[sc_http_req_cnt(0)]
    http-after-response set-header X-Sc0 %[sc0_http_req_cnt]
    http-after-response set-header X-Src %[src_http_req_cnt(st)]
    http-after-response set-header X-Conv %[src,table_http_req_cnt(st)]
    http-after-response set-header X-In %[src,in_table(st)]
    http-after-response set-header X-Trk0 %[sc0_tracked]
    http-after-response set-header X-Trk1 %[sc_tracked(1)]
    http-after-response set-header X-Trackers %[sc0_trackers]
    http-after-response set-header X-Gpc %[sc_get_gpc(1,0)]
    http-after-response set-header X-Cnt %[table_cnt(st)]
    http-after-response set-header X-Avl %[table_avl(st)]
    http-after-response set-header X-Upd %[src_updt_conn_cnt(st)]
    http-after-response set-header X-Kb %[sc0_kbytes_in]
    default_backend be
backend be
    server s1 127.0.0.1:{srv}
backend st
    stick-table type ip size 50 expire 30s store http_req_cnt,conn_cnt,gpc(2),bytes_in_cnt
"""


def test_fetches_and_converters(proxy, backend, tmp_path):
    port = free_port()
    sock = start(proxy, tmp_path, FETCHES.format(port=port, srv=backend.port))
    # one keep-alive connection: each request's stream has released its tracker before the
    # next one starts (a new connection per request may land on the other thread while the
    # previous stream is still being released, and sc0_trackers would read 2)
    c = httpc.connect(port)
    rd = httpc.Reader(c)
    for i in range(1, 4):
        c.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        r = httpc.read_response(rd)
        assert r.status == 200
        h = {k: r.header(k) for k in ("X-Sc", "X-Sc0", "X-Src", "X-Conv", "X-In", "X-Trk0",
                                       "X-Trk1", "X-Trackers", "X-Gpc", "X-Cnt", "X-Avl",
                                       "X-Upd", "X-Kb")}
        assert h == {"X-Sc": str(i), "X-Sc0": str(i), "X-Src": str(i), "X-Conv": str(i),
                     "X-In": "1", "X-Trk0": "1", "X-Trk1": "0", "X-Trackers": "1",
                     "X-Gpc": str(i), "X-Cnt": "1", "X-Avl": "49",
                     "X-Upd": str(2 * i), "X-Kb": "0"}, h
    c.close()
    row = table(sock, "st")["127.0.0.1"]
    assert row["gpc0"] == 0 and row["gpc1"] == 3 and row["conn_cnt"] == 6, row


def test_expiry(proxy, backend, tmp_path):
    port = free_port()
    sock = start(proxy, tmp_path, """
frontend fe
    bind 127.0.0.1:%d
    stick-table type ip size 10 expire 1s store http_req_cnt
    http-request track-sc0 src
    default_backend be
backend be
    server s1 127.0.0.1:%d
""" % (port, backend.port))
    assert get(port).status == 200
    t0 = time.monotonic()
    assert used(sock, "fe") == 1
    while used(sock, "fe") and time.monotonic() - t0 < 5:
        time.sleep(0.05)
    gone = time.monotonic() - t0
    assert used(sock, "fe") == 0
    assert 0.7 <= gone < 3.0, gone


@pytest.mark.parametrize("opts,after_d,after_e", [
    ("", ["a", "c", "d"], ["a", "d", "e"]),
    ("expire 10s", ["a", "c", "d"], ["a", "d", "e"]),
    ("nopurge", ["a", "b", "c"], ["a", "b", "c"]),
])
def test_full_table_evicts_the_least_recently_used(proxy, backend, tmp_path, opts, after_d,
                                                   after_e):
    port = free_port()
    sock = start(proxy, tmp_path, """
frontend fe
    bind 127.0.0.1:%d
    http-request track-sc0 req.hdr(x-key) table st
    default_backend be
backend be
    server s1 127.0.0.1:%d
backend st
    stick-table type string len 8 size 3 %s store gpc0
""" % (port, backend.port, opts))
    seen = {}
    for key in ("a", "b", "c", "a", "d", "e"):
        assert get(port, headers=[("X-Key", key)]).status == 200
        seen[key] = sorted(table(sock, "st"))
        time.sleep(0.01)  # writes in one millisecond may be evicted in either order
    assert seen["c"] == ["a", "b", "c"]
    assert seen["d"] == after_d
    assert seen["e"] == after_e


PERSIST = """
frontend fe
    bind 127.0.0.1:{port}
    default_backend be
backend be
    balance roundrobin
    stick-table type string len 32 size 100 expire 30s
    stick on req.hdr(x-user)
    server s1 127.0.0.1:{s1}
    server s2 127.0.0.1:{s2}
"""


def test_stick_on_keeps_a_user_on_one_server(proxy, backends, tmp_path):
    b1, b2 = backends(2)
    port = free_port()
    sock = start(proxy, tmp_path, PERSIST.format(port=port, s1=b1.port, s2=b2.port))
    first = {}
    for rnd in range(3):
        for u in ("u1", "u2", "u3", "u4"):
            r = get(port, headers=[("X-User", u)])
            assert r.status == 200
            first.setdefault(u, r.header("X-Server"))
            assert r.header("X-Server") == first[u], (u, rnd)
    assert set(first.values()) == {"s1", "s2"}
    rows = table(sock, "be")
    assert {u: rows[u]["server_id"] for u in first} == \
        {u: 1 if s == "s1" else 2 for u, s in first.items()}
    assert all(rows[u]["server_key"] == first[u] for u in first)
    # requests without the header are balanced as usual
    assert {get(port).header("X-Server") for _ in range(4)} == {"s1", "s2"}


MATCH = """
frontend fe
    bind 127.0.0.1:{port}
    default_backend be
backend be
    balance roundrobin
    stick-table type string len 32 size 100 expire 30s
    stick match req.hdr(x-user)
    stick store-response res.hdr(x-server)
    server s1 127.0.0.1:{s1}
    server s2 127.0.0.1:{s2}
"""


def test_stick_match_uses_a_stored_server_id(proxy, backends, tmp_path):
    b1, b2 = backends(2)
    port = free_port()
    sock = start(proxy, tmp_path, MATCH.format(port=port, s1=b1.port, s2=b2.port))
    # the responses store the server that answered under its own name
    for _ in range(2):
        get(port)
    rows = table(sock, "be")
    assert rows["s1"]["server_id"] == 1 and rows["s2"]["server_id"] == 2, rows
    # a key set from the CLI with a server id only
    assert cli(sock, "set table be key alice data.server_id 2").strip() == ""
    assert {get(port, headers=[("X-User", "alice")]).header("X-Server")
            for _ in range(4)} == {"s2"}
    assert {get(port, headers=[("X-User", "s1")]).header("X-Server")
            for _ in range(4)} == {"s1"}
    assert {get(port, headers=[("X-User", "nobody")]).header("X-Server")
            for _ in range(4)} == {"s1", "s2"}


def test_non_stick_server_is_not_stored(proxy, backends, tmp_path):
    b1, b2 = backends(2)
    port = free_port()
    sock = start(proxy, tmp_path, """
frontend fe
    bind 127.0.0.1:%d
    default_backend be
backend be
    stick-table type string len 32 size 100
    stick store-request req.hdr(x-user)
    server s1 127.0.0.1:%d non-stick
    server s2 127.0.0.1:%d
""" % (port, b1.port, b2.port))
    for u in ("a", "b", "c", "d"):
        get(port, headers=[("X-User", u)])
    rows = table(sock, "be")
    assert len(rows) == 2 and {r["server_id"] for r in rows.values()} == {2}, rows


def test_show_clear_set_table(proxy, backend, tmp_path):
    port = free_port()
    sock = start(proxy, tmp_path, """
frontend fe
    bind 127.0.0.1:%d
    default_backend be
backend be
    server s1 127.0.0.1:%d
backend t4
    stick-table type ip size 10 store gpc0,http_req_rate(10s)
backend ti
    stick-table type integer size 10 store gpc0
backend ts
    stick-table type string len 4 size 10 store gpc0
""" % (port, backend.port))
    # the latest declared first
    assert cli(sock, "show table") == "".join([
        "# table: ts, type: string, size:10, used:0\n",
        "# table: ti, type: integer, size:10, used:0\n",
        "# table: t4, type: ip, size:10, used:0\n\n"])
    assert cli(sock, "show table nope").strip() == "No such table"
    assert cli(sock, "set table ti key -3 data.gpc0 1").strip() == "Invalid key"
    for k, v in (("10.0.0.1", 5), ("10.0.0.2", 0), ("10.0.0.3", 9)):
        assert cli(sock, "set table t4 key %s data.gpc0 %d" % (k, v)).strip() == ""
    cli(sock, "set table ti key 12345 data.gpc0 7")
    cli(sock, "set table ts key abcdefg data.gpc0 1")
    assert table(sock, "ti") == {"12345": {"use": 0, "exp": 0, "gpc0": 7}}
    assert list(table(sock, "ts")) == ["abcd"]
    assert sorted(table(sock, "t4")) == ["10.0.0.1", "10.0.0.2", "10.0.0.3"]
    assert sorted(table(sock, "t4 data.gpc0 gt 4")) == ["10.0.0.1", "10.0.0.3"]
    assert list(table(sock, "t4 key 10.0.0.3")) == ["10.0.0.3"]
    assert table(sock, "t4")["10.0.0.1"]["http_req_rate(10000)"] == 0
    cli(sock, "clear table t4 key 10.0.0.1")
    assert sorted(table(sock, "t4")) == ["10.0.0.2", "10.0.0.3"]
    cli(sock, "clear table t4 data.gpc0 eq 0")
    assert sorted(table(sock, "t4")) == ["10.0.0.3"]
    cli(sock, "clear table t4")
    assert used(sock, "t4") == 0


@pytest.mark.ours
def test_set_table_refuses_a_key_that_is_no_address(proxy, backend, tmp_path):
    """HAProxy 2.6 parses such keys leniently ("not-an-ip" becomes 0.0.0.0, "10.0.0.300"
    becomes 10.0.1.44): a typo silently creates a wrong entry. Refused here."""
    port = free_port()
    sock = start(proxy, tmp_path, """
frontend fe
    bind 127.0.0.1:%d
    default_backend be
backend be
    server s1 127.0.0.1:%d
backend t4
    stick-table type ip size 10 store gpc0
""" % (port, backend.port))
    for key in ("not-an-ip", "10.0.0.300", "1.2.3", "::1"):
        assert cli(sock, "set table t4 key %s data.gpc0 1" % key).strip() == "Invalid key"
    assert used(sock, "t4") == 0


@pytest.mark.parametrize("body,words", [
    ("defaults\n    stick-table type ip size 10\n", "'stick-table' is not supported in"),
    ("backend b\n    stick-table type ip\n", "stick-table: missing size"),
    ("backend b\n    stick-table size 10\n", "stick-table: missing type"),
    ("backend b\n    stick-table type foo size 10\n", "stick-table: unknown type 'foo'"),
    ("backend b\n    stick-table type ip size 10 store foo\n",
     "stick-table: unknown store option 'foo'"),
    ("backend b\n    stick-table type ip size 10 store http_req_rate\n",
     "missing argument to store option 'http_req_rate'"),
    ("backend b\n    stick-table type ip size 10 store gpt(2),gpt0\n",
     "simultaneous usage of 'gpt' and 'gpt0'"),
    ("backend b\n    stick-table type ip size 10 store gpc(101)\n",
     "array size is out of allowed range (1-100)"),
    ("backend b\n    stick-table type ip size 10\n    stick-table type ip size 10\n",
     "conflicts with table declared in"),
    ("frontend f\n    bind 127.0.0.1:18001\n    http-request track-sc0 src table nope\n",
     "unable to find table 'nope'"),
    ("frontend f\n    bind 127.0.0.1:18001\n    http-request track-sc3 src\n",
     "track-sc number exceeding 2"),
    ("backend b\n    stick-table type ip size 10\n    stick bogus src\n",
     "'stick' expects 'on', 'match', or 'store'"),
    ("backend b\n    stick match src table nope\n", "unable to find stick-table 'nope'"),
    ("defaults\n    stick on src\n", "'stick' not allowed in 'defaults' section"),
])
def test_config_errors(tmp_path, body, words):
    cfg = tmp_path / "c.cfg"
    cfg.write_text("\n".join(DEFAULTS) + "\n" + body)
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    assert words in r.stderr, r.stderr


def test_stick_in_a_frontend_is_ignored_with_a_warning(tmp_path):
    cfg = tmp_path / "c.cfg"
    cfg.write_text("\n".join(DEFAULTS) + "\nfrontend f\n    bind 127.0.0.1:18001\n"
                   "    stick-table type ip size 10\n    stick on src\n")
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode == 0, r.stderr
    assert "'stick' ignored because frontend 'f' has no backend capability" in r.stderr


@pytest.mark.ours
def test_peers_sections_are_refused(tmp_path):
    """HAProxy synchronizes tables through peers sections; this proxy has none yet and
    says so instead of accepting a table that would not be shared."""
    cfg = tmp_path / "c.cfg"
    cfg.write_text("\n".join(DEFAULTS) + "\npeers p\n    peer a 127.0.0.1:10000\n"
                   "    table t type ip size 10\n")
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    assert "'peers' sections are not supported yet" in r.stderr
