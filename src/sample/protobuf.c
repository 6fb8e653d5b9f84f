/* Protocol buffers reader (sample/protobuf.h): varints, field extents, the walk along a
 * dotted field-number path, gRPC framing and the scalar decodings. Pure: the protobuf and
 * ungrpc converters (conv_protobuf.c) and the fuzz target call it.
 */
#include <string.h>

#include <sample/protobuf.h>

int pb_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t r = 0;
	int n;

	for (n = 0; p + n < end; n++) {
		if (n == PB_VARINT_MAX)
			return -1;
		if (n < 10)
			r |= (uint64_t)(p[n] & 0x7f) << (7 * n);
		if (!(p[n] & 0x80)) {
			*v = r;
			return n + 1;
		}
	}
	if (n)
		return -1; /* a continuation bit on the last byte */
	*v = 0;
	return 0;
}

static const char *const pb_type_names[] = {
	[PB_T_INT32] = "int32",	      [PB_T_INT64] = "int64",	[PB_T_UINT32] = "uint32",
	[PB_T_UINT64] = "uint64",     [PB_T_SINT32] = "sint32", [PB_T_SINT64] = "sint64",
	[PB_T_BOOL] = "bool",	      [PB_T_ENUM] = "enum",	[PB_T_FIXED64] = "fixed64",
	[PB_T_SFIXED64] = "sfixed64", [PB_T_DOUBLE] = "double", [PB_T_FIXED32] = "fixed32",
	[PB_T_SFIXED32] = "sfixed32", [PB_T_FLOAT] = "float",
};

int pb_type_parse(const char *name)
{
	for (int t = PB_T_INT32; t <= PB_T_FLOAT; t++)
		if (!strcmp(name, pb_type_names[t]))
			return t;
	return -1;
}

static unsigned int pb_type_wire(enum pb_type t)
{
	if (t >= PB_T_FIXED32)
		return PB_W_32BIT;
	if (t >= PB_T_FIXED64)
		return PB_W_64BIT;
	return PB_W_VARINT;
}

bool pb_path_valid(const char *path, size_t len)
{
	if (!len || path[len - 1] < '0' || path[len - 1] > '9')
		return false;
	for (size_t i = 0; i < len; i++)
		if (path[i] != '.' && (path[i] < '0' || path[i] > '9'))
			return false;
	return true;
}

/* The value of the field whose key ended at p, of wire type <wire>, bounded by <end>.
 * Returns 1 with *f set, 0 when it is cut short or of a wire type without a value here
 * (groups, 6 and 7). */
static int pb_value(const uint8_t *p, const uint8_t *end, unsigned int wire, struct pb_field *f)
{
	uint64_t l;
	int n;

	f->wire = wire;
	switch (wire) {
	case PB_W_VARINT:
		n = pb_varint(p, end, &l);
		if (n < 0)
			return 0;
		f->val = p;
		f->len = (size_t)n;
		return 1;
	case PB_W_64BIT:
	case PB_W_32BIT:
		f->len = wire == PB_W_64BIT ? 8 : 4;
		f->val = p;
		return (size_t)(end - p) >= f->len;
	case PB_W_LEN:
		n = pb_varint(p, end, &l);
		if (n < 0 || l > (uint64_t)(end - p - n))
			return 0;
		f->val = p + n;
		f->len = (size_t)l;
		return 1;
	default:
		return 0;
	}
}

/* Reads the number of the path at *pp (before pe), wrapping at 32 bits, and moves *pp past
 * it and its dot. */
static uint32_t pb_path_next(const char **pp, const char *pe)
{
	const char *p = *pp;
	uint32_t v = 0;

	for (; p < pe && *p != '.'; p++)
		v = v * 10 + (uint32_t)(*p - '0');
	*pp = p < pe ? p + 1 : p;
	return v;
}

/* Where a varint at p that pb_varint() refused stops being read: at end when cut short, or
 * after PB_VARINT_MAX bytes when too long. */
static const uint8_t *pb_varint_stop(const uint8_t *p, const uint8_t *end)
{
	return (size_t)(end - p) > PB_VARINT_MAX ? p + PB_VARINT_MAX : end;
}

/* Moves *pp past the field whose key ended at *pp: a length-delimited field's length (its
 * value is then (*pp, *l)), then, unless <keep>, its value. Returns false when the field is
 * cut short or of a wire type without a value (groups, 6 and 7), with *pp where its
 * reading stopped. */
static bool pb_skip(const uint8_t **pp, const uint8_t *end, unsigned int wire, bool keep,
		    uint64_t *l)
{
	const uint8_t *p = *pp;
	size_t fixed = wire == PB_W_64BIT ? 8 : 4;
	int n;

	switch (wire) {
	case PB_W_VARINT:
		n = keep ? 0 : pb_varint(p, end, l);
		*pp = n < 0 ? pb_varint_stop(p, end) : p + n;
		return n >= 0;
	case PB_W_64BIT:
	case PB_W_32BIT:
		if (keep)
			return true;
		if ((size_t)(end - p) < fixed)
			return false;
		*pp = p + fixed;
		return true;
	case PB_W_LEN:
		n = pb_varint(p, end, l);
		if (n < 0) {
			*pp = pb_varint_stop(p, end);
			return false;
		}
		*pp = p + n;
		if (*l > (uint64_t)(end - p - n))
			return false;
		*pp = keep ? p + n : p + n + *l;
		return true;
	default:
		return false;
	}
}

