#!/usr/bin/env python3
"""Benchmark helper: memory per idle proxied keep-alive connection and the time to serve a
burst of new connections.

  idleconns.py HOST PORT N PID

Reads the proxy's RSS (VmRSS of PID), then opens N connections at once (non-blocking
connects, all started before any answer is read), sends one keep-alive GET on each as soon
as it is connected, and waits until every response is complete: that is the burst time.
The N connections then stay open and idle (so do the proxy's connections to the servers
they went through); after SETTLE_S (2 s) the RSS is read again. Prints one line:

  conns=N burst_s=T rss_before_kib=A rss_after_kib=B bytes_per_conn=X

Everything is bounded: 60 s for the burst, then exit 1 with what was missing. The caller
raises `ulimit -n` above N.
"""
import selectors
import socket
import sys
import time

REQ = b"GET / HTTP/1.1\r\nHost: bench.local\r\nUser-Agent: idleconns\r\n\r\n"
BURST_LIMIT_S = 60.0
SETTLE_S = 2.0


def rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS for pid %d" % pid)


def response_done(buf):
    """True once buf holds one complete content-length response."""
    head, sep, rest = buf.partition(b"\r\n\r\n")
    if not sep:
        return False
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    return len(rest) >= length


def burst(host, port, n):
    """Opens n connections, one request each; returns (seconds, sockets kept open)."""
    sel = selectors.DefaultSelector()
    socks, bufs = [], {}
    t0 = time.monotonic()
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.connect_ex((host, port))
        sel.register(s, selectors.EVENT_WRITE)
        socks.append(s)
        bufs[s] = None          # None: request not sent yet
    pending = n
    deadline = t0 + BURST_LIMIT_S
    while pending and time.monotonic() < deadline:
        for key, ev in sel.select(timeout=1.0):
            s = key.fileobj
            if bufs[s] is None:
                err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    raise RuntimeError("connect failed: errno %d" % err)
                s.send(REQ)
                bufs[s] = b""
                sel.modify(s, selectors.EVENT_READ)
                continue
            chunk = s.recv(65536)
            if not chunk:
                raise RuntimeError("connection closed before its response")
            bufs[s] += chunk
            if response_done(bufs[s]):
                if not bufs[s].startswith(b"HTTP/1.1 200"):
                    raise RuntimeError("unexpected response %r" % bufs[s][:40])
                sel.unregister(s)
                pending -= 1
    elapsed = time.monotonic() - t0
    sel.close()
    if pending:
        raise RuntimeError("%d of %d responses missing after %.0f s" %
                           (pending, n, BURST_LIMIT_S))
    return elapsed, socks


def main():
    if len(sys.argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    host, port, n, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    before = rss_kib(pid)
    try:
        secs, socks = burst(host, port, n)
    except (RuntimeError, OSError) as e:
        sys.stderr.write("idleconns: %s\n" % e)
        return 1
    time.sleep(SETTLE_S)
    after = rss_kib(pid)
    print("conns=%d burst_s=%.3f rss_before_kib=%d rss_after_kib=%d bytes_per_conn=%.0f" %
          (n, secs, before, after, (after - before) * 1024.0 / n))
    for s in socks:
        s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
