// FUZZ_SRCS: src/log/syslog_parse.c
/* libFuzzer target for the received-syslog parsers: any bytes are a TCP stream (framing)
 * and a message (headers). Every view must lie inside the input, the framing must consume
 * within the input, the PRI fields stay in range. Crashes and broken invariants are
 * findings.
 */
#include <stdint.h>
#include <stdlib.h>

#include <log/syslog_parse.h>

static void fz_in(struct ist v, const uint8_t *data, size_t size)
{
	if (v.len &&
	    ((const uint8_t *)v.ptr < data || (const uint8_t *)v.ptr + v.len > data + size))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *b = (const char *)data;
	struct syslog_msg m;
	size_t off = 0, mlen = 0, pos = 0;
	long n;

	while (pos < size && (n = syslog_frame(b + pos, size - pos, &off, &mlen)) > 0) {
		if ((size_t)n > size - pos || off + mlen > (size_t)n)
			abort();
		syslog_parse(b + pos + off, mlen, &m);
		fz_in(m.msg, data, size);
		pos += (size_t)n;
	}
	syslog_parse(b, size, &m);
	fz_in(m.ts, data, size);
	fz_in(m.host, data, size);
	fz_in(m.tag, data, size);
	fz_in(m.pid, data, size);
	fz_in(m.msgid, data, size);
	fz_in(m.sd, data, size);
	fz_in(m.msg, data, size);
	if (m.facility < -1 || m.facility > 23 || m.level < -1 || m.level > 7)
		abort();
	return 0;
}
