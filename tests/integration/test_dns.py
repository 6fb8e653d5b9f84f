"""DNS resolution of servers: `resolvers` sections, the server options `resolvers`,
`resolve-prefer`, `init-addr`, and re-resolution at run time.

Owns: what a client sees when a server's name changes address in DNS (a tiny UDP DNS
server in the test answers from a dict), the start-up address rules (init-addr), the
maintenance on NXDOMAIN, garbage answers, and the configuration errors, compared with
Debian's haproxy 2.6.
"""

import time

import httpc
import pytest
from backend import Backend
from conftest import IS_REF, cli, free_port, run_haproxy

DEFAULTS = ["defaults", "    mode http", "    timeout connect 1s", "    timeout client 5s",
            "    timeout server 5s"]


@pytest.fixture
def pair():
    """Two origins on the same port, 127.0.0.1 (a) and 127.0.0.2 (b)."""
    a = Backend("a").start()
    b = Backend("b", port=a.port, host="127.0.0.2").start()
    try:
        yield a, b
    finally:
        a.stop()
        b.stop()


def cfg_text(dns_port, port, server, resolvers_extra=()):
    return "\n".join(DEFAULTS + [
        "resolvers r1", "    nameserver ns1 127.0.0.1:%d" % dns_port,
        "    timeout resolve 200ms", "    timeout retry 200ms", "    hold valid 1s",
        "    hold nx 1s"] + ["    " + x for x in resolvers_extra] + [
        "listen px", "    bind 127.0.0.1:%d" % port, "    " + server]) + "\n"


def who(port):
    r = httpc.get(port, "/")
    return r.status, r.header("x-server")


def wait_for(port, want, secs=6.0):
    """Requests until one is answered as <want> (status, server); bounded in time."""
    deadline = time.monotonic() + secs
    got = None
    while time.monotonic() < deadline:
        got = who(port)
        if got == want:
            return got
        time.sleep(0.05)
    return got


def test_address_change_reaches_new_server(proxy, dns, pair, port):
    """The record moves from 127.0.0.1 to 127.0.0.2: new requests reach the new origin
    within a few resolve intervals, without reload, and stderr says so as HAProxy does."""
    a, b = pair
    dns.records["web.test"] = ["127.0.0.1"]
    p = proxy(cfg_text(dns.port, port, "server s1 web.test:%d resolvers r1 "
                       "resolve-prefer ipv4 init-addr none" % a.port), ports=[port])
    assert wait_for(port, (200, "a")) == (200, "a")
    dns.records["web.test"] = ["127.0.0.2"]
    assert wait_for(port, (200, "b")) == (200, "b")
    for _ in range(5):    # and it stays there: no idle connection to the old address
        assert who(port) == (200, "b")
    err = p.stderr()
    assert "be/s1" not in err
    assert "px/s1 changed its IP from 127.0.0.1 to 127.0.0.2 by r1/ns1." in err


def test_init_addr_none_waits_for_dns(proxy, dns, pair, port):
    """init-addr none with a name DNS does not know yet: 503 (maintenance), then served
    once the record appears."""
    a, _ = pair
    p = proxy(cfg_text(dns.port, port, "server s1 later.test:%d resolvers r1 "
                       "resolve-prefer ipv4 init-addr none" % a.port), ports=[port])
    assert who(port)[0] == 503
    dns.records["later.test"] = ["127.0.0.1"]
    assert wait_for(port, (200, "a")) == (200, "a")
    err = p.stderr()
    assert "px/s1 changed its IP from (none) to 127.0.0.1 by r1/ns1." in err
    assert "Server px/s1 ('later.test') is UP/READY (resolves again)." in err


