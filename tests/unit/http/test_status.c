/* Unit tests of reason phrases and canned error pages (src/http/status.c): bytes captured
 * from HAProxy, and every page checked with the H1 parser (status, header order, length).
 */
#include <http/h1.h>
#include <http/status.h>
#include "../test.h"

static const int err_codes[] = { 200, 400, 401, 403, 404, 405, 407, 408, 410, 413, 414,
				 421, 422, 425, 429, 431, 500, 501, 502, 503, 504 };

TEST(status_reason)
{
	CHECK_STR(http_reason(200), "OK");
	CHECK_STR(http_reason(404), "Not Found");
	CHECK_STR(http_reason(408), "Request Time-out");
	CHECK_STR(http_reason(502), "Bad Gateway or Proxy Error");
	CHECK_STR(http_reason(299), "Success");
	CHECK_STR(http_reason(599), "Server Error");
	CHECK_STR(http_reason(999), "Other");
}

/* Captured from HAProxy 2.6 (`http-request deny`, no server, monitor-uri). */
TEST(status_page_bytes)
{
	struct ist m = http_error_message(503);
	const char *e503 =
		"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 107\r\n"
		"cache-control: no-cache\r\ncontent-type: text/html\r\n\r\n<html><body><h1>503 "
		"Service Unavailable</h1>\nNo server is available to handle this request.\n"
		"</body></html>\n";
	const char *e400 =
		"HTTP/1.1 400 Bad request\r\ncontent-length: 90\r\ncache-control: no-cache\r\n"
		"content-type: text/html\r\nconnection: close\r\n\r\n<html><body><h1>400 Bad "
		"request</h1>\nYour browser sent an invalid request.\n</body></html>\n";
	const char *e200 =
		"HTTP/1.1 200 OK\r\ncontent-length: 58\r\ncache-control: no-cache\r\n"
		"content-type: text/html\r\n\r\n<html><body><h1>200 OK</h1>\nService ready.\n"
		"</body></html>\n";

	CHECK(ist_eq(m, ist_str(e503)));
	CHECK(ist_eq(http_error_message(400), ist_str(e400)));
	CHECK(ist_eq(http_error_message(200), ist_str(e200)));
	CHECK(ist_eq(http_error_message(418), http_error_message(500)));
	CHECK(ist_eq(http_error_message(0), http_error_message(500)));
}

TEST(status_pages_well_formed)
{
	static const struct h1_limits lim = { .max_hdr_block = 15360, .max_hdr = 101 };
	struct h1_hdr hdrs[8];
	struct h1_msg msg = { .hdr = hdrs, .max_hdr = 8 };
	size_t i;

	for (i = 0; i < sizeof(err_codes) / sizeof(err_codes[0]); i++) {
		int code = err_codes[i];
		struct ist m = http_error_message(code);
		int ret = h1_parse_headers(m.ptr, m.len, &msg, true, &lim);
		bool close = code == 400 || code == 408;
		char h1[64];

		CHECK(ret > 0);
		if (ret <= 0)
			continue;
		CHECK_INT(msg.status, code);
		CHECK_INT(msg.nhdr, close ? 4 : 3);
		CHECK(ist_eq(hdrs[0].n, IST("content-length")));
		CHECK(ist_eq(hdrs[1].n, IST("cache-control")));
		CHECK(ist_eq(hdrs[1].v, IST("no-cache")));
		CHECK(ist_eq(hdrs[2].n, IST("content-type")));
		CHECK(ist_eq(hdrs[2].v, IST("text/html")));
		if (close)
			CHECK(ist_eq(hdrs[3].n, IST("connection")) &&
			      ist_eq(hdrs[3].v, IST("close")));
		CHECK_INT(msg.body_len, m.len - (size_t)ret);
		snprintf(h1, sizeof(h1), "<html><body><h1>%d ", code);
		CHECK(strncmp(m.ptr + ret, h1, strlen(h1)) == 0);
		CHECK(m.ptr[m.len - 1] == '\n');
	}
}
