"""examples/lua/ driven as a user would run them: each configuration with its Lua script,
its ports rewritten (and the rate limiter's period shortened), checked against what
examples/lua/README.md says.

Owns: that every examples/lua/*.cfg is valid (`-c` from the top of the source tree, as the
README runs them) and behaves as documented: the hello service, the header-based router,
the CORS handler, the rate limiter with its shared table.
"""

import socket
import subprocess
import time

import httpc
import pytest
from backend import Reader
from conftest import HAPROXY_BIN, REPO, free_port

EX = REPO / "examples" / "lua"
NAMES = ["hello", "router", "cors", "ratelimit"]


def example_cfg(name, port, servers=(), replace=()):
    """examples/lua/<name>.cfg with the script's absolute path, the bind on <port> and
    127.0.0.1:8081.. replaced by the ports of <servers>, in order."""
    text = (EX / (name + ".cfg")).read_text()
    text = text.replace("lua-load examples/lua/", "lua-load %s/" % EX)
    text = text.replace("bind 127.0.0.1:8080", "bind 127.0.0.1:%d" % port)
    for i, s in enumerate(servers):
        text = text.replace("127.0.0.1:%d" % (8081 + i), "127.0.0.1:%d" % s.port)
    for old, new in replace:
        assert old in text
        text = text.replace(old, new)
    return text


def req(port, target="/", method="GET", headers=(), source=None):
    hdrs = "".join("%s: %s\r\n" % h for h in headers)
    raw = ("%s %s HTTP/1.1\r\nHost: api.example.com\r\n%sConnection: close\r\n\r\n"
           % (method, target, hdrs)).encode()
    s = socket.create_connection(("127.0.0.1", port), timeout=10,
                                 source_address=(source, 0) if source else None)
    with s:
        s.settimeout(10)
        s.sendall(raw)
        return httpc.read_response(Reader(s), method)


@pytest.mark.parametrize("name", NAMES)
def test_example_is_valid(name):
    assert (EX / (name + ".lua")).exists()
    r = subprocess.run([HAPROXY_BIN, "-c", "-f", "examples/lua/%s.cfg" % name], cwd=REPO,
                       capture_output=True, text=True, timeout=20)
    assert r.returncode == 0, r.stderr
    assert "Configuration file is valid" in r.stdout


def test_readme_describes_every_example():
    text = (EX / "README.md").read_text()
    for name in NAMES:
        assert "## %s:" % name in text
        assert "`%s.cfg`, `%s.lua`" % (name, name) in text


# ---- hello ----

def test_hello(proxy, port):
    proxy(example_cfg("hello", port), ports=[port])
    r = req(port, "/")
    assert (r.status, r.body) == (200, b"Hello, world!\n")
    assert r.header("Content-Type") == "text/plain"
    assert r.header("Content-Length") == "14"
    assert req(port, "/?name=Ada").body == b"Hello, Ada!\n"
    assert req(port, "/any/path?name=<script>").body == b"Hello, world!\n"


# ---- router ----

def test_router(proxy, backends, port):
    app, beta, mobile = backends(names=["app", "beta", "mobile"])
    proxy(example_cfg("router", port, [app, beta, mobile]), ports=[port])
    cases = [
        ((), "app", "default"),
        ((("X-Route", "beta"),), "beta", "be_beta"),
        ((("X-Route", "BETA"),), "beta", "be_beta"),
        ((("X-Route", "mobile"),), "mobile", "be_mobile"),
        ((("User-Agent", "Mozilla/5.0 (iPhone) Mobile/15E148"),), "mobile", "be_mobile"),
        ((("X-Route", "nosuch"),), "app", "default"),
    ]
    for headers, server, routed in cases:
        r = req(port, "/p", headers=headers)
        assert r.status == 200
        assert r.header("X-Server") == server, headers
        got = {"app": app, "beta": beta, "mobile": mobile}[server].last()
        assert got.header("X-Routed-To") == routed


