"""The rule language end to end: ACL lines and conditions, routing with use_backend (static,
conditional, dynamic), log-format values, deny/return replies, rules of named defaults
sections, indexed runs of rules, large pattern files, and config errors naming file:line.

Owns: what a client, a backend and an operator running `-c` see from the rules engine
core. Individual fetches, converters, actions and stick tables have their own files.
"""

import random
import re

import httpc
import pytest
from conftest import run_haproxy, server_lines

DEFAULTS = ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 10s",
            "    timeout server 10s"]


def cfg(*sections):
    lines = list(DEFAULTS)
    for sec in sections:
        lines += [sec[0]] + ["    " + x for x in sec[1:]]
    return "\n".join(lines) + "\n"


def get(port, path="/", headers=(), method="GET"):
    raw = "%s %s HTTP/1.1\r\nHost: %s\r\n%s\r\n" % (
        method, path, dict(headers).get("Host", "t"),
        "".join("%s: %s\r\n" % kv for kv in headers if kv[0] != "Host"))
    return httpc.request(port, raw.encode(), method)


def test_routing_by_path_and_host(proxy, backends, port):
    api, www, other = backends(names=["api", "www", "other"])
    c = cfg(["frontend fe", "bind 127.0.0.1:%d" % port,
             "acl is_api path_beg /api/ /v2/",
             "acl is_www hdr(host) -i www.example.com",
             "acl is_www hdr_beg(host) -i static.",
             "use_backend b_api if is_api",
             "use_backend b_www if is_www !is_api",
             "default_backend b_other"],
            ["backend b_api"] + server_lines([api]),
            ["backend b_www"] + server_lines([www]),
            ["backend b_other"] + server_lines([other]))
    proxy(c, ports=[port])
    assert get(port, "/api/x").header("X-Server") == "api"
    assert get(port, "/v2/y", [("Host", "www.example.com")]).header("X-Server") == "api"
    assert get(port, "/", [("Host", "WWW.Example.COM")]).header("X-Server") == "www"
    assert get(port, "/", [("Host", "static.cdn.net")]).header("X-Server") == "www"
    assert get(port, "/apix").header("X-Server") == "other"
    assert get(port, "/").header("X-Server") == "other"


def test_conditions_or_unless_anonymous(proxy, backend, port):
    c = cfg(["frontend fe", "bind 127.0.0.1:%d" % port,
             "acl a path /a",
             "acl b path /b",
             "http-request return status 201 if a || b",
             "http-request return status 202 if { path_end .php } { method POST }",
             "http-request return status 203 unless { path_beg / }",
             "http-request return status 204 if !a { path_sub zz } or { url_len 30: }",
             "default_backend be"],
            ["backend be"] + server_lines([backend]))
    proxy(c, ports=[port])
    assert get(port, "/a").status == 201
    assert get(port, "/b").status == 201
    assert get(port, "/x.php", method="POST").status == 202
    assert get(port, "/x.php").status == 200
    assert get(port, "/xzzx").status == 204
    assert get(port, "/" + "y" * 40).status == 204
    assert get(port, "/c").status == 200


def test_dynamic_use_backend_falls_back_to_default(proxy, backends, port):
    b1, b2, dflt = backends(names=["b1", "b2", "dflt"])
    c = cfg(["frontend fe", "bind 127.0.0.1:%d" % port,
             "use_backend be_%[req.hdr(x-target)] if { req.hdr(x-target) -m found }",
             "default_backend be_dflt"],
            ["backend be_b1"] + server_lines([b1]),
            ["backend be_b2"] + server_lines([b2]),
            ["backend be_dflt"] + server_lines([dflt]))
    proxy(c, ports=[port])
    assert get(port, "/", [("X-Target", "b1")]).header("X-Server") == "b1"
    assert get(port, "/", [("X-Target", "b2")]).header("X-Server") == "b2"
    assert get(port, "/", [("X-Target", "nosuch")]).header("X-Server") == "dflt"
    assert get(port, "/").header("X-Server") == "dflt"


def test_log_format_values_reach_the_server(proxy, backend, port):
    c = cfg(["frontend fe", "bind 127.0.0.1:%d" % port,
             "http-request set-header X-Path %[path]",
             "http-request set-header X-Mix \"p=%[path] h=%[req.hdr(host)] 100%%\"",
             "http-request add-header X-Lit literal",
             "http-request set-var(txn.who) req.hdr(x-user)",
             "http-request set-header X-Who %[var(txn.who)]",
             "http-request set-header X-Dec %[req.hdr(x-enc),url_dec]",
             "default_backend be"],
            ["backend be"] + server_lines([backend]))
    proxy(c, ports=[port])
    assert get(port, "/p/q?z=1", [("Host", "h.example"), ("X-User", "bob"),
                                  ("X-Enc", "a%0D%0AX-Injected:%201")]).status == 200
    req = backend.last()
    assert req.header("X-Path") == "/p/q"
    assert req.header("X-Mix") == "p=/p/q h=h.example 100%"
    assert req.header("X-Lit") == "literal"
    assert req.header("X-Who") == "bob"
    # a decoded line break stays inside the value, written %0D%0A as HAProxy does
    assert req.header("X-Dec") == "a%0D%0AX-Injected: 1"
    assert req.header("X-Injected") is None


