"""The stats page (`stats enable`, `stats uri`, `stats auth`, `stats admin`...) and HTTP
services (`http-request use-service`), checked as a browser, curl or a monitoring script
sees them: the 401 challenge, the HTML tables of proxies and servers with their states,
the `;csv`, `;json`, `;up` variants, the admin form's POST and its 303, HEAD, keep-alive,
and a page bigger than a buffer streamed whole. One test renders the page in headless
Chromium (screenshot in the test's tmp dir) and reads what a person sees in the DOM.

Owns: the stats page and services as users see them. Run with
HAPROXY_BIN=/usr/sbin/haproxy to check the expectations against HAProxy 2.6.
"""

import base64
import http.client
import json
import shutil
import subprocess
import time

import pytest

from conftest import IS_REF, free_port

AUTH = {"Authorization": "Basic " + base64.b64encode(b"admin:pw").decode()}


def cfg(port, dead, extra_listen=(), nsrv=2, glob=(), fe_port=None):
    srv = ["    server s1 127.0.0.1:%d" % dead, "    server s2 127.0.0.1:%d disabled" % dead]
    srv += ["    server x%d 127.0.0.1:%d" % (i, dead) for i in range(3, nsrv + 1)]
    lines = ["global"] + ["    " + g for g in glob] + [
        "defaults", "    mode http", "    timeout connect 2s", "    timeout client 10s",
        "    timeout server 10s",
        "frontend fe1", "    bind 127.0.0.1:%d" % (fe_port or free_port()), "    default_backend be1",
        "backend be1"] + srv + [
        "listen stats", "    bind 127.0.0.1:%d" % port] + ["    " + x for x in extra_listen]
    return "\n".join(lines) + "\n"


def req(port, path, method="GET", headers=None, body=None, conn=None):
    c = conn or http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    if not conn:
        c.close()
    return r, data


ADMIN = ["stats enable", "stats uri /st", "stats auth admin:pw", "stats admin if TRUE",
         "stats show-legends", "stats refresh 10s"]


def test_auth_challenge(proxy, port):
    proxy(cfg(port, free_port(), ADMIN), ports=[port])
    r, body = req(port, "/st")
    assert r.status == 401
    assert r.getheader("www-authenticate") == 'Basic realm="HAProxy Statistics"'
    assert r.getheader("cache-control") == "no-cache"
    assert body == (b"<html><body><h1>401 Unauthorized</h1>\nYou need a valid user and "
                    b"password to access this content.\n</body></html>\n")
    bad = {"Authorization": "Basic " + base64.b64encode(b"admin:no").decode()}
    assert req(port, "/st", headers=bad)[0].status == 401
    r, body = req(port, "/st", headers=AUTH)
    assert r.status == 200
    assert r.getheader("content-type") == "text/html"
    assert r.getheader("refresh") == "10"
    # other paths are not the page: the listen has no server, hence 503
    assert req(port, "/other", headers=AUTH)[0].status == 503


def test_realm_and_several_users(proxy, port):
    proxy(cfg(port, free_port(), ["stats uri /s", "stats realm Mine", "stats auth a:1",
                                  "stats auth b:2"]), ports=[port])
    assert req(port, "/s")[0].getheader("www-authenticate") == 'Basic realm="Mine"'
    for cred in (b"a:1", b"b:2"):
        h = {"Authorization": "Basic " + base64.b64encode(cred).decode()}
        assert req(port, "/s", headers=h)[0].status == 200


def test_html_rows_and_states(proxy, port):
    proxy(cfg(port, free_port(), ADMIN), ports=[port])
    r, body = req(port, "/st", headers=AUTH)
    html = body.decode("latin-1")
    assert html.startswith("<!DOCTYPE HTML PUBLIC")
    assert html.rstrip().endswith("</body></html>")
    for name in ("fe1", "be1", "stats"):
        assert '<a name="%s"></a>' % name in html
    assert '<tr class="frontend">' in html and '<tr class="backend">' in html
    # s1 is not checked, s2 is disabled: HAProxy's colours for both
    assert '<tr class="active_no_check"><td><input' in html
    assert '<tr class="maintain"><td><input' in html
    assert 'name="s" value="s1"' in html
    assert 'active or backup DOWN for maintenance (MAINT)' in html  # show-legends
    assert '<option value="maint">Set state to MAINT</option>' in html


