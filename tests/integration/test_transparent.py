"""`option transparent`: a backend that ignores its servers and sends each request to the
address its client originally connected to (SO_ORIGINAL_DST after a netfilter REDIRECT),
or to its `dispatch` address; `balance` beside it is a config error.

The client connects to 127.0.0.3:P2; an nft table of the test's own redirects that to the
proxy on 127.0.0.1:P1 unless the source is 127.0.0.9, the proxy's `source`, so that the
proxy's own connection reaches the origin listening on 127.0.0.3:P2. Skipped (with the
reason) where nft or kernel NAT cannot be used. Runs against Debian's haproxy too.
"""

import os
import shutil
import socket
import subprocess

import pytest
from backend import Backend
from conftest import IS_REF, free_port, run_haproxy

HEAD = ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 10s",
        "    timeout server 10s"]
ORIGIN = "127.0.0.3"
SOURCE = "127.0.0.9"


def nft(*args, check=True):
    r = subprocess.run(["nft", *args], capture_output=True, text=True, timeout=10)
    if check and r.returncode != 0:
        raise RuntimeError("nft %s: %s" % (" ".join(args), r.stderr.strip()))
    return r


@pytest.fixture
def nat():
    """Factory: nat(p2, p1) redirects ORIGIN:p2 (not from SOURCE) to the proxy's p1."""
    if os.geteuid() != 0:
        pytest.skip("nft needs root (CAP_NET_ADMIN)")
    if not shutil.which("nft"):
        pytest.skip("nft is not installed (scripts/install-deps.sh installs nftables)")
    table = "hapx_transp_%d" % os.getpid()
    try:
        nft("add", "table", "ip", table)
        nft("add", "chain", "ip", table, "out",
            "{ type nat hook output priority -100 ; }")
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        nft("delete", "table", "ip", table, check=False)
        pytest.skip("no kernel NAT through nft: %s" % e)

    def add(p2, p1):
        nft("add", "rule", "ip", table, "out", "ip", "daddr", ORIGIN, "tcp", "dport", str(p2),
            "ip", "saddr", "!=", SOURCE, "redirect", "to", ":%d" % p1)

    try:
        yield add
    finally:
        nft("delete", "table", "ip", table, check=False)


@pytest.fixture
def origin():
    b = Backend("origin", host=ORIGIN).start()
    try:
        yield b
    finally:
        b.stop()


def get(host, port, path="/"):
    s = socket.create_connection((host, port), timeout=5)
    try:
        s.sendall(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        data = b""
        for _ in range(100):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        return data
    finally:
        s.close()


def cfg(p1, *backend_lines, kw="option transparent"):
    return "\n".join(HEAD + ["frontend f", "    bind 127.0.0.1:%d" % p1, "    default_backend b",
                             "backend b", "    " + kw, "    source " + SOURCE,
                             *["    " + x for x in backend_lines]]) + "\n"


def test_transparent_reaches_original_destination(proxy, nat, origin, backend):
    p1 = free_port()
    nat(origin.port, p1)
    # a server of its own is ignored: without "balance" nothing picks it
    proxy(cfg(p1, "option forwardfor", "option originalto",
              "http-request set-header X-Via hapx",
              "http-request set-header X-Dst %[dst]:%[dst_port]",
              "server s1 127.0.0.1:%d" % backend.port), ports=[p1])
    for i in range(3):
        data = get(ORIGIN, origin.port, "/t%d" % i)
        assert data.startswith(b"HTTP/1.1 200"), data[:200]
        req = origin.last()
        assert req.path == "/t%d" % i
        assert req.header("X-Via") == "hapx"
        assert req.header("X-Forwarded-For") == "127.0.0.1"
        # what the client connected to, not the proxy's own address
        assert req.header("X-Original-To") == ORIGIN
        assert req.header("X-Dst") == "%s:%d" % (ORIGIN, origin.port)
    assert len(origin.requests) == 3
    assert backend.last() is None


def test_transparent_origin_down_is_503(proxy, nat):
    p1, p2 = free_port(), free_port()
    nat(p2, p1)
    proxy(cfg(p1, "retries 1", "timeout connect 500ms", kw="transparent"), ports=[p1])
    data = get(ORIGIN, p2)
    assert data.startswith(b"HTTP/1.1 503"), data[:200]


def test_transparent_dispatch_wins(proxy, nat, origin, backend):
    p1 = free_port()
    nat(origin.port, p1)
    proxy(cfg(p1, "dispatch 127.0.0.1:%d" % backend.port), ports=[p1])
    data = get(ORIGIN, origin.port, "/d")
    assert data.startswith(b"HTTP/1.1 200"), data[:200]
    assert backend.last().path == "/d"
    assert origin.last() is None


def check(tmp_path, lines):
    p = tmp_path / "t.cfg"
    p.write_text("\n".join(HEAD + lines) + "\n")
    return run_haproxy(["-c", "-f", str(p)])


@pytest.mark.parametrize("where", ["backend", "defaults"])
def test_transparent_with_balance_is_an_error(tmp_path, where):
    lines = ["backend b", "    option transparent", "    balance roundrobin",
             "    server s1 127.0.0.1:1"]
    if where == "defaults":
        lines = ["    balance source", "    option transparent", "backend b",
                 "    server s1 127.0.0.1:1"]
    r = check(tmp_path, lines)
    assert r.returncode != 0
    assert "backend 'b' cannot use both transparent and balance mode." in r.stderr
    if not IS_REF:  # we name the section's line too
        assert "t.cfg:%d]" % (6 if where == "backend" else 8) in r.stderr


def test_transparent_config(tmp_path):
    r = check(tmp_path, ["frontend f", "    bind 127.0.0.1:1", "    option transparent",
                         "backend b", "    option transparent", "listen l",
                         "    bind 127.0.0.1:2", "    option transparent",
                         "backend c", "    option transparent", "    no option transparent",
                         "    server s1 127.0.0.1:1"])
    assert r.returncode == 0, r.stderr
    assert ("t.cfg:8] : 'transparent' ignored because frontend 'f' has no backend "
            "capability." in r.stderr)
    r = check(tmp_path, ["backend b", "    option transparent foo"])
    assert r.returncode != 0
    assert "t.cfg:7] : 'option transparent' cannot handle unexpected argument 'foo'." in r.stderr


def test_transparent_old_keyword(tmp_path):
    """"transparent" alone is 2.6's silent synonym, even in a frontend or the defaults."""
    r = check(tmp_path, ["frontend f", "    bind 127.0.0.1:1", "    transparent",
                         "backend c", "    transparent"])
    assert r.returncode == 0 and "transparent" not in r.stderr, r.stderr
    r = check(tmp_path, ["    transparent", "backend b", "    balance roundrobin"])
    assert r.returncode != 0
    assert "backend 'b' cannot use both transparent and balance mode." in r.stderr
    r = check(tmp_path, ["backend b", "    transparent foo"])
    assert r.returncode != 0
    assert "t.cfg:7] : 'transparent' cannot handle unexpected argument 'foo'." in r.stderr
