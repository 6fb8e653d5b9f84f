"""The Lua keywords of the global section as the configuration reader sees them.

Owns: lua-load, lua-load-per-thread, lua-prepend-path and tune.lua.* at parse time: valid
values pass `-c` (exit 0), bad values and arities are refused with the file:line and the
keyword (exit 1, with `-c` and at start), the keywords are unknown outside `global`,
tune.lua.maxmem given after a lua-load (the memory taken before it is counted: freeing it
later must not break the next allocations), and a build without Lua (`make USE_LUA=0`)
refusing each keyword. The run-time effects of the limits are test_lua_limits.py's.
Where 2.6 shares the behaviour the tests also run in reference mode; the keywords 2.6 lacks
are marked v32, this proxy's stricter checks `ours`. The USE_LUA=0 test needs a binary built
so: HAPROXY_NOLUA_BIN=path (`make USE_LUA=0 && cp haproxy /tmp/haproxy-nolua`), else it
is skipped.
"""

import os
import re
import subprocess

import httpc
import pytest
from conftest import IS_REF, run_haproxy

SCRIPT = """core.register_action("hdr", { "http-req" }, function(txn)
	txn.http:req_set_header("X-Lua", "1")
end)
"""

DEFAULTS = """defaults
    mode http
    timeout connect 2s
    timeout client 5s
    timeout server 5s
"""


def write_cfg(tmp_path, glob_lines, port, fe_lines=()):
    """c.cfg: `global` with glob_lines (from line 2), then a frontend on port."""
    text = "global\n" + "".join("    %s\n" % g for g in glob_lines) + DEFAULTS
    text += "frontend fe\n    bind 127.0.0.1:%d\n" % port
    text += "".join("    %s\n" % f for f in fe_lines)
    text += '    http-request return status 200 content-type text/plain string "ok"\n'
    p = tmp_path / "c.cfg"
    p.write_text(text)
    return p


@pytest.fixture
def script(tmp_path):
    p = tmp_path / "s.lua"
    p.write_text(SCRIPT)
    return p


def check(path, binary=None):
    if binary is None:
        return run_haproxy(["-c", "-f", str(path)])
    return subprocess.run([binary, "-c", "-f", str(path)], capture_output=True, text=True,
                          timeout=20)


def alerts(text):
    return [l for l in text.splitlines() if l.startswith("[ALERT]")]


def expand(line, script):
    return line.replace("SCRIPT", str(script))


# ---- accepted ----

@pytest.mark.parametrize("line", [
    "lua-load SCRIPT",
    "lua-load-per-thread SCRIPT",
    "tune.lua.forced-yield 5000",
    "tune.lua.maxmem 64",
    "tune.lua.maxmem 0",
    "tune.lua.session-timeout 2s",
    "tune.lua.session-timeout 500",
    "tune.lua.service-timeout 1m",
    "tune.lua.task-timeout 10s",
    "lua-prepend-path /usr/share/haproxy-lua/?.lua",
    "lua-prepend-path /usr/share/haproxy-lua/?.lua path",
    "lua-prepend-path /usr/lib/haproxy-lua/?.so cpath",
])
def test_valid_values(tmp_path, port, script, line):
    r = check(write_cfg(tmp_path, [expand(line, script)], port))
    assert r.returncode == 0, r.stderr
    assert "Configuration file is valid" in r.stdout
    assert not alerts(r.stderr), r.stderr


@pytest.mark.v32
@pytest.mark.parametrize("line", [
    "tune.lua.burst-timeout 500ms",
    "tune.lua.burst-timeout 0",
    "tune.lua.log.loggers off",
    "tune.lua.log.stderr on",
    "tune.lua.log.stderr off",
    "tune.lua.log.stderr auto",
    "tune.lua.bool-sample-conversion normal",
    "tune.lua.bool-sample-conversion pre-3.1-bug",
    "tune.lua.openlibs all",
    "tune.lua.openlibs none",
    "tune.lua.openlibs string,table,math",
])
def test_valid_values_of_later_versions(tmp_path, port, line):
    r = check(write_cfg(tmp_path, [line], port))
    assert r.returncode == 0, r.stderr
    assert "Configuration file is valid" in r.stdout


def test_all_keywords_together(tmp_path, port, script):
    """Every 2.6 keyword at once, then the Lua action in use: the file loads."""
    lines = ["tune.lua.forced-yield 2000", "tune.lua.maxmem 32",
             "tune.lua.session-timeout 1s", "tune.lua.service-timeout 1s",
             "tune.lua.task-timeout 1s", "lua-prepend-path %s/?.lua" % tmp_path,
             "lua-load-per-thread %s" % script]
    r = check(write_cfg(tmp_path, lines, port, ["http-request lua.hdr"]))
    assert r.returncode == 0, r.stderr


# ---- refused, by 2.6 too ----

