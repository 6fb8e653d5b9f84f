"""Rule-based health checks: `option tcp-check` with `tcp-check` sequences, and the protocol
checks (redis against a real redis-server; ssl-hello, smtp, mysql, pgsql and ldap against
fakes that answer right and wrong). Each test watches the stderr notices a log reader
sees (HAProxy 2.6's wording, so the file also runs against Debian's haproxy with
HAPROXY_BIN=/usr/sbin/haproxy): a wrong answer takes the server DOWN with the reason, a
right one brings it back UP.

Every wait is a bounded poll; every process is stopped by its PID.
"""

import re
import shutil
import socket
import subprocess
import struct
import time

import pytest
from conftest import IS_REF, free_port, make_cfg, run_haproxy, stop_pid_proc, wait_port
from rawserver import RawServer

INTER = 150  # ms


def wait_for(pred, timeout, step=0.02):
    t0 = time.monotonic()
    for _ in range(int(timeout / step) + 1):
        if pred():
            return True
        time.sleep(step)
    return False


def notices(px, what):
    return re.findall(r"Server px/(\S+) is %s, reason: ([^\n]*)" % what, px.stderr())


def reason(px, what, timeout=4.0):
    assert wait_for(lambda: notices(px, what), timeout), px.stderr()
    return notices(px, what)[0][1]


class Flip:
    """A fake whose answers are wrong until good is set."""

    def __init__(self, handler):
        self.good = False
        self.seen = []
        self.srv = RawServer(lambda s, rd, i: handler(self, s, rd))

    @property
    def port(self):
        return self.srv.port

    def stop(self):
        self.srv.stop()


def recv_some(s, n=4096):
    try:
        return s.recv(n)
    except OSError:
        return b""


def down_then_up(proxy, port, flip, listen, srv_opts=""):
    """Starts a proxy checking <flip>; returns the DOWN and the UP reasons."""
    cfg = make_cfg(port, [("s1", flip.port)], listen=listen,
                   srv_opts="check inter %d rise 1 fall 1 %s" % (INTER, srv_opts))
    px = proxy(cfg, [port])
    down = reason(px, "DOWN")
    flip.good = True
    up = reason(px, "UP")
    return down, up


def test_tcp_check_send_expect_string(proxy, port):
    def handler(f, s, rd):
        f.seen.append(recv_some(s))
        s.sendall(b"+PONG\r\n" if f.good else b"-ERR nope\r\n")
        time.sleep(0.05)

    f = Flip(handler)
    try:
        down, up = down_then_up(proxy, port, f, ["option tcp-check", "tcp-check send PING\\r\\n",
                                                 "tcp-check expect string +PONG"])
        assert down.startswith('Layer7 invalid response, info: "TCPCHK did not match content '
                               "'+PONG' at step 2\", check duration: ")
        assert up.startswith('Layer7 check passed, code: 0, info: "(tcp-check)", check '
                             "duration: ")
        assert f.seen[0] == b"PING\r\n"
    finally:
        f.stop()


def test_tcp_check_connect_port_binary_negation_comment(proxy, port):
    """connect port N goes to another port than the server's; send-binary sends bytes;
    '!' fails on a match, with the comment in the reason."""
    def handler(f, s, rd):
        f.seen.append(recv_some(s))
        s.sendall(b"\x01\x02OK\r\n" if f.good else b"\x01\x02ERROR\r\n")
        time.sleep(0.05)

    f = Flip(handler)
    try:
        dead = free_port()
        cfg = make_cfg(port, [("s1", dead)], listen=[
            "option tcp-check", "tcp-check connect port %d linger" % f.port,
            "tcp-check send-binary 00ff41", "tcp-check expect binary 0102",
            'tcp-check expect ! rstring ERR comment "no error"'],
            srv_opts="check inter %d rise 1 fall 1" % INTER)
        px = proxy(cfg, [port])
        down = reason(px, "DOWN")
        assert down.startswith('Layer7 invalid response, info: "TCPCHK matched unwanted '
                               'content (regex) at step 4 comment: no error", check duration:')
        f.good = True
        up = reason(px, "UP")
        assert up.startswith('Layer7 check passed, code: 0, info: "(tcp-check)"')
        assert f.seen[0] == b"\x00\xffA"
    finally:
        f.stop()


