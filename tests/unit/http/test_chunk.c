/* Unit tests of the chunked-framing scanner (src/http/h1_chunk.c): valid bodies fed whole,
 * split at every offset and byte by byte; every framing error; line and trailer limits.
 */
#include <stdint.h>
#include <stdlib.h>
#include <http/h1.h>
#include "../test.h"

#define MAXL 1024

static const char *const chunk_ok[] = {
	"0\r\n\r\n",
	"5\r\nhello\r\n0\r\n\r\n",
	"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
	"A\r\n0123456789\r\na\r\n0123456789\r\n000\r\n\r\n",
	"5;name=val;x=\"q\\\"s\"\r\nhello\r\n0;last\r\n\r\n",
	"5 ;ext\r\nhello\r\n0\t;e\r\n\r\n",
	"3\r\nabc\r\n0\r\nX-Trailer: 1\r\nChecksum:abc \t\r\n\r\n",
	"0000000000000003\r\nabc\r\n0\r\n\r\n",
	"3\r\n\r\n\r\r\n0\r\n\r\n",
	"1\r\n\n\r\n0\r\nT:\r\n\r\n",
	"1 \t; a \t= \tb ;c;d=\"\"\r\nx\r\n0;e=\"\\\\\\\"\t\x80\"\r\n\r\n",
	"1;a=b\t;c\r\nx\r\n0;x-y=1.2 ;z\r\n\r\n",
};

static const char *const chunk_bad[] = {
	" 5\r\nhello\r\n0\r\n\r\n",            /* leading space */
	"5\nhello\r\n0\r\n\r\n",               /* bare LF after size */
	"5\r\nhello\n0\r\n\r\n",               /* bare LF after data */
	"5\r\nhelloX\r\n0\r\n\r\n",            /* data longer than announced */
	"5\r\nhell\r\n0\r\n\r\n",              /* shorter */
	"00000000000000005\r\nhello\r\n",      /* 17 digits */
	"1ffffffffffffffff\r\n",               /* overflow */
	"g\r\n",                               /* not hex */
	"\r\n",                                /* empty size */
	"-1\r\n",
	"0x5\r\nhello\r\n",
	"5\rX",                                /* bare CR */
	"5 \r\nhello\r\n",                     /* BWS not followed by ';' */
	"5;a\nb\r\n",                          /* bare LF in extension */
	"5;a\x01\r\n",                         /* CTL in extension */
	"5;\r\nhello\r\n",                      /* ';' without a name */
	"5; \r\nhello\r\n",
	"5;;a\r\nhello\r\n",
	"5;=b\r\nhello\r\n",                    /* value without a name */
	"5;a=\r\nhello\r\n",                    /* '=' without a value */
	"5;a=\"b\r\nhello\r\n",                /* unterminated quoted-string */
	"5;a=\"b\\\r\nhello\r\n",
	"5;a=\"b\x01\"\r\nhello\r\n",           /* CTL in a quoted-string */
	"5;a=\"b\"c\r\nhello\r\n",              /* bytes after the quoted-string */
	"5;a=b,c\r\nhello\r\n",                 /* not a token */
	"5;a b\r\nhello\r\n",
	"5;a=b \r\nhello\r\n",                  /* spaces not followed by ';' */
	"5;a \r\nhello\r\n",
	"5;a\x80\r\nhello\r\n",
	"5;a=\x7f\r\nhello\r\n",
	"0\r\nX: a\n\r\n",                     /* bare LF in trailer */
	"0\r\n\n",                             /* bare LF as the final line */
	"0\r\n\rX",
	"0\r\n X: a\r\n\r\n",                  /* folded trailer */
	"0\r\nX a\r\n\r\n",                    /* trailer name */
	"0\r\n: a\r\n\r\n",
	"0\r\nX: a\x7f\r\n\r\n",
};

/* Feeds <s> in pieces of <step> bytes (0: whole); returns total consumed, -1 on error. */
static long feed(const char *s, size_t len, size_t step, size_t max_line, int *done)
{
	struct h1_chunk c = { 0 };
	size_t off = 0;

	*done = 0;
	if (!step)
		step = len ? len : 1;
	while (off < len && !*done) {
		size_t n = len - off < step ? len - off : step;
		ssize_t r = h1_chunk_scan(&c, s + off, n, max_line, done);

		if (r < 0)
			return -1;
		if ((size_t)r != n && !*done)
			return -2; /* must consume all unless the message ended */
		off += (size_t)r;
	}
	return (long)off;
}

TEST(chunk_simple)
{
	struct h1_chunk c = { 0 };
	const char *s = "5\r\nhello\r\n0\r\n\r\n";
	int done = 7;

	CHECK_INT(h1_chunk_scan(&c, s, strlen(s), MAXL, &done), strlen(s));
	CHECK_INT(done, 1);
	/* once done, nothing more is consumed */
	CHECK_INT(h1_chunk_scan(&c, "xx", 2, MAXL, &done), 0);
	CHECK_INT(done, 1);
}

TEST(chunk_valid_samples)
{
	size_t i;
	int done;

	for (i = 0; i < sizeof(chunk_ok) / sizeof(chunk_ok[0]); i++) {
		size_t n = strlen(chunk_ok[i]);

		CHECK_INT(feed(chunk_ok[i], n, 0, MAXL, &done), n);
		CHECK_INT(done, 1);
	}
}

TEST(chunk_end_inside_buffer)
{
	struct h1_chunk c = { 0 };
	const char *s = "3\r\nabc\r\n0\r\nT: 1\r\n\r\nGET / HTTP/1.1\r\n\r\n";
	int done = 0;

	CHECK_INT(h1_chunk_scan(&c, s, strlen(s), MAXL, &done), strlen(s) - 18);
	CHECK_INT(done, 1);
}

