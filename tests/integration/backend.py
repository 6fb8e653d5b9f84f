"""Threaded HTTP/1.1 origin server used as the proxy's backend in the integration tests.

Owns: accepting connections, parsing requests (keep-alive, pipelining, content-length and
chunked bodies, Expect: 100-continue), recording what it received, and answering with the
behaviour the request's query string asks for. It does not know about the proxy.

Query parameters understood (all optional):
  size=N          response body of N bytes of the shared pattern (default: a short hello line)
  framing=F       cl (default) | chunked | close (close-delimited, no length)
  trailers=1      with framing=chunked, send a trailer "X-Trailer: done"
  status=N        response status (204/304 and HEAD get no body)
  delay=S         sleep S seconds before answering (float)
  action=A        close (close without answering) | garbage (send non-HTTP bytes and close)
  echo=1          echo the request body back (bodies up to ECHO_LIMIT)
  hdr=Name:Value  add a response header (repeatable)
  nocontinue=1    do not send "100 Continue" on Expect: 100-continue
Every response carries X-Server (the backend's name), X-Conn (connection serial),
X-Req-Index (request number on that connection), X-Body-Len and X-Body-Sha256 (of the
request body). An "Upgrade: websocket" request gets 101 and an RFC 6455 echo loop.
"""

import base64
import collections
import functools
import hashlib
import socket
import struct
import threading
import time
import urllib.parse

BLOCK = bytes(range(256)) * 4096          # 1 MiB repeating pattern for large bodies
ECHO_LIMIT = 64 * 1024 * 1024
KEEP_BODY = 1024 * 1024                   # request bodies kept in memory up to this size
WS_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
IO_TIMEOUT = 120.0


def pattern_chunks(n, step=len(BLOCK)):
    """Yield the first n bytes of the shared pattern in pieces of at most step bytes."""
    off = 0
    while off < n:
        take = min(step, n - off)
        yield memoryview(BLOCK)[:take]
        off += take


@functools.lru_cache(maxsize=16)
def pattern_sha256(n):
    """SHA-256 hex digest of the first n bytes of the pattern."""
    h = hashlib.sha256()
    for c in pattern_chunks(n):
        h.update(c)
    return h.hexdigest()


class ConnClosed(Exception):
    pass


