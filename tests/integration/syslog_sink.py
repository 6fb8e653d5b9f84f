"""A UDP syslog receiver on 127.0.0.1 for the tests that read log lines: every read is
bounded in time."""
import re
import socket
import time

# "<PRI>Mmm dd hh:mm:ss host prog[pid]: " (RFC 3164, as the proxy sends it)
HDR = re.compile(rb"^<(\d+)>[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [^:]+\[\d+\]: ")


class Sink:
    def __init__(self):
        self.s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.s.bind(("127.0.0.1", 0))
        self.port = self.s.getsockname()[1]
        self.s.settimeout(0.2)

    def read(self, n=1, timeout=3.0):
        """Up to n (pri, text) messages, waiting at most timeout for all of them."""
        out, deadline = [], time.monotonic() + timeout
        while len(out) < n and time.monotonic() < deadline:
            try:
                d = self.s.recv(65536)
            except socket.timeout:
                continue
            m = HDR.match(d)
            assert m, d
            out.append((int(m.group(1)), d[m.end():].decode(errors="replace").rstrip("\n")))
        return out

    def drain(self, quiet=0.5):
        """Drops what came so far, waiting until nothing came for <quiet> seconds (3 s at
        most): the startup port probes of the test harness may log lines of their own."""
        deadline = time.monotonic() + 3
        last = time.monotonic()
        while time.monotonic() < deadline and time.monotonic() - last < quiet:
            try:
                self.s.recv(65536)
                last = time.monotonic()
            except socket.timeout:
                pass

    def close(self):
        self.s.close()
