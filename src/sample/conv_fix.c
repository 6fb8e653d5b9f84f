/* The FIX converters (fix_is_valid, fix_tag_value) and the pure reader of FIX messages
 * they use (sample/fix.h), with HAProxy 2.6's rules: which checks make a message valid,
 * when more bytes are needed, which tag numbers each version allows. Built with
 * FIX_PURE (fuzzing), only the reader is compiled.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <sample/arg.h>
#include <sample/fix.h>

#define FIX_SOH 0x01
#define FIX_MIN_MSG 26 /* shorter than this, a message cannot be whole */

/* The number of an all-digit tag (wrapping on overflow as HAProxy's reader does), 0 when
 * it is empty, not all digits, or 0. */
static unsigned int fix_num(const char *s, size_t n)
{
	uint32_t v = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (uint32_t)(s[i] - '0');
	}
	return v;
}

/* The version strings of BeginString and the highest tag each allows (FIXT.1.1: FIX 5.0
 * SP2's). */
static const struct {
	const char *name;
	unsigned int max_tag;
} fix_versions[] = {
	{ "FIX.4.0", 140 }, { "FIX.4.1", 211 }, { "FIX.4.2", 446 },
	{ "FIX.4.3", 659 }, { "FIX.4.4", 956 }, { "FIXT.1.1", 1621 },
};

/* The highest tag of BeginString value v, 0 if it names no known version. */
static unsigned int fix_version_max(struct ist v)
{
	for (size_t i = 0; i < sizeof(fix_versions) / sizeof(fix_versions[0]); i++)
		if (ist_eq(v, ist_str(fix_versions[i].name)))
			return fix_versions[i].max_tag;
	return 0;
}

/* One "TAG=VALUE<SOH>" field at p (before e): FIX_MORE when its '=' or SOH is not there
 * yet, FIX_INVALID for an empty tag, else 1 with the views. The '=' is searched first, as
 * HAProxy does, so a tag holding a SOH is a bad tag, not a short one. */
static int fix_field(const char *p, const char *e, struct ist *tag, struct ist *val)
{
	const char *eq = memchr(p, '=', (size_t)(e - p)), *soh;

	if (!eq)
		return FIX_MORE;
	soh = memchr(eq, FIX_SOH, (size_t)(e - eq));
	if (!soh)
		return FIX_MORE;
	if (eq == p)
		return FIX_INVALID;
	*tag = ist2(p, (size_t)(eq - p));
	*val = ist2(eq + 1, (size_t)(soh - eq - 1));
	return 1;
}

/* The sum of the field's bytes, '=' and SOH included, modulo 256. */
static unsigned char fix_sum(struct ist tag, struct ist val)
{
	unsigned int s = '=' + FIX_SOH;

	for (size_t i = 0; i < tag.len; i++)
		s += (unsigned char)tag.ptr[i];
	for (size_t i = 0; i < val.len; i++)
		s += (unsigned char)val.ptr[i];
	return (unsigned char)s;
}

/* The CheckSum field at <p>: the body length matches and its 3 characters give <sum>
 * (leading digits read, as HAProxy does). */
static bool fix_checksum_ok(struct ist val, unsigned char sum, const char *body, const char *p,
			    unsigned int body_len)
{
	unsigned int v = 0;

	if ((size_t)(p - body) != body_len || val.len != 3)
		return false;
	for (size_t i = 0; i < 3 && val.ptr[i] >= '0' && val.ptr[i] <= '9'; i++)
		v = v * 10 + (unsigned int)(val.ptr[i] - '0');
	return v == sum;
}

int fix_validate(const char *d, size_t n)
{
	const char *p = d, *e = d + n, *body = NULL;
	unsigned int max_tag = 0, body_len = 0, nfields = 0;
	unsigned char sum = 0;

	if (n < FIX_MIN_MSG)
		return FIX_MORE;
	while (p < e) {
		struct ist tag, val;
		unsigned int id;
		int r = fix_field(p, e, &tag, &val);

		if (r <= 0)
			return r;
		id = fix_num(tag.ptr, tag.len);
		if (!id || (max_tag && id > max_tag && (id < 10000 || id > 19999)))
			return FIX_INVALID;
		nfields++;
		if (nfields == 1) {
			if (id != FIX_TAG_BEGIN_STRING || !(max_tag = fix_version_max(val)))
				return FIX_INVALID;
		} else if (nfields == 2) {
			body_len = fix_num(val.ptr, val.len);
			if (id != FIX_TAG_BODY_LENGTH || !body_len)
				return FIX_INVALID;
			body = val.ptr + val.len + 1;
		} else if (nfields == 3) {
			if (id != FIX_TAG_MSG_TYPE)
				return FIX_INVALID;
		} else if (id == FIX_TAG_CHECKSUM) {
			return fix_checksum_ok(val, sum, body, p, body_len) ? FIX_VALID
									    : FIX_INVALID;
		}
		sum += fix_sum(tag, val);
		p = val.ptr + val.len + 1;
	}
	return body ? FIX_MORE : FIX_INVALID;
}

