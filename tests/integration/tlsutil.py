"""TLS helpers for the integration tests: a test PKI made with the openssl CLI, s_client runs
and HTTPS requests.

Owns: generating (once per test session, into a tmp dir, never committed) a root CA, a second
untrusted CA, RSA-2048 server certificates for a.test, b.test, c.test and *.wild.test, one
ECDSA P-256 certificate, client certificates signed by each CA, a CRL revoking one client
certificate; PEM bundles (cert+key+chain) and split forms (cert in X.pem, key in X.pem.key);
running `openssl s_client` bounded by a timeout and parsing what it prints; HTTPS requests
through Python's ssl module (SNI, client certificates, ALPN, the peer certificate seen).
"""

import os
import re
import socket
import ssl
import subprocess
import time

from backend import Reader
from httpc import read_response

OPENSSL = "openssl"
DAYS = "3650"

# serial numbers given to the certificates (hex, as the ssl_*_serial fetches print them)
SERIALS = {
    "ca": "01", "ca2": "02", "a": "0A01", "b": "0B01", "c": "0C01", "wild": "0D01",
    "ec": "0E01", "a2": "0A02", "client": "1001", "client_other": "2001", "client_rev": "1002",
    "srv": "0F01",
}


def _run(args, cwd, timeout=60):
    r = subprocess.run([OPENSSL] + args, cwd=cwd, capture_output=True, text=True,
                       timeout=timeout, stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise RuntimeError("openssl %s failed: %s" % (" ".join(args), r.stderr))
    return r.stdout


class Pki:
    """A directory of test certificates. For each name N: N.crt (certificate), N.key (key),
    N.pem (cert + key + issuing CA: the bundle), and split/N.pem (cert + chain) next to
    split/N.pem.key (the key alone)."""

    def __init__(self, d):
        self.dir = d
        os.makedirs(d, exist_ok=True)
        os.makedirs(os.path.join(d, "split"), exist_ok=True)
        self.subject = {}
        self._make_ca("ca", "hapx test root CA")
        self._make_ca("ca2", "hapx untrusted CA")
        for n, cn in (("a", "a.test"), ("b", "b.test"), ("c", "c.test"),
                      ("wild", "*.wild.test"), ("a2", "a.test")):
            self._make_leaf(n, cn, "ca", "rsa:2048", server=True,
                            org="hapx v2" if n == "a2" else "hapx")
        self._make_leaf("ec", "ec.test", "ca", "ec", server=True)
        # a server certificate for the origin servers (TLS to servers), CN srv.test
        self._make_leaf("srv", "srv.test", "ca", "rsa:2048", server=True,
                        extra_san=["DNS:a.test", "IP:127.0.0.1"])
        self._make_leaf("client", "client1", "ca", "rsa:2048", server=False)
        self._make_leaf("client_rev", "client-revoked", "ca", "rsa:2048", server=False)
        self._make_leaf("client_other", "client-other", "ca2", "rsa:2048", server=False)
        self._make_crl()
        # a CA file holding both CAs (for ca-file accepting either)
        with open(self.p("both-ca.crt"), "w") as f:
            f.write(self.read("ca.crt") + self.read("ca2.crt"))

    def p(self, name):
        return os.path.join(self.dir, name)

    def read(self, name):
        with open(self.p(name)) as f:
            return f.read()

    def _make_ca(self, n, cn):
        _run(["req", "-x509", "-newkey", "rsa:2048", "-noenc", "-keyout", n + ".key",
              "-out", n + ".crt", "-days", DAYS, "-subj", "/O=hapx tests/CN=" + cn,
              "-set_serial", "0x" + SERIALS[n],
              "-addext", "basicConstraints=critical,CA:TRUE",
              "-addext", "keyUsage=critical,keyCertSign,cRLSign"], self.dir)
        self.subject[n] = "/O=hapx tests/CN=" + cn

    def _make_leaf(self, n, cn, ca, alg, server, org="hapx", extra_san=()):
        subj = "/C=FR/O=%s/CN=%s" % (org, cn)
        newkey = alg
        if alg == "ec":
            newkey = "ec"
            keyargs = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]
        else:
            keyargs = ["-newkey", newkey]
        ext = ["-addext", "basicConstraints=CA:FALSE"]
        if server:
            ext += ["-addext", "subjectAltName=" + ",".join(["DNS:" + cn] + list(extra_san)),
                    "-addext", "extendedKeyUsage=serverAuth"]
        else:
            ext += ["-addext", "extendedKeyUsage=clientAuth"]
        _run(["req"] + keyargs + ["-noenc", "-keyout", n + ".key", "-out", n + ".crt",
                                  "-days", DAYS, "-subj", subj, "-set_serial",
                                  "0x" + SERIALS[n], "-CA", ca + ".crt", "-CAkey",
                                  ca + ".key"] + ext, self.dir)
        self.subject[n] = subj
        crt, key, chain = self.read(n + ".crt"), self.read(n + ".key"), self.read(ca + ".crt")
        with open(self.p(n + ".pem"), "w") as f:
            f.write(crt + key + chain)
        with open(self.p(os.path.join("split", n + ".pem")), "w") as f:
            f.write(crt + chain)
        with open(self.p(os.path.join("split", n + ".pem.key")), "w") as f:
            f.write(key)

    def _make_crl(self):
        """ca.crl: the root CA's CRL revoking client_rev (written with `openssl ca -gencrl`
        from an index file we write ourselves)."""
        cadir = self.p("cadb")
        os.makedirs(cadir, exist_ok=True)
        with open(os.path.join(cadir, "index.txt"), "w") as f:
            f.write("R\t351231000000Z\t250101000000Z\t%s\tunknown\t%s\n"
                    % (SERIALS["client_rev"], self.subject["client_rev"]))
        with open(os.path.join(cadir, "index.txt.attr"), "w") as f:
            f.write("unique_subject = no\n")
        with open(os.path.join(cadir, "crlnumber"), "w") as f:
            f.write("01\n")
        with open(os.path.join(cadir, "ca.cnf"), "w") as f:
            f.write("[ ca ]\ndefault_ca = c\n[ c ]\ndatabase = %s/index.txt\n"
                    "crlnumber = %s/crlnumber\ndefault_md = sha256\ndefault_crl_days = 3650\n"
                    % (cadir, cadir))
        _run(["ca", "-gencrl", "-config", os.path.join(cadir, "ca.cnf"), "-keyfile", "ca.key",
              "-cert", "ca.crt", "-out", "ca.crl"], self.dir)

    def sha1(self, n):
        """SHA-1 fingerprint of N.crt as upper-case hex without colons."""
        out = _run(["x509", "-in", n + ".crt", "-noout", "-fingerprint", "-sha1"], self.dir)
        return out.strip().split("=", 1)[1].replace(":", "").upper()

    def x509_field(self, n, opt):
        """`openssl x509 -noout OPT` output for N.crt (e.g. -enddate), value after '='."""
        out = _run(["x509", "-in", n + ".crt", "-noout", opt], self.dir)
        return out.strip().split("=", 1)[1]

    def der(self, n):
        out = subprocess.run([OPENSSL, "x509", "-in", self.p(n + ".crt"), "-outform", "DER"],
                             capture_output=True, timeout=30, check=True)
        return out.stdout