def test_csv_json_up(proxy, port):
    proxy(cfg(port, free_port(), ADMIN), ports=[port])
    r, body = req(port, "/st;csv", headers=AUTH)
    assert r.getheader("content-type") == "text/plain"
    lines = body.decode().splitlines()
    assert lines[0].startswith("# pxname,svname,qcur,qmax,")
    names = [ln.split(",")[:2] for ln in lines[1:] if ln]
    assert ["be1", "s1"] in names and ["be1", "s2"] in names and ["fe1", "FRONTEND"] in names
    r, body = req(port, "/st;csv;up", headers=AUTH)
    names = [ln.split(",")[:2] for ln in body.decode().splitlines()[1:] if ln]
    assert ["be1", "s2"] not in names and ["be1", "BACKEND"] in names
    r, body = req(port, "/st;json", headers=AUTH)
    assert r.getheader("content-type") == "application/json"
    doc = json.loads(body)
    vals = {(f["objType"], f["field"]["name"], f["value"]["value"])
            for line in doc for f in line if f["field"]["name"] in ("pxname", "svname")}
    assert ("Server", "svname", "s1") in vals


def status_of(port, srv, headers=AUTH, uri="/st"):
    for ln in req(port, uri + ";csv", headers=headers)[1].decode().splitlines()[1:]:
        f = ln.split(",")
        if f[:2] == ["be1", srv]:
            return f[17]
    return None


def be_iid(port, headers=AUTH, uri="/st"):
    """The iid of be1 (the form names backends by it), from the CSV."""
    for ln in req(port, uri + ";csv", headers=headers)[1].decode().splitlines()[1:]:
        f = ln.split(",")
        if f[:2] == ["be1", "BACKEND"]:
            return f[27]
    return None


def fe_status(fe, want, timeout=3.0):
    """The status the frontend answers, polled (bounded) until it is <want>: a change made
    from the page runs on the thread owning the server's checks, within its next turn."""
    deadline = time.monotonic() + timeout
    while True:
        st = req(fe, "/")[0].status
        if st == want or time.monotonic() > deadline:
            return st
        time.sleep(0.05)


def test_admin_post_redirect(proxy, port, backend):
    fe = free_port()
    proxy(cfg(port, backend.port, ADMIN, fe_port=fe), ports=[port, fe])
    assert req(fe, "/")[0].status == 200  # s1 serves
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    form.update(AUTH)
    iid = be_iid(port)
    r, body = req(port, "/st", "POST", form, "s=s1&action=maint&b=%%23%s" % iid)
    assert r.status == 303
    assert r.getheader("location") == "/st;st=DONE"
    assert r.getheader("content-length") == "0"
    assert fe_status(fe, 503) == 503  # s1 in maintenance, s2 disabled
    html = req(port, "/st;st=DONE", headers=AUTH)[1].decode("latin-1")
    assert "Action processed successfully." in html
    r, _ = req(port, "/st", "POST", form, "s=s1&action=ready&b=be1")  # a name works too
    assert r.getheader("location") == "/st;st=DONE"
    assert fe_status(fe, 200) == 200
    r, _ = req(port, "/st", "POST", form, "s=nosuch&action=maint&b=%%23%s" % iid)
    assert r.getheader("location") == "/st;st=ERRP"
    r, _ = req(port, "/st", "POST", form, "action=maint&b=%%23%s" % iid)
    assert r.getheader("location") == "/st;st=NONE"
    r, _ = req(port, "/st", "POST", form, "s=s1&b=%%23%s" % iid)
    assert r.getheader("location") == "/st;st=NONE"
    r, _ = req(port, "/st", "POST", form, "s=s1&action=foo&b=%%23%s" % iid)
    assert r.getheader("location") == "/st;st=ERRP"
    r, _ = req(port, "/st", "POST", form, "s=s1&s=nosuch&action=ready&b=%%23%s" % iid)
    assert r.getheader("location") == "/st;st=PART"
    r, _ = req(port, "/st", "POST", form, "s=s1&action=maint&b=%2399")
    assert r.getheader("location") == "/st;st=ERRP"
    assert req(fe, "/")[0].status == 200


def test_post_without_admin_denied(proxy, port, backend):
    fe = free_port()
    proxy(cfg(port, backend.port, ["stats enable"], fe_port=fe), ports=[port, fe])
    r, _ = req(port, "/haproxy?stats", "POST",
               {"Content-Type": "application/x-www-form-urlencoded"}, "s=s1&action=maint&b=%233")
    assert r.status == 303 and r.getheader("location") == "/haproxy?stats;st=DENY"
    assert req(fe, "/")[0].status == 200


