/* Unit tests of the HTTP/1 header-block parser (src/http/h1.c): normal messages, every
 * framing and smuggling rule, limits, and every split point of valid and invalid input.
 */
#include <stdint.h>
#include <http/h1.h>
#include "../test.h"

static struct h1_hdr hdrs[128];
static struct h1_msg msg;
static const struct h1_limits lim_dflt = { .max_hdr_block = 15360, .max_hdr = 101 };

static int parse_lim(const char *s, size_t len, bool resp, const struct h1_limits *lim)
{
	msg.hdr = hdrs;
	msg.max_hdr = 128;
	return h1_parse_headers(s, len, &msg, resp, lim);
}

static int req(const char *s)
{
	return parse_lim(s, strlen(s), false, &lim_dflt);
}

static int resp(const char *s)
{
	return parse_lim(s, strlen(s), true, &lim_dflt);
}

/* Parses <s> as a request and returns the error code, 0 when valid, -2 when incomplete. */
static int req_err(const char *s)
{
	int ret = req(s);

	return ret > 0 ? 0 : ret == H1_INCOMPLETE ? -2 : msg.err_code;
}

static int resp_err(const char *s)
{
	int ret = resp(s);

	return ret > 0 ? 0 : ret == H1_INCOMPLETE ? -2 : msg.err_code;
}

static bool ist_is(struct ist v, const char *s)
{
	return v.len == strlen(s) && memcmp(v.ptr, s, v.len) == 0;
}

#define GET6 "GET /index.html?q=1 HTTP/1.1\r\n" \
	"Host: www.example.com\r\n"             \
	"User-Agent: curl/7.88.1\r\n"           \
	"Accept: */*\r\n"                       \
	"Accept-Encoding: gzip, deflate\r\n"    \
	"Connection: keep-alive\r\n"            \
	"X-Forwarded-For: 192.0.2.1\r\n"        \
	"\r\n"

TEST(h1_req_simple)
{
	CHECK_INT(req(GET6), strlen(GET6));
	CHECK_INT(msg.hdr_len, strlen(GET6));
	CHECK(ist_is(msg.meth, "GET"));
	CHECK(ist_is(msg.uri, "/index.html?q=1"));
	CHECK(ist_is(msg.vsn, "HTTP/1.1"));
	CHECK_INT(msg.nhdr, 6);
	CHECK(ist_is(hdrs[0].n, "Host"));
	CHECK(ist_is(hdrs[0].v, "www.example.com"));
	CHECK_INT(hdrs[0].id, H1_HDR_HOST);
	CHECK(ist_is(hdrs[3].v, "gzip, deflate"));
	CHECK_INT(hdrs[3].id, H1_HDR_OTHER);
	CHECK_INT(hdrs[4].id, H1_HDR_CONNECTION);
	CHECK(ist_is(hdrs[5].n, "X-Forwarded-For"));
	CHECK_INT(hdrs[5].skip, 0);
	CHECK_INT(msg.flags, H1_MF_VER_11 | H1_MF_METH_GET | H1_MF_XFER_LEN | H1_MF_CONN_KAL);
}

TEST(h1_req_bare_lf)
{
	const char *s = "GET / HTTP/1.0\nHost: a\nX: b\n\n";

	CHECK_INT(req(s), strlen(s));
	CHECK_INT(msg.nhdr, 2);
	CHECK(ist_is(hdrs[1].v, "b"));
	CHECK(msg.flags & H1_MF_VER_10);
	CHECK(!(msg.flags & H1_MF_VER_11));
}

TEST(h1_req_leading_empty_lines)
{
	const char *s = "\r\n\nGET / HTTP/1.1\r\n\r\n";

	CHECK_INT(req(s), strlen(s));
	CHECK(ist_is(msg.uri, "/"));
	CHECK_INT(req_err("\r\rGET / HTTP/1.1\r\n\r\n"), 400);
}

TEST(h1_req_value_trim)
{
	const char *s = "GET / HTTP/1.1\r\nA:   x y \t \r\nB:\r\nC: \t\r\nD:z\r\n\r\n";

	CHECK_INT(req(s), strlen(s));
	CHECK(ist_is(hdrs[0].v, "x y"));
	CHECK(ist_is(hdrs[1].v, ""));
	CHECK(ist_is(hdrs[2].v, ""));
	CHECK(ist_is(hdrs[3].v, "z"));
}

TEST(h1_req_multiple_spaces_after_method)
{
	CHECK_INT(req_err("GET  / HTTP/1.1\r\n\r\n"), 0);
	CHECK(ist_is(msg.uri, "/"));
}

TEST(h1_req_pipelined)
{
	const char *s = "GET /a HTTP/1.1\r\nHost: a\r\n\r\nGET /b HTTP/1.1\r\nHost: b\r\n\r\n";

	CHECK_INT(req(s), strlen(s) / 2);
	CHECK(ist_is(msg.uri, "/a"));
	CHECK_INT(req(s + strlen(s) / 2), strlen(s) / 2);
	CHECK(ist_is(msg.uri, "/b"));
	/* a body after the headers is not part of the block */
	s = "POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET";
	CHECK_INT(req(s), strlen(s) - 6);
}

