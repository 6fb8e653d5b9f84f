"""retry-on (L7 retries): a request the proxy can replay goes to a server again when the
response is empty, junk, late or has a listed status, within `retries`, with `option
redispatch` choosing another server; `retry-on` without `conn-failure` stops connection
retries. What the client gets, what each server received, and the wretr/wredis counters.
"""

import socket

import httpc
from conftest import cli, free_port, make_cfg, run_haproxy
from httpc import get
from rawserver import read_request


def stat_rows(sock):
    out = cli(str(sock), "show stat")
    lines = out.splitlines()
    names = lines[0][2:].split(",")
    rows = {}
    for ln in lines[1:]:
        vals = ln.split(",")
        if len(vals) > 2 and vals[0] == "px":
            rows[vals[1]] = {k: (int(v) if v.isdigit() else v) for k, v in zip(names, vals)}
    return rows


def answer(status, name):
    def h(s, rd, idx):
        read_request(rd)
        body = b"from %s\n" % name.encode()
        s.sendall(b"HTTP/1.1 %d X\r\nContent-Length: %d\r\nX-Server: %s\r\n\r\n"
                  % (status, len(body), name.encode()) + body)
    return h


def close_at_once(s, rd, idx):
    read_request(rd)
    s.shutdown(socket.SHUT_RDWR)


def junk(s, rd, idx):
    read_request(rd)
    s.sendall(b"this is not HTTP\r\n\r\n")
    s.shutdown(socket.SHUT_RDWR)


def start(proxy, tmp_path, servers, be_lines, extra_glob=()):
    port = free_port()
    sock = tmp_path / "stats.sock"
    cfg = make_cfg(port, [(n, s.port) for n, s in servers],
                   glob=["stats socket %s level admin" % sock] + list(extra_glob),
                   listen=be_lines)
    proxy(cfg, ports=[port])
    return port, sock


def test_503_redispatched_to_second_server(proxy, raw_server, tmp_path):
    s1 = raw_server(answer(503, "s1"), "s1")
    s2 = raw_server(answer(200, "s2"), "s2")
    port, sock = start(proxy, tmp_path, [("s1", s1), ("s2", s2)],
                       ["balance first", "retries 1", "option redispatch", "retry-on 503"])
    r = get(port, "/a")
    assert r.status == 200 and r.header("x-server") == "s2"
    assert s1.count == 1 and s2.count == 1
    rows = stat_rows(sock)
    # HAProxy 2.6 counts the L7 retry, and the new connection as a redispatch
    assert rows["s1"]["wredis"] == 1 and rows["BACKEND"]["wredis"] == 1
    assert rows["s1"]["wretr"] == 1 and rows["BACKEND"]["wretr"] == 1
    assert rows["s2"]["hrsp_2xx"] == 1


def test_empty_response_retried_on_same_server(proxy, raw_server, tmp_path):
    def flaky(s, rd, idx):
        if idx <= 2:
            return close_at_once(s, rd, idx)
        return answer(200, "s1")(s, rd, idx)
    s1 = raw_server(flaky, "s1")
    port, sock = start(proxy, tmp_path, [("s1", s1)], ["retries 3", "retry-on empty-response"])
    r = get(port, "/b")
    assert r.status == 200 and r.header("x-server") == "s1"
    assert s1.count == 3
    rows = stat_rows(sock)
    # two retries, each counted twice by HAProxy 2.6 (the retry, then the reconnection)
    assert rows["s1"]["wretr"] == 4 and rows["BACKEND"]["wretr"] == 4
    assert rows["BACKEND"]["wredis"] == 0


def test_retries_exhausted_answer_the_last_response(proxy, raw_server, tmp_path):
    s1 = raw_server(answer(503, "s1"), "s1")
    port, sock = start(proxy, tmp_path, [("s1", s1)], ["retries 2", "retry-on 503"])
    r = get(port, "/c")
    assert r.status == 503 and r.header("x-server") == "s1"  # the server's own 503
    assert s1.count == 3
    assert stat_rows(sock)["BACKEND"]["wretr"] == 4


def test_junk_response_retried(proxy, raw_server, tmp_path):
    s1 = raw_server(junk, "s1")
    s2 = raw_server(answer(200, "s2"), "s2")
    port, sock = start(proxy, tmp_path, [("s1", s1), ("s2", s2)],
                       ["balance first", "retries 1", "option redispatch",
                        "retry-on junk-response"])
    r = get(port, "/d")
    assert r.status == 200 and r.header("x-server") == "s2"


def test_response_timeout_retried(proxy, raw_server, tmp_path):
    def slow_first(s, rd, idx):
        if idx == 1:
            read_request(rd)
            rd.read_some(1)  # until the proxy gives up
            return
        return answer(200, "s1")(s, rd, idx)
    s1 = raw_server(slow_first, "s1")
    port, sock = start(proxy, tmp_path, [("s1", s1)],
                       ["timeout server 300ms", "retry-on response-timeout"])
    r = get(port, "/e")
    assert r.status == 200 and s1.count == 2


def test_without_retry_on_an_empty_response_is_502(proxy, raw_server, tmp_path):
    s1 = raw_server(close_at_once, "s1")
    port, sock = start(proxy, tmp_path, [("s1", s1)], ["retries 3"])
    r = get(port, "/f")
    assert r.status == 502 and s1.count == 1
    assert stat_rows(sock)["BACKEND"]["wretr"] == 0


def test_status_not_listed_is_not_retried(proxy, raw_server, tmp_path):
    s1 = raw_server(answer(500, "s1"), "s1")
    port, sock = start(proxy, tmp_path, [("s1", s1)], ["retries 3", "retry-on 503 504"])
    r = get(port, "/g")
    assert r.status == 500 and s1.count == 1


