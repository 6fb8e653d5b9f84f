"""Fixtures for the integration suite: free ports, the proxy under test, test backends, nginx.

Owns: starting and stopping every process and server the tests use (each stopped by its own
PID: SIGTERM, bounded wait, SIGKILL), the config-text helpers, and the `ours` / `v32`
markers. HAPROXY_BIN selects the binary (default <repo>/haproxy); when it is Debian's
/usr/sbin/haproxy (2.6) the suite runs as a reference check and skips the project-specific
(`ours`) tests and those where HAProxy 3.2 behaves differently from 2.6 (`v32`).
"""

import os
import pathlib
import signal
import socket
import subprocess
import sys
import time

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from backend import Backend  # noqa: E402
from dnsserver import DnsServer  # noqa: E402

REPO = HERE.parent.parent
HAPROXY_BIN = os.environ.get("HAPROXY_BIN", str(REPO / "haproxy"))
IS_REF = os.path.realpath(HAPROXY_BIN) == "/usr/sbin/haproxy"
NGINX_BIN = "/usr/sbin/nginx"


def pytest_configure(config):
    config.addinivalue_line("markers",
                            "ours: behaviour specific to hapx (skipped on Debian's haproxy)")
    config.addinivalue_line("markers",
                            "v32: HAProxy 3.2 behaviour that 2.6 lacks (skipped on 2.6)")


def pytest_collection_modifyitems(config, items):
    if not IS_REF:
        return
    skip_ours = pytest.mark.skip(reason="hapx-specific; HAPROXY_BIN is Debian's haproxy")
    skip_v32 = pytest.mark.skip(reason="HAProxy 3.2 behaviour; Debian ships 2.6")
    for item in items:
        if "ours" in item.keywords:
            item.add_marker(skip_ours)
        if "v32" in item.keywords:
            item.add_marker(skip_v32)


# Ports handed out by free_port() come from below the kernel's ephemeral range (32768 and
# up on Linux), so no outgoing connection (a client's or the proxy's own local port) can
# take one between the test picking it and the proxy binding it. Each xdist worker walks
# its own slice, from a random start, so two workers never pick the same port.
_PORT_LO, _PORT_HI = 20000, 32768
_port_next = None


def _port_slice():
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1") or 1)
    index = int(worker[2:]) if worker[2:].isdigit() else 0
    width = (_PORT_HI - _PORT_LO) // max(count, 1)
    lo = _PORT_LO + (index % max(count, 1)) * width
    return lo, lo + width


def free_port():
    """A TCP port on 127.0.0.1 that nothing uses right now, outside the ephemeral range."""
    global _port_next
    lo, hi = _port_slice()
    if _port_next is None:
        _port_next = lo + int.from_bytes(os.urandom(2), "little") % (hi - lo)
    for _ in range(hi - lo):
        port = _port_next
        _port_next = lo if _port_next + 1 >= hi else _port_next + 1
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))  # no SO_REUSEADDR: a TIME_WAIT port is skipped
            except OSError:
                continue
            return port
    raise RuntimeError("no free port in %d-%d" % (lo, hi))