TEST(h1_req_bad_version)
{
	CHECK_INT(req_err("GET / HTTP/2.0\r\n\r\n"), 400);
	CHECK_INT(req_err("GET / HTTP/1.2\r\n\r\n"), 400);
	CHECK_INT(req_err("GET / http/1.1\r\n\r\n"), 400);
	CHECK_INT(req_err("GET / HTTP/1.1 \r\n\r\n"), 400);
	CHECK_INT(req_err("GET / HTTP/1.10\r\n\r\n"), 400);
	CHECK_INT(req_err("GET /\r\n\r\n"), 400); /* HTTP/0.9 */
	CHECK_INT(req_err("GET / \r\n\r\n"), 400);
	CHECK_INT(req_err("GET / HTTP/1.1\r\r\n\r\n"), 400);
	CHECK_INT(req_err("GET / HTTP/1.1\rX\r\n"), 400);
}

TEST(h1_req_bad_method)
{
	CHECK_INT(req_err("G(T / HTTP/1.1\r\n\r\n"), 400);
	CHECK_INT(req_err(" / HTTP/1.1\r\n\r\n"), 400);
	CHECK_INT(req_err("\x16\x03\x01\x02\x00"), 400); /* TLS on a clear port */
	CHECK_INT(req_err("GET\t/ HTTP/1.1\r\n\r\n"), 400);
	CHECK_INT(req_err("PATCH / HTTP/1.1\r\n\r\n"), 0);
	CHECK_INT(req_err("M-SEARCH * HTTP/1.1\r\n\r\n"), 0);
}

TEST(h1_req_bad_target)
{
	CHECK_INT(req_err("GET /\x01 HTTP/1.1\r\n\r\n"), 400);
	CHECK_INT(req_err("GET /\x7f HTTP/1.1\r\n\r\n"), 400);
	CHECK_INT(req_err("GET /\x80 HTTP/1.1\r\n\r\n"), 400);
	CHECK_INT(req_err("GET /\t HTTP/1.1\r\n\r\n"), 400);
	CHECK_INT(req_err("GET /a b HTTP/1.1\r\n\r\n"), 400);
	CHECK_INT(req_err("GET /\"<>{}|^` HTTP/1.1\r\n\r\n"), 0);
	CHECK_INT(req_err("GET http://a.b:80/x HTTP/1.1\r\n\r\n"), 0);
}

TEST(h1_hdr_bad_name)
{
	CHECK_INT(req_err("GET / HTTP/1.1\r\nX(: a\r\n\r\n"), 400);
	CHECK_INT(req_err("GET / HTTP/1.1\r\n: a\r\n\r\n"), 400);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nX : a\r\n\r\n"), 400);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nX\t: a\r\n\r\n"), 400);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nXa\r\n\r\n"), 400);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nX\x80: a\r\n\r\n"), 400);
	CHECK_INT(parse_lim("GET / HTTP/1.1\r\nX\0: a\r\n\r\n", 26, false, &lim_dflt), H1_INVALID);
	CHECK_INT(msg.err_code, 400);
	CHECK_INT(msg.err_pos, 17);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nX-y_z.1~!#$%&'*+^`|: a\r\n\r\n"), 0);
}

TEST(h1_hdr_bad_value)
{
	static const char bad[] = { 0x00, 0x01, 0x08, 0x0b, 0x0c, 0x1f, 0x7f, '\r' };
	char s[64];
	size_t i;

	for (i = 0; i < sizeof(bad); i++) {
		int n = snprintf(s, sizeof(s), "GET / HTTP/1.1\r\nX: a%cb\r\n\r\n", 'Q');

		s[20] = bad[i];
		CHECK_INT(parse_lim(s, n, false, &lim_dflt), H1_INVALID);
		CHECK_INT(msg.err_code, 400);
		CHECK_INT(msg.err_pos, 20);
	}
	CHECK_INT(req_err("GET / HTTP/1.1\r\nX: a\tb\x80\xff\r\n\r\n"), 0);
	CHECK(ist_is(hdrs[0].v, "a\tb\x80\xff"));
}

TEST(h1_hdr_obs_fold)
{
	/* folded values are accepted, as HAProxy does; the view spans the fold */
	CHECK_INT(req_err("GET / HTTP/1.1\r\nX: a\r\n b\r\nY: c\r\n\r\n"), 0);
	CHECK_INT(msg.nhdr, 2);
	CHECK(ist_is(hdrs[0].v, "a\r\n b"));
	CHECK_INT(hdrs[0].folded, 1);
	CHECK_INT(hdrs[1].folded, 0);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nX: a\n\tb \n\r\n"), 0);
	CHECK(ist_is(hdrs[0].v, "a\n\tb"));
	/* a fold right after the start line is not a continuation: 400 */
	CHECK_INT(req_err("GET / HTTP/1.1\r\n Host: a\r\n\r\n"), 400);
	/* incomplete until the line after the fold is seen */
	CHECK_INT(req_err("GET / HTTP/1.1\r\nX: a\r\n b"), -2);
}

