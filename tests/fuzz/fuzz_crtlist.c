// FUZZ_SRCS: src/ssl/ssl_crtlist_line.c
/* libFuzzer target for the crt-list line tokenizer (ssl/ssl_crtlist_line.c): each input is
 * one line. Invariants: every word returned lies inside the line buffer and is
 * NUL-terminated there, word counts stay within CRTLIST_MAX_WORDS, an error has a message,
 * and a line with a certificate has a non-empty one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ssl/ssl_crtlist.h>

static void check_word(const char *w, const char *buf, size_t len)
{
	if (!w || w < buf || w >= buf + len + 1)
		abort();
	if (!memchr(w, '\0', (size_t)(buf + len + 1 - w)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct crtlist_line tl;
	const char *err = NULL;
	char *buf;
	int r;

	if (size > 4096)
		return 0;
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	r = crtlist_tokenize(buf, &tl, &err);
	if (r < 0 && !err)
		abort();
	if (r == 1) {
		size_t len = size;

		check_word(tl.crt, buf, len);
		if (!*tl.crt)
			abort();
		if (tl.nb_opts < 0 || tl.nb_opts > CRTLIST_MAX_WORDS || tl.nb_filters < 0 ||
		    tl.nb_filters > CRTLIST_MAX_WORDS)
			abort();
		for (int i = 0; i < tl.nb_opts; i++)
			check_word(tl.opts[i], buf, len);
		for (int i = 0; i < tl.nb_filters; i++)
			check_word(tl.filters[i], buf, len);
	}
	free(buf);
	return 0;
}
