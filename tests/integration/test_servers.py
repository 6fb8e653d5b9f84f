"""Server lines: `default-server` (in defaults, backend and listen sections) and server ids.

Owns: what a client sees of servers configured through default-server (which server
answers), what `show servers state` reports for ids, and the configuration errors of both,
with their file and line. Runs against Debian's haproxy too (reference mode).
"""

import collections

import httpc
import pytest
from conftest import IS_REF, cli, free_port, run_haproxy

DEFAULTS = ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 5s",
            "    timeout server 5s"]


def spread(port, n=40):
    """Names of the servers that answered n requests."""
    seen = collections.Counter()
    for _ in range(n):
        r = httpc.get(port, "/")
        assert r.status == 200
        seen[r.header("x-server")] += 1
    return seen


def test_default_server_from_defaults_and_backend(proxy, backends, port):
    """A defaults section's default-server reaches the proxies after it; a backend's own
    default-server adds to it, and a server's options come last."""
    a, b, c = backends(3)
    cfg = "\n".join(DEFAULTS + [
        "    default-server disabled",            # every server starts in maintenance
        "listen px", "    bind 127.0.0.1:%d" % port,
        "    default-server weight 3",
        "    server a 127.0.0.1:%d enabled" % a.port,
        "    server b 127.0.0.1:%d enabled weight 1" % b.port,
        "    server c 127.0.0.1:%d" % c.port]) + "\n"
    proxy(cfg, ports=[port])
    seen = spread(port, 40)
    assert seen[c.name] == 0          # still disabled: the default applied
    assert seen[a.name] == 30 and seen[b.name] == 10, seen   # weight 3 (default) against 1


def test_default_server_is_per_section(proxy, backends, port):
    """A backend's default-server does not reach another backend."""
    a, b = backends(2)
    cfg = "\n".join(DEFAULTS + [
        "frontend fe", "    bind 127.0.0.1:%d" % port,
        "    use_backend other if { path_beg /o }", "    default_backend be",
        "backend be", "    default-server disabled", "    server a 127.0.0.1:%d" % a.port,
        "backend other", "    server b 127.0.0.1:%d" % b.port]) + "\n"
    proxy(cfg, ports=[port])
    assert httpc.get(port, "/").status == 503
    r = httpc.get(port, "/o")
    assert r.status == 200 and r.header("x-server") == b.name


def test_server_ids(proxy, backend, port, tmp_path):
    """Servers without an id take the lowest ids the fixed ones leave, in config order."""
    sock = tmp_path / "s.sock"
    cfg = "\n".join(["global", "    stats socket %s level admin" % sock] + DEFAULTS + [
        "backend be",
        "    server s1 127.0.0.1:%d" % backend.port,
        "    server s2 127.0.0.1:%d id 1" % backend.port,
        "    server s3 127.0.0.1:%d" % backend.port,
        "    server s4 127.0.0.1:%d id 3" % backend.port,
        "listen px", "    bind 127.0.0.1:%d" % port, "    default_backend be"]) + "\n"
    proxy(cfg, ports=[port])
    ids = {}
    for line in cli(sock, "show servers state be").splitlines():
        f = line.split()
        if len(f) > 4 and f[1] == "be":
            ids[f[3]] = int(f[2])
    assert ids == {"s1": 2, "s2": 1, "s3": 4, "s4": 3}, ids


def test_server_port_follows_the_client(proxy, backend):
    """A server without a port takes the port the client connected to; "+N"/"-N" add an
    offset to it."""
    p_same = backend.port                 # on 127.0.0.2: the server is 127.0.0.1, same port
    p_off = free_port()
    off = backend.port - p_off
    cfg = "\n".join(DEFAULTS + [
        "listen same", "    bind 127.0.0.2:%d" % p_same, "    server s 127.0.0.1",
        "listen offset", "    bind 127.0.0.1:%d" % p_off,
        "    server s 127.0.0.1:%s%d" % ("+" if off >= 0 else "-", abs(off))]) + "\n"
    proxy(cfg, ports=[p_off])
    r = httpc.get(p_off, "/")
    assert r.status == 200 and r.header("x-server") == backend.name
    with httpc.connect(p_same, 5.0, host="127.0.0.2") as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
        r = httpc.read_response(httpc.Reader(s))
    assert r.status == 200 and r.header("x-server") == backend.name


def check_error(tmp_path, lines, where, text):
    path = tmp_path / "e.cfg"
    path.write_text("\n".join(DEFAULTS + lines) + "\n")
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode != 0, r.stderr
    assert "e.cfg:%d]" % where in r.stderr, r.stderr
    assert text in r.stderr, r.stderr


def test_default_server_errors(tmp_path):
    port, sport = free_port(), free_port()
    check_error(tmp_path, ["    default-server weight 300"], 6,
                "weight of server default-server is not within 0 and 256 (300)")
    check_error(tmp_path, ["frontend fe", "    bind 127.0.0.1:%d" % port,
                           "    default-server weight 5"], 8,
                "'default-server' not allowed because frontend 'fe' has no backend capability")
    check_error(tmp_path, ["backend be", "    default-server id 3"], 7,
                "'id' option is not accepted in default-server sections")
    if not IS_REF:  # 2.6 reads "x" as 0 there
        check_error(tmp_path, ["backend be", "    default-server maxconn x",
                               "    server s 127.0.0.1:%d" % sport], 7, "maxconn")


@pytest.mark.ours
def test_bad_port_offsets(tmp_path):
    """2.6 accepts both without an error; ours refuses them, naming the line."""
    check_error(tmp_path, ["backend be", "    server a 127.0.0.1:+x"], 7, "server")
    check_error(tmp_path, ["backend be", "    server a 127.0.0.1:+70000"], 7, "server")


def test_duplicate_server_id_is_an_error(tmp_path):
    sport = free_port()
    check_error(tmp_path, ["backend be", "    server a 127.0.0.1:%d id 4" % sport,
                           "    server b 127.0.0.1:%d id 4" % sport], 8, "custom id 4")
