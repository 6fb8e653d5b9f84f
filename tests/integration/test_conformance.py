"""HTTP conformance and Host handling, as a raw-socket client and origin see them.

Owns: Host against absolute-form targets, repeated Host headers, chunk extensions (RFC 9112
section 7.1.1), Transfer-Encoding on HTTP/1.0, the request TE header, Content-Length on 204,
the Connection header towards HTTP/1.0 clients and on CONNECT answers, WebSocket key
checks, monitor-uri with absolute-form targets, empty errorfiles. Reuse of a closed server
connection lives in test_reuse.py.
"""

import time

import pytest

import httpc
from backend import Reader
from conftest import free_port, make_cfg, run_haproxy
from rawserver import read_head
from test_errors import PAGE_400
from test_smuggling import assert_400_closed, px  # noqa: F401 (px: a fixture)


# ---- Host ----

def test_absolute_form_host_mismatch_400(px, backend):
    assert_400_closed(px, b"GET http://example.com/ HTTP/1.1\r\nHost: other.com\r\n\r\n",
                      backend)


def test_absolute_form_host_mismatch_port_400(px, backend):
    assert_400_closed(px, b"GET http://example.com:8080/ HTTP/1.1\r\n"
                      b"Host: example.com\r\n\r\n", backend)


def test_absolute_form_host_match_forwarded(px, backend):
    r = httpc.request(px, b"GET http://Example.com/x HTTP/1.1\r\nHost: example.com\r\n"
                      b"Connection: close\r\n\r\n")
    assert r.status == 200
    assert backend.last().header_all("Host") == ["example.com"]


def test_absolute_form_default_port_matches(px, backend):
    r = httpc.request(px, b"GET http://example.com:80/ HTTP/1.1\r\nHost: example.com\r\n"
                      b"Connection: close\r\n\r\n")
    assert r.status == 200


def test_authority_form_host_mismatch_400(px, backend):
    assert_400_closed(px, b"CONNECT example.com:443 HTTP/1.1\r\nHost: other\r\n\r\n",
                      backend)


