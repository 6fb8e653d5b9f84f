/* Unit tests of the distcc reader (sample/distcc.h): values and bodies of occurrences,
 * tokens without a body, skipped bodies, bad hexadecimal digits, input that ends early
 * (more may tell), and a body that is never read past the input.
 */
#include <string.h>

#include <sample/distcc.h>
#include "../test.h"

static const char REQ[] = "DIST00000001ARGC00000002ARGV00000003gccARGV00000002-c"
			  "DOTI00000005helloDONE00000001";

static int find(const char *in, size_t len, const char *tok, long long occ, bool body, uint32_t *v,
		char *out)
{
	const unsigned char *b;
	size_t bl;
	int r = distcc_find((const unsigned char *)in, len, tok, occ, body, v, &b, &bl);

	if (r == DISTCC_FOUND) {
		memcpy(out, b, bl);
		out[bl] = 0;
	}
	return r;
}

TEST(distcc_values_and_bodies)
{
	char out[64];
	uint32_t v;

	CHECK(find(REQ, strlen(REQ), "DIST", 0, false, &v, out) == DISTCC_FOUND && v == 1);
	CHECK(find(REQ, strlen(REQ), "ARGC", 1, false, &v, out) == DISTCC_FOUND && v == 2);
	CHECK(find(REQ, strlen(REQ), "ARGV", 1, true, &v, out) == DISTCC_FOUND && v == 3);
	CHECK_STR(out, "gcc");
	CHECK(find(REQ, strlen(REQ), "ARGV", 2, true, &v, out) == DISTCC_FOUND && v == 2);
	CHECK_STR(out, "-c");
	CHECK(find(REQ, strlen(REQ), "DOTI", 0, true, &v, out) == DISTCC_FOUND);
	CHECK_STR(out, "hello");
	CHECK(find(REQ, strlen(REQ), "DIST", 1, true, &v, out) == DISTCC_FOUND);
	CHECK_STR(out, ""); /* no body */
	CHECK(find(REQ, strlen(REQ), "DONE", 1, false, &v, out) == DISTCC_FOUND && v == 1);
	CHECK(find(REQ, strlen(REQ), "ARGV", -1, false, &v, out) == DISTCC_NOT);
	/* past the last element: more may come */
	CHECK(find(REQ, strlen(REQ), "ARGV", 3, false, &v, out) == DISTCC_MORE);
	CHECK(find(REQ, strlen(REQ), "SOUT", 1, false, &v, out) == DISTCC_MORE);
}

TEST(distcc_skips_and_errors)
{
	static const char unk[] = "DIST00000001XXXX00000003abcARGV0000000Agcc0123456";
	static const char bad[] = "DIST00000001ARGV0000000Zgcc";
	char out[64];
	uint32_t v;

	CHECK(find(unk, strlen(unk), "ARGV", 1, true, &v, out) == DISTCC_FOUND && v == 10);
	CHECK_STR(out, "gcc0123456");
	CHECK(find(bad, strlen(bad), "DIST", 1, false, &v, out) == DISTCC_FOUND);
	CHECK(find(bad, strlen(bad), "ARGV", 1, false, &v, out) == DISTCC_NOT);
	CHECK(find("dist00000001", 12, "DIST", 1, false, &v, out) == DISTCC_MORE);
	CHECK(find("DIST0000000g", 12, "DIST", 1, false, &v, out) == DISTCC_NOT);
	CHECK(find("DIST 0000001", 12, "DIST", 1, false, &v, out) == DISTCC_NOT);
	CHECK(find("DIST0000", 8, "DIST", 1, false, &v, out) == DISTCC_MORE);
	CHECK(find("", 0, "DIST", 1, false, &v, out) == DISTCC_MORE);
}

TEST(distcc_short_body)
{
	static const char cut[] = "DIST00000001ARGV00000003gc";
	static const char big[] = "DIST00000001ARGVffffffffgccDOTI00000001x";
	char out[64];
	uint32_t v;

	/* the value is there, the body not whole: never read past the input */
	CHECK(find(cut, strlen(cut), "ARGV", 1, false, &v, out) == DISTCC_FOUND && v == 3);
	CHECK(find(cut, strlen(cut), "ARGV", 1, true, &v, out) == DISTCC_MORE);
	CHECK(find(big, strlen(big), "ARGV", 1, false, &v, out) == DISTCC_FOUND &&
	      v == 0xffffffffu);
	CHECK(find(big, strlen(big), "ARGV", 1, true, &v, out) == DISTCC_MORE);
	CHECK(find(big, strlen(big), "DOTI", 1, false, &v, out) == DISTCC_MORE);
}
