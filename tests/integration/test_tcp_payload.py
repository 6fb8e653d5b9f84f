"""The layer 6 payload fetches and raw-payload converters as a user of `mode tcp` sees them:
clients routed or rejected by `tcp-request content` rules and `use_backend` on
req.payload, req.payload_lv, req.len and req.proto_http; server answers rejected by
`tcp-response content` on res.payload; RDP clients balanced by their mstshash cookie and
sent back to their server by `persist rdp-cookie`; FIX and MQTT first messages validated
and routed by their fields; HAProxy 2.6's startup errors for bad arguments."""
import socket
import struct
import time

import pytest
from conftest import run_haproxy

HDR = ["defaults", "    mode tcp", "    timeout connect 2s", "    timeout client 5s",
       "    timeout server 5s"]


@pytest.fixture
def tagged(raw_server):
    """Factory: tagged(name) -> a server answering 'NAME:' + the first bytes it reads."""
    def make(name):
        def handler(sock, rd, idx):
            data = sock.recv(4096)
            sock.sendall(name.encode() + b":" + data)
        return raw_server(handler, name)
    return make


def exchange(port, payload, timeout=4.0):
    """Sends <payload>, then reads until the proxy or the server closes: what came back
    (b'' for a connection closed without an answer)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    out = b""
    try:
        s.sendall(payload)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                d = s.recv(4096)
            except ConnectionResetError:
                break
            if not d:
                break
            out += d
    finally:
        s.close()
    return out


def cfg(port, lines, backends):
    out = HDR + ["frontend fe", "    bind 127.0.0.1:%d" % port] + ["    " + x for x in lines]
    for name, srvs, extra in backends:
        out += ["backend " + name] + ["    " + x for x in extra]
        out += ["    server %s 127.0.0.1:%d" % (s.name, s.port) for s in srvs]
    return "\n".join(out) + "\n"


def test_route_by_payload(proxy, port, tagged):
    a, b = tagged("a"), tagged("b")
    proxy(cfg(port, ["tcp-request inspect-delay 2s",
                     "tcp-request content accept if { req.len ge 4 }",
                     "use_backend ba if { req.payload(0,4) -m bin 50494e47 }",
                     "use_backend ba if { req.payload_lv(0,1) -m str hello }",
                     "default_backend bb"],
              [("ba", [a], []), ("bb", [b], [])]), ports=[port])
    assert exchange(port, b"PING 1\n") == b"a:PING 1\n"
    assert exchange(port, b"PONG 1\n") == b"b:PONG 1\n"
    assert exchange(port, b"\x05hello world") == b"a:\x05hello world"
    assert exchange(port, b"\x04hello world") == b"b:\x04hello world"


def test_reject_by_payload(proxy, port, tagged):
    a = tagged("a")
    proxy(cfg(port, ["tcp-request inspect-delay 2s",
                     "tcp-request content reject if { req.payload(0,3) -m str BAD }",
                     "tcp-request content accept if { req.payload_lv(0,2,+1) -m found }",
                     "tcp-request content reject",
                     "default_backend ba"],
              [("ba", [a], [])]), ports=[port])
    assert exchange(port, b"\x00\x02_okrest") == b"a:\x00\x02_okrest"
    assert exchange(port, b"BAD\x00\x01_x") == b""
    # the block announced is longer than what comes: the inspect-delay ends, rejected
    t0 = time.monotonic()
    assert exchange(port, b"\x00\x09_short") == b""
    assert time.monotonic() - t0 >= 1.5


def test_proto_http(proxy, port, tagged):
    a, b = tagged("web"), tagged("other")
    proxy(cfg(port, ["tcp-request inspect-delay 2s",
                     "tcp-request content accept if HTTP",
                     "tcp-request content accept if { req.len ge 6 }",
                     "use_backend bweb if { req.proto_http }",
                     "default_backend bo"],
              [("bweb", [a], []), ("bo", [b], [])]), ports=[port])
    req = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
    assert exchange(port, req) == b"web:" + req
    assert exchange(port, b"SSH-2.0-x\r\n") == b"other:SSH-2.0-x\r\n"


def test_response_payload(proxy, port, raw_server):
    def good(sock, rd, idx):
        sock.recv(4096)
        sock.sendall(b"OK hello")

    def bad(sock, rd, idx):
        sock.recv(4096)
        sock.sendall(b"ERR no")
    g, b = raw_server(good, "g"), raw_server(bad, "b")
    extra = ["tcp-response inspect-delay 2s",
             "tcp-response content reject if { res.payload(0,3) -m str ERR }",
             "tcp-response content accept if { res.len gt 0 }"]
    proxy(cfg(port, ["tcp-request inspect-delay 2s",
                     "tcp-request content accept if { req.len gt 0 }",
                     "use_backend bg if { req.payload(0,1) -m str g }",
                     "default_backend bb"],
              [("bg", [g], extra), ("bb", [b], extra)]), ports=[port])
    assert exchange(port, b"go") == b"OK hello"
    assert exchange(port, b"x") == b""


def rdp_request(cookie):
    """An RDP X.224 connection request carrying "Cookie: <cookie>\\r\\n"."""
    body = b"Cookie: " + cookie + b"\r\n" + b"\x01\x00\x08\x00\x03\x00\x00\x00"
    x224 = bytes([6 + len(body), 0xe0, 0, 0, 0, 0, 0]) + body
    return b"\x03\x00" + struct.pack(">H", 4 + len(x224)) + x224


def test_rdp_cookie_balance(proxy, port, tagged):
    srvs = [tagged("s%d" % i) for i in range(1, 4)]
    proxy(cfg(port, ["tcp-request inspect-delay 2s",
                     "tcp-request content accept if RDP_COOKIE",
                     "default_backend rdp"],
              [("rdp", srvs, ["balance rdp-cookie"])]), ports=[port])
    seen = {}
    for user in [b"alice", b"bob", b"carol", b"dave", b"erin", b"frank"]:
        names = {exchange(port, rdp_request(b"mstshash=" + user)).split(b":")[0]
                 for _ in range(3)}
        assert len(names) == 1, (user, names)  # the same user always lands on one server
        seen[user] = names.pop()
    assert all(v.startswith(b"s") for v in seen.values())
    assert len(set(seen.values())) >= 2  # different users spread over the servers


def test_rdp_cookie_persist(proxy, port, tagged):
    s1, s2 = tagged("s1"), tagged("s2")
    proxy(cfg(port, ["tcp-request inspect-delay 2s",
                     "tcp-request content accept if RDP_COOKIE",
                     "default_backend rdp"],
              [("rdp", [s1, s2], ["balance roundrobin", "persist rdp-cookie"])]),
          ports=[port])
    # msts=ADDR.PORT.0000: the address and port as numbers of their bytes in network
    # order read little-endian (Microsoft's encoding)
    addr = struct.unpack("<I", socket.inet_aton("127.0.0.1"))[0]
    for srv in (s2, s1, s2):
        prt = struct.unpack("<H", struct.pack(">H", srv.port))[0]
        cookie = b"msts=%d.%d.0000" % (addr, prt)
        for _ in range(2):
            assert exchange(port, rdp_request(cookie)).startswith(srv.name.encode() + b":")


def fix_msg(fields, ver="FIX.4.4", bad_sum=False):
    body = "".join("%s=%s\x01" % f for f in fields)
    m = "8=%s\x019=%d\x01" % (ver, len(body)) + body
    cs = (sum(m.encode()) + (1 if bad_sum else 0)) % 256
    return (m + "10=%03d\x01" % cs).encode()


def test_fix(proxy, port, tagged):
    a, b = tagged("alpha"), tagged("other")
    proxy(cfg(port, ["tcp-request inspect-delay 2s",
                     "tcp-request content reject unless { req.payload(0,0),fix_is_valid }",
                     "use_backend ba if { req.payload(0,0),fix_tag_value(SenderCompID) "
                     "-m str ALPHA }",
                     "default_backend bo"],
              [("ba", [a], []), ("bo", [b], [])]), ports=[port])
    logon = fix_msg([("35", "A"), ("49", "ALPHA"), ("56", "EXCH"), ("34", "1"), ("98", "0"),
                     ("108", "30")])
    assert exchange(port, logon) == b"alpha:" + logon
    other = fix_msg([("35", "A"), ("49", "BETA"), ("56", "EXCH"), ("34", "1")])
    assert exchange(port, other) == b"other:" + other
    assert exchange(port, fix_msg([("35", "A"), ("49", "ALPHA")], bad_sum=True)) == b""
    assert exchange(port, fix_msg([("35", "A"), ("49", "X")], ver="FIX.9.9")) == b""


def mqtt_connect(client_id, version=4, user=None):
    def s(x):
        return struct.pack(">H", len(x)) + x
    flags = 0x02 | (0x80 if user else 0)
    vh = s(b"MQTT") + bytes([version, flags]) + b"\x00\x3c"
    if version == 5:
        vh += b"\x05\x11\x00\x00\x00\x78"  # session expiry interval 120
    pl = s(client_id) + (s(user) if user else b"")
    body = vh + pl
    return b"\x10" + bytes([len(body)]) + body


def test_mqtt(proxy, port, tagged):
    a, b = tagged("pinned"), tagged("other")
    proxy(cfg(port, ["tcp-request inspect-delay 2s",
                     "tcp-request content reject unless { req.payload(0,0),mqtt_is_valid }",
                     "use_backend ba if { req.payload(0,0),"
                     "mqtt_field_value(connect,client_identifier) -m beg sensor- }",
                     "use_backend ba if { req.payload(0,0),mqtt_field_value(1,17) -m str 120 }",
                     "default_backend bo"],
              [("ba", [a], []), ("bo", [b], [])]), ports=[port])
    c = mqtt_connect(b"sensor-12", user=b"bob")
    assert exchange(port, c) == b"pinned:" + c
    c = mqtt_connect(b"laptop")
    assert exchange(port, c) == b"other:" + c
    c = mqtt_connect(b"laptop", version=5)
    assert exchange(port, c) == b"pinned:" + c
    assert exchange(port, b"\x10\x03\x00\x04MQ") == b""  # announces 3 bytes, says 4
    bad = bytearray(mqtt_connect(b"x"))
    bad[0] = 0x11  # CONNECT with flags
    assert exchange(port, bytes(bad)) == b""


@pytest.mark.parametrize("expr,msg", [
    ("req.payload_lv(0,0)", "payload length must be > 0"),
    ("req.payload_lv(-1,1)", "payload offset1 must be positive"),
    ("req.payload_lv(0,1,x)", "payload offset2 is not a number"),
    ("req.payload_lv(1,1,-3)", "payload offset2 too negative"),
    ("req.payload(0,0),fix_tag_value(foo)", "Unknown FIX tag name 'foo'"),
    ("req.payload(0,0),mqtt_field_value(foo,bar)", "Unknown MQTT type 'foo'"),
    ("req.payload(0,0),mqtt_field_value(connect,reason_code)",
     "Unknown MQTT field name 'reason_code' for packet type 'connect'"),
])
def test_argument_errors(tmp_path, expr, msg):
    p = tmp_path / "c.cfg"
    p.write_text("\n".join(HDR + ["frontend fe", "    bind 127.0.0.1:1",
                                  "    tcp-request inspect-delay 1s",
                                  "    tcp-request content reject if { %s -m found }" % expr,
                                  "    default_backend b", "backend b",
                                  "    server s 127.0.0.1:2"]) + "\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode != 0
    assert "[%s:9]" % p in r.stderr
    assert msg in r.stderr


@pytest.mark.parametrize("kw,msg", [
    ("persist", "missing persist method."),
    ("persist foo", "unknown persist method."),
    ("persist rdp-cookie()", "persist rdp-cookie(name)' requires an rdp cookie name."),
    ("persist rdp-cookie(a) b", "'persist' cannot handle unexpected argument 'b'."),
    ("balance rdp-cookie()", "balance rdp-cookie : missing cookie name."),
])
def test_rdp_config_errors(tmp_path, kw, msg):
    p = tmp_path / "c.cfg"
    p.write_text("\n".join(HDR + ["listen px", "    bind 127.0.0.1:1", "    " + kw,
                                  "    server s 127.0.0.1:2"]) + "\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode != 0
    assert "[%s:8]" % p in r.stderr and msg in r.stderr


def test_mode_http(proxy, port, tmp_path):
    """In mode http, 2.6 finds no raw payload (its messages are kept in an internal form)
    and warns about each http-* rule format using a raw-byte fetch."""
    text = "\n".join(["defaults", "    mode http", "    timeout connect 2s",
                      "    timeout client 5s", "    timeout server 5s", "frontend fe",
                      "    bind 127.0.0.1:%d" % port,
                      "    http-request return status 200 content-type text/plain "
                      "lf-string \"p=%[req.payload(0,3),hex] lv=%[req.payload_lv(0,1)] "
                      "h=%[req.proto_http]\""]) + "\n"
    p = tmp_path / "w.cfg"
    p.write_text(text)
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode == 0
    assert ("parsing [%s:8] : L6 sample fetch <req.payload(0,3),hex] lv=%%[req.payload_lv(0,1)] "
            "h=%%[req.proto_http]> ignored in HTTP log-format string." % p) in r.stderr
    assert ("parsing [%s:8] : L6 sample fetch <req.payload_lv(0,1)] h=%%[req.proto_http]> "
            "ignored in HTTP log-format string." % p) in r.stderr
    assert "<req.proto_http]>" not in r.stderr  # an HTTP fetch
    proxy(text, ports=[port])
    out = exchange(port, b"GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
    assert out.startswith(b"HTTP/1.1 200")
    assert out.endswith(b"p= lv= h=1")
