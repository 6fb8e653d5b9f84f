/* Converters over the pure codecs of codec.c and json.c: base64, b64dec, ub64enc, ub64dec,
 * hex, hex2i, url_dec, url_enc, be2dec, be2hex, field, word, ltime, utime, http_date,
 * json and json_query. Each checks its arguments at parse time with HAProxy's messages,
 * then runs the codec into a scratch chunk; an output that does not fit fails the
 * converter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sample/arg.h>
#include <sample/codec.h>
#include <sample/conv.h>
#include <sample/json.h>
#include <sample/sample.h>

/* Sets the result of <type> written by a codec into <out> (a scratch chunk): <n> is what
 * the codec returned. Returns 1, or 0 (the converter fails) when n < 0. */
static int conv_done(struct sample *smp, int type, char *out, int n)
{
	if (n < 0)
		return 0;
	conv_set_str(smp, type, out, (size_t)n);
	return 1;
}

/* ---- base64, hex ---- */

static int conv_base64(const struct arg *args, struct sample *smp, void *private)
{
	struct ist in = smp->data.u.str;
	char *out = smp_trash();
	size_t outsz = smp_trash_size();

	if (!out)
		return 0;
	if (CONV_PRIV_INT(private))
		return conv_done(smp, SMP_T_STR, out, codec_ub64_enc(in.ptr, in.len, out, outsz));
	return conv_done(smp, SMP_T_STR, out, codec_b64_enc(in.ptr, in.len, out, outsz));
}

static int conv_b64dec(const struct arg *args, struct sample *smp, void *private)
{
	struct ist in = smp->data.u.str;
	char *out = smp_trash();
	size_t outsz = smp_trash_size();

	if (!out)
		return 0;
	if (CONV_PRIV_INT(private))
		return conv_done(smp, SMP_T_BIN, out, codec_ub64_dec(in.ptr, in.len, out, outsz));
	return conv_done(smp, SMP_T_BIN, out, codec_b64_dec(in.ptr, in.len, out, outsz));
}

static int conv_hex(const struct arg *args, struct sample *smp, void *private)
{
	struct ist in = smp->data.u.str;
	char *out = smp_trash();
	size_t outsz = smp_trash_size();

	if (!out)
		return 0;
	return conv_done(smp, SMP_T_STR, out, codec_hex_enc(in.ptr, in.len, out, outsz));
}

static int conv_hex2i(const struct arg *args, struct sample *smp, void *private)
{
	int64_t v;

	if (codec_hex2i(smp->data.u.str.ptr, smp->data.u.str.len, &v) < 0)
		return 0;
	conv_set_sint(smp, SMP_T_SINT, v);
	return 1;
}

/* ---- URLs ---- */

static int conv_url_dec(const struct arg *args, struct sample *smp, void *private)
{
	bool form = args[0].type == ARGT_SINT && args[0].data.sint;
	struct ist in = smp->data.u.str;
	char *out = smp_trash();
	size_t outsz = smp_trash_size();

	if (!out)
		return 0;
	return conv_done(smp, SMP_T_STR, out, codec_url_dec(in.ptr, in.len, out, outsz, form));
}

static int conv_url_enc(const struct arg *args, struct sample *smp, void *private)
{
	struct ist in = smp->data.u.str;
	char *out = smp_trash();
	size_t outsz = smp_trash_size();

	if (!out)
		return 0;
	return conv_done(smp, SMP_T_STR, out, codec_url_enc(in.ptr, in.len, out, outsz));
}

static int conv_url_enc_check(struct arg *args, void *private, char *err, size_t errsz)
{
	if (args[0].type == ARGT_STR && strcmp(args[0].data.str.ptr, "query") != 0) {
		snprintf(err, errsz, "Unexpected encode type. Allowed value is 'query'");
		return -1;
	}
	return 0;
}

/* ---- be2dec, be2hex ---- */

static struct ist conv_arg_str(const struct arg *a)
{
	return a->type == ARGT_STR ? a->data.str : ist2("", 0);
}

static long long conv_arg_int(const struct arg *a, long long def)
{
	return a->type == ARGT_SINT ? a->data.sint : def;
}

static int conv_be2dec(const struct arg *args, struct sample *smp, void *private)
{
	struct ist in = smp->data.u.str, sep = conv_arg_str(&args[0]);
	int chunk = (int)args[1].data.sint;
	bool trunc = conv_arg_int(&args[2], 0) != 0;
	char *out = smp_trash();
	size_t outsz = smp_trash_size();

	if (!out)
		return 0;
	return conv_done(smp, SMP_T_STR, out,
			 codec_be2dec(in.ptr, in.len, sep.ptr, sep.len, chunk, trunc, out, outsz));
}

static int conv_be2dec_check(struct arg *args, void *private, char *err, size_t errsz)
{
	if (args[1].data.sint < 1 || args[1].data.sint > 8) {
		snprintf(err, errsz, "chunk_size out of [1..8] range (%lld)", args[1].data.sint);
		return -1;
	}
	return 0;
}

