"""Server choice by rules: use-server, force-persist, ignore-persist (with stick match).

Owns: which server a client reaches when rules name it, when it is in maintenance, and
when persistence is ignored; and the config errors of these keywords.
"""

import httpc
from conftest import run_haproxy

HEAD = ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 10s",
        "    timeout server 10s"]


def cfg(port, lines, servers):
    out = HEAD + ["listen px", "    bind 127.0.0.1:%d" % port, "    balance roundrobin"]
    out += ["    " + x for x in lines]
    out += ["    server %s 127.0.0.1:%d %s" % (b.name, b.port, opt) for b, opt in servers]
    return "\n".join(out) + "\n"


def get(port, path, headers=()):
    raw = "GET %s HTTP/1.1\r\nHost: t\r\n%sConnection: close\r\n\r\n" % (
        path, "".join("%s: %s\r\n" % h for h in headers))
    return httpc.request(port, raw.encode())


def test_use_server_names_the_server(proxy, backends, port):
    s1, s2, s3 = backends(3)
    proxy(cfg(port, ["use-server s2 if { path_beg /two }",
                     "use-server s3 if { req.hdr(x-three) -m found }"],
              [(s1, ""), (s2, ""), (s3, "")]), ports=[port])
    assert [get(port, "/two/%d" % i).header("X-Server") for i in range(4)] == ["s2"] * 4
    assert get(port, "/", [("X-Three", "1")]).header("X-Server") == "s3"
    seen = {get(port, "/other").header("X-Server") for _ in range(6)}
    assert seen == {"s1", "s2", "s3"}


def test_server_in_maintenance_needs_force_persist(proxy, backends, port):
    s1, s2 = backends(2)
    proxy(cfg(port, ["force-persist if { req.hdr(x-force) 1 }",
                     "use-server s2 if { path_beg /two }"],
              [(s1, ""), (s2, "disabled")]), ports=[port])
    assert get(port, "/two").header("X-Server") == "s1"
    assert get(port, "/two", [("X-Force", "1")]).header("X-Server") == "s2"


def test_ignore_persist_leaves_stick_tables_alone(proxy, backends, port):
    """HAProxy 2.6 applies ignore-persist to cookie persistence only."""
    s1, s2 = backends(2)
    proxy(cfg(port, ["stick-table type string size 1k expire 1m",
                     "stick on req.hdr(x-user)",
                     "ignore-persist if { path_beg /free }"],
              [(s1, ""), (s2, "")]), ports=[port])
    first = get(port, "/", [("X-User", "u")]).header("X-Server")
    stuck = [get(port, "/a%d" % i, [("X-User", "u")]).header("X-Server") for i in range(4)]
    assert stuck == [first] * 4
    free = {get(port, "/free%d" % i, [("X-User", "u")]).header("X-Server") for i in range(4)}
    assert free == {first}


def test_config_errors(tmp_path):
    path = tmp_path / "t.cfg"
    path.write_text("\n".join(HEAD + [
        "backend be", "    force-persist", "    server s 127.0.0.1:1"]) + "\n")
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode != 0
    assert ("t.cfg:7] : 'force-persist' requires either 'if' or 'unless' followed by a "
            "condition.") in r.stderr, r.stderr
    path.write_text("\n".join(HEAD + [
        "backend be", "    use-server nosuch if TRUE", "    server s 127.0.0.1:1"]) + "\n")
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode != 0
    assert "nosuch" in r.stderr, r.stderr