def test_tcp_check_failures_name_their_step(proxy, port):
    """Refused, empty answer and silence: each reason names the step as 2.6 does."""
    silent = RawServer(lambda s, rd, i: time.sleep(2))
    closing = RawServer(lambda s, rd, i: recv_some(s))
    try:
        dead = free_port()
        cfg = make_cfg(port, [("ref", dead), ("sil", silent.port), ("clo", closing.port)],
                       defaults=["timeout check 300ms"],
                       listen=["option tcp-check", "tcp-check send PING\\r\\n",
                               "tcp-check expect string +PONG"],
                       srv_opts="check inter %d rise 1 fall 1" % INTER)
        px = proxy(cfg, [port])
        assert wait_for(lambda: len(notices(px, "DOWN")) == 3, 5), px.stderr()
        why = dict(notices(px, "DOWN"))
        assert why["ref"].startswith('Layer4 connection problem, info: "Connection refused at '
                                     'initial connection step of tcp-check"')
        assert why["clo"].startswith('Layer7 invalid response, info: "TCPCHK got an empty '
                                     'response at step 2"')
        assert why["sil"].startswith('Layer7 timeout, info: " at step 2 of tcp-check (expect '
                                     "string '+PONG')\", check duration: ")
        ms = int(re.search(r"check duration: (\d+)ms", why["sil"]).group(1))
        assert 250 <= ms < 1000  # "timeout check" from the connection on
    finally:
        silent.stop()
        closing.stop()


def test_tcp_check_endless_answer_is_bounded(proxy, port):
    """An answer that never ends and never matches fills the check buffer (tune.bufsize,
    as in 2.6) and fails the check at once, well before the timeout."""
    def endless(s, rd, i):
        recv_some(s)
        for _ in range(200):
            s.sendall(b"x" * 1000)
            time.sleep(0.005)

    srv = RawServer(endless)
    try:
        cfg = make_cfg(port, [("s1", srv.port)], defaults=["timeout check 5s"],
                       listen=["option tcp-check", "tcp-check send hello\\n",
                               "tcp-check expect string +PONG"],
                       srv_opts="check inter %d rise 1 fall 1" % INTER)
        px = proxy(cfg, [port])
        why = reason(px, "DOWN")
        assert why.startswith('Layer7 invalid response, info: "TCPCHK did not match content '
                              "'+PONG' at step 2\""), why
        assert int(re.search(r"check duration: (\d+)ms", why).group(1)) < 2000
    finally:
        srv.stop()


@pytest.fixture
def redis_server(tmp_path):
    exe = shutil.which("redis-server")
    if not exe:
        pytest.skip("redis-server not installed")
    procs = []

    def start(port):
        p = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                              "--appendonly", "no", "--dir", str(tmp_path)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(p)
        assert wait_port(port, 10, p)
        return p

    try:
        yield start
    finally:
        for p in procs:
            stop_pid_proc(p)


def test_redis_check_real_server(proxy, port, redis_server):
    rport = free_port()
    cfg = make_cfg(port, [("s1", rport)], listen=["option redis-check"],
                   srv_opts="check inter %d rise 1 fall 1" % INTER)
    px = proxy(cfg, [port])
    down = reason(px, "DOWN")
    assert down.startswith('Layer4 connection problem, info: "Connection refused", check '
                           "duration: ")
    redis_server(rport)
    up = reason(px, "UP")
    assert up.startswith('Layer7 check passed, code: 0, info: "Redis server is ok"'), up


def test_redis_check_error_reply(proxy, port):
    def handler(f, s, rd):
        recv_some(s)
        s.sendall(b"+PONG\r\n" if f.good else b"-NOAUTH Authentication required.\r\n")
        time.sleep(0.05)

    f = Flip(handler)
    try:
        down, up = down_then_up(proxy, port, f, ["option redis-check"])
        assert down.startswith('Layer7 wrong status, code: 0, info: "-NOAUTH Authentication '
                               'required.", check duration:'), down
        assert up.startswith('Layer7 check passed, code: 0, info: "Redis server is ok"')
    finally:
        f.stop()


