/* Unit tests of the pure FIX and MQTT readers (src/sample/conv_fix.c, conv_mqtt.c) and of
 * their converters: a valid FIX 4.4 logon, a wrong checksum, body length or first tag,
 * a message cut short; MQTT 3.1.1 and 5.0 CONNECT and CONNACK packets, a packet cut
 * short, bad flags, the fields and properties extracted, and the argument errors.
 */
#include <string.h>

#include <conn/connection-t.h>
#include <sample/fix.h>
#include <sample/mqtt.h>
#include <sample/sample.h>

#include "../test.h"

static const char fix_logon[] = "8=FIX.4.4\x01"
				"9=42\x01"
				"35=A\x01"
				"49=CLIENT\x01"
				"56=SERVER\x01"
				"34=1\x01"
				"98=0\x01"
				"108=30\x01"
				"10=190\x01";

TEST(fix_validate)
{
	char m[128];
	size_t n = sizeof(fix_logon) - 1;
	struct ist v;

	CHECK_INT(fix_validate(fix_logon, n), FIX_VALID);
	CHECK_INT(fix_validate(fix_logon, n - 1), FIX_MORE);
	CHECK_INT(fix_validate(fix_logon, 20), FIX_MORE);
	memcpy(m, fix_logon, n);
	m[n - 2] = '1'; /* checksum 191 */
	CHECK_INT(fix_validate(m, n), FIX_INVALID);
	memcpy(m, fix_logon, n);
	m[12] = '3'; /* body length 32 */
	CHECK_INT(fix_validate(m, n), FIX_INVALID);
	memcpy(m, fix_logon, n);
	m[6] = '9'; /* FIX.4.9 */
	CHECK_INT(fix_validate(m, n), FIX_INVALID);
	CHECK_INT(fix_validate("GET / HTTP/1.1\r\nHost: a.b.c\r\n\r\n", 31), FIX_MORE);
	CHECK_INT(fix_validate("9=5\x01"
			       "8=FIX.4.4\x01"
			       "35=A\x01"
			       "10=000\x01",
			       28),
		  FIX_INVALID);
	/* a tag past FIX.4.0's range */
	CHECK_INT(fix_validate("8=FIX.4.0\x01"
			       "9=9\x01"
			       "35=A\x01"
			       "500=1\x01"
			       "10=000\x01",
			       34),
		  FIX_INVALID);

	CHECK_INT(fix_tag_find(fix_logon, n, 49, &v), 1);
	CHECK(ist_eq(v, IST("CLIENT")));
	CHECK_INT(fix_tag_find(fix_logon, n, 777, &v), FIX_INVALID);
	CHECK_INT(fix_tag_find(fix_logon, 30, 108, &v), FIX_MORE);
	CHECK_INT(fix_tag_find("=x\x01", 3, 8, &v), FIX_INVALID);
	CHECK_INT(fix_tag_id("35", 2), 35);
	CHECK_INT(fix_tag_id("msgtype", 7), 35);
	CHECK_INT(fix_tag_id("SenderCompID", 12), 49);
	CHECK_INT(fix_tag_id("0", 1), 0);
	CHECK_INT(fix_tag_id("-3", 2), 0);
	CHECK_INT(fix_tag_id("foo", 3), 0);
}

static const unsigned char mq_conn4[] = "\x10\x18\x00\x04MQTT\x04\x82\x00<\x00\x07"
					"client1\x00\x03"
					"bob";
static const unsigned char mq_conn5[] = "\x10\x14\x00\x04MQTT\x05\x02\x00<\x05\x11\x00\x00"
					"\x00x\x00\x02"
					"c5";

