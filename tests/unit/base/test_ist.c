/* String views: case-insensitive equality, which header lookups rely on. */
#include <base/ist.h>

#include "../test.h"

TEST(ist_ieq_ascii)
{
	CHECK(ist_ieq(IST("Host"), IST("host")));
	CHECK(ist_ieq(IST("CONTENT-LENGTH"), IST("content-length")));
	CHECK(ist_ieq(IST(""), IST("")));
	CHECK(!ist_ieq(IST("host"), IST("hosts")));
	CHECK(!ist_ieq(IST("host"), IST("hist")));
	/* only letters fold: '@'/'`', '['/'{', '^'/'~' differ by the case bit too */
	CHECK(!ist_ieq(IST("a@"), IST("a`")));
	CHECK(!ist_ieq(IST("x["), IST("x{")));
	CHECK(!ist_ieq(IST("a^b"), IST("a~b")));
	/* bytes above 0x7f are compared as they are */
	CHECK(!ist_ieq(IST("\xc9"), IST("\xe9")));
	CHECK(ist_ieq(IST("\xc9t\xc9"), IST("\xc9T\xc9")));
	/* every letter, both ways */
	for (int c = 'A'; c <= 'Z'; c++) {
		char u = (char)c, l = (char)(c + 32);

		CHECK(ist_ieq(ist2(&u, 1), ist2(&l, 1)));
		CHECK(ist_ieq(ist2(&l, 1), ist2(&u, 1)));
	}
}
