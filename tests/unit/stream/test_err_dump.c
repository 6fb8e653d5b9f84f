/* Unit tests for the pure parts of "show errors" (stream/err_dump.c): HAProxy 2.6's parser
 * state names for an error position (checked against its captures) and its escaped dump
 * lines, cut at 79 columns with a '+' on continued lines.
 */
#include <string.h>

#include <stream/err_capture.h>
#include "../test.h"

static int st(const char *m, uint32_t pos, bool resp, const char **name)
{
	return err_h1_state(m, strlen(m), pos, resp, name);
}

TEST(err_state_as_2_6_names_it)
{
	const char *req = "G@T / HTTP/1.1\r\nHost: x\r\nBad\001h: y\r\n\r\n";
	const char *rsp = "HTTP/1.1 200 OK\r\nBad Header: x\r\n\r\n";
	const char *n;

	CHECK_INT(st(req, 1, false, &n), 2);
	CHECK(!strcmp(n, "MSG_RQMETH"));
	CHECK_INT(st(req, 4, false, &n), 4);
	CHECK_INT(st(req, 8, false, &n), 6);
	CHECK_INT(st(req, 28, false, &n), 17);
	CHECK(!strcmp(n, "MSG_HDR_NAME"));
	CHECK_INT(st(req, 22, false, &n), 21);
	CHECK_INT(st(rsp, 20, true, &n), 17);
	CHECK_INT(st(rsp, 3, true, &n), 10);
	CHECK_INT(st(rsp, 10, true, &n), 12);
	CHECK_INT(st(rsp, 14, true, &n), 14);
	CHECK(!strcmp(n, "MSG_RPREASON"));
}

TEST(err_dump_lines)
{
	const char *m = "GET / HTTP/1.1\r\nX\001\033\\\t\377: y\r\n";
	size_t pos = 0, ls = 0, n;
	char out[128];

	n = err_dump_line(out, sizeof(out), m, strlen(m), &pos, &ls);
	out[n] = '\0';
	CHECK(!strcmp(out, "  00000  GET / HTTP/1.1\\r\\n\n"));
	CHECK_INT(pos, 16);
	CHECK_INT(ls, 16);
	n = err_dump_line(out, sizeof(out), m, strlen(m), &pos, &ls);
	out[n] = '\0';
	CHECK(!strcmp(out, "  00016  X\\x01\\e\\\\\\t\\xFF: y\\r\\n\n"));
	CHECK_INT(pos, strlen(m));
}

TEST(err_dump_cuts_long_lines)
{
	char m[200], out[128];
	size_t pos = 0, ls = 0, n;

	memset(m, 'a', sizeof(m));
	n = err_dump_line(out, sizeof(out), m, sizeof(m), &pos, &ls);
	CHECK_INT(n, 80); /* 79 columns and the LF */
	CHECK_INT(pos, 70);
	n = err_dump_line(out, sizeof(out), m, sizeof(m), &pos, &ls);
	out[n] = '\0';
	CHECK(!strncmp(out, "  00070+ aaa", 12));
	CHECK_INT(pos, 140);
	CHECK_INT(ls, 0);
}