TEST(h1_hdr_clen_duplicates_narrowed)
{
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n"), 0);
	CHECK_INT(hdrs[0].skip, 0);
	CHECK_INT(hdrs[1].skip, 1);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 3 , 3\r\n\r\n"), 0);
	CHECK(ist_is(hdrs[0].v, "3"));
	CHECK_INT(msg.body_len, 3);
}

TEST(h1_hdr_bare_cr)
{
	CHECK_INT(req_err("GET / HTTP/1.1\r\nX: a\rb\r\n\r\n"), 400);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nX: a\r\r\n\r\n"), 400);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nX: a\r\n\rX"), 400);
}

TEST(h1_hdr_too_many)
{
	struct h1_limits lim = { .max_hdr_block = 15360, .max_hdr = 3 };
	const char *s3 = "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n";
	const char *s4 = "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n";

	CHECK_INT(parse_lim(s3, strlen(s3), false, &lim), strlen(s3));
	CHECK_INT(parse_lim(s4, strlen(s4), false, &lim), H1_INVALID);
	CHECK_INT(msg.err_code, 400);
	/* the table capacity limits too */
	msg.hdr = hdrs;
	msg.max_hdr = 2;
	CHECK_INT(h1_parse_headers(s3, strlen(s3), &msg, false, &lim_dflt), H1_INVALID);
	CHECK_INT(msg.err_code, 400);
	s3 = "HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n";
	msg.max_hdr = 2;
	CHECK_INT(h1_parse_headers(s3, strlen(s3), &msg, true, &lim_dflt), H1_INVALID);
	CHECK_INT(msg.err_code, 502);
}

TEST(h1_hdr_intern)
{
	const char *s = "GET / HTTP/1.1\r\nhOST: a\r\nCONTENT-length: 0\r\ntransfer-encodinG: "
			"chunked\r\nConnection: x\r\nUpgrade: y\r\nExpect: z\r\nKeep-Alive: k\r\n"
			"Proxy-Connection: p\r\nContent-Lengthx: 1\r\nHosts: 2\r\nKeep_Alive: 3\r\n"
			"\r\n";
	static const uint16_t ids[] = {
		H1_HDR_HOST, H1_HDR_CONTENT_LENGTH, H1_HDR_TRANSFER_ENCODING, H1_HDR_CONNECTION,
		H1_HDR_UPGRADE, H1_HDR_EXPECT, H1_HDR_KEEP_ALIVE, H1_HDR_PROXY_CONNECTION,
		H1_HDR_OTHER, H1_HDR_OTHER, H1_HDR_OTHER,
	};
	size_t i;

	CHECK_INT(req(s), strlen(s));
	CHECK_INT(msg.nhdr, sizeof(ids) / sizeof(ids[0]));
	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		CHECK_INT(hdrs[i].id, ids[i]);
}

TEST(h1_cl_valid)
{
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\n"), 0);
	CHECK_INT(msg.body_len, 10);
	CHECK(msg.flags & H1_MF_CLEN);
	CHECK(msg.flags & H1_MF_XFER_LEN);
	CHECK(msg.flags & H1_MF_HAS_BODY);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n"), 0);
	CHECK(msg.flags & H1_MF_CLEN);
	CHECK(!(msg.flags & H1_MF_HAS_BODY));
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 18446744073709551615\r\n\r\n"), 0);
	CHECK(msg.body_len == UINT64_MAX);
}

TEST(h1_cl_list_same)
{
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 3,3\r\n\r\n"), 0);
	CHECK_INT(msg.body_len, 3);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 3 , 3,\t3\r\n\r\n"), 0);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n"), 0);
	CHECK_INT(msg.body_len, 3);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 03\r\nContent-Length: 3\r\n\r\n"), 0);
}

TEST(h1_cl_conflict)
{
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 1,2\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 0\r\ncontent-length: 10\r\n\r\n"),
		  400);
	CHECK_INT(resp_err("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
		  502);
}

TEST(h1_cl_bad)
{
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: +1\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: \r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 1,\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: ,1\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 1 2\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 1e3\r\n\r\n"), 400);
	/* overflow */
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 18446744073709551616\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n"),
		  400);
}

TEST(h1_te_chunked)
{
	CHECK_INT(req_err("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"), 0);
	CHECK_INT(msg.flags & (H1_MF_CHNK | H1_MF_XFER_ENC | H1_MF_XFER_LEN | H1_MF_HAS_BODY),
		  H1_MF_CHNK | H1_MF_XFER_ENC | H1_MF_XFER_LEN | H1_MF_HAS_BODY);
	CHECK(!(msg.flags & H1_MF_FORCE_CLOSE));
	CHECK_INT(req_err("POST / HTTP/1.1\r\nTransfer-Encoding: ChUnKeD\r\n\r\n"), 0);
	CHECK(msg.flags & H1_MF_CHNK);
}

