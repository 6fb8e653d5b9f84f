"""Server state files: what `show servers state` wrote, read back at startup with
`server-state-file` / `server-state-base` / `load-server-state-from-file` /
`server-state-file-name`: maintenance and weights set at run time survive a restart.
"""

from conftest import cli, free_port, run_haproxy
from httpc import get

HDR = ("1\n# be_id be_name srv_id srv_name srv_addr srv_op_state srv_admin_state "
       "srv_uweight srv_iweight srv_time_since_last_change srv_check_status srv_check_result "
       "srv_check_health srv_check_state srv_agent_state bk_f_forced_id srv_f_forced_id "
       "srv_fqdn srv_port srvrecord srv_use_ssl srv_check_port srv_check_addr srv_agent_addr "
       "srv_agent_port\n")


def line(be, sid, name, port, op=2, admin=0, uw=1, iw=1):
    """A line as 2.6 writes it (a stopped server has health 0)."""
    return ("3 %s %d %s 127.0.0.1 %d %d %d %d 100 1 0 %d 0 0 0 0 - %d - 0 0 - - 0\n"
            % (be, sid, name, op, admin, uw, iw, 0 if op == 0 else 2, port))


def cfg(port, sock, bs, glob, be_extra):
    lines = ["global", "    stats socket %s level admin" % sock] + ["    " + g for g in glob]
    lines += ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 5s",
              "    timeout server 5s", "backend be"] + ["    " + x for x in be_extra]
    lines += ["    server %s 127.0.0.1:%d" % (b.name, b.port) for b in bs]
    lines += ["frontend fe", "    bind 127.0.0.1:%d" % port, "    default_backend be"]
    return "\n".join(lines) + "\n"


def srv_states(sock):
    out = cli(str(sock), "show servers state be")
    rows = {}
    for ln in out.splitlines()[2:]:
        f = ln.split()
        if len(f) > 8:
            rows[f[3]] = dict(op=int(f[5]), admin=int(f[6]), uw=int(f[7]))
    return rows


def test_global_file_restores_maint_and_weight(proxy, backends, tmp_path):
    bs = backends(3)
    state = tmp_path / "state"
    state.write_text(HDR + line("be", 1, "s1", bs[0].port, admin=1, op=0)
                     + line("be", 2, "s2", bs[1].port, uw=3)
                     + line("be", 3, "s3", bs[2].port))
    port, sock = free_port(), tmp_path / "s.sock"
    p = proxy(cfg(port, sock, bs, ["server-state-file %s" % state],
                  ["load-server-state-from-file global"]), ports=[port])
    st = srv_states(sock)
    assert st["s1"]["admin"] & 1 and st["s2"]["uw"] == 3 and st["s3"]["uw"] == 1
    got = [get(port, "/").header("x-server") for _ in range(8)]
    assert "s1" not in got and got.count("s2") == 6 and got.count("s3") == 2
    assert p.alive()


def test_local_file_with_base(proxy, backends, tmp_path):
    bs = backends(2)
    (tmp_path / "states").mkdir()
    (tmp_path / "states" / "mybe").write_text(HDR + line("be", 2, "s2", bs[1].port, admin=1))
    port, sock = free_port(), tmp_path / "s.sock"
    proxy(cfg(port, sock, bs, ["server-state-base %s/states" % tmp_path],
              ["load-server-state-from-file local", "server-state-file-name mybe"]),
          ports=[port])
    got = {get(port, "/").header("x-server") for _ in range(4)}
    assert got == {"s1"}


def test_changed_config_weight_wins(proxy, backends, tmp_path):
    bs = backends(1)
    state = tmp_path / "state"
    state.write_text(HDR + line("be", 1, "s1", bs[0].port, uw=7, iw=5))  # config says 1
    port, sock = free_port(), tmp_path / "s.sock"
    proxy(cfg(port, sock, bs, ["server-state-file %s" % state],
              ["load-server-state-from-file global"]), ports=[port])
    assert srv_states(sock)["s1"]["uw"] == 1


def test_missing_file_is_a_warning(proxy, backends, tmp_path):
    bs = backends(1)
    port, sock = free_port(), tmp_path / "s.sock"
    p = proxy(cfg(port, sock, bs, ["server-state-file %s/nope" % tmp_path],
                  ["load-server-state-from-file global"]), ports=[port])
    assert get(port, "/").status == 200
    assert "nope" in p.stderr()


