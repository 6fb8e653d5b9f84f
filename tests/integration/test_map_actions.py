"""The map and ACL actions of http-request and http-response (add-acl, del-acl, set-map,
del-map) as a client and a runtime API user see them: an entry set by one request changes
what the next request gets (map_str routing, a header), `show map`/`show acl` list it,
del-map/del-acl remove it, add-acl makes a `-f FILE` ACL match (also inside a run of
indexed rules), a file nothing loaded is left alone, and the config errors of bad lines.
Every case runs against Debian's haproxy too.
"""

import httpc
from conftest import free_port, run_haproxy, cli


def _cfg(tmp_path, port, port2, sock, extra_front=()):
    (tmp_path / "route.map").write_text("/static be_static\n")
    (tmp_path / "block.acl").write_text("/blocked-at-start\n")
    (tmp_path / "other.acl").write_text("")
    d = str(tmp_path)
    lines = [
        "global",
        "    stats socket %s level admin" % sock,
        "defaults",
        "    mode http",
        "    timeout connect 2s",
        "    timeout client 10s",
        "    timeout server 10s",
        "frontend fe",
        "    bind 127.0.0.1:%d" % port,
        # a run of indexed rules: the ACL file change must make the index fall back
        "    acl blocked path -f %s/block.acl" % d,
        "    acl other path -f %s/other.acl" % d,
        "    http-request deny deny_status 403 if blocked",
        "    http-request deny deny_status 404 if other",
        "    http-request deny deny_status 429 if { path /never }",
        "    http-request set-map(%s/route.map) %%[url_param(k)] %%[url_param(v)]"
        " if { path /set }" % d,
        "    http-request del-map(%s/route.map) %%[url_param(k)] if { path /del }" % d,
        "    http-request add-acl(%s/block.acl) %%[url_param(p)] if { path /block }" % d,
        "    http-request del-acl(%s/block.acl) %%[url_param(p)] if { path /unblock }" % d,
        "    http-request set-map(%s/nothing.map) %%[path] x" % d,
        "    http-request return status 200 hdr x-done 1 if { path /set /del /block /unblock }",
    ] + ["    " + x for x in extra_front] + [
        "    use_backend %%[path,map_str(%s/route.map,be_default)]" % d,
        "backend be_static",
        "    http-request return status 200 hdr x-be static hdr x-val %%[path,map_str(%s/route.map)]" % d,
        "backend be_default",
        "    http-request return status 200 hdr x-be default",
        "backend be_api",
        "    http-response set-map(%s/route.map) %%[res.hdr(x-learn)] be_static" % d,
        "    server s1 127.0.0.1:%d" % port2,
        "frontend origin",
        "    bind 127.0.0.1:%d" % port2,
        "    http-request return status 200 hdr x-be api hdr x-learn /learned",
    ]
    return "\n".join(lines) + "\n"


def _start(proxy, tmp_path):
    port, port2 = free_port(), free_port()
    sock = tmp_path / "s.sock"
    p = proxy(_cfg(tmp_path, port, port2, sock), ports=[port, port2])
    return p, port, str(sock)


def _be(port, path):
    r = httpc.get(port, path)
    return r.status, r.header("x-be")


def test_set_map_routes_next_request_and_show_map(proxy, tmp_path):
    _, port, sock = _start(proxy, tmp_path)
    assert _be(port, "/api") == (200, "default")
    r = httpc.get(port, "/set?k=/api&v=be_api")
    assert r.status == 200 and r.header("x-done") == "1"
    assert _be(port, "/api") == (200, "api")
    out = cli(sock, "show map %s/route.map" % tmp_path)
    keys = [ln.split(" ", 1)[1] for ln in out.splitlines() if ln.strip()]
    # (be_api's response taught /learned through http-response set-map)
    assert keys == ["/static be_static", "/api be_api", "/learned be_static"]
    # set-map on a key that exists replaces its value, no second entry
    httpc.get(port, "/set?k=/api&v=be_static")
    assert _be(port, "/api") == (200, "static")
    out = cli(sock, "show map %s/route.map" % tmp_path)
    assert [ln.split(" ", 1)[1] for ln in out.splitlines() if ln.strip()] == [
        "/static be_static", "/api be_static", "/learned be_static"]