def wait_port(port, timeout=10.0, proc=None):
    """Wait (bounded) until 127.0.0.1:port accepts; False on timeout or if proc died."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.05)
    return False


def stop_pid_proc(proc, timeout=5.0):
    """SIGTERM the Popen, wait bounded, then SIGKILL. Returns the exit code."""
    if proc.poll() is None:
        try:
            proc.send_signal(signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout)
    return proc.returncode


def stop_pid(pid, timeout=5.0):
    """Stop a process we do not own as a Popen (daemon child) by its PID."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not pid_alive(pid):
            return
        time.sleep(0.05)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def pid_alive(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("State:"):
                    return "Z" not in line.split()[1]
    except OSError:
        return False
    return True


def run_haproxy(args, timeout=20, env=None):
    """Run the binary to completion (for -v, -c, -cc ...); returns CompletedProcess."""
    e = dict(os.environ)
    if env:
        e.update(env)
    return subprocess.run([HAPROXY_BIN] + list(args), capture_output=True, text=True,
                          timeout=timeout, env=e)


def server_lines(servers, opts=""):
    """Lines `server NAME 127.0.0.1:PORT OPTS` for Backends or (name, port) tuples."""
    out = []
    for s in servers:
        name, port = (s.name, s.port) if isinstance(s, Backend) else s
        out.append("server %s 127.0.0.1:%d %s" % (name, port, opts))
    return out


def make_cfg(port, servers=(), glob=(), defaults=(), listen=(), srv_opts="", extra=""):
    """A `listen px` config on 127.0.0.1:port over servers; extra lines per section."""
    lines = ["global"] + ["    " + x for x in glob]
    lines += ["defaults", "    mode http", "    timeout connect 2s",
              "    timeout client 30s", "    timeout server 30s"]
    lines += ["    " + x for x in defaults]
    lines += ["listen px", "    bind 127.0.0.1:%d" % port]
    lines += ["    " + x for x in listen]
    lines += ["    " + x for x in server_lines(servers, srv_opts)]
    return "\n".join(lines) + "\n" + extra


class Proxy:
    """The proxy under test, running in the foreground on a config written to tmp."""

    def __init__(self, tmp, cfg, args=(), ports=(), name="haproxy"):
        self.cfg_path = tmp / ("%s.cfg" % name)
        self.cfg_path.write_text(cfg)
        self.out_path = tmp / ("%s.out" % name)
        self.err_path = tmp / ("%s.err" % name)
        self.out = open(self.out_path, "wb")
        self.err = open(self.err_path, "wb")
        self.proc = subprocess.Popen([HAPROXY_BIN, "-f", str(self.cfg_path)] + list(args),
                                     stdout=self.out, stderr=self.err,
                                     stdin=subprocess.DEVNULL)
        self.pid = self.proc.pid
        for p in ports:
            if not wait_port(p, 10.0, self.proc):
                err = self.stderr()  # before stop() closes the log files
                self.stop()
                pytest.fail("proxy did not listen on %d; stderr:\n%s" % (p, err))

    def stderr(self):
        self.err.flush()
        return self.err_path.read_text(errors="replace")

    def alive(self):
        return self.proc.poll() is None

    def rss_kib(self):
        """Resident set size of the proxy process in KiB (VmRSS)."""
        with open("/proc/%d/status" % self.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    def stop(self):
        rc = stop_pid_proc(self.proc)
        self.out.close()
        self.err.close()
        return rc


@pytest.fixture
def proxy(tmp_path):
    """Factory: proxy(cfg_text, ports=[...], args=[...]) -> running Proxy."""
    started = []

    def start(cfg, ports=(), args=(), name=None):
        p = Proxy(tmp_path, cfg, args, ports, name or "haproxy%d" % len(started))
        started.append(p)
        return p

    try:
        yield start
    finally:
        for p in started:
            p.stop()


@pytest.fixture
def backends():
    """Factory: backends(n) -> list of n started Backends named s1..sn (or names=[...])."""
    started = []

    def make(n=1, names=None):
        names = names or ["s%d" % (i + 1) for i in range(n)]
        bs = [Backend(nm).start() for nm in names]
        started.extend(bs)
        return bs

    try:
        yield make
    finally:
        for b in started:
            b.stop()


@pytest.fixture
def backend(backends):
    return backends(1)[0]


@pytest.fixture
def port():
    return free_port()


@pytest.fixture
def dns():
    """A tiny UDP DNS server on loopback answering from its dict (dnsserver.py)."""
    d = DnsServer()
    try:
        yield d
    finally:
        d.stop()


def nginx_launch(root, procs, http_body, log="access_log off;"):
    """Writes <root>/nginx.conf (a foreground, single-process nginx whose temp files stay
    under <root>/tmp) with <http_body> (server blocks; "@PORT@" is replaced by a free
    port) in its http block, starts it, appends it to <procs> and waits for its port.
    Returns the port."""
    if not os.path.exists(NGINX_BIN):
        pytest.skip("nginx not installed")
    t = root / "tmp"
    t.mkdir(parents=True, exist_ok=True)
    p = free_port()
    conf = root / "nginx.conf"
    conf.write_text(f"""
daemon off;
master_process off;
worker_processes 1;
pid {root}/nginx.pid;
error_log {root}/error.log warn;
events {{ worker_connections 256; }}
http {{
    {log}
    client_body_temp_path {t}/body;
    proxy_temp_path {t}/proxy;
    fastcgi_temp_path {t}/fcgi;
    uwsgi_temp_path {t}/uwsgi;
    scgi_temp_path {t}/scgi;
{http_body.replace("@PORT@", str(p))}
}}
""")
    proc = subprocess.Popen([NGINX_BIN, "-c", str(conf), "-p", str(root)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL)
    procs.append(proc)
    if not wait_port(p, 10.0, proc):
        pytest.fail("nginx did not start: %s" % ((root / "error.log").read_text()
                                                 if (root / "error.log").exists() else ""))
    return p


@pytest.fixture
def nginx(tmp_path):
    """Factory: nginx() -> (port, docroot) of a foreground nginx serving docroot."""
    procs = []

    def start():
        root = tmp_path / "ngx"
        (root / "www").mkdir(parents=True, exist_ok=True)
        p = nginx_launch(root, procs, f"""
    default_type application/octet-stream;
    server {{
        listen 127.0.0.1:@PORT@;
        root {root}/www;
        location = /hello {{ return 200 "hello from nginx\\n"; }}
    }}""")
        return p, root / "www"

    try:
        yield start
    finally:
        for proc in procs:
            stop_pid_proc(proc)


def make_test_ca(d, names=("backend.test",)):
    """A test CA and a server certificate for <names> signed by it, generated in <d> with
    openssl (never committed). Returns dict(ca=, crt=, key=, pem=) of paths."""
    d = pathlib.Path(d)
    d.mkdir(parents=True, exist_ok=True)

    def ossl(*args):
        subprocess.run(["openssl"] + list(args), check=True, capture_output=True, timeout=60)

    ossl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(d / "ca.key"),
         "-out", str(d / "ca.pem"), "-days", "30", "-subj", "/CN=hapx test CA")
    ossl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", str(d / "srv.key"),
         "-out", str(d / "srv.csr"), "-subj", "/CN=%s" % names[0])
    (d / "ext.cnf").write_text("subjectAltName=" + ",".join("DNS:" + n for n in names) + "\n")
    ossl("x509", "-req", "-in", str(d / "srv.csr"), "-CA", str(d / "ca.pem"), "-CAkey",
         str(d / "ca.key"), "-CAcreateserial", "-out", str(d / "srv.pem"), "-days", "30",
         "-extfile", str(d / "ext.cnf"))
    (d / "full.pem").write_text((d / "srv.pem").read_text() + (d / "srv.key").read_text())
    return {"ca": d / "ca.pem", "crt": d / "srv.pem", "key": d / "srv.key",
            "pem": d / "full.pem"}


@pytest.fixture
def nginx_tls(tmp_path):
    """Factory: nginx_tls(protocols="TLSv1.2 TLSv1.3") -> (port, certs) of a foreground
    nginx serving TLS with a generated test certificate (backend.test), answering 200 "ok"
    with X-Reused ($ssl_session_reused), X-Sni and X-Proto headers."""
    procs = []
    certs = {}

    def start(protocols="TLSv1.2 TLSv1.3"):
        if not certs:
            certs.update(make_test_ca(tmp_path / "pki"))
        root = tmp_path / ("ngxtls%d" % len(procs))
        p = nginx_launch(root, procs, f"""
    server {{
        listen 127.0.0.1:@PORT@ ssl;
        ssl_certificate {certs["crt"]};
        ssl_certificate_key {certs["key"]};
        ssl_protocols {protocols};
        ssl_session_cache shared:S{len(procs)}:1m;
        location / {{
            add_header X-Reused $ssl_session_reused always;
            add_header X-Sni "$ssl_server_name" always;
            add_header X-Proto $ssl_protocol always;
            return 200 "ok\\n";
        }}
    }}""")
        return p, certs

    try:
        yield start
    finally:
        for proc in procs:
            stop_pid_proc(proc)


def cli(addr, cmd, timeout=5.0):
    """Send one line to a runtime API socket (unix path, or (host, port)) and return what
    the proxy writes until it closes the connection (non-interactive mode), as text."""
    fam = socket.AF_UNIX if isinstance(addr, (str, pathlib.Path)) else socket.AF_INET
    with socket.socket(fam, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(str(addr) if fam == socket.AF_UNIX else addr)
        s.sendall(cmd.encode() + b"\n")
        out = b""
        while True:
            d = s.recv(65536)
            if not d:
                return out.decode(errors="replace")
            out += d


@pytest.fixture
def raw_server():
    """Factory: raw_server(handler(sock, reader, idx)) -> started RawServer."""
    from rawserver import RawServer
    started = []

    def make(handler, name="r1"):
        srv = RawServer(handler, name)
        started.append(srv)
        return srv

    try:
        yield make
    finally:
        for srv in started:
            srv.stop()


@pytest.fixture(scope="session")
def pki(tmp_path_factory):
    """The TLS test certificates (tlsutil.Pki), generated once per session in a tmp dir."""
    from tlsutil import Pki
    return Pki(str(tmp_path_factory.mktemp("pki")))