TEST(h1_te_cl_smuggle)
{
	const char *s = "POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n"
			"Content-Length: 5\r\n\r\n";

	CHECK_INT(req(s), strlen(s));
	CHECK(msg.flags & H1_MF_CHNK);
	CHECK(!(msg.flags & H1_MF_CLEN));
	CHECK(msg.flags & H1_MF_FORCE_CLOSE);
	CHECK_INT(hdrs[0].skip, 1);
	CHECK_INT(hdrs[1].skip, 0);
	CHECK_INT(hdrs[2].skip, 1);
	/* same in a response */
	s = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n";
	CHECK_INT(resp(s), strlen(s));
	CHECK(msg.flags & H1_MF_FORCE_CLOSE);
	CHECK(!(msg.flags & H1_MF_CLEN));
	CHECK_INT(hdrs[1].skip, 1);
}

TEST(h1_te_not_last)
{
	CHECK_INT(req_err("POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nTransfer-Encoding: identity\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nTransfer-Encoding: chunked;q=1\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
			  "Transfer-Encoding: gzip\r\n\r\n"), 400);
	CHECK_INT(resp_err("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n"), 502);
}

TEST(h1_te_doubled)
{
	CHECK_INT(req_err("POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
			  "Transfer-Encoding: chunked\r\n\r\n"), 400);
}

TEST(h1_te_empty_item)
{
	CHECK_INT(req_err("POST / HTTP/1.1\r\nTransfer-Encoding:\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nTransfer-Encoding: chunked,\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nTransfer-Encoding: , chunked\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nTransfer-Encoding: gzip,,chunked\r\n\r\n"), 400);
}

TEST(h1_te_unknown_422)
{
	CHECK_INT(req_err("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"), 422);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n"
			  "Transfer-Encoding: chunked\r\n\r\n"), 422);
	/* a response may carry a coding before chunked */
	CHECK_INT(resp_err("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"), 0);
	CHECK(msg.flags & H1_MF_CHNK);
}

TEST(h1_te_http10)
{
	/* faulty framing on a 1.0 request (RFC 9112 section 6.1): refused */
	CHECK_INT(req_err("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"), 400);
	CHECK_INT(req_err("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n"
			  "Content-Length: 3\r\n\r\n"), 400);
	CHECK_INT(resp_err("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"), 0);
	CHECK(msg.flags & H1_MF_FORCE_CLOSE);
}

TEST(h1_req10_body_413)
{
	struct h1_limits lim = lim_dflt;
	const char *s = "GET / HTTP/1.0\r\nContent-Length: 3\r\n\r\n";

	CHECK_INT(req_err(s), 413);
	CHECK_INT(req_err("HEAD / HTTP/1.0\r\nContent-Length: 3\r\n\r\n"), 413);
	CHECK_INT(req_err("DELETE / HTTP/1.0\r\nContent-Length: 3\r\n\r\n"), 413);
	CHECK_INT(req_err("GET / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"), 400);
	CHECK_INT(req_err("DELETE / HTTP/1.0\r\nContent-Length: 0\r\n\r\n"), 0);
	CHECK_INT(req_err("POST / HTTP/1.0\r\nContent-Length: 3\r\n\r\n"), 0);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nContent-Length: 3\r\n\r\n"), 0);
	lim.accept_payload_any_method = true;
	CHECK_INT(parse_lim(s, strlen(s), false, &lim), strlen(s));
}

TEST(h1_conn_tokens)
{
	CHECK_INT(req_err("GET / HTTP/1.1\r\nConnection: Keep-Alive, Upgrade\r\n"
			  "Upgrade: WebSocket\r\nSec-WebSocket-Key: k\r\n\r\n"), 0);
	CHECK_INT(msg.flags & (H1_MF_CONN_KAL | H1_MF_CONN_UPG | H1_MF_UPG_WEBSOCKET |
			       H1_MF_CONN_CLO),
		  H1_MF_CONN_KAL | H1_MF_CONN_UPG | H1_MF_UPG_WEBSOCKET);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nConnection: foo\r\nConnection: CLOSE\r\n\r\n"), 0);
	CHECK(msg.flags & H1_MF_CONN_CLO);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nConnection: closed\r\nUpgrade: h2c\r\n\r\n"), 0);
	CHECK(!(msg.flags & (H1_MF_CONN_CLO | H1_MF_UPG_WEBSOCKET)));
}

TEST(h1_expect_100)
{
	CHECK_INT(req_err("POST / HTTP/1.1\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\n"),
		  0);
	CHECK(msg.flags & H1_MF_EXPECT_100);
	CHECK_INT(req_err("POST / HTTP/1.1\r\nExpect: 100-continuex\r\n\r\n"), 0);
	CHECK(!(msg.flags & H1_MF_EXPECT_100));
}