def test_del_map_removes_entry(proxy, tmp_path):
    _, port, sock = _start(proxy, tmp_path)
    httpc.get(port, "/set?k=/x&v=be_static")
    assert _be(port, "/x") == (200, "static")
    httpc.get(port, "/del?k=/x")
    assert _be(port, "/x") == (200, "default")
    httpc.get(port, "/del?k=/static")
    assert _be(port, "/static") == (200, "default")
    out = cli(sock, "show map %s/route.map" % tmp_path)
    assert out.strip() == ""


def test_map_value_seen_by_converter_header(proxy, tmp_path):
    _, port, _ = _start(proxy, tmp_path)
    r = httpc.get(port, "/static")
    assert r.header("x-val") == "be_static"
    httpc.get(port, "/set?k=/static&v=be_static")  # same value, still one entry
    httpc.get(port, "/set?k=/dyn&v=be_static")
    r = httpc.get(port, "/dyn")
    assert r.header("x-be") == "static" and r.header("x-val") == "be_static"


def test_http_response_set_map(proxy, tmp_path):
    _, port, sock = _start(proxy, tmp_path)
    httpc.get(port, "/set?k=/api&v=be_api")
    assert _be(port, "/learned") == (200, "default")
    assert _be(port, "/api") == (200, "api")  # its response teaches /learned
    assert _be(port, "/learned") == (200, "static")
    assert "/learned be_static" in cli(sock, "show map %s/route.map" % tmp_path)


def test_add_acl_makes_file_acl_match(proxy, tmp_path):
    _, port, sock = _start(proxy, tmp_path)
    assert httpc.get(port, "/blocked-at-start").status == 403
    assert httpc.get(port, "/secret").status == 200
    assert httpc.get(port, "/block?p=/secret").status == 200
    assert httpc.get(port, "/secret").status == 403
    assert httpc.get(port, "/other").status == 200
    out = cli(sock, "show acl %s/block.acl" % tmp_path)
    assert [ln.split(" ", 1)[1] for ln in out.splitlines() if ln.strip()] == [
        "/blocked-at-start", "/secret"]
    # a second add-acl of the same pattern adds nothing
    httpc.get(port, "/block?p=/secret")
    out = cli(sock, "show acl %s/block.acl" % tmp_path)
    assert len([ln for ln in out.splitlines() if ln.strip()]) == 2
    httpc.get(port, "/unblock?p=/secret")
    assert httpc.get(port, "/secret").status == 200
    httpc.get(port, "/unblock?p=/blocked-at-start")
    assert httpc.get(port, "/blocked-at-start").status == 200
    assert cli(sock, "show acl %s/block.acl" % tmp_path).strip() == ""


def test_unloaded_file_is_left_alone(proxy, tmp_path):
    _, port, sock = _start(proxy, tmp_path)
    assert httpc.get(port, "/anything").status == 200
    assert "nothing.map" not in cli(sock, "show map")
    assert "Unknown map identifier" in cli(sock, "show map %s/nothing.map" % tmp_path)


def _check(tmp_path, line):
    cfg = tmp_path / "c.cfg"
    cfg.write_text("defaults\n    mode http\n    timeout client 1s\n    timeout server 1s\n"
                   "    timeout connect 1s\nfrontend f\n    bind 127.0.0.1:%d\n    %s\n"
                   % (free_port(), line))
    return run_haproxy(["-c", "-f", str(cfg)])


def test_config_errors(tmp_path):
    r = _check(tmp_path, "http-request set-map(/tmp/x.map) %[path]")
    assert r.returncode != 0
    assert ("[%s:8]" % (tmp_path / "c.cfg")) in r.stderr or "c.cfg:8]" in r.stderr
    assert "expects exactly 2 arguments" in r.stderr
    r = _check(tmp_path, "http-request del-acl(/tmp/x.acl)")
    assert r.returncode != 0 and "expects exactly 1 arguments" in r.stderr
    r = _check(tmp_path, "http-request del-map(/tmp/x.map) a b")
    assert r.returncode != 0 and "found 'b'" in r.stderr
    r = _check(tmp_path, "tcp-request content set-map(/tmp/x.map) a b")
    assert r.returncode != 0 and "set-map(/tmp/x.map)" in r.stderr
    r = _check(tmp_path, "http-after-response del-map(/tmp/x.map) a")
    assert r.returncode != 0 and "del-map(/tmp/x.map)" in r.stderr
    for line in ("http-request set-map(/tmp/x.map) %[path] %[src]",
                 "http-response add-acl(/tmp/x.acl) %[res.hdr(x)]",
                 "http-response del-acl(/tmp/x.acl) %[res.hdr(x)]"):
        r = _check(tmp_path, line)
        assert r.returncode == 0, (line, r.stderr)
