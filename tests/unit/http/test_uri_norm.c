/* Unit tests for the normalize-uri normalizers (http/uri_norm.c): HAProxy's documented
 * examples for each, strict mode, and the out-of-room result.
 */
#include <string.h>

#include <http/uri_norm.h>
#include "../test.h"

static void norm_check(const char *file, int line, int (*fn)(const char *, size_t, char *, size_t),
		       const char *in, const char *want)
{
	char out[256];
	int n = fn(in, strlen(in), out, sizeof(out));

	if (n < 0 || (size_t)n != strlen(want) || memcmp(out, want, (size_t)n))
		test_fail(file, line, "'%s' gave '%.*s' (%d), expected '%s'", in, n < 0 ? 0 : n,
			  out, n, want);
}

#define NORM(fn, in, want) norm_check(__FILE__, __LINE__, fn, in, want)

static int dotdot(const char *in, size_t len, char *out, size_t outsz)
{
	return uri_norm_strip_dotdot(in, len, false, out, outsz);
}

static int dotdot_full(const char *in, size_t len, char *out, size_t outsz)
{
	return uri_norm_strip_dotdot(in, len, true, out, outsz);
}

static int pct_decode(const char *in, size_t len, char *out, size_t outsz)
{
	return uri_norm_pct_decode_unreserved(in, len, false, out, outsz);
}

static int pct_upper(const char *in, size_t len, char *out, size_t outsz)
{
	return uri_norm_pct_upper(in, len, false, out, outsz);
}

TEST(uri_norm_merge_slashes)
{
	NORM(uri_norm_merge_slashes, "//", "/");
	NORM(uri_norm_merge_slashes, "/foo//bar", "/foo/bar");
	NORM(uri_norm_merge_slashes, "///a///", "/a/");
	NORM(uri_norm_merge_slashes, "/plain", "/plain");
}

TEST(uri_norm_strip_dot)
{
	NORM(uri_norm_strip_dot, "/.", "/");
	NORM(uri_norm_strip_dot, "/./bar/", "/bar/");
	NORM(uri_norm_strip_dot, "/a/./a", "/a/a");
	NORM(uri_norm_strip_dot, "/.well-known/", "/.well-known/");
	NORM(uri_norm_strip_dot, "/a/.", "/a/");
	NORM(uri_norm_strip_dot, "/", "/");
}

TEST(uri_norm_strip_dotdot)
{
	NORM(dotdot, "/foo/../", "/");
	NORM(dotdot, "/foo/../bar/", "/bar/");
	NORM(dotdot, "/foo/bar/../", "/foo/");
	NORM(dotdot, "/../bar/", "/../bar/");
	NORM(dotdot, "/bar/../../", "/../");
	NORM(dotdot, "/foo//../", "/foo/");
	NORM(dotdot, "/foo/%2E%2E/", "/foo/%2E%2E/");
	NORM(dotdot, "/a/b/..", "/a/");
	NORM(dotdot_full, "/../bar/", "/bar/");
	NORM(dotdot_full, "/bar/../../", "/");
}

TEST(uri_norm_percent)
{
	char out[32];

	NORM(pct_decode, "/%61dmin", "/admin");
	NORM(pct_decode, "/foo%3Fbar=baz", "/foo%3Fbar=baz");
	NORM(pct_decode, "/%%36%36", "/%66");
	NORM(pct_decode, "/%ZZ", "/%ZZ");
	NORM(pct_decode, "/%7e%2D", "/~-");
	NORM(pct_decode, "/%6", "/%6");
	CHECK_INT(uri_norm_pct_decode_unreserved("/%%36%36", 8, true, out, sizeof(out)),
		  URI_NORM_INVALID);
	CHECK_INT(uri_norm_pct_decode_unreserved("/%ZZ", 4, true, out, sizeof(out)),
		  URI_NORM_INVALID);
	CHECK_INT(uri_norm_pct_decode_unreserved("/x%4", 4, true, out, sizeof(out)),
		  URI_NORM_INVALID);
	NORM(pct_upper, "/%6f", "/%6F");
	NORM(pct_upper, "/%zz", "/%zz");
	NORM(pct_upper, "/%aB%cd", "/%AB%CD");
	CHECK_INT(uri_norm_pct_upper("/%zz", 4, true, out, sizeof(out)), URI_NORM_INVALID);
}

TEST(uri_norm_query_sort)
{
	NORM(uri_norm_query_sort, "c=3&a=1&b=2", "a=1&b=2&c=3");
	NORM(uri_norm_query_sort, "aaa=3&a=1&aa=2", "a=1&aa=2&aaa=3");
	NORM(uri_norm_query_sort, "a=3&b=4&a=1&b=5&a=2", "a=3&a=1&a=2&b=4&b=5");
	NORM(uri_norm_query_sort, "c=b&aa=1&b=2", "aa=1&b=2&c=b");
	NORM(uri_norm_query_sort, "b&a", "a&b");
	NORM(uri_norm_query_sort, "", "");
}

TEST(uri_norm_fragments)
{
	NORM(uri_norm_fragment_strip, "/#foo", "/");
	NORM(uri_norm_fragment_strip, "/a?b#c#d", "/a?b");
	NORM(uri_norm_fragment_encode, "/#foo", "/%23foo");
	NORM(uri_norm_fragment_encode, "/a#b#c", "/a%23b%23c");
}

TEST(uri_norm_no_room)
{
	char out[4];

	CHECK_INT(uri_norm_merge_slashes("/abcdef", 7, out, sizeof(out)), URI_NORM_ROOM);
	CHECK_INT(uri_norm_strip_dot("/abcdef", 7, out, sizeof(out)), URI_NORM_ROOM);
	CHECK_INT(uri_norm_strip_dotdot("/abcdef", 7, false, out, sizeof(out)), URI_NORM_ROOM);
	CHECK_INT(uri_norm_fragment_encode("/a#b", 4, out, sizeof(out)), URI_NORM_ROOM);
	CHECK_INT(uri_norm_query_sort("a=1&b=2", 7, out, sizeof(out)), URI_NORM_ROOM);
	CHECK_INT(uri_norm_pct_decode_unreserved("/%61bcdef", 9, false, out, sizeof(out)),
		  URI_NORM_ROOM);
}
