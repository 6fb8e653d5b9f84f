"""Health checks that send the PROXY protocol: check-send-proxy, send-proxy* on a server
with check (and no check port/addr), proxy-v2-options TLVs on v2 check headers, and
`tcp-check connect send-proxy`. A raw listener records the first bytes of each check
connection; HAProxy 2.6 sends the same bytes (v1 with the check connection's addresses,
v2 a LOCAL header)."""

import re
import struct
import time

from conftest import free_port, make_cfg, run_haproxy

SIG = b"\r\n\r\n\x00\r\nQUIT\n"


def recorder(raw_server, reply=b""):
    """A raw listener that keeps what each connection sends in its first 0.3 s."""
    def handler(sock, rd, idx):
        sock.settimeout(0.3)
        data = b""
        try:
            while len(data) < 4096:
                d = sock.recv(4096)
                if not d:
                    break
                data += d
        except OSError:
            pass
        srv.note(data)
        if reply:
            sock.sendall(reply)
    srv = raw_server(handler)
    return srv


def first_check(srv, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with srv.lock:
            if srv.events:
                return srv.events[0]
        time.sleep(0.05)
    raise AssertionError("no check connection within %.1fs" % timeout)


def no_header(srv, wait=1.5):
    """True when no connection in <wait> s opened with a PROXY header (HAProxy's L4 check
    may reset its connection before the listener reads it: then nothing is recorded)."""
    time.sleep(wait)
    with srv.lock:
        return all(not e.startswith((b"PROXY", SIG)) for e in srv.events)


def start(proxy, srv_line, listen=()):
    port = free_port()
    cfg = make_cfg(port, listen=list(listen) + [srv_line])
    return proxy(cfg, ports=[port])


def test_check_send_proxy_v1(proxy, raw_server):
    srv = recorder(raw_server)
    start(proxy, "server s1 127.0.0.1:%d check inter 500 check-send-proxy" % srv.port)
    data = first_check(srv)
    m = re.match(rb"PROXY TCP4 127\.0\.0\.1 127\.0\.0\.1 (\d+) (\d+)\r\n$", data)
    assert m, data
    assert int(m.group(2)) == srv.port


def test_send_proxy_implies_checks(proxy, raw_server):
    srv = recorder(raw_server)
    start(proxy, "server s1 127.0.0.1:%d check inter 500 send-proxy" % srv.port)
    assert first_check(srv).startswith(b"PROXY TCP4 127.0.0.1 127.0.0.1 ")


def test_send_proxy_not_with_check_port(proxy, raw_server):
    srv = recorder(raw_server)
    start(proxy, "server s1 127.0.0.1:1 check inter 500 send-proxy port %d" % srv.port)
    assert no_header(srv)


def test_check_send_proxy_with_check_port(proxy, raw_server):
    srv = recorder(raw_server)
    start(proxy, "server s1 127.0.0.1:1 check inter 500 check-send-proxy port %d" % srv.port)
    assert first_check(srv).startswith(b"PROXY TCP4 ")


def test_v2_check_is_local_with_tlvs(proxy, raw_server):
    srv = recorder(raw_server)
    start(proxy, "server s1 127.0.0.1:%d check inter 500 send-proxy-v2 "
          "proxy-v2-options crc32c,ssl" % srv.port)
    data = first_check(srv)
    # LOCAL, UNSPEC, 15 bytes: CRC32C TLV (4), SSL TLV (client 0, verify 0)
    assert data[:16] == SIG + b"\x20\x00\x00\x0f", data
    assert data[16:19] == b"\x03\x00\x04" and data[23:] == b"\x20\x00\x05" + b"\x00" * 5
    # the CRC32C of the header with its own field zeroed
    assert len(data) == 31
    crc = struct.unpack(">I", data[19:23])[0]
    assert crc == 0x889DA1DF, hex(crc)  # as HAProxy 2.6 computes it


def test_v2_check_send_proxy_bare(proxy, raw_server):
    srv = recorder(raw_server)
    start(proxy, "server s1 127.0.0.1:%d check inter 500 send-proxy-v2 check-send-proxy"
          % srv.port)
    assert first_check(srv) == SIG + b"\x20\x00\x00\x00"


def test_v2_check_pp2_never_send_local(proxy, raw_server):
    """global pp2-never-send-local: v2 checks send PROXY with the check connection's own
    addresses instead of LOCAL."""
    srv = recorder(raw_server)
    port = free_port()
    cfg = make_cfg(port, glob=["pp2-never-send-local"],
                   listen=["server s1 127.0.0.1:%d check inter 500 send-proxy-v2" % srv.port])
    proxy(cfg, ports=[port])
    data = first_check(srv)
    # PROXY, TCP over IPv4, 12 bytes: 127.0.0.1 -> 127.0.0.1, the check's port -> the server's
    assert data[:16] == SIG + b"\x21\x11\x00\x0c", data
    assert data[16:24] == b"\x7f\x00\x00\x01" * 2, data
    assert struct.unpack(">H", data[26:28])[0] == srv.port, data


def test_no_check_send_proxy(proxy, raw_server):
    srv = recorder(raw_server)
    port = free_port()
    cfg = make_cfg(port, listen=["default-server check-send-proxy inter 500",
                                 "server s1 127.0.0.1:%d check no-check-send-proxy" % srv.port])
    proxy(cfg, ports=[port])
    assert no_header(srv)


def test_tcp_check_connect_send_proxy(proxy, raw_server):
    srv = recorder(raw_server, reply=b"+PONG\r\n")
    start(proxy, "server s1 127.0.0.1:%d check inter 500" % srv.port,
          listen=["option tcp-check", "tcp-check connect send-proxy",
                  "tcp-check send PING\\r\\n", "tcp-check expect string +PONG"])
    data = first_check(srv)
    assert re.match(rb"PROXY TCP4 127\.0\.0\.1 127\.0\.0\.1 \d+ \d+\r\nPING\r\n$", data), data


def test_proxy_v2_options_unknown_word(tmp_path):
    cfg = tmp_path / "pp.cfg"
    cfg.write_text(make_cfg(free_port(), listen=[
        "default-server send-proxy-v2 proxy-v2-options ssl,crc32c",
        "server s1 127.0.0.1:1 no-send-proxy-v2-ssl-cn send-proxy check-send-proxy",
        "server s2 127.0.0.1:1 proxy-v2-options crc32c,foo"]))
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    assert "pp.cfg:11] : 'server px/s2' : 'foo' : proxy v2 option not implemented." in r.stderr
    assert "s1" not in r.stderr