# ---------------------------------------------------------------- openssl s_client


class SClient:
    """What one `openssl s_client` run printed, parsed."""

    def __init__(self, proc_out, proc_err, rc):
        self.out = proc_out
        self.err = proc_err
        self.rc = rc
        self.text = proc_out + proc_err

    def _find(self, rx):
        m = re.search(rx, self.out, re.M)
        return m.group(1).strip() if m else None

    @property
    def subject(self):
        """The peer certificate's subject as s_client prints it ("C = FR, O = hapx, CN =
        a.test"), None without one."""
        return self._find(r"^subject=(.*)$")

    @property
    def cn(self):
        s = self.subject
        if s is None:
            return None
        m = re.search(r"CN = ([^,]+)", s)
        return m.group(1).strip() if m else None

    @property
    def protocol(self):
        return self._find(r"^\s*Protocol\s*:\s*(\S+)")

    @property
    def cipher(self):
        return self._find(r"^\s*Cipher\s*:\s*(\S+)")

    @property
    def alpn(self):
        """The ALPN protocol agreed, None if s_client printed "No ALPN negotiated"."""
        return self._find(r"^ALPN protocol: (\S+)")

    @property
    def reused(self):
        return re.search(r"^Reused, ", self.out, re.M) is not None

    @property
    def handshake_ok(self):
        """True when a session was established (s_client prints "New," or "Reused," with a
        real cipher, and a peer certificate or a resumed session)."""
        m = re.search(r"^(New|Reused), (\S+), Cipher is (\S+)", self.out, re.M)
        return bool(m) and m.group(3) != "(NONE)"

    @property
    def refused(self):
        """The handshake failed and s_client ended on its own (not by our timeout)."""
        return self.rc is not None and not self.handshake_ok

    @property
    def http_body(self):
        """What came after the HTTP response head, if a request was sent."""
        i = self.out.find("\r\n\r\n")
        return self.out[i + 4:] if i >= 0 else ""

    def header(self, name):
        m = re.search(r"^%s: ([^\r\n]*)\r?$" % re.escape(name), self.out, re.M | re.I)
        return m.group(1) if m else None

    def __repr__(self):
        return "<SClient rc=%s out=%r err=%r>" % (self.rc, self.out[-1500:], self.err[-800:])


