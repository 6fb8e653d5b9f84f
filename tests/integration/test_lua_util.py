"""The Lua Map and Regex classes, the core helpers (tokenize, concat, parse_addr,
match_addr, queue), core.add_acl/del_acl/set_map/del_map and txn:reply()/txn:done(),
driven from actions through real sockets.

Owns: what a client receives from actions using them (results rendered by
`http-request return`), what later requests and `show map`/`show acl` see after a script
changed a map or an ACL (on several threads), txn:done()'s replies from the request,
response and tcp-request content rules (statuses, headers, bodies, the log line), and the
errors a script gets. The scripts are tests/integration/lua/util_*.lua.
"""

import pathlib
import re
import time

import httpc
import pytest
from conftest import cli, free_port

LUA = pathlib.Path(__file__).resolve().parent / "lua"

DEFAULTS = """defaults
    mode http
    timeout connect 2s
    timeout client 5s
    timeout server 5s
"""


def get(port, path="/", headers=(), method="GET"):
    hdrs = "".join("%s: %s\r\n" % h for h in headers)
    raw = ("%s %s HTTP/1.1\r\nHost: t\r\n%sConnection: close\r\n\r\n"
           % (method, path, hdrs)).encode()
    return httpc.request(port, raw, method=method)


def wait_file(path, timeout=5.0):
    deadline = time.monotonic() + timeout
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)


# ---- maps, regexes, helpers ----

UTIL_CFG = """global
    nbthread 4
    lua-load {lua}/util_map.lua
    stats socket {sock} level admin
""" + DEFAULTS + """frontend fe
    bind 127.0.0.1:{port}
    acl blocked req.hdr_ip(x-src) -f {lua}/util_block.acl
    http-request lua.map_look if {{ path /map }}
    http-request lua.map_errors if {{ path /errors }}
    http-request lua.regex if {{ path /regex }}
    http-request lua.util if {{ path /util }}
    http-request lua.acl_op if {{ path /op }}
    http-request set-var(txn.r) str(blocked) if {{ path /see }} blocked
    http-request return status 200 content-type text/plain lf-string "%[var(txn.r)]" if {{ var(txn.r) -m found }}
    http-request return status 200 content-type text/plain lf-string "m=%[req.hdr(x-k),map_str({lua}/util_hosts.map,none)] p=%[path,map_beg({lua}/util_paths.map,none)]"
"""


@pytest.fixture
def util(tmp_path, proxy):
    port = free_port()
    sock = tmp_path / "s.sock"
    p = proxy(UTIL_CFG.format(lua=LUA, port=port, sock=sock), ports=[port])
    wait_file(sock)
    return {"port": port, "sock": sock, "proxy": p}


def body(port, path, **hdrs):
    r = get(port, path, [(k.replace("_", "-"), v) for k, v in hdrs.items()])
    assert r.status == 200, r
    return r.body.decode()


@pytest.mark.parametrize("hdrs,want", [
    ({"x_k": "a.com", "x_ip": "10.1.2.3", "x_n": "20"},
     "str=be1 beg=nil dir=nil sub=be1 dom=be1 end=be1 reg=nil def=be1 s=be1 ip=ten "
     "int=twenty fn=be1"),
    ({"x_k": "/api/v2/x", "x_ip": "2001:db8::5", "x_n": "1"},
     "str=nil beg=api2 dir=api sub=nil dom=nil end=nil reg=nil def=nil s= ip=doc6 "
     "int=one fn=nil"),
    ({"x_k": "/user/42", "x_ip": "192.168.1.1", "x_n": "3"},
     "str=nil beg=nil dir=nil sub=nil dom=nil end=nil reg=user def=nil s= ip=one "
     "int=nil fn=nil"),
    ({"x_k": "x.www.example.org", "x_ip": "nope"},
     "str=nil beg=nil dir=nil sub=be3 dom=be3 end=be3 reg=nil def=nil s= ip=nil "
     "int=nil fn=nil"),
    ({"x_k": "A.COM"},
     "str=nil beg=nil dir=nil sub=nil dom=nil end=nil reg=nil def=nil s= ip=nil "
     "int=nil fn=nil"),
])
def test_map_lookups_by_method(util, hdrs, want):
    assert body(util["port"], "/map", **hdrs) == want


def test_map_refusals(util):
    lines = body(util["port"], "/errors").split(" || ")
    assert "'new': failed to open pattern file <%s/util_missing.map>." % LUA in lines[0]
    assert "doesn't support this match mode" in lines[1]
    assert "needs a valid match method" in lines[2]
    assert "util_words.map" in lines[3] and "line 1" in lines[3]  # w1 is no integer
    assert lines[4].startswith("false ")
    assert lines[4].endswith("'new': map: cannot load map at runtime.")
    assert lines[5] == "true"  # an integer map wants a number


