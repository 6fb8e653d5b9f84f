"""Raw-socket HTTP/1.1 client helpers for the integration tests.

Owns: connecting with timeouts, sending raw bytes, parsing responses exactly as received
(status, headers with their case, content-length / chunked / close-delimited bodies,
trailers, 1xx), and reading until the peer closes. Never follows redirects or retries.
"""

import socket
import time

from backend import ConnClosed, Reader

DEFAULT_TIMEOUT = 10.0


def connect(port, timeout=DEFAULT_TIMEOUT, host="127.0.0.1"):
    s = socket.create_connection((host, port), timeout=timeout)
    s.settimeout(timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


class Response:
    def __init__(self):
        self.version = ""
        self.status = 0
        self.reason = ""
        self.headers = []
        self.trailers = []
        self.body = b""
        self.body_len = 0
        self.raw_head = b""

    def header(self, name):
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None

    def header_all(self, name):
        return [v for k, v in self.headers if k.lower() == name.lower()]

    def has(self, name):
        return self.header(name) is not None

    def __repr__(self):
        return "<Response %d %r %r>" % (self.status, self.headers, self.body[:200])


def _read_head(rd):
    lines = []
    for _ in range(1000):
        line = rd.readline()
        lines.append(line)
        if line in (b"\r\n", b"\n"):
            break
    return lines


def read_response(rd, method="GET", sink=None, keep_1xx=False):
    """Parse one final response from a Reader (1xx are skipped unless keep_1xx).

    sink, if given, receives body pieces (e.g. a hashlib object's update) instead of the
    body being stored. Raises ConnClosed if the peer closes before a status line.
    """
    for _ in range(10):
        lines = _read_head(rd)
        r = Response()
        r.raw_head = b"".join(lines)
        first = lines[0].decode("latin-1").rstrip("\r\n")
        r.version, _, rest = first.partition(" ")
        code, _, r.reason = rest.partition(" ")
        r.status = int(code)
        for line in lines[1:-1]:
            k, _, v = line.decode("latin-1").partition(":")
            r.headers.append((k, v.strip()))
        if r.status >= 200 or r.status == 101 or keep_1xx:
            break
    body = bytearray()

    def take(data):
        r.body_len += len(data)
        if sink:
            sink(data)
        else:
            body.extend(data)

    te = (r.header("Transfer-Encoding") or "").lower()
    if method == "HEAD" or r.status in (204, 304) or r.status < 200:
        pass
    elif te.endswith("chunked"):
        for _ in range(1 << 40):
            size = int(rd.readline().split(b";")[0].strip(), 16)
            if size == 0:
                break
            left = size
            while left:
                d = rd.read_some(min(left, 1 << 20))
                take(d)
                left -= len(d)
            if rd.read_exact(2) != b"\r\n":
                raise ValueError("bad chunk end")
        for _ in range(1000):
            line = rd.readline()
            if line in (b"\r\n", b"\n"):
                break
            k, _, v = line.decode("latin-1").partition(":")
            r.trailers.append((k, v.strip()))
    elif r.header("Content-Length") is not None:
        left = int(r.header("Content-Length"))
        while left:
            d = rd.read_some(min(left, 1 << 20))
            take(d)
            left -= len(d)
    else:
        for _ in range(1 << 40):
            try:
                take(rd.read_some(1 << 20))
            except ConnClosed:
                break
    r.body = bytes(body)
    return r


def request(port, raw, method="GET", timeout=DEFAULT_TIMEOUT):
    """Open a connection, send raw bytes, return the first final response."""
    with connect(port, timeout) as s:
        s.sendall(raw)
        return read_response(Reader(s), method)


def get(port, path="/", headers=(), timeout=DEFAULT_TIMEOUT, version="HTTP/1.1"):
    hdrs = "".join("%s: %s\r\n" % h for h in headers)
    raw = ("GET %s %s\r\nHost: test\r\n%sConnection: close\r\n\r\n"
           % (path, version, hdrs)).encode()
    return request(port, raw, timeout=timeout)


def recv_until_close(sock, timeout, until=None):
    """Read until EOF/reset, until timeout seconds pass, or until `until` bytes arrived.

    Returns (data, closed): closed is True when the peer closed (EOF or RST), False when
    the time ran out with the connection still open.
    """
    deadline = time.monotonic() + timeout
    data = bytearray()
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return bytes(data), False
        sock.settimeout(left)
        try:
            d = sock.recv(65536)
        except socket.timeout:
            return bytes(data), False
        except (ConnectionResetError, BrokenPipeError):
            return bytes(data), True
        if not d:
            return bytes(data), True
        data += d
        if until is not None and len(data) >= until:
            return bytes(data), False


def exchange(port, raw, timeout=5.0, until=None):
    """Send raw bytes on a new connection; return (bytes received, closed by peer).

    Reads until the peer closes, timeout passes, or `until` bytes arrived."""
    with connect(port, timeout) as s:
        try:
            s.sendall(raw)
        except (ConnectionResetError, BrokenPipeError):
            pass
        return recv_until_close(s, timeout, until)


def parse_all(data, method="GET"):
    """Parse every complete response in data (a byte string read until close)."""
    class _Buf:
        def __init__(self, b):
            self.buf = bytearray(b)

        def recv(self, n):
            return b""

    rd = Reader(_Buf(data))
    rd.buf = bytearray(data)
    out = []
    for _ in range(10000):
        if not rd.buf:
            break
        try:
            out.append(read_response(rd, method))
        except ConnClosed:
            break
    return out
