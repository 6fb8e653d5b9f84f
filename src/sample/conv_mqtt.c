/* The MQTT converters (mqtt_is_valid, mqtt_field_value) and the pure reader of the first
 * MQTT packet of a payload they use (sample/mqtt.h), with HAProxy 2.6's rules: the fixed
 * header of every type, the whole CONNECT and CONNACK packets of 3.1.1 and 5.0 with their
 * properties, which fields each packet type may be asked for. Built with MQTT_PURE
 * (fuzzing), only the reader is compiled.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sample/arg.h>
#include <sample/mqtt.h>

#define MQTT_FL_RESERVED 0x01
#define MQTT_FL_WILL 0x04
#define MQTT_FL_WILL_QOS 0x18
#define MQTT_FL_WILL_RETAIN 0x20
#define MQTT_FL_PASSWORD 0x40
#define MQTT_FL_USERNAME 0x80

#define MQTT_P_USER 38 /* user property: a name and a value, may repeat, never extracted */
#define BIT(id) (1ULL << (id))

/* The flags the fixed header must carry for each packet type (PUBLISH: as HAProxy reads
 * it, all four bits). */
static const uint8_t mqtt_type_flags[MQTT_TYPES] = {
	[3] = 0x0f,
	[6] = 0x02,
	[8] = 0x02,
	[10] = 0x02,
};

/* How each property identifier is encoded */
enum mqtt_kind {
	MK_NONE = 0, /* not a property read here */
	MK_U8B,	     /* one byte, 0 or 1 */
	MK_U16,
	MK_U16NZ, /* two bytes, not 0 */
	MK_U32,
	MK_U32NZ,
	MK_STR,	  /* two-byte length and bytes */
	MK_STRNZ, /* the same, not empty */
	MK_PAIR,  /* two strings */
};

static const uint8_t mqtt_kinds[MQTT_PROP_MAX + 1] = {
	[1] = MK_U8B,	[2] = MK_U32,	 [3] = MK_STR,	[8] = MK_STR,  [9] = MK_STR,
	[17] = MK_U32,	[18] = MK_STRNZ, [19] = MK_U16, [21] = MK_STR, [22] = MK_STR,
	[23] = MK_U8B,	[24] = MK_U32,	 [25] = MK_U8B, [26] = MK_STR, [28] = MK_STR,
	[31] = MK_STR,	[33] = MK_U16NZ, [34] = MK_U16, [36] = MK_U8B, [37] = MK_U8B,
	[38] = MK_PAIR, [39] = MK_U32NZ, [40] = MK_U8B, [41] = MK_U8B, [42] = MK_U8B,
};

/* The properties each block may hold */
#define MQTT_PROPS_CONNECT \
	(BIT(17) | BIT(33) | BIT(39) | BIT(34) | BIT(25) | BIT(23) | BIT(38) | BIT(21) | BIT(22))
#define MQTT_PROPS_WILL (BIT(24) | BIT(1) | BIT(2) | BIT(3) | BIT(8) | BIT(9) | BIT(38))
#define MQTT_PROPS_CONNACK                                                                         \
	(BIT(17) | BIT(33) | BIT(36) | BIT(37) | BIT(39) | BIT(18) | BIT(34) | BIT(31) | BIT(40) | \
	 BIT(41) | BIT(42) | BIT(19) | BIT(26) | BIT(28) | BIT(38) | BIT(21) | BIT(22))

/* A cursor over the packet; <ok> turns false at the first read past its end. */
struct mqtt_rd {
	const unsigned char *p, *e;
	bool ok;
};

static size_t rd_left(const struct mqtt_rd *r)
{
	return r->ok ? (size_t)(r->e - r->p) : 0;
}

static uint32_t rd_int(struct mqtt_rd *r, size_t n)
{
	uint32_t v = 0;

	if (rd_left(r) < n) {
		r->ok = false;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v = v << 8 | r->p[i];
	r->p += n;
	return v;
}

static struct ist rd_str(struct mqtt_rd *r)
{
	size_t l = rd_int(r, 2);
	struct ist s = ist2("", 0);

	if (rd_left(r) < l) {
		r->ok = false;
		return s;
	}
	s = ist2(r->p, l);
	r->p += l;
	return s;
}

/* A variable byte integer of at most 4 bytes, read as HAProxy reads it: the bytes end
 * the number early without an error; a fourth byte with its continuation bit is one. */
static uint32_t rd_varint(struct mqtt_rd *r)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4 && rd_left(r); i++) {
		unsigned char b = *r->p++;

		v += (uint32_t)(b & 0x7f) << (7 * i);
		if (b < 0x80)
			break;
	}
	if (i == 4)
		r->ok = false;
	return v;
}