@pytest.mark.parametrize("subject,want", [
    ("/api/v2/users", "exec=true match=true caps=/api/v2/users,v2,users needle=false/false"),
    ("/API/v2/users", "exec=false match=false caps= needle=false/false"),
    ("/x/NeEdLe", "exec=false match=false caps= needle=true/true"),
])
def test_regex(util, subject, want):
    got = body(util["port"], "/regex", x_s=subject)
    assert got == want + " bad=false/regex 'a(b' is invalid (error=missing closing " \
                         "parenthesis, erroffset=3)"


@pytest.mark.parametrize("hdrs,want", [
    ({"x_t": "a,,b;c,", "x_a": "127.0.0.1/32", "x_b": "127.0.0.0/8"},
     "tok=5:a||b|c| nob=3:a|b|c cat=a1b2c3 a=true b=true match=true/true"),
    ({"x_t": "", "x_a": "10.1.0.0/8", "x_b": "10.0.0.0/16"},
     "tok=1: nob=0: cat= a=true b=true match=false/false"),
    ({"x_t": "x", "x_a": "2001:db8:1::/48", "x_b": "2001:db8::/32"},
     "tok=1:x nob=1:x cat=x1 a=true b=true match=true/true"),
    ({"x_t": "x", "x_a": "::1", "x_b": "127.0.0.1"},
     "tok=1:x nob=1:x cat=x1 a=true b=true match=false/false"),
    ({"x_t": "x", "x_a": "10.0.0.1/33", "x_b": "10.0.0.1/255.255.0.0"},
     "tok=1:x nob=1:x cat=x1 a=false b=true match=false/false"),
])
def test_tokenize_concat_addresses(util, hdrs, want):
    assert body(util["port"], "/util", **hdrs) == want


def op(util, **hdrs):
    return body(util["port"], "/op", **hdrs)


def bodies(util, n=12, **hdrs):
    """n requests on n connections: with 4 threads they land on several of them."""
    return {body(util["port"], "/see", **hdrs) for _ in range(n)}


def test_set_map_and_del_map_seen_by_later_requests(util):
    hosts = "%s/util_hosts.map" % LUA
    assert bodies(util, x_k="c.com") == {"m=none p=none"}
    assert op(util, x_op="set_map", x_file=hosts, x_key="c.com", x_val="be9") == "done"
    assert bodies(util, x_k="c.com") == {"m=be9 p=none"}
    assert op(util, x_op="set_map", x_file=hosts, x_key="a.com", x_val="beA") == "done"
    assert bodies(util, x_k="a.com") == {"m=beA p=none"}
    dump = cli(util["sock"], "show map %s" % hosts)
    assert [l.split(" ", 1)[1] for l in dump.splitlines() if l] == [
        "a.com beA", "b.com be2", "www.example.org be3", "c.com be9"]
    assert op(util, x_op="del_map", x_file=hosts, x_key="a.com") == "done"
    assert bodies(util, x_k="a.com") == {"m=none p=none"}
    assert "a.com" not in cli(util["sock"], "show map %s" % hosts)
    # the Lua Map over the same file sees the change too
    assert body(util["port"], "/map", x_k="c.com").startswith("str=be9 ")


def test_add_acl_and_del_acl_seen_by_later_requests(util):
    acl = "%s/util_block.acl" % LUA
    assert bodies(util, x_k="k", x_src="11.0.0.1") == {"m=none p=none"}
    assert op(util, x_op="add_acl", x_file=acl, x_key="11.0.0.0/8") == "done"
    assert op(util, x_op="add_acl", x_file=acl, x_key="11.0.0.0/8") == "done"  # no twin
    assert bodies(util, x_k="k", x_src="11.0.0.1") == {"blocked"}
    keys = [l.split(" ", 1)[1] for l in cli(util["sock"], "show acl %s" % acl).splitlines()
            if l]
    assert keys == ["10.0.0.0/8", "11.0.0.0/8"]
    assert op(util, x_op="del_acl", x_file=acl, x_key="10.0.0.0/8") == "done"
    assert bodies(util, x_k="k", x_src="10.0.0.1") == {"m=none p=none"}
    assert bodies(util, x_k="k", x_src="11.0.0.1") == {"blocked"}
    # a pattern the ACL cannot take is ignored, as HAProxy does
    assert op(util, x_op="add_acl", x_file=acl, x_key="not-an-address") == "done"
    assert "not-an-address" not in cli(util["sock"], "show acl %s" % acl)


