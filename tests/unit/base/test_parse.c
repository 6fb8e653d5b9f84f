/* Unit tests for base/parse.c: times with units, sizes with k/m/g, bounded integers. */
#include <stdint.h>

#include <base/parse.h>
#include "../test.h"

static int time_ms(const char *s)
{
	int ms = -2;

	return parse_time_ms(s, 1, &ms) ? -2 : ms;
}

TEST(parse_time_units)
{
	CHECK_INT(time_ms("0"), 0);
	CHECK_INT(time_ms("1500"), 1500);
	CHECK_INT(time_ms("10ms"), 10);
	CHECK_INT(time_ms("10s"), 10000);
	CHECK_INT(time_ms("2m"), 120000);
	CHECK_INT(time_ms("1h"), 3600000);
	CHECK_INT(time_ms("1d"), 86400000);
	CHECK_INT(time_ms("1us"), 1);     /* rounds up */
	CHECK_INT(time_ms("1000us"), 1);
	CHECK_INT(time_ms("1001us"), 2);
	CHECK_INT(time_ms("0us"), 0);
	CHECK_INT(time_ms("24d"), 24 * 86400000);
}

TEST(parse_time_default_unit)
{
	int ms = 0;

	CHECK(parse_time_ms("5", 1000, &ms) == NULL);
	CHECK_INT(ms, 5000);
	CHECK(parse_time_ms("5ms", 1000, &ms) == NULL);
	CHECK_INT(ms, 5);
}

TEST(parse_time_errors)
{
	const char *s = "10x";
	int ms = 0;

	CHECK(parse_time_ms(s, 1, &ms) == s + 2);
	s = "";
	CHECK(parse_time_ms(s, 1, &ms) == s);
	s = "s";
	CHECK(parse_time_ms(s, 1, &ms) == s);
	s = "-1";
	CHECK(parse_time_ms(s, 1, &ms) == s);
	s = "10 s";
	CHECK(parse_time_ms(s, 1, &ms) == s + 2);
	s = "10sx";
	CHECK(parse_time_ms(s, 1, &ms) == s + 3);
	s = "25d";  /* over INT32_MAX ms */
	ms = 0;
	CHECK(parse_time_ms(s, 1, &ms) == s);
	CHECK_INT(ms, -1);
	s = "99999999999999999999999";
	ms = 0;
	CHECK(parse_time_ms(s, 1, &ms) == s);
	CHECK_INT(ms, -1);
	s = "2147483648";
	ms = 0;
	CHECK(parse_time_ms(s, 1, &ms) == s);
	CHECK_INT(ms, -1);
	CHECK_INT(time_ms("2147483647"), 2147483647);
}

TEST(parse_size_units)
{
	uint64_t v = 0;

	CHECK(parse_size("0", &v) == NULL);
	CHECK_INT(v, 0);
	CHECK(parse_size("16384", &v) == NULL);
	CHECK_INT(v, 16384);
	CHECK(parse_size("16k", &v) == NULL);
	CHECK_INT(v, 16384);
	CHECK(parse_size("2K", &v) == NULL);
	CHECK_INT(v, 2048);
	CHECK(parse_size("3m", &v) == NULL);
	CHECK_INT(v, 3 << 20);
	CHECK(parse_size("1G", &v) == NULL);
	CHECK_INT(v, 1 << 30);
}

TEST(parse_size_errors)
{
	uint64_t v = 0;
	const char *s;

	s = "";
	CHECK(parse_size(s, &v) == s);
	s = "k";
	CHECK(parse_size(s, &v) == s);
	s = "12kb";
	CHECK(parse_size(s, &v) == s + 3);
	s = "12t";
	CHECK(parse_size(s, &v) == s + 2);
	s = "99999999999999999999999";
	CHECK(parse_size(s, &v) == s);
	s = "17179869184g"; /* 2^34 g overflows 64 bits */
	CHECK(parse_size(s, &v) == s);
}

TEST(parse_long_bounds)
{
	long v = 0;

	CHECK_INT(parse_long("42", 0, 100, &v), 0);
	CHECK_INT(v, 42);
	CHECK_INT(parse_long("-1", -1, 100, &v), 0);
	CHECK_INT(v, -1);
	CHECK_INT(parse_long("+7", 0, 100, &v), 0);
	CHECK_INT(v, 7);
	CHECK_INT(parse_long("101", 0, 100, &v), -1);
	CHECK_INT(parse_long("-2", -1, 100, &v), -1);
	CHECK_INT(parse_long("", 0, 100, &v), -1);
	CHECK_INT(parse_long(" 1", 0, 100, &v), -1);
	CHECK_INT(parse_long("1 ", 0, 100, &v), -1);
	CHECK_INT(parse_long("10k", 0, 100000, &v), -1);
	CHECK_INT(parse_long("0x10", 0, 100, &v), -1);
	CHECK_INT(parse_long("-", 0, 100, &v), -1);
	CHECK_INT(parse_long("99999999999999999999999", 0, 100, &v), -1);
}
