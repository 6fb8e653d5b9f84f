"""Cookie-based persistence: `cookie NAME [insert|rewrite|prefix] [options]` and server
`cookie VALUE`.

Owns: which server a client carrying the cookie reaches, what the server receives of the
Cookie header (indirect, prefix), the Set-Cookie headers the client gets back (insert,
rewrite, prefix, preserve, postonly, nocache), `option persist`, `ignore-persist`, the
defaults inheritance and the configuration errors. Every test runs against Debian's
haproxy 2.6 too (reference mode): the expectations are 2.6's, checked on both.
"""

import httpc
from conftest import free_port, run_haproxy

DEFAULTS = ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 5s",
            "    timeout server 5s"]


def start(proxy, port, cookie_line, servers, extra=(), defaults=()):
    """A listen section on <port> with <cookie_line> over (backend, options) pairs, the
    servers named a, b, c... with cookie values A, B, C... unless options say otherwise."""
    lines = DEFAULTS + list(defaults) + ["listen px", "    bind 127.0.0.1:%d" % port]
    if cookie_line:
        lines.append("    " + cookie_line)
    lines += ["    " + x for x in extra]
    for i, (b, opts) in enumerate(servers):
        name = "abcdefgh"[i]
        ck = "" if "cookie" in opts or "nocookie" in opts else " cookie %s" % name.upper()
        lines.append("    server %s 127.0.0.1:%d%s %s" % (name, b.port, ck,
                                                        opts.replace("nocookie", "")))
    proxy("\n".join(lines) + "\n", ports=[port])


def get(port, path="/", cookie=None, method="GET"):
    hdrs = "Cookie: %s\r\n" % cookie if cookie is not None else ""
    raw = ("%s %s HTTP/1.1\r\nHost: h\r\n%sContent-Length: 0\r\nConnection: close\r\n\r\n"
           % (method, path, hdrs)).encode()
    return httpc.request(port, raw, method=method)


def test_insert_indirect_nocache(proxy, backends, port):
    a, b = backends(2)
    start(proxy, port, "cookie SRV insert indirect nocache", [(a, ""), (b, "")])
    r = get(port)                                   # no cookie: balanced, cookie inserted
    first = r.header("x-server")
    want = "A" if first == a.name else "B"
    assert r.header_all("set-cookie") == ["SRV=%s; path=/" % want]
    for _ in range(4):                              # the cookie keeps the client there
        r = get(port, cookie="x=1; SRV=B; y=2")
        assert r.header("x-server") == b.name and not r.header_all("set-cookie")
        assert b.last().header("cookie") == "x=1; y=2"   # indirect: removed on the way
    r = get(port, cookie="SRV=A")
    assert r.header("x-server") == a.name
    assert a.last().header("cookie") is None        # its only cookie: the header goes
    r = get(port, cookie="SRV=nosuch")              # unknown: balanced, a new cookie
    assert len(r.header_all("set-cookie")) == 1


def test_insert_removes_servers_own_cookie_unless_preserve(proxy, backends, port):
    (a,) = backends(1)
    start(proxy, port, "cookie SRV insert", [(a, "")])
    r = get(port, "/?hdr=Set-Cookie:SRV%3Dserver")
    assert r.header_all("set-cookie") == ["SRV=A; path=/"]
    p2 = free_port()
    start(proxy, p2, "cookie SRV insert preserve", [(a, "")])
    r = get(p2, "/?hdr=Set-Cookie:SRV%3Dserver")
    assert r.header_all("set-cookie") == ["SRV=server"]


def test_insert_attributes_and_nocache(proxy, backends, port):
    (a,) = backends(1)
    start(proxy, port, 'cookie SRV insert nocache httponly secure domain .ex.com '
          'attr "SameSite=Lax"', [(a, "")])
    r = get(port, "/?hdr=Cache-Control:max-age%3D60")
    assert r.header_all("set-cookie") == [
        "SRV=A; path=/; domain=.ex.com; HttpOnly; Secure; SameSite=Lax"]
    assert r.header_all("cache-control") == ["max-age=60", "private"]
    r = get(port, "/")                              # nothing for a cache to keep
    assert r.header_all("cache-control") == []
    r = get(port, "/?hdr=Cache-Control:public,%20max-age%3D9,%20no-transform")
    assert r.header_all("cache-control") == ["public, max-age=9, no-transform", "private"]
    r = get(port, "/?hdr=Expires:Thu,%2001%20Dec%202030%2016:00:00%20GMT")
    assert r.header_all("cache-control") == ["private"]
    r = get(port, "/?hdr=Cache-Control:max-age%3D9,%20no-store")
    assert r.header_all("cache-control") == ["max-age=9, no-store"]


def test_postonly(proxy, backends, port):
    (a,) = backends(1)
    start(proxy, port, "cookie SRV insert postonly", [(a, "")])
    assert get(port).header_all("set-cookie") == []
    assert get(port, method="POST").header_all("set-cookie") == ["SRV=A; path=/"]


