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


class TcpDnsServer(DnsServer):
    """The same answers over TCP (2-byte length prefix, RFC 7766), several queries per
    connection; `close_each` closes the connection after each answer. Counts connections
    and queries. Bounded: accept and recv time out every 0.1 s to see stop()."""

    def __init__(self, host="127.0.0.1", port=0):
        self.records = {}
        self.garbage = False
        self.silent = False
        self.close_each = False
        self.queries = 0
        self.conns = 0
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, port))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self._stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self._stop:
            try:
                c, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            self.conns += 1
            threading.Thread(target=self._serve, args=(c,), daemon=True).start()

    def _serve(self, c):
        c.settimeout(0.1)
        buf = b""
        try:
            while not self._stop:
                try:
                    data = c.recv(4096)
                except socket.timeout:
                    continue
                if not data:
                    return
                buf += data
                while len(buf) >= 2 and len(buf) >= 2 + struct.unpack(">H", buf[:2])[0]:
                    n, = struct.unpack(">H", buf[:2])
                    q, buf = buf[2:2 + n], buf[2 + n:]
                    self.queries += 1
                    if self.silent or len(q) < 12:
                        continue
                    a = self._answer(q)
                    c.sendall(struct.pack(">H", len(a)) + a)
                    if self.close_each:
                        return
        except OSError:
            return
        finally:
            c.close()
