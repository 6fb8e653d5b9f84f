"""The PROXY protocol received from clients: `bind ... accept-proxy` and `tcp-request
connection expect-proxy layer4`.

Owns: what a client, a server, a log reader and a CLI script see when a header (v1
TCP4/TCP6/UNKNOWN, v2 PROXY/LOCAL INET/INET6 with TLVs) precedes the traffic in mode http,
mode tcp and under TLS: src/dst/%ci, fc_rcvd_proxy, fc_pp_authority, fc_pp_unique_id; and
when the header is missing or bad (garbage, a v1 line too long, a v2 length that lies, a bad
CRC32C, a header split across several sends): the connection closed before any byte reaches
the server, the log line, the frontend's conn_tot moving (not stot nor ereq), the proxy
serving the next client. Expectations are Debian's /usr/sbin/haproxy 2.6's.
"""

import re
import socket
import ssl
import time

import pytest
from backend import Reader
from conftest import IS_REF, cli, free_port
from httpc import read_response
from syslog_sink import Sink

import pputil

REQ = b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
DATE = r"\[\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d\.\d{3}\]"
SRC4, DST4 = ("1.2.3.4", 1111), ("5.6.7.8", 80)


@pytest.fixture
def sink():
    s = Sink()
    yield s
    s.close()


def http_cfg(port, be_port, sink_port, sock, mode="http", bind_opts="accept-proxy", fe=()):
    lines = ["global", "    stats socket %s level admin" % sock,
             "defaults", "    mode %s" % mode, "    log 127.0.0.1:%d local0" % sink_port,
             "    option %s" % ("httplog" if mode == "http" else "tcplog"),
             "    timeout connect 2s", "    timeout client 3s", "    timeout server 5s",
             "frontend fe", "    bind 127.0.0.1:%d %s" % (port, bind_opts)]
    if mode == "http":
        lines += ["    http-response set-header X-Src %[src]",
                  "    http-response set-header X-Src-Port %[src_port]",
                  "    http-response set-header X-Dst %[dst]",
                  "    http-response set-header X-Dst-Port %[dst_port]",
                  "    http-response set-header X-Rcvd %[fc_rcvd_proxy]",
                  "    http-response set-header X-Auth %[fc_pp_authority]",
                  "    http-response set-header X-Uid %[fc_pp_unique_id]"]
    lines += ["    " + x for x in fe]
    lines += ["    default_backend be", "backend be", "    server s1 127.0.0.1:%d" % be_port]
    return "\n".join(lines) + "\n"


def exchange(port, parts, timeout=5.0, pause=0.0, src=None):
    """Sends each part (pausing between), then reads until close (bounded); returns
    (bytes, error or None)."""
    s = socket.socket()
    s.settimeout(timeout)
    if src:
        s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    out, err = b"", None
    try:
        for i, p in enumerate(parts):
            if i and pause:
                time.sleep(pause)
            s.sendall(p)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            d = s.recv(65536)
            if not d:
                break
            out += d
    except OSError as e:
        err = e
    finally:
        s.close()
    return out, err


def headers_of(resp):
    head = resp.split(b"\r\n\r\n", 1)[0].decode(errors="replace").split("\r\n")
    h = {}
    for ln in head[1:]:
        k, _, v = ln.partition(":")
        h[k.strip().lower()] = v.strip()
    return head[0], h


def stat_row(sock, name="fe", sv="FRONTEND"):
    out = cli(sock, "show stat").splitlines()
    cols = out[0].lstrip("# ").split(",")
    for ln in out[1:]:
        f = ln.split(",")
        if f[:2] == [name, sv]:
            return dict(zip(cols, f))
    raise AssertionError("no %s/%s row in %r" % (name, sv, out))


@pytest.fixture
def px(proxy, backend, sink, tmp_path):
    """Factory: px(mode=, bind_opts=, fe=) -> (port, sock path) of a running proxy with a
    frontend `fe` over `backend` logging to `sink`; the sink is drained of startup lines."""
    def start(**kw):
        port, sock = free_port(), str(tmp_path / "s.sock")
        proxy(http_cfg(port, backend.port, sink.port, sock, **kw), ports=[port])
        sink.drain()
        return port, sock
    return start