# (line, a word the alert names): the alert is at line 2 of c.cfg
REFUSED = [
    ("lua-load", "lua-load"),
    ("lua-load-per-thread", "lua-load-per-thread"),
    ("lua-load %s" % "/nonexistent/x.lua", "/nonexistent/x.lua"),
    ("lua-load-per-thread %s" % "/nonexistent/x.lua", "/nonexistent/x.lua"),
    ("tune.lua.forced-yield abc", "tune.lua.forced-yield"),
    ("tune.lua.maxmem", "tune.lua.maxmem"),
    ("tune.lua.maxmem 10k", "tune.lua.maxmem"),
    ("tune.lua.maxmem abc", "tune.lua.maxmem"),
    ("tune.lua.session-timeout", "tune.lua.session-timeout"),
    ("tune.lua.session-timeout 10x", "tune.lua.session-timeout"),
    ("tune.lua.service-timeout abc", "tune.lua.service-timeout"),
    ("tune.lua.task-timeout -1", "tune.lua.task-timeout"),
    ("tune.lua.task-timeout", "tune.lua.task-timeout"),
    ("lua-prepend-path", "lua-prepend-path"),
    ("lua-prepend-path /x/?.lua lib", "lua-prepend-path"),
    ("lua-prepend-path /x/?.lua path extra", "lua-prepend-path"),
]


@pytest.mark.parametrize("line,named", REFUSED)
def test_refused_with_file_and_line(tmp_path, port, line, named):
    r = check(write_cfg(tmp_path, ["nbthread 1", line], port))
    assert r.returncode == 1, r.stderr
    first = alerts(r.stderr)[0]
    assert "parsing [%s:3]" % (tmp_path / "c.cfg") in first, r.stderr
    assert named in first, first
    assert "Configuration file is valid" not in r.stdout


def test_refused_at_start_too(tmp_path, port):
    p = write_cfg(tmp_path, ["tune.lua.session-timeout 10x"], port)
    r = run_haproxy(["-f", str(p)], timeout=10)
    assert r.returncode == 1, r.stderr
    assert "c.cfg:2]" in alerts(r.stderr)[0]


@pytest.mark.parametrize("line", ["lua-load SCRIPT", "tune.lua.maxmem 10",
                                  "tune.lua.forced-yield 100", "lua-prepend-path /x/?.lua"])
def test_unknown_outside_global(tmp_path, port, script, line):
    kw = line.split()[0]
    r = check(write_cfg(tmp_path, [], port, [expand(line, script)]))
    assert r.returncode == 1
    assert ("unknown keyword '%s' in 'frontend' section" % kw) in alerts(r.stderr)[0], r.stderr


# ---- this proxy's messages, and what it refuses where 2.6 lets it pass ----

@pytest.mark.ours
@pytest.mark.parametrize("line,msg", [
    ("tune.lua.forced-yield 0", "'tune.lua.forced-yield' expects a positive number of "
     "instructions."),
    ("tune.lua.forced-yield", "'tune.lua.forced-yield' expects one argument."),
    ("tune.lua.forced-yield 10 20", "'tune.lua.forced-yield' expects one argument."),
    ("tune.lua.maxmem -1", "'tune.lua.maxmem' expects a number of megabytes."),
    ("tune.lua.maxmem 10 20", "'tune.lua.maxmem' expects one argument."),
    ("tune.lua.session-timeout 1s 2s", "'tune.lua.session-timeout' expects one argument."),
    ("tune.lua.session-timeout 10x", "'tune.lua.session-timeout' : invalid time value '10x'."),
    ("tune.lua.burst-timeout soon", "'tune.lua.burst-timeout' : invalid time value 'soon'."),
    ("tune.lua.log.loggers yes", "'tune.lua.log.loggers' expects 'on' or 'off'."),
    ("tune.lua.log.stderr yes", "'tune.lua.log.stderr' expects 'on', 'auto' or 'off'."),
    ("tune.lua.bool-sample-conversion yes",
     "'tune.lua.bool-sample-conversion' expects 'normal' or 'pre-3.1-bug'."),
    ("lua-prepend-path /x/?.lua lib",
     "'lua-prepend-path' : type must be 'path' or 'cpath', not 'lib'."),
    ("lua-load", "'lua-load' expects a file name as parameter."),
])
def test_our_messages(tmp_path, port, line, msg):
    r = check(write_cfg(tmp_path, [line], port))
    assert r.returncode == 1
    assert alerts(r.stderr)[0].endswith("parsing [%s:2] : %s" % (tmp_path / "c.cfg", msg)), \
        r.stderr


def test_syntax_error_names_the_script_line(tmp_path, port):
    bad = tmp_path / "bad.lua"
    bad.write_text("-- one\n-- two\nlocal x = = 1\n")
    r = check(write_cfg(tmp_path, ["lua-load %s" % bad], port))
    assert r.returncode == 1
    # Lua shortens a long file name in its own message ("...end/of/the/path")
    first = alerts(r.stderr)[0]
    assert ("parsing [%s:2] : error in Lua file '%s': " % (tmp_path / "c.cfg", bad)) in first
    assert re.search(r"bad\.lua:3: unexpected symbol near '='$", first), first


# ---- tune.lua.maxmem after a lua-load ----