def s_client(port, servername=None, args=(), request=None, host="127.0.0.1", timeout=5.0,
             sess_out=None, sess_in=None, alpn=None, tls=None, ciphersuites=None, cipher=None,
             cert=None, key=None, cafile=None):
    """Run `openssl s_client` against host:port; returns SClient.

    request: bytes sent once connected (s_client runs with -ign_eof and waits for the server
    to close, so TLS 1.3 tickets sent after the handshake are received); with request None
    a "Connection: close" GET / is sent; with b"" s_client leaves right after the handshake.
    tls: "1.2" or "1.3"."""
    cmd = [OPENSSL, "s_client", "-connect", "%s:%d" % (host, port)]
    if request != b"":
        cmd += ["-ign_eof"]
    if servername is not None:
        cmd += ["-servername", servername]
    else:
        cmd += ["-noservername"]
    if sess_out:
        cmd += ["-sess_out", str(sess_out)]
    if sess_in:
        cmd += ["-sess_in", str(sess_in)]
    if alpn:
        cmd += ["-alpn", alpn]
    if tls:
        cmd += ["-tls1_2" if tls == "1.2" else "-tls1_3"]
    if ciphersuites:
        cmd += ["-ciphersuites", ciphersuites]
    if cipher:
        cmd += ["-cipher", cipher]
    if cert:
        cmd += ["-cert", str(cert)]
    if key:
        cmd += ["-key", str(key)]
    if cafile:
        cmd += ["-CAfile", str(cafile)]
    cmd += list(args)
    if request is None:
        request = b"GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (
            (servername or "x").encode())
    try:
        r = subprocess.run(cmd, input=request, capture_output=True, timeout=timeout)
        return SClient(r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace"),
                       r.returncode)
    except subprocess.TimeoutExpired as e:
        return SClient((e.stdout or b"").decode(errors="replace"),
                       (e.stderr or b"").decode(errors="replace") + "\n<timeout>", None)


# ---------------------------------------------------------------- HTTPS through Python ssl


