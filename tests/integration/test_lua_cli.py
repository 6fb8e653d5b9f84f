"""Runtime API commands written in Lua (core.register_cli) as an operator sees them through
socat on the stats socket, and the objects such commands reach: core.proxies /
frontends / backends, Proxy (get_stats, get_cap, get_mode, listeners, get_srv_act),
Server (get_stats, get_weight / set_weight, set_maint / set_ready, seen in `show stat`),
StickTable (info, lookup, dump of a table the traffic fills), Map (Map.new on a file,
lookup / slookup), Regex (new, exec, match) and Queue.

Owns: lua/b_cli.lua.
"""

import re
import subprocess
import time

import httpc
import pytest
from conftest import HERE, IS_REF, free_port

SCRIPT = HERE / "lua" / "b_cli.lua"

CFG = """global
    setenv LUAB_MAP {map}
    lua-load {script}
    stats socket {sock} level admin
defaults
    mode http
    timeout connect 2s
    timeout client 10s
    timeout server 10s
frontend fe
    option socket-stats
    bind 127.0.0.1:{port} name web
    http-request track-sc0 src table tbl
    http-request sc-inc-gpc0(0) if {{ path /mark }}
    default_backend be
backend be
    balance first
    server s1 127.0.0.1:{p1} weight 10
    server s2 127.0.0.1:{p2}
    server s3 127.0.0.1:{p2} backup
backend tbl
    stick-table type ip size 100 expire 60s store http_req_cnt,gpc0
"""