TEST(h1_meth_flags)
{
	CHECK_INT(req_err("HEAD / HTTP/1.1\r\n\r\n"), 0);
	CHECK_INT(msg.flags & (H1_MF_METH_HEAD | H1_MF_METH_GET | H1_MF_METH_CONNECT),
		  H1_MF_METH_HEAD);
	CHECK_INT(req_err("CONNECT example.com:443 HTTP/1.1\r\n\r\n"), 0);
	CHECK(msg.flags & H1_MF_METH_CONNECT);
	CHECK(ist_is(msg.uri, "example.com:443"));
	CHECK_INT(req_err("get / HTTP/1.1\r\n\r\n"), 0); /* methods are case-sensitive */
	CHECK(!(msg.flags & H1_MF_METH_GET));
	CHECK_INT(req_err("GETS / HTTP/1.1\r\n\r\n"), 0);
	CHECK(!(msg.flags & H1_MF_METH_GET));
}

TEST(h1_limit_414)
{
	struct h1_limits lim = { .max_hdr_block = 64, .max_hdr = 101 };
	char s[200];

	memset(s, 'a', sizeof(s));
	memcpy(s, "GET /", 5);
	CHECK_INT(parse_lim(s, 63, false, &lim), H1_INCOMPLETE);
	CHECK_INT(parse_lim(s, 64, false, &lim), H1_INVALID);
	CHECK_INT(msg.err_code, 414);
	CHECK_INT(parse_lim(s, sizeof(s), false, &lim), H1_INVALID);
	CHECK_INT(msg.err_code, 414);
	CHECK_INT(parse_lim(s, sizeof(s), true, &lim), H1_INVALID);
	CHECK_INT(msg.err_code, 502);
	/* still in the version */
	CHECK_INT(parse_lim("GET / HTTP/1.", 13, false,
			    &(struct h1_limits){ .max_hdr_block = 13, .max_hdr = 9 }), H1_INVALID);
	CHECK_INT(msg.err_code, 414);
}

TEST(h1_limit_431)
{
	struct h1_limits lim = { .max_hdr_block = 64, .max_hdr = 101 };
	char s[200];

	memset(s, 'a', sizeof(s));
	memcpy(s, "GET / HTTP/1.1\r\nX: ", 19);
	CHECK_INT(parse_lim(s, 63, false, &lim), H1_INCOMPLETE);
	CHECK_INT(parse_lim(s, 64, false, &lim), H1_INVALID);
	CHECK_INT(msg.err_code, 431);
	CHECK_INT(msg.err_pos, 64);
	CHECK_INT(parse_lim(s, sizeof(s), true, &lim), H1_INVALID);
	CHECK_INT(msg.err_code, 502);
	memcpy(s, "HTTP/1.1 200 OK\r\nX: ", 20);
	CHECK_INT(parse_lim(s, sizeof(s), true, &lim), H1_INVALID);
	CHECK_INT(msg.err_code, 502);
}

TEST(h1_limit_exact)
{
	const char *s = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
	size_t n = strlen(s);
	struct h1_limits lim = { .max_hdr_block = (uint32_t)n, .max_hdr = 101 };
	char big[100];

	CHECK_INT(parse_lim(s, n, false, &lim), n);
	lim.max_hdr_block = (uint32_t)n - 1;
	CHECK_INT(parse_lim(s, n, false, &lim), H1_INVALID);
	CHECK_INT(msg.err_code, 431);
	/* complete block followed by more bytes than the limit */
	lim.max_hdr_block = (uint32_t)n;
	memset(big, 'x', sizeof(big));
	memcpy(big, s, n);
	CHECK_INT(parse_lim(big, sizeof(big), false, &lim), n);
}

TEST(h1_resp_simple)
{
	const char *s = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer: t\r\n\r\nhello";

	CHECK_INT(resp(s), strlen(s) - 5);
	CHECK_INT(msg.status, 200);
	CHECK(ist_is(msg.reason, "OK"));
	CHECK(ist_is(msg.vsn, "HTTP/1.1"));
	CHECK_INT(msg.flags, H1_MF_RESP | H1_MF_VER_11 | H1_MF_CLEN | H1_MF_XFER_LEN |
				     H1_MF_HAS_BODY);
	CHECK_INT(msg.body_len, 5);
	CHECK_INT(resp_err("HTTP/1.0 404 Not Found Here\r\n\r\n"), 0);
	CHECK(ist_is(msg.reason, "Not Found Here"));
	CHECK_INT(msg.status, 404);
	CHECK_INT(resp_err("HTTP/1.1 999 \xe9t\xe9\r\n\r\n"), 0);
	CHECK_INT(msg.status, 999);
}

TEST(h1_resp_no_reason)
{
	CHECK_INT(resp_err("HTTP/1.1 204\r\n\r\n"), 0);
	CHECK_INT(msg.status, 204);
	CHECK_INT(msg.reason.len, 0);
	CHECK_INT(resp_err("HTTP/1.1 304 \r\n\r\n"), 0);
	CHECK_INT(msg.status, 304);
	CHECK_INT(msg.reason.len, 0);
}

