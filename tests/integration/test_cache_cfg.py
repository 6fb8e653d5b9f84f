"""The configuration of the cache as `haproxy -c` judges it: the `cache` section and its
keywords (values, limits, defaults), the cache-use/cache-store rules, `filter cache` and
the implicit filter the rules declare, and their order with a compression filter. The
messages are HAProxy 2.6's, word for word (the tests run against it in reference mode).
"""

import pytest
from conftest import IS_REF, free_port, run_haproxy

HEAD = """global
    log stdout format raw local0
"""
PROXY = """defaults
    mode http
    timeout client 1s
    timeout server 1s
    timeout connect 1s
frontend fe
    bind 127.0.0.1:%d
%s    default_backend be
backend be
    server s1 127.0.0.1:1
"""


def check(tmp_path, cache, fe_lines=()):
    text = HEAD + cache + PROXY % (free_port(), "".join("    %s\n" % l for l in fe_lines))
    p = tmp_path / "c.cfg"
    p.write_text(text)
    r = run_haproxy(["-c", "-f", str(p)])
    return r, str(p)


def msgs(r, level="ALERT"):
    out = []
    for line in (r.stdout + r.stderr).splitlines():
        if "[%s]" % level in line:
            out.append(line.split(" : ", 1)[1] if " : " in line else line)
    return out


def has(r, level, text):
    return any(text in m for m in msgs(r, level))


