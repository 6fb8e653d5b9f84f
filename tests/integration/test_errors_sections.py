"""Error messages of proxies: "http-errors" sections, "errorfiles", "http-error",
"errorloc"/"errorloc302"/"errorloc303", and the "errorfiles" form of deny/return, seen by
a client; their config-time diagnostics.

Owns: which page a status gets (config-line order between errorfile, errorfiles and
http-error; sections declared after the proxies that use them; defaults inheritance; a
backend's page before its frontend's), the replies http-error builds per request, and
the messages for unknown sections and undeclared statuses.
"""

import httpc
import pytest
from conftest import make_cfg, run_haproxy

PAGE_403 = b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 8\r\n\r\nsection\n"
PAGE_403B = b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\nContent-Length: 7\r\n\r\nsecond\n"
PAGE_503 = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 6\r\n\r\nsorry\n"
PAGE_404 = b"HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\ngone\n"


@pytest.fixture
def pages(tmp_path):
    d = tmp_path / "pages"
    d.mkdir()
    for name, data in (("403", PAGE_403), ("403b", PAGE_403B), ("503", PAGE_503),
                       ("404", PAGE_404)):
        (d / (name + ".http")).write_bytes(data)
    return d


def sections(pages):
    return ("http-errors site\n    errorfile 403 %s/403.http\n    errorfile 503 %s/503.http\n"
            "http-errors other\n    errorfile 403 %s/403b.http\n    errorfile 404 %s/404.http\n"
            % (pages, pages, pages, pages))


def start(proxy, port, backend, lines, pages, defaults=(), sections_first=False):
    extra = sections(pages)
    cfg = make_cfg(port, [backend], defaults=list(defaults), listen=list(lines),
                   extra="" if sections_first else extra)
    if sections_first:
        cfg = extra + cfg
    return proxy(cfg, ports=[port])


def get(port, path="/"):
    return httpc.request(port, b"GET %s HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
                         % path.encode())


DENY = ["http-request deny if { path /d }", "http-request deny deny_status 404 if { path /nf }"]


def test_errorfiles_section_declared_later(proxy, backend, port, pages):
    start(proxy, port, backend, ["errorfiles site"] + DENY, pages)
    r = get(port, "/d")
    assert (r.status, r.body) == (403, b"section\n")
    assert get(port, "/nf").status == 404  # not in the section: the default page
    assert b"404 Not Found" in get(port, "/nf").body


def test_errorfiles_section_declared_first(proxy, backend, port, pages):
    start(proxy, port, backend, ["errorfiles site"] + DENY, pages, sections_first=True)
    assert get(port, "/d").body == b"section\n"


def test_errorfiles_some_codes(proxy, backend, port, pages):
    start(proxy, port, backend, ["errorfiles site", "errorfiles other 404"] + DENY, pages)
    assert get(port, "/d").body == b"section\n"
    assert get(port, "/nf").body == b"gone\n"


def test_later_lines_win(proxy, backend, port, pages):
    start(proxy, port, backend, ["errorfiles site", "errorfile 403 %s/403b.http" % pages] + DENY,
          pages)
    assert get(port, "/d").body == b"second\n"


def test_errorfiles_after_errorfile_wins(proxy, backend, port, pages):
    start(proxy, port, backend, ["errorfile 403 %s/403b.http" % pages, "errorfiles site"] + DENY,
          pages)
    assert get(port, "/d").body == b"section\n"


def test_errorfiles_in_defaults(proxy, backend, port, pages):
    start(proxy, port, backend, DENY, pages, defaults=["errorfiles site"])
    assert get(port, "/d").body == b"section\n"


def test_http_error_string_and_headers(proxy, backend, port, pages):
    start(proxy, port, backend, [
        "http-error status 403 content-type text/plain string \"no way\" hdr X-Err yes",
        "http-error status 404 content-type text/plain lf-string \"missing %[path]\"",
    ] + DENY, pages)
    r = get(port, "/d")
    assert (r.status, r.body, r.header("x-err"), r.header("content-type")) == \
        (403, b"no way", "yes", "text/plain")
    r = get(port, "/nf")
    assert (r.status, r.body) == (404, b"missing /nf")


def test_http_error_empty_reply(proxy, backend, port, pages):
    start(proxy, port, backend, ["http-error status 403"] + DENY, pages)
    r = get(port, "/d")
    assert (r.status, r.body, r.header("content-length")) == (403, b"", "0")


def test_http_error_from_a_section(proxy, backend, port, pages):
    start(proxy, port, backend, ["http-error status 403 errorfiles other"] + DENY, pages)
    assert get(port, "/d").body == b"second\n"


def test_http_error_default_errorfiles_resets(proxy, backend, port, pages):
    start(proxy, port, backend, ["errorfiles site", "http-error status 403 default-errorfiles"]
          + DENY, pages)
    r = get(port, "/d")
    assert r.status == 403
    assert b"Request forbidden by administrative rules." in r.body


def test_http_error_for_server_errors(proxy, port, pages):
    cfg = make_cfg(port, [("s1", 1)], listen=[
        "http-error status 503 content-type text/plain lf-string \"down: %[path]\""])
    proxy(cfg, ports=[port])
    r = get(port, "/x")
    assert (r.status, r.body) == (503, b"down: /x")


