"""A tiny UDP DNS server for tests: answers A queries from a dict the test changes
(name -> list of IPv4 strings), NXDOMAIN for names it does not know, an empty NOERROR
answer to other types. `garbage` makes it answer random bytes instead; `silent` makes it
drop queries. It runs in a thread with a bounded socket timeout and stops on stop()."""
import os
import socket
import struct
import threading


class DnsServer:
    def __init__(self, host="127.0.0.1", port=0):
        self.records = {}
        self.garbage = False
        self.silent = False
        self.queries = 0
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind((host, port))
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self._stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def stop(self):
        self._stop = True
        self.thread.join(timeout=2)
        self.sock.close()

    def _run(self):
        while not self._stop:
            try:
                data, peer = self.sock.recvfrom(4096)
            except socket.timeout:
                continue
            except OSError:
                return
            self.queries += 1
            if self.silent or len(data) < 12:
                continue
            if self.garbage:
                junk = data[:2] + os.urandom(30 + (self.queries % 200))
                self.sock.sendto(junk, peer)
                continue
            self.sock.sendto(self._answer(data), peer)

    def _answer(self, q):
        qid, = struct.unpack(">H", q[:2])
        pos, labels = 12, []
        while pos < len(q) and q[pos]:
            n = q[pos]
            labels.append(q[pos + 1:pos + 1 + n].decode("ascii", "replace"))
            pos += 1 + n
        qend = pos + 5
        name = ".".join(labels).lower()
        qtype, = struct.unpack(">H", q[pos + 1:pos + 3])
        question = q[12:qend]
        ips = self.records.get(name)
        if ips is None:
            return struct.pack(">HHHHHH", qid, 0x8183, 1, 0, 0, 0) + question
        ans = b""
        if qtype == 1:
            for ip in ips:
                ans += b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 1, 4) + socket.inet_aton(ip)
        n = len(ips) if qtype == 1 else 0
        return struct.pack(">HHHHHH", qid, 0x8180, 1, n, 0, 0) + question + ans
