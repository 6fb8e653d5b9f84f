/* Helpers shared by the converters: HAProxy's lenient integer reading, arguments that are
 * "a number or a variable name", and variables read as strings. The converters themselves
 * live in conv_num.c, conv_str.c, conv_codec.c and conv_hash.c; maps in map.c.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sample/arg.h>
#include <sample/conv.h>
#include <sample/sample.h>
#include <sample/vars.h>

long long conv_read_int64(const char *s, size_t len, const char **end)
{
	const char *e = s + len;
	unsigned long long v = 0, lim;
	bool neg = false;

	if (s < e && (*s == '-' || *s == '+'))
		neg = *s++ == '-';
	lim = neg ? (unsigned long long)LLONG_MAX + 1 : (unsigned long long)LLONG_MAX;
	for (; s < e && *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		v = v > (lim - d) / 10 ? lim : v * 10 + d;
	}
	*end = s;
	if (neg)
		return v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN : -(long long)v;
	return (long long)v;
}

bool conv_arg_str_or_var(struct arg *a)
{
	struct var_desc d;
	char verr[128];

	if (a->type != ARGT_STR || !strchr(a->data.str.ptr, '.') ||
	    vars_parse_desc(a->data.str.ptr, &d, verr, sizeof(verr)) < 0)
		return false;
	arg_drop_str(a, ARGT_VAR);
	a->data.var = d;
	return true;
}

int conv_arg_int_or_var(struct arg *a, char *err, size_t errsz)
{
	const char *end;
	long long v;

	if (a->type != ARGT_STR || conv_arg_str_or_var(a))
		return 0; /* absent (the converter's default), or a variable */
	v = conv_read_int64(a->data.str.ptr, a->data.str.len, &end);
	if (*end) {
		snprintf(err, errsz, "expects an integer or a variable name");
		return -1;
	}
	arg_set_sint(a, v);
	return 0;
}

int conv_arg_opt_var(struct arg *a, char *err, size_t errsz)
{
	struct var_desc d;
	char verr[160];

	if (a->type != ARGT_STR || !a->data.str.len)
		return 0;
	if (vars_parse_desc(a->data.str.ptr, &d, verr, sizeof(verr)) < 0) {
		snprintf(err, errsz, "failed to register variable name '%s': %s", a->data.str.ptr,
			 verr);
		return -1;
	}
	arg_drop_str(a, ARGT_VAR);
	a->data.var = d;
	return 0;
}

int conv_arg_sint(const struct arg *a, const struct smp_ctx *ctx, long long *v)
{
	struct sample tmp = { .ctx = ctx };

	if (a->type == ARGT_SINT) {
		*v = a->data.sint;
		return 1;
	}
	if (a->type != ARGT_VAR || !vars_get(ctx, &a->data.var, &tmp) ||
	    !sample_cast(&tmp, SMP_T_SINT))
		return 0;
	*v = tmp.data.u.sint;
	return 1;
}

int conv_var_str(const struct arg *a, const struct smp_ctx *ctx, struct ist *out)
{
	struct sample tmp = { .ctx = ctx };

	if (a->type != ARGT_VAR || !vars_get(ctx, &a->data.var, &tmp))
		return 0;
	if (tmp.data.type != SMP_T_STR && tmp.data.type != SMP_T_BIN &&
	    tmp.data.type != SMP_T_METH && !sample_cast(&tmp, SMP_T_STR))
		return 0;
	*out = tmp.data.u.str;
	return 1;
}

/* HAProxy 2.6's converters that are not here, with the reason the parser gives. A name
 * registered later by a module wins (this list is only read for names no module
 * registered). */
#define CONV_NOT_YET "is not supported yet"
#define CONV_DEVICE \
	"needs a device-detection library this proxy does not build with (not supported)"

static const struct {
	const char *name;
	const char *why;
} conv_missing[] = {
	{ "in_table", CONV_NOT_YET },
	{ "table_bytes_in_rate", CONV_NOT_YET },
	{ "table_bytes_out_rate", CONV_NOT_YET },
	{ "table_conn_cnt", CONV_NOT_YET },
	{ "table_conn_cur", CONV_NOT_YET },
	{ "table_conn_rate", CONV_NOT_YET },
	{ "table_expire", CONV_NOT_YET },
	{ "table_gpc", CONV_NOT_YET },
	{ "table_gpc_rate", CONV_NOT_YET },
	{ "table_gpc0", CONV_NOT_YET },
	{ "table_gpc0_rate", CONV_NOT_YET },
	{ "table_gpc1", CONV_NOT_YET },
	{ "table_gpc1_rate", CONV_NOT_YET },
	{ "table_gpt", CONV_NOT_YET },
	{ "table_gpt0", CONV_NOT_YET },
	{ "table_http_err_cnt", CONV_NOT_YET },
	{ "table_http_err_rate", CONV_NOT_YET },
	{ "table_http_fail_cnt", CONV_NOT_YET },
	{ "table_http_fail_rate", CONV_NOT_YET },
	{ "table_http_req_cnt", CONV_NOT_YET },
	{ "table_http_req_rate", CONV_NOT_YET },
	{ "table_idle", CONV_NOT_YET },
	{ "table_kbytes_in", CONV_NOT_YET },
	{ "table_kbytes_out", CONV_NOT_YET },
	{ "table_server_id", CONV_NOT_YET },
	{ "table_sess_cnt", CONV_NOT_YET },
	{ "table_sess_rate", CONV_NOT_YET },
	{ "table_trackers", CONV_NOT_YET },
	{ "51d.single", CONV_DEVICE },
	{ "da-csv-conv", CONV_DEVICE },
};

const char *conv_unsupported(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(conv_missing) / sizeof(conv_missing[0]); i++)
		if (strlen(conv_missing[i].name) == len && !memcmp(conv_missing[i].name, name, len))
			return conv_missing[i].why;
	return NULL;
}
