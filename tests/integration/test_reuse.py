"""Server connection reuse (http-reuse): with "safe", the default, a first request of a
client connection that the proxy could not replay goes on a server connection of its own
(a bodyless GET may take a parked one: ours only); later ones may reuse parked
connections; "never" and "always" as HAProxy. A parked
connection the server closed just as a request was sent on it (it reads the request and
closes without answering) does not cost the client a 502 when the request has no body:
it is sent again on a new connection."""

import pytest

import httpc
from backend import Reader
from conftest import make_cfg
from rawserver import read_head, read_request


@pytest.fixture
def one_shot_server(raw_server):
    """Answers the first request of each connection (keep-alive), closes on the next."""
    def handler(sock, rd, idx):
        read_request(rd)
        sock.sendall(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
        read_head(rd)  # the next request: read it, then close without an answer

    srv = raw_server(handler)
    return srv.port, srv


def post_close(port):
    raw = (b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nConnection: close\r\n"
           b"\r\nabc")
    return httpc.request(port, raw, method="POST")


def test_first_request_of_each_client_gets_its_own_connection(proxy, port, backend):
    """A first request the proxy could not replay (a body) never takes a parked
    connection; later requests of a client connection may."""
    proxy(make_cfg(port, [backend], glob=["nbthread 1"]), ports=[port])
    conns = {post_close(port).header("X-Conn") for _ in range(5)}
    assert len(conns) == 5  # no idle connection reused for a first request
    with httpc.connect(port) as s:
        rd = Reader(s)
        seen = set()
        for _ in range(5):
            s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            seen.add(httpc.read_response(rd).header("X-Conn"))
    # later requests reuse parked connections (HAProxy may pick another parked one
    # than the client's own first): no new connection per request
    assert len(seen) <= 2


@pytest.mark.ours
def test_replayable_first_requests_reuse_connections(proxy, port, backend):
    """Beyond HAProxy's "safe": a bodyless GET that opens a client connection may take a
    parked server connection, since the proxy itself can send it again if the server
    closed that connection (close mode no longer costs a server connection per
    request)."""
    proxy(make_cfg(port, [backend], glob=["nbthread 1"]), ports=[port])
    conns = {httpc.get(port).header("X-Conn") for _ in range(6)}
    assert len(conns) == 1


@pytest.mark.parametrize("mode, first_posts", [
    ("never", 4),     # a client's server connection is its own: never shared
    ("always", 1),    # any parked connection, for first requests too
])
def test_http_reuse_modes(proxy, port, backend, mode, first_posts):
    proxy(make_cfg(port, [backend], glob=["nbthread 1"], listen=["http-reuse " + mode]),
          ports=[port])
    assert len({post_close(port).header("X-Conn") for _ in range(4)}) == first_posts
    clients = []
    for _ in range(2):  # two client connections, four requests each, interleaved
        s = httpc.connect(port)
        clients.append((s, Reader(s), set()))
    try:
        for _ in range(4):
            for s, rd, seen in clients:
                s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
                seen.add(httpc.read_response(rd).header("X-Conn"))
    finally:
        for s, _, _ in clients:
            s.close()
    a, b = clients[0][2], clients[1][2]
    assert len(a) == 1 and len(b) == 1  # each client keeps one server connection
    if mode == "never":
        assert a != b                   # not shared between the two clients


@pytest.mark.ours
def test_bodyless_request_resent_when_reused_connection_was_closed(proxy, port,
                                                                   one_shot_server):
    sport, stats = one_shot_server
    proxy(make_cfg(port, [("s1", sport)], glob=["nbthread 1"]), ports=[port])
    with httpc.connect(port) as s:
        rd = Reader(s)
        statuses = []
        for _ in range(4):
            s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
            statuses.append(httpc.read_response(rd).status)
    assert statuses == [200] * 4
    assert stats.count == 4  # every reuse failed and a new connection answered


@pytest.mark.parametrize("req", [
    b"POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc",  # a body
    b"POST / HTTP/1.1\r\nHost: t\r\n\r\n",  # bodyless, not idempotent
])
def test_unreplayable_request_not_resent(proxy, port, one_shot_server, req):
    """A request with a body, or a non-idempotent one, may already have been processed: it
    is not sent twice. As HAProxy does, the client connection is closed without a response
    (the client may retry)."""
    sport, stats = one_shot_server
    proxy(make_cfg(port, [("s1", sport)], glob=["nbthread 1"]), ports=[port])
    with httpc.connect(port) as s:
        rd = Reader(s)
        s.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n\r\n")
        assert httpc.read_response(rd).status == 200
        s.sendall(req)
        data, closed = httpc.recv_until_close(s, 5)
    assert data == b""
    assert closed
    assert stats.count == 1  # not sent again on a new connection