TEST(mqtt_validate)
{
	struct mqtt_pkt p;
	unsigned char m[64];
	size_t n4 = sizeof(mq_conn4) - 1, n5 = sizeof(mq_conn5) - 1;

	CHECK_INT(mqtt_validate(mq_conn4, n4, &p), MQTT_VALID);
	CHECK_INT(p.version, 4);
	CHECK_INT(mqtt_validate(mq_conn5, n5, &p), MQTT_VALID);
	CHECK_INT(p.num[17], 120);
	CHECK_INT(mqtt_validate(mq_conn4, n4 - 1, &p), MQTT_MORE);
	CHECK_INT(mqtt_validate(mq_conn4, 1, &p), MQTT_MORE);
	memcpy(m, mq_conn4, n4);
	m[0] = 0x11; /* flags must be 0 on CONNECT */
	CHECK_INT(mqtt_validate(m, n4, &p), MQTT_INVALID);
	memcpy(m, mq_conn4, n4);
	m[9] = 0x83; /* reserved flag */
	CHECK_INT(mqtt_validate(m, n4, &p), MQTT_INVALID);
	memcpy(m, mq_conn4, n4);
	m[8] = 3; /* 3.1 protocol level with the 3.1.1 name */
	CHECK_INT(mqtt_validate(m, n4, &p), MQTT_INVALID);
	memcpy(m, mq_conn4, n4);
	m[1] = 0x19; /* remaining length one too long, one more byte given */
	m[n4] = 0;
	CHECK_INT(mqtt_validate(m, n4 + 1, &p), MQTT_INVALID);
	/* CONNACK 3.1.1 and 5.0 */
	CHECK_INT(mqtt_validate((const unsigned char *)"\x20\x02\x01\x00", 4, &p), MQTT_VALID);
	CHECK_INT(p.version, 4);
	CHECK_INT(mqtt_validate((const unsigned char *)"\x20\x02\x02\x00", 4, &p), MQTT_INVALID);
	CHECK_INT(mqtt_validate((const unsigned char *)"\x20\x08\x00\x00\x05\x22\x00\x0a\x24\x01",
				10, &p),
		  MQTT_VALID);
	CHECK_INT(p.num[34], 10);
	/* a duplicated property */
	CHECK_INT(mqtt_validate((const unsigned char *)"\x20\x08\x00\x00\x05\x24\x00\x24\x01\x00",
				10, &p),
		  MQTT_INVALID);
	CHECK_INT(mqtt_validate((const unsigned char *)"\xc0\x00", 2, &p), MQTT_INVALID);
	CHECK_INT(mqtt_validate((const unsigned char *)"\x10\xff\xff\xff\xff\x01", 6, &p),
		  MQTT_INVALID);
	CHECK_INT(mqtt_validate((const unsigned char *)"\x10\xff\xff\x7f", 4, &p), MQTT_MORE);
}

TEST(mqtt_field)
{
	size_t n4 = sizeof(mq_conn4) - 1, n5 = sizeof(mq_conn5) - 1;
	struct ist v;
	char num[16];

	CHECK_INT(mqtt_field(mq_conn4, n4, MQTT_CONNECT, MQTT_F_CLIENT_IDENTIFIER, &v, num,
			     sizeof(num)),
		  1);
	CHECK(ist_eq(v, IST("client1")));
	CHECK_INT(mqtt_field(mq_conn4, n4, MQTT_CONNECT, MQTT_F_USERNAME, &v, num, sizeof(num)), 1);
	CHECK(ist_eq(v, IST("bob")));
	CHECK_INT(mqtt_field(mq_conn4, n4, MQTT_CONNECT, MQTT_F_PASSWORD, &v, num, sizeof(num)),
		  MQTT_INVALID);
	CHECK_INT(mqtt_field(mq_conn4, n4, MQTT_CONNECT, MQTT_F_KEEPALIVE, &v, num, sizeof(num)),
		  1);
	CHECK(ist_eq(v, IST("60")));
	CHECK_INT(mqtt_field(mq_conn4, n4, MQTT_CONNECT, MQTT_F_FLAGS, &v, num, sizeof(num)), 1);
	CHECK(ist_eq(v, IST("130")));
	CHECK_INT(mqtt_field(mq_conn4, n4, MQTT_CONNACK, MQTT_F_FLAGS, &v, num, sizeof(num)),
		  MQTT_INVALID);
	CHECK_INT(mqtt_field(mq_conn4, n4 - 2, MQTT_CONNECT, MQTT_F_FLAGS, &v, num, sizeof(num)),
		  MQTT_MORE);
	/* 5.0 properties; absent integer ones read 0, none in 3.1.1 */
	CHECK_INT(mqtt_field(mq_conn5, n5, MQTT_CONNECT, 17, &v, num, sizeof(num)), 1);
	CHECK(ist_eq(v, IST("120")));
	CHECK_INT(mqtt_field(mq_conn5, n5, MQTT_CONNECT, 33, &v, num, sizeof(num)), 1);
	CHECK(ist_eq(v, IST("0")));
	CHECK_INT(mqtt_field(mq_conn5, n5, MQTT_CONNECT, 21, &v, num, sizeof(num)), MQTT_INVALID);
	CHECK_INT(mqtt_field(mq_conn4, n4, MQTT_CONNECT, 17, &v, num, sizeof(num)), MQTT_INVALID);
	CHECK_INT(mqtt_field(mq_conn5, n5, MQTT_CONNECT, 1, &v, num, sizeof(num)), MQTT_INVALID);

	CHECK_INT(mqtt_type_id("connect", 7), 1);
	CHECK_INT(mqtt_type_id("2", 1), 2);
	CHECK_INT(mqtt_type_id("16", 2), 0);
	CHECK_INT(mqtt_type_id("foo", 3), 0);
	CHECK_INT(mqtt_field_id(1, "Client_Identifier", 17), MQTT_F_CLIENT_IDENTIFIER);
	CHECK_INT(mqtt_field_id(1, "reason_code", 11), 0);
	CHECK_INT(mqtt_field_id(2, "17", 2), 17);
	CHECK_INT(mqtt_field_id(2, "017", 3), 0);
	CHECK_INT(mqtt_field_id(3, "1", 1), 1);
	CHECK_INT(mqtt_field_id(12, "1", 1), 0);
}