TEST(chunk_incomplete)
{
	struct h1_chunk c = { 0 };
	int done = 1;

	CHECK_INT(h1_chunk_scan(&c, "5\r\nhel", 6, MAXL, &done), 6);
	CHECK_INT(done, 0);
	CHECK_INT(c.remain, 2);
	CHECK_INT(h1_chunk_scan(&c, "lo\r\n", 4, MAXL, &done), 4);
	CHECK_INT(done, 0);
	CHECK_INT(h1_chunk_scan(&c, "0\r\n\r", 4, MAXL, &done), 4);
	CHECK_INT(done, 0);
	CHECK_INT(h1_chunk_scan(&c, "\n", 1, MAXL, &done), 1);
	CHECK_INT(done, 1);
}

TEST(chunk_split_every_offset)
{
	size_t i, cut;
	int done;

	for (i = 0; i < sizeof(chunk_ok) / sizeof(chunk_ok[0]); i++) {
		const char *s = chunk_ok[i];
		size_t n = strlen(s);

		for (cut = 0; cut <= n; cut++) {
			struct h1_chunk c = { 0 };
			ssize_t r1 = h1_chunk_scan(&c, s, cut, MAXL, &done);
			ssize_t r2;

			if (r1 != (ssize_t)cut || (done && cut != n)) {
				test_fail(__FILE__, __LINE__, "sample %zu cut %zu: %zd done %d", i,
					  cut, r1, done);
				continue;
			}
			r2 = h1_chunk_scan(&c, s + cut, n - cut, MAXL, &done);
			if (r2 != (ssize_t)(n - cut) || !done)
				test_fail(__FILE__, __LINE__, "sample %zu cut %zu: second %zd", i,
					  cut, r2);
		}
		CHECK_INT(feed(s, n, 1, MAXL, &done), n);
		CHECK_INT(done, 1);
	}
}

TEST(chunk_bad_samples)
{
	size_t i, step;
	int done;

	for (i = 0; i < sizeof(chunk_bad) / sizeof(chunk_bad[0]); i++) {
		size_t n = strlen(chunk_bad[i]);

		for (step = 0; step <= 3; step++)
			if (feed(chunk_bad[i], n, step, MAXL, &done) != -1)
				test_fail(__FILE__, __LINE__, "bad sample %zu accepted (step %zu)",
					  i, step);
	}
}

TEST(chunk_size_16_digits)
{
	struct h1_chunk c = { 0 };
	int done;

	CHECK_INT(h1_chunk_scan(&c, "ffffffffffffffff\r\n", 18, MAXL, &done), 18);
	CHECK(c.remain == UINT64_MAX);
	CHECK_INT(done, 0);
}

TEST(chunk_data_skipped_in_one_step)
{
	struct h1_chunk c = { 0 };
	size_t big = 1 << 20;
	char *data = malloc(big);
	int done;

	CHECK(data != NULL);
	if (!data)
		return;
	memset(data, '\n', big); /* framing bytes inside data must not matter */
	CHECK_INT(h1_chunk_scan(&c, "200000\r\n", 8, MAXL, &done), 8);
	CHECK_INT(c.remain, 0x200000);
	CHECK_INT(h1_chunk_scan(&c, data, big, MAXL, &done), big);
	CHECK_INT(h1_chunk_scan(&c, data, big, MAXL, &done), big);
	CHECK_INT(c.remain, 0);
	CHECK_INT(h1_chunk_scan(&c, "\r\n0\r\n\r\n", 7, MAXL, &done), 7);
	CHECK_INT(done, 1);
	free(data);
}

TEST(chunk_max_line)
{
	char s[128];
	int done;

	/* size line "5;" + 20 x + CRLF = 24 bytes */
	snprintf(s, sizeof(s), "5;%s\r\nhello\r\n0\r\n\r\n", "xxxxxxxxxxxxxxxxxxxx");
	CHECK_INT(feed(s, strlen(s), 0, 24, &done), strlen(s));
	CHECK_INT(feed(s, strlen(s), 0, 23, &done), -1);
	CHECK_INT(feed(s, strlen(s), 1, 23, &done), -1);
	/* trailers: "A: 1\r\n" + "B: 2\r\n" + "\r\n" = 14 bytes */
	snprintf(s, sizeof(s), "0\r\nA: 1\r\nB: 2\r\n\r\n");
	CHECK_INT(feed(s, strlen(s), 0, 14, &done), strlen(s));
	CHECK_INT(feed(s, strlen(s), 0, 13, &done), -1);
	CHECK_INT(feed(s, strlen(s), 1, 13, &done), -1);
}

/* The bytes of an unfinished size line are reported as pending, so that a forwarding
 * caller holds them back until the line is known to be valid.
 */
TEST(chunk_pending_size_line)
{
	struct h1_chunk c = { 0 };
	const char *s = "5;a=\"x";
	int done;

	CHECK_INT(h1_chunk_scan(&c, s, strlen(s), MAXL, &done), strlen(s));
	CHECK_INT(h1_chunk_pending(&c), strlen(s));
	CHECK_INT(h1_chunk_scan(&c, "\"\r", 2, MAXL, &done), 2);
	CHECK_INT(h1_chunk_pending(&c), strlen(s) + 2);
	CHECK_INT(h1_chunk_scan(&c, "\nhel", 4, MAXL, &done), 4);
	CHECK_INT(h1_chunk_pending(&c), 0);
	CHECK_INT(h1_chunk_scan(&c, "lo\r\n1", 5, MAXL, &done), 5);
	CHECK_INT(h1_chunk_pending(&c), 1);
	CHECK_INT(h1_chunk_scan(&c, ";\x01", 2, MAXL, &done), -1);
}
