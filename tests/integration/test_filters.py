"""The filter layer's configuration: `filter` lines, where they are allowed, names that are
unknown or not supported, and the order rules a user meets. The filters themselves
(compression, cache) have their own test files, which drive the body pump end to end.

Where HAProxy 2.6 behaves the same, the tests also run in reference mode.
"""

import pytest
from conftest import IS_REF, free_port, run_haproxy

DEFAULTS = """defaults
    mode http
    timeout client 1s
    timeout server 1s
    timeout connect 1s
"""


def check(tmp_path, text):
    p = tmp_path / "f.cfg"
    p.write_text(text)
    return run_haproxy(["-c", "-f", str(p)]), str(p)


def alerts(r):
    return [l for l in (r.stdout + r.stderr).splitlines() if "[ALERT]" in l]


def test_filter_in_defaults_is_an_error(tmp_path):
    r, path = check(tmp_path, DEFAULTS.replace("mode http\n", "mode http\n    filter compression\n")
                    + "frontend fe\n    bind 127.0.0.1:%d\n" % free_port())
    assert r.returncode != 0
    a = alerts(r)
    assert any("%s:3]" % path in l and "filter is not allowed in a 'default' section" in l
               for l in a), a


def test_unknown_filter_names_file_and_line(tmp_path):
    r, path = check(tmp_path, DEFAULTS + "frontend fe\n    bind 127.0.0.1:%d\n"
                    "    filter foo\n" % free_port())
    assert r.returncode != 0
    a = alerts(r)
    assert any("%s:8]" % path in l and "'filter' : unknown keyword 'foo'" in l for l in a), a


@pytest.mark.parametrize("line", ["filter trace", "filter spoe engine e config spoe.conf",
                                  "filter fcgi-app php", "filter bwlim-in x default-limit 1k "
                                  "default-period 1s"])
def test_filters_not_supported_are_refused(tmp_path, line):
    if IS_REF:
        pytest.skip("2.6 has these filters (bwlim only from 2.7)")
    r, path = check(tmp_path, DEFAULTS + "frontend fe\n    bind 127.0.0.1:%d\n    %s\n"
                    % (free_port(), line))
    assert r.returncode != 0
    a = alerts(r)
    assert any("%s:8]" % path in l and "not supported yet" in l for l in a), a


def test_filter_without_name(tmp_path):
    r, path = check(tmp_path, DEFAULTS + "frontend fe\n    bind 127.0.0.1:%d\n    filter\n"
                    % free_port())
    assert r.returncode != 0
    assert any("%s:8]" % path in l for l in alerts(r)), alerts(r)
