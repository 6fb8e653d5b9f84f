#!/usr/bin/env python3
"""Benchmark helper: a keep-alive HTTP/1.1 client for fixed-count runs (callgrind), and a
port waiter. Not a load generator: it sends requests one after the other on one connection.

  kaclient.py run HOST PORT N      send N GET requests on one connection, check each is 200
  kaclient.py wait HOST PORT SECS  wait until HOST:PORT accepts connections (exit 1 on timeout)
"""
import socket
import sys
import time

REQ = b"GET / HTTP/1.1\r\nHost: bench.local\r\nUser-Agent: kaclient\r\n\r\n"


def read_response(sock, buf):
    """Reads one content-length response from sock; returns the bytes left over."""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("connection closed while reading headers")
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    if not lines[0].startswith(b"HTTP/1.1 200"):
        raise RuntimeError("unexpected status line: %r" % lines[0])
    length = None
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    if length is None:
        raise RuntimeError("response without content-length")
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError("connection closed while reading body")
        rest += chunk
    return rest[length:]


def run(host, port, count):
    if count == 0:
        return 0
    sock = socket.create_connection((host, port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buf = b""
    for _ in range(count):
        sock.sendall(REQ)
        buf = read_response(sock, buf)
    sock.close()
    return 0


def wait(host, port, secs):
    deadline = time.monotonic() + secs
    while time.monotonic() < deadline:
        try:
            socket.create_connection((host, port), timeout=1).close()
            return 0
        except OSError:
            time.sleep(0.05)
    return 1


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("run", "wait"):
        sys.stderr.write(__doc__)
        return 2
    host, port, num = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    if sys.argv[1] == "run":
        return run(host, port, int(num))
    return wait(host, port, float(num))


if __name__ == "__main__":
    sys.exit(main())
