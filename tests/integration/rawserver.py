"""Raw test origins: a tiny server whose every connection runs a handler with the socket,
a Reader and the connection's index, for server behaviours backend.py does not offer
(early answers, broken framing, closing at chosen moments), and server-side helpers to
read requests.
"""

import socket
import threading

from backend import ConnClosed, Reader


def read_head(rd):
    """Server side: read one request head; return (bytes, content-length or None, chunked)."""
    lines = []
    for _ in range(500):
        ln = rd.readline()
        lines.append(ln)
        if ln in (b"\r\n", b"\n"):
            break
    head = b"".join(lines)
    cl, chunked = None, False
    for ln in lines[1:]:
        k, _, v = ln.partition(b":")
        if k.strip().lower() == b"content-length":
            cl = int(v.strip())
        if k.strip().lower() == b"transfer-encoding" and b"chunked" in v.lower():
            chunked = True
    return head, cl, chunked


def skip_chunked(rd):
    for _ in range(1 << 20):
        size = int(rd.readline().split(b";")[0].strip(), 16)
        if size == 0:
            while rd.readline() not in (b"\r\n", b"\n"):
                pass
            return
        rd.read_exact(size + 2)


def read_request(rd):
    """Server side: read one whole request (head + body); return the head."""
    head, cl, chunked = read_head(rd)
    if chunked:
        skip_chunked(rd)
    elif cl:
        rd.read_exact(cl)
    return head


class RawServer:
    """A tiny origin whose every connection runs handler(sock, reader, conn_index)."""

    def __init__(self, handler, name="r1"):
        self.name = name
        self.handler = handler
        self.lsock = socket.socket()
        self.lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.lsock.bind(("127.0.0.1", 0))
        self.lsock.listen(1024)
        self.lsock.settimeout(0.1)
        self.port = self.lsock.getsockname()[1]
        self.stopping = False
        self.conns = []
        self.threads = []
        self.count = 0
        self.events = []
        self.lock = threading.Lock()
        self.acceptor = threading.Thread(target=self._loop, daemon=True)
        self.acceptor.start()

    def _loop(self):
        while not self.stopping:
            try:
                s, _ = self.lsock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                self.count += 1
                self.conns.append(s)
                t = threading.Thread(target=self._run, args=(s, self.count), daemon=True)
                self.threads.append(t)
            t.start()

    def _run(self, s, idx):
        s.settimeout(10)
        try:
            self.handler(s, Reader(s), idx)
        except (OSError, ConnClosed, ValueError):
            pass
        finally:
            try:
                s.close()
            except OSError:
                pass

    def note(self, ev):
        with self.lock:
            self.events.append(ev)

    def stop(self):
        self.stopping = True
        self.acceptor.join(timeout=2)
        self.lsock.close()
        with self.lock:
            conns = list(self.conns)
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        for t in list(self.threads):
            t.join(timeout=2)