def test_smtpchk(proxy, port):
    def handler(f, s, rd):
        s.sendall(b"220 mx.example ESMTP\r\n")
        line = rd.readline()
        f.seen.append(line)
        if not f.good:
            s.sendall(b"550 go away\r\n")
            return
        s.sendall(b"250-mx.example hello\r\n250 SIZE 1000\r\n")
        if rd.readline().upper().startswith(b"QUIT"):
            s.sendall(b"221 bye\r\n")

    f = Flip(handler)
    try:
        down, up = down_then_up(proxy, port, f, ["option smtpchk EHLO test.example"])
        assert down.startswith('Layer7 wrong status, code: 550, info: "go away"'), down
        assert up.startswith("Layer7 check passed, code: 2"), up
        assert f.seen[0] == b"EHLO test.example\r\n"
    finally:
        f.stop()


def mysql_packet(seq, payload):
    return struct.pack("<I", len(payload))[:3] + bytes([seq]) + payload


GREETING = mysql_packet(0, b"\x0a" + b"10.11.6-MariaDB\x00" + b"\x01\x00\x00\x00" + b"a" * 8 +
                        b"\x00\xff\xf7\x21\x02\x00")


def test_mysql_check_with_user(proxy, port):
    def handler(f, s, rd):
        s.sendall(GREETING)
        login = recv_some(s)
        f.seen.append(login)
        if f.good:
            s.sendall(mysql_packet(2, b"\x00\x00\x00\x02\x00\x00\x00"))
        else:
            s.sendall(mysql_packet(2, b"\xff\x15\x04#28000Access denied for user 'hc'"))
        time.sleep(0.05)

    f = Flip(handler)
    try:
        down, up = down_then_up(proxy, port, f, ["option mysql-check user hc"])
        assert down.startswith('Layer7 wrong status, code: 1045, info: "#28000Access denied '
                               "for user 'hc'\""), down
        assert up.startswith("Layer7 check passed, code: 0, check duration: "), up
        assert b"hc\x00" in f.seen[0]
    finally:
        f.stop()


def test_mysql_check_without_user(proxy, port):
    def handler(f, s, rd):
        s.sendall(GREETING if f.good else b"HTTP/1.0 400 Bad request\r\n\r\n")
        recv_some(s)

    f = Flip(handler)
    try:
        down, up = down_then_up(proxy, port, f, ["option mysql-check"])
        assert down.startswith("Layer7 "), down
        assert up.startswith("Layer7 check passed, code: 0, check duration: "), up
    finally:
        f.stop()


def test_pgsql_check(proxy, port):
    def handler(f, s, rd):
        startup = recv_some(s)
        f.seen.append(startup)
        if f.good:
            s.sendall(b"R" + struct.pack(">II", 8, 0))  # AuthenticationOk
        else:
            body = b"SFATAL\x00C28000\x00Mno such role\x00\x00"
            s.sendall(b"E" + struct.pack(">I", len(body) + 4) + body)
        time.sleep(0.05)

    f = Flip(handler)
    try:
        down, up = down_then_up(proxy, port, f, ["option pgsql-check user hc"])
        assert down.startswith('Layer7 invalid response, info: "FATAL"'), down
        assert up.startswith('Layer7 check passed, code: 0, info: "PostgreSQL server is ok"'), up
        assert f.seen[0][4:8] == b"\x00\x03\x00\x00" and b"user\x00hc\x00" in f.seen[0]
    finally:
        f.stop()