TEST(h1_resp_close_delimited)
{
	CHECK_INT(resp_err("HTTP/1.1 200 OK\r\nServer: x\r\n\r\n"), 0);
	CHECK(msg.flags & H1_MF_HAS_BODY);
	CHECK(!(msg.flags & H1_MF_XFER_LEN));
	CHECK_INT(resp_err("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), 0);
	CHECK(!(msg.flags & H1_MF_HAS_BODY));
	CHECK(msg.flags & H1_MF_XFER_LEN);
}

TEST(h1_resp_bad)
{
	CHECK_INT(resp_err("HTTP/1.1 099 x\r\n\r\n"), 502);
	CHECK_INT(resp_err("HTTP/1.1 1000 x\r\n\r\n"), 502);
	CHECK_INT(resp_err("HTTP/1.1 20x OK\r\n\r\n"), 502);
	CHECK_INT(resp_err("HTTP/1.1 20\r\n\r\n"), 502);
	CHECK_INT(resp_err("HTTP/2 200 OK\r\n\r\n"), 502);
	CHECK_INT(resp_err("HTTP/1.1200 OK\r\n\r\n"), 502);
	CHECK_INT(resp_err("HTTP/1.1 200 O\x01K\r\n\r\n"), 502);
	CHECK_INT(resp_err("HTTP/1.1 200 OK\r\nX : y\r\n\r\n"), 502);
	CHECK_INT(resp_err("HTTP/1.1 200 OK\r\n z\r\n\r\n"), 502);
	CHECK_INT(resp_err("garbage\0 not http\r\n\r\n"), 502);
	CHECK_INT(resp_err("GET / HTTP/1.1\r\n\r\n"), 502);
}

TEST(h1_resp_bodyless_rules)
{
	CHECK(h1_resp_bodyless(100, false));
	CHECK(h1_resp_bodyless(101, false));
	CHECK(h1_resp_bodyless(199, false));
	CHECK(h1_resp_bodyless(204, false));
	CHECK(h1_resp_bodyless(304, false));
	CHECK(h1_resp_bodyless(200, true));
	CHECK(!h1_resp_bodyless(200, false));
	CHECK(!h1_resp_bodyless(205, false));
	CHECK(!h1_resp_bodyless(404, false));
}

TEST(h1_err_pos)
{
	CHECK_INT(req_err("GET / HTTP/1.1\r\nHost: a\r\nBad Name: x\r\n\r\n"), 400);
	CHECK_INT(msg.err_pos, 28);
	CHECK_INT(req_err("GET /\x01 HTTP/1.1\r\n\r\n"), 400);
	CHECK_INT(msg.err_pos, 5);
}

/* Every prefix of a valid message is incomplete, the whole is accepted. */
static void check_prefixes_valid(const char *s, bool is_resp)
{
	size_t n = strlen(s), i;
	int full = parse_lim(s, n, is_resp, &lim_dflt);

	CHECK(full > 0);
	if (full <= 0)
		return;
	for (i = 0; i < (size_t)full; i++) {
		int ret = parse_lim(s, i, is_resp, &lim_dflt);

		if (ret != H1_INCOMPLETE)
			test_fail(__FILE__, __LINE__, "prefix %zu of <%.20s...> gave %d", i, s, ret);
	}
}

/* Every prefix of an invalid message is incomplete or the same error. */
static void check_prefixes_invalid(const char *s, bool is_resp)
{
	size_t n = strlen(s), i;
	int code;

	CHECK_INT(parse_lim(s, n, is_resp, &lim_dflt), H1_INVALID);
	code = msg.err_code;
	for (i = 0; i < n; i++) {
		int ret = parse_lim(s, i, is_resp, &lim_dflt);

		if (ret > 0 || (ret == H1_INVALID && msg.err_code != code))
			test_fail(__FILE__, __LINE__, "prefix %zu of <%.20s...> gave %d/%d", i, s,
				  ret, msg.err_code);
	}
}

TEST(h1_split_every_offset)
{
	static const char *const ok_req[] = {
		GET6,
		"GET / HTTP/1.0\nHost: a\n\n",
		"\r\nPOST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
		"CONNECT h:1 HTTP/1.1\r\nHost: h:1\r\n\r\n",
		"GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n",
		"GET http://h:80/x HTTP/1.1\r\nHost: H\r\nHost: h\r\n\r\n",
	};
	static const char *const ok_resp[] = {
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
		"HTTP/1.0 204\r\n\r\n",
		"HTTP/1.1 101 Switching Protocols\nUpgrade: websocket\nSec-WebSocket-Accept: a\n\n",
	};
	static const char *const bad_req[] = {
		"GET / HTTP/1.1\r\n X: a\r\n\r\n",
		"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
		"POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
		"GET / HTTP/1.0\r\nContent-Length: 3\r\n\r\n",
		"GET / HTTP/1.1\r\nX\x01: a\r\n\r\n",
		"GET / HTTP/1.3\r\n\r\n",
		"GET http://a/ HTTP/1.1\r\nHost: b\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
		"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
	};
	size_t i;

	for (i = 0; i < sizeof(ok_req) / sizeof(ok_req[0]); i++)
		check_prefixes_valid(ok_req[i], false);
	for (i = 0; i < sizeof(ok_resp) / sizeof(ok_resp[0]); i++)
		check_prefixes_valid(ok_resp[i], true);
	for (i = 0; i < sizeof(bad_req) / sizeof(bad_req[0]); i++)
		check_prefixes_invalid(bad_req[i], false);
	check_prefixes_invalid("HTTP/1.1 2000 OK\r\n\r\n", true);
}

/* Every byte value at every position of a long value and target: the word-at-a-time scans
 * must agree with the byte rules.
 */
TEST(h1_all_bytes_value_and_target)
{
	char s[128];
	int b, k, n;

	for (b = 0; b < 256; b++) {
		bool val_ok = (b >= 0x20 && b != 0x7f) || b == '\t';
		bool uri_ok = b > 0x20 && b < 0x7f;

		for (k = 0; k < 20; k++) {
			n = snprintf(s, sizeof(s), "GET / HTTP/1.1\r\nX: a%s\r\n\r\n",
				     "bcdefghijklmnopqrstuvwxyz");
			s[20 + k] = (char)b;
			if ((parse_lim(s, n, false, &lim_dflt) > 0) != val_ok)
				test_fail(__FILE__, __LINE__, "value byte 0x%02x at %d", b, k);
			n = snprintf(s, sizeof(s), "GET /%s HTTP/1.1\r\n\r\n",
				     "abcdefghijklmnopqrstuvwxyz");
			s[6 + k] = (char)b;
			if ((parse_lim(s, n, false, &lim_dflt) > 0) != uri_ok)
				test_fail(__FILE__, __LINE__, "target byte 0x%02x at %d", b, k);
		}
	}
}

/* Host: repeated identical values are dropped, different ones refused. */
TEST(h1_host_duplicates)
{
	CHECK_INT(req_err("GET / HTTP/1.1\r\nHost: a\r\nHost: A\r\n\r\n"), 0);
	CHECK_INT(msg.nhdr, 2);
	CHECK(!hdrs[0].skip);
	CHECK(hdrs[1].skip);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"), 400);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\nHost: ab\r\n\r\n"), 400);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nHost: a\r\nHost: \r\n\r\n"), 400);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nHost: a, b\r\n\r\n"), 0);
	/* responses are not concerned */
	CHECK_INT(resp_err("HTTP/1.1 200 OK\r\nHost: a\r\nHost: b\r\n\r\n"), 0);
}