def test_acl_and_map_files_are_found_by_name_either_way(util):
    """HAProxy finds the file by its name whatever uses it: del_acl on a map file works."""
    paths = "%s/util_paths.map" % LUA
    assert body(util["port"], "/see/x", x_k="q").endswith("p=none")
    assert op(util, x_op="set_map", x_file=paths, x_key="/see", x_val="seen") == "done"
    assert body(util["port"], "/see/x", x_k="q") == "m=none p=seen"
    assert op(util, x_op="del_acl", x_file=paths, x_key="/see") == "done"
    assert body(util["port"], "/see/x", x_k="q") == "m=none p=none"


@pytest.mark.parametrize("fn,kind", [("set_map", "map"), ("add_acl", "acl"),
                                     ("del_acl", "acl")])
def test_unknown_files_are_errors(util, fn, kind):
    got = op(util, x_op=fn, x_file="/nonexistent/f", x_key="k", x_val="v")
    assert got == "error: '%s': unknown %s file '/nonexistent/f'" % (fn, kind)


def test_proxy_still_serves_after_script_errors(util):
    """Bad arguments raise Lua errors: the action fails, the proxy goes on."""
    r = get(util["port"], "/op", [("x-op", "nope"), ("x-file", "x")])
    assert r.status == 200 and r.body.startswith(b"error: ")
    for _ in range(3):
        assert body(util["port"], "/see", x_k="b.com") == "m=be2 p=none"
    assert util["proxy"].alive()


# ---- txn:reply / txn:done ----

REPLY_CFG = """global
    lua-load {lua}/util_reply.lua
""" + DEFAULTS + """    log stdout format raw local0
frontend fe
    bind 127.0.0.1:{port}
    log-format "%ST %tsc %HU"
    http-request set-var(txn.mode) req.hdr(x-rmode)
    http-request lua.reply if {{ req.hdr(x-mode) -m found }}
    http-request return status 200 content-type text/plain lf-string "r=%[var(txn.r)]" if {{ var(txn.r) -m found }}
    http-response lua.reply if {{ var(txn.mode) -m found }}
    http-after-response add-header x-after yes
    default_backend be
frontend tcpfe
    bind 127.0.0.1:{tport}
    log-format "%ST %tsc %HU"
    tcp-request inspect-delay 1s
    tcp-request content lua.reply
    default_backend be
frontend trfe
    bind 127.0.0.1:{rport}
    http-request set-var(txn.mode) req.hdr(x-tr)
    default_backend betr
frontend srv
    bind 127.0.0.1:{sport}
    http-request return status 200 content-type text/plain string "from server"
backend be
    server s1 127.0.0.1:{sport}
backend betr
    tcp-response inspect-delay 1s
    tcp-response content lua.reply
    server s1 127.0.0.1:{sport}
"""


@pytest.fixture
def reply(proxy):
    port, tport, rport, sport = free_port(), free_port(), free_port(), free_port()
    p = proxy(REPLY_CFG.format(lua=LUA, port=port, tport=tport, rport=rport, sport=sport),
              ports=[port, tport, rport, sport])
    return {"port": port, "tport": tport, "rport": rport, "proxy": p}


def log_lines(p, n, timeout=5.0):
    """The last n traffic log lines (the proxy logs to its stdout)."""
    deadline = time.monotonic() + timeout
    while True:
        p.out.flush()
        lines = [l for l in p.out_path.read_text(errors="replace").splitlines()
                 if re.match(r"-?\d+ \S{4} /", l)]
        if len(lines) >= n or time.monotonic() > deadline:
            return lines[-n:]
        time.sleep(0.05)


def raw(port, mode, method="GET", extra=""):
    req = ("%s / HTTP/1.1\r\nHost: t\r\nx-mode: %s\r\n%sConnection: close\r\n\r\n"
           % (method, mode, extra)).encode()
    return httpc.exchange(port, req)


def test_done_without_reply_closes(reply):
    data, closed = raw(reply["port"], "close")
    assert data == b"" and closed
    assert log_lines(reply["proxy"], 1)[0].endswith(" LR-- /")


def test_done_with_empty_reply(reply):
    r = get(reply["port"], headers=[("x-mode", "empty")])
    assert (r.status, r.reason, r.body) == (200, "OK", b"")
    assert r.header("content-length") == "0"
    assert r.header("x-after") == "yes"  # http-after-response rules see it
    assert log_lines(reply["proxy"], 1)[0] == "200 LR-- /"