def test_ldap_check(proxy, port):
    def handler(f, s, rd):
        recv_some(s)
        code = 0 if f.good else 49
        s.sendall(bytes([0x30, 0x0c, 0x02, 0x01, 0x01, 0x61, 0x07, 0x0a, 0x01, code,
                         0x04, 0x00, 0x04, 0x00]))
        time.sleep(0.05)

    f = Flip(handler)
    try:
        down, up = down_then_up(proxy, port, f, ["option ldap-check"])
        assert down.startswith('Layer7 wrong status, code: 49, info: "See RFC: '
                               'http://tools.ietf.org/html/rfc4511#section-4.1.9"'), down
        assert up.startswith("Layer7 check passed, code: 0, check duration: "), up
    finally:
        f.stop()


def test_ssl_hello_chk(proxy, port):
    def handler(f, s, rd):
        hello = recv_some(s)
        f.seen.append(hello)
        s.sendall(b"\x15\x03\x01\x00\x02\x02\x46" if f.good else b"HTTP/1.0 400 Bad\r\n\r\n")
        time.sleep(0.05)

    f = Flip(handler)
    try:
        down, up = down_then_up(proxy, port, f, ["option ssl-hello-chk"])
        assert down.startswith("Layer6 invalid response"), down
        assert up.startswith("Layer6 check passed, check duration: "), up
        assert f.seen[0][:1] == b"\x16" and f.seen[0][5:6] == b"\x01"
    finally:
        f.stop()


def test_last_check_option_wins(proxy, port):
    """option httpchk then option redis-check: a redis check (and the reverse)."""
    def handler(f, s, rd):
        data = recv_some(s)
        f.seen.append(data)
        s.sendall(b"+PONG\r\n")
        time.sleep(0.05)

    f = Flip(handler)
    try:
        cfg = make_cfg(port, [("s1", f.port)], defaults=["option httpchk GET /"],
                       listen=["option redis-check"],
                       srv_opts="check inter %d rise 1 fall 1" % INTER)
        px = proxy(cfg, [port])
        assert wait_for(lambda: len(f.seen) >= 2, 3)
        assert f.seen[0] == b"*1\r\n$4\r\nPING\r\n"
        assert notices(px, "DOWN") == []
    finally:
        f.stop()


@pytest.mark.parametrize("lines,msg", [
    (["tcp-check send a", "tcp-check connect"], "first step MUST also be a 'connect'"),
    (["tcp-check send-binary 0g"], "invalid binary string"),
    (["tcp-check expect ok-status L7FOO string x"], "'ok-status' only supports"),
    (["tcp-check expect string"], "'tcp-check expect'"),
    (["tcp-check expect rstring ("], "regex '('"),
    (["tcp-check frobnicate"], "'tcp-check' only supports"),
    (["option pgsql-check"], "pgsql-check"),
    (["option mysql-check login x"], "mysql-check"),
    (["tcp-check set-var(check.x)"], "set-var(check.x)"),
    (["tcp-check set-var(nope.x) int(1)"], "set-var(nope.x)"),
    (["tcp-check set-var(check.x) nosuchfetch"], "nosuchfetch"),
    (["tcp-check set-var(check.x,ifwhatever) int(1)"], "set-var(check.x,ifwhatever)"),
    (["tcp-check unset-var(check.x,ifset)"], "unset-var(check.x,ifset)"),
    (["tcp-check expect status-code nosuchfetch string x"], "nosuchfetch"),
])
def test_config_errors_name_the_line(tmp_path, lines, msg):
    cfg = tmp_path / "c.cfg"
    cfg.write_text("defaults\n  mode http\n  timeout client 1s\n  timeout server 1s\n"
                   "  timeout connect 1s\nbackend be\n  option tcp-check\n" +
                   "".join("  %s\n" % x for x in lines) + "  server s 127.0.0.1:1 check\n")
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    n = 7 + len(lines)
    assert re.search(r"c\.cfg:%d\]" % n, r.stderr), r.stderr
    assert msg in r.stderr, r.stderr


