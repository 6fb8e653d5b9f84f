"""Runtime API: `show errors [<px>|-1] [request|response]`.

Owns: what the captures of invalid requests (frontend) and invalid responses (backend) show
an operator: the header lines, the error position, the escaped dump of the message, the
proxy and direction filters, and the answer for an unknown proxy.
"""

import re
import socket
import time

import pytest
from conftest import cli, free_port


def errs_cfg(sock, port, srv_port):
    return (
        "global\n"
        "    nbthread 2\n"
        "    stats socket %s level admin\n"
        "defaults\n"
        "    mode http\n"
        "    timeout connect 2s\n"
        "    timeout client 5s\n"
        "    timeout server 5s\n"
        "frontend fe1\n"
        "    bind 127.0.0.1:%d\n"
        "    default_backend be1\n"
        "backend be1\n"
        "    server s1 127.0.0.1:%d\n" % (sock, port, srv_port))


def send(port, data, timeout=3.0):
    """Sends <data>, returns what the proxy answers until it closes or the head is in."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as c:
        c.sendall(data)
        out = b""
        deadline = time.monotonic() + timeout
        while b"\r\n\r\n" not in out and time.monotonic() < deadline:
            try:
                d = c.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not d:
                break
            out += d
        return out


def bad_response_server(raw_server):
    def h(s, rd, idx):
        rd.readline()
        while rd.readline() not in (b"\r\n", b"\n"):
            pass
        s.sendall(b"HTTP/1.1 200 OK\r\nBad Header: x\r\nContent-Length: 0\r\n\r\n")
        time.sleep(0.5)
    return raw_server(h)


@pytest.fixture
def setup(tmp_path, proxy, raw_server):
    sock = str(tmp_path / "e.sock")
    port = free_port()
    srv = bad_response_server(raw_server)
    proxy(errs_cfg(sock, port, srv.port), ports=[port])
    return sock, port


def captures(text):
    """[(header line, body lines)] of a show errors output."""
    out = []
    for block in text.split("\n \n")[1:]:
        lines = block.rstrip("\n").split("\n")
        out.append((lines[0], lines[1:]))
    return out


def test_nothing_captured(setup):
    sock, _ = setup
    out = cli(sock, "show errors")
    assert re.match(r"^Total events captured on \[\d\d/\w{3}/\d{4}:\d\d:\d\d:\d\d\.\d{3}\] : 0\n\n$",
                    out), out


def test_bad_method_capture(setup):
    sock, port = setup
    c = socket.create_connection(("127.0.0.1", port))
    src = c.getsockname()[1]
    c.close()
    assert send(port, b"G@T / HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 400")
    out = cli(sock, "show errors")
    assert out.startswith("Total events captured on [")
    assert out.splitlines()[0].endswith(" : 1")
    (head, body), = captures(out)
    assert re.match(r"^\[[^]]+\] frontend fe1 \(#\d+\): invalid request$", head), head
    assert re.match(r"^  backend <NONE> \(#-1\), server <NONE> \(#-1\), event #0, "
                    r"src 127\.0\.0\.1:\d+$", body[0]), body[0]
    assert body[1] == "  buffer starts at 0 (including 0 out), 16357 free,"
    assert re.match(r"^  len 27, wraps at \d+, error at position 1$", body[2]), body[2]
    assert "  H1 msg state MSG_RQMETH(2)" in "\n".join(body)
    assert body[-3:] == ["  00000  G@T / HTTP/1.1\\r\\n", "  00016  Host: x\\r\\n",
                         "  00025  \\r\\n"]
    assert src  # the capture names the client of the failed request (its port is new)


def test_bad_header_char_offset(setup):
    sock, port = setup
    assert send(port, b"GET / HTTP/1.1\r\nHost: x\r\nBad\x01h: y\r\n\r\n").startswith(
        b"HTTP/1.1 400")
    (head, body), = captures(cli(sock, "show errors fe1"))
    assert "error at position 28" in body[2]
    assert "  H1 msg state MSG_HDR_NAME(17)" in "\n".join(body)
    assert "  00025  Bad\\x01h: y\\r\\n" in body


def test_long_line_dump_is_cut(setup):
    sock, port = setup
    req = b"GET /" + b"a" * 150 + b" HTTP/1.1\r\nHost: x\r\nX\x01: y\r\n\r\n"
    send(port, req)
    (head, body), = captures(cli(sock, "show errors -1 request"))
    dump = [l for l in body if re.match(r"^  \d{5}[ +] ", l)]
    assert dump[0] == "  00000  GET /" + "a" * 65
    assert dump[1] == "  00070+ " + "a" * 70
    assert dump[2] == "  00140+ " + "a" * 15 + " HTTP/1.1\\r\\n"
    assert all(len(l) <= 79 for l in dump)


def test_oversized_request(setup):
    sock, port = setup
    big = b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 20000 + b"\r\n\r\n"
    rsp = send(port, big)
    assert rsp.startswith(b"HTTP/1.1 4")
    (head, body), = captures(cli(sock, "show errors"))
    assert head.endswith("frontend fe1 (#2): invalid request")
    m = re.match(r"^  len (\d+), wraps at \d+, error at position (\d+)$", body[2])
    assert m and int(m.group(1)) <= 16384 and int(m.group(2)) <= int(m.group(1))


def test_bad_response_under_backend(setup):
    sock, port = setup
    assert send(port, b"GET / HTTP/1.1\r\nHost: x\r\n\r\n").startswith(b"HTTP/1.1 502")
    out = cli(sock, "show errors be1 response")
    (head, body), = captures(out)
    assert re.match(r"^\[[^]]+\] backend be1 \(#3\): invalid response$", head), head
    assert re.match(r"^  frontend fe1 \(#2\), server s1 \(#1\), event #\d+, src 127\.0\.0\.1:\d+$",
                    body[0]), body[0]
    assert "error at position 20" in body[2]
    assert "  00017  Bad Header: x\\r\\n" in body
    # the frontend's request captures are not responses
    assert captures(cli(sock, "show errors fe1 request")) == []
    # a frontend selects the responses whose client side it was
    assert len(captures(cli(sock, "show errors fe1"))) == 1


def test_last_capture_per_proxy_and_total(setup):
    sock, port = setup
    send(port, b"G@T / HTTP/1.1\r\nHost: x\r\n\r\n")
    send(port, b"GET / HTTP/1.1\r\nHost: x\r\nBad\x01h: y\r\n\r\n")
    out = cli(sock, "show errors")
    assert out.splitlines()[0].endswith(" : 2")
    (head, body), = captures(out)
    assert "event #1," in body[0] and "error at position 28" in body[2]


def test_unknown_proxy(setup):
    sock, _ = setup
    assert cli(sock, "show errors nope") == "No such proxy.\n\n"
