// FUZZ_SRCS: src/stream/err_dump.c
/* Fuzzes the show errors dump of captured messages: the parser state for any position and
 * the escaped dump lines, which must cover the whole input, stay within 79 columns plus
 * LF and always advance. */
#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <stream/err_capture.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	const char *name = NULL;
	size_t pos = 0, ls = 0, lines = 0;
	char out[128];

	if (size < 2)
		return 0;
	uint32_t epos = (uint32_t)data[0] * 7u % (uint32_t)(size + 3);
	int st = err_h1_state(buf + 1, size - 1, epos, data[0] & 1, &name);

	assert(name && st >= 2 && st <= 24);
	while (pos < size) {
		size_t prev = pos;
		size_t n = err_dump_line(out, sizeof(out), buf, size, &pos, &ls);

		assert(n >= 10 && n <= 80 && out[n - 1] == '\n');
		assert(memchr(out, '\n', n - 1) == NULL);
		assert(pos > prev && pos <= size);
		assert(ls <= pos);
		lines++;
	}
	assert(lines <= size);
	return 0;
}
