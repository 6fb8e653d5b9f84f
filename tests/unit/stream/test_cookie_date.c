/* Unit tests for the persistence cookie's date codec (stream/cookie_date.c): dates as
 * HAProxy 2.6 wrote them (checked against its Set-Cookie), the 4 s rounding, round trips,
 * unreadable fields, and the "SRV|LAST|FIRST" splitter.
 */
#include <string.h>

#include <stream/cookie_date.h>
#include "../test.h"

static uint32_t ctd_dec(const char *s)
{
	return ck_date_dec(ist2(s, strlen(s)));
}

TEST(cookie_date_as_2_6_writes_it)
{
	char out[CK_DATE_LEN + 1] = { 0 };

	ck_date_enc(1795518341, out); /* 2.6 sent "awVvi" at that second */
	CHECK(!strcmp(out, "awVvi"));
	ck_date_enc(1795518345, out);
	CHECK(!strcmp(out, "awVvj"));
	ck_date_enc(4, out);
	CHECK(!strcmp(out, "AAAAB"));
}

TEST(cookie_date_round_trip_rounds_up_to_4s)
{
	char out[CK_DATE_LEN + 1] = { 0 };

	for (uint32_t t = 1795518340; t < 1795518350; t++) {
		ck_date_enc(t, out);
		CHECK_INT(ctd_dec(out), (t + 3) / 4 * 4);
	}
	ck_date_enc(0xfffffff0u, out);
	CHECK_INT(ctd_dec(out), 0xfffffff0u);
}

TEST(cookie_date_unreadable_is_none)
{
	CHECK_INT(ctd_dec("awVv"), 0);	/* too short */
	CHECK_INT(ctd_dec("awVv!"), 0); /* outside the alphabet */
	CHECK_INT(ctd_dec("!wVvi"), 0);
	CHECK_INT(ctd_dec("AAAAA"), 0);
	CHECK_INT(ctd_dec(""), 0);
	CHECK_INT(ctd_dec("awVviA"), ctd_dec("awVvi")); /* extra characters are ignored */
	CHECK_INT(ctd_dec("////+"), 0xfffffff8u);
}

TEST(cookie_date_split)
{
	struct ist id;
	uint32_t last, first;
	const char *v;

	v = "s1";
	ck_date_split(ist2(v, strlen(v)), &id, &last, &first);
	CHECK(id.len == 2 && !memcmp(id.ptr, "s1", 2) && !last && !first);
	v = "s1|awVvi|awVvj";
	ck_date_split(ist2(v, strlen(v)), &id, &last, &first);
	CHECK(id.len == 2 && last == ctd_dec("awVvi") && first == ctd_dec("awVvj"));
	v = "s1|awVvi";
	ck_date_split(ist2(v, strlen(v)), &id, &last, &first);
	CHECK(id.len == 2 && last == ctd_dec("awVvi") && !first);
	v = "|";
	ck_date_split(ist2(v, strlen(v)), &id, &last, &first);
	CHECK(id.len == 0 && !last && !first);
	v = "s1||awVvj|x";
	ck_date_split(ist2(v, strlen(v)), &id, &last, &first);
	CHECK(id.len == 2 && !last && first == ctd_dec("awVvj"));
	ck_date_split(ist2("", 0), &id, &last, &first);
	CHECK(id.len == 0 && !last && !first);
}