/* The walk, as 2.6 does it: one flat pass over the whole message, never narrowed to a
 * submessage. A key matching the path's current number moves to the next number without
 * skipping the value, so the next key is read from the value's first bytes (for a
 * submessage, its first field; for a scalar, its bytes). A key that does not match skips
 * its field, and goes back to the path's first number once the submessage entered last is
 * used up: its byte count is counted down by the fields read after it, and is used up at
 * once by a skipped length-delimited field (whose length replaces it). So a repeated
 * submessage is searched in each occurrence. Each turn reads at least a key byte, so the
 * walk ends within len turns.
 *
 * The field found must decode as <type> (PB_T_RAW: any) or the walk fails there. On
 * failure, *stop is where the reading stopped: the end when the field is not there, the
 * found value's start, or the place a field turned out invalid. */
static int pb_walk(const uint8_t *msg, size_t len, const char *path, size_t pathlen,
		   enum pb_type type, struct pb_field *f, const uint8_t **stop)
{
	const uint8_t *p = msg, *end = msg + len;
	const char *pp = path, *pe = path + pathlen;
	int64_t left = 0; /* bytes of the submessage entered last; <= 0: used up */
	int64_t v;

	while (p < end) {
		const char *next = pp;
		uint32_t want = pb_path_next(&next, pe);
		const uint8_t *from = p, *val;
		uint64_t key, l = 0;
		unsigned int wire;
		int n = pb_varint(p, end, &key);
		bool hit;

		if (n <= 0) {
			*stop = pb_varint_stop(p, end);
			return 0;
		}
		val = p += n;
		wire = (unsigned int)(key & 7);
		hit = (uint32_t)(key >> 3) == want;
		if (!pb_skip(&p, end, wire, hit, &l)) {
			*stop = p;
			return 0;
		}
		if (hit && next == pe) {
			*stop = p;
			return pb_value(val, end, wire, f) &&
			       (type == PB_T_RAW || pb_field_int(f, type, &v));
		}
		if (wire == PB_W_LEN)
			left = hit ? (int64_t)l : 0; /* a skipped one is used up at once */
		else if (left > 0)
			left -= p - from;
		if (hit)
			pp = next;
		else if (left <= 0)
			pp = path;
	}
	*stop = p;
	return 0;
}

int pb_lookup(const uint8_t *msg, size_t len, const char *path, size_t pathlen, struct pb_field *f)
{
	const uint8_t *stop;

	if (!pb_path_valid(path, pathlen))
		return 0;
	return pb_walk(msg, len, path, pathlen, PB_T_RAW, f, &stop);
}

int pb_grpc_lookup(const uint8_t *in, size_t len, const char *path, size_t pathlen,
		   enum pb_type type, struct pb_field *f)
{
	const uint8_t *stop;

	if (!pb_path_valid(path, pathlen))
		return 0;
	while (len >= 5) {
		uint32_t mlen = (uint32_t)in[1] << 24 | (uint32_t)in[2] << 16 |
				(uint32_t)in[3] << 8 | in[4];

		if (mlen > len - 5)
			return 0;
		if (pb_walk(in + 5, mlen, path, pathlen, type, f, &stop))
			return 1;
		/* as 2.6: the next header is read where this walk stopped, and the count of
		 * bytes left drops by the whole message */
		in = stop;
		len -= 5 + (size_t)mlen;
	}
	return 0;
}

/* What x86-64's cvttsd2si gives: the integer toward zero, or INT64_MIN out of range. */
static int64_t pb_cvt64(double d)
{
	if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
		return INT64_MIN;
	return (int64_t)d;
}

static uint64_t pb_le(const uint8_t *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

int pb_field_int(const struct pb_field *f, enum pb_type type, int64_t *v)
{
	uint64_t u = 0;
	double d;
	float fl;

	if (type == PB_T_RAW || f->wire != pb_type_wire(type))
		return 0;
	switch (type) {
	case PB_T_SINT32:
	case PB_T_SINT64:
		pb_varint(f->val, f->val + f->len, &u);
		*v = (int64_t)((u >> 1) ^ (0 - (u & 1)));
		return 1;
	case PB_T_FIXED64:
	case PB_T_SFIXED64:
		*v = (int64_t)pb_le(f->val, 8);
		return 1;
	case PB_T_DOUBLE:
		/* as gcc's (uint64_t) conversion on x86-64, then read as signed */
		u = pb_le(f->val, 8);
		memcpy(&d, &u, sizeof(d));
		if (!(d >= 9223372036854775808.0))
			*v = pb_cvt64(d);
		else
			*v = (int64_t)((uint64_t)pb_cvt64(d - 9223372036854775808.0) ^
				       (UINT64_C(1) << 63));
		return 1;
	case PB_T_FIXED32:
		*v = (int64_t)pb_le(f->val, 4);
		return 1;
	case PB_T_SFIXED32:
		*v = (int32_t)(uint32_t)pb_le(f->val, 4);
		return 1;
	case PB_T_FLOAT:
		/* as gcc's (uint32_t) conversion on x86-64 */
		u = pb_le(f->val, 4);
		{
			uint32_t w = (uint32_t)u;

			memcpy(&fl, &w, sizeof(fl));
		}
		*v = (uint32_t)(uint64_t)pb_cvt64((double)fl);
		return 1;
	default:
		pb_varint(f->val, f->val + f->len, &u);
		*v = (int64_t)u;
		return 1;
	}
}