/* Absolute-form and authority-form targets: the Host header must name the same authority
 * (case, default port and userinfo aside); other forms are 400.
 */
TEST(h1_host_absolute_form)
{
	CHECK_INT(req_err("GET http://example.com/ HTTP/1.1\r\nHost: other.com\r\n\r\n"), 400);
	CHECK_INT(msg.err_pos, 4);
	CHECK_INT(req_err("GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\n"), 0);
	CHECK_INT(req_err("GET http://EXAMPLE.com/x?y HTTP/1.1\r\nHost: example.COM\r\n\r\n"),
		  0);
	CHECK_INT(req_err("GET http://example.com HTTP/1.1\r\nHost: example.com\r\n\r\n"), 0);
	CHECK_INT(req_err("GET http://example.com:80/ HTTP/1.1\r\nHost: example.com\r\n\r\n"),
		  0);
	CHECK_INT(req_err("GET http://example.com/ HTTP/1.1\r\nHost: example.com:80\r\n\r\n"),
		  0);
	CHECK_INT(req_err("GET https://e.com:443/ HTTP/1.1\r\nHost: e.com\r\n\r\n"), 0);
	CHECK_INT(req_err("GET https://e.com:80/ HTTP/1.1\r\nHost: e.com\r\n\r\n"), 400);
	CHECK_INT(req_err("GET http://e.com:8080/ HTTP/1.1\r\nHost: e.com\r\n\r\n"), 400);
	CHECK_INT(req_err("GET http://e.com:8080/ HTTP/1.1\r\nHost: e.com:8080\r\n\r\n"), 0);
	CHECK_INT(req_err("GET http://u:p@e.com/ HTTP/1.1\r\nHost: e.com\r\n\r\n"), 0);
	CHECK_INT(req_err("GET http://u@e.com/ HTTP/1.1\r\nHost: u@e.com\r\n\r\n"), 400);
	CHECK_INT(req_err("GET http://e.com/ HTTP/1.1\r\nHost: \r\n\r\n"), 400);
	CHECK_INT(req_err("GET http://e.com/ HTTP/1.1\r\nHost: e.com\r\nHost: f\r\n\r\n"), 400);
	CHECK_INT(req_err("GET http://e.com/ HTTP/1.0\r\nHost: f\r\n\r\n"), 400);
	/* no Host at all: accepted, as HAProxy does */
	CHECK_INT(req_err("GET http://e.com/ HTTP/1.1\r\n\r\n"), 0);
	/* not a target form */
	CHECK_INT(req_err("GET e.com/x HTTP/1.1\r\nHost: e.com\r\n\r\n"), 400);
	CHECK_INT(req_err("GET http:/x HTTP/1.1\r\n\r\n"), 400);
	CHECK_INT(req_err("GET 1http://e.com/ HTTP/1.1\r\n\r\n"), 400);
	CHECK_INT(req_err("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n"), 0);
	/* CONNECT: the authority itself, 443 being its default port */
	CHECK_INT(req_err("CONNECT e.com:443 HTTP/1.1\r\nHost: e.com:443\r\n\r\n"), 0);
	CHECK_INT(req_err("CONNECT e.com:443 HTTP/1.1\r\nHost: e.com\r\n\r\n"), 0);
	CHECK_INT(req_err("CONNECT e.com:443 HTTP/1.1\r\nHost: other\r\n\r\n"), 400);
	CHECK_INT(req_err("CONNECT e.com:443 HTTP/1.1\r\n\r\n"), 0);
}