class TLSResult:
    """An HTTPS exchange: the response (httpc.Response) and what the TLS layer saw."""

    def __init__(self, resp, version, cipher, alpn, peer):
        self.resp = resp
        self.status = resp.status if resp else 0
        self.body = resp.body if resp else b""
        self.version = version
        self.cipher = cipher
        self.alpn = alpn
        self.peer = peer

    def header(self, name):
        return self.resp.header(name) if self.resp else None

    @property
    def peer_cn(self):
        for rdn in (self.peer or {}).get("subject", ()):
            for k, v in rdn:
                if k == "commonName":
                    return v
        return None

    def __repr__(self):
        return "<TLSResult %r %s %s alpn=%s cn=%s>" % (self.resp, self.version, self.cipher,
                                                       self.alpn, self.peer_cn)


def client_ctx(cafile=None, cert=None, key=None, alpn=None, minv=None, maxv=None,
               ciphers=None):
    """An SSLContext trusting cafile (no hostname check: tests pick SNI names freely) or
    verifying nothing when cafile is None."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    if cafile:
        ctx.load_verify_locations(cafile=str(cafile))
        ctx.verify_mode = ssl.CERT_REQUIRED
    else:
        ctx.verify_mode = ssl.CERT_NONE
    if cert:
        ctx.load_cert_chain(str(cert), str(key) if key else None)
    if alpn:
        ctx.set_alpn_protocols(list(alpn))
    if minv:
        ctx.minimum_version = minv
    if maxv:
        ctx.maximum_version = maxv
    if ciphers:
        ctx.set_ciphers(ciphers)
    return ctx


def tls_connect(port, sni=None, ctx=None, timeout=5.0, host="127.0.0.1", **kw):
    """A connected, handshaken SSLSocket (raises ssl.SSLError / OSError on failure)."""
    ctx = ctx or client_ctx(**kw)
    raw = socket.create_connection((host, port), timeout=timeout)
    raw.settimeout(timeout)
    try:
        return ctx.wrap_socket(raw, server_hostname=sni)
    except BaseException:
        raw.close()
        raise


def https_get(port, path="/", sni=None, host=None, headers=(), timeout=5.0, ctx=None, **kw):
    """One HTTPS GET (Connection: close); returns TLSResult. The Host header defaults to the
    SNI name. Raises ssl.SSLError / OSError when the handshake fails."""
    s = tls_connect(port, sni=sni, ctx=ctx, timeout=timeout, **kw)
    with s:
        return https_exchange(s, path, host or sni or "localhost", headers, close=True)


def https_exchange(s, path="/", host="localhost", headers=(), close=False):
    """One request on an established SSLSocket; returns TLSResult."""
    hdrs = "".join("%s: %s\r\n" % h for h in headers)
    conn = "Connection: close\r\n" if close else ""
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n%s%s\r\n" % (path, host, hdrs, conn)).encode())
    resp = read_response(getattr(s, "_hapx_reader", None) or _reader(s))
    c = s.cipher()
    return TLSResult(resp, s.version(), c[0] if c else None, s.selected_alpn_protocol(),
                     s.getpeercert() if s.context.verify_mode != ssl.CERT_NONE else None)


def _reader(s):
    rd = Reader(s)
    s._hapx_reader = rd
    return rd


def handshake_fails(port, sni=None, timeout=5.0, **kw):
    """True when the TLS handshake (and a first request) fails: the server refused us. A
    server that does not answer at all within timeout is not a refusal (False)."""
    try:
        r = https_get(port, sni=sni, timeout=timeout, **kw)
    except TimeoutError:
        return False
    except (ssl.SSLError, OSError, ConnectionError):
        return True
    except Exception:  # the connection closed before a response (ConnClosed, ValueError)
        return True
    return r.status == 0


def wait_tls(port, timeout=10.0):
    """Wait (bounded) until a TLS handshake succeeds on port."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with tls_connect(port, timeout=1.0):
                return True
        except (OSError, ssl.SSLError):
            time.sleep(0.05)
    return False
