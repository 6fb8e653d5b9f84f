"""`make install` and `make uninstall` as a packager runs them: the binary, the documentation
and the systemd unit land under DESTDIR/PREFIX, the unit names the installed binary and
documentation, and systemd accepts it (`systemd-analyze verify`, when installed).

Owns: the install/uninstall targets and examples/haproxy.service.
"""

import os
import shutil
import subprocess

import pytest
from conftest import REPO

pytestmark = pytest.mark.ours  # the project's build, not the binary under test


def make(*args):
    return subprocess.run(["make", "-C", str(REPO)] + list(args), capture_output=True,
                          text=True, timeout=600)


def unit_lines(path):
    return [ln for ln in path.read_text().splitlines() if ln and not ln.startswith("#")]


def test_install_tree_and_paths(tmp_path):
    dest = tmp_path / "dest"
    r = make("install", "DESTDIR=%s" % dest)
    assert r.returncode == 0, r.stderr
    sbin = dest / "usr/local/sbin/haproxy"
    unit = dest / "usr/local/lib/systemd/system/haproxy.service"
    doc = dest / "usr/local/share/doc/haproxy"
    assert sbin.is_file() and os.access(sbin, os.X_OK)
    assert (doc / "configuration.md").is_file() and (doc / "management.md").is_file()
    assert (doc / "internals/threads.md").is_file()
    assert (doc / "examples/quickstart.cfg").is_file()
    assert oct(unit.stat().st_mode & 0o777) == "0o644"
    lines = unit_lines(unit)
    assert "Type=notify" in lines
    assert "ExecStartPre=/usr/local/sbin/haproxy -f $CONFIG -c -q $EXTRAOPTS" in lines
    assert "ExecStart=/usr/local/sbin/haproxy -Ws -f $CONFIG -p $PIDFILE $EXTRAOPTS" in lines
    assert "ExecReload=/usr/local/sbin/haproxy -f $CONFIG -c -q $EXTRAOPTS" in lines
    assert "ExecReload=/bin/kill -USR2 $MAINPID" in lines
    assert "KillMode=mixed" in lines and "Restart=always" in lines
    assert "SuccessExitStatus=143" in lines
    assert ('Environment="CONFIG=/etc/haproxy/haproxy.cfg" "PIDFILE=/run/haproxy.pid" '
            '"EXTRAOPTS=-S /run/haproxy-master.sock"') in lines
    assert "Documentation=file:/usr/local/share/doc/haproxy/management.md" in lines
    assert "/usr/sbin/haproxy" not in unit.read_text()
    r = make("uninstall", "DESTDIR=%s" % dest)
    assert r.returncode == 0, r.stderr
    assert not sbin.exists() and not unit.exists() and not doc.exists()


def test_install_prefix_and_systemd_verify(tmp_path):
    prefix = tmp_path / "opt"
    r = make("install", "PREFIX=%s" % prefix)
    assert r.returncode == 0, r.stderr
    unit = prefix / "lib/systemd/system/haproxy.service"
    assert "ExecStart=%s/sbin/haproxy -Ws" % prefix in unit.read_text()
    tool = shutil.which("systemd-analyze")
    if not tool:
        pytest.skip("systemd-analyze not installed")
    r = subprocess.run([tool, "verify", str(unit)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert "haproxy.service" not in r.stderr, r.stderr
    r = make("uninstall", "PREFIX=%s" % prefix)
    assert r.returncode == 0 and not unit.exists()
