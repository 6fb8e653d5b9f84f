/* Unit tests of the runtime API's server argument parsers (backend/srv_cli_parse.c):
 * weights, ports and IP literals, with HAProxy 2.6's messages.
 */
#include <string.h>
#include <netinet/in.h>
#include <backend/srv_cli_parse.h>
#include "../test.h"

TEST(srv_parse_weight_absolute_and_relative)
{
	const char *err = NULL;

	CHECK_INT(srv_parse_weight("0", 1, &err), 0);
	CHECK_INT(srv_parse_weight("256", 1, &err), 256);
	CHECK_INT(srv_parse_weight("50%", 10, &err), 5);
	CHECK_INT(srv_parse_weight("50%", 1, &err), 0);
	CHECK_INT(srv_parse_weight("200%", 200, &err), 256); /* capped */
	CHECK_INT(srv_parse_weight("99999999999999999999%", 3, &err), 256);
	CHECK_INT(srv_parse_weight("100%", 7, &err), 7);
}

TEST(srv_parse_weight_errors)
{
	const char *err = NULL;

	CHECK_INT(srv_parse_weight("257", 1, &err), -1);
	CHECK(!strcmp(err, "Absolute weight can only be between 0 and 256 inclusive.\n"));
	CHECK_INT(srv_parse_weight("-1", 1, &err), -1);
	CHECK(!strcmp(err, "Absolute weight can only be between 0 and 256 inclusive.\n"));
	CHECK_INT(srv_parse_weight("99999999999999999999", 1, &err), -1);
	CHECK_INT(srv_parse_weight("abc", 1, &err), -1);
	CHECK(!strcmp(err, "Empty weight string empty or preceded by garbage"));
	CHECK_INT(srv_parse_weight("", 1, &err), -1);
	CHECK_INT(srv_parse_weight("10x", 1, &err), -1);
	CHECK(!strcmp(err, "Trailing garbage in weight string"));
	CHECK_INT(srv_parse_weight("10%%", 1, &err), -1);
	CHECK_INT(srv_parse_weight("-5%", 1, &err), -1);
	CHECK(!strcmp(err, "Relative weight must be positive.\n"));
}

TEST(srv_parse_port_range)
{
	const char *err = NULL;

	CHECK_INT(srv_parse_port("1", &err), 1);
	CHECK_INT(srv_parse_port("65535", &err), 65535);
	CHECK_INT(srv_parse_port("0", &err), -1);
	CHECK(!strcmp(err, "provided port is invalid"));
	CHECK_INT(srv_parse_port("65536", &err), -1);
	CHECK_INT(srv_parse_port("99999999999999999999", &err), -1);
	CHECK(!strcmp(err, "provided port is invalid"));
	CHECK_INT(srv_parse_port("", &err), -1);
	CHECK(!strcmp(err, "provided port is not an integer"));
	CHECK_INT(srv_parse_port("80x", &err), -1);
	CHECK(!strcmp(err, "provided port is not an integer"));
}

TEST(srv_parse_ip_literals)
{
	struct sockaddr_storage ss;

	CHECK(srv_parse_ip("127.0.0.2", &ss));
	CHECK_INT(ss.ss_family, AF_INET);
	CHECK_INT(((struct sockaddr_in *)&ss)->sin_addr.s_addr, htonl(0x7f000002));
	CHECK_INT(((struct sockaddr_in *)&ss)->sin_port, 0);
	CHECK(srv_parse_ip("::1", &ss));
	CHECK_INT(ss.ss_family, AF_INET6);
	CHECK(!srv_parse_ip("1.2.3", &ss));
	CHECK_INT(ss.ss_family, 0);
	CHECK(!srv_parse_ip("127.0.0.1:80", &ss));
	CHECK(!srv_parse_ip("localhost", &ss));
	CHECK(!srv_parse_ip("", &ss));
}
