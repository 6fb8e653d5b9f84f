/* Unit tests of the runtime API's line protocol helpers: ';' splitting and word splitting. */
#include <string.h>
#include <cli/cli.h>
#include "../test.h"

TEST(cli_next_cmd_splits_on_semicolon)
{
	const char *l = "show info;show stat; help";
	size_t len = strlen(l), e;

	e = cli_next_cmd(l, 0, len);
	CHECK_INT(e, 9);
	e = cli_next_cmd(l, e + 1, len);
	CHECK_INT(e, 19);
	CHECK_INT(cli_next_cmd(l, e + 1, len), len);
}

TEST(cli_next_cmd_escaped_semicolon)
{
	const char *l = "set a\\;b;x";

	CHECK_INT(cli_next_cmd(l, 0, strlen(l)), 8);
	CHECK_INT(cli_next_cmd(";", 0, 1), 0);
	CHECK_INT(cli_next_cmd("", 0, 0), 0);
}

TEST(cli_tokenize_words)
{
	char cmd[] = "  show \t servers  state be1  ";
	char *args[8];

	CHECK_INT(cli_tokenize(cmd, args, 7), 4);
	CHECK_STR(args[0], "show");
	CHECK_STR(args[1], "servers");
	CHECK_STR(args[2], "state");
	CHECK_STR(args[3], "be1");
	CHECK(args[4] == NULL);
}

TEST(cli_tokenize_escapes_and_limits)
{
	char cmd[] = "a\\ b c\\;d e f";
	char empty[] = "   ";
	char *args[4];

	CHECK_INT(cli_tokenize(cmd, args, 3), 3);
	CHECK_STR(args[0], "a b");
	CHECK_STR(args[1], "c;d");
	CHECK_STR(args[2], "e");
	CHECK(args[3] == NULL);
	CHECK_INT(cli_tokenize(empty, args, 3), 0);
	CHECK(args[0] == NULL);
}