/* TE on a request keeps only its "trailers" token. */
TEST(h1_te_request_header)
{
	CHECK_INT(req_err("GET / HTTP/1.1\r\nTE: trailers, gzip\r\n\r\n"), 0);
	CHECK_INT(hdrs[0].id, H1_HDR_TE);
	CHECK(!hdrs[0].skip);
	CHECK(ist_is(hdrs[0].v, "trailers"));
	CHECK_INT(req_err("GET / HTTP/1.1\r\nte: gzip;q=1 , Trailers\r\n\r\n"), 0);
	CHECK(ist_is(hdrs[0].v, "Trailers"));
	CHECK_INT(req_err("GET / HTTP/1.1\r\nTE: gzip\r\n\r\n"), 0);
	CHECK(hdrs[0].skip);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nTE: trailers;q=1\r\n\r\n"), 0);
	CHECK(hdrs[0].skip);
	CHECK_INT(resp_err("HTTP/1.1 200 OK\r\nTE: gzip\r\n\r\n"), 0);
	CHECK(!hdrs[0].skip);
}

/* A 204 response never passes a Content-Length on (RFC 9110 section 8.6). */
TEST(h1_resp_204_drops_content_length)
{
	CHECK_INT(resp_err("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\nX: y\r\n\r\n"), 0);
	CHECK(hdrs[0].skip);
	CHECK(!hdrs[1].skip);
	CHECK(!(msg.flags & H1_MF_CLEN));
	CHECK_INT(resp_err("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n"), 0);
	CHECK(hdrs[0].skip);
	CHECK_INT(resp_err("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), 0);
	CHECK(!hdrs[0].skip);
	CHECK_INT(resp_err("HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\n"), 0);
	CHECK(!hdrs[0].skip);
}

/* WebSocket: a request upgrading without Sec-WebSocket-Key is 400, a 101 switching to it
 * without Sec-WebSocket-Accept is 502.
 */
TEST(h1_websocket_keys)
{
	CHECK_INT(req_err("GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: upgrade\r\n\r\n"),
		  400);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nUpgrade: foo, websocket\r\nConnection: Upgrade\r\n"
			  "Sec-WebSocket-Accept: k\r\n\r\n"), 400);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: upgrade\r\n"
			  "sec-websocket-key: k\r\n\r\n"), 0);
	CHECK_INT(hdrs[2].id, H1_HDR_SEC_WS_KEY);
	/* no Connection: upgrade, no upgrade: not checked, as HAProxy */
	CHECK_INT(req_err("GET / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n"), 0);
	CHECK_INT(req_err("GET / HTTP/1.1\r\nUpgrade: h2c\r\nConnection: upgrade\r\n\r\n"), 0);
	CHECK_INT(resp_err("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
			   "Connection: upgrade\r\n\r\n"), 502);
	CHECK_INT(resp_err("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
			   "Connection: upgrade\r\nSec-WebSocket-Key: k\r\n\r\n"), 502);
	CHECK_INT(resp_err("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
			   "Connection: upgrade\r\nSEC-WEBSOCKET-ACCEPT: a\r\n\r\n"), 0);
	CHECK_INT(hdrs[2].id, H1_HDR_SEC_WS_ACCEPT);
	CHECK_INT(resp_err("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n\r\n"), 0);
}

TEST(h1_uri_pathq_and_idempotent)
{
	CHECK(ist_is(h1_uri_pathq(ist_str("/a?b")), "/a?b"));
	CHECK(ist_is(h1_uri_pathq(ist_str("http://h:80/health")), "/health"));
	CHECK(ist_is(h1_uri_pathq(ist_str("https://u@h/x?y")), "/x?y"));
	CHECK(ist_is(h1_uri_pathq(ist_str("http://h")), ""));
	CHECK(ist_is(h1_uri_pathq(ist_str("http://h?q")), "?q"));
	CHECK(ist_is(h1_uri_pathq(ist_str("*")), ""));
	CHECK(ist_is(h1_uri_pathq(ist_str("h:443")), ""));
	CHECK(h1_meth_idempotent(ist_str("GET")));
	CHECK(h1_meth_idempotent(ist_str("DELETE")));
	CHECK(h1_meth_idempotent(ist_str("OPTIONS")));
	CHECK(!h1_meth_idempotent(ist_str("POST")));
	CHECK(!h1_meth_idempotent(ist_str("PATCH")));
	CHECK(!h1_meth_idempotent(ist_str("get")));
}