def test_valid_section_and_defaults(tmp_path):
    r, _ = check(tmp_path, "cache c1\n    total-max-size 4\n    max-age 30\n"
                 "    max-object-size 2097152\n    process-vary on\n"
                 "    max-secondary-entries 5\n",
                 ["http-request cache-use c1", "http-response cache-store c1 if TRUE"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert not msgs(r, "WARNING")


@pytest.mark.parametrize("lines,level,text", [
    ("total-max-size abc", "WARNING", "parsing [%s:4]: total-max-size wrong value 'abc'"),
    ("total-max-size", "WARNING", "parsing [%s:4]: total-max-size wrong value ''"),
    ("total-max-size 4k", "WARNING", "parsing [%s:4]: total-max-size wrong value '4k'"),
    ("total-max-size 5000", "WARNING",
     'parsing [%s:4]: "total-max-size" (5000) must not be greater than 4095'),
    ("total-max-size 1 2", "ALERT",
     "parsing [%s:4] : 'total-max-size' cannot handle unexpected argument '2'."),
    ("total-max-size 0", "ALERT", "Size not specified for cache 'c1'"),
    ("max-age 30", "ALERT", "Size not specified for cache 'c1'"),
    ("total-max-size 4\n    max-object-size 2097153", "ALERT",
     '"max-object-size" is limited to an half of "total-max-size" => 2097152'),
    ("total-max-size 4\n    max-object-size 12x", "WARNING",
     "parsing [%s:5]: max-object-size wrong value '12x'"),
    ("total-max-size 4\n    max-secondary-entries 0", "WARNING",
     "parsing [%s:5]: max-secondary-entries wrong value '0'"),
    ("total-max-size 4\n    max-secondary-entries 3x", "WARNING",
     "parsing [%s:5]: max-secondary-entries wrong value '3x'"),
    ("total-max-size 4\n    max-age 1 2", "ALERT",
     "parsing [%s:5] : 'max-age' cannot handle unexpected argument '2'."),
    ("total-max-size 4\n    foo bar", "ALERT",
     "parsing [%s:5] : unknown keyword 'foo' in 'cache' section"),
])
def test_section_errors(tmp_path, lines, level, text):
    r, path = check(tmp_path, "cache c1\n    %s\n" % lines)
    assert r.returncode != 0
    want = text % path if "%s" in text else text
    assert has(r, level, want), msgs(r, level)


@pytest.mark.parametrize("lines,text", [
    ("process-vary maybe", "parsing [%s:5]: 'process-vary' expects \"on\" or \"off\" (enable "
     "or disable vary processing)."),
    ("max-age", "parsing [%s:5]: 'max-age' expects an age parameter in seconds."),
])
def test_section_warnings(tmp_path, lines, text):
    r, path = check(tmp_path, "cache c1\n    total-max-size 4\n    %s\n" % lines)
    assert r.returncode == 0, msgs(r)
    assert has(r, "WARNING", text % path), msgs(r, "WARNING")


def test_section_name(tmp_path):
    r, path = check(tmp_path, "cache\n    total-max-size 4\n")
    assert r.returncode != 0
    assert has(r, "ALERT", "parsing [%s:3] : 'cache' expects a <name> argument" % path)
    r, path = check(tmp_path, "cache c1\n    total-max-size 4\ncache c1\n    total-max-size 4\n")
    assert r.returncode != 0
    assert has(r, "ALERT", "Duplicate cache name 'c1'."), msgs(r)


def test_rules_errors(tmp_path):
    c = "cache c1\n    total-max-size 4\n"
    r, path = check(tmp_path, c, ["http-request cache-use"])
    assert r.returncode != 0
    assert has(r, "ALERT", "expects a cache name"), msgs(r)
    r, path = check(tmp_path, c, ["http-request cache-use c1 extra"])
    assert r.returncode != 0
    assert has(r, "ALERT", "'http-request cache-use' expects either 'if' or 'unless' followed "
               "by a condition but found 'extra'."), msgs(r)
    r, _ = check(tmp_path, c, ["http-request cache-store c1"])
    assert r.returncode != 0
    r, _ = check(tmp_path, c, ["http-after-response cache-store c1"])
    assert r.returncode != 0
    r, _ = check(tmp_path, c, ["http-request cache-use nope"])
    assert r.returncode != 0
    assert has(r, "ALERT", "config: frontend 'fe': unable to find the cache 'nope' referenced "
               "by the filter 'cache'."), msgs(r)


def test_filter_cache(tmp_path):
    c = "cache c1\n    total-max-size 4\n"
    r, _ = check(tmp_path, c, ["filter cache c1", "http-request cache-use c1"])
    assert r.returncode == 0, msgs(r)
    r, path = check(tmp_path, c, ["filter cache"])
    assert r.returncode != 0
    assert has(r, "ALERT", "parsing [%s:12] : 'filter' : 'cache : expects a <name> argument'"
               % path), msgs(r)
    r, path = check(tmp_path, c, ["filter cache c1 extra"])
    assert r.returncode != 0
    assert has(r, "ALERT", "parsing [%s:12] : 'filter cache' : unknown keyword 'extra'." % path)
    r, path = check(tmp_path, c, ["filter cache c1", "filter cache c1"])
    assert r.returncode != 0
    assert has(r, "ALERT", "parsing [%s:13] : 'filter' : 'fe: multiple explicit declarations of "
               "the cache filter 'c1''" % path), msgs(r)
    r, _ = check(tmp_path, c, ["filter cache nope"])
    assert r.returncode != 0
    assert has(r, "ALERT", "config: frontend 'fe': unable to find the cache 'nope' referenced "
               "by the filter 'cache'."), msgs(r)


def compression_known(tmp_path):
    r, _ = check(tmp_path, "", ["filter compression"])
    return r.returncode == 0


def test_compression_after_the_cache(tmp_path):
    if not compression_known(tmp_path):
        pytest.skip("this build has no compression filter")
    c = "cache c1\n    total-max-size 4\n"
    bad = "config: frontend 'fe': unable to enable the compression filter before the cache 'c1'."
    for lines in (["filter compression", "http-request cache-use c1",
                   "http-response cache-store c1"],
                  ["filter compression", "filter cache c1", "http-request cache-use c1"]):
        r, _ = check(tmp_path, c, lines)
        assert r.returncode != 0, lines
        assert has(r, "ALERT", bad), msgs(r)
    for lines in (["filter cache c1", "filter compression"],
                  ["compression algo gzip", "http-request cache-use c1",
                   "http-response cache-store c1"]):
        r, _ = check(tmp_path, c, lines)
        assert r.returncode == 0, (lines, msgs(r))
