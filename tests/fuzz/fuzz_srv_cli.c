// FUZZ_SRCS: src/backend/srv_cli_parse.c
/* libFuzzer target for the runtime API's server argument parsers: the input, cut at its
 * first NUL, is given as a weight, a port and an IP literal. Results must be in range and
 * every error must come with a message. Crashes and sanitizer reports are findings.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include <backend/srv_cli_parse.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_storage ss;
	const char *err = NULL;
	char str[512];
	int v;

	if (size >= sizeof(str)) /* the CLI's words are shorter than a line (16 KiB) */
		size = sizeof(str) - 1;
	memcpy(str, data, size);
	str[size] = '\0';
	v = srv_parse_weight(str, size ? data[0] : 1, &err);
	if (v > 256 || v < -1 || (v < 0 && !err))
		abort();
	err = NULL;
	v = srv_parse_port(str, &err);
	if (v > 65535 || v == 0 || v < -1 || (v < 0 && !err))
		abort();
	if (srv_parse_ip(str, &ss) ? (ss.ss_family != AF_INET && ss.ss_family != AF_INET6)
				   : ss.ss_family != 0)
		abort();
	return 0;
}
