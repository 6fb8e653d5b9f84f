/* Unit tests of the de-chunker (src/http/h1_dechunk.c): the data of valid bodies comes
 * out whole whatever the input split and however much of each run the reader takes; the
 * bytes after the message are left alone; invalid framing is refused where the scanner
 * refuses it.
 */
#include <stdint.h>
#include <string.h>
#include <http/h1.h>
#include <http/h1_dechunk.h>
#include "../test.h"

#define MAXL 1024

/* De-chunks <in> received <step> bytes at a time (0: whole), taking at most <take> bytes
 * of each run (0: all of it). Returns the bytes consumed (-1 invalid, -2 incomplete) with
 * the data in out[0..*outlen). */
static long dechunk(const char *in, size_t len, size_t step, size_t take, char *out, size_t *outlen)
{
	struct h1_chunk c = { 0 };
	size_t avail = step ? (step < len ? step : len) : len, pos = 0;

	*outlen = 0;
	for (int guard = 0; guard < 100000; guard++) {
		size_t d;
		int done;
		ssize_t r = h1_dechunk_next(&c, in + pos, avail - pos, MAXL, &d, &done);

		if (r < 0)
			return -1;
		pos += (size_t)r;
		if (done)
			return (long)pos;
		if (d) {
			size_t k = take && take < d ? take : d;

			memcpy(out + *outlen, in + pos, k);
			*outlen += k;
			h1_dechunk_take(&c, in + pos, k);
			pos += k;
			continue;
		}
		if (avail == len)
			return -2;
		avail = avail + step < len ? avail + step : len;
	}
	return -3;
}

static const struct {
	const char *in;
	const char *data;
} dechunk_ok[] = {
	{ "0\r\n\r\n", "" },
	{ "5\r\nhello\r\n0\r\n\r\n", "hello" },
	{ "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n", "hello world" },
	{ "2\r\nab\r\n3\r\n\ncd\r\n0\r\n\r\n", "ab\ncd" },
	{ "5;name=val;x=\"q\"\r\nhello\r\n0;last\r\nX-T: 1\r\n\r\n", "hello" },
	{ "A\r\n0123456789\r\n000\r\n\r\n", "0123456789" },
	{ "3\r\n\r\n\r\r\n0\r\n\r\n", "\r\n\r" },
};

TEST(dechunk_valid_any_split)
{
	char out[256];
	size_t olen;

	for (size_t i = 0; i < sizeof(dechunk_ok) / sizeof(dechunk_ok[0]); i++) {
		const char *in = dechunk_ok[i].in;
		size_t len = strlen(in);

		for (size_t step = 0; step <= len; step++) {
			for (size_t take = 0; take < 4; take++) {
				CHECK_INT(dechunk(in, len, step, take, out, &olen), len);
				CHECK_INT(olen, strlen(dechunk_ok[i].data));
				CHECK(!memcmp(out, dechunk_ok[i].data, olen));
			}
		}
	}
}

/* What follows the message (a pipelined request) is neither consumed nor returned. */
TEST(dechunk_stops_at_the_end)
{
	const char *in = "3\r\nabc\r\n0\r\n\r\nGET / HTTP/1.1\r\n";
	char out[64];
	size_t olen;

	CHECK_INT(dechunk(in, strlen(in), 0, 0, out, &olen), strlen("3\r\nabc\r\n0\r\n\r\n"));
	CHECK_INT(olen, 3);
	CHECK_INT(dechunk(in, strlen(in), 1, 1, out, &olen), strlen("3\r\nabc\r\n0\r\n\r\n"));
}

TEST(dechunk_invalid_and_incomplete)
{
	static const char *const bad[] = { "5\r\nhelloX\r\n0\r\n\r\n", "5\nhello\r\n", "g\r\n",
					   "0\r\nX a\r\n\r\n", "5;=b\r\nhello\r\n" };
	char out[64];
	size_t olen;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_INT(dechunk(bad[i], strlen(bad[i]), 0, 0, out, &olen), -1);
		CHECK_INT(dechunk(bad[i], strlen(bad[i]), 1, 1, out, &olen), -1);
	}
	CHECK_INT(dechunk("5\r\nhel", 6, 0, 0, out, &olen), -2);
	CHECK_INT(olen, 3);
	CHECK_INT(dechunk("5\r\nhello\r\n0\r\n", 13, 2, 0, out, &olen), -2);
}

/* Once a reader stopped, the scanner state goes on where it left: a forwarder scanning the
 * rest of the input finds the end of the same message. */
TEST(dechunk_hands_over_to_the_scanner)
{
	const char *in = "4\r\nabcd\r\n2\r\nef\r\n0\r\n\r\n";
	struct h1_chunk c = { 0 };
	size_t d;
	int done;
	ssize_t r = h1_dechunk_next(&c, in, strlen(in), MAXL, &d, &done);

	CHECK_INT(r, 3);
	CHECK_INT(d, 4);
	h1_dechunk_take(&c, in + 3, 2);
	r = h1_chunk_scan(&c, in + 5, strlen(in) - 5, MAXL, &done);
	CHECK_INT(r, strlen(in) - 5);
	CHECK_INT(done, 1);
}
