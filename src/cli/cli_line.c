/* The pure parts of the runtime API's line protocol: cutting a line into ';'-separated
 * commands, a command into words, spotting a "<<" payload announcement and collecting the
 * payload lines that follow into a bounded area. No I/O, no allocation, no globals: the
 * session code (cli.c), the unit tests and the fuzz target share them.
 */
#include <string.h>

#include <cli/cli.h>

size_t cli_next_cmd(const char *line, size_t pos, size_t len)
{
	for (; pos < len; pos++) {
		if (line[pos] == '\\' && pos + 1 < len)
			pos++;
		else if (line[pos] == ';')
			return pos;
	}
	return len;
}

int cli_tokenize(char *cmd, char **args, int max)
{
	char *r = cmd, *w = cmd;
	int n = 0;

	while (*r) {
		while (*r == ' ' || *r == '\t')
			r++;
		if (!*r)
			break;
		if (n == max)
			break; /* extra words are dropped */
		args[n++] = w;
		while (*r && *r != ' ' && *r != '\t') {
			if (*r == '\\' && r[1])
				r++;
			*w++ = *r++;
		}
		if (*r)
			r++;
		*w++ = '\0';
	}
	args[n] = NULL;
	return n;
}

long cli_payload_mark(const char *line, size_t len)
{
	if (len < 2 || line[len - 1] != '<' || line[len - 2] != '<')
		return -1;
	if (len == 2)
		return 0;
	if (line[len - 3] != ' ' && line[len - 3] != '\t')
		return -1; /* "a<<" is a word, not an announcement */
	if (len >= 4 && line[len - 4] == '\\')
		return -1; /* "\ <<": the space is part of a word */
	return (long)(len - 3);
}

int cli_payload_feed(struct cli_payload *pl, const char *line, size_t len)
{
	if (!len)
		return CLI_PL_DONE;
	if (pl->overflow || len + 1 >= pl->size - pl->len) {
		pl->overflow = 1; /* the rest is dropped up to the empty line */
		return CLI_PL_MORE;
	}
	memcpy(pl->area + pl->len, line, len);
	pl->len += len;
	pl->area[pl->len++] = '\n';
	pl->area[pl->len] = '\0';
	return CLI_PL_MORE;
}
