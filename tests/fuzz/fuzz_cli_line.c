// FUZZ_SRCS: src/cli/cli_line.c
/* libFuzzer target for the runtime API's line parser (cli/cli_line.c): the input is cut
 * into lines as a session does; each command line is checked for a "<<" announcement,
 * split on ';' and tokenized, and announced payloads are collected into a small bounded
 * area up to an empty line. Invariants: offsets stay in bounds, the payload area stays
 * NUL-terminated and within its size, words never exceed the maximum.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cli/cli.h>

#define FZ_LINE 512
#define FZ_ARGS 8

static void fz_run_line(char *line, size_t len)
{
	char *args[FZ_ARGS + 1];
	size_t pos = 0;

	line[len] = '\0';
	while (pos <= len) {
		size_t end = cli_next_cmd(line, pos, len);
		int n;

		if (end < pos || end > len)
			abort();
		line[end] = '\0';
		n = cli_tokenize(line + pos, args, FZ_ARGS);
		if (n < 0 || n > FZ_ARGS || args[n] != NULL)
			abort();
		pos = end + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char area[64], line[FZ_LINE + 1];
	struct cli_payload pl = { area, sizeof(area), 0, 0 };
	int waiting = 0;
	size_t i = 0;

	area[0] = '\0';
	while (i < size) {
		const uint8_t *lf = memchr(data + i, '\n', size - i);
		size_t len = lf ? (size_t)(lf - (data + i)) : size - i;

		if (len <= FZ_LINE) {
			memcpy(line, data + i, len);
			if (waiting) {
				if (cli_payload_feed(&pl, line, len) == CLI_PL_DONE)
					waiting = 0;
				if (pl.len >= pl.size || area[pl.len] != '\0')
					abort();
			} else {
				long cmd = cli_payload_mark(line, len);

				if (cmd > (long)len)
					abort();
				if (cmd >= 0) {
					len = (size_t)cmd;
					waiting = 1;
					pl.len = 0;
					pl.overflow = 0;
					area[0] = '\0';
				}
				fz_run_line(line, len);
			}
		}
		i += len + 1;
		if (!lf)
			break;
	}
	return 0;
}