def socat(sock, cmd, timeout=5):
    """One command through `socat - UNIX-CONNECT:sock`, as an operator types it; the
    output as text."""
    r = subprocess.run(["socat", "-t", "2", "-", "UNIX-CONNECT:%s" % sock],
                       input=cmd + "\n", capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.fixture
def setup(proxy, backends, tmp_path):
    s1, s2 = backends(2)
    port = free_port()
    sock = tmp_path / "s.sock"
    words = tmp_path / "words.map"
    words.write_text("alpha one\nbeta two words\n")
    p = proxy(CFG.format(map=words, script=SCRIPT, sock=sock, port=port, p1=s1.port,
                         p2=s2.port), ports=[port])
    deadline = time.monotonic() + 5
    while not sock.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    p.port, p.sock, p.s1 = port, sock, s1
    return p


def test_command_with_arguments(setup):
    assert socat(setup.sock, "luab hello a b") == (
        "hello from lua\narg1=luab\narg2=hello\narg3=a\narg4=b\n\n")
    assert socat(setup.sock, "luab hello") == "hello from lua\narg1=luab\narg2=hello\n\n"


def test_commands_listed_in_help(setup):
    lines = [l.strip() for l in socat(setup.sock, "help").split("\n")]
    for usage in ("luab hello [args...] : greets and lists its arguments",
                  "luab weight <w> : sets s1's weight",
                  "luab table : dumps the stick table"):
        assert usage in lines
    # the built-in commands are still there
    assert any(l.startswith("show stat") for l in lines)


def test_failing_command_is_logged_and_cli_keeps_working(setup):
    out = socat(setup.sock, "luab fail")
    assert "hello" not in out
    deadline = time.monotonic() + 5
    while "on purpose" not in setup.stderr() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert re.search(r"b_cli\.lua:\d+: cli command failed on purpose", setup.stderr())
    assert socat(setup.sock, "luab hello").startswith("hello from lua\n")
    assert httpc.get(setup.port, "/").status == 200


def test_proxies_frontends_backends_listeners(setup):
    assert socat(setup.sock, "luab proxies") == (
        "proxies=be,fe,tbl\nfrontends=fe\nbackends=be,tbl\nlisteners=web\n\n")


def test_listener_stats(setup):
    def listener():
        out = socat(setup.sock, "luab listener")
        m = re.fullmatch(r"(listener .*) stot=(\d+)\n\n", out)
        assert m, out
        return m.group(1), int(m.group(2))

    _, before = listener()  # the start-up probe of the test's fixture counts too
    for _ in range(3):
        assert httpc.get(setup.port, "/").status == 200
    text, after = listener()
    assert text == ("listener pxname=fe svname=web status=OPEN mode=http addr=127.0.0.1:%d"
                    % setup.port)
    assert after - before == 3


def stat_rows(sock):
    """{(pxname, svname): (status, weight)} from `show stat`."""
    out = socat(sock, "show stat")
    rows = {}
    for line in out.split("\n")[1:]:
        f = line.split(",")
        if len(f) > 18:
            rows[(f[0], f[1])] = (f[17], f[18])
    return rows


def test_server_and_proxy_stats(setup):
    for _ in range(2):
        assert httpc.get(setup.port, "/").body == b"hello from s1\n"
    p1 = setup.s1.port
    assert socat(setup.sock, "luab srv") == (
        "backend be cap=backend mode=http\n"
        "s1 name=s1 addr=127.0.0.1:%d weight=10\n"
        "s1 stats pxname=be svname=s1 status=no check weight=10 stot=2\n"
        "be stats svname=BACKEND status=UP stot=2\n\n" % p1)


def test_set_weight(setup):
    assert socat(setup.sock, "luab weight 5") == "error=nil weight=5\n\n"
    assert stat_rows(setup.sock)[("be", "s1")] == ("no check", "5")
    assert socat(setup.sock, "get weight be/s1") == "5 (initial 10)\n\n"
    assert socat(setup.sock, "luab weight abc") == (
        "error=Empty weight string empty or preceded by garbage weight=5\n\n")
    assert socat(setup.sock, "luab weight 300") == (
        "error=Absolute weight can only be between 0 and 256 inclusive. weight=5\n\n")


def test_maint_and_ready(setup, backends):
    assert socat(setup.sock, "luab maint") == "s1 in maintenance\n\n"
    rows = stat_rows(setup.sock)
    assert rows[("be", "s1")][0] == "MAINT"
    # the traffic goes to s2 now (balance first skips a server in maintenance)
    assert httpc.get(setup.port, "/").body == b"hello from s2\n"
    assert "s1 stats pxname=be svname=s1 status=MAINT" in socat(setup.sock, "luab srv")
    assert socat(setup.sock, "luab ready") == "s1 ready\n\n"
    assert stat_rows(setup.sock)[("be", "s1")][0] == "no check"
    assert httpc.get(setup.port, "/").body == b"hello from s1\n"


def test_stick_table(setup):
    assert httpc.get(setup.port, "/").status == 200
    assert httpc.get(setup.port, "/mark").status == 200
    assert socat(setup.sock, "luab table") == (
        "info expire=60000 length=4 nopurge=false size=100 type=ip used=1\n"
        "lookup gpc0=1 http_req_cnt=2 use=0\n"
        "lookup-miss nil\n"
        "dump 127.0.0.1 gpc0=1 http_req_cnt=2\n\n")


def test_map_lookup(setup):
    assert socat(setup.sock, "luab map alpha") == "lookup=one slookup=one\n\n"
    assert socat(setup.sock, "luab map beta") == "lookup=two words slookup=two words\n\n"
    assert socat(setup.sock, "luab map zzz") == "lookup=nil slookup=\n\n"


def test_regex(setup):
    assert socat(setup.sock, "luab regex /api/v2/users") == (
        "new=true\nexec=true\nmatch=true /api/v2/users|v2|users\nnocase=true\n"
        "bad=false string\n\n")
    assert socat(setup.sock, "luab regex /other") == (
        "new=true\nexec=false\nmatch=false\nnocase=false\nbad=false string\n\n")


@pytest.mark.skipif(IS_REF, reason="Proxy:get_srv_act/get_srv_bck are not in 2.6")
def test_get_srv_act(setup):
    assert socat(setup.sock, "luab srvact") == "act=2 bck=1\n\n"
    socat(setup.sock, "luab maint")
    assert socat(setup.sock, "luab srvact") == "act=1 bck=1\n\n"


@pytest.mark.skipif(IS_REF, reason="core.queue() is not in 2.6")
def test_queue(setup):
    assert socat(setup.sock, "luab queue") == "size=2\npop=first pop=2 pop=nil size=0\n\n"