def test_tune_chksize_refused(tmp_path):
    """tune.chksize is gone since 1.6: refused in 2.6's words (checks use tune.bufsize)."""
    cfg = tmp_path / "c.cfg"
    cfg.write_text("global\n  tune.chksize 32768\ndefaults\n  mode http\n"
                   "  timeout client 1s\n  timeout server 1s\n  timeout connect 1s\n"
                   "backend be\n  option redis-check\n  server s 127.0.0.1:1 check\n")
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode == 1
    assert "c.cfg:2]" in r.stderr, r.stderr
    assert ("option 'tune.chksize' is not supported any more (tune.bufsize is used "
            "instead).") in r.stderr, r.stderr


def test_valid_configs_accepted(tmp_path):
    cfg = tmp_path / "c.cfg"
    cfg.write_text("defaults\n  mode http\n  timeout client 1s\n  timeout server 1s\n"
                   "  timeout connect 1s\n  option tcp-check\n  tcp-check connect\n"
                   "  tcp-check send-lf \"PING %[str(x)]\\r\\n\"\n"
                   "  tcp-check expect min-recv 3 error-status L7STS tout-status L7TOUT "
                   "on-success \"ok\" on-error \"bad\" rstring ^\\+P\n"
                   "  tcp-check comment \"last\"\n  tcp-check expect string-lf %[str(PONG)]\n"
                   "backend be\n  server s 127.0.0.1:1 check\n"
                   "backend b2\n  option smtpchk HELO x\n  server s 127.0.0.1:1 check\n"
                   "backend b3\n  option mysql-check user u pre-41\n"
                   "  server s 127.0.0.1:1 check\n")
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode in (0, 2) and "ALERT" not in r.stderr, r.stderr  # 2: no listener


def http_fake(f, s, rd):
    """Answers each request with 200 and "X-Foo: a, bar"; logs the request heads."""
    from rawserver import read_head
    for _ in range(3):
        head, _, _ = read_head(rd)
        if not head.strip():
            return
        f.seen.append(head)
        s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Foo: a, bar\r\n\r\nok")


def test_http_check_sequence_with_send_state(proxy, port):
    """Two requests, each on its own connection, with the X-Haproxy-Server-State header;
    a status expect then a header expect; the server stays UP."""
    f = Flip(http_fake)
    try:
        cfg = make_cfg(port, [("s1", f.port)], listen=[
            "option httpchk", "http-check send-state", "http-check connect",
            "http-check send meth GET uri /a ver HTTP/1.1 hdr Host x",
            "http-check expect status 200", "http-check comment second",
            "http-check connect", "http-check send meth GET uri /b ver HTTP/1.1 hdr Host y",
            "http-check expect hdr name x-foo value bar"],
            srv_opts="check inter %d rise 1 fall 1" % INTER)
        px = proxy(cfg, [port])
        assert wait_for(lambda: len(f.seen) >= 4, 4), px.stderr()
        assert notices(px, "DOWN") == []
        a, b = f.seen[0].decode(), f.seen[1].decode()
        assert a.startswith("GET /a HTTP/1.1\r\n") and b.startswith("GET /b HTTP/1.1\r\n")
        st = re.search(r"(?im)^x-haproxy-server-state: (.*)\r$", a).group(1)
        assert re.fullmatch(r"UP; address=127\.0\.0\.1; port=%d; name=px/s1; node=\S+; "
                            r"weight=1/1; scur=0/0; qcur=0" % f.port, st), st
        assert re.search(r"(?im)^connection: close\r$", a)
    finally:
        f.stop()


@pytest.mark.parametrize("expect,ok", [
    ("hdr name x-foo value bar", True),
    ("fhdr name x-foo value bar", False),
    ("fhdr name -m beg x-f value -m end bar", True),
    ("hdr name x-foo value -m reg ^b.r$", True),
    ("! hdr name x-foo", False),
    ("hdr name x-nope", False),
])
def test_http_check_expect_header(proxy, port, expect, ok):
    f = Flip(http_fake)
    try:
        cfg = make_cfg(port, [("s1", f.port)], listen=[
            "option httpchk GET /", "http-check expect status 200",
            "http-check expect " + expect],
            srv_opts="check inter %d rise 1 fall 1" % INTER)
        px = proxy(cfg, [port])
        if ok:
            assert wait_for(lambda: len(f.seen) >= 2, 4)
            assert notices(px, "DOWN") == []
        else:
            why = reason(px, "DOWN")
            assert why.startswith('Layer7 wrong status, code: 200, info: "OK"'), why
    finally:
        f.stop()