/* One property of identifier <id> (known to be allowed) into <p>; false if malformed. */
static bool mqtt_prop(struct mqtt_rd *r, unsigned int id, struct mqtt_pkt *p)
{
	switch (mqtt_kinds[id]) {
	case MK_U8B:
		p->num[id] = rd_int(r, 1);
		return r->ok && p->num[id] <= 1;
	case MK_U16:
	case MK_U16NZ:
		p->num[id] = rd_int(r, 2);
		return r->ok && (p->num[id] || mqtt_kinds[id] == MK_U16);
	case MK_U32:
	case MK_U32NZ:
		p->num[id] = rd_int(r, 4);
		return r->ok && (p->num[id] || mqtt_kinds[id] == MK_U32);
	case MK_STR:
	case MK_STRNZ:
		p->str[id] = rd_str(r);
		return r->ok && (p->str[id].len || mqtt_kinds[id] == MK_STR);
	case MK_PAIR:
		rd_str(r);
		rd_str(r);
		return r->ok;
	default:
		return false;
	}
}

/* A 5.0 property block: its length, then properties among <allowed>, each once (user
 * properties may repeat). An identifier not allowed gives <unknown> (HAProxy answers
 * "need more data" for one in a CONNACK). */
static int mqtt_props(struct mqtt_rd *r, struct mqtt_pkt *p, uint64_t allowed, int unknown)
{
	uint32_t len = rd_varint(r);
	struct mqtt_rd b;
	uint64_t seen = 0;

	if (!r->ok || rd_left(r) < len)
		return MQTT_INVALID;
	b = (struct mqtt_rd){ r->p, r->p + len, true };
	r->p += len;
	while (rd_left(&b)) {
		unsigned int id = *b.p++;

		if (id > MQTT_PROP_MAX || !(allowed & BIT(id)))
			return unknown;
		if ((seen & BIT(id)) && id != MQTT_P_USER)
			return MQTT_INVALID;
		if (!mqtt_prop(&b, id, p))
			return MQTT_INVALID;
		seen |= BIT(id);
	}
	return MQTT_VALID;
}

/* The whole packet was read exactly: what was consumed is the remaining length. */
static int mqtt_end(const struct mqtt_rd *r, size_t orig, const struct mqtt_pkt *p)
{
	return r->ok && orig - rd_left(r) == p->remlen ? MQTT_VALID : MQTT_INVALID;
}

/* CONNECT's variable header: protocol name and level, flags, keep alive, properties. */
static int mqtt_connect_hdr(struct mqtt_rd *r, struct mqtt_pkt *p)
{
	p->proto = rd_str(r);
	if (!r->ok || !ist_ieq(p->proto, IST("MQTT")))
		return MQTT_INVALID;
	p->version = (uint8_t)rd_int(r, 1);
	if (!r->ok || (p->version != 4 && p->version != 5))
		return MQTT_INVALID;
	p->flags = (uint8_t)rd_int(r, 1);
	if (!r->ok || (p->flags & MQTT_FL_RESERVED) ||
	    (p->flags & (MQTT_FL_WILL | MQTT_FL_WILL_QOS | MQTT_FL_WILL_RETAIN)) ==
		    MQTT_FL_WILL_QOS)
		return MQTT_INVALID;
	p->keepalive = (uint16_t)rd_int(r, 2);
	if (!r->ok)
		return MQTT_INVALID;
	if (p->version == 5 && mqtt_props(r, p, MQTT_PROPS_CONNECT, MQTT_INVALID) != MQTT_VALID)
		return MQTT_INVALID;
	if (!p->str[21].len && p->str[22].len) /* authentication data without a method */
		return MQTT_INVALID;
	return MQTT_VALID;
}