class Reader:
    """Buffered reader over a socket: lines, exact lengths, and pieces for streaming."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = bytearray()

    def _fill(self):
        data = self.sock.recv(1 << 20)
        if not data:
            raise ConnClosed()
        self.buf += data

    def readline(self, limit=65536):
        """Return one line including its LF (CRLF or bare LF accepted)."""
        for _ in range(1 << 20):
            i = self.buf.find(b"\n")
            if i >= 0:
                line = bytes(self.buf[:i + 1])
                del self.buf[:i + 1]
                return line
            if len(self.buf) > limit:
                raise ValueError("line too long")
            self._fill()
        raise ValueError("line never ended")

    def read_some(self, maxlen):
        if not self.buf:
            self._fill()
        take = bytes(self.buf[:maxlen])
        del self.buf[:len(take)]
        return take

    def read_exact(self, n):
        out = bytearray()
        while len(out) < n:
            out += self.read_some(n - len(out))
        return bytes(out)


class Request:
    """What the backend received: request line, headers (case kept), body digest."""

    def __init__(self):
        self.method = self.target = self.version = ""
        self.path = ""
        self.query = {}
        self.headers = []
        self.raw_head = b""
        self.body = b""
        self.body_len = 0
        self.body_sha = hashlib.sha256().hexdigest()
        self.chunked = False
        self.trailers = []
        self.conn_id = 0
        self.index = 0

    def header(self, name):
        """First value of header name (case-insensitive), or None."""
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None

    def header_all(self, name):
        return [v for k, v in self.headers if k.lower() == name.lower()]

    def q(self, name, default=None):
        vals = self.query.get(name)
        return vals[0] if vals else default


class Backend:
    """A listening test origin on 127.0.0.1. start() then stop(); records requests."""

    def __init__(self, name="s1", port=0, backlog=128, host="127.0.0.1"):
        self.name = name
        self.lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind((host, port))
        self.lsock.listen(backlog)
        self.lsock.settimeout(0.2)
        self.port = self.lsock.getsockname()[1]
        self.requests = collections.deque(maxlen=20000)
        self.conn_count = 0
        self.active = 0          # requests being answered right now
        self.max_active = 0      # highest value of `active` seen
        self.lock = threading.Lock()
        self.stopping = False
        self.conns = set()
        self.threads = []
        self.acceptor = threading.Thread(target=self._accept_loop, daemon=True)

    def start(self):
        self.acceptor.start()
        return self

    def stop(self):
        self.stopping = True
        self.acceptor.join(timeout=5)
        self.lsock.close()
        with self.lock:
            conns = list(self.conns)
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for t in list(self.threads):
            t.join(timeout=5)

    def last(self):
        return self.requests[-1] if self.requests else None

    def _accept_loop(self):
        while not self.stopping:
            try:
                s, _ = self.lsock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                self.conn_count += 1
                cid = self.conn_count
                self.conns.add(s)
                self.threads = [t for t in self.threads if t.is_alive()]
                t = threading.Thread(target=self._serve, args=(s, cid), daemon=True)
                self.threads.append(t)
            t.start()

    def _serve(self, s, cid):
        s.settimeout(IO_TIMEOUT)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        rd = Reader(s)
        try:
            for idx in range(1, 1 << 30):
                if self.stopping:
                    break
                req = self._read_head(rd, cid, idx)
                if req is None:
                    break
                if not self._handle(s, rd, req):
                    break
        except (ConnClosed, OSError, ValueError):
            pass
        finally:
            with self.lock:
                self.conns.discard(s)
            try:
                s.close()
            except OSError:
                pass

    def _read_head(self, rd, cid, idx):
        req = Request()
        req.conn_id, req.index = cid, idx
        try:
            line = rd.readline()
        except ConnClosed:
            return None
        raw = [line]
        parts = line.decode("latin-1").strip().split(" ")
        if len(parts) != 3:
            raise ValueError("bad request line")
        req.method, req.target, req.version = parts
        u = urllib.parse.urlsplit(req.target)
        req.path = u.path
        req.query = urllib.parse.parse_qs(u.query)
        for _ in range(1000):
            line = rd.readline()
            raw.append(line)
            if line in (b"\r\n", b"\n"):
                break
            k, _, v = line.decode("latin-1").partition(":")
            req.headers.append((k, v.strip()))
        req.raw_head = b"".join(raw)
        return req

    def _read_body(self, s, rd, req):
        h = hashlib.sha256()
        kept = bytearray()
        total = 0

        def take(data):
            nonlocal total
            h.update(data)
            total += len(data)
            if len(kept) < max(KEEP_BODY, ECHO_LIMIT if req.q("echo") else 0):
                kept.extend(data)

        te = (req.header("Transfer-Encoding") or "").lower()
        if (req.header("Expect") or "").lower() == "100-continue" and not req.q("nocontinue"):
            s.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        if te.endswith("chunked"):
            req.chunked = True
            for _ in range(1 << 40):
                size = int(rd.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    break
                left = size
                while left:
                    data = rd.read_some(min(left, 1 << 20))
                    take(data)
                    left -= len(data)
                rd.readline()
            for _ in range(1000):
                line = rd.readline()
                if line in (b"\r\n", b"\n"):
                    break
                k, _, v = line.decode("latin-1").partition(":")
                req.trailers.append((k, v.strip()))
        elif req.header("Content-Length") is not None:
            left = int(req.header("Content-Length").split(",")[0])
            while left:
                data = rd.read_some(min(left, 1 << 20))
                take(data)
                left -= len(data)
        req.body = bytes(kept)
        req.body_len = total
        req.body_sha = h.hexdigest()

    def _wants_close(self, req):
        conn = (req.header("Connection") or "").lower()
        if "close" in conn:
            return True
        if req.version == "HTTP/1.0" and "keep-alive" not in conn:
            return True
        return False

    def _handle(self, s, rd, req):
        """Answer one request; return False when the connection must end."""
        is_ws = (req.header("Upgrade") or "").lower() == "websocket"
        if not is_ws:
            self._read_body(s, rd, req)
        self.requests.append(req)
        with self.lock:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        return self._answer(s, rd, req, is_ws)

    def _done(self):
        """The request is no longer counted as active: called before the response is
        sent, so that a client can only start another one after this."""
        with self.lock:
            self.active -= 1

    def max_concurrency(self):
        """Most requests this backend was answering at the same time."""
        with self.lock:
            return self.max_active

    def _answer(self, s, rd, req, is_ws):
        delay = float(req.q("delay", "0"))
        if delay:
            time.sleep(delay)
        self._done()
        action = req.q("action")
        if action == "close":
            return False
        if action == "garbage":
            s.sendall(b"this is not HTTP at all\r\n\r\n")
            return False
        if is_ws:
            ws_serve(s, rd, req)
            return False
        return self._respond(s, req)

    def _respond(self, s, req):
        status = int(req.q("status", "200"))
        framing = req.q("framing", "cl")
        close = self._wants_close(req) or framing == "close"
        if req.q("echo"):
            body_len, chunks = len(req.body), [req.body]
        elif req.q("size") is not None:
            body_len = int(req.q("size"))
            chunks = pattern_chunks(body_len)
        else:
            body = ("hello from %s\n" % self.name).encode()
            body_len, chunks = len(body), [body]
        no_body = req.method == "HEAD" or status in (204, 304) or status < 200
        hdrs = [
            "HTTP/1.1 %d %s" % (status, REASONS.get(status, "Other")),
            "X-Server: %s" % self.name,
            "X-Conn: %d" % req.conn_id,
            "X-Req-Index: %d" % req.index,
            "X-Body-Len: %d" % req.body_len,
            "X-Body-Sha256: %s" % req.body_sha,
            "Content-Type: text/plain",
        ]
        for extra in req.query.get("hdr", []):
            hdrs.append(extra)
        if status not in (204, 304) and status >= 200:
            if framing == "chunked":
                hdrs.append("Transfer-Encoding: chunked")
                if req.q("trailers"):
                    hdrs.append("Trailer: X-Trailer")
            elif framing == "cl":
                hdrs.append("Content-Length: %d" % body_len)
        if close:
            hdrs.append("Connection: close")
        elif req.version == "HTTP/1.0":
            hdrs.append("Connection: keep-alive")
        s.sendall(("\r\n".join(hdrs) + "\r\n\r\n").encode("latin-1"))
        if no_body:
            return not close
        if framing == "chunked":
            for c in chunks:
                if len(c):
                    s.sendall(b"%x\r\n" % len(c))
                    s.sendall(c)
                    s.sendall(b"\r\n")
            tail = b"0\r\n"
            if req.q("trailers"):
                tail += b"X-Trailer: done\r\n"
            s.sendall(tail + b"\r\n")
        else:
            for c in chunks:
                s.sendall(c)
        if close:
            try:
                s.shutdown(socket.SHUT_WR)
            except OSError:
                pass
        return not close


REASONS = {100: "Continue", 101: "Switching Protocols", 200: "OK", 201: "Created",
           204: "No Content", 301: "Moved Permanently", 304: "Not Modified",
           400: "Bad Request", 403: "Forbidden", 404: "Not Found",
           500: "Internal Server Error", 503: "Service Unavailable"}


# ---- WebSocket (RFC 6455), minimal: used by the backend and by the tests' client side ----

def ws_accept_key(key):
    return base64.b64encode(hashlib.sha1(key.encode() + WS_GUID).digest()).decode()


def ws_send(sock, opcode, payload, mask):
    """Send one final frame; clients mask (mask=True), servers do not."""
    head = bytearray([0x80 | opcode])
    mbit = 0x80 if mask else 0
    n = len(payload)
    if n < 126:
        head.append(mbit | n)
    elif n < 65536:
        head.append(mbit | 126)
        head += struct.pack("!H", n)
    else:
        head.append(mbit | 127)
        head += struct.pack("!Q", n)
    if mask:
        key = bytes([0x37, 0xFA, 0x21, 0x3D])
        head += key
        payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
    sock.sendall(bytes(head) + payload)


def ws_recv(rd):
    """Read one frame from a Reader; return (opcode, payload, was_masked)."""
    b0, b1 = rd.read_exact(2)
    opcode = b0 & 0x0F
    masked = bool(b1 & 0x80)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack("!H", rd.read_exact(2))[0]
    elif n == 127:
        n = struct.unpack("!Q", rd.read_exact(8))[0]
    key = rd.read_exact(4) if masked else None
    payload = rd.read_exact(n)
    if masked:
        payload = bytes(b ^ key[i % 4] for i, b in enumerate(payload))
    return opcode, payload, masked


def ws_serve(s, rd, req):
    """Complete the handshake and echo text/binary frames until close."""
    key = req.header("Sec-WebSocket-Key") or ""
    s.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Accept: %s\r\n\r\n"
               % ws_accept_key(key)).encode())
    for _ in range(100000):
        opcode, payload, masked = ws_recv(rd)
        if not masked:
            ws_send(s, 0x8, struct.pack("!H", 1002), mask=False)
            return
        if opcode in (0x1, 0x2):
            ws_send(s, opcode, payload, mask=False)
        elif opcode == 0x9:
            ws_send(s, 0xA, payload, mask=False)
        elif opcode == 0x8:
            ws_send(s, 0x8, payload[:2], mask=False)
            return


if __name__ == "__main__":
    import sys
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    b = Backend(sys.argv[2] if len(sys.argv) > 2 else "s1", port).start()
    print("listening on", b.port, flush=True)
    try:
        for _ in range(36000):
            time.sleep(1)
    finally:
        b.stop()