def test_prefix_and_rewrite(proxy, backends, port):
    a, b = backends(2)
    start(proxy, port, "cookie JSESSIONID prefix", [(a, ""), (b, "")])
    r = get(port, "/?hdr=Set-Cookie:JSESSIONID%3Dabc%3B%20path%3D%2F",
            cookie="JSESSIONID=B~xyz; o=1")
    assert r.header("x-server") == b.name
    assert b.last().header("cookie") == "JSESSIONID=xyz; o=1"
    assert r.header_all("set-cookie") == ["JSESSIONID=B~abc; path=/"]
    p2 = free_port()
    start(proxy, p2, "cookie SRV rewrite", [(a, ""), (b, "")])
    r = get(p2, "/?hdr=Set-Cookie:SRV%3Dmine", cookie="SRV=A")
    assert r.header("x-server") == a.name
    assert a.last().header("cookie") == "SRV=A"
    assert r.header_all("set-cookie") == ["SRV=A"]


def test_down_server_persist_and_ignore(proxy, backends, port):
    a, b = backends(2)
    start(proxy, port, "cookie SRV insert", [(a, "disabled"), (b, "")])
    r = get(port, cookie="SRV=A")                   # in maintenance: balanced elsewhere
    assert r.header("x-server") == b.name
    assert r.header_all("set-cookie") == ["SRV=B; path=/"]
    p2 = free_port()
    start(proxy, p2, "cookie SRV insert", [(a, "disabled"), (b, "")], ["option persist"])
    assert get(p2, cookie="SRV=A").header("x-server") == a.name
    p3 = free_port()
    start(proxy, p3, "cookie SRV insert", [(a, ""), (b, "")],
          ["ignore-persist if { path_beg /static }", "balance roundrobin"])
    seen = {get(p3, "/static/x", cookie="SRV=A").header("x-server") for _ in range(4)}
    assert seen == {a.name, b.name}


def test_use_server_comes_first(proxy, backends, port):
    a, b = backends(2)
    start(proxy, port, "cookie SRV insert indirect", [(a, ""), (b, "")],
          ["use-server b if { path /useb }"])
    r = get(port, "/useb", cookie="SRV=A")
    assert r.header("x-server") == b.name
    assert r.header_all("set-cookie") == []         # the cookie was valid
    assert b.last().header("cookie") is None


def test_cookie_from_defaults(proxy, backends, port):
    (a,) = backends(1)
    start(proxy, port, None, [(a, "")], defaults=["    cookie SRV insert"])
    assert get(port).header_all("set-cookie") == ["SRV=A; path=/"]


def test_cookie_config_errors(tmp_path):
    for line, text in [("cookie", "'cookie' expects <cookie_name> as argument."),
                       ("cookie SRV insert rewrite", "modes are incompatible"),
                       ("cookie SRV insert foo", "'cookie' supports 'rewrite', 'insert'")]:
        path = tmp_path / "c.cfg"
        path.write_text("\n".join(DEFAULTS + ["backend be", "    " + line,
                                              "    server a 127.0.0.1:1 cookie A"]) + "\n")
        r = run_haproxy(["-c", "-f", str(path)])
        assert r.returncode != 0 and "c.cfg:7]" in r.stderr and text in r.stderr, r.stderr



def test_dynamic_cookie_is_2_6s(proxy, port):
    """cookie ... dynamic + dynamic-cookie-key: a server without "cookie VALUE" gets the
    hash 2.6 computes from the key, its address and its port (619592b8f136c1a7 for key
    "mysecret" and 127.0.0.1:26302, as 2.6 answered), and it brings the client back; an
    explicit value stays."""
    from backend import Backend
    a = Backend("a", port=26302).start()
    try:
        (b,) = [Backend("b").start()]
        try:
            start(proxy, port, "cookie SRV insert dynamic", [(a, "nocookie"), (b, "cookie B")],
                  extra=["dynamic-cookie-key mysecret", "balance first"])
            r = get(port)
            assert r.header("x-server") == "a"
            assert r.header_all("set-cookie") == ["SRV=619592b8f136c1a7; path=/"]
            r = get(port, cookie="SRV=B")
            assert r.header("x-server") == "b" and not r.header_all("set-cookie")
            r = get(port, cookie="SRV=619592b8f136c1a7")
            assert r.header("x-server") == "a" and not r.header_all("set-cookie")
        finally:
            b.stop()
    finally:
        a.stop()