int fix_tag_find(const char *d, size_t n, unsigned int tag, struct ist *v)
{
	const char *p = d, *e = d + n;

	while (p < e) {
		struct ist t, val;
		unsigned int id;
		int r = fix_field(p, e, &t, &val);

		if (r <= 0)
			return r;
		id = fix_num(t.ptr, t.len);
		if (!id)
			return FIX_INVALID;
		if (id == tag) {
			*v = val;
			return 1;
		}
		if (id == FIX_TAG_CHECKSUM)
			return FIX_INVALID;
		p = val.ptr + val.len + 1;
	}
	return FIX_MORE;
}

unsigned int fix_tag_id(const char *s, size_t n)
{
	static const struct {
		const char *name;
		unsigned int id;
	} names[] = {
		{ "MsgType", FIX_TAG_MSG_TYPE },	 { "CheckSum", FIX_TAG_CHECKSUM },
		{ "BodyLength", FIX_TAG_BODY_LENGTH },	 { "TargetCompID", FIX_TAG_TARGET_COMP_ID },
		{ "BeginString", FIX_TAG_BEGIN_STRING }, { "SenderCompID", FIX_TAG_SENDER_COMP_ID },
	};
	unsigned int id = fix_num(s, n);

	if (id)
		return id;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (ist_ieq(ist2(s, n), ist_str(names[i].name)))
			return names[i].id;
	return 0;
}

#ifndef FIX_PURE
#include <stdio.h>
#include <stdlib.h>

#include <sample/sample.h>

/* More bytes may make the message readable: "may change" unless the rules are final. */
static int fix_more(struct sample *smp)
{
	if (!(smp->ctx->opt & SMP_OPT_FINAL))
		smp->flags |= SMP_F_MAY_CHANGE;
	return 0;
}

/* fix_is_valid: true or false once the message tells, nothing while it is incomplete. */
static int conv_fix_is_valid(const struct arg *args, struct sample *smp, void *private)
{
	int r = fix_validate(smp->data.u.str.ptr, smp->data.u.str.len);

	smp->flags &= ~SMP_F_MAY_CHANGE;
	if (r == FIX_MORE)
		return fix_more(smp);
	smp->data.type = SMP_T_BOOL;
	smp->data.u.sint = r == FIX_VALID;
	return 1;
}

/* fix_tag_value(TAG): the value of the first field TAG, a view into the input. An empty
 * value is "not found yet", as in HAProxy. */
static int conv_fix_tag_value(const struct arg *args, struct sample *smp, void *private)
{
	struct ist v = ist2("", 0);
	int r = fix_tag_find(smp->data.u.str.ptr, smp->data.u.str.len,
			     (unsigned int)args[0].data.sint, &v);

	smp->flags &= ~SMP_F_MAY_CHANGE;
	if (r == FIX_MORE || (r > 0 && !v.len))
		return fix_more(smp);
	if (r < 0)
		return 0;
	smp->data.type = SMP_T_STR;
	smp->data.u.str = v;
	smp->flags |= SMP_F_CONST;
	return 1;
}

/* fix_tag_value's argument: a tag number or one of the known names, kept as a number. */
static int val_fix_tag(struct arg *args, void *private, char *err, size_t errsz)
{
	unsigned int id = fix_tag_id(args[0].data.str.ptr, args[0].data.str.len);

	if (!id) {
		snprintf(err, errsz, "Unknown FIX tag name '%s'", args[0].data.str.ptr);
		return -1;
	}
	arg_set_sint(&args[0], id);
	return 0;
}

/* clang-format off */
static const struct sample_conv fix_convs[] = {
	{ "fix_is_valid", conv_fix_is_valid, 0, { 0 }, NULL, SMP_T_BIN, SMP_T_BOOL, NULL },
	{ "fix_tag_value", conv_fix_tag_value, 1, { ARGT_STR }, val_fix_tag, SMP_T_BIN, SMP_T_STR,
	  NULL },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, NULL },
};

SMP_REGISTER_CONVS(fix_convs)
/* clang-format on */
#endif /* FIX_PURE */
