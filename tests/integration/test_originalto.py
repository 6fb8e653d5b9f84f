"""`option originalto [except NET] [header NAME]`: the address the client connected to, in
`X-Original-To` (or NAME) after any such header the client sent, for IPv4 and IPv6
listeners, skipped for IPv4 destinations in the `except` network.

Owns: the headers the server receives. Runs against Debian's haproxy too.
"""

import socket

import pytest
from conftest import free_port, run_haproxy

HEAD = ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 10s",
        "    timeout server 10s"]


def send(family, host, port):
    s = socket.socket(family)
    s.settimeout(5)
    s.connect((host, port))
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Original-To: old\r\n\r\n")
    data = s.recv(4096)
    s.close()
    assert data.startswith(b"HTTP/1.1 200")


def added(backend, names=("x-original-to", "x-dst", "x-forwarded-for")):
    return [(k.lower(), v) for k, v in backend.last().headers if k.lower() in names]


@pytest.mark.parametrize("opt,v4,v6", [
    ("option originalto", [("x-original-to", "old"), ("x-original-to", "127.0.0.1")],
     [("x-original-to", "old"), ("x-original-to", "::1")]),
    ("option originalto header X-Dst", [("x-original-to", "old"), ("x-dst", "127.0.0.1")],
     [("x-original-to", "old"), ("x-dst", "::1")]),
    ("option originalto except 127.0.0.0/8", [("x-original-to", "old")],
     [("x-original-to", "old"), ("x-original-to", "::1")]),
])
def test_originalto(proxy, backend, opt, v4, v6):
    p4, p6 = free_port(), free_port()
    cfg = HEAD + ["frontend f", "    bind 127.0.0.1:%d" % p4, "    bind [::1]:%d" % p6,
                  "    default_backend b", "backend b", "    " + opt,
                  "    server s1 127.0.0.1:%d" % backend.port]
    proxy("\n".join(cfg) + "\n", ports=[p4])
    send(socket.AF_INET, "127.0.0.1", p4)
    assert added(backend) == v4
    send(socket.AF_INET6, "::1", p6)
    assert added(backend) == v6


def test_originalto_after_forwardfor_from_defaults(proxy, backend, port):
    cfg = HEAD + ["    option forwardfor", "    option originalto", "listen l",
                  "    bind 127.0.0.1:%d" % port, "    server s1 127.0.0.1:%d" % backend.port]
    proxy("\n".join(cfg) + "\n", ports=[port])
    send(socket.AF_INET, "127.0.0.1", port)
    assert added(backend) == [("x-original-to", "old"), ("x-forwarded-for", "127.0.0.1"),
                              ("x-original-to", "127.0.0.1")]


def test_originalto_bad_arguments(tmp_path):
    for opt in ("option originalto header", "option originalto except", "option originalto x",
                "no option originalto"):
        p = tmp_path / "o.cfg"
        p.write_text("\n".join(HEAD + ["listen l", "    bind 127.0.0.1:1", "    " + opt,
                                       "    server s 127.0.0.1:2"]) + "\n")
        r = run_haproxy(["-c", "-f", str(p)])
        assert r.returncode != 0 and "o.cfg:8" in r.stderr, (opt, r.stderr)