def test_nxdomain_puts_server_in_maintenance(proxy, dns, pair, port):
    """NXDOMAIN for longer than "hold nx": maintenance (503); the name comes back: served."""
    a, _ = pair
    dns.records["web.test"] = ["127.0.0.1"]
    p = proxy(cfg_text(dns.port, port, "server s1 web.test:%d resolvers r1 "
                       "resolve-prefer ipv4 init-addr none" % a.port), ports=[port])
    assert wait_for(port, (200, "a")) == (200, "a")
    del dns.records["web.test"]
    assert wait_for(port, (503, None))[0] == 503
    assert ("Server px/s1 is going DOWN for maintenance (DNS NX status). 0 active and 0 "
            "backup servers left.") in p.stderr()
    dns.records["web.test"] = ["127.0.0.1"]
    assert wait_for(port, (200, "a")) == (200, "a")


def test_garbage_answers_never_crash(proxy, dns, pair, port):
    """Random bytes with the right id, for a while: the proxy keeps serving the address
    it has (hold timeout is 30s by default)."""
    a, _ = pair
    dns.garbage = True
    p = proxy(cfg_text(dns.port, port, "server s1 web.test:%d resolvers r1 "
                       "resolve-prefer ipv4 init-addr 127.0.0.1" % a.port), ports=[port])
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        assert who(port) == (200, "a")
        time.sleep(0.1)
    assert dns.queries >= 3
    assert p.alive()


def test_server_template_spreads_over_records(proxy, dns, pair, port):
    """server-template w 1-3 over a name with two addresses: two servers take one address
    each (no duplicates by default), the third stays in maintenance; when one address
    goes, its server goes into maintenance ("No IP for server")."""
    a, b = pair
    dns.records["web.test"] = ["127.0.0.1", "127.0.0.2"]
    p = proxy(cfg_text(dns.port, port, "server-template w 1-3 web.test:%d resolvers r1 "
                       "resolve-prefer ipv4 init-addr none" % a.port), ports=[port])
    deadline = time.monotonic() + 6
    seen = set()
    while time.monotonic() < deadline and seen != {"a", "b"}:
        st, name = who(port)
        if st == 200:
            seen.add(name)
        time.sleep(0.02)
    assert seen == {"a", "b"}
    dns.records["web.test"] = ["127.0.0.2"]
    deadline = time.monotonic() + 6
    while time.monotonic() < deadline and "No IP for server" not in p.stderr():
        time.sleep(0.05)
    for _ in range(6):
        assert who(port) == (200, "b")
    assert "is going DOWN for maintenance (No IP for server )" in p.stderr()


@pytest.mark.parametrize("algo", ["leastconn", "random(2)"])
def test_server_leaving_maintenance_takes_load(proxy, dns, pair, port, algo):
    """A server that gets its address from DNS after start (maintenance first) takes its
    share next to a server that was up all along, with the algorithms that keep per-server
    load keys."""
    a, b = pair
    p = proxy(cfg_text(dns.port, port, "balance %s\n    server s0 127.0.0.1:%d\n"
                       "    server s1 web.test:%d resolvers r1 resolve-prefer ipv4 "
                       "init-addr none" % (algo, a.port, a.port)), ports=[port])
    assert who(port) == (200, "a")
    dns.records["web.test"] = ["127.0.0.2"]
    assert wait_for(port, (200, "b")) == (200, "b")
    assert p.alive()


@pytest.mark.parametrize("line,msg", [
    ("server-template w 0 web.test:80", "Wrong server-template number or range arg '0'."),
    ("server-template w 3-1 web.test:80", "Wrong server-template number or range arg '3-1'."),
    ("server-template w 1-3", "'server-template' expects <prefix> <nb | range> "
                              "<addr>[:<port>] as arguments."),
])
def test_server_template_errors(tmp_path, line, msg):
    rc, err = check(tmp_path, base_cfg(["backend be", "    " + line]))
    assert rc != 0
    assert msg in err and "t.cfg:7]" in err, err


def test_server_template_declares_servers(tmp_path):
    """server-template x 2-3 ADDR declares x2 and x3: a later "server x3" collides."""
    rc, err = check(tmp_path, base_cfg(["backend be", "    server-template x 2-3 10.0.0.1:80",
                                        "    server x3 10.0.0.9:80"]))
    assert rc != 0
    assert "another server named 'x3' was already defined at line 7" in err, err