def test_done_with_full_reply(reply):
    r = get(reply["port"], headers=[("x-mode", "full")])
    assert (r.status, r.reason, r.body) == (403, "Forbidden", b"denied!")
    assert r.header_all("x-a") == ["1", "2"]
    assert r.header("content-type") == "text/x"
    assert r.header("content-length") == "7"
    assert log_lines(reply["proxy"], 1)[0] == "403 LR-- /"


def test_reply_methods(reply):
    r = get(reply["port"], headers=[("x-mode", "methods")])
    assert (r.status, r.reason, r.body) == (404, "Not Found", b"nf")
    assert r.header_all("x-b") == ["b1", "b2"]
    assert not r.has("x-c")
    assert r.header("x-bad-status") == "false"  # set_status(99) is refused


@pytest.mark.parametrize("mode,status,reason,body,hdrs", [
    ("table", 201, "Made", b"t", {}),
    ("fields", 202, "OK", b"f", {"x-f": "v"}),
    ("reason", 200, "Fine", b"", {}),
    ("framing", 200, "OK", b"abcdef", {"content-length": "6", "x-n": "5"}),
])
def test_reply_shapes(reply, mode, status, reason, body, hdrs):
    r = get(reply["port"], headers=[("x-mode", mode)])
    assert (r.status, r.reason, r.body) == (status, reason, body)
    for k, v in hdrs.items():
        assert r.header_all(k) == [v]


def test_reply_object_fields(reply):
    r = get(reply["port"], headers=[("x-mode", "dump")])
    assert r.body.startswith(b"r=404 ")
    assert r.body.endswith(b" b x|200 OK nil")


def test_done_stops_the_script(reply):
    r = get(reply["port"], headers=[("x-mode", "stop")])
    assert (r.status, r.body) == (200, b"1")


@pytest.mark.ours
def test_done_caught_by_pcall_still_answers(reply):
    """The first reply stands, and the script may not wait any more after it (its reply
    is in the output buffer): core.msleep() fails, the exchange ends with the reply."""
    r = get(reply["port"], headers=[("x-mode", "caught")])
    assert (r.status, r.body) == (202, b"p")
    assert "cannot yield" in reply["proxy"].stderr()


def test_head_reply_has_no_body(reply):
    data, closed = raw(reply["port"], "full", method="HEAD")
    assert data.startswith(b"HTTP/1.1 403 Forbidden\r\n")
    assert b"content-length: 7\r\n" in data and data.endswith(b"\r\n\r\n")


def test_done_with_a_string_closes(reply):
    data, closed = raw(reply["port"], "notable")
    assert data == b"" and closed


@pytest.mark.ours
def test_done_with_an_invalid_status_closes(reply):
    """2.6 sends "HTTP/1.1 99 ..." as is: here the exchange ends without an answer."""
    data, closed = raw(reply["port"], "badstatus")
    assert data == b"" and closed


def test_too_big_reply_is_500(reply):
    r = get(reply["port"], headers=[("x-mode", "big")])
    assert r.status == 500
    assert log_lines(reply["proxy"], 1)[0] == "500 PR-- /"


@pytest.mark.parametrize("rmode,status,body", [
    ("full", 403, b"denied!"),
    ("empty", 200, b""),
])
def test_reply_from_response_rules(reply, rmode, status, body):
    r = get(reply["port"], headers=[("x-rmode", rmode)])
    assert (r.status, r.body) == (status, body)
    assert r.header("x-after") == "yes"
    want = "%d LH-- /" % status
    deadline = time.monotonic() + 5.0
    while want not in log_lines(reply["proxy"], 4, timeout=0) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert want in log_lines(reply["proxy"], 4, timeout=0)


def test_done_without_reply_from_response_rules_closes(reply):
    req = b"GET / HTTP/1.1\r\nHost: t\r\nx-rmode: close\r\nConnection: close\r\n\r\n"
    data, closed = httpc.exchange(reply["port"], req)
    assert data == b"" and closed


def test_reply_from_tcp_request_content(reply):
    r = get(reply["tport"], headers=[("x-mode", "full")])
    assert (r.status, r.body) == (403, b"denied!")
    r = get(reply["tport"], headers=[("x-mode", "nothing")])
    assert (r.status, r.body) == (200, b"from server")