MEM_SCRIPT = """-- garbage made while loading, before tune.lua.maxmem is read
local junk = {}
for i = 1, 20000 do junk[i] = string.rep("y", 100) .. i end
junk = nil
core.register_action("alloc", { "http-req" }, function(txn)
	collectgarbage() -- frees the loading garbage now that the limit is counted
	local t = {}
	for i = 1, 1000 do t[i] = string.rep("x", 64) .. i end
	txn:set_var("txn.n", #t)
end)
"""


def test_maxmem_after_lua_load(tmp_path, port, proxy):
    """The memory of the file loaded before the line counts: freeing it does not make
    every later allocation fail (the limit, 16 MB, is far above what the script uses)."""
    lua = tmp_path / "mem.lua"
    lua.write_text(MEM_SCRIPT)
    text = ("global\n    nbthread 1\n    lua-load %s\n    tune.lua.maxmem 16\n" % lua
            + DEFAULTS + "frontend fe\n    bind 127.0.0.1:%d\n" % port
            + "    http-request lua.alloc\n"
            + '    http-request return status 200 content-type text/plain '
            + 'lf-string "n=%[var(txn.n)]"\n')
    p = proxy(text, ports=[port])
    for _ in range(3):
        r = httpc.get(port, "/")
        assert (r.status, r.body) == (200, b"n=1000"), (r, p.stderr())
    assert "out of memory" not in p.stderr()
    assert p.alive()


# ---- tune.lua.bool-sample-conversion ----

BOOL_SCRIPT = """core.register_action("b", { "http-req" }, function(txn)
	local v = txn.f:always_true()
	txn:set_var("txn.t", type(v) .. ":" .. tostring(v))
end)
"""


def bool_seen(tmp_path, port, proxy, glob):
    lua = tmp_path / "bool.lua"
    lua.write_text(BOOL_SCRIPT)
    text = ("global\n    nbthread 1\n" + "".join("    %s\n" % g for g in glob)
            + "    lua-load %s\n" % lua + DEFAULTS
            + "frontend fe\n    bind 127.0.0.1:%d\n    http-request lua.b\n" % port
            + '    http-request return status 200 content-type text/plain '
            + 'lf-string "%[var(txn.t)]"\n')
    proxy(text, ports=[port])
    r = httpc.get(port, "/")
    assert r.status == 200
    return r.body


@pytest.mark.xfail(not IS_REF, strict=True,
                   reason="a boolean sample reaches Lua as a boolean whatever the setting")
def test_boolean_fetch_is_a_number_by_default(tmp_path, port, proxy):
    """Scripts written for 2.6 (and 3.2's default, pre-3.1-bug) read a boolean fetch as
    the number 1."""
    assert bool_seen(tmp_path, port, proxy, []) == b"number:1"


@pytest.mark.v32
def test_boolean_fetch_is_a_boolean_with_normal(tmp_path, port, proxy):
    glob = ["tune.lua.bool-sample-conversion normal"]
    assert bool_seen(tmp_path, port, proxy, glob) == b"boolean:true"


# ---- a build without Lua ----

NOLUA_BIN = os.environ.get("HAPROXY_NOLUA_BIN")

KEYWORDS = ["lua-load SCRIPT", "lua-load-per-thread SCRIPT", "lua-prepend-path /x/?.lua",
            "tune.lua.forced-yield 100", "tune.lua.maxmem 10",
            "tune.lua.session-timeout 1s", "tune.lua.service-timeout 1s",
            "tune.lua.task-timeout 1s", "tune.lua.burst-timeout 1s",
            "tune.lua.log.loggers on", "tune.lua.log.stderr auto",
            "tune.lua.bool-sample-conversion normal", "tune.lua.openlibs all"]


@pytest.mark.ours
@pytest.mark.skipif(not NOLUA_BIN, reason="HAPROXY_NOLUA_BIN (a make USE_LUA=0 build) not set")
def test_build_without_lua_refuses_each_keyword(tmp_path, port, script):
    vv = subprocess.run([NOLUA_BIN, "-vv"], capture_output=True, text=True, timeout=10)
    assert re.search(r"Feature list : .*-LUA ", vv.stdout), vv.stdout
    assert "Built with Lua" not in vv.stdout
    lines = [expand(k, script) for k in KEYWORDS]
    r = check(write_cfg(tmp_path, lines, port, ["http-request lua.hdr"]), NOLUA_BIN)
    assert r.returncode == 1
    got = alerts(r.stderr)
    cfg = tmp_path / "c.cfg"
    for i, k in enumerate(KEYWORDS):
        want = ("parsing [%s:%d] : '%s' : Lua support is not built in (this binary was "
                "built with USE_LUA=0)." % (cfg, i + 2, k.split()[0]))
        assert any(a.endswith(want) for a in got), (want, r.stderr)
    fe_line = len(KEYWORDS) + 2 + DEFAULTS.count("\n") + 2
    assert any("[%s:%d] : 'http-request lua.hdr'" % (cfg, fe_line) in a
               and "Lua support is not built in" in a for a in got), r.stderr
    # and a configuration without Lua is fine
    ok = check(write_cfg(tmp_path, ["nbthread 1"], port), NOLUA_BIN)
    assert ok.returncode == 0, ok.stderr
