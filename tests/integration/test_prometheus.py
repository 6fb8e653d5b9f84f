"""The Prometheus exporter: `http-request use-service prometheus-exporter`.

Owns: what a scraper sees: the response head, the text format checked by `promtool check
metrics` (Debian's prometheus package), HAProxy 2.6's metric names, HELP/TYPE lines and
label sets (compared with Debian's haproxy, which is built with the exporter, on the same
config), counters equal to the requests sent, the `scope=` and `no-maint` filters, a
large output streamed in pieces, and the `-vv` lines.
"""

import os
import re
import shutil
import subprocess
import time

import pytest

import httpc
from conftest import HAPROXY_BIN, free_port, run_haproxy, stop_pid_proc, wait_port

PROMTOOL = shutil.which("promtool")
REF_BIN = "/usr/sbin/haproxy"
# HAProxy 2.6's own output fails this promtool lint (a counter without "_total"); the
# names are kept as HAProxy has them, so the same lint line is expected from both.
KNOWN_LINT = {"haproxy_process_failed_resolutions counter metrics should have \"_total\" suffix"}


def cfg(fe_port, servers, extra_be="", extra="", glob=()):
    lines = ["global", "    nbthread 2"] + ["    " + g for g in glob]
    lines += ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 10s",
              "    timeout server 10s", "frontend fe", "    bind 127.0.0.1:%d" % fe_port,
              "    http-request use-service prometheus-exporter if { path /metrics }",
              "    default_backend be", "backend be"]
    lines += ["    server %s 127.0.0.1:%d %s" % s for s in servers]
    lines += ["    " + x for x in extra_be.splitlines() if x]
    return "\n".join(lines) + "\n" + extra


def scrape(port, query="", method="GET"):
    path = "/metrics" + ("?" + query if query else "")
    raw = ("%s %s HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n" % (method, path)).encode()
    return httpc.request(port, raw, method=method, timeout=20)


def samples(text):
    """{(name, frozenset(labels.items())): value} of the sample lines."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = re.match(r'^([a-z_]+)(\{(.*)\})? (\S+)$', line)
        assert m, line
        labels = frozenset(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(3) or ""))
        out[(m.group(1), labels)] = m.group(4)
    return out


def value(text, name, **labels):
    return samples(text)[(name, frozenset(labels.items()))]


def shape(text):
    """The output without sample values: HELP/TYPE lines and each sample's name+labels."""
    return [line if line.startswith("#") else line.rsplit(" ", 1)[0]
            for line in text.splitlines()]


def promtool(text):
    if not PROMTOOL:
        pytest.skip("promtool missing (Debian package prometheus)")
    p = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode in (0, 3), p.stderr  # 1: the text does not parse
    lint = {x.strip() for x in (p.stdout + p.stderr).splitlines() if x.strip()}
    assert lint <= KNOWN_LINT, lint


@pytest.mark.parametrize("glob", [(), pytest.param(("thread-groups 2",), marks=pytest.mark.ours)],
                         ids=["1group", "2groups"])
