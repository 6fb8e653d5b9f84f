"""Lua sample fetches and converters (core.register_fetches, core.register_converters) used
from the configuration as `lua.NAME`: in log-format strings, ACLs, use_backend and header
rules, with arguments, with string, integer, boolean and nil results, and when the function
raises an error (the sample is empty, the error is logged with the script's file and line,
and the proxy keeps serving). Scripts: lua/a_fetch.lua. Expectations were taken from Debian's
/usr/sbin/haproxy 2.6 (Lua 5.3) on the same configs.
"""

import pathlib

import httpc
import pytest
from backend import Backend
from conftest import IS_REF, Proxy, free_port
from syslog_sink import Sink

LUA = pathlib.Path(__file__).resolve().parent / "lua"
SCRIPT = LUA / "a_fetch.lua"

TIMEOUTS = ["timeout connect 2s", "timeout client 5s", "timeout server 5s"]


def line_of(text, path=SCRIPT):
    """The line number of the first line of <path> containing <text>."""
    for n, line in enumerate(path.read_text().splitlines(), 1):
        if text in line:
            return n
    raise AssertionError("%r not in %s" % (text, path))


def send(port, target, headers=b""):
    raw = b"GET %s HTTP/1.1\r\nHost: h.example\r\nConnection: close\r\n%s\r\n" % (
        target.encode(), headers)
    return httpc.request(port, raw)


def ret(cond, fmt, status=200):
    return ('http-request return status %d content-type text/plain lf-string "%s\\n" if %s'
            % (status, fmt, cond))


RULES = [
    "acl adm lua.is_admin -m bool",
    "acl long_v req.hdr(x-v),lua.is_long -m bool",
    ret("{ path /f }", "h=%[lua.hello] j=%[lua.join(x,y)] j1=%[lua.join(only)] "
        "a=%[lua.answer] a1=%[lua.answer,add(1)] n=[%[lua.nothing]] r=[%[lua.role]]"),
    ret("{ path /acl } adm", "admin"),
    ret("{ path /acl }", "not admin", 403),
    ret("{ path /int } { lua.answer -m int gt 40 }", "big"),
    ret("{ path /int }", "small"),
    ret("{ path /str } { lua.role -m beg ad }", "starts-ad"),
    ret("{ path /str }", "other"),
    ret("{ path /nil } { lua.nothing -m found }", "found"),
    ret("{ path /nil }", "not found"),
    ret("{ path /c }", "w=%[req.hdr(x-v),lua.wrap(arg1)] r=%[req.hdr(x-v),lua.rev] "
        "lp=%[req.hdr(x-v),lua.len_plus(10)] lp1=%[req.hdr(x-v),lua.len_plus(10),add(1)] "
        "up=%[req.hdr(x-v),lua.rev,upper]"),
    ret("{ path /cacl } long_v", "long"),
    ret("{ path /cacl }", "short"),
    ret("{ path /err }", "boom=[%[lua.boom]] cb=[%[req.hdr(x-v),lua.boom]] after=%[lua.hello]"),
    "http-request set-header X-Lua-Hello %[lua.hello]",
    "http-request set-header X-Lua-Conv %[req.hdr(x-v),lua.wrap(hdr)]",
    "use_backend %[lua.pick_be]",
]


@pytest.fixture(scope="module")
def fx(tmp_path_factory):
    """dict(port=, b1=, b2=, proxy=, sink=) of a proxy running RULES on lua/a_fetch.lua."""
    tmp = tmp_path_factory.mktemp("lua_fetch")
    b1, b2 = Backend("b1").start(), Backend("b2").start()
    sink = Sink()
    port = free_port()
    cfg = "\n".join(["global", "    lua-load %s" % SCRIPT,
                     "    log 127.0.0.1:%d local0" % sink.port,
                     "defaults", "    mode http"] + ["    " + t for t in TIMEOUTS] +
                    ["frontend fe", "    bind 127.0.0.1:%d" % port, "    log global",
                     "    option dontlognull"] +
                    ["    " + r for r in RULES] +
                    ["backend b1", "    server b1 127.0.0.1:%d" % b1.port,
                     "backend b2", "    server b2 127.0.0.1:%d" % b2.port]) + "\n"
    p = Proxy(tmp, cfg, ports=[port])
    try:
        yield dict(port=port, b1=b1, b2=b2, proxy=p, sink=sink)
    finally:
        p.stop()
        b1.stop()
        b2.stop()
        sink.close()


def test_fetch_results_in_log_format(fx):
    r = send(fx["port"], "/f", b"X-Role: admin\r\n")
    assert r.status == 200
    # a missing argument is nil; a nil result is a boolean sample `false` (printed 0)
    assert r.body == b"h=hello-fetch j=x+y j1=only+nil a=42 a1=43 n=[0] r=[admin]\n"