def test_two_different_hosts_400(px, backend):
    assert_400_closed(px, b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", backend)


def test_identical_hosts_forwarded_once(px, backend):
    r = httpc.request(px, b"GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\nHost: a\r\n"
                      b"Connection: close\r\n\r\n")
    assert r.status == 200
    assert backend.last().header_all("Host") == ["a"]
    assert backend.last().header("X") == "1"


# ---- chunk extensions ----

CHUNKED = b"POST /?echo=1 HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"


def test_valid_chunk_extensions_accepted(px, backend):
    r = httpc.request(px, CHUNKED + b"3 ; a = b;c=\"q\\\"x\"\r\nabc\r\n0;z\r\n\r\n", "POST")
    assert r.status == 200
    assert r.body == b"abc"
    assert backend.last().body == b"abc"


@pytest.fixture
def recording_server(raw_server):
    """Origin that records every byte it receives and never answers."""
    def handler(sock, rd, idx):
        for _ in range(1000):
            try:
                d = sock.recv(65536)
            except OSError:
                return
            if not d:
                return
            srv.note(d)

    srv = raw_server(handler)
    return srv


@pytest.mark.ours  # HAProxy 2.6 strips extensions without checking them
@pytest.mark.parametrize("bad", [b"5;\r\n", b"5; =x\r\n", b"5;a=\"hel\r\n", b"5;a=\x01\r\n",
                                 b"5;a=\"x\x7f\"\r\n", b"5;a b\r\n"],
                         ids=["no-name", "no-name-value", "unterminated-quote", "ctl",
                              "ctl-in-quote", "two-tokens"])
def test_invalid_chunk_extension_400_before_server(proxy, port, recording_server, bad):
    proxy(make_cfg(port, [("s1", recording_server.port)]), ports=[port])
    with httpc.connect(port) as s:
        s.sendall(CHUNKED + b"3\r\nabc\r\n")
        time.sleep(0.2)
        # the size line arrives in two parts: nothing of it may reach the server
        s.sendall(bad[:3])
        time.sleep(0.2)
        s.sendall(bad[3:] + b"hello\r\n0\r\n\r\n")
        data, closed = httpc.recv_until_close(s, 5)
    assert data == PAGE_400
    assert closed
    got = b"".join(recording_server.events)
    assert got.endswith(b"\r\n\r\n3\r\nabc\r\n")
    assert b"5;" not in got


# ---- framing and hop-by-hop headers ----

@pytest.mark.ours  # HAProxy 2.6 forwards it (a smuggling vector against 1.0 origins)
def test_http10_transfer_encoding_400(px, backend):
    assert_400_closed(px, b"POST / HTTP/1.0\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
                      b"3\r\nabc\r\n0\r\n\r\n", backend)


def test_te_header_keeps_only_trailers(px, backend):
    r = httpc.request(px, b"GET / HTTP/1.1\r\nHost: t\r\nTE: trailers, gzip\r\n"
                      b"Connection: close\r\n\r\n")
    assert r.status == 200
    assert backend.last().header_all("TE") == ["trailers"]


def test_te_header_without_trailers_dropped(px, backend):
    r = httpc.request(px, b"GET / HTTP/1.1\r\nHost: t\r\nTE: gzip, deflate\r\n"
                      b"Connection: close\r\n\r\n")
    assert r.status == 200
    assert backend.last().header_all("TE") == []


def test_204_loses_content_length(px, backend):
    data, _ = httpc.exchange(px, b"GET /?status=204&hdr=Content-Length:%200 HTTP/1.1\r\n"
                             b"Host: t\r\nConnection: close\r\n\r\n", timeout=5)
    head = data.split(b"\r\n\r\n")[0].lower()
    assert head.startswith(b"http/1.1 204")
    assert b"content-length" not in head


def test_http10_close_carries_connection_close(px, backend):
    data, closed = httpc.exchange(px, b"GET / HTTP/1.0\r\nHost: t\r\n\r\n", timeout=5)
    (r,) = httpc.parse_all(data)
    assert r.status == 200
    assert (r.header("Connection") or "").lower() == "close"
    assert closed


def test_http10_keepalive_last_response_carries_close(px, backend):
    raw = (b"GET /1 HTTP/1.0\r\nHost: t\r\nConnection: keep-alive\r\n\r\n"
           b"GET /2 HTTP/1.0\r\nHost: t\r\n\r\n")
    data, closed = httpc.exchange(px, raw, timeout=5)
    r1, r2 = httpc.parse_all(data)
    assert (r1.header("Connection") or "").lower() == "keep-alive"
    assert (r2.header("Connection") or "").lower() == "close"
    assert closed


@pytest.mark.parametrize("req,conn", [
    (b"GET /health HTTP/1.0\r\n\r\n", b"close"),
    (b"GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", b"keep-alive"),
    (b"GET /health HTTP/1.1\r\nConnection: close\r\n\r\n", b"close"),
    (b"GET /x HTTP/1.0\r\n\r\n", b"close"),
    (b"GET /x HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", b"keep-alive"),
    (b"GET /x HTTP/1.1\r\n\r\n", None),
], ids=["monitor-10", "monitor-10-ka", "monitor-11-close", "return-10", "return-10-ka",
        "return-11"])
def test_local_reply_connection_header(proxy, port, req, conn):
    proxy(make_cfg(port, [], listen=[
        "monitor-uri /health",
        'http-request return status 200 content-type text/plain string "ok"']), ports=[port])
    data, closed = httpc.exchange(port, req, timeout=1.5)
    head = data.split(b"\r\n\r\n")[0].lower().split(b"\r\n")
    assert head[0].startswith(b"http/1.1 200")
    got = [h[len(b"connection: "):] for h in head if h.startswith(b"connection:")]
    assert got == ([conn] if conn else [])
    assert closed == (conn == b"close")


def test_connect_answer_has_no_connection_upgrade(proxy, port, raw_server):
    def handler(sock, rd, idx):
        read_head(rd)
        sock.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        for _ in range(100):
            d = sock.recv(4096)
            if not d:
                return
            sock.sendall(d)

    srv = raw_server(handler)
    proxy(make_cfg(port, [("s1", srv.port)]), ports=[port])
    with httpc.connect(port) as s:
        s.sendall(b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        rd = Reader(s)
        head = []
        for _ in range(50):
            ln = rd.readline()
            head.append(ln.lower())
            if ln == b"\r\n":
                break
        assert head[0].startswith(b"http/1.1 200")
        assert not any(h.startswith(b"connection:") for h in head)
        s.sendall(b"ping")
        assert rd.read_exact(4) == b"ping"


# ---- WebSocket ----

def test_websocket_upgrade_without_key_400(px, backend):
    assert_400_closed(px, b"GET / HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\n"
                      b"Connection: upgrade\r\n\r\n", backend)


def test_101_without_accept_502(proxy, port, raw_server):
    def handler(sock, rd, idx):
        read_head(rd)
        sock.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                     b"Connection: upgrade\r\n\r\n")
        time.sleep(1)

    srv = raw_server(handler)
    proxy(make_cfg(port, [("s1", srv.port)]), ports=[port])
    r = httpc.request(port, b"GET / HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\n"
                      b"Connection: upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                      b"\r\n")
    assert r.status == 502


# ---- monitor-uri, errorfile ----

def test_monitor_uri_matches_absolute_form(proxy, port, backend):
    proxy(make_cfg(port, [backend], listen=["monitor-uri /health"]), ports=[port])
    r = httpc.request(port, b"GET http://host/health HTTP/1.1\r\nHost: host\r\n"
                      b"Connection: close\r\n\r\n")
    assert r.status == 200
    assert len(backend.requests) == 0
    r = httpc.request(port, b"GET http://host/health?x HTTP/1.1\r\nHost: host\r\n"
                      b"Connection: close\r\n\r\n")
    assert r.status == 200
    assert len(backend.requests) == 1  # the query string makes it another URI


@pytest.mark.parametrize("where", ["defaults", "listen"])
def test_empty_errorfile_closes_without_answer(proxy, port, tmp_path, where):
    empty = tmp_path / "empty.http"
    empty.write_bytes(b"")
    lines = ["errorfile 503 %s" % (empty if where == "listen" else "/dev/null")]
    cfg = make_cfg(port, [], **{where: lines})
    proxy(cfg, ports=[port])  # no server: every request gets a 503
    data, closed = httpc.exchange(port, b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", timeout=5)
    assert data == b""
    assert closed


def test_empty_errorfile_accepted_by_check(tmp_path):
    cfg = tmp_path / "c.cfg"
    cfg.write_text(make_cfg(free_port(), [], defaults=["errorfile 400 /dev/null"]))
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode == 0, (r.stdout, r.stderr)
