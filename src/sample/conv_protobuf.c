/* The protobuf(<field_path>[,<type>]) and ungrpc(<field_path>[,<type>]) converters over
 * the pure reader of protobuf.c: without a type the field's bytes (a view into the input),
 * with one the decoded integer. The path is checked and the type turned into an integer
 * at parse time, with HAProxy 2.6's messages.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sample/arg.h>
#include <sample/conv.h>
#include <sample/protobuf.h>
#include <sample/sample.h>

static int conv_protobuf(const struct arg *args, struct sample *smp, void *private)
{
	const uint8_t *in = (const uint8_t *)smp->data.u.str.ptr;
	struct ist path = args[0].data.str;
	struct pb_field f;
	int64_t v;
	int found;

	if (CONV_PRIV_INT(private))
		found = pb_grpc_lookup(
			in, smp->data.u.str.len, path.ptr, path.len,
			args[1].type == ARGT_SINT ? (enum pb_type)args[1].data.sint : PB_T_RAW, &f);
	else
		found = pb_lookup(in, smp->data.u.str.len, path.ptr, path.len, &f);
	if (!found)
		return 0;
	if (args[1].type != ARGT_SINT) {
		smp->data.type = SMP_T_BIN;
		smp->data.u.str = ist2((const char *)f.val, f.len);
		return 1;
	}
	if (!pb_field_int(&f, (enum pb_type)args[1].data.sint, &v))
		return 0;
	conv_set_sint(smp, SMP_T_SINT, v);
	return 1;
}

static int conv_protobuf_check(struct arg *args, void *private, char *err, size_t errsz)
{
	int t;

	if (!pb_path_valid(args[0].data.str.ptr, args[0].data.str.len)) {
		snprintf(err, errsz,
			 "failed to parse '%s' as type 'Protocol buffers field number' at "
			 "position 1",
			 args[0].data.str.ptr);
		return -1;
	}
	if (args[1].type != ARGT_STR)
		return 0;
	t = pb_type_parse(args[1].data.str.ptr);
	if (t < 0) {
		snprintf(err, errsz, "Wrong protocol buffer type '%s'", args[1].data.str.ptr);
		return -1;
	}
	arg_set_sint(&args[1], t);
	return 0;
}

static const struct sample_conv protobuf_convs[] = {
	{ "protobuf",
	  conv_protobuf,
	  1,
	  { ARGT_STR, ARGT_STR },
	  conv_protobuf_check,
	  SMP_T_BIN,
	  SMP_T_ANY,
	  CONV_PRIV(0) },
	{ "ungrpc",
	  conv_protobuf,
	  1,
	  { ARGT_STR, ARGT_STR },
	  conv_protobuf_check,
	  SMP_T_BIN,
	  SMP_T_ANY,
	  CONV_PRIV(1) },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, NULL },
};

SMP_REGISTER_CONVS(protobuf_convs)
