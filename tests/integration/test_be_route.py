"""Where a backend's connections go and come from: `source ADDR[:PORT]` (backend and
server), `redir PREFIX` servers (302 for GET/HEAD), `http-send-name-header`,
`max-session-srv-conns` (accepted), and the keywords refused with their reason.
"""

from conftest import free_port, make_cfg, run_haproxy
from httpc import get, request
from rawserver import read_request


def peer_server(raw_server, name="s1"):
    seen = []

    def h(s, rd, idx):
        head = read_request(rd)
        seen.append((s.getpeername()[0], head))
        body = b"ok\n"
        s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n" + body)
    srv = raw_server(h, name)
    return srv, seen


def test_backend_source(proxy, raw_server):
    srv, seen = peer_server(raw_server)
    port = free_port()
    proxy(make_cfg(port, [("s1", srv.port)], listen=["source 127.0.0.2"]), ports=[port])
    assert get(port, "/").status == 200
    assert seen[0][0] == "127.0.0.2"


def test_server_source_overrides_backend(proxy, raw_server):
    srv, seen = peer_server(raw_server)
    port = free_port()
    proxy(make_cfg(port, [("s1", srv.port)], listen=["source 127.0.0.2"],
                   srv_opts="source 127.0.0.3"), ports=[port])
    assert get(port, "/").status == 200
    assert seen[0][0] == "127.0.0.3"


def test_redir_server(proxy, raw_server):
    srv, seen = peer_server(raw_server)
    port = free_port()
    proxy(make_cfg(port, [("s1", srv.port)], srv_opts="redir http://example.com/pre"),
          ports=[port])
    r = get(port, "/a/b?c=1")
    assert r.status == 302
    assert r.header("location") == "http://example.com/pre/a/b?c=1"
    assert r.header("cache-control") == "no-cache"
    r = request(port, b"POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
                b"Connection: close\r\n\r\nhi")
    assert r.status == 200  # other methods go to the server
    assert len(seen) == 1 and seen[0][1].startswith(b"POST /p ")


def test_http_send_name_header(proxy, raw_server):
    srv, seen = peer_server(raw_server, "s1")
    port = free_port()
    proxy(make_cfg(port, [("alpha", srv.port)], listen=["http-send-name-header X-Srv"]),
          ports=[port])
    assert get(port, "/", headers=[("X-Srv", "forged")]).status == 200
    head = seen[0][1].lower()
    assert b"x-srv: alpha\r\n" in head and b"forged" not in head


def cfg_check(tmp_path, be):
    p = tmp_path / "t.cfg"
    p.write_text("defaults\n mode http\n timeout client 1s\n timeout server 1s\n"
                 " timeout connect 1s\nbackend b\n %s\n server s1 127.0.0.1:1\n"
                 "frontend f\n bind 127.0.0.1:%d\n max-session-srv-conns 3\n"
                 " default_backend b\n" % (be, free_port()))
    r = run_haproxy(["-c", "-f", str(p)])
    return r.returncode, r.stdout + r.stderr


def test_config(tmp_path):
    rc, out = cfg_check(tmp_path, "http-send-name-header")
    assert rc != 0 and "t.cfg:7] : 'http-send-name-header' requires a header string." in out
    rc, out = cfg_check(tmp_path, "max-session-srv-conns 3")
    assert rc == 0 and ("t.cfg:7] : 'max-session-srv-conns' ignored because backend 'b' "
                        "has no frontend capability.") in out
    rc, out = cfg_check(tmp_path, "source 127.0.0.1:0")
    assert rc == 0, out


def test_refused_with_reason(tmp_path):
    from conftest import IS_REF
    rc, out = cfg_check(tmp_path, "hash-preserve-affinity always")
    assert rc != 0 and "t.cfg:7]" in out
    if not IS_REF:
        assert "3.x" in out
        rc, out = cfg_check(tmp_path, "source 127.0.0.1 usesrc clientip")
        assert rc != 0 and "TPROXY" in out


def test_dispatch(proxy, raw_server, tmp_path):
    from conftest import cli
    srv, seen = peer_server(raw_server)
    port = free_port()
    sock = tmp_path / "s.sock"
    cfg = ("global\n    stats socket %s level admin\ndefaults\n    mode http\n"
           "    timeout connect 2s\n    timeout client 5s\n    timeout server 5s\n"
           "backend be\n    dispatch 127.0.0.1:%d\n"
           "frontend fe\n    bind 127.0.0.1:%d\n    default_backend be\n"
           % (sock, srv.port, port))
    proxy(cfg, ports=[port])
    for _ in range(3):
        assert get(port, "/d").status == 200
    assert len(seen) == 3
    out = cli(str(sock), "show stat")
    rows = [ln.split(",")[:2] for ln in out.splitlines()[1:] if ln.startswith("be,")]
    assert rows == [["be", "BACKEND"]]  # no server row
    assert ",3," in [ln for ln in out.splitlines() if ln.startswith("be,BACKEND")][0]


def test_dispatch_config(tmp_path):
    rc, out = cfg_check(tmp_path, "dispatch 127.0.0.1")
    assert rc != 0 and "t.cfg:7] : 'dispatch' : " in out
    p = tmp_path / "d.cfg"
    p.write_text("defaults\n mode http\n dispatch 127.0.0.1:80\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode != 0 and "'dispatch' not allowed in 'defaults' section." in r.stderr
