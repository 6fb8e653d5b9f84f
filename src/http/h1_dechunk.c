/* De-chunking over the chunked scanner (include/http/h1_dechunk.h): framing bytes are fed
 * to the scanner one at a time until it enters chunk data, which is handed to the caller
 * as a run of bytes and skipped by the scanner in one step once taken. A size line or
 * trailers are a few bytes per chunk: the byte-wise feeding costs little.
 */
#include <stdint.h>
#include <http/h1.h>
#include <http/h1_dechunk.h>

/* True when the scanner is inside chunk data: only there is <remain> non-zero outside a
 * size line (it is zero again once the data is passed, and a size line has pending
 * bytes). */
static bool in_data(const struct h1_chunk *c)
{
	return c->remain && !h1_chunk_pending(c);
}

ssize_t h1_dechunk_next(struct h1_chunk *c, const char *buf, size_t len, size_t max_line,
			size_t *data, int *done)
{
	size_t i = 0;

	*data = 0;
	*done = 0;
	while (!in_data(c)) {
		ssize_t n;

		if (i == len)
			return (ssize_t)i;
		n = h1_chunk_scan(c, buf + i, 1, max_line, done);
		if (n < 0)
			return -1;
		i += (size_t)n;
		if (*done || !n)
			return (ssize_t)i; /* the end, just reached or already passed */
	}
	*data = c->remain < len - i ? (size_t)c->remain : len - i;
	return (ssize_t)i;
}

void h1_dechunk_take(struct h1_chunk *c, const char *buf, size_t n)
{
	int done;

	if (n && in_data(c))
		h1_chunk_scan(c, buf, n <= c->remain ? n : (size_t)c->remain, SIZE_MAX, &done);
}
