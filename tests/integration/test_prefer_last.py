"""`option prefer-last-server`: a client connection that keeps its own server connection
(`http-reuse never`) sends its next requests to that server; with shared idle connections
(`http-reuse safe`, the default) the load balancer still chooses, as in HAProxy 2.6.

Owns: which server answers each request of a keep-alive client. Runs against Debian's
haproxy too (reference mode).
"""

import http.client

import pytest

HEAD = ["defaults", "    mode http", "    timeout connect 2s", "    timeout client 10s",
        "    timeout server 10s"]


def servers_seen(port, conns=2, reqs=5):
    out = []
    for _ in range(conns):
        h = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        seq = []
        for _ in range(reqs):
            h.request("GET", "/")
            r = h.getresponse()
            r.read()
            assert r.status == 200
            seq.append(r.getheader("x-server"))
        h.close()
        out.append(seq)
    return out


@pytest.mark.parametrize("opts,sticky", [
    (["option prefer-last-server", "http-reuse never"], True),
    (["option prefer-last-server"], False),
    (["http-reuse never"], False),
])
def test_prefer_last_server(proxy, backends, port, opts, sticky):
    a, b = backends(2)
    cfg = HEAD + ["listen l", "    bind 127.0.0.1:%d" % port] + ["    " + o for o in opts]
    cfg += ["    server s1 127.0.0.1:%d" % a.port, "    server s2 127.0.0.1:%d" % b.port]
    proxy("\n".join(cfg) + "\n", ports=[port])
    for seq in servers_seen(port):
        if sticky:
            assert len(set(seq)) == 1, seq
        else:
            assert set(seq) == {"s1", "s2"}, seq


def test_prefer_last_server_leaves_a_down_server(proxy, backends, port):
    """The kept server goes away: the next request goes to the other one."""
    a, b = backends(2)
    cfg = HEAD + ["listen l", "    bind 127.0.0.1:%d" % port, "    option prefer-last-server",
                  "    http-reuse never", "    option redispatch", "    retries 1",
                  "    server s1 127.0.0.1:%d" % a.port, "    server s2 127.0.0.1:%d" % b.port]
    proxy("\n".join(cfg) + "\n", ports=[port])
    h = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    h.request("GET", "/")
    r = h.getresponse()
    r.read()
    first = r.getheader("x-server")
    (a if first == "s1" else b).stop()
    h.request("GET", "/")
    r = h.getresponse()
    r.read()
    assert r.status == 200 and r.getheader("x-server") != first
    h.close()
