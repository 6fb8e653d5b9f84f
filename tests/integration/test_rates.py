"""Connection and session rate limits, as a client hammering the proxy sees them: accepts
slow down to the configured rate, nobody is refused, and the rest of the traffic goes on.

Owns: global maxconnrate and maxsessrate, the frontend's rate-limit sessions.
"""

import time

import httpc
import pytest
from conftest import make_cfg


def timed_requests(port, n):
    t0 = time.monotonic()
    for _ in range(n):
        assert httpc.get(port).status == 200
    return time.monotonic() - t0


RETURN = 'http-request return status 200 content-type text/plain string "ok"'


@pytest.mark.parametrize("glob,listen", [
    (["maxconnrate 10"], []),
    (["maxsessrate 10"], []),
    ([], ["rate-limit sessions 10"]),
])
def test_rate_limit_spreads_connections(proxy, port, glob, listen):
    proxy(make_cfg(port, glob=glob, listen=listen + [RETURN]), ports=[port])
    time.sleep(1.1)  # the port probe's connection leaves the window
    # 30 connections at 10 per second over a sliding second: at least 2 s
    elapsed = timed_requests(port, 30)
    assert 1.8 <= elapsed < 10, elapsed


def test_without_limit_connections_are_not_delayed(proxy, port):
    proxy(make_cfg(port, listen=[RETURN]), ports=[port])
    assert timed_requests(port, 30) < 1.5


def test_rate_limit_needs_sessions_keyword(proxy, tmp_path, port):
    from conftest import run_haproxy
    cfg = tmp_path / "bad.cfg"
    cfg.write_text(make_cfg(port, listen=["rate-limit connections 10", RETURN]))
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    assert "bad.cfg:" in r.stderr


def test_show_info_reports_rates_and_limits(proxy, tmp_path, port):
    from conftest import cli
    sock = tmp_path / "s.sock"
    proxy(make_cfg(port, glob=["maxconnrate 500", "maxsessrate 400",
                               "stats socket %s level admin" % sock],
                   listen=[RETURN]), ports=[port])
    time.sleep(1.1)
    timed_requests(port, 20)
    info = dict(line.split(": ", 1) for line in cli(sock, "show info").splitlines()
                if ": " in line)
    assert info["ConnRateLimit"] == "500"
    assert info["SessRateLimit"] == "400"
    assert 15 <= int(info["ConnRate"]) <= 25, info["ConnRate"]
    assert 15 <= int(info["SessRate"]) <= 25, info["SessRate"]
    assert int(info["MaxConnRate"]) >= int(info["ConnRate"])


def test_show_stat_frontend_session_rate(proxy, tmp_path, port):
    from conftest import cli
    sock = tmp_path / "s.sock"
    proxy(make_cfg(port, glob=["stats socket %s level admin" % sock],
                   listen=["rate-limit sessions 300", RETURN]), ports=[port])
    time.sleep(1.1)
    timed_requests(port, 20)
    lines = cli(sock, "show stat").splitlines()
    hdr = lines[0].lstrip("# ").split(",")
    fe = dict(zip(hdr, next(x for x in lines if ",FRONTEND," in x).split(",")))
    assert fe["rate_lim"] == "300"
    assert 15 <= int(fe["rate"]) <= 25, fe["rate"]
    assert int(fe["rate_max"]) >= int(fe["rate"])
    assert 15 <= int(fe["conn_rate"]) <= 25, fe["conn_rate"]
