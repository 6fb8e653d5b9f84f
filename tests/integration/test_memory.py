"""Memory per idle proxied keep-alive connection: a burst of clients, one request each
through the proxy to an origin, then idle. What the burst needed (buffers, streams) must go
back once it is over; what stays is the connections themselves.

Owns: the RSS growth per idle proxied connection (bench/run.sh measures the same against
HAProxy; HAProxy 2.6 keeps about 8 KB per connection here, so the test is `ours`).
"""

import resource
import selectors
import socket
import sys
import threading
import time

import pytest
from conftest import REPO, make_cfg

sys.path.insert(0, str(REPO / "bench"))
import idleconns  # noqa: E402

N = 1000
MAX_BYTES_PER_CONN = 3000   # was ~13 KB: a cached buffer per connection of the burst


class SelectOrigin:
    """One-thread keep-alive origin answering every request head with a 2-byte body, for
    as many connections as the test opens (the threaded test backend would need one
    thread per connection)."""

    RESP = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

    def __init__(self):
        self.ls = socket.socket()
        self.ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.ls.bind(("127.0.0.1", 0))
        self.ls.listen(4096)
        self.ls.setblocking(False)
        self.port = self.ls.getsockname()[1]
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.ls, selectors.EVENT_READ)
        self.bufs = {}
        self.stopping = False
        self.th = threading.Thread(target=self.run, daemon=True)
        self.th.start()

    def on_data(self, s):
        try:
            data = s.recv(65536)
        except OSError:
            data = b""
        if not data:
            self.sel.unregister(s)
            self.bufs.pop(s, None)
            s.close()
            return
        buf = self.bufs[s] + data
        while b"\r\n\r\n" in buf:     # requests without bodies only
            _, _, buf = buf.partition(b"\r\n\r\n")
            s.sendall(self.RESP)
        self.bufs[s] = buf

    def run(self):
        while not self.stopping:
            for key, _ in self.sel.select(timeout=0.2):
                if key.fileobj is self.ls:
                    for _ in range(256):
                        try:
                            c, _ = self.ls.accept()
                        except BlockingIOError:
                            break
                        c.setblocking(True)
                        self.bufs[c] = b""
                        self.sel.register(c, selectors.EVENT_READ)
                else:
                    self.on_data(key.fileobj)

    def stop(self):
        self.stopping = True
        self.th.join(timeout=5)
        for s in list(self.bufs):
            s.close()
        self.ls.close()
        self.sel.close()


@pytest.mark.ours
def test_idle_proxied_connections_memory(proxy, port):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 3 * N + 256:
        pytest.skip("needs %d file descriptors (hard limit %d)" % (3 * N + 256, hard))
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 3 * N + 256), hard))
    origin = SelectOrigin()
    try:
        p = proxy(make_cfg(port, [("s1", origin.port)], glob=["nbthread 1"]), ports=[port])
        # warm-up, so that the baseline includes what any first request sets up
        _, socks = idleconns.burst("127.0.0.1", port, 20)
        for s in socks:
            s.close()
        time.sleep(0.5)
        before = p.rss_kib()
        secs, socks = idleconns.burst("127.0.0.1", port, N)
        try:
            time.sleep(idleconns.SETTLE_S)
            per_conn = (p.rss_kib() - before) * 1024.0 / N
        finally:
            for s in socks:
                s.close()
        assert per_conn < MAX_BYTES_PER_CONN, "%.0f bytes per idle proxied connection" % per_conn
        assert p.alive()
    finally:
        origin.stop()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
