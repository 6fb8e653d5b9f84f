/* Received syslog messages: RFC 3164 and RFC 5424 fields, a PRI out of range or missing
 * (the whole text is the message), TCP framing by octet count or newline. */
#include <string.h>

#include <log/syslog_parse.h>
#include "../test.h"

static bool is(struct ist v, const char *s)
{
	return v.len == strlen(s) && memcmp(v.ptr, s, v.len) == 0;
}

TEST(syslog_parse_3164)
{
	static const char in[] = "<13>Nov 24 10:00:00 myhost app[123]: hello world\n";
	struct syslog_msg m;

	syslog_parse(in, sizeof(in) - 1, &m);
	CHECK_INT(m.kind, SYSLOG_3164);
	CHECK_INT(m.facility, 1);
	CHECK_INT(m.level, 5);
	CHECK(is(m.ts, "Nov 24 10:00:00"));
	CHECK(is(m.host, "myhost"));
	CHECK(is(m.tag, "app"));
	CHECK(is(m.pid, "123"));
	CHECK(is(m.msg, "hello world"));
	syslog_parse("<34>Oct 11 22:14:15 su: 'su root' failed", 40, &m);
	/* as 2.6: the word after the date is the host, even "su:"; then no tag */
	CHECK(is(m.host, "su:") && m.tag.len == 0 && is(m.msg, "'su root' failed"));
	syslog_parse("<13>Nov 24 14:00:00 host tag:msg", 32, &m);
	CHECK(is(m.host, "host") && m.tag.len == 0 && is(m.msg, "tag:msg"));
	syslog_parse("<13>Nov 24 14:00:00 host tag[]: m", 33, &m);
	CHECK(is(m.tag, "tag") && m.pid.len == 0 && is(m.msg, "m"));
	syslog_parse("<13>Nov 24 14:00:00 host tag[1 x", 32, &m);
	CHECK(m.tag.len == 0 && is(m.msg, "tag[1 x"));
	syslog_parse("<13>Nov 24 14:00:00 hello", 25, &m); /* no space after the host */
	CHECK_INT(m.kind, SYSLOG_PRI);
	CHECK(is(m.msg, "Nov 24 14:00:00 hello"));
	syslog_parse("<13>1 bad h a p m - x", 21, &m); /* not a 5424 timestamp */
	CHECK_INT(m.kind, SYSLOG_PRI);
	CHECK(is(m.msg, "1 bad h a p m - x"));
}

TEST(syslog_parse_5424)
{
	static const char in[] = "<165>1 2003-10-11T22:14:15.003Z mymachine evntslog - ID47 "
				 "[ex@1 iut=\"3\" x=\"a\\]b\"] An event";
	struct syslog_msg m;

	syslog_parse(in, sizeof(in) - 1, &m);
	CHECK_INT(m.kind, SYSLOG_5424);
	CHECK_INT(m.facility, 20);
	CHECK_INT(m.level, 5);
	CHECK(is(m.ts, "2003-10-11T22:14:15.003Z"));
	CHECK(is(m.host, "mymachine"));
	CHECK(is(m.tag, "evntslog"));
	CHECK(m.pid.len == 0);
	CHECK(is(m.msgid, "ID47"));
	CHECK(is(m.sd, "[ex@1 iut=\"3\" x=\"a\\]b\"]"));
	CHECK(is(m.msg, "An event"));
}

TEST(syslog_parse_no_header)
{
	struct syslog_msg m;

	syslog_parse("<999>bad pri", 12, &m);
	CHECK_INT(m.kind, SYSLOG_RAW);
	CHECK_INT(m.level, -1);
	CHECK(is(m.msg, "<999>bad pri"));
	syslog_parse("<13>just text", 13, &m);
	CHECK_INT(m.kind, SYSLOG_PRI);
	CHECK(is(m.msg, "just text"));
}

TEST(syslog_frame)
{
	static const char in[] = "23 <14>Nov 24 10:00:00 h x<15>a\nrest";
	size_t off = 0, len = 0;
	long n;

	n = syslog_frame(in, sizeof(in) - 1, &off, &len);
	CHECK_INT(n, 26);
	CHECK_INT((long)off, 3);
	CHECK_INT((long)len, 23);
	n = syslog_frame(in + 26, sizeof(in) - 1 - 26, &off, &len);
	CHECK_INT(n, 6);
	CHECK_INT((long)len, 5);
	CHECK_INT(syslog_frame("rest", 4, &off, &len), 0);	   /* no newline yet */
	CHECK_INT(syslog_frame("30 short", 8, &off, &len), 0);	   /* incomplete */
	CHECK_INT(syslog_frame("99999999 x", 10, &off, &len), -1); /* too long */
	CHECK_INT(syslog_frame("12x", 3, &off, &len), -1);	   /* bad count */
}