/* CONNECT: the variable header, then the payload whose fields the flags announce. */
static int mqtt_connect(struct mqtt_rd *r, struct mqtt_pkt *p)
{
	size_t orig = rd_left(r);

	if (mqtt_connect_hdr(r, p) != MQTT_VALID)
		return MQTT_INVALID;
	p->client_id = rd_str(r);
	if (!r->ok)
		return MQTT_INVALID;
	if (p->version == 5 && (p->flags & MQTT_FL_WILL) &&
	    mqtt_props(r, p, MQTT_PROPS_WILL, MQTT_INVALID) != MQTT_VALID)
		return MQTT_INVALID;
	if (p->flags & MQTT_FL_WILL) {
		p->will_topic = rd_str(r);
		p->will_payload = rd_str(r);
	}
	if (p->flags & MQTT_FL_USERNAME)
		p->username = rd_str(r);
	if (p->flags & MQTT_FL_PASSWORD)
		p->password = rd_str(r);
	return mqtt_end(r, orig, p);
}

/* CONNACK: flags and reason code, then 5.0 properties when the bytes go on (HAProxy
 * tells the version by what follows the fixed header, not by the remaining length). */
static int mqtt_connack(struct mqtt_rd *r, struct mqtt_pkt *p)
{
	size_t orig = rd_left(r);
	int ret;

	if (orig < 2)
		return MQTT_INVALID;
	p->version = orig == 2 ? 4 : 5;
	p->flags = (uint8_t)rd_int(r, 1);
	if (p->flags & 0xfe)
		return MQTT_INVALID;
	p->reason = (uint8_t)rd_int(r, 1);
	if (p->version == 5) {
		ret = mqtt_props(r, p, MQTT_PROPS_CONNACK, MQTT_MORE);
		if (ret != MQTT_VALID)
			return ret;
	}
	return mqtt_end(r, orig, p);
}

int mqtt_validate(const unsigned char *d, size_t n, struct mqtt_pkt *p)
{
	struct mqtt_rd r = { d, d + n, true };
	unsigned int type;

	memset(p, 0, sizeof(*p));
	if (n < 2)
		return MQTT_MORE;
	type = d[0] >> 4;
	if (!type || (d[0] & 0x0f) != mqtt_type_flags[type])
		return MQTT_INVALID;
	p->type = (uint8_t)type;
	r.p++;
	p->remlen = rd_varint(&r);
	if (!r.ok)
		return MQTT_INVALID;
	if (rd_left(&r) < p->remlen)
		return MQTT_MORE;
	if (type == MQTT_CONNECT)
		return mqtt_connect(&r, p);
	if (type == MQTT_CONNACK)
		return mqtt_connack(&r, p);
	return MQTT_INVALID;
}

/* Fields that are not properties, as (found, number or string) */
static int mqtt_named(const struct mqtt_pkt *p, int field, uint32_t *n, struct ist *s)
{
	bool c = p->type == MQTT_CONNECT;

	switch (field) {
	case MQTT_F_FLAGS:
		*n = p->flags;
		return 1;
	case MQTT_F_PROTOCOL_VERSION:
		*n = p->version;
		return 1;
	case MQTT_F_REASON_CODE:
		*n = p->reason;
		return !c;
	case MQTT_F_KEEPALIVE:
		*n = p->keepalive;
		return c;
	case MQTT_F_PROTOCOL_NAME:
		*s = p->proto;
		break;
	case MQTT_F_CLIENT_IDENTIFIER:
		*s = p->client_id;
		break;
	case MQTT_F_WILL_TOPIC:
		*s = p->will_topic;
		break;
	case MQTT_F_WILL_PAYLOAD:
		*s = p->will_payload;
		break;
	case MQTT_F_USERNAME:
		*s = p->username;
		break;
	case MQTT_F_PASSWORD:
		*s = p->password;
		break;
	default:
		return 0;
	}
	return c && s->len ? 2 : 0;
}

/* A property: only in 5.0 packets, only those HAProxy extracts for the packet's type (a
 * will property only with the will flag). Absent integer properties read 0. */