@pytest.mark.parametrize("hdr,src,dst", [
    (pputil.v1(SRC4, DST4), SRC4, DST4),
    (pputil.v1(("2001:db8::1", 40000), ("2001:db8::2", 443)),
     ("2001:db8::1", 40000), ("2001:db8::2", 443)),
    (pputil.v2(SRC4, DST4), SRC4, DST4),
    (pputil.v2(("2001:db8::1", 40000), ("2001:db8::2", 443)),
     ("2001:db8::1", 40000), ("2001:db8::2", 443)),
], ids=["v1-tcp4", "v1-tcp6", "v2-inet", "v2-inet6"])
def test_http_header_sets_src_dst_and_log(px, backend, sink, hdr, src, dst):
    port, _ = px()
    out, err = exchange(port, [hdr + REQ])
    status, h = headers_of(out)
    assert status == "HTTP/1.1 200 OK", (out, err)
    assert (h["x-src"], h["x-src-port"]) == (src[0], str(src[1]))
    assert (h["x-dst"], h["x-dst-port"]) == (dst[0], str(dst[1]))
    assert h["x-rcvd"] == "1"
    # the server got the request, never the header
    assert backend.last().raw_head.startswith(b"GET / HTTP/1.1\r\n")
    logs = sink.read(1)
    assert logs and logs[0][1].startswith("%s:%d [" % src), logs
    assert " fe be/s1 " in logs[0][1] and '"GET / HTTP/1.1"' in logs[0][1]


@pytest.mark.parametrize("hdr", [pputil.v1(), pputil.v2(local=True),
                                 pputil.v2(SRC4, DST4, local=True)],
                         ids=["v1-unknown", "v2-local", "v2-local-with-addrs"])
def test_http_header_keeps_own_addresses(px, sink, hdr):
    """v1 UNKNOWN and v2 LOCAL: the connection keeps its real addresses, yet
    fc_rcvd_proxy says a header came."""
    port, _ = px()
    out, err = exchange(port, [hdr + REQ])
    status, h = headers_of(out)
    assert status == "HTTP/1.1 200 OK", (out, err)
    assert h["x-src"] == "127.0.0.1" and h["x-dst"] == "127.0.0.1"
    assert h["x-dst-port"] == str(port)
    assert h["x-rcvd"] == "1"
    logs = sink.read(1)
    assert logs and logs[0][1].startswith("127.0.0.1:"), logs


def test_http_v2_tlvs_authority_unique_id(px):
    port, _ = px()
    hdr = pputil.v2(SRC4, DST4, tlvs=[(pputil.PP2_TYPE_NOOP, b"xx"),
                                      (pputil.PP2_TYPE_AUTHORITY, b"www.example.com"),
                                      (pputil.PP2_TYPE_UNIQUE_ID, b"uid-0042")], crc=True)
    out, err = exchange(port, [hdr + REQ])
    status, h = headers_of(out)
    assert status == "HTTP/1.1 200 OK", (out, err)
    assert h["x-auth"] == "www.example.com" and h["x-uid"] == "uid-0042"
    assert h["x-src"] == "1.2.3.4"


def test_http_keepalive_after_header(px, backend):
    """The header comes once; every request of the connection has its source."""
    port, _ = px()
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        ka = b"GET /%d HTTP/1.1\r\nHost: x\r\n\r\n"
        s.sendall(pputil.v1(SRC4, DST4) + ka % 1)
        rd = Reader(s)
        r1 = read_response(rd)
        s.sendall(ka % 2)
        r2 = read_response(rd)
    finally:
        s.close()
    assert r1.status == 200 and r2.status == 200
    assert r1.header("x-src") == "1.2.3.4" and r2.header("x-src") == "1.2.3.4"


def test_no_header_without_accept_proxy_is_a_request(px):
    """Without accept-proxy a PROXY line is just a bad request (400)."""
    port, _ = px(bind_opts="")
    out, _ = exchange(port, [pputil.v1(SRC4, DST4) + REQ])
    assert out.startswith(b"HTTP/1.1 400"), out


def test_tcp_mode_header_sets_client_address(px, backend, sink):
    port, _ = px(mode="tcp")
    out, err = exchange(port, [pputil.v2(SRC4, DST4) + REQ])
    assert out.startswith(b"HTTP/1.1 200 OK"), (out, err)
    assert backend.last().raw_head.startswith(b"GET / HTTP/1.1\r\n")
    logs = sink.read(1)
    assert logs and logs[0][1].startswith("1.2.3.4:1111 ["), logs
    assert " fe be/s1 " in logs[0][1]


