/* Unit tests for cfg/lexer.c: word splitting, comments, quotes, escapes, environment
 * expansion and error reports, checked against HAProxy 2.6's observed behaviour.
 */
#include <string.h>

#include <cfg/lexer.h>
#include "../test.h"

static const char *lex_test_env(const char *name, void *arg)
{
	if (strcmp(name, "HOME") == 0)
		return "/root";
	if (strcmp(name, "SP") == 0)
		return " a b  c ";
	if (strcmp(name, "EMPTY") == 0)
		return "";
	if (strcmp(name, ".LINE") == 0)
		return "12";
	return NULL;
}

static char lex_out[4096];
static char lex_err[256];

static int lex(const char *line, struct cfg_tokens *tok)
{
	return cfg_tokenize(line, strlen(line), lex_out, sizeof(lex_out), tok, lex_test_env,
			    NULL, lex_err, sizeof(lex_err));
}

TEST(lexer_words_and_comments)
{
	struct cfg_tokens tok;

	CHECK_INT(lex("  bind\t:80   name  x # comment here", &tok), 0);
	CHECK_INT(tok.nargs, 4);
	CHECK_STR(tok.args[0], "bind");
	CHECK_STR(tok.args[1], ":80");
	CHECK_STR(tok.args[3], "x");
	CHECK(tok.args[4] == NULL);
	CHECK_INT(lex("global#this is the global section", &tok), 0);
	CHECK_INT(tok.nargs, 1);
	CHECK_STR(tok.args[0], "global");
	CHECK_INT(lex("   # only a comment", &tok), 0);
	CHECK_INT(tok.nargs, 0);
	CHECK(tok.args[0] == NULL);
	CHECK_INT(lex("", &tok), 0);
	CHECK_INT(tok.nargs, 0);
	CHECK_INT(lex("a#b", &tok), 0);
	CHECK_INT(tok.nargs, 1);
	CHECK_STR(tok.args[0], "a");
}

TEST(lexer_quotes)
{
	struct cfg_tokens tok;

	CHECK_INT(lex("log-format \"%{+Q}o %t\"' %s'\\ %{-Q}r", &tok), 0);
	CHECK_INT(tok.nargs, 2);
	CHECK_STR(tok.args[1], "%{+Q}o %t %s %{-Q}r");
	CHECK_INT(lex("x \"x\"y'z' \"a#b\" 'c\\d' '\"' \"'\"", &tok), 0);
	CHECK_INT(tok.nargs, 6);
	CHECK_STR(tok.args[1], "xyz");
	CHECK_STR(tok.args[2], "a#b");
	CHECK_STR(tok.args[3], "c\\d");
	CHECK_STR(tok.args[4], "\"");
	CHECK_STR(tok.args[5], "'");
	/* quoted empty words are kept */
	CHECK_INT(lex("a \"\" '' b", &tok), 0);
	CHECK_INT(tok.nargs, 4);
	CHECK_STR(tok.args[1], "");
	CHECK_STR(tok.args[2], "");
	CHECK_STR(tok.args[3], "b");
}

TEST(lexer_escapes)
{
	struct cfg_tokens tok;

	CHECK_INT(lex("a\\ b \\#x \\\\ \\' \\\" \\$", &tok), 0);
	CHECK_INT(tok.nargs, 6);
	CHECK_STR(tok.args[0], "a b");
	CHECK_STR(tok.args[1], "#x");
	CHECK_STR(tok.args[2], "\\");
	CHECK_STR(tok.args[3], "'");
	CHECK_STR(tok.args[4], "\"");
	CHECK_STR(tok.args[5], "$");
	CHECK_INT(lex("\"a\\tb\\x41\\n\" \\r \\x7e", &tok), 0);
	CHECK_STR(tok.args[0], "a\tbA\n");
	CHECK_STR(tok.args[1], "\r");
	CHECK_STR(tok.args[2], "~");
	/* unknown escapes keep their backslash */
	CHECK_INT(lex("\\q \"\\q\" end\\", &tok), 0);
	CHECK_STR(tok.args[0], "\\q");
	CHECK_STR(tok.args[1], "\\q");
	CHECK_STR(tok.args[2], "end\\");
	/* a regex in double quotes: "\ " is a space, "\1" stays */
	CHECK_INT(lex("reqrep \"^([^\\ :]*)\\ /static/(.*)\" \\1\\ /\\2", &tok), 0);
	CHECK_STR(tok.args[1], "^([^ :]*) /static/(.*)");
	CHECK_STR(tok.args[2], "\\1 /\\2");
}

