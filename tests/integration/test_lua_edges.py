"""Lua corner cases: a script's own coroutines, float results, finalizers that never
return, a TXN kept in a global of the shared state, core.msleep in an init function.
Run in both modes where HAProxy 2.6 behaves the same."""
import threading
import time

import httpc
import pytest
from conftest import HERE, IS_REF

LUA = HERE / "lua" / "rv_edges.lua"


def cfg(port, glob=(), rules=(), nbthread=1):
    lines = ["global", "    nbthread %d" % nbthread] + ["    " + g for g in glob]
    lines += ["    lua-load %s" % LUA]
    lines += ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 10s",
              "    timeout server 10s", "listen px", "    bind 127.0.0.1:%d" % port]
    lines += ["    " + r for r in rules]
    return "\n".join(lines) + "\n"


def ret(fmt, cond=""):
    return ('http-request return status 200 content-type text/plain lf-string "%s\\n"%s'
            % (fmt, (" if " + cond) if cond else ""))


def get(port, target, headers=b"", timeout=10.0):
    raw = b"GET %s HTTP/1.1\r\nHost: t\r\nConnection: close\r\n%s\r\n" % (
        target.encode(), headers)
    return httpc.request(port, raw, timeout=timeout)


@pytest.mark.skipif(IS_REF, reason="2.6 answers 500 here (its yield leaves the script's "
                                   "coroutine)")
def test_yield_inside_a_script_coroutine(proxy, port):
    """core.yield in a coroutine the script made returns to the script (no crash)."""
    proxy(cfg(port, rules=["http-request use-service lua.co_yield"]), ports=[port])
    r = get(port, "/")
    assert (r.status, r.body) == (200, b"nil,ok\n")


def test_float_results_are_integers_when_integral(proxy, port):
    proxy(cfg(port, rules=[ret("half=%[lua.half] be=be%[lua.half]")]), ports=[port])
    assert get(port, "/").body == b"half=4 be=be4\n"


@pytest.mark.skipif(IS_REF, reason="2.6 cannot stop a finalizer that never returns "
                                   "(its watchdog kills the process)")
def test_finalizer_that_never_returns_is_cut(proxy, port):
    proxy(cfg(port, glob=["tune.lua.burst-timeout 200"],
              rules=["http-request lua.gcloop if { path /gc }",
                     ret("gc=%[var(txn.gc)]")]), ports=[port])
    t0 = time.monotonic()
    r = get(port, "/gc")
    assert r.status == 200 and time.monotonic() - t0 < 3.0
    assert get(port, "/x").body == b"gc=\n"  # the proxy goes on serving


@pytest.mark.skipif(IS_REF, reason="2.6 lets a TXN kept in a global reach another request")
def test_txn_kept_in_a_global_is_refused_to_other_calls(proxy, port):
    proxy(cfg(port, nbthread=2,
              rules=["http-request lua.keep if { path /keep }",
                     "http-request lua.peek if { path /peek }",
                     ret("peek=%[var(txn.peek)]")]), ports=[port])
    out = {}
    th = threading.Thread(target=lambda: out.setdefault(
        "keep", get(port, "/keep", b"x-secret: alice-token\r\n")))
    th.start()
    time.sleep(0.1)
    r = get(port, "/peek")
    th.join(timeout=10)
    assert r.body == b"peek=refused\n"
    assert out["keep"].status == 200


def test_msleep_in_an_init_function(proxy, port):
    """2.6 sleeps in init functions (nothing is served yet); so do we."""
    proxy(cfg(port, rules=[ret("slept=%[lua.init_slept]")]), ports=[port])
    assert get(port, "/").body == b"slept=yes\n"
