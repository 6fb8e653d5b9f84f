// FUZZ_SRCS: src/http/h1.c src/http/h1_chunk.c src/http/h1_uri.c
/* libFuzzer target for the HTTP/1 parser: the input is parsed as a request and as a
 * response with default and tiny limits, every prefix result is checked for consistency
 * (Host headers included: at most one goes on, and an absolute-form target names its
 * authority), and the bytes after the header block (or the whole input) go through the
 * chunk scanner whole, split in two, and byte by byte; all three must agree, and bytes of
 * an unfinished size line (chunk extensions included) are never reported forwardable.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <http/h1.h>

static struct h1_hdr fz_hdrs[128];

/* A valid request passes at most one Host header on, and an absolute-form target with a
 * Host header contains that host right after "://" or "@" (ports aside).
 */
static void fz_check_host(const struct h1_msg *msg)
{
	const struct h1_hdr *host = NULL;
	const char *p;
	uint16_t i;

	for (i = 0; i < msg->nhdr; i++) {
		if (msg->hdr[i].id != H1_HDR_HOST || msg->hdr[i].skip)
			continue;
		if (host)
			abort();
		host = &msg->hdr[i];
	}
	if (!host || !host->v.len || !msg->uri.len || msg->uri.ptr[0] == '/' ||
	    (msg->uri.len == 1 && msg->uri.ptr[0] == '*') ||
	    (msg->flags & H1_MF_METH_CONNECT) || msg->uri.len < host->v.len)
		return;
	p = memmem(msg->uri.ptr, msg->uri.len, "://", 3);
	if (!p)
		abort(); /* an absolute-form target without a scheme was accepted */
	for (p += 3; p + host->v.len <= msg->uri.ptr + msg->uri.len; p++)
		if (!strncasecmp(p, host->v.ptr, host->v.len) || *p == '/')
			return;
	/* a default port on the Host side only ("h:80" for "http://h/") */
	if (!memchr(host->v.ptr, ':', host->v.len))
		abort();
}

static void fz_check_msg(const uint8_t *data, size_t size, const struct h1_msg *msg, int ret)
{
	const char *b = (const char *)data;
	uint16_t i;

	if (ret == H1_INVALID) {
		if (msg->err_code < 400 || msg->err_code > 599 || msg->err_pos > size)
			abort();
		return;
	}
	if (ret == H1_INCOMPLETE)
		return;
	if ((size_t)ret > size || msg->hdr_len != (uint32_t)ret || msg->nhdr > msg->max_hdr)
		abort();
	for (i = 0; i < msg->nhdr; i++) {
		const struct h1_hdr *h = &msg->hdr[i];

		if (!h->n.len || h->n.ptr < b || h->n.ptr + h->n.len > b + ret ||
		    h->v.ptr < b || h->v.ptr + h->v.len > b + ret)
			abort();
	}
	if ((msg->flags & H1_MF_CLEN) && (msg->flags & H1_MF_CHNK))
		abort(); /* TE must have dropped CL */
	if (!(msg->flags & H1_MF_RESP))
		fz_check_host(msg);
}

static int fz_parse(const uint8_t *data, size_t size, bool resp, const struct h1_limits *lim,
		    uint16_t max_hdr)
{
	struct h1_msg msg = { .hdr = fz_hdrs, .max_hdr = max_hdr };
	int ret = h1_parse_headers((const char *)data, size, &msg, resp, lim);

	fz_check_msg(data, size, &msg, ret);
	/* a prefix of a complete block is never complete nor a different error */
	if (ret > 1) {
		struct h1_msg m2 = { .hdr = fz_hdrs, .max_hdr = max_hdr };

		if (h1_parse_headers((const char *)data, (size_t)ret - 1, &m2, resp, lim) > 0)
			abort();
	}
	return ret;
}

static ssize_t fz_chunk(const uint8_t *data, size_t size, size_t step, size_t max_line,
			int *done)
{
	struct h1_chunk c = { 0 };
	size_t off = 0;

	*done = 0;
	while (off < size && !*done) {
		size_t n = (step && size - off > step) ? step : size - off;
		ssize_t r = h1_chunk_scan(&c, (const char *)data + off, n, max_line, done);

		if (r < 0)
			return -1;
		if ((size_t)r > n || ((size_t)r != n && !*done))
			abort();
		off += (size_t)r;
		/* held back bytes are part of what was consumed, none once the body ended */
		if (h1_chunk_pending(&c) > off || (*done && h1_chunk_pending(&c)))
			abort();
	}
	return (ssize_t)off;
}

static void fz_chunks(const uint8_t *data, size_t size)
{
	ssize_t whole, half, bytes;
	int d1, d2, d3;
	size_t max_line = 64;

	whole = fz_chunk(data, size, 0, max_line, &d1);
	half = fz_chunk(data, size, size / 2 ? size / 2 : 1, max_line, &d2);
	bytes = fz_chunk(data, size, 1, max_line, &d3);
	if (whole != half || whole != bytes || d1 != d2 || d1 != d3)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct h1_limits dflt = { .max_hdr_block = 15360, .max_hdr = 101 };
	static const struct h1_limits tiny = { .max_hdr_block = 40, .max_hdr = 3 };
	struct h1_limits any = { .max_hdr_block = 0, .max_hdr = 0,
				 .accept_payload_any_method = true };
	int ret;

	ret = fz_parse(data, size, false, &dflt, 128);
	fz_parse(data, size, true, &dflt, 128);
	fz_parse(data, size, false, &tiny, 128);
	fz_parse(data, size, true, &tiny, 2);
	fz_parse(data, size, false, &any, 5);
	fz_chunks(data, size);
	if (ret > 0)
		fz_chunks(data + ret, size - (size_t)ret);
	return 0;
}
