// FUZZ_SRCS: src/dns/dns_msg.c
/* libFuzzer target for the DNS response parser of dns/dns_msg: the input is a response
 * to the query (id 0x1234, "www.example.com", A or AAAA after the first byte's low bit).
 * The message is an exact-size heap copy so that ASan catches any read past its end; the
 * result must be coherent with the status, and every name in the message is also read
 * from every offset (pointer loops, bounds).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <dns/dns_msg.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char txt[DNS_TXT_MAX + 1];
	struct dns_result r;
	enum dns_status st;
	uint16_t qtype;
	uint8_t *msg;

	if (!size)
		return 0;
	qtype = (data[0] & 1) ? DNS_T_AAAA : DNS_T_A;
	msg = malloc(size - 1 ? size - 1 : 1);
	if (!msg)
		abort();
	memcpy(msg, data + 1, size - 1);
	st = dns_parse_response(msg, size - 1, 0x1234, "www.example.com", qtype, &r);
	if (r.naddr < 0 || r.naddr > DNS_MAX_ADDRS ||
	    (st == DNS_ST_VALID) != (r.naddr > 0 && st == DNS_ST_VALID))
		abort();
	for (int i = 0; i < r.naddr; i++)
		if (r.addr[i].family != (qtype == DNS_T_A ? AF_INET : AF_INET6))
			abort();
	for (size_t off = 0; off < size - 1 && off < 64; off++) {
		size_t pos = off;

		if (dns_read_name(msg, size - 1, &pos, txt) == 0 &&
		    (pos <= off || pos > size - 1 || strlen(txt) > DNS_TXT_MAX))
			abort();
	}
	free(msg);
	return 0;
}