def test_tcp_mode_log_format_fetches(proxy, backend, sink, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    cfg = http_cfg(port, backend.port, sink.port, sock, mode="tcp",
                   fe=["log-format \"%ci:%cp>%fi:%fp rcvd=%[fc_rcvd_proxy] "
                       "auth=%[fc_pp_authority] uid=%[fc_pp_unique_id]\""])
    proxy(cfg, ports=[port])
    sink.drain()
    hdr = pputil.v2(("2001:db8::7", 5555), ("2001:db8::8", 8443),
                    tlvs=[(pputil.PP2_TYPE_AUTHORITY, b"a.test"),
                          (pputil.PP2_TYPE_UNIQUE_ID, b"U1")])
    out, _ = exchange(port, [hdr + REQ])
    assert out.startswith(b"HTTP/1.1 200 OK"), out
    logs = sink.read(1)
    assert logs and logs[0][1] == "2001:db8::7:5555>2001:db8::8:8443 rcvd=1 auth=a.test uid=U1"


def test_header_and_request_in_one_segment_tcp(px, backend):
    """Bytes after the header in the same segment are the stream's first bytes."""
    port, _ = px(mode="tcp")
    out, _ = exchange(port, [pputil.v1(SRC4, DST4) + b"GET /same HTTP/1.1\r\nHost: x\r\n"
                             b"Connection: close\r\n\r\n"])
    assert out.startswith(b"HTTP/1.1 200 OK"), out
    assert backend.last().raw_head.startswith(b"GET /same HTTP/1.1\r\n")


def test_tls_after_header(proxy, backend, sink, pki, tmp_path):
    port, sock = free_port(), str(tmp_path / "s.sock")
    cfg = http_cfg(port, backend.port, sink.port, sock,
                   bind_opts="accept-proxy ssl crt %s" % pki.p("a.pem"))
    proxy(cfg, ports=[port])
    sink.drain()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    raw = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        raw.sendall(pputil.v2(SRC4, DST4))
        with ctx.wrap_socket(raw, server_hostname="a.test") as s:
            s.sendall(REQ)
            out = b""
            for _ in range(100):
                d = s.recv(65536)
                if not d:
                    break
                out += d
    finally:
        raw.close()
    status, h = headers_of(out)
    assert status == "HTTP/1.1 200 OK", out
    assert h["x-src"] == "1.2.3.4" and h["x-rcvd"] == "1"
    logs = sink.read(1)
    assert logs and logs[0][1].startswith("1.2.3.4:1111 ["), logs


BAD = {
    "missing": ([REQ], "Received something which does not look like a PROXY protocol header",
                "127.0.0.1"),
    "garbage": ([b"\x01\x02garbage\xff" * 3],
                "Received something which does not look like a PROXY protocol header",
                "127.0.0.1"),
    "v1-too-long": ([b"PROXY TCP4 " + b"1" * 120 + b"\r\n" + REQ],
                    "Received an invalid PROXY protocol header", "127.0.0.1"),
    # 108 bytes and no CRLF: HAProxy 2.6 words it "Truncated"
    "v1-108-no-crlf": ([b"PROXY TCP4 " + b"1" * 97],
                       "Truncated PROXY protocol header received", "127.0.0.1"),
    "v1-over-107-spaces": ([b"PROXY TCP4 1.2.3.4 5.6.7.8 1111 80" + b" " * 80 + b"\r\n" + REQ],
                           "Received an invalid PROXY protocol header", "127.0.0.1"),
    "v1-bad-address": ([b"PROXY TCP4 foo.bar 5.6.7.8 1 2\r\n" + REQ],
                       "Received an invalid PROXY protocol header", "127.0.0.1"),
    # the length does not hold the addresses of the family
    "v2-length-short": ([pputil.v2(SRC4, DST4, length=4)[:20] + REQ],
                        "Received an invalid PROXY protocol header", "127.0.0.1"),
    # the addresses were read before the CRC is checked: the log names the header's source
    "v2-bad-crc": ([pputil.v2(SRC4, DST4, crc=True)[:-1] + b"\x00" + REQ],
                   "Received an invalid PROXY protocol header", "1.2.3.4"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_header_closes_before_server(px, backend, sink, case):
    parts, msg, logsrc = BAD[case]
    port, sock = px()
    before = stat_row(sock)
    t0 = time.monotonic()
    out, err = exchange(port, parts, timeout=6.0, pause=0.3)
    # closed at once (not after timeout client), nothing answered
    assert out == b"", out
    assert time.monotonic() - t0 < 2.5 + 0.3 * len(parts)
    check_refused(port, sock, backend, sink, before, msg, logsrc)


def check_refused(port, sock, backend, sink, before, msg, logsrc="127.0.0.1"):
    """The log line of a refused header, the counters (conn_tot moves, not stot nor ereq),
    no server connection, and the proxy serving the next client."""
    logs = sink.read(1)
    assert len(logs) == 1, logs
    pri, text = logs[0]
    assert pri == 134
    assert re.fullmatch(r"%s:\d+ %s fe/1: %s" % (re.escape(logsrc), DATE, re.escape(msg)),
                        text), text
    after = stat_row(sock)
    moved = {k: (before[k], after[k]) for k in ("conn_tot", "stot", "ereq", "req_tot")
             if before[k] != after[k]}
    assert moved == {"conn_tot": (before["conn_tot"], str(int(before["conn_tot"]) + 1))}, moved
    assert backend.conn_count == 0
    # the proxy keeps serving others
    out, _ = exchange(port, [pputil.v1(SRC4, DST4) + REQ])
    assert out.startswith(b"HTTP/1.1 200 OK"), out
    assert backend.conn_count == 1


def test_no_byte_times_out(px, backend, sink):
    """A client that sends nothing is closed after timeout client (3 s)."""
    port, sock = px()
    before = stat_row(sock)
    t0 = time.monotonic()
    out, _ = exchange(port, [], timeout=8.0)
    assert out == b""
    assert 2.5 < time.monotonic() - t0 < 6
    check_refused(port, sock, backend, sink, before,
                  "Timeout while waiting for PROXY protocol header")


H1 = pputil.v1(SRC4, DST4)
H2 = pputil.v2(SRC4, DST4)
SPLIT = {
    "v1-split": [H1[:3], H1[3:16], H1[16:], REQ],
    "v2-split": [H2[:10], H2[10:20], H2[20:] + REQ],
}


@pytest.mark.parametrize("case", list(SPLIT))
def test_split_header(px, backend, sink, case):
    """A header sent in several pieces with pauses. HAProxy 2.6 reads it only once (peek):
    refused as truncated. hapx (conn/pp_recv.c) deliberately waits for the rest."""
    port, sock = px()
    before = stat_row(sock)
    out, _ = exchange(port, SPLIT[case], timeout=6.0, pause=0.3)
    if IS_REF:
        assert out == b"", out
        check_refused(port, sock, backend, sink, before,
                      "Truncated PROXY protocol header received")
        return
    status, h = headers_of(out)
    assert status == "HTTP/1.1 200 OK", out
    assert h["x-src"] == "1.2.3.4" and h["x-dst"] == "5.6.7.8"
    assert backend.last().raw_head.startswith(b"GET / HTTP/1.1\r\n")


def test_v2_length_longer_than_sent(px, backend, sink):
    """The v2 length announces more than what is sent, then the client waits. HAProxy 2.6
    refuses it at once as truncated; hapx waits for the rest, up to timeout client."""
    port, sock = px()
    before = stat_row(sock)
    t0 = time.monotonic()
    out, _ = exchange(port, [pputil.v2(SRC4, DST4, length=100)], timeout=8.0)
    assert out == b""
    took = time.monotonic() - t0
    if IS_REF:
        assert took < 1.5
        msg = "Truncated PROXY protocol header received"
    else:
        assert 2.5 < took < 6
        msg = "Timeout while waiting for PROXY protocol header"
    check_refused(port, sock, backend, sink, before, msg)


def test_expect_proxy_by_source(proxy, backend, sink, tmp_path):
    """expect-proxy layer4 if { src 127.0.0.1 }: 127.0.0.1 must send a header, 127.0.0.2
    sends none."""
    port, sock = free_port(), str(tmp_path / "s.sock")
    cfg = http_cfg(port, backend.port, sink.port, sock, bind_opts="",
                   fe=["tcp-request connection expect-proxy layer4 if { src 127.0.0.1 }"])
    proxy(cfg, ports=[port])
    sink.drain()
    out, _ = exchange(port, [pputil.v1(SRC4, DST4) + REQ])
    status, h = headers_of(out)
    assert status == "HTTP/1.1 200 OK" and h["x-src"] == "1.2.3.4", out
    out, _ = exchange(port, [REQ], src="127.0.0.2")
    status, h = headers_of(out)
    assert status == "HTTP/1.1 200 OK" and h["x-src"] == "127.0.0.2", out
    assert h["x-rcvd"] == "0"
    sink.read(2)
    # 127.0.0.1 without a header: refused, logged
    out, _ = exchange(port, [REQ])
    assert out == b""
    logs = sink.read(1)
    assert logs and logs[0][1].endswith(
        "fe/1: Received something which does not look like a PROXY protocol header"), logs
    # two requests reached the server (the refused connection none); here a replayable
    # first request may take the idle server connection of the one before (http-reuse
    # safe, as documented), HAProxy opens one for each
    assert backend.conn_count == 2 if IS_REF else backend.conn_count in (1, 2)
