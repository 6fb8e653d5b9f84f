"""Lua code that runs outside a request, or talks to other servers, seen from outside:
tasks (core.register_task with core.sleep / core.msleep), init functions
(core.register_init), cosockets (core.tcp(): connect, send, receive "*l" / a count / "*a",
settimeout, close, connect_ssl; from a task, an action and a service) and the HTTP client
(core.httpclient(): get, post, head against a test backend). What the Lua code saw is
shown by a service, so the test reads it as a client would.

Owns: lua/b_tasks.lua and lua/b_procvar.lua.
"""

import re
import ssl
import time

import httpc
import pytest
from conftest import HERE, IS_REF, free_port
from tcpserv import recv_line, tcpservers, wait_for  # noqa: F401 (fixture)

SCRIPT = HERE / "lua" / "b_tasks.lua"
PROCVAR = HERE / "lua" / "b_procvar.lua"

CFG = """global
    setenv LUAB_TCP_PORT {tcp_port}
    setenv LUAB_CLOSED_PORT {closed_port}
    lua-load {script}
defaults
    mode http
    timeout connect 2s
    timeout client 10s
    timeout server 10s
frontend fe
    bind 127.0.0.1:{port}
    http-request use-service lua.state if {{ path /state }}
    http-request use-service lua.cosock if {{ path /cosock }}
    http-request use-service lua.tls if {{ path /tls }}
    http-request use-service lua.hc if {{ path /hc }}
    http-request lua.ask {tcp_port} if {{ path_beg /ask }}
    http-request lua.ask {silent_port} if {{ path_beg /silent }}
    http-request lua.ask {closed_port} if {{ path_beg /closed }}
    http-request return status 200 content-type text/plain \
        lf-string "line=%[var(txn.line)] err=%[var(txn.err)]"
"""


def pong(server, s):
    """The test's TCP server: reads one line "PING x", answers "PONG x", then "abc", then
    "REST OF DATA", and closes."""
    line = recv_line(s, timeout=5)
    s.sendall(b"PONG " + line[len(b"PING "):])
    time.sleep(0.05)
    s.sendall(b"abc")
    time.sleep(0.05)
    s.sendall(b"REST OF DATA")


def hold(server, s):
    """A server that accepts and says nothing until the test ends."""
    for _ in range(100):
        if server.stopping:
            return
        time.sleep(0.1)


@pytest.fixture
def setup(proxy, tcpservers):  # noqa: F811
    srv = tcpservers("pong", handler=pong)
    silent = tcpservers("silent", handler=hold)
    port = free_port()
    cfg = CFG.format(script=SCRIPT, port=port, tcp_port=srv.port, silent_port=silent.port,
                     closed_port=free_port())
    p = proxy(cfg, ports=[port])
    p.port = port
    p.srv = srv
    return p


def state(port):
    r = httpc.get(port, "/state")
    assert r.status == 200
    m = re.fullmatch(rb"init=(\w+) ticks=(\d+) slow=(\d+)\n", r.body)
    assert m, r.body
    return m.group(1).decode(), int(m.group(2)), int(m.group(3))


def test_init_ran_and_tasks_tick(setup):
    init, t0, s0 = state(setup.port)
    assert init == "yes"
    time.sleep(1.6)
    init, t1, s1 = state(setup.port)
    # msleep(100): about 16 ticks in 1.6 s, at least 6 on a loaded machine
    assert 6 <= t1 - t0 <= 20, (t0, t1)
    # sleep(1): one or two in 1.6 s
    assert 1 <= s1 - s0 <= 2, (s0, s1)


def test_failing_task_is_logged_and_proxy_serves(setup):
    assert wait_for(lambda: "task failed on purpose" in setup.stderr(), 5)
    err = setup.stderr()
    assert re.search(r"b_tasks\.lua:\d+: task failed on purpose", err), err
    assert setup.alive()
    # the other tasks go on
    _, t0, _ = state(setup.port)
    assert wait_for(lambda: state(setup.port)[1] > t0, 3)


def test_cosocket_from_task(setup):
    def done():
        return httpc.get(setup.port, "/cosock").body.endswith(b"done\n")
    assert wait_for(done, 8)
    lines = httpc.get(setup.port, "/cosock").body.decode().split("\n")
    assert lines == ["connect 1 nil", "send 10", "line PONG task", "three abc",
                     "all REST OF DATA", "closed nil true", "done", ""]


def timed_get(port, path):
    t0 = time.monotonic()
    r = httpc.get(port, path)
    return r, time.monotonic() - t0