def test_exporter_head_format_and_counters(proxy, backends, glob):
    bs = backends(2)
    fe = free_port()
    proxy(cfg(fe, [("s1", bs[0].port, ""), ("s2", bs[1].port, ""),
                   ("s3", free_port(), "disabled")], glob=glob), ports=[fe])
    before = scrape(fe).body.decode()
    n = 20
    for _ in range(n):
        assert httpc.get(fe, "/x").status == 200
    # the counters of a response are bumped as its stream ends, maybe just after the
    # client has it: scrape again (bounded) until the last one is counted
    deadline = time.monotonic() + 5
    while True:
        r = scrape(fe)
        done = ('haproxy_backend_http_responses_total{proxy="be",code="2xx"} %d\n' % n
                ).encode() in r.body
        if done or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert r.status == 200
    assert r.header("content-type") == "text/plain; version=0.0.4"
    assert r.header("cache-control") == "no-cache"
    assert r.header("transfer-encoding") == "chunked"
    text = r.body.decode()
    promtool(text)
    # a scrape is a request of the frontend, intercepted by the service
    fe_req = [int(value(t, "haproxy_frontend_http_requests_total", proxy="fe"))
              for t in (before, text)]
    assert fe_req[1] - fe_req[0] >= n + 1
    assert int(value(text, "haproxy_frontend_intercepted_requests_total", proxy="fe")) >= 2
    assert value(text, "haproxy_backend_http_requests_total", proxy="be") == str(n)
    assert value(text, "haproxy_backend_http_responses_total", proxy="be", code="2xx") == str(n)
    per_srv = [int(value(text, "haproxy_server_http_responses_total", proxy="be", server=s,
                         code="2xx")) for s in ("s1", "s2", "s3")]
    assert sum(per_srv) == n and per_srv[2] == 0
    assert value(text, "haproxy_server_status", proxy="be", server="s3", state="MAINT") == "1"
    assert value(text, "haproxy_server_status", proxy="be", server="s1", state="UP") == "1"
    assert value(text, "haproxy_backend_agg_server_status", proxy="be", state="UP") == "2"
    assert value(text, "haproxy_server_limit_sessions", proxy="be", server="s1") == "NaN"
    assert value(text, "haproxy_process_nbthread") == "2"
    assert "# TYPE haproxy_frontend_http_requests_total counter\n" in text
    assert "# TYPE haproxy_backend_current_queue gauge\n" in text
    # HEAD: the same head, no body
    h = scrape(fe, method="HEAD")
    assert h.status == 200 and h.body == b""
    assert h.header("content-type") == "text/plain; version=0.0.4"


MORE_CFG = """
listen li
    bind 127.0.0.1:%d
    server l1 127.0.0.1:%d check inter 200ms
backend be2
    server t1 127.0.0.1:%d
backend st
    stick-table type ip size 1k expire 10s store http_req_cnt
"""


