"""The capture-req/capture-res, debug, nbsrv and srv_queue converters as a client, a log
reader and a runtime API user see them, and the startup errors of their arguments and of
the device-detection converters this proxy does not build.

Owns: a captured value cut to its `declare capture` slot, seen by `capture.req.hdr(N)` and
by the log line (`%hr`, `%hs`), a missing slot failing the expression; the lines `debug`
writes to `buf0` (default) or a named ring, read by `show events`, with 2.6's layout; the
usable servers of a backend and the queue of a server named by the input. Every case runs
against Debian's haproxy too, except those marked `ours`.
"""

import re
import time

import pytest

import httpc
from conftest import cli, free_port, run_haproxy


def _cfg(port, port2, sock):
    return "\n".join([
        "global",
        "    stats socket %s level admin" % sock,
        "ring r1",
        "    description \"my ring\"",
        "    size 32768",
        "defaults",
        "    mode http",
        "    timeout connect 2s",
        "    timeout client 10s",
        "    timeout server 10s",
        "frontend fe",
        "    bind 127.0.0.1:%d" % port,
        "    declare capture request len 5",
        "    declare capture response len 3",
        "    log stdout format raw local0",
        "    option dontlognull",
        "    log-format \"hr=%hr hs=%hs\"",
        "    http-request set-var(txn.a) path,debug",
        "    http-request set-var(txn.b) path,debug(pfx)",
        "    http-request set-var(txn.c) int(42),debug(num,buf0)",
        "    http-request set-var(txn.d) src,debug(ip)",
        "    http-request set-var(txn.e) url_param(c),url_dec,debug(ctl)",
        "    http-request set-var(txn.f) bin(41ff0042),debug(bin)",
        "    http-request set-var(txn.g) req.hdr(x-absent),debug(none)",
        "    http-request set-var(txn.h) method,debug(meth,r1)",
        "    http-request set-header x-c %[req.hdr(x-in),capture-req(0)]",
        "    use_backend be_srv if { path /srv }",
        "    http-request return status 200 hdr x-c %[req.hdr(x-c)]"
        " hdr x-cap %[capture.req.hdr(0)] hdr x-f \"%[str(abc),capture-req(5)]\""
        " hdr x-n %[str(b),nbsrv] hdr x-n2 %[str(zz),nbsrv] hdr x-n3 %[str(b2),nbsrv]"
        " hdr x-q %[str(b/a),srv_queue] hdr x-q2 %[str(b/zz),srv_queue]"
        " hdr x-q3 %[str(zz/a),srv_queue] hdr x-q4 %[str(b),srv_queue]"
        " hdr x-v %[var(txn.c)] if !{ path /srv }",
        "backend be_srv",
        "    http-response set-header x-rc %[res.hdr(x-r),capture-res(0)]",
        "    server o 127.0.0.1:%d" % port2,
        "backend b",
        "    server a 127.0.0.1:1",
        "    server b 127.0.0.1:2 disabled",
        "    server c 127.0.0.1:3",
        "backend b2",
        "    server a 127.0.0.1:1 disabled",
        "    server b 127.0.0.1:2 backup",
        "    server c 127.0.0.1:3 backup",
        "frontend origin",
        "    bind 127.0.0.1:%d" % port2,
        "    http-request return status 200 hdr x-r wxyz",
    ]) + "\n"


@pytest.fixture
def px(proxy, tmp_path):
    port, port2 = free_port(), free_port()
    sock = str(tmp_path / "s.sock")
    p = proxy(_cfg(port, port2, sock), ports=[port, port2])
    return p, port, sock


def _log_lines(p, n, deadline=5.0):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        p.out.flush()
        lines = [ln for ln in p.out_path.read_text().splitlines() if ln.startswith("hr=")]
        if len(lines) >= n:
            return lines
        time.sleep(0.05)
    return lines


def test_capture_req_slot_header_and_log(px):
    p, port, _ = px
    r = httpc.get(port, "/", headers=[("x-in", "abcdefgh")])
    assert r.status == 200
    assert r.header("x-c") == "abcdefgh"      # the sample passes on unchanged
    assert r.header("x-cap") == "abcde"       # the slot keeps 5 bytes
    assert r.header("x-f") is None            # no slot 5: the expression fails
    assert _log_lines(p, 1) == ["hr={abcde} hs={}"]


def test_capture_res_in_log(px):
    p, port, _ = px
    r = httpc.get(port, "/srv", headers=[("x-in", "k")])
    assert r.status == 200 and r.header("x-rc") == "wxyz"
    assert _log_lines(p, 1) == ["hr={k} hs={wxy}"]


def test_nbsrv_and_srv_queue(px):
    _, port, _ = px
    r = httpc.get(port, "/")
    assert r.header("x-n") == "2"     # one of three disabled
    assert r.header("x-n3") == "1"    # only backups: one counts
    assert r.header("x-q") == "0"
    for h in ("x-n2", "x-q2", "x-q3", "x-q4"):
        assert r.header(h) is None, h  # unknown backend or server: nothing


TS = r"<0>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}[+-]\d\d:\d\d "