def test_config_errors(tmp_path):
    p = tmp_path / "t.cfg"
    p.write_text("defaults\n mode http\n timeout client 1s\n timeout server 1s\n"
                 " timeout connect 1s\nbackend b\n load-server-state-from-file foo\n"
                 " server s1 127.0.0.1:1\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode != 0
    assert ("t.cfg:7] : 'load-server-state-from-file' expects 'global', 'local' or 'none'. "
            "Got 'foo'") in r.stderr
    p.write_text("defaults\n mode http\n timeout client 1s\n timeout server 1s\n"
                 " timeout connect 1s\nbackend b\n server-state-file-name a b\n"
                 " server s1 127.0.0.1:1\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode != 0
    assert "t.cfg:7] : 'server-state-file-name' cannot handle unexpected argument 'b'." \
        in r.stderr


# init-addr last: srv_addr and srv_port restored as 2.6 does (checked against 2.6.12)

def line_at(be, sid, name, addr, port, fqdn="-"):
    return ("3 %s %d %s %s 2 0 1 1 100 1 0 2 0 0 0 0 %s %d - 0 0 - - 0\n"
            % (be, sid, name, addr, fqdn, port))


def addr_cfg(port, sock, state, servers):
    lines = ["global", "    stats socket %s level admin" % sock,
             "    server-state-file %s" % state, "defaults", "    mode http",
             "    timeout connect 2s", "    timeout client 5s", "    timeout server 5s",
             "backend be", "    load-server-state-from-file global"]
    lines += ["    " + s for s in servers]
    lines += ["frontend fe", "    bind 127.0.0.1:%d" % port, "    default_backend be"]
    return "\n".join(lines) + "\n"


def srv_addrs(sock):
    out = cli(str(sock), "show servers state be")
    return {f[3]: (f[4], int(f[18])) for f in (ln.split() for ln in out.splitlines()[2:])
            if len(f) > 18}


def test_init_addr_last_restores_address_and_port(proxy, backends, tmp_path):
    """A host name no method can resolve starts at the saved address and port."""
    bs = backends(1)
    state = tmp_path / "state"
    state.write_text(HDR + line_at("be", 1, "s1", "127.0.0.1", bs[0].port, "nx.invalid"))
    port, sock = free_port(), tmp_path / "s.sock"
    proxy(addr_cfg(port, sock, state, ["server s1 nx.invalid:1 init-addr last"]),
          ports=[port])
    assert srv_addrs(sock)["s1"] == ("127.0.0.1", bs[0].port)
    assert get(port, "/").status == 200


def test_default_last_before_libc(proxy, backends, tmp_path):
    """Default "last,libc": the saved address wins over libc's; "libc,last" keeps libc's;
    a server written with an IP keeps its address but takes the saved port."""
    bs = backends(1)
    state = tmp_path / "state"
    state.write_text(HDR + line_at("be", 1, "s1", "127.0.0.7", 8001, "localhost")
                     + line_at("be", 2, "s2", "127.0.0.8", 8002, "localhost")
                     + line_at("be", 3, "s3", "127.0.0.9", bs[0].port))
    port, sock = free_port(), tmp_path / "s.sock"
    proxy(addr_cfg(port, sock, state, ["server s1 localhost:7001 weight 0",
                                       "server s2 localhost:7002 init-addr libc,last weight 0",
                                       "server s3 127.0.0.1:1 weight 256"]), ports=[port])
    a = srv_addrs(sock)
    assert a["s1"] == ("127.0.0.7", 8001)
    assert a["s2"] == ("127.0.0.1", 8002)
    assert a["s3"] == ("127.0.0.1", bs[0].port)
    assert get(port, "/").header("x-server") == bs[0].name


def test_init_addr_last_without_state_is_an_error(tmp_path):
    p = tmp_path / "t.cfg"
    p.write_text("defaults\n mode http\n timeout client 1s\n timeout server 1s\n"
                 " timeout connect 1s\nbackend b\n server s1 nx.invalid:80 init-addr last\n")
    r = run_haproxy(["-c", "-f", str(p)])
    assert r.returncode != 0
    assert "t.cfg:7] : 'server b/s1' : no method found to resolve address 'nx.invalid'." \
        in r.stderr
    assert "Failed to initialize server(s) addr." in r.stderr