def test_retry_on_without_conn_failure_does_not_retry_connections(proxy, tmp_path):
    port, dead = free_port(), free_port()
    sock = tmp_path / "stats.sock"
    cfg = make_cfg(port, [("s1", dead)], glob=["stats socket %s level admin" % sock],
                   listen=["retries 3", "retry-on 503"])
    proxy(cfg, ports=[port])
    r = get(port, "/h")
    assert r.status == 503
    rows = stat_rows(sock)
    assert rows["BACKEND"]["wretr"] == 0 and rows["s1"]["econ"] == 1


def test_default_retries_connections(proxy, tmp_path):
    port, dead = free_port(), free_port()
    sock = tmp_path / "stats.sock"
    cfg = make_cfg(port, [("s1", dead)], glob=["stats socket %s level admin" % sock],
                   listen=["retries 2", "timeout connect 100ms"])
    proxy(cfg, ports=[port])
    r = get(port, "/i")
    assert r.status == 503
    assert stat_rows(sock)["BACKEND"]["wretr"] == 2


def cfg_err(tmp_path, line):
    p = tmp_path / "t.cfg"
    p.write_text("defaults\n mode http\n timeout client 1s\n timeout server 1s\n"
                 " timeout connect 1s\nbackend b\n %s\n server s1 127.0.0.1:1\n" % line)
    r = run_haproxy(["-c", "-f", str(p)])
    return r.returncode, r.stdout + r.stderr


def test_config_errors(tmp_path):
    rc, out = cfg_err(tmp_path, "retry-on foo")
    assert rc != 0 and "t.cfg:7] : 'retry-on': unknown keyword 'foo'" in out
    rc, out = cfg_err(tmp_path, "retry-on none 503")
    assert rc != 0 and "'none' keyworld only usable alone" in out
    rc, out = cfg_err(tmp_path, "retry-on")
    assert rc != 0 and "needs at least one keyword" in out
    rc, out = cfg_err(tmp_path, "retry-on all-retryable-errors 404 408 425 501")
    assert "ALERT" not in out, out


def echo_body(name):
    """Answers 200 with the request's body (content-length or chunked) as its own."""
    from rawserver import read_head

    def h(s, rd, idx):
        head, cl, chunked = read_head(rd)
        body = b""
        if chunked:
            for _ in range(10000):
                size = int(rd.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while rd.readline() not in (b"\r\n", b"\n"):
                        pass
                    break
                body += rd.read_exact(size + 2)[:-2]
        elif cl:
            body = rd.read_exact(cl)
        s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nX-Server: %s\r\n\r\n"
                  % (len(body), name.encode()) + body)
    return h


def post(port, body, chunked=False):
    if chunked:
        framing, payload = "Transfer-Encoding: chunked", (
            b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))
    else:
        framing, payload = "Content-Length: %d" % len(body), body
    raw = ("POST /p HTTP/1.1\r\nHost: test\r\n%s\r\nConnection: close\r\n\r\n"
           % framing).encode() + payload
    return httpc.request(port, raw, method="POST", timeout=10)


def test_post_with_small_body_retried_with_its_body(proxy, raw_server, tmp_path):
    """A request whose whole body is in the buffer is replayed after an empty response:
    the second server receives the same body (content-length and chunked)."""
    s1 = raw_server(close_at_once, "s1")
    s2 = raw_server(echo_body("s2"), "s2")
    port, sock = start(proxy, tmp_path, [("s1", s1), ("s2", s2)],
                       ["balance first", "retries 1", "option redispatch",
                        "retry-on empty-response"])
    body = b"name=value&" + b"x" * 3000
    r = post(port, body)
    assert r.status == 200 and r.header("x-server") == "s2" and r.body == body
    r = post(port, b"chunked body", chunked=True)
    assert r.status == 200 and r.header("x-server") == "s2" and r.body == b"chunked body"
    assert s1.count == 2 and s2.count == 2


def test_post_with_body_bigger_than_the_buffer_is_not_retried(proxy, raw_server, tmp_path):
    """A body that cannot be all in the buffer is forwarded as it comes and the request is
    not retried: the empty response becomes a 502, and the second server sees nothing."""
    s1 = raw_server(close_at_once, "s1")
    s2 = raw_server(echo_body("s2"), "s2")
    port, sock = start(proxy, tmp_path, [("s1", s1), ("s2", s2)],
                       ["balance first", "retries 1", "option redispatch",
                        "retry-on empty-response"])
    r = post(port, b"y" * 65536)
    assert r.status == 502 and s1.count == 1 and s2.count == 0


def test_retried_post_then_next_request_on_the_same_connection(proxy, raw_server, tmp_path):
    """After a replayed POST, the kept body leaves the client's buffer: the next request
    of the keep-alive connection (sent at once, pipelined) is answered as itself."""
    from backend import Reader
    s1 = raw_server(close_at_once, "s1")
    s2 = raw_server(echo_body("s2"), "s2")
    port, sock = start(proxy, tmp_path, [("s1", s1), ("s2", s2)],
                       ["balance first", "retries 1", "option redispatch",
                        "retry-on empty-response"])
    raw = (b"POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello"
           b"POST /q HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\nConnection: close\r\n\r\nbye")
    with httpc.connect(port, 10) as c:
        c.sendall(raw)
        rd = Reader(c)
        r1 = httpc.read_response(rd, "POST")
        r2 = httpc.read_response(rd, "POST")
    assert (r1.status, r1.body, r2.status, r2.body) == (200, b"hello", 200, b"bye")
