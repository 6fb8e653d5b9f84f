"""Privileges and chroot as an operator starting the proxy as root sees them: the serving
process runs as the configured user and group, inside the chroot, and still proxies requests
and answers on its stats socket; unknown names are config errors naming the line.

Owns: user/group/uid/gid/chroot/set-dumpable/setcap (global) at startup and in -c.
"""

import grp
import os
import pwd
import time

import httpc
import pytest
from conftest import cli, make_cfg, run_haproxy, stop_pid

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to drop privileges")

NOBODY = pwd.getpwnam("nobody").pw_uid


def nogroup_gid():
    for name in ("nogroup", "nobody"):
        try:
            return name, grp.getgrnam(name).gr_gid
        except KeyError:
            pass
    pytest.skip("no nogroup/nobody group")


def wait_uid(pid, uid, timeout=5.0):
    """The port answers once bound, a moment before the ids change: wait (bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if status_ids(pid)[0] == uid:
            return True
        time.sleep(0.02)
    return False


def status_ids(pid):
    """(uid, gid, groups) of a process from /proc/PID/status (the real ids)."""
    out = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = v.split()
    return int(out["Uid"][0]), int(out["Gid"][0]), [int(g) for g in out["Groups"]]


def test_user_group_chroot_serves(proxy, backend, port, tmp_path):
    gname, gid = nogroup_gid()
    root = tmp_path / "jail"
    root.mkdir()
    sock = tmp_path / "stats.sock"
    cfg = make_cfg(port, [backend],
                   glob=["user nobody", "group %s" % gname, "chroot %s" % root,
                         "stats socket %s level admin" % sock])
    p = proxy(cfg, ports=[port])
    assert wait_uid(p.pid, NOBODY)
    uid, pgid, groups = status_ids(p.pid)
    assert (uid, pgid) == (NOBODY, gid)
    assert 0 not in groups and set(groups) <= {gid}
    assert os.readlink("/proc/%d/root" % p.pid) == str(root)
    assert os.readlink("/proc/%d/cwd" % p.pid) == str(root)
    r = httpc.get(port, "/x")
    assert r.status == 200
    assert backend.last().path == "/x"
    assert "Name:" in cli(str(sock), "show info") or "Pid:" in cli(str(sock), "show info")


def test_numeric_uid_gid(proxy, backend, port):
    cfg = make_cfg(port, [backend], glob=["uid %d" % NOBODY, "gid %d" % NOBODY])
    p = proxy(cfg, ports=[port])
    assert wait_uid(p.pid, NOBODY)
    uid, gid, groups = status_ids(p.pid)
    assert (uid, gid) == (NOBODY, NOBODY)
    assert groups == []
    assert httpc.get(port, "/").status == 200


def test_unknown_user_is_config_error(tmp_path, port):
    c = tmp_path / "h.cfg"
    c.write_text(make_cfg(port, glob=["user no-such-user-hapx"]))
    r = run_haproxy(["-c", "-f", str(c)])
    assert r.returncode == 1
    assert "parsing [%s:2] : cannot find user id for 'no-such-user-hapx' (0:Success)" % c \
        in r.stderr


def test_unknown_group_is_config_error(tmp_path, port):
    c = tmp_path / "h.cfg"
    c.write_text(make_cfg(port, glob=["group no-such-group-hapx"]))
    r = run_haproxy(["-c", "-f", str(c)])
    assert r.returncode == 1
    assert "parsing [%s:2] : cannot find group id for 'no-such-group-hapx' (0:Success)" % c \
        in r.stderr


@pytest.mark.parametrize("lines,msg", [
    (["user nobody", "uid 1"], "user/uid already specified. Continuing."),
    (["gid 1", "gid 2"], "group/gid already specified. Continuing."),
    (["gid 1", "group root"], "gid/group was already specified. Continuing."),
    (["chroot /a", "chroot /b"], "'chroot' already specified. Continuing."),
    (["uid abc"], "uid: string 'abc' is not a number."),
    (["gid abc"], "gid: string 'abc' is not a number."),
])
def test_repeated_or_bad_ids_continue(tmp_path, port, lines, msg):
    c = tmp_path / "h.cfg"
    c.write_text(make_cfg(port, glob=lines))
    r = run_haproxy(["-c", "-f", str(c)])
    assert r.returncode == 0, r.stderr
    assert msg in r.stderr


def test_chroot_without_dir_is_config_error(tmp_path, port):
    c = tmp_path / "h.cfg"
    c.write_text(make_cfg(port, glob=["chroot"]))
    r = run_haproxy(["-c", "-f", str(c)])
    assert r.returncode == 1
    assert "'chroot' expects a directory as an argument." in r.stderr


def test_missing_chroot_is_fatal_at_start(tmp_path, port):
    c = tmp_path / "h.cfg"
    c.write_text(make_cfg(port, glob=["chroot /nonexistent-hapx"]))
    r = run_haproxy(["-f", str(c)], timeout=10)
    assert r.returncode == 1
    assert "Cannot chroot(/nonexistent-hapx)." in r.stderr


def test_set_dumpable_after_setuid(proxy, backend, port):
    cfg = make_cfg(port, [backend], glob=["user nobody", "set-dumpable"])
    p = proxy(cfg, ports=[port])
    assert wait_uid(p.pid, NOBODY)
    # a non-dumpable process's /proc files belong to root; a dumpable one's to its uid
    assert os.stat("/proc/%d/status" % p.pid).st_uid == NOBODY
    assert httpc.get(port, "/").status == 200


def test_not_dumpable_by_default_after_setuid(proxy, backend, port):
    cfg = make_cfg(port, [backend], glob=["user nobody"])
    p = proxy(cfg, ports=[port])
    assert wait_uid(p.pid, NOBODY)
    assert os.stat("/proc/%d/status" % p.pid).st_uid == 0


def test_set_dumpable_takes_no_argument(tmp_path, port):
    c = tmp_path / "h.cfg"
    c.write_text(make_cfg(port, glob=["set-dumpable x"]))
    r = run_haproxy(["-c", "-f", str(c)])
    assert r.returncode == 1


@pytest.mark.ours  # setcap came with HAProxy 2.9; 2.6 does not know it
def test_setcap_keeps_bind_capability(proxy, backend, port):
    cfg = make_cfg(port, [backend], glob=["user nobody", "setcap cap_net_bind_service"])
    p = proxy(cfg, ports=[port])
    assert wait_uid(p.pid, NOBODY)
    with open("/proc/%d/status" % p.pid) as f:
        caps = {k: int(v, 16) for k, _, v in (ln.partition(":") for ln in f)
                if k in ("CapPrm", "CapEff")}
    assert caps["CapEff"] == 1 << 10 and caps["CapPrm"] == 1 << 10
    assert httpc.get(port, "/").status == 200


@pytest.mark.ours
def test_setcap_unknown_capability(tmp_path, port):
    c = tmp_path / "h.cfg"
    c.write_text(make_cfg(port, glob=["setcap cap_chown"]))
    r = run_haproxy(["-c", "-f", str(c)])
    assert r.returncode == 1
    assert "parsing [%s:2] : 'setcap' : unsupported capability 'cap_chown'" % c in r.stderr



@pytest.mark.ours  # HAProxy leaves its pidfile behind; we remove it when nothing changed yet
def test_failed_chroot_removes_pidfile(tmp_path, port):
    c = tmp_path / "h.cfg"
    pid = tmp_path / "h.pid"
    c.write_text(make_cfg(port, glob=["chroot /nonexistent-hapx"]))
    r = run_haproxy(["-f", str(c), "-p", str(pid)], timeout=10)
    assert r.returncode == 1
    assert not pid.exists()


def test_daemon_pidfile_written_before_chroot(backend, port, tmp_path):
    root = tmp_path / "jail"
    root.mkdir()
    pid = tmp_path / "h.pid"
    c = tmp_path / "h.cfg"
    c.write_text(make_cfg(port, [backend], glob=["user nobody", "chroot %s" % root]))
    r = run_haproxy(["-D", "-f", str(c), "-p", str(pid)], timeout=10)
    assert r.returncode == 0, r.stderr
    daemon = int(pid.read_text().split()[0])
    try:
        assert wait_uid(daemon, NOBODY)
        assert os.readlink("/proc/%d/root" % daemon) == str(root)
        assert httpc.get(port, "/").status == 200
    finally:
        stop_pid(daemon)