def test_backend_page_then_frontend_page(proxy, port, pages):
    cfg = ("defaults\n    mode http\n    timeout connect 1s\n    timeout client 5s\n"
           "    timeout server 5s\n%sfrontend fe\n    bind 127.0.0.1:%d\n"
           "    errorfiles site\n    use_backend b2 if { path /b2 }\n    default_backend b1\n"
           "backend b1\n    server s1 127.0.0.1:1\n"
           "backend b2\n    http-error status 503 content-type text/plain string b2\n"
           "    server s1 127.0.0.1:1\n" % (sections(pages), port))
    proxy(cfg, ports=[port])
    assert get(port, "/").body == b"sorry\n"  # the backend has none: the frontend's
    assert get(port, "/b2").body == b"b2"


@pytest.mark.parametrize("kw,status", [("errorloc", 302), ("errorloc302", 302),
                                       ("errorloc303", 303)])
def test_errorloc(proxy, backend, port, pages, kw, status):
    start(proxy, port, backend, ["%s 403 /nope" % kw] + DENY, pages)
    r = get(port, "/d")
    assert (r.status, r.header("location"), r.header("cache-control")) == \
        (status, "/nope", "no-cache")
    assert r.body == b""


def test_deny_and_return_errorfiles(proxy, backend, port, pages):
    start(proxy, port, backend, ["http-request deny errorfiles other if { path /d }",
                                 "http-request deny status 404 errorfiles other if { path /nf }",
                                 "http-request return status 503 errorfiles site if { path /r }"],
          pages)
    assert get(port, "/d").body == b"second\n"
    assert get(port, "/nf").body == b"gone\n"
    assert get(port, "/r").body == b"sorry\n"


def test_after_response_on_error_section_pages(proxy, backend, port, pages):
    start(proxy, port, backend, ["errorfiles site", "http-request deny",
                                 "http-after-response set-header X-After 1"], pages)
    r = get(port, "/")
    assert (r.status, r.body, r.header("x-after")) == (403, b"section\n", "1")


# ---- configuration ----

BASE = ("defaults\n    mode http\n    timeout connect 1s\n    timeout client 1s\n"
        "    timeout server 1s\nlisten px\n    bind 127.0.0.1:1\n    server s 127.0.0.1:1\n")


def check(tmp_path, text):
    p = tmp_path / "c.cfg"
    p.write_text(text)
    r = run_haproxy(["-c", "-f", str(p)])
    return r.returncode, r.stderr


def test_unknown_section(tmp_path):
    code, err = check(tmp_path, BASE + "    errorfiles nosuch\n")
    assert code != 0
    assert "proxy 'px': unknown http-errors section 'nosuch' (at " in err
    assert "c.cfg:9)" in err


def test_unknown_section_in_a_reply(tmp_path):
    code, err = check(tmp_path, BASE + "    http-request deny errorfiles nosuch\n")
    assert code != 0
    assert "Proxy 'px': unknown http-errors section 'nosuch' referenced by an http reply" in err


def test_undeclared_status_is_a_warning(tmp_path, pages):
    code, err = check(tmp_path, sections(pages) + BASE + "    errorfiles site 404\n"
                      "    http-error status 502 errorfiles site\n"
                      "    http-request deny status 404 errorfiles site\n")
    assert code == 0, err
    assert "proxy 'px' : status '404' not declared in http-errors section 'site' (at " in err
    assert "proxy 'px' : status '502' not declared in http-errors section 'site' (at " in err
    assert ("Proxy 'px': status '404' referenced by an http reply not declared in http-errors "
            "section 'site'") in err


@pytest.mark.parametrize("line,msg", [
    ("errorfiles", "errorfiles : expects <name> as argument."),
    ("errorfiles site 999", "errorfiles : status code '999' not handled."),
    ("http-error", "http-error : expects at least a <status> as arguments."),
    ("http-error status 999 string x", "http-error : Unexpected status code '999'"),
    ("http-error status 403 string abc", "http-error : a content type must be defined when "
                                         "non-empty payload is configured"),
    ("errorloc 404", "errorloc : expects <status_code> and <url> as arguments."),
    ("errorloc 999 /x", "errorloc : status code '999' not handled."),
    ("errorloc303 999 /x", "errorloc303 : status code '999' not handled."),
])
def test_proxy_keyword_errors(tmp_path, line, msg):
    code, err = check(tmp_path, BASE + "    %s\n" % line)
    assert code != 0
    assert "c.cfg:9] : " + msg in err


@pytest.mark.parametrize("lines,msg", [
    ("http-errors\n", "missing name for http-errors section."),
    ("http-errors a\nhttp-errors a\n", "http-errors section 'a' already exists (declared at "),
    ("http-errors a\n    errorfile 999 /dev/null\n", "errorfile : status code '999' not "
                                                     "handled."),
    ("http-errors a\n    errorfile 403\n", "errorfile: expects <status_code> and <file> as "
                                           "arguments."),
    ("http-errors a\n    errorfile 403 /nonexistent/x.http\n", "errorfile : error opening "
                                                               "file '/nonexistent/x.http'"),
    ("http-errors a\n    http-error status 403\n", "unknown keyword 'http-error' in "
                                                   "'http-errors' section"),
])
def test_section_errors(tmp_path, lines, msg):
    code, err = check(tmp_path, lines + BASE)
    assert code != 0
    assert msg in err