def test_log_variables_in_formats(proxy, backend, port):
    fmt = ("ci=%ci cp=%{+X}cp fp=%fp f=%f b=%{+Q}b s=%s HM=%HM HP=%HP HU=%HU HQ=%HQ "
           "HV=%HV ST=%ST bc=%bc")
    c = cfg(["frontend fe", "bind 127.0.0.1:%d" % port,
             "http-request return status 200 content-type text/plain lf-string \"%s\" "
             "if { path_beg /r }" % fmt,
             "http-request set-header X-Vars \"%ci %HM %HU %b\"",
             "default_backend be"],
            ["backend be"] + server_lines([backend]))
    proxy(c, ports=[port])
    r = get(port, "/r/a?x=1")
    body = r.body.decode()
    assert re.fullmatch(r"ci=127\.0\.0\.1 cp=[0-9A-F]+ fp=%d f=fe b=\"fe\" s=<NOSRV> HM=GET "
                        r"HP=/r/a HU=/r/a\?x=1 HQ=\?x=1 HV=HTTP/1\.1 ST=200 bc=0" % port,
                        body), body
    assert get(port, "/r").body.decode().split(" HQ=")[1].startswith(" HV=")
    assert get(port, "/p?q").status == 200
    assert backend.last().header("X-Vars") == "127.0.0.1 GET /p?q fe"


def test_return_and_deny_replies(proxy, backend, port):
    c = cfg(["frontend fe", "bind 127.0.0.1:%d" % port,
             "http-request deny deny_status 429 if { path /limited }",
             "http-request deny status 403 content-type text/plain string nope "
             "hdr X-Why blocked if { path /custom }",
             "http-request return status 200 content-type text/plain "
             "lf-string \"you asked %[path]\" hdr X-Echo %[req.hdr(x-in)] if { path_beg /echo }",
             "default_backend be"],
            ["backend be"] + server_lines([backend]))
    proxy(c, ports=[port])
    r = get(port, "/limited")
    assert r.status == 429 and b"429 Too Many Requests" in r.body
    r = get(port, "/custom")
    assert r.status == 403 and r.body == b"nope" and r.header("X-Why") == "blocked"
    assert r.header("Content-Type") == "text/plain"
    r = get(port, "/echo/1", [("X-In", "v")])
    assert r.status == 200 and r.body == b"you asked /echo/1" and r.header("X-Echo") == "v"
    r = get(port, "/echo/2")  # an empty value drops the header, as HAProxy does
    assert r.status == 200 and r.header("X-Echo") is None


def test_fetch_unavailable_in_condition_is_a_warning(tmp_path):
    c = cfg(["frontend fe", "bind 127.0.0.1:1",
             "acl resp res.hdr(x) -m found",
             "http-request deny if { res.hdr(x) -m found }",
             "http-request deny if resp",
             "default_backend be"],
            ["backend be", "server s 127.0.0.1:2"])
    path = tmp_path / "t.cfg"
    path.write_text(c)
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode == 0, r.stderr
    assert ("t.cfg:9] : anonymous acl will never match because it uses keyword 'res.hdr' "
            "which is incompatible with 'frontend http-request header rule'") in r.stderr
    assert ("t.cfg:10] : acl 'resp' will never match because it only involves keywords "
            "that are incompatible with 'frontend http-request header rule'") in r.stderr


def test_defaults_with_rules_serve_one_side(tmp_path):
    c = "\n".join([
        "defaults base", "    mode http", "    timeout connect 2s", "    timeout client 1s",
        "    timeout server 1s", "    http-request set-header X-A a",
        "frontend fe from base", "    bind 127.0.0.1:1", "    default_backend be",
        "backend be from base", "    server s 127.0.0.1:2"]) + "\n"
    path = tmp_path / "t.cfg"
    path.write_text(c)
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode != 0
    assert ("t.cfg:10]: frontends and backends cannot inherit from the same defaults section "
            "if it defines TCP/HTTP rules (defaults section at ") in r.stderr, r.stderr