def test_init_addr_none_without_resolvers(proxy, backends, port, tmp_path):
    """init-addr none and no resolvers: the server stays in maintenance with no address
    (show stat: MAINT (resolution)); the backup serves."""
    a, = backends(1)
    sock = str(tmp_path / "s.sock")
    cfg = "\n".join(["global", "    stats socket %s level admin" % sock] + DEFAULTS + [
        "listen px", "    bind 127.0.0.1:%d" % port,
        "    server s1 nx.invalid:%d init-addr none" % a.port,
        "    server s2 127.0.0.1:%d backup" % a.port]) + "\n"
    proxy(cfg, ports=[port])
    assert who(port) == (200, "s1")    # the backup origin is named s1
    rows = [r.split(",") for r in cli(sock, "show stat").splitlines() if r.startswith("px,s1,")]
    assert rows and rows[0][17] == "MAINT (resolution)" and rows[0][73] == ""


def check(tmp_path, text):
    path = tmp_path / "t.cfg"
    path.write_text(text)
    r = run_haproxy(["-c", "-f", str(path)])
    return r.returncode, r.stderr


def base_cfg(lines):
    return "\n".join(DEFAULTS + lines + ["frontend fe", "    bind 127.0.0.1:%d" % free_port(),
                                         "    default_backend be"]) + "\n"


@pytest.mark.parametrize("lines,line,msg", [
    (["resolvers r1", "    nameserver a 127.0.0.1:53", "    foo bar"], 8,
     "unknown keyword 'foo' in 'resolvers' section"),
    (["resolvers r1", "    nameserver a 127.0.0.1:53", "    hold foo 1s"], 8,
     "'hold' unknown <event>: 'foo'"),
    (["resolvers r1", "    timeout foo 1s"], 7,
     "'timeout' expects 'retry' or 'resolve' and <time> as arguments got 'foo'."),
    (["resolvers r1", "    accepted_payload_size 70000"], 7,
     "'accepted_payload_size' must be between 12 and 65535 inclusive (was 70000)."),
    (["resolvers r1", "    nameserver a 127.0.0.1:53", "    nameserver a 127.0.0.2:53"], 8,
     "nameserver 'a' has same name as another nameserver (declared at"),
    (["resolvers r1", "    nameserver a 127.0.0.1:53", "resolvers r1"], 8,
     "resolvers 'r1' has same name as another resolvers (declared at"),
    (["backend be", "    server s1 127.0.0.1:80 resolve-prefer ipv5"], 7,
     "'server be/s1' : 'resolve-prefer' expects either ipv4 or ipv6 as argument."),
    (["backend be", "    server s1 127.0.0.1:80 resolve-net 10.0.0.0/8,bad"], 7,
     "'server be/s1' : 'resolve-net' invalid network 'bad'."),
    (["backend be", "    server s1 127.0.0.1:80 resolve-opts foo"], 7,
     "'resolve-opts' : unknown resolve-opts option 'foo'"),
    (["backend be", "    server s1 nx.invalid:80 init-addr bogus"], 7,
     "'init-addr' : unknown init-addr method 'bogus', supported methods are 'libc', "
     "'last', 'none'."),
    (["backend be", "    server s1 nx.invalid:80 init-addr libc"], 7,
     "'server be/s1' : could not resolve address 'nx.invalid'."),
    (["backend be", "    server s1 nx.invalid:80 init-addr last"], 7,
     "'server be/s1' : no method found to resolve address 'nx.invalid'."),
])
def test_config_errors(tmp_path, lines, line, msg):
    rc, err = check(tmp_path, base_cfg(lines))
    assert rc != 0
    assert msg in err, err
    assert "t.cfg:%d]" % line in err, err


def test_unknown_resolvers_is_an_error(tmp_path):
    rc, err = check(tmp_path, base_cfg(["backend be",
                                        "    server s1 127.0.0.1:80 resolvers r2"]))
    assert rc != 0
    assert "backend 'be', server 's1': unable to find required resolvers 'r2'" in err


