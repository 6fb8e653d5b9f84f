"""Reviewer's reproducers for engine bugs found by reading the code (stream timers, queue,
early responses). Each test states the sequence it drives; failing tests are bugs to fix.
"""

import os
import socket
import threading
import time

import httpc
import pytest
from backend import Reader
from conftest import make_cfg


def _get_async(port, path, out, key, delay=0.0):
    time.sleep(delay)
    try:
        t0 = time.monotonic()
        r = httpc.request(port, ("GET %s HTTP/1.1\r\nHost: t\r\n\r\n" % path).encode(),
                          timeout=8)
        out[key] = (r.status, time.monotonic() - t0)
    except Exception as e:  # noqa: BLE001 - the failure itself is the result
        out[key] = (repr(e), time.monotonic() - t0)


def test_review_queue_timer_not_disarmed_after_wakeup(proxy, backend, port):
    # maxconn 1, timeout queue 1s. A (0.7 s) takes the slot, B waits in the queue with
    # s->tmr armed at +1 s; B is woken at ~0.7 s and its exchange lasts until ~1.4 s.
    # The queue timer was never disarmed, so it fires at ~1.0 s in SS_EXCHANGE with c=NULL
    # and stream_timeout() aborts B: the client sees the connection closed, no response.
    proxy(make_cfg(port, [backend], defaults=["timeout queue 1s"], srv_opts="maxconn 1"),
          ports=[port])
    out = {}
    ta = threading.Thread(target=_get_async, args=(port, "/?delay=0.7", out, "a"))
    tb = threading.Thread(target=_get_async, args=(port, "/?delay=0.7", out, "b", 0.1))
    ta.start()
    tb.start()
    ta.join(10)
    tb.join(10)
    assert out["a"][0] == 200
    assert out["b"][0] == 200, out


def test_review_front_timer_left_armed_while_queued(proxy, backend, port):
    # timeout http-request 300ms applies to receiving the request head only. B's head is
    # complete at once, then B waits in the queue (timeout queue 5s). The front timer armed
    # at accept (http-request deadline) is never re-armed in SS_QUEUED, fires, and
    # stream_timeout(s, front) treats it as a queue expiry: 503 after ~0.3 s.
    proxy(make_cfg(port, [backend], defaults=["timeout queue 5s",
                                              "timeout http-request 300ms"],
                   srv_opts="maxconn 1"), ports=[port])
    out = {}
    ta = threading.Thread(target=_get_async, args=(port, "/?delay=1.0", out, "a"))
    tb = threading.Thread(target=_get_async, args=(port, "/", out, "b", 0.05))
    ta.start()
    tb.start()
    ta.join(10)
    tb.join(10)
    assert out["a"][0] == 200
    assert out["b"][0] == 200, out


def _blackhole_listener():
    """A listening socket whose accept queue is full: a connect() to it hangs (SYN dropped)."""
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(0)
    fillers = []
    for _ in range(3):
        c = socket.socket()
        c.setblocking(False)
        try:
            c.connect(ls.getsockname())
        except BlockingIOError:
            pass
        fillers.append(c)
    time.sleep(0.2)
    return ls, fillers