def test_cosocket_from_action(setup):
    for path in ("/ask/me", "/ask/again"):
        r, took = timed_get(setup.port, path)
        assert r.status == 200
        assert r.body == b"line=PONG %s err=" % path.encode()
        # the action resumes on the socket's events, not on its 1 s timeout
        assert took < 0.8, took
    assert setup.srv.accepted >= 2


def test_cosocket_connect_refused(setup):
    r, took = timed_get(setup.port, "/closed")
    assert r.status == 200
    assert r.body.startswith(b"line= err=connect: ")
    assert took < 0.8, took  # refused at once, not after the 1 s timeout


def test_cosocket_receive_timeout(setup):
    r, took = timed_get(setup.port, "/silent")
    assert r.status == 200
    assert r.body.startswith(b"line= err=receive: ")
    assert 0.8 < took < 1.8, took  # settimeout(1)
    # and the proxy is still serving
    r, took = timed_get(setup.port, "/ask/x")
    assert r.body == b"line=PONG /ask/x err="
    assert took < 0.8, took


def test_cosocket_connect_ssl(setup, tcpservers, pki):  # noqa: F811
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(pki.p("a.pem"))
    tls = tcpservers("tls", tls=ctx, handler=pong)
    r = httpc.get(setup.port, "/tls?%d" % tls.port)
    assert r.status == 200
    assert r.body == b"connect_ssl 1 nil\nline PONG tls\n"


# ---- core.httpclient() ----

def test_httpclient_get(setup, backend):
    r, took = timed_get(setup.port, "/hc?%d&get" % backend.port)
    assert took < 1.0, took  # resumed by the answer, not by a timeout
    assert r.status == 200
    lines = r.body.decode().split("\n")
    assert lines[:2] == ["status=200", "reason=OK"]
    assert "x-server=s1" in lines
    assert "x-test=yes" in lines
    assert lines[-3:] == ["body=hello from s1", "", ""]
    got = backend.last()
    assert (got.method, got.target) == ("GET", "/get?hdr=X-Test:yes")
    assert got.header("X-Sent") == "from lua"


def test_httpclient_post(setup, backend):
    r, took = timed_get(setup.port, "/hc?%d&post" % backend.port)
    assert took < 1.0, took  # resumed by the answer, not by a timeout
    lines = r.body.decode().split("\n")
    assert lines[:2] == ["status=200", "reason=OK"]
    assert "x-body-len=13" in lines
    assert lines[-2:] == ["body=posted by lua", ""]
    got = backend.last()
    assert got.method == "POST"
    assert got.body == b"posted by lua"


def test_httpclient_head(setup, backend):
    r, took = timed_get(setup.port, "/hc?%d&head" % backend.port)
    assert took < 1.0, took  # resumed by the answer, not by a timeout
    lines = r.body.decode().split("\n")
    assert lines[:2] == ["status=200", "reason=OK"]
    assert "x-server=s1" in lines
    assert lines[-2:] == ["body=", ""]
    assert backend.last().method == "HEAD"


def test_httpclient_error_status(setup, backend):
    r, took = timed_get(setup.port, "/hc?%d&status" % backend.port)
    assert took < 1.0, took  # resumed by the answer, not by a timeout
    lines = r.body.decode().split("\n")
    assert lines[:2] == ["status=404", "reason=Not Found"]


# ---- core.set_var / core.get_var from a task ----

PROCVAR_CFG = """global
    lua-load {script}
defaults
    mode http
    timeout connect 2s
    timeout client 10s
    timeout server 10s
frontend fe
    bind 127.0.0.1:{port}
    http-request use-service lua.procvar if {{ path /lua }}
    http-request return status 200 content-type text/plain lf-string "ticks=%[var(proc.ticks)]"
"""


@pytest.mark.skipif(IS_REF, reason="core.set_var/core.get_var are not in 2.6")
def test_task_sets_proc_variable(proxy):
    port = free_port()
    proxy(PROCVAR_CFG.format(script=PROCVAR, port=port), ports=[port])

    def ticks():
        r = httpc.get(port, "/")
        assert r.status == 200
        m = re.fullmatch(rb"ticks=(\d*)", r.body)
        assert m, r.body
        return int(m.group(1) or b"0")

    t0 = ticks()
    assert wait_for(lambda: ticks() >= t0 + 3, 3)
    r = httpc.get(port, "/lua")
    assert re.fullmatch(rb"lua sees ticks=\d+\n", r.body), r.body