static int conv_be2hex(const struct arg *args, struct sample *smp, void *private)
{
	struct ist in = smp->data.u.str, sep = conv_arg_str(&args[0]);
	int chunk = (int)conv_arg_int(&args[1], 0);
	bool trunc = conv_arg_int(&args[2], 0) != 0;
	char *out = smp_trash();
	size_t outsz = smp_trash_size();

	if (!out)
		return 0;
	return conv_done(smp, SMP_T_STR, out,
			 codec_be2hex(in.ptr, in.len, sep.ptr, sep.len, chunk, trunc, out, outsz));
}

static int conv_be2hex_check(struct arg *args, void *private, char *err, size_t errsz)
{
	long long chunk = conv_arg_int(&args[1], 0);

	if (chunk < 0 || chunk > INT32_MAX || (conv_arg_str(&args[0]).len && chunk <= 0)) {
		snprintf(err, errsz, "chunk_size needs to be positive (%lld)", chunk);
		return -1;
	}
	return 0;
}

/* ---- field, word ---- */

static int conv_field(const struct arg *args, struct sample *smp, void *private)
{
	bool word = CONV_PRIV_INT(private);
	struct ist in = smp->data.u.str, d = args[1].data.str;
	long count = (long)conv_arg_int(&args[2], 1);
	long idx = (long)args[0].data.sint;
	size_t off, len;
	int rc;

	if (word)
		rc = codec_word(in.ptr, in.len, idx, d.ptr, d.len, count, &off, &len);
	else
		rc = codec_field(in.ptr, in.len, idx, d.ptr, d.len, count, &off, &len);
	if (rc < 0)
		return 0;
	smp->data.u.str = ist2(in.ptr + off, len);
	return 1;
}

static int conv_field_check(struct arg *args, void *private, char *err, size_t errsz)
{
	if (!args[0].data.sint) {
		snprintf(err, errsz, "Unexpected value 0 for index");
		return -1;
	}
	if (!args[1].data.str.len) {
		snprintf(err, errsz, "Empty separators list");
		return -1;
	}
	return 0;
}

/* ---- dates ---- */

/* ltime / utime(format[,offset]): an empty result or one that does not fit is an empty
 * string, as HAProxy gives. */
static int conv_time(const struct arg *args, struct sample *smp, void *private)
{
	bool utc = CONV_PRIV_INT(private);
	long long off = conv_arg_int(&args[1], 0);
	char *out = smp_trash();
	int n;

	if (!out)
		return 0;
	n = codec_strftime(smp->data.u.sint, off, utc, args[0].data.str.ptr, out, smp_trash_size());
	if (n < 0)
		return 0;
	conv_set_str(smp, SMP_T_STR, out, (size_t)n);
	return 1;
}

static int conv_http_date(const struct arg *args, struct sample *smp, void *private)
{
	long long off = conv_arg_int(&args[0], 0);
	int unit = (int)conv_arg_int(&args[1], CODEC_UNIT_S);
	char *out = smp_trash();
	size_t outsz = smp_trash_size();

	if (!out)
		return 0;
	return conv_done(smp, SMP_T_STR, out,
			 codec_http_date(smp->data.u.sint, off, unit, out, outsz));
}

/* The unit (second argument) becomes an integer. */
static int conv_http_date_check(struct arg *args, void *private, char *err, size_t errsz)
{
	int unit;

	if (args[1].type != ARGT_STR)
		return 0;
	unit = codec_time_unit_parse(args[1].data.str.ptr);
	if (unit < 0) {
		snprintf(err, errsz, "expects 's', 'ms' or 'us', got '%s'", args[1].data.str.ptr);
		return -1;
	}
	arg_set_sint(&args[1], unit);
	return 0;
}

/* ---- JSON ---- */

static int conv_json(const struct arg *args, struct sample *smp, void *private)
{
	int enc = (int)conv_arg_int(&args[0], JSON_ENC_ASCII);
	struct ist in = smp->data.u.str;
	char *out = smp_trash();
	size_t outsz = smp_trash_size();

	if (!out)
		return 0;
	return conv_done(smp, SMP_T_STR, out, json_escape(in.ptr, in.len, enc, out, outsz));
}

/* The input code (first argument) becomes an integer. */
static int conv_json_check(struct arg *args, void *private, char *err, size_t errsz)
{
	int enc;

	if (args[0].type != ARGT_STR)
		return 0;
	enc = args[0].data.str.len ? json_enc_parse(args[0].data.str.ptr) : JSON_ENC_ASCII;
	if (enc < 0) {
		snprintf(err, errsz,
			 "Unexpected input code type. Allowed value are 'ascii', "
			 "'utf8', 'utf8s', 'utf8p' and 'utf8ps'");
		return -1;
	}
	arg_set_sint(&args[0], enc);
	return 0;
}