def test_review_front_timer_left_armed_while_connecting(proxy, port):
    # The same stale front timer in SS_CONNECTING: a connect that takes longer than the
    # remaining http-request time is counted as a failed attempt and retried; with
    # retries 0 the client gets 503 after ~0.3 s although timeout connect is 3 s.
    ls, fillers = _blackhole_listener()
    try:
        proxy(make_cfg(port, [("s1", ls.getsockname()[1])],
                       defaults=["timeout http-request 300ms", "timeout connect 3s",
                                 "retries 0"]), ports=[port])
        t0 = time.monotonic()
        r = httpc.request(port, b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", timeout=8)
        t = time.monotonic() - t0
    finally:
        for c in fillers:
            c.close()
        ls.close()
    assert r.status == 503
    assert t >= 2.5, "503 after %.2f s: the http-request timer cut the connect short" % t


def _early_responder(reply, close_how="close"):
    """A server that reads one request head, answers <reply> at once without reading the
    body, then closes (unread body bytes make the kernel send a RST)."""
    ls = socket.socket()
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", 0))
    ls.listen(16)

    def run():
        while True:
            try:
                c, _ = ls.accept()
            except OSError:
                return
            data = b""
            c.settimeout(5)
            try:
                while b"\r\n\r\n" not in data:
                    d = c.recv(4096)
                    if not d:
                        break
                    data += d
                c.sendall(reply)
                if close_how == "linger":
                    time.sleep(0.05)
                c.close()
            except OSError:
                pass

    threading.Thread(target=run, daemon=True).start()
    return ls


def test_review_early_response_during_upload(proxy, port):
    # The server answers 413 right after the request head and closes while the client is
    # still uploading. stream_exchange() forwards the request body first; the send to the
    # closed server fails (EPIPE/ECONNRESET) and the stream answers 502 before it ever
    # looks at the 413 waiting in the back connection's receive queue. The server did
    # answer: a 502 (counted as a failed response) is wrong; the 413 should be relayed.
    ls = _early_responder(b"HTTP/1.1 413 Payload Too Large\r\ncontent-length: 0\r\n"
                          b"connection: close\r\n\r\n")
    try:
        proxy(make_cfg(port, [("s1", ls.getsockname()[1])]), ports=[port])
        statuses = []
        for _ in range(15):
            with httpc.connect(port, timeout=5) as s:
                s.sendall(b"POST /up HTTP/1.1\r\nHost: t\r\nContent-Length: 4000000\r\n\r\n")
                data = b""
                try:
                    for _ in range(60):
                        s.sendall(b"x" * 65536)
                        time.sleep(0.005)
                except OSError:
                    pass
                data, _ = httpc.recv_until_close(s, 3)
                statuses.append(data.split(b"\r\n", 1)[0])
    finally:
        ls.close()
    # (an empty read is the client's own RST from the proxy's close: not judged here)
    assert not any(b" 502 " in st for st in statuses), statuses


def test_review_slow_reader_not_cut_by_timeout_server(proxy, backend, port):
    # timeout server 1s, timeout client 10s. A 4 MB response; the client stops reading for
    # 2.5 s. The server is not the one stalling (the proxy does not read it because its
    # buffer is full), yet stream_set_timers() keeps the back deadline at
    # b->last_act + timeout server, which fires: the response is cut (stream_abort).
    size = 4 * 1024 * 1024
    proxy(make_cfg(port, [backend], defaults=["timeout server 1s", "timeout client 10s"]),
          ports=[port])
    with httpc.connect(port, timeout=10) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
        s.sendall(b"GET /?size=%d HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n" % size)
        first = s.recv(65536)
        time.sleep(2.5)
        rest, closed = httpc.recv_until_close(s, 8)
    data = first + rest
    head, _, body = data.partition(b"\r\n\r\n")
    assert b" 200 " in head.split(b"\r\n")[0]
    assert len(body) == size, "body cut at %d of %d bytes" % (len(body), size)


def test_review_no_reuse_of_server_conn_that_sent_fin(proxy, port):
    # The server answers with a keep-alive HTTP/1.1 response and closes right after it.
    # The response and the FIN arrive in one edge (EPOLLIN|EPOLLRDHUP): conn_recv() keeps
    # CO_FL_CAN_RECV but never reads the 0, so RD_EOF is not set; h1_back_park() does not
    # look at CO_FL_RDHUP and parks the dead connection. No new edge will ever come, so it
    # is not purged: the next request is sent on it and gets a 502.
    ls = _early_responder(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
    try:
        proxy(make_cfg(port, [("s1", ls.getsockname()[1])]), ports=[port])
        statuses = []
        for _ in range(10):
            r = httpc.request(port, b"GET / HTTP/1.1\r\nHost: t\r\n\r\n", timeout=5)
            statuses.append(r.status)
            time.sleep(0.05)
    finally:
        ls.close()
    assert statuses == [200] * 10, statuses


def _stop_cfg(port, backend, glob=()):
    cfg = make_cfg(port, [backend], glob=["nbthread 2"] + list(glob))
    return cfg.replace("bind 127.0.0.1:%d" % port, "bind 127.0.0.1:%d thread 2" % port)


def _slow_request(port, out):
    try:
        out["st"] = httpc.get(port, "/?delay=6", timeout=10).status
    except Exception as e:  # noqa: BLE001
        out["st"] = repr(e)


def test_review_hard_stop_after_when_thread0_is_idle(proxy, backend, port):
    # Only thread 2 accepts, so thread 1 (tid 0) owns no connection. After SIGUSR1 thread 0
    # leaves its loop at once (stop_check: no connection, nobody listening) and with it goes
    # hard_stop_timer, which lives in thread 0's heap: hard-stop-after 1s never fires and
    # the process waits for the 6 s request.
    import signal
    p = proxy(_stop_cfg(port, backend, ["hard-stop-after 1s"]), ports=[port])
    out = {}
    th = threading.Thread(target=_slow_request, args=(port, out))
    th.start()
    time.sleep(0.3)
    t0 = time.monotonic()
    os.kill(p.pid, signal.SIGUSR1)
    try:
        p.proc.wait(timeout=4)
    except Exception:  # noqa: BLE001
        pass
    t = time.monotonic() - t0
    th.join(10)
    assert t < 3, "hard-stop-after 1s: the process exited only after %.1f s" % t


def test_review_sigterm_after_sigusr1_when_thread0_is_idle(proxy, backend, port):
    # Same layout. After SIGUSR1, thread 0 has left its loop, and it alone polls the
    # signalfd (every thread blocks the signals): a later SIGTERM is never read.
    import signal
    p = proxy(_stop_cfg(port, backend), ports=[port])
    out = {}
    th = threading.Thread(target=_slow_request, args=(port, out))
    th.start()
    time.sleep(0.3)
    os.kill(p.pid, signal.SIGUSR1)
    time.sleep(0.3)
    t0 = time.monotonic()
    os.kill(p.pid, signal.SIGTERM)
    try:
        p.proc.wait(timeout=4)
    except Exception:  # noqa: BLE001
        pass
    t = time.monotonic() - t0
    th.join(10)
    assert t < 2, "SIGTERM after SIGUSR1 took %.1f s to stop the process" % t


def test_review_server_maxconn_is_strict_across_threads(proxy, backends, port):
    # backend_assign(): the LB round checks srv_full() (cur_conns < maxconn), then the slot
    # is taken with an unconditional atomic increment. Two threads that check at the same
    # time both take "the last" slot: maxconn 1 lets 2 requests reach the server.
    import concurrent.futures
    b = backends(1)[0]
    cfg = make_cfg(port, [b], glob=["nbthread 4"], srv_opts="maxconn 1",
                   defaults=["timeout queue 30s"])
    proxy(cfg, ports=[port])

    def one(i):
        return httpc.get(port, "/?delay=0.002", timeout=30).status

    with concurrent.futures.ThreadPoolExecutor(max_workers=32) as ex:
        statuses = list(ex.map(one, range(400)))
    assert statuses == [200] * 400
    assert b.max_concurrency() <= 1