def test_dynamic_cookie_key_needs_a_value(tmp_path):
    p = tmp_path / "t.cfg"
    p.write_text("defaults\n mode http\nbackend b\n dynamic-cookie-key\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode != 0
    assert "t.cfg:4] : 'dynamic-cookie-key' expects <secret_key> as argument." in r.stderr


B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def enc_date(t):
    """A cookie date as 2.6 writes it: (t + 3) / 4 in 5 base64 characters."""
    v = (int(t) + 3) >> 2
    return "".join(B64[(v >> (6 * (4 - i))) & 63] for i in range(5))


def dec_date(s):
    v = 0
    for c in s:
        v = v * 64 + B64.index(c)
    return v << 2


def dated(r):
    """The single Set-Cookie of <r> split into (value, last date, first date or None)."""
    (sc,) = r.header_all("set-cookie")
    assert sc.endswith("; path=/"), sc
    parts = sc[:-len("; path=/")].split("|")
    return parts[0], dec_date(parts[1]), dec_date(parts[2]) if len(parts) > 2 else None


def test_maxidle_maxlife_dates(proxy, backends, port):
    """cookie ... maxidle/maxlife: the inserted cookie is SRV|LAST|FIRST with 2.6's date
    encoding; a cookie idle too long, too old or a day ahead is not persisted (b has weight
    0, so only persistence reaches it) and gets a fresh cookie; an older last date is
    refreshed with the first date kept; a recent one is left alone."""
    import time
    a, b = backends(2)
    start(proxy, port, "cookie SRV insert maxidle 30m maxlife 2h",
          [(a, ""), (b, "weight 0")])
    t0 = time.time()
    r = get(port)
    val, last, first = dated(r)
    assert val == "SRV=A" and last == first and t0 - 1 <= last <= time.time() + 4

    def ck(l, f):
        return "SRV=B|%s|%s" % (enc_date(l), enc_date(f))

    now = time.time()
    r = get(port, cookie=ck(now + 60, now - 3600))            # recent: kept, no refresh
    assert r.header("x-server") == b.name and r.header_all("set-cookie") == []
    r = get(port, cookie=ck(now - 600, now - 3600))           # refreshed, first kept
    assert r.header("x-server") == b.name
    val, last, first = dated(r)
    assert val == "SRV=B" and now - 1 <= last <= now + 8 and first == dec_date(
        enc_date(now - 3600))
    for cookie in (ck(now - 1900, now - 3600),                # idle > maxidle
                   ck(now, now - 7300),                       # life > maxlife
                   ck(now + 90000, now),                      # a day ahead
                   ck(now, now + 90000)):
        r = get(port, cookie=cookie)
        assert r.header("x-server") == a.name, cookie
        val, last, first = dated(r)
        assert val == "SRV=A" and last == first and now - 1 <= last <= now + 8
    r = get(port, cookie="SRV=B")                             # no dates: valid, dated now
    assert r.header("x-server") == b.name
    val, last, first = dated(r)
    assert val == "SRV=B" and last == first and now - 1 <= last <= now + 8
    r = get(port, cookie="SRV=B|a!c|zz")                      # unreadable: no dates
    assert r.header("x-server") == b.name and dated(r)[0] == "SRV=B"


def test_maxidle_only_and_no_dates(proxy, backends, port):
    """maxidle alone writes only the last date and drops a first date; without either
    the dates are still split off the server's value and a stale one is rewritten away."""
    import time
    a, b = backends(2)
    start(proxy, port, "cookie SRV insert maxidle 10m", [(a, ""), (b, "weight 0")])
    now = time.time()
    r = get(port, cookie="SRV=B|%s|%s" % (enc_date(now + 60), enc_date(now)))
    assert r.header("x-server") == b.name
    (sc,) = r.header_all("set-cookie")
    assert sc.count("|") == 1 and sc.startswith("SRV=B|")
    r = get(port, cookie="SRV=B|%s" % enc_date(now + 60))
    assert r.header("x-server") == b.name and r.header_all("set-cookie") == []
    p2 = free_port()
    start(proxy, p2, "cookie SRV insert", [(a, ""), (b, "weight 0")])
    r = get(p2, cookie="SRV=B|%s" % enc_date(now - 100000))
    assert r.header("x-server") == b.name
    assert r.header_all("set-cookie") == ["SRV=B; path=/"]
    r = get(p2, cookie="SRV=B|%s|" % enc_date(now + 60))
    assert r.header("x-server") == b.name and r.header_all("set-cookie") == []


def test_maxidle_config_errors(tmp_path):
    for line, text in [("cookie SRV insert maxidle", "'maxidle' expects <idletime> in "
                        "seconds as argument."),
                       ("cookie SRV insert maxlife", "'maxlife' expects <lifetime> in "
                        "seconds as argument."),
                       ("cookie SRV insert maxidle 10x",
                        "unexpected character 'x' in argument to <maxidle>."),
                       ("cookie SRV insert maxlife 2147483648",
                        "timer overflow in argument <2147483648> to <maxlife>")]:
        path = tmp_path / "c.cfg"
        path.write_text("\n".join(DEFAULTS + ["backend be", "    " + line,
                                              "    server a 127.0.0.1:1 cookie A"]) + "\n")
        r = run_haproxy(["-c", "-f", str(path)])
        assert r.returncode != 0 and "c.cfg:7]" in r.stderr and text in r.stderr, r.stderr