int conv_json_set(struct sample *smp, const struct json_result *res, char *out, unsigned int flags)
{
	switch (res->kind) {
	case JSON_K_STRING:
		conv_set_str(smp, SMP_T_STR, out, res->len);
		return 1;
	case JSON_K_NUMBER:
		if (flags & JSON_Q_INT)
			conv_set_sint(smp, SMP_T_SINT, res->i);
		else
			conv_set_str(smp, SMP_T_STR, out, res->len);
		return 1;
	case JSON_K_TRUE:
	case JSON_K_FALSE:
		conv_set_sint(smp, SMP_T_BOOL, res->i);
		return 1;
	default:
		return 0;
	}
}

/* json_query(path[,int]): strings and (without "int") numbers as text, booleans as
 * booleans, integers with "int"; null, objects and arrays fail as in HAProxy 2.6. */
static int conv_json_query(const struct arg *args, struct sample *smp, void *private)
{
	unsigned int flags = args[1].type == ARGT_SINT ? JSON_Q_INT : 0;
	struct ist in = smp->data.u.str, path = args[0].data.str;
	struct json_result res;
	char *out = smp_trash();

	if (!out ||
	    json_query(in.ptr, in.len, path.ptr, path.len, flags, out, smp_trash_size(), &res) < 0)
		return 0;
	return conv_json_set(smp, &res, out, flags);
}

/* The output type (second argument) may only be "int"; it becomes an integer. */
int conv_json_query_check(struct arg *args, void *private, char *err, size_t errsz)
{
	if (args[1].type != ARGT_STR)
		return 0;
	if (strcmp(args[1].data.str.ptr, "int") != 0) {
		snprintf(err, errsz, "output_type only supports \"int\" as argument");
		return -1;
	}
	arg_set_sint(&args[1], 1);
	return 0;
}

static const struct sample_conv codec_convs[] = {
	{ "base64", conv_base64, 0, { 0 }, NULL, SMP_T_BIN, SMP_T_STR, CONV_PRIV(0) },
	{ "ub64enc", conv_base64, 0, { 0 }, NULL, SMP_T_BIN, SMP_T_STR, CONV_PRIV(1) },
	{ "b64dec", conv_b64dec, 0, { 0 }, NULL, SMP_T_STR, SMP_T_BIN, CONV_PRIV(0) },
	{ "ub64dec", conv_b64dec, 0, { 0 }, NULL, SMP_T_STR, SMP_T_BIN, CONV_PRIV(1) },
	{ "hex", conv_hex, 0, { 0 }, NULL, SMP_T_BIN, SMP_T_STR, NULL },
	{ "hex2i", conv_hex2i, 0, { 0 }, NULL, SMP_T_STR, SMP_T_SINT, NULL },
	{ "url_dec", conv_url_dec, 0, { ARGT_SINT }, NULL, SMP_T_STR, SMP_T_STR, NULL },
	{ "url_enc",
	  conv_url_enc,
	  0,
	  { ARGT_STR },
	  conv_url_enc_check,
	  SMP_T_STR,
	  SMP_T_STR,
	  NULL },
	{ "be2dec",
	  conv_be2dec,
	  2,
	  { ARGT_STR, ARGT_SINT, ARGT_SINT },
	  conv_be2dec_check,
	  SMP_T_BIN,
	  SMP_T_STR,
	  NULL },
	{ "be2hex",
	  conv_be2hex,
	  0,
	  { ARGT_STR, ARGT_SINT, ARGT_SINT },
	  conv_be2hex_check,
	  SMP_T_BIN,
	  SMP_T_STR,
	  NULL },
	{ "field",
	  conv_field,
	  2,
	  { ARGT_SINT, ARGT_STR, ARGT_SINT },
	  conv_field_check,
	  SMP_T_STR,
	  SMP_T_STR,
	  CONV_PRIV(0) },
	{ "word",
	  conv_field,
	  2,
	  { ARGT_SINT, ARGT_STR, ARGT_SINT },
	  conv_field_check,
	  SMP_T_STR,
	  SMP_T_STR,
	  CONV_PRIV(1) },
	{ "ltime",
	  conv_time,
	  1,
	  { ARGT_STR, ARGT_SINT },
	  NULL,
	  SMP_T_SINT,
	  SMP_T_STR,
	  CONV_PRIV(0) },
	{ "utime",
	  conv_time,
	  1,
	  { ARGT_STR, ARGT_SINT },
	  NULL,
	  SMP_T_SINT,
	  SMP_T_STR,
	  CONV_PRIV(1) },
	{ "http_date",
	  conv_http_date,
	  0,
	  { ARGT_SINT, ARGT_STR },
	  conv_http_date_check,
	  SMP_T_SINT,
	  SMP_T_STR,
	  NULL },
	{ "json", conv_json, 0, { ARGT_STR }, conv_json_check, SMP_T_STR, SMP_T_STR, NULL },
	{ "json_query",
	  conv_json_query,
	  1,
	  { ARGT_STR, ARGT_STR },
	  conv_json_query_check,
	  SMP_T_STR,
	  SMP_T_ANY,
	  NULL },
	{ NULL, NULL, 0, { 0 }, NULL, 0, 0, NULL },
};

SMP_REGISTER_CONVS(codec_convs)