def test_head_keepalive_and_big_page(proxy, port):
    proxy(cfg(port, free_port(), ["stats enable"], nsrv=400), ports=[port])
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        r, body = req(port, "/haproxy?stats", "HEAD", conn=c)
        assert r.status == 200 and body == b""
        assert r.getheader("transfer-encoding") is None
        r, body = req(port, "/haproxy?stats", conn=c)  # same connection
        assert r.status == 200
        html = body.decode("latin-1")
        assert len(body) > 4 * 16384  # many buffers, streamed in chunks
        assert html.count('<a class=lfsb href="#be1/x') == 398
        assert html.rstrip().endswith("</body></html>")
        r, body = req(port, "/haproxy?stats;csv", conn=c)
        assert body.decode().count("\nbe1,x") == 398
    finally:
        c.close()


def test_http10_chunked_then_close(proxy, port):
    import socket
    proxy(cfg(port, free_port(), ["stats enable"]), ports=[port])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"GET /haproxy?stats;csv HTTP/1.0\r\n\r\n")
        data = b""
        while True:
            d = s.recv(65536)
            if not d:
                break
            data += d
            assert len(data) < 1 << 22
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200")
    # chunked even to a 1.0 client, then the close, as HAProxy sends it
    assert b"transfer-encoding: chunked" in head.lower() and b"connection: close" in head.lower()
    assert b"# pxname," in body and b"be1,s1," in body and body.endswith(b"0\r\n\r\n")


def test_stats_http_request_rules(proxy, port):
    proxy(cfg(port, free_port(), ["stats uri /st", "acl local src 127.0.0.1",
                                  "stats http-request deny if { path_end /deny }",
                                  "stats http-request auth realm R unless { path_end /open }"]),
          ports=[port])
    assert req(port, "/st/deny")[0].status == 403
    assert req(port, "/st/open")[0].status == 200
    r, _ = req(port, "/st")
    assert r.status == 401 and r.getheader("www-authenticate") == 'Basic realm="R"'


@pytest.mark.ours
def test_config_errors(tmp_path):
    from conftest import run_haproxy
    p = tmp_path / "c.cfg"
    p.write_text("defaults\n  mode http\n  stats admin if TRUE\nlisten l\n  bind :0\n"
                 "  stats frob\n  stats uri\n  http-request use-service nosuch\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode != 0
    err = r.stderr if isinstance(r.stderr, str) else r.stderr.decode()
    assert "c.cfg:3] : 'stats admin' not allowed in 'defaults' section." in err
    assert "c.cfg:6] : unknown stats parameter 'frob', expects 'admin'" in err
    assert "c.cfg:7] : 'uri' needs an URI prefix." in err
    assert "c.cfg:8]" in err and "nosuch" in err


def test_auth_and_rules_exclusive(tmp_path):
    from conftest import run_haproxy
    p = tmp_path / "c.cfg"
    p.write_text("listen l\n  mode http\n  bind 127.0.0.1:%d\n  stats auth a:b\n"
                 "  stats http-request allow\n" % free_port())
    r = run_haproxy(["-c", "-f", str(p)])
    err = r.stderr if isinstance(r.stderr, str) else r.stderr.decode()
    assert r.returncode != 0
    assert "stats 'auth'/'realm' and 'http-request' can't be used at the same time." in err


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make deps)")
def test_rendered_in_chromium(proxy, port, tmp_path, request):
    proxy(cfg(port, free_port(), ["stats enable", "stats uri /st", "stats show-legends"]),
          ports=[port])
    url = "http://127.0.0.1:%d/st;norefresh" % port
    base = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
            "--user-data-dir=%s" % (tmp_path / "chrome"), "--no-first-run"]
    shot = tmp_path / "stats.png"
    subprocess.run(base + ["--screenshot=%s" % shot, "--window-size=1600,1000", url],
                   capture_output=True, timeout=90)
    assert shot.exists() and shot.stat().st_size > 10000
    dom = subprocess.run(base + ["--dump-dom", url], capture_output=True, timeout=90).stdout
    html = dom.decode("utf-8", "replace")
    # what a person reads: the title, each proxy, the server rows and their states
    assert "Statistics Report for pid" in html
    for name in ("fe1", "be1", "stats"):
        assert '<a class="px" href="#%s">%s</a>' % (name, name) in html
    assert 'href="#be1/s1">s1</a>' in html and 'href="#be1/s2">s2</a>' in html
    assert '<tr class="maintain">' in html  # s2, disabled
    assert "MAINT" in html and "no check" in html