/* The converters over a bare client connection: evaluation text, -1 not found, -2 does
 * not parse (error in <out>). */
static int fm_eval(const void *bytes, size_t len, const char *expr, uint32_t opt, char *out,
		   size_t outsz, uint32_t *flags)
{
	static char area[256];
	struct conn c;
	struct smp_ctx ctx = { 0 };
	struct sample smp = { .ctx = &ctx };
	struct sample_expr *e;
	char err[256];
	int n = -1;

	memset(&c, 0, sizeof(c));
	memcpy(area, bytes, len);
	c.ibuf = (struct buf){ .area = area, .size = sizeof(area), .data = (uint32_t)len };
	ctx.conn = &c;
	ctx.opt = opt;
	e = sample_parse_expr(expr, NULL, NULL, err, sizeof(err));
	if (!e) {
		snprintf(out, outsz, "%s", err);
		return -2;
	}
	if (sample_process(e, &smp))
		n = smp_to_text(&smp, out, outsz - 1);
	if (n >= 0)
		out[n] = 0;
	*flags = smp.flags;
	sample_expr_free(e);
	return n;
}

TEST(conv_fix_mqtt)
{
	size_t nf = sizeof(fix_logon) - 1, n4 = sizeof(mq_conn4) - 1;
	char out[256];
	uint32_t fl;

	CHECK_INT(fm_eval(fix_logon, nf, "req.payload(0,0),fix_is_valid", SMP_OPT_FINAL, out,
			  sizeof(out), &fl),
		  1);
	CHECK(!strcmp(out, "1"));
	CHECK_INT(fm_eval(fix_logon, nf - 3, "req.payload(0,0),fix_is_valid", 0, out, sizeof(out),
			  &fl),
		  -1);
	CHECK(fl & SMP_F_MAY_CHANGE);
	CHECK_INT(fm_eval("8=FIX.9.9\x01"
			  "9=5\x01"
			  "35=A\x01"
			  "49=ABCDEFGHIJ\x01",
			  30, "req.payload(0,0),fix_is_valid", 0, out, sizeof(out), &fl),
		  1);
	CHECK(!strcmp(out, "0"));
	CHECK_INT(fm_eval(fix_logon, nf, "req.payload(0,0),fix_tag_value(TargetCompID)", 0, out,
			  sizeof(out), &fl),
		  6);
	CHECK(!strcmp(out, "SERVER"));
	CHECK_INT(fm_eval(fix_logon, nf, "req.payload(0,0),fix_tag_value(foo)", 0, out, sizeof(out),
			  &fl),
		  -2);
	CHECK(strstr(out,
		     "invalid args in converter 'fix_tag_value' : Unknown FIX tag name 'foo'"));
	CHECK_INT(fm_eval(mq_conn4, n4, "req.payload(0,0),mqtt_is_valid", 0, out, sizeof(out), &fl),
		  1);
	CHECK(!strcmp(out, "1"));
	CHECK_INT(fm_eval(mq_conn4, n4,
			  "req.payload(0,0),mqtt_field_value(connect,client_identifier)", 0, out,
			  sizeof(out), &fl),
		  7);
	CHECK(!strcmp(out, "client1"));
	CHECK_INT(fm_eval(mq_conn4, n4, "req.payload(0,0),mqtt_field_value(1,protocol_version)", 0,
			  out, sizeof(out), &fl),
		  1);
	CHECK(!strcmp(out, "4"));
	CHECK_INT(fm_eval(mq_conn4, n4, "req.payload(0,0),mqtt_field_value(foo,bar)", 0, out,
			  sizeof(out), &fl),
		  -2);
	CHECK(strstr(out, "Unknown MQTT type 'foo'"));
	CHECK_INT(fm_eval(mq_conn4, n4, "req.payload(0,0),mqtt_field_value(connect,reason_code)", 0,
			  out, sizeof(out), &fl),
		  -2);
	CHECK(strstr(out, "Unknown MQTT field name 'reason_code' for packet type 'connect'"));
}
