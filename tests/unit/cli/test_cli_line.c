/* Unit tests of the runtime API's line protocol helpers: ";" splitting, word splitting and
 * "<<" payload collection (cli/cli_line.c). */
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

TEST(cli_payload_mark_forms)
{
	CHECK_INT(cli_payload_mark("add map m <<", 12), 9);
	CHECK_INT(cli_payload_mark("<<", 2), 0);
	CHECK_INT(cli_payload_mark("x\t<<", 4), 1);
	CHECK_INT(cli_payload_mark("add map m<<", 11), -1);   /* part of a word */
	CHECK_INT(cli_payload_mark("a\\ <<", 5), -1);         /* escaped blank */
	CHECK_INT(cli_payload_mark("a << b", 6), -1);
	CHECK_INT(cli_payload_mark("<", 1), -1);
	CHECK_INT(cli_payload_mark("", 0), -1);
}

TEST(cli_payload_feed_collects_up_to_empty_line)
{
	char area[32];
	struct cli_payload pl = { area, sizeof(area), 0, 0 };

	CHECK_INT(cli_payload_feed(&pl, "k1 v1", 5), CLI_PL_MORE);
	CHECK_INT(cli_payload_feed(&pl, "k2 v2", 5), CLI_PL_MORE);
	CHECK_INT(cli_payload_feed(&pl, "", 0), CLI_PL_DONE);
	CHECK_INT(pl.len, 12);
	CHECK_STR(area, "k1 v1\nk2 v2\n");
	CHECK_INT(pl.overflow, 0);
}

TEST(cli_payload_feed_overflow_drops_but_consumes)
{
	char area[8];
	struct cli_payload pl = { area, sizeof(area), 0, 0 };

	CHECK_INT(cli_payload_feed(&pl, "abc", 3), CLI_PL_MORE);
	CHECK_INT(cli_payload_feed(&pl, "defgh", 5), CLI_PL_MORE); /* does not fit */
	CHECK_INT(pl.overflow, 1);
	CHECK_INT(cli_payload_feed(&pl, "i", 1), CLI_PL_MORE);     /* dropped */
	CHECK_INT(pl.len, 4);
	CHECK_STR(area, "abc\n");
	CHECK_INT(cli_payload_feed(&pl, "", 0), CLI_PL_DONE);
}

TEST(cli_split_then_tokenize_line)
{
	char line[] = "set var a\\;b ; show  info;";
	size_t len = strlen(line), pos = 0, end;
	char *args[8];

	end = cli_next_cmd(line, pos, len);
	line[end] = '\0';
	CHECK_INT(cli_tokenize(line + pos, args, 7), 3);
	CHECK_STR(args[2], "a;b");
	pos = end + 1;
	end = cli_next_cmd(line, pos, len);
	line[end] = '\0';
	CHECK_INT(cli_tokenize(line + pos, args, 7), 2);
	CHECK_STR(args[1], "info");
	pos = end + 1;
	CHECK_INT(cli_next_cmd(line, pos, len), len);
	CHECK_INT(cli_tokenize(line + pos, args, 7), 0);
}