def test_http_check_second_request_needs_connect(tmp_path):
    cfg = tmp_path / "c.cfg"
    cfg.write_text("defaults\n  mode http\n  timeout client 1s\n  timeout server 1s\n"
                   "  timeout connect 1s\nbackend be\n  option httpchk\n"
                   "  http-check send uri /a\n  http-check expect status 200\n"
                   "  http-check send uri /b\n  server s 127.0.0.1:1 check\n")
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    assert ("c.cfg:10] : 'http-check send' : unable to add http-check send rule at step 3 "
            "(missing connect rule).") in r.stderr, r.stderr


EXT_SCRIPT = """#!/bin/sh
env | sort > "{d}/env.$HAPROXY_SERVER_NAME"
echo "$@" > "{d}/args.$HAPROXY_SERVER_NAME"
[ -e "{d}/up.$HAPROXY_SERVER_NAME" ] && exit 0
[ "$HAPROXY_SERVER_NAME" = slow ] && sleep 5
exit 3
"""


def ext_cfg(tmp_path, port, glob, extra=()):
    script = tmp_path / "chk.sh"
    script.write_text(EXT_SCRIPT.format(d=tmp_path))
    script.chmod(0o755)
    return make_cfg(port, [("ok", 9), ("slow", 10)], glob=glob,
                    defaults=["timeout check 2s"],
                    listen=["option external-check", "external-check command %s" % script,
                            'external-check path "/usr/bin:/bin"'] + list(extra),
                    srv_opts="check inter 300 rise 1 fall 1")


def test_external_check(proxy, port, tmp_path):
    """Exit code 3 and a command still running at the deadline are failures in 2.6's
    words; the command gets the 4 arguments and the HAPROXY_* environment; exit 0 is UP."""
    px = proxy(ext_cfg(tmp_path, port, ["external-check", "insecure-fork-wanted"]), [port])
    assert wait_for(lambda: len(notices(px, "DOWN")) == 2, 5), px.stderr()
    why = dict(notices(px, "DOWN"))
    assert why["ok"].startswith("External check error, code: 3, check duration: "), why
    assert why["slow"].startswith("External check timeout, code: 0, check duration: 3"), why
    env = dict(ln.split("=", 1) for ln in (tmp_path / "env.ok").read_text().splitlines())
    assert env["HAPROXY_PROXY_NAME"] == "px" and env["HAPROXY_PROXY_ID"] == "1"
    assert env["HAPROXY_PROXY_ADDR"] == "127.0.0.1" and env["HAPROXY_PROXY_PORT"] == str(port)
    assert env["HAPROXY_SERVER_NAME"] == "ok" and env["HAPROXY_SERVER_ID"] == "1"
    assert env["HAPROXY_SERVER_ADDR"] == "127.0.0.1" and env["HAPROXY_SERVER_PORT"] == "9"
    assert env["HAPROXY_SERVER_MAXCONN"] == "0" and env["HAPROXY_SERVER_CURCONN"] == "0"
    assert env["PATH"] == "/usr/bin:/bin"
    assert (tmp_path / "args.ok").read_text() == "127.0.0.1 %d 127.0.0.1 9\n" % port
    (tmp_path / "up.ok").write_text("")
    up = reason(px, "UP")
    assert up.startswith("External check passed, code: 0, check duration: "), up


def test_external_check_needs_global_switch(tmp_path):
    cfg = tmp_path / "c.cfg"
    cfg.write_text(ext_cfg(tmp_path, free_port(), ["insecure-fork-wanted"]))
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    assert ("Proxy 'px' : 'option external-check' unable to find required "
            "'global.external-check'.") in r.stderr, r.stderr


