"""PROXY protocol helpers for the integration tests (haproxy.org's proxy-protocol.txt).

Owns: building v1 lines and v2 headers (with TLVs and an optional CRC32C TLV) as a client or
a load balancer in front of the proxy sends them, parsing a header a recording server
receives (v1 or v2, TLVs, SSL sub-TLVs, the CRC32C check), and a server-side reader of it.
"""

import ipaddress
import socket
import struct
import time

SIG = b"\r\n\r\n\x00\r\nQUIT\n"

PP2_TYPE_ALPN = 0x01
PP2_TYPE_AUTHORITY = 0x02
PP2_TYPE_CRC32C = 0x03
PP2_TYPE_NOOP = 0x04
PP2_TYPE_UNIQUE_ID = 0x05
PP2_TYPE_SSL = 0x20
PP2_SUBTYPE_SSL_VERSION = 0x21
PP2_SUBTYPE_SSL_CN = 0x22
PP2_SUBTYPE_SSL_CIPHER = 0x23
PP2_SUBTYPE_SSL_SIG_ALG = 0x24
PP2_SUBTYPE_SSL_KEY_ALG = 0x25

PP2_CLIENT_SSL = 0x01
PP2_CLIENT_CERT_CONN = 0x02
PP2_CLIENT_CERT_SESS = 0x04


def _crc32c_table():
    t = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        t.append(c)
    return t


_CRC_T = _crc32c_table()


