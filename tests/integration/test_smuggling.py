"""Request-smuggling defences: one test per framing trick, as a raw-socket client sees them.

Owns: TE+CL, duplicate/conflicting Content-Length, Transfer-Encoding codings, chunk-size
overflow, bare LF in chunk framing, invalid header names and values, HTTP/1.0 GET with a
body, obs-fold. Observed behaviour of HAProxy 2.6.12 is noted where 3.2 differs.
"""

import httpc
import pytest
from conftest import make_cfg
from test_errors import PAGE_400, PAGE_413, PAGE_422

POST = b"POST /?echo=1 HTTP/1.1\r\nHost: t\r\n"


@pytest.fixture
def px(proxy, backend, port):
    proxy(make_cfg(port, [backend]), ports=[port])
    return port


def assert_400_closed(port, raw, backend):
    data, closed = httpc.exchange(port, raw, timeout=5)
    assert data == PAGE_400
    assert closed
    assert len(backend.requests) == 0


def test_te_and_cl_drops_cl_and_closes(px, backend):
    raw = POST + (b"Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                  b"3\r\nabc\r\n0\r\n\r\n")
    data, closed = httpc.exchange(px, raw, timeout=5)
    (r,) = httpc.parse_all(data)
    assert r.status == 200
    assert r.body == b"abc"
    assert closed, "the proxy must close the client connection after a TE+CL request"
    req = backend.last()
    assert req.header("Content-Length") is None
    assert req.chunked
    assert req.body == b"abc"


def test_conflicting_content_lengths_400(px, backend):
    assert_400_closed(px, POST + b"Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", backend)


def test_conflicting_content_length_list_400(px, backend):
    assert_400_closed(px, POST + b"Content-Length: 3, 4\r\n\r\nabcd", backend)


def test_identical_duplicate_content_lengths_accepted(px, backend):
    r = httpc.request(px, POST + b"Content-Length: 3\r\nContent-Length: 3\r\n"
                      b"Connection: close\r\n\r\nabc")
    assert r.status == 200
    assert r.body == b"abc"
    assert backend.last().header_all("Content-Length") == ["3"]


def test_content_length_non_digits_400(px, backend):
    assert_400_closed(px, POST + b"Content-Length: 3a\r\n\r\nabc", backend)


def test_content_length_negative_400(px, backend):
    assert_400_closed(px, POST + b"Content-Length: -3\r\n\r\nabc", backend)


def test_te_not_ending_in_chunked_400(px, backend):
    assert_400_closed(px, POST + b"Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n", backend)


def test_te_doubled_chunked_400(px, backend):
    assert_400_closed(px, POST + b"Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
                      backend)


def test_te_only_unknown_coding_400(px, backend):
    # no chunked at all: HAProxy 2.6.12 answers 400 (the request has no usable framing)
    assert_400_closed(px, POST + b"Transfer-Encoding: gzip\r\n\r\n0\r\n\r\n", backend)


def test_te_unknown_coding_before_chunked_422(px, backend):
    # HAProxy 3.x answers 422; Debian's 2.6.12 carries the same fix and answers 422 too
    data, _ = httpc.exchange(px, POST + b"Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
                             timeout=5, until=len(PAGE_422))
    assert data == PAGE_422
    assert len(backend.requests) == 0


def test_chunk_size_overflow_rejected(px, backend):
    raw = POST + b"Transfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nabc\r\n0\r\n\r\n"
    assert_400_closed(px, raw, backend)


@pytest.mark.v32  # HAProxy 2.6.12 accepts "3\nabc" (bare LF after the size) and forwards it
def test_bare_lf_after_chunk_size_rejected(px, backend):
    raw = POST + b"Transfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n"
    data, closed = httpc.exchange(px, raw, timeout=5)
    assert data == PAGE_400 or data == b""
    assert closed
    assert all(r.body_len == 0 for r in backend.requests)


@pytest.mark.v32  # HAProxy 2.6.12 accepts a bare LF after chunk data and forwards it
def test_bare_lf_after_chunk_data_rejected(px, backend):
    raw = POST + b"Transfer-Encoding: chunked\r\n\r\n3\r\nabc\n0\r\n\r\n"
    data, closed = httpc.exchange(px, raw, timeout=5)
    assert not data.startswith(b"HTTP/1.1 200")
    assert closed


def test_space_before_colon_400(px, backend):
    assert_400_closed(px, b"GET / HTTP/1.1\r\nHost : t\r\n\r\n", backend)


def test_invalid_char_in_header_name_400(px, backend):
    assert_400_closed(px, b"GET / HTTP/1.1\r\nHost: t\r\nX(A): b\r\n\r\n", backend)


def test_bare_cr_in_header_value_400(px, backend):
    assert_400_closed(px, b"GET / HTTP/1.1\r\nHost: t\r\nX-A: a\rb\r\n\r\n", backend)


@pytest.mark.v32  # HAProxy 2.6.12 forwards a NUL inside a header value; the issue requires 400
def test_nul_in_header_value_400(px, backend):
    assert_400_closed(px, b"GET / HTTP/1.1\r\nHost: t\r\nX-A: a\x00b\r\n\r\n", backend)


def test_http10_get_with_body_413(px, backend):
    data, _ = httpc.exchange(px, b"GET / HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc",
                             timeout=5, until=len(PAGE_413))
    assert data == PAGE_413
    assert len(backend.requests) == 0


def test_obs_fold_is_unfolded(px, backend):
    # HAProxy accepts obs-fold in requests and replaces the fold (CRLF + spaces) with
    # spaces, so the backend sees one line with no CR/LF in it.
    r = httpc.request(px, b"GET / HTTP/1.1\r\nHost: t\r\nX-A: a\r\n b\r\n"
                      b"Connection: close\r\n\r\n")
    assert r.status == 200
    v = backend.last().header("X-A")
    assert v is not None
    assert v.split() == ["a", "b"]
    assert b"\r\n b" not in backend.last().raw_head