def test_external_check_warns_without_insecure_fork(tmp_path):
    cfg = tmp_path / "c.cfg"
    cfg.write_text(ext_cfg(tmp_path, free_port(), ["external-check"]))
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode == 0, r.stderr
    assert ("Proxy 'px' : 'insecure-fork-wanted' not enabled in the global section, "
            "'option external-check' will likely fail.") in r.stderr, r.stderr


@pytest.mark.ours
def test_external_check_without_insecure_fork_fails(proxy, port, tmp_path):
    """2.6 forbids fork() unless insecure-fork-wanted (Debian's build does not enforce
    it): without it we run nothing and the check fails, saying why."""
    (tmp_path / "up.ok").write_text("")
    px = proxy(ext_cfg(tmp_path, port, ["external-check"]), [port])
    why = dict(notices(px, "DOWN")) if wait_for(lambda: len(notices(px, "DOWN")) == 2, 5) else {}
    assert why["ok"].startswith("External check error, code: 0, info: \"fork() prevented: "
                                "'insecure-fork-wanted' is not set\""), px.stderr()
    assert not (tmp_path / "env.ok").exists()


def test_tcp_check_log_formats_and_statuses(proxy, port):
    """send-lf and binary-lf render per run; on-error/on-success give the notice's info;
    error-status picks the reason."""
    def handler(f, s, rd):
        f.seen.append(recv_some(s))
        s.sendall(b"+OK ready\r\n" if f.good else b"-ERR busy\r\n")
        time.sleep(0.05)

    f = Flip(handler)
    try:
        down, up = down_then_up(proxy, port, f, [
            "option tcp-check", 'tcp-check send-lf "HELLO %[str(px)]\\r\\n"',
            'tcp-check expect min-recv 3 error-status L7STS on-error "refused by %[str(srv)]" '
            'on-success "fine" binary-lf "2b%[str(4f4b)]"'])
        assert down.startswith('Layer7 wrong status, code: 0, info: "refused by srv"'), down
        assert up.startswith('Layer7 check passed, code: 0, info: "fine"'), up
        assert f.seen[0] == b"HELLO px\r\n"
    finally:
        f.stop()


def test_tcp_check_variables(proxy, port):
    """set-var / set-var-fmt / unset-var: check.* variables feed later send-lf and
    string-lf rules of the same run and start empty at each run (the counter stays 1);
    proc.* lives on; status-code sets the code of the notice."""
    def handler(f, s, rd):
        f.seen.append(recv_some(s))
        s.sendall(b"+OK 7\r\n" if f.good else b"-ERR\r\n")
        time.sleep(0.05)

    f = Flip(handler)
    try:
        down, up = down_then_up(proxy, port, f, [
            "option tcp-check",
            "tcp-check set-var-fmt(check.n) \"%[var(check.n)]a\"",
            "tcp-check set-var(check.one) int(1)",
            "tcp-check set-var(check.one,ifnotset) int(5)",
            "tcp-check set-var-fmt(check.greet) \"HI-%[var(check.n)]\"",
            "tcp-check set-var(check.gone) str(x)",
            "tcp-check unset-var(check.gone)",
            "tcp-check connect",
            "tcp-check send-lf \"%[var(check.greet)] %[var(check.one),add(1)] "
            "g=%[var(check.gone)]\\r\\n\"",
            "tcp-check set-var(check.want) str(+OK)",
            "tcp-check expect status-code int(42) string-lf %[var(check.want)]"])
        # 2.6 shows no code for an invalid response, and names no log-format pattern
        assert down.startswith('Layer7 invalid response, info: "TCPCHK did not match '
                               'content (log-format string) at step 10"'), down
        assert up.startswith('Layer7 check passed, code: 42, info: "(tcp-check)"'), up
        assert len(f.seen) >= 2
        assert all(x == b"HI-a 2 g=\r\n" for x in f.seen), f.seen
    finally:
        f.stop()


def http_fake_echo(f, s, rd):
    """Answers 200, or 503 until good is set; logs the whole request (head and body)."""
    from rawserver import read_head
    head, cl, _ = read_head(rd)
    if not head.strip():
        return
    body = rd.read_exact(cl) if cl else b""
    f.seen.append(head + body)
    st = b"200 OK" if f.good else b"503 Busy"
    s.sendall(b"HTTP/1.1 " + st + b"\r\nContent-Length: 2\r\nX-Code: 7\r\n"
              b"Connection: close\r\n\r\nok")