def test_named_defaults_rules_run_first(proxy, backend, port):
    c = "\n".join([
        "defaults base", "    mode http", "    timeout connect 2s",
        "    timeout client 10s", "    timeout server 10s",
        "    http-request set-header X-From-Defaults yes",
        "    http-request return status 299 if { path /stop }",
        "frontend fe from base", "    bind 127.0.0.1:%d" % port,
        "    http-request return status 298 if { path /stop }",
        "    http-request return status 297 if { req.hdr(x-from-defaults) yes } { path /seen }",
        "    default_backend be",
        "defaults plain", "    mode http", "    timeout connect 2s",
        "    timeout client 10s", "    timeout server 10s",
        "backend be from plain"] + ["    " + x for x in server_lines([backend])]) + "\n"
    proxy(c, ports=[port])
    assert get(port, "/stop").status == 299
    assert get(port, "/seen").status == 297
    assert get(port, "/").status == 200
    assert backend.last().header("X-From-Defaults") == "yes"


def test_indexed_rules_keep_order_and_later_rules(proxy, backend, port):
    """A long run of plain ACL rules is evaluated through an index: the first rule that
    matches must win, and rules after a matching non-final rule still run."""
    lines = ["frontend fe", "bind 127.0.0.1:%d" % port]
    for i in range(60):
        lines.append("http-request return status %d if { path_beg /p%d/ } || "
                     "{ hdr(x-k) -i k%d }" % (200 + i, i, i))
    lines += ["http-request set-header X-Mark m if { path_beg /mark }",
              "http-request return status 290 if { path_beg /mark } { req.hdr(x-mark) m }",
              "http-request return status 291 if { path_beg /p1 }",
              "default_backend be"]
    proxy(cfg(lines, ["backend be"] + server_lines([backend])), ports=[port])
    assert get(port, "/p7/x").status == 207
    assert get(port, "/p12/x").status == 212
    assert get(port, "/p1x").status == 291          # /p1/ does not match, the later rule does
    assert get(port, "/p33/", [("X-K", "K5")]).status == 205  # rule 5 comes first
    assert get(port, "/mark").status == 290
    assert get(port, "/none").status == 200


def test_large_network_file(proxy, backend, port, tmp_path):
    rnd = random.Random(7)
    nets = ["10.%d.%d.0/24" % (rnd.randrange(256), rnd.randrange(256)) for _ in range(100000)]
    nets.append("127.0.0.0/8")
    path = tmp_path / "nets.lst"
    path.write_text("# client networks\n" + "\n".join(nets) + "\n")
    c = cfg(["frontend fe", "bind 127.0.0.1:%d" % port,
             "acl listed src -f %s" % path,
             "http-request return status 211 if listed { path /in }",
             "http-request return status 212 if !listed",
             "default_backend be"],
            ["backend be"] + server_lines([backend]))
    proxy(c, ports=[port])
    assert get(port, "/in").status == 211
    assert get(port, "/other").status == 200


@pytest.mark.parametrize("line, message", [
    ("http-request deny if nosuch", "no such ACL : 'nosuch'"),
    ("http-request deny if { nosuchfetch }", "unknown fetch method 'nosuchfetch'"),
    ("acl x path_beg", None),
    ("acl x hdr(host) -m nope x", "unknown matching method 'nope' when parsing ACL expression"),
    ("acl x path -m reg (", "missing closing parenthesis"),
    ("http-request set-header X %[req.hdr(a)", "missing ']'"),
    ("http-request set-header X %[res.hdr(x)]", "sample fetch <res.hdr(x)]> may not be "
     "reliably used here because it needs 'HTTP response headers' which is not available here"),
])
def test_config_errors_name_the_line(tmp_path, line, message):
    c = cfg(["frontend fe", "bind 127.0.0.1:1", line, "default_backend be"],
            ["backend be", "server s 127.0.0.1:2"])
    path = tmp_path / "t.cfg"
    path.write_text(c)
    r = run_haproxy(["-c", "-f", str(path)])
    if message is None:  # HAProxy accepts an ACL without pattern
        assert r.returncode == 0, r.stderr
        return
    assert r.returncode != 0
    assert "t.cfg:8]" in r.stderr, r.stderr
    assert message in r.stderr, r.stderr


@pytest.mark.ours  # 2.6 has FastCGI applications and its HTX internals
@pytest.mark.parametrize("fetch, message", [
    ("fcgi.docroot", "fetch method 'fcgi.docroot' is not supported yet (it reads a FastCGI"),
    ("internal.htx.size", "fetch method 'internal.htx.size' is not supported (it reads "
     "HAProxy's internal HTX buffers"),
])
def test_refused_fetches_say_why(tmp_path, fetch, message):
    c = cfg(["frontend fe", "bind 127.0.0.1:1",
             "http-request set-header X %%[%s]" % fetch, "default_backend be"],
            ["backend be", "server s 127.0.0.1:2"])
    path = tmp_path / "t.cfg"
    path.write_text(c)
    r = run_haproxy(["-c", "-f", str(path)])
    assert r.returncode != 0
    assert "t.cfg:8]" in r.stderr and message in r.stderr, r.stderr