static int mqtt_prop_value(const struct mqtt_pkt *p, int id, uint32_t *n, struct ist *s)
{
	uint64_t ok =
		p->type == MQTT_CONNECT ? MQTT_PROPS_CONNECT | MQTT_PROPS_WILL : MQTT_PROPS_CONNACK;

	if (p->version != 5 || id < 1 || id > MQTT_PROP_MAX || !(ok & BIT(id)) || id == MQTT_P_USER)
		return 0;
	if (p->type == MQTT_CONNECT && (MQTT_PROPS_WILL & BIT(id)) && !(p->flags & MQTT_FL_WILL))
		return 0;
	if (mqtt_kinds[id] == MK_STR || mqtt_kinds[id] == MK_STRNZ) {
		*s = p->str[id];
		return s->len ? 2 : 0;
	}
	*n = p->num[id];
	return 1;
}

int mqtt_field(const unsigned char *d, size_t n, int type, int field, struct ist *v, char *num,
	       size_t numsz)
{
	struct mqtt_pkt p;
	uint32_t nv = 0;
	int r = mqtt_validate(d, n, &p), w;

	if (r != MQTT_VALID)
		return r;
	if (p.type != type || (type != MQTT_CONNECT && type != MQTT_CONNACK))
		return MQTT_INVALID;
	r = field > 100 ? mqtt_named(&p, field, &nv, v) : mqtt_prop_value(&p, field, &nv, v);
	if (r != 1)
		return r ? 1 : MQTT_INVALID;
	w = snprintf(num, numsz, "%u", (unsigned int)nv);
	if (w < 0 || (size_t)w >= numsz)
		return MQTT_INVALID;
	*v = ist2(num, (size_t)w);
	return 1;
}

/* ---- names used by the converter's arguments ---- */

static const char *const mqtt_type_names[MQTT_TYPES] = {
	NULL,	   "CONNECT",  "CONNACK",    "PUBLISH", "PUBACK",      "PUBREC",
	"PUBREL",  "PUBCOMP",  "SUBSCRIBE",  "SUBACK",	"UNSUBSCRIBE", "UNSUBACK",
	"PINGREQ", "PINGRESP", "DISCONNECT", "AUTH",
};

int mqtt_type_id(const char *s, size_t n)
{
	unsigned int v = 0;

	for (size_t i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		v = v * 10 + (unsigned int)(s[i] - '0');
	if (v >= 1 && v < MQTT_TYPES)
		return (int)v;
	for (int t = 1; t < MQTT_TYPES; t++)
		if (ist_ieq(ist2(s, n), ist_str(mqtt_type_names[t])))
			return t;
	return 0;
}

/* The named fields (bit F - 100) and properties each packet type may be asked for */
#define NB(f) (1U << ((f)-100))
static const struct {
	uint32_t names;
	uint64_t props;
} mqtt_allowed[MQTT_TYPES] = {
	[1] = { NB(MQTT_F_PROTOCOL_NAME) | NB(MQTT_F_PROTOCOL_VERSION) | NB(MQTT_F_FLAGS) |
			NB(MQTT_F_KEEPALIVE) | NB(MQTT_F_CLIENT_IDENTIFIER) |
			NB(MQTT_F_WILL_TOPIC) | NB(MQTT_F_WILL_PAYLOAD) | NB(MQTT_F_USERNAME) |
			NB(MQTT_F_PASSWORD),
		MQTT_PROPS_CONNECT | MQTT_PROPS_WILL },
	[2] = { NB(MQTT_F_FLAGS) | NB(MQTT_F_PROTOCOL_VERSION) | NB(MQTT_F_REASON_CODE),
		MQTT_PROPS_CONNACK },
	[3] = { 0, BIT(1) | BIT(2) | BIT(3) | BIT(8) | BIT(9) | BIT(11) | BIT(35) | BIT(38) },
	[4] = { NB(MQTT_F_REASON_CODE), BIT(31) | BIT(38) },
	[5] = { NB(MQTT_F_REASON_CODE), BIT(31) | BIT(38) },
	[6] = { NB(MQTT_F_REASON_CODE), BIT(31) | BIT(38) },
	[7] = { NB(MQTT_F_REASON_CODE), BIT(31) | BIT(38) },
	[8] = { 0, BIT(11) | BIT(38) },
	[9] = { 0, BIT(31) | BIT(38) },
	[10] = { 0, BIT(38) },
	[11] = { 0, BIT(31) | BIT(38) },
	[14] = { NB(MQTT_F_REASON_CODE), BIT(17) | BIT(28) | BIT(31) | BIT(38) },
	[15] = { 0, BIT(21) | BIT(22) | BIT(31) | BIT(38) },
};

int mqtt_field_id(int type, const char *s, size_t n)
{
	static const char *const names[] = { "flags",
					     "reason_code",
					     "protocol_name",
					     "protocol_version",
					     "client_identifier",
					     "will_topic",
					     "will_payload",
					     "username",
					     "password",
					     "keepalive" };
	unsigned int id = 0;

	if (type < 1 || type >= MQTT_TYPES)
		return 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (ist_ieq(ist2(s, n), ist_str(names[i])))
			return (mqtt_allowed[type].names & NB(101 + i)) ? (int)(101 + i) : 0;
	/* a property identifier, written as HAProxy's table writes it (no leading 0) */
	if (!n || n > 2 || s[0] == '0')
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		id = id * 10 + (unsigned int)(s[i] - '0');
	}
	if (id > MQTT_PROP_MAX || (!mqtt_kinds[id] && id != 11 && id != 35))
		return 0;
	return (mqtt_allowed[type].props & BIT(id)) ? (int)id : 0;
}