@pytest.mark.parametrize("opts,warn", [
    ("init-addr none", None),
    ("init-addr 10.0.0.1", None),
    ("init-addr last,libc,none", None),
    ("resolvers r1", "'server be/s1' : could not resolve address 'nx.invalid', disabling "
                     "server."),
])
def test_unresolvable_name_accepted(tmp_path, opts, warn):
    """A name that does not resolve at start is fine with init-addr none or an IP, and
    with "resolvers" and no init-addr (warning: the server starts in maintenance)."""
    rc, err = check(tmp_path, base_cfg([
        "resolvers r1", "    nameserver a 127.0.0.1:53", "backend be",
        "    server s1 nx.invalid:80 resolve-opts allow-dup-ip resolve-net 10.0.0.0/8 "
        + opts]))
    assert rc == 0, err
    if warn:
        assert warn in err and "t.cfg:9]" in err


def test_tcp_nameserver_accepted(tmp_path):
    rc, err = check(tmp_path, base_cfg(["resolvers r1", "    nameserver a tcp@127.0.0.1:53",
                                        "    nameserver b tcp6@[::1]:53", "backend be"]))
    assert rc == 0, err


# DNS over TCP: "nameserver ID tcp@ADDR:PORT"

@pytest.fixture
def tcp_dns():
    from dnsserver import TcpDnsServer
    d = TcpDnsServer()
    try:
        yield d
    finally:
        d.stop()


def tcp_cfg(dns_port, port, server, extra=()):
    return cfg_text(dns_port, port, server, extra).replace(
        "nameserver ns1 127.0.0.1:%d" % dns_port, "nameserver ns1 tcp@127.0.0.1:%d" % dns_port)


def test_tcp_nameserver_follows_changes(proxy, tcp_dns, pair, port):
    """Queries go over TCP; the address change reaches the new origin; the connection is
    kept across resolutions."""
    a, b = pair
    tcp_dns.records["web.test"] = ["127.0.0.1"]
    proxy(tcp_cfg(tcp_dns.port, port, "server s1 web.test:%d resolvers r1 "
                  "resolve-prefer ipv4 init-addr none" % a.port), ports=[port])
    assert wait_for(port, (200, "a")) == (200, "a")
    tcp_dns.records["web.test"] = ["127.0.0.2"]
    assert wait_for(port, (200, "b")) == (200, "b")
    assert tcp_dns.queries >= 2


def test_tcp_nameserver_reconnects(proxy, tcp_dns, pair, port):
    """A nameserver that closes after each answer: each resolution reconnects."""
    a, b = pair
    tcp_dns.close_each = True
    tcp_dns.records["web.test"] = ["127.0.0.1"]
    proxy(tcp_cfg(tcp_dns.port, port, "server s1 web.test:%d resolvers r1 "
                  "resolve-prefer ipv4 init-addr none" % a.port), ports=[port])
    assert wait_for(port, (200, "a")) == (200, "a")
    tcp_dns.records["web.test"] = ["127.0.0.2"]
    assert wait_for(port, (200, "b")) == (200, "b")
    deadline = time.monotonic() + 5
    while tcp_dns.conns < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert tcp_dns.conns >= 3


def test_tcp_nameserver_silent_goes_to_maintenance(proxy, tcp_dns, pair, port):
    """No answer over TCP: a timeout status as with UDP, the server goes to maintenance."""
    a, _ = pair
    tcp_dns.records["web.test"] = ["127.0.0.1"]
    p = proxy(tcp_cfg(tcp_dns.port, port, "server s1 web.test:%d resolvers r1 "
                      "resolve-prefer ipv4 init-addr none" % a.port, ["hold timeout 1s"]),
              ports=[port])
    assert wait_for(port, (200, "a")) == (200, "a")
    tcp_dns.silent = True
    assert wait_for(port, (503, None), secs=8) == (503, None)
    assert "DNS timeout status" in p.stderr()


# http-request do-resolve(VAR,RESOLVERS[,ipv4|ipv6]) EXPR

