// FUZZ_SRCS: src/dns/dns_msg.c
/* libFuzzer target for DNS over TCP framing (dns_tcp_frame) feeding the response parser:
 * the input is a byte stream cut into chunks as recv() could deliver them (the first
 * byte seeds the chunk sizes), accumulated in a buffer as dns_tcp.c does; every framed
 * message must lie inside the buffer and is parsed as an answer to an A query.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dns/dns_msg.h>

#define FZ_IN (2 + 65535)

static uint8_t fz_buf[FZ_IN];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t ilen = 0, pos = 1, chunk;
	struct dns_result r;

	if (!size)
		return 0;
	chunk = (size_t)data[0] + 1;
	while (pos < size) {
		size_t take = size - pos < chunk ? size - pos : chunk, off = 0, n, mlen;

		if (take > FZ_IN - ilen)
			take = FZ_IN - ilen;
		memcpy(fz_buf + ilen, data + pos, take);
		ilen += take;
		pos += take;
		while ((n = dns_tcp_frame(fz_buf + off, ilen - off, &mlen)) > 0) {
			uint8_t *msg;

			if (n != mlen + 2 || off + n > ilen)
				abort();
			msg = malloc(mlen ? mlen : 1); /* exact size: ASan sees overreads */
			if (!msg)
				abort();
			memcpy(msg, fz_buf + off + 2, mlen);
			(void)dns_parse_response(msg, mlen, 0x1234, "www.example.com", DNS_T_A, &r);
			free(msg);
			off += n;
		}
		memmove(fz_buf, fz_buf + off, ilen - off);
		ilen -= off;
		if (ilen == FZ_IN) /* cannot happen: a whole message always fits */
			abort();
		chunk = chunk * 7 % 97 + 1;
	}
	return 0;
}
