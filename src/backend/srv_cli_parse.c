/* Pure parsers of the runtime API's server arguments: weights, ports and IP literals, with
 * 2.6's messages (see include/backend/srv_cli_parse.h). Fuzzed by tests/fuzz/fuzz_srv_cli.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <backend/srv_cli_parse.h>

int srv_parse_weight(const char *str, int iweight, const char **err)
{
	char *end;
	long w;

	errno = 0;
	w = strtol(str, &end, 10);
	if (end == str) {
		*err = "Empty weight string empty or preceded by garbage";
		return -1;
	}
	if (*end == '%' && !end[1]) {
		if (w < 0) {
			*err = "Relative weight must be positive.\n";
			return -1;
		}
		w = w > 100000 ? 100000 : w; /* no overflow below: capped to 256 anyway */
		w = (long)(iweight < 0 ? 0 : iweight > 256 ? 256 : iweight) * w / 100;
		return w > 256 ? 256 : (int)w;
	}
	if (*end) {
		*err = "Trailing garbage in weight string";
		return -1;
	}
	if (w < 0 || w > 256 || errno) {
		*err = "Absolute weight can only be between 0 and 256 inclusive.\n";
		return -1;
	}
	return (int)w;
}

int srv_parse_port(const char *str, const char **err)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(str, &end, 10);
	if (end == str || *end) {
		*err = "provided port is not an integer";
		return -1;
	}
	if (errno || v < 1 || v > 65535) {
		*err = "provided port is invalid";
		return -1;
	}
	return (int)v;
}

bool srv_parse_ip(const char *str, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, str, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		return true;
	}
	if (inet_pton(AF_INET6, str, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		return true;
	}
	memset(ss, 0, sizeof(*ss));
	return false;
}