def test_http_check_variables_and_log_format_request(proxy, port):
    """http-check set-var feeds uri-lf and body-lf (with its content-length); a failing
    expect reports its error-status and on-error; a passing one its ok-status, on-success
    and status-code; response fetches (status, res.hdr) read the check's response."""
    f = Flip(http_fake_echo)
    try:
        down, up = down_then_up(proxy, port, f, [
            "option httpchk",
            "http-check set-var(check.path) str(/health)",
            "http-check set-var(check.id) int(12)",
            "http-check send meth POST uri-lf %[var(check.path)]?id=%[var(check.id)] "
            "ver HTTP/1.1 hdr Host x body-lf \"id=%[var(check.id)]\"",
            "http-check expect min-recv 10 error-status L7RSP status-code res.hdr(x-code) "
            "on-error \"bad %[var(check.id)] %[status]\" on-success \"good\" ok-status L7OK "
            "status 200"])
        assert down.startswith('Layer7 invalid response, info: "bad 12 503"'), down
        assert up.startswith('Layer7 check passed, code: 7, info: "good"'), up
        req = f.seen[0].decode()
        assert req.startswith("POST /health?id=12 HTTP/1.1\r\n"), req
        assert re.search(r"(?im)^content-length: 5\r$", req), req
        assert req.endswith("\r\n\r\nid=12"), req
    finally:
        f.stop()


def test_http_check_expect_option_errors_name_the_line(tmp_path):
    cfg = tmp_path / "c.cfg"
    cfg.write_text("defaults\n  mode http\n  timeout client 1s\n  timeout server 1s\n"
                   "  timeout connect 1s\nbackend be\n  option httpchk\n"
                   "  http-check expect ok-status L9 status 200\n"
                   "  server s 127.0.0.1:1 check\n")
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0
    assert re.search(r"c\.cfg:8\]", r.stderr) and "ok-status" in r.stderr, r.stderr


@pytest.mark.v32
@pytest.mark.parametrize("with_path", [True, False])
def test_external_check_preserve_env(proxy, port, tmp_path, monkeypatch, with_path):
    """global "external-check preserve-env" (2.7+; 2.6 refuses it): the command keeps the
    process's environment; the HAPROXY_* variables replace any inherited ones, and PATH
    is "external-check path" when given, else the process's."""
    monkeypatch.setenv("CHKX_KEEP", "kept")
    monkeypatch.setenv("HAPROXY_SERVER_NAME", "inherited")
    monkeypatch.setenv("PATH", "/usr/local/bin:/usr/bin:/bin")
    cfg = ext_cfg(tmp_path, port, ["external-check preserve-env", "insecure-fork-wanted"])
    if not with_path:
        cfg = cfg.replace('external-check path "/usr/bin:/bin"', "")
    px = proxy(cfg, [port])
    assert wait_for(lambda: (tmp_path / "env.ok").exists(), 5), px.stderr()
    assert wait_for(lambda: "HAPROXY_SERVER_PORT" in (tmp_path / "env.ok").read_text(), 2)
    env = dict(ln.split("=", 1) for ln in (tmp_path / "env.ok").read_text().splitlines()
               if "=" in ln)
    assert env["CHKX_KEEP"] == "kept"
    assert env["HAPROXY_SERVER_NAME"] == "ok" and env["HAPROXY_PROXY_NAME"] == "px"
    assert env["PATH"] == ("/usr/bin:/bin" if with_path else "/usr/local/bin:/usr/bin:/bin")


def test_external_check_preserve_env_argument_errors(tmp_path):
    cfg = tmp_path / "c.cfg"
    cfg.write_text("global\n  external-check preserve-env now\n")
    r = run_haproxy(["-c", "-f", str(cfg)])
    assert r.returncode != 0 and "c.cfg:2]" in r.stderr, r.stderr