@pytest.mark.ours
@pytest.mark.skipif(not os.path.exists(REF_BIN), reason="Debian's haproxy missing")
def test_names_labels_order_match_haproxy(proxy, backends, tmp_path):
    """Same config on Debian's haproxy 2.6 (built with the exporter, see -vv) and on
    ours: the same HELP/TYPE lines and the same samples (names and labels, in order)."""
    bs = backends(1)
    dead = free_port()
    texts = []
    for binary in (REF_BIN, None):
        fe, li = free_port(), free_port()
        text = cfg(fe, [("s1", bs[0].port, "maxconn 7 maxqueue 3"),
                        ("s2", dead, "disabled"), ("s3", dead, "check inter 200ms")],
                   extra=MORE_CFG % (li, bs[0].port, bs[0].port))
        if binary:
            p = tmp_path / "ref.cfg"
            p.write_text(text)
            ref = subprocess.Popen([binary, "-f", str(p)], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
            try:
                assert wait_port(fe, 10.0, ref)
                texts.append(wait_checked(fe))
            finally:
                stop_pid_proc(ref)
        else:
            proxy(text, ports=[fe])
            texts.append(wait_checked(fe))
    # the version label differs by nature
    ref_shape, our_shape = [[re.sub(r'version="[^"]*"', 'version=""', x) for x in shape(t)]
                            for t in texts]
    assert our_shape == ref_shape, "\n".join(
        "%s | %s" % (a, b) for a, b in zip(ref_shape, our_shape) if a != b)


def wait_checked(fe):
    """A scrape once the checked servers' first checks have run (check_status set)."""
    deadline = time.monotonic() + 10
    while True:
        text = scrape(fe).body.decode()
        if (('haproxy_server_check_status{proxy="be",server="s3",state="L4CON"} 1' in text
             and 'haproxy_server_check_status{proxy="li",server="l1",state="L4OK"} 1' in text)
                or time.monotonic() > deadline):
            return text
        time.sleep(0.2)


def names_in(text):
    return {line.split("{")[0].split(" ")[0] for line in text.splitlines()
            if line and not line.startswith("#")}


def test_scopes_and_no_maint(proxy, backends):
    bs = backends(1)
    fe, li = free_port(), free_port()
    proxy(cfg(fe, [("s1", bs[0].port, ""), ("s2", free_port(), "disabled")],
              extra=MORE_CFG % (li, bs[0].port, bs[0].port)), ports=[fe])
    full = scrape(fe).body.decode()
    promtool(full)
    kinds = {n.split("_")[1] for n in names_in(full)}
    assert kinds == {"process", "frontend", "backend", "server", "sticktable"}
    for q, want in [("scope=global", {"process"}),
                    ("scope=frontend&scope=backend", {"frontend", "backend"}),
                    ("scope=server", {"server"}),
                    ("scope=sticktable", {"sticktable"}),
                    ("scope=&scope=server", {"server"}),
                    ("scope=%2A", {"process", "frontend", "backend", "server", "sticktable"}),
                    ("foo=bar&scope=glob%61l", {"process"})]:
        r = scrape(fe, q)
        assert r.status == 200, q
        assert {n.split("_")[1] for n in names_in(r.body.decode())} == want, q
    for q in ("scope=", "scope=server&scope=", "scope=listener"):
        r = scrape(fe, q)
        assert (r.status, r.body) == (200, b""), q
    for q in ("scope", "scope=bogus", "scope=Global", "scope=global,server"):
        r = scrape(fe, q)
        assert r.status == 400, q
        assert b"400 Bad request" in r.body, q
    # a listen is both a frontend and a backend, its servers are servers
    fe_text = scrape(fe, "scope=frontend").body.decode()
    assert 'haproxy_frontend_http_requests_total{proxy="li"} 0' in fe_text
    assert 'proxy="be"' not in fe_text
    be_text = scrape(fe, "scope=backend").body.decode()
    assert 'haproxy_backend_http_requests_total{proxy="li"} 0' in be_text
    assert 'haproxy_backend_http_requests_total{proxy="be2"} 0' in be_text
    # a backend without servers has no aggregated server states
    assert 'haproxy_backend_current_queue{proxy="st"} 0' in be_text
    assert 'haproxy_backend_agg_server_status{proxy="st"' not in be_text
    assert 'haproxy_sticktable_size{name="st",type="ip"} 1024' in full
    # no-maint: the server in maintenance disappears from the server metrics only
    srv = scrape(fe, "scope=server").body.decode()
    nm = scrape(fe, "scope=server&no-maint").body.decode()
    assert 'server="s2"' in srv and 'server="s2"' not in nm
    assert 'server="s1"' in nm
    assert len(shape(nm)) < len(shape(srv))
    both = scrape(fe, "no-maint&scope=backend").body.decode()
    assert 'haproxy_backend_agg_server_status{proxy="be",state="MAINT"} 1' in both


@pytest.mark.ours
def test_many_servers_streamed(proxy, backends):
    """3000 servers: the body is produced piece by piece, complete and valid."""
    fe = free_port()
    dead = free_port()
    servers = [("x%d" % i, dead, "") for i in range(3000)]
    p = proxy(cfg(fe, servers), ports=[fe])
    rss0 = p.rss_kib()
    r = scrape(fe, "scope=server")
    assert r.status == 200
    text = r.body.decode()
    assert len(text) > 5_000_000
    st = [x for x in text.splitlines() if x.startswith("haproxy_server_status{")]
    assert len(st) == 5 * 3000
    assert text.count("# HELP haproxy_server_status ") == 1
    promtool(text)
    # the proxy never held the body whole (bounded by its buffers, not by the output);
    # ASan's quarantine keeps every freed buffer, so only a plain build tells
    if "asan" not in os.path.basename(HAPROXY_BIN):
        assert p.rss_kib() - rss0 < 4096, (rss0, p.rss_kib())
    assert p.alive()


def test_vv_lists_the_exporter():
    out = run_haproxy(["-vv"]).stdout
    assert "Built with the Prometheus exporter as a service\n" in out
    assert re.search(r"^Available services : .*prometheus-exporter", out, re.M)
    assert "+PROMEX" in out