def test_fetch_of_missing_header_is_empty(fx):
    r = send(fx["port"], "/f")
    assert r.body == b"h=hello-fetch j=x+y j1=only+nil a=42 a1=43 n=[0] r=[]\n"


@pytest.mark.parametrize("role,status,body", [
    (b"admin", 200, b"admin\n"),
    (b"user", 403, b"not admin\n"),
    (None, 403, b"not admin\n"),
])
def test_boolean_fetch_in_acl(fx, role, status, body):
    r = send(fx["port"], "/acl", b"X-Role: %s\r\n" % role if role else b"")
    assert (r.status, r.body) == (status, body)


def test_integer_fetch_in_acl(fx):
    assert send(fx["port"], "/int").body == b"big\n"


@pytest.mark.parametrize("role,body", [(b"admin", b"starts-ad\n"), (b"user", b"other\n")])
def test_string_fetch_in_acl(fx, role, body):
    assert send(fx["port"], "/str", b"X-Role: %s\r\n" % role).body == body


def test_nil_fetch_is_found(fx):
    # 2.6 turns a nil result into the boolean false: the sample exists
    assert send(fx["port"], "/nil").body == b"found\n"


def test_converters(fx):
    r = send(fx["port"], "/c", b"X-V: abc\r\n")
    assert r.body == b"w=[abc|arg1] r=cba lp=13 lp1=14 up=CBA\n"


@pytest.mark.parametrize("v,body", [(b"abcdefgh", b"long\n"), (b"abc", b"short\n")])
def test_boolean_converter_in_acl(fx, v, body):
    assert send(fx["port"], "/cacl", b"X-V: %s\r\n" % v).body == body


def test_fetch_in_use_backend_and_set_header(fx):
    r = send(fx["port"], "/route", b"X-Role: admin\r\nX-V: zz\r\n")
    assert (r.status, r.header("x-server")) == (200, "b2")
    assert fx["b2"].last().header("x-lua-hello") == "hello-fetch"
    assert fx["b2"].last().header("x-lua-conv") == "[zz|hdr]"
    r = send(fx["port"], "/route")
    assert (r.status, r.header("x-server")) == (200, "b1")


def test_fetch_and_converter_errors(fx):
    sink = fx["sink"]
    sink.drain(0.2)
    r = send(fx["port"], "/err", b"X-V: abc\r\n")
    assert (r.status, r.body) == (200, b"boom=[] cb=[] after=hello-fetch\n")
    # the proxy keeps serving
    assert send(fx["port"], "/c", b"X-V: abc\r\n").status == 200
    fline = "%s:%d: fetch exploded" % (SCRIPT, line_of('error("fetch exploded")'))
    cline = "%s:%d: converter exploded" % (SCRIPT, line_of('error("converter exploded")'))
    err = fx["proxy"].stderr()
    assert "Lua sample-fetch 'boom'" in err and fline in err, err
    assert "Lua converter 'boom'" in err and cline in err, err
    # the same errors reach the frontend's log
    msgs = [m for _, m in sink.read(3, 3.0)]
    assert any(fline in m for m in msgs), msgs
    assert any(cline in m for m in msgs), msgs


@pytest.mark.skipif(IS_REF, reason="tune.lua.bool-sample-conversion is not in 2.6 (which "
                                   "gives boolean samples to Lua as integers)")
@pytest.mark.parametrize("mode,want", [("normal", b"boolean"), ("pre-3.1-bug", b"number")])
def test_bool_sample_conversion(proxy, port, mode, want):
    # the keyword must come before the lua-load it applies to
    cfg = "\n".join(["global", "    tune.lua.bool-sample-conversion %s" % mode,
                     "    lua-load %s" % SCRIPT,
                     "defaults", "    mode http"] + ["    " + t for t in TIMEOUTS] +
                    ["frontend fe", "    bind 127.0.0.1:%d" % port,
                     ret("TRUE", "%[lua.bool_type]")]) + "\n"
    proxy(cfg, ports=[port])
    assert send(port, "/").body == want + b"\n"


@pytest.mark.skipif(not IS_REF, reason="documents what 2.6 does without the keyword")
def test_bool_sample_is_an_integer_in_26(proxy, port):
    cfg = "\n".join(["global", "    lua-load %s" % SCRIPT,
                     "defaults", "    mode http"] + ["    " + t for t in TIMEOUTS] +
                    ["frontend fe", "    bind 127.0.0.1:%d" % port,
                     ret("TRUE", "%[lua.bool_type]")]) + "\n"
    proxy(cfg, ports=[port])
    assert send(port, "/").body == b"number\n"
