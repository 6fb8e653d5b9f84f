/* Helpers shared by the converter files (conv.c; used by conv_num.c, conv_str.c, ...):
 * HAProxy's lenient integer reading, arguments that are "a number or a variable name", and
 * reading a variable as a string or bytes. Parse-time helpers return 0 or -1 with a message;
 * run-time helpers return 1 when a value was produced, 0 otherwise, and allocate nothing.
 */
#ifndef SAMPLE_CONV_H
#define SAMPLE_CONV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sample/sample-t.h>

/* Reads an optional sign and decimal digits from s[0..len) as HAProxy's read_int64: stops
 * at the first other byte, saturates at the 64-bit limits, gives 0 when there is no digit.
 * Sets *end to the first byte not read.
 */
long long conv_read_int64(const char *s, size_t len, const char **end);

/* Parse-time check of an ARGT_STR argument that holds "scope.name" or an integer (as
 * read by conv_read_int64, with nothing after it): turns it into ARGT_VAR or ARGT_SINT.
 * Returns 0, or -1 with "expects an integer or a variable name" in err.
 */
int conv_arg_int_or_var(struct arg *a, char *err, size_t errsz);

/* Parse-time: an ARGT_STR argument that reads as "scope.name" becomes ARGT_VAR; any other
 * text stays a constant string. Returns true when it became a variable.
 */
bool conv_arg_str_or_var(struct arg *a);

/* Parse-time check of an ARGT_STR argument naming a variable: an empty one is left as an
 * empty string (meaning "none"), any other must be "scope.name" and becomes ARGT_VAR.
 * Returns 0, or -1 with a message in err.
 */
int conv_arg_opt_var(struct arg *a, char *err, size_t errsz);

/* Run time: the integer value of an argument checked by conv_arg_int_or_var(), read from
 * the variable when it is one (cast to an integer). Returns 1, or 0 when the variable is
 * not set or not an integer.
 */
int conv_arg_sint(const struct arg *a, const struct smp_ctx *ctx, long long *v);

/* Run time: the variable of an ARGT_VAR argument as a string view (cast to text when it
 * is a number or an address) into *out. Returns 1, or 0 when it is not set.
 */
int conv_var_str(const struct arg *a, const struct smp_ctx *ctx, struct ist *out);

/* Sets a string result of <type> (SMP_T_STR or SMP_T_BIN) from buf[0..len), where buf
 * belongs to the converter (a scratch chunk): the sample is then writable. */
static inline void conv_set_str(struct sample *smp, int type, char *buf, size_t len)
{
	smp->data.type = type;
	smp->data.u.str.ptr = buf;
	smp->data.u.str.len = len;
	smp->flags &= ~SMP_F_CONST;
}

/* When <name> (len bytes) is one of HAProxy's converters that this proxy does not provide,
 * why ("is not supported yet"...: the parser says so instead of "unknown converter");
 * else NULL. */
const char *conv_unsupported(const char *name, size_t len);

/* A small constant as a converter's <private> pointer, and back. */
#define CONV_PRIV(v) ((void *)(uintptr_t)(v))
#define CONV_PRIV_INT(p) ((int)(uintptr_t)(p))

static inline void conv_set_sint(struct sample *smp, int type, long long v)
{
	smp->data.type = type;
	smp->data.u.sint = v;
}

struct json_result;

/* The result <res> of a json_query() (text in <out>, a scratch chunk) as json_query's
 * converter gives it: strings and (without JSON_Q_INT in <flags>) numbers as text,
 * booleans as booleans, integers with JSON_Q_INT; 0 for null, objects and arrays. Shared
 * by json_query and the jwt_*_query converters. */
int conv_json_set(struct sample *smp, const struct json_result *res, char *out, unsigned int flags);
/* The check of json_query's optional output type: only "int", which becomes an integer. */
int conv_json_query_check(struct arg *args, void *private, char *err, size_t errsz);

#endif