def test_debug_lines_in_buf0(px):
    _, port, sock = px
    r = httpc.get(port, "/a%20b?c=a%09b%7F")
    assert r.status == 200 and r.header("x-v") == "42"   # passes on unchanged
    lines = cli(sock, "show events buf0").split("\n")
    want = ["[debug] : type=str </a%20b>", "[debug] pfx: type=str </a%20b>",
            "[debug] num: type=sint <42>", "[debug] ip: type=ipv4 <127.0.0.1>",
            "[debug] ctl: type=str <a.b.>", "[debug] bin: type=bin <A.>"]
    assert len(lines) == len(want) + 2 and lines[-2:] == ["", ""], lines
    for got, w in zip(lines, want):
        assert re.fullmatch(TS + re.escape(w), got), (got, w)
    # the named ring (raw format by default) has the method
    assert cli(sock, "show events r1") == "[debug] meth: type=meth <GET>\n\n"


def test_show_events_lists_buf0(px):
    _, _, sock = px
    out = cli(sock, "show events")
    assert ("    stderr     : type=fd, 0 dropped, standard output (fd#2)\n"
            "    buf0       : type=buffer, 0 dropped, in-memory ring buffer\n"
            "    r1         : type=buffer, 0 dropped, my ring\n") in out


def _check(tmp_path, expr):
    cfg = tmp_path / "c.cfg"
    cfg.write_text("defaults\n    mode http\n    timeout client 1s\n    timeout server 1s\n"
                   "    timeout connect 1s\nfrontend f\n    bind 127.0.0.1:%d\n"
                   "    http-request set-var(txn.a) %s\n" % (free_port(), expr))
    return run_haproxy(["-c", "-f", str(cfg)])


def test_debug_unknown_ring(tmp_path):
    r = _check(tmp_path, "str(x),debug(a,nosuch)")
    assert r.returncode != 0
    assert "c.cfg:8] :" in r.stderr and "No such sink 'nosuch'" in r.stderr, r.stderr


# (the wording of argument errors is the expression parser's, shared by every converter)
@pytest.mark.parametrize("expr", ["str(x),debug(a,b,c)", "str(x),capture-req",
                                  "str(x),capture-res(a)", "str(x),nbsrv(a)",
                                  "str(x),srv_queue(a)"])
def test_argument_errors(tmp_path, expr):
    r = _check(tmp_path, expr)
    assert r.returncode != 0
    assert "c.cfg:8] :" in r.stderr and "'http-request set-var(txn.a)'" in r.stderr, r.stderr


def test_capture_slot_need_not_exist(tmp_path):
    r = _check(tmp_path, "str(x),capture-req(5),capture-res(-1),debug")
    assert r.returncode == 0, r.stderr


@pytest.mark.ours
@pytest.mark.parametrize("conv", ["51d.single(a)", "da-csv-conv(a)"])
def test_device_detection_refused(tmp_path, conv):
    r = _check(tmp_path, "req.hdr(user-agent),%s" % conv)
    assert r.returncode != 0
    name = conv.split("(")[0]
    assert ("c.cfg:8] :" in r.stderr and "converter '%s' needs a device-detection library "
            "this proxy does not build with (not supported)" % name in r.stderr), r.stderr


def test_srv_queue_counts_streams_waiting_for_the_server(proxy, backend, port, tmp_path):
    """A hashed backend whose one server (maxconn 1) is busy: the next request waits for
    that server, and both the srv_queue fetch and converter count it, as "show stat"."""
    import threading
    p2 = free_port()
    sock = str(tmp_path / "s.sock")
    c = ("global\n    stats socket %s level admin\n" % sock +
         "defaults\n    mode http\n    timeout connect 2s\n    timeout client 10s\n"
         "    timeout server 15s\n    timeout queue 15s\n"
         "listen l\n    bind 127.0.0.1:%d\n    balance uri\n" % port +
         "    server s 127.0.0.1:%d maxconn 1\n" % backend.port +
         "frontend f\n    bind 127.0.0.1:%d\n" % p2 +
         "    http-request return status 200 hdr x-f %[srv_queue(l/s)] "
         "hdr x-c %[str(l/s),srv_queue]\n")
    proxy(c, ports=[port, p2])
    got = {}
    ts = [threading.Thread(target=lambda i=i: got.setdefault(
        i, httpc.get(port, "/slow?delay=3", timeout=15).status)) for i in range(2)]
    for t in ts:
        t.start()
    seen = None
    deadline = time.monotonic() + 2.5  # within the first request's 3 s at the server
    while time.monotonic() < deadline:
        r = httpc.get(p2, "/")
        seen = (r.header("x-f"), r.header("x-c"))
        if seen == ("1", "1"):
            break
        time.sleep(0.05)
    for t in ts:
        t.join(15)
    assert seen == ("1", "1")
    assert got == {0: 200, 1: 200}
    r = httpc.get(p2, "/")
    assert (r.header("x-f"), r.header("x-c")) == ("0", "0")


@pytest.mark.parametrize("stage", ["connection", "session"])
def test_capture_converters_fail_before_the_stream(proxy, port, stage):
    """Connection and session rules run before a stream exists: capture-req/-res there
    fail (the variable is not set) and capture nothing, as in 2.6."""
    c = ("defaults\n    mode http\n    timeout connect 2s\n    timeout client 5s\n"
         "    timeout server 5s\n"
         "frontend f\n    bind 127.0.0.1:%d\n    declare capture request len 10\n" % port +
         "    tcp-request %s set-var(sess.x) str(abcdef),capture-req(0)\n" % stage +
         "    http-request return status 200 hdr x-x \"%[var(sess.x)]\" "
         "hdr x-c \"%[capture.req.hdr(0)]\"\n")
    proxy(c, ports=[port])
    for _ in range(3):
        r = httpc.get(port, "/")
        assert r.status == 200
        assert (r.header("x-x"), r.header("x-c")) == (None, None)