def test_reply_from_tcp_response_content(reply):
    r = get(reply["rport"], headers=[("x-tr", "full")])
    assert (r.status, r.body) == (403, b"denied!")
    assert r.header_all("x-a") == ["1", "2"]
    req = b"GET / HTTP/1.1\r\nHost: t\r\nx-tr: close\r\nConnection: close\r\n\r\n"
    data, closed = httpc.exchange(reply["rport"], req)
    assert data == b"" and closed
    r = get(reply["rport"])
    assert (r.status, r.body) == (200, b"from server")


@pytest.mark.ours
def test_reply_keeps_the_reason_it_was_made_with(reply):
    """txn:reply{reason=} as documented (2.6 replaces it by the status's reason)."""
    r = get(reply["port"], headers=[("x-mode", "ctor_reason")])
    assert (r.status, r.reason) == (404, "Gone")


@pytest.mark.ours
def test_reply_header_breaking_the_message_is_an_error(reply):
    """2.6 sends the CR LF as is (a header injection): here it is a Lua error, the
    action fails and the request goes on to the server."""
    r = get(reply["port"], headers=[("x-mode", "badhdr")])
    assert (r.status, r.body) == (200, b"from server")
    assert not r.has("x-injected")
    assert "invalid value for header 'x-ok'" in reply["proxy"].stderr()


def test_reply_in_tcp_mode_is_an_error(tmp_path, proxy):
    port, sport = free_port(), free_port()
    cfg = ("global\n    lua-load %s/util_reply.lua\n" % LUA + DEFAULTS +
           "frontend fe\n    mode tcp\n    bind 127.0.0.1:%d\n"
           "    tcp-request inspect-delay 1s\n"
           "    tcp-request content set-var(txn.mode) str(full)\n"
           "    tcp-request content lua.reply\n    default_backend be\n"
           "backend be\n    mode tcp\n    server s1 127.0.0.1:%d\n"
           "frontend srv\n    bind 127.0.0.1:%d\n"
           "    http-request return status 200 content-type text/plain string ok\n" % (port, sport, sport))
    p = proxy(cfg, ports=[port, sport])
    r = get(port)
    assert (r.status, r.body) == (200, b"ok")  # the action failed, the rest went on
    assert "txn object is not an HTTP transaction" in p.stderr()


# ---- queues (HAProxy 2.8+) ----

QUEUE_CFG = """global
    nbthread 2
    {load} {lua}/util_queue.lua
""" + DEFAULTS + """frontend fe
    bind 127.0.0.1:{port}
    http-request lua.q_push if {{ path /push }}
    http-request lua.q_wait if {{ path /wait }}
    http-request lua.q_local if {{ path /local }}
    http-request set-var(txn.r) lua.q_fetch_wait if {{ path /fetch }}
    http-request set-var(txn.r) var(proc.last) if {{ path /last }}
    http-request return status 200 content-type text/plain lf-string "%[var(txn.r)]"
"""


@pytest.mark.v32
@pytest.mark.parametrize("load", ["lua-load", "lua-load-per-thread"])
def test_queue_methods(proxy, load):
    port = free_port()
    proxy(QUEUE_CFG.format(load=load, lua=LUA, port=port), ports=[port])
    assert body(port, "/local") == "3 1 two table nil 0 false"
    got = body(port, "/fetch")
    assert got.startswith("false ") and "cannot wait" in got


@pytest.mark.v32
def test_queue_task_waits_for_pushes(proxy):
    port = free_port()
    proxy(QUEUE_CFG.format(load="lua-load", lua=LUA, port=port), ports=[port])
    for i in range(1, 6):
        assert body(port, "/push", x_v="v%d" % i) == "true"
    deadline = time.monotonic() + 5
    while body(port, "/last") != "v5#5" and time.monotonic() < deadline:
        time.sleep(0.02)
    assert body(port, "/last") == "v5#5"


@pytest.mark.v32
def test_queue_action_waits_for_a_later_request(proxy):
    port = free_port()
    proxy(QUEUE_CFG.format(load="lua-load", lua=LUA, port=port), ports=[port])
    waiters = [httpc.connect(port) for _ in range(2)]
    try:
        for s in waiters:
            s.sendall(b"GET /wait HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        time.sleep(0.2)
        for s in waiters:  # nothing came yet: they wait
            s.settimeout(0.1)
            with pytest.raises(OSError):
                assert s.recv(1) == b""
        for v in ("A", "B"):
            assert body(port, "/push", x_q="mailbox", x_v=v) == "true"
        got = set()
        for s in waiters:
            data, _ = httpc.recv_until_close(s, 5.0)
            got.add(data.split(b"\r\n\r\n", 1)[1])
        assert got == {b"got A", b"got B"}
    finally:
        for s in waiters:
            s.close()