TEST(lexer_env)
{
	struct cfg_tokens tok;

	CHECK_INT(lex("x \"$HOME\" \"${HOME}/x\" \"${NOPE-def ault}\" \"${EMPTY-def}\"", &tok), 0);
	CHECK_INT(tok.nargs, 5);
	CHECK_STR(tok.args[1], "/root");
	CHECK_STR(tok.args[2], "/root/x");
	CHECK_STR(tok.args[3], "def ault");
	CHECK_STR(tok.args[4], "");
	/* unset: empty, but the quotes keep the word */
	CHECK_INT(lex("x \"x${NOPE}y\" \"${NOPE}\"", &tok), 0);
	CHECK_INT(tok.nargs, 3);
	CHECK_STR(tok.args[1], "xy");
	CHECK_STR(tok.args[2], "");
	/* no expansion outside double quotes or when escaped */
	CHECK_INT(lex("$HOME ${HOME} '$HOME' \"\\$HOME\"", &tok), 0);
	CHECK_INT(tok.nargs, 4);
	CHECK_STR(tok.args[0], "$HOME");
	CHECK_STR(tok.args[1], "${HOME}");
	CHECK_STR(tok.args[2], "$HOME");
	CHECK_STR(tok.args[3], "$HOME");
	/* spaces in a value stay in one word, unless "[*]" asks for a split */
	CHECK_INT(lex("x \"${SP}\" \"${SP[*]}\" \"${EMPTY[*]}\" y", &tok), 0);
	CHECK_INT(tok.nargs, 6);
	CHECK_STR(tok.args[1], " a b  c ");
	CHECK_STR(tok.args[2], "a");
	CHECK_STR(tok.args[3], "b");
	CHECK_STR(tok.args[4], "c");
	CHECK_STR(tok.args[5], "y");
	/* pseudo-variables go through the lookup too */
	CHECK_INT(lex("\"${.LINE}\"", &tok), 0);
	CHECK_STR(tok.args[0], "12");
}

TEST(lexer_errors)
{
	struct cfg_tokens tok;

	CHECK_INT(lex("  maxconn \"abc", &tok), -1);
	CHECK_STR(lex_err, "unmatched quote at position 11");
	CHECK_INT(lex("maxconn 'abc", &tok), -1);
	CHECK_STR(lex_err, "unmatched quote at position 9");
	CHECK_INT(lex("    maxconn \"${HOME\"", &tok), -1);
	CHECK_STR(lex_err, "unmatched brace in environment variable name at position 15");
	CHECK_INT(lex("    maxconn \\x4g", &tok), -1);
	CHECK_STR(lex_err, "truncated or invalid hexadecimal sequence at position 13");
	CHECK_INT(lex("x \\x4", &tok), -1);
	CHECK_INT(lex("  .notice \"$\"", &tok), -1);
	CHECK_STR(lex_err, "forbidden first char in environment variable name at position 13");
	CHECK_INT(lex("  .notice \"$1\"", &tok), -1);
	CHECK_INT(lex("  .notice \"${}\"", &tok), -1);
	CHECK_STR(lex_err, "forbidden first char in environment variable name at position 14");
	CHECK_INT(lex("x \"${A-b", &tok), -1);
}

/* A NUL byte is an error wherever the scanner meets it, never the end of the line. */
TEST(lexer_nul_byte)
{
	struct cfg_tokens tok;

	CHECK_INT(cfg_tokenize("timeout client 1s\0junk", 22, lex_out, sizeof(lex_out), &tok,
			       NULL, NULL, lex_err, sizeof(lex_err)), -1);
	CHECK_STR(lex_err, "Stray NUL character at position 18");
	CHECK_INT(cfg_tokenize("\0x", 2, lex_out, sizeof(lex_out), &tok, NULL, NULL, lex_err,
			       sizeof(lex_err)), -1);
	CHECK_STR(lex_err, "Stray NUL character at position 1");
	CHECK_INT(cfg_tokenize("a \"b\0\"", 6, lex_out, sizeof(lex_out), &tok, NULL, NULL,
			       lex_err, sizeof(lex_err)), -1);
	CHECK_STR(lex_err, "Stray NUL character at position 5");
	CHECK_INT(cfg_tokenize("a \"${X-b\0}\"", 11, lex_out, sizeof(lex_out), &tok, NULL, NULL,
			       lex_err, sizeof(lex_err)), -1);
	CHECK_STR(lex_err, "Stray NUL character at position 9");
	CHECK_INT(cfg_tokenize("a # \0", 5, lex_out, sizeof(lex_out), &tok, NULL, NULL, lex_err,
			       sizeof(lex_err)), 0);
	CHECK_INT(tok.nargs, 1);
}

TEST(lexer_limits)
{
	struct cfg_tokens tok;
	char line[256], small[8];
	int i;

	line[0] = '\0';
	for (i = 0; i < 64; i++)
		strcat(line, "w ");
	CHECK_INT(lex(line, &tok), 0);
	CHECK_INT(tok.nargs, 64);
	CHECK(tok.args[64] == NULL);
	strcat(line, "w");
	CHECK_INT(lex(line, &tok), -1);
	CHECK(strstr(lex_err, "too many words") != NULL);
	/* output area: "abc def" needs 8 bytes */
	CHECK_INT(cfg_tokenize("abc def", 7, small, 8, &tok, NULL, NULL, lex_err,
			       sizeof(lex_err)), 0);
	CHECK_STR(tok.args[1], "def");
	CHECK_INT(cfg_tokenize("abc defg", 8, small, 8, &tok, NULL, NULL, lex_err,
			       sizeof(lex_err)), -1);
	CHECK(tok.args[tok.nargs] == NULL);
	/* <len> bounds the input: no NUL needed */
	CHECK_INT(cfg_tokenize("abcdef", 3, lex_out, sizeof(lex_out), &tok, NULL, NULL, NULL, 0),
		  0);
	CHECK_INT(tok.nargs, 1);
	CHECK_STR(tok.args[0], "abc");
}