def test_router_drops_a_route_to_a_missing_backend(proxy, backends, port):
    app, beta = backends(names=["app", "beta"])
    # no be_mobile: the route is dropped at start with a warning, mobile goes to default
    cfg = example_cfg("router", port, [app, beta])
    cfg = cfg.replace("backend be_mobile", "backend be_other")
    p = proxy(cfg, ports=[port])
    r = req(port, "/", headers=[("X-Route", "mobile")])
    assert (r.status, r.header("X-Server")) == (200, "app")
    assert app.last().header("X-Routed-To") == "default"
    assert "route 'mobile' names unknown backend 'be_mobile'" in p.stderr()


# ---- cors ----

PREFLIGHT = [("Origin", "https://app.example.com"),
             ("Access-Control-Request-Method", "PUT"),
             ("Access-Control-Request-Headers", "Content-Type")]


def test_cors_preflight_allowed(proxy, backend, port):
    proxy(example_cfg("cors", port, [backend]), ports=[port])
    r = req(port, "/items/1", method="OPTIONS", headers=PREFLIGHT)
    assert r.status == 204
    assert r.body == b""
    assert r.header("Access-Control-Allow-Origin") == "https://app.example.com"
    assert r.header("Access-Control-Allow-Methods") == "GET, POST, PUT, DELETE"
    assert r.header("Access-Control-Allow-Headers") == "Content-Type, Authorization"
    assert r.header("Access-Control-Max-Age") == "600"
    assert r.header("Vary") == "Origin"
    assert not backend.requests  # answered by the proxy


def test_cors_preflight_refused(proxy, backend, port):
    proxy(example_cfg("cors", port, [backend]), ports=[port])
    hdrs = [("Origin", "https://evil.example.net")] + PREFLIGHT[1:]
    r = req(port, "/items/1", method="OPTIONS", headers=hdrs)
    assert (r.status, r.body) == (403, b"origin not allowed\n")
    assert r.header("Access-Control-Allow-Origin") is None
    assert not backend.requests


def test_cors_simple_requests(proxy, backend, port):
    proxy(example_cfg("cors", port, [backend]), ports=[port])
    r = req(port, "/items", headers=[("Origin", "https://admin.example.com")])
    assert (r.status, r.header("X-Server")) == (200, "s1")
    assert r.header("Access-Control-Allow-Origin") == "https://admin.example.com"
    assert r.header("Vary") == "Origin"
    # another origin, or none: the API's response as it was
    for hdrs in ([("Origin", "https://evil.example.net")], []):
        r = req(port, "/items", headers=hdrs)
        assert r.status == 200
        assert r.header("Access-Control-Allow-Origin") is None
        assert r.header("Vary") is None
    # an OPTIONS that is not a preflight goes to the API
    r = req(port, "/items", method="OPTIONS")
    assert (r.status, r.header("X-Server")) == (200, "s1")
    assert backend.last().method == "OPTIONS"


# ---- ratelimit ----

def test_ratelimit(proxy, backend, port):
    cfg = example_cfg("ratelimit", port, [backend],
                      replace=[("setenv RATELIMIT_REQUESTS 10", "setenv RATELIMIT_REQUESTS 5"),
                               ("setenv RATELIMIT_PERIOD 10", "setenv RATELIMIT_PERIOD 2")])
    proxy(cfg, ports=[port])
    # one connection per request: they spread over the threads, the table is shared
    statuses = [req(port, "/r%d" % i).status for i in range(8)]
    assert statuses == [200] * 5 + [429] * 3
    assert len(backend.requests) == 5
    r = req(port, "/more")
    assert r.status == 429
    assert r.reason == "Too Many Requests"
    assert r.header("Content-Type") == "text/plain"
    assert r.body == b"Too many requests, slow down.\n"
    wait = int(r.header("Retry-After"))
    assert 1 <= wait <= 2
    # another client address has its own count
    assert req(port, "/other", source="127.0.0.2").status == 200
    # the window ends within Retry-After seconds
    time.sleep(wait + 0.3)
    assert req(port, "/again").status == 200
    assert backend.last().path == "/again"