def crc32c(data):
    """CRC32C (Castagnoli), as the PP2_TYPE_CRC32C TLV carries it."""
    c = 0xFFFFFFFF
    for b in data:
        c = _CRC_T[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def v1(src=None, dst=None):
    """A v1 line: src/dst are (ip, port) tuples of one family, or None for UNKNOWN."""
    if src is None:
        return b"PROXY UNKNOWN\r\n"
    fam = "TCP6" if ":" in src[0] else "TCP4"
    return ("PROXY %s %s %s %d %d\r\n" % (fam, src[0], dst[0], src[1], dst[1])).encode()


def tlv(t, value):
    return struct.pack("!BH", t, len(value)) + value


def ssl_value(client, verify, subs=()):
    """The value of a PP2_TYPE_SSL TLV: client flags, verify result, then (subtype, bytes)
    sub-TLVs."""
    return struct.pack("!BI", client, verify) + b"".join(tlv(t, v) for t, v in subs)


def v2(src=None, dst=None, tlvs=(), local=False, crc=False, length=None, version=0x2):
    """A v2 header. src/dst (ip, port) of one family, or None (AF_UNSPEC); local: the LOCAL
    command; tlvs: (type, bytes) pairs; crc: append a CRC32C TLV computed over the whole
    header (placed last; or put (PP2_TYPE_CRC32C, None) in tlvs to place it there, as HAProxy
    sends it first); length: force the length field (to make it lie)."""
    cmd = (version << 4) | (0x0 if local else 0x1)
    if src is None:
        fam, addrs = 0x00, b""
    elif ":" in src[0]:
        fam = 0x21
        addrs = (ipaddress.IPv6Address(src[0]).packed + ipaddress.IPv6Address(dst[0]).packed
                 + struct.pack("!HH", src[1], dst[1]))
    else:
        fam = 0x11
        addrs = (ipaddress.IPv4Address(src[0]).packed + ipaddress.IPv4Address(dst[0]).packed
                 + struct.pack("!HH", src[1], dst[1]))
    tlvs = list(tlvs)
    if crc and (PP2_TYPE_CRC32C, None) not in tlvs:
        tlvs.append((PP2_TYPE_CRC32C, None))
    body = addrs + b"".join(tlv(t, b"\0\0\0\0" if v is None else v) for t, v in tlvs)
    n = len(body) if length is None else length
    hdr = SIG + bytes([cmd, fam]) + struct.pack("!H", n) + body
    if (PP2_TYPE_CRC32C, None) in tlvs:
        off = _tlv_offset(hdr, PP2_TYPE_CRC32C)
        hdr = hdr[:off] + struct.pack("!I", crc32c(hdr)) + hdr[off + 4:]
    return hdr


class Header:
    """A parsed header: version, command ('PROXY'/'LOCAL'), family ('TCP4', 'TCP6',
    'UNKNOWN', or the v2 family byte as int), src/dst (ip, port) or None, tlvs: list of
    (type, bytes), raw: the header's bytes."""

    def __init__(self):
        self.version = 0
        self.command = "PROXY"
        self.family = None
        self.src = self.dst = None
        self.tlvs = []
        self.raw = b""

    def tlv(self, t):
        for k, v in self.tlvs:
            if k == t:
                return v
        return None

    def ssl(self):
        """(client flags, verify, [(subtype, bytes)]) of the SSL TLV, or None."""
        v = self.tlv(PP2_TYPE_SSL)
        if v is None:
            return None
        client, verify = struct.unpack("!BI", v[:5])
        return client, verify, parse_tlvs(v[5:])

    def crc_ok(self):
        """True when the CRC32C TLV matches the header (None when there is none)."""
        off = _tlv_offset(self.raw, PP2_TYPE_CRC32C)
        if off is None:
            return None
        got = struct.unpack("!I", self.raw[off:off + 4])[0]
        zeroed = self.raw[:off] + b"\0\0\0\0" + self.raw[off + 4:]
        return crc32c(zeroed) == got

    def __repr__(self):
        return "Header(v%d %s %s %s %s tlvs=%r)" % (self.version, self.command, self.family,
                                                   self.src, self.dst, self.tlvs)


def parse_tlvs(b):
    out, i = [], 0
    while i + 3 <= len(b):
        t, n = struct.unpack("!BH", b[i:i + 3])
        if i + 3 + n > len(b):
            raise ValueError("TLV %#x overflows" % t)
        out.append((t, bytes(b[i + 3:i + 3 + n])))
        i += 3 + n
    if i != len(b):
        raise ValueError("trailing bytes after TLVs")
    return out


def _tlv_offset(raw, t):
    """Offset of the value of the first TLV of type t in a v2 header's raw bytes."""
    fam = raw[13]
    i = 16 + {0x11: 12, 0x21: 36, 0x31: 216}.get(fam, 0)
    while i + 3 <= len(raw):
        k, n = struct.unpack("!BH", raw[i:i + 3])
        if k == t:
            return i + 3
        i += 3 + n
    return None


def parse(data):
    """Parses the header at the start of data; returns (Header, rest) or raises ValueError
    (not a header, or incomplete)."""
    h = Header()
    if data.startswith(b"PROXY "):
        end = data.find(b"\r\n")
        if end < 0 or end + 2 > 107:
            raise ValueError("no v1 line end in %r" % data[:120])
        line = data[:end].decode("ascii")
        h.raw, h.version = data[:end + 2], 1
        f = line.split(" ")
        h.family = f[1]
        if f[1] != "UNKNOWN":
            if len(f) != 6:
                raise ValueError("bad v1 line %r" % line)
            h.src, h.dst = (f[2], int(f[4])), (f[3], int(f[5]))
        return h, data[end + 2:]
    if data.startswith(SIG):
        if len(data) < 16:
            raise ValueError("short v2 header")
        ver_cmd, fam, n = data[12], data[13], struct.unpack("!H", data[14:16])[0]
        if len(data) < 16 + n:
            raise ValueError("incomplete v2 header")
        h.raw, h.version = bytes(data[:16 + n]), ver_cmd >> 4
        h.command = "LOCAL" if ver_cmd & 0xF == 0 else "PROXY"
        h.family = fam
        body = data[16:16 + n]
        if fam == 0x11:
            h.src = (str(ipaddress.IPv4Address(body[0:4])), struct.unpack("!H", body[8:10])[0])
            h.dst = (str(ipaddress.IPv4Address(body[4:8])), struct.unpack("!H", body[10:12])[0])
            body = body[12:]
        elif fam == 0x21:
            h.src = (str(ipaddress.IPv6Address(body[0:16])),
                     struct.unpack("!H", body[32:34])[0])
            h.dst = (str(ipaddress.IPv6Address(body[16:32])),
                     struct.unpack("!H", body[34:36])[0])
            body = body[36:]
        elif fam == 0x31:
            body = body[216:]
        h.tlvs = parse_tlvs(body)
        return h, data[16 + n:]
    raise ValueError("not a PROXY header: %r" % data[:32])


def read_header(sock, timeout=5.0):
    """Server side: reads from sock until one whole header is there (bounded in time and
    size); returns (Header, bytes read after it)."""
    sock.settimeout(0.5)
    data, deadline = b"", time.monotonic() + timeout
    while time.monotonic() < deadline and len(data) < 4096:
        try:
            h, rest = parse(data)
            return h, rest
        except ValueError:
            pass
        try:
            d = sock.recv(4096)
        except socket.timeout:
            continue
        if not d:
            break
        data += d
    return parse(data)