def resolve_cfg(dns_port, port, rule, ns="127.0.0.1:%d"):
    return "\n".join(DEFAULTS + [
        "resolvers r1", "    nameserver ns1 " + ns % dns_port,
        "    timeout retry 200ms", "    resolve_retries 2",
        "frontend fe", "    bind 127.0.0.1:%d" % port,
        "    http-request " + rule,
        "    http-request return status 200 content-type text/plain "
        "lf-string \"ip=%[var(txn.ip)]\""]) + "\n"


def ask(port, host):
    r = httpc.get(port, "/", headers=[("x-host", host)])
    return r.status, r.body.decode()


def test_do_resolve_sets_variable(proxy, dns, port):
    dns.records["api.test"] = ["10.1.2.3"]
    proxy(resolve_cfg(dns.port, port, "do-resolve(txn.ip,r1,ipv4) hdr(x-host)"), ports=[port])
    assert ask(port, "api.test") == (200, "ip=10.1.2.3")
    dns.records["api.test"] = ["10.9.9.9"]
    assert ask(port, "api.test") in ((200, "ip=10.9.9.9"), (200, "ip=10.1.2.3"))
    assert ask(port, "nx.test") == (200, "ip=")   # NXDOMAIN: the variable stays unset


def test_do_resolve_default_family_falls_back_to_ipv4(proxy, dns, port):
    """Without a family the AAAA query comes first; its empty answer brings the A one."""
    dns.records["v4only.test"] = ["10.4.4.4"]
    proxy(resolve_cfg(dns.port, port, "do-resolve(txn.ip,r1) hdr(x-host)"), ports=[port])
    assert ask(port, "v4only.test") == (200, "ip=10.4.4.4")


def test_do_resolve_timeout(proxy, dns, port):
    """A silent nameserver: the stream waits for the retries (2 x 200ms), then goes on."""
    dns.silent = True
    proxy(resolve_cfg(dns.port, port, "do-resolve(txn.ip,r1,ipv4) hdr(x-host)"), ports=[port])
    t0 = time.monotonic()
    assert ask(port, "api.test") == (200, "ip=")
    assert 0.3 <= time.monotonic() - t0 < 5


def test_do_resolve_over_tcp(proxy, tcp_dns, port):
    tcp_dns.records["api.test"] = ["10.7.7.7"]
    proxy(resolve_cfg(tcp_dns.port, port, "do-resolve(txn.ip,r1,ipv4) hdr(x-host)",
                      ns="tcp@127.0.0.1:%d"), ports=[port])
    assert ask(port, "api.test") == (200, "ip=10.7.7.7")


def test_do_resolve_concurrent_clients(proxy, dns, port):
    """Several streams waiting at once each get their own answer."""
    import concurrent.futures
    for i in range(8):
        dns.records["h%d.test" % i] = ["10.0.0.%d" % (i + 1)]
    proxy(resolve_cfg(dns.port, port, "do-resolve(txn.ip,r1,ipv4) hdr(x-host)"), ports=[port])
    with concurrent.futures.ThreadPoolExecutor(8) as ex:
        got = list(ex.map(lambda i: ask(port, "h%d.test" % i), range(8)))
    assert got == [(200, "ip=10.0.0.%d" % (i + 1)) for i in range(8)]


@pytest.mark.parametrize("rule,msg", [
    ("do-resolve(txn.ip,nope) hdr(host)", "Can't find resolvers section 'nope' for do-resolve"),
    ("do-resolve(txn.ip,r1,ipv5) hdr(host)", "ipv5"),
])
def test_do_resolve_config_errors(tmp_path, rule, msg):
    rc, err = check(tmp_path, resolve_cfg(53, free_port(), rule))
    assert rc != 0
    assert msg in err, err
    assert IS_REF or "t.cfg:12]" in err   # 2.6 names the proxy only, we name the line


@pytest.mark.skipif(IS_REF, reason="2.6 accepts 'hold obsolete' silently (it applies to SRV records)")
def test_hold_obsolete_warns(tmp_path):
    rc, err = check(tmp_path, base_cfg(["resolvers r1", "    nameserver a 127.0.0.1:53",
                                        "    hold obsolete 5s", "backend be"]))
    assert rc == 0, err
    assert "t.cfg:8] : 'hold obsolete' has no effect: SRV records are not supported." in err