#ifndef MQTT_PURE
#include <stdlib.h>

#include <sample/sample.h>

/* More bytes may make the packet readable: "may change" unless the rules are final. */
static int mqtt_more(struct sample *smp)
{
	if (!(smp->ctx->opt & SMP_OPT_FINAL))
		smp->flags |= SMP_F_MAY_CHANGE;
	return 0;
}

/* mqtt_is_valid: true or false once the packet tells, nothing while it is incomplete. */
static int conv_mqtt_is_valid(const struct arg *args, struct sample *smp, void *private)
{
	struct mqtt_pkt p;
	int r = mqtt_validate((const unsigned char *)smp->data.u.str.ptr, smp->data.u.str.len, &p);

	smp->flags &= ~SMP_F_MAY_CHANGE;
	if (r == MQTT_MORE)
		return mqtt_more(smp);
	smp->data.type = SMP_T_BOOL;
	smp->data.u.sint = r == MQTT_VALID;
	return 1;
}

/* mqtt_field_value(TYPE,FIELD): strings are views into the input, numbers are written
 * in decimal into a scratch chunk. */
static int conv_mqtt_field_value(const struct arg *args, struct sample *smp, void *private)
{
	char *num = smp_trash();
	struct ist v = ist2("", 0);
	int r;

	if (!num)
		return 0;
	r = mqtt_field((const unsigned char *)smp->data.u.str.ptr, smp->data.u.str.len,
		       (int)args[0].data.sint, (int)args[1].data.sint, &v, num, 16);
	smp->flags &= ~SMP_F_MAY_CHANGE;
	if (r == MQTT_MORE)
		return mqtt_more(smp);
	if (r < 0)
		return 0;
	smp->data.type = SMP_T_STR;
	smp->data.u.str = v;
	if (v.ptr == num)
		smp->flags &= ~SMP_F_CONST;
	else
		smp->flags |= SMP_F_CONST;
	return 1;
}

/* mqtt_field_value's arguments: a packet type and a field it may carry, kept as numbers. */
static int val_mqtt_field(struct arg *args, void *private, char *err, size_t errsz)
{
	int type = mqtt_type_id(args[0].data.str.ptr, args[0].data.str.len), field;

	if (!type) {
		snprintf(err, errsz, "Unknown MQTT type '%s'", args[0].data.str.ptr);
		return -1;
	}
	field = mqtt_field_id(type, args[1].data.str.ptr, args[1].data.str.len);
	if (!field) {
		snprintf(err, errsz, "Unknown MQTT field name '%s' for packet type '%s'",
			 args[1].data.str.ptr, args[0].data.str.ptr);
		return -1;
	}
	arg_set_sint(&args[0], type);
	arg_set_sint(&args[1], field);
	return 0;
}

/* clang-format off */
static const struct sample_conv mqtt_convs[] = {
	{ "mqtt_is_valid", conv_mqtt_is_valid, 0, { 0 }, NULL, SMP_T_BIN, SMP_T_BOOL, NULL },
	{ "mqtt_field_value", conv_mqtt_field_value, 2, { ARGT_STR, ARGT_STR }, val_mqtt_field,
	  SMP_T_BIN, SMP_T_STR, NULL },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, NULL },
};

SMP_REGISTER_CONVS(mqtt_convs)
/* clang-format on */
#endif /* MQTT_PURE */
